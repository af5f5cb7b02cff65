/* SPDX-License-Identifier: MIT */
#pragma once

/* Scratch memory for one policy step: allocations bump through a block the
 * Policy keeps and are all given back at once when the step ends. What does
 * not fit goes into blocks of its own for that step, and the next step's
 * block is large enough for all of it: once the cluster stopped growing, a
 * step asks the C library for nothing. */

#include <stddef.h>

typedef struct ArenaSpill ArenaSpill;

typedef struct Arena {
        char *block;
        size_t size, used;
        ArenaSpill *spills; /* this step's allocations beyond the block */
        size_t spilled;     /* their bytes */
} Arena;

/* n zeroed elements of size bytes each, aligned for any type; NULL when the
 * size overflows or memory is short. */
void *arena_alloc(Arena *a, size_t n, size_t size);
/* Gives every allocation back; the block grows to what the step used. */
void arena_reset(Arena *a);
void arena_done(Arena *a);

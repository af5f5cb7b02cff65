/* SPDX-License-Identifier: MIT */
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/arena.h"

#define ARENA_ALIGN alignof(max_align_t)

struct ArenaSpill {
        ArenaSpill *next;
        max_align_t data[];
};

void *arena_alloc(Arena *a, size_t n, size_t size) {
        size_t bytes;
        void *p;

        if (size != 0 && n > (SIZE_MAX - 4 * ARENA_ALIGN) / size)
                return NULL;
        bytes = (MAX(n * size, (size_t)1) + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
        if (bytes <= a->size - a->used) {
                p = a->block + a->used;
                a->used += bytes;
        } else {
                ArenaSpill *s = malloc(sizeof(ArenaSpill) + bytes);

                if (!s)
                        return NULL;
                s->next = a->spills;
                a->spills = s;
                a->spilled += bytes;
                p = s->data;
        }
        return memset(p, 0, n * size);
}

static void spills_free(Arena *a) {
        while (a->spills) {
                ArenaSpill *next = a->spills->next;

                free(a->spills);
                a->spills = next;
        }
        a->spilled = 0;
}

void arena_reset(Arena *a) {
        size_t want = a->used + a->spilled;

        spills_free(a);
        a->used = 0;
        if (want <= a->size)
                return;
        /* Nothing in the block is kept: a new one, not a copy. A failure
         * leaves no block, and the next step spills again. */
        free(a->block);
        a->block = malloc(want);
        a->size = a->block ? want : 0;
}

void arena_done(Arena *a) {
        spills_free(a);
        free(a->block);
        *a = (Arena){ 0 };
}

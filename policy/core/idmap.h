/* SPDX-License-Identifier: MIT */
#pragma once

/* What a layer remembers across steps, keyed by the driver's stable ids
 * (Task.id, Job.id, ...): snapshot indices change from step to step, ids do
 * not. An open-addressing hash table of values of one fixed size (plain
 * data, aligned to 8 bytes at most), each zeroed when its id first comes.
 * A layer forgets what no step needs any more with a sweep: each entry put
 * or touched since the last sweep stays, the others go. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct IdMap {
        size_t value_size;
        size_t n, cap;       /* entries, and records (a power of two, or 0) */
        uint64_t sweeps;     /* so far */
        unsigned char *recs; /* cap records: IdMapHead, then the value */
} IdMap;

/* A layer's init op, for a layer whose state is one IdMap: -ENOMEM. */
int idmap_new_state(size_t value_size, void **ret_state);
IdMap *idmap_free(IdMap *m);
void idmap_init(IdMap *m, size_t value_size);
void idmap_done(IdMap *m);
/* The value of id; NULL when it has none. */
void *idmap_get(const IdMap *m, uint64_t id);
/* The value of id, a zeroed one when it had none, touched; -ENOMEM. */
int idmap_put(IdMap *m, uint64_t id, void **ret_value);
/* Keeps id's entry, if it has one, through the next sweep. */
void idmap_touch(IdMap *m, uint64_t id);
void idmap_remove(IdMap *m, uint64_t id);
/* Removes every entry neither put nor touched since the last sweep. */
void idmap_sweep(IdMap *m);

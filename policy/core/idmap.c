/* SPDX-License-Identifier: MIT */
/* Linear probing, at most half full, with backward-shift deletion: no
 * tombstones, so lookups stay short however often entries come and go. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/core/idmap.h"

typedef struct IdMapHead {
        uint64_t id;
        /* 0: an empty record; else 1 + the sweeps there had been when the
         * entry was last put or touched. */
        uint64_t stamp;
} IdMapHead;

static size_t rec_size(const IdMap *m) {
        return sizeof(IdMapHead) + (m->value_size + 7) / 8 * 8;
}

static IdMapHead *rec(const IdMap *m, size_t i) {
        return (IdMapHead *)(void *)(m->recs + i * rec_size(m));
}

/* Fibonacci hashing: ids are often consecutive. */
static size_t home(const IdMap *m, uint64_t id) {
        return (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 32) & (m->cap - 1);
}

void idmap_init(IdMap *m, size_t value_size) {
        *m = (IdMap){ .value_size = value_size };
}

void idmap_done(IdMap *m) {
        free(m->recs);
        idmap_init(m, m->value_size);
}

int idmap_new_state(size_t value_size, void **ret_state) {
        IdMap *m = malloc(sizeof(*m));

        if (!m)
                return -ENOMEM;
        idmap_init(m, value_size);
        *ret_state = m;
        return 0;
}

IdMap *idmap_free(IdMap *m) {
        if (m)
                idmap_done(m);
        free(m);
        return NULL;
}

static size_t find(const IdMap *m, uint64_t id) {
        size_t i = home(m, id);

        while (rec(m, i)->stamp != 0 && rec(m, i)->id != id)
                i = (i + 1) & (m->cap - 1);
        return i;
}

/* The record of id; NULL when it has none. */
static IdMapHead *lookup(const IdMap *m, uint64_t id) {
        IdMapHead *h;

        if (m->n == 0)
                return NULL;
        h = rec(m, find(m, id));
        return h->stamp != 0 ? h : NULL;
}

void *idmap_get(const IdMap *m, uint64_t id) {
        IdMapHead *h = lookup(m, id);

        return h ? h + 1 : NULL;
}

static int grow(IdMap *m) {
        IdMap bigger = *m;

        bigger.cap = m->cap ? 2 * m->cap : 16;
        bigger.recs = calloc(bigger.cap, rec_size(m));
        if (!bigger.recs)
                return -ENOMEM;
        for (size_t i = 0; i < m->cap; i++)
                if (rec(m, i)->stamp != 0)
                        memcpy(rec(&bigger, find(&bigger, rec(m, i)->id)), rec(m, i), rec_size(m));
        free(m->recs);
        *m = bigger;
        return 0;
}

int idmap_put(IdMap *m, uint64_t id, void **ret_value) {
        IdMapHead *h;

        if (2 * (m->n + 1) > m->cap) {
                int r = grow(m);

                if (r < 0)
                        return r;
        }
        h = rec(m, find(m, id));
        if (h->stamp == 0) {
                memset(h, 0, rec_size(m));
                h->id = id;
                m->n++;
        }
        h->stamp = m->sweeps + 1;
        *ret_value = h + 1;
        return 0;
}

void idmap_touch(IdMap *m, uint64_t id) {
        IdMapHead *h = lookup(m, id);

        if (h)
                h->stamp = m->sweeps + 1;
}

/* Empties record i and moves back the ones after it that their home
 * allows, so that no probe sequence crosses a hole. */
static void remove_at(IdMap *m, size_t i) {
        size_t mask = m->cap - 1;

        for (size_t j = (i + 1) & mask; rec(m, j)->stamp != 0; j = (j + 1) & mask) {
                size_t k = home(m, rec(m, j)->id);

                /* j stays when its home lies cyclically in (i, j]. */
                if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
                        continue;
                memcpy(rec(m, i), rec(m, j), rec_size(m));
                i = j;
        }
        rec(m, i)->stamp = 0;
        m->n--;
}

void idmap_remove(IdMap *m, uint64_t id) {
        if (lookup(m, id))
                remove_at(m, find(m, id));
}

void idmap_sweep(IdMap *m) {
        size_t start = 0;

        /* From an empty record, a removal only moves records the pass has
         * not reached into the hole it left, which is looked at again. */
        while (m->n > 0 && rec(m, start)->stamp != 0)
                start++;
        for (size_t k = 0; m->n > 0 && k < m->cap;) {
                size_t i = (start + k) & (m->cap - 1);
                uint64_t stamp = rec(m, i)->stamp;

                if (stamp != 0 && stamp != m->sweeps + 1)
                        remove_at(m, i);
                else
                        k++;
        }
        m->sweeps++;
}

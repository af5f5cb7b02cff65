/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/local-maps.h"

static uint64_t entry_of(uint32_t node, uint32_t position) {
        return (uint64_t)node << 32 | position;
}

static int compare_entries(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

        return (x > y) - (x < y);
}

/* Its locations, each once (task_is_local()'s bound). */
static unsigned distinct_locations(const Task *t, uint32_t *ret) {
        unsigned n = 0;

        for (unsigned i = 0; i < t->n_locations && i < MAX_REPLICAS; i++) {
                bool seen = false;

                for (unsigned k = 0; k < n; k++)
                        seen = seen || ret[k] == t->locations[i];
                if (!seen)
                        ret[n++] = t->locations[i];
        }
        return n;
}

int local_maps_build(LocalMaps *m, const ClusterSnapshot *s, uint32_t job, const uint32_t *tasks,
                     uint32_t n) {
        size_t count = 0;
        uint64_t *entries;

        local_maps_done(m);
        for (uint32_t p = 0; p < n; p++)
                if (s->tasks[tasks[p]].type == TASK_MAP)
                        count += MIN(s->tasks[tasks[p]].n_locations, (unsigned)MAX_REPLICAS);
        entries = malloc(MAX(count, (size_t)1) * sizeof(*entries));
        if (!entries)
                return -ENOMEM;
        count = 0;
        for (uint32_t p = 0; p < n; p++) {
                const Task *t = &s->tasks[tasks[p]];
                uint32_t nodes[MAX_REPLICAS];
                unsigned k = t->type == TASK_MAP ? distinct_locations(t, nodes) : 0;

                for (unsigned i = 0; i < k; i++)
                        entries[count++] = entry_of(nodes[i], p);
        }
        qsort(entries, count, sizeof(*entries), compare_entries);
        *m = (LocalMaps){
                .job_id = s->jobs[job].id, .n_tasks = n, .entries = entries, .n_entries = count
        };
        return 0;
}

bool local_maps_for(const LocalMaps *m, const Job *job, uint32_t n_tasks) {
        return m->entries && m->job_id == job->id && m->n_tasks == n_tasks;
}

bool local_maps_hold(const LocalMaps *m, const ClusterSnapshot *s, const uint32_t *tasks) {
        size_t distinct = 0;

        for (uint32_t p = 0; p < m->n_tasks; p++) {
                uint32_t nodes[MAX_REPLICAS];

                if (s->tasks[tasks[p]].type == TASK_MAP)
                        distinct += distinct_locations(&s->tasks[tasks[p]], nodes);
        }
        if (distinct != m->n_entries)
                return false;
        /* The entries are distinct (ascending), each a pair of the tasks',
         * and as many as the pairs: the same set. */
        for (size_t i = 0; i < m->n_entries; i++) {
                uint32_t position = (uint32_t)m->entries[i];
                const Task *t;

                if ((i > 0 && m->entries[i - 1] >= m->entries[i]) || position >= m->n_tasks)
                        return false;
                t = &s->tasks[tasks[position]];
                if (t->type != TASK_MAP || !task_is_local(t, (uint32_t)(m->entries[i] >> 32)))
                        return false;
        }
        return true;
}

const uint64_t *local_maps_from(const LocalMaps *m, uint32_t node, uint32_t from,
                                const uint64_t **ret_end) {
        uint64_t key = entry_of(node, from);
        size_t lo = 0, hi = m->n_entries;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (m->entries[mid] < key)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        *ret_end = m->entries + m->n_entries;
        return m->entries + lo;
}

void local_maps_done(LocalMaps *m) {
        free(m->entries);
        *m = (LocalMaps){};
}

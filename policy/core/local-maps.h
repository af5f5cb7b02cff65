/* SPDX-License-Identifier: MIT */
#pragma once

/* One job's map tasks by the nodes that hold their splits, kept from step to
 * step: what lets a search for a pending map local to the node that asks
 * cost that node's share of the job, where a scan from the job's first
 * pending map costs the job's maps whenever the node holds none of them
 * (most nodes, towards a big job's end). Hadoop's JobInProgress keeps a
 * cache of the maps not running per node (nonRunningMapCache) for the
 * same search. A driver vouches that a task's locations stay as they are
 * while its job keeps its id and its tasks (model.h, Task.locations). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/core/model.h"

/* A job with fewer tasks is scanned: its scan costs no more than a
 * search of an index and its upkeep. */
#define LOCAL_MAPS_MIN_TASKS 128u

typedef struct LocalMaps {
        uint64_t job_id;  /* Job.id it was built for, */
        uint32_t n_tasks; /* with that many tasks */
        /* Each (node, position of a map among its job's tasks) once, as
         * node << 32 | position, ascending; NULL: not built. */
        uint64_t *entries;
        size_t n_entries;
} LocalMaps;

/* Built for the job's tasks, tasks[0 .. n) in the job's order; -ENOMEM. */
int local_maps_build(LocalMaps *m, const ClusterSnapshot *s, uint32_t job, const uint32_t *tasks,
                     uint32_t n);
/* Built for this job and its tasks. */
bool local_maps_for(const LocalMaps *m, const Job *job, uint32_t n_tasks);
/* What a fresh build would hold: each entry a map local to its node, and
 * as many entries as the maps have distinct locations. */
bool local_maps_hold(const LocalMaps *m, const ClusterSnapshot *s, const uint32_t *tasks);
/* The first entry of node's maps from position `from` on; they go on
 * while an entry's node (its high 32 bits) is node, up to *ret_end. */
const uint64_t *local_maps_from(const LocalMaps *m, uint32_t node, uint32_t from,
                                const uint64_t **ret_end);
void local_maps_done(LocalMaps *m);

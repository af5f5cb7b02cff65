/* SPDX-License-Identifier: MIT */
#pragma once

/* RAS's Placement Algorithm (Polo et al., "Resource-aware Adaptive
 * Scheduling for MapReduce Clusters", Middleware 2011, section 3.4 and
 * Algorithm 1): a placement matrix of map and reduce job slots on the
 * trackers that raises the lowest job utility (Eq. 4, ras-utility.h) and
 * never exceeds a tracker's CPU, I/O or memory (Eq. 6). Plain arrays, no
 * snapshot: sched-ras.c builds the input from one, and the tests from hand.
 *
 * Choices where the paper is vague:
 *
 * - The algorithm starts from the tasks running now (the paper's input P):
 *   they hold their resources until they end, since RAS neither moves nor
 *   kills a running task; the placement adds to them.
 * - Reduces (lines 1-8): one pass per job in submission order over the
 *   trackers sorted by their reduces, then the job's own, each tracker
 *   getting at most one of the job's unplaced reduces when it has room, as
 *   the listing has it; a job with more unplaced reduces than trackers
 *   places the rest in later cycles.
 * - Maps (lines 9-25): each round visits every tracker. While the job of
 *   lowest utility that still has an unfinished map without a slot does
 *   not fit on the tracker, map slots of the tracker's job of highest
 *   utility are taken away, but only while that job's utility stays above
 *   the lowest ("a task gets de-allocated only if the utility of its
 *   corresponding job remains higher than the lowest utility", 3.4); if
 *   the lowest job still does not fit, the removals are undone. Then the
 *   tracker is filled greedily, each slot to the job of lowest utility that
 *   fits. A removed slot may be one a running map holds: the map runs on,
 *   and the Task Scheduler starts no new map of that job there until the
 *   running ones fall below the placement (no kills: the paper has none).
 *   Rounds stop after `rounds` or when one changes nothing.
 * - A shuffling reduce uses the shuffle profile: its CPU and memory, and
 *   Table 2's I/O "per map placed" times the maps of its job in the
 *   placement, up to parallel_copies of them (Table 2's "upper bound set by
 *   parallelCopies": a reduce never fetches more map outputs at once, 3.6);
 *   so a map placed anywhere, while its job has fewer, may raise the I/O
 *   of the trackers that run that job's reduces, and it is placed only if
 *   they still fit.
 *   Once no map of a job waits for a slot (its map phase ends in this
 *   cycle: line 26), its reduces use the reduce profile (RasJob.reduce_phase,
 *   the caller's).
 * - Ties in utility go to the job first in the input (submission order). */

#include <stdbool.h>
#include <stddef.h>

#include "policy/core/model.h"

typedef struct RasJob {
        Resources map, shuffle, reduce; /* one task's demand in each phase */
        unsigned s_req;                 /* map slots its goal needs (ras_required_slots()) */
        unsigned s_pend;                /* maps not finished */
        unsigned r_pend;                /* reduces not finished */
        bool reduce_phase;              /* no map waits: reduces use the reduce profile */
        unsigned parallel_copies; /* maps a shuffling reduce fetches from at once; 0: no bound */
} RasJob;

typedef struct RasTracker {
        Resources capacity;
        unsigned slots[_SLOT_TYPE_MAX]; /* job slots it may hold at most, by SlotType */
} RasTracker;

/* A placement: job j's slots on tracker t at [j * n_trackers + t]. */
typedef struct RasPlacement {
        unsigned *map, *reduce;
} RasPlacement;

/* The placement of n_jobs jobs on n_trackers trackers: p holds the running
 * tasks on entry and the new placement on return, in which a reduce cell
 * never falls below what runs there and a map cell may (see above).
 * utility (n_jobs, NULL: not wanted) gets each job's utility under it.
 * -EINVAL for more running than a job's unfinished tasks, -ENOMEM; p is
 * untouched on failure. */
int ras_place(const RasJob *jobs, size_t n_jobs, const RasTracker *trackers, size_t n_trackers,
              unsigned rounds, RasPlacement *p, double *utility);

/* What tracker t uses under placement p (Eq. 6's left-hand side). */
Resources ras_tracker_use(const RasJob *jobs, size_t n_jobs, size_t n_trackers,
                          const RasPlacement *p, size_t t);
/* u_j under p. */
double ras_job_utility(const RasJob *job, unsigned s_alloc, unsigned r_alloc);
/* a + n b fits in capacity c, resource by resource. */
bool ras_fits(const Resources *a, const Resources *b, double n, const Resources *c);

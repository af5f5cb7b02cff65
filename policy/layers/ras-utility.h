/* SPDX-License-Identifier: MIT */
#pragma once

/* RAS's job utility (Polo et al., "Resource-aware Adaptive Scheduling for
 * MapReduce Clusters", Middleware 2011), section 3.3, Eq. 1-3, and the
 * Job Completion Time Estimator's s_req of section 3.2. Plain numbers:
 * times in seconds; no I/O, no clock.
 *
 * Choices where the paper is vague or its formulas are undefined:
 *
 * - s_req: the paper defers to its reference [6] and names the inputs (the
 *   completion time goal, the pending maps, the observed average task
 *   length). Here it is the concurrency that runs the pending maps by the
 *   goal, ceil(s_pend * task_length / (goal - now)), between 1 and s_pend.
 *   A job without a goal, or past it, wants all its pending maps at once
 *   ("completed at the earliest possible time", section 3.1). Before any
 *   map of the job finished the caller gives a prior task length (its
 *   profile's).
 * - Eq. 2 with s_pend = s_req (including no pending maps at all) divides by
 *   zero; every pending map then has its slot, which the paper calls the
 *   maximum satisfaction: u^M = 1. With s_alloc = 0 < s_req it is -infinity
 *   (the log's limit, and what s_req = 1 would give): a job without a slot
 *   is the least satisfied of all.
 * - Eq. 3 is undefined at r_alloc = 0 and at r_pend = 1; the paper gives its
 *   range as [-1, 0], so u^R is -1 without a reduce slot, 0 with all of
 *   them (and for a job with no reduce pending), the formula between.
 * - The cap at 1 (u_j = min(1, u^M + u^R)) covers an allocation beyond the
 *   pending maps. */

/* s_req for pending_maps maps of task_length (> 0) seconds each, at now
 * for a goal at goal (INFINITY: no goal). */
int ras_required_slots(unsigned pending_maps, double task_length, double now, double goal,
                       unsigned *ret);

/* Eq. 2, u_j^M: in [-infinity, 1] for s_alloc <= s_pend. */
double ras_utility_map(unsigned s_alloc, unsigned s_req, unsigned s_pend);
/* Eq. 3, u_j^R: in [-1, 0]. */
double ras_utility_reduce(unsigned r_alloc, unsigned r_pend);
/* Eq. 1 capped at 1. */
double ras_utility(unsigned s_alloc, unsigned s_req, unsigned s_pend, unsigned r_alloc,
                   unsigned r_pend);

/* SPDX-License-Identifier: MIT */
#pragma once

/* What ARIA's SLO scheduler (sched-aria.c) and the Deadline Constraint
 * Scheduler (sched-deadline.c) share, the slot assignment of their
 * Algorithm 1: jobs in order of earliest deadline, then the jobs without a
 * deadline in submission order. A job with a deadline runs at most its quota
 * of map and of reduce tasks at once, the least its deadline needs, which
 * each scheduler computes its own way; the slots that leaves go to the jobs
 * without deadlines (ARIA section 6: "once jobs with deadlines are allocated
 * their required minimums ..., the remaining slots can be distributed to
 * the other job classes"), and none to a job with a deadline beyond its
 * quota. The slots "remaining" are those free in the cluster beyond what
 * the jobs with deadlines still need (their quotas less their running
 * tasks, at most their pending tasks, reduces counted before they may
 * start): a job without a deadline that takes a reduce slot holds it until
 * all its maps are done, and one taken while a job with a deadline waits
 * for its first map would keep that job's reduces out past its deadline.
 * On a driver whose reduces read the map outputs at their start
 * (context_reduce_may_start()) no reduce holds a slot through a map phase,
 * and a job's reduces count only once they may start: else a deadline
 * job's whole map phase would keep every other job's reduces out of free
 * slots. Each free slot goes to the
 * first job in that order below its quota that has a task for it: for a map slot a map whose split
 * is on the node first, else any of its maps (ARIA's lines 9-12). Every task runs in a slot of its
 * own type.
 *
 * The spare slots (slo_spare, CoreSettings.slo): ARIA section 6 says
 * "in case there are spare slots, they can be allocated based on the
 * additional policy", and leaves that policy open beyond "jobs with
 * deadlines will have higher priorities for cluster resources than jobs
 * without deadlines". Off (the default), the slots beyond what the
 * deadline jobs still need go to the jobs without deadlines only, as
 * above. On, they go first to the deadline jobs, beyond their quotas, then
 * to the jobs without deadlines. Our choices where the paper is silent:
 * - The order among the deadline jobs is nearness to missing: the slack of
 *   the one loop's forecast (slo_forecast, at the job's measured speed) on
 *   the job's quota, (deadline - forecast) / (deadline - now), least first,
 *   when a part of the loop is on (slo_speed, slo_lever or slo_favour);
 *   else earliest deadline, ARIA's own order, since ARIA's model plans a
 *   job on its quota to end at its deadline and so ranks none nearer. A
 *   job without a forecast (no profile yet) comes after those with one.
 * - A job past its deadline, or one the loop's triage passed over, comes
 *   after those that can still meet theirs, before the jobs without.
 * - A job takes a spare slot only for a task it can start now (a pending
 *   map, a reduce once its reduces are open and the driver lets it start),
 *   so it never holds more than it can use; the next job gets the rest.
 * - A spare slot is one free beyond what the deadline jobs still need of
 *   their quotas, as for the jobs without deadlines.
 * Each such slot is reported (SpareNote: the job, the reason, the forecast
 * it was ranked by).
 *
 * A scheduler may mark a job hopeless (SloJob.hopeless: the one loop's
 * triage, slo-loop.h): it then comes after every job with a deadline that
 * can still meet it, so that a job past its deadline, which earliest
 * deadline first would put ahead of all others, does not make them miss
 * theirs too.
 *
 * Choices where the papers are vague:
 * - A job's running tasks are its running attempts that are not backups
 *   (a task the slot manager re-placed in the step counts where it went).
 * - The profile of a job (what both models read) is its stored profile
 *   (Job.stored_profile, ARIA's profile database) when it has one with a
 *   finished map, else the phase statistics of its own finished tasks
 *   (Job.profile); with a typical shuffle but no first one, or the reverse,
 *   the one measured stands for both (as aria_profile_extract() does), and
 *   the input per map is the job's input over its maps. A job with a
 *   deadline and neither gets a quota of all its tasks (no model to bound
 *   it) until its first map finishes. */

#include <stdbool.h>

#include "policy/core/context.h"
#include "policy/core/idmap.h"
#include "policy/layers/aria-model.h"

typedef struct SloJob {
        uint32_t job; /* index in the snapshot */
        bool deadline;
        /* It cannot meet its deadline any more (the one loop's triage,
         * slo-loop.h): after the jobs with deadlines that still can. */
        bool hopeless;
        unsigned quota[_TASK_TYPE_MAX];   /* with a deadline: at most this many running */
        unsigned running[_TASK_TYPE_MAX]; /* running tasks, and those this step assigns */
        bool reduces_open;                /* its reduces may start: the scheduler's rule */
        /* With slo_spare, for the order of the spare slots: passed over
         * (hopeless, or its deadline gone), its forecast end on its quota
         * (s, NAN: none) and its slack (slo_slack(), INFINITY: none). */
        bool passed;
        double forecast, slack;
} SloJob;

/* A scheduler's own part: the quota of job sj->job, which has a deadline,
 * and whether its reduces may start, into *sj; remembered is what the
 * scheduler keeps of the job across steps (its IdMap's value by Job.id,
 * zeroed when the job is new). */
typedef int (*SloQuotaFn)(PolicyContext *ctx, const void *settings, void *remembered, SloJob *sj);

/* One assignment step: the jobs in that order with their running tasks
 * counted, quota() for each with a deadline (the reduces of the others
 * start as the core's reduce_slowstart says), then the slots filled as
 * above and each unfinished job with a deadline given its quota as a
 * SlotQuota. What remembered holds of the jobs that left the snapshot
 * goes. */
int slo_schedule(PolicyContext *ctx, IdMap *remembered, const void *settings, SloQuotaFn quota);

/* The profile of job (above), which has maps tasks: -ENODATA without one. */
int slo_job_profile(const Job *job, unsigned maps, AriaProfile *ret);

/* Slots of a type on the nodes of s that may get tasks: slots[node] (a
 * step's, PolicyContext.slots[slot]), or the nodes' own for NULL. */
unsigned slo_cluster_slots(const ClusterSnapshot *s, const unsigned *slots, SlotType slot);

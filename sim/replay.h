/* SPDX-License-Identifier: MIT */
#pragma once

/* A task-level replay of jobs whose task times are given, the kind of
 * simulator ARIA's section 7.2 describes ("we simulate the jobs at the task
 * level", job master decisions only): no hosts, disks or network, each task
 * takes the time it is given, and a policy (policy/core) decides at
 * every job arrival and task end which pending task runs in which free
 * slot. The deadline papers state their jobs as task times, which
 * flexslot-sim's Hadoop model (sim.h) can only approximate; this runs them
 * as stated.
 *
 * A reduce takes its shuffle, then its reduce phase. ARIA's profile (its
 * section 2.2) splits the shuffle in two: a reduce that starts after the
 * job's last map shuffles for its typical shuffle time; one of the first
 * wave, started while maps still run, copies alongside them and is done
 * shuffling at the later of start + its typical shuffle and the last map's
 * end + its first shuffle (the part no map overlaps). */

#include <stdbool.h>
#include <stddef.h>

#include "policy/layers/aria-model.h"
#include "policy/layers/policies.h"

typedef struct ReplayJob {
        double submitted; /* seconds; under a load threshold, when it may come first */
        double deadline;  /* seconds after submission; 0: none */
        unsigned maps, reduces;
        const double *map_s;           /* [maps]: each map's run */
        const double *shuffle_s;       /* [reduces]: typical shuffle */
        const double *first_shuffle_s; /* [reduces]: non-overlapping first shuffle */
        const double *reduce_s;        /* [reduces]: reduce phase */
        const JobProfile *profile;     /* the stored profile; NULL: none */
} ReplayJob;

typedef struct ReplayOptions {
        unsigned nodes, map_slots, reduce_slots; /* slots per node */
        /* Above 0: only the first this many nodes have map (reduce) slots,
         * as in ARIA 5.2's allocations of one slot per machine. */
        unsigned map_nodes, reduce_nodes;
        /* Above 0: ARIA 7.2's arrivals, in order, each when the minimum
         * (map, reduce) slots of Eq. 15 for its deadline under gate_bound
         * plus the running tasks, as the share of map slots plus the share
         * of reduce slots, are at most this (or no job that came is left). */
        double load_threshold;
        AriaBound gate_bound;
} ReplayOptions;

typedef struct ReplayJobResult {
        double submitted, deadline; /* absolute; deadline 0: none */
        double finished;            /* of a refused job, its submission */
        double maps_end;
        bool refused;
        char reason[160];
        unsigned peak[_TASK_TYPE_MAX]; /* most tasks of each type running at once */
} ReplayJobResult;

typedef struct ReplayStats {
        double makespan;
        double load;    /* running tasks over all slots, averaged over the makespan */
        uint64_t steps; /* policy_step() calls */
        unsigned met, missed, refused; /* jobs with a deadline */
        double exceeded;               /* ARIA's utility: sum over missed jobs of (T - D) / D */
} ReplayStats;

/* Runs jobs (in submission order) under the layers and settings of cfg;
 * ret_jobs has n entries. -EINVAL for no job, or a job or option the replay
 * cannot run (no slot for a task type a job has, a time not finite or
 * negative),
 * -EDEADLK when the policy leaves tasks that nothing will start, or a
 * policy's error. */
int replay_run(const PolicyConfig *cfg, const ReplayOptions *o, const ReplayJob *jobs, size_t n,
               ReplayJobResult *ret_jobs, ReplayStats *ret);

/* A stored profile of job's own task times, with every reduce counted in
 * the typical and the first shuffle: what an earlier run alone would give
 * (ARIA's "known job profiles"). */
void replay_job_profile(const ReplayJob *job, JobProfile *ret);

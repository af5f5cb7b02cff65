/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* ARIA's performance model (Verma, Cherkasova, Campbell, "ARIA: Automatic
 * Resource Inference and Allocation for MapReduce Environments", ICAC'11):
 * the job profile of section 2.2, the completion-time bounds of section 3.2
 * (Eq. 1-9) and the minimum slots for a deadline of section 5.1 (Eq. 10-15).
 * Plain numbers: durations in seconds, sizes in bytes; no I/O, no clock.
 *
 * Choices where the paper is vague or its print is wrong:
 *
 * - Eq. 7 prints T_avg = (T_M^up + T_J^low) / 2, the map stage's upper bound
 *   beside the whole job's lower one; section 5.1 calls T_avg "the average
 *   between lower and upper bounds on the job completion time", so here
 *   T_avg = (T_J^up + T_J^low) / 2, and its coefficients (a, b, c) are the
 *   means of the two bounds' coefficients.
 * - The Makespan Theorem's bounds n*mu/k and (n-1)*mu/k + lambda assume
 *   n >= k; with more slots than tasks they fall below one task's duration
 *   (and Eq. 3 turns the shuffle time negative). A job cannot use more slots
 *   than it has tasks, so every bound is evaluated with min(S, N) slots, and
 *   Eq. 15's allocation is capped there too (Fig. 5 caps its upper-bound
 *   allocation at the cluster's 64 slots the same way).
 * - A job without reduce tasks has no shuffle and no reduce stage: its
 *   bounds are the map stage's alone (Eq. 1, 2), whatever the profile says
 *   about shuffles, and it needs no reduce slots.
 * - Eq. 15 minimizes m + r on the hyperbola a/m + b/r = D. When that point
 *   needs more map (reduce) slots than the cap, the cap is taken and the
 *   other count solved from the hyperbola: the least total on the capped
 *   region. Both are then rounded up (section 5.1), and a job with tasks of
 *   a kind gets at least one slot for them.
 * - Footnote 6: the paper omits how it normalizes durations by
 *   AvgSize_M^input and Selectivity_M; durations are used as profiled, and a
 *   new input size changes only the number of map tasks (section 2.2). */

/* Section 2.2. Shuffle durations include the interleaved sort. */
typedef struct AriaProfile {
        double map_min, map_avg, map_max; /* M_min, M_avg, M_max */
        double map_input;                 /* AvgSize_M^input, bytes per map task */
        double map_selectivity;           /* Selectivity_M: map output / map input */
        double sh1_avg, sh1_max;          /* first shuffle, non-overlapping part */
        double shtyp_avg, shtyp_max;      /* typical shuffle (later reduce waves) */
        double reduce_avg, reduce_max;    /* R_avg, R_max: the reduce phase alone */
        double reduce_selectivity;        /* Selectivity_R: reduce output / input */
} AriaProfile;

/* One completed task of a job, as a profiler records it. Times are seconds
 * on any clock common to the job's tasks. */
typedef struct AriaTask {
        bool reduce;
        double start, end;
        double shuffle_end;   /* reduce only: when its shuffle (and sort) ended */
        double input, output; /* bytes read and written */
} AriaTask;

/* Builds a profile from a finished job's tasks (at least one map).
 *
 * The map stage ends when its last map does. A reduce task that started
 * before then belongs to the first wave: its shuffle overlapped the map
 * stage, and only the part after the map stage ended counts (section 2.2,
 * "only the non-overlapping portions of the first shuffle"). A reduce task
 * that started later belongs to a later wave: its whole shuffle is a typical
 * one. A run with a single reduce wave measures no typical shuffle, and one
 * whose reduces all waited for the map stage (as the Deadline Constraint
 * Scheduler has them) no overlapping first one; the missing pair is then the
 * other one, the only shuffle the run measured. Selectivities are ratios of
 * the sums (0 when nothing was read). -EINVAL for no map task, a non-finite
 * or negative value, or a task that ends before it starts (or a reduce whose
 * shuffle ends outside it). */
int aria_profile_extract(const AriaTask *tasks, size_t n_tasks, AriaProfile *ret);

/* Checks that a profile is usable: finite, non-negative, M_avg > 0, a
 * positive input per map, and min <= avg <= max wherever both are given. */
int aria_profile_check(const AriaProfile *p);

/* Scaling to a new input (section 2.2): the number of map tasks,
 * ceil(input_bytes / AvgSize_M^input), at least 1. */
int aria_profile_map_tasks(const AriaProfile *p, double input_bytes, unsigned *ret);

typedef enum AriaBound {
        ARIA_LOWER,
        ARIA_AVERAGE,
        ARIA_UPPER,
        _ARIA_BOUND_MAX,
} AriaBound;

const char *aria_bound_to_string(AriaBound b);

/* The completion time under one bound as Eq. 9 writes it:
 * T = a / S_M + b / S_R + c, with a = A_J * N_M and b = B_J * N_R.
 * Lower (Eq. 8): a = N_M M_avg, b = N_R (Sh_avg^typ + R_avg),
 * c = Sh_avg^1 - Sh_avg^typ. Upper (Eq. 2, 4, 6 rewritten the same way):
 * a = (N_M - 1) M_avg, b = (N_R - 1)(Sh_avg^typ + R_avg),
 * c = M_max + Sh_max^1 - Sh_avg^typ + Sh_max^typ + R_max.
 * Average: the mean of the two. */
typedef struct AriaTerms {
        double a, b, c;
} AriaTerms;

int aria_terms(const AriaProfile *p, unsigned n_maps, unsigned n_reduces, AriaBound bound,
               AriaTerms *ret);

/* A completion-time estimate phase by phase (Eq. 1-7): the map stage, the
 * first shuffle's non-overlapping part, the typical shuffles of the later
 * waves and the reduce phase, and their sum. */
typedef struct AriaEstimate {
        double map, first_shuffle, shuffle, reduce, total;
} AriaEstimate;

/* For n_maps >= 1 tasks on map_slots >= 1 and n_reduces tasks on
 * reduce_slots (>= 1 when n_reduces > 0). */
int aria_estimate(const AriaProfile *p, unsigned n_maps, unsigned n_reduces, unsigned map_slots,
                  unsigned reduce_slots, AriaBound bound, AriaEstimate *ret);

typedef enum AriaVerdict {
        ARIA_MET,              /* the allocation meets the deadline under the bound */
        ARIA_DEADLINE_PASSED,  /* the deadline is not in the future */
        ARIA_CONSTANT_EXCEEDS, /* c >= deadline: no number of slots helps */
        ARIA_TOO_FEW_TASKS,    /* one slot per task still misses the deadline */
        ARIA_TOO_FEW_SLOTS,    /* the cluster's slots miss the deadline */
        _ARIA_VERDICT_MAX,
} AriaVerdict;

const char *aria_verdict_to_string(AriaVerdict v);

typedef struct AriaAllocation {
        AriaVerdict verdict;
        /* Met: the least slots that meet the deadline, rounded up. Missed:
         * all the job can use in the cluster, min(N, cluster slots), its
         * best chance. */
        unsigned map_slots, reduce_slots;
        /* Eq. 15's point before capping and rounding; 0 when the deadline
         * leaves no time after c (DEADLINE_PASSED, CONSTANT_EXCEEDS). */
        double map_exact, reduce_exact;
        AriaTerms terms;
        /* The bound's completion time with map_slots and reduce_slots
         * (INFINITY without a slot for a kind of task the job has). */
        double time;
} AriaAllocation;

/* Section 5.1: the minimum (map, reduce) slots for a job of n_maps (>= 1)
 * and n_reduces tasks to finish within deadline seconds from now under the
 * bound, for a cluster with cluster_map_slots and cluster_reduce_slots free
 * (UINT_MAX for no limit). Whether the deadline is met is the verdict, not
 * an error: -EINVAL only for a bad profile, no map task or a deadline that
 * is not a finite number. Algorithm 1's recompute as tasks finish calls
 * this again with the tasks left and the time left. */
int aria_min_slots(const AriaProfile *p, unsigned n_maps, unsigned n_reduces, double deadline,
                   unsigned cluster_map_slots, unsigned cluster_reduce_slots, AriaBound bound,
                   AriaAllocation *ret);

/* Why the deadline is missed, in a person's words with the numbers, for
 * the job aria_min_slots() was given; "" when it is met. */
void aria_allocation_explain(const AriaAllocation *al, unsigned n_maps, unsigned n_reduces,
                             double deadline, char *buf, size_t size);

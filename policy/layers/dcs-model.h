/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The Deadline Constraint Scheduler's cost model (Kc, Anyanwu, "Scheduling
 * Hadoop Jobs to Meet Deadlines", CloudCom 2010), section II-B with the
 * relaxations of II-B-1, and the schedulability test of section III-A.
 * Plain numbers: times in seconds, data in any one unit (the costs are per
 * that unit); no I/O, no clock.
 *
 * Choices where the paper is vague:
 *
 * - s_r^max (II-B) divides the reduce input by n_r without saying which
 *   n_r; section III-A computes it "based on the total number of reduce
 *   tasks specified for the job", so n_r is the job's reduce count v.
 * - Eq. 2's s_r is when the reduces start, known once the maps are done (the
 *   scheduler recomputes n_r^min then). At submission the test takes the
 *   model's own answer: the maps end at s_m + sigma c_m / n_m^min, and the
 *   reduces start there.
 * - Assumption 2 relaxed (worst-case skew) changes s_r^max alone, as the
 *   paper writes it: the whole f sigma may land on one reduce, so the time
 *   left for the maps is shorter. Eq. 2 is unchanged.
 * - A job without reduce tasks has neither reduce nor transfer cost: s_r^max
 *   is its deadline A + D, and it needs no reduce tasks.
 * - The model divides the map input evenly over n_m slots, however many map
 *   tasks the job has; the job cannot run more maps at once than it has
 *   (u), so an n_m^min above u fails the test. A job with maps needs at
 *   least one, even when its map cost is zero. */

typedef struct DcsJob {
        double arrival;       /* A */
        double deadline;      /* D, relative to A */
        double input;         /* sigma */
        double filter_ratio;  /* f: map output / map input */
        double map_cost;      /* c_m, per unit of map input (the slowest node's) */
        double reduce_cost;   /* c_r, per unit of reduce input (the slowest node's) */
        double transfer_cost; /* c_d, per unit moved from maps to reduces */
        unsigned maps;        /* u */
        unsigned reduces;     /* v, as the job specifies */
        bool worst_skew;      /* Assumption 2 relaxed: one reduce may get all of f sigma */
} DcsJob;

/* s_r^max, the latest the reduces may start (II-B; II-B-1 Assumption 2). */
int dcs_reduce_start_max(const DcsJob *job, double *ret);

/* Eq. 1: n_m^min for maps that start at map_start. -ETIME when no number of
 * map tasks meets the deadline (s_r^max <= map_start). */
int dcs_min_map_tasks(const DcsJob *job, double map_start, unsigned *ret);

/* Eq. 2: n_r^min for reduces that start at reduce_start; 0 for a job
 * without reduces. -ETIME when no number of reduce tasks meets the deadline
 * (the transfer alone takes what is left of it). */
int dcs_min_reduce_tasks(const DcsJob *job, double reduce_start, unsigned *ret);

typedef enum DcsVerdict {
        DCS_SCHEDULABLE,
        DCS_DEADLINE_PASSED,      /* A + D is not after the maps' start */
        DCS_NO_TIME_FOR_MAPS,     /* s_r^max <= s_m: reduces and transfer use it all */
        DCS_MORE_MAPS_THAN_TASKS, /* n_m^min > u */
        DCS_TOO_FEW_MAP_SLOTS,    /* n_m^min > the map slots free now */
        DCS_TOO_FEW_REDUCE_SLOTS, /* v > the reduce slots free at s_r^max */
        _DCS_VERDICT_MAX,
} DcsVerdict;

const char *dcs_verdict_to_string(DcsVerdict v);

typedef struct DcsTest {
        DcsVerdict verdict;
        double reduce_start_max; /* s_r^max */
        /* Eq. 1 and 2 (0 when no number of tasks meets the deadline); the
         * model's reduce start, s_m + sigma c_m / n_m^min. */
        unsigned min_maps, min_reduces;
        double map_end;
        /* The free slots the test was given, for its explanation. */
        unsigned free_map_slots, free_reduce_slots;
} DcsTest;

/* Section III-A's schedulability test for a job whose maps can start at
 * map_start, with free_map_slots free then and free_reduce_slots free at
 * s_r^max. A job is refused with the verdict, not an error: -EINVAL only
 * for a number that is not finite, a negative input, ratio or cost, no map
 * task or no input. */
int dcs_test(const DcsJob *job, double map_start, unsigned free_map_slots,
             unsigned free_reduce_slots, DcsTest *ret);

/* Why the job was refused, in a person's words with the numbers; "" when
 * it is schedulable. */
void dcs_test_explain(const DcsJob *job, const DcsTest *t, char *buf, size_t size);

/* SPDX-License-Identifier: MIT */
/* The Deadline Constraint Scheduler's minimum tasks and schedulability
 * test; the choices the paper leaves open are listed in dcs-model.h. */
#include "dcs-model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "common/macro.h"
#include "policy/layers/slo-math.h"

static bool job_valid(const DcsJob *j) {
        const double v[] = { j->arrival,  j->deadline,    j->input,        j->filter_ratio,
                             j->map_cost, j->reduce_cost, j->transfer_cost };

        for (size_t i = 0; i < ELEMENTSOF(v); i++)
                if (!isfinite(v[i]))
                        return false;
        return j->input > 0 && j->filter_ratio >= 0 && j->map_cost >= 0 && j->reduce_cost >= 0 &&
               j->transfer_cost >= 0 && j->maps > 0;
}

/* Tasks enough to do work in time: ceil(work / time), at least one. Work
 * that costs nothing fits in no time at all, so only then may time be 0. */
static int min_tasks(double work, double time, unsigned *ret) {
        if (work > 0 ? !(time > 0) : time < 0)
                return -ETIME;
        *ret = work > 0 ? MAX(slo_ceil(work / time), 1U) : 1U;
        return 0;
}

int dcs_reduce_start_max(const DcsJob *job, double *ret) {
        double reduce_input = job->filter_ratio * job->input, reduce_time;

        if (!job_valid(job))
                return -EINVAL;
        if (job->reduces == 0)
                reduce_time = 0;
        else
                reduce_time = reduce_input * job->reduce_cost /
                                      (job->worst_skew ? 1.0 : (double)job->reduces) +
                              reduce_input * job->transfer_cost;
        *ret = job->arrival + job->deadline - reduce_time;
        return 0;
}

int dcs_min_map_tasks(const DcsJob *job, double map_start, unsigned *ret) {
        double s_r_max;
        int r;

        if (!isfinite(map_start))
                return -EINVAL;
        r = dcs_reduce_start_max(job, &s_r_max);
        if (r < 0)
                return r;
        return min_tasks(job->input * job->map_cost, s_r_max - map_start, ret);
}

int dcs_min_reduce_tasks(const DcsJob *job, double reduce_start, unsigned *ret) {
        double reduce_input = job->filter_ratio * job->input;

        if (!job_valid(job) || !isfinite(reduce_start))
                return -EINVAL;
        if (job->reduces == 0) {
                *ret = 0;
                return 0;
        }
        return min_tasks(reduce_input * job->reduce_cost,
                         job->arrival + job->deadline - reduce_input * job->transfer_cost -
                                 reduce_start,
                         ret);
}

const char *dcs_verdict_to_string(DcsVerdict v) {
        static const char *const names[_DCS_VERDICT_MAX] = {
                [DCS_SCHEDULABLE] = "schedulable",
                [DCS_DEADLINE_PASSED] = "deadline-passed",
                [DCS_NO_TIME_FOR_MAPS] = "no-time-for-maps",
                [DCS_MORE_MAPS_THAN_TASKS] = "more-maps-than-tasks",
                [DCS_TOO_FEW_MAP_SLOTS] = "too-few-map-slots",
                [DCS_TOO_FEW_REDUCE_SLOTS] = "too-few-reduce-slots",
        };

        return v >= 0 && v < _DCS_VERDICT_MAX ? names[v] : NULL;
}

int dcs_test(const DcsJob *job, double map_start, unsigned free_map_slots,
             unsigned free_reduce_slots, DcsTest *ret) {
        DcsTest t = { .free_map_slots = free_map_slots, .free_reduce_slots = free_reduce_slots };
        int r;

        if (!isfinite(map_start))
                return -EINVAL;
        r = dcs_reduce_start_max(job, &t.reduce_start_max);
        if (r < 0)
                return r;
        if (!(job->arrival + job->deadline > map_start)) {
                t.verdict = DCS_DEADLINE_PASSED;
                *ret = t;
                return 0;
        }
        r = dcs_min_map_tasks(job, map_start, &t.min_maps);
        if (r == -ETIME) {
                t.verdict = DCS_NO_TIME_FOR_MAPS;
                *ret = t;
                return 0;
        }
        if (r < 0)
                return r;
        /* At most s_r^max, which leaves the reduces their time; past it
         * only by slo_ceil()'s tolerance. */
        t.map_end = fmin(map_start + job->input * job->map_cost / t.min_maps, t.reduce_start_max);
        r = dcs_min_reduce_tasks(job, t.map_end, &t.min_reduces);
        if (r < 0)
                return r;
        if (t.min_maps > job->maps)
                t.verdict = DCS_MORE_MAPS_THAN_TASKS;
        else if (t.min_maps > free_map_slots)
                t.verdict = DCS_TOO_FEW_MAP_SLOTS;
        else if (job->reduces > free_reduce_slots)
                t.verdict = DCS_TOO_FEW_REDUCE_SLOTS;
        else
                t.verdict = DCS_SCHEDULABLE;
        *ret = t;
        return 0;
}

void dcs_test_explain(const DcsJob *job, const DcsTest *t, char *buf, size_t size) {
        switch (t->verdict) {
        case DCS_DEADLINE_PASSED:
                snprintf(buf, size, "the deadline has passed");
                break;
        case DCS_NO_TIME_FOR_MAPS:
                snprintf(buf, size,
                         "the reduce and transfer costs use the whole deadline: the reduces "
                         "would have to start by %.1fs (s_r^max), before the maps can",
                         t->reduce_start_max);
                break;
        case DCS_MORE_MAPS_THAN_TASKS:
                snprintf(buf, size, "it needs %u maps at once (n_m^min) but has %u map tasks",
                         t->min_maps, job->maps);
                break;
        case DCS_TOO_FEW_MAP_SLOTS:
                snprintf(buf, size, "it needs %u map slots (n_m^min) and %u are free", t->min_maps,
                         t->free_map_slots);
                break;
        case DCS_TOO_FEW_REDUCE_SLOTS:
                snprintf(buf, size,
                         "its %u reduce tasks need as many reduce slots at %.1fs (s_r^max) and "
                         "%u are free",
                         job->reduces, t->reduce_start_max, t->free_reduce_slots);
                break;
        default:
                snprintf(buf, size, "%s", "");
                break;
        }
}

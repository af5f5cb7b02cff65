/* SPDX-License-Identifier: MIT */
/* The Deadline Constraint Scheduler (Kc, Anyanwu, CloudCom'10, Algorithm 1
 * and section III-A) on the cost model of dcs-model.h: jobs by deadline,
 * each with a deadline held to its minimum map tasks n_m^min (Eq. 1, for
 * maps that start when it was submitted, as its schedulability test took
 * them) until its maps are done, then to its minimum reduce tasks n_r^min
 * (Eq. 2, for reduces that start when the last map ended), its reduces
 * only once all its maps are done; the slots left go to the jobs without
 * deadlines (slo-sched.h). Admission refuses a job whose minimum tasks are
 * not free (dcs_test()), with the reason and the numbers.
 *
 * Where the paper takes the costs as given (its user supplies them), they
 * come from the job's profile (slo-sched.h), the slowest task of each kind
 * (II-B-1 Assumption 1: the slowest node's costs): sigma c_m is the
 * slowest map's time times the maps, f sigma c_r the slowest reduce phase
 * times the reduces, and the transfer f sigma c_d the slowest shuffle (the
 * reduces copy at once; the sort is in it, as the paper counts it in the
 * reduce, section IV). Only these products enter the model, so f is 1 and
 * each cost is per byte of input: no filter ratio or network rate has to be
 * guessed for a job. A job without a profile is admitted untested
 * and gets all its tasks until its first map finishes. The slots "free" for
 * a test are the cluster's less the minimum tasks (Job.counts tell which
 * are still to run) of the other jobs with deadlines: those jobs come
 * first, so their minimums are what a new job cannot count on; the reduce
 * slots free at s_r^max are taken to be those free now. What it remembers
 * across steps, by Job.id, is each job's n_m^min and n_r^min once known.
 * With slo_speed (slo-loop.h) the costs are those of the slots at their
 * measured speed: the cluster's for admission and n_m^min (the job has
 * not run yet), the job's own for n_r^min; a refusal says the speed. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/idmap.h"
#include "policy/layers/dcs-model.h"
#include "policy/layers/policies.h"
#include "policy/layers/slo-loop.h"
#include "policy/layers/slo-sched.h"

static const ConfKey deadline_keys[] = {
        SETTING_BOOL(DeadlineSettings, deadline_worst_skew, "no",
                     "deadline: II-B-1's worst case, one reduce gets all the map output"),
};

const ConfSchema deadline_settings_schema = {
        .keys = deadline_keys,
        .n_keys = ELEMENTSOF(deadline_keys),
        .size = sizeof(DeadlineSettings),
};

typedef struct DeadlineJobState {
        unsigned min_maps, min_reduces;
        bool maps_known, reduces_known;
} DeadlineJobState;

static int deadline_init(const void *settings, void **ret_state) {
        return idmap_new_state(sizeof(DeadlineJobState), ret_state);
}

static void deadline_free(void *state) {
        idmap_free(state);
}

/* The cost model's view of a job with maps and reduces tasks, its map and
 * reduce costs those of slots at speed (1: as profiled; slo-loop.h):
 * -ENODATA without a profile. Times in seconds, data in bytes. */
static int dcs_job(const Job *job, unsigned maps, unsigned reduces, const DeadlineSettings *set,
                   double speed, DcsJob *ret) {
        double sigma = (double)job->input_size;
        AriaProfile p;
        int r = slo_job_profile(job, maps, &p);

        if (r < 0)
                return r;
        slo_profile_at_speed(&p, speed);
        *ret = (DcsJob){
                .arrival = usec_to_sec(job->submitted),
                .deadline = usec_to_sec(job->deadline) - usec_to_sec(job->submitted),
                .input = sigma,
                .filter_ratio = 1,
                .map_cost = p.map_max * maps / sigma,
                .reduce_cost = p.reduce_max * reduces / sigma,
                .transfer_cost = reduces > 0 ? p.shtyp_max / sigma : 0,
                .maps = maps,
                .reduces = reduces,
                .worst_skew = set->deadline_worst_skew,
        };
        return 0;
}

/* n_m^min for maps that start at submission; all the maps when no number
 * meets the deadline. */
static int min_maps(const Job *job, unsigned maps, unsigned reduces, const DeadlineSettings *set,
                    double speed, unsigned *ret) {
        DcsJob dj;
        int r = dcs_job(job, maps, reduces, set, speed, &dj);

        if (r >= 0)
                r = dcs_min_map_tasks(&dj, dj.arrival, ret);
        if (r == -ETIME) {
                *ret = maps;
                return 0;
        }
        return r;
}

/* n_r^min for reduces that start at now; all of them when no number meets
 * the deadline, or without a profile. */
static int min_reduces(const Job *job, unsigned maps, unsigned reduces, const DeadlineSettings *set,
                       double speed, usec_t now, unsigned *ret) {
        DcsJob dj;
        int r = dcs_job(job, maps, reduces, set, speed, &dj);

        if (r >= 0)
                r = dcs_min_reduce_tasks(&dj, usec_to_sec(now), ret);
        if (r == -ETIME || r == -ENODATA) {
                *ret = reduces;
                return 0;
        }
        return r;
}

static int deadline_job(PolicyContext *ctx, const void *settings, void *remembered, SloJob *sj) {
        DeadlineJobState *st = remembered;
        const Job *job = &ctx->snap->jobs[sj->job];
        unsigned maps = ctx->maps_total[sj->job], reduces = ctx->reduces_total[sj->job];
        bool maps_done = ctx->maps_done[sj->job] == maps;
        double speed = 1;
        int r;

        /* The one loop: each slot at its measured speed (slo-loop.h). */
        if (ctx->core->slo.slo_speed && (!st->maps_known || (maps_done && !st->reduces_known)))
                speed = slo_job_speed(ctx->snap, ctx->now, sj->job,
                                      slo_cluster_speed(ctx->snap, ctx->now));
        if (!st->maps_known) {
                r = min_maps(job, maps, reduces, settings, speed, &st->min_maps);
                if (r < 0 && r != -ENODATA)
                        return r;
                st->maps_known = r >= 0;
        }
        if (maps_done && !st->reduces_known) {
                r = min_reduces(job, maps, reduces, settings, speed, ctx->now, &st->min_reduces);
                if (r < 0)
                        return r;
                st->reduces_known = true;
        }
        sj->quota[TASK_MAP] = st->maps_known ? st->min_maps : maps;
        sj->quota[TASK_REDUCE] = st->reduces_known ? st->min_reduces : reduces;
        sj->reduces_open = maps_done;
        return 0;
}

static int deadline_assign(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        return slo_schedule(ctx, state, settings, deadline_job);
}

/* What the jobs with deadlines of s other than job hold of each slot type:
 * their minimum tasks while tasks of that type are left to run. */
static void held_slots(const IdMap *jobs_state, const ClusterSnapshot *s,
                       const DeadlineSettings *set, double speed, const Job *job,
                       unsigned held[_SLOT_TYPE_MAX]) {
        for (size_t j = 0; j < s->n_jobs; j++) {
                const Job *o = &s->jobs[j];
                const TaskCounts *c = o->counts;
                const DeadlineJobState *st = idmap_get(jobs_state, o->id);
                unsigned n;

                if (o->deadline == 0 || o->id == job->id)
                        continue;
                if (c[TASK_MAP].done < c[TASK_MAP].total) {
                        if (st && st->maps_known)
                                n = st->min_maps;
                        else if (min_maps(o, c[TASK_MAP].total, c[TASK_REDUCE].total, set, speed,
                                          &n) < 0)
                                n = c[TASK_MAP].total;
                        held[SLOT_MAP] += MIN(n, c[TASK_MAP].total - c[TASK_MAP].done);
                }
                if (c[TASK_REDUCE].done < c[TASK_REDUCE].total)
                        held[SLOT_REDUCE] +=
                                st && st->reduces_known ? st->min_reduces : c[TASK_REDUCE].total;
        }
}

static int deadline_admit(void *state, const void *settings, const CoreSettings *core,
                          const ClusterSnapshot *s, usec_t now, const Job *job, AdmitVerdict *ret) {
        unsigned maps = job->counts[TASK_MAP].total, reduces = job->counts[TASK_REDUCE].total;
        unsigned held[_SLOT_TYPE_MAX] = { 0 }, slots[_SLOT_TYPE_MAX];
        double speed = 1;
        DcsJob dj;
        DcsTest t;
        int r;

        ret->admit = true;
        /* The one loop: the slots at the speed the cluster runs at now. */
        if (core->slo.slo_speed)
                speed = slo_new_job_speed(slo_cluster_speed(s, now));
        if (job->deadline == 0 || dcs_job(job, maps, reduces, settings, speed, &dj) < 0)
                return 0;
        held_slots(state, s, settings, speed, job, held);
        for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++) {
                slots[slot] = slo_cluster_slots(s, NULL, slot);
                ret->slots_free[slot] = slots[slot] > held[slot] ? slots[slot] - held[slot] : 0;
        }
        r = dcs_test(&dj, usec_to_sec(now), ret->slots_free[SLOT_MAP], ret->slots_free[SLOT_REDUCE],
                     &t);
        if (r < 0)
                return r;
        ret->admit = t.verdict == DCS_SCHEDULABLE;
        ret->slots_needed[SLOT_MAP] = t.min_maps;
        ret->slots_needed[SLOT_REDUCE] = reduces;
        /* The model's end: the maps' end, then the reduce stage s_r^max
         * leaves room for. */
        if (t.min_maps > 0)
                ret->finish = (usec_t)llround(
                        (t.map_end + dj.arrival + dj.deadline - t.reduce_start_max) * USEC_PER_SEC);
        dcs_test_explain(&dj, &t, ret->reason, sizeof(ret->reason));
        if (!ret->admit && speed != 1) {
                size_t used = strlen(ret->reason);

                snprintf(ret->reason + used, sizeof(ret->reason) - used,
                         "; its slots run at %.2f of its profile's speed", speed);
        }
        return 0;
}

const JobSchedulerOps job_scheduler_deadline = {
        .name = "deadline",
        .settings = &deadline_settings_schema,
        .init = deadline_init,
        .free = deadline_free,
        .assign = deadline_assign,
        .admit = deadline_admit,
};

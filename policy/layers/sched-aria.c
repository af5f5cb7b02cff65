/* SPDX-License-Identifier: MIT */
/* ARIA's SLO scheduler (Verma, Cherkasova, Campbell, ICAC'11, section 6,
 * Algorithm 1): earliest deadline first, each job with a deadline held to
 * the minimum (map, reduce) slots of Eq. 15 for the bound aria_bound
 * (aria-model.h), its reduces once its first map finished, and the slots
 * left to the jobs without deadlines (slo-sched.h). The minimum is computed
 * when a job first comes and again whenever a task of it finished (lines
 * 22-24), for the tasks left and the time left to its deadline, on the
 * cluster's slots; a job that can no longer meet its deadline gets all the
 * slots it can use (aria_min_slots()). With every map done, the map terms
 * are those of maps of no duration. With slo_speed (slo-loop.h) the
 * profile's map and reduce times are divided by the job's measured speed
 * first, so that a job on slow slots gets the slots it needs there, and a
 * job the loop's forecast finds late on the slots it holds gets all it can
 * use until the forecast finds it safe again. What
 * it remembers across steps, by Job.id, is each job's (m_j, r_j) and the
 * tasks done when they were computed. */
#include <errno.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/idmap.h"
#include "policy/layers/policies.h"
#include "policy/layers/slo-loop.h"
#include "policy/layers/slo-sched.h"

static const char *const bound_names[] = { "lower", "average", "upper", NULL };

static const ConfKey aria_keys[] = {
        /* Fig. 5: the average bound's allocations came closest to the
         * deadlines, the lower bound's missed them. */
        SETTING_ENUM(AriaSettings, aria_bound, "average", bound_names,
                     "aria: the completion-time bound whose minimum slots (Eq. 15) a job "
                     "with a deadline gets"),
};

const ConfSchema aria_settings_schema = {
        .keys = aria_keys,
        .n_keys = ELEMENTSOF(aria_keys),
        .size = sizeof(AriaSettings),
};

typedef struct AriaJobState {
        unsigned quota[_TASK_TYPE_MAX];
        unsigned done[_TASK_TYPE_MAX]; /* when the quota was computed */
        bool computed;
        bool late; /* slo_speed: forecast late (slo-loop.h) */
} AriaJobState;

static int aria_init(const void *settings, void **ret_state) {
        return idmap_new_state(sizeof(AriaJobState), ret_state);
}

static void aria_free(void *state) {
        idmap_free(state);
}

/* (m_j, r_j) for what is left of job j at ctx->now. */
static int aria_quota(const PolicyContext *ctx, const AriaSettings *set, uint32_t j,
                      unsigned quota[_TASK_TYPE_MAX]) {
        const Job *job = &ctx->snap->jobs[j];
        unsigned maps = ctx->maps_total[j] - ctx->maps_done[j];
        unsigned reduces = ctx->reduces_total[j] - ctx->reduces_done[j];
        double deadline = ((double)job->deadline - (double)ctx->now) / (double)USEC_PER_SEC;
        AriaAllocation al;
        AriaProfile p;
        int r;

        quota[TASK_MAP] = maps;
        quota[TASK_REDUCE] = reduces;
        if (slo_job_profile(job, ctx->maps_total[j], &p) < 0 || maps + reduces == 0)
                return 0;
        /* The one loop: each slot at its measured speed (slo-loop.h). */
        if (ctx->core->slo.slo_speed)
                slo_profile_at_speed(&p, slo_job_speed(ctx->snap, ctx->now, j,
                                                       slo_cluster_speed(ctx->snap, ctx->now)));
        if (maps == 0) {
                p.map_min = p.map_avg = p.map_max = 1e-9;
                maps = 1;
        }
        r = aria_min_slots(&p, maps, reduces, deadline,
                           slo_cluster_slots(ctx->snap, ctx->slots[SLOT_MAP], SLOT_MAP),
                           slo_cluster_slots(ctx->snap, ctx->slots[SLOT_REDUCE], SLOT_REDUCE),
                           (AriaBound)set->aria_bound, &al);
        if (r < 0)
                return r;
        quota[TASK_MAP] = al.map_slots;
        quota[TASK_REDUCE] = al.reduce_slots;
        return 0;
}

/* Recomputed when the job first comes and whenever a task of it finished. */
static int aria_job(PolicyContext *ctx, const void *settings, void *remembered, SloJob *sj) {
        AriaJobState *st = remembered;
        const unsigned done[] = { ctx->maps_done[sj->job], ctx->reduces_done[sj->job] };

        if (!st->computed || memcmp(st->done, done, sizeof(done)) != 0) {
                int r = aria_quota(ctx, settings, sj->job, st->quota);

                if (r < 0)
                        return r;
                memcpy(st->done, done, sizeof(done));
                st->computed = true;
        }
        memcpy(sj->quota, st->quota, sizeof(sj->quota));
        sj->reduces_open = done[TASK_MAP] > 0;
        /* The one loop: Eq. 15's slots at the measured speed are what the
         * bound says; a job the loop's forecast still finds late on them
         * (the replay's whole waves, or a bound the slots do not meet)
         * gets what ARIA gives a job that cannot meet its deadline, every
         * slot it can use, until it is safe. */
        if (ctx->core->slo.slo_speed) {
                const unsigned slots[_SLOT_TYPE_MAX] = { sj->quota[TASK_MAP],
                                                         sj->quota[TASK_REDUCE] };
                double end, speed;
                int r = slo_forecast_one(ctx, sj->job, slots, &end, &speed);

                if (r < 0)
                        return r;
                st->late = slo_late(ctx, sj->job, st->late, end);
                /* Triage: a late job that cannot make it even with every
                 * slot goes after those that still can (slo-sched.h). */
                if (st->late) {
                        double all;

                        r = slo_hopeless(ctx, sj->job, speed, &sj->hopeless, &all);
                        /* Why it gets every slot, or goes after the
                         * others: the forecast that found it late, or
                         * hopeless. */
                        if (r >= 0)
                                r = sj->hopeless ? slo_note_hopeless(ctx, sj->job, all, end, speed)
                                                 : slo_note(ctx, sj->job, end, speed, true);
                        if (r < 0)
                                return r;
                        sj->quota[TASK_MAP] = ctx->maps_total[sj->job] - ctx->maps_done[sj->job];
                        sj->quota[TASK_REDUCE] =
                                ctx->reduces_total[sj->job] - ctx->reduces_done[sj->job];
                }
        }
        return 0;
}

static int aria_assign(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        return slo_schedule(ctx, state, settings, aria_job);
}

const JobSchedulerOps job_scheduler_aria = {
        .name = "aria",
        .settings = &aria_settings_schema,
        .init = aria_init,
        .free = aria_free,
        .assign = aria_assign,
};

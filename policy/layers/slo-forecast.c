/* SPDX-License-Identifier: MIT */
/* Forecasts of a deadline job's end; what each counts is in slo-loop.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "common/macro.h"
#include "policy/layers/slo-loop.h"
#include "policy/layers/slo-sched.h"

/* What a job has left and holds now. */
typedef struct JobLeft {
        unsigned maps, reduces;                 /* not done */
        unsigned maps_running, reduces_running; /* non-backup attempts */
        unsigned map_slots, reduce_slots;       /* the slots it is forecast on */
} JobLeft;

/* No more slots than the cluster has (at least one). */
static void clamp_to_cluster(const ClusterSnapshot *s, JobLeft *l) {
        l->map_slots = MIN(l->map_slots, MAX(slo_cluster_slots(s, NULL, SLOT_MAP), 1u));
        l->reduce_slots = MIN(l->reduce_slots, MAX(slo_cluster_slots(s, NULL, SLOT_REDUCE), 1u));
}

static void job_left(const ClusterSnapshot *s, uint32_t job, const unsigned *slots, JobLeft *ret) {
        const Job *j = &s->jobs[job];
        unsigned held;
        JobLeft l = {
                .maps = j->counts[TASK_MAP].total - j->counts[TASK_MAP].done,
                .reduces = j->counts[TASK_REDUCE].total - j->counts[TASK_REDUCE].done,
        };

        for (size_t i = 0; i < s->n_attempts; i++) {
                const Task *t = &s->tasks[s->attempts[i].task];

                if (t->job != job || s->attempts[i].speculative)
                        continue;
                if (t->type == TASK_MAP)
                        l.maps_running++;
                else
                        l.reduces_running++;
        }
        if (slots) {
                l.map_slots = l.maps > 0 ? CLAMP(slots[SLOT_MAP], 1u, l.maps) : 0;
                l.reduce_slots = l.reduces > 0 ? CLAMP(slots[SLOT_REDUCE], 1u, l.reduces) : 0;
                clamp_to_cluster(s, &l);
                *ret = l;
                return;
        }
        /* What it holds, or what its scheduler holds it to when that is
         * more (a job still getting its slots). */
        held = MAX(l.maps_running, j->quota[SLOT_MAP]);
        l.map_slots = l.maps > 0 ? CLAMP(held, 1u, l.maps) : 0;
        if (MAX(l.reduces_running, j->quota[SLOT_REDUCE]) > 0)
                l.reduce_slots = MAX(l.reduces_running, j->quota[SLOT_REDUCE]);
        else if (l.reduces > 0)
                l.reduce_slots = slo_cluster_slots(s, NULL, SLOT_REDUCE);
        if (l.reduces > 0)
                l.reduce_slots = CLAMP(l.reduce_slots, 1u, l.reduces);
        clamp_to_cluster(s, &l);
        *ret = l;
}

/* ARIA's average bound on what is left, at now + its total. */
static int forecast_bound(const AriaProfile *profile, const JobLeft *l, double now, double *ret) {
        AriaProfile p = *profile;
        unsigned maps = l->maps;
        AriaEstimate e;
        int r;

        if (maps == 0) {
                /* The reduces' terms alone, as ARIA's scheduler counts them. */
                p.map_min = p.map_avg = p.map_max = 1e-9;
                maps = 1;
        }
        r = aria_estimate(&p, maps, l->reduces, MAX(l->map_slots, 1u), l->reduce_slots,
                          ARIA_AVERAGE, &e);
        if (r < 0)
                return r;
        *ret = now + e.total;
        return 0;
}

static int compare_double(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}

/* What is left of a running map: its share of the input not read yet at
 * the profiled time the job runs at (expected: its whole time at the job's
 * speed), not its own rate so far (slo-loop.h says why). */
static double attempt_left(const Attempt *a, double expected) {
        return expected * (1 - slo_map_done(a));
}

/* A running reduce's time left once the maps are done: Hadoop's progress
 * gives its copy, its sort and its reduce phase a third each. */
static double reduce_left(const AriaProfile *p, double progress) {
        if (progress < 2.0 / 3.0)
                return p->reduce_avg + p->sh1_avg * 1.5 * (2.0 / 3.0 - progress);
        return p->reduce_avg * 3 * (1 - progress);
}

/* The job's slots of a type as they free, from the ends of its running
 * attempts of it in ends[0, running): those ends in order, the slots it
 * holds beyond slots given back as its first attempts end (they free no
 * slot for it), and the slots it does not fill yet free now. Returns where
 * the slots it keeps begin in ends, which then holds slots of them; *last
 * is when its last running attempt ends (now without one). */
static double *slots_free_at(double *ends, unsigned running, unsigned slots, double now,
                             double *last) {
        unsigned from = running > slots ? running - slots : 0;

        qsort(ends, running, sizeof(double), compare_double);
        *last = running > 0 ? ends[running - 1] : now;
        for (unsigned i = running; i < slots; i++)
                ends[i] = now;
        return ends + from;
}

/* The work left replayed on the job's slots (slo-loop.h). */
static int forecast_replay(const ClusterSnapshot *s, uint32_t job, const AriaProfile *p,
                           const JobLeft *l, double now, double *scratch, double *ret) {
        double maps_end, end, *free_at;
        unsigned k = 0, pending;

        /* The maps: every running one ends when its input left says, the
         * pending ones go in whole waves on the slots as they free. */
        for (size_t i = 0; i < s->n_attempts; i++) {
                const Attempt *a = &s->attempts[i];
                const Task *t = &s->tasks[a->task];
                double expected;

                if (t->job != job || t->type != TASK_MAP || a->speculative)
                        continue;
                expected = p->map_avg *
                           (a->input_size > 0 ? (double)a->input_size / p->map_input : 1.0);
                scratch[k++] = now + attempt_left(a, expected);
        }
        free_at = slots_free_at(scratch, k, l->map_slots, now, &maps_end);
        pending = l->maps - MIN(l->maps, k);
        for (unsigned i = 0; i < l->map_slots; i++) {
                unsigned waves = pending / l->map_slots + (i < pending % l->map_slots);

                maps_end = fmax(maps_end, free_at[i] + waves * p->map_avg);
        }
        /* The reduces: a running one ends after the maps' end, its first
         * shuffle's part and its reduce phase, or by its progress once the
         * maps are done; a pending one takes the slot that frees first. */
        k = 0;
        for (size_t i = 0; i < s->n_attempts; i++) {
                const Attempt *a = &s->attempts[i];
                const Task *t = &s->tasks[a->task];

                if (t->job != job || t->type != TASK_REDUCE || a->speculative)
                        continue;
                scratch[k++] = l->maps > 0 ? maps_end + p->sh1_avg + p->reduce_avg
                                           : now + reduce_left(p, a->progress);
        }
        free_at = slots_free_at(scratch, k, l->reduce_slots, now, &end);
        end = fmax(end, maps_end);
        pending = l->reduces - MIN(l->reduces, k);
        for (unsigned q = 0; q < pending && l->reduce_slots > 0; q++) {
                unsigned first = 0;
                double start;

                for (unsigned i = 1; i < l->reduce_slots; i++)
                        if (free_at[i] < free_at[first])
                                first = i;
                start = free_at[first];
                free_at[first] = start < maps_end ? maps_end + p->sh1_avg + p->reduce_avg
                                                  : start + p->shtyp_avg + p->reduce_avg;
        }
        for (unsigned i = 0; i < l->reduce_slots; i++)
                end = fmax(end, free_at[i]);
        *ret = end;
        return 0;
}

size_t slo_forecast_scratch(const ClusterSnapshot *s) {
        size_t map = slo_cluster_slots(s, NULL, SLOT_MAP), most = MAX(s->n_attempts, map);

        return MAX(most, (size_t)slo_cluster_slots(s, NULL, SLOT_REDUCE)) + 1;
}

int slo_forecast(const ClusterSnapshot *s, usec_t now, uint32_t job, SloForecastKind kind,
                 double speed, const unsigned *slots, double *scratch, double *ret_end) {
        const Job *j;
        AriaProfile p;
        JobLeft l;
        int r;

        if (job >= s->n_jobs || (unsigned)kind >= _SLO_FORECAST_MAX || !(speed > 0))
                return -EINVAL;
        j = &s->jobs[job];
        r = slo_job_profile(j, j->counts[TASK_MAP].total, &p);
        if (r < 0)
                return r;
        job_left(s, job, slots, &l);
        if (l.maps + l.reduces == 0)
                return -ENODATA;
        slo_profile_at_speed(&p, speed);
        if (kind == SLO_FORECAST_BOUND)
                return forecast_bound(&p, &l, usec_to_sec(now), ret_end);
        return forecast_replay(s, job, &p, &l, usec_to_sec(now), scratch, ret_end);
}

double slo_slack(const ClusterSnapshot *s, usec_t now, uint32_t job, double forecast_end) {
        const Job *j = &s->jobs[job];
        double deadline = usec_to_sec(j->deadline), t = usec_to_sec(now);

        if (j->deadline == 0 || !isfinite(forecast_end))
                return INFINITY;
        if (deadline <= t)
                return forecast_end > t ? -INFINITY : INFINITY;
        return (deadline - forecast_end) / (deadline - t);
}

/* One job's forecast (slo_forecast_jobs()) on slots (NULL: what it
 * holds), with scratch and the cluster's speed given. */
static int forecast_job(PolicyContext *ctx, uint32_t j, const unsigned *slots, double cluster,
                        double *scratch, double *ret_end, double *ret_speed) {
        const Job *job = &ctx->snap->jobs[j];
        int r;

        *ret_end = NAN;
        *ret_speed = 1;
        if (job->deadline == 0 || (job->counts[TASK_MAP].done == job->counts[TASK_MAP].total &&
                                   job->counts[TASK_REDUCE].done == job->counts[TASK_REDUCE].total))
                return 0;
        *ret_speed = slo_job_speed(ctx->snap, ctx->now, j, cluster);
        r = slo_forecast(ctx->snap, ctx->now, j, (SloForecastKind)ctx->core->slo.slo_forecast,
                         *ret_speed, slots, scratch, ret_end);
        if (r == -ENODATA)
                *ret_end = NAN;
        return r == -ENODATA ? 0 : r;
}

int slo_forecast_jobs(PolicyContext *ctx, double *ret_end, double *ret_speed) {
        const ClusterSnapshot *s = ctx->snap;
        double *scratch = context_scratch(ctx, slo_forecast_scratch(s), sizeof(double));
        double cluster = slo_cluster_speed(s, ctx->now);

        if (!scratch)
                return -ENOMEM;
        for (uint32_t j = 0; j < s->n_jobs; j++) {
                int r = forecast_job(ctx, j, NULL, cluster, scratch, &ret_end[j], &ret_speed[j]);

                if (r < 0)
                        return r;
        }
        return 0;
}

int slo_forecast_one(PolicyContext *ctx, uint32_t job, const unsigned *slots, double *ret_end,
                     double *ret_speed) {
        double *scratch = context_scratch(ctx, slo_forecast_scratch(ctx->snap), sizeof(double));

        if (!scratch)
                return -ENOMEM;
        return forecast_job(ctx, job, slots, slo_cluster_speed(ctx->snap, ctx->now), scratch,
                            ret_end, ret_speed);
}

int slo_hopeless(PolicyContext *ctx, uint32_t job, double speed, bool *ret, double *ret_end) {
        const Job *j = &ctx->snap->jobs[job];
        const unsigned all[_SLOT_TYPE_MAX] = {
                [SLOT_MAP] = slo_cluster_slots(ctx->snap, ctx->slots[SLOT_MAP], SLOT_MAP),
                [SLOT_REDUCE] = slo_cluster_slots(ctx->snap, ctx->slots[SLOT_REDUCE], SLOT_REDUCE),
        };
        double *scratch, end;
        int r;

        *ret = false;
        *ret_end = NAN;
        if (j->deadline == 0)
                return 0;
        if (j->deadline <= ctx->now) {
                *ret = true;
                return 0;
        }
        scratch = context_scratch(ctx, slo_forecast_scratch(ctx->snap), sizeof(double));
        if (!scratch)
                return -ENOMEM;
        r = slo_forecast(ctx->snap, ctx->now, job, (SloForecastKind)ctx->core->slo.slo_forecast,
                         speed, all, scratch, &end);
        if (r == -ENODATA)
                return 0;
        if (r < 0)
                return r;
        *ret = end > usec_to_sec(j->deadline);
        *ret_end = end;
        return 0;
}

bool slo_late(const PolicyContext *ctx, uint32_t job, bool was, double end) {
        double deadline = usec_to_sec(ctx->snap->jobs[job].deadline), now = usec_to_sec(ctx->now);

        if (isnan(end))
                return was;
        if (end > deadline)
                return true;
        return was && end > deadline - ctx->core->slo.slo_margin * fmax(deadline - now, 0);
}

static int note(PolicyContext *ctx, uint32_t job, double end, double speed, bool late,
                bool hopeless) {
        return DECISIONS_PUSH(ctx->d, deadlines, .job = job,
                              .kind = (SloForecastKind)ctx->core->slo.slo_forecast,
                              .forecast = (usec_t)llround(fmax(end, 0) * USEC_PER_SEC),
                              .speed = speed, .at_risk = late, .hopeless = hopeless);
}

int slo_note(PolicyContext *ctx, uint32_t job, double end, double speed, bool late) {
        return note(ctx, job, end, speed, late, false);
}

int slo_note_hopeless(PolicyContext *ctx, uint32_t job, double all, double end, double speed) {
        return note(ctx, job, isnan(all) ? end : all, speed, true, true);
}

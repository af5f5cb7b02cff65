/* SPDX-License-Identifier: MIT */
/* The slot assignment ARIA's and the Deadline Constraint Scheduler's
 * Algorithm 1 share; see slo-sched.h. */
#include "policy/layers/slo-sched.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "common/macro.h"
#include "policy/layers/slo-loop.h"

/* Earliest deadline first, then the jobs without one, each group in the
 * context's order (submission, then index). */
static int compare_slo_jobs(const void *a, const void *b, void *userdata) {
        const PolicyContext *ctx = userdata;
        const SloJob *x = a, *y = b;
        const Job *jx = &ctx->snap->jobs[x->job], *jy = &ctx->snap->jobs[y->job];

        if (x->deadline != y->deadline)
                return x->deadline ? -1 : 1;
        if (x->deadline && x->hopeless != y->hopeless)
                return x->hopeless ? 1 : -1;
        if (x->deadline && jx->deadline != jy->deadline)
                return jx->deadline < jy->deadline ? -1 : 1;
        if (jx->submitted != jy->submitted)
                return jx->submitted < jy->submitted ? -1 : 1;
        return (x->job > y->job) - (x->job < y->job);
}

static SloJob *slo_jobs(PolicyContext *ctx) {
        const ClusterSnapshot *s = ctx->snap;
        SloJob *jobs = context_scratch(ctx, s->n_jobs + 1, sizeof(SloJob));

        if (!jobs)
                return NULL;
        for (uint32_t j = 0; j < s->n_jobs; j++)
                jobs[j] = (SloJob){ .job = j, .deadline = s->jobs[j].deadline != 0 };
        for (size_t i = 0; i < s->n_attempts; i++) {
                const Attempt *a = &s->attempts[i];
                const Task *t = &s->tasks[a->task];

                /* A resized attempt restarts in its slot, a re-placed one
                 * runs where the slot manager put it or not at all. */
                if (!a->speculative && context_task_running(ctx, a->task) > 0)
                        jobs[t->job].running[t->type]++;
        }
        qsort_r(jobs, s->n_jobs, sizeof(SloJob), compare_slo_jobs, ctx);
        return jobs;
}

/* The free slots of a type in the cluster and what the jobs with deadlines
 * still need of them: spare slots are those beyond the need. */
typedef struct SlotBudget {
        unsigned free, needed;
} SlotBudget;

/* Tasks of type the job has pending, at most limit. */
static unsigned pending_tasks(const PolicyContext *ctx, uint32_t job, TaskType type,
                              unsigned limit) {
        unsigned n = 0;

        for (uint32_t x = ctx->task_start[job]; x < ctx->task_start[job + 1] && n < limit; x++) {
                uint32_t t = ctx->tasks_by_job[x];

                n += ctx->snap->tasks[t].type == type && context_task_pending(ctx, t);
        }
        return n;
}

static void budget_count(const PolicyContext *ctx, const SloJob *jobs, TaskType type,
                         SlotBudget *ret) {
        SlotBudget b = { 0 };

        for (uint32_t node = 0; node < ctx->snap->n_nodes; node++)
                b.free += context_free_slots(ctx, node, slot_type_of(type));
        /* A reduce the driver cannot start yet (context_reduce_may_start())
         * needs no slot: where reduces read the map outputs at their start,
         * a reduce of a job without a deadline waits for no map either, so
         * it holds the slot only for its own run. */
        for (size_t k = 0; k < ctx->snap->n_jobs; k++)
                if (jobs[k].deadline && jobs[k].running[type] < jobs[k].quota[type] &&
                    (type == TASK_MAP || context_reduce_may_start(ctx, jobs[k].job)))
                        b.needed += pending_tasks(ctx, jobs[k].job, type,
                                                  jobs[k].quota[type] - jobs[k].running[type]);
        *ret = b;
}

/* Job j's task for a free slot of type on node: for a map slot a map whose
 * split is on the node first, else any of its maps (ARIA's lines 9-12);
 * NO_INDEX when it has none that may start. */
static uint32_t job_task(const PolicyContext *ctx, const SloJob *j, uint32_t node, TaskType type) {
        uint32_t t;

        if (type == TASK_REDUCE && !j->reduces_open)
                return NO_INDEX;
        t = context_job_next_task(ctx, j->job, type, node, type == TASK_MAP);
        if (t == NO_INDEX && type == TASK_MAP)
                t = context_job_next_task(ctx, j->job, type, node, false);
        return t;
}

/* The order the spare slots go in (slo-sched.h): places in jobs. */
typedef struct SpareOrder {
        size_t *k;
        size_t n;
} SpareOrder;

/* The task the next free slot of type on node goes to, its job's place in
 * jobs and whether it is a spare slot (beyond the job's quota, or to a job
 * without a deadline); NO_INDEX when no job takes it. */
static uint32_t slo_pick(const PolicyContext *ctx, const SloJob *jobs, const SpareOrder *spare,
                         const SlotBudget *budget, uint32_t node, TaskType type, size_t *ret_k,
                         bool *ret_spare) {
        for (size_t k = 0; k < ctx->snap->n_jobs && jobs[k].deadline; k++) {
                uint32_t t;

                if (jobs[k].running[type] >= jobs[k].quota[type])
                        continue;
                t = job_task(ctx, &jobs[k], node, type);
                if (t != NO_INDEX) {
                        *ret_k = k;
                        *ret_spare = false;
                        return t;
                }
        }
        if (budget->free <= budget->needed)
                return NO_INDEX;
        for (size_t i = 0; i < spare->n; i++) {
                uint32_t t = job_task(ctx, &jobs[spare->k[i]], node, type);

                if (t != NO_INDEX) {
                        *ret_k = spare->k[i];
                        *ret_spare = true;
                        return t;
                }
        }
        return NO_INDEX;
}

/* A deadline job passed over for the spare slots while others can still
 * meet theirs: the loop's triage found it hopeless, or its deadline is
 * gone. */
static bool spare_passed(const PolicyContext *ctx, const SloJob *j) {
        return j->hopeless || ctx->snap->jobs[j->job].deadline <= ctx->now;
}

/* The spare order's key of each deadline job: nearest to missing first,
 * by slo_slack(), those passed over last. */
static int compare_spare(const void *a, const void *b, void *userdata) {
        const SloJob *jobs = userdata;
        size_t x = *(const size_t *)a, y = *(const size_t *)b;
        const SloJob *jx = &jobs[x], *jy = &jobs[y];

        if (jx->deadline != jy->deadline)
                return jx->deadline ? -1 : 1;
        if (jx->passed != jy->passed)
                return jx->passed ? 1 : -1;
        if (jx->slack != jy->slack)
                return jx->slack < jy->slack ? -1 : 1;
        return (x > y) - (x < y);
}

/* Whether a part of the one loop is on: its forecast orders the spare
 * slots. */
static bool loop_on(const PolicyContext *ctx) {
        const SloLoopSettings *slo = &ctx->core->slo;

        return slo->slo_speed || slo->slo_lever || slo->slo_favour;
}

/* Who gets the slots beyond the quotas, in order: without slo_spare the
 * jobs without deadlines (ARIA section 6); with it every job, the deadline
 * jobs first, nearest to missing first (their forecast's slack on their
 * quotas when a part of the loop is on, else earliest deadline), then
 * those passed over, then the jobs without deadlines. any_spare: whether
 * any slot is spare at the step's start (none is later, as each slot
 * taken within a quota lowers the need with it), else the forecasts are
 * not made. */
static int spare_order(PolicyContext *ctx, SloJob *jobs, bool any_spare, SpareOrder *ret) {
        bool by_forecast = ctx->core->slo.slo_spare && loop_on(ctx) && any_spare;
        size_t *k = context_scratch(ctx, ctx->snap->n_jobs + 1, sizeof(size_t));
        size_t n = 0;

        if (!k)
                return -ENOMEM;
        for (size_t i = 0; i < ctx->snap->n_jobs; i++) {
                SloJob *j = &jobs[i];

                if (j->deadline && !ctx->core->slo.slo_spare)
                        continue;
                k[n++] = i;
                if (!j->deadline)
                        continue;
                j->passed = spare_passed(ctx, j);
                j->slack = INFINITY;
                j->forecast = NAN;
                if (by_forecast && !j->passed) {
                        const unsigned slots[_SLOT_TYPE_MAX] = { j->quota[TASK_MAP],
                                                                 j->quota[TASK_REDUCE] };
                        double speed;
                        int r = slo_forecast_one(ctx, j->job, slots, &j->forecast, &speed);

                        if (r < 0)
                                return r;
                        j->slack = slo_slack(ctx->snap, ctx->now, j->job, j->forecast);
                }
        }
        if (ctx->core->slo.slo_spare)
                qsort_r(k, n, sizeof(size_t), compare_spare, jobs);
        *ret = (SpareOrder){ .k = k, .n = n };
        return 0;
}

/* Says which job got a spare slot and why (SpareNote). */
static int note_spare(PolicyContext *ctx, const SloJob *j, uint32_t node, TaskType type) {
        SpareReason reason = !j->deadline         ? SPARE_NO_DEADLINE
                             : j->passed          ? SPARE_PASSED
                             : isnan(j->forecast) ? SPARE_EARLIEST
                                                  : SPARE_NEAREST;

        return DECISIONS_PUSH(ctx->d, spares, .job = j->job, .node = node,
                              .slot = slot_type_of(type), .reason = reason,
                              .forecast =
                                      reason == SPARE_NEAREST
                                              ? (usec_t)llround(fmax(j->forecast, 0) * USEC_PER_SEC)
                                              : 0,
                              .quota = j->quota[type]);
}

static int slo_assign(PolicyContext *ctx, SloJob *jobs) {
        SlotBudget budget[_TASK_TYPE_MAX];
        SpareOrder spare;
        int r;

        for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                budget_count(ctx, jobs, type, &budget[type]);
        r = spare_order(ctx, jobs,
                        budget[TASK_MAP].free > budget[TASK_MAP].needed ||
                                budget[TASK_REDUCE].free > budget[TASK_REDUCE].needed,
                        &spare);
        if (r < 0)
                return r;
        for (uint32_t node = 0; node < ctx->snap->n_nodes; node++)
                for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                        while (context_fillable_slots(ctx, node, slot_type_of(type)) > 0) {
                                size_t k = 0;
                                bool spared = false;
                                uint32_t t = slo_pick(ctx, jobs, &spare, &budget[type], node, type,
                                                      &k, &spared);

                                if (t == NO_INDEX)
                                        break;
                                r = context_assign(ctx, t, node, slot_type_of(type), false);
                                if (r >= 0 && spared && ctx->core->slo.slo_spare)
                                        r = note_spare(ctx, &jobs[k], node, type);
                                if (r < 0)
                                        return r;
                                jobs[k].running[type]++;
                                budget[type].free--;
                                if (!spared)
                                        budget[type].needed--;
                        }
        for (size_t k = 0; k < ctx->snap->n_jobs; k++) {
                const SloJob *j = &jobs[k];

                if (!j->deadline || (ctx->maps_done[j->job] == ctx->maps_total[j->job] &&
                                     ctx->reduces_done[j->job] == ctx->reduces_total[j->job]))
                        continue;
                r = DECISIONS_PUSH(ctx->d, quotas, .job = j->job,
                                   .slots = { j->quota[TASK_MAP], j->quota[TASK_REDUCE] });
                if (r < 0)
                        return r;
        }
        return 0;
}

int slo_schedule(PolicyContext *ctx, IdMap *remembered, const void *settings, SloQuotaFn quota) {
        SloJob *jobs = slo_jobs(ctx);

        bool triage = false;

        if (!jobs)
                return -ENOMEM;
        for (size_t k = 0; k < ctx->snap->n_jobs; k++) {
                SloJob *sj = &jobs[k];
                void *value;
                int r;

                if (!sj->deadline) {
                        sj->reduces_open = context_job_eligible(ctx, sj->job, TASK_REDUCE);
                        continue;
                }
                r = idmap_put(remembered, ctx->snap->jobs[sj->job].id, &value);
                if (r >= 0)
                        r = quota(ctx, settings, value, sj);
                if (r < 0)
                        return r;
                triage |= sj->hopeless;
        }
        idmap_sweep(remembered);
        if (triage)
                qsort_r(jobs, ctx->snap->n_jobs, sizeof(SloJob), compare_slo_jobs, ctx);
        return slo_assign(ctx, jobs);
}

int slo_job_profile(const Job *job, unsigned maps, AriaProfile *ret) {
        const JobProfile *jp = job->stored_profile;
        const PhaseStats *first, *typical;

        if (!jp || jp->phases[PROFILE_MAP].count == 0)
                jp = &job->profile;
        if (jp->phases[PROFILE_MAP].count == 0 || maps == 0 || job->input_size == 0)
                return -ENODATA;
        first = &jp->phases[PROFILE_FIRST_SHUFFLE];
        typical = &jp->phases[PROFILE_TYPICAL_SHUFFLE];
        if (first->count == 0)
                first = typical;
        if (typical->count == 0)
                typical = first;
        *ret = (AriaProfile){
                .map_min = usec_to_sec(jp->phases[PROFILE_MAP].min),
                .map_avg = usec_to_sec(phase_stats_mean(&jp->phases[PROFILE_MAP])),
                .map_max = usec_to_sec(jp->phases[PROFILE_MAP].max),
                .map_input = (double)job->input_size / maps,
                .sh1_avg = usec_to_sec(phase_stats_mean(first)),
                .sh1_max = usec_to_sec(first->max),
                .shtyp_avg = usec_to_sec(phase_stats_mean(typical)),
                .shtyp_max = usec_to_sec(typical->max),
                .reduce_avg = usec_to_sec(phase_stats_mean(&jp->phases[PROFILE_REDUCE])),
                .reduce_max = usec_to_sec(jp->phases[PROFILE_REDUCE].max),
        };
        return aria_profile_check(ret) < 0 ? -ENODATA : 0;
}

unsigned slo_cluster_slots(const ClusterSnapshot *s, const unsigned *slots, SlotType slot) {
        unsigned n = 0;

        for (uint32_t node = 0; node < s->n_nodes; node++)
                if (node_schedulable(&s->nodes[node]))
                        n += slots ? slots[node] : s->nodes[node].slots[slot];
        return n;
}

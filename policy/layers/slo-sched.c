/* SPDX-License-Identifier: MIT */
/* The slot assignment ARIA's and the Deadline Constraint Scheduler's
 * Algorithm 1 share; see slo-sched.h. */
#include "policy/layers/slo-sched.h"

#include <errno.h>
#include <stdlib.h>

#include "common/macro.h"

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

/* The task the next free slot of type on node goes to, and its job's place
 * in jobs; NO_INDEX when no job takes it. */
static uint32_t slo_pick(const PolicyContext *ctx, const SloJob *jobs, const SlotBudget *budget,
                         uint32_t node, TaskType type, size_t *ret_k) {
        for (size_t k = 0; k < ctx->snap->n_jobs; k++) {
                const SloJob *j = &jobs[k];
                uint32_t t;

                if ((j->deadline && j->running[type] >= j->quota[type]) ||
                    (!j->deadline && budget->free <= budget->needed) ||
                    (type == TASK_REDUCE && !j->reduces_open))
                        continue;
                t = context_job_next_task(ctx, j->job, type, node, type == TASK_MAP);
                if (t == NO_INDEX && type == TASK_MAP)
                        t = context_job_next_task(ctx, j->job, type, node, false);
                if (t != NO_INDEX) {
                        *ret_k = k;
                        return t;
                }
        }
        return NO_INDEX;
}

static int slo_assign(PolicyContext *ctx, SloJob *jobs) {
        SlotBudget budget[_TASK_TYPE_MAX];

        for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                budget_count(ctx, jobs, type, &budget[type]);
        for (uint32_t node = 0; node < ctx->snap->n_nodes; node++)
                for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                        while (context_fillable_slots(ctx, node, slot_type_of(type)) > 0) {
                                size_t k = 0;
                                uint32_t t = slo_pick(ctx, jobs, &budget[type], node, type, &k);
                                int r;

                                if (t == NO_INDEX)
                                        break;
                                r = context_assign(ctx, t, node, slot_type_of(type), false);
                                if (r < 0)
                                        return r;
                                jobs[k].running[type]++;
                                budget[type].free--;
                                if (jobs[k].deadline)
                                        budget[type].needed--;
                        }
        for (size_t k = 0; k < ctx->snap->n_jobs; k++) {
                const SloJob *j = &jobs[k];
                int r;

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

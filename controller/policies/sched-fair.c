/* SPDX-License-Identifier: MIT */
/* The Hadoop Fair Scheduler with delay scheduling (Zaharia et al.,
 * EuroSys'10). Slots of each type are shared max-min fairly between pools,
 * and within a pool between its jobs, all with equal weights: a claimant
 * never gets more than its demand (running + pending tasks). Every free slot
 * goes to the job furthest below its share (running / share, then submission
 * order). For a map slot a job without a task local to the node is passed
 * over, and keeps waiting, until it has waited locality_delay; a local
 * launch ends its wait (the paper's Algorithm 1, with time in place of a
 * skip count). Every task runs in a slot of its own type. A job's wait is
 * the scheduler's memory across steps, by Job.id, for the jobs that wait. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "common/macro.h"
#include "controller/core/context.h"
#include "controller/core/idmap.h"
#include "controller/core/stats.h"
#include "controller/policies/policies.h"

typedef struct FairJob {
        uint32_t job;
        size_t order; /* position in submission order */
        double running, pending, share;
} FairJob;

/* Scratch for one slot type, sized by the number of jobs. */
typedef struct FairScratch {
        FairJob *jobs;
        uint32_t *pools;
        double *demand, *share;
} FairScratch;

static const ConfKey fair_keys[] = {
        /* Delay scheduling: a few seconds is enough for a slot on a node
         * with the data to free up (Zaharia et al., EuroSys'10). */
        SETTING_DURATION(FairSettings, locality_delay, "5s", 0, 24 * USEC_PER_HOUR,
                         "fair: how long a job may be passed over for want of a local map "
                         "before it takes a non-local one (delay scheduling's W)"),
};

const ConfSchema fair_settings_schema = {
        .keys = fair_keys,
        .n_keys = ELEMENTSOF(fair_keys),
        .size = sizeof(FairSettings),
};

/* The scheduler's state: since when each waiting job has been passed over
 * for want of a local map task, a usec_t by Job.id. */
static int fair_init(const void *settings, void **ret_state) {
        return idmap_new_state(sizeof(usec_t), ret_state);
}

static void fair_free(void *state) {
        idmap_free(state);
}

/* The step's working copy of the waits, by job index. */
static usec_t *waits_load(const IdMap *waits, const PolicyContext *ctx) {
        usec_t *since = context_scratch(ctx, ctx->snap->n_jobs, sizeof(usec_t));

        for (size_t j = 0; since && j < ctx->snap->n_jobs; j++) {
                const usec_t *w = idmap_get(waits, ctx->snap->jobs[j].id);

                since[j] = w ? *w : 0;
        }
        return since;
}

/* Keeps the waits of the jobs that wait, forgets the others and the jobs
 * that left the snapshot. */
static int waits_store(IdMap *waits, const PolicyContext *ctx, const usec_t *since) {
        for (size_t j = 0; j < ctx->snap->n_jobs; j++) {
                usec_t *w;
                int r;

                if (since[j] == 0)
                        continue;
                r = idmap_put(waits, ctx->snap->jobs[j].id, (void **)&w);
                if (r < 0)
                        return r;
                *w = since[j];
        }
        idmap_sweep(waits);
        return 0;
}

static double need_ratio(const FairJob *j) {
        return j->share > 0 ? j->running / j->share : INFINITY;
}

static int compare_need(const void *a, const void *b) {
        const FairJob *x = a, *y = b;
        double rx = need_ratio(x), ry = need_ratio(y);

        if (rx != ry)
                return rx < ry ? -1 : 1;
        return (x->order > y->order) - (x->order < y->order);
}

static bool same_pool(const PolicyContext *ctx, const FairJob *j, uint32_t pool) {
        return ctx->snap->jobs[j->job].pool == pool;
}

/* Pools' max-min shares of capacity, then each job's share of its pool's. */
static void fair_shares(const PolicyContext *ctx, FairScratch *f, size_t n, double capacity) {
        size_t n_pools = 0;

        for (size_t i = 0; i < n; i++) {
                uint32_t pool = ctx->snap->jobs[f->jobs[i].job].pool;
                size_t p = 0;

                while (p < n_pools && f->pools[p] != pool)
                        p++;
                if (p == n_pools)
                        f->pools[n_pools++] = pool;
        }
        for (size_t p = 0; p < n_pools; p++) {
                f->demand[p] = 0;
                for (size_t i = 0; i < n; i++)
                        if (same_pool(ctx, &f->jobs[i], f->pools[p]))
                                f->demand[p] += f->jobs[i].running + f->jobs[i].pending;
        }
        stats_max_min_shares(f->demand, n_pools, capacity, f->share);
        for (size_t p = 0; p < n_pools; p++) {
                double *job_share = f->share + n_pools;
                size_t m = 0;

                for (size_t i = 0; i < n; i++)
                        if (same_pool(ctx, &f->jobs[i], f->pools[p]))
                                f->demand[m++] = f->jobs[i].running + f->jobs[i].pending;
                stats_max_min_shares(f->demand, m, f->share[p], job_share);
                m = 0;
                for (size_t i = 0; i < n; i++)
                        if (same_pool(ctx, &f->jobs[i], f->pools[p]))
                                f->jobs[i].share = job_share[m++];
        }
}

/* The jobs with tasks of this type running or pending, with their shares. */
static size_t fair_collect(const PolicyContext *ctx, FairScratch *f, TaskType type) {
        double capacity = 0;
        size_t n = 0;

        for (size_t k = 0; k < ctx->snap->n_jobs; k++) {
                uint32_t job = ctx->job_order[k];
                FairJob j = { .job = job, .order = k };

                for (uint32_t x = ctx->task_start[job]; x < ctx->task_start[job + 1]; x++) {
                        uint32_t t = ctx->tasks_by_job[x];

                        if (ctx->snap->tasks[t].type != type)
                                continue;
                        j.running += ctx->task_running[t];
                        if (context_task_pending(ctx, t) && context_task_eligible(ctx, t))
                                j.pending++;
                }
                if (j.running + j.pending > 0)
                        f->jobs[n++] = j;
        }
        for (uint32_t node = 0; node < ctx->snap->n_nodes; node++)
                if (node_schedulable(&ctx->snap->nodes[node]))
                        capacity += ctx->slots[slot_type_of(type)][node];
        fair_shares(ctx, f, n, capacity);
        return n;
}

/* Delay scheduling: the task job j may launch on node now, or NO_INDEX. */
static uint32_t fair_job_task(PolicyContext *ctx, const FairSettings *set, usec_t *since,
                              uint32_t job, uint32_t node, TaskType type) {
        uint32_t t = context_job_pending_task(ctx, job, type, node, type == TASK_MAP);

        if (type == TASK_REDUCE)
                return t;
        if (t != NO_INDEX) {
                since[job] = 0;
                return t;
        }
        if (since[job] == 0)
                since[job] = ctx->now;
        if (ctx->now - since[job] < set->locality_delay)
                return NO_INDEX;
        return context_job_pending_task(ctx, job, type, node, false);
}

/* One free slot: the neediest job that may launch here; false if none. */
static int fair_fill_slot(PolicyContext *ctx, const FairSettings *set, usec_t *since, FairJob *jobs,
                          size_t n, uint32_t node, TaskType type, bool *ret_filled) {
        qsort(jobs, n, sizeof(FairJob), compare_need);
        for (size_t i = 0; i < n; i++) {
                uint32_t t;

                if (jobs[i].pending == 0)
                        continue;
                t = fair_job_task(ctx, set, since, jobs[i].job, node, type);
                if (t == NO_INDEX)
                        continue;
                jobs[i].running++;
                jobs[i].pending--;
                *ret_filled = true;
                return context_assign(ctx, t, node, slot_type_of(type), false);
        }
        *ret_filled = false;
        return 0;
}

static int fair_assign(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        const FairSettings *set = settings;
        IdMap *waits = state;
        size_t n_jobs = ctx->snap->n_jobs;
        usec_t *since = waits_load(waits, ctx);
        FairJob *jobs = context_scratch(ctx, n_jobs, sizeof(FairJob));
        uint32_t *pools = context_scratch(ctx, n_jobs, sizeof(uint32_t));
        double *demand = context_scratch(ctx, n_jobs, sizeof(double));
        double *share = context_scratch(ctx, 2 * n_jobs, sizeof(double));
        FairScratch f = { .jobs = jobs, .pools = pools, .demand = demand, .share = share };

        if (!since || !jobs || !pools || !demand || !share)
                return -ENOMEM;
        for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++) {
                size_t n = fair_collect(ctx, &f, type);

                for (uint32_t node = 0; node < ctx->snap->n_nodes; node++) {
                        bool filled = true;

                        while (filled &&
                               context_fillable_slots(ctx, node, slot_type_of(type)) > 0) {
                                int r = fair_fill_slot(ctx, set, since, jobs, n, node, type,
                                                       &filled);

                                if (r < 0)
                                        return r;
                        }
                }
        }
        return waits_store(waits, ctx, since);
}

const JobSchedulerOps job_scheduler_fair = {
        .name = "fair",
        .settings = &fair_settings_schema,
        .init = fair_init,
        .free = fair_free,
        .assign = fair_assign,
};

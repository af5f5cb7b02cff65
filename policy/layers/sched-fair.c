/* SPDX-License-Identifier: MIT */
/* The Hadoop Fair Scheduler with delay scheduling (Zaharia et al.,
 * EuroSys'10). Slots of each type are shared max-min fairly between pools,
 * and within a pool between its jobs, all with equal weights: a claimant
 * never gets more than its demand (running + pending tasks). Every free slot
 * goes to the job furthest below its share (running / share, then submission
 * order). For a map slot a job without a task local to the node is passed
 * over, and keeps waiting, until it has waited locality_delay; a local
 * launch ends its wait (the paper's Algorithm 1, with time in place of a
 * skip count). Every task runs in a slot of its own type, unless DynamicMR
 * lends it one of the other type (dynamicmr.h, which fills the slots): under
 * PI-DHSA the shares of a phase count the slots it may borrow, under
 * PD-DHSA the pools share all slots, in weight units, and are served
 * neediest first. What the scheduler remembers across steps: a job's wait,
 * by Job.id, for the jobs that wait, and the filler's memory of the
 * nodes. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/context.h"
#include "policy/core/idmap.h"
#include "policy/core/stats.h"
#include "policy/layers/dynamicmr.h"
#include "policy/layers/policies.h"

/* A job in one view: a task type's (running and pending of that type, in
 * tasks), or PD-DHSA's (both types, in weight units). */
typedef struct FairJob {
        uint32_t job;
        size_t order; /* position in submission order */
        double running, pending, share;
        size_t pool;                        /* index into the view's pools */
        unsigned n_pending[_TASK_TYPE_MAX]; /* tasks that may start, by type */
} FairJob;

typedef struct FairPool {
        uint32_t id;
        double running, share;
        size_t order; /* of its first job */
} FairPool;

typedef struct FairView {
        FairJob *jobs;
        size_t n;
        FairPool *pools;
        size_t n_pools;
} FairView;

/* One step of the scheduler: the source of the filler's tasks. */
typedef struct FairStep {
        PolicyContext *ctx;
        DmrFill *fill;
        const FairSettings *set;
        usec_t *since;
        bool pd;
        FairView view[_TASK_TYPE_MAX]; /* both the same view under PD-DHSA */
        double *demand, *share;        /* scratch for the shares */
        FairPool *sorted;              /* scratch for PD-DHSA's order of pools */
} FairStep;

typedef struct FairState {
        IdMap waits; /* since when each waiting job waits, a usec_t by Job.id */
        IdMap *nodes;
} FairState;

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

static void fair_free(void *state) {
        FairState *s = state;

        if (!s)
                return;
        idmap_done(&s->waits);
        idmap_free(s->nodes);
        free(s);
}

static int fair_init(const void *settings, void **ret_state) {
        FairState *s = calloc(1, sizeof(*s));
        int r;

        if (!s)
                return -ENOMEM;
        idmap_init(&s->waits, sizeof(usec_t));
        r = dmr_memory_new((void **)&s->nodes);
        if (r < 0) {
                fair_free(s);
                return r;
        }
        *ret_state = s;
        return 0;
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

static double ratio(double running, double share) {
        return share > 0 ? running / share : INFINITY;
}

/* Furthest below its share first; under PD-DHSA its pool's first. */
static int compare_need(const void *a, const void *b, void *userdata) {
        const FairView *v = userdata;
        const FairJob *x = a, *y = b;
        double rx = ratio(x->running, x->share), ry = ratio(y->running, y->share);

        if (v->pools) {
                const FairPool *px = &v->pools[x->pool], *py = &v->pools[y->pool];
                double qx = ratio(px->running, px->share), qy = ratio(py->running, py->share);

                if (qx != qy)
                        return qx < qy ? -1 : 1;
                if (px->order != py->order)
                        return px->order < py->order ? -1 : 1;
        }
        if (rx != ry)
                return rx < ry ? -1 : 1;
        return (x->order > y->order) - (x->order < y->order);
}

/* Pools' max-min shares of capacity, then each job's share of its pool's. */
static void fair_shares(FairStep *st, FairView *v, double capacity) {
        const ClusterSnapshot *s = st->ctx->snap;
        size_t n_pools = 0;

        for (size_t i = 0; i < v->n; i++) {
                uint32_t pool = s->jobs[v->jobs[i].job].pool;
                size_t p = 0;

                while (p < n_pools && v->pools[p].id != pool)
                        p++;
                if (p == n_pools)
                        v->pools[n_pools++] = (FairPool){ .id = pool, .order = v->jobs[i].order };
                v->jobs[i].pool = p;
                v->pools[p].running += v->jobs[i].running;
        }
        v->n_pools = n_pools;
        for (size_t p = 0; p < n_pools; p++) {
                st->demand[p] = 0;
                for (size_t i = 0; i < v->n; i++)
                        if (v->jobs[i].pool == p)
                                st->demand[p] += v->jobs[i].running + v->jobs[i].pending;
        }
        stats_max_min_shares(st->demand, n_pools, capacity, st->share);
        for (size_t p = 0; p < n_pools; p++) {
                double *job_share = st->share + n_pools;
                size_t m = 0;

                v->pools[p].share = st->share[p];
                for (size_t i = 0; i < v->n; i++)
                        if (v->jobs[i].pool == p)
                                st->demand[m++] = v->jobs[i].running + v->jobs[i].pending;
                stats_max_min_shares(st->demand, m, st->share[p], job_share);
                m = 0;
                for (size_t i = 0; i < v->n; i++)
                        if (v->jobs[i].pool == p)
                                v->jobs[i].share = job_share[m++];
        }
}

/* A job's running and pending tasks of a type, whose weight each counts. */
static void count_job(const PolicyContext *ctx, FairJob *j, TaskType type, double weight) {
        for (uint32_t x = ctx->task_start[j->job]; x < ctx->task_start[j->job + 1]; x++) {
                uint32_t t = ctx->tasks_by_job[x];

                if (ctx->snap->tasks[t].type != type)
                        continue;
                j->running += weight * context_task_running(ctx, t);
                if (context_task_pending(ctx, t) && context_task_eligible(ctx, t)) {
                        j->pending += weight;
                        j->n_pending[type]++;
                }
        }
}

/* The jobs with tasks of the types (types[0 .. n_types)) running or
 * pending, with their shares of capacity. */
static int fair_collect(FairStep *st, FairView *v, const TaskType *types, size_t n_types,
                        double capacity) {
        const PolicyContext *ctx = st->ctx;
        size_t n_jobs = ctx->snap->n_jobs;

        v->jobs = context_scratch(ctx, n_jobs, sizeof(FairJob));
        v->pools = context_scratch(ctx, n_jobs, sizeof(FairPool));
        if (!v->jobs || !v->pools)
                return -ENOMEM;
        v->n = 0;
        for (size_t k = 0; k < n_jobs; k++) {
                FairJob j = { .job = ctx->job_order[k], .order = k };

                for (size_t i = 0; i < n_types; i++)
                        count_job(ctx, &j, types[i],
                                  n_types > 1 ? dmr_task_weight(st->fill, types[i]) : 1);
                if (j.running + j.pending > 0)
                        v->jobs[v->n++] = j;
        }
        fair_shares(st, v, capacity);
        /* Only PD-DHSA orders pools before jobs. */
        if (n_types == 1)
                v->pools = NULL;
        return 0;
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

/* The head job's local map, or nothing. */
static uint32_t head_task(PolicyContext *ctx, usec_t *since, uint32_t job, uint32_t node,
                          TaskType type) {
        uint32_t t = context_job_pending_task(ctx, job, type, node, type == TASK_MAP);

        if (t != NO_INDEX && type == TASK_MAP)
                since[job] = 0;
        return t;
}

static uint32_t fair_pick(void *data, PolicyContext *ctx, uint32_t node, TaskType type,
                          uint32_t pool, PickMode mode, bool *visited) {
        FairStep *st = data;
        FairView *v = &st->view[type];

        qsort_r(v->jobs, v->n, sizeof(FairJob), compare_need, v);
        for (size_t i = 0; i < v->n; i++) {
                uint32_t job = v->jobs[i].job, t;

                if (v->jobs[i].n_pending[type] == 0 ||
                    (pool != NO_INDEX && ctx->snap->jobs[job].pool != pool))
                        continue;
                if (mode == PICK_HEAD)
                        return head_task(ctx, st->since, job, node, type);
                t = fair_job_task(ctx, st->set, st->since, job, node, type);
                if (t == NO_INDEX && type == TASK_MAP) {
                        if (mode == PICK_RELAXED && visited[job])
                                t = context_job_pending_task(ctx, job, type, node, false);
                        else if (visited)
                                visited[job] = true;
                }
                if (t != NO_INDEX)
                        return t;
        }
        return NO_INDEX;
}

static void fair_took(void *data, PolicyContext *ctx, uint32_t task) {
        FairStep *st = data;
        TaskType type = ctx->snap->tasks[task].type;
        FairView *v = &st->view[type];
        double weight = st->pd ? dmr_task_weight(st->fill, type) : 1;

        for (size_t i = 0; i < v->n; i++)
                if (v->jobs[i].job == ctx->snap->tasks[task].job) {
                        v->jobs[i].running += weight;
                        v->jobs[i].pending -= weight;
                        v->jobs[i].n_pending[type]--;
                        if (v->pools)
                                v->pools[v->jobs[i].pool].running += weight;
                        return;
                }
}

static int compare_pools(const void *a, const void *b) {
        const FairPool *x = a, *y = b;
        double rx = ratio(x->running, x->share), ry = ratio(y->running, y->share);

        if (rx != ry)
                return rx < ry ? -1 : 1;
        return (x->order > y->order) - (x->order < y->order);
}

static size_t fair_pools(void *data, PolicyContext *ctx, uint32_t *ret) {
        FairStep *st = data;
        const FairView *v = &st->view[TASK_MAP];

        memcpy(st->sorted, v->pools, v->n_pools * sizeof(FairPool));
        qsort(st->sorted, v->n_pools, sizeof(FairPool), compare_pools);
        for (size_t p = 0; p < v->n_pools; p++)
                ret[p] = st->sorted[p].id;
        return v->n_pools;
}

static int fair_views(FairStep *st) {
        static const TaskType both[] = { TASK_MAP, TASK_REDUCE };
        int r = 0;

        if (st->pd) {
                r = fair_collect(st, &st->view[TASK_MAP], both, ELEMENTSOF(both),
                                 dmr_total_capacity(st->fill));
                st->view[TASK_REDUCE] = st->view[TASK_MAP];
                return r;
        }
        for (TaskType type = TASK_MAP; r >= 0 && type < _TASK_TYPE_MAX; type++)
                r = fair_collect(st, &st->view[type], &both[type], 1,
                                 dmr_phase_capacity(st->fill, type));
        return r;
}

static int fair_assign(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        FairState *fs = state;
        size_t n_jobs = ctx->snap->n_jobs;
        FairStep st = {
                .ctx = ctx,
                .since = waits_load(&fs->waits, ctx),
                .set = settings,
                .pd = ctx->core->dmr.dhsa == DHSA_PD,
                .demand = context_scratch(ctx, n_jobs, sizeof(double)),
                .share = context_scratch(ctx, 2 * n_jobs, sizeof(double)),
                .sorted = context_scratch(ctx, n_jobs, sizeof(FairPool)),
        };
        TaskSource src = { .data = &st, .pick = fair_pick, .took = fair_took, .pools = fair_pools };
        DmrFill *fill;
        int r;

        if (!st.since || !st.demand || !st.share || !st.sorted)
                return -ENOMEM;
        r = dmr_fill_begin(ctx, fs->nodes, &fill);
        if (r < 0)
                return r;
        st.fill = fill;
        r = fair_views(&st);
        if (r >= 0)
                r = dmr_fill(fill, &src, fs->nodes);
        if (r >= 0)
                r = waits_store(&fs->waits, ctx, st.since);
        return r;
}

const JobSchedulerOps job_scheduler_fair = {
        .name = "fair",
        .settings = &fair_settings_schema,
        .figures_on_demand = true, /* it reads none */
        .init = fair_init,
        .free = fair_free,
        .assign = fair_assign,
};

/* SPDX-License-Identifier: MIT */
/* Speculative execution into the slots the job scheduler left free.
 * none: never. hadoop: Hadoop 1's rule (JobInProgress, TaskInProgress): a
 * task with one running attempt, at least spec_min_runtime old, whose
 * progress is more than spec_progress_gap below its job's average progress
 * for that task type (done tasks count 1, pending 0), gets one backup, tasks
 * taken in index order. late: LATE (Zaharia et al., OSDI'08): a task whose
 * progress rate is below the late_slow_task_pct percentile of its job's
 * running tasks of that type is a candidate once late_min_runtime old (as
 * hadoop's spec_min_runtime); candidates go by estimated time
 * left (1 - progress) / rate, longest first, while running backups stay
 * below late_spec_cap of all slots, and never onto a slow node (its
 * attempts' mean progress rate below the late_slow_node_pct percentile). A
 * backup never runs on its original's node; among the other nodes with a
 * free slot of the task's type the first holding a map's split wins, else
 * the first. */
#include <errno.h>
#include <stdlib.h>

#include "common/macro.h"
#include "controller/core/context.h"
#include "controller/core/stats.h"
#include "controller/policies/policies.h"

const SpeculationOps speculation_none = {
        .name = "none",
};

static const ConfKey hadoop_keys[] = {
        /* Hadoop 1 JobInProgress: SPECULATIVE_LAG and SPECULATIVE_GAP. */
        SETTING_DURATION(HadoopSpeculationSettings, spec_min_runtime, "60s", 0, 24 * USEC_PER_HOUR,
                         "hadoop speculation: a task must run this long before a backup"),
        SETTING_DOUBLE(HadoopSpeculationSettings, spec_progress_gap, "0.2", 0, 1,
                       "hadoop speculation: a task this far below its job's mean progress "
                       "gets a backup"),
};

const ConfSchema hadoop_speculation_settings_schema = {
        .keys = hadoop_keys,
        .n_keys = ELEMENTSOF(hadoop_keys),
        .size = sizeof(HadoopSpeculationSettings),
};

/* LATE (Zaharia et al., OSDI'08) section 4.1. */
static const ConfKey late_keys[] = {
        SETTING_DURATION(LateSettings, late_min_runtime, "60s", 0, 24 * USEC_PER_HOUR,
                         "late: a task must run this long before a backup"),
        SETTING_DOUBLE(LateSettings, late_slow_task_pct, "0.25", 0, 1,
                       "late: SlowTaskThreshold, the percentile of progress rate below which "
                       "a task may get a backup"),
        SETTING_DOUBLE(LateSettings, late_slow_node_pct, "0.25", 0, 1,
                       "late: SlowNodeThreshold, the percentile of progress rate below which "
                       "a node gets no backup"),
        SETTING_DOUBLE(LateSettings, late_spec_cap, "0.1", 0, 1,
                       "late: SpeculativeCap, the share of all slots backups may hold"),
};

const ConfSchema late_settings_schema = {
        .keys = late_keys,
        .n_keys = ELEMENTSOF(late_keys),
        .size = sizeof(LateSettings),
};

/* The attempt is its task's only one and at least min_runtime old. */
static bool may_back_up(const PolicyContext *ctx, uint32_t attempt, usec_t min_runtime) {
        const Attempt *a = &ctx->snap->attempts[attempt];

        return !ctx->killed[attempt] && ctx->task_running[a->task] == 1 &&
               ctx->now >= a->started + min_runtime;
}

static int launch_backup(PolicyContext *ctx, uint32_t attempt, const bool *slow_node,
                         bool *ret_launched) {
        const Attempt *a = &ctx->snap->attempts[attempt];
        const Task *t = &ctx->snap->tasks[a->task];
        uint32_t best = NO_INDEX;

        *ret_launched = false;
        for (uint32_t n = 0; n < ctx->snap->n_nodes; n++) {
                if (n == a->node || (slow_node && slow_node[n]) ||
                    context_fillable_slots(ctx, n, slot_type_of(t->type)) == 0)
                        continue;
                if (best == NO_INDEX || (task_is_local(t, n) && !task_is_local(t, best)))
                        best = n;
        }
        if (best == NO_INDEX)
                return 0;
        *ret_launched = true;
        return context_assign(ctx, a->task, best, slot_type_of(t->type), true);
}

/* Some task type has both a running attempt and a free slot of its type.
 * Without such a pair (the scheduler filled every slot, or the free ones are
 * map slots in a job's reduce phase) there is no backup to launch, and a
 * layer's pass over every task would be wasted. */
static bool backup_possible(const PolicyContext *ctx) {
        const ClusterSnapshot *s = ctx->snap;
        bool running[_TASK_TYPE_MAX] = { false, false };

        for (size_t i = 0; i < s->n_attempts; i++)
                running[s->tasks[s->attempts[i].task].type] = true;
        for (uint32_t node = 0; node < s->n_nodes; node++)
                for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                        if (running[type] &&
                            context_fillable_slots(ctx, node, slot_type_of(type)) > 0)
                                return true;
        return false;
}

static int hadoop_speculate(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        const HadoopSpeculationSettings *set = settings;
        const ClusterSnapshot *s = ctx->snap;
        size_t n_avg = 2 * s->n_jobs;

        if (!backup_possible(ctx))
                return 0;

        double *sum = context_scratch(ctx, n_avg, sizeof(double));
        unsigned *count = context_scratch(ctx, n_avg, sizeof(unsigned));
        double *progress = context_scratch(ctx, s->n_tasks, sizeof(double));

        if (!sum || !count || !progress)
                return -ENOMEM;
        /* A task's progress is its best attempt's; a done task's is 1. */
        for (uint32_t i = 0; i < s->n_attempts; i++)
                progress[s->attempts[i].task] =
                        MAX(progress[s->attempts[i].task], s->attempts[i].progress);
        for (uint32_t t = 0; t < s->n_tasks; t++) {
                size_t k = 2 * s->tasks[t].job + s->tasks[t].type;

                sum[k] += s->tasks[t].state == TASK_DONE ? 1.0 : progress[t];
                count[k]++;
        }
        for (uint32_t i = 0; i < s->n_attempts; i++) {
                const Task *t = &s->tasks[s->attempts[i].task];
                size_t k = 2 * t->job + t->type;
                bool launched;
                int r;

                if (!may_back_up(ctx, i, set->spec_min_runtime) ||
                    s->attempts[i].progress >= sum[k] / count[k] - set->spec_progress_gap)
                        continue;
                r = launch_backup(ctx, i, NULL, &launched);
                if (r < 0)
                        return r;
        }
        return 0;
}

const SpeculationOps speculation_hadoop = {
        .name = "hadoop",
        .settings = &hadoop_speculation_settings_schema,
        .speculate = hadoop_speculate,
};

typedef struct LateCandidate {
        uint32_t attempt;
        double time_left;
} LateCandidate;

static int compare_time_left(const void *a, const void *b) {
        const LateCandidate *x = a, *y = b;

        if (x->time_left != y->time_left)
                return x->time_left > y->time_left ? -1 : 1;
        return (x->attempt > y->attempt) - (x->attempt < y->attempt);
}

static double progress_rate(const PolicyContext *ctx, uint32_t attempt) {
        double age = context_attempt_age(ctx, attempt);

        return age > 0 ? ctx->snap->attempts[attempt].progress / age : 0;
}

static uint32_t group_key(const PolicyContext *ctx, uint32_t attempt) {
        const Task *t = &ctx->snap->tasks[ctx->snap->attempts[attempt].task];

        return 2 * t->job + (uint32_t)t->type;
}

static int compare_group(const void *a, const void *b, void *userdata) {
        const PolicyContext *ctx = userdata;
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
        uint32_t kx = group_key(ctx, x), ky = group_key(ctx, y);

        if (kx != ky)
                return kx < ky ? -1 : 1;
        return (x > y) - (x < y);
}

typedef struct LateScratch {
        const LateSettings *set;
        bool *slow_node;
        double *node_rate;
        unsigned *node_count;
        double *values, *sorted;
        uint32_t *by_group;
        LateCandidate *candidates;
} LateScratch;

/* SlowNodeThreshold over the nodes that run attempts. */
static void late_slow_nodes(const PolicyContext *ctx, LateScratch *l) {
        const ClusterSnapshot *s = ctx->snap;
        size_t n = 0;
        double threshold;

        for (uint32_t i = 0; i < s->n_attempts; i++) {
                l->node_rate[s->attempts[i].node] += progress_rate(ctx, i);
                l->node_count[s->attempts[i].node]++;
        }
        for (uint32_t node = 0; node < s->n_nodes; node++)
                if (l->node_count[node] > 0) {
                        l->node_rate[node] /= l->node_count[node];
                        l->values[n++] = l->node_rate[node];
                }
        threshold = stats_percentile(l->values, n, l->set->late_slow_node_pct, l->sorted);
        for (uint32_t node = 0; node < s->n_nodes; node++)
                l->slow_node[node] = l->node_count[node] > 0 && l->node_rate[node] < threshold;
}

/* SlowTaskThreshold per job and task type; returns the number of candidates. */
static size_t late_candidates(const PolicyContext *ctx, LateScratch *l) {
        size_t n_attempts = ctx->snap->n_attempts, n = 0;

        for (uint32_t i = 0; i < n_attempts; i++)
                l->by_group[i] = i;
        qsort_r(l->by_group, n_attempts, sizeof(uint32_t), compare_group, (void *)ctx);
        for (size_t first = 0, end; first < n_attempts; first = end) {
                double threshold;

                for (end = first; end < n_attempts && group_key(ctx, l->by_group[end]) ==
                                                              group_key(ctx, l->by_group[first]);
                     end++)
                        l->values[end - first] = progress_rate(ctx, l->by_group[end]);
                threshold = stats_percentile(l->values, end - first, l->set->late_slow_task_pct,
                                             l->sorted);
                for (size_t k = first; k < end; k++) {
                        uint32_t i = l->by_group[k];
                        double rate = l->values[k - first];

                        if (!may_back_up(ctx, i, l->set->late_min_runtime) || rate >= threshold ||
                            rate <= 0)
                                continue;
                        l->candidates[n++] = (LateCandidate){
                                .attempt = i,
                                .time_left = (1.0 - ctx->snap->attempts[i].progress) / rate,
                        };
                }
        }
        qsort(l->candidates, n, sizeof(LateCandidate), compare_time_left);
        return n;
}

static double late_cap(const PolicyContext *ctx, const LateSettings *set, unsigned *ret_running) {
        double slots = 0;

        *ret_running = 0;
        for (uint32_t node = 0; node < ctx->snap->n_nodes; node++)
                if (node_schedulable(&ctx->snap->nodes[node]))
                        slots += ctx->slots[SLOT_MAP][node] + ctx->slots[SLOT_REDUCE][node];
        for (uint32_t i = 0; i < ctx->snap->n_attempts; i++)
                if (ctx->snap->attempts[i].speculative && !ctx->killed[i])
                        (*ret_running)++;
        return set->late_spec_cap * slots;
}

static int late_speculate(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        size_t n_nodes = ctx->snap->n_nodes;
        size_t n_values = MAX(ctx->snap->n_attempts, ctx->snap->n_nodes) + 1;

        if (!backup_possible(ctx))
                return 0;

        bool *slow_node = context_scratch(ctx, n_nodes, sizeof(bool));
        double *node_rate = context_scratch(ctx, n_nodes, sizeof(double));
        unsigned *node_count = context_scratch(ctx, n_nodes, sizeof(unsigned));
        double *values = context_scratch(ctx, n_values, sizeof(double));
        double *sorted = context_scratch(ctx, n_values, sizeof(double));
        uint32_t *by_group = context_scratch(ctx, n_values, sizeof(uint32_t));
        LateCandidate *candidates = context_scratch(ctx, n_values, sizeof(LateCandidate));
        LateScratch l = { settings, slow_node, node_rate, node_count,
                          values,   sorted,    by_group,  candidates };
        unsigned running;
        double cap;
        size_t n;

        if (!slow_node || !node_rate || !node_count || !values || !sorted || !by_group ||
            !candidates)
                return -ENOMEM;
        late_slow_nodes(ctx, &l);
        n = late_candidates(ctx, &l);
        cap = late_cap(ctx, settings, &running);
        for (size_t k = 0; k < n && (double)running < cap; k++) {
                bool launched;
                int r = launch_backup(ctx, candidates[k].attempt, slow_node, &launched);

                if (r < 0)
                        return r;
                running += launched;
        }
        return 0;
}

const SpeculationOps speculation_late = {
        .name = "late",
        .settings = &late_settings_schema,
        .speculate = late_speculate,
};

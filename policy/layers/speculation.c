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
 * the first. sepb: DynamicMR's Speculative Execution Performance Balancing
 * (Tang, Lee and He, TCC 2014, 2.2) on LATE, see sepb_ahead(). */
#include <errno.h>
#include <stdlib.h>

#include "common/macro.h"
#include "policy/core/context.h"
#include "policy/core/stats.h"
#include "policy/layers/dynamicmr.h"
#include "policy/layers/policies.h"

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
                         "late, sepb: a task must run this long before a backup"),
        SETTING_DOUBLE(LateSettings, late_slow_task_pct, "0.25", 0, 1,
                       "late, sepb: SlowTaskThreshold, the percentile of progress rate below which "
                       "a task may get a backup"),
        SETTING_DOUBLE(LateSettings, late_slow_node_pct, "0.25", 0, 1,
                       "late, sepb: SlowNodeThreshold, the percentile of progress rate below which "
                       "a node gets no backup"),
        SETTING_DOUBLE(LateSettings, late_spec_cap, "0.1", 0, 1,
                       "late, sepb: SpeculativeCap, the share of all slots backups may hold"),
        /* SEPB checks every job (DynamicMR's advice is 60-100 %, 3.3). */
        SETTING_DOUBLE(LateSettings, jobs_checked, "1", 0, 1,
                       "sepb: percentageOfJobsCheckedForPendingTasks, the share of the jobs "
                       "from a job on whose pending tasks its backups wait"),
};

const ConfSchema late_settings_schema = {
        .keys = late_keys,
        .n_keys = ELEMENTSOF(late_keys),
        .size = sizeof(LateSettings),
};

static bool attempt_old_enough(const PolicyContext *ctx, uint32_t attempt, usec_t min_runtime) {
        return ctx->now >= ctx->snap->attempts[attempt].started + min_runtime;
}

/* The attempt is its task's only one and at least min_runtime old, and a
 * new one may start (a reduce whose job lost a map's output to a lost node
 * waits for the map again under a driver whose reduces read the outputs
 * at their start). */
static bool may_back_up(const PolicyContext *ctx, uint32_t attempt, usec_t min_runtime) {
        const Attempt *a = &ctx->snap->attempts[attempt];
        const Task *t = &ctx->snap->tasks[a->task];

        return attempt_old_enough(ctx, attempt, min_runtime) && !ctx->killed[attempt] &&
               context_task_running(ctx, a->task) == 1 &&
               (t->type == TASK_MAP || context_reduce_may_start(ctx, t->job));
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
        const NodeAttempts *total = ctx->attempts_total; /* the snapshot's attempts */
        bool running[_TASK_TYPE_MAX];
        /* In a heartbeat step no other node has a fillable slot. */
        uint32_t from = ctx->beating_node == NO_INDEX ? 0 : ctx->beating_node;
        uint32_t end = ctx->beating_node == NO_INDEX ? (uint32_t)ctx->snap->n_nodes : from + 1;

        for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                running[type] = total->held[SLOT_MAP][type] + total->held[SLOT_REDUCE][type] > 0;
        for (uint32_t node = from; node < end; node++)
                for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                        if (running[type] &&
                            context_fillable_slots(ctx, node, slot_type_of(type)) > 0)
                                return true;
        return false;
}

/* Per SlotType, whether the heartbeating node has a free one, which only a
 * backup's launch changes; in a control step, true. */
static void beating_slots_free(const PolicyContext *ctx, bool ret[_SLOT_TYPE_MAX]) {
        for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++)
                ret[slot] = ctx->beating_node == NO_INDEX ||
                            context_fillable_slots(ctx, ctx->beating_node, slot) > 0;
}

/* Whether launch_backup() may find a slot for the attempt's backup: in a
 * heartbeat step, exactly when the heartbeating node is not its own and has
 * a free slot of its task's type (no other node takes assignments); in a
 * control step, as far as this tells, always. */
static bool backup_may_fit(const PolicyContext *ctx, uint32_t attempt,
                           const bool beating_free[_SLOT_TYPE_MAX]) {
        const Attempt *a = &ctx->snap->attempts[attempt];

        return a->node != ctx->beating_node &&
               beating_free[slot_type_of(ctx->snap->tasks[a->task].type)];
}

/* Each job's mean progress per task type (2 job + type), Hadoop's way: a
 * task counts its best attempt's progress, done tasks 1 and pending ones 0,
 * added in task order. */
typedef struct JobProgress {
        double *sum;
        unsigned *count;
} JobProgress;

static int job_progress_compute(PolicyContext *ctx, JobProgress *ret) {
        const ClusterSnapshot *s = ctx->snap;
        size_t n_avg = 2 * s->n_jobs;
        double *sum = context_scratch(ctx, n_avg, sizeof(double));
        unsigned *count = context_scratch(ctx, n_avg, sizeof(unsigned));
        unsigned *done = context_scratch(ctx, n_avg, sizeof(unsigned));
        double *progress = context_scratch(ctx, s->n_tasks, sizeof(double));

        if (!sum || !count || !done || !progress)
                return -ENOMEM;
        context_attempt_figures(ctx);
        /* A task's progress is its best attempt's; a done task's is 1, also
         * when the snapshot leaves it out and only its job's counts have it
         * (the live controller's does). */
        for (uint32_t i = 0; i < s->n_attempts; i++)
                progress[s->attempts[i].task] =
                        MAX(progress[s->attempts[i].task], s->attempts[i].progress);
        for (uint32_t t = 0; t < s->n_tasks; t++) {
                size_t k = 2 * s->tasks[t].job + s->tasks[t].type;

                sum[k] += s->tasks[t].state == TASK_DONE ? 1.0 : progress[t];
                count[k]++;
                done[k] += s->tasks[t].state == TASK_DONE;
        }
        for (uint32_t j = 0; j < s->n_jobs; j++)
                for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++) {
                        unsigned counted = s->jobs[j].counts[type].done;
                        size_t k = 2 * j + type;

                        if (counted > done[k]) {
                                sum[k] += counted - done[k];
                                count[k] += counted - done[k];
                        }
                }
        *ret = (JobProgress){ .sum = sum, .count = count };
        return 0;
}

/* What bounds each job's mean progress per type without a pass over every
 * task: the running tasks' progress (each its best attempt's), added up in
 * any order, a type's once a backup of that type is weighed: the
 * attempts of the other type are not read (nor filled, ClusterSnapshot.
 * fill_attempt). */
typedef struct ProgressBounds {
        /* Per 2 (job - first_job) + type: the jobs settled before first_job
         * (ClusterSnapshot.n_jobs_settled) run nothing, and a step spares
         * zeroing an entry for each (most of a day's trace). */
        double *running;
        size_t first_job;
        bool known[_TASK_TYPE_MAX];
} ProgressBounds;

/* The bounds' sums, with the type's added up first if they were not;
 * NULL when memory is short. The sums take their terms in any order: a
 * task with one attempt (as the driver counts them) adds its progress as
 * the pass meets it, one with more (a backup's) its best once the pass is
 * over. */
static const double *progress_bounds(PolicyContext *ctx, TaskType type, ProgressBounds *b) {
        const ClusterSnapshot *s = ctx->snap;
        double *best = ctx->task_value;
        uint32_t *several;
        size_t n_several = 0;

        if (!b->running) {
                b->first_job = s->job_tasks_kept ? MIN(s->n_jobs_settled, s->n_jobs) : 0;
                b->running = context_scratch(ctx, 2 * (s->n_jobs - b->first_job), sizeof(double));
                if (!b->running)
                        return NULL;
        }
        if (b->known[type])
                return b->running;
        several = context_scratch(ctx, MAX(s->n_attempts, (size_t)1), sizeof(uint32_t));
        if (!several)
                return NULL;
        for (uint32_t i = 0; i < s->n_attempts; i++) {
                uint32_t task = s->attempts[i].task;
                const Task *t = &s->tasks[task];
                double progress;

                if (t->type != type)
                        continue;
                progress = context_attempt_figured(ctx, i)->progress;
                if (s->node_attempts && t->running_attempts == 1) {
                        /* A settled job's tasks are all done. */
                        if (t->state != TASK_DONE)
                                b->running[2 * (t->job - b->first_job) + type] += progress;
                        continue;
                }
                best[task] = MAX(best[task], progress);
                several[n_several++] = task;
        }
        /* Each such task once, at its first entry: its best goes back to
         * 0, which its other entries add, and adding +0 to a sum of
         * nonnegative terms leaves it as it is. */
        for (size_t k = 0; k < n_several; k++) {
                const Task *t = &s->tasks[several[k]];

                if (t->state != TASK_DONE)
                        b->running[2 * (t->job - b->first_job) + type] += best[several[k]];
                best[several[k]] = 0;
        }
        b->known[type] = true;
        return b->running;
}

/* Whether the attempt is too far behind its job's mean (the comparison
 * Hadoop makes), or -errno. The mean is a pass over every task, which a
 * step would make for every running attempt old enough to be backed up,
 * although nearly all of them are far from it. With the job's tasks kept
 * (ClusterSnapshot.job_tasks_kept) the job's counts and its running tasks'
 * progress give the sum but for rounding: the pass adds, in task order, 1
 * for each done task (those left out of the snapshot at the end) and each
 * running task's progress, so its sum is the done tasks plus the running
 * tasks' progress, the count the job's total; each of the sum and the one
 * here is within about n u times the sum of its terms of that (recursive
 * summation of n nonnegative terms, u = 2^-53). A margin of 8 (n + 1024) u
 * times the larger of the total and the sum covers both and the rounding
 * of the bounds, and the mean and threshold keep the order of their inputs
 * (rounding is monotonic). An attempt
 * between the two thresholds, a rare one, has the pass made, whose result
 * is the same sum, added in the same order. */
static int behind_job_mean(PolicyContext *ctx, const HadoopSpeculationSettings *set,
                           uint32_t attempt, ProgressBounds *bounds, JobProgress *mean) {
        const ClusterSnapshot *s = ctx->snap;
        const Attempt *a = context_attempt_figured(ctx, attempt);
        const Task *t = &s->tasks[a->task];
        size_t k = 2 * t->job + t->type;
        int r;

        if (s->job_tasks_kept) {
                const TaskCounts *c = &s->jobs[t->job].counts[t->type];
                double total = c->total, n = total + (double)s->n_attempts + 1024;
                const double *running = progress_bounds(ctx, t->type, bounds);
                double sum, margin;

                if (!running)
                        return -ENOMEM;
                /* A running attempt's job is not settled. */
                sum = (double)c->done + running[k - 2 * bounds->first_job];
                margin = 8 * n * MAX(total, sum) * 0x1p-53;
                if (a->progress < (sum - margin) / total - set->spec_progress_gap)
                        return true;
                if (a->progress >= (sum + margin) / total - set->spec_progress_gap)
                        return false;
        }
        if (!mean->sum) {
                r = job_progress_compute(ctx, mean);
                if (r < 0)
                        return r;
        }
        return a->progress < mean->sum[k] / mean->count[k] - set->spec_progress_gap;
}

static int hadoop_speculate(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        const HadoopSpeculationSettings *set = settings;
        const ClusterSnapshot *s = ctx->snap;
        ProgressBounds bounds = {};
        JobProgress mean = {};
        bool beating_free[_SLOT_TYPE_MAX];

        if (!backup_possible(ctx))
                return 0;
        beating_slots_free(ctx, beating_free);
        for (uint32_t i = 0; i < s->n_attempts; i++) {
                bool launched;
                int r;

                /* Its progress is read (and filled) only for a backup that
                 * would find a slot; the age, which most attempts fail,
                 * reads no task. */
                if (!attempt_old_enough(ctx, i, set->spec_min_runtime) ||
                    !backup_may_fit(ctx, i, beating_free) ||
                    !may_back_up(ctx, i, set->spec_min_runtime))
                        continue;
                r = behind_job_mean(ctx, set, i, &bounds, &mean);
                if (r <= 0) {
                        if (r < 0)
                                return r;
                        continue;
                }
                r = launch_backup(ctx, i, NULL, &launched);
                if (r < 0)
                        return r;
                if (launched)
                        beating_slots_free(ctx, beating_free);
        }
        return 0;
}

const SpeculationOps speculation_hadoop = {
        .name = "hadoop",
        .figures_on_demand = true,
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

/* SpeculativeCap, and the backups running once the step is applied. */
static double late_cap(const PolicyContext *ctx, const LateSettings *set, unsigned *ret_running) {
        double slots = 0;

        *ret_running = 0;
        for (uint32_t node = 0; node < ctx->snap->n_nodes; node++)
                if (node_schedulable(&ctx->snap->nodes[node]))
                        slots += ctx->slots[SLOT_MAP][node] + ctx->slots[SLOT_REDUCE][node];
        for (uint32_t i = 0; i < ctx->snap->n_attempts; i++)
                if (ctx->snap->attempts[i].speculative && !ctx->killed[i])
                        (*ret_running)++;
        for (size_t i = 0; i < ctx->d->n_assignments; i++)
                *ret_running += ctx->d->assignments[i].speculative;
        return set->late_spec_cap * slots;
}

/* LATE's judgement of the step: the slow nodes and the candidates, longest
 * time left first; the number of candidates. */
static int late_analyze(PolicyContext *ctx, const LateSettings *set, LateScratch *l,
                        size_t *ret_n) {
        size_t n_nodes = ctx->snap->n_nodes;
        size_t n_values = MAX(ctx->snap->n_attempts, ctx->snap->n_nodes) + 1;

        *l = (LateScratch){
                .set = set,
                .slow_node = context_scratch(ctx, n_nodes, sizeof(bool)),
                .node_rate = context_scratch(ctx, n_nodes, sizeof(double)),
                .node_count = context_scratch(ctx, n_nodes, sizeof(unsigned)),
                .values = context_scratch(ctx, n_values, sizeof(double)),
                .sorted = context_scratch(ctx, n_values, sizeof(double)),
                .by_group = context_scratch(ctx, n_values, sizeof(uint32_t)),
                .candidates = context_scratch(ctx, n_values, sizeof(LateCandidate)),
        };
        if (!l->slow_node || !l->node_rate || !l->node_count || !l->values || !l->sorted ||
            !l->by_group || !l->candidates)
                return -ENOMEM;
        late_slow_nodes(ctx, l);
        *ret_n = late_candidates(ctx, l);
        return 0;
}

static int late_speculate(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        LateScratch l;
        unsigned running;
        double cap;
        size_t n;
        int r;

        if (!backup_possible(ctx))
                return 0;
        r = late_analyze(ctx, settings, &l, &n);
        if (r < 0)
                return r;
        cap = late_cap(ctx, settings, &running);
        for (size_t k = 0; k < n && (double)running < cap; k++) {
                bool launched;

                r = launch_backup(ctx, l.candidates[k].attempt, l.slow_node, &launched);
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

/* ---- SEPB ----
 *
 * LATE's backups go job by job in submission order (the paper's J1, J2,
 * ...; the order Hadoop's FIFO asks jobs in; a speculation layer does not
 * know a fair scheduler's), each job's longest time left first, within
 * SpeculativeCap, a backup never on its original's node nor a slow one.
 * Before the scheduler (ahead), a free slot goes to the first job in that
 * order that either has pending tasks the slot can run, which leaves the
 * slot to the scheduler (a job hands out its pending tasks before its
 * backups), or a LATE candidate it may back up here. SEPB's gate is on
 * that backup: a job J_i with no pending task of the slot's type waits
 * while the window of maxNumOfJobsCheckedForPendingTasks jobs from J_i
 * (sepb_jobs_checked(), J_i included) has pending tasks of that type, or
 * of the other type when DHSA lets it borrow the slot (sepb_skips()). With
 * percentageOfJobsCheckedForPendingTasks 0 nothing waits: the backups are
 * LATE's as Hadoop runs it (jobs ahead in the queue back up stragglers
 * before later jobs' pending tasks start; the late layer here only fills
 * the slots the scheduler left), but the kill below still runs, so share 0
 * is not LATE. That is the paper's reading: Fig. 9a's speedups are over
 * share 0 and plot LATE beside it as another baseline, and 2.2 gives the
 * kill as part of SEPB whatever the share.
 *
 * After the scheduler, the slots it left free (pending tasks it could not
 * start yet: a map waiting for a local slot, reduces before slowstart) go
 * the same way, but a job that would back up and waits instead gives the
 * slot to the pending tasks of its window: a reservation for the first job
 * of the window with pending tasks the slot can run, so that no backup
 * takes it before they can start.
 *
 * The kill (2.2): before anything else, an attempt of a map with no backup
 * that has run over twice its estimated time is killed (KILL_RETRY), its
 * task to run again. The estimate is the mean time of the job's finished
 * maps scaled by the attempt's split against the job's mean split, so that
 * a map of a large split is not taken for a hung one; and a task is killed
 * so once: an attempt of a task killed before is left to LATE, since a
 * task slow by nature would otherwise be killed at every attempt. Reduces
 * are left to LATE too: a reduce's age counts its wait for the maps, which
 * the mean of finished reduces (the profile counts the first wave's
 * shuffle from the last map) does not. Pending counts are of tasks that
 * may start now (dmr_count_pending()). */

#define SEPB_KILL_FACTOR 2

typedef enum SepbWalk {
        WALK_NONE,     /* no job wants the slot */
        WALK_SCHEDULE, /* a job's pending tasks come first: the scheduler's */
        WALK_TAKEN,    /* a backup or a reservation took it */
        WALK_CAP,      /* SpeculativeCap reached */
} SepbWalk;

typedef struct SepbStep {
        PolicyContext *ctx;
        LateScratch l;
        size_t n_candidates;
        unsigned running;
        double cap;
        bool ahead;
        unsigned *pending[_TASK_TYPE_MAX]; /* by job */
        /* By position in submission order: pending tasks of each type in
         * the job's window, and whether its backups wait, by slot type. */
        unsigned *window[_TASK_TYPE_MAX];
        bool *waits[_SLOT_TYPE_MAX];
        size_t checked;
} SepbStep;

static double sepb_borrow(const PolicyContext *ctx, SlotType slot) {
        const DynamicMrSettings *m = &ctx->core->dmr;

        if (m->dhsa == DHSA_NONE)
                return 0;
        return slot == SLOT_MAP ? m->borrow_map_slots : m->borrow_reduce_slots;
}

static TaskType sepb_other(TaskType type) {
        return type == TASK_MAP ? TASK_REDUCE : TASK_MAP;
}

/* Job's pending tasks the slot type can run: its own, and the other type's
 * under DHSA. */
static bool sepb_job_fits(const SepbStep *st, uint32_t job, SlotType slot) {
        TaskType own = slot == SLOT_MAP ? TASK_MAP : TASK_REDUCE;

        return st->pending[own][job] > 0 ||
               (sepb_borrow(st->ctx, slot) > 0 && st->pending[sepb_other(own)][job] > 0);
}

static int sepb_windows(SepbStep *st) {
        const PolicyContext *ctx = st->ctx;
        size_t n = ctx->snap->n_jobs;

        for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++) {
                st->pending[type] = context_scratch(ctx, n, sizeof(unsigned));
                st->window[type] = context_scratch(ctx, n + 1, sizeof(unsigned));
                st->waits[slot_type_of(type)] = context_scratch(ctx, n, sizeof(bool));
                if (!st->pending[type] || !st->window[type] || !st->waits[slot_type_of(type)])
                        return -ENOMEM;
        }
        dmr_count_pending(ctx, st->pending);
        st->checked = sepb_jobs_checked(st->l.set->jobs_checked, n);
        for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++) {
                unsigned *w = st->window[type];

                /* Suffix sums by position, then each window's difference. */
                for (size_t k = n; k-- > 0;)
                        w[k] = w[k + 1] + st->pending[type][ctx->job_order[k]];
                for (size_t k = 0; k < n; k++)
                        w[k] -= w[MIN(k + st->checked, n)];
        }
        for (size_t k = 0; k < n; k++) {
                uint32_t job = ctx->job_order[k];

                for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++) {
                        SlotType slot = slot_type_of(type);

                        st->waits[slot][k] =
                                sepb_skips(st->pending[type][job], st->window[type][k],
                                           st->window[sepb_other(type)][k], sepb_borrow(ctx, slot));
                }
        }
        return 0;
}

/* The job's next candidate of the task type whose backup may run on node;
 * its index in the candidates, or SIZE_MAX. */
static size_t sepb_candidate(const SepbStep *st, uint32_t job, TaskType type, uint32_t node) {
        const ClusterSnapshot *s = st->ctx->snap;

        for (size_t k = 0; k < st->n_candidates; k++) {
                uint32_t i = st->l.candidates[k].attempt;
                const Task *t = &s->tasks[s->attempts[i].task];

                if (t->job == job && t->type == type &&
                    may_back_up(st->ctx, i, st->l.set->late_min_runtime) &&
                    s->attempts[i].node != node && !st->l.slow_node[node])
                        return k;
        }
        return SIZE_MAX;
}

/* The first job of the window at position k with pending tasks the slot
 * type can run. */
static uint32_t sepb_window_job(const SepbStep *st, size_t k, SlotType slot) {
        const PolicyContext *ctx = st->ctx;

        for (size_t x = k; x < MIN(k + st->checked, ctx->snap->n_jobs); x++)
                if (sepb_job_fits(st, ctx->job_order[x], slot))
                        return ctx->job_order[x];
        return NO_INDEX;
}

/* One free slot of a type on node, walked job by job. */
static int sepb_walk(SepbStep *st, uint32_t node, SlotType slot, SepbWalk *ret) {
        PolicyContext *ctx = st->ctx;
        TaskType type = slot == SLOT_MAP ? TASK_MAP : TASK_REDUCE;

        *ret = WALK_NONE;
        for (size_t k = 0; k < ctx->snap->n_jobs; k++) {
                uint32_t job = ctx->job_order[k], attempt;
                size_t c;

                if (st->ahead && sepb_job_fits(st, job, slot)) {
                        *ret = WALK_SCHEDULE;
                        return 0;
                }
                c = sepb_candidate(st, job, type, node);
                if (c == SIZE_MAX)
                        continue;
                if ((double)st->running >= st->cap) {
                        *ret = WALK_CAP;
                        return 0;
                }
                if (st->waits[slot][k]) {
                        uint32_t to = sepb_window_job(st, k, slot);

                        if (st->ahead || to == NO_INDEX)
                                continue;
                        *ret = WALK_TAKEN;
                        return context_reserve(ctx, node, slot, to, NO_INDEX);
                }
                attempt = st->l.candidates[c].attempt;
                st->running++;
                *ret = WALK_TAKEN;
                return context_assign(ctx, ctx->snap->attempts[attempt].task, node, slot, true);
        }
        return 0;
}

static int sepb_fill(SepbStep *st) {
        PolicyContext *ctx = st->ctx;

        for (uint32_t node = 0; node < ctx->snap->n_nodes; node++)
                for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++) {
                        SepbWalk w = WALK_TAKEN;

                        while (w == WALK_TAKEN && context_fillable_slots(ctx, node, slot) > 0) {
                                int r = sepb_walk(st, node, slot, &w);

                                if (r < 0)
                                        return r;
                                if (w == WALK_CAP)
                                        return 0;
                        }
                }
        return 0;
}

/* A map attempt's time, from its job's finished maps; 0 without any. */
static double sepb_map_estimate(const Job *job, const Attempt *a) {
        const PhaseStats *maps = &job->profile.phases[PROFILE_MAP];
        double mean = (double)phase_stats_mean(maps);
        unsigned n_maps = job->counts[TASK_MAP].total;

        if (maps->count == 0)
                return 0;
        if (job->input_size == 0 || n_maps == 0 || a->input_size == 0)
                return mean;
        return mean * (double)a->input_size * n_maps / (double)job->input_size;
}

/* The kill of 2.2: maps that have run over twice their estimated time. */
static int sepb_kill_hopeless(PolicyContext *ctx) {
        const ClusterSnapshot *s = ctx->snap;

        for (uint32_t i = 0; i < s->n_attempts; i++) {
                const Attempt *a = &s->attempts[i];
                const Task *t = &s->tasks[a->task];
                double estimate = sepb_map_estimate(&s->jobs[t->job], a);
                int r;

                if (t->type != TASK_MAP || ctx->killed[i] ||
                    context_task_running(ctx, a->task) != 1 || a->kill_count > 0 || estimate <= 0 ||
                    (double)(ctx->now - MIN(ctx->now, a->started)) <= SEPB_KILL_FACTOR * estimate)
                        continue;
                r = context_kill(ctx, i, KILL_RETRY, a->slot_memory);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int sepb_step(PolicyContext *ctx, const LateSettings *set, bool ahead) {
        SepbStep st = { .ctx = ctx, .ahead = ahead };
        int r;

        if (!backup_possible(ctx))
                return 0;
        r = late_analyze(ctx, set, &st.l, &st.n_candidates);
        if (r >= 0)
                r = sepb_windows(&st);
        if (r < 0)
                return r;
        st.cap = late_cap(ctx, set, &st.running);
        return sepb_fill(&st);
}

static int sepb_ahead(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        int r = sepb_kill_hopeless(ctx);

        return r < 0 ? r : sepb_step(ctx, settings, true);
}

static int sepb_speculate(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        return sepb_step(ctx, settings, false);
}

const SpeculationOps speculation_sepb = {
        .name = "sepb",
        .settings = &late_settings_schema,
        .ahead = sepb_ahead,
        .speculate = sepb_speculate,
};

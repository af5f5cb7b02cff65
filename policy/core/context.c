/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/context.h"

/* The per-job arrays, kept in ContextBuffers: task_start has one entry
 * more. */
#define JOB_ARRAYS(X)        \
        X(maps_done)         \
        X(maps_total)        \
        X(reduces_done)      \
        X(reduces_total)     \
        X(job_order)         \
        X(task_start)        \
        X(pending[TASK_MAP]) \
        X(pending[TASK_REDUCE])

void context_buffers_done(ContextBuffers *b) {
        arena_done(&b->arena);
        free(b->placed);
        free(b->running);
        free(b->value);
        free(b->identity);
        free(b->by_job);
        free(b->counted);
        free(b->changed);
        free(b->slots[SLOT_MAP]);
        free(b->slots[SLOT_REDUCE]);
        free(b->killed);
        free(b->filled_in);
        free(b->open_last);
        free(b->retake);
        for (size_t j = 0; j < b->local_maps_top; j++)
                local_maps_done(&b->local_maps[j]);
        free(b->local_maps);
#define FREE_ARRAY(field) free(b->field);
        JOB_ARRAYS(FREE_ARRAY)
#undef FREE_ARRAY
        memset(b, 0, sizeof(*b));
}

/* *array holds have elements; at least want afterwards. */
static int reserve(void **array, size_t elem, size_t have, size_t want) {
        void *p;

        if (want <= have)
                return 0;
        p = realloc(*array, want * elem);
        if (!p)
                return -ENOMEM;
        *array = p;
        return 0;
}

/* The per-task arrays, zero beyond what they held. */
static int task_buffers_reserve(ContextBuffers *b, size_t n) {
        void *placed = b->placed, *running = b->running, *value = b->value, *identity = b->identity,
             *by_job = b->by_job;
        int r;

        r = reserve(&placed, sizeof(*b->placed), b->cap_tasks, n);
        b->placed = placed;
        if (r >= 0)
                r = reserve(&running, sizeof(*b->running), b->cap_tasks, n);
        b->running = running;
        if (r >= 0)
                r = reserve(&value, sizeof(*b->value), b->cap_tasks, n);
        b->value = value;
        if (r >= 0)
                r = reserve(&identity, sizeof(*b->identity), b->cap_tasks, n);
        b->identity = identity;
        if (r >= 0)
                r = reserve(&by_job, sizeof(*b->by_job), b->cap_tasks, n);
        b->by_job = by_job;
        if (r < 0)
                return r;
        for (size_t i = b->cap_tasks; i < n; i++) {
                b->placed[i] = false;
                b->running[i] = 0;
                b->value[i] = 0;
                b->identity[i] = (uint32_t)i;
        }
        b->cap_tasks = MAX(b->cap_tasks, n);
        return 0;
}

/* The per-node arrays, zero beyond what they held but the slots, which
 * keep what they held. */
static int node_buffers_reserve(ContextBuffers *b, size_t n) {
        void *counted = b->counted, *changed = b->changed, *map_slots = b->slots[SLOT_MAP],
             *reduce_slots = b->slots[SLOT_REDUCE];
        int r;

        r = reserve(&counted, sizeof(*b->counted), b->cap_nodes, n);
        b->counted = counted;
        if (r >= 0)
                r = reserve(&changed, sizeof(*b->changed), b->cap_nodes, n);
        b->changed = changed;
        if (r >= 0)
                r = reserve(&map_slots, sizeof(unsigned), b->cap_nodes, n);
        b->slots[SLOT_MAP] = map_slots;
        if (r >= 0)
                r = reserve(&reduce_slots, sizeof(unsigned), b->cap_nodes, n);
        b->slots[SLOT_REDUCE] = reduce_slots;
        if (r < 0)
                return r;
        if (n > b->cap_nodes) {
                memset(&b->counted[b->cap_nodes], 0, (n - b->cap_nodes) * sizeof(*b->counted));
                memset(&b->changed[b->cap_nodes], 0, (n - b->cap_nodes) * sizeof(*b->changed));
                b->cap_nodes = n;
        }
        return 0;
}

/* The per-job arrays, as they were up to what they held. */
static int job_buffers_reserve(ContextBuffers *b, size_t n) {
        void *p;
        int r = 0;

#define RESERVE_ARRAY(field)                                        \
        p = b->field;                                               \
        if (r >= 0)                                                 \
                r = reserve(&p, sizeof(*b->field), b->cap_jobs, n); \
        b->field = p;
        JOB_ARRAYS(RESERVE_ARRAY)
#undef RESERVE_ARRAY
        if (r < 0)
                return r;
        b->cap_jobs = MAX(b->cap_jobs, n);
        return 0;
}

/* The per-job local map indices: none beyond what they held, and none for
 * jobs from n_jobs on (a driver's jobs that left). */
static int local_maps_reserve(ContextBuffers *b, size_t n_jobs) {
        void *p = b->local_maps;
        int r = reserve(&p, sizeof(*b->local_maps), b->cap_local_maps, n_jobs);

        b->local_maps = p;
        if (r < 0)
                return r;
        if (n_jobs > b->cap_local_maps) {
                memset(&b->local_maps[b->cap_local_maps], 0,
                       (n_jobs - b->cap_local_maps) * sizeof(*b->local_maps));
                b->cap_local_maps = n_jobs;
        }
        for (size_t j = n_jobs; j < b->local_maps_top; j++)
                local_maps_done(&b->local_maps[j]);
        b->local_maps_top = MIN(b->local_maps_top, n_jobs);
        return 0;
}

/* The per-attempt arrays, zero beyond what they held. */
static int attempt_buffers_reserve(ContextBuffers *b, size_t n) {
        void *killed = b->killed, *filled_in = b->filled_in;
        int r = reserve(&killed, sizeof(*b->killed), b->cap_attempts, n);

        b->killed = killed;
        if (r >= 0)
                r = reserve(&filled_in, sizeof(*b->filled_in), b->cap_attempts, n);
        b->filled_in = filled_in;
        if (r < 0)
                return r;
        if (n > b->cap_attempts) {
                memset(&b->killed[b->cap_attempts], 0, (n - b->cap_attempts) * sizeof(*b->killed));
                memset(&b->filled_in[b->cap_attempts], 0,
                       (n - b->cap_attempts) * sizeof(*b->filled_in));
                b->cap_attempts = n;
        }
        return 0;
}

static void node_slots_take(ContextBuffers *b, const ClusterSnapshot *s, uint32_t node) {
        for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++)
                b->slots[slot][node] = s->nodes[node].slots[slot];
}

/* The step's slot counts: the last step's, with the nodes the driver
 * reported taken in (kept), or every node's. When check, a node whose
 * slots changed unreported makes the snapshot invalid: a driver's
 * mistake, which would have the step decide on slots that are gone. */
static int slots_take(PolicyContext *ctx, bool kept, bool check) {
        const ClusterSnapshot *s = ctx->snap;
        ContextBuffers *b = ctx->buffers;

        for (size_t i = 0; kept && i < s->n_slots_changed; i++)
                node_slots_take(b, s, s->slots_changed[i]);
        for (uint32_t i = 0; !kept && i < s->n_nodes; i++)
                node_slots_take(b, s, i);
        for (uint32_t i = 0; kept && check && i < s->n_nodes; i++)
                for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++)
                        if (b->slots[slot][i] != s->nodes[i].slots[slot])
                                return -EINVAL;
        for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++)
                ctx->slots[slot] = b->slots[slot];
        return 0;
}

void *context_scratch(const PolicyContext *ctx, size_t n, size_t size) {
        return arena_alloc(&ctx->buffers->arena, n, size);
}

void context_done(PolicyContext *ctx) {
        const ClusterSnapshot *s = ctx->snap;
        const Decisions *d = ctx->d;
        ContextBuffers *b = ctx->buffers;

        if (b)
                arena_reset(&b->arena);
        /* The slots back to the snapshot's, kept for the next step: only
         * the step's slot changes changed them. */
        if (b && ctx->slots[SLOT_MAP]) {
                for (size_t i = 0; i < d->n_slot_changes; i++)
                        if (d->slot_changes[i].node < s->n_nodes)
                                node_slots_take(b, s, d->slot_changes[i].node);
                b->slots_kept = true;
                b->slot_nodes = s->n_nodes;
        }

        /* Back to all zero: only the tasks and nodes of the attempts counted
         * here and of the kills, assignments and reservations were
         * touched. */
        for (size_t i = 0; b && ctx->task_running && !s->node_attempts && i < s->n_attempts; i++) {
                ctx->task_running[s->attempts[i].task] = 0;
                b->counted[s->attempts[i].node] = (NodeAttempts){};
        }
        for (size_t i = 0; ctx->task_running && i < d->n_kills; i++) {
                const Attempt *a = &s->attempts[d->kills[i].attempt];

                ctx->killed[d->kills[i].attempt] = false;
                ctx->task_running[a->task] = 0;
                ctx->node_change[a->node] = (NodeChange){};
        }
        /* Where the walks stopped: no job before has a task of the type,
         * and the step only took tasks out of pending. */
        for (TaskType type = TASK_MAP; b && b->jobs_kept && type < _TASK_TYPE_MAX; type++)
                b->walk_from[type] = b->walk_settled + ctx->order_from[type];
        /* The jobs of the tasks placed, whose cursors moved past them: the
         * next step takes them in anew (the driver reports them only if it
         * started them). */
        if (b && b->jobs_kept) {
                void *retake = b->retake;

                if (reserve(&retake, sizeof(*b->retake), b->cap_retake, d->n_assignments) < 0)
                        b->jobs_kept = false;
                else {
                        b->retake = retake;
                        b->cap_retake = MAX(b->cap_retake, d->n_assignments);
                        for (size_t i = 0; i < d->n_assignments; i++)
                                b->retake[b->n_retake++] = s->tasks[d->assignments[i].task].job;
                }
        }
        for (size_t i = 0; ctx->task_running && i < d->n_assignments; i++) {
                ctx->task_running[d->assignments[i].task] = 0;
                ctx->task_placed[d->assignments[i].task] = false;
                ctx->node_change[d->assignments[i].node] = (NodeChange){};
        }
        for (size_t i = 0; ctx->task_running && i < d->n_reservations; i++)
                ctx->node_change[d->reservations[i].node] = (NodeChange){};
        memset(ctx, 0, sizeof(*ctx));
}

static int compare_jobs(const void *a, const void *b, void *userdata) {
        const Job *jobs = userdata;
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

        if (jobs[x].submitted != jobs[y].submitted)
                return jobs[x].submitted < jobs[y].submitted ? -1 : 1;
        return (x > y) - (x < y);
}

/* The jobs from `from` on are in submission order, after the one before. */
static bool jobs_in_submission_order(const ClusterSnapshot *s, size_t from) {
        for (size_t j = MAX(from, (size_t)1); j < s->n_jobs; j++)
                if (s->jobs[j].submitted < s->jobs[j - 1].submitted)
                        return false;
        return true;
}

/* The job's entries from the driver's summary. */
static void job_from_summary(PolicyContext *ctx, size_t j) {
        const ClusterSnapshot *s = ctx->snap;
        const JobTasks *jt = &s->jobs[j].tasks;

        ctx->task_start[j] = jt->first;
        ctx->maps_total[j] = s->jobs[j].counts[TASK_MAP].total;
        ctx->maps_done[j] = s->jobs[j].counts[TASK_MAP].done;
        ctx->reduces_total[j] = s->jobs[j].counts[TASK_REDUCE].total;
        ctx->reduces_done[j] = s->jobs[j].counts[TASK_REDUCE].done;
        for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                ctx->pending[type][j].from = jt->first_pending[type];
}

/* The job in its place of an order by index, its cursors' local searches
 * not begun. */
static void job_order_reset(PolicyContext *ctx, size_t j) {
        ctx->job_order[j] = (uint32_t)j;
        for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++) {
                ctx->pending[type][j].local_node = NO_INDEX;
                ctx->pending[type][j].local_from = 0;
        }
}

/* Each job's tasks from the driver's summary: already grouped by job. The
 * jobs before `from` are as the last step left them. */
static void jobs_from_summary(PolicyContext *ctx, size_t from) {
        const ClusterSnapshot *s = ctx->snap;

        for (size_t j = from; j < s->n_jobs; j++)
                job_from_summary(ctx, j);
        ctx->task_start[s->n_jobs] = (uint32_t)s->n_tasks;
        ctx->tasks_by_job = ctx->buffers->identity;
}

/* The job taken in anew; whether it stands in submission order beside the
 * jobs next to it. */
static bool job_take_in(PolicyContext *ctx, size_t j) {
        const Job *jobs = ctx->snap->jobs;

        job_from_summary(ctx, j);
        job_order_reset(ctx, j);
        return (j == 0 || jobs[j - 1].submitted <= jobs[j].submitted) &&
               (j + 1 >= ctx->snap->n_jobs || jobs[j].submitted <= jobs[j + 1].submitted);
}

/* With the last step's arrays kept, the jobs of two lists and those that
 * arrived since the last step: the others are as the last step found them.
 * Whether every job is in submission order: the jobs taken in beside their
 * neighbours, the others as the last step found them. Kept by
 * ContextBuffers.open_kept, the lists are the jobs not settled then and
 * now (the others are settled and were taken in after they settled); by
 * jobs_kept, the jobs whose tasks the last step placed and those the
 * driver reported changed. */
static bool jobs_from_lists(PolicyContext *ctx, const uint32_t *then, size_t n_then,
                            const uint32_t *now, size_t n_now) {
        const ClusterSnapshot *s = ctx->snap;
        ContextBuffers *b = ctx->buffers;
        bool ordered = true;

        for (size_t i = 0; i < n_then; i++)
                ordered &= job_take_in(ctx, then[i]);
        for (size_t i = 0; i < n_now; i++)
                ordered &= job_take_in(ctx, now[i]);
        for (size_t j = b->jobs_seen; j < s->n_jobs; j++)
                ordered &= job_take_in(ctx, j);
        ctx->task_start[s->n_jobs] = (uint32_t)s->n_tasks;
        ctx->tasks_by_job = b->identity;
        return ordered;
}

static bool job_has_pending(const PolicyContext *ctx, uint32_t job, TaskType type) {
        return context_job_pending_task(ctx, job, type, NO_INDEX, false) != NO_INDEX;
}

/* With the arrays kept, the job where a walk for a task of the type starts:
 * where the last step's stopped, unless a job before it that was taken in
 * anew (retaken after a placement of the last step, or reported changed)
 * has such a task now. The jobs before it not taken in are as the last
 * step left them, without one; the jobs that came since are after it. */
static size_t walk_start(const PolicyContext *ctx, TaskType type, size_t retaken) {
        const ClusterSnapshot *s = ctx->snap;
        const ContextBuffers *b = ctx->buffers;
        size_t from = b->walk_from[type];

        for (size_t i = 0; i < retaken; i++)
                if (b->retake[i] < from && job_has_pending(ctx, b->retake[i], type))
                        from = b->retake[i];
        for (size_t i = 0; i < s->n_jobs_changed; i++)
                if (s->jobs_changed[i] < from && job_has_pending(ctx, s->jobs_changed[i], type))
                        from = s->jobs_changed[i];
        return from;
}

/* No job before the start of a walk of the unsettled jobs has a task of
 * its type for context_job_pending_task(). */
static bool walks_start_hold(const PolicyContext *ctx) {
        for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                for (size_t k = 0; k < ctx->order_from[type]; k++)
                        if (job_has_pending(ctx, ctx->unsettled[k], type))
                                return false;
        return true;
}

static bool task_pending_of_type(const PolicyContext *ctx, uint32_t task, TaskType type) {
        return ctx->snap->tasks[task].type == type && context_task_pending(ctx, task);
}

/* A step the driver did not vouch for: what the kept per-job arrays say of
 * each job is what the snapshot says (the jobs taken in were just set
 * from it), and no task its cursors passed over is pending. A job that
 * changed unreported fails it: a driver's mistake, which would leave a
 * pending task out of the step for good. */
static bool jobs_kept_hold(const PolicyContext *ctx) {
        const ClusterSnapshot *s = ctx->snap;

        if (!jobs_in_submission_order(s, 0))
                return false;
        for (size_t j = 0; j < s->n_jobs; j++) {
                const Job *job = &s->jobs[j];

                if (ctx->task_start[j] != job->tasks.first ||
                    ctx->maps_total[j] != job->counts[TASK_MAP].total ||
                    ctx->maps_done[j] != job->counts[TASK_MAP].done ||
                    ctx->reduces_total[j] != job->counts[TASK_REDUCE].total ||
                    ctx->reduces_done[j] != job->counts[TASK_REDUCE].done)
                        return false;
                for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++) {
                        const PendingCursor *c = &ctx->pending[type][j];

                        for (uint32_t k = job->tasks.first; k < c->from; k++)
                                if (task_pending_of_type(ctx, k, type))
                                        return false;
                        for (uint32_t k = c->from; c->local_node != NO_INDEX && k < c->local_from;
                             k++)
                                if (task_pending_of_type(ctx, k, type) &&
                                    task_is_local(&s->tasks[k], c->local_node))
                                        return false;
                }
        }
        return true;
}

static uint32_t job_n_tasks(const PolicyContext *ctx, uint32_t job) {
        return ctx->task_start[job + 1] - ctx->task_start[job];
}

/* A step the driver did not vouch for: each job's kept local map index is
 * what its tasks' locations say. Locations that changed under the same
 * job fail it: a driver's mistake, which would offer maps as local to
 * nodes that no longer hold their splits. */
static bool local_maps_still_hold(const PolicyContext *ctx) {
        const ClusterSnapshot *s = ctx->snap;
        const ContextBuffers *b = ctx->buffers;

        for (uint32_t j = 0; j < b->local_maps_top; j++) {
                const LocalMaps *m = &b->local_maps[j];

                if (local_maps_for(m, &s->jobs[j], job_n_tasks(ctx, j)) &&
                    !local_maps_hold(m, s, &ctx->tasks_by_job[ctx->task_start[j]]))
                        return false;
        }
        return true;
}

/* Each job's tasks counted and grouped by a pass over all of them. */
static int jobs_from_tasks(PolicyContext *ctx) {
        const ClusterSnapshot *s = ctx->snap;
        size_t n_jobs = s->n_jobs, n_tasks = s->n_tasks;
        uint32_t *fill = context_scratch(ctx, n_jobs, sizeof(uint32_t));

        if (!fill)
                return -ENOMEM;
        ctx->tasks_by_job = ctx->buffers->by_job;
        for (size_t i = 0; i < n_tasks; i++) {
                const Task *t = &s->tasks[i];

                ctx->task_start[t->job + 1]++;
                if (t->type == TASK_MAP) {
                        ctx->maps_total[t->job]++;
                        ctx->maps_done[t->job] += t->state == TASK_DONE;
                } else {
                        ctx->reduces_total[t->job]++;
                        ctx->reduces_done[t->job] += t->state == TASK_DONE;
                }
        }
        for (size_t j = 0; j < n_jobs; j++)
                ctx->task_start[j + 1] += ctx->task_start[j];
        /* A counting sort keeps each job's tasks in index order. */
        for (size_t i = 0; i < n_tasks; i++) {
                uint32_t j = s->tasks[i].job;

                ctx->tasks_by_job[ctx->task_start[j] + fill[j]++] = (uint32_t)i;
        }
        for (size_t j = 0; j < n_jobs; j++)
                for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                        ctx->pending[type][j].from = ctx->task_start[j];
        return 0;
}

/* What the attempts hold when the driver does not count them: a pass over
 * all of them. */
static void attempts_count(PolicyContext *ctx) {
        const ClusterSnapshot *s = ctx->snap;
        NodeAttempts *counted = ctx->buffers->counted;

        for (size_t i = 0; i < s->n_attempts; i++) {
                const Attempt *a = &s->attempts[i];

                counted[a->node].held[a->slot][s->tasks[a->task].type]++;
                counted[a->node].slot_memory += a->slot_memory;
                ctx->counted_total.held[a->slot][s->tasks[a->task].type]++;
                ctx->task_running[a->task]++;
        }
        ctx->node_attempts = counted;
        ctx->attempts_total = &ctx->counted_total;
}

/* Every job's entries but the first known ones, settled as the last step
 * found them: from the driver's summary when it keeps one, else counted
 * over every task. */
static int jobs_from_all(PolicyContext *ctx, size_t known) {
        size_t n_jobs = ctx->snap->n_jobs;

        if (ctx->snap->job_tasks_kept) {
                jobs_from_summary(ctx, known);
                return 0;
        }
#define ZERO_ARRAY(field) memset(ctx->field, 0, (n_jobs + 1) * sizeof(*ctx->field));
        JOB_ARRAYS(ZERO_ARRAY)
#undef ZERO_ARRAY
        return jobs_from_tasks(ctx);
}

int context_init(PolicyContext *ctx, const CoreSettings *core, const ClusterSnapshot *s,
                 const PolicyStepArgs *args, Decisions *d, ContextBuffers *b) {
        size_t n_nodes = s->n_nodes, n_jobs = s->n_jobs;
        size_t settled = s->job_tasks_kept ? MIN(s->n_jobs_settled, n_jobs) : 0;
        /* The settled jobs the last step knew, in the order it found them
         * in: the same jobs, done, and nothing of theirs the step changes
         * (a cursor of a done job's finds nothing wherever it stands). */
        size_t known = MIN(b->jobs_known, settled);
        bool slots_kept = b->slots_kept && s->slots_reported && b->slot_nodes == n_nodes;
        /* The driver lists the jobs not settled; the last step's arrays
         * are kept for every job but those listed then or now. */
        bool listed = s->job_tasks_kept && s->open_jobs;
        bool open_kept = listed && b->open_kept && b->jobs_seen <= n_jobs;
        /* Or it reports the jobs that changed. */
        bool jobs_kept = s->job_tasks_kept && !listed && s->jobs_reported && b->jobs_kept &&
                         b->jobs_seen <= n_jobs;
        /* What the last step left for the walks' starts (walk_start()). */
        size_t retaken = b->n_retake;
        bool ordered;
        int r;

        *ctx = (PolicyContext){
                .core = core,
                .snap = s,
                .now = args->now,
                .beating_node = args->flags & POLICY_STEP_HEARTBEAT ? args->node : NO_INDEX,
                .d = d,
                /* A step not vouched for filled them to validate them. */
                .figures_filled = !s->fill_attempt || !(args->flags & POLICY_STEP_TRUSTED),
                .buffers = b,
        };
        b->jobs_known = 0;
        b->slots_kept = false;
        b->open_kept = false;
        b->jobs_kept = false;
        r = task_buffers_reserve(b, MAX(s->n_tasks, (size_t)1));
        if (r >= 0)
                r = job_buffers_reserve(b, n_jobs + 1);
        if (r >= 0)
                r = local_maps_reserve(b, n_jobs);
        if (r >= 0)
                r = node_buffers_reserve(b, MAX(n_nodes, (size_t)1));
        if (r >= 0)
                r = attempt_buffers_reserve(b, MAX(s->n_attempts, (size_t)1));
        if (r >= 0 && listed) {
                void *open_last = b->open_last;

                r = reserve(&open_last, sizeof(uint32_t), b->cap_open_last, s->n_open_jobs);
                b->open_last = open_last;
                if (r >= 0)
                        b->cap_open_last = MAX(b->cap_open_last, s->n_open_jobs);
        }
        if (r < 0) {
                context_done(ctx);
                return r;
        }
        if (++b->step_serial == 0) {
                memset(b->filled_in, 0, b->cap_attempts * sizeof(*b->filled_in));
                b->step_serial = 1;
        }
#define TAKE_ARRAY(field) ctx->field = b->field;
        JOB_ARRAYS(TAKE_ARRAY)
#undef TAKE_ARRAY
        ctx->task_placed = b->placed;
        ctx->task_running = b->running;
        ctx->task_value = b->value;
        ctx->node_change = b->changed;
        ctx->killed = b->killed;

        ctx->node_attempts = s->node_attempts;
        ctx->attempts_total = s->attempts_total;
        if (!s->node_attempts)
                attempts_count(ctx);
        if (open_kept)
                ordered = jobs_from_lists(ctx, b->open_last, b->n_open_last, s->open_jobs,
                                          s->n_open_jobs);
        else if (jobs_kept)
                ordered = jobs_from_lists(ctx, b->retake, b->n_retake, s->jobs_changed,
                                          s->n_jobs_changed);
        else {
                r = jobs_from_all(ctx, known);
                if (r < 0) {
                        context_done(ctx);
                        return r;
                }
                /* Drivers add jobs as they are submitted, so the index
                 * order is nearly always the submission order already: one
                 * pass confirms it (the known jobs were in order at the
                 * last step), where a sort at every step cost more than the
                 * rest of the context on a day's trace of thousands of
                 * jobs. */
                for (size_t j = known; j < n_jobs; j++)
                        job_order_reset(ctx, j);
                ordered = jobs_in_submission_order(s, known);
        }
        b->n_retake = 0;
        if (!(args->flags & POLICY_STEP_TRUSTED) &&
            ((jobs_kept && !jobs_kept_hold(ctx)) || !local_maps_still_hold(ctx))) {
                context_done(ctx);
                return -EINVAL;
        }
        if (!ordered) {
                qsort_r(ctx->job_order, n_jobs, sizeof(uint32_t), compare_jobs, (void *)s->jobs);
                ctx->unsettled = ctx->job_order;
                ctx->n_unsettled = n_jobs;
        } else if (listed) {
                /* By index, which is the submission order here. */
                ctx->unsettled = s->open_jobs;
                ctx->n_unsettled = s->n_open_jobs;
                if (s->n_open_jobs > 0)
                        memcpy(b->open_last, s->open_jobs, s->n_open_jobs * sizeof(uint32_t));
                b->n_open_last = s->n_open_jobs;
                b->jobs_seen = n_jobs;
                b->open_kept = true;
                b->jobs_known = settled;
        } else {
                /* The settled jobs, at the head of the order, have nothing
                 * pending; nor have, with the arrays kept, the jobs before
                 * where the last step's walks stopped that were not taken
                 * in anew (the order is the jobs' own here). */
                ctx->unsettled = ctx->job_order + settled;
                ctx->n_unsettled = n_jobs - settled;
                for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++) {
                        size_t from = jobs_kept ? walk_start(ctx, type, retaken) : 0;

                        ctx->order_from[type] = from > settled ? from - settled : 0;
                }
                b->walk_settled = settled;
                b->jobs_known = settled;
                b->jobs_seen = n_jobs;
                b->jobs_kept = s->job_tasks_kept && s->jobs_reported;
        }
        /* A step not vouched for: no job the walks start past has a task
         * of their type, which a driver's unreported change would break. */
        if (!(args->flags & POLICY_STEP_TRUSTED) && !walks_start_hold(ctx)) {
                b->jobs_kept = false;
                context_done(ctx);
                return -EINVAL;
        }
        /* Last: a step whose context failed keeps no slots. */
        r = slots_take(ctx, slots_kept, !(args->flags & POLICY_STEP_TRUSTED));
        if (r < 0)
                context_done(ctx);
        return r;
}

unsigned context_busy_slots(const PolicyContext *ctx, uint32_t node, SlotType slot) {
        return context_held(ctx, node, slot, TASK_MAP) + context_held(ctx, node, slot, TASK_REDUCE);
}

unsigned context_free_slots(const PolicyContext *ctx, uint32_t node, SlotType slot) {
        unsigned slots = ctx->slots[slot][node], busy = context_busy_slots(ctx, node, slot);

        if (!node_schedulable(&ctx->snap->nodes[node]) || busy >= slots)
                return 0;
        return slots - busy;
}

unsigned context_fillable_slots(const PolicyContext *ctx, uint32_t node, SlotType slot) {
        if (ctx->beating_node != NO_INDEX && node != ctx->beating_node)
                return 0;
        return context_free_slots(ctx, node, slot);
}

uint64_t context_node_committed_memory(const PolicyContext *ctx, uint32_t node) {
        unsigned free_slots = context_free_slots(ctx, node, SLOT_MAP) +
                              context_free_slots(ctx, node, SLOT_REDUCE);
        uint64_t held = (uint64_t)((int64_t)ctx->node_attempts[node].slot_memory +
                                   ctx->node_change[node].slot_memory);

        return held + free_slots * ctx->snap->nodes[node].slot_memory;
}

bool context_task_pending(const PolicyContext *ctx, uint32_t task) {
        return ctx->snap->tasks[task].state == TASK_PENDING && !ctx->task_placed[task];
}

bool context_reduce_may_start(const PolicyContext *ctx, uint32_t job) {
        return !ctx->snap->reduces_read_maps_at_start ||
               ctx->maps_done[job] >= ctx->maps_total[job];
}

unsigned context_task_running(const PolicyContext *ctx, uint32_t task) {
        const ClusterSnapshot *s = ctx->snap;

        return (unsigned)((s->node_attempts ? (int)s->tasks[task].running_attempts : 0) +
                          ctx->task_running[task]);
}

bool context_job_eligible(const PolicyContext *ctx, uint32_t job, TaskType type) {
        if (type == TASK_MAP)
                return true;
        return context_reduce_may_start(ctx, job) &&
               (double)ctx->maps_done[job] >=
                       ctx->core->reduce_slowstart * (double)ctx->maps_total[job];
}

bool context_task_eligible(const PolicyContext *ctx, uint32_t task) {
        const Task *t = &ctx->snap->tasks[task];

        return context_job_eligible(ctx, t->job, t->type);
}

uint32_t context_job_pending_task(const PolicyContext *ctx, uint32_t job, TaskType type,
                                  uint32_t node, bool local) {
        if (!context_job_eligible(ctx, job, type))
                return NO_INDEX;
        return context_job_next_task(ctx, job, type, node, local);
}

/* The job's map index, built for it now if it is not; NULL for a job too
 * small to need one, or when memory is short (a scan finds the same). */
static const LocalMaps *job_local_maps(const PolicyContext *ctx, uint32_t job) {
        ContextBuffers *b = ctx->buffers;
        uint32_t n = job_n_tasks(ctx, job);
        LocalMaps *m;

        if (n < LOCAL_MAPS_MIN_TASKS)
                return NULL;
        m = &b->local_maps[job];
        if (local_maps_for(m, &ctx->snap->jobs[job], n))
                return m;
        if (local_maps_build(m, ctx->snap, job, &ctx->tasks_by_job[ctx->task_start[job]], n) < 0)
                return NULL;
        b->local_maps_top = MAX(b->local_maps_top, (size_t)job + 1);
        return m;
}

/* The first pending map local to node at or after position k of
 * tasks_by_job, else end: the node's entries of the index from k on. */
static uint32_t local_map_indexed(const PolicyContext *ctx, const LocalMaps *m, uint32_t job,
                                  uint32_t node, uint32_t k, uint32_t end) {
        uint32_t first = ctx->task_start[job];
        const uint64_t *e, *last;

        for (e = local_maps_from(m, node, k - first, &last); e < last && *e >> 32 == node; e++) {
                uint32_t at = first + (uint32_t)*e;

                if (context_task_pending(ctx, ctx->tasks_by_job[at]))
                        return at;
        }
        return end;
}

/* The cursors skip what earlier calls of the step passed over (the context
 * is const for the layers, the cursors a cache behind it). */
uint32_t context_job_next_task(const PolicyContext *ctx, uint32_t job, TaskType type, uint32_t node,
                               bool local) {
        PendingCursor *c = &ctx->pending[type][job];
        uint32_t end = ctx->task_start[job + 1], k;
        const LocalMaps *m;

        if (type == TASK_REDUCE && !context_reduce_may_start(ctx, job))
                return NO_INDEX;

        while (c->from < end && !task_pending_of_type(ctx, ctx->tasks_by_job[c->from], type))
                c->from++;
        /* A job with no map left to start has no use for its index until
         * one is (a map lost with its node's output). */
        if (c->from == end && type == TASK_MAP && job < ctx->buffers->local_maps_top)
                local_maps_done(&ctx->buffers->local_maps[job]);
        if (!local)
                return c->from < end ? ctx->tasks_by_job[c->from] : NO_INDEX;
        if (c->local_node != node) {
                c->local_node = node;
                c->local_from = c->from;
        }
        k = MAX(c->from, c->local_from);
        if (type == TASK_MAP && k < end && (m = job_local_maps(ctx, job)))
                k = local_map_indexed(ctx, m, job, node, k, end);
        else
                for (; k < end; k++) {
                        uint32_t t = ctx->tasks_by_job[k];

                        if (task_pending_of_type(ctx, t, type) &&
                            task_is_local(&ctx->snap->tasks[t], node))
                                break;
                }
        c->local_from = k;
        return k < end ? ctx->tasks_by_job[k] : NO_INDEX;
}

void context_attempt_figures(PolicyContext *ctx) {
        if (ctx->figures_filled)
                return;
        for (uint32_t i = 0; i < ctx->snap->n_attempts; i++)
                context_attempt_figured(ctx, i);
        ctx->figures_filled = true;
}

const Attempt *context_attempt_figured(PolicyContext *ctx, uint32_t attempt) {
        const ClusterSnapshot *s = ctx->snap;
        ContextBuffers *b = ctx->buffers;

        if (!ctx->figures_filled && b->filled_in[attempt] != b->step_serial) {
                s->fill_attempt(s->fill_attempt_data, attempt);
                b->filled_in[attempt] = b->step_serial;
        }
        return &s->attempts[attempt];
}

double context_attempt_age(const PolicyContext *ctx, uint32_t attempt) {
        usec_t started = ctx->snap->attempts[attempt].started;

        return ctx->now > started ? usec_to_sec(ctx->now - started) : 0;
}

int context_assign(PolicyContext *ctx, uint32_t task, uint32_t node, SlotType slot,
                   bool speculative) {
        const Task *t = &ctx->snap->tasks[task];
        uint64_t memory = t->slot_memory ? t->slot_memory : ctx->snap->nodes[node].slot_memory;
        int r;

        r = DECISIONS_PUSH(ctx->d, assignments, .task = task, .node = node, .type = t->type,
                           .slot = slot, .slot_memory = memory, .speculative = speculative,
                           .local = t->type == TASK_MAP && task_is_local(t, node));
        if (r < 0)
                return r;
        ctx->node_change[node].held[slot][t->type]++;
        ctx->total_change.held[slot][t->type]++;
        ctx->node_change[node].slot_memory += (int64_t)memory;
        ctx->task_running[task]++;
        ctx->task_placed[task] = true;
        return 0;
}

int context_kill(PolicyContext *ctx, uint32_t attempt, KillReason reason, uint64_t slot_memory) {
        const Attempt *a = &ctx->snap->attempts[attempt];
        int r;

        r = DECISIONS_PUSH(ctx->d, kills, .attempt = attempt, .reason = reason,
                           .slot_memory = slot_memory);
        if (r < 0)
                return r;
        ctx->killed[attempt] = true;
        ctx->node_change[a->node].slot_memory -= (int64_t)a->slot_memory;
        /* A resize restarts in the same slot; a re-placement frees it. */
        if (reason == KILL_RESIZE)
                ctx->node_change[a->node].slot_memory += (int64_t)slot_memory;
        else {
                TaskType type = ctx->snap->tasks[a->task].type;

                ctx->node_change[a->node].held[a->slot][type]--;
                ctx->total_change.held[a->slot][type]--;
                ctx->task_running[a->task]--;
        }
        return 0;
}

int context_reserve(PolicyContext *ctx, uint32_t node, SlotType slot, uint32_t job, uint32_t task) {
        int r = DECISIONS_PUSH(ctx->d, reservations, .node = node, .slot = slot, .job = job,
                               .task = task);

        if (r >= 0) {
                ctx->node_change[node].held[slot][task_type_of(slot)]++;
                ctx->total_change.held[slot][task_type_of(slot)]++;
        }
        return r;
}

int context_set_slots(PolicyContext *ctx, uint32_t node, SlotType slot, unsigned count) {
        Decisions *d = ctx->d;

        ctx->slots[slot][node] = count;
        for (size_t i = 0; i < d->n_slot_changes; i++)
                if (d->slot_changes[i].node == node) {
                        d->slot_changes[i].slots[slot] = count;
                        return 0;
                }
        return DECISIONS_PUSH(
                d, slot_changes, .node = node,
                .slots = { ctx->slots[SLOT_MAP][node], ctx->slots[SLOT_REDUCE][node] });
}

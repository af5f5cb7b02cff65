/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "controller/core/context.h"

/* Every scratch array of a step: allocated together and freed together. */
#define CONTEXT_ARRAYS(X)             \
        X(map_slots, n_nodes)         \
        X(busy[TASK_MAP], n_nodes)    \
        X(busy[TASK_REDUCE], n_nodes) \
        X(node_stragglers, n_nodes)   \
        X(node_memory, n_nodes)       \
        X(task_placed, n_tasks)       \
        X(task_running, n_tasks)      \
        X(speed, n_attempts)          \
        X(score, n_attempts)          \
        X(straggler, n_attempts)      \
        X(bottleneck, n_attempts)     \
        X(killed, n_attempts)         \
        X(maps_done, n_jobs)          \
        X(maps_total, n_jobs)         \
        X(wait_since, n_jobs)         \
        X(job_order, n_jobs)          \
        X(task_start, n_jobs + 1)     \
        X(tasks_by_job, n_tasks)

void context_done(PolicyContext *ctx) {
#define FREE_ARRAY(field, count) free(ctx->field);
        CONTEXT_ARRAYS(FREE_ARRAY)
#undef FREE_ARRAY
        memset(ctx, 0, sizeof(*ctx));
}

static int compare_jobs(const void *a, const void *b, void *userdata) {
        const Job *jobs = userdata;
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

        if (jobs[x].submitted != jobs[y].submitted)
                return jobs[x].submitted < jobs[y].submitted ? -1 : 1;
        return (x > y) - (x < y);
}

int context_init(PolicyContext *ctx, const PolicyConfig *cfg, const ClusterSnapshot *s, usec_t now,
                 Decisions *d) {
        size_t n_nodes = s->n_nodes, n_tasks = s->n_tasks, n_attempts = s->n_attempts,
               n_jobs = s->n_jobs;

        *ctx = (PolicyContext){ .cfg = cfg, .snap = s, .now = now, .d = d };
#define ALLOC_ARRAY(field, count)                                                  \
        ctx->field = calloc(MAX((size_t)(count), (size_t)1), sizeof(*ctx->field)); \
        if (!ctx->field) {                                                         \
                context_done(ctx);                                                 \
                return -ENOMEM;                                                    \
        }
        CONTEXT_ARRAYS(ALLOC_ARRAY)
#undef ALLOC_ARRAY

        for (size_t i = 0; i < n_nodes; i++)
                ctx->map_slots[i] = s->nodes[i].map_slots;
        for (size_t i = 0; i < n_attempts; i++) {
                const Attempt *a = &s->attempts[i];

                ctx->busy[s->tasks[a->task].type][a->node]++;
                ctx->node_memory[a->node] += a->slot_memory;
                ctx->task_running[a->task]++;
        }
        for (size_t i = 0; i < n_tasks; i++) {
                const Task *t = &s->tasks[i];

                ctx->task_start[t->job + 1]++;
                if (t->type != TASK_MAP)
                        continue;
                ctx->maps_total[t->job]++;
                if (t->state == TASK_DONE)
                        ctx->maps_done[t->job]++;
        }
        for (size_t j = 0; j < n_jobs; j++) {
                ctx->task_start[j + 1] += ctx->task_start[j];
                ctx->wait_since[j] = s->jobs[j].locality_wait_since;
                ctx->job_order[j] = (uint32_t)j;
        }
        /* A counting sort keeps each job's tasks in index order. */
        _cleanup_free_ uint32_t *fill = calloc(MAX(n_jobs, (size_t)1), sizeof(uint32_t));
        if (!fill) {
                context_done(ctx);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n_tasks; i++) {
                uint32_t j = s->tasks[i].job;

                ctx->tasks_by_job[ctx->task_start[j] + fill[j]++] = (uint32_t)i;
        }
        qsort_r(ctx->job_order, n_jobs, sizeof(uint32_t), compare_jobs, (void *)s->jobs);
        return 0;
}

unsigned context_free_slots(const PolicyContext *ctx, uint32_t node, TaskType type) {
        const Node *n = &ctx->snap->nodes[node];
        unsigned slots = type == TASK_MAP ? ctx->map_slots[node] : n->reduce_slots;

        if (!n->alive || ctx->busy[type][node] >= slots)
                return 0;
        return slots - ctx->busy[type][node];
}

uint64_t context_node_committed_memory(const PolicyContext *ctx, uint32_t node) {
        unsigned free_slots = context_free_slots(ctx, node, TASK_MAP) +
                              context_free_slots(ctx, node, TASK_REDUCE);

        return ctx->node_memory[node] + free_slots * ctx->snap->nodes[node].slot_memory;
}

bool context_task_pending(const PolicyContext *ctx, uint32_t task) {
        return ctx->snap->tasks[task].state == TASK_PENDING && !ctx->task_placed[task];
}

bool context_task_eligible(const PolicyContext *ctx, uint32_t task) {
        const Task *t = &ctx->snap->tasks[task];

        if (t->type == TASK_MAP)
                return true;
        return (double)ctx->maps_done[t->job] >=
               ctx->cfg->reduce_slowstart * (double)ctx->maps_total[t->job];
}

bool task_is_local(const Task *t, uint32_t node) {
        for (unsigned i = 0; i < t->n_locations && i < MAX_REPLICAS; i++)
                if (t->locations[i] == node)
                        return true;
        return false;
}

uint32_t context_job_pending_task(const PolicyContext *ctx, uint32_t job, TaskType type,
                                  uint32_t node, bool local) {
        for (uint32_t k = ctx->task_start[job]; k < ctx->task_start[job + 1]; k++) {
                uint32_t t = ctx->tasks_by_job[k];
                const Task *task = &ctx->snap->tasks[t];

                if (task->type != type || !context_task_pending(ctx, t) ||
                    !context_task_eligible(ctx, t))
                        continue;
                if (!local || task_is_local(task, node))
                        return t;
        }
        return NO_INDEX;
}

double context_attempt_age(const PolicyContext *ctx, uint32_t attempt) {
        usec_t started = ctx->snap->attempts[attempt].started;

        return ctx->now > started ? usec_to_sec(ctx->now - started) : 0;
}

int context_assign(PolicyContext *ctx, uint32_t task, uint32_t node, bool speculative) {
        const Task *t = &ctx->snap->tasks[task];
        uint64_t memory = t->slot_memory ? t->slot_memory : ctx->snap->nodes[node].slot_memory;
        int r;

        r = DECISIONS_PUSH(ctx->d, assignments, .task = task, .node = node, .type = t->type,
                           .slot_memory = memory, .speculative = speculative,
                           .local = t->type == TASK_MAP && task_is_local(t, node));
        if (r < 0)
                return r;
        ctx->busy[t->type][node]++;
        ctx->node_memory[node] += memory;
        ctx->task_running[task]++;
        ctx->task_placed[task] = true;
        return 0;
}

int context_kill(PolicyContext *ctx, uint32_t attempt, KillReason reason, uint64_t slot_memory,
                 double prev_speed) {
        const Attempt *a = &ctx->snap->attempts[attempt];
        int r;

        r = DECISIONS_PUSH(ctx->d, kills, .attempt = attempt, .reason = reason,
                           .slot_memory = slot_memory, .prev_speed = prev_speed);
        if (r < 0)
                return r;
        ctx->killed[attempt] = true;
        ctx->node_memory[a->node] -= a->slot_memory;
        /* A resize restarts in the same slot; a re-placement frees it. */
        if (reason == KILL_RESIZE)
                ctx->node_memory[a->node] += slot_memory;
        else {
                ctx->busy[ctx->snap->tasks[a->task].type][a->node]--;
                ctx->task_running[a->task]--;
        }
        return 0;
}

int context_set_map_slots(PolicyContext *ctx, uint32_t node, unsigned map_slots) {
        Decisions *d = ctx->d;

        ctx->map_slots[node] = map_slots;
        for (size_t i = 0; i < d->n_slot_changes; i++)
                if (d->slot_changes[i].node == node) {
                        d->slot_changes[i].map_slots = map_slots;
                        return 0;
                }
        return DECISIONS_PUSH(d, slot_changes, .node = node, .map_slots = map_slots);
}

int context_flush_job_notes(PolicyContext *ctx) {
        for (size_t j = 0; j < ctx->snap->n_jobs; j++) {
                int r;

                if (ctx->wait_since[j] == ctx->snap->jobs[j].locality_wait_since)
                        continue;
                r = DECISIONS_PUSH(ctx->d, job_notes, .job = (uint32_t)j,
                                   .locality_wait_since = ctx->wait_since[j]);
                if (r < 0)
                        return r;
        }
        return 0;
}

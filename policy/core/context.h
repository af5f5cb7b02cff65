/* SPDX-License-Identifier: MIT */
#pragma once

/* What the layers of one policy_step() share: the inputs, the decisions so
 * far, a working view of the cluster that those decisions change (free
 * slots, which tasks are placed), so that a later layer never hands out a
 * slot an earlier one took, and scratch memory for the step. The layer
 * interface (layer.h), for the core and its policies. */

#include <stdbool.h>

#include "policy/core/arena.h"
#include "policy/core/decisions.h"
#include "policy/core/local-maps.h"
#include "policy/core/layer.h"
#include "policy/core/model.h"
#include "policy/core/settings.h"

typedef struct ContextBuffers ContextBuffers;

/* What a step changed of a node's NodeAttempts: its assignments,
 * reservations and kills, each a difference, below zero when the kills
 * freed more than the rest took. */
typedef struct NodeChange {
        int held[_SLOT_TYPE_MAX][_TASK_TYPE_MAX];
        int64_t slot_memory;
} NodeChange;

/* Where context_job_pending_task() resumes for one job and task type: the
 * step only ever takes tasks out of pending, so what was passed over once
 * stays passed over. Positions index tasks_by_job. */
typedef struct PendingCursor {
        uint32_t from;       /* no pending task of the type before this */
        uint32_t local_node; /* NO_INDEX, or the node of the last local search */
        uint32_t local_from; /* ... and none local to it before this */
} PendingCursor;

struct PolicyContext {
        const CoreSettings *core;
        const ClusterSnapshot *snap;
        usec_t now;
        uint32_t beating_node; /* a heartbeat step's node; NO_INDEX: none */
        Decisions *d;
        /* Every attempt's figures that move with time are in the snapshot
         * (ClusterSnapshot.fill_attempt); else those whose
         * ContextBuffers.filled_in is the step's serial. */
        bool figures_filled;

        /* Per node, by SlotType, after this step's slot changes: kept in
         * ContextBuffers from step to step. */
        unsigned *slots[_SLOT_TYPE_MAX];
        /* Per node: what its attempts held when the step began (the
         * driver's counts, or the core's), and what context_assign(),
         * context_kill() and context_reserve() changed of it since (a
         * reservation holds a slot as a task of the slot's type), which
         * context_held() adds up: a step costs the nodes it changes, not a
         * copy of every node's counts. */
        const NodeAttempts *node_attempts;
        NodeChange *node_change;
        /* The same over the cluster (context_held_total()); counted_total
         * is the core's count when the driver does not count. */
        const NodeAttempts *attempts_total;
        NodeChange total_change;
        NodeAttempts counted_total;

        /* Per task, changed only by context_assign() and context_kill(),
         * which is what lets context_done() clear them cheaply. */
        bool *task_placed; /* a pending task got a slot in this step */
        /* What this step changed of its running attempts, and the attempts
         * themselves when the driver does not count them
         * (context_task_running() adds Task.running_attempts when it does). */
        int *task_running;
        /* A layer's per task scratch that costs what it touches rather than
         * a pass over every task: all 0 when a layer is called, and the
         * layer sets what it set back to 0 before it returns. */
        double *task_value;
        ContextBuffers *buffers;

        /* Per attempt, all false between steps (context_done() clears
         * the kills'). */
        bool *killed;

        /* Per job. */
        unsigned *maps_done, *maps_total, *reduces_done, *reduces_total;
        uint32_t *job_order;  /* jobs by (submitted, index) */
        uint32_t *task_start; /* job j's tasks are tasks_by_job[task_start[j] .. task_start[j+1]) */
        uint32_t *tasks_by_job;
        PendingCursor *pending[_TASK_TYPE_MAX];
        /* The jobs that may have a pending task, in submission order: every
         * job but the settled ones the driver said are (a settled job has
         * none), n_unsettled of them. A scheduler that wants the first job
         * with a pending task walks these rather than job_order. */
        const uint32_t *unsettled;
        size_t n_unsettled;
        /* Per task type: no job before this position of unsettled has a
         * task of the type for context_job_pending_task() in this step. A
         * scheduler that walks the order from the head moves it past the
         * jobs it found without one (finished ones, mostly): the step only
         * takes tasks out of pending, so they stay without. With the
         * per-job arrays kept, a step starts it where the last step left
         * it (ContextBuffers.walk_from). */
        size_t order_from[_TASK_TYPE_MAX];
};

/* What outlives a step, owned by the Policy, so that a step allocates
 * nothing once the cluster stopped growing and costs time in proportion to
 * its nodes, attempts, decisions and jobs not settled rather than to every
 * task: the arena of every step's scratch, per-task arrays that are all
 * zero between steps (context_done() clears what its step set), and the
 * per-job arrays. */
struct ContextBuffers {
        Arena arena;
        bool *placed;
        int *running;
        double *value;
        uint32_t *identity; /* identity[i] == i: tasks_by_job when Job.tasks is kept */
        uint32_t *by_job;   /* tasks_by_job when the core counts */
        size_t cap_tasks;
        /* Per node, all zero between steps: the attempts' counts when the
         * driver does not keep them, and what a step changed of them. */
        NodeAttempts *counted;
        NodeChange *changed;
        size_t cap_nodes;
        /* Per node, by SlotType: the slots of the last step's snapshot
         * (of slot_nodes nodes) while slots_kept, which a step whose
         * driver reports what changed (ClusterSnapshot.slots_reported)
         * takes as they are but for the nodes reported. */
        unsigned *slots[_SLOT_TYPE_MAX];
        size_t slot_nodes;
        bool slots_kept;
        bool *killed;
        /* Per attempt: the serial of the step that last had the driver
         * fill its figures; a step's serial is new (the array is zeroed
         * when the serial wraps). */
        uint32_t *filled_in;
        uint32_t step_serial;
        size_t cap_attempts;
        /* The context's per-job arrays, kept from step to step: their first
         * jobs_known entries are what the last step found for jobs the
         * driver said were settled (ClusterSnapshot.n_jobs_settled), and a
         * step takes them as they are. */
        unsigned *maps_done, *maps_total, *reduces_done, *reduces_total;
        uint32_t *job_order, *task_start;
        PendingCursor *pending[_TASK_TYPE_MAX];
        size_t cap_jobs, jobs_known;
        /* While open_kept, the last step's jobs were in submission order,
         * it had the driver's list of the jobs not settled
         * (ClusterSnapshot.open_jobs), kept here, and jobs_seen jobs: the
         * per-job arrays hold what it found for every one of them, and a
         * step takes in only the jobs listed then or now and those that
         * arrived since (a job that left the list settled after it). */
        uint32_t *open_last;
        size_t n_open_last, cap_open_last, jobs_seen;
        bool open_kept;
        /* While jobs_kept, the last step's jobs were in submission order,
         * its driver reported the jobs that changed
         * (ClusterSnapshot.jobs_reported), and it had jobs_seen jobs: the
         * per-job arrays hold what it found for each, its cursors moved
         * past tasks it placed, whose jobs are listed in retake. A step
         * takes in those jobs, the jobs reported and those that arrived
         * since. */
        uint32_t *retake;
        size_t n_retake, cap_retake;
        bool jobs_kept;
        /* While jobs_kept, per task type: no job before this index had a
         * task of the type for context_job_pending_task() at the end of
         * the last step (PolicyContext.order_from, which walk_settled
         * jobs stood before), and none has one now that was not taken in
         * anew: the next step's walk starts there. With thousands of jobs
         * queued behind the running ones, FIFO's walk for a reduce slot
         * passed over every job whose maps were not done at every
         * heartbeat. */
        size_t walk_from[_TASK_TYPE_MAX], walk_settled;
        /* Per job index, its maps by node once a local search in a job of
         * LOCAL_MAPS_MIN_TASKS tasks or more built it, for the job it was
         * built for (a job of another id or size at the index builds it
         * again); none at or beyond local_maps_top. */
        LocalMaps *local_maps;
        size_t cap_local_maps, local_maps_top;
};

void context_buffers_done(ContextBuffers *b);

/* The arrays come from b, grown to the snapshot. */
int context_init(PolicyContext *ctx, const CoreSettings *core, const ClusterSnapshot *s,
                 const PolicyStepArgs *args, Decisions *d, ContextBuffers *b);
/* Ends the step: what context_scratch() gave is given back. */
void context_done(PolicyContext *ctx);

/* n zeroed elements of size bytes for this step only (the Policy's arena):
 * a layer's scratch. NULL when memory is short. */
void *context_scratch(const PolicyContext *ctx, size_t n, size_t size);

/* The node's slots of a type that hold tasks of a type once this step is
 * applied: attempts not killed, assignments and reservations. Inline: the
 * slot filler asks it of every node at every step. */
static inline unsigned context_held(const PolicyContext *ctx, uint32_t node, SlotType slot,
                                    TaskType type) {
        return (unsigned)((int)ctx->node_attempts[node].held[slot][type] +
                          ctx->node_change[node].held[slot][type]);
}
/* The same over every node. */
static inline unsigned context_held_total(const PolicyContext *ctx, SlotType slot, TaskType type) {
        return (unsigned)((int)ctx->attempts_total->held[slot][type] +
                          ctx->total_change.held[slot][type]);
}
/* Slots of a type on a node that attempts, assignments or reservations
 * take, whatever their tasks. */
unsigned context_busy_slots(const PolicyContext *ctx, uint32_t node, SlotType slot);
/* Free slots of a type on a schedulable node: its slots less the attempts
 * running in them. */
unsigned context_free_slots(const PolicyContext *ctx, uint32_t node, SlotType slot);
/* The free slots an assignment of this step may take: in a heartbeat step
 * none but the heartbeating node's. */
unsigned context_fillable_slots(const PolicyContext *ctx, uint32_t node, SlotType slot);
/* Memory a node's slots hold once this step is applied: its attempts' slot
 * memory plus the node's default for each free slot. */
uint64_t context_node_committed_memory(const PolicyContext *ctx, uint32_t node);
bool context_task_pending(const PolicyContext *ctx, uint32_t task);
/* A reduce of the job may start: false only when the driver's reduces
 * read the map outputs at their start (ClusterSnapshot.
 * reduces_read_maps_at_start) and a map of the job is not done. Every way a
 * layer finds a reduce to run goes through it: the functions below and the
 * speculation layers' backups. */
bool context_reduce_may_start(const PolicyContext *ctx, uint32_t job);
/* The task's running attempts once this step is applied. */
unsigned context_task_running(const PolicyContext *ctx, uint32_t task);
/* Reduces wait for the job's maps (CoreSettings.reduce_slowstart, and
 * context_reduce_may_start()). */
bool context_task_eligible(const PolicyContext *ctx, uint32_t task);
bool context_job_eligible(const PolicyContext *ctx, uint32_t job, TaskType type);
/* The job's first pending eligible task of this type, local to node when
 * local is true; NO_INDEX if none. */
uint32_t context_job_pending_task(const PolicyContext *ctx, uint32_t job, TaskType type,
                                  uint32_t node, bool local);
/* The same whatever reduce_slowstart says: for a policy with a rule of its
 * own for when a job's reduces start (ARIA, the Deadline Constraint
 * Scheduler, RAS). No reduce context_reduce_may_start() refuses, whatever
 * the rule. */
uint32_t context_job_next_task(const PolicyContext *ctx, uint32_t job, TaskType type, uint32_t node,
                               bool local);
/* Every attempt's figures that move with time are in the snapshot from
 * now on: the driver fills those (ClusterSnapshot.fill_attempt) it left out
 * that no layer of the step asked for before. */
void context_attempt_figures(PolicyContext *ctx);
/* The same for one attempt, which it returns. */
const Attempt *context_attempt_figured(PolicyContext *ctx, uint32_t attempt);
/* Seconds an attempt has run; 0 when it started at or after now. */
double context_attempt_age(const PolicyContext *ctx, uint32_t attempt);

/* Decisions that change the working view; -ENOMEM. The assignment takes a
 * slot of the given type, which need not be the task's (the core does not
 * check it: see policy.h). */
int context_assign(PolicyContext *ctx, uint32_t task, uint32_t node, SlotType slot,
                   bool speculative);
int context_kill(PolicyContext *ctx, uint32_t attempt, KillReason reason, uint64_t slot_memory);
/* Holds a free slot for a job (task: one of its pending tasks, or
 * NO_INDEX): no later layer of the step takes it. */
int context_reserve(PolicyContext *ctx, uint32_t node, SlotType slot, uint32_t job, uint32_t task);
/* The node's slot count of one type; its SlotChange carries both counts. */
int context_set_slots(PolicyContext *ctx, uint32_t node, SlotType slot, unsigned count);

/* decisions_validate() with its scratch from an arena. */
int decisions_check(const ClusterSnapshot *s, const PolicyStepArgs *step, const Decisions *d,
                    Arena *scratch);
/* Room for one more element in an array of *cap (doubling); -ENOMEM. */
int decisions_grow(void **array, size_t *cap, size_t elem);

#define DECISIONS_PUSH(d, name, ...)                                                              \
        ({                                                                                        \
                int push_r_ = 0;                                                                  \
                if ((d)->n_##name == (d)->cap_##name) {                                           \
                        void *push_a_ = (d)->name;                                                \
                        push_r_ = decisions_grow(&push_a_, &(d)->cap_##name, sizeof(*(d)->name)); \
                        (d)->name = push_a_;                                                      \
                }                                                                                 \
                if (push_r_ >= 0)                                                                 \
                        (d)->name[(d)->n_##name++] = (__typeof__(*(d)->name)){ __VA_ARGS__ };     \
                push_r_;                                                                          \
        })

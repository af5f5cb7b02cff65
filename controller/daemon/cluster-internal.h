/* SPDX-License-Identifier: MIT */
#pragma once

/* What the files of the live model share and nothing outside them sees
 * (cluster.h is the model's API):
 *
 *   cluster.c            the model's life; trackers registered, lost, given
 *                        slots; jobs submitted and cancelled
 *   cluster-heartbeat.c  a heartbeat and a control cycle: report, step, reply
 *   cluster-job.c        a job and its tasks (JobInProgress, TaskInProgress)
 *   cluster-snapshot.c   the policy step's snapshot, kept between steps
 *   cluster-model.c      lookups; attempts started and stopped; kills queued
 *   cluster-output.c     the attempts' outputs, the job commit
 *   cluster-profile.c    ARIA's profile database
 *
 * A file calls only those below it in this list. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/macro.h"
#include "controller/daemon/cluster.h"

/* What a kept snapshot holds beside each task: the model's task, its
 * running attempts (indices into attempts, NO_INDEX for none) and what its
 * failures and kills added to its job's counts. */
typedef struct SnapshotTask {
        ClusterTask *task;
        uint32_t attempts[CLUSTER_ATTEMPTS_MAX];
        unsigned failures, kills;
} SnapshotTask;

/* A job's tasks, to find a task's job by its address. */
typedef struct SnapshotJobTasks {
        const ClusterTask *tasks;
        size_t n_tasks;
        uint32_t job;
} SnapshotJobTasks;

/* The step's snapshot and what stands behind it (cluster-snapshot.c). Each
 * job's tasks are all in it, done ones too, in the model's order, so that
 * a task keeps its index while its job stays; attempts are in no order,
 * and listed on their nodes. */
typedef struct Snapshot {
        ClusterSnapshot s;
        Host *hosts;
        size_t n_hosts;
        Vm *vms;
        Node *nodes;
        Job *jobs;
        Task *tasks;
        Attempt *attempts;
        /* What the indices of decisions stand for. */
        SnapshotTask *task_of;
        /* By the address of their tasks. */
        SnapshotJobTasks *by_address;
        /* The attempts on each node: a list through next_on_node and
         * prev_on_node, from first_on_node (NO_INDEX ends it). */
        uint32_t *first_on_node, *next_on_node, *prev_on_node;
        /* What changed in the model since the snapshot took it in
         * (cluster_task_changed(), cluster_node_changed()): tasks whose
         * state or attempts did, listed (maybe twice); nodes heard from,
         * listed once (node_stale), or every node; overflow: a list could
         * not grow, and the next step builds a new one. */
        ClusterTask **changed;
        size_t n_changed, max_changed;
        uint32_t *stale_nodes;
        size_t n_stale_nodes;
        bool *node_stale;
        bool all_nodes_stale, overflow;
        /* Room for this many tasks (and twice as many attempts) and jobs. */
        size_t max_tasks, max_jobs;
        /* A job came or went, and the stored profiles the jobs point to
         * moved with c->jobs. */
        bool jobs_moved;
} Snapshot;

/* A running attempt in c->attempt_index, sorted by attempt id. Its job is
 * named by id, as jobs move in c->jobs; their tasks do not move. Only
 * cluster_attempt_add() and cluster_attempt_stop() change the index. */
typedef struct AttemptRef {
        uint64_t attempt;
        uint64_t job;
        uint64_t node;
        ClusterTask *task;
} AttemptRef;

/* The tracker protocol's words for the core's types and the store's. */
static inline Tracker1TaskType cluster_wire_slot(SlotType s) {
        return s == SLOT_MAP ? TRACKER1_MAP : TRACKER1_REDUCE;
}

static inline Tracker1TaskType cluster_wire_task(TaskType t) {
        return t == TASK_MAP ? TRACKER1_MAP : TRACKER1_REDUCE;
}

/* The end of an attempt that ends now: not before its start, should the
 * realtime clock have gone back. */
static inline usec_t cluster_ended_at(usec_t now, usec_t started) {
        return now > started ? now : started;
}

static inline StoreTaskStatus cluster_store_status(Tracker1Status s) {
        return s == TRACKER1_SUCCEEDED ? STORE_TASK_SUCCEEDED
               : s == TRACKER1_KILLED  ? STORE_TASK_KILLED
                                       : STORE_TASK_FAILED;
}

/* ---- cluster-model.c ---- */

/* Fills err (may be NULL). */
void cluster_error_set(StoreError *err, const char *field, const char *fmt, ...) _printf_(3, 4);
/* Fills err and evaluates to r, which the caller returns: a macro, so that
 * the analyzers see the error a function returns (as store_fail()). */
#define cluster_fail(err, r, field, ...)                        \
        ({                                                      \
                int fail_r_ = (r);                              \
                cluster_error_set((err), (field), __VA_ARGS__); \
                fail_r_;                                        \
        })

ClusterJob *cluster_job_find(Cluster *c, uint64_t id);
/* Task index of type of job, and its job; NULL when the model runs no
 * such job (it ended) or task. */
ClusterTask *cluster_task_find(Cluster *c, uint64_t job, TaskType type, unsigned index,
                               ClusterJob **ret_job);
/* Records of attempts that ended without a success the job needs (lost,
 * killed, discarded): what an operator audits, not what a restart needs,
 * so a store that refuses them is logged and the model goes on. */
void cluster_records_write(Cluster *c, const StoreTaskRecord *records, size_t n);
/* Held attempt h is lost at now, and why (logged and recorded); the caller
 * takes it out of c->held. */
void cluster_held_lose(Cluster *c, const ClusterHeld *h, usec_t now, const char *why);
/* cluster_node_find() for those who change the node. */
ClusterNode *cluster_node_lookup(Cluster *c, uint64_t id);
/* The node's index in c->nodes, NO_INDEX for none. */
uint32_t cluster_node_index(const Cluster *c, uint64_t id);
/* The task that runs attempt, its job and the attempt's index among the
 * task's attempts; NULL when no task runs it. */
ClusterTask *cluster_attempt_find(Cluster *c, uint64_t attempt, ClusterJob **ret_job,
                                  unsigned *ret_index);
/* The index of attempt among t's attempts; t->n_attempts when t does not
 * run it (any more). */
unsigned cluster_task_attempt_index(const ClusterTask *t, uint64_t attempt);

int cluster_node_queue_kill(ClusterNode *n, uint64_t attempt, const char *reason);
/* Room in the index for every attempt the jobs' tasks and n_tasks more may
 * run at once, so that adding an attempt never fails: to be called before
 * a job of n_tasks tasks enters the model. */
int cluster_attempt_index_reserve(Cluster *c, size_t n_tasks);
void cluster_attempt_add(Cluster *c, ClusterNode *n, const ClusterJob *j, ClusterTask *t,
                         const ClusterAttempt *a);
void cluster_attempt_stop(Cluster *c, ClusterTask *t, unsigned i);
/* Attempt i of t is killed at its tracker's next heartbeat, retired there
 * (ClusterRetired) and stopped. */
int cluster_attempt_retire(Cluster *c, ClusterTask *t, unsigned i, const char *reason);
/* r into n->retired: its report, when it comes, ends it as a loser's. */
int cluster_node_retire(ClusterNode *n, const ClusterRetired *r);
/* The retired attempt of n's: NULL when the controller never stopped such
 * an attempt there. */
const ClusterRetired *cluster_node_find_retired(const ClusterNode *n, uint64_t attempt);
/* The same, taken out of n->retired: false when there is none. */
bool cluster_node_take_retired(ClusterNode *n, uint64_t attempt, ClusterRetired *ret);
void cluster_task_kill_attempts(Cluster *c, ClusterTask *t, const char *reason);
/* Every attempt running on n stops (n is lost). */
void cluster_node_stop_attempts(Cluster *c, ClusterNode *n);
/* Whether the index holds every running attempt and nothing else, in
 * order: for tests. */
bool cluster_attempt_index_current(const Cluster *c);
/* What a kept snapshot is to take in at the next step: t's state, attempts
 * or counts changed; node i (an index into c->nodes) was heard from. */
void cluster_task_changed(Cluster *c, ClusterTask *t);
void cluster_node_changed(Cluster *c, uint32_t i);

/* ---- cluster-job.c ---- */

int cluster_pool_index(Cluster *c, const char *name, uint32_t *ret);
int cluster_job_splits(const Cluster *c, char *const *inputs, size_t n_inputs, char ***ret,
                       size_t *ret_n, StoreError *err);
/* The bytes a split of cluster_job_splits() holds. */
uint64_t cluster_split_length(const char *split);
/* The stored job id into the model. */
int cluster_add_job(Cluster *c, uint64_t id, StoreError *err);
int cluster_resume_job(Cluster *c, uint64_t id, StoreError *err);
void cluster_job_done(ClusterJob *j);
void cluster_job_remove(Cluster *c, ClusterJob *j);
/* Every job that failed or has every task done ends (and leaves the
 * model), or the one job of id. */
void cluster_jobs_settle(Cluster *c);
void cluster_job_settle(Cluster *c, uint64_t id);
void cluster_task_failed(ClusterTask *t, const ClusterJob *j, const Tracker1Finished *x,
                         const ClusterNode *n);
/* The attempt of t that started at started succeeded, its report heard at
 * now: it goes into the job's run_profile. */
void cluster_task_succeeded(Cluster *c, ClusterJob *j, ClusterTask *t, const Tracker1Finished *x,
                            usec_t started, usec_t now);
/* What a tracker is told of a new attempt of t: all but its slot and slot
 * memory. Its inputs (the map's split, or every map's output for a
 * reduce) are an array of its own of the model's strings. */
int cluster_task_assignment(const ClusterJob *j, const ClusterTask *t, uint64_t attempt,
                            Tracker1Assignment *ret);

/* ---- cluster-snapshot.c ---- */

void cluster_snapshot_drop(Cluster *c);
/* The last of c->jobs came: the kept snapshot takes it in. */
void cluster_snapshot_add_job(Cluster *c);
/* c->jobs[j] is about to leave the model: the kept snapshot lets it go. */
void cluster_snapshot_remove_job(Cluster *c, size_t j);
int cluster_snapshot_prepare(Cluster *c, unsigned *flags);

/* SPDX-License-Identifier: MIT */
#pragma once

/* The live model's objects (cluster.h says what the model is): jobs and
 * their tasks, the trackers (nodes) and the attempts running on them, with
 * the index of the running attempts; and what finds and changes them, which
 * every other cluster*.c changes the model with (cluster-model.c). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/macro.h"
#include "controller/store/store.h"
#include "policy/core/policy.h"
#include "proto/tracker1.h"

/* Hadoop's mapred.map.max.attempts: a task that failed this often fails its
 * job. */
#define CLUSTER_MAX_FAILURES 4

/* A task runs at most its original attempt and one backup at a time, as
 * Hadoop 1 does (TaskInProgress never runs a second speculative attempt
 * while one runs). */
#define CLUSTER_ATTEMPTS_MAX 2

typedef struct ClusterAttempt {
        uint64_t id;
        uint64_t node; /* its tracker's id */
        usec_t started;
        double progress;
        uint64_t bytes_processed;
        double cpu, iowait; /* shares of its run time */
        uint64_t slot_memory;
        SlotType slot;    /* the slot it occupies: the other type's when lent */
        bool speculative; /* a backup of the task's other attempt */
        bool straggler;   /* a layer noted it as one (StragglerNote) */
} ClusterAttempt;

typedef struct ClusterTask {
        uint64_t job; /* its job's id */
        TaskType type;
        unsigned index;
        TaskState state;                   /* TASK_RUNNING: n_attempts > 0 */
        unsigned failures, kills, resizes; /* resizes: kills that were KILL_RESIZE */
        uint64_t slot_memory;              /* the next attempt's; 0: the node's default */
        uint64_t input_size;
        uint64_t failed_on; /* the tracker of its last failed attempt; 0: none */
        ClusterAttempt attempts[CLUSTER_ATTEMPTS_MAX]; /* running, in the order they started */
        unsigned n_attempts;
        unsigned held; /* attempts in c->held */
        char *output;  /* TASK_DONE: the output of its succeeded attempt */
        char *failure; /* why its last failed attempt failed; NULL: none did */
} ClusterTask;

/* A stored ARIA profile as the policy core reads it (cluster-profile.c). */
typedef struct ClusterProfile {
        uint64_t job; /* the run it was taken from; 0: none */
        JobProfile phases;
} ClusterProfile;

typedef struct ClusterJob {
        StoreJob info;
        uint32_t pool;
        ClusterProfile profile; /* of earlier runs of its (user, name) */
        ClusterTask *tasks;     /* maps, then reduces */
        size_t n_tasks;
        char **splits;       /* map i's input, FILE:OFFSET:LENGTH in the data directory */
        uint64_t input_size; /* the splits' lengths, summed */
        /* This run's succeeded tasks, as the simulator keeps them, its
         * succeeded maps, and when the last of them succeeded (0: maps
         * run). */
        JobProfile run_profile;
        unsigned maps_done;
        usec_t maps_finished;
        /* Its tasks done, and those failed CLUSTER_MAX_FAILURES times
         * (which fail the job): kept as tasks change, so that settling the
         * job after each finish does not pass over its every task. */
        size_t tasks_done;
        size_t tasks_failed_out;
        /* The slots of each type its deadline scheduler last held it to
         * (SlotQuota, ARIA's or DCS's), kept until a step gives quotas
         * again (Job.quota); 0: none. */
        unsigned quota[_SLOT_TYPE_MAX];
} ClusterJob;

/* What the agent of the node's host says of its VM (agent-link.c keeps it):
 * the host and the VM's size come into the snapshot, and the VM's steal,
 * when the agent measures it, stands for the tracker's. host 0: no agent
 * that can be reached knows the VM, or its sample is too old. */
typedef struct ClusterVmState {
        uint64_t host; /* the agent's, > 0 */
        unsigned host_cpus;
        uint64_t host_memory;
        unsigned vcpus, vcpus_max;
        uint64_t memory, memory_max;
        unsigned cpu_weight; /* 0: not reported */
        double cpu_cap;
        double cpu_use;
        uint64_t memory_used;
        usec_t measured_at; /* realtime, of cpu_use and memory_used; 0: not measured */
        bool has_steal;
        double steal;
        usec_t steal_at; /* realtime */
        bool unmanaged;  /* its agent refused a target: NotManaged (AgentVm) */
} ClusterVmState;

/* What the one loop's lever asked of a VM's CPU weight: what it last
 * asked (0: never), and the weight the VM had before its first change,
 * which a controller that stops gives back (agents_give_back_weights). */
typedef struct ClusterLever {
        unsigned asked, before;
} ClusterLever;

/* A VM that an agent of [agents] hosts runs and no tracker registered for
 * (by UUID, or by the name a YARN node was matched to): another tenant's,
 * a co-running cluster's or a best-effort service's. The policy step's
 * snapshot has it as Vm.other_tenant, after the trackers' VMs: the one
 * loop's lever (slo_lever) may take CPU weight from it for this cluster's
 * deadlines, within its agent's limits, and nothing else of it changes. */
typedef struct ClusterTenantVm {
        uint64_t id; /* its Vm.id while the agents report it */
        char uuid[37];
        ClusterVmState vm; /* host > 0: the agent that reports it */
        ClusterLever lever;
} ClusterTenantVm;

/* Tenants' Vm.ids are numbered apart from the trackers' (their node ids),
 * and never given to another VM. */
#define CLUSTER_TENANT_VM_ID_BASE (UINT64_C(1) << 62)

typedef enum ClusterStealSource {
        CLUSTER_STEAL_NONE,
        CLUSTER_STEAL_TRACKER,
        CLUSTER_STEAL_TRACKER_ESTIMATE, /* the tracker's, estimated (ClusterGuest) */
        CLUSTER_STEAL_AGENT,
} ClusterStealSource;

/* What a tracker sees of its VM (ReportGuest); cpus 0: not reported. */
typedef struct ClusterGuest {
        unsigned cpus;
        uint64_t memory;
        bool steal_estimated; /* its steal is wall time /proc/stat does not account for */
} ClusterGuest;

/* An attempt the controller issued to a tracker and stopped before its
 * report came (a speculation's loser, a preempted or resized attempt, one of
 * a cancelled or failed job): the only attempts whose output it removes when
 * a success is reported for them, by the name it gives that output itself. */
typedef struct ClusterRetired {
        uint64_t attempt, job;
        TaskType type;
        unsigned index;
        usec_t started;
        const char *reason; /* why it was stopped: a static string */
} ClusterRetired;

/* An attempt that a controller before a restart left running: the store's
 * record of it is running. Its task is assigned to no one until the tracker
 * it ran on (by hostname) has said what became of it in a heartbeat, or
 * until the lost-timeout has passed without one: a tracker that finished
 * it while the controller was away reports it to this one, and one that
 * still runs it runs on, so that nothing that finished runs again. The
 * alternative, to let another tracker run the task meanwhile and adopt
 * whichever success comes first, would run the task twice whenever the
 * first tracker to come back is not the one that ran it. */
typedef struct ClusterHeld {
        uint64_t attempt, job;
        TaskType type;
        unsigned index;
        char *node; /* its tracker's hostname */
        usec_t started;
} ClusterHeld;

/* At most this many retired attempts are kept for a tracker, the oldest
 * forgotten first (their outputs then stay until their job ends). */
#define CLUSTER_RETIRED_MAX 4096

typedef struct ClusterNode {
        uint64_t id;
        char *hostname, *vm_uuid;
        NodeState state;
        unsigned slots[_SLOT_TYPE_MAX];
        /* The slots the tracker last heard of (Register, a reply): its
         * reports count free slots against these. */
        unsigned told[_SLOT_TYPE_MAX];
        uint64_t slot_memory;
        usec_t last_heartbeat; /* monotonic */
        usec_t lost_at;        /* monotonic; NODE_LOST since */
        usec_t measured_at;    /* realtime; 0: no measurement yet */
        usec_t slots_changed_at;
        double steal, iowait;
        unsigned running[_SLOT_TYPE_MAX];
        ClusterVmState vm;
        ClusterLever lever; /* of its VM */
        ClusterGuest guest;
        /* Decisions for this tracker that wait for its next heartbeat: the
         * attempts to stop, each with why (a static string), which the
         * tracker gives back as the reason of its killed report. */
        Tracker1Kill *kills;
        size_t n_kills;
        bool slots_pending;
        /* Attempts stopped here whose reports have not come yet. */
        ClusterRetired *retired;
        size_t n_retired;
} ClusterNode;

/* Where the jobs' inputs are and how they are split. */
typedef struct ClusterData {
        const char *data_dir; /* the directory trackers share; not owned */
        uint64_t block_size;  /* of a split (Hadoop's dfs.block.size) */
} ClusterData;

typedef struct Cluster {
        ClusterData data;
        Store *store;   /* not owned */
        Policy *policy; /* not owned */
        /* The jobs, in the order they came: c->jobs[0 .. n_jobs). They
         * lie in an allocation of jobs_max from jobs_mem, where a job's end
         * moves the shorter side of the array (cluster_job_remove()), so
         * that the oldest job's end, FIFO's usual one, moves none. */
        ClusterJob *jobs;
        size_t n_jobs;
        ClusterJob *jobs_mem;
        size_t jobs_max;
        /* Their tasks, summed: the attempt index's room follows it. */
        size_t n_tasks;
        ClusterNode *nodes;
        size_t n_nodes;
        /* Other tenants' VMs on the agents' hosts, as the agents last
         * reported them; the next one's id is next_tenant. */
        ClusterTenantVm *tenants;
        size_t n_tenants;
        uint64_t next_tenant;
        char **pools;
        size_t n_pools;
        uint64_t next_node, next_attempt;
        uint64_t first_attempt; /* this run's first; those below, earlier runs' */
        /* What an earlier run left running (ClusterHeld), since held_since
         * (monotonic; 0: not yet counted, cluster_lose_silent()). */
        ClusterHeld *held;
        size_t n_held;
        usec_t held_since;
        /* false: heartbeats are answered without a policy step, so they
         * start nothing ([policy] step, a benchmark's baseline). */
        bool step;
        /* A job may be complete without a finish in this run's reports: one
         * resumed with every task done, or one the store would not end. */
        bool unsettled;
        Decisions decisions;
        /* Every step's decisions since the start, by the layer that made
         * them: for the metrics. */
        DecisionCounts decided[_POLICY_LAYER_MAX];
        /* Every running attempt by id, as Hadoop's JobTracker keeps
         * taskidToTIPMap: what a report names is found without a pass over
         * every task (cluster-model.c). */
        struct AttemptRef *attempt_index;
        /* Its running attempts, the entries it uses (stopped attempts'
         * among them, until an add compacts it) and has room for. */
        size_t n_indexed, index_used, index_max;
        /* The last step's snapshot, kept while no tracker comes or goes,
         * and changed where the model changed (cluster-snapshot.c); NULL:
         * built anew next step. */
        struct Snapshot *snapshot;
        /* Tests: every reuse of the snapshot is checked against a new one
         * (cluster_snapshot_current()), and aborts when they differ. */
        bool verify_snapshot;
} Cluster;

/* A running attempt in c->attempt_index, sorted by attempt id. Its job is
 * named by id, as jobs move in c->jobs; their tasks do not move. Only
 * cluster_attempt_add() and cluster_attempt_stop() change the index: a
 * stop leaves its entry in place, task NULL, since the oldest attempts
 * stop first and taking theirs out moved every other entry (12,000 at
 * 100,000 tasks waiting); an add takes the stopped entries out once they
 * outnumber the running ones, or when it needs their room. */
typedef struct AttemptRef {
        uint64_t attempt;
        uint64_t job;
        uint64_t node;
        ClusterTask *task;
} AttemptRef;

/* The arrays behind a driver's snapshot (this model's, the YARN
 * driver's): the model's nodes, as cluster_snapshot_nodes() fills them,
 * and the driver's jobs, tasks and attempts. */
typedef struct SnapshotArrays {
        Host *hosts;
        size_t n_hosts;
        Vm *vms;
        Node *nodes;
        Job *jobs;
        Task *tasks;
        Attempt *attempts;
} SnapshotArrays;

/* What a kept snapshot holds beside each task: the model's task, its
 * running attempts (indices into attempts, NO_INDEX for none) and what its
 * failures and kills added to its job's counts. */
typedef struct SnapshotTask {
        ClusterTask *task;
        uint32_t attempts[CLUSTER_ATTEMPTS_MAX];
        unsigned failures, kills;
} SnapshotTask;

/* The step's snapshot and what stands behind it (cluster-snapshot.c keeps
 * it; here for the lists of what changed, which the model's changes fill,
 * cluster_task_changed() and cluster_node_changed()). Each job's tasks are
 * all in it, done ones too, in the model's order (which is the order of
 * their ids), so that a task keeps its index while its job stays;
 * attempts are in no order, and listed on their nodes. A job that leaves
 * the model stays, gone (job_gone), its tasks done, until the gone jobs'
 * tasks outnumber the others' and a new build leaves them out: taking a
 * job out moved every later job's tasks, and with thousands of jobs
 * queued that was most of a heartbeat. The gone jobs before the first one
 * not gone are the ClusterSnapshot's settled jobs. */
typedef struct Snapshot {
        ClusterSnapshot s;
        SnapshotArrays a;
        /* What the indices of decisions stand for: NULL task for a gone
         * job's. */
        SnapshotTask *task_of;
        bool *job_gone;
        size_t n_gone_jobs, n_gone_tasks;
        /* Each job's stored profile (ClusterJob.profile), which
         * Job.stored_profile points to: the snapshot's own copy, since the
         * model's jobs move. */
        JobProfile *stored;
        /* The attempts on each node: a list through next_on_node and
         * prev_on_node, from first_on_node (NO_INDEX ends it), and what
         * they hold (ClusterSnapshot.node_attempts). */
        uint32_t *first_on_node, *next_on_node, *prev_on_node;
        NodeAttempts *node_attempts, attempts_total;
        /* What changed in the model since the snapshot took it in: tasks
         * whose state or attempts did, listed (maybe twice); nodes heard
         * from, listed once (node_stale), or every node; overflow: a list
         * could not grow, and the next step builds a new one. */
        ClusterTask **changed;
        size_t n_changed, max_changed;
        uint32_t *stale_nodes;
        size_t n_stale_nodes;
        bool *node_stale;
        bool all_nodes_stale, overflow;
        /* The nodes whose slots changed since the last step took the
         * snapshot in, listed once (slots_listed), which the next step's
         * ClusterSnapshot.slots_changed reports; slots_unknown: every
         * node was taken in anew, and the next step copies them all. */
        uint32_t *slots_changed;
        size_t n_slots_changed;
        bool *slots_listed;
        bool slots_unknown;
        /* The jobs whose tasks changed since the last step took the
         * snapshot in, listed once (job_listed), which the next step's
         * ClusterSnapshot.jobs_changed reports; jobs_unknown: a new build,
         * whose first step takes in every job. */
        uint32_t *jobs_changed;
        size_t n_jobs_changed;
        bool *job_listed;
        bool jobs_unknown;
        /* Room for this many tasks (and twice as many attempts) and jobs. */
        size_t max_tasks, max_jobs;
} Snapshot;

/* The end of an attempt that ends now: not before its start, should the
 * realtime clock have gone back. */
static inline usec_t cluster_ended_at(usec_t now, usec_t started) {
        return now > started ? now : started;
}

const ClusterNode *cluster_node_find(const Cluster *c, uint64_t id);
/* "alive", "lost", "blacklisted"; NULL out of range. */
const char *cluster_node_state_to_string(NodeState state);

/* A running task of a job is a straggler when a layer noted one of its
 * attempts as one (FlexSlot's slot manager) or backed it up (speculation):
 * how many of its running tasks are, and how many run a backup. A job the
 * model does not hold (queued jobs are; ended ones are not) has none. */
void cluster_job_stragglers(const Cluster *c, uint64_t job, unsigned *ret_stragglers,
                            unsigned *ret_backups);
/* The slots of each type the job's deadline scheduler holds it to (its
 * quota); 0 for a job without one, or one the model does not hold. */
void cluster_job_quota(const Cluster *c, uint64_t job, unsigned ret[static _SLOT_TYPE_MAX]);
/* The same of one task. */
bool cluster_task_straggles(const ClusterTask *t);
bool cluster_task_backed_up(const ClusterTask *t);
/* The node's steal as the policy core sees it: its agent's measure when it
 * has one, else its tracker's report. */
ClusterStealSource cluster_node_steal(const ClusterNode *n, double *ret_steal, usec_t *ret_at);
/* The VM of a snapshot's index (a VM target's: the trackers' VMs, then the
 * tenants'), its UUID and the state its agent reported (host 0: no agent
 * reports it); NULL out of range. */
const char *cluster_vm_of(const Cluster *c, uint32_t vm, const ClusterVmState **ret_state);
/* What the lever asked of the VM of a snapshot's index; NULL out of range. */
ClusterLever *cluster_vm_lever(Cluster *c, uint32_t vm);

/* ---- for the model's own files ---- */

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

/* SPDX-License-Identifier: MIT */
#pragma once

/* The controller's live model of the cluster: the unfinished jobs with
 * their tasks, the trackers (nodes) and the attempts running on them. It is
 * what the store holds plus what only the running controller knows (which
 * attempt runs where, trackers, progress); each heartbeat and control cycle
 * turns it into a ClusterSnapshot for the policy core and applies the
 * Decisions back.
 *
 * Durability: a job, its start and every finished attempt are in the store
 * before the model (or a client) sees them, so a controller killed at any
 * point and started again rebuilds the model from the store alone
 * (cluster_new()); what ran meanwhile runs again, what finished does not.
 * Running attempts are not stored, so neither is a backup: a resumed task
 * runs again as one attempt, and speculation may back it up anew.
 *
 * Times: the policy core and the store get realtime usec_t (the store's
 * times outlive the process); losing a tracker is measured on the
 * monotonic clock.
 *
 * I/O: the store; the jobs' inputs, stat()ed and their directories
 * listed when a job is split into maps (cluster-job.c); the attempts'
 * outputs in the data directory, renamed at a job's commit and removed
 * when an attempt lost (cluster-output.c). One thread. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/core/policy.h"
#include "controller/store/store.h"

/* Hadoop's mapred.map.max.attempts: a task that failed this often fails its
 * job. */
#define CLUSTER_MAX_FAILURES 4
/* Limits on what one heartbeat may carry. */
#define CLUSTER_REPORT_MAX 4096
#define CLUSTER_ID_TEXT_MAX 255

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
} ClusterAttempt;

typedef struct ClusterTask {
        TaskType type;
        unsigned index;
        TaskState state;                   /* TASK_RUNNING: n_attempts > 0 */
        unsigned failures, kills, resizes; /* resizes: kills that were KILL_RESIZE */
        uint64_t slot_memory;              /* the next attempt's; 0: the node's default */
        uint64_t input_size;
        uint64_t failed_on; /* the tracker of its last failed attempt; 0: none */
        ClusterAttempt attempts[CLUSTER_ATTEMPTS_MAX]; /* running, in the order they started */
        unsigned n_attempts;
        char *output;  /* TASK_DONE: the output of its succeeded attempt */
        char *failure; /* why its last failed attempt failed; NULL: none did */
} ClusterTask;

/* A stored ARIA profile as the policy core reads it (cluster-profile.c). */
typedef struct ClusterProfile {
        uint64_t job; /* the run it was taken from; 0: none */
        JobProfile phases;
        double map_input; /* bytes per map task */
} ClusterProfile;

typedef struct ClusterJob {
        StoreJob info;
        uint32_t pool;
        ClusterProfile profile; /* of earlier runs of its (user, name) */
        ClusterTask *tasks;     /* maps, then reduces */
        size_t n_tasks;
        char **splits; /* map i's input, FILE:OFFSET:LENGTH in the data directory */
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
} ClusterVmState;

typedef enum ClusterStealSource {
        CLUSTER_STEAL_NONE,
        CLUSTER_STEAL_TRACKER,
        CLUSTER_STEAL_AGENT,
} ClusterStealSource;

/* An attempt a tracker is to stop, and why (a static string), which the
 * tracker gives back as the reason of its killed report. */
typedef struct ClusterKill {
        uint64_t attempt;
        const char *reason;
} ClusterKill;

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
        usec_t measured_at;    /* realtime; 0: no measurement yet */
        usec_t slots_changed_at;
        double steal, iowait;
        unsigned running[_SLOT_TYPE_MAX];
        ClusterVmState vm;
        /* Decisions for this tracker that wait for its next heartbeat. */
        ClusterKill *kills;
        size_t n_kills;
        bool slots_pending;
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
        ClusterJob *jobs;
        size_t n_jobs;
        ClusterNode *nodes;
        size_t n_nodes;
        char **pools;
        size_t n_pools;
        uint64_t next_node, next_attempt;
        uint64_t first_attempt; /* this run's first; those below, earlier runs' */
        /* false: heartbeats are answered without a policy step, so they
         * start nothing ([policy] step, a benchmark's baseline). */
        bool step;
        /* A job may be complete without a finish in this run's reports: one
         * resumed with every task done, or one the store would not end. */
        bool unsettled;
        Decisions decisions;
        /* Every running attempt by id, as Hadoop's JobTracker keeps
         * taskidToTIPMap: what a report names is found without a pass over
         * every task (cluster-model.c). */
        struct AttemptRef *attempt_index;
        size_t n_indexed, index_max;
        /* The last step's snapshot, kept while the model changes only in
         * what heartbeats measure (cluster-snapshot.c); NULL: built anew next step. */
        struct Snapshot *snapshot;
        /* Tests: every reuse of the snapshot is checked against a new one
         * (cluster_snapshot_current()), and aborts when they differ. */
        bool verify_snapshot;
} Cluster;

/* ---- a heartbeat, as the tracker protocol carries it (tracker-protocol.h) ---- */

typedef struct ClusterRunning {
        uint64_t attempt;
        double progress;
        uint64_t bytes_processed, input_size;
        usec_t cpu_time, iowait_time;
} ClusterRunning;

typedef struct ClusterFinished {
        uint64_t attempt;
        StoreTaskStatus status;
        uint64_t input_bytes, output_bytes;
        const char *output; /* succeeded: its output; else empty */
        const char *reason; /* failed or killed: why; else empty */
} ClusterFinished;

typedef struct ClusterReport {
        unsigned free_slots[_SLOT_TYPE_MAX];
        double steal, iowait;
        const ClusterRunning *running;
        size_t n_running;
        const ClusterFinished *finished;
        size_t n_finished;
} ClusterReport;

typedef struct ClusterAssignment {
        uint64_t attempt;
        const ClusterJob *job;
        const ClusterTask *task;
        uint64_t slot_memory;
        SlotType slot;
} ClusterAssignment;

typedef struct ClusterReply {
        ClusterAssignment *assignments;
        size_t n_assignments;
        ClusterKill *kills;
        size_t n_kills;
        unsigned slots[_SLOT_TYPE_MAX];
        uint64_t slot_memory;
} ClusterReply;

void cluster_reply_done(ClusterReply *r);

/* The model of the store's unfinished jobs; queued ones are started. One
 * whose inputs no longer split as they did when it started is failed. */
int cluster_new(Store *store, Policy *policy, const ClusterData *data, Cluster **ret,
                StoreError *err);
Cluster *cluster_free(Cluster *c);

/* Whether the snapshot kept from the last step, with what heartbeats
 * measured since, is what a new one would be (true when none is kept):
 * for tests of the points where the model changes. */
bool cluster_snapshot_current(Cluster *c);

/* Admission (policy_admit() on the current snapshot: a refusal is -EPERM
 * with the verdict in *ret_verdict), then the store, then the model. */
int cluster_submit(Cluster *c, const StoreJobSpec *spec, usec_t now, uint64_t *ret_id,
                   AdmitVerdict *ret_verdict, StoreError *err);
/* -ENOENT for a job the model does not run (unknown or ended). Its running
 * attempts are killed at their trackers' next heartbeats. */
int cluster_cancel(Cluster *c, uint64_t id, StoreError *err);

const ClusterNode *cluster_node_find(const Cluster *c, uint64_t id);
/* The node's steal as the policy core sees it: its agent's measure when it
 * has one, else its tracker's report. */
ClusterStealSource cluster_node_steal(const ClusterNode *n, double *ret_steal, usec_t *ret_at);
int cluster_register(Cluster *c, const char *vm_uuid, const char *hostname,
                     const unsigned slots[static _SLOT_TYPE_MAX], uint64_t slot_memory,
                     usec_t now_monotonic, uint64_t *ret_id);

/* A heartbeat of tracker node: -ENOENT for an unknown tracker, -ESTALE for a
 * lost one (it must register again), -EINVAL for a report that does not fit
 * the model (the reason in err->message): nothing changed then. Otherwise
 * the finished attempts are in the store, and *ret holds what the tracker is
 * to do. */
int cluster_heartbeat(Cluster *c, uint64_t node, const ClusterReport *report, usec_t now,
                      usec_t now_monotonic, ClusterReply *ret, StoreError *err);

/* An operator's slots for tracker node (slot_memory 0: unchanged), in its
 * next heartbeat's reply: -ENXIO for an unknown or lost tracker. Running
 * tasks above the new count keep running; the count holds back new ones. */
int cluster_set_slots(Cluster *c, uint64_t node, const unsigned slots[static _SLOT_TYPE_MAX],
                      uint64_t slot_memory, usec_t now, StoreError *err);

/* ARIA's profile database (cluster-profile.c): the profile of a succeeded
 * job's succeeded attempts into the store, under its (user, name); and the
 * stored one of (user, name), -ENOENT when there is none. */
int cluster_profile_save(Store *store, const StoreJob *job, StoreError *err);
int cluster_profile_load(Store *store, const char *user, const char *name, ClusterProfile *ret,
                         StoreError *err);
/* The input of a job of maps tasks that the profile's runs had: until the
 * controller learns its inputs' sizes, what the deadline models read. */
uint64_t cluster_profile_input(const ClusterProfile *p, unsigned maps);

/* The jobs' outputs (cluster-output.c). The job commit: each reduce's
 * winning output NAME.ATTEMPT renamed to NAME, again if need be; an error
 * is why in why. And the removal of the output of an attempt whose success
 * is ignored, unless a task took that output as its own. */
int cluster_output_commit(const ClusterData *data, const ClusterJob *j, char *why, size_t size);
void cluster_output_discard(const Cluster *c, const char *output);
/* The task of a job here, waiting to run, whose output the succeeded
 * attempt x wrote (out/JOB/map-NNNNN.ATTEMPT or part-NNNNN.ATTEMPT, x's
 * own attempt, the file there); NULL for any other. */
ClusterTask *cluster_output_adoptable(Cluster *c, const ClusterFinished *x);

/* A control cycle: the slot manager and the VM allocator; what they decide
 * for a tracker waits for its next heartbeat. The VM targets stay in
 * c->decisions until the next step, a target's vm being the index of its
 * node in c->nodes. */
int cluster_control(Cluster *c, usec_t now);

/* ---- nodes another cluster manager reports (the YARN driver's) ---- */

/* What a node's manager says of it (the ResourceManager of a NodeManager):
 * its state, slots and the containers running, now; slots_changed_at moves
 * when the slots change, and an operator's pending slots (SetSlots) are
 * taken. -ENXIO for an unknown node. Such a node has no heartbeats: its
 * driver runs no lost-tracker timer. */
int cluster_node_update(Cluster *c, uint64_t node, NodeState state,
                        const unsigned slots[static _SLOT_TYPE_MAX],
                        const unsigned running[static _SLOT_TYPE_MAX], usec_t now);

/* The hosts, VMs and nodes of the model's nodes as the policy step sees
 * them (agents' hosts and VM sizes, steal), for a driver that builds the
 * rest of its snapshot itself: hosts, vms and nodes have room for
 * c->n_nodes entries each (one at least); vms[i] and nodes[i] are
 * c->nodes[i]'s, *ret_n_hosts the hosts used. */
void cluster_snapshot_nodes(const Cluster *c, Host *hosts, size_t *ret_n_hosts, Vm *vms,
                            Node *nodes);

/* Marks trackers silent for longer than timeout lost; their running tasks
 * are pending again. Returns how many were lost. */
size_t cluster_lose_silent(Cluster *c, usec_t now_monotonic, usec_t timeout);

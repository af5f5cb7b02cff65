/* SPDX-License-Identifier: MIT */
#pragma once

/* The controller's live model of the cluster: the unfinished jobs with
 * their tasks, the trackers (nodes) and the attempts running on them. It is
 * what the store holds plus what only the running controller knows (which
 * attempt runs where, trackers, progress); each heartbeat and control cycle
 * turns it into a ClusterSnapshot for the policy core and applies the
 * Decisions back.
 *
 * Durability: a job, its start and every attempt (when it is assigned, and
 * when it ends) are in the store before the model (or a client) sees them,
 * so a controller killed at any point and started again rebuilds the model
 * from the store alone (cluster_new()); what finished does not run again,
 * and what ran meanwhile is held until its tracker says what became of it
 * (ClusterHeld).
 *
 * Times: the policy core and the store get realtime usec_t (the store's
 * times outlive the process); losing a tracker is measured on the
 * monotonic clock.
 *
 * I/O: the store; the jobs' inputs, opened beneath the data directory and
 * their directories listed when a job is split into maps (cluster-job.c);
 * the attempts' outputs in the data directory, renamed at a job's commit
 * and removed when an attempt lost (cluster-output.c). One thread. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/core/policy.h"
#include "controller/store/store.h"
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
        ClusterJob *jobs;
        size_t n_jobs;
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
        size_t n_indexed, index_max;
        /* The last step's snapshot, kept while the model changes only in
         * what heartbeats measure (cluster-snapshot.c); NULL: built anew next step. */
        struct Snapshot *snapshot;
        /* Tests: every reuse of the snapshot is checked against a new one
         * (cluster_snapshot_current()), and aborts when they differ. */
        bool verify_snapshot;
} Cluster;

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
/* ReportGuest: -ENOENT for an unknown node. */
int cluster_node_set_guest(Cluster *c, uint64_t node, const ClusterGuest *guest);
int cluster_register(Cluster *c, const char *vm_uuid, const char *hostname,
                     const unsigned slots[static _SLOT_TYPE_MAX], uint64_t slot_memory,
                     usec_t now_monotonic, uint64_t *ret_id);

/* A heartbeat of tracker node, its report as the tracker protocol carries
 * it (proto/tracker1.h; report->tracker is not read): -ENOENT for an
 * unknown tracker, -ESTALE for a lost one (it must register again),
 * -EINVAL for a report that does not fit the model (the reason in
 * err->message): nothing changed then. Otherwise the finished attempts are
 * in the store, and *ret holds what the tracker is to do, all of what its
 * reply carries: its arrays are its own (tracker1_reply_done()), its
 * strings the model's, valid until the model next changes. */
int cluster_heartbeat(Cluster *c, uint64_t node, const Tracker1Report *report, usec_t now,
                      usec_t now_monotonic, Tracker1Reply *ret, StoreError *err);

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
/* The jobs' outputs (cluster-output.c). The job commit: each reduce's
 * winning output NAME.ATTEMPT renamed to NAME, again if need be; an error
 * is why in why; only a reduce's canonical name out/JOB/part-NNNNN.ATTEMPT is
 * renamed, beneath the data directory. And the removal of the output of a
 * retired attempt whose success is ignored, by the canonical name of r's
 * output, beneath the data directory, unless a task took that output as its
 * own. */
int cluster_output_commit(const ClusterData *data, const ClusterJob *j, char *why, size_t size);
void cluster_output_discard(const Cluster *c, const ClusterRetired *r);
/* The job's map outputs, its intermediate data, removed when it ends
 * (succeeded, failed or cancelled), beneath the data directory. */
void cluster_output_remove_maps(const ClusterData *data, const ClusterJob *j);
/* The task of a job here, waiting to run, whose output the succeeded
 * attempt x wrote (out/JOB/map-NNNNN.ATTEMPT or part-NNNNN.ATTEMPT, x's
 * own attempt, the file there); NULL for any other. */
ClusterTask *cluster_output_adoptable(Cluster *c, const Tracker1Finished *x);

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

/* The hosts, VMs and nodes of the model's nodes and the tenants' VMs as
 * the policy step sees them (agents' hosts and VM sizes, steal), for a
 * driver that builds the rest of its snapshot itself: hosts and vms have
 * room for cluster_snapshot_vms() entries, nodes for c->n_nodes (one at
 * least); vms[i] and nodes[i] are c->nodes[i]'s, vms[c->n_nodes + k]
 * c->tenants[k]'s, *ret_n_hosts the hosts used. */
void cluster_snapshot_nodes(const Cluster *c, Host *hosts, size_t *ret_n_hosts, Vm *vms,
                            Node *nodes);
/* The VMs of the step's snapshot: the trackers' and the tenants'. */
size_t cluster_snapshot_vms(const Cluster *c);
/* The tenants' VMs the agents report now (each one's id is not read): one
 * reported before keeps its id. When they are not the VMs of the kept
 * snapshot, the next step builds a new one. -ENOMEM: nothing changed. */
int cluster_set_tenants(Cluster *c, const ClusterTenantVm *vms, size_t n);
/* The VM of a snapshot's index (a VM target's), its UUID and the state its
 * agent reported (host 0: no agent reports it); NULL out of range. */
const char *cluster_vm_of(const Cluster *c, uint32_t vm, const ClusterVmState **ret_state);
/* What the lever asked of the VM of a snapshot's index; NULL out of range. */
ClusterLever *cluster_vm_lever(Cluster *c, uint32_t vm);

/* Marks trackers silent for longer than timeout lost; their running tasks
 * are pending again, their attempts recorded lost at now (realtime). So are
 * the attempts an earlier run left running whose trackers did not come
 * back within timeout of the first call. Returns how many trackers were
 * lost. */
size_t cluster_lose_silent(Cluster *c, usec_t now, usec_t now_monotonic, usec_t timeout);

/* Forgets the trackers lost for keep or longer: they leave ListNodes, and
 * every re-registration of a tracker adds a node. Returns how many. */
size_t cluster_forget_lost(Cluster *c, usec_t now_monotonic, usec_t keep);

/* The tracker registered for the VM vm_uuid and not lost; NULL for none. */
const ClusterNode *cluster_node_find_vm(const Cluster *c, const char *vm_uuid);
/* Tracker node is lost at once, as if it had gone silent (why says what
 * happened instead, for the log), its attempts recorded lost at now
 * (realtime): -ENOENT for an unknown or lost one. */
int cluster_node_lose(Cluster *c, uint64_t node, usec_t now, usec_t now_monotonic, const char *why);

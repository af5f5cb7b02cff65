/* SPDX-License-Identifier: MIT */
#pragma once

/* The cluster snapshot the policy core decides on. A driver (the simulator,
 * the live controller) fills one ClusterSnapshot per control cycle or
 * heartbeat from its own model; the core only reads it. Objects refer to each
 * other by index into the snapshot's arrays, so a snapshot is a set of flat
 * arrays the driver can build without allocating per object; each object
 * also carries the driver's stable id, which the core never interprets and
 * a layer may key what it remembers across steps by (idmap.h): a driver
 * keeps an object's id for its life and never gives it to another object of
 * the same kind.
 * Slots are typed apart from tasks (SlotType): a node's free slots of a type
 * are its slots of that type less the attempts running in them.
 *
 * Units: time in usec_t, memory and data sizes in bytes, bandwidth in
 * bytes/s, CPU in CPUs (1.0 = one CPU fully busy), steal and I/O wait as the
 * share (0..1) of the last measurement interval.
 *
 * Measurements (a VM's CPU and memory use, a node's steal and I/O wait)
 * carry the time they were taken, measured_at, 0 when there is none yet:
 * then the values are 0 and mean nothing, which is not the same as a
 * measured 0. The age of a measurement is now - measured_at. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/time-util.h"

/* Index into one of the snapshot's arrays; NO_INDEX when absent. */
#define NO_INDEX UINT32_MAX

/* A map task's input split lives on at most this many nodes (HDFS replicas). */
#define MAX_REPLICAS 3

/* A vector of resources: what a node offers its tasks at most, or what one
 * task uses (the job and node profiles of RAS, Polo et al.). */
typedef struct Resources {
        double cpu;      /* CPUs */
        double io;       /* bytes/s of disk I/O */
        uint64_t memory; /* bytes */
} Resources;

typedef struct Host {
        uint64_t id;
        unsigned pcpus;
        uint64_t memory;         /* bytes the VMs of this host may share */
        uint64_t disk_bandwidth; /* bytes/s */
        /* CPU use of every VM on the host over the last interval, this
         * cluster's and any other's (a co-running cluster, FlexSlot Fig. 11);
         * a driver that sees only its own VMs leaves it unmeasured. */
        double cpu_use;
        usec_t measured_at; /* of cpu_use; 0: not measured */
} Host;

typedef struct Vm {
        uint64_t id;
        uint32_t host; /* index into hosts */
        unsigned vcpus, vcpus_max;
        uint64_t memory, memory_max; /* balloon target now, and its ceiling */
        unsigned cpu_weight;         /* cpu_shares; 1024 is the default */
        double cpu_cap;              /* CPUs it may use at most (a quota); 0: none */
        /* Recent CPU consumption in CPUs, the "demand" a DRS-like allocator
         * follows (FlexSlot II-C). */
        double cpu_use;
        /* Memory the guest actively touches, the demand-based estimate of
         * memory (II-C: ratio of touched pages). */
        uint64_t memory_used;
        usec_t measured_at; /* of cpu_use and memory_used; 0: not measured */
        /* Another tenant's VM on one of the cluster's hosts (a co-running
         * cluster, FlexSlot Fig. 11), which the host's agent sees beside
         * this cluster's: no node of this cluster runs on it, and no work
         * of it has a deadline this cluster knows of. A policy may take CPU
         * weight from it for this cluster's deadlines (the VM allocators'
         * slo_lever) and may change nothing else of it. */
        bool other_tenant;
        /* Its owner opted it out of changes (the agent refuses every target
         * of it: <flexslot:limits manage="no"/>): its weight is what it is,
         * and the lever neither takes from it nor gives to it. */
        bool unmanaged;
} Vm;

typedef enum TaskType {
        TASK_MAP,
        TASK_REDUCE,
        _TASK_TYPE_MAX,
} TaskType;

/* A slot has a type of its own: a map may run in a reduce slot a policy
 * borrowed for it (DynamicMR's dynamic slot allocation), so what a node has
 * free is counted by slot type, whatever the tasks in its slots are. */
typedef enum SlotType {
        SLOT_MAP,
        SLOT_REDUCE,
        _SLOT_TYPE_MAX,
} SlotType;

/* The slot type named after a task type, where Hadoop runs such a task: the
 * policies that do not borrow slots place every task in it. */
static inline SlotType slot_type_of(TaskType type) {
        return type == TASK_MAP ? SLOT_MAP : SLOT_REDUCE;
}

/* The task type named after a slot type: what a slot held for a task
 * (Reservation) counts as. */
static inline TaskType task_type_of(SlotType slot) {
        return slot == SLOT_MAP ? TASK_MAP : TASK_REDUCE;
}

/* Hadoop 1's view of a task tracker. The zero value is alive. */
typedef enum NodeState {
        NODE_ALIVE, /* reports on time: may get tasks */
        /* Missed its heartbeats for too long: gets nothing, and the driver
         * no longer reports its attempts (they are lost with it). */
        NODE_LOST,
        /* Reports, but too many of its attempts failed: gets no new task;
         * what runs there goes on. */
        NODE_BLACKLISTED,
        _NODE_STATE_MAX,
} NodeState;

/* A task tracker: one per VM. */
typedef struct Node {
        uint64_t id;
        uint32_t vm; /* index into vms */
        NodeState state;
        unsigned slots[_SLOT_TYPE_MAX]; /* by SlotType */
        uint64_t slot_memory;           /* memory of a new slot (the JVM heap) */
        Resources capacity;             /* what its tasks may use together at most */
        double steal;                   /* node steal share over the last interval */
        double iowait;                  /* node I/O wait share over the last interval */
        usec_t measured_at;             /* of steal and iowait; 0: not measured */
        usec_t last_heartbeat;          /* 0: none yet */
        /* When a slot count last changed (0: never); Algorithm 2 waits for a
         * move to take effect before it measures again. */
        usec_t slots_changed_at;
} Node;

/* The node may get new tasks: alive, neither lost nor blacklisted. */
static inline bool node_schedulable(const Node *n) {
        return n->state == NODE_ALIVE;
}

static inline bool node_measured(const Node *n) {
        return n->measured_at != 0;
}

static inline bool host_measured(const Host *h) {
        return h->measured_at != 0;
}

static inline bool vm_measured(const Vm *v) {
        return v->measured_at != 0;
}

typedef enum TaskState {
        TASK_PENDING, /* waiting for a slot */
        TASK_RUNNING, /* has at least one running attempt */
        TASK_DONE,
} TaskState;

/* A job's tasks of one type, kept by the driver as tasks change state
 * (finished tasks need not stay in the snapshot). */
typedef struct TaskCounts {
        unsigned total;   /* tasks of the type */
        unsigned done;    /* TASK_DONE */
        unsigned running; /* TASK_RUNNING: with a running attempt */
        /* Attempts that failed, or were killed (a lost speculative race, a
         * policy's kill): Hadoop retries the task, so they count attempts. */
        unsigned failed, killed;
} TaskCounts;

/* The phases of ARIA's job profile (Verma, Cherkasova, Campbell, ICAC'11,
 * section 2.2 and Table 1), each a distribution of durations of finished
 * tasks:
 *   map             a map task's run, from its start to its end;
 *   first shuffle   a reduce of the first wave (started while maps still
 *                   ran): the part of its shuffle (with its sort) after the
 *                   job's last map finished, the part no map overlaps;
 *   typical shuffle a reduce of a later wave: its whole shuffle and sort,
 *                   from its start;
 *   reduce          a reduce's reduce phase, from the shuffle's end to its
 *                   own. */
typedef enum ProfilePhase {
        PROFILE_MAP,
        PROFILE_FIRST_SHUFFLE,
        PROFILE_TYPICAL_SHUFFLE,
        PROFILE_REDUCE,
        _PROFILE_PHASE_MAX,
} ProfilePhase;

/* Durations of a phase's finished tasks: the mean is total / count (see
 * phase_stats_mean()); all 0 while count is 0. */
typedef struct PhaseStats {
        unsigned count;
        usec_t total, min, max;
} PhaseStats;

typedef struct JobProfile {
        PhaseStats phases[_PROFILE_PHASE_MAX];
} JobProfile;

/* Adds one finished task's duration: what a driver calls as tasks end. */
void phase_stats_add(PhaseStats *s, usec_t duration);
/* 0 when count is 0. */
usec_t phase_stats_mean(const PhaseStats *s);
/* Adds a task that finished to the profile of its job's run, as the attempt
 * that won ran: a map to the map phase, a reduce to one of the shuffles
 * (by whether it started before maps_finished, when the job's last map
 * finished) and to the reduce phase. A shuffle_end the driver does not know
 * is the reduce's start; it is taken no earlier than the overlap with the
 * maps ends and no later than the reduce does, so that what a tracker does
 * not tell goes to the reduce phase. What both drivers call as tasks
 * succeed. */
void job_profile_add_task(JobProfile *p, TaskType type, usec_t started, usec_t shuffle_end,
                          usec_t finished, usec_t maps_finished);

/* A summary of one job's tasks that a driver may keep up to date as their
 * states change (ClusterSnapshot.job_tasks_kept), so that a step needs no
 * pass over every task (the simulator steps thousands of times a run).
 * Keeping it also states that each job's tasks are contiguous and in job
 * order: job j's are tasks[first .. first + count), and job j + 1's begin
 * where they end, and that the job's TaskCounts count these tasks and,
 * beyond them, only done tasks the driver leaves out of the snapshot (the
 * simulator and the live controller keep every task of a job in it). */
typedef struct JobTasks {
        uint32_t first, count;
        /* No task of that type before this index is TASK_PENDING; first +
         * count when none is. Any lower bound down to first is correct, the
         * exact index the fastest. */
        uint32_t first_pending[_TASK_TYPE_MAX];
} JobTasks;

typedef struct Job {
        uint64_t id;
        usec_t submitted;
        usec_t deadline; /* absolute; 0: none */
        uint32_t pool;   /* fair scheduler pool (user); any small integer */
        /* What deadline schedulers read: the input (all its map splits),
         * the tasks by type, the profile of this run's finished tasks and
         * one stored from earlier runs (ARIA's profile database; NULL:
         * none), all kept by the driver. */
        uint64_t input_size;
        TaskCounts counts[_TASK_TYPE_MAX];
        JobProfile profile;
        const JobProfile *stored_profile;
        /* What one task of each type uses while it runs (RAS's job profile);
         * a reduce uses demand[TASK_REDUCE] once the job's maps are done, and
         * shuffle before: its CPU and memory, and its I/O times the maps of
         * the job running (RAS's Table 2 gives shuffle I/O "per map
         * placed"). */
        Resources demand[_TASK_TYPE_MAX];
        Resources shuffle;
        JobTasks tasks; /* read only when the snapshot says it is kept */
        /* The slots of each type the job's scheduler last held it to (its
         * SlotQuota), which the driver keeps between steps (policy.h's
         * contract); 0: none, or a driver that does not keep them. */
        unsigned quota[_SLOT_TYPE_MAX];
} Job;

typedef struct Task {
        uint64_t id;
        uint32_t job; /* index into jobs */
        TaskType type;
        TaskState state;
        uint64_t input_size; /* split size S for maps, partition size for reduces */
        /* The nodes holding the split: the same in every snapshot to a
         * Policy while the task's job keeps its Job.id and its number of
         * tasks (a step keeps the job's maps by node, local-maps.h; one the
         * driver does not vouch for checks it). */
        uint32_t locations[MAX_REPLICAS];
        unsigned n_locations;
        /* Slot memory the next attempt must get; 0: the node's default. A
         * FlexSlot kill that re-places the task elsewhere keeps its memory. */
        uint64_t slot_memory;
        /* Its attempts in the snapshot: read only when the snapshot says
         * they are counted (ClusterSnapshot.node_attempts). */
        unsigned running_attempts;
} Task;

/* Whether a replica of the task's split is on the node (a data-local map). */
bool task_is_local(const Task *t, uint32_t node);

/* A running attempt of a task. Finished and killed attempts are not in the
 * snapshot. */
typedef struct Attempt {
        uint64_t id;
        uint32_t task; /* index into tasks */
        uint32_t node; /* index into nodes */
        SlotType slot; /* the type of the slot it runs in */
        uint64_t slot_memory;
        usec_t started;
        double progress;          /* Hadoop progress score, 0..1 */
        uint64_t bytes_processed; /* input bytes consumed so far */
        uint64_t input_size;      /* bytes this attempt must consume */
        double cpu;               /* CPU share of its run time, 0..1 */
        double iowait;            /* I/O wait share of its run time, 0..1 */
        /* Steal share of its run time, 0..1: its thread was runnable but
         * the hypervisor did not run its vCPU. A driver that cannot tell
         * it per attempt gives its node's steal. */
        double steal;
        bool speculative; /* a backup copy */
        /* How often the task was killed before this attempt (the driver
         * counts its Kill decisions), and how many of those kills were
         * resizes (KILL_RESIZE): FlexSlot's killcount (Algorithm 1). */
        unsigned kill_count, resize_count;
} Attempt;

/* What the attempts on one node hold, which a driver may keep up to date
 * as attempts enter and leave its snapshot (attempt_counted()), with each
 * Task.running_attempts, so that a step needs no pass over every attempt
 * (a heartbeat's step changes one node's few). */
typedef struct NodeAttempts {
        unsigned held[_SLOT_TYPE_MAX][_TASK_TYPE_MAX]; /* by their slot's type, then their task's */
        uint64_t slot_memory;                          /* theirs, summed */
} NodeAttempts;

/* The attempts in the node's slots of the type, whatever their tasks. */
static inline unsigned node_attempts_busy(const NodeAttempts *n, SlotType slot) {
        return n->held[slot][TASK_MAP] + n->held[slot][TASK_REDUCE];
}

typedef struct ClusterSnapshot {
        const Host *hosts;
        size_t n_hosts;
        const Vm *vms;
        size_t n_vms;
        const Node *nodes;
        size_t n_nodes;
        const Job *jobs;
        size_t n_jobs;
        const Task *tasks;
        size_t n_tasks;
        const Attempt *attempts;
        size_t n_attempts;
        /* Every Job.tasks is up to date; false: the core counts itself. */
        bool job_tasks_kept;
        /* With job_tasks_kept: the jobs before this index are settled,
         * every task of theirs done for good, and they are the same jobs
         * (index, submission, tasks) in every later snapshot the driver
         * gives the same Policy while it says so. A step then passes them
         * over, which on a day's trace is most of them. 0: none. */
        size_t n_jobs_settled;
        /* With job_tasks_kept, a driver may list every job that is not
         * settled, by ascending index (NULL: the jobs from n_jobs_settled
         * on): a job it leaves out is settled as those before
         * n_jobs_settled are, wherever it stands, and stays so in every
         * later snapshot to the same Policy while the driver leaves it
         * out. A step then passes over the listed jobs alone, which on a
         * day's trace are the few running among thousands done after one
         * that runs for hours. */
        const uint32_t *open_jobs;
        size_t n_open_jobs;
        /* With job_tasks_kept and no open_jobs, jobs_reported: the driver
         * vouches that every job's Job.tasks, Job.counts and submission time
         * are those of the snapshot of this Policy's last step but for the
         * jobs of jobs_changed (indices, each at most once) and the jobs from
         * that snapshot's n_jobs on: the same jobs at the same indices. A
         * step then keeps its per-job arrays from step to step and takes in
         * these jobs alone (and those whose tasks it placed), rather than
         * every job at every heartbeat, which is what makes the step's cost
         * grow with the jobs waiting. A driver that cannot say (a new
         * snapshot, a job gone, which moves the jobs after it) leaves
         * jobs_reported false, and the step takes in every job. A step the
         * driver does not vouch for (no POLICY_STEP_TRUSTED) checks the claim
         * against every job and task and refuses the snapshot (-EINVAL) when
         * a job changed unreported. */
        bool jobs_reported;
        const uint32_t *jobs_changed;
        size_t n_jobs_changed;
        /* A driver may leave out the attempts' figures that move with
         * time (progress, bytes_processed, cpu, iowait, steal and
         * resize_count) until a step reads them: fill_attempt(
         * fill_attempt_data, i) then sets attempt i's. The core calls it
         * for every attempt before it validates the snapshot, before a
         * layer that may read them runs (layer.h) and in policy_admit(),
         * for an attempt at most once a step, and for none in a step whose
         * layers read none (most heartbeats). A driver that hands the
         * snapshot elsewhere fills them first (snapshot_fill_attempts()).
         * NULL: every figure is there. */
        void (*fill_attempt)(void *data, uint32_t attempt);
        void *fill_attempt_data;
        /* Per node, the attempts counted by the driver, which keeps every
         * Task.running_attempts and their sum over the nodes,
         * attempts_total, too; NULL: the core counts them itself. */
        const NodeAttempts *node_attempts;
        const NodeAttempts *attempts_total;
        /* With slots_reported, the driver vouches that every node's
         * Node.slots are those of the snapshot of this Policy's last step
         * but for the nodes of slots_changed (indices, each at most once):
         * the same nodes, in the same order, a step's slot changes applied
         * or not. A step then keeps the slot counts it works on from step to
         * step and takes in these nodes' alone, rather than a copy of every
         * node's at every heartbeat. A driver that cannot say (a new
         * snapshot, nodes that came or went, a step that failed) leaves
         * slots_reported false, and the step copies them all. A step the
         * driver does not vouch for (no POLICY_STEP_TRUSTED) checks the
         * claim against every node and refuses the snapshot (-EINVAL) when
         * a node's slots changed unreported: what drivers' tests run. */
        bool slots_reported;
        const uint32_t *slots_changed;
        size_t n_slots_changed;
        /* How often the VMs' CPU is divided again by demand: the period of
         * the cloud's allocator (VMware DRS's), or the control interval when
         * the policy's own VM allocator sizes them; 0: not known. */
        usec_t allocator_period;
        /* The driver's reduces are given the map outputs there are as they
         * start and fetch none later (the live tracker), where Hadoop's
         * fetch each map's output as the map finishes (the simulator): a
         * reduce of such a driver started before its job's last map would
         * finish with part of the answer, so the core offers none to any
         * layer until then (context_reduce_may_start()). */
        bool reduces_read_maps_at_start;
} ClusterSnapshot;

/* What a driver that counts the attempts (ClusterSnapshot.node_attempts)
 * calls as one enters its snapshot (add) and as one leaves it: the attempt
 * of task in a slot of type slot, holding slot_memory, on the node whose
 * counts are node; total is the cluster's. */
void attempt_counted(NodeAttempts *node, NodeAttempts *total, Task *task, SlotType slot,
                     uint64_t slot_memory, bool add);
/* What a driver that reports what changed since the last step
 * (ClusterSnapshot.slots_changed, jobs_changed) keeps: index i added to
 * the n of list once, listed[i] saying it is there; and the list emptied
 * once a step took it in. */
void changed_list_add(uint32_t *list, size_t *n, bool *listed, uint32_t i);
void changed_list_clear(const uint32_t *list, size_t *n, bool *listed);
/* Every attempt's figures that the driver left out
 * (ClusterSnapshot.fill_attempt). */
void snapshot_fill_attempts(const ClusterSnapshot *s);
/* Every count the same. */
bool node_attempts_same(const NodeAttempts *a, const NodeAttempts *b);
/* Field by field, what a step may read: how a driver that keeps its
 * snapshot between steps checks a kept entry against a fresh build. */
bool host_same(const Host *a, const Host *b);
bool vm_same(const Vm *a, const Vm *b);
bool attempt_same(const Attempt *a, const Attempt *b);

/* Checks that every index points inside its array, slot types and node
 * states are known, shares are in 0..1, an attempt's resizes are among its
 * kills, measurements not taken are 0,
 * running attempts belong to running tasks on nodes that are not lost, no
 * job counts more tasks done or running than it has, profiles are sane
 * and, when kept, each Job.tasks and Job.counts agree with the tasks and
 * the attempts' counts with the attempts: -EINVAL otherwise (-ENOMEM).
 * Drivers call it on snapshots built from outside data; policy_step() calls
 * it too unless the driver vouches for the snapshot (POLICY_STEP_TRUSTED). */
int snapshot_validate(const ClusterSnapshot *s);
/* The part of snapshot_validate() about one job's own fields: its counts,
 * profiles and demands make sense. -EINVAL otherwise. */
int job_validate(const Job *job);

/* SPDX-License-Identifier: MIT */
#pragma once

/* The simulator's own state, shared by its files: engine.c moves time on
 * hosts (sim/host.h's model), ledger.c keeps the books of tasks and jobs,
 * driver.c talks to the policy core, build.c builds the cluster, sim.c runs
 * it and collect.c collects its results. */

#include "actuation/actuation.h"
#include "policy/core/model.h"
#include "policy/core/policy.h"
#include "policy/layers/policies.h"
#include "sim/event.h"
#include "sim/host.h"
#include "sim/results.h"
#include "sim/scenario.h"
#include "sim/workload.h"

/* The handle of sim/sim.h, whose inside this is (struct Sim below). */
typedef struct Sim Sim;

/* A MiB: the workloads give costs and sizes per MB in these. */
#define MB (1024.0 * 1024.0)

typedef enum Phase {
        PHASE_STARTUP,      /* JVM launch: wall time */
        PHASE_LAUNCH,       /* the launch's CPU: CPU seconds */
        PHASE_SHUFFLE_WAIT, /* a reduce that fetched all finished maps' output */
        PHASE_SHUFFLE,      /* a reduce fetching map output: bytes */
        PHASE_IO,           /* read, spill, shuffle or write: bytes */
        PHASE_CPU,          /* compute: CPU seconds */
        PHASE_MERGE,        /* map flush and merge or reduce sort: bytes */
        PHASE_WRITE,        /* a map-only job's map writing a round's output: bytes */
        PHASE_SPILL_WAIT,   /* a map blocked until its spill thread is done */
        PHASE_REPORT,       /* ended; its tracker's next heartbeat reports it */
} Phase;

typedef struct SimCluster SimCluster;

/* What an attempt adds to the counts of its VM and host (engine.c): a
 * runnable vCPU while it computes, and streams on the disks. */
typedef struct AttemptLoad {
        bool cpu;
        unsigned vm_streams, host_streams;
} AttemptLoad;

typedef struct SimAttempt {
        uint64_t id;
        SimCluster *cl;
        uint32_t task, node, vm, host;
        /* Its task's type and input, which every step's report reads:
         * kept here, beside what else it reads, rather than looked up in
         * the tasks of the whole run. */
        bool map;
        double input;
        SlotType slot;
        uint64_t slot_memory;
        usec_t started;
        bool speculative;
        unsigned kill_count;
        usec_t shuffle_end; /* a reduce's, once its reduce phase began */

        /* The plan (sim/host.h): rounds of (IO io_round bytes, CPU
         * cpu_round seconds). A map's round reads its share of the split,
         * then computes; the spills it starts go to the spill thread, and
         * merge_io bytes (the flush and merge) end it. A reduce first
         * fetches each map's segment as the map finishes (shuffled bytes
         * and segments so far; the current fetch and the phase's bytes with
         * what it writes and merges), then writes and merges merge_io bytes
         * (the sort), then each round reads its share of the final merge
         * and writes its output, and computes. A map of a job without
         * reduces has no sort buffer: each round, after it computes, it
         * writes write_round bytes of the job's output itself (Hadoop
         * 1.1.1's MapTask gives such a map a DirectMapOutputCollector, which
         * hands each record to the job's OutputFormat: no spill, no merge),
         * and its progress is the map phase's alone. */
        Phase phase;
        unsigned round, rounds, segments;
        /* A reduce waiting for maps (PHASE_SHUFFLE_WAIT): how many of its
         * job's maps have finished when it fetches next, and its place in
         * its job's heap of waiting reduces plus one (0: not there). */
        unsigned wake_at;
        size_t wait_slot;
        double io_round, cpu_round, merge_io, shuffled, fetch, fetch_io;
        /* A map's io_round and write_round at the stream bandwidth,
         * seconds: the round's nominal I/O time its progress is measured
         * by, computed once. */
        double io_round_time, write_round, write_round_time;
        bool map_only;          /* a map of a job without reduces */
        double remaining, rate; /* in the phase's unit, per second */
        /* A map's spills for its slot's buffer, and its spill thread:
         * bytes left to write at spill_rate, and those a blocked map thread
         * has for it next. */
        MapSpillPlan spills;
        double spill_left, spill_rate, spill_waiting;
        EventId spill_ev;
        ReduceShuffle shuffle; /* a reduce's buffer and files */
        /* Shares of wall time going to each account at the current rate. */
        double f_cpu, f_io, f_steal, f_queue;
        double t_cpu, t_io, t_steal, t_queue; /* seconds */

        /* A map whose split has no replica on its node reads it from the
         * host of the split's first replica (src_host; its own host when
         * local): while reading is set its input I/O is one of that host's
         * disk streams (at src_pos in its readers) and crosses both hosts'
         * network links. */
        uint32_t src_host;
        bool reading;
        size_t src_pos;

        EventId ev;
        size_t host_pos, cluster_pos;
        /* Its phase, events or reading changed since its rates were last
         * set (engine.c): its host must set them again even when nothing
         * else on it moved. Set only by attempt_mark_stale(), which also
         * lists it in its host's stale attempts. */
        bool rates_stale;
        AttemptLoad counted; /* in its VM's and host's counts */
} SimAttempt;

typedef struct TaskExtra {
        double cpu_work; /* seconds on one core */
        double output;   /* bytes the map function emits; for a reduce its write bytes */
        double records;  /* records the map function emits */
        /* A map's spills through a sort buffer of spill_buffer bytes, as
         * the build planned them for the reduces' input: an attempt with a
         * buffer of that size has the same plan. */
        MapSpillPlan spills;
        double spill_buffer;
        usec_t first_start, finished;
        /* Of the attempt that finished it (the winner, if it was
         * speculated): its node, its start and, a reduce's, its shuffle's
         * end, from which the ledger adds the task to its job's profile. */
        uint32_t node;
        usec_t winner_started, winner_shuffle_end;
        double cpu, iowait, steal, queue; /* of finished and killed attempts */
        unsigned kill_count, resize_kills, attempts, running;
        bool straggler;
} TaskExtra;

/* The rest of a job is its snapshot Job: task counts, profile, demand. */
typedef struct JobExtra {
        const Benchmark *bench;
        double combine; /* its combine ratio, the scenario's if it sets one */
        uint32_t first_task;
        usec_t maps_finished; /* when its last map finished; 0: not yet */
        usec_t finished;
        bool refused;
        char refusal[160];
        JobProfile stored_profile; /* [workload] profile_runs: its Job.stored_profile */
        /* Its running reduce attempts, in the order of the cluster's list
         * as sim_job_map_finished() last sorted them: without
         * progress_at_heartbeat a map's end looks here for the reduces
         * waiting on it. */
        struct SimAttempt **reduces;
        size_t n_reduces, cap_reduces;
        /* Those waiting for maps, a heap by SimAttempt.wake_at (room for
         * every running reduce): with progress_at_heartbeat a map's end
         * takes the reduces due off its top and looks at no other. */
        struct SimAttempt **waiting;
        size_t n_waiting, cap_waiting;
} JobExtra;

static inline uint32_t job_n_tasks(const Job *j) {
        return j->counts[TASK_MAP].total + j->counts[TASK_REDUCE].total;
}

typedef struct NodeBeat {
        SimCluster *cl;
        uint32_t node;
} NodeBeat;

/* The sizes of a node's free map slots that a resize grew (engine.c). */
typedef struct GrownSlots {
        uint64_t *size;
        size_t n, cap;
} GrownSlots;

/* DRS's view of a cluster's VMs (sim/drs.c). */
typedef struct SimDrs {
        DrsHistory *history;           /* per VM */
        double *demand, *size, *share; /* per VM, for the divvy */
} SimDrs;

struct SimCluster {
        unsigned index;
        Sim *sim;
        Policy *policy;
        Decisions decisions;

        Job *jobs; /* snapshot arrays, kept up to date in place */
        JobExtra *jobx;
        size_t n_jobs, n_arrived, n_finished;
        /* Jobs before this one are done and their Job.tasks final: a
         * snapshot leaves them as they are. */
        size_t n_jobs_settled;
        /* Arrived jobs whose Job.tasks a step may still move, in arrival
         * order: the first n_jobs_opened arrived, less those done (room
         * for n_jobs). */
        uint32_t *open_jobs;
        size_t n_open_jobs, n_jobs_opened;
        size_t n_due; /* under [workload] load_threshold: jobs whose submission came */
        Task *tasks;
        TaskExtra *taskx;
        size_t n_tasks;
        Node *nodes;                 /* the snapshot's too */
        uint32_t *node_vm;           /* global VM index of each node */
        NodeAttempts *node_attempts; /* the snapshot's too */
        NodeAttempts attempts_total; /* their sum */
        GrownSlots *grown;           /* per node */
        uint32_t *unreported;        /* per node: its attempts in PHASE_REPORT */
        size_t n_nodes;
        /* The nodes whose slots changed since the last policy step (the
         * slot changes applied), each once (slots_listed): what the next
         * step's snapshot reports (ClusterSnapshot.slots_changed). */
        uint32_t *slots_changed;
        bool *slots_listed;
        size_t n_slots_changed;
        NodeBeat *beats;
        uint32_t *vms; /* global indices of this cluster's VMs */
        size_t n_vms;
        /* What a control cycle's sample of the cluster's use (util_record())
         * adds up, kept as it changes rather than summed over every VM and
         * node at each cycle: each VM's measured CPU use by cluster_pos (a
         * dense copy of SimVm.cpu_use), the VMs' committed memory and
         * memory, and the nodes' map slots. The byte counts are whole
         * numbers, which a sum of doubles adds exactly, so each total is
         * what that sum in the VMs' order gives. */
        double *vm_cpu_use;
        uint64_t committed, memory;
        unsigned map_slots;

        SimAttempt **attempts; /* running, in start order */
        size_t n_attempts, cap_attempts;

        /* When its VMs' last measurement window closed, and the next one
         * began (0: none yet): every VM of the cluster is measured at once. */
        usec_t measured_at;

        /* The snapshot's VMs: its own, then the other cluster's
         * (Vm.other_tenant) from n_vms on. A step builds again only the
         * entries listed stale (sim_vm_snapshot_stale()); each listed once,
         * as its flag says. */
        Vm *snap_vms;
        size_t cap_snap_vms;
        /* The measured_at of its own entries and of the other cluster's as
         * the last snapshot set them: a measurement moves every entry's. */
        usec_t snap_measured_at[2];
        uint32_t *snap_vms_stale;
        bool *snap_vm_is_stale;
        size_t n_snap_vms_stale;
        /* The snapshot's attempts, kept beside attempts (the same order,
         * cap_attempts of room): an attempt's entry is filled as it starts
         * and moves with it, and a step sets only what time moves
         * (sim_attempt_snapshot_update()), for the entries the core asks
         * for (ClusterSnapshot.fill_attempt). */
        Attempt *snap_attempts;
        /* Snapshot attempt index -> attempt, as the last step saw them:
         * kills taken out of attempts do not move the step's indices. */
        SimAttempt **snap_map;
        size_t cap_snap_attempts, cap_snap_map;
        uint64_t next_attempt_id;
        SimDrs drs;

        /* The engine's only way up: an attempt finished the task (its last
         * phase ended, it has left its host, whose rates are recomputed).
         * build.c sets it to the ledger's sim_task_finished(); an engine
         * test, to its own. */
        void (*task_done)(SimCluster *cl, uint32_t task);
};

/* The attempts on a node in slots of the type, whatever their tasks. */
static inline unsigned node_running(const SimCluster *cl, uint32_t node, SlotType slot) {
        return node_attempts_busy(&cl->node_attempts[node], slot);
}

/* The counts of the task's job and type, kept as its attempts start and end. */
static inline TaskCounts *task_counts(SimCluster *cl, uint32_t task) {
        const Task *t = &cl->tasks[task];

        return &cl->jobs[t->job].counts[t->type];
}

typedef struct SimVm {
        Sim *sim;
        uint32_t host;
        unsigned cluster;
        uint32_t node;        /* index into its cluster's nodes, NO_INDEX for a master */
        uint32_t cluster_pos; /* index into its cluster's vms */
        unsigned vcpus, vcpus_max, weight;
        uint64_t memory, memory_max;
        double cap;
        /* Now. */
        unsigned n_cpu, n_io;
        double runnable, alloc, committed;
        /* What each of its attempts in a CPU phase gets, the same for all of
         * them: set by host_recompute() while n_cpu > 0. */
        double cpu_rate, cpu_f_io, cpu_f_steal, cpu_f_queue;
        bool cpu_rate_moved; /* by the host's last recomputation */
        /* Cumulative vCPU-seconds, and their values when the measurement
         * window began (at its cluster's measured_at). */
        double cpu_total, steal_total, iowait_total;
        double win_cpu, win_steal, win_iowait;
        /* Last window's figures, as the snapshot reports them. */
        double cpu_use, steal_share, iowait_share;
        /* Under DRS with [drs] agent_weights: DRS's shares and the
         * weight the agent set (0: none yet, the scenario's vm_weight),
         * whose product over vm_weight is weight (sim_vm_agent_weight()). */
        unsigned drs_weight, agent_weight;
        /* A pending resize (VmTarget), applied by an event. */
        unsigned target_weight, target_vcpus;
        uint64_t target_memory;
        double target_cap;
        EventId resize_ev;
        ActHistory act_history; /* when each resource last changed */
} SimVm;

typedef struct SimHost {
        double pcpus, disk_bw;
        uint32_t *vms;
        size_t n_vms;
        /* Per VM: the demands cpu_share_compute() last divided the pCPUs
         * by, and what it gave each (valid once shares_known). */
        CpuDemand *demand;
        double *alloc;
        bool shares_known;
        /* No VM of the host changed what its CPU rate depends on (demand,
         * cap, weight, vCPUs, memory, committed memory) since the last
         * recomputation: the shares and rates it set still hold. */
        bool vm_rates_valid;
        SimAttempt **attempts;
        size_t n_attempts, cap_attempts;
        /* Its attempts with rates_stale set, in no order: the ones a
         * recomputation must look at when no share moved. */
        SimAttempt **stale;
        size_t n_stale, cap_stale;
        usec_t last;
        /* Streams on its disk: its attempts' (local_io, kept as they
         * change) and the remote readers'. */
        unsigned n_io, local_io;
        double disk_share; /* a stream's, as the last recomputation set it */
        /* Remote reads from this host's disk (attempts on other hosts), and
         * remote reads by this host's attempts: its link's two directions. */
        SimAttempt **readers;
        size_t n_readers, cap_readers;
        unsigned net_in;
        /* In Sim.accruing, at accruing_pos (engine.c's host_accrues()). */
        bool accruing;
        uint32_t accruing_pos;
        /* The clusters (a bit each) with VMs on the host, and those whose
         * VMs here have something for their next measurement: sums that
         * moved since the last (the host accrued) or figures of the last
         * window not zero. For the others the next window is zeros again,
         * and vms_measure() leaves their VMs as they are. */
        unsigned clusters, measure_due;
        /* A measurement took in some of its VMs since the snapshot's entry
         * was summed. */
        bool snap_stale;
} SimHost;

struct Sim {
        const Scenario *sc;
        usec_t heartbeat; /* scenario_heartbeat_interval() */
        EventQueue *queue;
        SimHost *hosts;
        size_t n_hosts;
        double pcpus; /* the hosts' summed in their order */
        /* The hosts whose advance adds to some sum, in no order: the others
         * are left out of sim_hosts_advance_all(). */
        uint32_t *accruing;
        size_t n_accruing;
        Host *snap_hosts;
        /* A measurement came since the snapshot's hosts were set
         * (vms_measure()): the next step sets them again. */
        bool snap_hosts_stale;
        SimVm *vms;
        size_t n_vms;
        SimCluster clusters[2];
        unsigned n_clusters;
        uint64_t rng;
        double stream_bw, net_bw, memory_penalty;
        SimResults results;
        bool check_invariants;
        bool time_policy; /* sim_set_time_policy() */
        char invariant_error[256];
        int error; /* first failure inside an event callback */
        SimProgressFn progress;
        void *progress_data;
        SimObserveFn observe;
        void *observe_data;
};

/* part / whole as a share in 0..1; 0 for an empty whole. */
static inline double share_of(double part, double whole) {
        if (whole <= 0)
                return 0;
        return CLAMP(part / whole, 0.0, 1.0);
}

/* A failure inside an event callback, which has no caller to return it to:
 * the first one is kept for sim_run() and the run stops. */
static inline void sim_fail(Sim *s, int error) {
        if (s->error == 0)
                s->error = error;
        event_queue_stop(s->queue);
}

/* What the snapshot reports of the VM (its resources, weight, measured
 * use, committed memory) changed: each cluster's next step builds its entry
 * again. Before a cluster's first snapshot there is nothing to mark: that
 * one builds every entry. */
static inline void sim_vm_snapshot_stale(Sim *s, const SimVm *v) {
        for (unsigned c = 0; c < s->n_clusters; c++) {
                SimCluster *cl = &s->clusters[c];
                size_t pos = v->cluster_pos + (c == v->cluster ? 0 : cl->n_vms);

                if (pos >= cl->cap_snap_vms || cl->snap_vm_is_stale[pos])
                        continue;
                cl->snap_vm_is_stale[pos] = true;
                cl->snap_vms_stale[cl->n_snap_vms_stale++] = (uint32_t)pos;
        }
}

/* engine.c */
void sim_host_update(Sim *s, uint32_t host);
void sim_hosts_advance_all(Sim *s);
int sim_attempt_start(SimCluster *cl, uint32_t task, uint32_t node, SlotType slot,
                      uint64_t slot_memory, bool speculative);
/* Removes an attempt that was killed; its time goes to its task. A resized
 * attempt's slot stays taken (slot_kept): its restart runs in it. */
void sim_attempt_kill(SimAttempt *a, bool slot_kept);
/* The node's heartbeat reports its attempts that ended (PHASE_REPORT):
 * each one's task is done now; with [hadoop] progress_at_heartbeat, the
 * others' progress too. */
void sim_node_report(SimCluster *cl, uint32_t node);
/* Room for as many grown slots as the node has map slots; then drops the
 * smallest free ones beyond what its free map slots can hold. */
int sim_node_grown_resize(SimCluster *cl, uint32_t node);
/* The slot memory of a map starting on the node in a map slot that was
 * asked for `asked`: the largest free grown slot when it is larger. */
uint64_t sim_node_map_slot_take(SimCluster *cl, uint32_t node, uint64_t asked);
/* Wakes the job's reduces that wait for map output, after a map finished. */
void sim_job_map_finished(SimCluster *cl, uint32_t job);
/* The attempt's snapshot entry as of now, in full, as a fresh build makes
 * it; sim_attempt_snapshot_update() sets its fields that move with time,
 * or with a sibling's resize, in an entry that has the rest. */
Attempt sim_attempt_snapshot(const SimAttempt *a, usec_t now);
void sim_attempt_snapshot_update(const SimAttempt *a, usec_t now, Attempt *ret);
/* Only what a sibling's resize moves: the controller's own decision, known
 * at once even where the rest waits for the tracker's heartbeat. */
void sim_attempt_snapshot_resizes(const SimAttempt *a, Attempt *ret);

/* ledger.c */
bool sim_all_done(const Sim *s);
/* SimCluster.task_done: an attempt finished the task. The task joins its
 * job's profile (Job.profile) and is done, its other attempts are killed,
 * and its job is finished with it when it was the job's last. */
void sim_task_finished(SimCluster *cl, uint32_t task);
/* A job turned away at submission: its tasks count as done, it as
 * finished now. */
void sim_job_refuse(SimCluster *cl, uint32_t job, const char *reason);

/* actuate.c */
/* t as the agent's limits let it through; notes the changes. */
VmTarget sim_vm_target_limit(Sim *s, SimVm *v, const VmTarget *t);

/* driver.c */
int simcl_policy_init(SimCluster *cl, char *err, size_t err_size);
/* Node.capacity of the VM's node, if it has one: its vCPUs, the memory its
 * guest OS leaves and its host's disk bandwidth. */
void sim_node_capacity_update(Sim *s, const SimVm *v);
usec_t sim_heartbeat_event(EventQueue *q, void *userdata);
usec_t sim_control_event(EventQueue *q, void *userdata);
usec_t sim_job_arrival_event(EventQueue *q, void *userdata);

/* arrival.c: ARIA 7.2's arrivals under a load threshold */
bool sim_arrivals_gated(const SimCluster *cl);
/* Whether the next of the jobs due may come now, through the gate: its
 * submission (and its deadline with it) then moves to now. */
bool sim_arrival_next(SimCluster *cl);
/* What a step does, for tests: the snapshot of now, and carrying out
 * decisions made on the last snapshot. */
int sim_snapshot(SimCluster *cl, ClusterSnapshot *ret);
int sim_decisions_apply(SimCluster *cl, const Decisions *d);

/* The weight the VM's agent knows: what it set under DRS, else the VM's. */
static inline unsigned sim_vm_agent_weight(const Sim *s, const SimVm *v) {
        if (!s->sc->drs)
                return v->weight;
        return v->agent_weight ? v->agent_weight : (unsigned)s->sc->vm_weight;
}

/* drs.c */
/* The weight the host enforces under DRS: DRS's shares scaled by the
 * agent's weight over the default one. */
unsigned sim_drs_vm_weight(const Sim *s, const SimVm *v);
int sim_drs_start(SimCluster *cl);
void sim_drs_done(SimCluster *cl);
double sim_drs_pool(const Sim *s);

/* bound.c */
/* The pCPUs the cluster's slaves can get at most. */
double sim_bound_pcpus(const Sim *s, const SimCluster *cl);
void sim_bound_job(const Sim *s, const SimCluster *cl, uint32_t job, SimBound *ret);
double sim_bound_pair(const Sim *s, const SimBound *a, const SimBound *b);

/* collect.c */
/* The results of the run that just ended (SimResults). */
int sim_collect(Sim *s);

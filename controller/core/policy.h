/* SPDX-License-Identifier: MIT */
#pragma once

/* The policy core: one pure step from (configuration, snapshot, now) to
 * Decisions, made of four layers that compose, each chosen by name from a
 * table of function pointers (the libvirt driver-table pattern):
 *
 *   slot manager   straggler handling, slot memory and slot counts  (control)
 *   job scheduler  which pending task goes into which free slot     (assign)
 *   speculation    backup copies of slow tasks into remaining slots (assign)
 *   VM allocator   CPU weight, vCPUs and memory of each VM          (control)
 *
 * policy_step() runs them in that order; each layer sees the snapshot plus the
 * decisions of the layers before it (the slot of a re-placed attempt is free
 * for the scheduler, a slot the slot manager added can be filled, the VM
 * allocator knows which nodes gained slots). The core does no I/O, reads no clock, logs
 * nothing and keeps no global state: the same inputs give the same Decisions.
 * It counts slots by their own type and lets a task run in a slot of either;
 * running each task in the slot named after its type (slot_type_of()) is a
 * rule of the policies that keep it, which today's all do.
 *
 * Driver contract (simulator and live controller alike):
 *   1. fill a ClusterSnapshot (model.h), call policy_step() with the current
 *      time and the layers to run (POLICY_STEP_CONTROL every control interval,
 *      POLICY_STEP_ASSIGN on every heartbeat or cycle; a heartbeat also says
 *      POLICY_STEP_HEARTBEAT and which node beats);
 *   2. apply the Decisions in array order: kills, slot changes (both counts),
 *      assignments (each in a slot of its type), VM targets; keep quotas,
 *      placements and reservations until the next step of their kind
 *      replaces them (no policy of today makes any, and the simulator
 *      applies none); store the notes (AttemptNote -> Attempt.prev_speed,
 *      JobNote -> Job.locality_wait_since) for the next snapshot;
 *   3. a driver that may turn jobs away (the live controller) asks
 *      policy_admit() before a job joins the snapshot; the simulator runs
 *      every job of its workload. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/time-util.h"
#include "controller/core/model.h"

/* ---- configuration ---- */

typedef struct PolicyConfig {
        /* Layer names: see *_ops_find(). */
        const char *scheduler;
        const char *slot_manager;
        const char *speculation;
        const char *vm_allocator;

        /* Control interval: FlexSlot's heartbeat interval T (Algorithm 1). */
        usec_t interval;
        /* Reduces start once this share of the job's maps is done (Hadoop's
         * mapred.reduce.slowstart.completed.maps). */
        double reduce_slowstart;

        /* fair: how long a job may be passed over for want of a local map
         * task before it takes a non-local one (delay scheduling's W). */
        usec_t locality_delay;

        /* hadoop speculation: a task at least this old whose progress is
         * this far below its job's average gets one backup. */
        usec_t spec_min_runtime;
        double spec_progress_gap;
        /* late: SlowTaskThreshold and SlowNodeThreshold (percentiles of
         * progress rate) and SpeculativeCap (share of all slots). */
        double late_slow_task_pct;
        double late_slow_node_pct;
        double late_spec_cap;

        /* flexslot (FlexSlot III, V). */
        double alpha;           /* slot memory step of Algorithm 1 */
        double lambda;          /* steal standard deviation bound of Algorithm 2 */
        double straggler_ratio; /* see flexslot.h: 1.0 is the paper's pure k-means */
        double io_threshold;    /* bottleneck: attempt I/O wait share */
        double steal_threshold; /* bottleneck: node steal share */
        usec_t min_age;         /* an attempt is judged only after running this long */
        usec_t new_task_window; /* "newly scheduled" for straggler re-placement */
        unsigned max_moves;     /* Algorithm 2 moves per control cycle */
        usec_t settle;          /* no moves until the last one is this old */
        unsigned min_map_slots, max_map_slots; /* per node */
        bool unlimited;                        /* V-F: add slots where resources are free */

        /* VM allocators. */
        unsigned weight_per_vm;     /* a host's CPU weight pool is this times its VMs */
        double demand_headroom;     /* demand: entitlement = headroom x use */
        uint64_t min_vm_memory;     /* floor of any memory target */
        uint64_t vm_memory_reserve; /* guest OS and daemons, outside the slots */
} PolicyConfig;

/* Defaults, each documented where it is used. */
void policy_config_default(PolicyConfig *cfg);

/* ---- what a step is asked ---- */

typedef enum PolicyStepFlags {
        POLICY_STEP_CONTROL = 1u << 0, /* slot manager and VM allocator */
        POLICY_STEP_ASSIGN = 1u << 1,  /* job scheduler and speculation */
        POLICY_STEP_ALL = POLICY_STEP_CONTROL | POLICY_STEP_ASSIGN,
        /* The driver built the snapshot from its own consistent model and
         * vouches that snapshot_validate() passes, so the step skips that
         * O(tasks) check: the simulator, thousands of steps a run. A driver
         * of outside data (tracker heartbeats, agent metrics) must not set it;
         * a test or debug run should not either, so that a driver bug shows
         * as -EINVAL rather than as a wrong index. */
        POLICY_STEP_TRUSTED = 1u << 2,
        /* The step answers one node's heartbeat (PolicyStepArgs.node): as
         * Hadoop 1's JobTracker hands tasks only to the tracker that just
         * reported, only that node's free slots may be filled. The layers
         * still see the whole cluster: shares and caps count every node's
         * slots. */
        POLICY_STEP_HEARTBEAT = 1u << 3,
} PolicyStepFlags;

typedef struct PolicyStepArgs {
        usec_t now;
        unsigned flags; /* PolicyStepFlags */
        uint32_t node;  /* with POLICY_STEP_HEARTBEAT: the heartbeating node */
} PolicyStepArgs;

/* ---- decisions ---- */

/* Run a pending task (or a backup of a running one) in a free slot of the
 * given type, which need not be the task's own (a borrowed slot). */
typedef struct Assignment {
        uint32_t task;
        uint32_t node;
        TaskType type; /* the task's, as a check */
        SlotType slot;
        uint64_t slot_memory;
        bool speculative;
        bool local; /* the node holds the map's input split */
} Assignment;

typedef enum KillReason {
        KILL_RESIZE,  /* Algorithm 1: restart here with more slot memory */
        KILL_REPLACE, /* III-E: new straggler on a straggler node, runs elsewhere */
} KillReason;

typedef struct Kill {
        uint32_t attempt;
        KillReason reason;
        /* The next attempt's slot memory and D_prev; the driver increments
         * the task's kill count. KILL_RESIZE restarts on the same node at
         * once, in a slot of the same type; KILL_REPLACE frees the slot and
         * returns the task to pending with this slot memory, and an
         * Assignment in the same Decisions places it. */
        uint64_t slot_memory;
        double prev_speed;
} Kill;

/* New absolute slot counts of a node, both types (Algorithm 2 and V-F move
 * map slots; a change may also turn slots of one type into the other). A
 * node with more attempts in slots of a type than it now has keeps them
 * until they finish. */
typedef struct SlotChange {
        uint32_t node;
        unsigned slots[_SLOT_TYPE_MAX]; /* by SlotType */
} SlotChange;

typedef struct VmTarget {
        uint32_t vm;
        unsigned cpu_weight;
        unsigned vcpus;
        uint64_t memory;
        double cpu_cap; /* CPUs; 0: no cap */
} VmTarget;

/* Store speed as Attempt.prev_speed for the next cycle (Algorithm 1, line 13). */
typedef struct AttemptNote {
        uint32_t attempt;
        double speed;
} AttemptNote;

typedef struct JobNote {
        uint32_t job;
        usec_t locality_wait_since;
} JobNote;

typedef enum Bottleneck {
        BOTTLENECK_NONE,
        BOTTLENECK_IO,  /* I/O wait dominates: grow the slot (Algorithm 1) */
        BOTTLENECK_CPU, /* steal dominates: move slots (Algorithm 2) */
} Bottleneck;

/* A straggler found this cycle, for reports. */
typedef struct StragglerNote {
        uint32_t attempt;
        double score; /* P */
        Bottleneck bottleneck;
} StragglerNote;

/* The least slots of each type a job should hold, so that it meets its
 * deadline (ARIA's and the Deadline Constraint Scheduler's minimum slots);
 * one per job. */
typedef struct SlotQuota {
        uint32_t job;
        unsigned slots[_SLOT_TYPE_MAX]; /* by SlotType */
} SlotQuota;

/* Job slots (RAS): count slots of a type on a node bound to one job's tasks
 * of one type, which no other task may take. A node's placements of a slot
 * type fit in its slots of that type, after the slot changes. */
typedef struct Placement {
        uint32_t node;
        SlotType slot;
        uint32_t job;
        TaskType type;
        unsigned count;
} Placement;

/* A free slot held for a job, to be filled by a task of it that cannot
 * start yet (DynamicMR's slot pre-scheduling keeps a slot on a node for a
 * local map); no assignment of the step takes it. */
typedef struct Reservation {
        uint32_t node;
        SlotType slot;
        uint32_t job;
        uint32_t task; /* a pending task of the job; NO_INDEX: any of its tasks */
} Reservation;

#define DECISION_ARRAYS(X)            \
        X(Assignment, assignments)    \
        X(Kill, kills)                \
        X(SlotChange, slot_changes)   \
        X(VmTarget, vm_targets)       \
        X(SlotQuota, quotas)          \
        X(Placement, placements)      \
        X(Reservation, reservations)  \
        X(AttemptNote, attempt_notes) \
        X(JobNote, job_notes)         \
        X(StragglerNote, stragglers)

/* Owned by the caller; policy_step() refills the arrays on every call and
 * grows them when a step needs more room than any step before it. */
typedef struct Decisions {
#define DECISION_FIELDS(type, name) \
        type *name;                 \
        size_t n_##name;            \
        size_t cap_##name;
        DECISION_ARRAYS(DECISION_FIELDS)
#undef DECISION_FIELDS
} Decisions;

void decisions_done(Decisions *d);
/* -EBADMSG when d refers to an object s does not have, kills an attempt
 * twice, places a task that is neither pending nor re-placed, puts a new
 * attempt on a dead or full node (its slots of the assignment's type, after
 * the slot changes and re-placements, less the attempts running in them,
 * whatever their tasks) or, in a heartbeat step, on another node than the
 * heartbeating one, sets a VM outside its maxima, gives a job two quotas,
 * places more job slots on a node than it has, or reserves a slot that is
 * not free after the assignments (on the heartbeating node only) or for a
 * task of another job or not pending. step may be NULL (a
 * step of no heartbeat). policy_step() checks its own output with it; a
 * driver may check decisions from elsewhere. */
int decisions_validate(const ClusterSnapshot *s, const PolicyStepArgs *step, const Decisions *d);

/* ---- admission ---- */

/* A layer's answer to a job that asks to run. The numbers are those of the
 * Deadline Constraint Scheduler's schedulability test, 0 where a layer has
 * none. */
typedef struct AdmitVerdict {
        bool admit;
        char reason[160];                      /* why not, for people; empty when admitted */
        unsigned slots_needed[_SLOT_TYPE_MAX]; /* the least the deadline needs */
        unsigned slots_free[_SLOT_TYPE_MAX];   /* what the cluster can give it */
        usec_t finish;                         /* when the job would end */
} AdmitVerdict;

/* ---- layers ---- */

typedef struct PolicyContext PolicyContext; /* controller/core/context.h */

/* Every layer: init may be NULL (no state) and returns its state in
 * *ret_state; free(NULL) is harmless. The decide member adds decisions to the
 * context and returns 0 or a negative errno; flags is reserved (0). */
typedef struct JobSchedulerOps {
        const char *name;
        int (*init)(const PolicyConfig *cfg, void **ret_state);
        void (*free)(void *state);
        int (*assign)(void *state, PolicyContext *ctx, unsigned flags);
        /* Whether job, not in s, may run; it fills *ret (zeroed before)
         * and changes nothing. NULL: every job is admitted. */
        int (*admit)(void *state, const PolicyConfig *cfg, const ClusterSnapshot *s, usec_t now,
                     const Job *job, AdmitVerdict *ret);
} JobSchedulerOps;

typedef struct SlotManagerOps {
        const char *name;
        int (*init)(const PolicyConfig *cfg, void **ret_state);
        void (*free)(void *state);
        int (*manage)(void *state, PolicyContext *ctx, unsigned flags);
} SlotManagerOps;

/* A speculation layer only adds backups (speculative assignments) of tasks
 * with a running attempt into the slots the scheduler left free. */
typedef struct SpeculationOps {
        const char *name;
        int (*init)(const PolicyConfig *cfg, void **ret_state);
        void (*free)(void *state);
        int (*speculate)(void *state, PolicyContext *ctx, unsigned flags);
} SpeculationOps;

typedef struct VmAllocatorOps {
        const char *name;
        int (*init)(const PolicyConfig *cfg, void **ret_state);
        void (*free)(void *state);
        int (*allocate)(void *state, PolicyContext *ctx, unsigned flags);
} VmAllocatorOps;

/* Lookup by name; NULL when unknown. The tables end with NULL. */
const JobSchedulerOps *job_scheduler_ops_find(const char *name);
const SlotManagerOps *slot_manager_ops_find(const char *name);
const SpeculationOps *speculation_ops_find(const char *name);
const VmAllocatorOps *vm_allocator_ops_find(const char *name);
extern const JobSchedulerOps *const job_scheduler_table[];
extern const SlotManagerOps *const slot_manager_table[];
extern const SpeculationOps *const speculation_table[];
extern const VmAllocatorOps *const vm_allocator_table[];

/* ---- the step ---- */

typedef struct Policy Policy;

/* The four layers of a Policy, one of each. */
typedef struct PolicyLayers {
        const JobSchedulerOps *scheduler;
        const SlotManagerOps *slot_manager;
        const SpeculationOps *speculation;
        const VmAllocatorOps *vm_allocator;
} PolicyLayers;

/* A Policy of the given layers (which must outlive it): -EINVAL for a
 * missing layer or a parameter out of range. The configuration is copied;
 * its layer names are not read. */
int policy_new_layers(const PolicyLayers *layers, const PolicyConfig *cfg, Policy **ret);
/* The same with the layers the configuration names: -EINVAL also for an
 * unknown name. The name strings must outlive the Policy. */
int policy_new(const PolicyConfig *cfg, Policy **ret);
Policy *policy_free(Policy *p);
static inline void policy_freep(Policy **p) {
        policy_free(*p);
}
const PolicyConfig *policy_config(const Policy *p);

/* One control cycle or heartbeat at time args->now: the layers of
 * args->flags (POLICY_STEP_ALL bits), optionally POLICY_STEP_TRUSTED and
 * POLICY_STEP_HEARTBEAT. -EINVAL for a bad snapshot (unless trusted),
 * unknown flag bits or a heartbeat of a node the snapshot does not have,
 * -ENOMEM, -EBADMSG if a policy broke the contract of decisions_validate()
 * (a bug); *d is left empty on failure. */
int policy_step(Policy *p, const ClusterSnapshot *s, const PolicyStepArgs *args, Decisions *d);

/* Whether job, not yet in s, may run, asked at now: the job scheduler's
 * verdict (its admit op; without one, every job is admitted) in *ret.
 * Nothing changes, in the Policy or elsewhere. -EINVAL for a bad snapshot
 * or job (see job_validate()), or an error of the layer; *ret is untouched
 * on failure. */
int policy_admit(Policy *p, const ClusterSnapshot *s, usec_t now, const Job *job,
                 AdmitVerdict *ret);

/* SPDX-License-Identifier: MIT */
#pragma once

/* The vocabulary between the policy core and its drivers and layers: what a
 * step is asked (PolicyStepArgs), what it answers (Decisions) and what
 * admission answers (AdmitVerdict). Decisions refer to the snapshot's
 * objects by index (model.h). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/time-util.h"
#include "policy/core/model.h"

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

/* ---- what it answers ---- */

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
        KILL_RETRY,   /* DynamicMR 2.2: a hopeless straggler, run again as if it failed */
        _KILL_REASON_MAX,
} KillReason;

typedef struct Kill {
        uint32_t attempt;
        KillReason reason;
        /* The next attempt's slot memory; the driver increments the task's
         * kill count. KILL_RESIZE restarts on the same node at once, in the
         * same slot, grown to this size (Algorithm 1, line 9): a driver
         * whose trackers keep a slot's size (the simulator's do) starts
         * later maps in that slot with it; KILL_REPLACE and KILL_RETRY free the slot
         * and return the task to pending with this slot memory (unless a
         * backup of it runs on): an Assignment in the same Decisions may
         * place it (KILL_REPLACE's always does), else a later step does,
         * as the first of its job's pending tasks. */
        uint64_t slot_memory;
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

/* What holds a slow attempt back. */
typedef enum Bottleneck {
        BOTTLENECK_NONE,
        BOTTLENECK_IO,  /* I/O wait dominates (FlexSlot grows its slot) */
        BOTTLENECK_CPU, /* steal dominates: its VM is starved of CPU */
} Bottleneck;

/* A straggler a layer found in this step: for reports, and for the layers
 * after it (the flexslot VM allocator gives CPU to stragglers starved of
 * it). The layers that judge attempts make them; a driver only records
 * them. */
typedef struct StragglerNote {
        uint32_t attempt;
        double score; /* the layer's measure of progress, lower is slower */
        Bottleneck bottleneck;
} StragglerNote;

/* Which forecast of a deadline job's completion (slo-loop.h). */
typedef enum SloForecastKind {
        SLO_FORECAST_BOUND,  /* ARIA's average bound on the work left, at the measured speed */
        SLO_FORECAST_REPLAY, /* the work left replayed task by task on the job's slots */
        _SLO_FORECAST_MAX,
} SloForecastKind;

/* A deadline job's forecast, made by a layer of the one loop (slo-loop.h)
 * in this step: what its decisions about the job rest on, for reports. */
typedef struct DeadlineNote {
        uint32_t job;
        SloForecastKind kind;
        usec_t forecast; /* when the job is forecast to end, absolute */
        /* Its tasks' measured speed against its profile (1: as profiled,
         * 0.5: twice as long); the forecast counts its slots at it. */
        double speed;
        bool at_risk; /* forecast past its deadline: the loop acts for it */
        /* At risk and passed over (the loop's triage): past its deadline, or
         * forecast past it even with every slot it can use, which forecast
         * is then the one reported. */
        bool hopeless;
} DeadlineNote;

/* Why the VM allocator set a VM's CPU weight (the one loop's lever): for
 * the deadline job at risk that runs on it, or NO_INDEX for a VM that
 * gives weight (best effort, another tenant's) or gets back what it gave. */
typedef struct LeverNote {
        uint32_t vm;
        uint32_t job;
        unsigned cpu_weight; /* the weight it asks */
} LeverNote;

/* Why a deadline scheduler gave a slot beyond the quotas (slo_spare,
 * slo-sched.h): to which job, nearest to missing first. */
typedef enum SpareReason {
        /* The deadline job nearest to missing its deadline by its forecast
         * on its quota (the loop's, slo-loop.h), of those that can still
         * meet it. */
        SPARE_NEAREST,
        /* The deadline job with the earliest deadline of those that can
         * still meet it, not forecast (no part of the loop on, or no
         * profile yet). */
        SPARE_EARLIEST,
        /* A deadline job past its deadline or late even with every slot (the
         * loop's triage): no job that can still meet its deadline takes it. */
        SPARE_PASSED,
        /* A job without a deadline: no deadline job can use it. */
        SPARE_NO_DEADLINE,
        _SPARE_REASON_MAX,
} SpareReason;

/* A slot of the step's assignments that went to a job beyond its quota
 * (the one loop's spare slots), for reports: one per such assignment. */
typedef struct SpareNote {
        uint32_t job;
        uint32_t node;
        SlotType slot;
        SpareReason reason;
        /* SPARE_NEAREST: when the job is forecast to end on its quota,
         * absolute; 0 for the other reasons. */
        usec_t forecast;
        unsigned quota; /* its quota of the slot's type; 0 for SPARE_NO_DEADLINE */
} SpareNote;

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

#define DECISION_ARRAYS(X)           \
        X(Assignment, assignments)   \
        X(Kill, kills)               \
        X(SlotChange, slot_changes)  \
        X(VmTarget, vm_targets)      \
        X(SlotQuota, quotas)         \
        X(Placement, placements)     \
        X(Reservation, reservations) \
        X(StragglerNote, stragglers) \
        X(DeadlineNote, deadlines)   \
        X(LeverNote, levers)         \
        X(SpareNote, spares)

/* The four layers of a policy (layer.h), for what is said of each. */
typedef enum PolicyLayerKind {
        POLICY_LAYER_SCHEDULER,
        POLICY_LAYER_SLOT_MANAGER,
        POLICY_LAYER_SPECULATION,
        POLICY_LAYER_VM_ALLOCATOR,
        _POLICY_LAYER_MAX,
} PolicyLayerKind;

/* "scheduler", "slot-manager", "speculation", "vm-allocator": their keys
 * in a configuration's [policy]. NULL out of range. */
const char *policy_layer_kind_to_string(PolicyLayerKind kind);

/* How many decisions of each kind one layer added in a step, a member per
 * array of Decisions. */
typedef struct DecisionCounts {
#define DECISION_COUNT_FIELDS(type, name) size_t name;
        DECISION_ARRAYS(DECISION_COUNT_FIELDS)
#undef DECISION_COUNT_FIELDS
} DecisionCounts;

/* Owned by the caller; policy_step() refills the arrays on every call and
 * grows them when a step needs more room than any step before it. */
typedef struct Decisions {
#define DECISION_FIELDS(type, name) \
        type *name;                 \
        size_t n_##name;            \
        size_t cap_##name;
        DECISION_ARRAYS(DECISION_FIELDS)
#undef DECISION_FIELDS
        /* Which layer made them: an operator asking why the cluster did
         * something asks first which layer did it. A layer changing a
         * decision an earlier one made (a slot count set again) does not
         * count it twice. */
        DecisionCounts by_layer[_POLICY_LAYER_MAX];
} Decisions;

void decisions_done(Decisions *d);
/* -EBADMSG when d refers to an object s does not have, kills an attempt
 * twice, places a task that is neither pending nor re-placed, puts a new
 * attempt on a dead or full node (its slots of the assignment's type, after
 * the slot changes and re-placements, less the attempts running in them,
 * whatever their tasks) or, in a heartbeat step, on another node than the
 * heartbeating one, sets a VM outside its maxima, gives a job two quotas,
 * places more job slots on a node than it has, reserves a slot that is
 * not free after the assignments (on the heartbeating node only) or for a
 * task of another job or not pending, changes more than the CPU weight of
 * another tenant's VM, or reports on a job without a deadline or a VM it
 * does not have, or a spare slot whose reason does not fit its job. step
 * may be NULL (a
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

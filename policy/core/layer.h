/* SPDX-License-Identifier: MIT */
#pragma once

/* The layer interface: a policy of each of the four layers is a table of
 * function pointers (the libvirt driver-table pattern), with a name, an
 * its settings (a struct and its schema, settings.h), an optional state it
 * keeps across steps (init, free) and the op that makes its decisions. The ops see the snapshot
 * through a PolicyContext (context.h), add decisions with its helpers and take a step's scratch
 * from context_scratch(). What a policy must remember from one step to the
 * next lives in its state, keyed by the snapshot's stable ids (idmap.h),
 * never in the snapshot. The core knows no policy: policy/layers/
 * holds them and the tables that find them by name. */

#include "policy/core/decisions.h"
#include "policy/core/model.h"
#include "policy/core/settings.h"

typedef struct PolicyContext PolicyContext; /* context.h */

/* Every layer: settings is the schema of its settings struct (settings.h),
 * NULL for a layer without any; the core hands each op the layer's own
 * struct (NULL without a schema), valid for the Policy's life. init may be
 * NULL (no state) and returns its state in *ret_state; free(NULL) is
 * harmless. The decide member adds decisions to the context and returns 0
 * or a negative errno; flags is reserved (0). A layer whose
 * figures_on_demand is true reads the attempts' figures that move with
 * time (ClusterSnapshot.fill_attempt) only after
 * context_attempt_figures() or context_attempt_figured(), or never; before
 * any other layer's decide member the core fills them. */
typedef struct JobSchedulerOps {
        const char *name;
        const ConfSchema *settings;
        bool figures_on_demand;
        int (*init)(const void *settings, void **ret_state);
        void (*free)(void *state);
        int (*assign)(void *state, const void *settings, PolicyContext *ctx, unsigned flags);
        /* Whether job, not in s, may run; it fills *ret (zeroed before)
         * and changes nothing; core is the core's settings. NULL: every job
         * is admitted. */
        int (*admit)(void *state, const void *settings, const CoreSettings *core,
                     const ClusterSnapshot *s, usec_t now, const Job *job, AdmitVerdict *ret);
} JobSchedulerOps;

typedef struct SlotManagerOps {
        const char *name;
        const ConfSchema *settings;
        bool figures_on_demand;
        int (*init)(const void *settings, void **ret_state);
        void (*free)(void *state);
        int (*manage)(void *state, const void *settings, PolicyContext *ctx, unsigned flags);
} SlotManagerOps;

/* A speculation layer adds backups (speculative assignments) of tasks with
 * a running attempt into the slots the scheduler left free (speculate). It
 * may also run before the scheduler (ahead, NULL: not), for backups that
 * come before other jobs' pending tasks: in Hadoop a job asked for a task
 * hands out a backup once it has no pending task, so a job ahead in the
 * queue backs up its stragglers before a later job's pending tasks start
 * (the LATE DynamicMR's SEPB works on). Either may kill attempts it judges
 * hopeless (KILL_RETRY). */
typedef struct SpeculationOps {
        const char *name;
        const ConfSchema *settings;
        bool figures_on_demand;
        int (*init)(const void *settings, void **ret_state);
        void (*free)(void *state);
        int (*ahead)(void *state, const void *settings, PolicyContext *ctx, unsigned flags);
        int (*speculate)(void *state, const void *settings, PolicyContext *ctx, unsigned flags);
} SpeculationOps;

typedef struct VmAllocatorOps {
        const char *name;
        const ConfSchema *settings;
        bool figures_on_demand;
        int (*init)(const void *settings, void **ret_state);
        void (*free)(void *state);
        int (*allocate)(void *state, const void *settings, PolicyContext *ctx, unsigned flags);
} VmAllocatorOps;

/* The four layers of a Policy, one of each, and the settings of each: a
 * struct its schema describes, which policy_new() copies; NULL for the
 * schema's defaults. */
typedef struct PolicyLayers {
        const JobSchedulerOps *scheduler;
        const SlotManagerOps *slot_manager;
        const SpeculationOps *speculation;
        const VmAllocatorOps *vm_allocator;
        const void *scheduler_settings, *slot_manager_settings, *speculation_settings,
                *vm_allocator_settings;
} PolicyLayers;

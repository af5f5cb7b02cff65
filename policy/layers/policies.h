/* SPDX-License-Identifier: MIT */
#pragma once

/* Every policy of every layer, the settings of each, and the tables that
 * find them by name (registry.c): what a driver uses to build a Policy from
 * the names and settings in its configuration. A layer's settings schema is
 * its ops table's `settings` (e.g. slot_manager_ops_find("flexslot")->
 * settings), so a configuration can load the keys of the layers it picks
 * without the simulator; PolicyConfig holds those of every layer at once. */

#include <stdbool.h>
#include <stdint.h>

#include "common/config.h"
#include "policy/core/policy.h"

extern const JobSchedulerOps job_scheduler_fifo;
extern const JobSchedulerOps job_scheduler_fair;
extern const JobSchedulerOps job_scheduler_aria;     /* sched-aria.c */
extern const JobSchedulerOps job_scheduler_deadline; /* sched-deadline.c */
extern const JobSchedulerOps job_scheduler_ras;      /* sched-ras.c */

extern const SlotManagerOps slot_manager_static;
extern const SlotManagerOps slot_manager_flexslot; /* settings: flexslot.h */

extern const SpeculationOps speculation_none;
extern const SpeculationOps speculation_hadoop;
extern const SpeculationOps speculation_late;
extern const SpeculationOps speculation_sepb;

extern const VmAllocatorOps vm_allocator_none;
extern const VmAllocatorOps vm_allocator_static;
extern const VmAllocatorOps vm_allocator_demand;
extern const VmAllocatorOps vm_allocator_flexslot;
extern const VmAllocatorOps vm_allocator_drs;
extern const VmAllocatorOps vm_allocator_homo;

/* fair: delay scheduling's wait. */
typedef struct FairSettings {
        usec_t locality_delay;
} FairSettings;
extern const ConfSchema fair_settings_schema;

/* aria: the bound whose minimum slots a job with a deadline gets (an
 * AriaBound). */
typedef struct AriaSettings {
        int aria_bound;
} AriaSettings;
extern const ConfSchema aria_settings_schema;

/* deadline: the Deadline Constraint Scheduler (sched-deadline.c). */
typedef struct DeadlineSettings {
        bool deadline_worst_skew; /* II-B-1: one reduce may get all the map output */
} DeadlineSettings;
extern const ConfSchema deadline_settings_schema;

/* ras: its control cycle, map rounds and the map length it assumes before
 * it has one (sched-ras.c). */
typedef struct RasSettings {
        usec_t ras_cycle;
        int64_t ras_rounds;
        usec_t ras_map_length;
        int64_t ras_parallel_copies; /* a shuffling reduce fetches this many maps' output at most */
} RasSettings;
extern const ConfSchema ras_settings_schema;

/* hadoop speculation: Hadoop 1's SPECULATIVE_LAG and SPECULATIVE_GAP. */
typedef struct HadoopSpeculationSettings {
        usec_t spec_min_runtime;
        double spec_progress_gap;
} HadoopSpeculationSettings;
extern const ConfSchema hadoop_speculation_settings_schema;

/* late and sepb, which is LATE with a gate (one schema for both, so that
 * a LATE knob means the same under either): SlowTaskThreshold,
 * SlowNodeThreshold and SpeculativeCap; and sepb's
 * percentageOfJobsCheckedForPendingTasks (DynamicMR 2.2), which late does
 * not read. */
typedef struct LateSettings {
        usec_t late_min_runtime;
        double late_slow_task_pct;
        double late_slow_node_pct;
        double late_spec_cap;
        double jobs_checked;
} LateSettings;
extern const ConfSchema late_settings_schema;

/* Every VM allocator's (vm-alloc.c). */
typedef struct VmAllocatorSettings {
        int64_t weight_per_vm;  /* a host's CPU weight pool is this times its VMs */
        double demand_headroom; /* demand: entitlement = headroom x use */
        uint64_t min_vm_memory; /* floor of any memory target */
        bool critical_first;    /* flexslot: critical attempts' CPU first (vm-alloc.c) */
        /* drs and homo: the cluster's CPU pool (CPUs; 0: every host's
         * pCPUs), and the least cap either sets. */
        double pool, pool_min_cap;
        /* drs: how often it divides the pool, over what window of use,
         * sampled how often, and how (DrsDivvy). */
        usec_t drs_period, drs_window, drs_sample;
        int drs_divvy;
        /* flexslot: a VM's CPU weight and cap change only by more than this
         * fraction, and at most once per interval (vm-alloc.c, hold_cpu). */
        double vm_target_margin;
        usec_t vm_target_interval;
} VmAllocatorSettings;
extern const ConfSchema vm_allocator_settings_schema;

/* The tables end with NULL. */
extern const JobSchedulerOps *const job_scheduler_table[];
extern const SlotManagerOps *const slot_manager_table[];
extern const SpeculationOps *const speculation_table[];
extern const VmAllocatorOps *const vm_allocator_table[];

/* Lookup by name; NULL when unknown. */
const JobSchedulerOps *job_scheduler_ops_find(const char *name);
const SlotManagerOps *slot_manager_ops_find(const char *name);
const SpeculationOps *speculation_ops_find(const char *name);
const VmAllocatorOps *vm_allocator_ops_find(const char *name);

#define POLICY_SCHEMAS_MAX 32

/* What a configuration's [policy] section holds: the names of the four
 * layers and the settings of the core and of every layer the registry has,
 * whichever layers the names pick, so that one file serves several choices
 * of layers (an experiment's variants) and a key means one knob whatever
 * the choice. */
typedef struct PolicyConfig {
        /* Not owned; policy_config_init() sets fifo, static, none, static. */
        const char *scheduler, *slot_manager, *speculation, *vm_allocator;
        /* core_settings_schema's first, then every layer's schema once (VM
         * allocators share one), in the tables' order; each struct owned. */
        const ConfSchema *schemas[POLICY_SCHEMAS_MAX];
        void *settings[POLICY_SCHEMAS_MAX];
        size_t n_settings;
} PolicyConfig;

/* Every struct at its schema's defaults: -ENOMEM. */
int policy_config_init(PolicyConfig *ret);
void policy_config_done(PolicyConfig *c);
/* The struct of schema (core_settings_schema, or a layer's ops->settings)
 * in c, NULL if c has none. */
void *policy_config_settings(const PolicyConfig *c, const ConfSchema *schema);
/* The parts (common/config.h) that load c's settings, c->n_settings of
 * them into parts[]. */
void policy_config_parts(PolicyConfig *c, ConfPart *parts);

/* policy_new() with the layers cfg names and their settings in cfg: -EINVAL
 * for an unknown name (err names the key and the known names) or a bad
 * setting (err names the key and its range); err may be NULL. The name
 * strings need not outlive the Policy. */
int policy_new_named(const PolicyConfig *cfg, ConfError *err, Policy **ret);

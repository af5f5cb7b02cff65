/* SPDX-License-Identifier: MIT */
#pragma once

/* The settings of a Policy's layers, one struct for all of them for now:
 * each field says which layer reads it. */

#include <stdbool.h>
#include <stdint.h>

#include "common/time-util.h"

typedef struct PolicyConfig {
        /* Layer names, read by policy_layers_find() (controller/policies/
         * policies.h), not by the core. */
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
        double straggler_ratio; /* see controller/policies/flexslot.h: 1.0 is the paper's pure
                                   k-means */
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
/* -EINVAL when a setting is out of its range (see policy_config_default()'s
 * comments) or two disagree. */
int policy_config_validate(const PolicyConfig *cfg);

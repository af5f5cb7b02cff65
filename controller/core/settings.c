/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>

#include "controller/core/settings.h"

void policy_config_default(PolicyConfig *cfg) {
        *cfg = (PolicyConfig){
                .scheduler = "fifo",
                .slot_manager = "static",
                .speculation = "none",
                .vm_allocator = "static",
                /* Hadoop 1's TaskTracker heartbeat for a small cluster. */
                .interval = 3 * USEC_PER_SEC,
                .reduce_slowstart = 0.05,
                /* Delay scheduling: a few seconds is enough for a slot on a
                 * node with the data to free up (Zaharia et al., EuroSys'10). */
                .locality_delay = 5 * USEC_PER_SEC,
                /* Hadoop 1 JobInProgress: SPECULATIVE_LAG and SPECULATIVE_GAP. */
                .spec_min_runtime = 60 * USEC_PER_SEC,
                .spec_progress_gap = 0.2,
                /* LATE (Zaharia et al., OSDI'08) section 4.1. */
                .late_slow_task_pct = 0.25,
                .late_slow_node_pct = 0.25,
                .late_spec_cap = 0.1,
                /* FlexSlot V-G sets alpha to 0.2; the other FlexSlot values
                 * are not given in the paper: see
                 * controller/policies/flexslot.h. */
                .alpha = 0.2,
                .lambda = 0.05,
                .straggler_ratio = 0.8,
                .io_threshold = 0.2,
                .steal_threshold = 0.1,
                .min_age = 30 * USEC_PER_SEC,
                .new_task_window = 60 * USEC_PER_SEC,
                .max_moves = 1,
                .settle = 15 * USEC_PER_SEC,
                .min_map_slots = 1,
                .max_map_slots = 8,
                .unlimited = false,
                .weight_per_vm = 1024,
                .demand_headroom = 1.25,
                .min_vm_memory = 512ULL << 20,
                .vm_memory_reserve = 512ULL << 20,
        };
}

static bool in_range(double x, double lo, double hi) {
        return isfinite(x) && x >= lo && x <= hi;
}

int policy_config_validate(const PolicyConfig *c) {
        if (c->interval == 0 || c->min_map_slots > c->max_map_slots || c->max_map_slots == 0 ||
            c->weight_per_vm < 2 || c->new_task_window < c->min_age)
                return -EINVAL;
        if (!in_range(c->reduce_slowstart, 0, 1) || !in_range(c->spec_progress_gap, 0, 1) ||
            !in_range(c->late_slow_task_pct, 0, 1) || !in_range(c->late_slow_node_pct, 0, 1) ||
            !in_range(c->late_spec_cap, 0, 1) || !in_range(c->alpha, 0.001, 10) ||
            !in_range(c->lambda, 0, 1) || !in_range(c->straggler_ratio, 0.01, 1) ||
            !in_range(c->io_threshold, 0, 1) || !in_range(c->steal_threshold, 0, 1) ||
            !in_range(c->demand_headroom, 1, 10))
                return -EINVAL;
        return 0;
}

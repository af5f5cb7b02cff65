/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "controller/core/context.h"
#include "controller/core/flexslot.h"
#include "controller/core/policy.h"
#include "controller/policies/policies.h"

const JobSchedulerOps *const job_scheduler_table[] = {
        &job_scheduler_fifo,
        &job_scheduler_fair,
        NULL,
};

const SlotManagerOps *const slot_manager_table[] = {
        &slot_manager_static,
        &slot_manager_flexslot,
        NULL,
};

const SpeculationOps *const speculation_table[] = {
        &speculation_none,
        &speculation_hadoop,
        &speculation_late,
        NULL,
};

const VmAllocatorOps *const vm_allocator_table[] = {
        &vm_allocator_static,
        &vm_allocator_demand,
        &vm_allocator_flexslot,
        NULL,
};

/* The four tables differ in type only; each entry starts with its name. */
#define DEFINE_OPS_FIND(func, type, table)                     \
        const type *func(const char *name) {                   \
                for (size_t i = 0; name && table[i]; i++)      \
                        if (strcmp(table[i]->name, name) == 0) \
                                return table[i];               \
                return NULL;                                   \
        }

DEFINE_OPS_FIND(job_scheduler_ops_find, JobSchedulerOps, job_scheduler_table)
DEFINE_OPS_FIND(slot_manager_ops_find, SlotManagerOps, slot_manager_table)
DEFINE_OPS_FIND(speculation_ops_find, SpeculationOps, speculation_table)
DEFINE_OPS_FIND(vm_allocator_ops_find, VmAllocatorOps, vm_allocator_table)

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
                 * are not given in the paper: see flexslot.h. */
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

static int config_validate(const PolicyConfig *c) {
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

struct Policy {
        PolicyConfig cfg;
        const JobSchedulerOps *scheduler;
        const SlotManagerOps *slot_manager;
        const SpeculationOps *speculation;
        const VmAllocatorOps *vm_allocator;
        void *scheduler_state, *slot_manager_state, *speculation_state, *vm_allocator_state;
        ContextBuffers context_buffers;
};

Policy *policy_free(Policy *p) {
        if (!p)
                return NULL;
        if (p->scheduler->free)
                p->scheduler->free(p->scheduler_state);
        if (p->slot_manager->free)
                p->slot_manager->free(p->slot_manager_state);
        if (p->speculation->free)
                p->speculation->free(p->speculation_state);
        if (p->vm_allocator->free)
                p->vm_allocator->free(p->vm_allocator_state);
        context_buffers_done(&p->context_buffers);
        free(p);
        return NULL;
}

#define LAYER_INIT(p, layer) \
        ((p)->layer->init ? (p)->layer->init(&(p)->cfg, &(p)->layer##_state) : 0)

int policy_new_layers(const PolicyLayers *layers, const PolicyConfig *cfg, Policy **ret) {
        _cleanup_(policy_freep) Policy *p = NULL;
        int r;

        if (!layers || !layers->scheduler || !layers->slot_manager || !layers->speculation ||
            !layers->vm_allocator || !cfg || !ret)
                return -EINVAL;
        r = config_validate(cfg);
        if (r < 0)
                return r;
        p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->cfg = *cfg;
        p->scheduler = layers->scheduler;
        p->slot_manager = layers->slot_manager;
        p->speculation = layers->speculation;
        p->vm_allocator = layers->vm_allocator;
        r = LAYER_INIT(p, scheduler);
        if (r >= 0)
                r = LAYER_INIT(p, slot_manager);
        if (r >= 0)
                r = LAYER_INIT(p, speculation);
        if (r >= 0)
                r = LAYER_INIT(p, vm_allocator);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(p);
        return 0;
}

int policy_new(const PolicyConfig *cfg, Policy **ret) {
        PolicyLayers layers;

        if (!cfg)
                return -EINVAL;
        layers = (PolicyLayers){
                .scheduler = job_scheduler_ops_find(cfg->scheduler),
                .slot_manager = slot_manager_ops_find(cfg->slot_manager),
                .speculation = speculation_ops_find(cfg->speculation),
                .vm_allocator = vm_allocator_ops_find(cfg->vm_allocator),
        };
        return policy_new_layers(&layers, cfg, ret);
}

const PolicyConfig *policy_config(const Policy *p) {
        return &p->cfg;
}

void decisions_done(Decisions *d) {
#define FREE_DECISIONS(type, name) free(d->name);
        DECISION_ARRAYS(FREE_DECISIONS)
#undef FREE_DECISIONS
        memset(d, 0, sizeof(*d));
}

static void decisions_clear(Decisions *d) {
#define CLEAR_DECISIONS(type, name) d->n_##name = 0;
        DECISION_ARRAYS(CLEAR_DECISIONS)
#undef CLEAR_DECISIONS
}

#define LAYER_RUN(p, layer, decide, ctx) \
        ((p)->layer->decide ? (p)->layer->decide((p)->layer##_state, (ctx), 0) : 0)

static int step_layers(Policy *p, PolicyContext *ctx, unsigned flags) {
        int r = 0;

        if (flags & POLICY_STEP_CONTROL) {
                r = flexslot_analyze(ctx);
                if (r >= 0)
                        r = LAYER_RUN(p, slot_manager, manage, ctx);
        }
        if (r >= 0 && (flags & POLICY_STEP_ASSIGN)) {
                r = LAYER_RUN(p, scheduler, assign, ctx);
                if (r >= 0)
                        r = LAYER_RUN(p, speculation, speculate, ctx);
        }
        if (r >= 0 && (flags & POLICY_STEP_CONTROL))
                r = LAYER_RUN(p, vm_allocator, allocate, ctx);
        if (r >= 0)
                r = context_flush_job_notes(ctx);
        return r;
}

int policy_step(Policy *p, const ClusterSnapshot *s, const PolicyStepArgs *args, Decisions *d) {
        const unsigned known = POLICY_STEP_ALL | POLICY_STEP_TRUSTED | POLICY_STEP_HEARTBEAT;
        PolicyContext ctx;
        unsigned flags;
        int r;

        if (!p || !d)
                return -EINVAL;
        decisions_clear(d);
        if (!s || !args || (args->flags & ~known) != 0)
                return -EINVAL;
        flags = args->flags;
        if ((flags & POLICY_STEP_HEARTBEAT) && args->node >= s->n_nodes)
                return -EINVAL;
        if (!(flags & POLICY_STEP_TRUSTED)) {
                r = snapshot_validate(s);
                if (r < 0)
                        return r;
        }
        r = context_init(&ctx, &p->cfg, s, args, d, &p->context_buffers);
        if (r < 0)
                return r;
        r = step_layers(p, &ctx, flags);
        context_done(&ctx);
        if (r >= 0)
                r = decisions_validate(s, args, d);
        if (r < 0)
                decisions_clear(d);
        return r;
}

int policy_admit(Policy *p, const ClusterSnapshot *s, usec_t now, const Job *job,
                 AdmitVerdict *ret) {
        AdmitVerdict v = { .admit = true };
        int r;

        if (!p || !ret)
                return -EINVAL;
        r = snapshot_validate(s);
        if (r >= 0)
                r = job_validate(job);
        if (r < 0)
                return r;
        if (p->scheduler->admit) {
                v = (AdmitVerdict){ 0 };
                r = p->scheduler->admit(p->scheduler_state, &p->cfg, s, now, job, &v);
                if (r < 0)
                        return r;
                v.reason[sizeof(v.reason) - 1] = '\0';
        }
        *ret = v;
        return 0;
}

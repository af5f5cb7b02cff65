/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "controller/core/context.h"
#include "controller/core/policy.h"

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

int policy_new(const PolicyLayers *layers, const PolicyConfig *cfg, Policy **ret) {
        _cleanup_(policy_freep) Policy *p = NULL;
        int r;

        if (!layers || !layers->scheduler || !layers->slot_manager || !layers->speculation ||
            !layers->vm_allocator || !cfg || !ret)
                return -EINVAL;
        r = policy_config_validate(cfg);
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

const PolicyConfig *policy_config(const Policy *p) {
        return &p->cfg;
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

        if (flags & POLICY_STEP_CONTROL)
                r = LAYER_RUN(p, slot_manager, manage, ctx);
        if (r >= 0 && (flags & POLICY_STEP_ASSIGN)) {
                r = LAYER_RUN(p, scheduler, assign, ctx);
                if (r >= 0)
                        r = LAYER_RUN(p, speculation, speculate, ctx);
        }
        if (r >= 0 && (flags & POLICY_STEP_CONTROL))
                r = LAYER_RUN(p, vm_allocator, allocate, ctx);
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
        if (r >= 0)
                r = decisions_check(s, args, d, &p->context_buffers.arena);
        context_done(&ctx);
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

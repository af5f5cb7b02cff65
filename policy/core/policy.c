/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/context.h"
#include "policy/core/policy.h"

struct Policy {
        CoreSettings core;
        const JobSchedulerOps *scheduler;
        const SlotManagerOps *slot_manager;
        const SpeculationOps *speculation;
        const VmAllocatorOps *vm_allocator;
        /* Each layer's copy of its settings, and its state. */
        void *scheduler_settings, *slot_manager_settings, *speculation_settings,
                *vm_allocator_settings;
        void *scheduler_state, *slot_manager_state, *speculation_state, *vm_allocator_state;
        ContextBuffers context_buffers;
};

#define LAYER_FREE(p, layer)                                  \
        do {                                                  \
                if ((p)->layer->free)                         \
                        (p)->layer->free((p)->layer##_state); \
                free((p)->layer##_settings);                  \
        } while (0)

Policy *policy_free(Policy *p) {
        if (!p)
                return NULL;
        LAYER_FREE(p, scheduler);
        LAYER_FREE(p, slot_manager);
        LAYER_FREE(p, speculation);
        LAYER_FREE(p, vm_allocator);
        context_buffers_done(&p->context_buffers);
        free(p);
        return NULL;
}

/* A copy of settings (NULL: the schema's defaults) that conf_check()
 * accepts, in *ret; NULL for a layer without a schema. */
static int settings_copy(const ConfSchema *schema, const void *settings, ConfError *err,
                         void **ret) {
        _cleanup_free_ void *copy = NULL;
        int r;

        *ret = NULL;
        if (!schema)
                return 0;
        copy = calloc(1, schema->size);
        if (!copy)
                return -ENOMEM;
        if (settings) {
                memcpy(copy, settings, schema->size);
                r = conf_check(schema, copy, err);
        } else
                r = conf_load_defaults(schema, copy, err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(copy);
        return 0;
}

/* The layer's settings, then its state. */
#define LAYER_INIT(p, layers, layer, err)                                                       \
        ({                                                                                      \
                int init_r_ = settings_copy((p)->layer->settings, (layers)->layer##_settings,   \
                                            (err), &(p)->layer##_settings);                     \
                if (init_r_ >= 0 && (p)->layer->init)                                           \
                        init_r_ = (p)->layer->init((p)->layer##_settings, &(p)->layer##_state); \
                init_r_;                                                                        \
        })

int policy_new(const PolicyLayers *layers, const CoreSettings *core, ConfError *err, Policy **ret) {
        _cleanup_(policy_freep) Policy *p = NULL;
        ConfError ignored;
        int r;

        if (!err)
                err = &ignored;
        memset(err, 0, sizeof(*err));
        if (!layers || !layers->scheduler || !layers->slot_manager || !layers->speculation ||
            !layers->vm_allocator || !ret)
                return -EINVAL;
        p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->scheduler = layers->scheduler;
        p->slot_manager = layers->slot_manager;
        p->speculation = layers->speculation;
        p->vm_allocator = layers->vm_allocator;
        if (core) {
                p->core = *core;
                r = conf_check(&core_settings_schema, &p->core, err);
        } else
                r = conf_load_defaults(&core_settings_schema, &p->core, err);
        if (r >= 0)
                r = LAYER_INIT(p, layers, scheduler, err);
        if (r >= 0)
                r = LAYER_INIT(p, layers, slot_manager, err);
        if (r >= 0)
                r = LAYER_INIT(p, layers, speculation, err);
        if (r >= 0)
                r = LAYER_INIT(p, layers, vm_allocator, err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(p);
        return 0;
}

static void decisions_clear(Decisions *d) {
#define CLEAR_DECISIONS(type, name) d->n_##name = 0;
        DECISION_ARRAYS(CLEAR_DECISIONS)
#undef CLEAR_DECISIONS
        memset(d->by_layer, 0, sizeof(d->by_layer));
}

/* What the layer of kind added since before: layers only append. */
static void decisions_count(Decisions *d, PolicyLayerKind kind, const DecisionCounts *before) {
#define COUNT_DECISIONS(type, name) d->by_layer[kind].name += d->n_##name - before->name;
        DECISION_ARRAYS(COUNT_DECISIONS)
#undef COUNT_DECISIONS
}

static void decisions_sizes(const Decisions *d, DecisionCounts *ret) {
#define SIZE_DECISIONS(type, name) ret->name = d->n_##name;
        DECISION_ARRAYS(SIZE_DECISIONS)
#undef SIZE_DECISIONS
}

/* The attempts' figures filled first unless the layer asks for them. */
#define LAYER_RUN(p, layer, decide, ctx)                                                         \
        ({                                                                                       \
                int layer_r_ = 0;                                                                \
                if ((p)->layer->decide) {                                                        \
                        if (!(p)->layer->figures_on_demand)                                      \
                                context_attempt_figures(ctx);                                    \
                        layer_r_ = (p)->layer->decide((p)->layer##_state, (p)->layer##_settings, \
                                                      (ctx), 0);                                 \
                }                                                                                \
                layer_r_;                                                                        \
        })

/* LAYER_RUN, and what it decided counted under kind. */
#define LAYER_RUN_COUNTED(p, layer, decide, ctx, kind)       \
        ({                                                   \
                DecisionCounts before_;                      \
                int run_r_;                                  \
                decisions_sizes((ctx)->d, &before_);         \
                run_r_ = LAYER_RUN(p, layer, decide, ctx);   \
                decisions_count((ctx)->d, (kind), &before_); \
                run_r_;                                      \
        })

static int step_layers(Policy *p, PolicyContext *ctx, unsigned flags) {
        int r = 0;

        if (flags & POLICY_STEP_CONTROL)
                r = LAYER_RUN_COUNTED(p, slot_manager, manage, ctx, POLICY_LAYER_SLOT_MANAGER);
        if (r >= 0 && (flags & POLICY_STEP_ASSIGN)) {
                r = LAYER_RUN_COUNTED(p, speculation, ahead, ctx, POLICY_LAYER_SPECULATION);
                if (r >= 0)
                        r = LAYER_RUN_COUNTED(p, scheduler, assign, ctx, POLICY_LAYER_SCHEDULER);
                if (r >= 0)
                        r = LAYER_RUN_COUNTED(p, speculation, speculate, ctx,
                                              POLICY_LAYER_SPECULATION);
        }
        if (r >= 0 && (flags & POLICY_STEP_CONTROL))
                r = LAYER_RUN_COUNTED(p, vm_allocator, allocate, ctx, POLICY_LAYER_VM_ALLOCATOR);
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
                snapshot_fill_attempts(s);
                r = snapshot_validate(s);
                if (r < 0)
                        return r;
        }
        r = context_init(&ctx, &p->core, s, args, d, &p->context_buffers);
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

bool policy_admits_all(const Policy *p) {
        return !p->scheduler->admit;
}

int policy_admit(Policy *p, const ClusterSnapshot *s, usec_t now, const Job *job, unsigned flags,
                 AdmitVerdict *ret) {
        AdmitVerdict v = { .admit = true };
        int r;

        if (!p || !ret || (flags & ~(unsigned)POLICY_STEP_TRUSTED) != 0)
                return -EINVAL;
        r = job_validate(job);
        if (r < 0)
                return r;
        /* Only a scheduler's admit op reads the snapshot: without one, a
         * submission costs nothing that grows with the work waiting. */
        if (p->scheduler->admit) {
                if (!s)
                        return -EINVAL;
                snapshot_fill_attempts(s);
                if (!(flags & POLICY_STEP_TRUSTED)) {
                        r = snapshot_validate(s);
                        if (r < 0)
                                return r;
                }
                v = (AdmitVerdict){ 0 };
                r = p->scheduler->admit(p->scheduler_state, p->scheduler_settings, &p->core, s, now,
                                        job, &v);
                if (r < 0)
                        return r;
                v.reason[sizeof(v.reason) - 1] = '\0';
        }
        *ret = v;
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* Slot managers. static: Hadoop's fixed slots. flexslot: FlexSlot III-D and
 * III-E (Algorithms 1 and 2, straggler re-placement) and the unlimited
 * variant of V-F; the choices the paper leaves open are listed in
 * controller/core/flexslot.h. */
#include <errno.h>
#include <stdlib.h>

#include "common/macro.h"
#include "controller/core/flexslot.h"
#include "controller/policies/policies.h"

const SlotManagerOps slot_manager_static = {
        .name = "static",
};

/* III-E: where a new straggler that shares its node with another straggler
 * goes instead; NO_INDEX to leave it. */
static uint32_t replacement_node(const PolicyContext *ctx, uint32_t attempt) {
        const Attempt *a = &ctx->snap->attempts[attempt];
        const Task *t = &ctx->snap->tasks[a->task];
        uint32_t best = NO_INDEX;
        bool best_local = false;

        if (a->kill_count > 0 || ctx->node_stragglers[a->node] < 2 ||
            ctx->now - a->started > ctx->cfg->new_task_window)
                return NO_INDEX;
        for (uint32_t n = 0; n < ctx->snap->n_nodes; n++) {
                bool local = task_is_local(t, n);

                if (n == a->node || ctx->node_stragglers[n] > 0 ||
                    context_free_slots(ctx, n, TASK_MAP) == 0)
                        continue;
                if (best == NO_INDEX || (local && !best_local) ||
                    (local == best_local &&
                     ctx->snap->nodes[n].steal < ctx->snap->nodes[best].steal)) {
                        best = n;
                        best_local = local;
                }
        }
        return best;
}

/* Algorithm 1 for one I/O-bound straggler. */
static int resize_slot_memory(PolicyContext *ctx, uint32_t attempt) {
        const Attempt *a = &ctx->snap->attempts[attempt];
        const Vm *vm = &ctx->snap->vms[ctx->snap->nodes[a->node].vm];
        uint64_t limit = vm->memory_max > ctx->cfg->vm_memory_reserve
                                 ? vm->memory_max - ctx->cfg->vm_memory_reserve
                                 : 0;
        uint64_t grown = flexslot_grow_memory(a->slot_memory, ctx->cfg->alpha, limit);
        double speed = ctx->speed[attempt];

        if (grown > a->slot_memory && flexslot_resize_pays(a, speed, ctx->cfg->interval))
                return context_kill(ctx, attempt, KILL_RESIZE, grown, speed);
        /* Line 13: D_prev = D, for the next round's test. */
        return DECISIONS_PUSH(ctx->d, attempt_notes, .attempt = attempt, .speed = speed);
}

static int handle_stragglers(PolicyContext *ctx) {
        for (uint32_t i = 0; i < ctx->snap->n_attempts; i++) {
                uint32_t target;
                int r = 0;

                if (!ctx->straggler[i])
                        continue;
                target = replacement_node(ctx, i);
                if (target != NO_INDEX) {
                        const Attempt *a = &ctx->snap->attempts[i];

                        /* The straggler moves with its task: the next new
                         * straggler on either node is judged accordingly. */
                        ctx->node_stragglers[a->node]--;
                        ctx->node_stragglers[target]++;
                        r = context_kill(ctx, i, KILL_REPLACE, a->slot_memory, ctx->speed[i]);
                        if (r >= 0)
                                r = context_assign(ctx, a->task, target, false);
                } else if (ctx->bottleneck[i] == BOTTLENECK_IO)
                        r = resize_slot_memory(ctx, i);
                if (r < 0)
                        return r;
        }
        return 0;
}

static bool settling(const PolicyContext *ctx) {
        for (size_t i = 0; i < ctx->snap->n_nodes; i++) {
                usec_t changed = ctx->snap->nodes[i].slots_changed_at;

                if (changed != 0 && ctx->now < changed + ctx->cfg->settle)
                        return true;
        }
        return false;
}

/* Algorithm 2, bounded to one round of moves per control cycle. */
static int move_slots(PolicyContext *ctx) {
        if (settling(ctx))
                return 0;

        size_t n_nodes = ctx->snap->n_nodes, n_alive = 0, moves;
        _cleanup_free_ uint32_t *alive = calloc(MAX(n_nodes, (size_t)1), sizeof(uint32_t));
        _cleanup_free_ uint32_t *order = calloc(MAX(n_nodes, (size_t)1), sizeof(uint32_t));
        _cleanup_free_ uint32_t *from = calloc(MAX(n_nodes, (size_t)1), sizeof(uint32_t));
        _cleanup_free_ uint32_t *to = calloc(MAX(n_nodes, (size_t)1), sizeof(uint32_t));
        _cleanup_free_ double *steal = calloc(MAX(n_nodes, (size_t)1), sizeof(double));

        if (!alive || !order || !from || !to || !steal)
                return -ENOMEM;
        for (uint32_t i = 0; i < n_nodes; i++) {
                steal[i] = ctx->snap->nodes[i].steal;
                if (ctx->snap->nodes[i].alive)
                        alive[n_alive++] = i;
        }
        moves = flexslot_plan_moves(ctx->cfg, alive, n_alive, steal, ctx->map_slots, order,
                                    from, to);
        for (size_t k = 0; k < moves; k++) {
                int r = context_set_map_slots(ctx, from[k], ctx->map_slots[from[k]] - 1);

                if (r >= 0)
                        r = context_set_map_slots(ctx, to[k], ctx->map_slots[to[k]] + 1);
                if (r < 0)
                        return r;
        }
        return 0;
}

static bool maps_pending(const PolicyContext *ctx) {
        for (uint32_t t = 0; t < ctx->snap->n_tasks; t++)
                if (ctx->snap->tasks[t].type == TASK_MAP && context_task_pending(ctx, t))
                        return true;
        return false;
}

static bool resources_free(const PolicyContext *ctx, uint32_t node) {
        const Node *n = &ctx->snap->nodes[node];
        const Vm *vm = &ctx->snap->vms[n->vm];

        return vm->cpu_use + 1.0 <= (double)vm->vcpus && n->steal < ctx->cfg->steal_threshold &&
               context_node_committed_memory(ctx, node) + ctx->cfg->vm_memory_reserve +
                               n->slot_memory <=
                       vm->memory;
}

/* V-F: one more slot on each full node whose VM has room for it. */
static int add_free_slots(PolicyContext *ctx) {
        if (!maps_pending(ctx))
                return 0;
        for (uint32_t i = 0; i < ctx->snap->n_nodes; i++) {
                int r;

                if (!ctx->snap->nodes[i].alive || context_free_slots(ctx, i, TASK_MAP) > 0 ||
                    ctx->map_slots[i] >= ctx->cfg->max_map_slots || !resources_free(ctx, i))
                        continue;
                r = context_set_map_slots(ctx, i, ctx->map_slots[i] + 1);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int flexslot_manage(void *state, PolicyContext *ctx, unsigned flags) {
        int r;

        r = handle_stragglers(ctx);
        if (r >= 0)
                r = move_slots(ctx);
        if (r >= 0 && ctx->cfg->unlimited)
                r = add_free_slots(ctx);
        return r;
}

const SlotManagerOps slot_manager_flexslot = {
        .name = "flexslot",
        .manage = flexslot_manage,
};

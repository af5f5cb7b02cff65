/* SPDX-License-Identifier: MIT */
/* DynamicMR's arithmetic and the slot filler of the fifo and fair
 * schedulers; the choices are in dynamicmr.h. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "common/macro.h"
#include "policy/layers/dynamicmr.h"

/* ---- DHSA ---- */

DhsaCase dhsa_case(unsigned n_map, unsigned s_map, unsigned n_reduce, unsigned s_reduce) {
        if (n_map <= s_map && n_reduce <= s_reduce)
                return DHSA_CASE_1;
        if (n_map > s_map && n_reduce < s_reduce)
                return DHSA_CASE_2;
        if (n_map < s_map && n_reduce > s_reduce)
                return DHSA_CASE_3;
        return DHSA_CASE_4;
}

unsigned dhsa_slots_taken(unsigned n, unsigned task_weight, unsigned slot_weight) {
        /* The filler asks for every node twice a step, and nearly every
         * node lends nothing: no division for them. */
        if (n == 0)
                return 0;
        return (unsigned)(((uint64_t)n * task_weight + slot_weight - 1) / slot_weight);
}

unsigned dhsa_tasks_held(unsigned slots, unsigned slot_weight, unsigned task_weight) {
        return (unsigned)((uint64_t)slots * slot_weight / task_weight);
}

unsigned dhsa_max_tasks(unsigned own, unsigned own_weight, unsigned other, unsigned other_weight) {
        return own + dhsa_tasks_held(other, other_weight, own_weight);
}

static TaskType other_type(TaskType t) {
        return t == TASK_MAP ? TASK_REDUCE : TASK_MAP;
}

unsigned dhsa_borrow_target(const unsigned n[_TASK_TYPE_MAX], const unsigned s[_SLOT_TYPE_MAX],
                            const unsigned weight[_SLOT_TYPE_MAX], TaskType borrower) {
        TaskType lender = other_type(borrower);
        SlotType own = slot_type_of(borrower), lent = slot_type_of(lender);
        DhsaCase c = dhsa_case(n[TASK_MAP], s[SLOT_MAP], n[TASK_REDUCE], s[SLOT_REDUCE]);

        if (c != (borrower == TASK_MAP ? DHSA_CASE_2 : DHSA_CASE_3))
                return 0;
        return MIN(n[borrower] - s[own],
                   dhsa_tasks_held(s[lent] - n[lender], weight[lent], weight[own]));
}

/* ---- load manager ---- */

double load_factor(unsigned pending, unsigned running, unsigned capacity) {
        return capacity > 0 ? ((double)pending + running) / capacity : 0;
}

unsigned load_usable_slots(double load, unsigned node_slots) {
        /* The epsilon keeps 7/12 x 12 from rounding up to 8. */
        return (unsigned)ceil(MIN(load, 1.0) * node_slots - 1e-9);
}

unsigned load_allowable_idle(unsigned usable, unsigned used) {
        return usable > used ? usable - used : 0;
}

unsigned load_extra_idle(unsigned slots, unsigned used, unsigned usable) {
        unsigned top = MAX(used, usable);

        return slots > top ? slots - top : 0;
}

/* ---- SEPB ---- */

size_t sepb_jobs_checked(double share, size_t n_jobs) {
        /* The epsilon keeps 2/3 x 6 from rounding up to 5. */
        double n = ceil(share * (double)n_jobs - 1e-9);

        return n > 0 ? MIN((size_t)n, n_jobs) : 0;
}

bool sepb_skips(unsigned own_pending, unsigned window_pending, unsigned window_other,
                double borrow) {
        bool c1 = own_pending == 0, c2 = window_pending > 0, c3 = window_other > 0 && borrow > 0;

        return c1 && (c2 || c3);
}

void dmr_count_pending(const PolicyContext *ctx, unsigned *ret[_TASK_TYPE_MAX]) {
        const ClusterSnapshot *s = ctx->snap;

        for (size_t j = 0; j < s->n_jobs; j++) {
                ret[TASK_MAP][j] = ret[TASK_REDUCE][j] = 0;
                for (uint32_t x = ctx->task_start[j]; x < ctx->task_start[j + 1]; x++) {
                        uint32_t t = ctx->tasks_by_job[x];

                        if (context_task_pending(ctx, t) && context_task_eligible(ctx, t))
                                ret[s->tasks[t].type][j]++;
                }
        }
}

/* ---- the filler ---- */

/* What the filler remembers of a node: how far it reshaped its counts. */
typedef struct NodeShape {
        int delta[_SLOT_TYPE_MAX];
} NodeShape;

int dmr_memory_new(void **ret) {
        return idmap_new_state(sizeof(NodeShape), ret);
}

struct DmrFill {
        PolicyContext *ctx;
        const DynamicMrSettings *m;
        unsigned weight[_SLOT_TYPE_MAX];
        /* Per node: the configured slots (what a node holds by the type
         * of its slots and of their tasks is context_held()'s). While
         * base_shared, the step's slot counts themselves (ctx->slots),
         * which only shape() changes in a fill: it copies them first. */
        unsigned *base[_SLOT_TYPE_MAX];
        bool base_shared;
        /* Cluster-wide, by task type: configured slots of its own type
         * (own_slots(), once slots_summed), demand, and PI-DHSA's
         * borrowing: the target, and what is left of it in this step. */
        unsigned slots[_TASK_TYPE_MAX], demand[_TASK_TYPE_MAX];
        bool slots_summed;
        unsigned target[_TASK_TYPE_MAX], budget[_TASK_TYPE_MAX];
        double load[_TASK_TYPE_MAX];
        bool *visited;    /* per job, PD-DHSA's visitedForMap; NULL in other modes */
        bool reshaped;    /* the filler changed a node's slot count */
        uint32_t *pools;  /* PD-DHSA's, as visited */
        uint32_t *failed; /* pools that failed in this round, as visited */
};

/* The nodes an assignment of this step may go to are in [*ret_from,
 * *ret_end): a heartbeat step's node alone, which spares a heartbeat's
 * fill a pass over every node that finds nothing idle. */
static void fillable_range(const DmrFill *f, uint32_t *ret_from, uint32_t *ret_end) {
        const PolicyContext *ctx = f->ctx;

        *ret_from = ctx->beating_node == NO_INDEX ? 0 : ctx->beating_node;
        *ret_end = ctx->beating_node == NO_INDEX ? (uint32_t)ctx->snap->n_nodes
                                                 : ctx->beating_node + 1;
}

static bool node_fillable(const DmrFill *f, uint32_t node) {
        const PolicyContext *ctx = f->ctx;

        return node_schedulable(&ctx->snap->nodes[node]) &&
               (ctx->beating_node == NO_INDEX || ctx->beating_node == node);
}

/* Slots of type slot holding tasks of type on the node. */
static unsigned in(const DmrFill *f, uint32_t node, SlotType slot, TaskType type) {
        return context_held(f->ctx, node, slot, type);
}

/* Slots of type slot the node's borrowers (tasks of the other type) take. */
static unsigned lent(const DmrFill *f, uint32_t node, SlotType slot) {
        SlotType other = slot == SLOT_MAP ? SLOT_REDUCE : SLOT_MAP;

        return dhsa_slots_taken(in(f, node, slot, task_type_of(other)), f->weight[other],
                                f->weight[slot]);
}

static unsigned used(const DmrFill *f, uint32_t node, SlotType slot) {
        return in(f, node, slot, task_type_of(slot)) + lent(f, node, slot);
}

/* The places the core counts in a node's slots of a type: one per
 * attempt, and one per slot nobody uses. */
static unsigned places(const DmrFill *f, uint32_t node, SlotType slot) {
        SlotType other = slot == SLOT_MAP ? SLOT_REDUCE : SLOT_MAP;
        long p = (long)f->base[slot][node] - lent(f, node, slot) +
                 in(f, node, slot, task_type_of(other));

        return p > 0 ? (unsigned)p : 0;
}

/* Each node's base, its own copy (zero when copy is false), from the
 * step's scratch. */
static int base_take(DmrFill *f, bool copy) {
        size_t n_nodes = f->ctx->snap->n_nodes;

        for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++) {
                unsigned *base = context_scratch(f->ctx, n_nodes, sizeof(unsigned));

                if (!base)
                        return -ENOMEM;
                if (copy)
                        memcpy(base, f->base[slot], n_nodes * sizeof(unsigned));
                f->base[slot] = base;
        }
        f->base_shared = false;
        return 0;
}

static int shape(DmrFill *f, uint32_t node, SlotType slot) {
        unsigned p = places(f, node, slot);
        int r;

        if (f->ctx->slots[slot][node] == p)
                return 0;
        if (f->base_shared) {
                r = base_take(f, true);
                if (r < 0)
                        return r;
        }
        f->reshaped = true;
        return context_set_slots(f->ctx, node, slot, p);
}

/* Whole idle slots of the type on a node this step may fill. */
static unsigned idle(const DmrFill *f, uint32_t node, SlotType slot) {
        unsigned u = used(f, node, slot);

        if (!node_fillable(f, node) || u >= f->base[slot][node])
                return 0;
        return MIN(f->base[slot][node] - u, context_fillable_slots(f->ctx, node, slot));
}

/* Step 2 and 3 of the load manager for the node, or no limit. */
static unsigned allowable(const DmrFill *f, uint32_t node, TaskType type) {
        SlotType slot = slot_type_of(type);

        if (!f->m->load_balance)
                return UINT32_MAX;
        return load_allowable_idle(load_usable_slots(f->load[type], f->base[slot][node]),
                                   used(f, node, slot));
}

static double borrow_share(const DmrFill *f, SlotType lender) {
        return lender == SLOT_MAP ? f->m->borrow_map_slots : f->m->borrow_reduce_slots;
}

/* The most slots of a type the node's borrowers may hold in this
 * heartbeat: what they hold, and the borrow limit's share of what is idle
 * now (rounded down). */
static unsigned lend_limit(const DmrFill *f, uint32_t node, SlotType slot) {
        return lent(f, node, slot) +
               (unsigned)floor(borrow_share(f, slot) * idle(f, node, slot) + 1e-9);
}

/* How many more tasks of type borrower the node's slots of the other type
 * hold, when its borrowers may hold up to limit of them (and those idle). */
static unsigned borrow_room(const DmrFill *f, uint32_t node, TaskType borrower, unsigned limit) {
        SlotType slot = slot_type_of(other_type(borrower));
        unsigned held = in(f, node, slot, borrower);
        unsigned room = dhsa_tasks_held(MIN(limit, lent(f, node, slot) + idle(f, node, slot)),
                                        f->weight[slot], f->weight[slot_type_of(borrower)]);

        return room > held ? room - held : 0;
}

static int fill_assign(DmrFill *f, const TaskSource *src, uint32_t task, uint32_t node,
                       SlotType slot) {
        TaskType type = f->ctx->snap->tasks[task].type;
        int r;

        /* Counted first: shape() reads it. */
        r = context_assign(f->ctx, task, node, slot, false);
        if (r < 0)
                return r;
        if (slot != slot_type_of(type)) {
                r = shape(f, node, slot);
                if (r < 0)
                        return r;
                if (f->budget[type] > 0)
                        f->budget[type]--;
        }
        if (src->took)
                src->took(src->data, f->ctx, task);
        return 0;
}

/* Each task type's slots of its own type on the schedulable nodes: a pass
 * over every node's state, which a step pays only when something needs the
 * cluster's slots (fair shares, the load manager, DHSA), not for a
 * heartbeat's FIFO fill. */
static const unsigned *own_slots(DmrFill *f) {
        const ClusterSnapshot *s = f->ctx->snap;

        if (f->slots_summed)
                return f->slots;
        for (uint32_t node = 0; node < s->n_nodes; node++) {
                if (!node_schedulable(&s->nodes[node]))
                        continue;
                for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++)
                        f->slots[task_type_of(slot)] += f->base[slot][node];
        }
        f->slots_summed = true;
        return f->slots;
}

/* Demand (running attempts and pending tasks that may start) and slots by
 * type, the load factors and PI-DHSA's borrowing. */
static int count_demand(DmrFill *f) {
        PolicyContext *ctx = f->ctx;
        size_t n_jobs = ctx->snap->n_jobs;
        unsigned *pending[_TASK_TYPE_MAX] = {
                context_scratch(ctx, n_jobs, sizeof(unsigned)),
                context_scratch(ctx, n_jobs, sizeof(unsigned)),
        };

        if (!pending[TASK_MAP] || !pending[TASK_REDUCE])
                return -ENOMEM;
        dmr_count_pending(ctx, pending);
        for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++) {
                unsigned n_pending = 0, running = 0;

                for (size_t j = 0; j < n_jobs; j++)
                        n_pending += pending[type][j];
                for (uint32_t node = 0; node < ctx->snap->n_nodes; node++)
                        running += in(f, node, SLOT_MAP, type) + in(f, node, SLOT_REDUCE, type);
                f->demand[type] = n_pending + running;
                f->load[type] = load_factor(n_pending, running, own_slots(f)[type]);
        }
        return 0;
}

static void pi_budget(DmrFill *f) {
        for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++) {
                SlotType slot = slot_type_of(other_type(type));
                unsigned held = 0;

                f->target[type] = dhsa_borrow_target(f->demand, own_slots(f), f->weight, type);
                for (uint32_t node = 0; node < f->ctx->snap->n_nodes; node++)
                        held += in(f, node, slot, type);
                f->budget[type] = f->target[type] > held ? f->target[type] - held : 0;
        }
}

/* Each node's base, its slots less how far the filler reshaped them, and
 * the nodes that were reshaped or lend slots reshaped to what they hold. */
static int nodes_shape(DmrFill *f, IdMap *memory) {
        const PolicyContext *ctx = f->ctx;
        const ClusterSnapshot *s = ctx->snap;
        int r;

        for (uint32_t node = 0; node < s->n_nodes; node++) {
                const NodeShape *was = memory->n > 0 ? idmap_get(memory, s->nodes[node].id) : NULL;

                for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++) {
                        SlotType other = slot == SLOT_MAP ? SLOT_REDUCE : SLOT_MAP;
                        long b = (long)ctx->slots[slot][node] - (was ? was->delta[slot] : 0);

                        f->base[slot][node] = b > 0 ? (unsigned)b : 0;
                        /* A node that was not reshaped and lends nothing
                         * keeps its counts (places() is its base): most
                         * nodes, whose shape() a step then spares. */
                        if (!was && in(f, node, slot, task_type_of(other)) == 0)
                                continue;
                        r = shape(f, node, slot);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

int dmr_fill_begin(PolicyContext *ctx, IdMap *memory, DmrFill **ret) {
        const ClusterSnapshot *s = ctx->snap;
        DmrFill *f = context_scratch(ctx, 1, sizeof(DmrFill));
        bool features;
        int r;

        if (!f)
                return -ENOMEM;
        f->ctx = ctx;
        f->m = &ctx->core->dmr;
        f->weight[SLOT_MAP] = f->m->map_slot_weight;
        f->weight[SLOT_REDUCE] = f->m->reduce_slot_weight;
        /* Only PD-DHSA reads them: a step of the other modes spares three
         * zeroed arrays of every job, which on a day's trace cost more
         * than the rest of a heartbeat's fill. */
        if (f->m->dhsa == DHSA_PD) {
                f->visited = context_scratch(ctx, s->n_jobs, sizeof(bool));
                f->pools = context_scratch(ctx, s->n_jobs, sizeof(uint32_t));
                f->failed = context_scratch(ctx, s->n_jobs, sizeof(uint32_t));
                if (!f->visited || !f->pools || !f->failed)
                        return -ENOMEM;
        }
        /* Nothing remembered and no slot lent (no DHSA, most often): every
         * node keeps its counts, its slots its base, and a step spares a
         * pass over every node's counts, and a copy of them until a fill
         * reshapes a node. */
        if (memory->n == 0 && context_held_total(ctx, SLOT_MAP, TASK_REDUCE) == 0 &&
            context_held_total(ctx, SLOT_REDUCE, TASK_MAP) == 0) {
                for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++)
                        f->base[slot] = ctx->slots[slot];
                f->base_shared = true;
        } else {
                r = base_take(f, false);
                if (r >= 0)
                        r = nodes_shape(f, memory);
                if (r < 0)
                        return r;
        }
        /* Demand is a pass over every task: only what needs it pays. */
        features = f->m->dhsa != DHSA_NONE || f->m->load_balance;
        r = features ? count_demand(f) : 0;
        if (r < 0)
                return r;
        if (f->m->dhsa == DHSA_PI)
                pi_budget(f);
        *ret = f;
        return 0;
}

double dmr_phase_capacity(DmrFill *f, TaskType type) {
        return (double)own_slots(f)[type] + f->target[type];
}

double dmr_total_capacity(DmrFill *f) {
        const unsigned *slots = own_slots(f);

        return (double)slots[TASK_MAP] * f->weight[SLOT_MAP] +
               (double)slots[TASK_REDUCE] * f->weight[SLOT_REDUCE];
}

unsigned dmr_task_weight(const DmrFill *f, TaskType type) {
        return f->weight[slot_type_of(type)];
}

/* Intra-phase: each type's slots to its own tasks, the whole cluster type
 * by type, within the load manager's limits. */
static int fill_own(DmrFill *f, const TaskSource *src) {
        uint32_t from, end;

        fillable_range(f, &from, &end);
        for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                for (uint32_t node = from; node < end; node++) {
                        SlotType slot = slot_type_of(type);

                        while (idle(f, node, slot) > 0 && allowable(f, node, type) > 0) {
                                uint32_t t = src->pick(src->data, f->ctx, node, type, NO_INDEX,
                                                       PICK_NORMAL, f->visited);
                                int r;

                                if (t == NO_INDEX)
                                        break;
                                r = fill_assign(f, src, t, node, slot);
                                if (r < 0)
                                        return r;
                        }
                }
        return 0;
}

/* Up to room tasks of type into the node's slots of the other type. */
static int fill_borrowed(DmrFill *f, const TaskSource *src, uint32_t node, TaskType type,
                         unsigned room, PickMode mode) {
        SlotType slot = slot_type_of(other_type(type));

        for (; room > 0; room--) {
                uint32_t t = src->pick(src->data, f->ctx, node, type, NO_INDEX, mode, f->visited);
                int r;

                if (t == NO_INDEX)
                        return 0;
                r = fill_assign(f, src, t, node, slot);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* PI-DHSA's inter-phase step: what each node has left idle goes to the
 * other type, within the cluster's case and the borrow limits. */
static int fill_pi(DmrFill *f, const TaskSource *src) {
        uint32_t from, end;

        fillable_range(f, &from, &end);
        for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                for (uint32_t node = from; node < end; node++) {
                        SlotType slot = slot_type_of(other_type(type));
                        unsigned room;
                        int r;

                        if (f->budget[type] == 0 || !node_fillable(f, node))
                                continue;
                        room = borrow_room(f, node, type, lend_limit(f, node, slot));
                        r = fill_borrowed(f, src, node, type, MIN(room, f->budget[type]),
                                          PICK_NORMAL);
                        if (r < 0)
                                return r;
                }
        return 0;
}

static bool pool_failed(const DmrFill *f, size_t n_failed, uint32_t pool) {
        for (size_t i = 0; i < n_failed; i++)
                if (f->failed[i] == pool)
                        return true;
        return false;
}

/* PD-DHSA's four attempts of Fig. 4 for one pool on the node; *ret_done
 * says whether one placed a task. */
static int pd_try_pool(DmrFill *f, const TaskSource *src, uint32_t node, uint32_t pool,
                       PickMode mode, const unsigned limit[_SLOT_TYPE_MAX], bool *ret_done) {
        static const struct {
                TaskType type;
                SlotType slot;
        } attempts[] = {
                { TASK_MAP, SLOT_MAP },
                { TASK_REDUCE, SLOT_REDUCE },
                { TASK_MAP, SLOT_REDUCE },
                { TASK_REDUCE, SLOT_MAP },
        };

        *ret_done = false;
        for (size_t k = 0; k < ELEMENTSOF(attempts); k++) {
                TaskType type = attempts[k].type;
                SlotType slot = attempts[k].slot;
                bool own = slot == slot_type_of(type);
                uint32_t t;

                if (own ? idle(f, node, slot) == 0 || allowable(f, node, type) == 0
                        : borrow_room(f, node, type, limit[slot]) == 0)
                        continue;
                t = src->pick(src->data, f->ctx, node, type, pool, mode, f->visited);
                if (t == NO_INDEX)
                        continue;
                *ret_done = true;
                return fill_assign(f, src, t, node, slot);
        }
        return 0;
}

static bool any_visited(const DmrFill *f) {
        for (size_t j = 0; j < f->ctx->snap->n_jobs; j++)
                if (f->visited[j])
                        return true;
        return false;
}

/* PD-DHSA on one node: the neediest pool that can place a task does, until
 * none can; then once more with locality relaxed for the visited jobs. */
static int fill_pd_node(DmrFill *f, const TaskSource *src, uint32_t node) {
        unsigned limit[_SLOT_TYPE_MAX] = { lend_limit(f, node, SLOT_MAP),
                                           lend_limit(f, node, SLOT_REDUCE) };
        size_t n_failed = 0;
        PickMode mode = PICK_NORMAL;

        memset(f->visited, 0, f->ctx->snap->n_jobs * sizeof(bool));
        for (;;) {
                size_t n_pools = src->pools(src->data, f->ctx, f->pools);
                bool done = false;

                for (size_t i = 0; i < n_pools && !done; i++) {
                        int r;

                        if (pool_failed(f, n_failed, f->pools[i]))
                                continue;
                        r = pd_try_pool(f, src, node, f->pools[i], mode, limit, &done);
                        if (r < 0)
                                return r;
                        if (!done)
                                f->failed[n_failed++] = f->pools[i];
                }
                if (done)
                        continue;
                if (mode == PICK_RELAXED || !any_visited(f))
                        return 0;
                mode = PICK_RELAXED;
                n_failed = 0;
        }
}

/* Slot PreScheduling on one node: the head job's local maps into the extra
 * idle map slots, then, under DHSA, into idle reduce slots. */
static int fill_prescheduled(DmrFill *f, const TaskSource *src, uint32_t node) {
        for (;;) {
                unsigned slots = f->base[SLOT_MAP][node], u = used(f, node, SLOT_MAP);
                unsigned extra =
                        MIN(load_extra_idle(slots, u, load_usable_slots(f->load[TASK_MAP], slots)),
                            idle(f, node, SLOT_MAP));
                uint32_t t;
                int r;

                if (extra == 0)
                        break;
                t = src->pick(src->data, f->ctx, node, TASK_MAP, NO_INDEX, PICK_HEAD, f->visited);
                if (t == NO_INDEX)
                        return 0;
                r = fill_assign(f, src, t, node, SLOT_MAP);
                if (r < 0)
                        return r;
        }
        if (f->m->dhsa == DHSA_NONE || idle(f, node, SLOT_MAP) > 0)
                return 0;
        return fill_borrowed(f, src, node, TASK_MAP,
                             borrow_room(f, node, TASK_MAP, lend_limit(f, node, SLOT_REDUCE)),
                             PICK_HEAD);
}

static int remember_shapes(DmrFill *f, IdMap *memory) {
        const PolicyContext *ctx = f->ctx;

        /* Every node as its counts were and nothing remembered (no DHSA,
         * most often): a heartbeat's step spares a pass over every node. */
        if (!f->reshaped && memory->n == 0)
                return 0;

        for (uint32_t node = 0; node < ctx->snap->n_nodes; node++) {
                NodeShape *shape_of;
                int delta[_SLOT_TYPE_MAX];
                int r;

                for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++)
                        delta[slot] = (int)ctx->slots[slot][node] - (int)f->base[slot][node];
                if (delta[SLOT_MAP] == 0 && delta[SLOT_REDUCE] == 0)
                        continue;
                r = idmap_put(memory, ctx->snap->nodes[node].id, (void **)&shape_of);
                if (r < 0)
                        return r;
                memcpy(shape_of->delta, delta, sizeof(delta));
        }
        idmap_sweep(memory);
        return 0;
}

int dmr_fill(DmrFill *f, const TaskSource *src, IdMap *memory) {
        uint32_t from, end;
        int r = 0;

        fillable_range(f, &from, &end);
        if (f->m->dhsa == DHSA_PD)
                for (uint32_t node = from; r >= 0 && node < end; node++)
                        r = node_fillable(f, node) ? fill_pd_node(f, src, node) : 0;
        else {
                r = fill_own(f, src);
                if (r >= 0 && f->m->dhsa == DHSA_PI)
                        r = fill_pi(f, src);
        }
        for (uint32_t node = from; r >= 0 && f->m->prescheduling && node < end; node++)
                r = node_fillable(f, node) ? fill_prescheduled(f, src, node) : 0;
        if (r >= 0)
                r = remember_shapes(f, memory);
        return r;
}

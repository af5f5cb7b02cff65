/* SPDX-License-Identifier: MIT */
/* Slot managers. static: Hadoop's fixed slots. flexslot: FlexSlot III-D and
 * III-E (Algorithms 1 and 2, straggler re-placement) and the unlimited
 * variant of V-F; the choices the paper leaves open are listed in
 * flexslot.h. With the one loop's slo_favour (slo-loop.h) flexslot favours
 * the deadline jobs forecast late that can still meet their deadlines
 * (the loop's triage): their stragglers are handled first and restarted
 * (re-placed or resized) only when LATE's test finds a fresh copy ends
 * sooner (a kill restarts a task from zero), their nodes give no slot,
 * and while one of them has a CPU-starved straggler only its nodes receive
 * one. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "common/format.h"
#include "common/macro.h"
#include "policy/core/idmap.h"
#include "policy/layers/flexslot.h"
#include "policy/layers/policies.h"
#include "policy/layers/slo-loop.h"

const SlotManagerOps slot_manager_static = {
        .name = "static",
};

/* FlexSlot V-G sets alpha to 0.2; the paper gives none of the others: see
 * flexslot.h. */
static const ConfKey flexslot_keys[] = {
        SETTING_DOUBLE(FlexSlotSettings, alpha, "0.2", 0.001, 10,
                       "flexslot: a resized straggler's slot memory grows by this share "
                       "(Algorithm 1)"),
        SETTING_DOUBLE(FlexSlotSettings, lambda, "0.05", 0, 1,
                       "flexslot: slots move while the standard deviation of the nodes' steal "
                       "exceeds this (Algorithm 2)"),
        SETTING_DOUBLE(FlexSlotSettings, straggler_ratio, "0.8", 0.01, 1,
                       "flexslot: stragglers are the low k-means cluster only when its centre "
                       "is below this times the high one (1: the paper's pure k-means)"),
        SETTING_DOUBLE(FlexSlotSettings, io_threshold, "0.2", 0, 1,
                       "flexslot: a straggler is I/O-bound from this I/O wait share"),
        SETTING_DOUBLE(FlexSlotSettings, steal_threshold, "0.1", 0, 1,
                       "flexslot: a straggler is CPU-bound from this steal share of its node"),
        SETTING_DURATION(FlexSlotSettings, min_age, "30s", 0, USEC_PER_HOUR,
                         "flexslot: an attempt is judged once it has run this long"),
        SETTING_DURATION(FlexSlotSettings, new_task_window, "60s", 0, USEC_PER_HOUR,
                         "flexslot: an attempt this young in an added slot is a new task "
                         "(straggler re-placement); at least min_age"),
        SETTING_INT(FlexSlotSettings, max_moves, "1", 0, 10000,
                    "flexslot: map slots Algorithm 2 moves per control cycle"),
        SETTING_DURATION(FlexSlotSettings, settle, "15s", 0, USEC_PER_HOUR,
                         "flexslot: no slot changes until the last one is this old"),
        SETTING_INT(FlexSlotSettings, min_map_slots, "1", 0, 256,
                    "flexslot: the fewest map slots a node keeps"),
        SETTING_INT(FlexSlotSettings, max_map_slots, "8", 1, 256,
                    "flexslot: the most map slots a node gets; at least min_map_slots"),
        SETTING_BOOL(FlexSlotSettings, unlimited_slots, "no",
                     "flexslot: V-F, slots are also added where resources are free"),
};

static int flexslot_settings_validate(const void *settings, ConfError *err) {
        const FlexSlotSettings *set = settings;

        if (set->min_map_slots > set->max_map_slots)
                return conf_error_set(err, POLICY_SECTION, "min_map_slots",
                                      "%" PRId64 " is greater than max_map_slots %" PRId64,
                                      set->min_map_slots, set->max_map_slots);
        if (set->min_age > set->new_task_window)
                return conf_error_set(
                        err, POLICY_SECTION, "min_age", "%s is longer than new_task_window %s",
                        FORMAT_DURATION(set->min_age), FORMAT_DURATION(set->new_task_window));
        return 0;
}

const ConfSchema flexslot_settings_schema = {
        .keys = flexslot_keys,
        .n_keys = ELEMENTSOF(flexslot_keys),
        .size = sizeof(FlexSlotSettings),
        .validate = flexslot_settings_validate,
};

/* What the flexslot slot manager remembers across steps, its state: each
 * running task's D_prev (Algorithm 1) by Task.id, a double. */
static int flexslot_init(const void *settings, void **ret_state) {
        return idmap_new_state(sizeof(double), ret_state);
}

static void flexslot_free(void *state) {
        idmap_free(state);
}

static double prev_speed(const IdMap *prev_speeds, const PolicyContext *ctx, uint32_t task) {
        const double *speed = idmap_get(prev_speeds, ctx->snap->tasks[task].id);

        return speed ? *speed : 0;
}

static int remember_speed(IdMap *prev_speeds, const PolicyContext *ctx, uint32_t task,
                          double speed) {
        double *p;
        int r = idmap_put(prev_speeds, ctx->snap->tasks[task].id, (void **)&p);

        if (r >= 0)
                *p = speed;
        return r;
}

/* A task with no attempt is done, or back in pending with no restart to
 * come (a driver places a re-placed task at once): its D_prev goes. */
static void forget_finished(IdMap *prev_speeds, const PolicyContext *ctx) {
        for (size_t i = 0; i < ctx->snap->n_attempts; i++)
                idmap_touch(prev_speeds, ctx->snap->tasks[ctx->snap->attempts[i].task].id);
        idmap_sweep(prev_speeds);
}

/* The attempt runs in a slot its node gained (see flexslot.h). */
static bool in_added_slot(const PolicyContext *ctx, const FlexSlotSettings *set, const Attempt *a,
                          double mean_slots) {
        const Node *n = &ctx->snap->nodes[a->node];

        return (double)n->slots[SLOT_MAP] > mean_slots && n->slots_changed_at != 0 &&
               a->started >= n->slots_changed_at && a->kill_count == 0 &&
               ctx->now - a->started <= set->new_task_window;
}

/* Lower steal first, a measured node before an unmeasured one. */
static bool steal_lower(const Node *a, const Node *b) {
        if (node_measured(a) != node_measured(b))
                return node_measured(a);
        return a->steal < b->steal;
}

/* III-E: where a new straggler that shares its node with another straggler
 * goes instead; NO_INDEX to leave it. */
static uint32_t replacement_node(const PolicyContext *ctx, const FlexSlotSettings *set,
                                 const FlexSlotAnalysis *an, uint32_t attempt, double mean_slots) {
        const Attempt *a = &ctx->snap->attempts[attempt];
        const Task *t = &ctx->snap->tasks[a->task];
        uint32_t best = NO_INDEX;
        bool best_local = false;

        if (an->node_stragglers[a->node] < 2 || !in_added_slot(ctx, set, a, mean_slots))
                return NO_INDEX;
        for (uint32_t n = 0; n < ctx->snap->n_nodes; n++) {
                bool local = task_is_local(t, n);

                if (n == a->node || an->node_stragglers[n] > 0 ||
                    context_fillable_slots(ctx, n, SLOT_MAP) == 0)
                        continue;
                if (best == NO_INDEX || (local && !best_local) ||
                    (local == best_local &&
                     steal_lower(&ctx->snap->nodes[n], &ctx->snap->nodes[best]))) {
                        best = n;
                        best_local = local;
                }
        }
        return best;
}

/* Algorithm 1 for one I/O-bound straggler; restart: whether a kill may
 * restart it (Favour's test). */
static int resize_slot_memory(IdMap *prev_speeds, PolicyContext *ctx, const FlexSlotSettings *set,
                              const FlexSlotAnalysis *an, uint32_t attempt, bool restart) {
        const Attempt *a = &ctx->snap->attempts[attempt];
        const Vm *vm = &ctx->snap->vms[ctx->snap->nodes[a->node].vm];
        uint64_t limit = vm->memory_max > ctx->core->vm_memory_reserve
                                 ? vm->memory_max - ctx->core->vm_memory_reserve
                                 : 0;
        uint64_t grown = flexslot_grow_memory(a->slot_memory, set->alpha, limit);
        double speed = an->speed[attempt];
        /* A kill throws away the attempt's work: at least one interval T. */
        usec_t waste = MAX(ctx->core->control_interval, ctx->now - a->started);

        int r = 0;

        if (restart && grown > a->slot_memory &&
            flexslot_resize_pays(a, prev_speed(prev_speeds, ctx, a->task), speed, waste))
                r = context_kill(ctx, attempt, KILL_RESIZE, grown);
        /* Line 13: D_prev = D, for the next round's test, whether the task
         * restarts now or runs on. */
        if (r >= 0)
                r = remember_speed(prev_speeds, ctx, a->task, speed);
        return r;
}

static double mean_map_slots(const PolicyContext *ctx) {
        double sum = 0;
        size_t n = 0;

        for (size_t i = 0; i < ctx->snap->n_nodes; i++)
                if (node_schedulable(&ctx->snap->nodes[i])) {
                        sum += ctx->snap->nodes[i].slots[SLOT_MAP];
                        n++;
                }
        return n > 0 ? sum / (double)n : 0;
}

/* The one loop's favour (slo_favour, slo-loop.h). */
typedef struct Favour {
        /* Per job: forecast late and able to make it (favoured); NULL:
         * FlexSlot favours none. */
        const bool *late;
        double cluster_speed; /* slo_cluster_speed(), for LATE's test */
} Favour;

static bool attempt_late(const PolicyContext *ctx, const Favour *f, uint32_t attempt) {
        return f->late && f->late[ctx->snap->tasks[ctx->snap->attempts[attempt].task].job];
}

/* Whether straggler i may be restarted on node: any job's may, a favoured
 * job's only when LATE's test finds a fresh copy there ends sooner than it
 * (slo_restart_pays()): a restart throws away the work of a job that is
 * short of time, so it must win that time back. */
static bool may_restart(const PolicyContext *ctx, const Favour *f, uint32_t i, uint32_t node) {
        return !attempt_late(ctx, f, i) ||
               slo_restart_pays(ctx->snap, ctx->now, i, node, f->cluster_speed);
}

/* Algorithm 1, or III-E's re-placement, for straggler i. */
static int handle_straggler(IdMap *prev_speeds, PolicyContext *ctx, const FlexSlotSettings *set,
                            FlexSlotAnalysis *an, const Favour *f, double mean_slots, uint32_t i) {
        const Attempt *a = &ctx->snap->attempts[i];
        uint32_t target = replacement_node(ctx, set, an, i, mean_slots);
        int r;

        if (target != NO_INDEX && !may_restart(ctx, f, i, target))
                target = NO_INDEX;
        if (target == NO_INDEX)
                return an->bottleneck[i] == BOTTLENECK_IO
                               ? resize_slot_memory(prev_speeds, ctx, set, an, i,
                                                    may_restart(ctx, f, i, a->node))
                               : 0;
        /* The straggler moves with its task: the next new straggler on
         * either node is judged accordingly. */
        an->node_stragglers[a->node]--;
        an->node_stragglers[target]++;
        r = context_kill(ctx, i, KILL_REPLACE, a->slot_memory);
        if (r >= 0)
                r = context_assign(ctx, a->task, target, SLOT_MAP, false);
        if (r >= 0)
                r = remember_speed(prev_speeds, ctx, a->task, an->speed[i]);
        return r;
}

/* Algorithm 1 and III-E's re-placement, a late job's stragglers first, so
 * that their re-placements take the free slots first; a late job's
 * straggler is restarted, re-placed or resized, only when LATE's test
 * finds a fresh copy ends sooner (may_restart()). */
static int handle_stragglers(IdMap *prev_speeds, PolicyContext *ctx, const FlexSlotSettings *set,
                             FlexSlotAnalysis *an, const Favour *f) {
        double mean_slots = mean_map_slots(ctx);

        /* Pass 0: the late jobs' stragglers (only when favouring them). */
        for (int pass = f->late ? 0 : 1; pass < 2; pass++)
                for (uint32_t i = 0; i < ctx->snap->n_attempts; i++) {
                        int r;

                        if (!an->straggler[i] ||
                            (f->late && attempt_late(ctx, f, i) != (pass == 0)))
                                continue;
                        r = handle_straggler(prev_speeds, ctx, set, an, f, mean_slots, i);
                        if (r < 0)
                                return r;
                }
        return 0;
}

/* A moved slot changes steal only once the allocator has divided the CPU
 * again: Algorithm 2 waits at least one allocator period. */
static bool settling(const PolicyContext *ctx, const FlexSlotSettings *set) {
        usec_t wait = MAX(set->settle, ctx->snap->allocator_period);

        for (size_t i = 0; i < ctx->snap->n_nodes; i++) {
                usec_t changed = ctx->snap->nodes[i].slots_changed_at;

                if (changed != 0 && ctx->now < changed + wait)
                        return true;
        }
        return false;
}

/* A slot added to a node on this host can bring it CPU: the host has a pCPU
 * idle. The paper's pool spans the cluster (VMware DRS); here each host is a
 * pool, and on a saturated host the added slot's tasks only crowd the node's
 * own stragglers and take CPU from its neighbours. Every VM on the host
 * counts, a co-running cluster's too (Fig. 11), when the driver measures
 * the host; else this cluster's, and a VM whose use is not measured may be
 * using anything. */
static bool host_has_idle_cpu(const PolicyContext *ctx, uint32_t host) {
        const ClusterSnapshot *s = ctx->snap;
        const Host *h = &s->hosts[host];
        double used = 0;

        if (host_measured(h))
                return h->cpu_use + 1.0 <= (double)h->pcpus;
        for (uint32_t v = 0; v < s->n_vms; v++)
                if (s->vms[v].host == host) {
                        if (!vm_measured(&s->vms[v]))
                                return false;
                        used += s->vms[v].cpu_use;
                }
        return used + 1.0 <= (double)s->hosts[host].pcpus;
}

/* Algorithm 2, bounded to one round of moves per control cycle, from nodes
 * running only fast tasks to nodes running CPU-starved stragglers whose host
 * can give them CPU. Favouring late jobs, a node running a late job's task
 * gives no slot, and while a late job has a CPU-starved straggler only its
 * nodes receive. */
static int move_slots(PolicyContext *ctx, const FlexSlotSettings *set, const FlexSlotAnalysis *an,
                      const Favour *f) {
        size_t n_nodes = ctx->snap->n_nodes, n_measured = 0, moves;
        bool starved = false;

        for (size_t i = 0; i < ctx->snap->n_attempts; i++)
                starved |= an->straggler[i] && an->bottleneck[i] == BOTTLENECK_CPU;
        if (!starved || settling(ctx, set))
                return 0;

        uint32_t *measured = context_scratch(ctx, n_nodes, sizeof(uint32_t));
        uint32_t *order = context_scratch(ctx, n_nodes, sizeof(uint32_t));
        uint32_t *from = context_scratch(ctx, n_nodes, sizeof(uint32_t));
        uint32_t *to = context_scratch(ctx, n_nodes, sizeof(uint32_t));
        double *steal = context_scratch(ctx, n_nodes, sizeof(double));
        bool *may_give = context_scratch(ctx, n_nodes, sizeof(bool));
        bool *may_take = context_scratch(ctx, n_nodes, sizeof(bool));

        if (!measured || !order || !from || !to || !steal || !may_give || !may_take)
                return -ENOMEM;
        for (uint32_t i = 0; i < n_nodes; i++) {
                steal[i] = ctx->snap->nodes[i].steal;
                may_give[i] = an->node_stragglers[i] == 0;
                if (node_schedulable(&ctx->snap->nodes[i]) && node_measured(&ctx->snap->nodes[i]))
                        measured[n_measured++] = i;
        }
        bool late_starved = false;

        for (size_t i = 0; i < ctx->snap->n_attempts; i++) {
                uint32_t node = ctx->snap->attempts[i].node;

                if (attempt_late(ctx, f, (uint32_t)i)) {
                        may_give[node] = false;
                        late_starved |= an->straggler[i] && an->bottleneck[i] == BOTTLENECK_CPU;
                }
        }
        for (size_t i = 0; i < ctx->snap->n_attempts; i++) {
                uint32_t node = ctx->snap->attempts[i].node;

                if (an->straggler[i] && an->bottleneck[i] == BOTTLENECK_CPU && !may_take[node] &&
                    (!late_starved || attempt_late(ctx, f, (uint32_t)i)))
                        may_take[node] = host_has_idle_cpu(
                                ctx, ctx->snap->vms[ctx->snap->nodes[node].vm].host);
        }
        moves = flexslot_plan_moves(set, measured, n_measured, steal, ctx->slots[SLOT_MAP],
                                    may_give, may_take, order, from, to);
        for (size_t k = 0; k < moves; k++) {
                int r = context_set_slots(ctx, from[k], SLOT_MAP,
                                          ctx->slots[SLOT_MAP][from[k]] - 1);

                if (r >= 0)
                        r = context_set_slots(ctx, to[k], SLOT_MAP,
                                              ctx->slots[SLOT_MAP][to[k]] + 1);
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

static bool resources_free(const PolicyContext *ctx, const FlexSlotSettings *set, uint32_t node) {
        const Node *n = &ctx->snap->nodes[node];
        const Vm *vm = &ctx->snap->vms[n->vm];

        return node_measured(n) && vm_measured(vm) && vm->cpu_use + 1.0 <= (double)vm->vcpus &&
               n->steal < set->steal_threshold && host_has_idle_cpu(ctx, vm->host) &&
               context_node_committed_memory(ctx, node) + ctx->core->vm_memory_reserve +
                               n->slot_memory <=
                       vm->memory;
}

/* V-F: one more slot on each node whose map slots are all busy while maps
 * are pending and whose resources are free, one slot at a time per node and
 * only once its last change has settled (cpu_use and steal lag behind a new
 * slot). */
static int add_free_slots(PolicyContext *ctx, const FlexSlotSettings *set) {
        if (!maps_pending(ctx))
                return 0;
        for (uint32_t i = 0; i < ctx->snap->n_nodes; i++) {
                const Node *n = &ctx->snap->nodes[i];
                unsigned slots = ctx->slots[SLOT_MAP][i];
                int r;

                if (!node_schedulable(n) || slots != n->slots[SLOT_MAP] ||
                    slots >= set->max_map_slots ||
                    (n->slots_changed_at != 0 && ctx->now < n->slots_changed_at + set->settle) ||
                    context_free_slots(ctx, i, SLOT_MAP) > 0 || !resources_free(ctx, set, i))
                        continue;
                r = context_set_slots(ctx, i, SLOT_MAP, slots + 1);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The favour: the late jobs (forecast past their deadlines) the slot
 * manager favours, those that can still make it, each late one reported
 * unless the VM allocator's lever reports it, each it passes over as
 * hopeless reported as such; none without slo_favour. */
static int favour_jobs(PolicyContext *ctx, Favour *ret) {
        const ClusterSnapshot *s = ctx->snap;
        bool *late;
        double *end, *speed;
        int r;

        *ret = (Favour){ 0 };
        if (!ctx->core->slo.slo_favour)
                return 0;
        late = context_scratch(ctx, s->n_jobs + 1, sizeof(bool));
        end = context_scratch(ctx, s->n_jobs + 1, sizeof(double));
        speed = context_scratch(ctx, s->n_jobs + 1, sizeof(double));
        if (!late || !end || !speed)
                return -ENOMEM;
        r = slo_forecast_jobs(ctx, end, speed);
        for (uint32_t j = 0; r >= 0 && j < s->n_jobs; j++) {
                bool hopeless = false;
                double all = NAN;

                if (isnan(end[j]))
                        continue;
                late[j] = end[j] > usec_to_sec(s->jobs[j].deadline);
                /* Triage (slo-loop.h): no favour for a job that misses
                 * even with every slot. */
                if (late[j])
                        r = slo_hopeless(ctx, j, speed[j], &hopeless, &all);
                if (r >= 0 && hopeless)
                        r = slo_note_hopeless(ctx, j, all, end[j], speed[j]);
                else if (r >= 0 && !ctx->core->slo.slo_lever)
                        r = slo_note(ctx, j, end[j], speed[j], late[j]);
                late[j] = late[j] && !hopeless;
        }
        if (r < 0)
                return r;
        *ret = (Favour){ .late = late, .cluster_speed = slo_cluster_speed(s, ctx->now) };
        return 0;
}

static int flexslot_manage(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        const FlexSlotSettings *set = settings;
        IdMap *prev_speeds = state;
        Favour favour;
        size_t n_attempts = ctx->snap->n_attempts;
        FlexSlotAnalysis an = {
                .speed = context_scratch(ctx, n_attempts, sizeof(double)),
                .score = context_scratch(ctx, n_attempts, sizeof(double)),
                .straggler = context_scratch(ctx, n_attempts, sizeof(bool)),
                .bottleneck = context_scratch(ctx, n_attempts, sizeof(Bottleneck)),
                .node_stragglers = context_scratch(ctx, ctx->snap->n_nodes, sizeof(unsigned)),
        };
        int r;

        if (!an.speed || !an.score || !an.straggler || !an.bottleneck || !an.node_stragglers)
                return -ENOMEM;
        r = favour_jobs(ctx, &favour);
        if (r >= 0)
                r = flexslot_analyze(ctx, set, &an);
        if (r >= 0)
                r = handle_stragglers(prev_speeds, ctx, set, &an, &favour);
        if (r >= 0)
                r = move_slots(ctx, set, &an, &favour);
        if (r >= 0 && set->unlimited_slots)
                r = add_free_slots(ctx, set);
        if (r >= 0)
                forget_finished(prev_speeds, ctx);
        return r;
}

const SlotManagerOps slot_manager_flexslot = {
        .name = "flexslot",
        .settings = &flexslot_settings_schema,
        .init = flexslot_init,
        .free = flexslot_free,
        .manage = flexslot_manage,
};

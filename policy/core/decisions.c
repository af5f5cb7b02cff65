/* SPDX-License-Identifier: MIT */
/* The generic check of a step's output against its snapshot, done once here
 * rather than trusted to every policy (the libvirt dispatch-layer habit): a
 * driver applies nothing that refers to a missing object or overfills a
 * node. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/context.h"

static const char *const policy_layer_kind_names[_POLICY_LAYER_MAX] = {
        [POLICY_LAYER_SCHEDULER] = "scheduler",
        [POLICY_LAYER_SLOT_MANAGER] = "slot-manager",
        [POLICY_LAYER_SPECULATION] = "speculation",
        [POLICY_LAYER_VM_ALLOCATOR] = "vm-allocator",
};

const char *policy_layer_kind_to_string(PolicyLayerKind kind) {
        return kind >= 0 && kind < _POLICY_LAYER_MAX ? policy_layer_kind_names[kind] : NULL;
}

static int compare_u32(const void *a, const void *b) {
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

        return (x > y) - (x < y);
}

static bool sorted_contains(const uint32_t *sorted, size_t n, uint32_t x) {
        return bsearch(&x, sorted, n, sizeof(uint32_t), compare_u32) != NULL;
}

/* A node that slot decisions take, free or hold slots on: its slots after
 * the step's slot changes, what its attempts and the decisions so far hold
 * of them, and what placements counted on them. The check keeps one per
 * node the decisions name, sorted, so that it costs what the step decided
 * and not a pass over every node. */
typedef struct NodeSlots {
        uint32_t node;
        unsigned slots[_SLOT_TYPE_MAX], busy[_SLOT_TYPE_MAX], placed[_SLOT_TYPE_MAX];
} NodeSlots;

typedef struct NodeSlotsSet {
        NodeSlots *nodes;
        size_t n;
} NodeSlotsSet;

static int compare_node_slots(const void *a, const void *b) {
        return compare_u32(&((const NodeSlots *)a)->node, &((const NodeSlots *)b)->node);
}

/* The entry of a node the decisions name. */
static NodeSlots *node_slots(const NodeSlotsSet *set, uint32_t node) {
        NodeSlots key = { .node = node };

        return bsearch(&key, set->nodes, set->n, sizeof(*set->nodes), compare_node_slots);
}

/* The nodes of the kills, assignments, reservations and placements, each
 * once, with their slots and what their attempts hold; -EBADMSG for a
 * decision that names no attempt or node. */
static int node_slots_collect(const ClusterSnapshot *s, const Decisions *d, Arena *scratch,
                              NodeSlotsSet *ret) {
        size_t most = d->n_kills + d->n_assignments + d->n_reservations + d->n_placements, n = 0;
        NodeSlots *nodes = arena_alloc(scratch, MAX(most, (size_t)1), sizeof(NodeSlots));

        if (!nodes)
                return -ENOMEM;
        for (size_t i = 0; i < d->n_kills; i++) {
                if (d->kills[i].attempt >= s->n_attempts)
                        return -EBADMSG;
                nodes[n++].node = s->attempts[d->kills[i].attempt].node;
        }
        for (size_t i = 0; i < d->n_assignments; i++)
                nodes[n++].node = d->assignments[i].node;
        for (size_t i = 0; i < d->n_reservations; i++)
                nodes[n++].node = d->reservations[i].node;
        for (size_t i = 0; i < d->n_placements; i++)
                nodes[n++].node = d->placements[i].node;
        qsort(nodes, n, sizeof(*nodes), compare_node_slots);
        ret->nodes = nodes;
        ret->n = 0;
        for (size_t i = 0; i < n; i++) {
                uint32_t node = nodes[i].node;

                if (node >= s->n_nodes)
                        return -EBADMSG;
                if (ret->n > 0 && nodes[ret->n - 1].node == node)
                        continue;
                nodes[ret->n] = (NodeSlots){ .node = node };
                for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++) {
                        nodes[ret->n].slots[slot] = s->nodes[node].slots[slot];
                        if (s->node_attempts)
                                nodes[ret->n].busy[slot] =
                                        node_attempts_busy(&s->node_attempts[node], slot);
                }
                ret->n++;
        }
        /* Their nodes were checked. */
        for (size_t i = 0; i < d->n_slot_changes; i++) {
                NodeSlots *x = node_slots(ret, d->slot_changes[i].node);

                for (SlotType slot = SLOT_MAP; x && slot < _SLOT_TYPE_MAX; slot++)
                        x->slots[slot] = d->slot_changes[i].slots[slot];
        }
        for (size_t i = 0; !s->node_attempts && i < s->n_attempts; i++) {
                NodeSlots *x = node_slots(ret, s->attempts[i].node);

                if (x)
                        x->busy[s->attempts[i].slot]++;
        }
        return 0;
}

/* replaced gets the tasks of re-placement kills, sorted, and killed the
 * attempts killed, to find one killed twice: the check costs time in
 * proportion to the decisions, not to every task or attempt. */
static bool kills_valid(const ClusterSnapshot *s, const Decisions *d, const NodeSlotsSet *set,
                        uint32_t *killed, uint32_t *replaced, size_t *ret_n_replaced) {
        size_t n_replaced = 0;

        for (size_t i = 0; i < d->n_kills; i++) {
                const Kill *k = &d->kills[i];

                if ((unsigned)k->reason >= _KILL_REASON_MAX)
                        return false;
                killed[i] = k->attempt;
                if (k->reason != KILL_RESIZE) {
                        const Attempt *a = &s->attempts[k->attempt];

                        node_slots(set, a->node)->busy[a->slot]--;
                        replaced[n_replaced++] = a->task;
                }
        }
        qsort(killed, d->n_kills, sizeof(uint32_t), compare_u32);
        for (size_t i = 1; i < d->n_kills; i++)
                if (killed[i] == killed[i - 1])
                        return false;
        qsort(replaced, n_replaced, sizeof(uint32_t), compare_u32);
        *ret_n_replaced = n_replaced;
        return true;
}

/* placed: scratch for the tasks of the non-speculative assignments, each of
 * which may appear once. */
static bool assignments_valid(const ClusterSnapshot *s, const Decisions *d, uint32_t beating_node,
                              const NodeSlotsSet *set, const uint32_t *replaced, size_t n_replaced,
                              uint32_t *placed) {
        size_t n_placed = 0;

        for (size_t i = 0; i < d->n_assignments; i++) {
                const Assignment *x = &d->assignments[i];
                NodeSlots *on = node_slots(set, x->node);
                const Task *t;

                if (x->task >= s->n_tasks || !node_schedulable(&s->nodes[x->node]) ||
                    (unsigned)x->slot >= _SLOT_TYPE_MAX ||
                    (beating_node != NO_INDEX && x->node != beating_node))
                        return false;
                t = &s->tasks[x->task];
                if (x->type != t->type || on->busy[x->slot] >= on->slots[x->slot])
                        return false;
                if (x->speculative ? t->state != TASK_RUNNING
                                   : t->state != TASK_PENDING &&
                                             !sorted_contains(replaced, n_replaced, x->task))
                        return false;
                if (!x->speculative)
                        placed[n_placed++] = x->task;
                on->busy[x->slot]++;
        }
        qsort(placed, n_placed, sizeof(uint32_t), compare_u32);
        for (size_t i = 1; i < n_placed; i++)
                if (placed[i] == placed[i - 1])
                        return false;
        return true;
}

/* After the assignments: each reservation takes a slot still free. */
static bool reservations_valid(const ClusterSnapshot *s, const Decisions *d, uint32_t beating_node,
                               const NodeSlotsSet *set) {
        for (size_t i = 0; i < d->n_reservations; i++) {
                const Reservation *x = &d->reservations[i];
                NodeSlots *on = node_slots(set, x->node);

                if (!node_schedulable(&s->nodes[x->node]) || (unsigned)x->slot >= _SLOT_TYPE_MAX ||
                    x->job >= s->n_jobs || (beating_node != NO_INDEX && x->node != beating_node) ||
                    on->busy[x->slot] >= on->slots[x->slot])
                        return false;
                if (x->task != NO_INDEX &&
                    (x->task >= s->n_tasks || s->tasks[x->task].job != x->job ||
                     s->tasks[x->task].state != TASK_PENDING))
                        return false;
                on->busy[x->slot]++;
        }
        return true;
}

/* The placements count on the node's slots, busy or not. */
static bool placements_valid(const ClusterSnapshot *s, const Decisions *d,
                             const NodeSlotsSet *set) {
        for (size_t i = 0; i < d->n_placements; i++) {
                const Placement *x = &d->placements[i];
                NodeSlots *on = node_slots(set, x->node);

                if (!node_schedulable(&s->nodes[x->node]) || (unsigned)x->slot >= _SLOT_TYPE_MAX ||
                    x->job >= s->n_jobs || (unsigned)x->type >= _TASK_TYPE_MAX || x->count == 0 ||
                    x->count > on->slots[x->slot] - on->placed[x->slot])
                        return false;
                on->placed[x->slot] += x->count;
        }
        return true;
}

/* jobs: scratch for one job per quota. */
static bool quotas_valid(const ClusterSnapshot *s, const Decisions *d, uint32_t *jobs) {
        for (size_t i = 0; i < d->n_quotas; i++) {
                if (d->quotas[i].job >= s->n_jobs)
                        return false;
                jobs[i] = d->quotas[i].job;
        }
        qsort(jobs, d->n_quotas, sizeof(uint32_t), compare_u32);
        for (size_t i = 1; i < d->n_quotas; i++)
                if (jobs[i] == jobs[i - 1])
                        return false;
        return true;
}

static bool vm_targets_valid(const ClusterSnapshot *s, const Decisions *d) {
        for (size_t i = 0; i < d->n_vm_targets; i++) {
                const VmTarget *t = &d->vm_targets[i];

                const Vm *v;

                if (t->vm >= s->n_vms || t->vcpus < 1 || t->vcpus > s->vms[t->vm].vcpus_max ||
                    t->memory > s->vms[t->vm].memory_max || t->cpu_weight < 2 || !(t->cpu_cap >= 0))
                        return false;
                v = &s->vms[t->vm];
                /* Another tenant's VM lends weight, nothing else. */
                if (v->other_tenant &&
                    (t->vcpus != v->vcpus || t->memory != v->memory || t->cpu_cap != v->cpu_cap))
                        return false;
        }
        return true;
}

static bool notes_valid(const ClusterSnapshot *s, const Decisions *d) {
        for (size_t i = 0; i < d->n_deadlines; i++) {
                const DeadlineNote *n = &d->deadlines[i];

                if (n->job >= s->n_jobs || s->jobs[n->job].deadline == 0 ||
                    (unsigned)n->kind >= _SLO_FORECAST_MAX || !(n->speed > 0))
                        return false;
        }
        for (size_t i = 0; i < d->n_levers; i++)
                if (d->levers[i].vm >= s->n_vms ||
                    (d->levers[i].job != NO_INDEX && d->levers[i].job >= s->n_jobs))
                        return false;
        for (size_t i = 0; i < d->n_spares; i++) {
                const SpareNote *n = &d->spares[i];

                if (n->job >= s->n_jobs || n->node >= s->n_nodes ||
                    (unsigned)n->slot >= _SLOT_TYPE_MAX ||
                    (unsigned)n->reason >= _SPARE_REASON_MAX ||
                    (s->jobs[n->job].deadline == 0) != (n->reason == SPARE_NO_DEADLINE) ||
                    (n->reason != SPARE_NEAREST && n->forecast != 0))
                        return false;
        }
        return true;
}

int decisions_grow(void **array, size_t *cap, size_t elem) {
        size_t n = MAX(2 * *cap, (size_t)16);
        void *p = reallocarray(*array, n, elem);

        if (!p)
                return -ENOMEM;
        *array = p;
        *cap = n;
        return 0;
}

int decisions_validate(const ClusterSnapshot *s, const PolicyStepArgs *step, const Decisions *d) {
        Arena scratch = { 0 };
        int r = decisions_check(s, step, d, &scratch);

        arena_done(&scratch);
        return r;
}

/* What takes, frees or holds a node's slots against the slots and the
 * attempts the snapshot has, on the nodes the decisions name (and a pass
 * over every attempt when the driver did not count them). */
static int slot_decisions_check(const ClusterSnapshot *s, uint32_t beating_node, const Decisions *d,
                                Arena *scratch) {
        uint32_t *killed = arena_alloc(scratch, d->n_kills, sizeof(uint32_t));
        uint32_t *replaced = arena_alloc(scratch, d->n_kills, sizeof(uint32_t));
        uint32_t *placed = arena_alloc(scratch, d->n_assignments, sizeof(uint32_t));
        NodeSlotsSet set;
        size_t n_replaced;
        int r;

        if (!killed || !replaced || !placed)
                return -ENOMEM;
        r = node_slots_collect(s, d, scratch, &set);
        if (r < 0)
                return r;
        if (!kills_valid(s, d, &set, killed, replaced, &n_replaced) ||
            !assignments_valid(s, d, beating_node, &set, replaced, n_replaced, placed) ||
            !reservations_valid(s, d, beating_node, &set) || !placements_valid(s, d, &set))
                return -EBADMSG;
        return 0;
}

int decisions_check(const ClusterSnapshot *s, const PolicyStepArgs *step, const Decisions *d,
                    Arena *scratch) {
        uint32_t beating_node =
                step && (step->flags & POLICY_STEP_HEARTBEAT) ? step->node : NO_INDEX;
        uint32_t *quota_jobs = arena_alloc(scratch, d->n_quotas, sizeof(uint32_t));
        int r;

        if (!quota_jobs)
                return -ENOMEM;
        for (size_t i = 0; i < d->n_slot_changes; i++)
                if (d->slot_changes[i].node >= s->n_nodes)
                        return -EBADMSG;
        /* Most heartbeats start, stop and hold nothing: their check costs
         * what they decided, not a pass over every node and attempt. */
        if (d->n_kills > 0 || d->n_assignments > 0 || d->n_reservations > 0 ||
            d->n_placements > 0) {
                r = slot_decisions_check(s, beating_node, d, scratch);
                if (r < 0)
                        return r;
        }
        if (!vm_targets_valid(s, d) || !quotas_valid(s, d, quota_jobs))
                return -EBADMSG;
        for (size_t i = 0; i < d->n_stragglers; i++)
                if (d->stragglers[i].attempt >= s->n_attempts)
                        return -EBADMSG;
        return notes_valid(s, d) ? 0 : -EBADMSG;
}

void decisions_done(Decisions *d) {
#define FREE_DECISIONS(type, name) free(d->name);
        DECISION_ARRAYS(FREE_DECISIONS)
#undef FREE_DECISIONS
        memset(d, 0, sizeof(*d));
}

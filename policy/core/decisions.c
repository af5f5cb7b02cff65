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

/* replaced gets the tasks of re-placement kills, sorted: the check costs
 * time in proportion to the decisions and attempts, not to every task. */
static bool kills_valid(const ClusterSnapshot *s, const Decisions *d, bool *killed,
                        unsigned *busy[_SLOT_TYPE_MAX], uint32_t *replaced,
                        size_t *ret_n_replaced) {
        size_t n_replaced = 0;

        for (size_t i = 0; i < d->n_kills; i++) {
                const Kill *k = &d->kills[i];

                if (k->attempt >= s->n_attempts || killed[k->attempt] ||
                    (unsigned)k->reason >= _KILL_REASON_MAX)
                        return false;
                killed[k->attempt] = true;
                if (k->reason != KILL_RESIZE) {
                        const Attempt *a = &s->attempts[k->attempt];

                        busy[a->slot][a->node]--;
                        replaced[n_replaced++] = a->task;
                }
        }
        qsort(replaced, n_replaced, sizeof(uint32_t), compare_u32);
        *ret_n_replaced = n_replaced;
        return true;
}

/* placed: scratch for the tasks of the non-speculative assignments, each of
 * which may appear once. */
static bool assignments_valid(const ClusterSnapshot *s, const Decisions *d, uint32_t beating_node,
                              unsigned *const slots[_SLOT_TYPE_MAX], unsigned *busy[_SLOT_TYPE_MAX],
                              const uint32_t *replaced, size_t n_replaced, uint32_t *placed) {
        size_t n_placed = 0;

        for (size_t i = 0; i < d->n_assignments; i++) {
                const Assignment *x = &d->assignments[i];
                const Task *t;

                if (x->task >= s->n_tasks || x->node >= s->n_nodes ||
                    !node_schedulable(&s->nodes[x->node]) || (unsigned)x->slot >= _SLOT_TYPE_MAX ||
                    (beating_node != NO_INDEX && x->node != beating_node))
                        return false;
                t = &s->tasks[x->task];
                if (x->type != t->type || busy[x->slot][x->node] >= slots[x->slot][x->node])
                        return false;
                if (x->speculative ? t->state != TASK_RUNNING
                                   : t->state != TASK_PENDING &&
                                             !sorted_contains(replaced, n_replaced, x->task))
                        return false;
                if (!x->speculative)
                        placed[n_placed++] = x->task;
                busy[x->slot][x->node]++;
        }
        qsort(placed, n_placed, sizeof(uint32_t), compare_u32);
        for (size_t i = 1; i < n_placed; i++)
                if (placed[i] == placed[i - 1])
                        return false;
        return true;
}

/* After the assignments: each reservation takes a slot still free. */
static bool reservations_valid(const ClusterSnapshot *s, const Decisions *d, uint32_t beating_node,
                               unsigned *const slots[_SLOT_TYPE_MAX],
                               unsigned *busy[_SLOT_TYPE_MAX]) {
        for (size_t i = 0; i < d->n_reservations; i++) {
                const Reservation *x = &d->reservations[i];

                if (x->node >= s->n_nodes || !node_schedulable(&s->nodes[x->node]) ||
                    (unsigned)x->slot >= _SLOT_TYPE_MAX || x->job >= s->n_jobs ||
                    (beating_node != NO_INDEX && x->node != beating_node) ||
                    busy[x->slot][x->node] >= slots[x->slot][x->node])
                        return false;
                if (x->task != NO_INDEX &&
                    (x->task >= s->n_tasks || s->tasks[x->task].job != x->job ||
                     s->tasks[x->task].state != TASK_PENDING))
                        return false;
                busy[x->slot][x->node]++;
        }
        return true;
}

/* count: scratch, zero, per node and slot type. */
static bool placements_valid(const ClusterSnapshot *s, const Decisions *d,
                             unsigned *const slots[_SLOT_TYPE_MAX],
                             unsigned *count[_SLOT_TYPE_MAX]) {
        for (size_t i = 0; i < d->n_placements; i++) {
                const Placement *x = &d->placements[i];

                if (x->node >= s->n_nodes || !node_schedulable(&s->nodes[x->node]) ||
                    (unsigned)x->slot >= _SLOT_TYPE_MAX || x->job >= s->n_jobs ||
                    (unsigned)x->type >= _TASK_TYPE_MAX || x->count == 0 ||
                    x->count > slots[x->slot][x->node] - count[x->slot][x->node])
                        return false;
                count[x->slot][x->node] += x->count;
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
 * attempts the snapshot has: a pass over every node, and over every
 * attempt unless the driver counted them. */
static int slot_decisions_check(const ClusterSnapshot *s, uint32_t beating_node, const Decisions *d,
                                Arena *scratch) {
        size_t n_nodes = s->n_nodes, n_replaced;
        unsigned *slots[_SLOT_TYPE_MAX], *busy[_SLOT_TYPE_MAX];
        bool *killed = arena_alloc(scratch, s->n_attempts, sizeof(bool));
        uint32_t *replaced = arena_alloc(scratch, d->n_kills, sizeof(uint32_t));
        uint32_t *placed = arena_alloc(scratch, d->n_assignments, sizeof(uint32_t));

        for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++) {
                slots[slot] = arena_alloc(scratch, n_nodes, sizeof(unsigned));
                busy[slot] = arena_alloc(scratch, n_nodes, sizeof(unsigned));
                if (!slots[slot] || !busy[slot])
                        return -ENOMEM;
        }
        if (!killed || !replaced || !placed)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_nodes; i++)
                for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++) {
                        slots[slot][i] = s->nodes[i].slots[slot];
                        if (s->node_attempts)
                                busy[slot][i] = s->node_attempts[i].held[slot][TASK_MAP] +
                                                s->node_attempts[i].held[slot][TASK_REDUCE];
                }
        /* Their nodes were checked. */
        for (size_t i = 0; i < d->n_slot_changes; i++)
                for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++)
                        slots[slot][d->slot_changes[i].node] = d->slot_changes[i].slots[slot];
        for (size_t i = 0; !s->node_attempts && i < s->n_attempts; i++)
                busy[s->attempts[i].slot][s->attempts[i].node]++;
        if (!kills_valid(s, d, killed, busy, replaced, &n_replaced) ||
            !assignments_valid(s, d, beating_node, slots, busy, replaced, n_replaced, placed) ||
            !reservations_valid(s, d, beating_node, slots, busy))
                return -EBADMSG;
        /* The placements count on the node's slots, busy or not. */
        for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++)
                memset(busy[slot], 0, n_nodes * sizeof(unsigned));
        return placements_valid(s, d, slots, busy) ? 0 : -EBADMSG;
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

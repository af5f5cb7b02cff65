/* SPDX-License-Identifier: MIT */
/* The model's objects found and changed: jobs, trackers and attempts by id,
 * an attempt started on or stopped at its tracker, kills queued for a
 * tracker's next heartbeat. What every other cluster*.c changes the model
 * with. */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "controller/daemon/cluster-model.h"

/* Attempt i of t leaves the task: pending again when it was the last. */
static void task_remove_attempt(ClusterTask *t, unsigned i) {
        memmove(&t->attempts[i], &t->attempts[i + 1],
                (t->n_attempts - i - 1) * sizeof(*t->attempts));
        t->n_attempts--;
        t->attempts[t->n_attempts] = (ClusterAttempt){ 0 };
        if (t->n_attempts == 0 && t->state == TASK_RUNNING)
                t->state = TASK_PENDING;
}

void cluster_error_set(StoreError *err, const char *field, const char *fmt, ...) {
        va_list ap;

        if (err) {
                err->field = field;
                va_start(ap, fmt);
                vsnprintf(err->message, sizeof(err->message), fmt, ap);
                va_end(ap);
        }
}

ClusterJob *cluster_job_find(Cluster *c, uint64_t id) {
        size_t lo = 0, hi = c->n_jobs;

        /* The jobs are in the order of their ids (cluster_add_job()). */
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (c->jobs[mid].info.id < id)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo < c->n_jobs && c->jobs[lo].info.id == id ? &c->jobs[lo] : NULL;
}

ClusterNode *cluster_node_lookup(Cluster *c, uint64_t id) {
        uint32_t i = cluster_node_index(c, id);

        return i == NO_INDEX ? NULL : &c->nodes[i];
}

const ClusterNode *cluster_node_find(const Cluster *c, uint64_t id) {
        return cluster_node_lookup((Cluster *)c, id);
}

static const char *const node_state_names[_NODE_STATE_MAX] = {
        [NODE_ALIVE] = "alive",
        [NODE_LOST] = "lost",
        [NODE_BLACKLISTED] = "blacklisted",
};

const char *cluster_node_state_to_string(NodeState state) {
        return state >= 0 && state < _NODE_STATE_MAX ? node_state_names[state] : NULL;
}

bool cluster_task_backed_up(const ClusterTask *t) {
        for (unsigned a = 0; a < t->n_attempts; a++)
                if (t->attempts[a].speculative)
                        return true;
        return false;
}

bool cluster_task_straggles(const ClusterTask *t) {
        for (unsigned a = 0; a < t->n_attempts; a++)
                if (t->attempts[a].straggler || t->attempts[a].speculative)
                        return true;
        return false;
}

void cluster_job_stragglers(const Cluster *c, uint64_t job, unsigned *ret_stragglers,
                            unsigned *ret_backups) {
        const ClusterJob *j = cluster_job_find((Cluster *)c, job);
        unsigned stragglers = 0, backups = 0;

        for (size_t i = 0; j && i < j->n_tasks; i++) {
                stragglers += cluster_task_straggles(&j->tasks[i]);
                backups += cluster_task_backed_up(&j->tasks[i]);
        }
        *ret_stragglers = stragglers;
        *ret_backups = backups;
}

void cluster_job_quota(const Cluster *c, uint64_t job, unsigned ret[static _SLOT_TYPE_MAX]) {
        const ClusterJob *j = cluster_job_find((Cluster *)c, job);

        for (SlotType type = 0; type < _SLOT_TYPE_MAX; type++)
                ret[type] = j ? j->quota[type] : 0;
}

ClusterStealSource cluster_node_steal(const ClusterNode *n, double *ret_steal, usec_t *ret_at) {
        if (n->vm.host != 0 && n->vm.has_steal) {
                *ret_steal = n->vm.steal;
                *ret_at = n->vm.steal_at;
                return CLUSTER_STEAL_AGENT;
        }
        if (n->measured_at != 0) {
                *ret_steal = n->steal;
                *ret_at = n->measured_at;
                return n->guest.steal_estimated ? CLUSTER_STEAL_TRACKER_ESTIMATE
                                                : CLUSTER_STEAL_TRACKER;
        }
        *ret_steal = 0;
        *ret_at = 0;
        return CLUSTER_STEAL_NONE;
}

const char *cluster_vm_of(const Cluster *c, uint32_t vm, const ClusterVmState **ret_state) {
        if (vm < c->n_nodes) {
                *ret_state = &c->nodes[vm].vm;
                return c->nodes[vm].vm_uuid;
        }
        if (vm - c->n_nodes < c->n_tenants) {
                *ret_state = &c->tenants[vm - c->n_nodes].vm;
                return c->tenants[vm - c->n_nodes].uuid;
        }
        return NULL;
}

ClusterLever *cluster_vm_lever(Cluster *c, uint32_t vm) {
        if (vm < c->n_nodes)
                return &c->nodes[vm].lever;
        if (vm - c->n_nodes < c->n_tenants)
                return &c->tenants[vm - c->n_nodes].lever;
        return NULL;
}

int cluster_node_queue_kill(ClusterNode *n, uint64_t attempt, const char *reason) {
        Tracker1Kill *kills;

        /* An unknown attempt is reported running on every beat until its
         * kill is carried out. */
        for (size_t i = 0; i < n->n_kills; i++)
                if (n->kills[i].attempt == attempt)
                        return 0;
        kills = reallocarray(n->kills, n->n_kills + 1, sizeof(*kills));
        if (!kills)
                return -ENOMEM;
        n->kills = kills;
        n->kills[n->n_kills++] = (Tracker1Kill){ .attempt = attempt, .reason = reason };
        return 0;
}

ClusterTask *cluster_task_find(Cluster *c, uint64_t job, TaskType type, unsigned index,
                               ClusterJob **ret_job) {
        ClusterJob *j = cluster_job_find(c, job);
        unsigned n = j ? (type == TASK_MAP ? j->info.n_maps : j->info.n_reduces) : 0;

        if (index >= n)
                return NULL;
        if (ret_job)
                *ret_job = j;
        return &j->tasks[type == TASK_MAP ? index : j->info.n_maps + index];
}

void cluster_records_write(Cluster *c, const StoreTaskRecord *records, size_t n) {
        StoreError err = { 0 };
        int r;

        if (n == 0)
                return;
        r = store_tasks_record(c->store, records, n, &err);
        if (r < 0)
                log_warning_errno(r, "Cannot record how %zu attempts ended: %s", n, err.message);
}

void cluster_held_lose(Cluster *c, const ClusterHeld *h, usec_t now, const char *why) {
        log_warning("Attempt %" PRIu64 " of job %" PRIu64 " on %s is lost, %s: its task may run "
                    "again",
                    h->attempt, h->job, h->node, why);
        cluster_records_write(c,
                              &(StoreTaskRecord){ .job = h->job,
                                                  .type = h->type,
                                                  .index = h->index,
                                                  .attempt = h->attempt,
                                                  .node = h->node,
                                                  .status = STORE_TASK_LOST,
                                                  .started = h->started,
                                                  .finished = cluster_ended_at(now, h->started),
                                                  .reason = why },
                              1);
}

/* Nodes are in the order of their ids: each registers with the next, and
 * forgetting one keeps the order of the rest. A heartbeat looks its node
 * up, and every attempt's in a snapshot; thousands of trackers made a pass
 * over them most of a heartbeat's time. */
static int compare_node_id(const void *key, const void *node) {
        uint64_t a = *(const uint64_t *)key, b = ((const ClusterNode *)node)->id;

        return (a > b) - (a < b);
}

uint32_t cluster_node_index(const Cluster *c, uint64_t id) {
        const ClusterNode *n = c->n_nodes > 0 ? bsearch(&id, c->nodes, c->n_nodes,
                                                        sizeof(*c->nodes), compare_node_id)
                                              : NULL;

        return n ? (uint32_t)(n - c->nodes) : NO_INDEX;
}

void cluster_task_changed(Cluster *c, ClusterTask *t) {
        Snapshot *s = c->snapshot;
        ClusterTask **changed;

        if (!s || s->overflow)
                return;
        /* More changes than tasks (no step took them in: [policy] step =
         * no) cost more to replay than a new build. */
        if (s->n_changed >= s->s.n_tasks) {
                s->overflow = true;
                return;
        }
        if (s->n_changed == s->max_changed) {
                size_t n = MAX(s->max_changed * 2, (size_t)64);

                changed = reallocarray(s->changed, n, sizeof(ClusterTask *));
                if (!changed) {
                        s->overflow = true;
                        return;
                }
                s->changed = changed;
                s->max_changed = n;
        }
        s->changed[s->n_changed++] = t;
}

void cluster_node_changed(Cluster *c, uint32_t i) {
        Snapshot *s = c->snapshot;

        /* Room for every node was made with the snapshot. */
        if (!s || s->all_nodes_stale || s->node_stale[i])
                return;
        s->node_stale[i] = true;
        s->stale_nodes[s->n_stale_nodes++] = i;
}

/* ---- the running attempts, by id ---- */

/* Where attempt is in c->attempt_index, or would go. The ids are handed
 * out one after another (Cluster.next_attempt) and most attempts run about
 * as long as the others, so the ids in the index are spread nearly evenly:
 * a guess from the ids at the ends of the range lands next to the entry.
 * A few guesses, then halves, for ids from before a restart or attempts
 * that run for hours. Halving alone, each step a cache miss, was the
 * largest cost of a heartbeat with 12,000 attempts running. */
static size_t index_position(const Cluster *c, uint64_t attempt) {
        const AttemptRef *index = c->attempt_index;
        size_t lo = 0, hi = c->index_used;

        for (unsigned guesses = 0; guesses < 4 && hi - lo > 2; guesses++) {
                uint64_t low = index[lo].attempt, high = index[hi - 1].attempt;
                size_t guess;

                if (attempt <= low)
                        return lo;
                if (attempt > high)
                        return hi;
                /* low < attempt <= high: in lo + 1 .. hi - 1. */
                guess = lo + (size_t)((double)(attempt - low) / (double)(high - low) *
                                      (double)(hi - 1 - lo));
                guess = MIN(MAX(guess, lo + 1), hi - 1);
                if (index[guess].attempt < attempt)
                        lo = guess + 1;
                else
                        hi = guess;
        }
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (c->attempt_index[mid].attempt < attempt)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

static const AttemptRef *index_find(const Cluster *c, uint64_t attempt) {
        size_t i = index_position(c, attempt);

        return i < c->index_used && c->attempt_index[i].attempt == attempt &&
                               c->attempt_index[i].task
                       ? &c->attempt_index[i]
                       : NULL;
}

/* The stopped attempts' entries taken out. */
static void index_compact(Cluster *c) {
        size_t n = 0;

        for (size_t i = 0; i < c->index_used; i++)
                if (c->attempt_index[i].task)
                        c->attempt_index[n++] = c->attempt_index[i];
        c->index_used = n;
}

/* Tests (verify_snapshot): the kept sum of the jobs' tasks is theirs. */
static bool tasks_summed(const Cluster *c) {
        size_t n = 0;

        for (size_t j = 0; j < c->n_jobs; j++)
                n += c->jobs[j].n_tasks;
        return n == c->n_tasks;
}

int cluster_attempt_index_reserve(Cluster *c, size_t n_tasks) {
        size_t need = (c->n_tasks + n_tasks) * CLUSTER_ATTEMPTS_MAX;
        AttemptRef *index;

        assert(!c->verify_snapshot || tasks_summed(c));
        if (need <= c->index_max)
                return 0;
        index = realloc(c->attempt_index, need * sizeof(*index));
        if (!index)
                return -ENOMEM;
        c->attempt_index = index;
        c->index_max = need;
        return 0;
}

unsigned cluster_task_attempt_index(const ClusterTask *t, uint64_t attempt) {
        unsigned a = 0;

        while (a < t->n_attempts && t->attempts[a].id != attempt)
                a++;
        return a;
}

ClusterTask *cluster_attempt_find(Cluster *c, uint64_t attempt, ClusterJob **ret_job,
                                  unsigned *ret_index) {
        const AttemptRef *ref = index_find(c, attempt);

        if (!ref)
                return NULL;
        if (ret_job)
                *ret_job = cluster_job_find(c, ref->job);
        if (ret_index)
                *ret_index = cluster_task_attempt_index(ref->task, attempt);
        return ref->task;
}

/* The task runs attempt a (its node filled in here) on n, in a.slot. */
void cluster_attempt_add(Cluster *c, ClusterNode *n, const ClusterJob *j, ClusterTask *t,
                         const ClusterAttempt *a) {
        size_t i;

        /* Room for every attempt the jobs' tasks may run was reserved with
         * the jobs (cluster_attempt_index_reserve()): the stopped ones'
         * entries make it. */
        assert(c->n_indexed < c->index_max && t->n_attempts < CLUSTER_ATTEMPTS_MAX);
        if (c->index_used == c->index_max || c->index_used - c->n_indexed > c->n_indexed)
                index_compact(c);
        i = index_position(c, a->id);
        memmove(&c->attempt_index[i + 1], &c->attempt_index[i],
                (c->index_used - i) * sizeof(*c->attempt_index));
        c->attempt_index[i] =
                (AttemptRef){ .attempt = a->id, .job = j->info.id, .node = n->id, .task = t };
        c->index_used++;
        c->n_indexed++;
        t->state = TASK_RUNNING;
        t->attempts[t->n_attempts] = *a;
        t->attempts[t->n_attempts++].node = n->id;
        t->slot_memory = a->slot_memory;
        n->running[a->slot]++;
        cluster_task_changed(c, t);
}

/* Attempt i of t goes; its tracker frees the slot. */
void cluster_attempt_stop(Cluster *c, ClusterTask *t, unsigned i) {
        ClusterNode *n = cluster_node_lookup(c, t->attempts[i].node);
        SlotType slot = t->attempts[i].slot;
        size_t k = index_position(c, t->attempts[i].id);

        assert(k < c->index_used && c->attempt_index[k].attempt == t->attempts[i].id &&
               c->attempt_index[k].task == t);
        c->attempt_index[k].task = NULL;
        c->n_indexed--;
        if (n && n->running[slot] > 0)
                n->running[slot]--;
        task_remove_attempt(t, i);
        cluster_task_changed(c, t);
}

/* Every running attempt of t is killed at its tracker's next heartbeat.
 * Without memory for a kill the tracker finishes the attempt, whose report
 * is then ignored. */
int cluster_node_retire(ClusterNode *n, const ClusterRetired *r) {
        ClusterRetired *retired;

        if (n->n_retired >= CLUSTER_RETIRED_MAX) {
                memmove(&n->retired[0], &n->retired[1], (n->n_retired - 1) * sizeof(*n->retired));
                n->n_retired--;
        }
        retired = realloc(n->retired, (n->n_retired + 1) * sizeof(*retired));
        if (!retired)
                return -ENOMEM;
        n->retired = retired;
        n->retired[n->n_retired++] = *r;
        return 0;
}

const ClusterRetired *cluster_node_find_retired(const ClusterNode *n, uint64_t attempt) {
        for (size_t i = 0; i < n->n_retired; i++)
                if (n->retired[i].attempt == attempt)
                        return &n->retired[i];
        return NULL;
}

bool cluster_node_take_retired(ClusterNode *n, uint64_t attempt, ClusterRetired *ret) {
        for (size_t i = 0; i < n->n_retired; i++) {
                if (n->retired[i].attempt != attempt)
                        continue;
                *ret = n->retired[i];
                memmove(&n->retired[i], &n->retired[i + 1],
                        (n->n_retired - i - 1) * sizeof(*n->retired));
                n->n_retired--;
                return true;
        }
        return false;
}

int cluster_attempt_retire(Cluster *c, ClusterTask *t, unsigned i, const char *reason) {
        ClusterNode *n = cluster_node_lookup(c, t->attempts[i].node);
        const AttemptRef *ref = index_find(c, t->attempts[i].id);
        int r = 0;

        if (n) {
                r = cluster_node_queue_kill(n, t->attempts[i].id, reason);
                if (r >= 0 && ref)
                        r = cluster_node_retire(
                                n, &(ClusterRetired){ .attempt = t->attempts[i].id,
                                                      .job = ref->job,
                                                      .type = t->type,
                                                      .index = t->index,
                                                      .started = t->attempts[i].started,
                                                      .reason = reason });
        }
        cluster_attempt_stop(c, t, i);
        return r;
}

void cluster_task_kill_attempts(Cluster *c, ClusterTask *t, const char *reason) {
        while (t->n_attempts > 0)
                if (cluster_attempt_retire(c, t, 0, reason) < 0)
                        log_oom();
}

void cluster_node_stop_attempts(Cluster *c, ClusterNode *n) {
        /* A stop moves no entry. */
        for (size_t i = 0; i < c->index_used; i++) {
                const AttemptRef *ref = &c->attempt_index[i];

                if (ref->task && ref->node == n->id)
                        cluster_attempt_stop(c, ref->task,
                                             cluster_task_attempt_index(ref->task, ref->attempt));
        }
}

bool cluster_attempt_index_current(const Cluster *c) {
        size_t n = 0;

        if (c->n_indexed > c->index_used || c->index_used > c->index_max)
                return false;
        for (size_t i = 1; i < c->index_used; i++)
                if (c->attempt_index[i - 1].attempt >= c->attempt_index[i].attempt)
                        return false;
        for (size_t j = 0; j < c->n_jobs; j++)
                for (size_t k = 0; k < c->jobs[j].n_tasks; k++) {
                        const ClusterTask *t = &c->jobs[j].tasks[k];

                        for (unsigned a = 0; a < t->n_attempts; a++) {
                                const AttemptRef *ref = index_find(c, t->attempts[a].id);

                                if (!ref || ref->task != t || ref->job != c->jobs[j].info.id ||
                                    ref->node != t->attempts[a].node)
                                        return false;
                                n++;
                        }
                }
        return n == c->n_indexed;
}

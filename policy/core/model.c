/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "common/macro.h"
#include "policy/core/model.h"

static bool share_ok(double x) {
        return isfinite(x) && x >= 0 && x <= 1;
}

static bool arrays_ok(const ClusterSnapshot *s) {
        return (s->hosts || s->n_hosts == 0) && (s->vms || s->n_vms == 0) &&
               (s->nodes || s->n_nodes == 0) && (s->jobs || s->n_jobs == 0) &&
               (s->tasks || s->n_tasks == 0) && (s->attempts || s->n_attempts == 0) &&
               (!s->slots_reported || s->slots_changed || s->n_slots_changed == 0);
}

/* slots_changed names nodes. */
static bool slots_changed_ok(const ClusterSnapshot *s) {
        for (size_t i = 0; s->slots_reported && i < s->n_slots_changed; i++)
                if (s->slots_changed[i] >= s->n_nodes)
                        return false;
        return true;
}

static bool task_ok(const ClusterSnapshot *s, const Task *t) {
        if (t->job >= s->n_jobs || (unsigned)t->type >= _TASK_TYPE_MAX ||
            (unsigned)t->state > TASK_DONE || t->n_locations > MAX_REPLICAS)
                return false;
        for (unsigned k = 0; k < t->n_locations; k++)
                if (t->locations[k] >= s->n_nodes)
                        return false;
        return true;
}

static bool attempt_ok(const ClusterSnapshot *s, const Attempt *a) {
        return a->task < s->n_tasks && a->node < s->n_nodes &&
               s->nodes[a->node].state != NODE_LOST && (unsigned)a->slot < _SLOT_TYPE_MAX &&
               s->tasks[a->task].state == TASK_RUNNING && share_ok(a->progress) &&
               share_ok(a->cpu) && share_ok(a->iowait) && share_ok(a->steal) &&
               a->resize_count <= a->kill_count;
}

static bool job_tasks_ok(const ClusterSnapshot *s, uint32_t job, const JobTasks *jt) {
        TaskCounts counted[_TASK_TYPE_MAX] = {};
        const TaskCounts *c = s->jobs[job].counts;

        if (jt->count > s->n_tasks - jt->first)
                return false;
        for (unsigned type = 0; type < _TASK_TYPE_MAX; type++)
                if (jt->first_pending[type] < jt->first ||
                    jt->first_pending[type] > jt->first + jt->count)
                        return false;
        for (uint32_t i = jt->first; i < jt->first + jt->count; i++) {
                const Task *t = &s->tasks[i];

                if (t->job != job || (t->state == TASK_PENDING && i < jt->first_pending[t->type]))
                        return false;
                counted[t->type].total++;
                counted[t->type].done += t->state == TASK_DONE;
                counted[t->type].running += t->state == TASK_RUNNING;
        }
        /* What the counts have beyond these tasks are done ones left out. */
        for (unsigned type = 0; type < _TASK_TYPE_MAX; type++)
                if (counted[type].total > c[type].total || counted[type].done > c[type].done ||
                    c[type].total - counted[type].total != c[type].done - counted[type].done ||
                    counted[type].running != c[type].running)
                        return false;
        return true;
}

static bool job_done(const Job *job) {
        return job->counts[TASK_MAP].done == job->counts[TASK_MAP].total &&
               job->counts[TASK_REDUCE].done == job->counts[TASK_REDUCE].total;
}

/* The list of jobs not settled, when there is one, ascends among the jobs
 * after the settled ones; every job it leaves out is done (the settled
 * ones before n_jobs_settled are checked with the others). */
static bool open_jobs_ok(const ClusterSnapshot *s) {
        size_t next = 0;

        if (!s->open_jobs)
                return s->n_open_jobs == 0;
        for (size_t i = 0; i < s->n_open_jobs; i++) {
                uint32_t j = s->open_jobs[i];

                if (j < MAX(next, s->n_jobs_settled) || j >= s->n_jobs)
                        return false;
                for (; next < j; next++)
                        if (!job_done(&s->jobs[next]))
                                return false;
                next = j + 1;
        }
        for (; next < s->n_jobs; next++)
                if (!job_done(&s->jobs[next]))
                        return false;
        return true;
}

/* Tasks were checked first: their types index first_pending. */
static bool all_job_tasks_ok(const ClusterSnapshot *s) {
        size_t next = 0;

        if (!s->job_tasks_kept)
                return s->n_jobs_settled == 0 && !s->open_jobs && s->n_open_jobs == 0;
        if (s->n_jobs_settled > s->n_jobs || !open_jobs_ok(s))
                return false;
        for (size_t j = 0; j < s->n_jobs; j++) {
                const Job *job = &s->jobs[j];
                const JobTasks *jt = &job->tasks;

                if (jt->first != next || !job_tasks_ok(s, (uint32_t)j, jt))
                        return false;
                if (j < s->n_jobs_settled && !job_done(job))
                        return false;
                next += jt->count;
        }
        return next == s->n_tasks;
}

static bool amount_ok(double x) {
        return isfinite(x) && x >= 0;
}

static bool profile_ok(const JobProfile *p) {
        for (unsigned k = 0; k < _PROFILE_PHASE_MAX; k++) {
                const PhaseStats *ps = &p->phases[k];

                if (ps->count == 0 ? ps->total != 0 || ps->min != 0 || ps->max != 0
                                   : ps->min > ps->max || ps->total < ps->max)
                        return false;
        }
        return true;
}

static bool resources_ok(const Resources *r) {
        return amount_ok(r->cpu) && amount_ok(r->io);
}

static bool job_ok(const Job *j) {
        for (unsigned type = 0; type < _TASK_TYPE_MAX; type++)
                if (j->counts[type].done > j->counts[type].total ||
                    j->counts[type].running > j->counts[type].total - j->counts[type].done ||
                    !resources_ok(&j->demand[type]))
                        return false;
        return resources_ok(&j->shuffle) && profile_ok(&j->profile) &&
               (!j->stored_profile || profile_ok(j->stored_profile));
}

int job_validate(const Job *job) {
        return job && job_ok(job) ? 0 : -EINVAL;
}

static bool host_ok(const Host *h) {
        return amount_ok(h->cpu_use) && (host_measured(h) || h->cpu_use == 0);
}

static bool vm_ok(const ClusterSnapshot *s, const Vm *v) {
        return v->host < s->n_hosts && amount_ok(v->cpu_use) && amount_ok(v->cpu_cap) &&
               (vm_measured(v) || (v->cpu_use == 0 && v->memory_used == 0));
}

static bool node_ok(const ClusterSnapshot *s, const Node *n) {
        return n->vm < s->n_vms && !s->vms[n->vm].other_tenant &&
               (unsigned)n->state < _NODE_STATE_MAX && share_ok(n->steal) && share_ok(n->iowait) &&
               (node_measured(n) || (n->steal == 0 && n->iowait == 0)) &&
               resources_ok(&n->capacity);
}

void phase_stats_add(PhaseStats *s, usec_t duration) {
        if (s->count == 0 || duration < s->min)
                s->min = duration;
        s->max = MAX(s->max, duration);
        s->total += duration;
        s->count++;
}

usec_t phase_stats_mean(const PhaseStats *s) {
        return s->count > 0 ? s->total / s->count : 0;
}

void job_profile_add_task(JobProfile *p, TaskType type, usec_t started, usec_t shuffle_end,
                          usec_t finished, usec_t maps_finished) {
        bool first_wave = started < maps_finished;

        finished = MAX(finished, started);
        if (type == TASK_MAP) {
                phase_stats_add(&p->phases[PROFILE_MAP], finished - started);
                return;
        }
        /* A reduce cannot end its shuffle before the last map's output is
         * in, nor before it started. */
        shuffle_end = MIN(MAX(shuffle_end, first_wave ? maps_finished : started), finished);
        if (first_wave)
                phase_stats_add(&p->phases[PROFILE_FIRST_SHUFFLE], shuffle_end - maps_finished);
        else
                phase_stats_add(&p->phases[PROFILE_TYPICAL_SHUFFLE], shuffle_end - started);
        phase_stats_add(&p->phases[PROFILE_REDUCE], finished - shuffle_end);
}

static void node_attempts_add(NodeAttempts *n, SlotType slot, TaskType type, uint64_t slot_memory,
                              bool add) {
        if (add) {
                n->held[slot][type]++;
                n->slot_memory += slot_memory;
        } else {
                n->held[slot][type]--;
                n->slot_memory -= slot_memory;
        }
}

void attempt_counted(NodeAttempts *node, NodeAttempts *total, Task *task, SlotType slot,
                     uint64_t slot_memory, bool add) {
        node_attempts_add(node, slot, task->type, slot_memory, add);
        node_attempts_add(total, slot, task->type, slot_memory, add);
        if (add)
                task->running_attempts++;
        else
                task->running_attempts--;
}

bool node_attempts_same(const NodeAttempts *a, const NodeAttempts *b) {
        for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++)
                for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                        if (a->held[slot][type] != b->held[slot][type])
                                return false;
        return a->slot_memory == b->slot_memory;
}

bool host_same(const Host *a, const Host *b) {
        return a->id == b->id && a->pcpus == b->pcpus && a->memory == b->memory &&
               a->disk_bandwidth == b->disk_bandwidth && a->cpu_use == b->cpu_use &&
               a->measured_at == b->measured_at;
}

bool vm_same(const Vm *a, const Vm *b) {
        return a->id == b->id && a->host == b->host && a->vcpus == b->vcpus &&
               a->vcpus_max == b->vcpus_max && a->memory == b->memory &&
               a->memory_max == b->memory_max && a->cpu_weight == b->cpu_weight &&
               a->cpu_cap == b->cpu_cap && a->cpu_use == b->cpu_use &&
               a->memory_used == b->memory_used && a->measured_at == b->measured_at &&
               a->other_tenant == b->other_tenant && a->unmanaged == b->unmanaged;
}

bool attempt_same(const Attempt *a, const Attempt *b) {
        return a->id == b->id && a->task == b->task && a->node == b->node && a->slot == b->slot &&
               a->slot_memory == b->slot_memory && a->started == b->started &&
               a->progress == b->progress && a->bytes_processed == b->bytes_processed &&
               a->input_size == b->input_size && a->cpu == b->cpu && a->iowait == b->iowait &&
               a->steal == b->steal && a->speculative == b->speculative &&
               a->kill_count == b->kill_count && a->resize_count == b->resize_count;
}

/* The driver's counts of the attempts are theirs (attempts were checked). */
static int attempt_counts_check(const ClusterSnapshot *s) {
        _cleanup_free_ NodeAttempts *nodes = NULL;
        _cleanup_free_ unsigned *tasks = NULL;
        NodeAttempts total = {};

        if (!s->node_attempts)
                return 0;
        if (!s->attempts_total)
                return -EINVAL;
        nodes = calloc(MAX(s->n_nodes, (size_t)1), sizeof(*nodes));
        tasks = calloc(MAX(s->n_tasks, (size_t)1), sizeof(*tasks));
        if (!nodes || !tasks)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_attempts; i++) {
                const Attempt *a = &s->attempts[i];

                node_attempts_add(&nodes[a->node], a->slot, s->tasks[a->task].type, a->slot_memory,
                                  true);
                node_attempts_add(&total, a->slot, s->tasks[a->task].type, a->slot_memory, true);
                tasks[a->task]++;
        }
        if (!node_attempts_same(&total, s->attempts_total))
                return -EINVAL;
        for (size_t i = 0; i < s->n_nodes; i++)
                if (!node_attempts_same(&nodes[i], &s->node_attempts[i]))
                        return -EINVAL;
        for (size_t i = 0; i < s->n_tasks; i++)
                if (tasks[i] != s->tasks[i].running_attempts)
                        return -EINVAL;
        return 0;
}

bool task_is_local(const Task *t, uint32_t node) {
        for (unsigned i = 0; i < t->n_locations && i < MAX_REPLICAS; i++)
                if (t->locations[i] == node)
                        return true;
        return false;
}

void changed_list_add(uint32_t *list, size_t *n, bool *listed, uint32_t i) {
        if (listed[i])
                return;
        listed[i] = true;
        list[(*n)++] = i;
}

void changed_list_clear(const uint32_t *list, size_t *n, bool *listed) {
        for (size_t k = 0; k < *n; k++)
                listed[list[k]] = false;
        *n = 0;
}

void snapshot_fill_attempts(const ClusterSnapshot *s) {
        for (uint32_t i = 0; s->fill_attempt && i < s->n_attempts; i++)
                s->fill_attempt(s->fill_attempt_data, i);
}

int snapshot_validate(const ClusterSnapshot *s) {
        if (!s || !arrays_ok(s) || !slots_changed_ok(s))
                return -EINVAL;
        for (size_t i = 0; i < s->n_hosts; i++)
                if (!host_ok(&s->hosts[i]))
                        return -EINVAL;
        for (size_t i = 0; i < s->n_vms; i++)
                if (!vm_ok(s, &s->vms[i]))
                        return -EINVAL;
        for (size_t i = 0; i < s->n_nodes; i++)
                if (!node_ok(s, &s->nodes[i]))
                        return -EINVAL;
        for (size_t i = 0; i < s->n_jobs; i++)
                if (!job_ok(&s->jobs[i]))
                        return -EINVAL;
        for (size_t i = 0; i < s->n_tasks; i++)
                if (!task_ok(s, &s->tasks[i]))
                        return -EINVAL;
        for (size_t i = 0; i < s->n_attempts; i++)
                if (!attempt_ok(s, &s->attempts[i]))
                        return -EINVAL;
        if (!all_job_tasks_ok(s))
                return -EINVAL;
        return attempt_counts_check(s);
}

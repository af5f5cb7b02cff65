/* SPDX-License-Identifier: MIT */
/* The policy step's ClusterSnapshot of the model: built, kept from step to
 * step while only what heartbeats measure changes, refreshed with those
 * measures, and in tests verified against a new build. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "controller/daemon/cluster-internal.h"

static void snapshot_done(Snapshot *s) {
        free(s->hosts);
        free(s->vms);
        free(s->nodes);
        free(s->jobs);
        free(s->tasks);
        free(s->attempts);
        free(s->task_of);
        free(s->attempt_of);
}

/* The model changed beyond what heartbeats measure: the next step builds
 * its snapshot anew. */
void cluster_snapshot_drop(Cluster *c) {
        if (!c->snapshot)
                return;
        snapshot_done(c->snapshot);
        free(c->snapshot);
        c->snapshot = NULL;
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

/* The index of a VM's host in hosts, added when new: its agent's, shared
 * by the VMs that agent runs, or one of its own (alone) of one CPU and no
 * memory to share when no agent knows the VM. */
static uint32_t host_of_vm(const ClusterVmState *vm, uint64_t alone, Host *hosts, size_t *n_hosts) {
        for (size_t h = 0; vm->host != 0 && h < *n_hosts; h++)
                if (hosts[h].id == vm->host)
                        return (uint32_t)h;
        hosts[*n_hosts] = vm->host != 0 ? (Host){ .id = vm->host,
                                                  .pcpus = vm->host_cpus,
                                                  .memory = vm->host_memory }
                                        : (Host){ .id = alone, .pcpus = 1 };
        return (uint32_t)(*n_hosts)++;
}

/* The agent's view of the VM (id), else one vCPU and nothing known. */
static Vm vm_of_state(const ClusterVmState *v, uint64_t id, uint32_t host) {
        Vm vm = { .id = id, .host = host, .vcpus = 1, .vcpus_max = 1, .cpu_weight = 1024 };

        if (v->host == 0)
                return vm;
        vm.vcpus = v->vcpus;
        vm.vcpus_max = MAX(v->vcpus_max, v->vcpus);
        vm.memory = v->memory;
        vm.memory_max = MAX(v->memory_max, v->memory);
        if (v->cpu_weight)
                vm.cpu_weight = v->cpu_weight;
        vm.cpu_cap = v->cpu_cap;
        if (v->measured_at) {
                vm.cpu_use = v->cpu_use;
                vm.memory_used = v->memory_used;
                vm.measured_at = v->measured_at;
        }
        return vm;
}

size_t cluster_snapshot_vms(const Cluster *c) {
        return c->n_nodes + c->n_tenants;
}

void cluster_snapshot_nodes(const Cluster *c, Host *hosts, size_t *ret_n_hosts, Vm *vms,
                            Node *nodes) {
        *ret_n_hosts = 0;
        for (size_t i = 0; i < c->n_nodes; i++) {
                const ClusterNode *cn = &c->nodes[i];
                double steal = 0;
                usec_t steal_at = 0;

                (void)cluster_node_steal(cn, &steal, &steal_at);
                /* Agents' hosts are numbered apart from a lone VM's. */
                vms[i] = vm_of_state(&cn->vm, cn->id,
                                     host_of_vm(&cn->vm, UINT64_MAX - cn->id, hosts, ret_n_hosts));
                nodes[i] = (Node){
                        .id = cn->id,
                        .vm = (uint32_t)i,
                        .state = cn->state,
                        .slots = { cn->slots[SLOT_MAP], cn->slots[SLOT_REDUCE] },
                        .slot_memory = cn->slot_memory,
                        .steal = steal,
                        .iowait = cn->measured_at ? cn->iowait : 0,
                        .measured_at = steal_at,
                        .last_heartbeat = cn->measured_at,
                        .slots_changed_at = cn->slots_changed_at,
                };
        }
        for (size_t k = 0; k < c->n_tenants; k++) {
                const ClusterTenantVm *t = &c->tenants[k];

                vms[c->n_nodes + k] =
                        vm_of_state(&t->vm, t->id, host_of_vm(&t->vm, 0, hosts, ret_n_hosts));
                vms[c->n_nodes + k].other_tenant = true;
        }
}

/* Whether the tenants' VMs are those of vms, in their order. */
static bool tenants_same(const Cluster *c, const ClusterTenantVm *vms, size_t n) {
        if (n != c->n_tenants)
                return false;
        for (size_t k = 0; k < n; k++)
                if (strcmp(vms[k].uuid, c->tenants[k].uuid) != 0)
                        return false;
        return true;
}

int cluster_set_tenants(Cluster *c, const ClusterTenantVm *vms, size_t n) {
        ClusterTenantVm *next;

        if (tenants_same(c, vms, n)) {
                for (size_t k = 0; k < n; k++)
                        c->tenants[k].vm = vms[k].vm;
                return 0;
        }
        next = n > 0 ? calloc(n, sizeof(*next)) : NULL;
        if (n > 0 && !next)
                return -ENOMEM;
        for (size_t k = 0; k < n; k++) {
                const ClusterTenantVm *seen = NULL;

                for (size_t i = 0; !seen && i < c->n_tenants; i++)
                        if (strcmp(c->tenants[i].uuid, vms[k].uuid) == 0)
                                seen = &c->tenants[i];
                next[k] = vms[k];
                next[k].id = seen ? seen->id : CLUSTER_TENANT_VM_ID_BASE + c->next_tenant++;
                next[k].lever = seen ? seen->lever : (ClusterLever){ 0 };
        }
        free(c->tenants);
        c->tenants = next;
        c->n_tenants = n;
        /* The VMs moved: the kept snapshot and the last control cycle's VM
         * targets name them by index. */
        cluster_snapshot_drop(c);
        c->decisions.n_vm_targets = 0;
        return 0;
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

/* Hosts, VMs and trackers: what agents and heartbeats change all the time,
 * done again at every step. */
static void snapshot_nodes(const Cluster *c, Snapshot *s) {
        cluster_snapshot_nodes(c, s->hosts, &s->n_hosts, s->vms, s->nodes);
        s->s.hosts = s->hosts;
        s->s.n_hosts = s->n_hosts;
}

/* What a kept snapshot's heartbeats changed: the trackers, the running
 * attempts' measures, and the quotas the last step gave. */
static void snapshot_refresh(const Cluster *c, Snapshot *s) {
        snapshot_nodes(c, s);
        for (size_t j = 0; j < s->s.n_jobs; j++)
                memcpy(s->jobs[j].quota, c->jobs[j].quota, sizeof(s->jobs[j].quota));
        for (size_t i = 0; i < s->s.n_attempts; i++) {
                const ClusterAttempt *at = s->attempt_of[i];
                const ClusterTask *t = s->task_of[s->attempts[i].task];
                Attempt *a = &s->attempts[i];

                s->tasks[a->task].input_size = t->input_size;
                a->progress = at->progress;
                a->bytes_processed = at->bytes_processed;
                a->input_size = t->input_size;
                a->cpu = at->cpu;
                a->iowait = at->iowait;
                a->steal = s->nodes[a->node].steal;
        }
}

/* A host per agent, one VM per tracker. Done tasks are left out, counted in
 * their job. */
static int snapshot_build(const Cluster *c, Snapshot *ret) {
        size_t n_tasks = 0, n_attempts = 0, cap = 1, nn = MAX(c->n_nodes, (size_t)1),
               nv = MAX(cluster_snapshot_vms(c), (size_t)1);
        Snapshot s = { 0 };

        /* Room for every task, done or not, and not zeroed: a pass to
         * count the tasks left, or clearing the room, cost a heartbeat as
         * much as filling it, and each entry used is written whole. */
        for (size_t j = 0; j < c->n_jobs; j++)
                cap += c->jobs[j].n_tasks;
        s.hosts = calloc(nv, sizeof(*s.hosts));
        s.vms = calloc(nv, sizeof(*s.vms));
        s.nodes = calloc(nn, sizeof(*s.nodes));
        s.jobs = calloc(MAX(c->n_jobs, (size_t)1), sizeof(*s.jobs));
        s.tasks = malloc(cap * sizeof(*s.tasks));
        s.attempts = malloc(cap * CLUSTER_ATTEMPTS_MAX * sizeof(*s.attempts));
        s.task_of = malloc(cap * sizeof(ClusterTask *));
        s.attempt_of = malloc(cap * CLUSTER_ATTEMPTS_MAX * sizeof(ClusterAttempt *));
        if (!s.hosts || !s.vms || !s.nodes || !s.jobs || !s.tasks || !s.attempts || !s.task_of ||
            !s.attempt_of) {
                snapshot_done(&s);
                return -ENOMEM;
        }
        snapshot_nodes(c, &s);
        for (size_t j = 0; j < c->n_jobs; j++) {
                const ClusterJob *cj = &c->jobs[j];
                Job *job = &s.jobs[j];

                *job = (Job){ .id = cj->info.id,
                              .submitted = cj->info.submitted,
                              .deadline = cj->info.deadline,
                              .pool = cj->pool,
                              .input_size = cj->input_size,
                              .profile = cj->run_profile,
                              .quota = { cj->quota[SLOT_MAP], cj->quota[SLOT_REDUCE] },
                              .tasks = { .first = (uint32_t)n_tasks,
                                         .first_pending = { UINT32_MAX, UINT32_MAX } } };
                if (cj->profile.job)
                        job->stored_profile = &cj->profile.phases;
                for (size_t i = 0; i < cj->n_tasks; i++) {
                        ClusterTask *t = &cj->tasks[i];
                        TaskCounts *counts = &job->counts[t->type];
                        TaskState state;

                        counts->total++;
                        counts->failed += t->failures;
                        counts->killed += t->kills;
                        if (t->state == TASK_DONE) {
                                counts->done++;
                                continue;
                        }
                        /* A held task is no one's to run: to the
                         * policy, one that runs. */
                        state = t->held > 0 && t->state == TASK_PENDING ? TASK_RUNNING : t->state;
                        if (state == TASK_PENDING &&
                            job->tasks.first_pending[t->type] == UINT32_MAX)
                                job->tasks.first_pending[t->type] = (uint32_t)n_tasks;
                        s.task_of[n_tasks] = t;
                        s.tasks[n_tasks] =
                                (Task){ .id = t->type == TASK_MAP
                                                      ? cj->info.id << 24 | t->index
                                                      : cj->info.id << 24 | 1u << 23 | t->index,
                                        .job = (uint32_t)j,
                                        .type = t->type,
                                        .state = state,
                                        .input_size = t->input_size,
                                        .slot_memory = t->slot_memory };
                        /* Counts are per task; LATE reads each attempt's
                         * own progress rate. Only a running attempt has a
                         * node to look up: a lookup per task was most of a
                         * heartbeat's time. */
                        counts->running += state == TASK_RUNNING;
                        for (unsigned a = 0; a < t->n_attempts; a++) {
                                const ClusterAttempt *at = &t->attempts[a];
                                uint32_t node = cluster_node_index(c, at->node);

                                if (node == NO_INDEX)
                                        continue;
                                s.attempt_of[n_attempts] = at;
                                s.attempts[n_attempts++] = (Attempt){
                                        .id = at->id,
                                        .task = (uint32_t)n_tasks,
                                        .node = node,
                                        .slot = at->slot,
                                        .slot_memory = at->slot_memory ? at->slot_memory
                                                                       : c->nodes[node].slot_memory,
                                        .started = at->started,
                                        .progress = at->progress,
                                        .bytes_processed = at->bytes_processed,
                                        .input_size = t->input_size,
                                        .cpu = at->cpu,
                                        .iowait = at->iowait,
                                        /* The tracker measures steal per
                                         * node only. */
                                        .steal = s.nodes[node].steal,
                                        .speculative = at->speculative,
                                        .kill_count = t->kills,
                                        .resize_count = t->resizes,
                                };
                        }
                        n_tasks++;
                }
                job->tasks.count = (uint32_t)n_tasks - job->tasks.first;
                for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                        if (job->tasks.first_pending[type] == UINT32_MAX)
                                job->tasks.first_pending[type] = (uint32_t)n_tasks;
        }
        s.s = (ClusterSnapshot){ .hosts = s.hosts,
                                 .n_hosts = s.n_hosts,
                                 .vms = s.vms,
                                 .n_vms = cluster_snapshot_vms(c),
                                 .nodes = s.nodes,
                                 .n_nodes = c->n_nodes,
                                 .jobs = s.jobs,
                                 .n_jobs = c->n_jobs,
                                 .tasks = s.tasks,
                                 .n_tasks = n_tasks,
                                 .attempts = s.attempts,
                                 .n_attempts = n_attempts,
                                 /* Done tasks left out are in the counts. */
                                 .job_tasks_kept = true };
        *ret = s;
        return 0;
}

/* Field by field: what a step may read. */
static bool nodes_same(const Node *a, const Node *b) {
        return a->id == b->id && a->vm == b->vm && a->state == b->state &&
               a->slots[SLOT_MAP] == b->slots[SLOT_MAP] &&
               a->slots[SLOT_REDUCE] == b->slots[SLOT_REDUCE] && a->slot_memory == b->slot_memory &&
               a->steal == b->steal && a->iowait == b->iowait && a->measured_at == b->measured_at &&
               a->last_heartbeat == b->last_heartbeat && a->slots_changed_at == b->slots_changed_at;
}

static bool counts_same(const TaskCounts *a, const TaskCounts *b) {
        return a->total == b->total && a->done == b->done && a->running == b->running &&
               a->failed == b->failed && a->killed == b->killed;
}

static bool profiles_same(const JobProfile *a, const JobProfile *b) {
        for (ProfilePhase k = 0; k < _PROFILE_PHASE_MAX; k++) {
                const PhaseStats *x = &a->phases[k], *y = &b->phases[k];

                if (x->count != y->count || x->total != y->total || x->min != y->min ||
                    x->max != y->max)
                        return false;
        }
        return true;
}

static bool jobs_same(const Job *a, const Job *b) {
        return a->id == b->id && a->submitted == b->submitted && a->deadline == b->deadline &&
               a->pool == b->pool && a->input_size == b->input_size &&
               profiles_same(&a->profile, &b->profile) && a->stored_profile == b->stored_profile &&
               counts_same(&a->counts[TASK_MAP], &b->counts[TASK_MAP]) &&
               counts_same(&a->counts[TASK_REDUCE], &b->counts[TASK_REDUCE]) &&
               a->tasks.first == b->tasks.first && a->tasks.count == b->tasks.count &&
               a->tasks.first_pending[TASK_MAP] == b->tasks.first_pending[TASK_MAP] &&
               a->tasks.first_pending[TASK_REDUCE] == b->tasks.first_pending[TASK_REDUCE] &&
               a->quota[SLOT_MAP] == b->quota[SLOT_MAP] &&
               a->quota[SLOT_REDUCE] == b->quota[SLOT_REDUCE];
}

static bool tasks_same(const Task *a, const Task *b) {
        return a->id == b->id && a->job == b->job && a->type == b->type && a->state == b->state &&
               a->input_size == b->input_size && a->slot_memory == b->slot_memory;
}

static bool attempts_same(const Attempt *a, const Attempt *b) {
        return a->id == b->id && a->task == b->task && a->node == b->node && a->slot == b->slot &&
               a->slot_memory == b->slot_memory && a->started == b->started &&
               a->progress == b->progress && a->bytes_processed == b->bytes_processed &&
               a->input_size == b->input_size && a->cpu == b->cpu && a->iowait == b->iowait &&
               a->steal == b->steal && a->speculative == b->speculative &&
               a->kill_count == b->kill_count && a->resize_count == b->resize_count;
}

bool cluster_snapshot_current(Cluster *c) {
        const Snapshot *k = c->snapshot;
        Snapshot f;
        bool same;

        if (!k)
                return true;
        snapshot_refresh(c, c->snapshot);
        if (snapshot_build(c, &f) < 0)
                return false;
        same = k->s.n_hosts == f.s.n_hosts && k->s.n_vms == f.s.n_vms &&
               k->s.n_nodes == f.s.n_nodes && k->s.n_jobs == f.s.n_jobs &&
               k->s.n_tasks == f.s.n_tasks && k->s.n_attempts == f.s.n_attempts;
        for (size_t i = 0; same && i < f.s.n_nodes; i++)
                same = nodes_same(&k->nodes[i], &f.nodes[i]);
        for (size_t i = 0; same && i < f.s.n_jobs; i++)
                same = jobs_same(&k->jobs[i], &f.jobs[i]);
        for (size_t i = 0; same && i < f.s.n_tasks; i++)
                same = tasks_same(&k->tasks[i], &f.tasks[i]) && k->task_of[i] == f.task_of[i];
        for (size_t i = 0; same && i < f.s.n_attempts; i++)
                same = attempts_same(&k->attempts[i], &f.attempts[i]) &&
                       k->attempt_of[i] == f.attempt_of[i];
        snapshot_done(&f);
        return same;
}

/* The step's snapshot: the last one's with what heartbeats measured since,
 * while nothing else changed (a heartbeat that finishes, starts or kills
 * nothing, the steady state of a busy cluster); else a new one. A pass
 * over every task is most of a heartbeat's cost when thousands wait. */
int cluster_snapshot_prepare(Cluster *c, unsigned *flags) {
        Snapshot *s;
        int r;

        if (c->snapshot) {
                snapshot_refresh(c, c->snapshot);
                /* Tests: a change that did not drop it shows here. */
                assert(!c->verify_snapshot || cluster_snapshot_current(c));
                /* Checked when it was built; measures are checked as they
                 * come (report_check()). */
                *flags |= POLICY_STEP_TRUSTED;
                return 0;
        }
        s = malloc(sizeof(*s));
        if (!s)
                return -ENOMEM;
        r = snapshot_build(c, s);
        if (r < 0) {
                free(s);
                return r;
        }
        c->snapshot = s;
        return 0;
}

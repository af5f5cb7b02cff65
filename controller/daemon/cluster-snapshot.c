/* SPDX-License-Identifier: MIT */
/* The policy step's ClusterSnapshot of the model: built once, then kept
 * from step to step and changed where the model changed, the tasks whose
 * state or attempts did and the nodes heard from, so that a heartbeat
 * costs what it changed and not what waits; in tests verified against a
 * new build. Jobs that come or go are added or taken out, and a step's
 * quotas written in; trackers, or other tenants' VMs, that come, go or are
 * lost make a new one. */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "controller/daemon/cluster-snapshot.h"

static void snapshot_done(Snapshot *s) {
        cluster_snapshot_arrays_done(&s->a);
        free(s->task_of);
        free(s->job_gone);
        free(s->stored);
        free(s->first_on_node);
        free(s->node_attempts);
        free(s->next_on_node);
        free(s->prev_on_node);
        free(s->changed);
        free(s->stale_nodes);
        free(s->node_stale);
        free(s->slots_changed);
        free(s->slots_listed);
        free(s->jobs_changed);
        free(s->job_listed);
}

void cluster_snapshot_drop(Cluster *c) {
        if (!c->snapshot)
                return;
        snapshot_done(c->snapshot);
        free(c->snapshot);
        c->snapshot = NULL;
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
        vm.unmanaged = v->unmanaged;
        if (v->measured_at) {
                vm.cpu_use = v->cpu_use;
                vm.memory_used = v->memory_used;
                vm.measured_at = v->measured_at;
        }
        return vm;
}

static Node node_of(const ClusterNode *cn, uint32_t i) {
        double steal = 0;
        usec_t steal_at = 0;

        (void)cluster_node_steal(cn, &steal, &steal_at);
        return (Node){
                .id = cn->id,
                .vm = i,
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

size_t cluster_snapshot_vms(const Cluster *c) {
        return c->n_nodes + c->n_tenants;
}

void cluster_snapshot_nodes(const Cluster *c, Host *hosts, size_t *ret_n_hosts, Vm *vms,
                            Node *nodes) {
        *ret_n_hosts = 0;
        for (size_t i = 0; i < c->n_nodes; i++) {
                const ClusterNode *cn = &c->nodes[i];

                /* Agents' hosts are numbered apart from a lone VM's. */
                vms[i] = vm_of_state(&cn->vm, cn->id,
                                     host_of_vm(&cn->vm, UINT64_MAX - cn->id, hosts, ret_n_hosts));
                nodes[i] = node_of(cn, (uint32_t)i);
        }
        for (size_t k = 0; k < c->n_tenants; k++) {
                const ClusterTenantVm *t = &c->tenants[k];

                vms[c->n_nodes + k] =
                        vm_of_state(&t->vm, t->id, host_of_vm(&t->vm, 0, hosts, ret_n_hosts));
                vms[c->n_nodes + k].other_tenant = true;
        }
}

/* Hosts, VMs and trackers, all of them, and the tenants' VMs: what agents
 * say changes them all. */
static void snapshot_nodes(const Cluster *c, Snapshot *s) {
        cluster_snapshot_nodes(c, s->a.hosts, &s->a.n_hosts, s->a.vms, s->a.nodes);
        s->s.n_hosts = s->a.n_hosts;
}

int cluster_snapshot_arrays_new(const Cluster *c, size_t n_jobs, size_t n_tasks, size_t n_attempts,
                                SnapshotArrays *ret) {
        size_t nn = MAX(c->n_nodes, (size_t)1), nv = MAX(cluster_snapshot_vms(c), (size_t)1);
        SnapshotArrays a = { 0 };

        a.hosts = calloc(nv, sizeof(*a.hosts));
        a.vms = calloc(nv, sizeof(*a.vms));
        a.nodes = calloc(nn, sizeof(*a.nodes));
        a.jobs = calloc(MAX(n_jobs, (size_t)1), sizeof(*a.jobs));
        a.tasks = malloc(MAX(n_tasks, (size_t)1) * sizeof(*a.tasks));
        a.attempts = malloc(MAX(n_attempts, (size_t)1) * sizeof(*a.attempts));
        if (!a.hosts || !a.vms || !a.nodes || !a.jobs || !a.tasks || !a.attempts) {
                cluster_snapshot_arrays_done(&a);
                return -ENOMEM;
        }
        cluster_snapshot_nodes(c, a.hosts, &a.n_hosts, a.vms, a.nodes);
        *ret = a;
        return 0;
}

void cluster_snapshot_arrays_done(SnapshotArrays *a) {
        free(a->hosts);
        free(a->vms);
        free(a->nodes);
        free(a->jobs);
        free(a->tasks);
        free(a->attempts);
        *a = (SnapshotArrays){ 0 };
}

ClusterSnapshot cluster_snapshot_of(const Cluster *c, const SnapshotArrays *a, size_t n_jobs,
                                    size_t n_tasks, size_t n_attempts) {
        return (ClusterSnapshot){ .hosts = a->hosts,
                                  .n_hosts = a->n_hosts,
                                  .vms = a->vms,
                                  .n_vms = cluster_snapshot_vms(c),
                                  .nodes = a->nodes,
                                  .n_nodes = c->n_nodes,
                                  .jobs = a->jobs,
                                  .n_jobs = n_jobs,
                                  .tasks = a->tasks,
                                  .n_tasks = n_tasks,
                                  .attempts = a->attempts,
                                  .n_attempts = n_attempts,
                                  .job_tasks_kept = true };
}

/* A heartbeat's tracker: its VM on the host it had (only agents move it),
 * and the node listed for the step when its slots changed. */
static void snapshot_node(const Cluster *c, Snapshot *s, uint32_t i) {
        Node was = s->a.nodes[i];

        s->a.vms[i] = vm_of_state(&c->nodes[i].vm, c->nodes[i].id, s->a.vms[i].host);
        s->a.nodes[i] = node_of(&c->nodes[i], i);
        if (was.slots[SLOT_MAP] != s->a.nodes[i].slots[SLOT_MAP] ||
            was.slots[SLOT_REDUCE] != s->a.nodes[i].slots[SLOT_REDUCE])
                changed_list_add(s->slots_changed, &s->n_slots_changed, s->slots_listed, i);
}

/* As the policy sees a task: a held one is no one's to run, so to the
 * policy one that runs. */
static TaskState task_state(const ClusterTask *t) {
        return t->held > 0 && t->state == TASK_PENDING ? TASK_RUNNING : t->state;
}

static Task task_entry(const ClusterJob *cj, uint32_t j, const ClusterTask *t) {
        return (Task){ .id = t->type == TASK_MAP ? cj->info.id << 24 | t->index
                                                 : cj->info.id << 24 | 1u << 23 | t->index,
                       .job = j,
                       .type = t->type,
                       .state = task_state(t),
                       .input_size = t->input_size,
                       .slot_memory = t->slot_memory };
}

/* What task k adds to its job's counts, or takes back from them. */
static void counts_add(Snapshot *s, uint32_t k, bool add) {
        const Task *t = &s->a.tasks[k];
        const SnapshotTask *st = &s->task_of[k];
        TaskCounts *counts = &s->a.jobs[t->job].counts[t->type];

        if (add) {
                counts->done += t->state == TASK_DONE;
                counts->running += t->state == TASK_RUNNING;
                counts->failed += st->failures;
                counts->killed += st->kills;
        } else {
                counts->done -= t->state == TASK_DONE;
                counts->running -= t->state == TASK_RUNNING;
                counts->failed -= st->failures;
                counts->killed -= st->kills;
        }
}

static void node_list_add(Snapshot *s, uint32_t i) {
        uint32_t node = s->a.attempts[i].node, first = s->first_on_node[node];

        s->prev_on_node[i] = NO_INDEX;
        s->next_on_node[i] = first;
        if (first != NO_INDEX)
                s->prev_on_node[first] = i;
        s->first_on_node[node] = i;
}

static void node_list_remove(Snapshot *s, uint32_t i) {
        uint32_t prev = s->prev_on_node[i], next = s->next_on_node[i];

        if (prev != NO_INDEX)
                s->next_on_node[prev] = next;
        else
                s->first_on_node[s->a.attempts[i].node] = next;
        if (next != NO_INDEX)
                s->prev_on_node[next] = prev;
}

/* The figures of attempt a that move with time (model.h's
 * ClusterSnapshot.fill_attempt), from at, its task t and its node. */
static void attempt_figures(Attempt *a, const ClusterAttempt *at, const ClusterTask *t,
                            const Node *node) {
        a->progress = at->progress;
        a->bytes_processed = at->bytes_processed;
        a->cpu = at->cpu;
        a->iowait = at->iowait;
        /* The tracker measures steal per node only. */
        a->steal = node->steal;
        a->resize_count = t->resizes;
}

/* Task k's running attempts, from its task in the model, each on its
 * node. Only a running attempt has a node to look up: a lookup per task
 * was most of a heartbeat's time. */
static void attempts_add(const Cluster *c, Snapshot *s, uint32_t k) {
        SnapshotTask *st = &s->task_of[k];
        const ClusterTask *t = st->task;
        unsigned n = 0;

        for (unsigned a = 0; a < t->n_attempts; a++) {
                const ClusterAttempt *at = &t->attempts[a];
                uint32_t node = cluster_node_index(c, at->node), i;

                if (node == NO_INDEX)
                        continue;
                i = (uint32_t)s->s.n_attempts++;
                /* Counts are per task; LATE reads each attempt's own
                 * progress rate. */
                s->a.attempts[i] = (Attempt){
                        .id = at->id,
                        .task = k,
                        .node = node,
                        .slot = at->slot,
                        .slot_memory =
                                at->slot_memory ? at->slot_memory : c->nodes[node].slot_memory,
                        .started = at->started,
                        .input_size = t->input_size,
                        .speculative = at->speculative,
                        .kill_count = t->kills,
                };
                attempt_figures(&s->a.attempts[i], at, t, &s->a.nodes[node]);
                st->attempts[n++] = i;
                node_list_add(s, i);
                attempt_counted(&s->node_attempts[node], &s->attempts_total, &s->a.tasks[k],
                                at->slot, s->a.attempts[i].slot_memory, true);
        }
        for (; n < CLUSTER_ATTEMPTS_MAX; n++)
                st->attempts[n] = NO_INDEX;
}

/* Attempt i leaves; the last takes its index. */
static void attempt_remove(Snapshot *s, uint32_t i) {
        uint32_t last = (uint32_t)s->s.n_attempts - 1;
        const Attempt *gone = &s->a.attempts[i];

        attempt_counted(&s->node_attempts[gone->node], &s->attempts_total, &s->a.tasks[gone->task],
                        gone->slot, gone->slot_memory, false);
        node_list_remove(s, i);
        if (i != last) {
                SnapshotTask *moved = &s->task_of[s->a.attempts[last].task];

                node_list_remove(s, last);
                s->a.attempts[i] = s->a.attempts[last];
                for (unsigned a = 0; a < CLUSTER_ATTEMPTS_MAX; a++)
                        if (moved->attempts[a] == last)
                                moved->attempts[a] = i;
                node_list_add(s, i);
        }
        s->s.n_attempts--;
}

static void attempts_remove(Snapshot *s, uint32_t k) {
        SnapshotTask *st = &s->task_of[k];

        /* A removal may move the task's other attempt into the index of
         * the one removed. */
        for (unsigned a = 0; a < CLUSTER_ATTEMPTS_MAX; a++)
                while (st->attempts[a] != NO_INDEX) {
                        uint32_t i = st->attempts[a];

                        st->attempts[a] = NO_INDEX;
                        attempt_remove(s, i);
                }
}

/* The figures of attempt i that move with time, from its tracker's last
 * heartbeat and its node's steal, as a step reads them
 * (ClusterSnapshot.fill_attempt): a heartbeat's step reads none of most
 * attempts, and an agent's report, which changes every node's steal, no
 * longer costs a pass over every attempt. */
static void attempt_fill(void *data, uint32_t i) {
        Snapshot *s = data;
        Attempt *a = &s->a.attempts[i];
        const ClusterTask *t = s->task_of[a->task].task;
        const ClusterAttempt *at = &t->attempts[cluster_task_attempt_index(t, a->id)];

        assert(at < t->attempts + t->n_attempts);
        attempt_figures(a, at, t, &s->a.nodes[a->node]);
}

uint32_t cluster_snapshot_job(const Snapshot *s, uint64_t id) {
        size_t lo = 0, hi = s->s.n_jobs;

        /* In the order of their ids, as the model's. */
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (s->a.jobs[mid].id < id)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo < s->s.n_jobs && s->a.jobs[lo].id == id ? (uint32_t)lo : NO_INDEX;
}

/* The index of t in the snapshot: its job's first task's, and its place
 * among the job's maps, then reduces. NO_INDEX when its job is not in it,
 * or gone. */
static uint32_t task_index(const Snapshot *s, const ClusterTask *t) {
        uint32_t j = cluster_snapshot_job(s, t->job);
        const Job *job;

        if (j == NO_INDEX || s->job_gone[j])
                return NO_INDEX;
        job = &s->a.jobs[j];
        return job->tasks.first +
               (t->type == TASK_MAP ? t->index : job->counts[TASK_MAP].total + t->index);
}

/* The model's job at snapshot index j, which is not gone. */
static ClusterJob *model_job(const Cluster *c, const Snapshot *s, uint32_t j) {
        ClusterJob *cj = cluster_job_find((Cluster *)c, s->a.jobs[j].id);

        assert(cj && !s->job_gone[j]);
        return cj;
}

/* Task k as the model has it now: its state, counts, attempts, and its
 * job's first pending task and profile. */
static void task_update(const Cluster *c, Snapshot *s, uint32_t k) {
        SnapshotTask *st = &s->task_of[k];
        const ClusterTask *t = st->task;
        Task *task = &s->a.tasks[k];
        Job *job = &s->a.jobs[task->job];
        const ClusterJob *cj = model_job(c, s, task->job);
        uint32_t *first_pending = &job->tasks.first_pending[t->type],
                 end = job->tasks.first + job->tasks.count;
        TaskState was = task->state;

        assert(t == &cj->tasks[k - job->tasks.first]);
        counts_add(s, k, false);
        attempts_remove(s, k);
        *task = task_entry(cj, task->job, t);
        st->failures = t->failures;
        st->kills = t->kills;
        counts_add(s, k, true);
        attempts_add(c, s, k);
        job->profile = cj->run_profile;
        if (task->state == TASK_PENDING && k < *first_pending)
                *first_pending = k;
        else if (was == TASK_PENDING && task->state != TASK_PENDING && k == *first_pending) {
                uint32_t next = k + 1;

                while (next < end &&
                       (s->a.tasks[next].type != t->type || s->a.tasks[next].state != TASK_PENDING))
                        next++;
                *first_pending = next;
        }
}

/* What changed since the snapshot last took the model in: the nodes first,
 * whose steal the attempts take. */
static void snapshot_update(const Cluster *c, Snapshot *s) {
        if (s->all_nodes_stale) {
                snapshot_nodes(c, s);
                s->slots_unknown = true;
        }
        for (size_t i = 0; !s->all_nodes_stale && i < s->n_stale_nodes; i++)
                snapshot_node(c, s, s->stale_nodes[i]);
        for (size_t i = 0; i < s->n_changed; i++) {
                uint32_t k = task_index(s, s->changed[i]);

                assert(k != NO_INDEX);
                task_update(c, s, k);
                changed_list_add(s->jobs_changed, &s->n_jobs_changed, s->job_listed,
                                 s->a.tasks[k].job);
        }
        /* Those listed before every node went stale too. */
        for (size_t i = 0; i < s->n_stale_nodes; i++)
                s->node_stale[s->stale_nodes[i]] = false;
        s->n_changed = 0;
        s->n_stale_nodes = 0;
        s->all_nodes_stale = false;
}

/* The model's job cj at index j, its tasks from index k on, none of them
 * running yet in the snapshot's eyes: each added as a build adds it. */
static void job_fill(const Cluster *c, Snapshot *s, const ClusterJob *cj, uint32_t j, uint32_t k) {
        Job *job = &s->a.jobs[j];
        uint32_t end = k + (uint32_t)cj->n_tasks;

        s->stored[j] = cj->profile.phases;
        s->job_gone[j] = false;
        *job = (Job){ .id = cj->info.id,
                      .submitted = cj->info.submitted,
                      .deadline = cj->info.deadline,
                      .pool = cj->pool,
                      .input_size = cj->input_size,
                      .profile = cj->run_profile,
                      .quota = { cj->quota[SLOT_MAP], cj->quota[SLOT_REDUCE] },
                      .stored_profile = cj->profile.job ? &s->stored[j] : NULL,
                      .tasks = { .first = k,
                                 .count = (uint32_t)cj->n_tasks,
                                 .first_pending = { end, end } } };
        for (size_t i = 0; i < cj->n_tasks; i++, k++) {
                ClusterTask *t = &cj->tasks[i];

                s->a.tasks[k] = task_entry(cj, j, t);
                s->task_of[k] =
                        (SnapshotTask){ .task = t, .failures = t->failures, .kills = t->kills };
                job->counts[t->type].total++;
                counts_add(s, k, true);
                if (s->a.tasks[k].state == TASK_PENDING && job->tasks.first_pending[t->type] == end)
                        job->tasks.first_pending[t->type] = k;
                attempts_add(c, s, k);
        }
}

/* The arrays of tasks, attempts and jobs with room for tasks and jobs; the
 * ClusterSnapshot's pointers follow them. -ENOMEM leaves those that could
 * grow grown. */
static int snapshot_reserve(Snapshot *s, size_t tasks, size_t jobs) {
        tasks = MAX(tasks, (size_t)1);
        jobs = MAX(jobs, (size_t)1);
        if (tasks > s->max_tasks) {
                size_t n = MAX(tasks, s->max_tasks * 2), a = n * CLUSTER_ATTEMPTS_MAX;
                Task *t = realloc(s->a.tasks, n * sizeof(*t));
                SnapshotTask *of;
                Attempt *at;
                uint32_t *next, *prev;

                if (!t)
                        return -ENOMEM;
                s->a.tasks = t;
                of = realloc(s->task_of, n * sizeof(*of));
                if (!of)
                        return -ENOMEM;
                s->task_of = of;
                at = realloc(s->a.attempts, a * sizeof(*at));
                if (!at)
                        return -ENOMEM;
                s->a.attempts = at;
                next = realloc(s->next_on_node, a * sizeof(*next));
                if (!next)
                        return -ENOMEM;
                s->next_on_node = next;
                prev = realloc(s->prev_on_node, a * sizeof(*prev));
                if (!prev)
                        return -ENOMEM;
                s->prev_on_node = prev;
                s->max_tasks = n;
        }
        if (jobs > s->max_jobs) {
                size_t n = MAX(jobs, s->max_jobs * 2);
                Job *j = realloc(s->a.jobs, n * sizeof(*j));
                JobProfile *stored;
                uint32_t *changed;
                bool *listed, *gone;

                if (!j)
                        return -ENOMEM;
                s->a.jobs = j;
                stored = realloc(s->stored, n * sizeof(*stored));
                if (!stored)
                        return -ENOMEM;
                /* The jobs' stored profiles moved with it. */
                for (size_t k = 0; k < s->s.n_jobs; k++)
                        if (s->a.jobs[k].stored_profile)
                                s->a.jobs[k].stored_profile = &stored[k];
                s->stored = stored;
                gone = realloc(s->job_gone, n * sizeof(*gone));
                if (!gone)
                        return -ENOMEM;
                s->job_gone = gone;
                changed = realloc(s->jobs_changed, n * sizeof(*changed));
                if (!changed)
                        return -ENOMEM;
                s->jobs_changed = changed;
                listed = realloc(s->job_listed, n * sizeof(*listed));
                if (!listed)
                        return -ENOMEM;
                memset(&listed[s->max_jobs], 0, (n - s->max_jobs) * sizeof(*listed));
                s->job_listed = listed;
                s->max_jobs = n;
        }
        s->s.tasks = s->a.tasks;
        s->s.attempts = s->a.attempts;
        s->s.jobs = s->a.jobs;
        return 0;
}

/* A host per agent, one VM per tracker, every task of every job. */
static int snapshot_build(const Cluster *c, Snapshot *ret) {
        size_t n_tasks = 0, nn = MAX(c->n_nodes, (size_t)1);
        Snapshot s = { 0 };
        uint32_t k = 0;
        int r;

        for (size_t j = 0; j < c->n_jobs; j++)
                n_tasks += c->jobs[j].n_tasks;
        /* The nodes filled; snapshot_reserve() gives the jobs, tasks and
         * attempts their room, as it does when a job comes. */
        r = cluster_snapshot_arrays_new(c, 0, 0, 0, &s.a);
        if (r < 0)
                return r;
        /* Each array is written whole where it is used, but for the
         * nodes' flags: clearing them would cost a build as much again. */
        s.first_on_node = malloc(nn * sizeof(*s.first_on_node));
        s.node_attempts = calloc(nn, sizeof(*s.node_attempts));
        s.stale_nodes = malloc(nn * sizeof(*s.stale_nodes));
        s.node_stale = calloc(nn, sizeof(*s.node_stale));
        s.slots_changed = malloc(nn * sizeof(*s.slots_changed));
        s.slots_listed = calloc(nn, sizeof(*s.slots_listed));
        if (!s.first_on_node || !s.node_attempts || !s.stale_nodes || !s.node_stale ||
            !s.slots_changed || !s.slots_listed || snapshot_reserve(&s, n_tasks, c->n_jobs) < 0) {
                snapshot_done(&s);
                return -ENOMEM;
        }
        for (size_t i = 0; i < c->n_nodes; i++)
                s.first_on_node[i] = NO_INDEX;
        for (size_t j = 0; j < c->n_jobs; j++) {
                job_fill(c, &s, &c->jobs[j], (uint32_t)j, k);
                k += (uint32_t)c->jobs[j].n_tasks;
        }
        /* Done tasks are in it, in their jobs' counts. */
        s.s = cluster_snapshot_of(c, &s.a, c->n_jobs, k, s.s.n_attempts);
        /* The tracker gives a reduce the map outputs as its assignment's
         * inputs, and it fetches none later. */
        s.s.reduces_read_maps_at_start = true;
        s.s.node_attempts = s.node_attempts;
        s.s.fill_attempt = attempt_fill;
        /* What the last step of the Policy kept is of another snapshot,
         * whichever step comes first: its own (jobs_reported and
         * slots_reported false) or one after an admission took this one. */
        s.slots_unknown = true;
        s.jobs_unknown = true;
        *ret = s;
        ret->s.attempts_total = &ret->attempts_total;
        ret->s.fill_attempt_data = ret;
        return 0;
}

void cluster_snapshot_add_job(Cluster *c) {
        Snapshot *s = c->snapshot;
        const ClusterJob *cj = &c->jobs[c->n_jobs - 1];
        size_t j;
        uint32_t k;

        if (!s || s->overflow)
                return;
        j = s->s.n_jobs;
        k = (uint32_t)s->s.n_tasks;
        if (snapshot_reserve(s, s->s.n_tasks + cj->n_tasks, j + 1) < 0) {
                s->overflow = true;
                return;
        }
        job_fill(c, s, cj, (uint32_t)j, k);
        s->s.n_tasks += cj->n_tasks;
        s->s.n_jobs = j + 1;
}

void cluster_snapshot_remove_job(Cluster *c, size_t i) {
        Snapshot *s = c->snapshot;
        const ClusterJob *cj = &c->jobs[i];
        uint32_t j, first, end;
        Job *job;
        size_t kept = 0;

        if (!s || s->overflow)
                return;
        j = cluster_snapshot_job(s, cj->info.id);
        assert(j != NO_INDEX && !s->job_gone[j]);
        job = &s->a.jobs[j];
        first = job->tasks.first;
        end = first + job->tasks.count;
        /* What changed of its tasks goes with them. */
        for (size_t x = 0; x < s->n_changed; x++)
                if (s->changed[x]->job != cj->info.id)
                        s->changed[kept++] = s->changed[x];
        s->n_changed = kept;
        /* It stays, done: the jobs after it keep their indices. */
        for (uint32_t k = first; k < end; k++) {
                counts_add(s, k, false);
                attempts_remove(s, k);
                s->a.tasks[k].state = TASK_DONE;
                s->task_of[k].task = NULL;
                counts_add(s, k, true);
        }
        job->tasks.first_pending[TASK_MAP] = end;
        job->tasks.first_pending[TASK_REDUCE] = end;
        s->job_gone[j] = true;
        s->n_gone_jobs++;
        s->n_gone_tasks += job->tasks.count;
        changed_list_add(s->jobs_changed, &s->n_jobs_changed, s->job_listed, j);
        while (s->s.n_jobs_settled < s->s.n_jobs && s->job_gone[s->s.n_jobs_settled])
                s->s.n_jobs_settled++;
        /* Once the gone jobs' tasks outnumber the others', a new build
         * leaves them out: each task is built in again at most once for
         * every task gone. */
        if (s->n_gone_tasks > s->s.n_tasks - s->n_gone_tasks)
                cluster_snapshot_drop(c);
}

void cluster_snapshot_job_quota(Cluster *c, size_t i) {
        Snapshot *s = c->snapshot;
        uint32_t j;

        if (!s || s->overflow)
                return;
        j = cluster_snapshot_job(s, c->jobs[i].info.id);
        assert(j != NO_INDEX);
        memcpy(s->a.jobs[j].quota, c->jobs[i].quota, sizeof(s->a.jobs[j].quota));
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
               profiles_same(&a->profile, &b->profile) &&
               !a->stored_profile == !b->stored_profile &&
               (!a->stored_profile || profiles_same(a->stored_profile, b->stored_profile)) &&
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
               a->input_size == b->input_size && a->slot_memory == b->slot_memory &&
               a->running_attempts == b->running_attempts;
}

static int compare_attempt_ids(const void *a, const void *b, void *userdata) {
        const Attempt *attempts = userdata;
        uint64_t x = attempts[*(const uint32_t *)a].id, y = attempts[*(const uint32_t *)b].id;

        return (x > y) - (x < y);
}

/* The indices of s's attempts in the order of their ids; NULL: no memory. */
static uint32_t *attempts_by_id(const Snapshot *s) {
        uint32_t *order = malloc(MAX(s->s.n_attempts, (size_t)1) * sizeof(*order));

        if (!order)
                return NULL;
        for (uint32_t i = 0; i < s->s.n_attempts; i++)
                order[i] = i;
        qsort_r(order, s->s.n_attempts, sizeof(*order), compare_attempt_ids, (void *)s->a.attempts);
        return order;
}

/* Each attempt is among its task's and on its node's list, and nothing
 * else is. */
static bool snapshot_lists_hold(const Snapshot *s) {
        size_t listed = 0, of_tasks = 0;

        for (uint32_t i = 0; i < s->s.n_attempts; i++) {
                const SnapshotTask *st = &s->task_of[s->a.attempts[i].task];
                bool found = false;

                for (unsigned a = 0; a < CLUSTER_ATTEMPTS_MAX; a++)
                        found = found || st->attempts[a] == i;
                if (!found)
                        return false;
        }
        for (uint32_t k = 0; k < s->s.n_tasks; k++)
                for (unsigned a = 0; a < CLUSTER_ATTEMPTS_MAX; a++)
                        of_tasks += s->task_of[k].attempts[a] != NO_INDEX;
        for (uint32_t node = 0; node < s->s.n_nodes; node++) {
                uint32_t prev = NO_INDEX;

                if (s->node_stale[node])
                        return false;
                for (uint32_t i = s->first_on_node[node]; i != NO_INDEX; i = s->next_on_node[i]) {
                        if (i >= s->s.n_attempts || s->a.attempts[i].node != node ||
                            s->prev_on_node[i] != prev || listed++ > s->s.n_attempts)
                                return false;
                        prev = i;
                }
        }
        return listed == s->s.n_attempts && of_tasks == s->s.n_attempts;
}

/* The gone jobs are done and settled as the snapshot says: each of their
 * tasks done, with no model task and no attempt, the settled jobs those
 * before the first job not gone, and the counts of both kept. */
static bool gone_jobs_hold(const Snapshot *s) {
        size_t jobs = 0, tasks = 0, settled = 0;

        while (settled < s->s.n_jobs && s->job_gone[settled])
                settled++;
        for (uint32_t j = 0; j < s->s.n_jobs; j++) {
                const Job *job = &s->a.jobs[j];

                if (!s->job_gone[j])
                        continue;
                jobs++;
                tasks += job->tasks.count;
                for (uint32_t k = job->tasks.first; k < job->tasks.first + job->tasks.count; k++)
                        if (s->a.tasks[k].state != TASK_DONE || s->task_of[k].task ||
                            s->task_of[k].attempts[0] != NO_INDEX)
                                return false;
        }
        return jobs == s->n_gone_jobs && tasks == s->n_gone_tasks && settled == s->s.n_jobs_settled;
}

/* The kept snapshot k as a new build would lay it out, without its gone
 * jobs: its jobs, tasks and attempts copied into a with their indices
 * moved down past the gone jobs'. -ENOMEM. */
static int snapshot_without_gone(const Snapshot *k, SnapshotArrays *a, SnapshotTask **ret_of) {
        _cleanup_free_ uint32_t *task_at = malloc(MAX(k->s.n_tasks, (size_t)1) * sizeof(uint32_t));
        SnapshotTask *of = malloc(MAX(k->s.n_tasks, (size_t)1) * sizeof(*of));
        uint32_t nj = 0, nt = 0;

        *a = (SnapshotArrays){ 0 };
        a->jobs = malloc(MAX(k->s.n_jobs, (size_t)1) * sizeof(Job));
        a->tasks = malloc(MAX(k->s.n_tasks, (size_t)1) * sizeof(Task));
        a->attempts = malloc(MAX(k->s.n_attempts, (size_t)1) * sizeof(Attempt));
        if (!task_at || !of || !a->jobs || !a->tasks || !a->attempts) {
                free(of);
                cluster_snapshot_arrays_done(a);
                return -ENOMEM;
        }
        for (uint32_t j = 0; j < k->s.n_jobs; j++) {
                const Job *job = &k->a.jobs[j];
                uint32_t first = job->tasks.first, moved = first - nt;

                if (k->job_gone[j])
                        continue;
                a->jobs[nj] = *job;
                a->jobs[nj].tasks.first -= moved;
                a->jobs[nj].tasks.first_pending[TASK_MAP] -= moved;
                a->jobs[nj].tasks.first_pending[TASK_REDUCE] -= moved;
                for (uint32_t t = first; t < first + job->tasks.count; t++, nt++) {
                        task_at[t] = nt;
                        a->tasks[nt] = k->a.tasks[t];
                        a->tasks[nt].job = nj;
                        of[nt] = k->task_of[t];
                }
                nj++;
        }
        for (uint32_t i = 0; i < k->s.n_attempts; i++) {
                a->attempts[i] = k->a.attempts[i];
                a->attempts[i].task = task_at[a->attempts[i].task];
        }
        *ret_of = of;
        return 0;
}

bool cluster_snapshot_current(Cluster *c) {
        Snapshot *k = c->snapshot;
        _cleanup_free_ uint32_t *kept_order = NULL, *new_order = NULL;
        _cleanup_free_ SnapshotTask *kept_of = NULL;
        SnapshotArrays kept = { 0 };
        Snapshot f;
        bool same;

        /* One that overflowed is built anew at the next step. */
        if (!k || k->overflow)
                return true;
        snapshot_update(c, k);
        /* A new build has every figure: the kept one's, as a step reads
         * them. */
        snapshot_fill_attempts(&k->s);
        if (snapshot_build(c, &f) < 0)
                return false;
        if (snapshot_without_gone(k, &kept, &kept_of) < 0) {
                snapshot_done(&f);
                return false;
        }
        kept_order = attempts_by_id(k);
        new_order = attempts_by_id(&f);
        same = kept_order && new_order && k->s.n_hosts == f.s.n_hosts && k->s.n_vms == f.s.n_vms &&
               k->s.n_nodes == f.s.n_nodes && k->s.n_jobs - k->n_gone_jobs == f.s.n_jobs &&
               k->s.n_tasks - k->n_gone_tasks == f.s.n_tasks && k->s.n_attempts == f.s.n_attempts &&
               snapshot_lists_hold(k) && gone_jobs_hold(k);
        for (size_t i = 0; same && i < f.s.n_hosts; i++)
                same = host_same(&k->a.hosts[i], &f.a.hosts[i]);
        for (size_t i = 0; same && i < f.s.n_nodes; i++)
                same = nodes_same(&k->a.nodes[i], &f.a.nodes[i]) &&
                       node_attempts_same(&k->node_attempts[i], &f.node_attempts[i]);
        same = same && node_attempts_same(&k->attempts_total, &f.attempts_total);
        for (size_t i = 0; same && i < f.s.n_vms; i++)
                same = vm_same(&k->a.vms[i], &f.a.vms[i]);
        for (size_t i = 0; same && i < f.s.n_jobs; i++)
                same = jobs_same(&kept.jobs[i], &f.a.jobs[i]);
        for (size_t i = 0; same && i < f.s.n_tasks; i++)
                same = tasks_same(&kept.tasks[i], &f.a.tasks[i]) &&
                       kept_of[i].task == f.task_of[i].task &&
                       kept_of[i].failures == f.task_of[i].failures &&
                       kept_of[i].kills == f.task_of[i].kills;
        /* Attempts are in no order: matched by their ids. */
        for (size_t i = 0; same && i < f.s.n_attempts; i++)
                same = attempt_same(&kept.attempts[kept_order[i]], &f.a.attempts[new_order[i]]);
        cluster_snapshot_arrays_done(&kept);
        snapshot_done(&f);
        /* And both counted the attempts as a pass over them does. */
        return same && snapshot_validate(&k->s) >= 0;
}

/* The step's snapshot: the last one's with what changed in the model since
 * (what heartbeats measured, the tasks that started, ended or were killed,
 * the jobs that came or went), while no tracker came or went; else a new
 * one. A pass over every task is most of a heartbeat's cost when thousands
 * wait. */
int cluster_snapshot_prepare(Cluster *c, unsigned *flags) {
        Snapshot *s;
        int r;

        if (c->snapshot && c->snapshot->overflow)
                cluster_snapshot_drop(c);
        if (c->snapshot) {
                s = c->snapshot;
                snapshot_update(c, s);
                /* Tests: a change the snapshot missed shows here, and the
                 * step checks the snapshot, the nodes whose slots changed
                 * too, as it checks one it was not vouched for. */
                assert(!c->verify_snapshot || cluster_snapshot_current(c));
                s->s.slots_reported = !s->slots_unknown;
                s->s.slots_changed = s->slots_changed;
                s->s.n_slots_changed = s->n_slots_changed;
                s->s.jobs_reported = !s->jobs_unknown;
                s->s.jobs_changed = s->jobs_changed;
                s->s.n_jobs_changed = s->n_jobs_changed;
                /* Checked when it was built; what changed since comes from
                 * the model, and measures are checked as they come
                 * (report_check()). */
                if (!c->verify_snapshot)
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

void cluster_snapshot_stepped(Cluster *c) {
        Snapshot *s = c->snapshot;

        if (!s)
                return;
        changed_list_clear(s->slots_changed, &s->n_slots_changed, s->slots_listed);
        s->slots_unknown = false;
        changed_list_clear(s->jobs_changed, &s->n_jobs_changed, s->job_listed);
        s->jobs_unknown = false;
}

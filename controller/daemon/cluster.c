/* SPDX-License-Identifier: MIT */
#include "cluster.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/log.h"
#include "common/macro.h"
#include "tracker/split.h"

/* Kill reasons a tracker hears, and reports back with the killed attempt. */
static const char KILL_SPECULATION[] = "speculation: another attempt succeeded";
static const char KILL_CANCELLED[] = "job cancelled";
static const char KILL_JOB_FAILED[] = "job failed";
static const char KILL_UNKNOWN[] = "attempt unknown to the controller";

/* Attempt i of t leaves the task: pending again when it was the last. */
static void task_remove_attempt(ClusterTask *t, unsigned i) {
        memmove(&t->attempts[i], &t->attempts[i + 1],
                (t->n_attempts - i - 1) * sizeof(*t->attempts));
        t->n_attempts--;
        t->attempts[t->n_attempts] = (ClusterAttempt){ 0 };
        if (t->n_attempts == 0 && t->state == TASK_RUNNING)
                t->state = TASK_PENDING;
}

static void job_done(ClusterJob *j) {
        for (size_t i = 0; i < j->n_tasks; i++) {
                free(j->tasks[i].output);
                free(j->tasks[i].failure);
        }
        free(j->tasks);
        strv_free(j->splits);
        store_job_clear(&j->info);
}

static void node_done(ClusterNode *n) {
        free(n->hostname);
        free(n->vm_uuid);
        free(n->kills);
}

static void snapshot_drop(Cluster *c);

Cluster *cluster_free(Cluster *c) {
        if (!c)
                return NULL;
        snapshot_drop(c);
        for (size_t i = 0; i < c->n_jobs; i++)
                job_done(&c->jobs[i]);
        free(c->jobs);
        for (size_t i = 0; i < c->n_nodes; i++)
                node_done(&c->nodes[i]);
        free(c->nodes);
        for (size_t i = 0; i < c->n_pools; i++)
                free(c->pools[i]);
        free(c->pools);
        decisions_done(&c->decisions);
        free(c);
        return NULL;
}

void cluster_reply_done(ClusterReply *r) {
        free(r->assignments);
        free(r->kills);
        *r = (ClusterReply){ 0 };
}

static int fail(StoreError *err, int r, const char *field, const char *fmt, ...) _printf_(4, 5);
static int fail(StoreError *err, int r, const char *field, const char *fmt, ...) {
        va_list ap;

        if (err) {
                err->field = field;
                va_start(ap, fmt);
                vsnprintf(err->message, sizeof(err->message), fmt, ap);
                va_end(ap);
        }
        return r;
}

/* A pool is a small integer for the policy core; the names are kept for the
 * process's life, as the few pools of a cluster are. */
static int pool_index(Cluster *c, const char *name, uint32_t *ret) {
        char **pools, *copy;

        for (size_t i = 0; i < c->n_pools; i++)
                if (strcmp(c->pools[i], name) == 0) {
                        *ret = (uint32_t)i;
                        return 0;
                }
        copy = strdup(name);
        if (!copy)
                return -ENOMEM;
        pools = realloc(c->pools, (c->n_pools + 1) * sizeof(*pools));
        if (!pools) {
                free(copy);
                return -ENOMEM;
        }
        c->pools = pools;
        c->pools[c->n_pools] = copy;
        *ret = (uint32_t)c->n_pools++;
        return 0;
}

/* A job runs without a profile when the store cannot give one. */
static void job_load_profile(Cluster *c, ClusterJob *j) {
        StoreError err = { 0 };
        int r;

        r = cluster_profile_load(c->store, j->info.user, j->info.name, &j->profile, &err);
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "Job %" PRIu64 " runs without its profile: %s", j->info.id,
                                  err.message);
}

/* Where the task of rec is in its job's tasks: the maps, then the
 * reduces. */
static size_t task_position(const StoreJob *info, const StoreTaskRecord *rec) {
        return rec->type == TASK_MAP ? rec->index : info->n_maps + (size_t)rec->index;
}

/* The job's tasks: one map per split (splits, which it takes) and its
 * reduces; those with a succeeded attempt in the store are done. */
static int job_load(Cluster *c, StoreJob *info, char **splits, ClusterJob *ret, StoreError *err) {
        _cleanup_free_ ClusterTask *tasks = NULL;
        StoreTaskRecord *done = NULL;
        size_t n_done = 0, n = (size_t)info->n_maps + info->n_reduces;
        uint32_t pool;
        int r;

        r = pool_index(c, info->pool, &pool);
        if (r < 0)
                return r;
        tasks = calloc(MAX(n, (size_t)1), sizeof(*tasks));
        if (!tasks)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                tasks[i].type = i < info->n_maps ? TASK_MAP : TASK_REDUCE;
                tasks[i].index = i < info->n_maps ? (unsigned)i : (unsigned)(i - info->n_maps);
        }
        r = store_job_tasks(c->store, info->id, STORE_TASK_STATUS_BIT(STORE_TASK_SUCCEEDED), &done,
                            &n_done, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n_done; i++) {
                size_t k = task_position(info, &done[i]);

                if (k >= n)
                        continue;
                tasks[k].state = TASK_DONE;
                tasks[k].output = (char *)done[i].output;
                done[i].output = NULL;
        }
        for (size_t i = 0; i < n_done; i++)
                c->next_attempt = MAX(c->next_attempt, done[i].attempt + 1);
        store_task_records_free(done, n_done);
        /* Attempts that failed or were killed take ids too; those that
         * failed count towards CLUSTER_MAX_FAILURES across restarts, the
         * last one's reason with them (the records come by attempt). */
        r = store_job_tasks(c->store, info->id, STORE_TASK_ANY, &done, &n_done, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n_done; i++) {
                size_t k = task_position(info, &done[i]);

                c->next_attempt = MAX(c->next_attempt, done[i].attempt + 1);
                if (done[i].status != STORE_TASK_FAILED || k >= n)
                        continue;
                tasks[k].failures++;
                if (done[i].reason) {
                        free(tasks[k].failure);
                        tasks[k].failure = (char *)done[i].reason;
                        done[i].reason = NULL;
                }
        }
        store_task_records_free(done, n_done);

        *ret = (ClusterJob){ .info = *info,
                             .pool = pool,
                             .tasks = TAKE_PTR(tasks),
                             .n_tasks = n,
                             .splits = splits };
        *info = (StoreJob){ 0 };
        job_load_profile(c, ret);
        return 0;
}

static int jobs_grow(Cluster *c) {
        ClusterJob *jobs = realloc(c->jobs, (c->n_jobs + 1) * sizeof(*jobs));

        if (!jobs)
                return -ENOMEM;
        c->jobs = jobs;
        return 0;
}

/* The job's map inputs, "FILE:OFFSET:LENGTH" relative to the data
 * directory: Hadoop's FileInputFormat splits of its input files (a
 * directory stands for its files) at the configured block size, largest
 * first. Nothing but the files and the block size decides them, so a
 * restarted controller derives the same splits again; task records name maps
 * by their index among them. -ENOENT (err says which) when an input cannot
 * be read. */
static int job_splits(const Cluster *c, char *const *inputs, size_t n_inputs, char ***ret,
                      size_t *ret_n, StoreError *err) {
        _cleanup_(input_split_list_done) InputSplitList l = { 0 };
        size_t prefix = strlen(c->data.data_dir) + 1;
        char **paths, **splits = NULL;
        int r = 0;

        paths = calloc(n_inputs + 1, sizeof(char *));
        if (!paths)
                return -ENOMEM;
        for (size_t i = 0; i < n_inputs && r >= 0; i++) {
                struct stat st;

                if (asprintf(&paths[i], "%s/%s", c->data.data_dir, inputs[i]) < 0)
                        r = -ENOMEM;
                else if (stat(paths[i], &st) < 0)
                        r = fail(err, -ENOENT, "inputs", "inputs[%zu] '%s': %s in %s", i, inputs[i],
                                 strerror(errno), c->data.data_dir);
        }
        if (r >= 0) {
                r = input_splits_compute(paths, n_inputs, c->data.block_size, &l);
                if (r < 0 && r != -ENOMEM)
                        r = fail(err, r, "inputs", "Cannot split the inputs in %s: %s",
                                 c->data.data_dir, strerror(-r));
        }
        strv_free(paths);
        if (r >= 0)
                splits = calloc(l.n + 1, sizeof(char *));
        if (r >= 0 && !splits)
                r = -ENOMEM;
        for (size_t i = 0; i < l.n && r >= 0; i++)
                if (asprintf(&splits[i], "%s:%" PRIu64 ":%" PRIu64, l.splits[i].path + prefix,
                             l.splits[i].offset, l.splits[i].length) < 0)
                        r = -ENOMEM;
        if (r < 0) {
                strv_free(splits);
                return r;
        }
        *ret = splits;
        *ret_n = l.n;
        return 0;
}

static int cluster_add_job(Cluster *c, uint64_t id, StoreError *err) {
        StoreJob info = { 0 };
        char **splits = NULL;
        size_t n_splits = 0;
        int r;

        r = store_job_get(c->store, id, &info, err);
        if (r >= 0)
                r = job_splits(c, info.inputs, info.n_inputs, &splits, &n_splits, err);
        if (r >= 0 && info.state == STORE_JOB_QUEUED) {
                r = store_job_start(c->store, id, (unsigned)n_splits, err);
                store_job_clear(&info);
                if (r >= 0)
                        r = store_job_get(c->store, id, &info, err);
        }
        if (r >= 0 && info.n_maps != n_splits)
                r = fail(err, -ESTALE, "inputs",
                         "The inputs split into %zu maps, not the %u the job started with: "
                         "its input files or the block size changed",
                         n_splits, info.n_maps);
        if (r >= 0)
                r = jobs_grow(c);
        if (r >= 0)
                r = job_load(c, &info, splits, &c->jobs[c->n_jobs], err);
        else
                strv_free(splits);
        store_job_clear(&info);
        if (r < 0)
                return r;
        c->n_jobs++;
        return 0;
}

/* A job whose splits cannot be made again (its inputs changed or went)
 * fails with the reason instead of stopping the controller: its finished
 * maps are of other splits. */
static int cluster_resume_job(Cluster *c, uint64_t id, StoreError *err) {
        int r = cluster_add_job(c, id, err);

        if (r >= 0 || r == -ENOMEM || !err->field || strcmp(err->field, "inputs") != 0)
                return r;
        log_error("Job %" PRIu64 " cannot resume: %s", id, err->message);
        return store_job_finish(c->store, id, STORE_JOB_FAILED, err->message, err);
}

int cluster_new(Store *store, Policy *policy, const ClusterData *data, Cluster **ret,
                StoreError *err) {
        Cluster *c;
        StoreJob *jobs = NULL;
        size_t n = 0;
        int r;

        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->store = store;
        c->policy = policy;
        c->data = *data;
        c->next_node = 1;
        c->step = true;
        c->unsettled = true;
        /* Above every attempt id of an earlier run (job_load() raises it
         * past the stored ones; this covers the attempts that never ended). */
        c->next_attempt = now_realtime_usec();
        r = store_jobs_list(store, STORE_JOB_UNFINISHED, &jobs, &n, err);
        for (size_t i = 0; i < n && r >= 0; i++)
                r = cluster_resume_job(c, jobs[i].id, err);
        store_jobs_free(jobs, n);
        if (r < 0) {
                cluster_free(c);
                return r;
        }
        c->first_attempt = c->next_attempt;
        *ret = c;
        return 0;
}

static ClusterJob *job_find(Cluster *c, uint64_t id) {
        for (size_t i = 0; i < c->n_jobs; i++)
                if (c->jobs[i].info.id == id)
                        return &c->jobs[i];
        return NULL;
}

static ClusterNode *node_find(Cluster *c, uint64_t id) {
        for (size_t i = 0; i < c->n_nodes; i++)
                if (c->nodes[i].id == id)
                        return &c->nodes[i];
        return NULL;
}

const ClusterNode *cluster_node_find(const Cluster *c, uint64_t id) {
        return node_find((Cluster *)c, id);
}

static int node_queue_kill(ClusterNode *n, uint64_t attempt, const char *reason) {
        ClusterKill *kills;

        /* An unknown attempt is reported running on every beat until its
         * kill is carried out. */
        for (size_t i = 0; i < n->n_kills; i++)
                if (n->kills[i].attempt == attempt)
                        return 0;
        kills = realloc(n->kills, (n->n_kills + 1) * sizeof(*kills));
        if (!kills)
                return -ENOMEM;
        n->kills = kills;
        n->kills[n->n_kills++] = (ClusterKill){ .attempt = attempt, .reason = reason };
        return 0;
}

static void job_remove(Cluster *c, ClusterJob *j) {
        size_t i = (size_t)(j - c->jobs);

        job_done(j);
        memmove(&c->jobs[i], &c->jobs[i + 1], (c->n_jobs - i - 1) * sizeof(*c->jobs));
        c->n_jobs--;
}

/* Attempt i of t goes; its tracker frees the slot. */
static void attempt_stop(Cluster *c, ClusterTask *t, unsigned i) {
        ClusterNode *n = node_find(c, t->attempts[i].node);
        SlotType slot = t->attempts[i].slot;

        if (n && n->running[slot] > 0)
                n->running[slot]--;
        task_remove_attempt(t, i);
}

/* Every running attempt of t is killed at its tracker's next heartbeat.
 * Without memory for a kill the tracker finishes the attempt, whose report
 * is then ignored. */
static void task_kill_attempts(Cluster *c, ClusterTask *t, const char *reason) {
        while (t->n_attempts > 0) {
                ClusterNode *n = node_find(c, t->attempts[0].node);

                if (n && node_queue_kill(n, t->attempts[0].id, reason) < 0)
                        log_oom();
                attempt_stop(c, t, 0);
        }
}

int cluster_cancel(Cluster *c, uint64_t id, StoreError *err) {
        ClusterJob *j = job_find(c, id);
        int r;

        if (!j)
                return fail(err, -ENOENT, "job", "No running or queued job %" PRIu64, id);
        r = store_job_finish(c->store, id, STORE_JOB_CANCELLED, "cancelled", err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < j->n_tasks; i++)
                task_kill_attempts(c, &j->tasks[i], KILL_CANCELLED);
        job_remove(c, j);
        snapshot_drop(c);
        return 0;
}

int cluster_register(Cluster *c, const char *vm_uuid, const char *hostname,
                     const unsigned slots[static _SLOT_TYPE_MAX], uint64_t slot_memory,
                     usec_t now_monotonic, uint64_t *ret_id) {
        ClusterNode *nodes, n = {
                .id = c->next_node,
                .slots = { slots[SLOT_MAP], slots[SLOT_REDUCE] },
                .told = { slots[SLOT_MAP], slots[SLOT_REDUCE] },
                .slot_memory = slot_memory,
                .last_heartbeat = now_monotonic,
        };

        n.hostname = strdup(hostname);
        n.vm_uuid = strdup(vm_uuid);
        nodes = n.hostname && n.vm_uuid ? realloc(c->nodes, (c->n_nodes + 1) * sizeof(*nodes))
                                        : NULL;
        if (!nodes) {
                node_done(&n);
                return -ENOMEM;
        }
        c->nodes = nodes;
        c->nodes[c->n_nodes++] = n;
        c->next_node++;
        snapshot_drop(c);
        *ret_id = n.id;
        return 0;
}

/* ---- the snapshot ---- */

typedef struct Snapshot {
        ClusterSnapshot s;
        Host *hosts;
        size_t n_hosts;
        Vm *vms;
        Node *nodes;
        Job *jobs;
        Task *tasks;
        Attempt *attempts;
        /* What the indices of decisions stand for. */
        ClusterTask **task_of;
        /* Where each attempt's measures come from, while it is kept. */
        const ClusterAttempt **attempt_of;
} Snapshot;

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
static void snapshot_drop(Cluster *c) {
        if (!c->snapshot)
                return;
        snapshot_done(c->snapshot);
        free(c->snapshot);
        c->snapshot = NULL;
}

static uint32_t node_index(const Cluster *c, uint64_t id) {
        for (size_t i = 0; i < c->n_nodes; i++)
                if (c->nodes[i].id == id)
                        return (uint32_t)i;
        return NO_INDEX;
}

static double share(usec_t part, usec_t whole) {
        return whole > 0 ? CLAMP((double)part / (double)whole, 0.0, 1.0) : 0.0;
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

int cluster_node_set_guest(Cluster *c, uint64_t node, const ClusterGuest *guest) {
        ClusterNode *n = node_find(c, node);

        if (!n)
                return -ENOENT;
        n->guest = *guest;
        return 0;
}

/* The index of node i's host in s, added when new: its agent's, shared by
 * the VMs that agent runs, or a host of its own of one CPU and no memory
 * to share when no agent knows its VM. */
static uint32_t host_of_node(const Cluster *c, Snapshot *s, size_t i) {
        const ClusterVmState *vm = &c->nodes[i].vm;

        for (size_t h = 0; vm->host != 0 && h < s->n_hosts; h++)
                if (s->hosts[h].id == vm->host)
                        return (uint32_t)h;
        s->hosts[s->n_hosts] = vm->host != 0
                                       ? (Host){ .id = vm->host,
                                                 .pcpus = vm->host_cpus,
                                                 .memory = vm->host_memory }
                                       /* agents' hosts are numbered apart */
                                       : (Host){ .id = UINT64_MAX - c->nodes[i].id, .pcpus = 1 };
        return (uint32_t)s->n_hosts++;
}

/* The agent's view of the VM, else one vCPU and nothing known. */
static Vm vm_of_node(const ClusterNode *cn, uint32_t host) {
        const ClusterVmState *v = &cn->vm;
        Vm vm = { .id = cn->id, .host = host, .vcpus = 1, .vcpus_max = 1, .cpu_weight = 1024 };

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

/* Hosts, VMs and trackers: what agents and heartbeats change all the time,
 * done again at every step. */
static void snapshot_nodes(const Cluster *c, Snapshot *s) {
        s->n_hosts = 0;
        for (size_t i = 0; i < c->n_nodes; i++) {
                const ClusterNode *cn = &c->nodes[i];
                double steal = 0;
                usec_t steal_at = 0;

                (void)cluster_node_steal(cn, &steal, &steal_at);
                s->vms[i] = vm_of_node(cn, host_of_node(c, s, i));
                s->nodes[i] = (Node){
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
        s->s.hosts = s->hosts;
        s->s.n_hosts = s->n_hosts;
}

/* What a kept snapshot's heartbeats changed: the trackers, and the running
 * attempts' measures. */
static void snapshot_refresh(const Cluster *c, Snapshot *s) {
        snapshot_nodes(c, s);
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
        size_t n_tasks = 0, n_attempts = 0, cap = 1, nn = MAX(c->n_nodes, (size_t)1);
        Snapshot s = { 0 };

        /* Room for every task, done or not, and not zeroed: a pass to
         * count the tasks left, or clearing the room, cost a heartbeat as
         * much as filling it, and each entry used is written whole. */
        for (size_t j = 0; j < c->n_jobs; j++)
                cap += c->jobs[j].n_tasks;
        s.hosts = calloc(nn, sizeof(*s.hosts));
        s.vms = calloc(nn, sizeof(*s.vms));
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
                              .tasks = { .first = (uint32_t)n_tasks,
                                         .first_pending = { UINT32_MAX, UINT32_MAX } } };
                if (cj->profile.job) {
                        job->stored_profile = &cj->profile.phases;
                        job->input_size = cluster_profile_input(&cj->profile, cj->info.n_maps);
                }
                for (size_t i = 0; i < cj->n_tasks; i++) {
                        ClusterTask *t = &cj->tasks[i];
                        TaskCounts *counts = &job->counts[t->type];

                        counts->total++;
                        counts->failed += t->failures;
                        counts->killed += t->kills;
                        if (t->state == TASK_DONE) {
                                counts->done++;
                                continue;
                        }
                        if (t->state == TASK_PENDING &&
                            job->tasks.first_pending[t->type] == UINT32_MAX)
                                job->tasks.first_pending[t->type] = (uint32_t)n_tasks;
                        s.task_of[n_tasks] = t;
                        s.tasks[n_tasks] =
                                (Task){ .id = t->type == TASK_MAP
                                                      ? cj->info.id << 24 | t->index
                                                      : cj->info.id << 24 | 1u << 23 | t->index,
                                        .job = (uint32_t)j,
                                        .type = t->type,
                                        .state = t->state,
                                        .input_size = t->input_size,
                                        .slot_memory = t->slot_memory };
                        /* Counts are per task; LATE reads each attempt's
                         * own progress rate. Only a running attempt has a
                         * node to look up: a lookup per task was most of a
                         * heartbeat's time. */
                        counts->running += t->n_attempts > 0;
                        for (unsigned a = 0; a < t->n_attempts; a++) {
                                const ClusterAttempt *at = &t->attempts[a];
                                uint32_t node = node_index(c, at->node);

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
                                 .n_vms = c->n_nodes,
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

static bool jobs_same(const Job *a, const Job *b) {
        return a->id == b->id && a->submitted == b->submitted && a->deadline == b->deadline &&
               a->pool == b->pool && a->input_size == b->input_size &&
               a->stored_profile == b->stored_profile &&
               counts_same(&a->counts[TASK_MAP], &b->counts[TASK_MAP]) &&
               counts_same(&a->counts[TASK_REDUCE], &b->counts[TASK_REDUCE]) &&
               a->tasks.first == b->tasks.first && a->tasks.count == b->tasks.count &&
               a->tasks.first_pending[TASK_MAP] == b->tasks.first_pending[TASK_MAP] &&
               a->tasks.first_pending[TASK_REDUCE] == b->tasks.first_pending[TASK_REDUCE];
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
        same = k->s.n_hosts == f.s.n_hosts && k->s.n_nodes == f.s.n_nodes &&
               k->s.n_jobs == f.s.n_jobs && k->s.n_tasks == f.s.n_tasks &&
               k->s.n_attempts == f.s.n_attempts;
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
static int step_snapshot(Cluster *c, unsigned *flags) {
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

int cluster_submit(Cluster *c, const StoreJobSpec *spec, usec_t now, uint64_t *ret_id,
                   AdmitVerdict *ret_verdict, StoreError *err) {
        unsigned flags = 0;
        AdmitVerdict v;
        ClusterProfile profile = { 0 };
        StoreError perr = { 0 };
        Job job = {
                .submitted = now,
                .deadline = spec->deadline,
                .counts = { [TASK_REDUCE] = { .total = spec->n_reduces } },
        };
        char **splits = NULL;
        size_t n_splits = 0;
        uint64_t id;
        int r;

        /* Admission judges the job by its maps: its splits. */
        r = store_job_check(spec, err);
        if (r < 0)
                return r;
        r = job_splits(c, (char *const *)spec->inputs, spec->n_inputs, &splits, &n_splits, err);
        strv_free(splits);
        if (r < 0)
                return r == -ENOMEM ? r : -EINVAL;
        job.counts[TASK_MAP].total = (unsigned)n_splits;
        r = pool_index(c, spec->pool ? spec->pool : "", &job.pool);
        if (r < 0)
                return r;
        r = cluster_profile_load(c->store, spec->user ? spec->user : "",
                                 spec->name ? spec->name : "", &profile, &perr);
        if (r >= 0) {
                job.stored_profile = &profile.phases;
                job.input_size = cluster_profile_input(&profile, job.counts[TASK_MAP].total);
        } else if (r != -ENOENT && r != -EINVAL)
                /* -EINVAL: a user or name the store refuses below. */
                log_warning_errno(r, "Admitting without a profile: %s", perr.message);
        r = step_snapshot(c, &flags);
        if (r < 0)
                return r;
        r = policy_admit(c->policy, &c->snapshot->s, now, &job, &v);
        if (r < 0)
                return fail(err, r, NULL, "The scheduler could not judge the job");
        if (!v.admit) {
                *ret_verdict = v;
                return fail(err, -EPERM, NULL, "%s", v.reason);
        }
        r = store_job_submit(c->store, spec, &id, err);
        if (r < 0)
                return r;
        /* Stored: from here on a restart finds it even when the model
         * cannot take it now. */
        snapshot_drop(c);
        r = cluster_add_job(c, id, err);
        if (r < 0)
                log_warning_errno(r, "Job %" PRIu64 " is stored but not started: %s", id,
                                  err ? err->message : "");
        *ret_verdict = v;
        *ret_id = id;
        return 0;
}

/* ---- heartbeats ---- */

/* The task running attempt, and its index among the task's attempts. */
static ClusterTask *attempt_find(Cluster *c, uint64_t attempt, ClusterJob **ret_job,
                                 unsigned *ret_index) {
        for (size_t j = 0; j < c->n_jobs; j++)
                for (size_t i = 0; i < c->jobs[j].n_tasks; i++) {
                        ClusterTask *t = &c->jobs[j].tasks[i];

                        for (unsigned a = 0; a < t->n_attempts; a++)
                                if (t->attempts[a].id == attempt) {
                                        if (ret_job)
                                                *ret_job = &c->jobs[j];
                                        if (ret_index)
                                                *ret_index = a;
                                        return t;
                                }
                }
        return NULL;
}

static bool share_valid(double x) {
        return isfinite(x) && x >= 0 && x <= 1;
}

static bool text_valid(const char *s) {
        return strlen(s) <= STORE_MESSAGE_MAX;
}

/* Everything a report says, checked against the model before any of it is
 * believed. Attempts the model does not know are not errors: they are from
 * before a restart of the controller, or of a cancelled job. */
static int report_check(Cluster *c, const ClusterNode *n, const ClusterReport *r, StoreError *err) {
        for (unsigned type = 0; type < _SLOT_TYPE_MAX; type++)
                if (r->free_slots[type] > n->told[type])
                        return fail(err, -EINVAL, "free-slots",
                                    "free %s slots %u is more than the tracker's %u",
                                    type == SLOT_MAP ? "map" : "reduce", r->free_slots[type],
                                    n->told[type]);
        if (!share_valid(r->steal))
                return fail(err, -EINVAL, "steal", "steal %g is not a share in 0..1", r->steal);
        if (!share_valid(r->iowait))
                return fail(err, -EINVAL, "iowait", "iowait %g is not a share in 0..1", r->iowait);
        if (r->n_running > CLUSTER_REPORT_MAX || r->n_finished > CLUSTER_REPORT_MAX)
                return fail(err, -EINVAL, "running", "more than %d attempts in one report",
                            CLUSTER_REPORT_MAX);
        for (size_t i = 0; i < r->n_running; i++) {
                const ClusterRunning *x = &r->running[i];
                unsigned a = 0;
                const ClusterTask *t = attempt_find(c, x->attempt, NULL, &a);

                if (!share_valid(x->progress))
                        return fail(err, -EINVAL, "progress",
                                    "progress %g of attempt %" PRIu64 " is not in 0..1",
                                    x->progress, x->attempt);
                if (t && t->attempts[a].node != n->id)
                        return fail(err, -EINVAL, "running",
                                    "attempt %" PRIu64 " runs on another tracker", x->attempt);
        }
        for (size_t i = 0; i < r->n_finished; i++) {
                const ClusterFinished *x = &r->finished[i];
                unsigned a = 0;
                const ClusterTask *t = attempt_find(c, x->attempt, NULL, &a);

                if ((unsigned)x->status >= _STORE_TASK_STATUS_MAX)
                        return fail(err, -EINVAL, "status", "unknown status of attempt %" PRIu64,
                                    x->attempt);
                if (!text_valid(x->output) || !text_valid(x->reason))
                        return fail(err, -EINVAL, "output",
                                    "output or reason of attempt %" PRIu64 " is too long",
                                    x->attempt);
                if (t && t->attempts[a].node != n->id)
                        return fail(err, -EINVAL, "finished",
                                    "attempt %" PRIu64 " ran on another tracker", x->attempt);
                for (size_t k = 0; k < i; k++)
                        if (r->finished[k].attempt == x->attempt)
                                return fail(err, -EINVAL, "finished",
                                            "attempt %" PRIu64 " is reported twice", x->attempt);
        }
        return 0;
}

/* Whether an attempt before the i-th finished of the report succeeded for
 * the same task: the first success wins (both attempts of a task may run
 * on one tracker), and the later is ignored as a loser's is. */
static bool succeeded_before(Cluster *c, const ClusterReport *r, size_t i) {
        const ClusterTask *t = attempt_find(c, r->finished[i].attempt, NULL, NULL);

        for (size_t k = 0; k < i; k++)
                if (r->finished[k].status == STORE_TASK_SUCCEEDED &&
                    attempt_find(c, r->finished[k].attempt, NULL, NULL) == t)
                        return true;
        return false;
}

/* The report's finished attempts of known tasks, in one transaction. */
/* The task runs attempt a (its node filled in here) on n, in a.slot. */
static void attempt_add(ClusterNode *n, ClusterTask *t, const ClusterAttempt *a) {
        t->state = TASK_RUNNING;
        t->attempts[t->n_attempts] = *a;
        t->attempts[t->n_attempts++].node = n->id;
        t->slot_memory = a->slot_memory;
        n->running[a->slot]++;
}

/* Succeeded attempts that a controller before a restart assigned, which
 * the tracker reports once it has registered again: a task that waits to
 * run takes such an attempt as its own, running on n, so that the report
 * ends it as any other (record_finished(), apply_report()) and the task
 * does not run again. */
static void adopt_finished(Cluster *c, ClusterNode *n, const ClusterReport *r, usec_t now) {
        for (size_t i = 0; i < r->n_finished; i++) {
                const ClusterFinished *x = &r->finished[i];
                ClusterTask *t;

                if (x->status != STORE_TASK_SUCCEEDED || x->attempt >= c->first_attempt ||
                    attempt_find(c, x->attempt, NULL, NULL))
                        continue;
                t = cluster_output_adoptable(c, x);
                if (!t)
                        continue;
                log_info("Adopting attempt %" PRIu64 " on tracker %" PRIu64
                         ", which succeeded while the controller was away: %s",
                         x->attempt, n->id, x->output);
                attempt_add(n, t,
                            &(ClusterAttempt){ .id = x->attempt,
                                               .started = now,
                                               .slot_memory = n->slot_memory,
                                               .slot = slot_type_of(t->type) });
        }
}

static int record_finished(Cluster *c, const ClusterNode *n, const ClusterReport *r, usec_t now,
                           StoreError *err) {
        _cleanup_free_ StoreTaskRecord *records = NULL;
        size_t k = 0;

        if (r->n_finished == 0)
                return 0;
        records = calloc(r->n_finished, sizeof(*records));
        if (!records)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_finished; i++) {
                const ClusterFinished *x = &r->finished[i];
                ClusterJob *j = NULL;
                unsigned a = 0;
                const ClusterTask *t = attempt_find(c, x->attempt, &j, &a);
                usec_t started;

                if (!t || (x->status == STORE_TASK_SUCCEEDED && succeeded_before(c, r, i)))
                        continue;
                started = t->attempts[a].started;
                records[k++] = (StoreTaskRecord){
                        .job = j->info.id,
                        .type = t->type,
                        .index = t->index,
                        .attempt = x->attempt,
                        .node = n->hostname,
                        .status = x->status,
                        .started = started < now ? started : now,
                        .finished = now,
                        .input_bytes = x->input_bytes,
                        .output_bytes = x->output_bytes,
                        .output = x->status == STORE_TASK_SUCCEEDED ? x->output : NULL,
                        .reason = x->status != STORE_TASK_SUCCEEDED && x->reason[0] ? x->reason
                                                                                    : NULL,
                };
        }
        return k > 0 ? store_tasks_record(c->store, records, k, err) : 0;
}

static bool job_complete(const ClusterJob *j) {
        for (size_t i = 0; i < j->n_tasks; i++)
                if (j->tasks[i].state != TASK_DONE)
                        return false;
        return true;
}

/* The jobs a report finished or failed end in the store, and leave the
 * model. A job the store will not end stays, to be tried again. */
static void jobs_settle(Cluster *c) {
        c->unsettled = false;
        for (size_t j = 0; j < c->n_jobs;) {
                ClusterJob *cj = &c->jobs[j];
                StoreJobState state = STORE_JOB_SUCCEEDED;
                const char *why = NULL;
                char msg[STORE_MESSAGE_MAX];
                StoreError err = { 0 };
                int r;

                for (size_t i = 0; i < cj->n_tasks; i++)
                        if (cj->tasks[i].failures >= CLUSTER_MAX_FAILURES) {
                                snprintf(msg, sizeof(msg),
                                         "%s task %u failed %u times; the last: %s",
                                         cj->tasks[i].type == TASK_MAP ? "map" : "reduce",
                                         cj->tasks[i].index, cj->tasks[i].failures,
                                         cj->tasks[i].failure ? cj->tasks[i].failure : "?");
                                state = STORE_JOB_FAILED;
                                why = msg;
                        }
                if (state == STORE_JOB_SUCCEEDED && !job_complete(cj)) {
                        j++;
                        continue;
                }
                if (state == STORE_JOB_SUCCEEDED &&
                    cluster_output_commit(&c->data, cj, msg, sizeof(msg)) < 0) {
                        state = STORE_JOB_FAILED;
                        why = msg;
                }
                r = store_job_finish(c->store, cj->info.id, state, why, &err);
                if (r < 0) {
                        log_warning_errno(r, "Cannot end job %" PRIu64 ": %s", cj->info.id,
                                          err.message);
                        c->unsettled = true;
                        j++;
                        continue;
                }
                log_info("Job %" PRIu64 " %s%s%s", cj->info.id, store_job_state_to_string(state),
                         why ? ": " : "", why ? why : "");
                if (state == STORE_JOB_SUCCEEDED &&
                    cluster_profile_save(c->store, &cj->info, &err) < 0)
                        log_warning("Job %" PRIu64 " leaves no profile: %s", cj->info.id,
                                    err.message);
                if (state == STORE_JOB_FAILED)
                        for (size_t i = 0; i < cj->n_tasks; i++)
                                task_kill_attempts(c, &cj->tasks[i], KILL_JOB_FAILED);
                job_remove(c, cj);
        }
}

/* An attempt of t failed: counted against CLUSTER_MAX_FAILURES, and its
 * reason kept for the job's message should the task fail it. A failed
 * backup counts too, as every failed attempt counts towards Hadoop 1's
 * mapred.map.max.attempts (TaskInProgress.incompleteSubTask()), and as
 * there the task runs on with its other attempt rather than pending again:
 * we follow it. */
static void task_failed(ClusterTask *t, const ClusterJob *j, const ClusterFinished *x,
                        const ClusterNode *n) {
        const char *reason = x->reason[0] ? x->reason : "no reason given";

        t->failures++;
        t->failed_on = n->id;
        log_info("Attempt %" PRIu64 " of job %" PRIu64 " (%s %u, failure %u of %u) on %s: %s",
                 x->attempt, j->info.id, t->type == TASK_MAP ? "map" : "reduce", t->index,
                 t->failures, CLUSTER_MAX_FAILURES, n->hostname, reason);
        free(t->failure);
        t->failure = strdup(reason);
        if (!t->failure)
                log_oom();
}

/* The first attempt of t to succeed wins; the other is killed, and its
 * report, whatever it says, is ignored (apply_report()). */
static void task_succeeded(Cluster *c, ClusterTask *t, const ClusterFinished *x) {
        char *output = strdup(x->output);

        if (!output)
                /* Stored already: only a reduce's list of map outputs
                 * misses it until a restart. */
                log_oom();
        task_kill_attempts(c, t, KILL_SPECULATION);
        t->state = TASK_DONE;
        free(t->output);
        t->output = output;
}

static void apply_report(Cluster *c, ClusterNode *n, const ClusterReport *r, usec_t now,
                         usec_t now_monotonic) {
        n->last_heartbeat = now_monotonic;
        n->steal = r->steal;
        n->iowait = r->iowait;
        n->measured_at = now;
        for (size_t i = 0; i < r->n_running; i++) {
                const ClusterRunning *x = &r->running[i];
                unsigned a = 0;
                ClusterTask *t = attempt_find(c, x->attempt, NULL, &a);
                ClusterAttempt *at;
                usec_t ran;

                if (!t) {
                        /* Not ours (any more): the tracker should not spend
                         * a slot on it. */
                        if (node_queue_kill(n, x->attempt, KILL_UNKNOWN) < 0)
                                log_oom();
                        continue;
                }
                at = &t->attempts[a];
                ran = now > at->started ? now - at->started : 0;
                at->progress = x->progress;
                at->bytes_processed = x->bytes_processed;
                t->input_size = x->input_size;
                at->cpu = share(x->cpu_time, ran);
                at->iowait = share(x->iowait_time, ran);
        }
        for (size_t i = 0; i < r->n_finished; i++) {
                const ClusterFinished *x = &r->finished[i];
                ClusterJob *j = NULL;
                unsigned a = 0;
                ClusterTask *t = attempt_find(c, x->attempt, &j, &a);

                /* A loser's report, succeeded or killed, finds no attempt:
                 * its kill took it out of the task when the winner's came. */
                if (!t) {
                        if (x->status == STORE_TASK_SUCCEEDED)
                                cluster_output_discard(c, x->output);
                        continue;
                }
                attempt_stop(c, t, a);
                if (x->status == STORE_TASK_SUCCEEDED)
                        task_succeeded(c, t, x);
                else if (x->status == STORE_TASK_FAILED)
                        task_failed(t, j, x, n);
                else
                        t->kills++;
        }
}

static int reply_add_assignment(ClusterReply *reply, const ClusterAssignment *a) {
        ClusterAssignment *as =
                realloc(reply->assignments, (reply->n_assignments + 1) * sizeof(*as));

        if (!as)
                return -ENOMEM;
        reply->assignments = as;
        reply->assignments[reply->n_assignments++] = *a;
        return 0;
}

static const ClusterJob *job_of_task(const Cluster *c, const ClusterTask *t) {
        for (size_t j = 0; j < c->n_jobs; j++)
                if (t >= c->jobs[j].tasks && t < c->jobs[j].tasks + c->jobs[j].n_tasks)
                        return &c->jobs[j];
        return NULL;
}

static int start_attempt(Cluster *c, ClusterNode *n, ClusterTask *t, SlotType slot,
                         uint64_t slot_memory, bool speculative, usec_t now, ClusterReply *reply) {
        ClusterAssignment a = {
                .attempt = c->next_attempt,
                .job = job_of_task(c, t),
                .task = t,
                .slot_memory = slot_memory ? slot_memory : n->slot_memory,
                .slot = slot,
        };
        int r;

        r = reply_add_assignment(reply, &a);
        if (r < 0)
                return r;
        c->next_attempt++;
        attempt_add(n, t,
                    &(ClusterAttempt){ .id = a.attempt,
                                       .started = now,
                                       .slot_memory = a.slot_memory,
                                       .slot = slot,
                                       .speculative = speculative });
        return 0;
}

/* A backup of t on n: one at most, of a task still running (a kill of
 * this step may have ended its attempt), not beside the attempt it backs
 * up, where it would share the slowness, nor where its last attempt failed
 * (Hadoop 1 runs no attempt of a task on a tracker that runs one or where
 * one failed, TaskInProgress.hasRunOnMachine()). */
static bool backup_allowed(const ClusterTask *t, const ClusterNode *n) {
        return t->state == TASK_RUNNING && t->n_attempts == 1 && t->attempts[0].node != n->id &&
               t->failed_on != n->id;
}

/* Kills and slot changes wait in their trackers' queues; assignments are
 * for the heartbeating tracker alone (the step's contract). */
static int apply_decisions(Cluster *c, const Snapshot *s, ClusterNode *n, usec_t now,
                           ClusterReply *reply) {
        static const char *const kill_reasons[_KILL_REASON_MAX] = {
                [KILL_RESIZE] = "resize",
                [KILL_REPLACE] = "replace",
                [KILL_RETRY] = "retry",
        };
        const Decisions *d = &c->decisions;
        int r;

        /* Layers note a straggler again on every step it stays one: the
         * attempt names it, for whoever counts them in the log. */
        for (size_t i = 0; i < d->n_stragglers; i++) {
                const Attempt *at = &s->attempts[d->stragglers[i].attempt];

                log_debug("Straggler: attempt %" PRIu64 " on tracker %" PRIu64, at->id,
                          c->nodes[at->node].id);
        }
        for (size_t i = 0; i < d->n_kills; i++) {
                const Attempt *at = &s->attempts[d->kills[i].attempt];
                ClusterNode *on = &c->nodes[at->node];
                unsigned a = 0;
                ClusterTask *t = attempt_find(c, at->id, NULL, &a);
                SlotType slot;

                if (!t)
                        /* Gone with its task's winner earlier in this step. */
                        continue;
                log_info("Kill: attempt %" PRIu64 " on tracker %" PRIu64 " (%s)", at->id, on->id,
                         kill_reasons[d->kills[i].reason]);
                r = node_queue_kill(on, at->id, kill_reasons[d->kills[i].reason]);
                if (r < 0)
                        return r;
                /* A resized attempt starts again in the slot it held. */
                slot = t->attempts[a].slot;
                attempt_stop(c, t, a);
                t->kills++;
                t->resizes += d->kills[i].reason == KILL_RESIZE;
                t->slot_memory = d->kills[i].slot_memory;
                if (d->kills[i].reason == KILL_RESIZE && n == on &&
                    t->n_attempts < CLUSTER_ATTEMPTS_MAX) {
                        r = start_attempt(c, on, t, slot, t->slot_memory, false, now, reply);
                        if (r < 0)
                                return r;
                }
        }
        for (size_t i = 0; i < d->n_slot_changes; i++) {
                ClusterNode *on = &c->nodes[d->slot_changes[i].node];

                if (on->slots[SLOT_MAP] != d->slot_changes[i].slots[SLOT_MAP] ||
                    on->slots[SLOT_REDUCE] != d->slot_changes[i].slots[SLOT_REDUCE])
                        log_info("Slots: tracker %" PRIu64
                                 " %u map, %u reduce -> %u map, %u reduce",
                                 on->id, on->slots[SLOT_MAP], on->slots[SLOT_REDUCE],
                                 d->slot_changes[i].slots[SLOT_MAP],
                                 d->slot_changes[i].slots[SLOT_REDUCE]);
                on->slots[SLOT_MAP] = d->slot_changes[i].slots[SLOT_MAP];
                on->slots[SLOT_REDUCE] = d->slot_changes[i].slots[SLOT_REDUCE];
                on->slots_changed_at = now;
                on->slots_pending = true;
        }
        if (!n)
                return 0;
        for (size_t i = 0; i < d->n_assignments; i++) {
                const Assignment *as = &d->assignments[i];
                ClusterTask *t = s->task_of[as->task];

                if (as->speculative ? !backup_allowed(t, n) : t->state != TASK_PENDING)
                        continue;
                r = start_attempt(c, n, t, as->slot, as->slot_memory, as->speculative, now, reply);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int run_step(Cluster *c, ClusterNode *n, unsigned flags, usec_t now, ClusterReply *reply) {
        PolicyStepArgs args = { .now = now, .flags = flags };
        const Decisions *d = &c->decisions;
        int r;

        r = step_snapshot(c, &args.flags);
        if (r < 0)
                return r;
        if (n)
                args.node = node_index(c, n->id);
        r = policy_step(c->policy, &c->snapshot->s, &args, &c->decisions);
        if (r >= 0)
                r = apply_decisions(c, c->snapshot, n, now, reply);
        if (r < 0 || d->n_kills > 0 || d->n_slot_changes > 0 || (reply && reply->n_assignments > 0))
                snapshot_drop(c);
        return r;
}

int cluster_heartbeat(Cluster *c, uint64_t node, const ClusterReport *report, usec_t now,
                      usec_t now_monotonic, ClusterReply *ret, StoreError *err) {
        ClusterReply reply = { 0 };
        ClusterNode *n = node_find(c, node);
        int r;

        if (!n)
                return fail(err, -ENOENT, "tracker", "No tracker %" PRIu64, node);
        if (n->state == NODE_LOST)
                return fail(err, -ESTALE, "tracker", "Tracker %" PRIu64 " was lost: register again",
                            node);
        r = report_check(c, n, report, err);
        if (r < 0)
                return r;
        /* What finished changes tasks and may end jobs. */
        if (report->n_finished > 0 || c->unsettled)
                snapshot_drop(c);
        adopt_finished(c, n, report, now);
        r = record_finished(c, n, report, now, err);
        if (r < 0)
                return r;
        apply_report(c, n, report, now, now_monotonic);
        /* Only a finished attempt ends a job (but see unsettled): a pass
         * over every task on every heartbeat would be wasted. */
        if (report->n_finished > 0 || c->unsettled)
                jobs_settle(c);

        r = c->step ? run_step(c, n, POLICY_STEP_ASSIGN | POLICY_STEP_HEARTBEAT, now, &reply) : 0;
        if (r < 0) {
                /* The report is in; the tracker asks again next beat. */
                log_warning_errno(r, "Policy step for tracker %" PRIu64 " failed", node);
                reply.n_assignments = 0;
        }
        reply.kills = TAKE_PTR(n->kills);
        reply.n_kills = n->n_kills;
        n->n_kills = 0;
        reply.slots[SLOT_MAP] = n->told[SLOT_MAP] = n->slots[SLOT_MAP];
        reply.slots[SLOT_REDUCE] = n->told[SLOT_REDUCE] = n->slots[SLOT_REDUCE];
        reply.slot_memory = n->slot_memory;
        n->slots_pending = false;
        *ret = reply;
        return 0;
}

int cluster_set_slots(Cluster *c, uint64_t node, const unsigned slots[static _SLOT_TYPE_MAX],
                      uint64_t slot_memory, usec_t now, StoreError *err) {
        ClusterNode *n = node_find(c, node);

        if (!n || n->state == NODE_LOST)
                return fail(err, -ENXIO, "node", "No %s tracker %" PRIu64,
                            n ? "live" : "registered", node);
        n->slots[SLOT_MAP] = slots[SLOT_MAP];
        n->slots[SLOT_REDUCE] = slots[SLOT_REDUCE];
        if (slot_memory)
                n->slot_memory = slot_memory;
        n->slots_changed_at = now;
        n->slots_pending = true;
        snapshot_drop(c);
        return 0;
}

int cluster_control(Cluster *c, usec_t now) {
        return run_step(c, NULL, POLICY_STEP_CONTROL, now, NULL);
}

size_t cluster_lose_silent(Cluster *c, usec_t now_monotonic, usec_t timeout) {
        size_t lost = 0;

        for (size_t i = 0; i < c->n_nodes; i++) {
                ClusterNode *n = &c->nodes[i];

                if (n->state == NODE_LOST || now_monotonic - n->last_heartbeat <= timeout)
                        continue;
                n->state = NODE_LOST;
                lost++;
                snapshot_drop(c);
                /* A lost tracker loses its own attempts only: a task
                 * with its other attempt elsewhere runs on. */
                for (size_t j = 0; j < c->n_jobs; j++)
                        for (size_t k = 0; k < c->jobs[j].n_tasks; k++) {
                                ClusterTask *t = &c->jobs[j].tasks[k];

                                for (unsigned a = t->n_attempts; a > 0; a--)
                                        if (t->attempts[a - 1].node == n->id)
                                                attempt_stop(c, t, a - 1);
                        }
                n->running[SLOT_MAP] = n->running[SLOT_REDUCE] = 0;
                free(n->kills);
                n->kills = NULL;
                n->n_kills = 0;
                log_warning("Tracker %" PRIu64 " (%s) sent no heartbeat for %s: lost", n->id,
                            n->hostname, "longer than the timeout");
        }
        return lost;
}

/* SPDX-License-Identifier: MIT */
/* Building the simulated cluster from a scenario and a workload: hosts, VMs
 * and slave nodes, each cluster's jobs and their tasks (splits, replicas,
 * the work each does), the job times and profiles the workload asks for,
 * and the first events; and freeing it. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "sim/sim.h"
#include "sim/state.h"

/* splitmix64: small, fast, and the same on every machine. */
static uint64_t rng_next(uint64_t *state) {
        uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
}

static double rng_uniform(uint64_t *state) {
        return (double)(rng_next(state) >> 11) * 0x1.0p-53;
}

static int build_hosts(Sim *s) {
        const Scenario *sc = s->sc;
        /* What the VMs may use together: a quota on the host's VMs, or all
         * its CPUs. */
        double pcpus = sc->host_cpu_limit > 0 ? fmin(sc->host_cpu_limit, (double)sc->host_cpus)
                                              : (double)sc->host_cpus;

        s->n_hosts = (size_t)sc->hosts;
        s->hosts = calloc(s->n_hosts, sizeof(SimHost));
        s->snap_hosts = calloc(s->n_hosts, sizeof(Host));
        s->accruing = calloc(s->n_hosts, sizeof(uint32_t));
        if (!s->hosts || !s->snap_hosts || !s->accruing)
                return -ENOMEM;
        s->snap_hosts_stale = true;
        for (size_t i = 0; i < s->n_hosts; i++) {
                s->hosts[i] = (SimHost){
                        .pcpus = pcpus,
                        .disk_bw = (double)sc->host_disk_bw,
                };
                s->pcpus += pcpus;
                s->snap_hosts[i] = (Host){
                        .id = i,
                        .pcpus = (unsigned)sc->host_cpus,
                        .memory = sc->host_memory,
                        .disk_bandwidth = sc->host_disk_bw,
                };
        }
        return 0;
}

/* VMs go round-robin over the hosts, each cluster starting at host 0, so a
 * co-running cluster lands VM for VM beside the measured one. The first
 * `masters` VMs of a cluster are its JobTracker and NameNode: they run no
 * tasks. */
static int build_vms(Sim *s) {
        const Scenario *sc = s->sc;
        size_t per_cluster = (size_t)sc->vms;

        s->n_vms = per_cluster * s->n_clusters;
        s->vms = calloc(s->n_vms, sizeof(SimVm));
        if (!s->vms)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_hosts; i++) {
                /* Each cluster puts ceil(per_cluster / hosts) at most on a host. */
                size_t most = s->n_clusters * ((per_cluster + s->n_hosts - 1) / s->n_hosts);
                s->hosts[i].vms = calloc(most, sizeof(uint32_t));
                s->hosts[i].demand = calloc(most, sizeof(CpuDemand));
                s->hosts[i].alloc = calloc(most, sizeof(double));
                if (!s->hosts[i].vms || !s->hosts[i].demand || !s->hosts[i].alloc)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < s->n_vms; i++) {
                size_t local = i % per_cluster;
                SimVm *v = &s->vms[i];
                SimHost *h = &s->hosts[local % s->n_hosts];

                *v = (SimVm){
                        .sim = s,
                        .host = (uint32_t)(local % s->n_hosts),
                        .cluster = (unsigned)(i / per_cluster),
                        .node = NO_INDEX,
                        .cluster_pos = (uint32_t)(i % per_cluster),
                        .vcpus = (unsigned)sc->vm_vcpus,
                        .vcpus_max = (unsigned)sc->vm_vcpus_max,
                        .weight = (unsigned)sc->vm_weight,
                        .memory = sc->vm_memory,
                        .memory_max = sc->vm_memory_max,
                        .cap = sc->vm_cap,
                        .committed = (double)sc->vm_os_memory,
                };
                h->vms[h->n_vms++] = (uint32_t)i;
                h->clusters |= 1u << v->cluster;
                h->measure_due = h->clusters;
        }
        return 0;
}

static int simcl_alloc(SimCluster *cl, size_t n_vms, size_t n_nodes) {
        cl->n_vms = n_vms;
        cl->n_nodes = n_nodes;
        cl->vms = calloc(n_vms, sizeof(uint32_t));
        cl->vm_cpu_use = calloc(n_vms, sizeof(double));
        cl->nodes = calloc(n_nodes, sizeof(Node));
        cl->node_vm = calloc(n_nodes, sizeof(uint32_t));
        cl->beats = calloc(n_nodes, sizeof(NodeBeat));
        cl->node_attempts = calloc(n_nodes, sizeof(NodeAttempts));
        cl->grown = calloc(n_nodes, sizeof(GrownSlots));
        cl->unreported = calloc(n_nodes, sizeof(uint32_t));
        cl->slots_changed = calloc(n_nodes, sizeof(uint32_t));
        cl->slots_listed = calloc(n_nodes, sizeof(bool));
        if (!cl->grown || !cl->unreported || !cl->vms || !cl->vm_cpu_use || !cl->nodes ||
            !cl->node_vm || !cl->beats || !cl->node_attempts || !cl->slots_changed ||
            !cl->slots_listed)
                return -ENOMEM;
        return 0;
}

static int build_cluster_nodes(Sim *s, SimCluster *cl) {
        const Scenario *sc = s->sc;
        size_t per_cluster = (size_t)sc->vms, masters = (size_t)sc->masters;
        int r;

        r = simcl_alloc(cl, per_cluster, per_cluster - masters);
        if (r < 0)
                return r;
        for (size_t i = 0; i < per_cluster; i++) {
                uint32_t global = (uint32_t)(cl->index * per_cluster + i);
                cl->vms[i] = global;
                cl->committed += (uint64_t)s->vms[global].committed;
                cl->memory += s->vms[global].memory;
                if (i < masters)
                        continue;
                uint32_t n = (uint32_t)(i - masters);
                s->vms[global].node = n;
                cl->node_vm[n] = global;
                cl->nodes[n] = (Node){
                        .id = n,
                        .vm = (uint32_t)i,
                        .slots = { [SLOT_MAP] = (unsigned)sc->map_slots,
                                   [SLOT_REDUCE] = (unsigned)sc->reduce_slots },
                        .state = NODE_ALIVE,
                        .slot_memory = sc->task_heap,
                };
                cl->map_slots += cl->nodes[n].slots[SLOT_MAP];
                sim_node_capacity_update(s, &s->vms[global]);
                cl->beats[n] = (NodeBeat){ .cl = cl, .node = n };
                r = sim_node_grown_resize(cl, n);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* File sizes of FlexSlot II-A: most files are one block, some smaller than
 * a block, some larger. */
static double file_size(Sim *s, const Benchmark *b, double small_frac, double block) {
        double u = rng_uniform(&s->rng);

        if (u < small_frac)
                return block * (0.1 + 0.9 * rng_uniform(&s->rng));
        if (u < small_frac + b->large_frac)
                return block * (1.0 + (b->large_max_blocks - 1.0) * rng_uniform(&s->rng));
        return block;
}

/* Hadoop 1.1.1's FileInputFormat.getSplits(): a file is cut into splits of
 * a block while more than SPLIT_SLOP (1.1) blocks are left; the rest is the
 * last split, so no split exceeds 1.1 blocks. (mapred.map.tasks' goal size
 * is far above a block for these inputs, and mapred.min.split.size is 1.) */
#define SPLIT_SLOP 1.1

static double next_split(double file_left, double block) {
        return file_left / block > SPLIT_SLOP ? block : file_left;
}

static void place_replicas(Sim *s, const SimCluster *cl, Task *t) {
        unsigned want = (unsigned)MIN((size_t)MAX_REPLICAS, cl->n_nodes);

        t->n_locations = 0;
        while (t->n_locations < want) {
                uint32_t n = (uint32_t)(rng_next(&s->rng) % cl->n_nodes);
                bool dup = false;
                for (unsigned i = 0; i < t->n_locations; i++)
                        dup = dup || t->locations[i] == n;
                if (!dup)
                        t->locations[t->n_locations++] = n;
        }
}

typedef struct TaskList {
        Task *tasks;
        TaskExtra *extra;
        size_t n, cap;
} TaskList;

static int task_push(TaskList *l, Task **ret_t, TaskExtra **ret_x) {
        if (l->n == l->cap) {
                size_t n = l->cap ? 2 * l->cap : 1024;
                Task *t = realloc(l->tasks, n * sizeof(*t));
                TaskExtra *x;
                if (!t)
                        return -ENOMEM;
                l->tasks = t;
                x = realloc(l->extra, n * sizeof(*x));
                if (!x)
                        return -ENOMEM;
                l->extra = x;
                l->cap = n;
        }
        *ret_t = memset(&l->tasks[l->n], 0, sizeof(Task));
        *ret_x = memset(&l->extra[l->n], 0, sizeof(TaskExtra));
        l->n++;
        return 0;
}

/* RAS's demand of one task: what it uses running alone at its benchmark's
 * nominal costs per MB of input (CPU on one core, its input and output at
 * the stream bandwidth), and its heap. */
static Resources task_demand(const Sim *s, double cpu_per_mb, double output_ratio) {
        double io_bytes = MB * (1.0 + output_ratio), run = cpu_per_mb + io_bytes / s->stream_bw;

        return (Resources){
                .cpu = run > 0 ? cpu_per_mb / run : 0,
                .io = run > 0 ? io_bytes / run : 0,
                .memory = s->sc->task_heap,
        };
}

/* RAS's profile of a task from shares (%) of a slave's capacity. */
static Resources profile_demand(const Scenario *sc, double cpu, double io, double memory) {
        return (Resources){
                .cpu = cpu / 100 * (double)sc->vm_vcpus,
                .io = io / 100 * (double)sc->host_disk_bw,
                .memory = (uint64_t)(memory / 100 * (double)(sc->vm_memory - sc->vm_os_memory)),
        };
}

/* A benchmark with RAS's profile (Table 2) gives the scheduler its demands,
 * and its tasks run in heaps of the profile's memory under every
 * scheduler, as the jobs the paper measured did; a reduce holds its heap
 * while it shuffles too. */
static void job_profile_apply(const Scenario *sc, const Benchmark *b, Job *job) {
        job->demand[TASK_MAP] =
                profile_demand(sc, b->ras_map_cpu, b->ras_map_io, b->ras_map_memory);
        job->demand[TASK_REDUCE] =
                profile_demand(sc, b->ras_reduce_cpu, b->ras_reduce_io, b->ras_reduce_memory);
        job->shuffle = profile_demand(sc, 0, b->ras_shuffle_io, b->ras_reduce_memory);
}

static int build_job(Sim *s, SimCluster *cl, size_t j, const Benchmark *b, TaskList *l) {
        const Scenario *sc = s->sc;
        double block = (double)sc->block_size, left = b->input_bytes * sc->scale, file_left = 0;
        double total_output = 0,
               record_bytes = sc->record_bytes >= 0 ? sc->record_bytes : b->record_bytes;
        double small_frac = sc->small_frac >= 0 ? sc->small_frac : b->small_frac;
        double expensive_cpu = sc->expensive_cpu >= 1 ? sc->expensive_cpu : b->expensive_cpu;
        JobExtra *jx = &cl->jobx[j];
        unsigned reduces;
        Task *t;
        TaskExtra *x;
        int r;

        jx->bench = b;
        jx->combine = sc->combine_ratio >= 0 ? sc->combine_ratio : b->combine_ratio;
        jx->first_task = (uint32_t)l->n;
        cl->jobs[j] = (Job){
                .id = j,
                .submitted = (usec_t)j * sc->arrival_gap,
                .demand = { [TASK_MAP] = task_demand(s, b->map_cpu_per_mb, b->map_output_ratio),
                            [TASK_REDUCE] = task_demand(s, b->reduce_cpu_per_mb, b->output_ratio) },
        };
        if (b->ras_profile)
                job_profile_apply(sc, b, &cl->jobs[j]);
        while (left > 0) {
                double size;
                bool expensive;

                if (file_left <= 0)
                        file_left = MIN(file_size(s, b, small_frac, block), left);
                size = next_split(file_left, block);
                file_left -= size;
                expensive = rng_uniform(&s->rng) < b->expensive_frac;
                r = task_push(l, &t, &x);
                if (r < 0)
                        return r;
                left -= size;
                t->id = l->n - 1;
                t->job = (uint32_t)j;
                t->type = TASK_MAP;
                t->input_size = (uint64_t)size;
                cl->jobs[j].input_size += t->input_size;
                place_replicas(s, cl, t);
                if (b->ras_profile)
                        t->slot_memory = cl->jobs[j].demand[TASK_MAP].memory;
                x->cpu_work = size / MB * b->map_cpu_per_mb * (expensive ? expensive_cpu : 1);
                x->output = size * b->map_output_ratio * (expensive ? b->expensive_output : 1);
                x->records = record_bytes > 0 ? x->output / record_bytes : 0;
                /* The reduces fetch what the maps write at the default slot
                 * memory. */
                x->spill_buffer = (double)sc->sort_buffer;
                r = map_spill_plan(x->output, x->records, x->spill_buffer, jx->combine, &x->spills);
                if (r < 0)
                        return r;
                total_output += x->spills.output;
                cl->jobs[j].counts[TASK_MAP].total++;
        }
        reduces = b->reduces == 0 ? 0 : (unsigned)MAX(1.0, round(b->reduces * MIN(sc->scale, 1.0)));
        for (unsigned i = 0; i < reduces; i++) {
                double input = total_output / reduces;
                r = task_push(l, &t, &x);
                if (r < 0)
                        return r;
                t->id = l->n - 1;
                t->job = (uint32_t)j;
                t->type = TASK_REDUCE;
                t->input_size = (uint64_t)input;
                if (b->ras_profile)
                        t->slot_memory = cl->jobs[j].demand[TASK_REDUCE].memory;
                x->cpu_work = input / MB * b->reduce_cpu_per_mb;
                x->output = input * b->output_ratio;
                cl->jobs[j].counts[TASK_REDUCE].total++;
        }
        return 0;
}

/* Splits a comma-separated job list into benchmarks. */
static int build_jobs(Sim *s, SimCluster *cl, const Workload *wl, const char *list, char *err,
                      size_t err_size) {
        _cleanup_free_ char *copy = strdup(list);
        TaskList l = { 0 };
        size_t n = 1;
        char *save = NULL;
        int r = 0;

        if (!copy)
                return -ENOMEM;
        for (const char *p = list; *p; p++)
                n += *p == ',';
        cl->jobs = calloc(n, sizeof(Job));
        cl->jobx = calloc(n, sizeof(JobExtra));
        cl->open_jobs = calloc(n, sizeof(uint32_t));
        if (!cl->jobs || !cl->jobx || !cl->open_jobs)
                return -ENOMEM;
        for (char *name = strtok_r(copy, ", ", &save); name; name = strtok_r(NULL, ", ", &save)) {
                const Benchmark *b = workload_find(wl, name);
                if (!b) {
                        snprintf(err, err_size,
                                 "[workload] jobs: no benchmark '%s' in the workload", name);
                        r = -EINVAL;
                        break;
                }
                r = build_job(s, cl, cl->n_jobs++, b, &l);
                if (r < 0)
                        break;
        }
        cl->tasks = l.tasks;
        cl->taskx = l.extra;
        cl->n_tasks = l.n;
        if (r == 0 && cl->n_jobs == 0) {
                snprintf(err, err_size, "[workload] jobs: empty job list");
                r = -EINVAL;
        }
        return r;
}

/* A [workload] key of one duration per job, in the order of jobs: submit
 * (from the start, never before the job before it, as jobs arrive in
 * their order) or deadlines (after the job's submission, above 0, or
 * "none"). On failure sim_new() fails, and the jobs go with it. */
static int job_times(SimCluster *cl, const char *key, const char *list, bool deadline, char *err,
                     size_t err_size) {
        _cleanup_free_ char *copy = strdup(list);
        size_t j = 0;
        char *save = NULL, *d;

        if (!copy)
                return -ENOMEM;
        for (d = strtok_r(copy, ", ", &save); d && j < cl->n_jobs;
             d = strtok_r(NULL, ", ", &save), j++) {
                Job *job = &cl->jobs[j];
                usec_t t = 0;

                if (!(deadline && strcmp(d, "none") == 0) &&
                    (parse_duration(d, &t) < 0 || (deadline && t == 0))) {
                        snprintf(err, err_size, "[workload] %s: '%s' is neither a duration %s", key,
                                 d, deadline ? "above 0 nor none" : "nor 0");
                        return -EINVAL;
                }
                if (deadline) {
                        job->deadline = t ? job->submitted + t : 0;
                        continue;
                }
                if (j > 0 && t < job[-1].submitted) {
                        snprintf(err, err_size,
                                 "[workload] %s: '%s' comes before the job before it; jobs are "
                                 "submitted in the order of jobs",
                                 key, d);
                        return -EINVAL;
                }
                job->submitted = t;
        }
        if (d || j != cl->n_jobs) {
                snprintf(err, err_size, "[workload] %s: one for each of the %zu jobs", key,
                         cl->n_jobs);
                return -EINVAL;
        }
        return 0;
}

/* [workload] submit, then deadlines after each submission. */
static int apply_job_times(SimCluster *cl, const Scenario *sc, char *err, size_t err_size) {
        int r = 0;

        if (sc->submit)
                r = job_times(cl, "submit", sc->submit, false, err, err_size);
        if (r >= 0 && sc->deadlines)
                r = job_times(cl, "deadlines", sc->deadlines, true, err, err_size);
        return r;
}

/* [workload] profile_runs: the profile of each job with a deadline from a
 * run of its benchmark alone on the same cluster, the way ARIA's profile
 * database holds the jobs that ran before. */
static int profile_runs(Sim *s, SimCluster *cl, const Workload *wl, char *err, size_t err_size) {
        for (size_t j = 0; j < cl->n_jobs; j++) {
                JobExtra *jx = &cl->jobx[j];
                Scenario solo = *s->sc;
                _cleanup_(sim_freep) Sim *p = NULL;
                char name[sizeof(jx->bench->name)], deadline[32];
                int r;

                if (cl->jobs[j].deadline == 0)
                        continue;
                snprintf(name, sizeof(name), "%s", jx->bench->name);
                /* With its deadline, so that its reduces start as they will
                 * in this run: the Deadline Constraint Scheduler's wait for
                 * the last map, and its whole copy is what the profile's
                 * shuffle measures. */
                snprintf(deadline, sizeof(deadline), "%" PRIu64 "us",
                         cl->jobs[j].deadline - cl->jobs[j].submitted);
                solo.jobs = name;
                solo.deadlines = deadline;
                solo.submit = NULL;
                solo.profile_runs = false;
                solo.interference = false;
                r = sim_new(&solo, wl, &p, err, err_size);
                if (r >= 0)
                        r = sim_run(p);
                if (r < 0)
                        return r;
                jx->stored_profile = p->clusters[0].jobs[0].profile;
                cl->jobs[j].stored_profile = &jx->stored_profile;
        }
        return 0;
}

static int schedule_events(Sim *s, SimCluster *cl) {
        const Scenario *sc = s->sc;
        int r;

        for (size_t j = 0; j < cl->n_jobs; j++) {
                r = event_queue_schedule(s->queue, cl->jobs[j].submitted, sim_job_arrival_event, cl,
                                         NULL);
                if (r < 0)
                        return r;
        }
        /* Trackers heartbeat at staggered offsets, as real ones drift apart. */
        for (size_t i = 0; i < cl->n_nodes; i++) {
                usec_t offset = s->heartbeat * (i + 1) / cl->n_nodes;
                r = event_queue_schedule(s->queue, offset, sim_heartbeat_event, &cl->beats[i],
                                         NULL);
                if (r < 0)
                        return r;
        }
        return event_queue_schedule(s->queue, scenario_core(sc)->control_interval,
                                    sim_control_event, cl, NULL);
}

int sim_new(const Scenario *sc, const Workload *wl, Sim **ret, char *err, size_t err_size) {
        _cleanup_(sim_freep) Sim *s = calloc(1, sizeof(Sim));
        int r;

        if (!s)
                return -ENOMEM;
        s->sc = sc;
        s->heartbeat = scenario_heartbeat_interval(sc);
        s->rng = (uint64_t)sc->seed;
        s->stream_bw = (double)sc->stream_bw;
        s->net_bw = (double)sc->net_bw;
        s->memory_penalty = sc->memory_penalty;
        s->n_clusters = sc->interference ? 2 : 1;
        r = event_queue_new(&s->queue);
        if (r < 0)
                return r;
        r = build_hosts(s);
        if (r < 0)
                return r;
        r = build_vms(s);
        if (r < 0)
                return r;
        for (unsigned c = 0; c < s->n_clusters; c++) {
                SimCluster *cl = &s->clusters[c];
                cl->index = c;
                cl->sim = s;
                cl->task_done = sim_task_finished;
                r = build_cluster_nodes(s, cl);
                if (r < 0)
                        return r;
                r = simcl_policy_init(cl, err, err_size);
                if (r < 0)
                        return r;
                r = build_jobs(s, cl, wl, c == 0 ? sc->jobs : sc->interference_jobs, err, err_size);
                if (r >= 0 && c == 0)
                        r = apply_job_times(cl, sc, err, err_size);
                if (r >= 0 && c == 0 && sc->profile_runs)
                        r = profile_runs(s, cl, wl, err, err_size);
                if (r < 0)
                        return r;
                r = schedule_events(s, cl);
                if (r < 0)
                        return r;
                if (sc->drs) {
                        r = sim_drs_start(cl);
                        if (r < 0)
                                return r;
                }
        }
        *ret = TAKE_PTR(s);
        return 0;
}

static void simcl_free(SimCluster *cl) {
        for (size_t i = 0; i < cl->n_attempts; i++)
                free(cl->attempts[i]);
        free(cl->attempts);
        policy_free(cl->policy);
        decisions_done(&cl->decisions);
        free(cl->jobs);
        for (size_t j = 0; cl->jobx && j < cl->n_jobs; j++) {
                free(cl->jobx[j].reduces);
                free(cl->jobx[j].waiting);
        }
        free(cl->jobx);
        free(cl->tasks);
        free(cl->taskx);
        free(cl->nodes);
        free(cl->node_vm);
        free(cl->beats);
        free(cl->node_attempts);
        free(cl->slots_changed);
        free(cl->slots_listed);
        for (size_t i = 0; cl->grown && i < cl->n_nodes; i++)
                free(cl->grown[i].size);
        free(cl->grown);
        free(cl->unreported);
        free(cl->vms);
        free(cl->vm_cpu_use);
        free(cl->snap_vms);
        free(cl->open_jobs);
        free(cl->snap_vms_stale);
        free(cl->snap_vm_is_stale);
        free(cl->snap_attempts);
        free(cl->snap_map);
        sim_drs_done(cl);
}

Sim *sim_free(Sim *s) {
        if (!s)
                return NULL;
        for (unsigned c = 0; c < 2; c++)
                simcl_free(&s->clusters[c]);
        for (size_t i = 0; s->hosts && i < s->n_hosts; i++) {
                free(s->hosts[i].vms);
                free(s->hosts[i].demand);
                free(s->hosts[i].alloc);
                free(s->hosts[i].attempts);
                free(s->hosts[i].stale);
                free(s->hosts[i].readers);
        }
        free(s->hosts);
        free(s->accruing);
        free(s->snap_hosts);
        free(s->vms);
        free(s->results.jobs);
        free(s->results.tasks);
        free(s->results.nodes);
        free(s->results.util);
        event_queue_free(s->queue);
        free(s);
        return NULL;
}

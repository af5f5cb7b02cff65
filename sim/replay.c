/* SPDX-License-Identifier: MIT */
/* The task-level replay (replay.h). Each step rebuilds the snapshot from
 * the jobs that came and are not done: all their tasks (the core counts a
 * job's finished maps from them) and one attempt per running task. Nodes
 * hold no splits, so no map is local. */
#include "sim/replay.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/policy.h"
#include "policy/layers/slo-sched.h"

#define SPLIT (64ULL << 20)

typedef struct RTask {
        uint32_t job;
        TaskType type;
        unsigned i; /* among the job's tasks of its type */
        TaskState state;
        uint32_t node;
        double start, end; /* end INFINITY: a reduce waiting for the last map */
} RTask;

typedef struct RJob {
        bool arrived, done;
        Job job; /* the core's view, its profile of finished tasks kept */
        uint32_t first_task;
} RJob;

typedef struct Replay {
        const ReplayOptions *o;
        const ReplayJob *in;
        ReplayJobResult *out;
        size_t n_jobs, n_tasks;
        RJob *jobs;
        RTask *tasks;
        unsigned *busy; /* [node * 2 + slot type] */
        uint32_t *running;
        size_t n_running;
        /* the snapshot */
        Host host;
        Vm *vms;
        Node *nodes;
        Job *sjobs;
        Task *stasks;
        uint32_t *stask_of; /* snapshot task -> tasks[] */
        Attempt *attempts;
        ClusterSnapshot s;
        double now;
} Replay;

static bool time_ok(double t) {
        return isfinite(t) && t >= 0;
}

static bool job_ok(const ReplayJob *j, const ReplayOptions *o) {
        if (!time_ok(j->submitted) || !time_ok(j->deadline) || j->maps == 0 ||
            (j->reduces > 0 &&
             (o->reduce_slots == 0 || !j->reduce_s || !j->shuffle_s || !j->first_shuffle_s)) ||
            !j->map_s)
                return false;
        for (unsigned i = 0; i < j->maps; i++)
                if (!time_ok(j->map_s[i]))
                        return false;
        for (unsigned i = 0; i < j->reduces; i++)
                if (!time_ok(j->reduce_s[i]) || !time_ok(j->shuffle_s[i]) ||
                    !time_ok(j->first_shuffle_s[i]))
                        return false;
        return true;
}

static void replay_free(Replay *r) {
        free(r->jobs);
        free(r->tasks);
        free(r->busy);
        free(r->running);
        free(r->vms);
        free(r->nodes);
        free(r->sjobs);
        free(r->stasks);
        free(r->stask_of);
        free(r->attempts);
}

static int replay_init(Replay *r, const ReplayOptions *o, const ReplayJob *jobs, size_t n,
                       ReplayJobResult *out) {
        uint32_t t = 0;

        *r = (Replay){ .o = o, .in = jobs, .out = out, .n_jobs = n };
        for (size_t j = 0; j < n; j++) {
                if (!job_ok(&jobs[j], o))
                        return -EINVAL;
                r->n_tasks += jobs[j].maps + jobs[j].reduces;
        }
        r->jobs = calloc(n, sizeof(*r->jobs));
        r->tasks = calloc(r->n_tasks, sizeof(*r->tasks));
        r->busy = calloc((size_t)o->nodes * _SLOT_TYPE_MAX, sizeof(*r->busy));
        r->running = calloc(r->n_tasks, sizeof(*r->running));
        r->vms = calloc(o->nodes, sizeof(*r->vms));
        r->nodes = calloc(o->nodes, sizeof(*r->nodes));
        r->sjobs = calloc(n, sizeof(*r->sjobs));
        r->stasks = calloc(r->n_tasks, sizeof(*r->stasks));
        r->stask_of = calloc(r->n_tasks, sizeof(*r->stask_of));
        r->attempts = calloc(r->n_tasks, sizeof(*r->attempts));
        if (!r->jobs || !r->tasks || !r->busy || !r->running || !r->vms || !r->nodes || !r->sjobs ||
            !r->stasks || !r->stask_of || !r->attempts)
                return -ENOMEM;
        r->host = (Host){ .id = 1, .pcpus = o->nodes, .memory = (uint64_t)o->nodes << 30 };
        for (uint32_t i = 0; i < o->nodes; i++) {
                r->vms[i] = (Vm){ .id = 100 + i,
                                  .vcpus = 1,
                                  .vcpus_max = 1,
                                  .memory = 1ULL << 30,
                                  .memory_max = 1ULL << 30,
                                  .cpu_weight = 1024 };
                r->nodes[i] = (Node){
                        .id = 100 + i,
                        .vm = i,
                        .slots = { !o->map_nodes || i < o->map_nodes ? o->map_slots : 0,
                                   !o->reduce_nodes || i < o->reduce_nodes ? o->reduce_slots : 0 },
                        .slot_memory = 200ULL << 20
                };
        }
        for (size_t j = 0; j < n; j++) {
                const ReplayJob *in = &jobs[j];

                r->jobs[j].first_task = t;
                r->jobs[j].job = (Job){
                        .id = 1000 + j,
                        .input_size = in->maps * SPLIT,
                        .counts = { [TASK_MAP] = { .total = in->maps },
                                    [TASK_REDUCE] = { .total = in->reduces } },
                        .stored_profile = in->profile,
                };
                for (unsigned i = 0; i < in->maps + in->reduces; i++, t++)
                        r->tasks[t] = (RTask){
                                .job = (uint32_t)j,
                                .type = i < in->maps ? TASK_MAP : TASK_REDUCE,
                                .i = i < in->maps ? i : i - in->maps,
                        };
                out[j] = (ReplayJobResult){ .submitted = NAN };
        }
        return 0;
}

static void snapshot_build(Replay *r) {
        size_t nj = 0, nt = 0, na = 0;

        for (size_t j = 0; j < r->n_jobs; j++) {
                RJob *rj = &r->jobs[j];
                const ReplayJob *in = &r->in[j];

                if (!rj->arrived || rj->done || r->out[j].refused)
                        continue;
                r->sjobs[nj] = rj->job;
                for (uint32_t t = rj->first_task; t < rj->first_task + in->maps + in->reduces;
                     t++) {
                        const RTask *rt = &r->tasks[t];

                        r->stasks[nt] = (Task){ .id = 1 + t,
                                                .job = (uint32_t)nj,
                                                .type = rt->type,
                                                .state = rt->state,
                                                .input_size = SPLIT };
                        r->stask_of[nt] = t;
                        if (rt->state == TASK_RUNNING)
                                r->attempts[na++] = (Attempt){
                                        .id = 1 + t,
                                        .task = (uint32_t)nt,
                                        .node = rt->node,
                                        .slot = slot_type_of(rt->type),
                                        .slot_memory = 200ULL << 20,
                                        .started = (usec_t)llround(rt->start * USEC_PER_SEC),
                                        .input_size = SPLIT,
                                };
                        nt++;
                }
                nj++;
        }
        r->s = (ClusterSnapshot){ .hosts = &r->host,
                                  .n_hosts = 1,
                                  .vms = r->vms,
                                  .n_vms = r->o->nodes,
                                  .nodes = r->nodes,
                                  .n_nodes = r->o->nodes,
                                  .jobs = r->sjobs,
                                  .n_jobs = nj,
                                  .tasks = r->stasks,
                                  .n_tasks = nt,
                                  .attempts = r->attempts,
                                  .n_attempts = na,
                                  /* The nodes keep their slots: a slot
                                   * change of a step is not applied. */
                                  .slots_reported = true };
}

/* When reduce t is done: its shuffle as replay.h says, then its reduce. */
static double reduce_end(const Replay *r, const RTask *t) {
        const ReplayJob *in = &r->in[t->job];
        const ReplayJobResult *out = &r->out[t->job];

        if (isnan(out->maps_end))
                return INFINITY;
        if (t->start >= out->maps_end)
                return t->start + in->shuffle_s[t->i] + in->reduce_s[t->i];
        return fmax(t->start + in->shuffle_s[t->i], out->maps_end + in->first_shuffle_s[t->i]) +
               in->reduce_s[t->i];
}

static int apply(Replay *r, const Decisions *d) {
        for (size_t i = 0; i < d->n_assignments; i++) {
                const Assignment *a = &d->assignments[i];
                uint32_t t = r->stask_of[a->task];
                RTask *rt = &r->tasks[t];
                TaskCounts *c = &r->jobs[rt->job].job.counts[rt->type];
                ReplayJobResult *out = &r->out[rt->job];

                if (rt->state != TASK_PENDING || a->speculative)
                        return -EBADMSG;
                rt->state = TASK_RUNNING;
                rt->node = a->node;
                rt->start = r->now;
                rt->end = rt->type == TASK_MAP ? r->now + r->in[rt->job].map_s[rt->i]
                                               : reduce_end(r, rt);
                r->busy[a->node * _SLOT_TYPE_MAX + slot_type_of(rt->type)]++;
                r->running[r->n_running++] = t;
                c->running++;
                out->peak[rt->type] = MAX(out->peak[rt->type], c->running);
        }
        return 0;
}

static double to_usec(double s) {
        return s * USEC_PER_SEC;
}

/* Task t ends now: its job's profile learns its phases. */
static void task_end(Replay *r, uint32_t t) {
        RTask *rt = &r->tasks[t];
        RJob *rj = &r->jobs[rt->job];
        const ReplayJob *in = &r->in[rt->job];
        ReplayJobResult *out = &r->out[rt->job];
        TaskCounts *c = &rj->job.counts[rt->type];
        JobProfile *p = &rj->job.profile;

        rt->state = TASK_DONE;
        r->busy[rt->node * _SLOT_TYPE_MAX + slot_type_of(rt->type)]--;
        c->running--;
        c->done++;
        if (rt->type == TASK_MAP) {
                phase_stats_add(&p->phases[PROFILE_MAP], (usec_t)to_usec(in->map_s[rt->i]));
                if (c->done == c->total) {
                        out->maps_end = r->now;
                        for (size_t k = 0; k < r->n_running; k++) {
                                RTask *o = &r->tasks[r->running[k]];

                                if (o->job == rt->job && o->type == TASK_REDUCE)
                                        o->end = reduce_end(r, o);
                        }
                }
        } else {
                double shuffle = rt->end - in->reduce_s[rt->i] - rt->start;

                if (rt->start < out->maps_end)
                        phase_stats_add(&p->phases[PROFILE_FIRST_SHUFFLE],
                                        (usec_t)to_usec(rt->start + shuffle - out->maps_end));
                else
                        phase_stats_add(&p->phases[PROFILE_TYPICAL_SHUFFLE],
                                        (usec_t)to_usec(shuffle));
                phase_stats_add(&p->phases[PROFILE_REDUCE], (usec_t)to_usec(in->reduce_s[rt->i]));
        }
        if (rj->job.counts[TASK_MAP].done == in->maps &&
            rj->job.counts[TASK_REDUCE].done == in->reduces) {
                rj->done = true;
                out->finished = r->now;
        }
}

static unsigned slots_of(unsigned nodes, unsigned limit, unsigned per_node) {
        return (limit ? MIN(limit, nodes) : nodes) * per_node;
}

static unsigned all_slots(const ReplayOptions *o) {
        return slots_of(o->nodes, o->map_nodes, o->map_slots) +
               slots_of(o->nodes, o->reduce_nodes, o->reduce_slots);
}

/* Some job that came is not done: the cluster has work, running or not. */
static bool working(const Replay *r) {
        for (size_t j = 0; j < r->n_jobs; j++)
                if (r->jobs[j].arrived && !r->jobs[j].done && !r->out[j].refused)
                        return true;
        return false;
}

/* ARIA 7.2's gate for job j: its minimum pair plus the load under the
 * threshold, or no work at all. The load is "the sum of the percentage of
 * running map and reduce tasks": running maps over map slots plus running
 * reduces over reduce slots. */
static bool gate_open(const Replay *r, size_t j) {
        const ReplayOptions *o = r->o;
        const ReplayJob *in = &r->in[j];
        unsigned map_slots = slots_of(o->nodes, o->map_nodes, o->map_slots),
                 reduce_slots = slots_of(o->nodes, o->reduce_nodes, o->reduce_slots), maps = 0;
        AriaAllocation al;
        AriaProfile p;

        if (!working(r))
                return true;
        if (slo_job_profile(&r->jobs[j].job, in->maps, &p) < 0 ||
            aria_min_slots(&p, in->maps, in->reduces, in->deadline, map_slots, reduce_slots,
                           o->gate_bound, &al) < 0)
                return true;
        for (size_t k = 0; k < r->n_running; k++)
                maps += r->tasks[r->running[k]].type == TASK_MAP;
        return (double)(maps + al.map_slots) / map_slots +
                       (reduce_slots
                                ? (double)(r->n_running - maps + al.reduce_slots) / reduce_slots
                                : 0) <=
               o->load_threshold;
}

static int arrive(Replay *r, Policy *pol, size_t j) {
        RJob *rj = &r->jobs[j];
        ReplayJobResult *out = &r->out[j];
        AdmitVerdict v;
        int ret;

        rj->job.submitted = (usec_t)llround(to_usec(r->now));
        rj->job.deadline = r->in[j].deadline > 0
                                   ? rj->job.submitted + (usec_t)llround(to_usec(r->in[j].deadline))
                                   : 0;
        out->submitted = r->now;
        out->deadline = r->in[j].deadline > 0 ? r->now + r->in[j].deadline : 0;
        out->maps_end = NAN;
        snapshot_build(r);
        ret = policy_admit(pol, &r->s, rj->job.submitted, &rj->job, 0, &v);
        if (ret < 0)
                return ret;
        rj->arrived = true;
        if (!v.admit) {
                out->refused = true;
                out->finished = r->now;
                snprintf(out->reason, sizeof(out->reason), "%s", v.reason);
        }
        return 0;
}

/* The next job arrives now; a refused one is done with. */
static int arrive_next(Replay *r, Policy *pol, size_t *next, size_t *left) {
        int e = arrive(r, pol, (*next)++);

        if (e >= 0 && r->out[*next - 1].refused)
                (*left)--;
        return e;
}

static void stats_finish(const Replay *r, double busy_time, ReplayStats *ret) {
        *ret = (ReplayStats){ .makespan = r->now };
        ret->load = r->now > 0 ? busy_time / (r->now * all_slots(r->o)) : 0;
        for (size_t j = 0; j < r->n_jobs; j++) {
                const ReplayJobResult *out = &r->out[j];

                if (out->deadline == 0)
                        continue;
                if (out->refused)
                        ret->refused++;
                else if (out->finished <= out->deadline + 1e-6)
                        ret->met++;
                else {
                        ret->missed++;
                        ret->exceeded +=
                                (out->finished - out->deadline) / (out->deadline - out->submitted);
                }
        }
}

int replay_run(const PolicyConfig *cfg, const ReplayOptions *o, const ReplayJob *jobs, size_t n,
               ReplayJobResult *ret_jobs, ReplayStats *ret) {
        _cleanup_(policy_freep) Policy *pol = NULL;
        _cleanup_free_ ReplayJobResult *out = NULL;
        Decisions d = { 0 };
        Replay r;
        size_t next = 0, left = n;
        double busy_time = 0;
        uint64_t steps = 0;
        int e;

        if (n == 0 || o->nodes == 0 || o->map_slots == 0 || !(o->load_threshold >= 0))
                return -EINVAL;
        out = calloc(n, sizeof(*out));
        if (!out)
                return -ENOMEM;
        e = replay_init(&r, o, jobs, n, out);
        if (e >= 0)
                e = policy_new_named(cfg, NULL, &pol);
        while (e >= 0 && left > 0) {
                double t_next = INFINITY;

                while (e >= 0 && o->load_threshold == 0 && next < n &&
                       jobs[next].submitted <= r.now)
                        e = arrive_next(&r, pol, &next, &left);
                /* The last jobs to come may all have been refused. */
                if (e < 0 || left == 0)
                        break;
                snapshot_build(&r);
                e = policy_step(pol, &r.s,
                                &(PolicyStepArgs){ .now = (usec_t)llround(to_usec(r.now)),
                                                   .flags = POLICY_STEP_ASSIGN },
                                &d);
                steps++;
                if (e >= 0)
                        e = apply(&r, &d);
                if (e < 0)
                        break;
                /* Under a threshold the next job comes when the load the
                 * step left has room for it, one at a time: the step runs
                 * again with it, and the next sees the tasks it started. */
                if (o->load_threshold > 0 && next < n && gate_open(&r, next)) {
                        e = arrive_next(&r, pol, &next, &left);
                        continue;
                }
                for (size_t k = 0; k < r.n_running; k++)
                        t_next = fmin(t_next, r.tasks[r.running[k]].end);
                if (next < n && o->load_threshold == 0)
                        t_next = fmin(t_next, fmax(jobs[next].submitted, r.now));
                if (!isfinite(t_next)) {
                        /* Nothing runs, nothing comes: the policy left work
                         * it will never start. */
                        e = -EDEADLK;
                        break;
                }
                busy_time += (t_next - r.now) * r.n_running;
                r.now = t_next;
                for (size_t k = 0; k < r.n_running;) {
                        uint32_t t = r.running[k];

                        if (r.tasks[t].end > r.now) {
                                k++;
                                continue;
                        }
                        r.running[k] = r.running[--r.n_running];
                        task_end(&r, t);
                        if (r.jobs[r.tasks[t].job].done)
                                left--;
                }
        }
        decisions_done(&d);
        if (e >= 0) {
                stats_finish(&r, busy_time, ret);
                ret->steps = steps;
                memcpy(ret_jobs, out, n * sizeof(*out));
        }
        replay_free(&r);
        return e < 0 ? e : 0;
}

void replay_job_profile(const ReplayJob *job, JobProfile *ret) {
        *ret = (JobProfile){ 0 };
        for (unsigned i = 0; i < job->maps; i++)
                phase_stats_add(&ret->phases[PROFILE_MAP], (usec_t)to_usec(job->map_s[i]));
        for (unsigned i = 0; i < job->reduces; i++) {
                phase_stats_add(&ret->phases[PROFILE_FIRST_SHUFFLE],
                                (usec_t)to_usec(job->first_shuffle_s[i]));
                phase_stats_add(&ret->phases[PROFILE_TYPICAL_SHUFFLE],
                                (usec_t)to_usec(job->shuffle_s[i]));
                phase_stats_add(&ret->phases[PROFILE_REDUCE], (usec_t)to_usec(job->reduce_s[i]));
        }
}

/* SPDX-License-Identifier: MIT */
/* Collecting what the reports need once a run ended: per job, task and VM
 * of the measured cluster, and the co-running cluster's completion times. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/state.h"

int sim_collect(Sim *s) {
        SimResults *res = &s->results;
        const SimCluster *cl = &s->clusters[0];
        usec_t end = event_queue_now(s->queue);

        res->jobs = calloc(cl->n_jobs, sizeof(JobResult));
        res->tasks = calloc(cl->n_tasks, sizeof(TaskResult));
        res->nodes = calloc(cl->n_vms, sizeof(NodeResult));
        if (!res->jobs || !res->tasks || !res->nodes)
                return -ENOMEM;
        res->n_jobs = cl->n_jobs;
        for (size_t j = 0; j < cl->n_jobs; j++) {
                const JobExtra *jx = &cl->jobx[j];
                JobResult *jr = &res->jobs[j];
                snprintf(jr->name, sizeof(jr->name), "%s", jx->bench->name);
                jr->submitted = usec_to_sec(cl->jobs[j].submitted);
                jr->finished = usec_to_sec(jx->finished);
                jr->deadline = usec_to_sec(cl->jobs[j].deadline);
                jr->refused = jx->refused;
                snprintf(jr->refusal, sizeof(jr->refusal), "%s", jx->refusal);
                jr->maps = cl->jobs[j].counts[TASK_MAP].total;
                jr->reduces = cl->jobs[j].counts[TASK_REDUCE].total;
                sim_bound_job(s, cl, (uint32_t)j, &jr->bound);
        }
        for (size_t i = 0; i < cl->n_tasks; i++) {
                const TaskExtra *tx = &cl->taskx[i];
                if (cl->jobx[cl->tasks[i].job].refused)
                        continue;
                res->tasks[res->n_tasks++] = (TaskResult){
                        .job = cl->tasks[i].job,
                        .node = tx->node,
                        .vm = cl->nodes[tx->node].vm,
                        .map = cl->tasks[i].type == TASK_MAP,
                        .input_mb = (double)cl->tasks[i].input_size / MB,
                        .started = usec_to_sec(tx->first_start),
                        .finished = usec_to_sec(tx->finished),
                        .cpu = tx->cpu,
                        .iowait = tx->iowait,
                        .steal = tx->steal,
                        .queue = tx->queue,
                        .resize_kills = tx->resize_kills,
                        .attempts = tx->attempts,
                        .straggler = tx->straggler,
                        .local = cl->tasks[i].type == TASK_MAP &&
                                 task_is_local(&cl->tasks[i], tx->node),
                };
        }
        res->n_nodes = cl->n_vms;
        for (size_t i = 0; i < cl->n_vms; i++) {
                const SimVm *v = &s->vms[cl->vms[i]];
                double t = usec_to_sec(end), vcpu_time = t * v->vcpus;
                NodeResult *n = &res->nodes[i];
                n->host = v->host;
                n->master = v->node == NO_INDEX;
                n->cpu_use = t > 0 ? v->cpu_total / t : 0;
                n->steal = vcpu_time > 0 ? v->steal_total / vcpu_time : 0;
                n->iowait = vcpu_time > 0 ? v->iowait_total / vcpu_time : 0;
                if (!n->master)
                        n->final_map_slots = cl->nodes[v->node].slots[SLOT_MAP];
        }
        for (size_t i = 0; i < cl->n_tasks; i++)
                if (cl->tasks[i].type == TASK_MAP && !cl->jobx[cl->tasks[i].job].refused)
                        res->nodes[cl->nodes[cl->taskx[i].node].vm].maps_run++;
        res->makespan = usec_to_sec(end);
        res->events = event_queue_dispatched(s->queue);
        if (s->n_clusters > 1) {
                const SimCluster *o = &s->clusters[1];
                double sum = 0;
                for (size_t j = 0; j < o->n_jobs; j++)
                        sum += usec_to_sec(o->jobx[j].finished - o->jobs[j].submitted);
                res->other_mean_jct = sum / (double)o->n_jobs;
                if (cl->n_jobs > 0 && o->n_jobs > 0) {
                        SimBound other;
                        sim_bound_job(s, o, 0, &other);
                        res->pair_bound = sim_bound_pair(s, &res->jobs[0].bound, &other);
                }
        }
        return 0;
}

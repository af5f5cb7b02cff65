/* SPDX-License-Identifier: MIT */
/* ARIA's arrivals under a load threshold ([workload] load_threshold): the
 * measured cluster's jobs come in order, each no sooner than its
 * submission and only when its minimum (map, reduce) slots of Eq. 15 for
 * its deadline, under the policy's aria_bound, plus the tasks running, are
 * under the threshold, or when nothing of the cluster runs (ARIA, ICAC'11,
 * 7.2: "we spawn a new job whenever its minimum pair computed by the
 * Lagrange method combined with the current cluster load is below the
 * threshold"). The load is the sum of the shares of running map and of
 * running reduce tasks in their slots, 0 to 2, as the task-level replay's
 * gate (replay.c) takes it. A job's deadline counts from when it comes. A
 * job without a profile to compute its pair from comes at once. The gate
 * is looked at when a submission comes and at every control cycle. */
#include "policy/layers/slo-sched.h"
#include "sim/state.h"

bool sim_arrivals_gated(const SimCluster *cl) {
        return cl->index == 0 && cl->sim->sc->load_threshold > 0;
}

static bool gate_open(const SimCluster *cl, uint32_t j) {
        const Sim *s = cl->sim;
        const Job *job = &cl->jobs[j];
        const AriaSettings *aria = policy_config_settings(&s->sc->policy, &aria_settings_schema);
        unsigned slots[_SLOT_TYPE_MAX] = { 0 }, running[_TASK_TYPE_MAX] = { 0 };
        AriaAllocation al;
        AriaProfile p;

        if (cl->n_attempts == 0 || job->deadline == 0 ||
            slo_job_profile(job, job->counts[TASK_MAP].total, &p) < 0)
                return true;
        for (size_t n = 0; n < cl->n_nodes; n++)
                if (node_schedulable(&cl->nodes[n]))
                        for (SlotType t = SLOT_MAP; t < _SLOT_TYPE_MAX; t++)
                                slots[t] += cl->nodes[n].slots[t];
        for (size_t i = 0; i < cl->n_attempts; i++)
                running[cl->tasks[cl->attempts[i]->task].type]++;
        if (slots[SLOT_MAP] == 0 ||
            aria_min_slots(&p, job->counts[TASK_MAP].total, job->counts[TASK_REDUCE].total,
                           usec_to_sec(job->deadline - job->submitted), slots[SLOT_MAP],
                           slots[SLOT_REDUCE], (AriaBound)aria->aria_bound, &al) < 0)
                return true;
        return (double)(running[TASK_MAP] + al.map_slots) / slots[SLOT_MAP] +
                       (slots[SLOT_REDUCE] ? (double)(running[TASK_REDUCE] + al.reduce_slots) /
                                                     slots[SLOT_REDUCE]
                                           : 0) <=
               s->sc->load_threshold;
}

bool sim_arrival_next(SimCluster *cl) {
        usec_t now = event_queue_now(cl->sim->queue);
        Job *job;

        if (cl->n_arrived >= cl->n_due || !gate_open(cl, (uint32_t)cl->n_arrived))
                return false;
        job = &cl->jobs[cl->n_arrived];
        if (job->deadline)
                job->deadline = now + (job->deadline - job->submitted);
        job->submitted = now;
        return true;
}

/* SPDX-License-Identifier: MIT */
/* The ledger of tasks and jobs: what happens when a task finished (the
 * losing copies of a speculated one go, a finished map wakes its job's
 * reduces, a job whose tasks are all done is finished, and the run stops
 * when every job is) or a job is refused at submission, and the job profile
 * (ARIA's phases) kept as tasks end. */
#include <stdio.h>

#include "sim/state.h"

bool sim_all_done(const Sim *s) {
        for (unsigned c = 0; c < s->n_clusters; c++)
                if (s->clusters[c].n_finished < s->clusters[c].n_jobs)
                        return false;
        return true;
}

/* Adds a task that just finished to its job's profile, as its winning
 * attempt ran. */
static void job_profile_add(SimCluster *cl, uint32_t task) {
        const TaskExtra *tx = &cl->taskx[task];
        uint32_t job = cl->tasks[task].job;

        job_profile_add_task(&cl->jobs[job].profile, cl->tasks[task].type, tx->winner_started,
                             tx->winner_shuffle_end, tx->finished, cl->jobx[job].maps_finished);
}

void sim_task_finished(SimCluster *cl, uint32_t task) {
        Sim *s = cl->sim;
        Task *t = &cl->tasks[task];
        TaskExtra *tx = &cl->taskx[task];
        JobExtra *jx = &cl->jobx[t->job];
        const Job *job = &cl->jobs[t->job];

        t->state = TASK_DONE;
        tx->finished = event_queue_now(s->queue);
        job_profile_add(cl, task);
        task_counts(cl, task)->done++;
        /* The losing copies of a speculated task: the winner has left, so
         * any attempt of the task still counted is one. */
        for (size_t i = tx->running > 0 ? cl->n_attempts : 0; i-- > 0;)
                if (i < cl->n_attempts && cl->attempts[i]->task == task)
                        sim_attempt_kill(cl->attempts[i], false);
        if (t->type == TASK_MAP) {
                if (job->counts[TASK_MAP].done == job->counts[TASK_MAP].total)
                        jx->maps_finished = tx->finished;
                sim_job_map_finished(cl, t->job);
        }
        if (job->counts[TASK_MAP].done + job->counts[TASK_REDUCE].done == job_n_tasks(job)) {
                jx->finished = tx->finished;
                cl->n_finished++;
                if (sim_all_done(s))
                        event_queue_stop(s->queue);
        }
}

void sim_job_refuse(SimCluster *cl, uint32_t job, const char *reason) {
        Job *j = &cl->jobs[job];
        JobExtra *jx = &cl->jobx[job];

        for (uint32_t t = jx->first_task; t < jx->first_task + job_n_tasks(j); t++)
                cl->tasks[t].state = TASK_DONE;
        for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                j->counts[type].done = j->counts[type].total;
        jx->refused = true;
        snprintf(jx->refusal, sizeof(jx->refusal), "%s", reason);
        jx->finished = event_queue_now(cl->sim->queue);
        cl->n_finished++;
        if (sim_all_done(cl->sim))
                event_queue_stop(cl->sim->queue);
}

/* SPDX-License-Identifier: MIT */
/* The model's objects found and changed: jobs, trackers and attempts by id,
 * an attempt started on or stopped at its tracker, kills queued for a
 * tracker's next heartbeat. What every other cluster*.c changes the model
 * with. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "controller/daemon/cluster-internal.h"

/* Attempt i of t leaves the task: pending again when it was the last. */
static void task_remove_attempt(ClusterTask *t, unsigned i) {
        memmove(&t->attempts[i], &t->attempts[i + 1],
                (t->n_attempts - i - 1) * sizeof(*t->attempts));
        t->n_attempts--;
        t->attempts[t->n_attempts] = (ClusterAttempt){ 0 };
        if (t->n_attempts == 0 && t->state == TASK_RUNNING)
                t->state = TASK_PENDING;
}

int cluster_fail(StoreError *err, int r, const char *field, const char *fmt, ...) {
        va_list ap;

        if (err) {
                err->field = field;
                va_start(ap, fmt);
                vsnprintf(err->message, sizeof(err->message), fmt, ap);
                va_end(ap);
        }
        return r;
}

ClusterJob *cluster_job_find(Cluster *c, uint64_t id) {
        for (size_t i = 0; i < c->n_jobs; i++)
                if (c->jobs[i].info.id == id)
                        return &c->jobs[i];
        return NULL;
}

ClusterNode *cluster_node_lookup(Cluster *c, uint64_t id) {
        for (size_t i = 0; i < c->n_nodes; i++)
                if (c->nodes[i].id == id)
                        return &c->nodes[i];
        return NULL;
}

const ClusterNode *cluster_node_find(const Cluster *c, uint64_t id) {
        return cluster_node_lookup((Cluster *)c, id);
}

int cluster_node_queue_kill(ClusterNode *n, uint64_t attempt, const char *reason) {
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

/* Attempt i of t goes; its tracker frees the slot. */
void cluster_attempt_stop(Cluster *c, ClusterTask *t, unsigned i) {
        ClusterNode *n = cluster_node_lookup(c, t->attempts[i].node);
        SlotType slot = t->attempts[i].slot;

        if (n && n->running[slot] > 0)
                n->running[slot]--;
        task_remove_attempt(t, i);
}

/* Every running attempt of t is killed at its tracker's next heartbeat.
 * Without memory for a kill the tracker finishes the attempt, whose report
 * is then ignored. */
void cluster_task_kill_attempts(Cluster *c, ClusterTask *t, const char *reason) {
        while (t->n_attempts > 0) {
                ClusterNode *n = cluster_node_lookup(c, t->attempts[0].node);

                if (n && cluster_node_queue_kill(n, t->attempts[0].id, reason) < 0)
                        log_oom();
                cluster_attempt_stop(c, t, 0);
        }
}

uint32_t cluster_node_index(const Cluster *c, uint64_t id) {
        for (size_t i = 0; i < c->n_nodes; i++)
                if (c->nodes[i].id == id)
                        return (uint32_t)i;
        return NO_INDEX;
}

/* The task running attempt, and its index among the task's attempts. */
ClusterTask *cluster_attempt_find(Cluster *c, uint64_t attempt, ClusterJob **ret_job,
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

/* The report's finished attempts of known tasks, in one transaction. */
/* The task runs attempt a (its node filled in here) on n, in a.slot. */
void cluster_attempt_add(ClusterNode *n, ClusterTask *t, const ClusterAttempt *a) {
        t->state = TASK_RUNNING;
        t->attempts[t->n_attempts] = *a;
        t->attempts[t->n_attempts++].node = n->id;
        t->slot_memory = a->slot_memory;
        n->running[a->slot]++;
}

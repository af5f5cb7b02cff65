/* SPDX-License-Identifier: MIT */
#pragma once

/* What the files of the live model share and nothing outside them sees
 * (cluster.h is the model's API):
 *
 *   cluster.c            the model's life; trackers registered, lost, given
 *                        slots; jobs submitted and cancelled
 *   cluster-heartbeat.c  a heartbeat and a control cycle: report, step, reply
 *   cluster-job.c        a job and its tasks (JobInProgress, TaskInProgress)
 *   cluster-snapshot.c   the policy step's snapshot, kept between steps
 *   cluster-model.c      lookups; attempts started and stopped; kills queued
 *   cluster-output.c     the attempts' outputs, the job commit
 *   cluster-profile.c    ARIA's profile database
 *
 * A file calls only those below it in this list. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/macro.h"
#include "controller/daemon/cluster.h"

/* The step's snapshot and what stands behind it (cluster-snapshot.c). */
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

/* ---- cluster-model.c ---- */

/* Fills err (may be NULL) and returns r. */
int cluster_fail(StoreError *err, int r, const char *field, const char *fmt, ...) _printf_(4, 5);

ClusterJob *cluster_job_find(Cluster *c, uint64_t id);
/* cluster_node_find() for those who change the node. */
ClusterNode *cluster_node_lookup(Cluster *c, uint64_t id);
/* The node's index in c->nodes, NO_INDEX for none. */
uint32_t cluster_node_index(const Cluster *c, uint64_t id);
ClusterTask *cluster_attempt_find(Cluster *c, uint64_t attempt, ClusterJob **ret_job,
                                  unsigned *ret_index);

int cluster_node_queue_kill(ClusterNode *n, uint64_t attempt, const char *reason);
void cluster_attempt_add(ClusterNode *n, ClusterTask *t, const ClusterAttempt *a);
void cluster_attempt_stop(Cluster *c, ClusterTask *t, unsigned i);
void cluster_task_kill_attempts(Cluster *c, ClusterTask *t, const char *reason);

/* ---- cluster-job.c ---- */

int cluster_pool_index(Cluster *c, const char *name, uint32_t *ret);
int cluster_job_splits(const Cluster *c, char *const *inputs, size_t n_inputs, char ***ret,
                       size_t *ret_n, StoreError *err);
/* The stored job id into the model. */
int cluster_add_job(Cluster *c, uint64_t id, StoreError *err);
int cluster_resume_job(Cluster *c, uint64_t id, StoreError *err);
void cluster_job_done(ClusterJob *j);
void cluster_job_remove(Cluster *c, ClusterJob *j);
void cluster_jobs_settle(Cluster *c);
void cluster_task_failed(ClusterTask *t, const ClusterJob *j, const ClusterFinished *x,
                         const ClusterNode *n);
void cluster_task_succeeded(Cluster *c, ClusterTask *t, const ClusterFinished *x);

/* ---- cluster-snapshot.c ---- */

void cluster_snapshot_drop(Cluster *c);
int cluster_snapshot_prepare(Cluster *c, unsigned *flags);

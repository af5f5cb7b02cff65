/* SPDX-License-Identifier: MIT */
#pragma once

/* A job in the model, as Hadoop's JobInProgress and TaskInProgress
 * (cluster-job.c). */

#include <stddef.h>
#include <stdint.h>

#include "controller/daemon/cluster-model.h"

int cluster_pool_index(Cluster *c, const char *name, uint32_t *ret);
int cluster_job_splits(const Cluster *c, char *const *inputs, size_t n_inputs, char ***ret,
                       size_t *ret_n, StoreError *err);
/* The bytes a split of cluster_job_splits() holds. */
uint64_t cluster_split_length(const char *split);
/* The stored job id into the model. */
int cluster_add_job(Cluster *c, uint64_t id, StoreError *err);
int cluster_resume_job(Cluster *c, uint64_t id, StoreError *err);
void cluster_job_done(ClusterJob *j);
void cluster_job_remove(Cluster *c, ClusterJob *j);
/* Every job that failed or has every task done ends (and leaves the
 * model), or the one job of id. */
void cluster_jobs_settle(Cluster *c);
void cluster_job_settle(Cluster *c, uint64_t id);
void cluster_task_failed(ClusterTask *t, ClusterJob *j, const Tracker1Finished *x,
                         const ClusterNode *n);
/* The attempt of t that started at started succeeded, its report heard at
 * now: it goes into the job's run_profile. */
void cluster_task_succeeded(Cluster *c, ClusterJob *j, ClusterTask *t, const Tracker1Finished *x,
                            usec_t started, usec_t now);
/* What a tracker is told of a new attempt of t: all but its slot and slot
 * memory. Its inputs (the map's split, or every map's output for a
 * reduce) are an array of its own of the model's strings. */
int cluster_task_assignment(const ClusterJob *j, const ClusterTask *t, uint64_t attempt,
                            Tracker1Assignment *ret);

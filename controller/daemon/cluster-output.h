/* SPDX-License-Identifier: MIT */
#pragma once

/* The attempts' outputs in the data directory and the job commit
 * (cluster-output.c). */

#include <stddef.h>

#include "controller/daemon/cluster-model.h"

/* The job commit: each reduce's
 * winning output NAME.ATTEMPT renamed to NAME, again if need be; an error
 * is why in why; only a reduce's canonical name out/JOB/part-NNNNN.ATTEMPT is
 * renamed, beneath the data directory. And the removal of the output of a
 * retired attempt whose success is ignored, by the canonical name of r's
 * output, beneath the data directory, unless a task took that output as its
 * own. */
int cluster_output_commit(const ClusterData *data, const ClusterJob *j, char *why, size_t size);
void cluster_output_discard(const Cluster *c, const ClusterRetired *r);
/* The job's map outputs, its intermediate data, removed when it ends
 * (succeeded, failed or cancelled), beneath the data directory. */
void cluster_output_remove_maps(const ClusterData *data, const ClusterJob *j);
/* The task of a job here, waiting to run, whose output the succeeded
 * attempt x wrote (out/JOB/map-NNNNN.ATTEMPT or part-NNNNN.ATTEMPT, x's
 * own attempt, the file there); NULL for any other. */
ClusterTask *cluster_output_adoptable(Cluster *c, const Tracker1Finished *x);

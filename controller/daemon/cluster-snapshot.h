/* SPDX-License-Identifier: MIT */
#pragma once

/* The policy step's ClusterSnapshot of the model, kept between steps
 * (cluster-snapshot.c). Its Snapshot is in cluster-model.h, whose changes
 * list what the kept one is to take in. */

#include <stdbool.h>
#include <stddef.h>

#include "controller/daemon/cluster-model.h"

/* Whether the snapshot kept from the last step, with what changed in the
 * model since, is what a new one would be (true when none is kept):
 * for tests of the points where the model changes. */
bool cluster_snapshot_current(Cluster *c);

/* The hosts, VMs and nodes of the model's nodes and the tenants' VMs as
 * the policy step sees them (agents' hosts and VM sizes, steal), for a
 * driver that builds the rest of its snapshot itself: hosts and vms have
 * room for cluster_snapshot_vms() entries, nodes for c->n_nodes (one at
 * least); vms[i] and nodes[i] are c->nodes[i]'s, vms[c->n_nodes + k]
 * c->tenants[k]'s, *ret_n_hosts the hosts used. */
void cluster_snapshot_nodes(const Cluster *c, Host *hosts, size_t *ret_n_hosts, Vm *vms,
                            Node *nodes);
/* The VMs of the step's snapshot: the trackers' and the tenants'. */
size_t cluster_snapshot_vms(const Cluster *c);

/* Room for a driver's snapshot of the model: its nodes filled
 * (cluster_snapshot_nodes()), room for n_jobs jobs, n_tasks tasks and
 * n_attempts attempts that the driver fills. Tasks and attempts are not
 * zeroed: each entry the driver uses it writes whole. -ENOMEM. */
int cluster_snapshot_arrays_new(const Cluster *c, size_t n_jobs, size_t n_tasks, size_t n_attempts,
                                SnapshotArrays *ret);
void cluster_snapshot_arrays_done(SnapshotArrays *a);
/* The snapshot of a's nodes (c->n_nodes) and VMs (cluster_snapshot_vms())
 * and of the first n_jobs jobs, n_tasks tasks and n_attempts attempts the
 * driver filled: done tasks are left out, counted in their jobs, whose
 * Job.tasks the driver keeps. */
ClusterSnapshot cluster_snapshot_of(const Cluster *c, const SnapshotArrays *a, size_t n_jobs,
                                    size_t n_tasks, size_t n_attempts);

/* The index of the job of that id in s; NO_INDEX when none. A job gone
 * from the model may still be there (Snapshot.job_gone). */
uint32_t cluster_snapshot_job(const Snapshot *s, uint64_t id);

/* The model changed beyond what the snapshot follows: the next step
 * builds its snapshot anew. */
void cluster_snapshot_drop(Cluster *c);
/* The last of c->jobs came: the kept snapshot takes it in. */
void cluster_snapshot_add_job(Cluster *c);
/* c->jobs[i] is about to leave the model: the kept snapshot keeps it, done
 * and gone (Snapshot.job_gone). */
void cluster_snapshot_remove_job(Cluster *c, size_t i);
/* c->jobs[i]'s quota (ClusterJob.quota) changed: the kept snapshot takes
 * it in. */
void cluster_snapshot_job_quota(Cluster *c, size_t i);
/* The step's snapshot in c->snapshot: the kept one with what changed in
 * the model since (and POLICY_STEP_TRUSTED added to *flags), or a new one. */
int cluster_snapshot_prepare(Cluster *c, unsigned *flags);
/* A step took c->snapshot in: the nodes whose slots change from now on
 * are what the next step's reports (ClusterSnapshot.slots_changed). */
void cluster_snapshot_stepped(Cluster *c);

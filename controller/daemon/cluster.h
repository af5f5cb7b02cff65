/* SPDX-License-Identifier: MIT */
#pragma once

/* The controller's live model of the cluster: the unfinished jobs with
 * their tasks, the trackers (nodes) and the attempts running on them. It is
 * what the store holds plus what only the running controller knows (which
 * attempt runs where, trackers, progress); each heartbeat and control cycle
 * turns it into a ClusterSnapshot for the policy core and applies the
 * Decisions back.
 *
 * Durability: a job, its start and every attempt (when it is assigned, and
 * when it ends) are in the store before the model (or a client) sees them,
 * so a controller killed at any point and started again rebuilds the model
 * from the store alone (cluster_new()); what finished does not run again,
 * and what ran meanwhile is held until its tracker says what became of it
 * (ClusterHeld).
 *
 * Times: the policy core and the store get realtime usec_t (the store's
 * times outlive the process); losing a tracker is measured on the
 * monotonic clock.
 *
 * I/O: the store; the jobs' inputs, opened beneath the data directory and
 * their directories listed when a job is split into maps (cluster-job.c);
 * the attempts' outputs in the data directory, renamed at a job's commit
 * and removed when an attempt lost (cluster-output.c). One thread.
 *
 * Split by object, as Hadoop's JobTracker, each file with its header:
 *
 *   cluster.c            the model's life; trackers registered, lost, given
 *                        slots; jobs submitted and cancelled (this header)
 *   cluster-heartbeat.c  a heartbeat and a control cycle: report, step, reply
 *   cluster-job.c        a job and its tasks (JobInProgress, TaskInProgress)
 *   cluster-snapshot.c   the policy step's snapshot, kept between steps
 *   cluster-output.c     the attempts' outputs, the job commit
 *   cluster-profile.c    ARIA's profile database
 *   cluster-model.c      the objects: lookups; attempts started and stopped;
 *                        kills queued
 *
 * A file calls only those below it in this list; cluster.c and
 * cluster-heartbeat.c, at the top, call neither the other. */

#include <stddef.h>
#include <stdint.h>

#include "controller/daemon/cluster-model.h"

/* The model of the store's unfinished jobs; queued ones are started. One
 * whose inputs no longer split as they did when it started is failed. */
int cluster_new(Store *store, Policy *policy, const ClusterData *data, Cluster **ret,
                StoreError *err);
Cluster *cluster_free(Cluster *c);

/* Admission (policy_admit() on the current snapshot: a refusal is -EPERM
 * with the verdict in *ret_verdict), then the store, then the model. */
int cluster_submit(Cluster *c, const StoreJobSpec *spec, usec_t now, uint64_t *ret_id,
                   AdmitVerdict *ret_verdict, StoreError *err);
/* -ENOENT for a job the model does not run (unknown or ended). Its running
 * attempts are killed at their trackers' next heartbeats. */
int cluster_cancel(Cluster *c, uint64_t id, StoreError *err);

/* What agents say of the nodes' VMs (ClusterNode.vm) changed: the next
 * step takes in every node again. */
void cluster_nodes_changed(Cluster *c);
/* The tenants' VMs the agents report now (ClusterTenantVm; each one's id
 * is not read): one reported before keeps its id and what the lever asked
 * of it. New ones, or ones gone, make the next step build its snapshot
 * anew; the same ones with new states are taken in as the nodes' are
 * (cluster_nodes_changed()). -ENOMEM: nothing changed. */
int cluster_set_tenants(Cluster *c, const ClusterTenantVm *vms, size_t n);
/* ReportGuest: -ENOENT for an unknown node. */
int cluster_node_set_guest(Cluster *c, uint64_t node, const ClusterGuest *guest);
int cluster_register(Cluster *c, const char *vm_uuid, const char *hostname,
                     const unsigned slots[static _SLOT_TYPE_MAX], uint64_t slot_memory,
                     usec_t now_monotonic, uint64_t *ret_id);

/* An operator's slots for tracker node (slot_memory 0: unchanged), in its
 * next heartbeat's reply: -ENXIO for an unknown or lost tracker. Running
 * tasks above the new count keep running; the count holds back new ones. */
int cluster_set_slots(Cluster *c, uint64_t node, const unsigned slots[static _SLOT_TYPE_MAX],
                      uint64_t slot_memory, usec_t now, StoreError *err);

/* ---- nodes another cluster manager reports (the YARN driver's) ---- */

/* What a node's manager says of it (the ResourceManager of a NodeManager):
 * its state, slots and the containers running, now; slots_changed_at moves
 * when the slots change, and an operator's pending slots (SetSlots) are
 * taken. -ENXIO for an unknown node. Such a node has no heartbeats: its
 * driver runs no lost-tracker timer. */
int cluster_node_update(Cluster *c, uint64_t node, NodeState state,
                        const unsigned slots[static _SLOT_TYPE_MAX],
                        const unsigned running[static _SLOT_TYPE_MAX], usec_t now);

/* Marks trackers silent for longer than timeout lost; their running tasks
 * are pending again, their attempts recorded lost at now (realtime). So are
 * the attempts an earlier run left running whose trackers did not come
 * back within timeout of the first call. Returns how many trackers were
 * lost. */
size_t cluster_lose_silent(Cluster *c, usec_t now, usec_t now_monotonic, usec_t timeout);

/* Forgets the trackers lost for keep or longer: they leave ListNodes, and
 * every re-registration of a tracker adds a node. Returns how many. */
size_t cluster_forget_lost(Cluster *c, usec_t now_monotonic, usec_t keep);

/* The tracker registered for the VM vm_uuid and not lost; NULL for none. */
const ClusterNode *cluster_node_find_vm(const Cluster *c, const char *vm_uuid);
/* Tracker node is lost at once, as if it had gone silent (why says what
 * happened instead, for the log), its attempts recorded lost at now
 * (realtime): -ENOENT for an unknown or lost one. */
int cluster_node_lose(Cluster *c, uint64_t node, usec_t now, usec_t now_monotonic, const char *why);

/* SPDX-License-Identifier: MIT */
#pragma once

/* A tracker's heartbeat and a control cycle: the policy step on the model
 * and its decisions carried out (cluster-heartbeat.c). */

#include "controller/daemon/cluster-model.h"

/* The most heartbeats whose task records share one commit of the store
 * (store_group_begin()): the tracker endpoint holds their replies until
 * then, so this bounds how long a busy loop keeps a reply waiting. */
#define HEARTBEAT_GROUP_MAX 128u

/* A heartbeat of tracker node, its report as the tracker protocol carries
 * it (proto/tracker1.h; report->tracker is not read): -ENOENT for an
 * unknown tracker, -ESTALE for a lost one (it must register again),
 * -EINVAL for a report that does not fit the model (the reason in
 * err->message): nothing changed then. Otherwise the finished attempts are
 * in the store (in its open group, when one is: the reply waits for the
 * group's commit), and *ret holds what the tracker is to do, all of what its
 * reply carries: its arrays are its own (tracker1_reply_done()), its
 * strings the model's, valid until the model next changes. */
int cluster_heartbeat(Cluster *c, uint64_t node, const Tracker1Report *report, usec_t now,
                      usec_t now_monotonic, Tracker1Reply *ret, StoreError *err);

/* A control cycle: the slot manager and the VM allocator; what they decide
 * for a tracker waits for its next heartbeat. The VM targets stay in
 * c->decisions until the next step, a target's vm being the index of its
 * node in c->nodes. */
int cluster_control(Cluster *c, usec_t now);

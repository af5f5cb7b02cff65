/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "agents.h"
#include "common/metrics-http.h"
#include "cluster.h"
#include "controllerd-config.h"
#include "policy/core/policy.h"
#include "policy/layers/policies.h"
#include "controller/store/store.h"
#include "proto/controller1.h"

typedef struct TrackerConnection TrackerConnection;

/* A kind of warning the tracker endpoint logs once per interval at most
 * (tracker-endpoint.c). */
typedef struct WarnLimit {
        usec_t last;   /* monotonic; 0: never logged */
        unsigned held; /* not logged since */
} WarnLimit;

/* flexslot-controllerd's state; everything belongs to the event loop's
 * thread. */
typedef struct Controller {
        ControllerConfig config;
        /* [policy]'s parameters of every layer; the names are in config. */
        PolicyConfig policy_config;
        bool control_interval_set; /* [policy] control_interval given */
        bool reduce_slowstart_set; /* [policy] reduce_slowstart given */
        sd_event *event;
        sd_bus *bus;
        sd_bus_slot *object_slot, *vm_slot;
        /* [controller] allowed-group: who may change anything besides root;
         * a group that does not exist leaves root alone. */
        gid_t allowed_gid;
        bool have_allowed_gid;
        Store *store;
        int lock_fd;
        Policy *policy;
        Cluster *cluster;
        char *token;
        size_t token_len;
        int listen_fd;
        sd_event_source *listen_source, *lost_timer, *control_timer, *prune_timer;
        TrackerConnection *connections;
        size_t n_connections, n_registered;
        /* Out of descriptors, the endpoint stops accepting until one is
         * freed or accept_retry fires; spare_fd, held for that moment, is
         * given up to accept the waiting connection and close it at once,
         * so that its peer hears no rather than waiting. */
        int spare_fd;
        sd_event_source *accept_retry;
        unsigned accept_shed; /* connections accepted and closed since the last warning */
        /* What peers that have not registered cause, as often as they
         * like: out of descriptors, a connection that failed to set up,
         * another release's tracker, a wrong token. */
        WarnLimit warn_accept, warn_setup, warn_version, warn_token;
        Agents *agents;
        /* [metrics] listen; NULL: none. What the metrics count as it
         * happens (the rest they read at a scrape): every heartbeat, and
         * the time it took from its message to its answer. */
        MetricsServer *metrics;
        uint64_t heartbeats;
        MetricsHistogram heartbeat_seconds;
        usec_t started; /* realtime */
} Controller;

/* Registers org.flexslot.Controller1 and takes its name (bus-controller.c). */
int controller_bus_setup(Controller *c);

/* ResizeVm and ListVms on the same object and interface (bus-agents.c). */
int controller_bus_vms_setup(Controller *c);

/* The trackers' endpoint (tracker-endpoint.c). */
int tracker_endpoint_start(Controller *c);
void tracker_endpoint_stop(Controller *c);

/* The metrics (controller-metrics.c): the histogram's buckets set, and a
 * MetricsWriter of the controller's metrics, userdata the Controller. */
void controller_metrics_init(Controller *c);
int controller_metrics_write(FILE *out, void *userdata);

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
typedef struct Controller Controller;

/* Whose cluster the controller drives ([cluster] driver), as a table of
 * operations: how it learns the cluster and carries the policy's
 * decisions out. Both keep their nodes in the live model (c->cluster),
 * where the agents find each node's VM and the bus lists them. */
typedef struct ControllerDriver {
        const char *name;
        /* Once the bus and the agents are there: what the driver listens
         * to and polls, on c->event. */
        int (*start)(Controller *c);
        void (*stop)(Controller *c);
        /* How often control() runs. */
        usec_t (*control_interval)(const Controller *c);
        /* A control cycle, right after the agents' refresh: the policy's
         * decisions carried out, the VM targets through the agents
         * included. */
        void (*control)(Controller *c);
        /* Jobs come through SubmitJob (false: the cluster's own clients
         * submit them, and SubmitJob is refused). */
        bool takes_jobs;
        /* The jobs the cluster runs of its own, which ListJobs and GetJob
         * show beside the store's with the driver's name as their source
         * (NULL: none, every job is the store's). get_job is -ENOENT for
         * an id that is none of them. */
        int (*list_jobs)(const Controller *c, StoreJob **ret, size_t *ret_n);
        int (*get_job)(const Controller *c, uint64_t id, StoreJob *ret);
} ControllerDriver;

/* Our own trackers (driver-trackers.c): heartbeats on the tracker
 * endpoint, each a policy step. */
extern const ControllerDriver controller_driver_trackers;
/* A YARN cluster (yarn-driver.c): its ResourceManager and MapReduce
 * application masters polled every [yarn] poll-interval. */
extern const ControllerDriver controller_driver_yarn;

/* A kind of warning the tracker endpoint logs once per interval at most
 * (tracker-endpoint.c). */
typedef struct WarnLimit {
        usec_t last;   /* monotonic; 0: never logged */
        unsigned held; /* not logged since */
} WarnLimit;

/* flexslot-controllerd's state; everything belongs to the event loop's
 * thread. */
struct Controller {
        ControllerConfig config;
        const ControllerDriver *driver;
        struct YarnDriver *yarn; /* the YARN driver's state; NULL for the trackers' */
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
        sd_event_source *give_back; /* the lever's weights back as the loop exits */
        TrackerConnection *connections;
        size_t n_connections, n_registered;
        /* The heartbeats' store group (tracker-endpoint.c): their replies,
         * held until group_commit, a defer source behind every other
         * source, commits the group at the end of the loop's pass. */
        sd_event_source *group_commit;
        struct HeldReply *held;
        size_t n_held;
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
};

/* Registers org.flexslot.Controller1 and takes its name (bus-controller.c). */
int controller_bus_setup(Controller *c);

/* ResizeVm and ListVms on the same object and interface (bus-agents.c). */
int controller_bus_vms_setup(Controller *c);

/* A timer on c->event that runs handler every interval, on a fixed
 * schedule (controller_rearm() from the handler). */
int controller_add_periodic(Controller *c, sd_event_source **ret, sd_event_time_handler_t handler,
                            usec_t interval, const char *name);
int controller_rearm(sd_event_source *s, uint64_t usec, usec_t interval);

/* The trackers' endpoint (tracker-endpoint.c). */
int tracker_endpoint_start(Controller *c);
void tracker_endpoint_stop(Controller *c);
/* The heartbeats' group, if one is open, committed now and its replies
 * sent, rather than at the end of the loop's pass: whoever reads the store
 * or the model for a client (Controller1, the metrics) calls it first, so
 * that the client is told nothing that the store could still lose; the
 * model took the group's records in as they came, and the store's own
 * reads run inside the group, seeing them uncommitted. Negative: the
 * commit failed (*ret_err, if not NULL, says why), the held heartbeats
 * were answered with the error and the controller stops, as at the end
 * of the pass. 0 with no group open, or no endpoint. */
int tracker_endpoint_commit(Controller *c, StoreError *ret_err);

/* The metrics (controller-metrics.c): the histogram's buckets set, and a
 * MetricsWriter of the controller's metrics, userdata the Controller. */
void controller_metrics_init(Controller *c);
int controller_metrics_write(FILE *out, void *userdata);

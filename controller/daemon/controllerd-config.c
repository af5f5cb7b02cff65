/* SPDX-License-Identifier: MIT */
#include "controllerd-config.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "agent-hosts.h"
#include "controller/yarn/yarn-json.h"
#include "yarn-config.h"
#include "common/daemon-util.h"
#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/metrics-http.h"
#include "policy/layers/policies.h"

static const char *const driver_choices[] = { "trackers", "yarn", NULL };

#define F(member) CONF_FIELD(ControllerConfig, member)

static const ConfKey controller_keys[] = {
        { "controller", "address", CONF_STRING, F(address), NULL },
        { "controller", "allowed-group", CONF_STRING, F(allowed_group), "flexslot" },
        { "controller", "store", CONF_STRING, F(store), "/var/lib/flexslot/controller.db" },
        { "controller", "log-level", CONF_ENUM, F(log_level), "info",
          .choices = daemon_log_level_choices },

        { "trackers", "listen", CONF_STRING, F(listen), "tcp:host=127.0.0.1,port=7411" },
        { "trackers", "token-file", CONF_STRING, F(token_file), "/etc/flexslot/cluster-token" },
        { "trackers", "heartbeat-interval", CONF_DURATION, F(heartbeat_interval), "3s",
          .min = 10 * USEC_PER_MSEC, .max = USEC_PER_MINUTE },
        { "trackers", "lost-timeout", CONF_DURATION, F(lost_timeout), "30s",
          .min = 20 * USEC_PER_MSEC, .max = USEC_PER_HOUR },
        { "trackers", "max-trackers", CONF_INT, F(max_trackers), "1024", .min = 1, .max = 100000 },
        { "trackers", "register-timeout", CONF_DURATION, F(register_timeout), "5s",
          .min = 10 * USEC_PER_MSEC, .max = 5 * USEC_PER_MINUTE },
        { "trackers", "forget-lost", CONF_DURATION, F(forget_lost), "10min",
          .min = 10 * USEC_PER_MSEC, .max = 30 * 24 * USEC_PER_HOUR },

        { "jobs", "data-dir", CONF_STRING, F(data_dir), "/srv/flexslot" },
        { "jobs", "block-size", CONF_SIZE, F(block_size), "64M", .min = 1 << 10,
          .max = INT64_C(1) << 40 },
        { "jobs", "keep-ended", CONF_DURATION, F(keep_ended), "7d", .min = 0,
          .max = 3650 * 24 * USEC_PER_HOUR },

        { "policy", "scheduler", CONF_STRING, F(scheduler), "fifo" },
        { "policy", "slot-manager", CONF_STRING, F(slot_manager), "static" },
        { "policy", "speculation", CONF_STRING, F(speculation), "none" },
        { "policy", "vm-allocator", CONF_STRING, F(vm_allocator), "none" },
        { "policy", "step", CONF_BOOL, F(step), "yes" },

        { "cluster", "driver", CONF_ENUM, F(driver), "trackers", .choices = driver_choices },

        { "yarn", "resourcemanager", CONF_STRING, F(yarn_resourcemanager), NULL },
        { "yarn", "user", CONF_STRING, F(yarn_user), NULL },
        { "yarn", "poll-interval", CONF_DURATION, F(yarn_poll_interval), "3s",
          .min = 100 * USEC_PER_MSEC, .max = 10 * USEC_PER_MINUTE },
        { "yarn", "timeout", CONF_DURATION, F(yarn_timeout), "5s", .min = 100 * USEC_PER_MSEC,
          .max = 5 * USEC_PER_MINUTE },
        { "yarn", "nodes", CONF_STRING, F(yarn_nodes), NULL },
        { "yarn", "container-memory", CONF_SIZE, F(yarn_container_memory), "1G", .min = 1 << 20,
          .max = INT64_C(1) << 40 },
        { "yarn", "container-vcores", CONF_INT, F(yarn_container_vcores), "1", .min = 1,
          .max = 1024 },
        { "yarn", "min-containers", CONF_INT, F(yarn_min_containers), "1", .min = 0, .max = 1024 },
        { "yarn", "reservation-queue", CONF_STRING, F(yarn_reservation_queue), NULL },

        { "agents", "hosts", CONF_STRING, F(agent_hosts), NULL },
        { "agents", "call-timeout", CONF_DURATION, F(agent_call_timeout), "5s",
          .min = 10 * USEC_PER_MSEC, .max = USEC_PER_MINUTE },
        { "agents", "max-sample-age", CONF_DURATION, F(agent_max_sample_age), "15s",
          .min = 10 * USEC_PER_MSEC, .max = USEC_PER_HOUR },
        { "agents", "not-managed-retry", CONF_DURATION, F(agent_not_managed_retry), "5min",
          .min = USEC_PER_SEC, .max = 24 * USEC_PER_HOUR },

        { "metrics", "listen", CONF_STRING, F(metrics_listen), NULL },
};

/* The forms controller_listen_parse() (tracker-endpoint.c) accepts. */
static bool listen_address_ok(const char *s) {
        return (strncmp(s, "tcp:host=", 9) == 0 || strncmp(s, "unix:path=", 10) == 0) &&
               strlen(s) < 256;
}

/* [yarn]: its keys are checked whichever the driver, so that a file is
 * refused when it is written, not when it is switched to YARN. */
static int controller_config_validate_yarn(const ControllerConfig *c, ConfError *err) {
        YarnNodeMapEntry *map;
        size_t n;
        char why[CONF_ERROR_TEXT_MAX];
        int r;

        if (c->driver == CONTROLLER_DRIVER_YARN && !c->yarn_resourcemanager)
                return conf_error_set(err, "yarn", "resourcemanager",
                                      "must be set: [cluster] driver is yarn");
        if (c->yarn_resourcemanager && !yarn_url_valid(c->yarn_resourcemanager, why, sizeof(why)))
                return conf_error_set(err, "yarn", "resourcemanager", "%s", why);
        if (c->yarn_user && !yarn_id_valid(c->yarn_user))
                return conf_error_set(err, "yarn", "user",
                                      "'%.64s' is not a user name (letters, digits, _.-)",
                                      c->yarn_user);
        if (c->yarn_reservation_queue && !yarn_id_valid(c->yarn_reservation_queue))
                return conf_error_set(err, "yarn", "reservation-queue",
                                      "'%.64s' is not a queue name (letters, digits, _.-)",
                                      c->yarn_reservation_queue);
        r = yarn_node_map_parse(c->yarn_nodes, &map, &n, why, sizeof(why));
        if (r == -EINVAL)
                return conf_error_set(err, "yarn", "nodes", "%s", why);
        if (r < 0)
                return r;
        yarn_node_map_free(map, n);
        return 0;
}

static int controller_config_validate(const void *config, ConfError *err) {
        const ControllerConfig *c = config;
        AgentHost *hosts;
        size_t n_hosts;
        char why[CONF_ERROR_TEXT_MAX];
        int r;

        if (!c->store || !c->store[0])
                return conf_error_set(err, "controller", "store", "must not be empty");
        if (!c->listen || !listen_address_ok(c->listen))
                return conf_error_set(err, "trackers", "listen",
                                      "'%s' is neither tcp:host=H,port=P nor unix:path=P",
                                      c->listen ? c->listen : "");
        if (!c->token_file || !c->token_file[0])
                return conf_error_set(err, "trackers", "token-file", "must not be empty");
        /* A tracker late by a beat or two is not lost. */
        if (c->lost_timeout < 2 * c->heartbeat_interval)
                return conf_error_set(err, "trackers", "lost-timeout",
                                      "%s is less than twice heartbeat-interval %s",
                                      FORMAT_DURATION(c->lost_timeout),
                                      FORMAT_DURATION(c->heartbeat_interval));
        if (!c->data_dir || c->data_dir[0] != '/')
                return conf_error_set(err, "jobs", "data-dir", "'%s' is not an absolute path",
                                      c->data_dir ? c->data_dir : "");
        if (!job_scheduler_ops_find(c->scheduler))
                return conf_error_set(err, "policy", "scheduler", "unknown scheduler '%s'",
                                      c->scheduler);
        if (!slot_manager_ops_find(c->slot_manager))
                return conf_error_set(err, "policy", "slot-manager", "unknown slot manager '%s'",
                                      c->slot_manager);
        if (!speculation_ops_find(c->speculation))
                return conf_error_set(err, "policy", "speculation", "unknown speculation '%s'",
                                      c->speculation);
        if (!vm_allocator_ops_find(c->vm_allocator))
                return conf_error_set(err, "policy", "vm-allocator", "unknown VM allocator '%s'",
                                      c->vm_allocator);
        r = controller_config_validate_yarn(c, err);
        if (r < 0)
                return r;
        if (c->metrics_listen && !metrics_listen_is_valid(c->metrics_listen))
                return conf_error_set(err, "metrics", "listen",
                                      "'%s' is not A.B.C.D:PORT or [IPV6]:PORT", c->metrics_listen);
        r = agent_hosts_parse(c->agent_hosts, &hosts, &n_hosts, why, sizeof(why));
        if (r == -EINVAL)
                return conf_error_set(err, "agents", "hosts", "%s", why);
        if (r < 0)
                return r;
        agent_hosts_free(hosts, n_hosts);
        return 0;
}

const ConfSchema controller_config_schema = {
        .keys = controller_keys,
        .n_keys = ELEMENTSOF(controller_keys),
        .size = sizeof(ControllerConfig),
        .validate = controller_config_validate,
};

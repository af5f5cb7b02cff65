/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/config.h"
#include "common/time-util.h"

/* flexslot-controllerd's configuration; conf/controller.ini documents every
 * key. */
typedef struct ControllerConfig {
        /* [controller] */
        char *address; /* NULL: the system bus */
        char *allowed_group;
        char *store;
        int log_level;

        /* [trackers] */
        char *listen; /* tcp:host=H,port=P or unix:path=P */
        char *token_file;
        usec_t heartbeat_interval;
        usec_t lost_timeout;
        int64_t max_trackers;    /* registered ones */
        usec_t register_timeout; /* a connection's, until it registers */
        usec_t forget_lost;      /* a lost tracker leaves ListNodes after this */

        /* [jobs] */
        char *data_dir;
        uint64_t block_size;
        usec_t keep_ended; /* 0: forever */

        /* [policy] */
        char *scheduler, *slot_manager, *speculation, *vm_allocator;
        bool step; /* false: heartbeats skip the policy (benchmarks only) */

        /* [cluster] */
        int driver; /* ControllerDriverKind */

        /* [yarn] */
        char *yarn_resourcemanager;
        char *yarn_user; /* user.name on every request; NULL: none */
        usec_t yarn_poll_interval, yarn_timeout;
        char *yarn_nodes; /* yarn-config.h's map */
        uint64_t yarn_container_memory;
        int64_t yarn_container_vcores, yarn_min_containers;
        char *yarn_reservation_queue; /* NULL: deadlines are advice only */

        /* [agents] */
        char *agent_hosts; /* agent-hosts.h's list */
        usec_t agent_call_timeout;
        usec_t agent_max_sample_age;
        usec_t agent_not_managed_retry;

        /* [metrics] */
        char *metrics_listen; /* NULL: no metrics endpoint */
} ControllerConfig;

/* [cluster] driver: whose cluster the controller drives. */
typedef enum ControllerDriverKind {
        CONTROLLER_DRIVER_TRACKERS, /* its own trackers, on its tracker endpoint */
        CONTROLLER_DRIVER_YARN,     /* a YARN cluster, through its ResourceManager */
} ControllerDriverKind;

extern const ConfSchema controller_config_schema;

/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/config.h"
#include "common/time-util.h"
#include "actuation/actuation.h"
#include "actuation/act-config.h"

/* flexslot-agentd's configuration; conf/agent.ini documents every key. */
typedef struct AgentConfig {
        /* [agent] */
        char *uri;
        char *address; /* NULL: the system bus */
        usec_t interval;
        int64_t history;
        int64_t decisions;
        usec_t hypervisor_timeout;
        usec_t target_grace;
        usec_t guest_agent_timeout;
        bool dry_run;
        bool balloon_guard;
        double balloon_guard_pressure;      /* percent: "some" */
        double balloon_guard_full_pressure; /* percent: "full" */
        char *allowed_group;
        int log_level;

        /* [metrics] */
        char *metrics_listen; /* NULL: no metrics endpoint */

        /* [host] */
        int64_t cpus;    /* 0: what the hypervisor reports */
        uint64_t memory; /* 0: what the hypervisor reports */

        /* [host] cpu-overcommit, reserve-*, and [limits] */
        ActConfig act;
} AgentConfig;

extern const ConfSchema agent_config_schema;

/* The limits the configuration asks for, and the capacity of a host with
 * host_cpus CPUs and host_memory bytes (the [host] overrides win when set)
 * in ret_host, whose others_* are left 0. */
void agent_config_to_limits(const AgentConfig *c, uint64_t host_cpus, uint64_t host_memory,
                            ActLimits *ret_limits, ActHost *ret_host);

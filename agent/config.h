/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/config.h"
#include "common/time-util.h"
#include "safety.h"

/* flexslot-agentd's configuration; conf/agent.ini documents every key. */
typedef struct AgentConfig {
        /* [agent] */
        char *uri;
        char *address; /* NULL: the system bus */
        usec_t interval;
        int64_t history;
        usec_t hypervisor_timeout;
        bool dry_run;
        char *allowed_group;
        int log_level;

        /* [host] */
        int64_t cpus;     /* 0: what the hypervisor reports */
        uint64_t memory;  /* 0: what the hypervisor reports */
        double cpu_overcommit;
        int64_t reserve_cpus;
        uint64_t reserve_memory;

        /* [limits] */
        int64_t min_vcpus;
        int64_t max_vcpus;
        int64_t max_vcpu_step;
        uint64_t min_memory;
        uint64_t max_memory;
        uint64_t max_memory_step;
        uint64_t min_memory_change;
        int64_t min_cpu_weight;
        int64_t max_cpu_weight;
        int64_t min_cpu_weight_change;
        usec_t min_interval;
        bool allow_vcpu_unplug;
} AgentConfig;

extern const ConfSchema agent_config_schema;

/* Log levels in the order of [agent] log-level's choices. */
extern const int agent_config_log_levels[];

/* The limits the configuration asks for, on a host with host_cpus CPUs and
 * host_memory bytes (the [host] overrides win when set). */
void agent_config_to_limits(const AgentConfig *c, uint64_t host_cpus, uint64_t host_memory,
                            AgentLimits *ret);

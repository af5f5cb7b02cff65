/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <math.h>
#include <stddef.h>

#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"

static const char *const log_level_choices[] = { "err", "warning", "notice", "info", "debug",
                                                  NULL };
const int agent_config_log_levels[] = { LOG_LEVEL_ERR, LOG_LEVEL_WARNING, LOG_LEVEL_NOTICE,
                                        LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

#define F(member) CONF_FIELD(AgentConfig, member)
#define GIB (1LL << 30)
#define TIB (1LL << 40)

/* cgroup v1 cpu.shares accepts 2..262144; libvirt maps cgroup v2 weights
 * into the same range. */
#define CPU_WEIGHT_MIN 2
#define CPU_WEIGHT_MAX 262144

static const ConfKey agent_keys[] = {
        { "agent", "uri", CONF_STRING, F(uri), "qemu:///system" },
        { "agent", "address", CONF_STRING, F(address), NULL },
        { "agent", "interval", CONF_DURATION, F(interval), "5s", .min = 100 * USEC_PER_MSEC,
          .max = USEC_PER_HOUR },
        { "agent", "history", CONF_INT, F(history), "120", .min = 1, .max = 10000 },
        { "agent", "hypervisor-timeout", CONF_DURATION, F(hypervisor_timeout), "10s",
          .min = 10 * USEC_PER_MSEC, .max = 10 * USEC_PER_MINUTE },
        { "agent", "dry-run", CONF_BOOL, F(dry_run), "no" },
        { "agent", "allowed-group", CONF_STRING, F(allowed_group), "flexslot" },
        { "agent", "log-level", CONF_ENUM, F(log_level), "info", .choices = log_level_choices },

        { "host", "cpus", CONF_INT, F(cpus), "0", .min = 0, .max = 65536 },
        { "host", "memory", CONF_SIZE, F(memory), "0", .min = 0, .max = 64 * TIB },
        { "host", "cpu-overcommit", CONF_DOUBLE, F(cpu_overcommit), "1.0", .dmin = 0.1,
          .dmax = 64.0 },
        { "host", "reserve-cpus", CONF_INT, F(reserve_cpus), "1", .min = 0, .max = 65536 },
        { "host", "reserve-memory", CONF_SIZE, F(reserve_memory), "1G", .min = 0,
          .max = 64 * TIB },

        { "limits", "min-vcpus", CONF_INT, F(min_vcpus), "1", .min = 1, .max = 4096 },
        { "limits", "max-vcpus", CONF_INT, F(max_vcpus), "8", .min = 1, .max = 4096 },
        { "limits", "max-vcpu-step", CONF_INT, F(max_vcpu_step), "2", .min = 1, .max = 4096 },
        { "limits", "min-memory", CONF_SIZE, F(min_memory), "512M", .min = 1 << 20,
          .max = 64 * TIB },
        { "limits", "max-memory", CONF_SIZE, F(max_memory), "16G", .min = 1 << 20,
          .max = 64 * TIB },
        { "limits", "max-memory-step", CONF_SIZE, F(max_memory_step), "2G", .min = 1 << 20,
          .max = 64 * TIB },
        { "limits", "min-memory-change", CONF_SIZE, F(min_memory_change), "64M", .min = 0,
          .max = 64 * TIB },
        { "limits", "min-cpu-weight", CONF_INT, F(min_cpu_weight), "128",
          .min = CPU_WEIGHT_MIN, .max = CPU_WEIGHT_MAX },
        { "limits", "max-cpu-weight", CONF_INT, F(max_cpu_weight), "8192",
          .min = CPU_WEIGHT_MIN, .max = CPU_WEIGHT_MAX },
        { "limits", "min-cpu-weight-change", CONF_INT, F(min_cpu_weight_change), "16",
          .min = 0, .max = CPU_WEIGHT_MAX },
        { "limits", "min-interval", CONF_DURATION, F(min_interval), "30s", .min = 0,
          .max = 24 * USEC_PER_HOUR },
        { "limits", "allow-vcpu-unplug", CONF_BOOL, F(allow_vcpu_unplug), "no" },
};

static int agent_config_validate(const void *config, ConfError *err) {
        const AgentConfig *c = config;

        if (c->min_vcpus > c->max_vcpus)
                return conf_error_set(err, "limits", "min-vcpus",
                                      "%lld is greater than max-vcpus %lld",
                                      (long long)c->min_vcpus, (long long)c->max_vcpus);
        if (c->min_memory > c->max_memory)
                return conf_error_set(err, "limits", "min-memory",
                                      "%s is greater than max-memory %s",
                                      FORMAT_SIZE(c->min_memory), FORMAT_SIZE(c->max_memory));
        if (c->min_cpu_weight > c->max_cpu_weight)
                return conf_error_set(err, "limits", "min-cpu-weight",
                                      "%lld is greater than max-cpu-weight %lld",
                                      (long long)c->min_cpu_weight,
                                      (long long)c->max_cpu_weight);
        /* A minimum change above the maximum step would refuse every change. */
        if (c->min_memory_change > c->max_memory_step)
                return conf_error_set(err, "limits", "min-memory-change",
                                      "%s is greater than max-memory-step %s",
                                      FORMAT_SIZE(c->min_memory_change),
                                      FORMAT_SIZE(c->max_memory_step));
        if (c->cpus > 0 && c->reserve_cpus >= c->cpus)
                return conf_error_set(err, "host", "reserve-cpus",
                                      "%lld leaves nothing of cpus %lld",
                                      (long long)c->reserve_cpus, (long long)c->cpus);
        if (c->memory > 0 && c->reserve_memory >= c->memory)
                return conf_error_set(err, "host", "reserve-memory",
                                      "%s leaves nothing of memory %s",
                                      FORMAT_SIZE(c->reserve_memory), FORMAT_SIZE(c->memory));
        return 0;
}

const ConfSchema agent_config_schema = {
        .keys = agent_keys,
        .n_keys = ELEMENTSOF(agent_keys),
        .size = sizeof(AgentConfig),
        .validate = agent_config_validate,
};

void agent_config_to_limits(const AgentConfig *c, uint64_t host_cpus, uint64_t host_memory,
                            AgentLimits *ret) {
        uint64_t cpus = c->cpus > 0 ? (uint64_t)c->cpus : host_cpus;

        *ret = (AgentLimits){
                .min_vcpus = (uint64_t)c->min_vcpus,
                .max_vcpus = (uint64_t)c->max_vcpus,
                .max_vcpu_step = (uint64_t)c->max_vcpu_step,
                .min_memory = c->min_memory,
                .max_memory = c->max_memory,
                .max_memory_step = c->max_memory_step,
                .min_memory_change = c->min_memory_change,
                .min_cpu_weight = (uint64_t)c->min_cpu_weight,
                .max_cpu_weight = (uint64_t)c->max_cpu_weight,
                .min_cpu_weight_change = (uint64_t)c->min_cpu_weight_change,
                .min_interval = c->min_interval,
                .host_vcpus = (uint64_t)floor((double)cpus * c->cpu_overcommit),
                .host_memory = c->memory > 0 ? c->memory : host_memory,
                .reserve_cpus = (uint64_t)c->reserve_cpus,
                .reserve_memory = c->reserve_memory,
        };
}

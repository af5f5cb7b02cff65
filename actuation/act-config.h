/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "actuation.h"
#include "common/config.h"
#include "common/time-util.h"

/* The limits as a configuration: [host] cpu-overcommit and reserve-*, and
 * [limits], declared once here with their defaults and ranges. The agent
 * embeds them in its own schema (ACT_CONFIG_KEYS), the simulator takes the
 * defaults (act_limits_default); conf/agent.ini documents every key. */
typedef struct ActConfig {
        /* [host] */
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
        double min_cpu_cap;
        double min_cpu_cap_change;
        usec_t min_interval;
        bool allow_vcpu_unplug;
} ActConfig;

/* cgroup v1 cpu.shares accepts 2..262144; libvirt maps cgroup v2 weights
 * into the same range. */
#define ACT_CPU_WEIGHT_MIN 2
#define ACT_CPU_WEIGHT_MAX 262144

#define ACT_CONFIG_TIB (1LL << 40)

/* The ConfKey entries of ActConfig. FIELD(member) gives the offset of the
 * member in the struct the schema fills, so that another configuration can
 * hold an ActConfig and list these keys among its own. */
/* clang-format off */
#define ACT_CONFIG_KEYS(FIELD)                                                                     \
        { "host", "cpu-overcommit", CONF_DOUBLE, FIELD(cpu_overcommit), "1.0", .dmin = 0.1,        \
          .dmax = 64.0 },                                                                          \
        { "host", "reserve-cpus", CONF_INT, FIELD(reserve_cpus), "1", .min = 0, .max = 65536 },   \
        { "host", "reserve-memory", CONF_SIZE, FIELD(reserve_memory), "1G", .min = 0,              \
          .max = 64 * ACT_CONFIG_TIB },                                                            \
        { "limits", "min-vcpus", CONF_INT, FIELD(min_vcpus), "1", .min = 1, .max = 4096 },         \
        { "limits", "max-vcpus", CONF_INT, FIELD(max_vcpus), "8", .min = 1, .max = 4096 },         \
        { "limits", "max-vcpu-step", CONF_INT, FIELD(max_vcpu_step), "2", .min = 1, .max = 4096 }, \
        { "limits", "min-memory", CONF_SIZE, FIELD(min_memory), "512M", .min = 1 << 20,            \
          .max = 64 * ACT_CONFIG_TIB },                                                            \
        { "limits", "max-memory", CONF_SIZE, FIELD(max_memory), "16G", .min = 1 << 20,             \
          .max = 64 * ACT_CONFIG_TIB },                                                            \
        { "limits", "max-memory-step", CONF_SIZE, FIELD(max_memory_step), "2G", .min = 1 << 20,    \
          .max = 64 * ACT_CONFIG_TIB },                                                            \
        { "limits", "min-memory-change", CONF_SIZE, FIELD(min_memory_change), "64M", .min = 0,     \
          .max = 64 * ACT_CONFIG_TIB },                                                            \
        { "limits", "min-cpu-weight", CONF_INT, FIELD(min_cpu_weight), "128",                      \
          .min = ACT_CPU_WEIGHT_MIN, .max = ACT_CPU_WEIGHT_MAX },                                  \
        { "limits", "max-cpu-weight", CONF_INT, FIELD(max_cpu_weight), "8192",                     \
          .min = ACT_CPU_WEIGHT_MIN, .max = ACT_CPU_WEIGHT_MAX },                                  \
        { "limits", "min-cpu-weight-change", CONF_INT, FIELD(min_cpu_weight_change), "16",         \
          .min = 0, .max = ACT_CPU_WEIGHT_MAX },                                                   \
        { "limits", "min-cpu-cap", CONF_DOUBLE, FIELD(min_cpu_cap), "0.1", .dmin = 0.01,           \
          .dmax = 4096 },                                                                          \
        { "limits", "min-cpu-cap-change", CONF_DOUBLE, FIELD(min_cpu_cap_change), "0.1",           \
          .dmin = 0, .dmax = 4096 },                                                               \
        { "limits", "min-interval", CONF_DURATION, FIELD(min_interval), "30s", .min = 0,           \
          .max = 24 * USEC_PER_HOUR },                                                             \
        { "limits", "allow-vcpu-unplug", CONF_BOOL, FIELD(allow_vcpu_unplug), "no" }
/* clang-format on */

/* The cross-field checks: a floor above its ceiling, a minimum change
 * above the maximum step. */
int act_config_validate(const ActConfig *c, ConfError *err);

void act_config_to_limits(const ActConfig *c, ActLimits *ret);

/* The limits of the built-in defaults (those of conf/agent.ini), built on
 * first use; for callers without a configuration of their own. */
const ActLimits *act_limits_default(void);

/* SPDX-License-Identifier: MIT */
#include "act-config.h"

#include <pthread.h>
#include <stddef.h>

#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"

#define F(member) CONF_FIELD(ActConfig, member)

static const ConfKey act_keys[] = { ACT_CONFIG_KEYS(F) };

int act_config_validate(const ActConfig *c, ConfError *err) {
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
                                      (long long)c->min_cpu_weight, (long long)c->max_cpu_weight);
        /* A minimum change above the maximum step would refuse every change. */
        if (c->min_memory_change > c->max_memory_step)
                return conf_error_set(
                        err, "limits", "min-memory-change", "%s is greater than max-memory-step %s",
                        FORMAT_SIZE(c->min_memory_change), FORMAT_SIZE(c->max_memory_step));
        return 0;
}

static int schema_validate(const void *config, ConfError *err) {
        return act_config_validate(config, err);
}

static const ConfSchema act_schema = {
        .keys = act_keys,
        .n_keys = ELEMENTSOF(act_keys),
        .size = sizeof(ActConfig),
        .validate = schema_validate,
};

void act_config_to_limits(const ActConfig *c, ActLimits *ret) {
        *ret = (ActLimits){
                .r = {
                        [ACT_CPU_WEIGHT] = { (uint64_t)c->min_cpu_weight,
                                             (uint64_t)c->max_cpu_weight,
                                             /* Any step within the range is safe: a
                                              * weight is relative. */
                                             UINT64_MAX, (uint64_t)c->min_cpu_weight_change },
                        [ACT_VCPUS] = { (uint64_t)c->min_vcpus, (uint64_t)c->max_vcpus,
                                        (uint64_t)c->max_vcpu_step, 1 },
                        /* No ceiling and no step: a cap only takes CPU away, and
                         * lifting one (ACT_CAP_NONE) is the way back. */
                        [ACT_CPU_CAP] = { act_cap_from_cpus(c->min_cpu_cap), ACT_CAP_NONE,
                                          UINT64_MAX,
                                          c->min_cpu_cap_change > 0
                                                  ? act_cap_from_cpus(c->min_cpu_cap_change)
                                                  : 0 },
                        [ACT_MEMORY] = { c->min_memory, c->max_memory, c->max_memory_step,
                                         c->min_memory_change },
                },
                .min_interval = c->min_interval,
                .allow_vcpu_unplug = c->allow_vcpu_unplug,
                .cpu_overcommit = c->cpu_overcommit,
                .reserve_cpus = (uint64_t)c->reserve_cpus,
                .reserve_memory = c->reserve_memory,
        };
}

static ActLimits default_limits;

static void default_limits_once(void) {
        ActConfig c = { 0 };
        ConfError err;
        int r;

        r = conf_load_defaults(&act_schema, &c, &err);
        if (r < 0) {
                /* The built-in defaults are ours: a failure is a bug. */
                char msg[CONF_ERROR_TEXT_MAX * 2];
                conf_error_format(&err, msg, sizeof(msg));
                log_error("The built-in actuation limits do not load: %s", msg);
                abort();
        }
        act_config_to_limits(&c, &default_limits);
        conf_free(&act_schema, &c);
}

const ActLimits *act_limits_default(void) {
        static pthread_once_t once = PTHREAD_ONCE_INIT;

        pthread_once(&once, default_limits_once);
        return &default_limits;
}

/* SPDX-License-Identifier: MIT */
#include "agent-config.h"

#include <stddef.h>

#include "common/daemon-util.h"
#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/metrics-http.h"

#define F(member) CONF_FIELD(AgentConfig, member)
#define ACT_FIELD(member) CONF_FIELD(AgentConfig, act.member)
#define TIB (1LL << 40)

static const ConfKey agent_keys[] = {
        { "agent", "uri", CONF_STRING, F(uri), "qemu:///system" },
        { "agent", "address", CONF_STRING, F(address), NULL },
        { "agent", "interval", CONF_DURATION, F(interval), "5s", .min = 100 * USEC_PER_MSEC,
          .max = USEC_PER_HOUR },
        { "agent", "history", CONF_INT, F(history), "120", .min = 1, .max = 10000 },
        { "agent", "decisions", CONF_INT, F(decisions), "256", .min = 1, .max = 4096 },
        { "agent", "hypervisor-timeout", CONF_DURATION, F(hypervisor_timeout), "10s",
          .min = 10 * USEC_PER_MSEC, .max = 10 * USEC_PER_MINUTE },
        { "agent", "target-grace", CONF_DURATION, F(target_grace), "30s",
          .min = 100 * USEC_PER_MSEC, .max = USEC_PER_HOUR },
        { "agent", "guest-agent-timeout", CONF_DURATION, F(guest_agent_timeout), "2s",
          .min = USEC_PER_SEC, .max = USEC_PER_MINUTE },
        { "agent", "dry-run", CONF_BOOL, F(dry_run), "no" },
        { "agent", "balloon-guard", CONF_BOOL, F(balloon_guard), "no" },
        { "agent", "balloon-guard-pressure", CONF_DOUBLE, F(balloon_guard_pressure), "10",
          .dmin = 0, .dmax = 100 },
        { "agent", "balloon-guard-full-pressure", CONF_DOUBLE, F(balloon_guard_full_pressure), "1",
          .dmin = 0, .dmax = 100 },
        { "agent", "allowed-group", CONF_STRING, F(allowed_group), "flexslot" },
        { "agent", "log-level", CONF_ENUM, F(log_level), "info",
          .choices = daemon_log_level_choices },

        { "metrics", "listen", CONF_STRING, F(metrics_listen), NULL },

        { "host", "cpus", CONF_INT, F(cpus), "0", .min = 0, .max = 65536 },
        { "host", "memory", CONF_SIZE, F(memory), "0", .min = 0, .max = 64 * TIB },
        ACT_CONFIG_KEYS(ACT_FIELD),
};

static int agent_config_validate(const void *config, ConfError *err) {
        const AgentConfig *c = config;
        int r;

        r = act_config_validate(&c->act, err);
        if (r < 0)
                return r;
        if (c->metrics_listen && !metrics_listen_is_valid(c->metrics_listen))
                return conf_error_set(err, "metrics", "listen",
                                      "'%s' is not A.B.C.D:PORT or [IPV6]:PORT", c->metrics_listen);
        if (c->cpus > 0 && c->act.reserve_cpus >= c->cpus)
                return conf_error_set(err, "host", "reserve-cpus",
                                      "%lld leaves nothing of cpus %lld",
                                      (long long)c->act.reserve_cpus, (long long)c->cpus);
        if (c->memory > 0 && c->act.reserve_memory >= c->memory)
                return conf_error_set(err, "host", "reserve-memory",
                                      "%s leaves nothing of memory %s",
                                      FORMAT_SIZE(c->act.reserve_memory), FORMAT_SIZE(c->memory));
        return 0;
}

const ConfSchema agent_config_schema = {
        .keys = agent_keys,
        .n_keys = ELEMENTSOF(agent_keys),
        .size = sizeof(AgentConfig),
        .validate = agent_config_validate,
};

void agent_config_to_limits(const AgentConfig *c, uint64_t host_cpus, uint64_t host_memory,
                            ActLimits *ret_limits, ActHost *ret_host) {
        act_config_to_limits(&c->act, ret_limits);
        *ret_host = (ActHost){
                .cpus = c->cpus > 0 ? (uint64_t)c->cpus : host_cpus,
                .memory = c->memory > 0 ? c->memory : host_memory,
        };
}

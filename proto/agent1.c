/* SPDX-License-Identifier: MIT */
/* org.flexslot.Agent1's words, SetTarget's verdicts built and read, and
 * the metrics read (agent1.h). */
#include "agent1.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const struct {
        const char *key;
        char type;
} resources[_AGENT1_RESOURCE_MAX] = {
        [AGENT1_CPU_WEIGHT] = { "cpu-weight", 'u' },
        [AGENT1_VCPUS] = { "vcpus", 'u' },
        [AGENT1_CPU_CAP] = { "cpu-cap", 'd' },
        [AGENT1_MEMORY] = { "memory", 't' },
};

static const char *const status_names[_AGENT1_STATUS_MAX] = {
        [AGENT1_APPLIED] = "applied",     [AGENT1_CLAMPED] = "clamped",
        [AGENT1_UNCHANGED] = "unchanged", [AGENT1_DRY_RUN] = "dry-run",
        [AGENT1_REFUSED] = "refused",     [AGENT1_FAILED] = "failed",
};

const char *agent1_resource_to_key(Agent1Resource r) {
        return (unsigned)r < _AGENT1_RESOURCE_MAX ? resources[r].key : NULL;
}

int agent1_resource_from_key(const char *key, Agent1Resource *ret) {
        for (Agent1Resource r = 0; r < _AGENT1_RESOURCE_MAX; r++)
                if (strcmp(key, resources[r].key) == 0) {
                        *ret = r;
                        return 0;
                }
        return -EINVAL;
}

char agent1_resource_type(Agent1Resource r) {
        return (unsigned)r < _AGENT1_RESOURCE_MAX ? resources[r].type : '\0';
}

const char *agent1_status_to_string(Agent1Status s) {
        return (unsigned)s < _AGENT1_STATUS_MAX ? status_names[s] : NULL;
}

int agent1_status_from_string(const char *s, Agent1Status *ret) {
        for (Agent1Status i = 0; i < _AGENT1_STATUS_MAX; i++)
                if (strcmp(s, status_names[i]) == 0) {
                        *ret = i;
                        return 0;
                }
        return -EINVAL;
}

bool agent1_status_taken(Agent1Status s) {
        return s == AGENT1_APPLIED || s == AGENT1_CLAMPED || s == AGENT1_UNCHANGED ||
               s == AGENT1_DRY_RUN;
}

static int append_value(sd_bus_message *m, char type, double v) {
        switch (type) {
        case 'u':
                return sd_bus_message_append(m, "v", "u", (uint32_t)v);
        case 't':
                return sd_bus_message_append(m, "v", "t", (uint64_t)v);
        default:
                return sd_bus_message_append(m, "v", "d", v);
        }
}

int agent1_target_entry_append(sd_bus_message *m, Agent1Resource r, double value) {
        const char *key = agent1_resource_to_key(r);
        int k;

        if (!key)
                return -EINVAL;
        k = sd_bus_message_open_container(m, 'e', "sv");
        if (k >= 0)
                k = sd_bus_message_append(m, "s", key);
        if (k >= 0)
                k = append_value(m, agent1_resource_type(r), value);
        if (k >= 0)
                k = sd_bus_message_close_container(m);
        return k;
}

int agent1_verdict_append(sd_bus_message *m, const Agent1Verdict *v) {
        const char *key = agent1_resource_to_key(v->resource),
                   *status = agent1_status_to_string(v->status);
        char type = agent1_resource_type(v->resource);
        int r;

        if (!key || !status)
                return -EINVAL;
        r = sd_bus_message_open_container(m, 'e', AGENT1_VERDICT_FIELDS);
        if (r >= 0)
                r = sd_bus_message_append(m, "s", key);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'r', "svvss");
        if (r >= 0)
                r = sd_bus_message_append(m, "s", status);
        if (r >= 0)
                r = append_value(m, type, v->before);
        if (r >= 0)
                r = append_value(m, type, v->after);
        if (r >= 0)
                r = sd_bus_message_append(m, "ss", v->error ? v->error : "",
                                          v->message ? v->message : "");
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

static int read_value(sd_bus_message *m, char type, double *ret) {
        uint32_t u;
        uint64_t t;
        int r;

        switch (type) {
        case 'u':
                r = sd_bus_message_read(m, "v", "u", &u);
                *ret = u;
                return r;
        case 't':
                r = sd_bus_message_read(m, "v", "t", &t);
                *ret = (double)t;
                return r;
        default:
                return sd_bus_message_read(m, "v", "d", ret);
        }
}

int agent1_verdict_read(sd_bus_message *m, Agent1Verdict *ret) {
        const char *key, *status;
        Agent1Verdict v = { 0 };
        int r;

        r = sd_bus_message_enter_container(m, 'e', AGENT1_VERDICT_FIELDS);
        if (r == 0)
                return 0;
        if (r > 0)
                r = sd_bus_message_read(m, "s", &key);
        if (r > 0 && agent1_resource_from_key(key, &v.resource) < 0)
                r = -EINVAL;
        if (r > 0)
                r = sd_bus_message_enter_container(m, 'r', "svvss");
        if (r > 0)
                r = sd_bus_message_read(m, "s", &status);
        if (r > 0 && agent1_status_from_string(status, &v.status) < 0)
                r = -EINVAL;
        if (r > 0)
                r = read_value(m, agent1_resource_type(v.resource), &v.before);
        if (r > 0)
                r = read_value(m, agent1_resource_type(v.resource), &v.after);
        if (r > 0)
                r = sd_bus_message_read(m, "ss", &v.error, &v.message);
        if (r > 0)
                r = sd_bus_message_exit_container(m);
        if (r > 0)
                r = sd_bus_message_exit_container(m);
        if (r <= 0)
                return r == -ENOMEM ? r : -EBADMSG;
        *ret = v;
        return 1;
}

static const char *const metrics_types[] = {
        [AGENT1_METRICS_V1] = AGENT1_METRICS_TYPE_V1,
        [AGENT1_METRICS_V2] = AGENT1_METRICS_TYPE_V2,
        [AGENT1_METRICS_V4] = AGENT1_METRICS_TYPE_V4,
        [AGENT1_METRICS_V5] = AGENT1_METRICS_TYPE,
};

int agent1_metrics_enter(sd_bus_message *m, Agent1MetricsShape *ret_shape) {
        const char *contents = NULL;
        Agent1MetricsShape shape = AGENT1_METRICS_V1;
        int r;

        r = sd_bus_message_peek_type(m, NULL, &contents);
        if (r < 0)
                return r;
        if (r == 0 || !contents)
                return -EBADMSG;
        while (strcmp(contents, metrics_types[shape]) != 0)
                if (shape++ == AGENT1_METRICS_V5)
                        return -EBADMSG;
        r = sd_bus_message_enter_container(m, 'a', contents);
        if (r <= 0)
                return r < 0 ? r : -EBADMSG;
        *ret_shape = shape;
        return 0;
}

/* Whether s is "" or one of the words, a NULL-terminated list. */
static bool is_one_of(const char *s, const char *const *words) {
        if (s[0] == '\0')
                return true;
        for (; *words; words++)
                if (strcmp(s, *words) == 0)
                        return true;
        return false;
}

static const char *const target_states[] = {
        AGENT1_TARGET_PENDING,
        AGENT1_TARGET_REACHED,
        AGENT1_TARGET_UNREACHED,
        NULL,
};
static const char *const target_sources[] = {
        AGENT1_SOURCE_GUEST_AGENT,
        AGENT1_SOURCE_HYPERVISOR,
        NULL,
};
static const char *const guest_agent_states[] = {
        AGENT1_GUEST_AGENT_ANSWERED,    AGENT1_GUEST_AGENT_NONE,   AGENT1_GUEST_AGENT_UNRESPONSIVE,
        AGENT1_GUEST_AGENT_UNSUPPORTED, AGENT1_GUEST_AGENT_FAILED, NULL,
};

int agent1_metrics_read(sd_bus_message *m, Agent1MetricsShape shape, Agent1Metrics *ret) {
        Agent1Metrics x = {
                .vcpus_target = "",
                .memory_target = "",
                .vcpus_target_source = "",
                .guest_agent = "",
        };
        int r;

        switch (shape) {
        case AGENT1_METRICS_V1:
                r = sd_bus_message_read(m, AGENT1_METRICS_TYPE_V1, &x.name, &x.uuid, &x.state,
                                        &x.vcpus, &x.vcpus_max, &x.memory, &x.memory_max,
                                        &x.cpu_use, &x.steal, &x.valid, &x.cpu_weight, &x.cpu_cap,
                                        &x.memory_used);
                break;
        case AGENT1_METRICS_V2:
                r = sd_bus_message_read(m, AGENT1_METRICS_TYPE_V2, &x.name, &x.uuid, &x.state,
                                        &x.vcpus, &x.vcpus_max, &x.memory, &x.memory_max,
                                        &x.cpu_use, &x.steal, &x.valid, &x.cpu_weight, &x.cpu_cap,
                                        &x.memory_used, &x.age);
                break;
        case AGENT1_METRICS_V4:
                r = sd_bus_message_read(m, AGENT1_METRICS_TYPE_V4, &x.name, &x.uuid, &x.state,
                                        &x.vcpus, &x.vcpus_max, &x.memory, &x.memory_max,
                                        &x.cpu_use, &x.steal, &x.valid, &x.cpu_weight, &x.cpu_cap,
                                        &x.memory_used, &x.age, &x.vcpus_target, &x.memory_target);
                break;
        default:
                r = sd_bus_message_read(m, AGENT1_METRICS_TYPE, &x.name, &x.uuid, &x.state,
                                        &x.vcpus, &x.vcpus_max, &x.memory, &x.memory_max,
                                        &x.cpu_use, &x.steal, &x.valid, &x.cpu_weight, &x.cpu_cap,
                                        &x.memory_used, &x.age, &x.vcpus_target, &x.memory_target,
                                        &x.vcpus_target_source, &x.guest_vcpus, &x.guest_agent);
                break;
        }
        if (r <= 0)
                return r;
        /* The controller turns it into a time: a day is past any use. */
        if (!isfinite(x.age) || x.age < 0.0 || x.age > 86400.0)
                return -EBADMSG;
        if (!is_one_of(x.vcpus_target, target_states) ||
            !is_one_of(x.memory_target, target_states) ||
            !is_one_of(x.vcpus_target_source, target_sources) ||
            !is_one_of(x.guest_agent, guest_agent_states))
                return -EBADMSG;
        /* A count is the guest agent's answer, and no more vCPUs than the
         * domain may have. */
        if ((x.valid & AGENT1_METRIC_GUEST_VCPUS) &&
            (strcmp(x.guest_agent, AGENT1_GUEST_AGENT_ANSWERED) != 0 ||
             ((x.valid & AGENT1_METRIC_VCPUS) && x.guest_vcpus > x.vcpus_max)))
                return -EBADMSG;
        if (!(x.valid & AGENT1_METRIC_GUEST_VCPUS) && x.guest_vcpus != 0)
                return -EBADMSG;
        *ret = x;
        return 1;
}

/* SPDX-License-Identifier: MIT */
/* org.flexslot.Agent1: the D-Bus glue of flexslot-agentd. Reads are
 * answered from the sample history on the loop thread and never wait for
 * libvirt; changes (bus-change.c) go to the actuator's worker thread and are
 * answered asynchronously, or with Error.HypervisorUnavailable when libvirt
 * does not answer in time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"
#include "daemon.h"
#include "proto/errors.h"

static const AgentSnapshot *latest_snapshot(const Agent *a) {
        return ring_get_newest(&a->history, 0);
}

/* See proto/agent1.h. */
static int append_metrics(sd_bus_message *m, const AgentDomain *d) {
        const HvDomainMetrics *x = &d->metrics;
        unsigned valid = 0;
        uint64_t used = 0;

        if (x->valid & HV_METRIC_VCPUS)
                valid |= AGENT1_METRIC_VCPUS;
        if (x->valid & HV_METRIC_MEMORY)
                valid |= AGENT1_METRIC_MEMORY;
        if (x->valid & HV_METRIC_CPU_USE)
                valid |= AGENT1_METRIC_CPU_USE;
        if (x->valid & HV_METRIC_STEAL)
                valid |= AGENT1_METRIC_STEAL;
        if (d->settings & AGENT_SETTING_CPU_WEIGHT)
                valid |= AGENT1_METRIC_CPU_WEIGHT;
        /* The cap is the whole domain's quota, or the quota per vCPU times
         * this sample's vCPUs. */
        if ((d->settings & AGENT_SETTING_CPU_CAP) && (x->valid & HV_METRIC_VCPUS))
                valid |= AGENT1_METRIC_CPU_CAP;
        if (x->valid & HV_METRIC_MEMORY_GUEST) {
                valid |= AGENT1_METRIC_MEMORY_USED;
                used = x->memory_available_kib > x->memory_unused_kib
                               ? (x->memory_available_kib - x->memory_unused_kib) * 1024
                               : 0;
        }
        if (d->guest_vcpus.state == AGENT_GUEST_AGENT_ANSWERED)
                valid |= AGENT1_METRIC_GUEST_VCPUS;

        return sd_bus_message_append(
                m, AGENT1_METRICS_TYPE, d->name, d->uuid, hv_domain_state_to_string(x->state),
                valid & AGENT1_METRIC_VCPUS ? x->vcpus_current : 0u,
                valid & AGENT1_METRIC_VCPUS ? x->vcpus_max : 0u,
                valid & AGENT1_METRIC_MEMORY ? x->memory_kib * 1024 : (uint64_t)0,
                valid & AGENT1_METRIC_MEMORY ? x->memory_max_kib * 1024 : (uint64_t)0,
                valid & AGENT1_METRIC_CPU_USE ? x->cpu_use : -1.0,
                valid & AGENT1_METRIC_STEAL ? x->steal : -1.0, valid,
                valid & AGENT1_METRIC_CPU_WEIGHT
                        ? (uint32_t)MIN(d->cpu_weight, (uint64_t)UINT32_MAX)
                        : 0u,
                valid & AGENT1_METRIC_CPU_CAP ? act_cap_to_cpus(agent_domain_cpu_cap(d)) : -1.0,
                used, usec_to_sec(d->age_usec), agent_target_state_to_string(d->vcpus_target),
                agent_target_state_to_string(d->memory_target),
                agent_target_source_to_string(d->vcpus_target_source),
                valid & AGENT1_METRIC_GUEST_VCPUS ? d->guest_vcpus.online : 0u,
                agent_guest_agent_state_to_string(d->guest_vcpus.state));
}

static int append_all_metrics(sd_bus_message *m, const AgentSnapshot *s) {
        int r;

        r = sd_bus_message_open_container(m, 'a', AGENT1_METRICS_TYPE);
        if (r < 0)
                return r;
        for (size_t i = 0; i < s->n_domains; i++) {
                r = append_metrics(m, &s->domains[i]);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(m);
}

static int no_sample_error(sd_bus_error *error) {
        return sd_bus_error_set(error, AGENT1_ERROR_HYPERVISOR_UNAVAILABLE,
                                "No sample yet: the hypervisor has not answered.");
}

bool agent_domain_is_valid(const char *domain) {
        return domain[0] != '\0' && strlen(domain) < HV_NAME_MAX;
}

int agent_bus_invalid_domain(const char *domain, sd_bus_error *error) {
        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Invalid domain name '%.*s'.",
                                 AGENT_SHOWN_MAX, domain);
}

static int validate_domain(const char *domain, sd_bus_error *error) {
        return agent_domain_is_valid(domain) ? 0 : agent_bus_invalid_domain(domain, error);
}

static const AgentDomain *find_domain(const Agent *a, const char *domain, sd_bus_error *error) {
        const AgentDomain *d = agent_snapshot_find(latest_snapshot(a), domain);
        char text[HV_NAME_MAX + 16];

        if (!d)
                sd_bus_error_setf(error, AGENT1_ERROR_NO_SUCH_DOMAIN, "%s.",
                                  agent_error_no_domain(text, sizeof(text), domain));
        return d;
}

static int method_list_domains(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const AgentSnapshot *s = latest_snapshot(userdata);
        int r;

        if (!s)
                return no_sample_error(error);
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(sss)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < s->n_domains; i++) {
                r = sd_bus_message_append(reply, "(sss)", s->domains[i].name, s->domains[i].uuid,
                                          hv_domain_state_to_string(s->domains[i].metrics.state));
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_get_metrics(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const AgentSnapshot *s = latest_snapshot(userdata);
        const AgentDomain *d;
        const char *domain;
        int r;

        r = sd_bus_message_read(m, "s", &domain);
        if (r < 0)
                return r;
        r = validate_domain(domain, error);
        if (r < 0)
                return r;
        if (!s)
                return no_sample_error(error);
        d = find_domain(userdata, domain, error);
        if (!d)
                return -ENOENT;
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "t", s->realtime);
        if (r < 0)
                return r;
        r = append_metrics(reply, d);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_get_all_metrics(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const AgentSnapshot *s = latest_snapshot(userdata);
        int r;

        if (!s)
                return no_sample_error(error);
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "t", s->realtime);
        if (r < 0)
                return r;
        r = append_all_metrics(reply, s);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* The domain's newest max_samples samples (0: all kept), oldest first. */
static int method_get_history(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Agent *a = userdata;
        const char *domain;
        uint32_t max_samples;
        size_t n;
        int r;

        r = sd_bus_message_read(m, "su", &domain, &max_samples);
        if (r < 0)
                return r;
        r = validate_domain(domain, error);
        if (r < 0)
                return r;
        if (!latest_snapshot(a))
                return no_sample_error(error);
        if (!find_domain(a, domain, error))
                return -ENOENT;

        n = ring_size(&a->history);
        if (max_samples > 0 && max_samples < n)
                n = max_samples;
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(t" AGENT1_METRICS_TYPE ")");
        if (r < 0)
                return r;
        for (size_t i = n; i-- > 0;) {
                const AgentSnapshot *s = ring_get_newest(&a->history, i);
                const AgentDomain *d = agent_snapshot_find(s, domain);

                if (!d)
                        continue;
                r = sd_bus_message_open_container(reply, 'r', "t" AGENT1_METRICS_TYPE);
                if (r < 0)
                        return r;
                r = sd_bus_message_append(reply, "t", s->realtime);
                if (r < 0)
                        return r;
                r = append_metrics(reply, d);
                if (r < 0)
                        return r;
                r = sd_bus_message_close_container(reply);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* The change requests kept, numbered above since, oldest first. */
static int method_list_decisions(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Agent *a = userdata;
        const AgentDecision *d;
        uint64_t since;
        int r;

        r = sd_bus_message_read(m, "t", &since);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', AGENT1_DECISION_TYPE);
        if (r < 0)
                return r;
        for (size_t i = 0; (d = agent_decisions_after(&a->decisions, since, i)); i++) {
                r = sd_bus_message_append(reply, AGENT1_DECISION_TYPE, d->id, (uint64_t)d->time,
                                          d->method, d->sender, d->uid, d->domain, d->inputs,
                                          d->limits, d->verdict, d->error, (int)d->dry_run,
                                          d->outcome);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int property_get_version(sd_bus *bus, const char *path, const char *interface,
                                const char *property, sd_bus_message *reply, void *userdata,
                                sd_bus_error *error) {
        return sd_bus_message_append(reply, "u", AGENT1_VERSION);
}

static int property_get_uri(sd_bus *bus, const char *path, const char *interface,
                            const char *property, sd_bus_message *reply, void *userdata,
                            sd_bus_error *error) {
        Agent *a = userdata;
        return sd_bus_message_append(reply, "s", a->config.uri);
}

static int property_get_interval(sd_bus *bus, const char *path, const char *interface,
                                 const char *property, sd_bus_message *reply, void *userdata,
                                 sd_bus_error *error) {
        Agent *a = userdata;
        return sd_bus_message_append(reply, "t", (uint64_t)a->config.interval);
}

static int property_get_last_sample(sd_bus *bus, const char *path, const char *interface,
                                    const char *property, sd_bus_message *reply, void *userdata,
                                    sd_bus_error *error) {
        const AgentSnapshot *s = latest_snapshot(userdata);
        return sd_bus_message_append(reply, "t", s ? s->realtime : (uint64_t)0);
}

/* Every method is callable by anyone as far as sd-bus is concerned: the
 * policy file and authorize() decide who may change VMs. */
static const sd_bus_vtable agent_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "u", property_get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("HostName", "s", NULL, offsetof(Agent, hostname),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("URI", "s", property_get_uri, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Interval", "t", property_get_interval, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CapacityCPUs", "u", NULL, offsetof(Agent, capacity_cpus),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CapacityMemory", "t", NULL, offsetof(Agent, capacity_memory),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("ReserveCPUs", "u", NULL, offsetof(Agent, reserve_cpus),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("ReserveMemory", "t", NULL, offsetof(Agent, reserve_memory),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("DryRun", "b", NULL, offsetof(Agent, dry_run),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("HypervisorAvailable", "b", NULL, offsetof(Agent, hypervisor_available),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("LastSample", "t", property_get_last_sample, 0, 0),

        SD_BUS_METHOD_WITH_ARGS("ListDomains", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sss)", domains),
                                method_list_domains, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetMetrics", SD_BUS_ARGS("s", domain),
                                SD_BUS_RESULT("t", timestamp, AGENT1_METRICS_TYPE, metrics),
                                method_get_metrics, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetAllMetrics", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("t", timestamp, "a" AGENT1_METRICS_TYPE, domains),
                                method_get_all_metrics, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetHistory", SD_BUS_ARGS("s", domain, "u", max_samples),
                                SD_BUS_RESULT("a(t" AGENT1_METRICS_TYPE ")", samples),
                                method_get_history, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListDecisions", SD_BUS_ARGS("t", since),
                                SD_BUS_RESULT(AGENT1_DECISIONS_TYPE, decisions),
                                method_list_decisions, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetTarget", SD_BUS_ARGS("s", domain, AGENT1_TARGET_TYPE, target),
                                SD_BUS_RESULT(AGENT1_VERDICTS_TYPE, verdicts),
                                agent_method_set_target, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetVcpus", SD_BUS_ARGS("s", domain, "u", vcpus),
                                SD_BUS_RESULT("u", before, "u", after), agent_method_set_vcpus,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetMemory", SD_BUS_ARGS("s", domain, "t", bytes),
                                SD_BUS_RESULT("t", before, "t", after), agent_method_set_memory,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetCpuWeight", SD_BUS_ARGS("s", domain, "t", weight),
                                SD_BUS_RESULT("t", before, "t", after), agent_method_set_cpu_weight,
                                SD_BUS_VTABLE_UNPRIVILEGED),

        SD_BUS_SIGNAL_WITH_ARGS("Sample",
                                SD_BUS_ARGS("t", timestamp, "a" AGENT1_METRICS_TYPE, domains), 0),
        SD_BUS_VTABLE_END,
};

int agent_bus_setup(Agent *a) {
        int r;

        r = proto_errors_register();
        if (r < 0)
                return log_error_errno(r, "Cannot register D-Bus error names");
        r = sd_bus_add_object_vtable(a->bus, &a->object_slot, AGENT1_OBJECT_PATH, AGENT1_INTERFACE,
                                     agent_vtable, a);
        if (r < 0)
                return log_error_errno(r, "Cannot add the D-Bus object");
        r = sd_bus_request_name(a->bus, AGENT1_BUS_NAME, 0);
        if (r < 0)
                return log_error_errno(r, "Cannot own the D-Bus name %s", AGENT1_BUS_NAME);
        return 0;
}

int agent_bus_emit_sample(Agent *a, const AgentSnapshot *s) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_signal(a->bus, &m, AGENT1_OBJECT_PATH, AGENT1_INTERFACE, "Sample");
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "t", s->realtime);
        if (r < 0)
                return r;
        r = append_all_metrics(m, s);
        if (r < 0)
                return r;
        return sd_bus_send(a->bus, m, NULL);
}

void agent_bus_set_available(Agent *a, bool available) {
        int r;

        if (a->hypervisor_available == (int)available)
                return;
        a->hypervisor_available = available;
        r = sd_bus_emit_properties_changed(a->bus, AGENT1_OBJECT_PATH, AGENT1_INTERFACE,
                                           "HypervisorAvailable", NULL);
        if (r < 0)
                log_warning_errno(r, "Cannot emit PropertiesChanged");
}

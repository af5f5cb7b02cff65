/* SPDX-License-Identifier: MIT */
/* A connection per agent: opened, and again after a back-off when it
 * closes; its metrics polled each control cycle (GetAllMetrics) with the
 * host's capacity; each tracker's VM as its agent sees it, into the live
 * model. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"
#include "controller/daemon/agents-internal.h"

/* A connection's back-off grows to this many control cycles, a minute at most. */
#define BACKOFF_CYCLES 32

static void link_close(AgentLink *l) {
        l->poll = sd_bus_slot_unref(l->poll);
        l->props = sd_bus_slot_unref(l->props);
        l->bus = sd_bus_close_unref(l->bus);
        l->have_capacity = false;
        l->cpus = 0;
}

Agents *agents_free(Agents *a) {
        if (!a)
                return NULL;
        for (size_t i = 0; a->links && i < a->n; i++) {
                link_close(&a->links[i]);
                free(a->links[i].vms);
        }
        free(a->links);
        agent_hosts_free(a->hosts, a->n);
        free(a);
        return NULL;
}

int agents_new(sd_event *event, Cluster *cluster, const ControllerConfig *config, Agents **ret) {
        Agents *a = calloc(1, sizeof(*a));
        char why[256];
        int r;

        if (!a)
                return -ENOMEM;
        *a = (Agents){ .event = event,
                       .cluster = cluster,
                       .call_timeout = config->agent_call_timeout,
                       .max_sample_age = config->agent_max_sample_age,
                       .not_managed_retry = config->agent_not_managed_retry };
        r = agent_hosts_parse(config->agent_hosts, &a->hosts, &a->n, why, sizeof(why));
        if (r >= 0) {
                a->links = calloc(MAX(a->n, (size_t)1), sizeof(*a->links));
                r = a->links ? 0 : -ENOMEM;
        }
        for (size_t i = 0; r >= 0 && i < a->n; i++) {
                a->links[i] = (AgentLink){ .owner = a, .host = &a->hosts[i], .id = i + 1 };
                r = backoff_init(
                        &a->links[i].backoff, config->heartbeat_interval,
                        MAX(MIN(BACKOFF_CYCLES * config->heartbeat_interval, USEC_PER_MINUTE),
                            config->heartbeat_interval));
        }
        if (r < 0) {
                agents_free(a);
                return r;
        }
        *ret = a;
        return 0;
}

AgentVm *agents_link_vm(const AgentLink *l, const char *vm) {
        for (size_t i = 0; i < l->n_vms; i++)
                if (strcasecmp(l->vms[i].uuid, vm) == 0 || strcmp(l->vms[i].name, vm) == 0)
                        return &l->vms[i];
        return NULL;
}

static bool link_fresh(const AgentLink *l, usec_t now) {
        return l->reachable && l->have_capacity && now - l->received <= l->owner->max_sample_age;
}

/* VM vm of agent l as the live model keeps it. */
static ClusterVmState vm_state(const AgentLink *l, const AgentVm *vm) {
        ClusterVmState s = {
                .host = l->id,
                .host_cpus = l->cpus,
                .host_memory = l->memory,
                .vcpus = vm->valid & AGENT1_METRIC_VCPUS ? vm->vcpus : 1,
                .vcpus_max = vm->valid & AGENT1_METRIC_VCPUS ? vm->vcpus_max : 1,
                .memory = vm->valid & AGENT1_METRIC_MEMORY ? vm->memory : 0,
                .memory_max = vm->valid & AGENT1_METRIC_MEMORY ? vm->memory_max : 0,
                .cpu_weight = vm->valid & AGENT1_METRIC_CPU_WEIGHT ? vm->cpu_weight : 0,
                .cpu_cap = vm->valid & AGENT1_METRIC_CPU_CAP ? vm->cpu_cap : 0,
                .unmanaged = vm->unmanaged,
        };

        /* The demand allocator wants both; one alone is no demand. */
        if ((vm->valid & AGENT1_METRIC_CPU_USE) && (vm->valid & AGENT1_METRIC_MEMORY_USED)) {
                s.cpu_use = vm->cpu_use;
                s.memory_used = vm->memory_used;
                s.measured_at = vm->cpu_use_at;
        }
        if (vm->valid & AGENT1_METRIC_STEAL) {
                s.has_steal = true;
                s.steal = CLAMP(vm->steal, 0.0, 1.0);
                s.steal_at = vm->steal_at;
        }
        return s;
}

/* Each node's VM as the agents see it; nothing for a VM whose agent is
 * unreachable or whose sample is too old, nor for a lost tracker's: its VM
 * is no longer its own (a new tracker of the VM has it, or no one), and
 * the policy must neither size it for the lost tracker nor count it twice
 * on its host. */
static void nodes_update(Agents *a, usec_t now) {
        for (size_t i = 0; i < a->cluster->n_nodes; i++) {
                ClusterNode *n = &a->cluster->nodes[i];
                const AgentLink *l = NULL;
                const AgentVm *vm = NULL;

                for (size_t k = 0; !vm && n->state != NODE_LOST && k < a->n; k++)
                        if (link_fresh(&a->links[k], now)) {
                                l = &a->links[k];
                                vm = agents_link_vm(l, n->vm_uuid);
                        }
                n->vm = vm ? vm_state(l, vm) : (ClusterVmState){ 0 };
        }
        cluster_nodes_changed(a->cluster);
}

const ClusterNode *agents_vm_node(const Agents *a, const AgentLink *l, const AgentVm *vm) {
        const Cluster *c = a->cluster;
        const ClusterNode *lost = NULL;

        for (size_t j = 0; j < c->n_nodes; j++) {
                if (agents_link_vm(l, c->nodes[j].vm_uuid) != vm)
                        continue;
                if (c->nodes[j].state != NODE_LOST)
                        return &c->nodes[j];
                lost = &c->nodes[j];
        }
        return lost;
}

bool agents_vm_runs(const AgentVm *vm) {
        return (vm->valid & AGENT1_METRIC_VCPUS) && vm->vcpus > 0;
}

/* The other tenants' VMs: every running VM of an agent whose sample is
 * fresh that no tracker runs in. */
static int tenants_update(Agents *a, usec_t now) {
        _cleanup_free_ ClusterTenantVm *vms = NULL;
        size_t n = 0, max = 0;

        for (size_t k = 0; k < a->n; k++)
                max += a->links[k].n_vms;
        vms = max > 0 ? calloc(max, sizeof(*vms)) : NULL;
        if (max > 0 && !vms)
                return -ENOMEM;
        for (size_t k = 0; k < a->n; k++) {
                const AgentLink *l = &a->links[k];

                for (size_t i = 0; link_fresh(l, now) && i < l->n_vms && n < max; i++) {
                        if (!agents_vm_runs(&l->vms[i]) || agents_vm_node(a, l, &l->vms[i]))
                                continue;
                        snprintf(vms[n].uuid, sizeof(vms[n].uuid), "%s", l->vms[i].uuid);
                        vms[n++].vm = vm_state(l, &l->vms[i]);
                }
        }
        return cluster_set_tenants(a->cluster, vms, n);
}

/* What the live model knows of the VMs from the agents' fresh samples. */
static void model_update(Agents *a) {
        usec_t now = now_monotonic_usec();
        int r;

        nodes_update(a, now);
        r = tenants_update(a, now);
        if (r < 0)
                log_warning_errno(r, "Cannot take the other tenants' VMs into the model");
}

static void link_down(AgentLink *l, const sd_bus_error *e, int r) {
        if (l->reachable || l->backoff.failures == 0)
                log_warning("Agent %s cannot be reached (%s: %s); its VMs' steal is their "
                            "trackers' until it answers",
                            l->host->name, e && e->name ? e->name : "connection",
                            e && e->message ? e->message : strerror(-r));
        l->reachable = false;
        /* What answers next may be another agent, on another host size. */
        l->have_capacity = false;
        l->cpus = 0;
        backoff_failed(&l->backoff, now_monotonic_usec());
        if (l->bus && !sd_bus_is_open(l->bus))
                link_close(l);
        model_update(l->owner);
}

/* One domain's metrics, of any version (proto/agent1.h). */
static int read_metrics(sd_bus_message *m, Agent1MetricsShape shape, AgentVm *ret) {
        Agent1Metrics x;
        int r;

        r = agent1_metrics_read(m, shape, &x);
        if (r <= 0)
                return r;
        if (strlen(x.uuid) >= sizeof(ret->uuid))
                return -EBADMSG;
        *ret = (AgentVm){ .vcpus = x.vcpus,
                          .vcpus_max = x.vcpus_max,
                          .memory = x.memory,
                          .memory_max = x.memory_max,
                          .cpu_use = x.cpu_use,
                          .steal = x.steal,
                          .valid = x.valid,
                          .cpu_weight = x.cpu_weight,
                          .cpu_cap = x.cpu_cap,
                          .memory_used = x.memory_used,
                          .age = (usec_t)(x.age * USEC_PER_SEC) };
        snprintf(ret->uuid, sizeof(ret->uuid), "%s", x.uuid);
        snprintf(ret->name, sizeof(ret->name), "%s", x.name);
        snprintf(ret->vcpus_target, sizeof(ret->vcpus_target), "%s", x.vcpus_target);
        snprintf(ret->memory_target, sizeof(ret->memory_target), "%s", x.memory_target);
        snprintf(ret->vcpus_target_source, sizeof(ret->vcpus_target_source), "%s",
                 x.vcpus_target_source);
        ret->guest_vcpus = x.guest_vcpus;
        snprintf(ret->guest_agent, sizeof(ret->guest_agent), "%s", x.guest_agent);
        return 1;
}

static void vm_take_rate(AgentVm *vm, unsigned bit, AgentRate r, double *value, usec_t *at) {
        *value = r.value;
        *at = r.at;
        if (r.at != 0)
                vm->valid |= bit;
        else
                vm->valid &= ~bit;
}

/* vm's CPU use and steal after a sample at now, from its own and old's. */
static void vm_keep_rates(AgentVm *vm, const AgentVm *old, usec_t now, usec_t max_age) {
        AgentRate use = { 0 }, steal = { 0 };
        usec_t measured_at = now - MIN(vm->age, now);

        if (old && (old->valid & AGENT1_METRIC_CPU_USE))
                use = (AgentRate){ .value = old->cpu_use, .at = old->cpu_use_at };
        if (old && (old->valid & AGENT1_METRIC_STEAL))
                steal = (AgentRate){ .value = old->steal, .at = old->steal_at };
        use = agent_rate_next(use, vm->valid & AGENT1_METRIC_CPU_USE, vm->cpu_use, measured_at, now,
                              max_age);
        steal = agent_rate_next(steal, vm->valid & AGENT1_METRIC_STEAL, vm->steal, measured_at, now,
                                max_age);
        vm_take_rate(vm, AGENT1_METRIC_CPU_USE, use, &vm->cpu_use, &vm->cpu_use_at);
        vm_take_rate(vm, AGENT1_METRIC_STEAL, steal, &vm->steal, &vm->steal_at);
}

bool agents_vm_carry_over(AgentVm *vm, const AgentVm *old, bool anew, usec_t now, usec_t retry) {
        bool forget = old->unmanaged && (anew || now >= old->unmanaged_at + retry);

        vm->pending = old->pending;
        vm->unmanaged = old->unmanaged && !forget;
        vm->unmanaged_at = vm->unmanaged ? old->unmanaged_at : 0;
        vm->sent = old->sent;
        vm->applied = old->applied;
        vm->failed = old->failed;
        memcpy(vm->last, old->last, sizeof(vm->last));
        return forget;
}

bool agents_link_answered_by(AgentLink *l, const char *sender) {
        const char *name = sender ? sender : "";
        bool anew = !l->reachable || strcmp(l->answered_by, name) != 0;

        snprintf(l->answered_by, sizeof(l->answered_by), "%s", name);
        return anew;
}

/* The newest sample replaces the domains, keeping what this controller
 * did to each that is still there, and the rates the sample lacks while
 * they are fresh. */
static int link_take_sample(AgentLink *l, sd_bus_message *m) {
        AgentVm *vms = NULL, vm;
        Agent1MetricsShape shape = AGENT1_METRICS_V1;
        size_t n = 0;
        uint64_t timestamp;
        usec_t now = now_realtime_usec(), now_mono = now_monotonic_usec();
        bool anew = agents_link_answered_by(l, sd_bus_message_get_sender(m));
        int r;

        r = sd_bus_message_read(m, "t", &timestamp);
        if (r >= 0)
                r = agent1_metrics_enter(m, &shape);
        while (r >= 0 && (r = read_metrics(m, shape, &vm)) > 0) {
                const AgentVm *old = agents_link_vm(l, vm.uuid);
                AgentVm *grown = realloc(vms, (n + 1) * sizeof(*vms));

                if (!grown) {
                        r = -ENOMEM;
                        break;
                }
                vms = grown;
                if (old && timestamp < old->changed_at) {
                        vm.vcpus = old->vcpus;
                        vm.memory = old->memory;
                        vm.cpu_weight = old->cpu_weight;
                        vm.cpu_cap = old->cpu_cap;
                        vm.changed_at = old->changed_at;
                }
                vm_keep_rates(&vm, old, now, l->owner->max_sample_age);
                if (old &&
                    agents_vm_carry_over(&vm, old, anew, now_mono, l->owner->not_managed_retry))
                        log_info("VM %s on agent %s: asking again whether it is managed (%s)",
                                 vm.uuid, l->host->name,
                                 anew ? "the agent answers anew" : "not-managed-retry passed");
                vms[n++] = vm;
        }
        if (r < 0) {
                free(vms);
                return r;
        }
        free(l->vms);
        l->vms = vms;
        l->n_vms = n;
        l->received = now_monotonic_usec();
        l->received_real = now;
        return 0;
}

static int call_async(AgentLink *l, sd_bus_slot **slot, sd_bus_message_handler_t handler,
                      void *userdata, const char *interface, const char *member, const char *types,
                      ...) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        va_list ap;
        int r;

        r = sd_bus_message_new_method_call(l->bus, &m, AGENT1_BUS_NAME, AGENT1_OBJECT_PATH,
                                           interface, member);
        if (r < 0)
                return r;
        va_start(ap, types);
        r = types ? sd_bus_message_appendv(m, types, ap) : 0;
        va_end(ap);
        if (r < 0)
                return r;
        return sd_bus_call_async(l->bus, slot, m, handler, userdata, l->owner->call_timeout);
}

static int on_capacity(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);

/* The host's size, which the snapshot's host needs: CPUs, then memory (two
 * constant properties; Get is simpler to read than GetAll's dictionary). */
static void link_ask_capacity(AgentLink *l) {
        if (l->props || l->have_capacity || !l->bus)
                return;
        (void)call_async(l, &l->props, on_capacity, l, "org.freedesktop.DBus.Properties", "Get",
                         "ss", AGENT1_INTERFACE, l->cpus == 0 ? "CapacityCPUs" : "CapacityMemory");
}

static int on_capacity(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        AgentLink *l = userdata;
        uint32_t cpus;
        uint64_t memory;

        l->props = sd_bus_slot_unref(l->props);
        /* An error: asked again after the next sample. */
        if (sd_bus_message_is_method_error(m, NULL))
                return 0;
        if (l->cpus == 0) {
                if (sd_bus_message_read(m, "v", "u", &cpus) >= 0 && cpus > 0) {
                        l->cpus = cpus;
                        link_ask_capacity(l);
                }
                return 0;
        }
        if (sd_bus_message_read(m, "v", "t", &memory) < 0)
                return 0;
        l->memory = memory;
        l->have_capacity = true;
        log_info("Agent %s: %u CPUs, %s for VMs, %zu domains", l->host->name, l->cpus,
                 FORMAT_SIZE(l->memory), l->n_vms);
        model_update(l->owner);
        return 0;
}

static int on_metrics(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        AgentLink *l = userdata;
        int r;

        l->poll = sd_bus_slot_unref(l->poll);
        if (sd_bus_message_is_method_error(m, NULL)) {
                link_down(l, sd_bus_message_get_error(m), -EIO);
                return 0;
        }
        r = link_take_sample(l, m);
        if (r < 0) {
                log_warning_errno(r, "Agent %s sent metrics this controller cannot read",
                                  l->host->name);
                link_down(l, NULL, r);
                return 0;
        }
        if (!l->reachable)
                log_info("Agent %s answers: %zu domains", l->host->name, l->n_vms);
        l->reachable = true;
        backoff_succeeded(&l->backoff);
        link_ask_capacity(l);
        model_update(l->owner);
        return 0;
}

static int link_connect(AgentLink *l) {
        _cleanup_(sd_bus_close_unrefp) sd_bus *bus = NULL;
        int r;

        switch (l->host->kind) {
        case AGENT_HOST_LOCAL:
                r = sd_bus_open_system(&bus);
                break;
        case AGENT_HOST_SSH:
                r = sd_bus_open_system_remote(&bus, l->host->target);
                break;
        default:
                r = sd_bus_new(&bus);
                if (r >= 0)
                        r = sd_bus_set_address(bus, l->host->target);
                if (r >= 0)
                        r = sd_bus_set_bus_client(bus, true);
                if (r >= 0)
                        r = sd_bus_start(bus);
        }
        if (r >= 0)
                r = sd_bus_attach_event(bus, l->owner->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return r;
        (void)sd_bus_set_description(bus, l->host->name);
        l->bus = TAKE_PTR(bus);
        return 0;
}

static void link_poll(AgentLink *l) {
        int r;

        if (l->poll || !backoff_due(&l->backoff, now_monotonic_usec()))
                return;
        if (l->bus && !sd_bus_is_open(l->bus))
                link_close(l);
        if (!l->bus) {
                r = link_connect(l);
                if (r < 0) {
                        link_down(l, NULL, r);
                        return;
                }
        }
        r = call_async(l, &l->poll, on_metrics, l, AGENT1_INTERFACE, "GetAllMetrics", NULL);
        if (r < 0)
                link_down(l, NULL, r);
}

void agents_refresh(Agents *a) {
        for (size_t i = 0; i < a->n; i++)
                link_poll(&a->links[i]);
        /* Samples age between polls. */
        model_update(a);
}

/* SPDX-License-Identifier: MIT */
/* VM targets through the agents (SetTarget): the VM allocator's of each
 * control cycle and an operator's ResizeVm, one on its way per VM, each
 * verdict logged and counted; and ListVms, every VM an agent reports or a
 * tracker runs. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/parse.h"
#include "controller/daemon/agents-internal.h"
#include "proto/controller1.h"
#include "proto/errors.h"

/* A SetTarget on its way: a control cycle's (request NULL) or ResizeVm's. */
typedef struct TargetCall {
        AgentLink *link;
        char uuid[UUID_TEXT_MAX];
        sd_bus_message *request;
} TargetCall;

/* ---- targets ---- */

static void target_call_free(void *userdata) {
        TargetCall *t = userdata;
        AgentVm *vm = agents_link_vm(t->link, t->uuid);

        /* Answered or not, another may go. */
        if (vm)
                vm->pending = false;
        if (t->request) {
                /* The connection went before the agent answered. */
                (void)sd_bus_reply_method_errorf(t->request, CONTROLLER1_ERROR_AGENT_UNREACHABLE,
                                                 "Agent %s went away before it answered.",
                                                 t->link->host->name);
                sd_bus_message_unref(t->request);
        }
        free(t);
}

/* One resource's verdict: "vcpus applied 2 -> 3" into buf, and the VM's
 * value after it. Returns 1 for a verdict the agent took (applied,
 * clamped, unchanged or a dry run), 2 for one it did not, 0 at the end. */
static int read_verdict(sd_bus_message *m, AgentVm *vm, char *buf, size_t size) {
        Agent1Verdict v;
        bool taken;
        int r;

        r = agent1_verdict_read(m, &v);
        if (r <= 0)
                return r;
        taken = agent1_status_taken(v.status);
        /* Until a sample says it, so that the next cycle does not send the
         * same target again. */
        if (vm && taken) {
                switch (v.resource) {
                case AGENT1_VCPUS:
                        vm->vcpus = (uint32_t)v.after;
                        break;
                case AGENT1_MEMORY:
                        vm->memory = (uint64_t)v.after;
                        break;
                case AGENT1_CPU_WEIGHT:
                        vm->cpu_weight = (uint32_t)v.after;
                        break;
                default:
                        vm->cpu_cap = v.after;
                        break;
                }
                vm->changed_at = now_realtime_usec();
        }
        snprintf(buf, size, "%s %s %.15g -> %.15g%s%s%s%s", agent1_resource_to_key(v.resource),
                 agent1_status_to_string(v.status), v.before, v.after, v.error[0] ? ", " : "",
                 v.error, v.message[0] ? ": " : "", v.message);
        return taken ? 1 : 2;
}

/* Appends s to buf, cut to fit. */
static void text_append(char *buf, size_t size, const char *s) {
        size_t used = strlen(buf), n = MIN(strlen(s), size - 1 - used);

        memcpy(buf + used, s, n);
        buf[used + n] = '\0';
}

/* The agent's answer m to a target of vm (NULL: none listed) in text;
 * whether it took every part. */
static bool target_verdicts(sd_bus_message *m, AgentVm *vm, char *text, size_t size) {
        char one[VERDICT_TEXT_MAX];
        bool all_ok = true;
        int r;

        text[0] = '\0';
        if (sd_bus_message_is_method_error(m, NULL)) {
                const sd_bus_error *e = sd_bus_message_get_error(m);

                snprintf(text, size, "%s: %s", e->name, e->message ? e->message : "");
                return false;
        }
        r = sd_bus_message_enter_container(m, 'a', "{" AGENT1_VERDICT_FIELDS "}");
        while (r >= 0 && (r = read_verdict(m, vm, one, sizeof(one))) > 0) {
                text_append(text, size, text[0] ? "; " : "");
                text_append(text, size, one);
                all_ok = all_ok && r == 1;
        }
        if (r < 0) {
                snprintf(text, size, "unreadable answer: %s", strerror(-r));
                all_ok = false;
        }
        (void)sd_bus_message_rewind(m, true);
        return all_ok;
}

void agents_target_answered(AgentLink *l, const char *uuid, bool resize, sd_bus_message *m) {
        AgentVm *vm = agents_link_vm(l, uuid);
        char text[VERDICT_TEXT_MAX];
        bool all_ok = target_verdicts(m, vm, text, sizeof(text));
        bool unmanaged = sd_bus_message_is_method_error(m, AGENT1_ERROR_NOT_MANAGED) > 0;

        if (all_ok)
                log_info("VM %s on agent %s: %s", uuid, l->host->name, text);
        else if (unmanaged)
                log_warning("VM %s on agent %s: %s (its owner opted it out: the lever leaves it "
                            "alone)",
                            uuid, l->host->name, text);
        else
                log_warning("VM %s on agent %s: %s%s", uuid, l->host->name, text,
                            resize ? "" : " (tried again next cycle)");
        if (!vm)
                return;
        vm->pending = false;
        if (unmanaged) {
                vm->unmanaged = true;
                vm->unmanaged_at = now_monotonic_usec();
        }
        if (all_ok)
                vm->applied++;
        else
                vm->failed++;
        snprintf(vm->last, sizeof(vm->last), "%s", text);
}

static int on_target(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        TargetCall *t = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        sd_bus_message *request;
        int r;

        agents_target_answered(t->link, t->uuid, t->request != NULL, m);
        request = TAKE_PTR(t->request);
        if (!request)
                return 0;
        if (sd_bus_message_is_method_error(m, NULL))
                r = sd_bus_reply_method_error(request, sd_bus_message_get_error(m));
        else {
                r = sd_bus_message_new_method_return(request, &reply);
                if (r >= 0)
                        r = sd_bus_message_copy(reply, m, true);
                if (r >= 0)
                        r = sd_bus_send(NULL, reply, NULL);
        }
        if (r < 0)
                log_warning_errno(r, "Cannot answer ResizeVm");
        sd_bus_message_unref(request);
        return 0;
}

static int target_message(AgentLink *l, const char *uuid, const AgentTarget *target,
                          sd_bus_message **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(l->bus, &m, AGENT1_BUS_NAME, AGENT1_OBJECT_PATH,
                                           AGENT1_INTERFACE, "SetTarget");
        if (r >= 0)
                r = sd_bus_message_append(m, "s", uuid);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r >= 0 && target->cpu_weight)
                r = agent1_target_entry_append(m, AGENT1_CPU_WEIGHT, target->cpu_weight);
        if (r >= 0 && target->set_cap)
                r = agent1_target_entry_append(m, AGENT1_CPU_CAP, target->cpu_cap);
        if (r >= 0 && target->vcpus)
                r = agent1_target_entry_append(m, AGENT1_VCPUS, target->vcpus);
        if (r >= 0 && target->memory)
                r = agent1_target_entry_append(m, AGENT1_MEMORY, (double)target->memory);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(m);
        return 0;
}

static int target_send(AgentLink *l, const char *uuid, const AgentTarget *target,
                       sd_bus_message *request) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        TargetCall *t;
        int r;

        r = target_message(l, uuid, target, &m);
        if (r < 0)
                return r;
        t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        t->link = l;
        snprintf(t->uuid, sizeof(t->uuid), "%s", uuid);
        r = sd_bus_call_async(l->bus, &slot, m, on_target, t, l->owner->call_timeout);
        if (r < 0) {
                free(t);
                return r;
        }
        t->request = request ? sd_bus_message_ref(request) : NULL;
        (void)sd_bus_slot_set_destroy_callback(slot, target_call_free);
        return sd_bus_slot_set_floating(slot, true);
}

void agents_apply_targets(Agents *a) {
        const Cluster *cl = a->cluster;
        const Decisions *d = &cl->decisions;

        for (size_t i = 0; i < d->n_vm_targets; i++) {
                const VmTarget *t = &d->vm_targets[i];
                const ClusterVmState *state = NULL;
                const char *uuid = cluster_vm_of(cl, t->vm, &state);
                char whose[32];
                AgentTarget target;
                AgentLink *l;
                AgentVm *vm;
                int r;

                if (!uuid || state->host == 0)
                        continue;
                l = &a->links[state->host - 1];
                vm = agents_link_vm(l, uuid);
                if (!vm || vm->pending || !agent_target_diff(t, vm, &target))
                        continue;
                if (t->vm < cl->n_nodes)
                        snprintf(whose, sizeof(whose), "node %" PRIu64, cl->nodes[t->vm].id);
                else
                        snprintf(whose, sizeof(whose), "another tenant's");
                log_info("VM %s (%s) on agent %s: target %u vCPUs, %s, CPU weight %u, cap %g",
                         vm->uuid, whose, l->host->name, t->vcpus, FORMAT_SIZE(t->memory),
                         t->cpu_weight, t->cpu_cap);
                r = target_send(l, vm->uuid, &target, NULL);
                if (r < 0) {
                        log_warning_errno(r, "Cannot send VM %s's target to agent %s", vm->uuid,
                                          l->host->name);
                        continue;
                }
                vm->pending = true;
                vm->sent++;
        }
}

/* The weight before the lever back to one VM, waited for. A VM left with
 * the lever's weight is logged as a warning with the weight to give it:
 * nothing will ask again. */
static void give_back_weight(Agents *a, uint32_t index, const ClusterLever *lever) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        const ClusterVmState *state = NULL;
        const char *uuid = cluster_vm_of(a->cluster, index, &state);
        char text[VERDICT_TEXT_MAX];
        AgentLink *l;
        AgentVm *vm;
        int r;

        if (state->host == 0)
                return;
        l = &a->links[state->host - 1];
        vm = agents_link_vm(l, uuid);
        /* Where the agent reports no weight, none was sent; where it
         * refused the VM as not managed, none was taken. */
        if (!vm || !(vm->valid & AGENT1_METRIC_CPU_WEIGHT) || vm->unmanaged)
                return;
        r = l->bus ? target_message(l, uuid, &(AgentTarget){ .cpu_weight = lever->before }, &m)
                   : -ENOTCONN;
        if (r >= 0)
                r = sd_bus_call(l->bus, m, a->call_timeout, &error, &reply);
        if (r < 0)
                snprintf(text, sizeof(text), "%s", error.message ? error.message : strerror(-r));
        if (r >= 0 && target_verdicts(reply, vm, text, sizeof(text)))
                log_info("Lever: VM %s CPU weight given back as the controller stops, through "
                         "agent %s: %s",
                         uuid, l->host->name, text);
        else
                log_warning("Lever: VM %s keeps the CPU weight the lever asked (%u), not given "
                            "back %u as the controller stops, through agent %s: %s",
                            uuid, lever->asked, lever->before, l->host->name, text);
}

void agents_give_back_weights(Agents *a) {
        Cluster *cl = a->cluster;

        for (uint32_t i = 0; i < cl->n_nodes + cl->n_tenants; i++) {
                const ClusterLever *lever = cluster_vm_lever(cl, i);

                if (lever->asked != 0 && lever->asked != lever->before)
                        give_back_weight(a, i, lever);
        }
}

/* ---- Controller1 ---- */

static bool uuid_valid(const char *s) {
        if (strlen(s) != 36)
                return false;
        for (size_t i = 0; i < 36; i++)
                if (i == 8 || i == 13 || i == 18 || i == 23
                            ? s[i] != '-'
                            : !strchr("0123456789abcdefABCDEF", s[i]))
                        return false;
        return true;
}

int agents_resize(Agents *a, sd_bus_message *m, const char *vm_text, uint32_t vcpus,
                  uint64_t memory, sd_bus_error *error) {
        const char *uuid = vm_text;
        bool unreachable = false;
        uint64_t id;
        int r;

        if (vcpus == 0 && memory == 0)
                return sd_bus_error_set(error, CONTROLLER1_ERROR_INVALID_ARGUMENT,
                                        "Nothing to change: vcpus and memory are both 0.");
        if (memory % 1024 != 0)
                return sd_bus_error_setf(error, CONTROLLER1_ERROR_INVALID_ARGUMENT,
                                         "memory %" PRIu64 " is not a multiple of 1024.", memory);
        if (parse_uint64(vm_text, 1, UINT64_MAX, &id) >= 0) {
                const ClusterNode *n = cluster_node_find(a->cluster, id);

                if (!n)
                        return sd_bus_error_setf(error, CONTROLLER1_ERROR_NO_SUCH_VM,
                                                 "No node %" PRIu64 ".", id);
                uuid = n->vm_uuid;
        } else if (!uuid_valid(vm_text))
                return sd_bus_error_setf(error, CONTROLLER1_ERROR_INVALID_ARGUMENT,
                                         "'%.64s' is neither a node id nor a VM UUID.", vm_text);
        for (size_t i = 0; i < a->n; i++) {
                AgentLink *l = &a->links[i];
                AgentVm *vm;

                if (!l->reachable) {
                        unreachable = true;
                        continue;
                }
                vm = agents_link_vm(l, uuid);
                if (!vm)
                        continue;
                r = target_send(l, vm->uuid, &(AgentTarget){ .vcpus = vcpus, .memory = memory }, m);
                if (r < 0)
                        return sd_bus_error_setf(error, CONTROLLER1_ERROR_AGENT_UNREACHABLE,
                                                 "Cannot call agent %s: %s.", l->host->name,
                                                 strerror(-r));
                vm->pending = true;
                vm->sent++;
                log_info("ResizeVm %s: %u vCPUs, %s, through agent %s", uuid, vcpus,
                         FORMAT_SIZE(memory), l->host->name);
                return 1;
        }
        if (unreachable)
                return sd_bus_error_setf(error, CONTROLLER1_ERROR_AGENT_UNREACHABLE,
                                         "No agent that answers runs VM %s, and some cannot be "
                                         "reached.",
                                         uuid);
        return sd_bus_error_setf(error, CONTROLLER1_ERROR_NO_SUCH_VM, "No agent runs VM %s.", uuid);
}

static const char *const steal_sources[] = {
        [CLUSTER_STEAL_NONE] = "none",
        [CLUSTER_STEAL_TRACKER] = "tracker",
        [CLUSTER_STEAL_TRACKER_ESTIMATE] = "tracker-estimate",
        [CLUSTER_STEAL_AGENT] = "agent",
};

/* A row of ListVms: a VM of agent l (vm, NULL for none), of tracker node n
 * (NULL for none: another tenant's, which the one loop's lever may take
 * CPU weight from). */
static int append_vm(sd_bus_message *m, const char *uuid, const ClusterNode *n, const AgentLink *l,
                     const AgentVm *vm) {
        ClusterStealSource source = CLUSTER_STEAL_NONE;
        const char *vcpus_target = "", *vcpus_target_source = "";
        double steal = 0;
        usec_t at;

        if (n)
                source = cluster_node_steal(n, &steal, &at);
        else if (vm && l->reachable && (vm->valid & AGENT1_METRIC_STEAL)) {
                source = CLUSTER_STEAL_AGENT;
                steal = vm->steal;
        }
        if (vm)
                agent_vcpus_target_shown(vm, n ? n->guest.cpus : 0, &vcpus_target,
                                         &vcpus_target_source);
        return sd_bus_message_append(
                m, CONTROLLER1_VM_TYPE, n ? n->id : 0, uuid, vm ? vm->name : "",
                l ? l->host->name : "", l && l->reachable, steal_sources[source], steal,
                vm ? vm->vcpus : 0, vm ? vm->memory : 0, vm ? vm->sent : 0, vm ? vm->applied : 0,
                vm ? vm->failed : 0, vm ? vm->last : "", n ? n->guest.cpus : 0,
                n ? n->guest.memory : 0, vcpus_target, vm ? vm->memory_target : "",
                n                          ? "tracker"
                : vm && agents_vm_runs(vm) ? "tenant"
                                           : "none",
                vm && (vm->valid & AGENT1_METRIC_CPU_WEIGHT) ? vm->cpu_weight : 0,
                vcpus_target_source, vm ? vm->guest_vcpus : 0, vm ? vm->guest_agent : "");
}

int agents_vm_guests(const Agents *a, AgentsVmGuest **ret, size_t *ret_n) {
        AgentsVmGuest *rows;
        size_t n = 0, k = 0;

        for (size_t i = 0; i < a->n; i++)
                n += a->links[i].n_vms;
        rows = calloc(MAX(n, (size_t)1), sizeof(*rows));
        if (!rows)
                return -ENOMEM;
        for (size_t i = 0; i < a->n; i++)
                for (size_t v = 0; v < a->links[i].n_vms; v++) {
                        const AgentLink *l = &a->links[i];
                        const AgentVm *vm = &l->vms[v];
                        const ClusterNode *node = agents_vm_node(a, l, vm);
                        AgentsVmGuest *row = &rows[k++];
                        const char *state;

                        *row = (AgentsVmGuest){ .uuid = vm->uuid,
                                                .name = vm->name,
                                                .agent = l->host->name,
                                                .guest_agent_vcpus = vm->guest_vcpus,
                                                .guest_agent = vm->guest_agent };
                        agent_vcpus_target_shown(vm, node ? node->guest.cpus : 0, &state,
                                                 &row->vcpus_target_source);
                }
        *ret = rows;
        *ret_n = n;
        return 0;
}

int agents_list_vms(Agents *a, sd_bus_message *m) {
        const Cluster *cl = a->cluster;
        int r;

        r = sd_bus_message_open_container(m, 'a', CONTROLLER1_VM_TYPE);
        for (size_t i = 0; r >= 0 && i < a->n; i++)
                for (size_t k = 0; r >= 0 && k < a->links[i].n_vms; k++) {
                        const AgentVm *vm = &a->links[i].vms[k];

                        r = append_vm(m, vm->uuid, agents_vm_node(a, &a->links[i], vm),
                                      &a->links[i], vm);
                }
        for (size_t j = 0; r >= 0 && j < cl->n_nodes; j++) {
                bool listed = false;

                for (size_t i = 0; !listed && i < a->n; i++)
                        listed = agents_link_vm(&a->links[i], cl->nodes[j].vm_uuid) != NULL;
                if (!listed)
                        r = append_vm(m, cl->nodes[j].vm_uuid, &cl->nodes[j], NULL, NULL);
        }
        if (r < 0)
                return r;
        return sd_bus_message_close_container(m);
}

/* SPDX-License-Identifier: MIT */
#pragma once

/* The controller's client of the hosts' agents (org.flexslot.Agent1), one
 * connection per [agents] host. Each control cycle it polls every agent's
 * metrics (GetAllMetrics, asynchronously: an agent that is slow or gone
 * never holds the event loop, and so never a heartbeat), tells the live
 * model what each tracker's VM looks like (matched by the libvirt domain
 * UUID, which is the tracker's VM UUID; a YARN node's VM by the domain
 * name or UUID the YARN driver gives), and sends the VM allocator's
 * targets to the agent that runs each VM (SetTarget; the agent applies
 * its safety limits). A connection that closes is opened again with a
 * back-off; an agent that does not answer counts as unreachable until it
 * does, and its VMs' steal is their trackers' meanwhile. Everything
 * belongs to the event loop's thread. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "agent-hosts.h"
#include "agent-rate.h"
#include "cluster.h"
#include "controllerd-config.h"
#include "common/time-util.h"

typedef struct Agents Agents;

/* The agents of config's [agents] hosts, none connected yet; cluster (not
 * owned) is the live model whose nodes they describe. */
int agents_new(sd_event *event, Cluster *cluster, const ControllerConfig *config, Agents **ret);
Agents *agents_free(Agents *a);

/* One control cycle's part: connects what is due, polls, and fills each
 * node's ClusterVmState from the newest fresh samples. */
void agents_refresh(Agents *a);
/* Sends the VM targets of the control step just run (cluster_control()):
 * what differs from what the VM has of vCPUs, memory, and CPU weight and
 * cap where the agent reports them; one on its way per VM at most. A
 * refusal or failure is logged, counted, and sent again next cycle. */
void agents_apply_targets(Agents *a);
/* Gives each VM whose CPU weight the one loop's lever changed the weight it
 * had before, waiting for each agent's answer (at most its call timeout):
 * for a controller that stops, which would otherwise leave another
 * tenant's VMs throttled. A VM whose agent cannot be reached keeps its
 * weight, logged as a warning. */
void agents_give_back_weights(Agents *a);

/* ResizeVm: vm is a node id or a VM UUID; vcpus 0 and memory 0 leave that
 * resource alone. Replies to m (now or when the agent answers). */
int agents_resize(Agents *a, sd_bus_message *m, const char *vm, uint32_t vcpus, uint64_t memory,
                  sd_bus_error *error);

/* Appends the array of every VM an agent reports or a tracker runs
 * (CONTROLLER1_VM_TYPE). */
int agents_list_vms(Agents *a, sd_bus_message *m);

/* What ListVms shows of a VM an agent reports about its vCPU target and
 * its guest agent, for the metrics. The strings are the agents' until
 * their next refresh. */
typedef struct AgentsVmGuest {
        const char *uuid, *name, *agent;
        const char *vcpus_target_source; /* whose count decided the last vCPU target; "": none */
        uint32_t guest_agent_vcpus;      /* online as the guest agent counted them; 0: not */
        const char *guest_agent;         /* what became of the question to it; "": not asked */
} AgentsVmGuest;

/* One row per VM the agents report, in *ret (to free()), and how many in
 * *ret_n: -ENOMEM. */
int agents_vm_guests(const Agents *a, AgentsVmGuest **ret, size_t *ret_n);

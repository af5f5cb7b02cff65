/* SPDX-License-Identifier: MIT */
#pragma once

/* What the agents' client shares between its files (agents.h is its API):
 * agent-link.c keeps a connection per agent, polls its metrics and tells
 * the live model; agent-targets.c sends VM targets (a control cycle's and
 * ResizeVm's) and answers ListVms. The targets' file calls the links'; the
 * links' calls nothing of the targets'. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "common/backoff.h"
#include "controller/daemon/agents.h"
#include "proto/agent1.h"

#define UUID_TEXT_MAX 37
#define DOMAIN_NAME_MAX 256
#define VERDICT_TEXT_MAX 256

typedef struct AgentVm {
        char uuid[UUID_TEXT_MAX], name[DOMAIN_NAME_MAX];
        unsigned valid; /* Agent1MetricValid */
        uint32_t vcpus, vcpus_max, cpu_weight;
        uint64_t memory, memory_max, memory_used;
        double cpu_use, steal, cpu_cap;
        /* Realtime of the samples that measured cpu_use and steal, which
         * may be older than the newest sample (agent_rate_next). */
        usec_t cpu_use_at, steal_at;
        /* How long before its sample the agent measured the oldest value
         * (Agent1 field 14; 0 from a version 1 agent). */
        usec_t age;
        bool pending; /* a target of ours is on its way */
        /* The agent refused a target because the VM's owner opted it out
         * (NotManaged): the policy step sees it as Vm.unmanaged, and the
         * lever leaves it alone. Kept while the agent reports the VM, until
         * agents_vm_carry_over() forgets it. */
        bool unmanaged;
        usec_t unmanaged_at; /* monotonic: when the agent refused */
        /* A sample older than this (realtime) predates the last target the
         * agent took, whose values stand until a newer one. */
        usec_t changed_at;
        unsigned sent, applied, failed;
        char last[VERDICT_TEXT_MAX]; /* what the agent said of the last target */
        /* Whether the VM shows the agent's last vCPU and memory target
         * (Agent1 fields 15 and 16: AGENT1_TARGET_*, "" for none or from an
         * agent before version 4). */
        char vcpus_target[16], memory_target[16];
        /* Whose count decided vcpus_target, the guest agent's count of
         * vCPUs online and what became of the question to it (Agent1
         * fields 17-19; "", 0 and "" from an agent before version 5). */
        char vcpus_target_source[16];
        uint32_t guest_vcpus;
        char guest_agent[16];
} AgentVm;

/* What to change of a VM: the resources that are not 0 (the cap: when
 * set_cap). */
typedef struct AgentTarget {
        uint32_t vcpus, cpu_weight;
        uint64_t memory;
        bool set_cap;
        double cpu_cap;
} AgentTarget;

/* A CPU weight's dead band: a target weight is sent only when it differs
 * from the VM's by more than a tenth of it, and by more than the agent's
 * default min-cpu-weight-change. A weight sets a contended VM's share in
 * proportion, so a change within a tenth moves the share by less than the
 * noise of the use and slot counts a weight is computed from: without the
 * band the flexslot allocator re-sent a slightly different weight almost
 * every control cycle (280 targets in one make demo-vm), each a libvirt
 * call and a log line, and changed nothing a job could see. */
#define AGENT_WEIGHT_DEAD_BAND_INVERSE 10u
#define AGENT_WEIGHT_DEAD_BAND_MIN 16u

bool agent_weight_changed(uint32_t target, uint32_t current);
/* The vCPU target's state as ListVms shows it, and whose count decided it
 * (static strings). The guest agent's count is the guest kernel's own, and
 * stands. Without it the agent counts the vCPUs libvirt has plugged, and
 * the VM's tracker, where it reports the CPUs online in its guest
 * (guest_cpus > 0), has the last word on a target the agent saw reached: a
 * hot-added vCPU the guest's kernel did not online runs nothing. */
void agent_vcpus_target_shown(const AgentVm *vm, uint32_t guest_cpus, const char **ret_state,
                              const char **ret_source);
/* What vm, the new sample's VM, keeps of what this controller did to old,
 * the same VM in the last sample: a target on its way, the answers' counts
 * and the last, and a NotManaged refusal. The refusal is forgotten, so that
 * the next target asks again, once it is retry old at now (monotonic) or
 * when the agent answers anew (agents_link_answered_by()): the owner may
 * have opted the VM back in, and an operator who did expects it managed
 * without a restart of the controller. Whether a refusal was forgotten. */
bool agents_vm_carry_over(AgentVm *vm, const AgentVm *old, bool anew, usec_t now, usec_t retry);
/* The part of t that differs from what vm has, in ret; the CPU weight and
 * cap only where the agent reports them (libvirt's test driver has
 * neither). Whether anything does. */
bool agent_target_diff(const VmTarget *t, const AgentVm *vm, AgentTarget *ret);

typedef struct AgentLink {
        Agents *owner;
        const AgentHost *host;
        uint64_t id; /* the snapshot's host id, > 0 */
        sd_bus *bus;
        sd_bus_slot *poll, *props;
        Backoff backoff;
        bool reachable, have_capacity;
        unsigned cpus;
        uint64_t memory;
        AgentVm *vms; /* the newest sample's domains */
        size_t n_vms;
        usec_t received;      /* monotonic */
        usec_t received_real; /* realtime */
        /* The bus name of the agent that answered last (unique: a
         * restarted agent has another); "" on a direct connection. */
        char answered_by[256];
} AgentLink;

struct Agents {
        sd_event *event;
        Cluster *cluster; /* not owned */
        AgentHost *hosts;
        AgentLink *links;
        size_t n;
        usec_t call_timeout, max_sample_age;
        usec_t not_managed_retry;
};

/* The agent's answer m to a target of VM uuid of agent l (ResizeVm's when
 * resize): logged, counted in the VM's ListVms columns, and a NotManaged
 * refusal kept as AgentVm.unmanaged. */
void agents_target_answered(AgentLink *l, const char *uuid, bool resize, sd_bus_message *m);

/* Records sender (NULL: a direct connection) as the agent that answers l,
 * and whether it answers anew: l was unreachable, or another agent
 * answers (restarted, or started again under the same name). */
bool agents_link_answered_by(AgentLink *l, const char *sender);
/* The VM of UUID or domain name vm in l's newest sample (a tracker's VM
 * is its UUID; a YARN node's, the name or UUID the YARN driver matched it
 * to); NULL when it has none. */
AgentVm *agents_link_vm(const AgentLink *l, const char *vm);
/* Whether vm runs: one that does not uses no CPU for the lever to take. */
bool agents_vm_runs(const AgentVm *vm);
/* The tracker that runs in vm of agent l, one that is not lost if any;
 * NULL: none, another tenant's when it runs. */
const ClusterNode *agents_vm_node(const Agents *a, const AgentLink *l, const AgentVm *vm);

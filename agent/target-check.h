/* SPDX-License-Identifier: MIT */
#pragma once

/* Whether a change took: libvirt answers a vCPU hotplug or a balloon
 * change once it asked the guest, not once the guest complied. After a
 * vCPU or memory change the agent expects the domain to show the value
 * within a grace period ([agent] target-grace), and judges the first
 * sample measured after it: a target not reached is a per-VM state the
 * log and the metrics show until a sample shows it or the next change of
 * that resource replaces it, and the metrics (Agent1's fields 15 and 16)
 * carry with each sample. Pure: the caller hands in the samples.
 *
 * A vCPU counts once libvirt has plugged it, whether or not the guest's
 * kernel onlines it. Where the domain's guest agent answers (the caller
 * asks it off the sampling thread: guest-agent.h, and stamps its answers
 * into the samples), its count of vCPUs online measured after the grace
 * decides, and the state says so (AGENT_SOURCE_GUEST_AGENT); without one,
 * the hypervisor's count decides (AGENT_SOURCE_HYPERVISOR), and a later
 * answer of the guest agent may still overturn it. A target the guest
 * agent showed reached is settled; one it showed unreached it is asked
 * about again, every AGENT_GUEST_AGENT_RETRY, as is one it could not
 * answer about, except where no guest agent can ever answer until the
 * domain changes (no guest agent channel, a hypervisor that cannot ask
 * one): that is asked once per change. */

#include <stddef.h>
#include <stdint.h>

#include "actuation/actuation.h"
#include "collector.h"
#include "guest-agent.h"

/* How soon a domain's guest agent is asked again about a vCPU target it
 * did not show reached, or could not answer about. */
#define AGENT_GUEST_AGENT_RETRY (5 * USEC_PER_SEC)

typedef struct AgentTargetCheck {
        char uuid[HV_UUID_STRING_MAX];
        char name[HV_NAME_MAX];
        ActResource resource; /* ACT_VCPUS or ACT_MEMORY */
        uint64_t target;      /* vCPUs or bytes */
        uint64_t seen;        /* what the last judged sample showed */
        usec_t due;           /* monotonic */
        uint64_t decision;    /* the decision journal's number of the change */
        AgentTargetState state;
        AgentTargetSource source; /* which count decided state */
        usec_t guest_asked;       /* monotonic: when its guest agent was last asked; 0 never */
        /* What its guest agent said last, since the change. */
        AgentGuestAgentState guest_agent;
} AgentTargetCheck;

typedef struct AgentTargetChecks {
        AgentTargetCheck *items;
        size_t n;
} AgentTargetChecks;

/* Expects the domain's resource at target from due on, replacing what was
 * expected of that resource before. -ENOMEM. */
int agent_target_expect(AgentTargetChecks *c, const char *uuid, const char *name,
                        ActResource resource, uint64_t target, usec_t due, uint64_t decision);
/* Judges the pending and unreached checks against s, with values measured
 * at or after their due time, and calls report for each whose state
 * changed. A domain gone from s drops its checks. */
void agent_target_checks_judge(AgentTargetChecks *c, const AgentSnapshot *s,
                               void (*report)(const AgentTargetCheck *check, void *userdata),
                               void *userdata);
/* The vCPU checks whose domain's guest agent is due a question at now (past
 * their due time, not settled by the guest agent, not asked within
 * AGENT_GUEST_AGENT_RETRY, with a guest agent that may answer), marked
 * asked, as queries in a new array of
 * *ret_n (NULL and 0 for none). -ENOMEM. */
int agent_target_checks_guest_queries(AgentTargetChecks *c, usec_t now, AgentGuestQuery **ret,
                                      size_t *ret_n);
/* Writes each check's state into its domain of s (AgentDomain.vcpus_target
 * and memory_target, vcpus_target_source), for the metrics of the sample
 * that judged them. */
void agent_target_checks_stamp(const AgentTargetChecks *c, AgentSnapshot *s);
void agent_target_checks_done(AgentTargetChecks *c);
/* Agent1's word for s (proto/agent1.h's AGENT1_TARGET_*), "" for none. */
const char *agent_target_state_to_string(AgentTargetState s);
/* Agent1's word for s (AGENT1_SOURCE_*), "" for none. */
const char *agent_target_source_to_string(AgentTargetSource s);

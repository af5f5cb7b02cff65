/* SPDX-License-Identifier: MIT */
#pragma once

/* Whether a change took: libvirt answers a vCPU hotplug or a balloon
 * change once it asked the guest, not once the guest complied. After a
 * vCPU or memory change the agent expects the domain to show the value
 * within a grace period ([agent] target-grace), and judges the first
 * sample measured after it: a target not reached is a per-VM state the
 * log and the metrics show until a sample shows it or the next change of
 * that resource replaces it, and the metrics (Agent1's fields 15 and 16)
 * carry with each sample. Pure: the caller hands in the samples. */

#include <stddef.h>
#include <stdint.h>

#include "actuation/actuation.h"
#include "collector.h"

typedef struct AgentTargetCheck {
        char uuid[HV_UUID_STRING_MAX];
        char name[HV_NAME_MAX];
        ActResource resource; /* ACT_VCPUS or ACT_MEMORY */
        uint64_t target;      /* vCPUs or bytes */
        uint64_t seen;        /* what the last judged sample showed */
        usec_t due;           /* monotonic */
        uint64_t decision;    /* the decision journal's number of the change */
        AgentTargetState state;
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
/* Writes each check's state into its domain of s (AgentDomain.vcpus_target
 * and memory_target), for the metrics of the sample that judged them. */
void agent_target_checks_stamp(const AgentTargetChecks *c, AgentSnapshot *s);
void agent_target_checks_done(AgentTargetChecks *c);
/* Agent1's word for s (proto/agent1.h's AGENT1_TARGET_*), "" for none. */
const char *agent_target_state_to_string(AgentTargetState s);

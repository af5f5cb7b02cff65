/* SPDX-License-Identifier: MIT */
#pragma once

/* Whether a change took: libvirt answers a vCPU hotplug or a balloon
 * change once it asked the guest, not once the guest complied. After a
 * vCPU or memory change the agent expects the domain to show the value
 * within a grace period ([agent] target-grace), and judges the first
 * sample measured after it: a target not reached is a per-VM state the
 * log and the metrics show until a sample shows it or the next change of
 * that resource replaces it. Pure: the caller hands in the samples. */

#include <stddef.h>
#include <stdint.h>

#include "actuation/actuation.h"
#include "collector.h"

typedef enum AgentTargetState {
        AGENT_TARGET_PENDING,   /* within its grace period, or not measured since */
        AGENT_TARGET_REACHED,   /* a sample after the grace period showed it */
        AGENT_TARGET_UNREACHED, /* the first sample after it did not */
} AgentTargetState;

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
void agent_target_checks_done(AgentTargetChecks *c);
const char *agent_target_state_to_string(AgentTargetState s);

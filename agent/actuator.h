/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actuation/actuation.h"
#include "balloon-guard.h"
#include "hypervisor/hypervisor.h"

/* The agent's actuator: applies VM targets within the actuation contract's
 * limits (actuation/actuation.h), on a libvirt connection of its own, owned
 * by the change worker thread once the daemon runs: a change stuck in
 * libvirt waits there while the collector (agent/collector.h) keeps
 * sampling on its connection. */

typedef enum AgentChangeStatus {
        AGENT_CHANGE_NOT_ASKED,
        AGENT_CHANGE_APPLIED,   /* as asked */
        AGENT_CHANGE_CLAMPED,   /* applied within the limits: see outcome.rule */
        AGENT_CHANGE_UNCHANGED, /* already at the requested value */
        AGENT_CHANGE_DRY_RUN,   /* allowed (perhaps clamped), logged, not applied */
        AGENT_CHANGE_REFUSED,   /* by a safety rule: see outcome.rule */
        AGENT_CHANGE_FAILED,    /* by the hypervisor: see error */
} AgentChangeStatus;

/* One resource of a change. Values in the contract's units: cpu_shares,
 * vCPUs, milli-CPUs (ACT_CAP_NONE: no cap), bytes. */
typedef struct AgentResourceChange {
        AgentChangeStatus status;
        ActOutcome outcome;
        AgentGuard guard;  /* for a refusal by the balloon guard, not a limit */
        int error;         /* negative errno, for AGENT_CHANGE_FAILED */
        char message[256]; /* why it was clamped, refused or failed */
        uint64_t before, after;
} AgentResourceChange;

typedef struct AgentChange {
        /* In: */
        char domain[HV_NAME_MAX];
        ActTarget target;
        unsigned flags; /* ActFlags: ACT_STRICT refuses what it would clamp */
        /* What the host's other running domains hold, from the last sample. */
        uint64_t others_vcpus, others_memory;
        /* The domain's AgentGuestMemory bits, from the last sample. */
        unsigned guest_memory;
        /* Out: */
        int error;         /* negative errno when nothing could be decided */
        char message[512]; /* ... and why: no such domain, not running, no connection */
        char name[HV_NAME_MAX];
        char uuid[HV_UUID_STRING_MAX];
        /* The limits the target was decided under (the agent's narrowed by
         * the VM's metadata), as the decision journal shows them; "" when
         * nothing was decided. */
        char limits[512];
        AgentResourceChange r[_ACT_RESOURCE_MAX];
} AgentChange;

typedef struct AgentChangeRecord {
        char uuid[HV_UUID_STRING_MAX];
        ActHistory history;
} AgentChangeRecord;

typedef struct AgentActuator {
        char *uri;
        HvConnection *conn; /* opened by the first change, on the worker thread */
        ActLimits limits;
        ActHost capacity; /* the host's cpus and memory */
        bool dry_run;
        /* Shrinks a guest's memory only when the last sample has fresh
         * memory statistics from it, its major faults and swap-in did
         * not grow, and its cgroup's memory pressure (where cgroup v2 gives
         * it) is within balloon_guard_pressure ([agent] balloon-guard,
         * balloon-guard-pressure, balloon-guard-full-pressure;
         * balloon-guard.h). */
        bool balloon_guard;
        AgentPressureLimits balloon_guard_pressure;
        /* When each resource of each domain was last changed: the domains
         * changed within the rate limit's interval. */
        AgentChangeRecord *records;
        size_t n_records;
        /* For tests: the clock of the rate limit. NULL: monotonic. */
        usec_t (*clock)(void);
} AgentActuator;

int agent_actuator_init(AgentActuator *a, const char *uri, const ActLimits *limits,
                        const ActHost *capacity, bool dry_run);
void agent_actuator_done(AgentActuator *a);

/* Decides on every resource of c->target with the domain's current values,
 * applies what may be applied (vCPUs before the cap, whose quota is per
 * vCPU; a cap the target leaves alone is kept across a vCPU change) unless
 * in dry-run mode, and reads each value back. Returns 0 with the outcome in
 * c, for the caller to answer and log with who asked; a negative errno only
 * when the outcome cannot be recorded. */
int agent_actuator_change(AgentActuator *a, AgentChange *c);

/* The message of Agent1's Error.NoSuchDomain, without a final period: one
 * text whichever method finds the domain missing. Returns buf. */
char *agent_error_no_domain(char *buf, size_t size, const char *domain);

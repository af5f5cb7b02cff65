/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hypervisor/hypervisor.h"
#include "safety.h"

/* The agent's hypervisor side: everything that calls libvirt. An AgentHost
 * is owned by the worker thread (see worker.h) once the daemon runs; its
 * results are self-contained values the event loop may keep. */

/* One domain in one sample. Metrics with no value this round (see
 * HvDomainMetrics.valid) are reported as -1 (rates) or 0 (sizes). */
typedef struct AgentDomain {
        char name[HV_NAME_MAX];
        char uuid[HV_UUID_STRING_MAX];
        HvDomainMetrics metrics;
} AgentDomain;

/* Every domain at one moment; immutable once made, so the event loop can
 * keep it in its history and answer from it while libvirt is busy. */
typedef struct AgentSnapshot {
        usec_t realtime; /* when it was taken, for people */
        size_t n_domains;
        AgentDomain domains[];
} AgentSnapshot;

/* A domain by name or UUID, or NULL. */
const AgentDomain *agent_snapshot_find(const AgentSnapshot *s, const char *domain);

typedef struct AgentChangeRecord {
        char uuid[HV_UUID_STRING_MAX];
        usec_t when;
} AgentChangeRecord;

typedef struct AgentHost {
        char *uri;
        HvConnection *conn; /* opened by the first call, on the worker thread */
        AgentLimits limits;
        bool dry_run;
        bool allow_vcpu_unplug;
        /* Last sample's counters, for the rates of the next one. */
        HvDomainSample *prev;
        size_t n_prev;
        /* Last sample's domains, for what the host's VMs hold together. */
        AgentSnapshot *latest;
        /* When each domain was last changed, for the rate limit. */
        AgentChangeRecord *changes;
        size_t n_changes;
        /* Whether the last sample failed: only the first failure of a run
         * is a warning, the others would repeat it every interval. */
        bool sample_failing;
        /* For tests: the clock of the rate limit. NULL: monotonic. */
        usec_t (*clock)(void);
} AgentHost;

int agent_host_init(AgentHost *h, const char *uri, const AgentLimits *limits, bool dry_run,
                    bool allow_vcpu_unplug);
void agent_host_done(AgentHost *h);

/* Samples every domain with one bulk call (plus one info call per running
 * domain whose driver gives no vCPU or balloon counters, like libvirt's test
 * driver). */
int agent_host_sample(AgentHost *h, AgentSnapshot **ret);

typedef enum AgentChangeStatus {
        AGENT_CHANGE_APPLIED,
        AGENT_CHANGE_UNCHANGED, /* already at the requested value */
        AGENT_CHANGE_DRY_RUN,   /* allowed, logged, not applied */
        AGENT_CHANGE_REFUSED,   /* by a safety rule: see verdict */
        AGENT_CHANGE_FAILED,    /* by the hypervisor: see error */
} AgentChangeStatus;

typedef struct AgentChange {
        /* In: */
        SafetyResource resource;
        char domain[HV_NAME_MAX];
        uint64_t requested; /* vCPUs, bytes, or cpu_shares */
        /* Out: */
        AgentChangeStatus status;
        SafetyVerdict verdict;
        int error;            /* negative errno, for AGENT_CHANGE_FAILED */
        char message[512];    /* why it was refused or failed */
        char name[HV_NAME_MAX];
        uint64_t before, after;
} AgentChange;

/* Checks one change against the limits with the domain's current values and
 * applies it unless refused or in dry-run mode, and reads the value back.
 * Returns 0 with the outcome in c, for the caller to answer and log with
 * who asked. */
int agent_host_change(AgentHost *h, AgentChange *c);

/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actuation/actuation.h"
#include "hypervisor/hypervisor.h"

/* The agent's collector: samples every domain of the host on a connection
 * of its own, owned by the sampling worker thread (see worker.h) once the
 * daemon runs, so that a change stuck in libvirt (agent/actuator.h, on
 * another connection) never holds up a sample. Its results are
 * self-contained values the event loop may keep. */

/* Settings of a domain that the bulk call does not give (AgentDomain). */
typedef enum AgentSetting {
        AGENT_SETTING_CPU_WEIGHT = 1u << 0,
        AGENT_SETTING_CPU_CAP = 1u << 1,
        AGENT_SETTINGS_ALL = AGENT_SETTING_CPU_WEIGHT | AGENT_SETTING_CPU_CAP,
} AgentSetting;

/* Settings are read per domain, not in the bulk call: when the collector
 * first sees the domain running, after the agent changed them, and when the
 * last reading is this old (a change made behind the agent's back, with
 * virsh say, shows within it). A domain seen for less than this whose
 * reading failed or lacked its weight or cap is read again at every sample:
 * a guest that has just been created answers before libvirt has its vCPUs'
 * cgroups, and waiting out the age left real guests without a cap for
 * about 47 s after their trackers registered (demo/vmexp.sh). */
#define AGENT_SETTINGS_MAX_AGE (60 * USEC_PER_SEC)

/* What the newest samples say of a guest's memory, for the shrink guard
 * (agent/actuator.h): each compares the sample with the one before. */
typedef enum AgentGuestMemory {
        /* The guest reported memory statistics between the two samples
         * (balloon.last-update moved: it has a balloon stats period). */
        AGENT_GUEST_STATS_FRESH = 1u << 0,
        /* Its major faults or swap-in grew between them. */
        AGENT_GUEST_PRESSURE_RISING = 1u << 1,
} AgentGuestMemory;

/* The AgentGuestMemory bits of cur against prev, the domain's sample before
 * (NULL: none). Pure. */
unsigned agent_guest_memory(const HvDomainSample *prev, const HvDomainSample *cur);

/* Whether a domain shows a vCPU or memory target the agent applied
 * (target-check.h judges it). */
typedef enum AgentTargetState {
        AGENT_TARGET_NONE,      /* none applied since the agent started */
        AGENT_TARGET_PENDING,   /* within its grace period, or not measured since */
        AGENT_TARGET_REACHED,   /* a sample after the grace period showed it */
        AGENT_TARGET_UNREACHED, /* the first sample after it did not */
} AgentTargetState;

/* Which count decided a vCPU target's state (target-check.h). */
typedef enum AgentTargetSource {
        AGENT_SOURCE_NONE,        /* not decided yet, or no target */
        AGENT_SOURCE_HYPERVISOR,  /* the vCPUs libvirt has plugged */
        AGENT_SOURCE_GUEST_AGENT, /* the vCPUs the guest's kernel has online */
} AgentTargetSource;

/* What became of the last question to a domain's guest agent
 * (guest-agent.h). */
typedef enum AgentGuestAgentState {
        AGENT_GUEST_AGENT_NOT_ASKED,
        AGENT_GUEST_AGENT_ANSWERED,
        AGENT_GUEST_AGENT_NONE,         /* the domain has no guest agent channel */
        AGENT_GUEST_AGENT_UNRESPONSIVE, /* none listens, or no answer in time */
        AGENT_GUEST_AGENT_UNSUPPORTED,  /* the hypervisor cannot ask a guest */
        AGENT_GUEST_AGENT_FAILED,       /* anything else */
        _AGENT_GUEST_AGENT_STATE_MAX,
} AgentGuestAgentState;

/* The guest agent's count of vCPUs online in the guest: online is known
 * only when state is AGENT_GUEST_AGENT_ANSWERED, and never guessed
 * otherwise. */
typedef struct AgentGuestVcpus {
        AgentGuestAgentState state;
        unsigned online;
        usec_t measured; /* monotonic: when the answer (or the failure) came */
} AgentGuestVcpus;

/* The kinds of metric a domain has, one per HvMetricValid bit. */
#define AGENT_METRIC_KINDS 6

/* One domain in one sample. A metric the hypervisor did not answer this
 * round keeps the value of the round that last measured it, with that
 * round's time: a domain busy in a job (migration, shutdown), which the
 * bulk call answers without its counters, loses no value, only freshness.
 * A metric never measured has its HvDomainMetrics.valid bit clear: unknown,
 * reported as -1 (rates) or 0 (sizes) beside the bit, never as a value. */
typedef struct AgentDomain {
        char name[HV_NAME_MAX];
        char uuid[HV_UUID_STRING_MAX];
        HvDomainMetrics metrics;
        /* Monotonic time each valid metric was measured, by HvMetricValid
         * bit number. */
        usec_t measured[AGENT_METRIC_KINDS];
        /* How long before this sample its oldest valid metric was measured:
         * 0 when the round measured all of them. */
        usec_t age_usec;
        /* Rounds in a row, and in all, that skipped the domain: answered
         * without counters it had had (VIR_CONNECT_GET_ALL_DOMAINS_STATS_NOWAIT
         * skipped what needs its job), or found it paused for a libvirt job
         * (migration, save, dump, snapshot), whose rates are the job's and
         * not its load. */
        unsigned skipped_rounds;
        uint64_t skipped_total;
        /* The job it is paused for (hv_sample_paused_job()), "" for none. */
        char job[16];
        unsigned guest_memory; /* AgentGuestMemory bits */
        /* Its last vCPU and memory target as this sample judged them, and
         * which count decided the vCPUs'. */
        AgentTargetState vcpus_target, memory_target;
        AgentTargetSource vcpus_target_source;
        /* What its guest agent last said of its vCPUs: asked only after a
         * vCPU change, off the sampling thread (guest-agent.h). */
        AgentGuestVcpus guest_vcpus;
        unsigned settings; /* AgentSetting bits: which of the below are known */
        uint64_t cpu_weight;
        /* The scheduler's figures, kept so that a cap set as a quota per
         * vCPU follows the vCPU count of every sample. */
        int64_t vcpu_quota_usec; /* <= 0: no cap */
        uint64_t vcpu_period_usec;
        int64_t global_quota_usec; /* the whole domain's; <= 0: no cap */
        uint64_t global_period_usec;
        usec_t settings_read; /* monotonic */
        usec_t first_seen;    /* monotonic: the first sample that had the domain */
} AgentDomain;

/* The cap of a domain in the actuation contract's unit (milli-CPUs,
 * ACT_CAP_NONE) from a quota for each of vcpus (1 for the whole domain's);
 * meaningful with AGENT_SETTING_CPU_CAP. */
uint64_t agent_cap_from_quota(int64_t quota_usec, uint64_t period_usec, unsigned vcpus);
/* From the whole domain's quota and the quota per vCPU together: where
 * both are set (one set by hand beside the agent's), the smaller binds. */
uint64_t agent_cap_from_quotas(int64_t global_quota_usec, uint64_t global_period_usec,
                               int64_t vcpu_quota_usec, uint64_t vcpu_period_usec, unsigned vcpus);
uint64_t agent_cap_from_info(const HvDomainInfo *info);
uint64_t agent_domain_cpu_cap(const AgentDomain *d);

/* Every domain at one moment; immutable once made, so the event loop can
 * keep it in its history and answer from it while libvirt is busy. */
typedef struct AgentSnapshot {
        usec_t realtime; /* when it was taken, for people */
        size_t n_domains;
        AgentDomain domains[];
} AgentSnapshot;

/* A domain by name or UUID, or NULL. */
const AgentDomain *agent_snapshot_find(const AgentSnapshot *s, const char *domain);
/* The AgentGuestMemory bits of domain in s; 0 when s is NULL or has no
 * such domain. */
unsigned agent_snapshot_guest_memory(const AgentSnapshot *s, const char *domain);

/* What the running domains of s other than domain (a name or UUID) hold;
 * s may be NULL (nothing known yet). */
void agent_snapshot_others(const AgentSnapshot *s, const char *domain, uint64_t *ret_vcpus,
                           uint64_t *ret_memory);

/* UUIDs whose settings the agent changed since the collector last read
 * them. */
typedef struct AgentStale {
        char (*uuids)[HV_UUID_STRING_MAX];
        size_t n;
} AgentStale;

/* Adds uuid, even if it is there already: a sample in flight may have read
 * the domain before this change, and forgets only what it was handed. */
int agent_stale_add(AgentStale *s, const char *uuid);
/* Forgets the first n, which a sample has read again. */
void agent_stale_drop(AgentStale *s, size_t n);
/* A copy for a sample job. */
int agent_stale_copy(const AgentStale *s, AgentStale *ret);
void agent_stale_done(AgentStale *s);

typedef struct AgentCollector {
        char *uri;
        HvConnection *conn; /* opened by the first sample, on the worker thread */
        /* Last sample's counters, for the rates of the next one. */
        HvDomainSample *prev;
        size_t n_prev;
        /* Last sample's domains, whose settings carry over. */
        AgentSnapshot *latest;
        /* Whether the last sample failed: only the first failure of a run
         * is a warning, the others would repeat it every interval. */
        bool sample_failing;
        /* For tests: the clock of the settings' age. NULL: monotonic. */
        usec_t (*clock)(void);
} AgentCollector;

int agent_collector_init(AgentCollector *c, const char *uri);
void agent_collector_done(AgentCollector *c);

/* Samples every domain with one bulk call, plus one info call per running
 * domain whose driver gives no vCPU or balloon counters (libvirt's test
 * driver) or whose settings are due (AGENT_SETTINGS_MAX_AGE; stale may be
 * NULL). */
int agent_collector_sample(AgentCollector *c, const AgentStale *stale, AgentSnapshot **ret);

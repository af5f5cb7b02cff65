/* SPDX-License-Identifier: MIT */
#pragma once

/* org.flexslot.Agent1: flexslot-agentd's interface, on the host's system
 * bus (flexslot-agentd(8) has every method), for the agent and its
 * clients. Error names: errors.h. Its Version property (u) is
 * AGENT1_VERSION, the revision of Agent1 the agent speaks. */

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-bus.h>

#define AGENT1_BUS_NAME "org.flexslot.Agent1"
#define AGENT1_OBJECT_PATH "/org/flexslot/Agent1"
#define AGENT1_INTERFACE "org.flexslot.Agent1"
#define AGENT1_VERSION 5u

/* ListDecisions(t since) -> AGENT1_DECISIONS_TYPE (version 3): the change
 * requests the agent still keeps numbered above since (0: all), oldest
 * first, field by field:
 *    1 t  number (1, 2, ...)     7 s  arguments after the domain
 *    2 t  time (usec, realtime)  8 s  limits applied ("" when none were)
 *    3 s  method                 9 s  verdict: applied, clamped, unchanged,
 *    4 s  caller's unique name          dry-run, refused, failed, denied, ...
 *    5 u  caller's uid          10 s  error name, "" for none
 *         (2^32-1: unknown)     11 b  dry run
 *    6 s  domain                12 s  the whole verdict, resource by resource
 * A target of several resources has the verdict of the one furthest from
 * what was asked. */
#define AGENT1_DECISION_TYPE "(ttssusssssbs)"
#define AGENT1_DECISIONS_TYPE "a" AGENT1_DECISION_TYPE

/* The metrics of one domain: the struct GetMetrics, GetAllMetrics,
 * GetHistory and the Sample signal carry, field by field:
 *    1 s  name            6 t  memory (bytes)       11 u  cpu-weight (cpu_shares)
 *    2 s  UUID            7 t  maximum memory       12 d  cpu-cap (CPUs; 0: none)
 *    3 s  state           8 d  CPU use (CPUs)       13 t  guest memory in use (bytes)
 *    4 u  vCPUs           9 d  steal (0..1)         14 d  sample age (seconds)
 *    5 u  maximum vCPUs  10 u  valid: Agent1MetricValid bits
 * Fields 1-9 keep the meaning they had before fields 10-13 came: a rate
 * without a value is -1 and a size or count without one 0. Fields 11-13
 * hold 0 (cpu-cap -1) without a value; field 10 says which fields hold one:
 * a field without its bit was never measured, its value is unknown.
 * Field 14 (version 2): how long before the reply's timestamp the oldest
 * value of the struct was measured; 0 when the newest sample measured them
 * all. A domain busy in a job (migration, shutdown) keeps the values last
 * measured, and their age grows.
 * Fields 15 and 16 (version 4), s: whether the domain shows the last vCPU
 * and memory target the agent applied, as the sample judged it:
 * AGENT1_TARGET_PENDING (within [agent] target-grace, or not measured
 * since), AGENT1_TARGET_REACHED, AGENT1_TARGET_UNREACHED (the first sample
 * after the grace did not show it; it stays so until one does or the next
 * change replaces it), "" when the agent applied none.
 * Fields 17-19 (version 5): whose count decided field 15, s:
 * AGENT1_SOURCE_GUEST_AGENT (the vCPUs the guest's kernel has online, as
 * its guest agent counted them after the grace), AGENT1_SOURCE_HYPERVISOR
 * (the vCPUs libvirt has plugged: the guest agent did not answer), ""
 * while pending or for none; the guest agent's count of vCPUs online, u
 * (valid bit AGENT1_METRIC_GUEST_VCPUS; 0 without); and what became of the
 * last question to it, s: AGENT1_GUEST_AGENT_* or "" when the agent did
 * not ask it (it asks only after a vCPU change, until the guest agent
 * shows the target reached). */
#define AGENT1_METRICS_TYPE "(sssuuttdduudtdsssus)"
/* Version 4's struct, fields 1-16: no guest agent. */
#define AGENT1_METRICS_TYPE_V4 "(sssuuttdduudtdss)"
/* Version 2's struct (and version 3's), fields 1-14: no target states. */
#define AGENT1_METRICS_TYPE_V2 "(sssuuttdduudtd)"
/* Version 1's struct, fields 1-13, which agents before version 2 send:
 * their values are as old as the sample. */
#define AGENT1_METRICS_TYPE_V1 "(sssuuttdduudt)"

#define AGENT1_TARGET_PENDING "pending"
#define AGENT1_TARGET_REACHED "reached"
#define AGENT1_TARGET_UNREACHED "unreached"

#define AGENT1_SOURCE_GUEST_AGENT "guest-agent"
#define AGENT1_SOURCE_HYPERVISOR "hypervisor"

#define AGENT1_GUEST_AGENT_ANSWERED "answered"
#define AGENT1_GUEST_AGENT_NONE "none"                 /* no guest agent channel */
#define AGENT1_GUEST_AGENT_UNRESPONSIVE "unresponsive" /* not listening, or no answer in time */
#define AGENT1_GUEST_AGENT_UNSUPPORTED "unsupported"   /* the hypervisor cannot ask */
#define AGENT1_GUEST_AGENT_FAILED "failed"

/* One domain's metrics as read; the strings point into the message. */
typedef struct Agent1Metrics {
        const char *name, *uuid, *state;
        uint32_t vcpus, vcpus_max;
        uint64_t memory, memory_max;
        double cpu_use, steal;
        uint32_t valid, cpu_weight;
        double cpu_cap;
        uint64_t memory_used;
        double age; /* seconds; 0 from a version 1 agent */
        /* Fields 15 and 16: AGENT1_TARGET_* or "", and "" from an agent
         * before version 4. */
        const char *vcpus_target, *memory_target;
        /* Fields 17-19: AGENT1_SOURCE_* or "", the guest agent's count
         * (valid with AGENT1_METRIC_GUEST_VCPUS), AGENT1_GUEST_AGENT_* or
         * ""; "", 0 and "" from an agent before version 5. */
        const char *vcpus_target_source;
        uint32_t guest_vcpus;
        const char *guest_agent;
} Agent1Metrics;

/* Which struct an agent sends: agents are upgraded one host at a time,
 * after their controller. */
typedef enum Agent1MetricsShape {
        AGENT1_METRICS_V1, /* fields 1-13 */
        AGENT1_METRICS_V2, /* fields 1-14: versions 2 and 3 */
        AGENT1_METRICS_V4, /* fields 1-16 */
        AGENT1_METRICS_V5, /* fields 1-19 */
} Agent1MetricsShape;

/* Enters the array of metrics m is at, of any shape, which *ret_shape
 * says. -EBADMSG for an array of anything else. */
int agent1_metrics_enter(sd_bus_message *m, Agent1MetricsShape *ret_shape);
/* The next entry of the array entered: 1 with it in *ret, 0 after the
 * last, -EBADMSG for an entry that does not read as Agent1 has it (an age
 * that is negative or not a number, an unknown target state, source or
 * guest agent state, a guest agent's count without its bit or beyond the
 * maximum vCPUs). */
int agent1_metrics_read(sd_bus_message *m, Agent1MetricsShape shape, Agent1Metrics *ret);

typedef enum Agent1MetricValid {
        AGENT1_METRIC_VCPUS = 1u << 0,       /* fields 4 and 5 */
        AGENT1_METRIC_MEMORY = 1u << 1,      /* fields 6 and 7 */
        AGENT1_METRIC_CPU_USE = 1u << 2,     /* field 8 */
        AGENT1_METRIC_STEAL = 1u << 3,       /* field 9 */
        AGENT1_METRIC_CPU_WEIGHT = 1u << 4,  /* field 11 */
        AGENT1_METRIC_CPU_CAP = 1u << 5,     /* field 12 */
        AGENT1_METRIC_MEMORY_USED = 1u << 6, /* field 13: needs the guest's balloon driver */
        AGENT1_METRIC_GUEST_VCPUS = 1u << 7, /* field 18: the guest agent answered */
} Agent1MetricValid;

/* SetTarget(s domain, a{sv} target) -> AGENT1_VERDICTS_TYPE verdicts
 *  target: a VM's resources to change, each a key with a value of the
 *    key's type: cpu-weight (u, cpu_shares), vcpus (u), cpu-cap (d, CPUs;
 *    0: no cap) and memory (t, bytes, a multiple of 1024).
 *  verdicts: for each resource of the target, its key ->
 *    1 s  status: applied (as asked), clamped (applied within the agent's
 *         limits), unchanged (at the value already), dry-run (allowed, not
 *         applied), refused (by a limit) or failed (by the hypervisor)
 *    2 v  the value before, 3 v the value after (of the key's type; 0, and
 *         -1 for a cap, when the hypervisor does not say)
 *    4 s  an error name (errors.h), "" for a resource applied as asked
 *    5 s  why, "" for none */
#define AGENT1_TARGET_TYPE "a{sv}"
#define AGENT1_VERDICT_FIELDS "s(svvss)"
#define AGENT1_VERDICTS_TYPE "a{" AGENT1_VERDICT_FIELDS "}"

typedef enum Agent1Resource {
        AGENT1_CPU_WEIGHT,
        AGENT1_VCPUS,
        AGENT1_CPU_CAP,
        AGENT1_MEMORY,
        _AGENT1_RESOURCE_MAX,
} Agent1Resource;

/* A resource's key in a target and a verdict, and its value's D-Bus type
 * ('u', 'd' or 't'). */
const char *agent1_resource_to_key(Agent1Resource r);
int agent1_resource_from_key(const char *key, Agent1Resource *ret);
char agent1_resource_type(Agent1Resource r);

/* One entry of a target, which the caller opens and closes: the
 * resource's key and value, of the key's type. */
int agent1_target_entry_append(sd_bus_message *m, Agent1Resource r, double value);

typedef enum Agent1Status {
        AGENT1_APPLIED,
        AGENT1_CLAMPED,
        AGENT1_UNCHANGED,
        AGENT1_DRY_RUN,
        AGENT1_REFUSED,
        AGENT1_FAILED,
        _AGENT1_STATUS_MAX,
} Agent1Status;

const char *agent1_status_to_string(Agent1Status s);
int agent1_status_from_string(const char *s, Agent1Status *ret);
/* Whether the agent took the target for the resource: applied, clamped,
 * unchanged or dry-run. */
bool agent1_status_taken(Agent1Status s);

/* One resource's verdict. The values are numbers of the key's type (a
 * count or bytes, exact below 2^53; CPUs for the cap). */
typedef struct Agent1Verdict {
        Agent1Resource resource;
        Agent1Status status;
        double before, after;
        const char *error;   /* "" for none */
        const char *message; /* "" for none */
} Agent1Verdict;

/* One entry of the verdicts' array, which the caller opens and closes. */
int agent1_verdict_append(sd_bus_message *m, const Agent1Verdict *v);
/* The next entry of the verdicts' array, entered by the caller: 1 with it
 * in *ret (its strings point into m), 0 after the last, -EBADMSG for one
 * that does not read as Agent1 has it (an unknown key or status, a value
 * of another type than its key's). */
int agent1_verdict_read(sd_bus_message *m, Agent1Verdict *ret);

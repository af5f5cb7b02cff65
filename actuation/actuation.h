/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/format.h"
#include "common/time-util.h"

/* The actuation contract: what of a VM target may be applied, resource by
 * resource, under the host's safety limits. The agent applies its answer to
 * libvirt and the simulator to its model, so that what the simulator
 * evaluates is what the agent would do. The limits are oVirt MOM's balloon
 * controller's and Proxmox auto-ballooning's, as data: a floor and a ceiling
 * per VM, the VM's own maximum, a host reserve that is never handed out, a
 * maximum step, a minimum change worth making, a minimum interval between
 * two changes of one resource of one VM, and vCPU unplug only when allowed.
 *
 * Pure: no clock, no I/O, no allocation; the caller passes the VM's state,
 * its host, its history of changes and the time. */

/* In the order a target is applied: vCPUs before the cap, because a cap is
 * enforced as a quota per vCPU. */
typedef enum ActResource {
        ACT_CPU_WEIGHT, /* cpu_shares */
        ACT_VCPUS,
        ACT_CPU_CAP, /* milli-CPUs the VM may use at most; ACT_CAP_NONE: no cap */
        ACT_MEMORY,  /* bytes */
        _ACT_RESOURCE_MAX,
} ActResource;

#define ACT_BIT(r) (1u << (r))
#define ACT_ALL ((1u << _ACT_RESOURCE_MAX) - 1)
/* "No cap" compares above every cap, so that lifting a cap is growth. */
#define ACT_CAP_NONE UINT64_MAX
#define ACT_MILLI 1000

/* A cap in CPUs (0: none) as the contract counts it, and back. */
uint64_t act_cap_from_cpus(double cpus);
double act_cap_to_cpus(uint64_t cap);

typedef struct ActResourceLimits {
        uint64_t floor, ceiling;
        uint64_t max_step;   /* UINT64_MAX: any step */
        uint64_t min_change; /* smaller changes are not worth making */
} ActResourceLimits;

typedef struct ActLimits {
        ActResourceLimits r[_ACT_RESOURCE_MAX];
        /* Between two changes of one resource of one VM. */
        usec_t min_interval;
        bool allow_vcpu_unplug;
        /* vCPUs the VMs may hold together, as a multiple of the host's CPUs. */
        double cpu_overcommit;
        /* Never handed out to VMs. */
        uint64_t reserve_cpus, reserve_memory;
} ActLimits;

/* What a VM holds now. */
typedef struct ActVm {
        unsigned known; /* ACT_BIT(r): value[r] is known */
        uint64_t value[_ACT_RESOURCE_MAX];
        uint64_t max[_ACT_RESOURCE_MAX]; /* its own maximum (vCPUs, memory); 0: none */
} ActVm;

/* The host a VM runs on: its capacity (0: no host-wide limit) and what its
 * other running VMs hold. */
typedef struct ActHost {
        uint64_t cpus, memory;
        uint64_t others_vcpus, others_memory;
} ActHost;

/* When each resource of one VM last changed. Zeroed: never. */
typedef struct ActHistory {
        unsigned changed; /* ACT_BIT(r): last[r] is meaningful */
        usec_t last[_ACT_RESOURCE_MAX];
} ActHistory;

typedef struct ActTarget {
        unsigned set; /* ACT_BIT(r): value[r] is asked for */
        uint64_t value[_ACT_RESOURCE_MAX];
} ActTarget;

typedef struct ActRequest {
        ActVm vm;
        ActHost host;
        ActHistory history;
        ActTarget target;
        usec_t now; /* monotonic, the clock of the history */
} ActRequest;

typedef enum ActVerdict {
        ACT_NOT_ASKED,
        ACT_APPLY,     /* value is what was asked */
        ACT_CLAMPED,   /* value lies between the current and the asked value */
        ACT_UNCHANGED, /* already at the asked value */
        ACT_REFUSED,   /* value stays the current one */
        _ACT_VERDICT_MAX,
} ActVerdict;

/* Why a value was clamped or refused. */
typedef enum ActRule {
        ACT_RULE_NONE,
        ACT_RULE_UNKNOWN, /* the VM's current value is not known */
        ACT_RULE_RANGE,   /* floor and ceiling */
        ACT_RULE_DOMAIN_MAX,
        ACT_RULE_UNPLUG,
        ACT_RULE_STEP,
        ACT_RULE_MIN_CHANGE,
        ACT_RULE_HOST_RESERVE,
        ACT_RULE_RATE,
        _ACT_RULE_MAX,
} ActRule;

typedef struct ActOutcome {
        ActVerdict verdict;
        ActRule rule; /* the rule that bound: for CLAMPED and REFUSED */
        uint64_t current, requested;
        uint64_t value;    /* to apply; the current value unless APPLY or CLAMPED */
        uint64_t proposed; /* the value rule judged (requested, or clamped by an earlier rule) */
        usec_t since;      /* ACT_RULE_RATE: time since the last change */
} ActOutcome;

typedef struct ActPlan {
        ActOutcome r[_ACT_RESOURCE_MAX];
} ActPlan;

typedef enum ActFlags {
        /* Refuse a value that does not fit instead of clamping it: the
         * contract of a single-value request, which asks for that value. */
        ACT_STRICT = 1u << 0,
} ActFlags;

/* Decides on every resource of req->target. Per resource the rules apply in
 * a fixed order: known current value; floor and ceiling; the VM's maximum;
 * then a value equal to the current one is UNCHANGED (or, clamped back to
 * it, REFUSED); unplug; step; minimum change; host reserve (growth only);
 * rate. A value a rule can bring within bounds (range, maximum, step, host
 * reserve) is clamped toward the current value, unless ACT_STRICT; a
 * refusal changes nothing of that resource. Memory is clamped to whole KiB.
 * Returns 0, or -EINVAL for unknown flags. */
int act_plan(const ActLimits *limits, const ActRequest *req, unsigned flags, ActPlan *ret);

/* Records that r changed at now, for the rate limit. */
void act_history_note(ActHistory *h, ActResource r, usec_t now);

/* The vCPUs the VMs of a host with cpus CPUs may hold together (before the
 * reserve). */
uint64_t act_vcpu_capacity(const ActLimits *limits, uint64_t cpus);

/* One sentence on why o was clamped or refused ("" for the others), from
 * the request it was decided on. Returns buf. */
char *act_explain(const ActLimits *limits, const ActRequest *req, ActResource r,
                  const ActOutcome *o, char *buf, size_t size);

const char *act_resource_to_string(ActResource r);
/* "cpu-weight" and the like; -EINVAL when unknown. */
int act_resource_from_string(const char *s, ActResource *ret);
const char *act_verdict_to_string(ActVerdict v);
const char *act_rule_to_string(ActRule r);

/* A value of the resource as the configuration writes it: a count, a size
 * for memory ("512M"), CPUs for a cap ("1.5", "none"). Returns buf. */
#define ACT_VALUE_MAX FORMAT_SIZE_MAX
char *act_format_value(ActResource r, uint64_t v, char *buf, size_t size);
/* For a printf argument, like FORMAT_SIZE(). */
#define ACT_VALUE(r, v) act_format_value((r), (v), (char[ACT_VALUE_MAX]){ 0 }, ACT_VALUE_MAX)

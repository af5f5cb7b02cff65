/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/format.h"
#include "common/time-util.h"

/* Safety limits on every change the agent makes to a VM, in the spirit of
 * oVirt MOM's balloon controller and Proxmox auto-ballooning: a floor and a
 * ceiling per VM, a host reserve that is never handed out, a maximum step, a
 * minimum change worth making and a minimum interval between two changes of
 * one VM. Pure code: the caller passes the state and the time. */

typedef enum SafetyResource {
        SAFETY_VCPUS,
        SAFETY_MEMORY,     /* bytes */
        SAFETY_CPU_WEIGHT, /* cpu_shares */
        _SAFETY_RESOURCE_MAX,
} SafetyResource;

typedef struct AgentLimits {
        uint64_t min_vcpus, max_vcpus, max_vcpu_step;
        uint64_t min_memory, max_memory, max_memory_step, min_memory_change;
        uint64_t min_cpu_weight, max_cpu_weight, min_cpu_weight_change;
        usec_t min_interval;
        /* What the VMs of this host may hold together, before the reserve. */
        uint64_t host_vcpus, host_memory;
        uint64_t reserve_cpus, reserve_memory;
} AgentLimits;

typedef enum SafetyVerdict {
        SAFETY_APPLY,
        SAFETY_NO_CHANGE,
        SAFETY_OUT_OF_RANGE,
        SAFETY_STEP_TOO_LARGE,
        SAFETY_CHANGE_TOO_SMALL,
        SAFETY_HOST_RESERVE,
        SAFETY_RATE_LIMITED,
        _SAFETY_VERDICT_MAX,
} SafetyVerdict;

typedef struct SafetyRequest {
        SafetyResource resource;
        uint64_t current;
        uint64_t requested;
        /* The domain's own ceiling (its maximum vCPUs or memory); 0: none. */
        uint64_t domain_max;
        /* This resource summed over the host's running domains, this one
         * included; only growth is checked against the host reserve. */
        uint64_t host_used;
        bool changed_before;
        usec_t last_change; /* monotonic; meaningful when changed_before */
        usec_t now;
} SafetyRequest;

/* Decides on one request. The rules apply in a fixed order: floor, ceiling
 * and the domain's maximum; then an unchanged value is SAFETY_NO_CHANGE;
 * then the step, the minimum change, the host reserve and the rate limit.
 * why receives one sentence for the refusal (empty for APPLY/NO_CHANGE). */
SafetyVerdict safety_check(const AgentLimits *limits, const SafetyRequest *req, char *why,
                           size_t why_size);

const char *safety_verdict_to_string(SafetyVerdict v);
const char *safety_resource_to_string(SafetyResource r);

/* A value of the resource as the configuration writes it: a count, or a
 * size for memory ("512M", "1025"). Returns buf. */
#define SAFETY_VALUE_MAX FORMAT_SIZE_MAX
char *safety_format_value(SafetyResource r, uint64_t v, char *buf, size_t size);
/* For a printf argument, like FORMAT_SIZE(). */
#define SAFETY_VALUE(r, v) \
        safety_format_value((r), (v), (char[SAFETY_VALUE_MAX]){ 0 }, SAFETY_VALUE_MAX)

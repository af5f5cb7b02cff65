/* SPDX-License-Identifier: MIT */
#include "safety.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "common/format.h"
#include "common/macro.h"

static const char *const verdict_names[_SAFETY_VERDICT_MAX] = {
        [SAFETY_APPLY] = "apply",
        [SAFETY_NO_CHANGE] = "no-change",
        [SAFETY_OUT_OF_RANGE] = "out-of-range",
        [SAFETY_STEP_TOO_LARGE] = "step-too-large",
        [SAFETY_CHANGE_TOO_SMALL] = "change-too-small",
        [SAFETY_HOST_RESERVE] = "host-reserve",
        [SAFETY_RATE_LIMITED] = "rate-limited",
};

static const char *const resource_names[_SAFETY_RESOURCE_MAX] = {
        [SAFETY_VCPUS] = "vcpus",
        [SAFETY_MEMORY] = "memory",
        [SAFETY_CPU_WEIGHT] = "cpu-weight",
};

const char *safety_verdict_to_string(SafetyVerdict v) {
        return v >= 0 && v < _SAFETY_VERDICT_MAX ? verdict_names[v] : NULL;
}

const char *safety_resource_to_string(SafetyResource r) {
        return r >= 0 && r < _SAFETY_RESOURCE_MAX ? resource_names[r] : NULL;
}

char *safety_format_value(SafetyResource r, uint64_t v, char *buf, size_t size) {
        if (r == SAFETY_MEMORY)
                return format_size(buf, size, v);
        snprintf(buf, size, "%" PRIu64, v);
        return buf;
}

/* The limits that apply to one resource, in one shape. */
typedef struct ResourceLimits {
        uint64_t floor, ceiling, max_step, min_change;
        uint64_t host_total, reserve; /* host_total 0: no host-wide limit */
} ResourceLimits;

static ResourceLimits resource_limits(const AgentLimits *l, SafetyResource r) {
        switch (r) {
        case SAFETY_VCPUS:
                return (ResourceLimits){ l->min_vcpus, l->max_vcpus, l->max_vcpu_step, 1,
                                         l->host_vcpus, l->reserve_cpus };
        case SAFETY_MEMORY:
                return (ResourceLimits){ l->min_memory, l->max_memory, l->max_memory_step,
                                         l->min_memory_change, l->host_memory,
                                         l->reserve_memory };
        case SAFETY_CPU_WEIGHT:
        default:
                /* A weight is relative: there is no host total to reserve from,
                 * and any step within the range is safe. */
                return (ResourceLimits){ l->min_cpu_weight, l->max_cpu_weight, UINT64_MAX,
                                         l->min_cpu_weight_change, 0, 0 };
        }
}

static SafetyVerdict refuse(SafetyVerdict v, char *why, size_t size, const char *fmt, ...)
        _printf_(4, 5);

static SafetyVerdict refuse(SafetyVerdict v, char *why, size_t size, const char *fmt, ...) {
        va_list ap;

        if (size > 0) {
                va_start(ap, fmt);
                vsnprintf(why, size, fmt, ap);
                va_end(ap);
        }
        return v;
}

SafetyVerdict safety_check(const AgentLimits *limits, const SafetyRequest *req, char *why,
                           size_t why_size) {
        ResourceLimits l = resource_limits(limits, req->resource);
        const char *what = safety_resource_to_string(req->resource);
        SafetyResource r = req->resource;
        uint64_t delta;

        if (why_size > 0)
                why[0] = '\0';

        if (req->requested < l.floor || req->requested > l.ceiling)
                return refuse(SAFETY_OUT_OF_RANGE, why, why_size,
                              "%s %s is outside the allowed range [%s, %s]", what,
                              SAFETY_VALUE(r, req->requested), SAFETY_VALUE(r, l.floor),
                              SAFETY_VALUE(r, l.ceiling));
        if (req->domain_max > 0 && req->requested > req->domain_max)
                return refuse(SAFETY_OUT_OF_RANGE, why, why_size,
                              "%s %s is above the domain's maximum %s", what,
                              SAFETY_VALUE(r, req->requested), SAFETY_VALUE(r, req->domain_max));
        if (req->requested == req->current)
                return SAFETY_NO_CHANGE;

        delta = req->requested > req->current ? req->requested - req->current
                                              : req->current - req->requested;
        if (delta > l.max_step)
                return refuse(SAFETY_STEP_TOO_LARGE, why, why_size,
                              "%s change of %s is larger than the maximum step %s", what,
                              SAFETY_VALUE(r, delta), SAFETY_VALUE(r, l.max_step));
        if (delta < l.min_change)
                return refuse(SAFETY_CHANGE_TOO_SMALL, why, why_size,
                              "%s change of %s is smaller than the minimum change %s", what,
                              SAFETY_VALUE(r, delta), SAFETY_VALUE(r, l.min_change));

        if (req->requested > req->current && l.host_total > 0) {
                uint64_t usable = l.host_total > l.reserve ? l.host_total - l.reserve : 0;
                uint64_t others = req->host_used > req->current ? req->host_used - req->current
                                                                : 0;

                if (others + req->requested > usable)
                        return refuse(SAFETY_HOST_RESERVE, why, why_size,
                                      "%s %s would leave the host's VMs holding %s of %s (%s "
                                      "reserved for the host)",
                                      what, SAFETY_VALUE(r, req->requested),
                                      SAFETY_VALUE(r, others + req->requested),
                                      SAFETY_VALUE(r, l.host_total), SAFETY_VALUE(r, l.reserve));
        }

        if (req->changed_before && req->now < req->last_change + limits->min_interval) {
                usec_t ago = req->now - req->last_change;

                /* To the millisecond, and never "0 ago". */
                ago = MAX(ago - ago % USEC_PER_MSEC, USEC_PER_MSEC);

                return refuse(SAFETY_RATE_LIMITED, why, why_size,
                              "domain was changed %s ago; changes are at least %s apart",
                              FORMAT_DURATION(ago), FORMAT_DURATION(limits->min_interval));
        }
        return SAFETY_APPLY;
}

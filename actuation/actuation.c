/* SPDX-License-Identifier: MIT */
#include "actuation.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/macro.h"

#define KIB 1024ULL

static const char *const resource_names[_ACT_RESOURCE_MAX] = {
        [ACT_CPU_WEIGHT] = "cpu-weight",
        [ACT_VCPUS] = "vcpus",
        [ACT_CPU_CAP] = "cpu-cap",
        [ACT_MEMORY] = "memory",
};

static const char *const verdict_names[_ACT_VERDICT_MAX] = {
        [ACT_NOT_ASKED] = "not-asked", [ACT_APPLY] = "applied",   [ACT_CLAMPED] = "clamped",
        [ACT_UNCHANGED] = "unchanged", [ACT_REFUSED] = "refused",
};

static const char *const rule_names[_ACT_RULE_MAX] = {
        [ACT_RULE_NONE] = "none",
        [ACT_RULE_UNKNOWN] = "unknown",
        [ACT_RULE_RANGE] = "out-of-range",
        [ACT_RULE_DOMAIN_MAX] = "above-domain-maximum",
        [ACT_RULE_UNPLUG] = "unplug-not-allowed",
        [ACT_RULE_STEP] = "step-too-large",
        [ACT_RULE_MIN_CHANGE] = "change-too-small",
        [ACT_RULE_HOST_RESERVE] = "host-reserve",
        [ACT_RULE_RATE] = "rate-limited",
};

const char *act_resource_to_string(ActResource r) {
        return r >= 0 && r < _ACT_RESOURCE_MAX ? resource_names[r] : NULL;
}

int act_resource_from_string(const char *s, ActResource *ret) {
        for (ActResource r = 0; r < _ACT_RESOURCE_MAX; r++)
                if (strcmp(s, resource_names[r]) == 0) {
                        *ret = r;
                        return 0;
                }
        return -EINVAL;
}

const char *act_verdict_to_string(ActVerdict v) {
        return v >= 0 && v < _ACT_VERDICT_MAX ? verdict_names[v] : NULL;
}

const char *act_rule_to_string(ActRule r) {
        return r >= 0 && r < _ACT_RULE_MAX ? rule_names[r] : NULL;
}

uint64_t act_cap_from_cpus(double cpus) {
        double milli = cpus * ACT_MILLI;

        if (!(cpus > 0))
                return ACT_CAP_NONE;
        /* A cap that rounds to nothing is the smallest one, never "none". */
        return milli >= (double)(ACT_CAP_NONE / 2) ? ACT_CAP_NONE - 1
                                                   : MAX((uint64_t)llround(milli), (uint64_t)1);
}

double act_cap_to_cpus(uint64_t cap) {
        return cap == ACT_CAP_NONE ? 0 : (double)cap / ACT_MILLI;
}

char *act_format_value(ActResource r, uint64_t v, char *buf, size_t size) {
        if (r == ACT_MEMORY)
                return format_size(buf, size, v);
        if (r == ACT_CPU_CAP && v == ACT_CAP_NONE)
                snprintf(buf, size, "none");
        else if (r == ACT_CPU_CAP)
                snprintf(buf, size, "%g", act_cap_to_cpus(v));
        else
                snprintf(buf, size, "%" PRIu64, v);
        return buf;
}

uint64_t act_vcpu_capacity(const ActLimits *limits, uint64_t cpus) {
        return (uint64_t)floor((double)cpus * limits->cpu_overcommit);
}

void act_history_note(ActHistory *h, ActResource r, usec_t now) {
        h->changed |= ACT_BIT(r);
        h->last[r] = now;
}

/* libvirt sets memory in KiB: a clamped size is a whole KiB, never further
 * from the current value than the clamp. */
static uint64_t align_toward(ActResource r, uint64_t v, uint64_t current) {
        uint64_t down = v - v % KIB;

        if (r != ACT_MEMORY || down == v)
                return v;
        return v > current ? MAX(down, current) : MIN(down + KIB, current);
}

static uint64_t distance(uint64_t a, uint64_t b) {
        return a > b ? a - b : b - a;
}

/* What the host's VMs may hold of r together, and r's share of it held by
 * the VM's neighbours; false if r has no host-wide limit. */
static bool host_room(const ActLimits *l, const ActHost *h, ActResource r, uint64_t *ret_usable,
                      uint64_t *ret_capacity, uint64_t *ret_others) {
        uint64_t capacity, reserve;

        switch (r) {
        case ACT_VCPUS:
                capacity = act_vcpu_capacity(l, h->cpus);
                reserve = l->reserve_cpus;
                *ret_others = h->others_vcpus;
                break;
        case ACT_MEMORY:
                capacity = h->memory;
                reserve = l->reserve_memory;
                *ret_others = h->others_memory;
                break;
        default:
                /* A weight is relative and a cap only takes away: neither
                 * hands out anything of the host. */
                return false;
        }
        if (capacity == 0)
                return false;
        *ret_capacity = capacity;
        *ret_usable = capacity > reserve ? capacity - reserve : 0;
        return true;
}

static ActOutcome refuse(ActOutcome o, ActRule rule, uint64_t proposed) {
        o.verdict = ACT_REFUSED;
        o.rule = rule;
        o.proposed = proposed;
        o.value = o.current;
        return o;
}

/* rule moves the value judged from *v to to. */
static void bind(ActOutcome *o, ActRule rule, uint64_t *v, uint64_t to) {
        o->rule = rule;
        o->proposed = *v;
        *v = to;
}

static bool between(uint64_t v, uint64_t a, uint64_t b) {
        return v >= MIN(a, b) && v <= MAX(a, b);
}

static ActOutcome decide(const ActLimits *l, const ActRequest *req, ActResource r, bool strict) {
        const ActResourceLimits *rl = &l->r[r];
        ActOutcome o = { .current = req->vm.value[r], .requested = req->target.value[r] };
        uint64_t v = o.requested, max = req->vm.max[r], delta, usable, capacity, others;
        const ActHistory *h = &req->history;

        o.proposed = v;
        o.value = o.current;
        if (!(req->vm.known & ACT_BIT(r)))
                return refuse(o, ACT_RULE_UNKNOWN, v);

        if (v < rl->floor || v > rl->ceiling) {
                if (strict)
                        return refuse(o, ACT_RULE_RANGE, v);
                bind(&o, ACT_RULE_RANGE, &v,
                     v < rl->floor ? align_toward(r, rl->floor, UINT64_MAX)
                                   : align_toward(r, rl->ceiling, 0));
        }
        if (max > 0 && v > max) {
                if (strict)
                        return refuse(o, ACT_RULE_DOMAIN_MAX, v);
                bind(&o, ACT_RULE_DOMAIN_MAX, &v, max);
        }
        /* A clamp never turns a request around: a VM outside the range
         * moves into it only in the direction asked. */
        if (!between(v, o.current, o.requested))
                return refuse(o, o.rule, o.proposed);
        if (v == o.current) {
                if (o.rule != ACT_RULE_NONE)
                        return refuse(o, o.rule, o.proposed);
                o.verdict = ACT_UNCHANGED;
                return o;
        }

        if (r == ACT_VCPUS && v < o.current && !l->allow_vcpu_unplug)
                return refuse(o, ACT_RULE_UNPLUG, v);
        delta = distance(v, o.current);
        if (delta > rl->max_step) {
                if (strict)
                        return refuse(o, ACT_RULE_STEP, v);
                bind(&o, ACT_RULE_STEP, &v,
                     align_toward(
                             r, v > o.current ? o.current + rl->max_step : o.current - rl->max_step,
                             o.current));
                delta = distance(v, o.current);
        }
        if (delta < rl->min_change || delta == 0)
                return refuse(o, ACT_RULE_MIN_CHANGE, v);

        /* Only growth takes from the host: shrinking is always allowed, even
         * on an overcommitted host. */
        if (v > o.current && host_room(l, &req->host, r, &usable, &capacity, &others) &&
            others + v > usable) {
                uint64_t fit = usable > others ? align_toward(r, usable - others, 0) : 0;

                if (strict || fit <= o.current || fit - o.current < rl->min_change)
                        return refuse(o, ACT_RULE_HOST_RESERVE, v);
                bind(&o, ACT_RULE_HOST_RESERVE, &v, fit);
        }

        if ((h->changed & ACT_BIT(r)) && req->now < h->last[r] + l->min_interval) {
                o.since = req->now > h->last[r] ? req->now - h->last[r] : 0;
                return refuse(o, ACT_RULE_RATE, v);
        }
        o.value = v;
        o.verdict = v == o.requested ? ACT_APPLY : ACT_CLAMPED;
        return o;
}

int act_plan(const ActLimits *limits, const ActRequest *req, unsigned flags, ActPlan *ret) {
        ActPlan p = { 0 };

        if (!limits || !req || !ret || (flags & ~(unsigned)ACT_STRICT))
                return -EINVAL;
        for (ActResource r = 0; r < _ACT_RESOURCE_MAX; r++)
                if (req->target.set & ACT_BIT(r))
                        p.r[r] = decide(limits, req, r, flags & ACT_STRICT);
        *ret = p;
        return 0;
}

static char *say(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4);

static char *say(char *buf, size_t size, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(buf, size, fmt, ap);
        va_end(ap);
        return buf;
}

char *act_explain(const ActLimits *limits, const ActRequest *req, ActResource r,
                  const ActOutcome *o, char *buf, size_t size) {
        const ActResourceLimits *rl = &limits->r[r];
        const char *what = act_resource_to_string(r);
        uint64_t p = o->proposed, usable = 0, capacity = 0, others = 0;
        usec_t ago;

        if (size == 0)
                return buf;
        buf[0] = '\0';
        if (o->verdict != ACT_REFUSED && o->verdict != ACT_CLAMPED)
                return buf;
        switch (o->rule) {
        case ACT_RULE_UNKNOWN:
                return say(buf, size, "the hypervisor reports no %s", what);
        case ACT_RULE_RANGE:
                if (rl->ceiling == UINT64_MAX)
                        return say(buf, size, "%s %s is below the minimum %s", what,
                                   ACT_VALUE(r, p), ACT_VALUE(r, rl->floor));
                return say(buf, size, "%s %s is outside the allowed range [%s, %s]", what,
                           ACT_VALUE(r, p), ACT_VALUE(r, rl->floor), ACT_VALUE(r, rl->ceiling));
        case ACT_RULE_DOMAIN_MAX:
                return say(buf, size, "%s %s is above the domain's maximum %s", what,
                           ACT_VALUE(r, p), ACT_VALUE(r, req->vm.max[r]));
        case ACT_RULE_UNPLUG:
                return say(buf, size,
                           "%s %s is below the current %s, and unplugging vCPUs is not allowed",
                           what, ACT_VALUE(r, p), ACT_VALUE(r, o->current));
        case ACT_RULE_STEP:
                return say(buf, size, "%s change of %s is larger than the maximum step %s", what,
                           ACT_VALUE(r, distance(p, o->current)), ACT_VALUE(r, rl->max_step));
        case ACT_RULE_MIN_CHANGE:
                return say(buf, size, "%s change of %s is smaller than the minimum change %s", what,
                           ACT_VALUE(r, distance(p, o->current)), ACT_VALUE(r, rl->min_change));
        case ACT_RULE_HOST_RESERVE:
                (void)host_room(limits, &req->host, r, &usable, &capacity, &others);
                return say(buf, size,
                           "%s %s would leave the host's VMs holding %s of %s (%s reserved for "
                           "the host)",
                           what, ACT_VALUE(r, p), ACT_VALUE(r, others + p), ACT_VALUE(r, capacity),
                           ACT_VALUE(r, capacity - usable));
        case ACT_RULE_RATE:
                /* To the millisecond, and never "0 ago". */
                ago = MAX(o->since - o->since % USEC_PER_MSEC, USEC_PER_MSEC);
                return say(buf, size,
                           "%s changed %s ago; changes of one resource are at least %s apart", what,
                           FORMAT_DURATION(ago), FORMAT_DURATION(limits->min_interval));
        default:
                return buf;
        }
}

/* SPDX-License-Identifier: MIT */
/* The actuation contract: every limit rule on hand-made requests, strict
 * (the single-value methods) and clamping (targets), the rate limit per
 * resource, and the shipped defaults. */
#include <errno.h>
#include <string.h>

#include "actuation/actuation.h"
#include "actuation/act-config.h"
#include "common/macro.h"
#include "tests.h"

#define MIB (1ULL << 20)
#define GIB (1ULL << 30)
#define NOW (1000 * USEC_PER_SEC)
#define NONE ACT_CAP_NONE

/* The shipped defaults (conf/agent.ini) with a larger host reserve. */
static ActLimits test_limits(bool allow_unplug) {
        ActLimits l = *act_limits_default();

        l.reserve_cpus = 2;
        l.reserve_memory = 4 * GIB;
        l.allow_vcpu_unplug = allow_unplug;
        return l;
}

typedef struct LimitCase {
        const char *name;
        ActResource r;
        uint64_t current, requested;
        uint64_t max;    /* the domain's; 0: none */
        uint64_t others; /* held by the host's other VMs */
        usec_t last;     /* when r last changed; 0: never */
        unsigned flags;
        bool unplug, unknown;
        ActVerdict verdict;
        ActRule rule;
        uint64_t value;
        const char *why;
} LimitCase;

#define STRICT ACT_STRICT
#define CLAMPING 0

/* A 16-CPU, 32G host with 2 CPUs and 4G reserved. */
static const LimitCase limit_cases[] = {
        /* Each rule, refusing what does not fit (the single-value methods). */
        { "vcpus grow one", ACT_VCPUS, 2, 3, 8, 4, 0, STRICT, .verdict = ACT_APPLY, .value = 3 },
        { "vcpus unchanged", ACT_VCPUS, 2, 2, 8, 4, 0, STRICT, .verdict = ACT_UNCHANGED,
          .value = 2 },
        /* The no-op path comes after the range check: an unchanged value
         * outside the limits is still refused. */
        { "vcpus below floor", ACT_VCPUS, 0, 0, 8, 4, 0, STRICT, .verdict = ACT_REFUSED,
          .rule = ACT_RULE_RANGE, .value = 0,
          .why = "vcpus 0 is outside the allowed range [1, 8]" },
        { "vcpus above ceiling", ACT_VCPUS, 8, 9, 16, 0, 0, STRICT, .verdict = ACT_REFUSED,
          .rule = ACT_RULE_RANGE, .value = 8,
          .why = "vcpus 9 is outside the allowed range [1, 8]" },
        { "vcpus above domain max", ACT_VCPUS, 2, 4, 3, 4, 0, STRICT, .verdict = ACT_REFUSED,
          .rule = ACT_RULE_DOMAIN_MAX, .value = 2,
          .why = "vcpus 4 is above the domain's maximum 3" },
        { "vcpus step", ACT_VCPUS, 2, 5, 8, 4, 0, STRICT, .verdict = ACT_REFUSED,
          .rule = ACT_RULE_STEP, .value = 2,
          .why = "vcpus change of 3 is larger than the maximum step 2" },
        { "vcpus unplug", ACT_VCPUS, 4, 3, 8, 4, 0, STRICT, .verdict = ACT_REFUSED,
          .rule = ACT_RULE_UNPLUG, .value = 4,
          .why = "vcpus 3 is below the current 4, and unplugging vCPUs is not allowed" },
        { "vcpus shrink step", ACT_VCPUS, 8, 5, 8, 4, 0, STRICT, .unplug = true,
          .verdict = ACT_REFUSED, .rule = ACT_RULE_STEP, .value = 8,
          .why = "vcpus change of 3 is larger than the maximum step 2" },
        /* 16 host vCPUs, 2 reserved: 10 elsewhere, 2 -> 4 makes 14, the limit. */
        { "vcpus up to the reserve", ACT_VCPUS, 2, 4, 8, 10, 0, STRICT, .verdict = ACT_APPLY,
          .value = 4 },
        { "vcpus into the reserve", ACT_VCPUS, 2, 4, 8, 11, 0, STRICT, .verdict = ACT_REFUSED,
          .rule = ACT_RULE_HOST_RESERVE, .value = 2,
          .why = "vcpus 4 would leave the host's VMs holding 15 of 16 (2 reserved for the host)" },
        /* Shrinking is always allowed, even on an overcommitted host. */
        { "vcpus shrink overcommitted", ACT_VCPUS, 4, 3, 8, 36, 0, STRICT, .unplug = true,
          .verdict = ACT_APPLY, .value = 3 },
        { "memory grow", ACT_MEMORY, GIB, 2 * GIB, 4 * GIB, 7 * GIB, 0, STRICT,
          .verdict = ACT_APPLY, .value = 2 * GIB },
        { "memory below floor", ACT_MEMORY, GIB, 256 * MIB, 4 * GIB, 7 * GIB, 0, STRICT,
          .verdict = ACT_REFUSED, .rule = ACT_RULE_RANGE, .value = GIB,
          .why = "memory 256M is outside the allowed range [512M, 16G]" },
        { "memory above domain max", ACT_MEMORY, GIB, 5 * GIB, 4 * GIB, 7 * GIB, 0, STRICT,
          .verdict = ACT_REFUSED, .rule = ACT_RULE_DOMAIN_MAX, .value = GIB,
          .why = "memory 5G is above the domain's maximum 4G" },
        { "memory step", ACT_MEMORY, GIB, 4 * GIB, 0, 7 * GIB, 0, STRICT, .verdict = ACT_REFUSED,
          .rule = ACT_RULE_STEP, .value = GIB,
          .why = "memory change of 3G is larger than the maximum step 2G" },
        { "memory too small a change", ACT_MEMORY, GIB, GIB + 32 * MIB, 0, 7 * GIB, 0, STRICT,
          .verdict = ACT_REFUSED, .rule = ACT_RULE_MIN_CHANGE, .value = GIB,
          .why = "memory change of 32M is smaller than the minimum change 64M" },
        { "memory into the reserve", ACT_MEMORY, GIB, 2 * GIB, 0, 27 * GIB, 0, STRICT,
          .verdict = ACT_REFUSED, .rule = ACT_RULE_HOST_RESERVE, .value = GIB,
          .why = "memory 2G would leave the host's VMs holding 29G of 32G (4G reserved for the "
                 "host)" },
        /* A byte count where no unit is exact. */
        { "memory range in bytes", ACT_MEMORY, GIB, 1025, 0, 0, 0, STRICT, .verdict = ACT_REFUSED,
          .rule = ACT_RULE_RANGE, .value = GIB,
          .why = "memory 1025 is outside the allowed range [512M, 16G]" },
        { "weight any step", ACT_CPU_WEIGHT, 128, 8192, 0, 0, 0, STRICT, .verdict = ACT_APPLY,
          .value = 8192 },
        { "weight too small a change", ACT_CPU_WEIGHT, 1024, 1030, 0, 0, 0, STRICT,
          .verdict = ACT_REFUSED, .rule = ACT_RULE_MIN_CHANGE, .value = 1024,
          .why = "cpu-weight change of 6 is smaller than the minimum change 16" },
        { "weight out of range", ACT_CPU_WEIGHT, 1024, 10000, 0, 0, 0, STRICT,
          .verdict = ACT_REFUSED, .rule = ACT_RULE_RANGE, .value = 1024,
          .why = "cpu-weight 10000 is outside the allowed range [128, 8192]" },
        { "weight unknown", ACT_CPU_WEIGHT, 0, 512, 0, 0, 0, STRICT, .unknown = true,
          .verdict = ACT_REFUSED, .rule = ACT_RULE_UNKNOWN, .value = 0,
          .why = "the hypervisor reports no cpu-weight" },
        { "cap set", ACT_CPU_CAP, NONE, 2000, 0, 0, 0, STRICT, .verdict = ACT_APPLY,
          .value = 2000 },
        { "cap lifted", ACT_CPU_CAP, 2000, NONE, 0, 0, 0, STRICT, .verdict = ACT_APPLY,
          .value = NONE },
        { "cap below the minimum", ACT_CPU_CAP, NONE, 50, 0, 0, 0, STRICT, .verdict = ACT_REFUSED,
          .rule = ACT_RULE_RANGE, .value = NONE, .why = "cpu-cap 0.05 is below the minimum 0.1" },
        { "cap too small a change", ACT_CPU_CAP, 2000, 2050, 0, 0, 0, STRICT,
          .verdict = ACT_REFUSED, .rule = ACT_RULE_MIN_CHANGE, .value = 2000,
          .why = "cpu-cap change of 0.05 is smaller than the minimum change 0.1" },
        { "rate limited", ACT_VCPUS, 2, 3, 8, 4, NOW - 10 * USEC_PER_SEC, STRICT,
          .verdict = ACT_REFUSED, .rule = ACT_RULE_RATE, .value = 2,
          .why = "vcpus changed 10s ago; changes of one resource are at least 30s apart" },
        /* The time to the millisecond. */
        { "rate limited just now", ACT_VCPUS, 2, 3, 8, 4, NOW - 1500 * USEC_PER_MSEC - 1, STRICT,
          .verdict = ACT_REFUSED, .rule = ACT_RULE_RATE, .value = 2,
          .why = "vcpus changed 1.5s ago; changes of one resource are at least 30s apart" },
        { "rate limit passed", ACT_VCPUS, 2, 3, 8, 4, NOW - 30 * USEC_PER_SEC, STRICT,
          .verdict = ACT_APPLY, .value = 3 },
        /* A no-op is never rate limited: it changes nothing. */
        { "no-op while rate limited", ACT_VCPUS, 2, 2, 8, 4, NOW, STRICT, .verdict = ACT_UNCHANGED,
          .value = 2 },

        /* Targets: what a rule can bring within bounds is clamped toward the
         * current value, and the rule that bound is the reason. */
        { "clamp to the ceiling", ACT_CPU_WEIGHT, 1024, 10000, 0, 0, 0, CLAMPING,
          .verdict = ACT_CLAMPED, .rule = ACT_RULE_RANGE, .value = 8192,
          .why = "cpu-weight 10000 is outside the allowed range [128, 8192]" },
        { "clamp to the floor", ACT_CPU_WEIGHT, 1024, 2, 0, 0, 0, CLAMPING, .verdict = ACT_CLAMPED,
          .rule = ACT_RULE_RANGE, .value = 128,
          .why = "cpu-weight 2 is outside the allowed range [128, 8192]" },
        { "clamp to the domain max", ACT_VCPUS, 2, 4, 3, 4, 0, CLAMPING, .verdict = ACT_CLAMPED,
          .rule = ACT_RULE_DOMAIN_MAX, .value = 3,
          .why = "vcpus 4 is above the domain's maximum 3" },
        { "clamp a step", ACT_VCPUS, 2, 8, 8, 4, 0, CLAMPING, .verdict = ACT_CLAMPED,
          .rule = ACT_RULE_STEP, .value = 4,
          .why = "vcpus change of 6 is larger than the maximum step 2" },
        /* The ceiling brings 16 to 8, the step 8 to 4: the step bound. */
        { "clamp twice", ACT_VCPUS, 2, 16, 0, 4, 0, CLAMPING, .verdict = ACT_CLAMPED,
          .rule = ACT_RULE_STEP, .value = 4,
          .why = "vcpus change of 6 is larger than the maximum step 2" },
        { "clamp a shrink step", ACT_MEMORY, 4 * GIB, GIB, 0, 0, 0, CLAMPING,
          .verdict = ACT_CLAMPED, .rule = ACT_RULE_STEP, .value = 2 * GIB,
          .why = "memory change of 3G is larger than the maximum step 2G" },
        /* 28G usable, 26G elsewhere: 2G fit. */
        { "clamp to the reserve", ACT_MEMORY, GIB, 3 * GIB, 0, 26 * GIB, 0, CLAMPING,
          .verdict = ACT_CLAMPED, .rule = ACT_RULE_HOST_RESERVE, .value = 2 * GIB,
          .why = "memory 3G would leave the host's VMs holding 29G of 32G (4G reserved for the "
                 "host)" },
        /* libvirt takes whole KiB: a clamp rounds toward the current value. */
        { "clamp to whole KiB", ACT_MEMORY, GIB, 3 * GIB, 0, 26 * GIB + 100, 0, CLAMPING,
          .verdict = ACT_CLAMPED, .rule = ACT_RULE_HOST_RESERVE, .value = 2 * GIB - 1024,
          .why = "memory 3G would leave the host's VMs holding 31138512996 of 32G (4G reserved "
                 "for the host)" },
        { "reserve full", ACT_MEMORY, GIB, 2 * GIB, 0, 27 * GIB + GIB / 2, 0, CLAMPING,
          .verdict = ACT_REFUSED, .rule = ACT_RULE_HOST_RESERVE, .value = GIB,
          .why = "memory 2G would leave the host's VMs holding 29.5G of 32G (4G reserved for the "
                 "host)" },
        /* What fits is less than a change worth making. */
        { "reserve leaves too little", ACT_MEMORY, GIB, 2 * GIB, 0, 27 * GIB - 32 * MIB, 0,
          CLAMPING, .verdict = ACT_REFUSED, .rule = ACT_RULE_HOST_RESERVE, .value = GIB,
          .why = "memory 2G would leave the host's VMs holding 29664M of 32G (4G reserved for the "
                 "host)" },
        { "clamped below the minimum change", ACT_CPU_WEIGHT, 8190, 9000, 0, 0, 0, CLAMPING,
          .verdict = ACT_REFUSED, .rule = ACT_RULE_MIN_CHANGE, .value = 8190,
          .why = "cpu-weight change of 2 is smaller than the minimum change 16" },
        /* A VM above the ceiling is not brought down by a request to grow. */
        { "clamp never turns around", ACT_VCPUS, 10, 12, 0, 0, 0, CLAMPING, .verdict = ACT_REFUSED,
          .rule = ACT_RULE_RANGE, .value = 10,
          .why = "vcpus 12 is outside the allowed range [1, 8]" },
        { "clamp back into range", ACT_VCPUS, 10, 6, 0, 0, 0, CLAMPING, .unplug = true,
          .verdict = ACT_CLAMPED, .rule = ACT_RULE_STEP, .value = 8,
          .why = "vcpus change of 4 is larger than the maximum step 2" },
        { "clamped unplug", ACT_VCPUS, 4, 1, 0, 0, 0, CLAMPING, .verdict = ACT_REFUSED,
          .rule = ACT_RULE_UNPLUG, .value = 4,
          .why = "vcpus 1 is below the current 4, and unplugging vCPUs is not allowed" },
        { "clamp rate limited", ACT_VCPUS, 2, 8, 8, 4, NOW - USEC_PER_SEC, CLAMPING,
          .verdict = ACT_REFUSED, .rule = ACT_RULE_RATE, .value = 2,
          .why = "vcpus changed 1s ago; changes of one resource are at least 30s apart" },
};

static ActRequest request_for(const LimitCase *c) {
        ActRequest req = {
                .vm = { .known = c->unknown ? ACT_ALL & ~ACT_BIT(c->r) : ACT_ALL },
                .host = { .cpus = 16, .memory = 32 * GIB },
                .target = { .set = ACT_BIT(c->r) },
                .now = NOW,
        };

        req.vm.value[c->r] = c->current;
        req.vm.max[c->r] = c->max;
        req.target.value[c->r] = c->requested;
        if (c->r == ACT_VCPUS)
                req.host.others_vcpus = c->others;
        else
                req.host.others_memory = c->others;
        if (c->last > 0)
                act_history_note(&req.history, c->r, c->last);
        return req;
}

START_TEST(test_limit_rule) {
        const LimitCase *c = &limit_cases[_i];
        ActLimits limits = test_limits(c->unplug);
        ActRequest req = request_for(c);
        const ActOutcome *o;
        ActPlan plan;
        char why[256];

        ck_assert_int_eq(act_plan(&limits, &req, c->flags, &plan), 0);
        o = &plan.r[c->r];
        ck_assert_msg(o->verdict == c->verdict, "%s: got %s (%s), expected %s", c->name,
                      act_verdict_to_string(o->verdict), act_rule_to_string(o->rule),
                      act_verdict_to_string(c->verdict));
        ck_assert_msg(o->rule == c->rule, "%s: rule %s, expected %s", c->name,
                      act_rule_to_string(o->rule), act_rule_to_string(c->rule));
        ck_assert_msg(o->value == c->value, "%s: value %s, expected %s", c->name,
                      ACT_VALUE(c->r, o->value), ACT_VALUE(c->r, c->value));
        ck_assert_str_eq(act_explain(&limits, &req, c->r, o, why, sizeof(why)),
                         c->why ? c->why : "");
        /* Nothing else was asked, so nothing else is decided. */
        for (ActResource r = 0; r < _ACT_RESOURCE_MAX; r++)
                if (r != c->r)
                        ck_assert_int_eq(plan.r[r].verdict, ACT_NOT_ASKED);
}
END_TEST

/* A VM target sets all four resources in one call; the next one within
 * the rate limit's interval is refused resource by resource, and a
 * resource that did not change meanwhile is not held up by the others. */
START_TEST(test_rate_per_resource) {
        ActLimits limits = test_limits(false);
        ActRequest req = {
                .vm = { .known = ACT_ALL,
                        .value = { [ACT_CPU_WEIGHT] = 1024,
                                   [ACT_VCPUS] = 2,
                                   [ACT_CPU_CAP] = NONE,
                                   [ACT_MEMORY] = 2 * GIB },
                        .max = { [ACT_VCPUS] = 8, [ACT_MEMORY] = 8 * GIB } },
                .host = { .cpus = 16, .memory = 32 * GIB },
                .target = { .set = ACT_ALL,
                            .value = { [ACT_CPU_WEIGHT] = 2048,
                                       [ACT_VCPUS] = 3,
                                       [ACT_CPU_CAP] = 1500,
                                       [ACT_MEMORY] = 3 * GIB } },
                .now = NOW,
        };
        const uint64_t second[] = { [ACT_CPU_WEIGHT] = 4096,
                                    [ACT_VCPUS] = 4,
                                    [ACT_CPU_CAP] = 1000,
                                    [ACT_MEMORY] = 4 * GIB };
        ActPlan plan;
        char why[256], expected[256];

        ck_assert_int_eq(act_plan(&limits, &req, 0, &plan), 0);
        for (ActResource r = 0; r < _ACT_RESOURCE_MAX; r++) {
                ck_assert_msg(plan.r[r].verdict == ACT_APPLY, "%s: %s", act_resource_to_string(r),
                              act_verdict_to_string(plan.r[r].verdict));
                ck_assert_uint_eq(plan.r[r].value, req.target.value[r]);
                req.vm.value[r] = plan.r[r].value;
                act_history_note(&req.history, r, req.now);
                req.target.value[r] = second[r];
        }

        req.now += 10 * USEC_PER_SEC;
        ck_assert_int_eq(act_plan(&limits, &req, 0, &plan), 0);
        for (ActResource r = 0; r < _ACT_RESOURCE_MAX; r++) {
                ck_assert_int_eq(plan.r[r].verdict, ACT_REFUSED);
                ck_assert_int_eq(plan.r[r].rule, ACT_RULE_RATE);
                ck_assert_uint_eq(plan.r[r].value, req.vm.value[r]);
                snprintf(expected, sizeof(expected),
                         "%s changed 10s ago; changes of one resource are at least 30s apart",
                         act_resource_to_string(r));
                ck_assert_str_eq(act_explain(&limits, &req, r, &plan.r[r], why, sizeof(why)),
                                 expected);
        }

        /* Memory alone changed long ago: it goes through while the others
         * wait. */
        req.history.last[ACT_MEMORY] = NOW - limits.min_interval;
        ck_assert_int_eq(act_plan(&limits, &req, 0, &plan), 0);
        ck_assert_int_eq(plan.r[ACT_MEMORY].verdict, ACT_APPLY);
        ck_assert_int_eq(plan.r[ACT_VCPUS].verdict, ACT_REFUSED);

        req.now = NOW + limits.min_interval;
        ck_assert_int_eq(act_plan(&limits, &req, 0, &plan), 0);
        for (ActResource r = 0; r < _ACT_RESOURCE_MAX; r++)
                ck_assert_int_eq(plan.r[r].verdict, ACT_APPLY);
}
END_TEST

START_TEST(test_plan_bad_flags) {
        ActRequest req = { 0 };
        ActPlan plan = { .r[0] = { .verdict = ACT_APPLY } };

        ck_assert_int_eq(act_plan(act_limits_default(), &req, 1u << 7, &plan), -EINVAL);
        ck_assert_int_eq(plan.r[0].verdict, ACT_APPLY);
}
END_TEST

START_TEST(test_names_and_units) {
        ActResource r;

        for (int v = 0; v < _ACT_VERDICT_MAX; v++)
                ck_assert_ptr_nonnull(act_verdict_to_string(v));
        for (int k = 0; k < _ACT_RULE_MAX; k++)
                ck_assert_ptr_nonnull(act_rule_to_string(k));
        ck_assert_ptr_null(act_verdict_to_string(_ACT_VERDICT_MAX));
        for (ActResource k = 0; k < _ACT_RESOURCE_MAX; k++) {
                ck_assert_int_eq(act_resource_from_string(act_resource_to_string(k), &r), 0);
                ck_assert_int_eq(r, k);
        }
        ck_assert_int_eq(act_resource_from_string("cpu-weigth", &r), -EINVAL);

        ck_assert_uint_eq(act_cap_from_cpus(0), NONE);
        ck_assert_uint_eq(act_cap_from_cpus(-1), NONE);
        ck_assert_uint_eq(act_cap_from_cpus(1.5), 1500);
        /* A tiny cap is the smallest cap, not none. */
        ck_assert_uint_eq(act_cap_from_cpus(1e-9), 1);
        ck_assert(act_cap_to_cpus(NONE) == 0);
        ck_assert(act_cap_to_cpus(250) == 0.25);
        ck_assert_str_eq(ACT_VALUE(ACT_CPU_CAP, NONE), "none");
        ck_assert_str_eq(ACT_VALUE(ACT_CPU_CAP, 1500), "1.5");
        ck_assert_str_eq(ACT_VALUE(ACT_MEMORY, 3 * GIB), "3G");
        ck_assert_uint_eq(act_vcpu_capacity(&(ActLimits){ .cpu_overcommit = 1.5 }, 6), 9);
}
END_TEST

Suite *suite_actuation(void) {
        Suite *s = suite_create("actuation");
        TCase *tc = tcase_create("limits");

        tcase_add_loop_test(tc, test_limit_rule, 0, (int)ELEMENTSOF(limit_cases));
        tcase_add_test(tc, test_rate_per_resource);
        tcase_add_test(tc, test_plan_bad_flags);
        tcase_add_test(tc, test_names_and_units);
        suite_add_tcase(s, tc);
        return s;
}

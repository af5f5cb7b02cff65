/* SPDX-License-Identifier: MIT */
/* The agent's hypervisor side against libvirt's test driver, in process:
 * sampling a fixture host and changes with their limits, read-back, dry
 * run and rate limit (on a fake clock, so no test sleeps). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/host.h"
#include "common/log.h"
#include "tests.h"

#define GIB (1ULL << 30)

static usec_t fake_now;

static usec_t fake_clock(void) {
        return fake_now;
}

static const AgentLimits limits = {
        .min_vcpus = 1,
        .max_vcpus = 8,
        .max_vcpu_step = 2,
        .min_memory = GIB / 2,
        .max_memory = 16 * GIB,
        .max_memory_step = 2 * GIB,
        .min_memory_change = 64 << 20,
        .min_cpu_weight = 128,
        .max_cpu_weight = 8192,
        .min_cpu_weight_change = 16,
        .min_interval = 30 * USEC_PER_SEC,
        .host_vcpus = 8,
        .host_memory = 7 * GIB,
        .reserve_cpus = 1,
        .reserve_memory = 2 * GIB,
};

static AgentHost host;

static void host_setup(bool dry_run, bool allow_unplug) {
        char uri[4096];

        log_set_max_level(LOG_LEVEL_ERR);
        snprintf(uri, sizeof(uri), "test://%s", test_srcdir_path("tests/fixtures/agent/host.xml"));
        ck_assert_msg(uri[7] == '/', "FLEXSLOT_SRCDIR must be absolute: %s", uri);
        ck_assert_int_eq(agent_host_init(&host, uri, &limits, dry_run, allow_unplug), 0);
        host.clock = fake_clock;
        fake_now = 1000 * USEC_PER_SEC;
}

static void setup(void) {
        host_setup(false, false);
}

static void teardown(void) {
        agent_host_done(&host);
}

static AgentSnapshot *sample(void) {
        AgentSnapshot *s = NULL;

        ck_assert_int_eq(agent_host_sample(&host, &s), 0);
        ck_assert_ptr_nonnull(s);
        return s;
}

static AgentChange change(SafetyResource resource, const char *domain, uint64_t value) {
        AgentChange c = { .resource = resource, .requested = value };

        snprintf(c.domain, sizeof(c.domain), "%s", domain);
        ck_assert_int_eq(agent_host_change(&host, &c), 0);
        return c;
}

START_TEST(test_host_sample) {
        AgentSnapshot *s = sample();
        const AgentDomain *w1 = agent_snapshot_find(s, "worker1");
        const AgentDomain *spare = agent_snapshot_find(s, "44444444-4444-4444-4444-444444444444");

        ck_assert_uint_eq(s->n_domains, 4);
        ck_assert_ptr_nonnull(w1);
        ck_assert_int_eq(w1->metrics.state, HV_STATE_RUNNING);
        ck_assert(w1->metrics.valid & HV_METRIC_VCPUS);
        ck_assert_uint_eq(w1->metrics.vcpus_current, 2);
        ck_assert_uint_eq(w1->metrics.vcpus_max, 4);
        ck_assert_uint_eq(w1->metrics.memory_kib, GIB / 1024);
        ck_assert_uint_eq(w1->metrics.memory_max_kib, 4 * GIB / 1024);
        /* The test driver has no counters to derive rates from. */
        ck_assert(!(w1->metrics.valid & HV_METRIC_STEAL));
        ck_assert_ptr_nonnull(spare);
        ck_assert_str_eq(spare->name, "spare");
        ck_assert_int_eq(spare->metrics.state, HV_STATE_SHUTOFF);
        ck_assert_ptr_null(agent_snapshot_find(s, "nosuch"));
        free(s);
}
END_TEST

START_TEST(test_host_change_then_rate_limit) {
        AgentChange c = change(SAFETY_VCPUS, "worker1", 3);
        AgentSnapshot *s;

        ck_assert_int_eq(c.status, AGENT_CHANGE_APPLIED);
        ck_assert_uint_eq(c.before, 2);
        ck_assert_uint_eq(c.after, 3);
        s = sample();
        ck_assert_uint_eq(agent_snapshot_find(s, "worker1")->metrics.vcpus_current, 3);
        free(s);

        /* Any resource of the same domain is rate limited; others are not. */
        fake_now += 29 * USEC_PER_SEC;
        c = change(SAFETY_MEMORY, "worker1", 2 * GIB);
        ck_assert_int_eq(c.status, AGENT_CHANGE_REFUSED);
        ck_assert_int_eq(c.verdict, SAFETY_RATE_LIMITED);
        ck_assert_uint_eq(c.after, GIB);
        c = change(SAFETY_MEMORY, "worker2", 3 * GIB);
        ck_assert_int_eq(c.status, AGENT_CHANGE_APPLIED);
        ck_assert_uint_eq(c.after, 3 * GIB);

        fake_now += USEC_PER_SEC;
        c = change(SAFETY_MEMORY, "worker1", GIB / 2);
        ck_assert_int_eq(c.status, AGENT_CHANGE_APPLIED);
        ck_assert_uint_eq(c.after, GIB / 2);
}
END_TEST

START_TEST(test_host_unchanged_is_not_a_change) {
        AgentChange c = change(SAFETY_VCPUS, "worker1", 2);

        ck_assert_int_eq(c.status, AGENT_CHANGE_UNCHANGED);
        /* ... so it does not start the rate limit. */
        c = change(SAFETY_VCPUS, "worker1", 3);
        ck_assert_int_eq(c.status, AGENT_CHANGE_APPLIED);
}
END_TEST

START_TEST(test_host_reserve_counts_other_domains) {
        AgentChange c;

        /* 7G host, 2G reserved; worker1 1G + worker2 2G + worker3 1G. Only a
         * sample tells the host what the other domains hold. */
        free(sample());
        c = change(SAFETY_MEMORY, "worker2", 4 * GIB);
        ck_assert_int_eq(c.status, AGENT_CHANGE_REFUSED);
        ck_assert_int_eq(c.verdict, SAFETY_HOST_RESERVE);
        c = change(SAFETY_MEMORY, "worker2", 3 * GIB);
        ck_assert_int_eq(c.status, AGENT_CHANGE_APPLIED);
}
END_TEST

START_TEST(test_host_failures) {
        AgentChange c = change(SAFETY_VCPUS, "nosuch", 2);

        ck_assert_int_eq(c.status, AGENT_CHANGE_FAILED);
        ck_assert_int_eq(c.error, -ENOENT);
        c = change(SAFETY_VCPUS, "spare", 2);
        ck_assert_int_eq(c.error, -ESRCH);
        ck_assert_str_eq(c.message, "domain spare is shutoff; live changes need it running");
        c = change(SAFETY_CPU_WEIGHT, "worker1", 512);
        ck_assert_int_eq(c.error, -EOPNOTSUPP);
        /* Unplug is off unless configured. */
        c = change(SAFETY_VCPUS, "worker1", 1);
        ck_assert_int_eq(c.status, AGENT_CHANGE_FAILED);
        ck_assert_int_eq(c.error, -EPERM);
        c = change(SAFETY_VCPUS, "worker1", 2);
        ck_assert_int_eq(c.status, AGENT_CHANGE_UNCHANGED);
}
END_TEST

START_TEST(test_host_unplug_when_allowed) {
        AgentChange c;

        agent_host_done(&host);
        host_setup(false, true);
        c = change(SAFETY_VCPUS, "worker1", 1);
        ck_assert_int_eq(c.status, AGENT_CHANGE_APPLIED);
        ck_assert_uint_eq(c.after, 1);
}
END_TEST

START_TEST(test_host_dry_run_changes_nothing) {
        AgentChange c;
        AgentSnapshot *s;

        agent_host_done(&host);
        host_setup(true, false);
        c = change(SAFETY_VCPUS, "worker1", 3);
        ck_assert_int_eq(c.status, AGENT_CHANGE_DRY_RUN);
        ck_assert_uint_eq(c.before, 2);
        ck_assert_uint_eq(c.after, 2);
        s = sample();
        ck_assert_uint_eq(agent_snapshot_find(s, "worker1")->metrics.vcpus_current, 2);
        free(s);
        /* Refusals are still refusals in a dry run. */
        c = change(SAFETY_VCPUS, "worker1", 4 + 1);
        ck_assert_int_eq(c.status, AGENT_CHANGE_REFUSED);
}
END_TEST

Suite *suite_agent_host(void) {
        Suite *s = suite_create("agent_host");
        TCase *tc = tcase_create("host");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_host_sample);
        tcase_add_test(tc, test_host_change_then_rate_limit);
        tcase_add_test(tc, test_host_unchanged_is_not_a_change);
        tcase_add_test(tc, test_host_reserve_counts_other_domains);
        tcase_add_test(tc, test_host_failures);
        tcase_add_test(tc, test_host_unplug_when_allowed);
        tcase_add_test(tc, test_host_dry_run_changes_nothing);
        suite_add_tcase(s, tc);
        return s;
}

/* SPDX-License-Identifier: MIT */
/* The agent's hypervisor side, in process: the collector and the actuator
 * on connections of their own to libvirt's test driver (sampling a fixture
 * host, changes and targets with their limits, read-back, dry run, the
 * rate limit per resource, on a fake clock so that no test sleeps), and the
 * collector's reading of per-domain settings against a counting driver. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/actuator.h"
#include "actuation/act-config.h"
#include "agent/collector.h"
#include "agent/target-check.h"
#include "hypervisor/libvirt.h"
#include "common/log.h"
#include "common/macro.h"
#include "proto/agent1.h"
#include "tests.h"

#define GIB (1ULL << 30)

static usec_t fake_now;

static usec_t fake_clock(void) {
        return fake_now;
}

static AgentCollector collector;
static AgentActuator actuator;

static void host_setup_on(const char *fixture, bool dry_run, bool allow_unplug) {
        /* The shipped defaults on an 8-CPU, 7G host with 2G reserved. */
        ActLimits limits = *act_limits_default();
        ActHost capacity = { .cpus = 8, .memory = 7 * GIB };
        char uri[4096];

        limits.reserve_memory = 2 * GIB;
        limits.allow_vcpu_unplug = allow_unplug;
        log_set_max_level(LOG_LEVEL_ERR);
        snprintf(uri, sizeof(uri), "test://%s", test_srcdir_path(fixture));
        ck_assert_msg(uri[7] == '/', "FLEXSLOT_SRCDIR must be absolute: %s", uri);
        ck_assert_int_eq(agent_collector_init(&collector, uri), 0);
        ck_assert_int_eq(agent_actuator_init(&actuator, uri, &limits, &capacity, dry_run), 0);
        collector.clock = actuator.clock = fake_clock;
        fake_now = 1000 * USEC_PER_SEC;
}

static void host_setup(bool dry_run, bool allow_unplug) {
        host_setup_on("tests/fixtures/agent/host.xml", dry_run, allow_unplug);
}

static void setup(void) {
        host_setup(false, false);
}

static void teardown(void) {
        agent_collector_done(&collector);
        agent_actuator_done(&actuator);
}

static AgentSnapshot *sample(void) {
        AgentSnapshot *s = NULL;

        ck_assert_int_eq(agent_collector_sample(&collector, NULL, &s), 0);
        ck_assert_ptr_nonnull(s);
        return s;
}

/* A change as the daemon makes it: what the other domains hold comes from
 * the newest sample. */
static AgentChange change_target(const char *domain, const ActTarget *t, unsigned flags) {
        AgentChange c = { .target = *t, .flags = flags };

        snprintf(c.domain, sizeof(c.domain), "%s", domain);
        agent_snapshot_others(collector.latest, domain, &c.others_vcpus, &c.others_memory);
        ck_assert_int_eq(agent_actuator_change(&actuator, &c), 0);
        return c;
}

/* SetVcpus and the like: one resource, refused rather than clamped. */
static AgentResourceChange change(ActResource r, const char *domain, uint64_t value) {
        ActTarget t = { .set = ACT_BIT(r) };
        AgentChange c;

        t.value[r] = value;
        c = change_target(domain, &t, ACT_STRICT);
        ck_assert_int_eq(c.error, 0);
        return c.r[r];
}

START_TEST(test_host_sample) {
        AgentSnapshot *s = sample();
        const AgentDomain *w1 = agent_snapshot_find(s, "worker1");
        const AgentDomain *spare = agent_snapshot_find(s, "44444444-4444-4444-4444-444444444444");
        uint64_t vcpus, memory;

        ck_assert_uint_eq(s->n_domains, 4);
        ck_assert_ptr_nonnull(w1);
        ck_assert_int_eq(w1->metrics.state, HV_STATE_RUNNING);
        ck_assert(w1->metrics.valid & HV_METRIC_VCPUS);
        ck_assert_uint_eq(w1->metrics.vcpus_current, 2);
        ck_assert_uint_eq(w1->metrics.vcpus_max, 4);
        ck_assert_uint_eq(w1->metrics.memory_kib, GIB / 1024);
        ck_assert_uint_eq(w1->metrics.memory_max_kib, 4 * GIB / 1024);
        /* The test driver has no counters to derive rates from, and no
         * cpu_shares or quota. */
        ck_assert(!(w1->metrics.valid & HV_METRIC_STEAL));
        ck_assert_uint_eq(w1->settings, 0);
        ck_assert_ptr_nonnull(spare);
        ck_assert_str_eq(spare->name, "spare");
        ck_assert_int_eq(spare->metrics.state, HV_STATE_SHUTOFF);
        ck_assert_ptr_null(agent_snapshot_find(s, "nosuch"));

        /* worker1 2 vCPUs 1G, worker3 1 and 1G; spare is shut off. */
        agent_snapshot_others(s, "worker2", &vcpus, &memory);
        ck_assert_uint_eq(vcpus, 3);
        ck_assert_uint_eq(memory, 2 * GIB);
        agent_snapshot_others(NULL, "worker2", &vcpus, &memory);
        ck_assert_uint_eq(vcpus + memory, 0);
        free(s);
}
END_TEST

/* The collector and the actuator have a connection each; a change made on
 * one is what the other samples, as on a real host. */
START_TEST(test_host_change_then_rate_limit) {
        AgentResourceChange c = change(ACT_VCPUS, "worker1", 3);
        AgentSnapshot *s;

        ck_assert_int_eq(c.status, AGENT_CHANGE_APPLIED);
        ck_assert_uint_eq(c.before, 2);
        ck_assert_uint_eq(c.after, 3);
        s = sample();
        ck_assert_uint_eq(agent_snapshot_find(s, "worker1")->metrics.vcpus_current, 3);
        free(s);

        /* The rate limit is per resource: worker1's memory may change, its
         * vCPUs not again within the interval. */
        fake_now += 29 * USEC_PER_SEC;
        c = change(ACT_MEMORY, "worker1", 2 * GIB);
        ck_assert_int_eq(c.status, AGENT_CHANGE_APPLIED);
        ck_assert_uint_eq(c.after, 2 * GIB);
        c = change(ACT_VCPUS, "worker1", 4);
        ck_assert_int_eq(c.status, AGENT_CHANGE_REFUSED);
        ck_assert_int_eq(c.outcome.rule, ACT_RULE_RATE);
        ck_assert_str_eq(c.message,
                         "vcpus changed 29s ago; changes of one resource are at least 30s apart");
        ck_assert_uint_eq(c.after, 3);

        fake_now += USEC_PER_SEC;
        c = change(ACT_VCPUS, "worker1", 4);
        ck_assert_int_eq(c.status, AGENT_CHANGE_APPLIED);
        ck_assert_uint_eq(c.after, 4);
}
END_TEST

START_TEST(test_host_unchanged_is_not_a_change) {
        AgentResourceChange c = change(ACT_VCPUS, "worker1", 2);

        ck_assert_int_eq(c.status, AGENT_CHANGE_UNCHANGED);
        /* ... so it does not start the rate limit. */
        c = change(ACT_VCPUS, "worker1", 3);
        ck_assert_int_eq(c.status, AGENT_CHANGE_APPLIED);
}
END_TEST

START_TEST(test_host_reserve_counts_other_domains) {
        AgentResourceChange c;

        /* 7G host, 2G reserved; worker1 1G + worker2 2G + worker3 1G. Only a
         * sample tells the actuator what the other domains hold. */
        free(sample());
        c = change(ACT_MEMORY, "worker2", 4 * GIB);
        ck_assert_int_eq(c.status, AGENT_CHANGE_REFUSED);
        ck_assert_int_eq(c.outcome.rule, ACT_RULE_HOST_RESERVE);
        ck_assert_str_eq(c.message, "memory 4G would leave the host's VMs holding 6G of 7G (2G "
                                    "reserved for the host)");
        c = change(ACT_MEMORY, "worker2", 3 * GIB);
        ck_assert_int_eq(c.status, AGENT_CHANGE_APPLIED);
}
END_TEST

START_TEST(test_host_failures) {
        ActTarget t = { .set = ACT_BIT(ACT_VCPUS), .value[ACT_VCPUS] = 2 };
        AgentChange whole = change_target("nosuch", &t, ACT_STRICT);
        AgentResourceChange c;

        ck_assert_int_eq(whole.error, -ENOENT);
        ck_assert_str_eq(whole.message, "No domain 'nosuch'");
        whole = change_target("spare", &t, ACT_STRICT);
        ck_assert_int_eq(whole.error, -ESRCH);
        ck_assert_str_eq(whole.message, "domain spare is shutoff; live changes need it running");
        c = change(ACT_CPU_WEIGHT, "worker1", 512);
        ck_assert_int_eq(c.status, AGENT_CHANGE_REFUSED);
        ck_assert_int_eq(c.outcome.rule, ACT_RULE_UNKNOWN);
        ck_assert_str_eq(c.message, "the hypervisor reports no cpu-weight");
        /* Unplug is off unless configured. */
        c = change(ACT_VCPUS, "worker1", 1);
        ck_assert_int_eq(c.status, AGENT_CHANGE_REFUSED);
        ck_assert_int_eq(c.outcome.rule, ACT_RULE_UNPLUG);
        c = change(ACT_VCPUS, "worker1", 2);
        ck_assert_int_eq(c.status, AGENT_CHANGE_UNCHANGED);
}
END_TEST

START_TEST(test_host_unplug_when_allowed) {
        AgentResourceChange c;

        teardown();
        host_setup(false, true);
        c = change(ACT_VCPUS, "worker1", 1);
        ck_assert_int_eq(c.status, AGENT_CHANGE_APPLIED);
        ck_assert_uint_eq(c.after, 1);
}
END_TEST

START_TEST(test_host_dry_run_changes_nothing) {
        ActTarget t = { .set = ACT_BIT(ACT_VCPUS), .value[ACT_VCPUS] = 4 };
        AgentResourceChange c;
        AgentSnapshot *s;

        teardown();
        host_setup(true, false);
        c = change(ACT_VCPUS, "worker1", 3);
        ck_assert_int_eq(c.status, AGENT_CHANGE_DRY_RUN);
        ck_assert_uint_eq(c.before, 2);
        ck_assert_uint_eq(c.after, 2);
        s = sample();
        ck_assert_uint_eq(agent_snapshot_find(s, "worker1")->metrics.vcpus_current, 2);
        free(s);
        /* Refusals are still refusals in a dry run... */
        c = change(ACT_VCPUS, "worker1", 4 + 1);
        ck_assert_int_eq(c.status, AGENT_CHANGE_REFUSED);
        /* ... and a clamp says what it would have applied. */
        c = change_target("worker3", &t, 0).r[ACT_VCPUS];
        ck_assert_int_eq(c.status, AGENT_CHANGE_DRY_RUN);
        ck_assert_int_eq(c.outcome.verdict, ACT_CLAMPED);
        ck_assert_uint_eq(c.outcome.value, 2);
        ck_assert_uint_eq(c.after, 1);
}
END_TEST

/* A VM target: every resource decided and applied in one call, each with
 * its own verdict. */
START_TEST(test_host_target) {
        ActTarget t = { .set = ACT_ALL,
                        .value = { [ACT_CPU_WEIGHT] = 2048,
                                   [ACT_VCPUS] = 4,
                                   [ACT_CPU_CAP] = 1500,
                                   [ACT_MEMORY] = 4 * GIB } };
        AgentSnapshot *s;
        AgentChange c;

        free(sample());
        c = change_target("worker1", &t, 0);
        ck_assert_int_eq(c.error, 0);
        ck_assert_str_eq(c.uuid, "11111111-1111-1111-1111-111111111111");
        /* The test driver has neither cpu_shares nor a quota. */
        ck_assert_int_eq(c.r[ACT_CPU_WEIGHT].status, AGENT_CHANGE_REFUSED);
        ck_assert_int_eq(c.r[ACT_CPU_WEIGHT].outcome.rule, ACT_RULE_UNKNOWN);
        ck_assert_int_eq(c.r[ACT_CPU_CAP].status, AGENT_CHANGE_REFUSED);
        /* 7 of 8 vCPUs usable, 3 elsewhere: 2 -> 4 fits. */
        ck_assert_int_eq(c.r[ACT_VCPUS].status, AGENT_CHANGE_APPLIED);
        ck_assert_uint_eq(c.r[ACT_VCPUS].after, 4);
        /* 1G -> 4G: the 2G step makes it 3G, the host reserve (5G usable,
         * 3G elsewhere) 2G. */
        ck_assert_int_eq(c.r[ACT_MEMORY].status, AGENT_CHANGE_CLAMPED);
        ck_assert_int_eq(c.r[ACT_MEMORY].outcome.rule, ACT_RULE_HOST_RESERVE);
        ck_assert_uint_eq(c.r[ACT_MEMORY].before, GIB);
        ck_assert_uint_eq(c.r[ACT_MEMORY].after, 2 * GIB);
        ck_assert_str_eq(c.r[ACT_MEMORY].message,
                         "memory 3G would leave the host's VMs holding 6G of 7G (2G reserved "
                         "for the host)");

        s = sample();
        ck_assert_uint_eq(agent_snapshot_find(s, "worker1")->metrics.vcpus_current, 4);
        ck_assert_uint_eq(agent_snapshot_find(s, "worker1")->metrics.memory_kib, 2 * GIB / 1024);
        free(s);

        /* The next target within the interval: refused per resource, with
         * the rate limit as the reason of what changed. */
        fake_now += 10 * USEC_PER_SEC;
        t.value[ACT_VCPUS] = 3;
        t.value[ACT_MEMORY] = GIB;
        c = change_target("worker1", &t, 0);
        ck_assert_int_eq(c.r[ACT_VCPUS].outcome.rule, ACT_RULE_UNPLUG);
        ck_assert_int_eq(c.r[ACT_MEMORY].status, AGENT_CHANGE_REFUSED);
        ck_assert_int_eq(c.r[ACT_MEMORY].outcome.rule, ACT_RULE_RATE);
        ck_assert_int_eq(c.r[ACT_CPU_WEIGHT].outcome.rule, ACT_RULE_UNKNOWN);
}
END_TEST

/* ---- the balloon guard ---- */

/* A change of worker2's memory to bytes, with what the last sample said of
 * its guest's memory. The test driver has no guest statistics: the bits
 * are given as the daemon takes them from the sample
 * (test_collector_guest_memory has the collector make them). */
static AgentResourceChange memory_of_worker2(uint64_t bytes, unsigned guest_memory) {
        AgentChange c = { .target = { .set = ACT_BIT(ACT_MEMORY), .value[ACT_MEMORY] = bytes },
                          .flags = ACT_STRICT,
                          .guest_memory = guest_memory };

        snprintf(c.domain, sizeof(c.domain), "worker2");
        ck_assert_int_eq(agent_actuator_change(&actuator, &c), 0);
        ck_assert_int_eq(c.error, 0);
        /* The test driver's domains have no QEMU, so no cgroup: a shrink's
         * decision says it went without the pressure. */
        if (actuator.balloon_guard && bytes < 3 * GIB / 2)
                ck_assert_msg(strstr(c.limits, "; balloon-guard without memory.pressure ("), "%s",
                              c.limits);
        return c.r[ACT_MEMORY];
}

/* No shrink without fresh statistics from the guest, none while its major
 * faults or swap-in rise; growth is never held back, and without the guard
 * a shrink goes through as before. */
START_TEST(test_balloon_guard) {
        AgentResourceChange x;
        AgentSnapshot *s;

        x = memory_of_worker2(3 * GIB / 2, 0);
        ck_assert_int_eq(x.status, AGENT_CHANGE_APPLIED);
        fake_now += 60 * USEC_PER_SEC;

        actuator.balloon_guard = true;
        x = memory_of_worker2(GIB, 0);
        ck_assert_int_eq(x.status, AGENT_CHANGE_REFUSED);
        ck_assert_int_eq(x.guard, AGENT_GUARD_NO_GUEST_STATS);
        ck_assert_str_eq(x.message, "memory 1G is below the current 1.5G, and the guest "
                                    "reported no memory statistics since the last sample (it "
                                    "needs a balloon stats period)");
        x = memory_of_worker2(GIB, AGENT_GUEST_STATS_FRESH | AGENT_GUEST_PRESSURE_RISING);
        ck_assert_int_eq(x.status, AGENT_CHANGE_REFUSED);
        ck_assert_int_eq(x.guard, AGENT_GUARD_GUEST_PRESSURE);
        ck_assert_str_eq(x.message, "memory 1G is below the current 1.5G, and the guest had "
                                    "more major faults or swap-in than in the sample before");
        s = sample();
        ck_assert_uint_eq(agent_snapshot_find(s, "worker2")->metrics.memory_kib,
                          3 * GIB / 2 / 1024);
        free(s);

        x = memory_of_worker2(GIB, AGENT_GUEST_STATS_FRESH);
        ck_assert_int_eq(x.status, AGENT_CHANGE_APPLIED);
        ck_assert_int_eq(x.guard, AGENT_GUARD_NONE);
        ck_assert_uint_eq(x.after, GIB);
        fake_now += 60 * USEC_PER_SEC;
        x = memory_of_worker2(2 * GIB, 0);
        ck_assert_int_eq(x.status, AGENT_CHANGE_APPLIED);
}
END_TEST

/* ---- a VM's own limits in its metadata ---- */

static void limits_setup(void) {
        host_setup_on("tests/fixtures/agent/host-limits.xml", false, false);
}

/* The VM's limits narrow the agent's for that VM only, and a refusal names
 * the VM and its limit. */
START_TEST(test_vm_limits_narrow_the_agents) {
        AgentResourceChange c;
        AgentSnapshot *s;

        c = change(ACT_VCPUS, "limited", 4);
        ck_assert_int_eq(c.status, AGENT_CHANGE_REFUSED);
        ck_assert_int_eq(c.outcome.rule, ACT_RULE_RANGE);
        ck_assert_str_eq(c.message, "vcpus 4 is outside the allowed range [1, 3], set by "
                                    "limited's metadata max-vcpus");
        c = change(ACT_MEMORY, "limited", GIB);
        ck_assert_int_eq(c.status, AGENT_CHANGE_REFUSED);
        ck_assert_int_eq(c.outcome.rule, ACT_RULE_RANGE);
        ck_assert_msg(strstr(c.message, ", set by limited's metadata min-memory"), "%s", c.message);
        c = change(ACT_VCPUS, "limited", 3);
        ck_assert_int_eq(c.status, AGENT_CHANGE_APPLIED);
        ck_assert_uint_eq(c.after, 3);
        /* The agent's own limits (max-vcpus 8) for a VM without any. */
        c = change(ACT_VCPUS, "plain", 4);
        ck_assert_int_eq(c.status, AGENT_CHANGE_APPLIED);
        s = sample();
        ck_assert_uint_eq(agent_snapshot_find(s, "limited")->metrics.vcpus_current, 3);
        ck_assert_uint_eq(agent_snapshot_find(s, "limited")->metrics.memory_kib, 2 * GIB / 1024);
        free(s);
}
END_TEST

/* Limits that do not parse, or leave nothing within the agent's: the VM is
 * not changed at all, and the error says which VM and which limit. */
START_TEST(test_vm_limits_refused_when_wrong) {
        ActTarget t = { .set = ACT_BIT(ACT_VCPUS), .value[ACT_VCPUS] = 3 };
        AgentChange c = { .target = t, .flags = ACT_STRICT };
        AgentSnapshot *s;

        snprintf(c.domain, sizeof(c.domain), "misconfigured");
        ck_assert_int_eq(agent_actuator_change(&actuator, &c), 0);
        ck_assert_int_eq(c.error, -EPERM);
        ck_assert_str_eq(c.message, "misconfigured's limits in its metadata "
                                    "(https://flexslot.org/xmlns/limits/1): max-vcpus: 'many' "
                                    "is not a valid count");

        c = (AgentChange){ .target = t, .flags = ACT_STRICT };
        snprintf(c.domain, sizeof(c.domain), "conflicting");
        ck_assert_int_eq(agent_actuator_change(&actuator, &c), 0);
        ck_assert_int_eq(c.error, -EINVAL);
        ck_assert_str_eq(c.message, "conflicting's limits in its metadata leave no vcpus within "
                                    "the agent's: minimum 9, maximum 8");
        s = sample();
        ck_assert_uint_eq(agent_snapshot_find(s, "misconfigured")->metrics.vcpus_current, 2);
        ck_assert_uint_eq(agent_snapshot_find(s, "conflicting")->metrics.vcpus_current, 2);
        free(s);
}
END_TEST

/* A VM whose metadata opts it out is measured as any other and never
 * changed, not even within every limit or as a dry run. */
START_TEST(test_vm_limits_opt_out) {
        ActTarget t = { .set = ACT_BIT(ACT_VCPUS) | ACT_BIT(ACT_MEMORY),
                        .value = { [ACT_VCPUS] = 3, [ACT_MEMORY] = 3 * GIB / 2 } };
        AgentChange c = { .target = t };
        const AgentDomain *d;
        AgentSnapshot *s;

        actuator.dry_run = true;
        snprintf(c.domain, sizeof(c.domain), "unmanaged");
        ck_assert_int_eq(agent_actuator_change(&actuator, &c), 0);
        ck_assert_int_eq(c.error, -EROFS);
        ck_assert_str_eq(c.message, "unmanaged is not managed: its metadata "
                                    "(https://flexslot.org/xmlns/limits/1) says manage=\"no\"");
        ck_assert_int_eq(c.r[ACT_VCPUS].status, AGENT_CHANGE_NOT_ASKED);
        actuator.dry_run = false;
        c = (AgentChange){ .target = t };
        snprintf(c.domain, sizeof(c.domain), "66666666-6666-6666-6666-666666666665");
        ck_assert_int_eq(agent_actuator_change(&actuator, &c), 0);
        ck_assert_int_eq(c.error, -EROFS);
        s = sample();
        d = agent_snapshot_find(s, "unmanaged");
        ck_assert(d->metrics.valid & HV_METRIC_VCPUS);
        ck_assert_uint_eq(d->metrics.vcpus_current, 2);
        ck_assert_uint_eq(d->metrics.memory_kib, GIB / 1024);
        free(s);
}
END_TEST

/* ---- a domain busy in a job ---- */

/* The test driver cannot hold a domain in a job, nor has it the counters a
 * busy domain's answer lacks, so the skip is made at the hypervisor layer's
 * boundary: libvirt's backend on the test driver's fixture host, whose bulk
 * answer gets the counters of a running domain (a steady steal of a
 * quarter, half a CPU of use, on the fake clock), except that of in_job:
 * that one is answered as NOWAIT answers a domain in a job, its state
 * without its counters. The collector around it is the agent's own. */
static const char *in_job;
/* The guests' memory statistics in the answer, as a guest with a balloon
 * stats period reports them: its last report (seconds), its major faults. */
static bool guest_stats;
static uint64_t guest_report, guest_major_faults;
/* A domain paused for a dump (its state's reason as libvirt gives it), and
 * how long worker1 has been paused so far, which its counters did not
 * count. */
static const char *dumping;
static usec_t worker1_paused;

static int job_sample_all(HvConnection *conn, unsigned flags, HvDomainSample **ret, size_t *ret_n) {
        int r = hv_libvirt_driver.sample_all(conn, flags, ret, ret_n);

        for (size_t i = 0; r >= 0 && i < *ret_n; i++) {
                HvDomainSample *d = &(*ret)[i];
                uint64_t ns = fake_now * NSEC_PER_USEC;

                d->sampled_usec = fake_now;
                d->span_usec = 0;
                if (d->state != HV_STATE_RUNNING || (in_job && strcmp(d->name, in_job) == 0))
                        continue;
                if (strcmp(d->name, "worker1") == 0)
                        ns -= worker1_paused * NSEC_PER_USEC;
                if (dumping && strcmp(d->name, dumping) == 0) {
                        d->state = HV_STATE_PAUSED;
                        d->state_reason = VIR_DOMAIN_PAUSED_DUMP;
                }
                d->fields |= HV_FIELD_CPU_TIME | HV_FIELD_VCPU_DELAY;
                d->cpu_time_ns = ns / 2;
                d->vcpu_present[0] = 1;
                d->vcpu_delay_ns[0] = ns / 4;
                if (!guest_stats)
                        continue;
                d->fields |= HV_FIELD_BALLOON_GUEST | HV_FIELD_BALLOON_UPDATE |
                             HV_FIELD_BALLOON_PRESSURE;
                d->balloon_available_kib = 1024 * 1024;
                d->balloon_unused_kib = 512 * 1024;
                d->balloon_last_update = guest_report;
                d->balloon_major_faults = guest_major_faults;
        }
        return r;
}

static AgentSnapshot *sample_after(usec_t usec) {
        fake_now += usec;
        return sample();
}

static void job_driver_open(void) {
        static HypervisorDriver job_driver;

        job_driver = hv_libvirt_driver;
        job_driver.sample_all = job_sample_all;
        ck_assert_int_eq(
                hv_connection_open_driver(&job_driver, collector.uri, NULL, 0, &collector.conn), 0);
}

/* worker1's guest memory as the balloon guard sees it after the next
 * sample. */
static unsigned guest_memory_next(void) {
        AgentSnapshot *s = sample_after(USEC_PER_SEC);
        unsigned g = agent_snapshot_guest_memory(s, "worker1");

        free(s);
        return g;
}

/* Fresh when the guest reported since the sample before, rising when its
 * major faults grew; nothing known without the guest's statistics. */
START_TEST(test_collector_guest_memory) {
        job_driver_open();
        guest_stats = false;
        free(sample());
        ck_assert_uint_eq(guest_memory_next(), 0);
        guest_stats = true;
        guest_report = 100;
        ck_assert_uint_eq(guest_memory_next(), 0); /* no report before to compare */
        guest_report++;
        ck_assert_uint_eq(guest_memory_next(), AGENT_GUEST_STATS_FRESH);
        /* The guest stopped reporting: libvirt answers with its last. */
        ck_assert_uint_eq(guest_memory_next(), 0);
        guest_report++;
        guest_major_faults += 30;
        ck_assert_uint_eq(guest_memory_next(),
                          AGENT_GUEST_STATS_FRESH | AGENT_GUEST_PRESSURE_RISING);
        guest_report++;
        ck_assert_uint_eq(guest_memory_next(), AGENT_GUEST_STATS_FRESH);
        guest_stats = false;
}
END_TEST

/* A domain stuck in a job keeps its last measured values, with their age,
 * while the others are sampled as ever; one never measured stays unknown;
 * the skipped rounds are counted, and the rates come back after the job. */
START_TEST(test_collector_domain_in_job) {
        AgentSnapshot *s;
        const AgentDomain *w1, *w2;

        job_driver_open();
        /* worker2 is busy from the start: never measured, unknown. */
        in_job = "worker2";
        free(sample());
        s = sample_after(USEC_PER_SEC);
        w1 = agent_snapshot_find(s, "worker1");
        w2 = agent_snapshot_find(s, "worker2");
        ck_assert(w1->metrics.valid & HV_METRIC_STEAL);
        ck_assert_double_eq_tol(w1->metrics.steal, 0.25, 1e-9);
        ck_assert_double_eq_tol(w1->metrics.cpu_use, 0.5, 1e-9);
        ck_assert_uint_eq(w1->age_usec, 0);
        ck_assert(!(w2->metrics.valid & (HV_METRIC_STEAL | HV_METRIC_CPU_USE)));
        ck_assert_uint_eq(w2->skipped_total, 0);
        free(s);

        /* worker1 goes into a job for three rounds: its steal stands, with
         * its age, and each round is counted; worker2 answers again. */
        in_job = "worker1";
        for (unsigned round = 1; round <= 3; round++) {
                s = sample_after(2 * USEC_PER_SEC);
                w1 = agent_snapshot_find(s, "worker1");
                ck_assert(w1->metrics.valid & HV_METRIC_STEAL);
                ck_assert_double_eq_tol(w1->metrics.steal, 0.25, 1e-9);
                ck_assert_uint_eq(w1->age_usec, round * 2 * USEC_PER_SEC);
                ck_assert_uint_eq(w1->skipped_rounds, round);
                ck_assert_uint_eq(w1->skipped_total, round);
                /* vCPUs and memory come from the info call: fresh. The
                 * index is the HvMetricValid bit's number. */
                ck_assert_uint_eq(w1->measured[__builtin_ctz(HV_METRIC_VCPUS)], fake_now);
                ck_assert_uint_eq(w1->measured[__builtin_ctz(HV_METRIC_MEMORY)], fake_now);
                ck_assert_uint_eq(w1->measured[__builtin_ctz(HV_METRIC_STEAL)],
                                  fake_now - round * 2 * USEC_PER_SEC);
                free(s);
        }
        /* worker2's first answer with counters gives no rate yet (no base),
         * its second does. */
        w2 = agent_snapshot_find(collector.latest, "worker2");
        ck_assert(w2->metrics.valid & HV_METRIC_STEAL);
        ck_assert_uint_eq(w2->age_usec, 0);

        /* Out of the job: the rate is measured again, over the interval
         * from its last counters, and the run of skips ends. */
        in_job = NULL;
        s = sample_after(USEC_PER_SEC);
        w1 = agent_snapshot_find(s, "worker1");
        ck_assert(w1->metrics.valid & HV_METRIC_STEAL);
        ck_assert_double_eq_tol(w1->metrics.steal, 0.25, 1e-9);
        ck_assert_uint_eq(w1->metrics.interval_usec, 7 * USEC_PER_SEC);
        ck_assert_uint_eq(w1->age_usec, 0);
        ck_assert_uint_eq(w1->skipped_rounds, 0);
        ck_assert_uint_eq(w1->skipped_total, 3);
        free(s);
}
END_TEST

/* A domain paused for a libvirt job answers every counter, but a paused
 * guest's rates say idle, not its load: it is skipped as a domain whose
 * counters were not answered, its last rates standing with their age, and
 * the rates after the job are measured from its last paused sample. The
 * other domains are sampled as ever. */
START_TEST(test_collector_domain_paused_for_job) {
        AgentSnapshot *s;
        const AgentDomain *w1, *w2;

        job_driver_open();
        free(sample());
        free(sample_after(USEC_PER_SEC));
        dumping = "worker1";
        for (unsigned round = 1; round <= 2; round++) {
                /* Paused since the sample before: its counters stand. */
                worker1_paused += 2 * USEC_PER_SEC;
                s = sample_after(2 * USEC_PER_SEC);
                w1 = agent_snapshot_find(s, "worker1");
                w2 = agent_snapshot_find(s, "worker2");
                ck_assert_int_eq(w1->metrics.state, HV_STATE_PAUSED);
                ck_assert_str_eq(w1->job, "dump");
                ck_assert_uint_eq(w1->skipped_rounds, round);
                ck_assert(w1->metrics.valid & HV_METRIC_STEAL);
                ck_assert_double_eq_tol(w1->metrics.steal, 0.25, 1e-9);
                ck_assert_double_eq_tol(w1->metrics.cpu_use, 0.5, 1e-9);
                ck_assert_uint_eq(w1->age_usec, round * 2 * USEC_PER_SEC);
                ck_assert_uint_eq(w2->age_usec, 0);
                ck_assert_uint_eq(w2->skipped_total, 0);
                ck_assert_double_eq_tol(w2->metrics.cpu_use, 0.5, 1e-9);
                free(s);
        }
        dumping = NULL;
        s = sample_after(USEC_PER_SEC);
        w1 = agent_snapshot_find(s, "worker1");
        ck_assert_int_eq(w1->metrics.state, HV_STATE_RUNNING);
        ck_assert_str_eq(w1->job, "");
        ck_assert_uint_eq(w1->skipped_rounds, 0);
        ck_assert_uint_eq(w1->skipped_total, 2);
        ck_assert_uint_eq(w1->age_usec, 0);
        ck_assert_uint_eq(w1->metrics.interval_usec, USEC_PER_SEC);
        ck_assert_double_eq_tol(w1->metrics.cpu_use, 0.5, 1e-9);
        free(s);
}
END_TEST

/* ---- targets shown ---- */

static void count_report(const AgentTargetCheck *check, void *userdata) {
        (*(unsigned *)userdata)++;
}

/* The daemon's order on each sample: judge, then stamp the states into the
 * sample the metrics carry. */
static AgentSnapshot *sample_judged(AgentTargetChecks *checks, usec_t after, unsigned *reports) {
        AgentSnapshot *s = sample_after(after);

        agent_target_checks_judge(checks, s, count_report, reports);
        agent_target_checks_stamp(checks, s);
        return s;
}

/* A vCPU target the domain does not show by the end of the grace period is
 * carried by each sample as unreached, not as a success: within the grace
 * it is pending, and what was never asked has no state. The vCPU goes away
 * behind the agent's back, on the same test driver, as a guest that does
 * not online a hot-added vCPU leaves it. */
START_TEST(test_target_unreached_is_shown) {
        ActTarget t = { .set = ACT_BIT(ACT_VCPUS), .value[ACT_VCPUS] = 3 };
        AgentTargetChecks checks = { 0 };
        AgentChange c = change_target("worker1", &t, ACT_STRICT);
        const AgentDomain *d;
        AgentSnapshot *s;
        unsigned reports = 0, got;

        ck_assert_int_eq(c.r[ACT_VCPUS].status, AGENT_CHANGE_APPLIED);
        ck_assert_int_eq(agent_target_expect(&checks, c.uuid, c.name, ACT_VCPUS, 3,
                                             fake_now + 30 * USEC_PER_SEC, 1),
                         0);
        s = sample_judged(&checks, USEC_PER_SEC, &reports);
        d = agent_snapshot_find(s, "worker1");
        ck_assert_int_eq(d->vcpus_target, AGENT_TARGET_PENDING);
        ck_assert_int_eq(d->memory_target, AGENT_TARGET_NONE);
        ck_assert_int_eq(agent_snapshot_find(s, "worker2")->vcpus_target, AGENT_TARGET_NONE);
        ck_assert_uint_eq(reports, 0);
        free(s);

        ck_assert_int_eq(
                hv_domain_set_vcpus(actuator.conn, "worker1", 2, HV_VCPUS_ALLOW_UNPLUG, &got), 0);
        s = sample_judged(&checks, 30 * USEC_PER_SEC, &reports);
        d = agent_snapshot_find(s, "worker1");
        ck_assert_uint_eq(d->metrics.vcpus_current, 2);
        ck_assert_int_eq(d->vcpus_target, AGENT_TARGET_UNREACHED);
        ck_assert_str_eq(agent_target_state_to_string(d->vcpus_target), AGENT1_TARGET_UNREACHED);
        ck_assert_str_eq(agent_target_state_to_string(d->memory_target), "");
        ck_assert_uint_eq(reports, 1);
        free(s);
        /* It stays so, sample after sample. */
        s = sample_judged(&checks, USEC_PER_SEC, &reports);
        ck_assert_int_eq(agent_snapshot_find(s, "worker1")->vcpus_target, AGENT_TARGET_UNREACHED);
        ck_assert_uint_eq(reports, 1);
        free(s);
        agent_target_checks_done(&checks);
}
END_TEST

/* The daemon's order with the guest agents' answers: stamped into the
 * sample first, then the targets judged. */
static AgentSnapshot *sample_with_answers(AgentTargetChecks *checks, AgentGuestAnswers *answers,
                                          usec_t after, unsigned *reports) {
        AgentSnapshot *s = sample_after(after);

        agent_guest_answers_stamp(answers, s);
        agent_target_checks_judge(checks, s, count_report, reports);
        agent_target_checks_stamp(checks, s);
        return s;
}

/* What the guest agent says decides a vCPU target where it answers. On
 * libvirt's test driver, which has no guest agent calls, the question is
 * asked once the grace is over, answered "unsupported" with libvirt's
 * words, not asked again, and the hypervisor's count decides, saying so;
 * then the answers a
 * guest agent gives (the test driver cannot: they are written here as the
 * worker fills them in) overturn it, unreached while the guest has fewer
 * vCPUs online than the target, reached, and settled, once it has them. */
START_TEST(test_guest_agent_decides_vcpu_target) {
        ActTarget t = { .set = ACT_BIT(ACT_VCPUS), .value[ACT_VCPUS] = 3 };
        AgentChange c = change_target("worker1", &t, ACT_STRICT);
        AgentTargetChecks checks = { 0 };
        AgentGuestAnswers answers = { 0 };
        AgentGuestAgent guest;
        _cleanup_free_ AgentGuestQuery *queries = NULL;
        AgentGuestQuery answer;
        const AgentDomain *d;
        AgentSnapshot *s;
        unsigned reports = 0;
        size_t n = 7;

        ck_assert_int_eq(c.r[ACT_VCPUS].status, AGENT_CHANGE_APPLIED);
        ck_assert_int_eq(agent_target_expect(&checks, c.uuid, c.name, ACT_VCPUS, 3,
                                             fake_now + 2 * USEC_PER_SEC, 1),
                         0);
        ck_assert_int_eq(agent_guest_agent_init(&guest, collector.uri, USEC_PER_SEC), 0);
        guest.clock = fake_clock;
        /* Within the grace nobody is asked. */
        ck_assert_int_eq(agent_target_checks_guest_queries(&checks, fake_now, &queries, &n), 0);
        ck_assert_uint_eq(n, 0);
        ck_assert_ptr_null(queries);

        s = sample_with_answers(&checks, &answers, 2 * USEC_PER_SEC, &reports);
        d = agent_snapshot_find(s, "worker1");
        ck_assert_int_eq(d->vcpus_target, AGENT_TARGET_REACHED);
        ck_assert_int_eq(d->vcpus_target_source, AGENT_SOURCE_HYPERVISOR);
        ck_assert_int_eq(d->guest_vcpus.state, AGENT_GUEST_AGENT_NOT_ASKED);
        ck_assert_uint_eq(reports, 1);
        free(s);

        ck_assert_int_eq(agent_target_checks_guest_queries(&checks, fake_now, &queries, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_str_eq(queries[0].name, "worker1");
        agent_guest_agent_ask(&guest, queries, n);
        ck_assert_int_eq(queries[0].answer.state, AGENT_GUEST_AGENT_UNSUPPORTED);
        ck_assert_uint_eq(queries[0].answer.measured, fake_now);
        ck_assert_msg(strstr(queries[0].message, "virDomainGetGuestVcpus"), "%s",
                      queries[0].message);
        ck_assert_int_eq(agent_guest_answers_take(&answers, &queries[0], NULL), 0);
        free(queries);
        queries = NULL;
        /* Asked again only after AGENT_GUEST_AGENT_RETRY. */
        ck_assert_int_eq(
                agent_target_checks_guest_queries(&checks, fake_now + USEC_PER_SEC, &queries, &n),
                0);
        ck_assert_uint_eq(n, 0);

        s = sample_with_answers(&checks, &answers, USEC_PER_SEC, &reports);
        d = agent_snapshot_find(s, "worker1");
        ck_assert_int_eq(d->guest_vcpus.state, AGENT_GUEST_AGENT_UNSUPPORTED);
        ck_assert_str_eq(agent_guest_agent_state_to_string(d->guest_vcpus.state),
                         AGENT1_GUEST_AGENT_UNSUPPORTED);
        ck_assert_int_eq(d->vcpus_target, AGENT_TARGET_REACHED);
        ck_assert_str_eq(agent_target_source_to_string(d->vcpus_target_source),
                         AGENT1_SOURCE_HYPERVISOR);
        ck_assert_uint_eq(reports, 1);
        free(s);
        /* Nothing will answer there until the domain changes: not asked
         * again. */
        ck_assert_int_eq(agent_target_checks_guest_queries(
                                 &checks, fake_now + 10 * AGENT_GUEST_AGENT_RETRY, &queries, &n),
                         0);
        ck_assert_uint_eq(n, 0);

        /* A guest agent that counts 2 of the 3 plugged vCPUs online. */
        answer = (AgentGuestQuery){
                .answer = { .state = AGENT_GUEST_AGENT_ANSWERED,
                            .online = 2,
                            .measured = fake_now },
        };
        snprintf(answer.uuid, sizeof(answer.uuid), "%s", c.uuid);
        snprintf(answer.name, sizeof(answer.name), "worker1");
        ck_assert_int_eq(agent_guest_answers_take(&answers, &answer, NULL), 0);
        s = sample_with_answers(&checks, &answers, USEC_PER_SEC, &reports);
        d = agent_snapshot_find(s, "worker1");
        ck_assert_uint_eq(d->metrics.vcpus_current, 3);
        ck_assert_int_eq(d->vcpus_target, AGENT_TARGET_UNREACHED);
        ck_assert_int_eq(d->vcpus_target_source, AGENT_SOURCE_GUEST_AGENT);
        ck_assert_uint_eq(d->guest_vcpus.online, 2);
        ck_assert_uint_eq(reports, 2);
        free(s);
        ck_assert_int_eq(agent_target_checks_guest_queries(
                                 &checks, fake_now + AGENT_GUEST_AGENT_RETRY, &queries, &n),
                         0);
        ck_assert_uint_eq(n, 1);
        free(queries);
        queries = NULL;

        /* It onlines the third: reached, and settled. */
        answer.answer = (AgentGuestVcpus){ .state = AGENT_GUEST_AGENT_ANSWERED,
                                           .online = 3,
                                           .measured = fake_now };
        ck_assert_int_eq(agent_guest_answers_take(&answers, &answer, NULL), 0);
        s = sample_with_answers(&checks, &answers, USEC_PER_SEC, &reports);
        d = agent_snapshot_find(s, "worker1");
        ck_assert_int_eq(d->vcpus_target, AGENT_TARGET_REACHED);
        ck_assert_int_eq(d->vcpus_target_source, AGENT_SOURCE_GUEST_AGENT);
        ck_assert_uint_eq(reports, 3);
        free(s);
        ck_assert_int_eq(agent_target_checks_guest_queries(
                                 &checks, fake_now + 10 * AGENT_GUEST_AGENT_RETRY, &queries, &n),
                         0);
        ck_assert_uint_eq(n, 0);

        agent_guest_answers_done(&answers);
        agent_guest_agent_done(&guest);
        agent_target_checks_done(&checks);
}
END_TEST

/* A guest agent's failures, by what they say of it. */
START_TEST(test_guest_agent_states) {
        ck_assert_int_eq(agent_guest_agent_state_from_errno(0), AGENT_GUEST_AGENT_ANSWERED);
        ck_assert_int_eq(agent_guest_agent_state_from_errno(-ENODEV), AGENT_GUEST_AGENT_NONE);
        ck_assert_int_eq(agent_guest_agent_state_from_errno(-ETIMEDOUT),
                         AGENT_GUEST_AGENT_UNRESPONSIVE);
        ck_assert_int_eq(agent_guest_agent_state_from_errno(-EOPNOTSUPP),
                         AGENT_GUEST_AGENT_UNSUPPORTED);
        ck_assert_int_eq(agent_guest_agent_state_from_errno(-ESRCH), AGENT_GUEST_AGENT_FAILED);
        ck_assert_str_eq(agent_guest_agent_state_to_string(AGENT_GUEST_AGENT_NOT_ASKED), "");
        ck_assert_str_eq(agent_guest_agent_state_to_string(AGENT_GUEST_AGENT_NONE), "none");
}
END_TEST

/* ---- per-domain settings, against a driver that counts its calls ---- */

static unsigned n_info_calls;
static uint64_t fake_shares = 1024;
/* The settings the driver has of its domains (a guest just created has no
 * quota yet). */
static unsigned fake_info_fields = HV_INFO_CPU_WEIGHT | HV_INFO_QUOTA;
/* The quotas the driver holds, per vCPU and of the whole domain, and the
 * flags of the last hv_domain_set_quota(). */
static int64_t fake_vcpu_quota = 75000, fake_global_quota = -1;
static unsigned fake_quota_flags;
/* Whether the driver answers its two domains in the other order. */
static bool swapped;

static int counting_open(HvConnection *conn, const char *uri, unsigned flags) {
        return 0;
}

static void counting_close(HvConnection *conn) {
}

static int counting_sample_all(HvConnection *conn, unsigned flags, HvDomainSample **ret,
                               size_t *ret_n) {
        HvDomainSample *s = calloc(2, sizeof(*s));

        ck_assert_ptr_nonnull(s);
        for (unsigned i = 0; i < 2; i++) {
                unsigned id = swapped ? 1 - i : i;

                snprintf(s[i].name, sizeof(s[i].name), "vm%u", id);
                snprintf(s[i].uuid, sizeof(s[i].uuid), "55555555-5555-5555-5555-55555555555%u", id);
                s[i].fields = HV_FIELD_STATE | HV_FIELD_VCPU_COUNT | HV_FIELD_BALLOON;
                s[i].state = HV_STATE_RUNNING;
                s[i].vcpus_current = 2;
                s[i].vcpus_max = 4;
                s[i].balloon_current_kib = s[i].balloon_max_kib = 1024 * 1024;
        }
        *ret = s;
        *ret_n = 2;
        return 0;
}

static int counting_get_info(HvConnection *conn, const char *domain, unsigned flags,
                             HvDomainInfo *ret) {
        n_info_calls++;
        *ret = (HvDomainInfo){ .state = HV_STATE_RUNNING,
                               .vcpus_current = 2,
                               .vcpus_max = 4,
                               .fields = fake_info_fields,
                               .cpu_shares = fake_shares,
                               .vcpu_quota_usec = fake_vcpu_quota,
                               .vcpu_period_usec = 100000,
                               .global_quota_usec = fake_global_quota,
                               .global_period_usec = 100000 };
        /* By name (vmN) or UUID (...5555N): the same N. */
        snprintf(ret->name, sizeof(ret->name), "vm%c", domain[strlen(domain) - 1]);
        snprintf(ret->uuid, sizeof(ret->uuid), "55555555-5555-5555-5555-55555555555%c",
                 domain[strlen(domain) - 1]);
        return 0;
}

static int counting_set_quota(HvConnection *conn, const char *domain, int64_t quota_usec,
                              uint64_t period_usec, unsigned flags, int64_t *ret_quota_usec,
                              uint64_t *ret_period_usec) {
        ck_assert_uint_eq(period_usec, 100000);
        fake_quota_flags = flags;
        if (flags & HV_QUOTA_GLOBAL) {
                /* As libvirt's: the quota per vCPU lifted with it. */
                fake_vcpu_quota = -1;
                fake_global_quota = quota_usec;
        } else
                fake_vcpu_quota = quota_usec;
        *ret_quota_usec = quota_usec;
        *ret_period_usec = period_usec;
        return 0;
}

static const HypervisorDriver counting_driver = {
        .name = "counting",
        .open = counting_open,
        .close = counting_close,
        .sample_all = counting_sample_all,
        .domain_get_info = counting_get_info,
        .domain_set_quota = counting_set_quota,
};

/* vm0's weight in the next sample; both domains carry the same settings. */
static unsigned weight_after(const AgentStale *stale) {
        AgentSnapshot *s = NULL;
        const AgentDomain *d;
        unsigned w;

        ck_assert_int_eq(agent_collector_sample(&collector, stale, &s), 0);
        d = agent_snapshot_find(s, "vm0");
        ck_assert_uint_eq(d->settings, AGENT_SETTING_CPU_WEIGHT | AGENT_SETTING_CPU_CAP);
        /* 75 ms of every 100 ms on each of 2 vCPUs. */
        ck_assert_uint_eq(agent_domain_cpu_cap(d), 1500);
        w = (unsigned)d->cpu_weight;
        free(s);
        return w;
}

static void counting_start(void) {
        log_set_max_level(LOG_LEVEL_ERR);
        ck_assert_int_eq(agent_collector_init(&collector, "counting:///"), 0);
        ck_assert_int_eq(hv_connection_open_driver(&counting_driver, "counting:///", NULL, 0,
                                                   &collector.conn),
                         0);
        collector.clock = fake_clock;
        fake_now = 1000 * USEC_PER_SEC;
        n_info_calls = 0;
        swapped = false;
}

/* Read when first seen, carried over while fresh (whatever order the
 * domains come in), read again when the agent changed them or when they
 * are AGENT_SETTINGS_MAX_AGE old. */
START_TEST(test_collector_settings) {
        AgentStale stale = { 0 };

        counting_start();
        ck_assert_uint_eq(weight_after(NULL), 1024);
        ck_assert_uint_eq(n_info_calls, 2);
        fake_shares = 2048;
        fake_now += USEC_PER_SEC;
        ck_assert_uint_eq(weight_after(NULL), 1024);
        swapped = true;
        ck_assert_uint_eq(weight_after(NULL), 1024);
        ck_assert_uint_eq(n_info_calls, 2);

        ck_assert_int_eq(agent_stale_add(&stale, "55555555-5555-5555-5555-555555555550"), 0);
        ck_assert_uint_eq(weight_after(&stale), 2048);
        ck_assert_uint_eq(n_info_calls, 3);

        fake_shares = 4096;
        fake_now += AGENT_SETTINGS_MAX_AGE - USEC_PER_SEC;
        ck_assert_uint_eq(weight_after(NULL), 2048);
        fake_now += USEC_PER_SEC;
        ck_assert_uint_eq(weight_after(NULL), 4096);
        ck_assert_uint_eq(n_info_calls, 5);
        agent_stale_done(&stale);
        agent_collector_done(&collector);
}
END_TEST

/* vm0's settings in the next sample, a second later. */
static unsigned settings_after(void) {
        AgentSnapshot *s = NULL;
        unsigned settings;

        fake_now += USEC_PER_SEC;
        ck_assert_int_eq(agent_collector_sample(&collector, NULL, &s), 0);
        settings = agent_snapshot_find(s, "vm0")->settings;
        free(s);
        return settings;
}

/* A new domain whose first reading lacks its cap (libvirt has no vCPU
 * cgroups yet) is read again at the next sample, not a minute later; one
 * that never shows a cap is read at every sample for its first minute
 * only. */
START_TEST(test_collector_settings_new_domain) {
        counting_start();
        fake_info_fields = HV_INFO_CPU_WEIGHT;
        ck_assert_uint_eq(settings_after(), AGENT_SETTING_CPU_WEIGHT);
        ck_assert_uint_eq(n_info_calls, 2);
        fake_info_fields = HV_INFO_CPU_WEIGHT | HV_INFO_QUOTA;
        ck_assert_uint_eq(settings_after(), AGENT_SETTINGS_ALL);
        ck_assert_uint_eq(n_info_calls, 4);
        /* Whole now: carried over. */
        ck_assert_uint_eq(settings_after(), AGENT_SETTINGS_ALL);
        ck_assert_uint_eq(n_info_calls, 4);
        agent_collector_done(&collector);

        counting_start();
        fake_info_fields = HV_INFO_CPU_WEIGHT;
        for (unsigned i = 0; i < 60; i++)
                ck_assert_uint_eq(settings_after(), AGENT_SETTING_CPU_WEIGHT);
        ck_assert_uint_eq(n_info_calls, 2 * 60);
        /* Then when its reading is AGENT_SETTINGS_MAX_AGE old. */
        for (unsigned i = 0; i < 59; i++)
                ck_assert_uint_eq(settings_after(), AGENT_SETTING_CPU_WEIGHT);
        ck_assert_uint_eq(n_info_calls, 2 * 60);
        ck_assert_uint_eq(settings_after(), AGENT_SETTING_CPU_WEIGHT);
        ck_assert_uint_eq(n_info_calls, 2 * 61);
        fake_info_fields = HV_INFO_CPU_WEIGHT | HV_INFO_QUOTA;
        agent_collector_done(&collector);
}
END_TEST

/* vm0's cap as a new collector reads it. */
static uint64_t sampled_cap(void) {
        AgentSnapshot *s = NULL;
        uint64_t cap;

        counting_start();
        ck_assert_int_eq(agent_collector_sample(&collector, NULL, &s), 0);
        cap = agent_domain_cpu_cap(agent_snapshot_find(s, "vm0"));
        free(s);
        agent_collector_done(&collector);
        return cap;
}

/* The cap through the actuator: the whole domain's quota where the domain
 * has one, else a quota per vCPU; the collector reads either back. */
static uint64_t cap_after(uint64_t milli) {
        ActLimits limits = *act_limits_default();
        ActHost capacity = { .cpus = 8, .memory = 7 * GIB };
        ActTarget t = { .set = ACT_BIT(ACT_CPU_CAP), .value[ACT_CPU_CAP] = milli };
        AgentChange c = { .target = t, .flags = ACT_STRICT };

        ck_assert_int_eq(agent_actuator_init(&actuator, "counting:///", &limits, &capacity, false),
                         0);
        ck_assert_int_eq(hv_connection_open_driver(&counting_driver, "counting:///", NULL, 0,
                                                   &actuator.conn),
                         0);
        actuator.clock = fake_clock;
        snprintf(c.domain, sizeof(c.domain), "vm0");
        ck_assert_int_eq(agent_actuator_change(&actuator, &c), 0);
        ck_assert_msg(c.error == 0, "%s", c.message);
        ck_assert_int_eq(c.r[ACT_CPU_CAP].status, AGENT_CHANGE_APPLIED);
        ck_assert_uint_eq(c.r[ACT_CPU_CAP].after, milli);
        agent_actuator_done(&actuator);
        return sampled_cap();
}

START_TEST(test_actuator_whole_vm_cap) {
        fake_now = 1000 * USEC_PER_SEC;
        /* The domain has a global quota: 1.5 CPUs for the whole VM, the
         * quota per vCPU lifted (it was 0.75 each). */
        fake_info_fields = HV_INFO_CPU_WEIGHT | HV_INFO_QUOTA | HV_INFO_GLOBAL_QUOTA;
        fake_vcpu_quota = 75000;
        fake_global_quota = -1;
        ck_assert_uint_eq(cap_after(500), 500);
        ck_assert_uint_eq(fake_quota_flags, HV_QUOTA_GLOBAL);
        ck_assert_int_eq(fake_global_quota, 50000);
        ck_assert_int_eq(fake_vcpu_quota, -1);
        /* A quota per vCPU set by hand beside it: the smaller binds. */
        fake_vcpu_quota = 10000;
        ck_assert_uint_eq(sampled_cap(), 200);

        /* Without one: a quota per vCPU for its 2 vCPUs. */
        fake_info_fields = HV_INFO_CPU_WEIGHT | HV_INFO_QUOTA;
        fake_vcpu_quota = 75000;
        ck_assert_uint_eq(cap_after(500), 500);
        ck_assert_uint_eq(fake_quota_flags, 0);
        ck_assert_int_eq(fake_vcpu_quota, 25000);
        fake_vcpu_quota = 75000;
}
END_TEST

Suite *suite_agent_libvirt(void) {
        Suite *s = suite_create("agent_libvirt");
        TCase *tc = tcase_create("collector");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_host_sample);
        tcase_add_test(tc, test_collector_domain_in_job);
        tcase_add_test(tc, test_collector_domain_paused_for_job);
        tcase_add_test(tc, test_target_unreached_is_shown);
        tcase_add_test(tc, test_guest_agent_decides_vcpu_target);
        tcase_add_test(tc, test_guest_agent_states);
        tcase_add_test(tc, test_collector_guest_memory);
        suite_add_tcase(s, tc);

        tc = tcase_create("actuator");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_host_change_then_rate_limit);
        tcase_add_test(tc, test_host_unchanged_is_not_a_change);
        tcase_add_test(tc, test_host_reserve_counts_other_domains);
        tcase_add_test(tc, test_host_failures);
        tcase_add_test(tc, test_host_unplug_when_allowed);
        tcase_add_test(tc, test_host_dry_run_changes_nothing);
        tcase_add_test(tc, test_host_target);
        tcase_add_test(tc, test_balloon_guard);
        suite_add_tcase(s, tc);

        tc = tcase_create("vm_limits");
        tcase_add_checked_fixture(tc, limits_setup, teardown);
        tcase_add_test(tc, test_vm_limits_narrow_the_agents);
        tcase_add_test(tc, test_vm_limits_refused_when_wrong);
        tcase_add_test(tc, test_vm_limits_opt_out);
        suite_add_tcase(s, tc);

        tc = tcase_create("settings");
        tcase_add_test(tc, test_collector_settings);
        tcase_add_test(tc, test_collector_settings_new_domain);
        tcase_add_test(tc, test_actuator_whole_vm_cap);
        suite_add_tcase(s, tc);
        return s;
}

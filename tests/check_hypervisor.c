/* SPDX-License-Identifier: MIT */
/* The hypervisor layer: metric derivation on recorded counter sequences,
 * the back-off, the dispatch layer on a fake driver, and the libvirt backend
 * on libvirt's in-process test driver.
 *
 * The test driver's virConnectGetAllDomainStats answers with the state group
 * only (state.state, state.reason): no cpu.time, vcpu.* or balloon.*, even
 * when asked for them. So steal and CPU use are tested here on counters
 * recorded the way QEMU reports them, and the test driver shows that a
 * sample without counters gives invalid rates, never zeros. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/macro.h"
#include "hypervisor/hypervisor.h"
#include "hypervisor/libvirt.h"
#include "tests.h"

#define DOMAIN_UUID "6f1b2c3d-0001-4a00-8000-000000000001"
#define SEC_NS UINT64_C(1000000000)

/* ---- recorded counters ---------------------------------------------- */

typedef struct Params {
        virTypedParameter p[64];
        int n;
        char strings[4][64]; /* values of string parameters */
        int n_strings;
} Params;

static virTypedParameter *params_add(Params *ps, const char *field, int type) {
        virTypedParameter *p = &ps->p[ps->n++];

        ck_assert_int_le(ps->n, (int)ELEMENTSOF(ps->p));
        memset(p, 0, sizeof(*p));
        snprintf(p->field, sizeof(p->field), "%s", field);
        p->type = type;
        return p;
}

static void params_add_ull(Params *ps, const char *field, unsigned long long v) {
        params_add(ps, field, VIR_TYPED_PARAM_ULLONG)->value.ul = v;
}

static void params_add_uint(Params *ps, const char *field, unsigned v) {
        params_add(ps, field, VIR_TYPED_PARAM_UINT)->value.ui = v;
}

static void params_add_int(Params *ps, const char *field, int v) {
        params_add(ps, field, VIR_TYPED_PARAM_INT)->value.i = v;
}

static void params_add_vcpu(Params *ps, unsigned id, const char *what, unsigned long long v) {
        char field[VIR_TYPED_PARAM_FIELD_LENGTH];

        snprintf(field, sizeof(field), "vcpu.%u.%s", id, what);
        params_add_ull(ps, field, v);
}

/* One domain's record as QEMU gives it: state, cpu.time, the vcpu group
 * for the online vCPUs ids[] (delays NULL: libvirt < 7.2, no
 * vcpu.N.delay), and the balloon. */
typedef struct Record {
        usec_t t;
        uint64_t cpu_ns;
        size_t n_vcpus;
        unsigned ids[8];
        uint64_t delays[8];
        bool no_delay;
        usec_t span; /* how long the bulk call took */
} Record;

static void record_params(const Record *r, Params *ps) {
        ps->n = 0;
        params_add_int(ps, "state.state", VIR_DOMAIN_RUNNING);
        params_add_int(ps, "state.reason", VIR_DOMAIN_RUNNING_BOOTED);
        params_add_ull(ps, "cpu.time", r->cpu_ns);
        params_add_ull(ps, "cpu.user", r->cpu_ns / 2);
        params_add_uint(ps, "vcpu.current", (unsigned)r->n_vcpus);
        params_add_uint(ps, "vcpu.maximum", 4);
        for (size_t i = 0; i < r->n_vcpus; i++) {
                char field[VIR_TYPED_PARAM_FIELD_LENGTH];

                snprintf(field, sizeof(field), "vcpu.%u.state", r->ids[i]);
                params_add_int(ps, field, VIR_VCPU_RUNNING);
                params_add_vcpu(ps, r->ids[i], "time", r->cpu_ns / 4);
                params_add_vcpu(ps, r->ids[i], "wait", 0);
                if (!r->no_delay)
                        params_add_vcpu(ps, r->ids[i], "delay", r->delays[i]);
        }
        params_add_ull(ps, "balloon.current", 2097152);
        params_add_ull(ps, "balloon.maximum", 4194304);
}

static void record_sample_as(const Record *r, const char *name, const char *uuid,
                             HvDomainSample *ret) {
        Params ps;

        record_params(r, &ps);
        ck_assert_int_eq(hv_sample_from_params(name, uuid, ps.p, ps.n, r->t, ret), 0);
        ret->span_usec = r->span;
}

static void record_sample(const Record *r, HvDomainSample *ret) {
        record_sample_as(r, "worker1", DOMAIN_UUID, ret);
}

/* Derives the metrics of cur against prev (both recorded). */
static HvDomainMetrics derive(const Record *prev, const Record *cur) {
        static HvDomainSample a, b; /* large: not on the stack */
        HvDomainMetrics m;

        record_sample(cur, &b);
        if (prev)
                record_sample(prev, &a);
        ck_assert_int_eq(hv_metrics_derive(prev ? &a : NULL, &b, &m), 0);
        return m;
}

/* ---- counters recorded from real QEMU guests ---- */

/* A record of tests/fixtures/hypervisor/qemu-tcg.stats (see its header). */
typedef struct RecordedDomain {
        char name[64];
        char uuid[HV_UUID_STRING_MAX];
        usec_t t;
        Params ps;
} RecordedDomain;

static void params_add_text(Params *ps, const char *field, const char *type, const char *value) {
        if (strcmp(type, "int") == 0)
                params_add_int(ps, field, (int)strtol(value, NULL, 10));
        else if (strcmp(type, "uint") == 0)
                params_add_uint(ps, field, (unsigned)strtoul(value, NULL, 10));
        else if (strcmp(type, "ullong") == 0)
                params_add_ull(ps, field, strtoull(value, NULL, 10));
        else if (strcmp(type, "llong") == 0)
                params_add(ps, field, VIR_TYPED_PARAM_LLONG)->value.l = strtoll(value, NULL, 10);
        else {
                ck_assert_str_eq(type, "string");
                ck_assert_int_lt(ps->n_strings, (int)ELEMENTSOF(ps->strings));
                snprintf(ps->strings[ps->n_strings], sizeof(ps->strings[0]), "%s", value);
                params_add(ps, field, VIR_TYPED_PARAM_STRING)->value.s =
                        ps->strings[ps->n_strings++];
        }
}

/* Loads the records in file order; they stay where they are (string
 * parameters point into them). */
static size_t load_recording(const char *path, RecordedDomain *doms, size_t max) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        RecordedDomain *d = NULL;
        char line[256];
        size_t n = 0;

        ck_assert_msg(f, "cannot open %s", path);
        while (fgets(line, sizeof(line), f)) {
                char field[VIR_TYPED_PARAM_FIELD_LENGTH], type[16], value[64];
                unsigned long long t;

                if (line[0] == '#' || line[0] == '\n')
                        continue;
                if (strncmp(line, "domain ", 7) == 0) {
                        ck_assert_uint_lt(n, max);
                        d = &doms[n++];
                        memset(d, 0, sizeof(*d));
                        ck_assert_int_eq(
                                sscanf(line, "domain %63s %36s %llu", d->name, d->uuid, &t), 3);
                        d->t = t;
                        continue;
                }
                ck_assert_int_eq(sscanf(line, "%79s %15s %63s", field, type, value), 3);
                ck_assert_ptr_nonnull(d);
                params_add_text(&d->ps, field, type, value);
        }
        return n;
}

START_TEST(test_recorded_qemu_rounds) {
        static RecordedDomain doms[4];
        static HvDomainSample before, after;
        static const struct {
                const char *name;
                unsigned vcpus;
                double steal, cpu;
                uint64_t unused_kib;
        } expected[] = {
                /* (201588482 + 215179396) ns delay / (2.014735 s * 2 vCPUs) */
                { "worker-a", 2, 0.1034299493481773, 1.811945987933897, 183424 },
                /* 7455502 ns / 2.014735 s */
                { "worker-b", 1, 0.0037004876571856845, 0.014084234403035635, 183168 },
        };
        size_t n = load_recording(test_srcdir_path("tests/fixtures/hypervisor/qemu-tcg.stats"),
                                  doms, ELEMENTSOF(doms));

        ck_assert_uint_eq(n, 4);
        for (size_t i = 0; i < ELEMENTSOF(expected); i++) {
                const RecordedDomain *a = &doms[i], *b = &doms[i + 2];
                HvDomainMetrics m;

                ck_assert_str_eq(a->name, expected[i].name);
                ck_assert_int_eq(
                        hv_sample_from_params(a->name, a->uuid, a->ps.p, a->ps.n, a->t, &before),
                        0);
                ck_assert_int_eq(
                        hv_sample_from_params(b->name, b->uuid, b->ps.p, b->ps.n, b->t, &after), 0);
                ck_assert_uint_eq(after.fields,
                                  HV_FIELD_STATE | HV_FIELD_CPU_TIME | HV_FIELD_VCPU_COUNT |
                                          HV_FIELD_VCPU_DELAY | HV_FIELD_VCPU_TIME |
                                          HV_FIELD_BALLOON | HV_FIELD_BALLOON_GUEST |
                                          HV_FIELD_BALLOON_PRESSURE | HV_FIELD_BALLOON_UPDATE);
                /* A guest with a stats period reported between the rounds
                 * (what the agent's balloon guard calls fresh). */
                ck_assert_uint_eq(after.balloon_last_update - before.balloon_last_update, 2);
                ck_assert_uint_eq(after.balloon_major_faults, 0);
                ck_assert_int_eq(hv_metrics_derive(&before, &after, &m), 0);
                ck_assert_uint_eq(m.valid, HV_METRIC_STATE | HV_METRIC_STEAL | HV_METRIC_CPU_USE |
                                                   HV_METRIC_VCPUS | HV_METRIC_MEMORY |
                                                   HV_METRIC_MEMORY_GUEST);
                ck_assert_uint_eq(m.interval_usec, 2014735);
                ck_assert_double_eq_tol(m.steal, expected[i].steal, 1e-12);
                ck_assert_double_eq_tol(m.cpu_use, expected[i].cpu, 1e-12);
                ck_assert_uint_eq(m.vcpus_current, expected[i].vcpus);
                ck_assert_uint_eq(m.vcpus_max, 2);
                ck_assert_uint_eq(m.memory_kib, 262144);
                ck_assert_uint_eq(m.memory_max_kib, 262144);
                ck_assert_uint_eq(m.memory_unused_kib, expected[i].unused_kib);
                ck_assert_uint_eq(m.memory_available_kib, 210468);
        }
}
END_TEST

#define STEAL_RATES (HV_METRIC_STEAL | HV_METRIC_CPU_USE)
#define INSTANT (HV_METRIC_STATE | HV_METRIC_VCPUS | HV_METRIC_MEMORY)

START_TEST(test_params_full_record) {
        static HvDomainSample s;
        Record r = { .t = 5000000,
                     .cpu_ns = 8 * SEC_NS,
                     .n_vcpus = 2,
                     .ids = { 0, 2 },
                     .delays = { 111, 222 } };
        Params ps;

        record_params(&r, &ps);
        params_add_ull(&ps, "balloon.unused", 1048576);
        params_add_ull(&ps, "balloon.available", 2000000);
        params_add_ull(&ps, "balloon.major_fault", 42);
        params_add_ull(&ps, "balloon.swap_in", 640);
        params_add_ull(&ps, "balloon.last-update", 1700000000);
        ck_assert_int_eq(hv_sample_from_params("worker1", DOMAIN_UUID, ps.p, ps.n, r.t, &s), 0);
        ck_assert_str_eq(s.name, "worker1");
        ck_assert_str_eq(s.uuid, DOMAIN_UUID);
        ck_assert_uint_eq(s.sampled_usec, 5000000);
        ck_assert_uint_eq(s.fields, HV_FIELD_STATE | HV_FIELD_CPU_TIME | HV_FIELD_VCPU_COUNT |
                                            HV_FIELD_VCPU_DELAY | HV_FIELD_VCPU_TIME |
                                            HV_FIELD_BALLOON | HV_FIELD_BALLOON_GUEST |
                                            HV_FIELD_BALLOON_PRESSURE | HV_FIELD_BALLOON_UPDATE);
        ck_assert_int_eq(s.state, HV_STATE_RUNNING);
        ck_assert_int_eq(s.state_reason, VIR_DOMAIN_RUNNING_BOOTED);
        ck_assert_uint_eq(s.cpu_time_ns, 8 * SEC_NS);
        ck_assert_uint_eq(s.vcpus_current, 2);
        ck_assert_uint_eq(s.vcpus_max, 4);
        ck_assert(hv_sample_has_vcpu(&s, 0));
        ck_assert(!hv_sample_has_vcpu(&s, 1));
        ck_assert(hv_sample_has_vcpu(&s, 2));
        ck_assert(!hv_sample_has_vcpu(&s, HV_VCPU_MAX));
        ck_assert_uint_eq(s.vcpu_delay_ns[0], 111);
        ck_assert_uint_eq(s.vcpu_delay_ns[2], 222);
        ck_assert_uint_eq(s.vcpu_time_ns[2], 2 * SEC_NS);
        ck_assert_uint_eq(s.balloon_current_kib, 2097152);
        ck_assert_uint_eq(s.balloon_max_kib, 4194304);
        ck_assert_uint_eq(s.balloon_unused_kib, 1048576);
        ck_assert_uint_eq(s.balloon_available_kib, 2000000);
        ck_assert_uint_eq(s.balloon_major_faults, 42);
        ck_assert_uint_eq(s.balloon_swap_in_kib, 640);
        ck_assert_uint_eq(s.balloon_last_update, 1700000000);
}
END_TEST

START_TEST(test_params_incomplete_groups) {
        static HvDomainSample s;
        Params ps = { .n = 0 };

        /* A vCPU without delay, a balloon without maximum, a vcpu.current
         * without maximum: each group is dropped, not half-filled. */
        params_add_vcpu(&ps, 0, "delay", 5);
        params_add_vcpu(&ps, 0, "time", 7);
        params_add_vcpu(&ps, 1, "time", 9);
        params_add_ull(&ps, "balloon.current", 1024);
        params_add_uint(&ps, "vcpu.current", 2);
        ck_assert_int_eq(hv_sample_from_params("w", NULL, ps.p, ps.n, 1, &s), 0);
        ck_assert_uint_eq(s.fields, HV_FIELD_VCPU_TIME);
        ck_assert_uint_eq(s.vcpu_delay_ns[0], 0);
        ck_assert_uint_eq(s.vcpu_time_ns[1], 9);
        ck_assert_uint_eq(s.balloon_current_kib, 0);
        ck_assert_uint_eq(s.vcpus_current, 0);
        ck_assert_str_eq(s.uuid, "");
}
END_TEST

START_TEST(test_params_odd_input_ignored) {
        static HvDomainSample s;
        Params ps = { .n = 0 };

        /* Wrong types, malformed vCPU ids and unknown fields change nothing. */
        params_add(&ps, "cpu.time", VIR_TYPED_PARAM_DOUBLE)->value.d = 3.5;
        params_add(&ps, "state.state", VIR_TYPED_PARAM_ULLONG)->value.ul = 1;
        params_add(&ps, "balloon.current", VIR_TYPED_PARAM_LLONG)->value.l = -4;
        params_add_ull(&ps, "balloon.maximum", 4);
        params_add_ull(&ps, "vcpu.1x.delay", 5);
        params_add_ull(&ps, "vcpu.1", 5);
        params_add_ull(&ps, "vcpu..delay", 5);
        params_add_ull(&ps, "net.count", 2);
        ck_assert_int_eq(hv_sample_from_params("w", "", ps.p, ps.n, 1, &s), 0);
        ck_assert_uint_eq(s.fields, 0);
        ck_assert_uint_eq(s.cpu_time_ns, 0);
        ck_assert_uint_eq(s.balloon_max_kib, 0);
        ck_assert(!hv_sample_has_vcpu(&s, 1));

        /* Another type of the same value is accepted. */
        ps.n = 0;
        params_add(&ps, "cpu.time", VIR_TYPED_PARAM_LLONG)->value.l = 42;
        ck_assert_int_eq(hv_sample_from_params("w", "", ps.p, ps.n, 1, &s), 0);
        ck_assert_uint_eq(s.fields, HV_FIELD_CPU_TIME);
        ck_assert_uint_eq(s.cpu_time_ns, 42);
}
END_TEST

START_TEST(test_params_vcpu_beyond_limit) {
        static HvDomainSample s;
        Params ps = { .n = 0 };

        params_add_vcpu(&ps, 0, "delay", 5);
        params_add_vcpu(&ps, HV_VCPU_MAX, "delay", 5);
        params_add_vcpu(&ps, 0, "time", 5);
        params_add_ull(&ps, "vcpu.99999999999.time", 5);
        ck_assert_int_eq(hv_sample_from_params("w", "", ps.p, ps.n, 1, &s), 0);
        ck_assert_uint_eq(s.fields, 0);
        ck_assert(!hv_sample_has_vcpu(&s, 0));
        ck_assert_uint_eq(s.vcpu_delay_ns[0], 0);
}
END_TEST

static void params_add_ll(Params *ps, const char *field, long long v) {
        params_add(ps, field, VIR_TYPED_PARAM_LLONG)->value.l = v;
}

/* The scheduler's answer: a pair of quota and period only whole, and a
 * quota above the kernel's largest (libvirt's answer for cgroup v2's
 * "max") no quota. */
START_TEST(test_sched_params) {
        Params ps = { 0 };
        HvDomainInfo info = { 0 };

        /* libvirt's getters report through its error state. */
        ck_assert_int_eq(virInitialize(), 0);
        params_add_ull(&ps, VIR_DOMAIN_SCHEDULER_CPU_SHARES, 2048);
        params_add_ull(&ps, VIR_DOMAIN_SCHEDULER_VCPU_PERIOD, 100000);
        params_add_ll(&ps, VIR_DOMAIN_SCHEDULER_VCPU_QUOTA, 18446744073709551LL);
        params_add_ull(&ps, VIR_DOMAIN_SCHEDULER_GLOBAL_PERIOD, 50000);
        params_add_ll(&ps, VIR_DOMAIN_SCHEDULER_GLOBAL_QUOTA, 80000);
        params_add_ll(&ps, VIR_DOMAIN_SCHEDULER_EMULATOR_QUOTA, 1000);
        hv_sched_from_params(ps.p, ps.n, &info);
        ck_assert_uint_eq(info.fields, HV_INFO_CPU_WEIGHT | HV_INFO_QUOTA | HV_INFO_GLOBAL_QUOTA);
        ck_assert_uint_eq(info.cpu_shares, 2048);
        ck_assert_int_eq(info.vcpu_quota_usec, -1);
        ck_assert_uint_eq(info.vcpu_period_usec, 100000);
        ck_assert_int_eq(info.global_quota_usec, 80000);
        ck_assert_uint_eq(info.global_period_usec, 50000);

        /* cgroup v1's no quota, and a quota without its period. */
        ps = (Params){ 0 };
        info = (HvDomainInfo){ 0 };
        params_add_ull(&ps, VIR_DOMAIN_SCHEDULER_VCPU_PERIOD, 100000);
        params_add_ll(&ps, VIR_DOMAIN_SCHEDULER_VCPU_QUOTA, -1);
        params_add_ll(&ps, VIR_DOMAIN_SCHEDULER_GLOBAL_QUOTA, 80000);
        hv_sched_from_params(ps.p, ps.n, &info);
        ck_assert_uint_eq(info.fields, HV_INFO_QUOTA);
        ck_assert_int_eq(info.vcpu_quota_usec, -1);
        ck_assert_int_eq(info.global_quota_usec, 0);
}
END_TEST

START_TEST(test_params_bad_arguments) {
        static HvDomainSample s;
        char long_name[HV_NAME_MAX + 1];
        Params ps = { .n = 0 };

        memset(long_name, 'a', sizeof(long_name) - 1);
        long_name[sizeof(long_name) - 1] = '\0';
        s.cpu_time_ns = 77;
        ck_assert_int_eq(hv_sample_from_params(NULL, "", ps.p, 0, 1, &s), -EINVAL);
        ck_assert_int_eq(hv_sample_from_params("", "", ps.p, 0, 1, &s), -EINVAL);
        ck_assert_int_eq(hv_sample_from_params(long_name, "", ps.p, 0, 1, &s), -EINVAL);
        ck_assert_int_eq(hv_sample_from_params("w", long_name, ps.p, 0, 1, &s), -EINVAL);
        ck_assert_int_eq(hv_sample_from_params("w", "", NULL, 1, 1, &s), -EINVAL);
        ck_assert_int_eq(hv_sample_from_params("w", "", ps.p, -1, 1, &s), -EINVAL);
        ck_assert_int_eq(hv_sample_from_params("w", "", ps.p, 0, 1, NULL), -EINVAL);
        ck_assert_uint_eq(s.cpu_time_ns, 77); /* untouched */
        ck_assert_int_eq(hv_sample_from_params("w", NULL, NULL, 0, 1, &s), 0);
        ck_assert_uint_eq(s.fields, 0);
}
END_TEST

START_TEST(test_derive_steal_and_cpu) {
        /* 2 vCPUs over 2 s: 0.3 s + 0.5 s of delay = 0.8 s of 4 vCPU-seconds. */
        Record a = { .t = 10000000,
                     .cpu_ns = 50 * SEC_NS,
                     .n_vcpus = 2,
                     .ids = { 0, 1 },
                     .delays = { 1 * SEC_NS, 2 * SEC_NS } };
        Record b = { .t = 12000000,
                     .cpu_ns = 53 * SEC_NS,
                     .n_vcpus = 2,
                     .ids = { 0, 1 },
                     .delays = { 1300000000, 2500000000 } };
        HvDomainMetrics m = derive(&a, &b);

        ck_assert_uint_eq(m.valid, INSTANT | STEAL_RATES);
        ck_assert_uint_eq(m.interval_usec, 2000000);
        ck_assert_double_eq_tol(m.steal, 0.2, 1e-12);
        ck_assert_double_eq_tol(m.cpu_use, 1.5, 1e-12);
        ck_assert_int_eq(m.state, HV_STATE_RUNNING);
        ck_assert_uint_eq(m.vcpus_current, 2);
        ck_assert_uint_eq(m.vcpus_max, 4);
        ck_assert_uint_eq(m.memory_kib, 2097152);
        ck_assert_uint_eq(m.memory_max_kib, 4194304);
}
END_TEST

START_TEST(test_derive_first_sample) {
        Record a = { .t = 1, .cpu_ns = 5, .n_vcpus = 1, .ids = { 0 }, .delays = { 5 } };
        HvDomainMetrics m = derive(NULL, &a);

        ck_assert_uint_eq(m.valid, INSTANT);
        ck_assert_uint_eq(m.interval_usec, 0);
        ck_assert_double_eq(m.steal, 0);
        ck_assert_double_eq(m.cpu_use, 0);
}
END_TEST

START_TEST(test_derive_counter_reset) {
        /* The domain restarted: every counter starts again near zero. */
        Record a = { .t = 1000000,
                     .cpu_ns = 90 * SEC_NS,
                     .n_vcpus = 2,
                     .ids = { 0, 1 },
                     .delays = { 4 * SEC_NS, 4 * SEC_NS } };
        Record b = { .t = 2000000,
                     .cpu_ns = SEC_NS / 2,
                     .n_vcpus = 2,
                     .ids = { 0, 1 },
                     .delays = { 1000, 2000 } };
        Record c = { .t = 3000000,
                     .cpu_ns = SEC_NS,
                     .n_vcpus = 2,
                     .ids = { 0, 1 },
                     .delays = { 100001000, 300002000 } };
        HvDomainMetrics m = derive(&a, &b);

        ck_assert_uint_eq(m.valid, INSTANT);
        ck_assert_double_eq(m.steal, 0);
        ck_assert_double_eq(m.cpu_use, 0);
        /* The round after is good again. */
        m = derive(&b, &c);
        ck_assert_uint_eq(m.valid, INSTANT | STEAL_RATES);
        ck_assert_double_eq_tol(m.steal, 0.2, 1e-12);
        ck_assert_double_eq_tol(m.cpu_use, 0.5, 1e-12);
}
END_TEST

START_TEST(test_derive_one_vcpu_backwards) {
        /* vCPU 1 was unplugged and re-plugged between samples: a new thread,
         * its delay restarts; cpu.time of the domain still grows. */
        Record a = { .t = 1000000,
                     .cpu_ns = SEC_NS,
                     .n_vcpus = 2,
                     .ids = { 0, 1 },
                     .delays = { 500, 900 } };
        Record b = { .t = 2000000,
                     .cpu_ns = 2 * SEC_NS,
                     .n_vcpus = 2,
                     .ids = { 0, 1 },
                     .delays = { 600, 10 } };
        HvDomainMetrics m = derive(&a, &b);

        ck_assert_uint_eq(m.valid, INSTANT | HV_METRIC_CPU_USE);
        ck_assert_double_eq(m.steal, 0);
        ck_assert_double_eq_tol(m.cpu_use, 1.0, 1e-12);
}
END_TEST

START_TEST(test_derive_vcpu_hotplug) {
        /* vCPU 2 added: only vCPUs 0 and 1 are in both samples. 0.1 s + 0.3 s
         * over 2 vCPU-seconds; vCPU 2's large counter is not used. */
        Record a = { .t = 1000000,
                     .cpu_ns = SEC_NS,
                     .n_vcpus = 2,
                     .ids = { 0, 1 },
                     .delays = { 1000, 2000 } };
        Record b = { .t = 2000000,
                     .cpu_ns = 2 * SEC_NS,
                     .n_vcpus = 3,
                     .ids = { 0, 1, 2 },
                     .delays = { 100001000, 300002000, 9 * SEC_NS } };
        HvDomainMetrics m = derive(&a, &b);

        ck_assert_uint_eq(m.valid, INSTANT | STEAL_RATES);
        ck_assert_double_eq_tol(m.steal, 0.2, 1e-12);
        ck_assert_uint_eq(m.vcpus_current, 3);
}
END_TEST

START_TEST(test_derive_vcpu_unplug) {
        /* vCPU 1 of {0, 1, 2} removed: vCPUs 0 and 2 remain. */
        Record a = { .t = 1000000,
                     .cpu_ns = SEC_NS,
                     .n_vcpus = 3,
                     .ids = { 0, 1, 2 },
                     .delays = { 0, 7, 0 } };
        Record b = { .t = 1500000,
                     .cpu_ns = SEC_NS,
                     .n_vcpus = 2,
                     .ids = { 0, 2 },
                     .delays = { 250000000, 0 } };
        HvDomainMetrics m = derive(&a, &b);

        ck_assert_uint_eq(m.valid, INSTANT | STEAL_RATES);
        ck_assert_double_eq_tol(m.steal, 0.25, 1e-12);
        ck_assert_double_eq(m.cpu_use, 0);
        ck_assert_uint_eq(m.vcpus_current, 2);
}
END_TEST

START_TEST(test_derive_no_common_vcpu) {
        Record a = { .t = 1000000, .cpu_ns = SEC_NS, .n_vcpus = 1, .ids = { 0 }, .delays = { 0 } };
        Record b = { .t = 2000000, .cpu_ns = SEC_NS, .n_vcpus = 1, .ids = { 1 }, .delays = { 5 } };
        HvDomainMetrics m = derive(&a, &b);

        ck_assert_uint_eq(m.valid, INSTANT | HV_METRIC_CPU_USE);
}
END_TEST

START_TEST(test_derive_without_delay_field) {
        /* libvirt < 7.2 has no vcpu.N.delay: steal is invalid, not 0. */
        Record a = {
                .t = 1000000, .cpu_ns = SEC_NS, .n_vcpus = 2, .ids = { 0, 1 }, .no_delay = true
        };
        Record b = {
                .t = 2000000, .cpu_ns = 3 * SEC_NS, .n_vcpus = 2, .ids = { 0, 1 }, .no_delay = true
        };
        HvDomainMetrics m = derive(&a, &b);

        ck_assert_uint_eq(m.valid, INSTANT | HV_METRIC_CPU_USE);
        ck_assert_double_eq(m.steal, 0);
        ck_assert_double_eq_tol(m.cpu_use, 2.0, 1e-12);

        /* Delay in one of the two samples only is no better. */
        b.no_delay = false;
        m = derive(&a, &b);
        ck_assert_uint_eq(m.valid, INSTANT | HV_METRIC_CPU_USE);
}
END_TEST

START_TEST(test_derive_zero_elapsed) {
        Record a = { .t = 1000000, .cpu_ns = SEC_NS, .n_vcpus = 1, .ids = { 0 }, .delays = { 1 } };
        Record b = a;
        HvDomainMetrics m;

        b.cpu_ns = 2 * SEC_NS;
        b.delays[0] = 2;
        m = derive(&a, &b);
        ck_assert_uint_eq(m.valid, INSTANT);
        ck_assert_uint_eq(m.interval_usec, 0);
        /* A clock that went backwards is no better. */
        b.t = a.t - 1;
        m = derive(&a, &b);
        ck_assert_uint_eq(m.valid, INSTANT);
}
END_TEST

START_TEST(test_derive_slow_call_blurs_interval) {
        /* Measured: the first bulk call after libvirtd started took 4.26 s,
         * the next one 20 ms, 3 s later. */
        Record a = { .t = 1000000, .cpu_ns = 0, .n_vcpus = 1, .ids = { 0 }, .span = 4260000 };
        Record b = { .t = 4000000, .cpu_ns = SEC_NS, .n_vcpus = 1, .ids = { 0 }, .span = 20000 };
        HvDomainMetrics m = derive(&a, &b);

        ck_assert_uint_eq(m.valid, INSTANT);
        ck_assert_uint_eq(m.interval_usec, 3000000);

        /* At the limit, (600 ms + 0) / 2 is a tenth of 3 s: still usable. */
        a.span = 600000;
        b.span = 0;
        m = derive(&a, &b);
        ck_assert_uint_eq(m.valid, INSTANT | STEAL_RATES);
        ck_assert_double_eq_tol(m.cpu_use, 1.0 / 3.0, 1e-12);
        a.span = 600002;
        m = derive(&a, &b);
        ck_assert_uint_eq(m.valid, INSTANT);
}
END_TEST

/* Sampling every second under a host CPU hog, where a bulk call took
 * 20-350 ms (measured, tests/vm): a slow call's round has no rates of its
 * own, but it must not cost the next rounds theirs, as it did when every
 * round was the next one's base (24 of 32 samples lost in the probe; 7 of
 * these 24 rounds had steal). The steal is 0.8 throughout. */
START_TEST(test_next_base_skips_slow_calls) {
        static const usec_t spans_ms[] = {
                4260, 20, 30,  300, 20, 350, 310, 20, 150, 20,  25,  340,
                20,   20, 200, 20,  20, 330, 30,  20, 300, 300, 300, 20
        };
        static HvDomainSample base, cur;
        bool have_base = false, had_steal = false;
        unsigned fast = 0, fast_with_steal = 0, with_steal = 0;

        for (size_t i = 0; i < ELEMENTSOF(spans_ms); i++) {
                Record r = { .t = (usec_t)(i + 1) * USEC_PER_SEC,
                             .cpu_ns = (uint64_t)i * SEC_NS / 5,
                             .n_vcpus = 1,
                             .ids = { 0 },
                             .delays = { (uint64_t)i * SEC_NS * 4 / 5 },
                             .span = spans_ms[i] * USEC_PER_MSEC };
                const HvDomainSample *next;
                HvDomainMetrics m;

                record_sample(&r, &cur);
                ck_assert_int_eq(hv_metrics_derive(have_base ? &base : NULL, &cur, &m), 0);
                if (m.valid & HV_METRIC_STEAL) {
                        ck_assert_double_eq_tol(m.steal, 0.8, 1e-9);
                        with_steal++;
                }
                /* A fast call after a fast one has its rates. */
                if (i >= 2 && spans_ms[i] <= 30 && spans_ms[i - 1] <= 30) {
                        fast++;
                        fast_with_steal += (m.valid & HV_METRIC_STEAL) != 0;
                }
                /* No two rounds in a row without rates, but for the first
                 * two and the last ones, a run of slow calls. */
                if (i >= 2 && i <= 21)
                        ck_assert_msg(m.valid & HV_METRIC_STEAL || had_steal,
                                      "rounds %zu and %zu have no steal", i - 1, i);
                had_steal = (m.valid & HV_METRIC_STEAL) != 0;
                next = hv_metrics_next_base(have_base ? &base : NULL, &cur);
                ck_assert(next == &cur || (have_base && next == &base));
                if (next == &cur)
                        base = cur;
                have_base = true;
        }
        ck_assert_uint_eq(fast_with_steal, fast);
        ck_assert_uint_ge(with_steal, 13);
}
END_TEST

START_TEST(test_next_base_after_a_slow_first_call) {
        /* The first call after libvirtd starts (4.26 s) is the less certain
         * stamp: the next round's base is the new sample. */
        Record a = { .t = 1000000, .n_vcpus = 1, .ids = { 0 }, .span = 4260000 };
        Record b = { .t = 2000000, .n_vcpus = 1, .ids = { 0 }, .span = 20000 };
        Record c = { .t = 3000000, .n_vcpus = 1, .ids = { 0 }, .span = 300000 };
        static HvDomainSample sa, sb, sc;

        record_sample(&a, &sa);
        record_sample(&b, &sb);
        record_sample(&c, &sc);
        ck_assert_ptr_eq(hv_metrics_next_base(&sa, &sb), &sb);
        ck_assert_ptr_eq(hv_metrics_next_base(NULL, &sb), &sb);
        /* A slow call after a fast one: the fast one stays the base. */
        ck_assert_ptr_eq(hv_metrics_next_base(&sb, &sc), &sb);
        /* 3 s after it, the rates were known: the new one. */
        sc.sampled_usec = 5000000;
        ck_assert_ptr_eq(hv_metrics_next_base(&sb, &sc), &sc);
        /* Another domain's sample is no base. */
        snprintf(sc.uuid, sizeof(sc.uuid), "%s", "6f1b2c3d-0009-4a00-8000-000000000009");
        sc.sampled_usec = 2500000;
        ck_assert_ptr_eq(hv_metrics_next_base(&sb, &sc), &sc);
}
END_TEST

START_TEST(test_derive_clamps_jitter) {
        /* 1.02 s of delay in 1 s of wall time on 1 vCPU: counters and clock
         * are not read at the same instant. */
        Record a = { .t = 1000000, .cpu_ns = 0, .n_vcpus = 1, .ids = { 0 }, .delays = { 0 } };
        Record b = {
                .t = 2000000, .cpu_ns = 0, .n_vcpus = 1, .ids = { 0 }, .delays = { 1020000000 }
        };
        HvDomainMetrics m = derive(&a, &b);

        ck_assert_uint_eq(m.valid, INSTANT | STEAL_RATES);
        ck_assert_double_eq(m.steal, 1.0);
}
END_TEST

/* The jobs a paused domain waits for, by its state's reason; any other
 * pause, a running domain, or a sample without its state is none. */
START_TEST(test_sample_paused_job) {
        static const struct {
                HvDomainState state;
                int reason;
                const char *job;
        } cases[] = {
                { HV_STATE_PAUSED, VIR_DOMAIN_PAUSED_DUMP, "dump" },
                { HV_STATE_PAUSED, VIR_DOMAIN_PAUSED_SAVE, "save" },
                { HV_STATE_PAUSED, VIR_DOMAIN_PAUSED_MIGRATION, "migration" },
                { HV_STATE_PAUSED, VIR_DOMAIN_PAUSED_POSTCOPY, "migration" },
                { HV_STATE_PAUSED, VIR_DOMAIN_PAUSED_SNAPSHOT, "snapshot" },
                { HV_STATE_PAUSED, VIR_DOMAIN_PAUSED_USER, NULL },
                { HV_STATE_PAUSED, VIR_DOMAIN_PAUSED_IOERROR, NULL },
                { HV_STATE_RUNNING, VIR_DOMAIN_PAUSED_DUMP, NULL },
        };
        HvDomainSample s = { .fields = HV_FIELD_STATE };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const char *job;

                s.state = cases[i].state;
                s.state_reason = cases[i].reason;
                job = hv_sample_paused_job(&s);
                if (cases[i].job)
                        ck_assert_str_eq(job, cases[i].job);
                else
                        ck_assert_ptr_null(job);
        }
        s = (HvDomainSample){ .state = HV_STATE_PAUSED, .state_reason = VIR_DOMAIN_PAUSED_DUMP };
        ck_assert_ptr_null(hv_sample_paused_job(&s));
}
END_TEST

START_TEST(test_derive_other_domain) {
        static HvDomainSample a, b;
        Record r = { .t = 1000000, .cpu_ns = SEC_NS, .n_vcpus = 1, .ids = { 0 }, .delays = { 1 } };
        Params ps;
        HvDomainMetrics m;

        record_params(&r, &ps);
        ck_assert_int_eq(hv_sample_from_params("w", "6f1b2c3d-0001-4a00-8000-0000000000aa", ps.p,
                                               ps.n, 1000000, &a),
                         0);
        ck_assert_int_eq(hv_sample_from_params("w", "6f1b2c3d-0001-4a00-8000-0000000000bb", ps.p,
                                               ps.n, 2000000, &b),
                         0);
        ck_assert_int_eq(hv_metrics_derive(&a, &b, &m), 0);
        ck_assert_uint_eq(m.valid, INSTANT);
        /* Without UUIDs the name decides. */
        a.uuid[0] = b.uuid[0] = '\0';
        ck_assert_int_eq(hv_metrics_derive(&a, &b, &m), 0);
        ck_assert_uint_eq(m.valid, INSTANT | STEAL_RATES);
        strcpy(b.name, "other");
        ck_assert_int_eq(hv_metrics_derive(&a, &b, &m), 0);
        ck_assert_uint_eq(m.valid, INSTANT);
        ck_assert_int_eq(hv_metrics_derive(&a, NULL, &m), -EINVAL);
        ck_assert_int_eq(hv_metrics_derive(&a, &b, NULL), -EINVAL);
}
END_TEST

START_TEST(test_derive_sequence) {
        /* Five rounds of a 2-vCPU VM, 1 s apart, with a hot-plug and a reset. */
        static const struct {
                Record r;
                unsigned valid;
                double steal, cpu;
        } seq[] = {
                { { 1000000, 10 * SEC_NS, 2, { 0, 1 }, { 0, 0 } }, INSTANT, 0, 0 },
                { { 2000000, 11 * SEC_NS, 2, { 0, 1 }, { 100000000, 100000000 } },
                  INSTANT | STEAL_RATES,
                  0.1,
                  1.0 },
                { { 3000000, 13 * SEC_NS, 3, { 0, 1, 2 }, { 400000000, 400000000, 0 } },
                  INSTANT | STEAL_RATES,
                  0.3,
                  2.0 },
                { { 4000000, 1 * SEC_NS, 3, { 0, 1, 2 }, { 0, 0, 0 } }, INSTANT, 0, 0 },
                { { 5000000, 2 * SEC_NS, 3, { 0, 1, 2 }, { 600000000, 0, 0 } },
                  INSTANT | STEAL_RATES,
                  0.2,
                  1.0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(seq); i++) {
                HvDomainMetrics m = derive(i > 0 ? &seq[i - 1].r : NULL, &seq[i].r);

                ck_assert_msg(m.valid == seq[i].valid, "round %zu: valid %#x", i, m.valid);
                ck_assert_double_eq_tol(m.steal, seq[i].steal, 1e-12);
                ck_assert_double_eq_tol(m.cpu_use, seq[i].cpu, 1e-12);
        }
}
END_TEST

START_TEST(test_derive_all_pairs_by_uuid) {
        static HvDomainSample prev[3], cur[3];
        static const char *const uuids[] = {
                "6f1b2c3d-0001-4a00-8000-000000000001",
                "6f1b2c3d-0002-4a00-8000-000000000002",
                "6f1b2c3d-0003-4a00-8000-000000000003",
                "6f1b2c3d-0004-4a00-8000-000000000004",
        };
        /* 1 s apart; domain n's delay grows by n * 0.1 s on its one vCPU. */
        Record r0 = { .t = 1000000, .cpu_ns = SEC_NS, .n_vcpus = 1, .ids = { 0 } };
        Record r1 = { .t = 2000000, .cpu_ns = 2 * SEC_NS, .n_vcpus = 1, .ids = { 0 } };
        /* prev: domains 3, 1, 2; cur: 2, 4 (new), 1; 3 has gone. */
        static const unsigned prev_ids[] = { 3, 1, 2 }, cur_ids[] = { 2, 4, 1 };
        HvDomainMetrics m[3];

        for (size_t i = 0; i < 3; i++) {
                r0.delays[0] = 0;
                record_sample_as(&r0, "w", uuids[prev_ids[i] - 1], &prev[i]);
                r1.delays[0] = cur_ids[i] * (SEC_NS / 10);
                record_sample_as(&r1, "w", uuids[cur_ids[i] - 1], &cur[i]);
        }
        ck_assert_int_eq(hv_metrics_derive_all(prev, 3, cur, 3, m, NULL), 0);
        ck_assert_uint_eq(m[0].valid, INSTANT | STEAL_RATES);
        ck_assert_double_eq_tol(m[0].steal, 0.2, 1e-12);
        ck_assert_double_eq_tol(m[0].cpu_use, 1.0, 1e-12);
        ck_assert_uint_eq(m[1].valid, INSTANT);
        ck_assert_uint_eq(m[2].valid, INSTANT | STEAL_RATES);
        ck_assert_double_eq_tol(m[2].steal, 0.1, 1e-12);

        /* No previous round at all: first-sample metrics. */
        ck_assert_int_eq(hv_metrics_derive_all(NULL, 0, cur, 3, m, NULL), 0);
        for (size_t i = 0; i < 3; i++)
                ck_assert_uint_eq(m[i].valid, INSTANT);
        ck_assert_int_eq(hv_metrics_derive_all(NULL, 1, cur, 3, m, NULL), -EINVAL);
        ck_assert_int_eq(hv_metrics_derive_all(prev, 3, cur, 3, NULL, NULL), -EINVAL);
        ck_assert_int_eq(hv_metrics_derive_all(prev, 3, NULL, 0, NULL, NULL), 0);
}
END_TEST

/* ---- dispatch on a fake driver ---- */

static struct {
        int open_failures; /* the next opens that fail */
        unsigned opens, closes;
        bool alive;
        int list_result;
        unsigned vcpus_current, vcpus_max, set_vcpus_calls;
} fake;
static usec_t fake_now;

static usec_t fake_clock(void *userdata) {
        return fake_now;
}

static int fake_open(HvConnection *conn, const char *uri, unsigned flags) {
        fake.opens++;
        if (fake.open_failures > 0) {
                fake.open_failures--;
                return -ENOTCONN;
        }
        fake.alive = true;
        return 0;
}

static void fake_close(HvConnection *conn) {
        fake.closes++;
}

static bool fake_is_alive(HvConnection *conn) {
        return fake.alive;
}

static int fake_list(HvConnection *conn, unsigned flags, HvDomainRef **ret, size_t *ret_n) {
        if (fake.list_result < 0)
                return fake.list_result;
        *ret = NULL;
        *ret_n = 0;
        return 0;
}

static int fake_get_info(HvConnection *conn, const char *domain, unsigned flags,
                         HvDomainInfo *ret) {
        if (strcmp(domain, "vm") != 0)
                return -ENOENT;
        *ret = (HvDomainInfo){ .vcpus_current = fake.vcpus_current, .vcpus_max = fake.vcpus_max };
        return 0;
}

static int fake_set_vcpus(HvConnection *conn, const char *domain, unsigned vcpus, unsigned flags,
                          unsigned *ret_vcpus) {
        fake.set_vcpus_calls++;
        fake.vcpus_current = vcpus;
        *ret_vcpus = vcpus;
        return 0;
}

static const HypervisorDriver fake_driver = {
        .name = "fake",
        .open = fake_open,
        .close = fake_close,
        .is_alive = fake_is_alive,
        .list_domains = fake_list,
        .domain_get_info = fake_get_info,
        .domain_set_vcpus = fake_set_vcpus,
};

static const HvConnectOptions fake_options = {
        .backoff_initial = 1000000,
        .backoff_max = 4000000,
        .clock = fake_clock,
};

static HvConnection *fake_connect(unsigned flags) {
        HvConnection *conn = NULL;

        memset(&fake, 0, sizeof(fake));
        fake.vcpus_current = 4;
        fake.vcpus_max = 8;
        fake_now = 50000000;
        ck_assert_int_eq(
                hv_connection_open_driver(&fake_driver, "fake:///", &fake_options, flags, &conn),
                0);
        return conn;
}

/* hv_domain_list's result on the fake, which lists nothing. */
static int fake_list_call(HvConnection *conn) {
        HvDomainRef *refs = NULL;
        size_t n = 99;
        int r = hv_domain_list(conn, 0, &refs, &n);

        if (r == 0)
                ck_assert_uint_eq(n, 0);
        return r;
}

START_TEST(test_dispatch_reconnect_backoff) {
        _cleanup_(hv_connection_freep) HvConnection *conn = fake_connect(0);
        /* After the loss: an immediate try, then waits of 1, 2, 4, 4 s. */
        static const struct {
                usec_t advance;
                int result;
                unsigned opens;
        } steps[] = {
                { 0, -ENOTCONN, 2 },
                { 999999, -ENOTCONN, 2 },
                { 1, -ENOTCONN, 3 },
                { 1999999, -ENOTCONN, 3 },
                { 1, -ENOTCONN, 4 },
                { 4000000, -ENOTCONN, 5 },
                { 3999999, -ENOTCONN, 5 },
                { 1, 0, 6 },
                { 0, 0, 6 },
        };

        ck_assert(hv_connection_is_connected(conn));
        ck_assert_str_eq(hv_connection_get_uri(conn), "fake:///");
        ck_assert_int_eq(fake_list_call(conn), 0);

        fake.alive = false; /* as the close callback or keepalive would see it */
        fake.open_failures = 4;
        for (size_t i = 0; i < ELEMENTSOF(steps); i++) {
                fake_now += steps[i].advance;
                ck_assert_int_eq(fake_list_call(conn), steps[i].result);
                ck_assert_msg(fake.opens == steps[i].opens, "step %zu: %u opens", i, fake.opens);
        }
        ck_assert_uint_eq(fake.closes, 1);
        ck_assert(hv_connection_is_connected(conn));
        ck_assert_uint_eq(hv_connection_get_failures(conn), 0);
}
END_TEST

START_TEST(test_dispatch_lost_during_operation) {
        _cleanup_(hv_connection_freep) HvConnection *conn = fake_connect(0);

        fake.list_result = -ENOTCONN;
        ck_assert_int_eq(fake_list_call(conn), -ENOTCONN);
        ck_assert(!hv_connection_is_connected(conn));
        ck_assert_uint_eq(fake.closes, 1);
        fake.list_result = 0;
        ck_assert_int_eq(fake_list_call(conn), 0); /* first retry is at once */
        ck_assert_uint_eq(fake.opens, 2);
        /* Other errors leave the connection alone. */
        fake.list_result = -ENOENT;
        ck_assert_int_eq(fake_list_call(conn), -ENOENT);
        ck_assert(hv_connection_is_connected(conn));
}
END_TEST

START_TEST(test_dispatch_lazy_open) {
        HvConnection *conn = NULL;

        memset(&fake, 0, sizeof(fake));
        fake_now = 1000;
        fake.open_failures = 1;
        ck_assert_int_eq(
                hv_connection_open_driver(&fake_driver, "fake:///", &fake_options, 0, &conn),
                -ENOTCONN);
        ck_assert_ptr_null(conn);
        ck_assert_int_eq(
                hv_connection_open_driver(&fake_driver, "fake:///", &fake_options, 0x10, &conn),
                -EINVAL);

        fake.open_failures = 1;
        ck_assert_int_eq(hv_connection_open_driver(&fake_driver, "fake:///", &fake_options,
                                                   HV_CONNECT_LAZY, &conn),
                         0);
        ck_assert(!hv_connection_is_connected(conn));
        ck_assert_uint_eq(hv_connection_get_failures(conn), 1);
        ck_assert_int_eq(fake_list_call(conn), -ENOTCONN);
        ck_assert_str_eq(hv_connection_get_last_error(conn), "not connected to fake:///");
        fake_now += 1000000;
        ck_assert_int_eq(fake_list_call(conn), 0);
        ck_assert(hv_connection_is_connected(conn));
        hv_connection_free(conn);
        ck_assert_uint_eq(fake.closes, 1);
}
END_TEST

START_TEST(test_dispatch_unplug_policy) {
        _cleanup_(hv_connection_freep) HvConnection *conn = fake_connect(0);
        unsigned got = 0;

        ck_assert_int_eq(hv_domain_set_vcpus(conn, "vm", 2, 0, &got), -EPERM);
        ck_assert_str_eq(hv_connection_get_last_error(conn),
                         "unplugging vCPUs of vm (4 -> 2) is not allowed");
        ck_assert_uint_eq(fake.set_vcpus_calls, 0);
        ck_assert_uint_eq(got, 0);
        ck_assert_int_eq(hv_domain_set_vcpus(conn, "vm", 6, 0, &got), 0);
        ck_assert_uint_eq(got, 6);
        ck_assert_int_eq(hv_domain_set_vcpus(conn, "vm", 6, 0, NULL), 0);
        ck_assert_int_eq(hv_domain_set_vcpus(conn, "vm", 2, HV_VCPUS_ALLOW_UNPLUG, &got), 0);
        ck_assert_uint_eq(got, 2);
        ck_assert_uint_eq(fake.set_vcpus_calls, 3);

        ck_assert_int_eq(hv_domain_set_vcpus(conn, "vm", 9, 0, &got), -EINVAL);
        ck_assert_str_eq(hv_connection_get_last_error(conn), "9 vCPUs requested, vm has at most 8");
        ck_assert_int_eq(hv_domain_set_vcpus(conn, "vm", 0, 0, &got), -EINVAL);
        ck_assert_int_eq(hv_domain_set_vcpus(conn, "vm", 3, 0x100, &got), -EINVAL);
        ck_assert_int_eq(hv_domain_set_vcpus(conn, "", 3, 0, &got), -EINVAL);
        ck_assert_int_eq(hv_domain_set_vcpus(conn, NULL, 3, 0, &got), -EINVAL);
        ck_assert_int_eq(hv_domain_set_vcpus(conn, "gone", 3, 0, &got), -ENOENT);
        ck_assert_uint_eq(fake.set_vcpus_calls, 3);
}
END_TEST

START_TEST(test_dispatch_unsupported_and_bad_arguments) {
        _cleanup_(hv_connection_freep) HvConnection *conn = fake_connect(0);
        HvDomainSample *samples = NULL;
        HvDomainRef *refs = NULL;
        uint64_t u = 0;
        int64_t q = 0;
        size_t n = 0;

        ck_assert_int_eq(hv_sample_all(conn, 0, &samples, &n), -EOPNOTSUPP);
        ck_assert_str_eq(hv_connection_get_last_error(conn), "fake driver does not support this");
        ck_assert_int_eq(hv_domain_set_memory(conn, "vm", 1024, 0, &u), -EOPNOTSUPP);
        ck_assert_int_eq(hv_domain_set_cpu_weight(conn, "vm", 1024, 0, &u), -EOPNOTSUPP);
        ck_assert_int_eq(hv_domain_set_quota(conn, "vm", 50000, 100000, 0, &q, &u), -EOPNOTSUPP);
        ck_assert_int_eq(hv_domain_list(conn, 1, &refs, &n), -EINVAL);
        ck_assert_int_eq(hv_domain_list(conn, 0, NULL, &n), -EINVAL);
        ck_assert_int_eq(hv_domain_list(NULL, 0, &refs, &n), -EINVAL);
        ck_assert_int_eq(hv_domain_get_info(conn, "vm", 0, NULL), -EINVAL);
        ck_assert_ptr_null(samples);
        ck_assert_ptr_null(refs);
        ck_assert_int_eq(hv_connection_open_driver(NULL, "x", NULL, 0, &conn), -EINVAL);
        ck_assert_ptr_null(hv_connection_free(NULL));
}
END_TEST

/* ---- libvirt's test driver ---- */

static HvConnection *lv_connect(const char *uri) {
        HvConnection *conn = NULL;

        ck_assert_int_eq(hv_connection_open(uri, NULL, 0, &conn), 0);
        return conn;
}

static const char *fixture_uri(void) {
        static char uri[4096];

        snprintf(uri, sizeof(uri), "test://%s",
                 test_srcdir_path("tests/fixtures/hypervisor/cluster.xml"));
        ck_assert_msg(uri[7] == '/', "FLEXSLOT_SRCDIR must be absolute: %s", uri);
        return uri;
}

static int compare_refs(const void *a, const void *b) {
        return strcmp(((const HvDomainRef *)a)->name, ((const HvDomainRef *)b)->name);
}

static const HvDomainRef *find_ref(const HvDomainRef *refs, size_t n, const char *name) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(refs[i].name, name) == 0)
                        return &refs[i];
        return NULL;
}

START_TEST(test_libvirt_open_errors) {
        HvConnection *conn = NULL;
        HvDomainRef *refs = NULL;
        size_t n = 0;

        /* An unknown scheme goes to libvirtd; this socket cannot exist. */
        ck_assert_int_eq(
                hv_connection_open("bogus+unix:///x?socket=/nonexistent/sock", NULL, 0, &conn),
                -ENOTCONN);
        ck_assert_int_eq(hv_connection_open("no-scheme", NULL, 0, &conn), -EOPNOTSUPP);
        ck_assert_int_eq(hv_connection_open("test:///nonexistent/cluster.xml", NULL, 0, &conn),
                         -EINVAL);
        ck_assert_int_eq(hv_connection_open(NULL, NULL, 0, &conn), -EINVAL);
        ck_assert_int_eq(hv_connection_open("test:///default", NULL, 0, NULL), -EINVAL);
        ck_assert_ptr_null(conn);

        /* Lazily: a connection that is lost from the start. */
        ck_assert_int_eq(hv_connection_open("bogus+unix:///x?socket=/nonexistent/sock", NULL,
                                            HV_CONNECT_LAZY, &conn),
                         0);
        ck_assert(!hv_connection_is_connected(conn));
        ck_assert_int_eq(hv_domain_list(conn, 0, &refs, &n), -ENOTCONN);
        ck_assert_ptr_null(refs);
        hv_connection_free(conn);
}
END_TEST

START_TEST(test_libvirt_default_domain) {
        _cleanup_(hv_connection_freep) HvConnection *conn = lv_connect("test:///default");
        _cleanup_free_ HvDomainRef *refs = NULL;
        HvDomainInfo info;
        uint64_t kib = 0;
        unsigned vcpus = 0;
        size_t n = 0;

        ck_assert_int_eq(hv_domain_list(conn, 0, &refs, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_str_eq(refs[0].name, "test");
        ck_assert_int_eq(refs[0].state, HV_STATE_RUNNING);
        ck_assert(refs[0].active);
        ck_assert(refs[0].persistent);

        ck_assert_int_eq(hv_domain_get_info(conn, "test", 0, &info), 0);
        ck_assert_str_eq(info.uuid, refs[0].uuid);
        ck_assert_uint_eq(info.vcpus_current, 2);
        ck_assert_uint_eq(info.vcpus_max, 2);
        ck_assert_uint_eq(info.memory_kib, 2097152);
        ck_assert_uint_eq(info.memory_max_kib, 8388608);
        /* The test driver's scheduler has "weight" only. */
        ck_assert_uint_eq(info.fields, 0);

        /* By UUID as well as by name. */
        ck_assert_int_eq(hv_domain_set_memory(conn, refs[0].uuid, 1048576, 0, &kib), 0);
        ck_assert_uint_eq(kib, 1048576);
        ck_assert_int_eq(hv_domain_set_vcpus(conn, "test", 1, 0, &vcpus), -EPERM);
        ck_assert_int_eq(hv_domain_set_vcpus(conn, "test", 1, HV_VCPUS_ALLOW_UNPLUG, &vcpus), 0);
        ck_assert_uint_eq(vcpus, 1);
        ck_assert_int_eq(hv_domain_set_vcpus(conn, "test", 2, 0, &vcpus), 0);
        ck_assert_uint_eq(vcpus, 2);
}
END_TEST

/* libvirt's test driver answers no guest agent call (virDomainGetGuestVcpus,
 * virDomainGetVcpusFlags with VIR_DOMAIN_VCPU_GUEST, virDomainGetGuestInfo,
 * virDomainAgentSetResponseTimeout: libvirt 9.0 has none of them there):
 * the guest's count is unsupported, said as libvirt says it, and nothing is
 * guessed. */
START_TEST(test_libvirt_guest_vcpus_unsupported) {
        _cleanup_(hv_connection_freep) HvConnection *conn = lv_connect("test:///default");
        unsigned online = 77;

        ck_assert_int_eq(hv_domain_guest_vcpus(conn, "test", 2 * USEC_PER_SEC, 0, &online),
                         -EOPNOTSUPP);
        ck_assert_msg(strstr(hv_connection_get_last_error(conn), "virDomainGetGuestVcpus"), "%s",
                      hv_connection_get_last_error(conn));
        ck_assert_uint_eq(online, 77);
        ck_assert_int_eq(hv_domain_guest_vcpus(conn, "nonexistent", 2 * USEC_PER_SEC, 0, &online),
                         -ENOENT);
        /* Whole seconds, at least one: libvirt's timeout is in seconds. */
        ck_assert_int_eq(hv_domain_guest_vcpus(conn, "test", USEC_PER_SEC / 2, 0, &online),
                         -EINVAL);
        ck_assert_int_eq(hv_domain_guest_vcpus(conn, "test", USEC_PER_SEC, 1, &online), -EINVAL);
        ck_assert_int_eq(hv_domain_guest_vcpus(conn, "test", USEC_PER_SEC, 0, NULL), -EINVAL);
}
END_TEST

/* The guest agent's list of vCPUs online, as libvirt writes a bitmap. */
START_TEST(test_cpu_list_count) {
        static const struct {
                const char *list;
                int r;
                unsigned n;
        } lists[] = {
                { "", 0, 0 },          { "0", 0, 1 },         { "0-3", 0, 4 },
                { "0-1,3,5-6", 0, 5 }, { "7", 0, 1 },         { "3-1", -EINVAL, 0 },
                { "0,", -EINVAL, 0 },  { ",0", -EINVAL, 0 },  { "0-", -EINVAL, 0 },
                { "a", -EINVAL, 0 },   { "1 2", -EINVAL, 0 }, { "0-99999", -EINVAL, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(lists); i++) {
                unsigned n = 12345;

                ck_assert_msg(hv_cpu_list_count(lists[i].list, &n) == lists[i].r, "'%s'",
                              lists[i].list);
                ck_assert_uint_eq(n, lists[i].r == 0 ? lists[i].n : 12345);
        }
}
END_TEST

START_TEST(test_libvirt_fixture_list_and_info) {
        static const struct {
                const char *name;
                HvDomainState state;
                unsigned vcpus, vcpus_max;
                uint64_t kib, max_kib;
        } expected[] = {
                { "spare", HV_STATE_SHUTOFF, 1, 2, 2097152, 2097152 },
                { "worker1", HV_STATE_RUNNING, 2, 4, 2097152, 4194304 },
                { "worker2", HV_STATE_RUNNING, 4, 8, 8388608, 8388608 },
                { "worker3", HV_STATE_RUNNING, 1, 1, 1048576, 2097152 },
        };
        _cleanup_(hv_connection_freep) HvConnection *conn = lv_connect(fixture_uri());
        _cleanup_free_ HvDomainRef *refs = NULL;
        size_t n = 0;

        ck_assert_int_eq(hv_domain_list(conn, 0, &refs, &n), 0);
        ck_assert_uint_eq(n, ELEMENTSOF(expected));
        qsort(refs, n, sizeof(*refs), compare_refs);
        for (size_t i = 0; i < n; i++) {
                HvDomainInfo info;

                ck_assert_str_eq(refs[i].name, expected[i].name);
                ck_assert_int_eq(refs[i].state, expected[i].state);
                ck_assert(refs[i].active == (expected[i].state == HV_STATE_RUNNING));
                ck_assert_int_eq(hv_domain_get_info(conn, refs[i].name, 0, &info), 0);
                ck_assert_str_eq(info.name, expected[i].name);
                ck_assert_str_eq(info.uuid, refs[i].uuid);
                ck_assert_int_eq(info.state, expected[i].state);
                ck_assert_uint_eq(info.vcpus_current, expected[i].vcpus);
                ck_assert_uint_eq(info.vcpus_max, expected[i].vcpus_max);
                ck_assert_uint_eq(info.memory_kib, expected[i].kib);
                ck_assert_uint_eq(info.memory_max_kib, expected[i].max_kib);
        }
        ck_assert_str_eq(find_ref(refs, n, "worker2")->uuid,
                         "6f1b2c3d-0002-4a00-8000-000000000002");
}
END_TEST

START_TEST(test_libvirt_fixture_actions) {
        _cleanup_(hv_connection_freep) HvConnection *conn = lv_connect(fixture_uri());
        HvDomainInfo info;
        uint64_t kib = 0, u = 0;
        int64_t q = 0;
        unsigned vcpus = 0;

        /* Hot-plug up to the maximum, and no further. */
        ck_assert_int_eq(hv_domain_set_vcpus(conn, "worker1", 4, 0, &vcpus), 0);
        ck_assert_uint_eq(vcpus, 4);
        ck_assert_int_eq(hv_domain_set_vcpus(conn, "worker1", 5, 0, &vcpus), -EINVAL);
        ck_assert_int_eq(hv_domain_get_info(conn, "worker1", 0, &info), 0);
        ck_assert_uint_eq(info.vcpus_current, 4);

        /* Balloon within the maximum; above it libvirt refuses. */
        ck_assert_int_eq(hv_domain_set_memory(conn, "worker1", 3145728, 0, &kib), 0);
        ck_assert_uint_eq(kib, 3145728);
        kib = 0;
        ck_assert_int_eq(hv_domain_set_memory(conn, "worker2", 8388609, 0, &kib), -EINVAL);
        ck_assert_str_eq(hv_connection_get_last_error(conn),
                         "invalid argument: cannot set memory higher than max memory");
        ck_assert_uint_eq(kib, 0);
        ck_assert_int_eq(hv_domain_get_info(conn, "worker2", 0, &info), 0);
        ck_assert_str_eq(hv_connection_get_last_error(conn), "");

        /* A shut-off domain has nothing live to change. */
        ck_assert_int_eq(hv_domain_set_memory(conn, "spare", 1048576, 0, &kib), -ESRCH);
        ck_assert_int_eq(hv_domain_set_vcpus(conn, "spare", 2, 0, &vcpus), -ESRCH);

        /* No cpu_shares or vcpu_quota on the test driver. */
        ck_assert_int_eq(hv_domain_set_cpu_weight(conn, "worker1", 512, 0, &u), -EOPNOTSUPP);
        ck_assert_str_eq(hv_connection_get_last_error(conn),
                         "worker1 has no cpu_shares scheduler parameter");
        ck_assert_int_eq(hv_domain_set_quota(conn, "worker1", 50000, 100000, 0, &q, &u),
                         -EOPNOTSUPP);
        /* Nor the whole domain's quota: the test driver's scheduler has a
         * weight alone (tests/vm has the real guests'). */
        ck_assert_int_eq(
                hv_domain_set_quota(conn, "worker1", 50000, 100000, HV_QUOTA_GLOBAL, &q, &u),
                -EOPNOTSUPP);
        ck_assert_str_eq(hv_connection_get_last_error(conn),
                         "worker1 has no global_quota scheduler parameter");
        ck_assert_int_eq(hv_domain_set_quota(conn, "worker1", 50000, 100000, 1u << 5, &q, &u),
                         -EINVAL);
        ck_assert_int_eq(hv_domain_set_cpu_weight(conn, "worker1", 0, 0, &u), -EINVAL);
        ck_assert_int_eq(hv_domain_set_quota(conn, "worker1", 50000, 999, 0, &q, &u), -EINVAL);
        ck_assert_int_eq(hv_domain_set_quota(conn, "worker1", 0, 100000, 0, &q, &u), -EINVAL);

        ck_assert_int_eq(hv_domain_set_memory(conn, "nosuchvm", 1048576, 0, &kib), -ENOENT);
        ck_assert_int_eq(hv_domain_get_info(conn, "6f1b2c3d-0009-4a00-8000-000000000009", 0, &info),
                         -ENOENT);
}
END_TEST

START_TEST(test_libvirt_bulk_stats_state_only) {
        _cleanup_(hv_connection_freep) HvConnection *conn = lv_connect(fixture_uri());
        _cleanup_free_ HvDomainSample *a = NULL, *b = NULL;
        size_t na = 0, nb = 0;

        ck_assert_int_eq(hv_sample_all(conn, 0, &a, &na), 0);
        ck_assert_int_eq(hv_sample_all(conn, 0, &b, &nb), 0);
        ck_assert_uint_eq(na, 4);
        ck_assert_uint_eq(nb, 4);
        for (size_t i = 0; i < nb; i++) {
                HvDomainMetrics m;

                ck_assert_uint_eq(b[i].fields, HV_FIELD_STATE);
                ck_assert_uint_eq(b[i].uuid[0] != '\0', 1);
                ck_assert_int_eq(b[i].state, strcmp(b[i].name, "spare") == 0 ? HV_STATE_SHUTOFF
                                                                             : HV_STATE_RUNNING);
                ck_assert_uint_ge(b[i].sampled_usec, a[0].sampled_usec);
                /* Same order in both calls here; the agent matches by UUID. */
                ck_assert_str_eq(a[i].uuid, b[i].uuid);
                ck_assert_int_eq(hv_metrics_derive(&a[i], &b[i], &m), 0);
                ck_assert_uint_eq(m.valid, HV_METRIC_STATE);
        }
}
END_TEST

/* The test driver's state is shared by its connections in one process, so a
 * second, plain libvirt connection plays the administrator. */
static virConnectPtr admin_connect(void) {
        virConnectPtr admin = virConnectOpen("test:///default");

        ck_assert_ptr_nonnull(admin);
        return admin;
}

static const char new_domain_xml[] = "<domain type='test'><name>newvm</name>"
                                     "<memory>1048576</memory><vcpu current='1'>2</vcpu>"
                                     "<os><type>hvm</type></os></domain>";

START_TEST(test_libvirt_domains_come_and_go) {
        _cleanup_(hv_connection_freep) HvConnection *conn = lv_connect("test:///default");
        virConnectPtr admin = admin_connect();
        virDomainPtr dom;
        HvDomainRef *refs = NULL;
        HvDomainSample *samples = NULL;
        unsigned vcpus = 0;
        size_t n = 0;

        dom = virDomainDefineXML(admin, new_domain_xml);
        ck_assert_ptr_nonnull(dom);
        ck_assert_int_eq(hv_domain_list(conn, 0, &refs, &n), 0);
        ck_assert_uint_eq(n, 2);
        ck_assert_int_eq(find_ref(refs, n, "newvm")->state, HV_STATE_SHUTOFF);
        ck_assert(!find_ref(refs, n, "newvm")->active);
        free(refs);

        ck_assert_int_eq(virDomainCreate(dom), 0);
        ck_assert_int_eq(hv_sample_all(conn, 0, &samples, &n), 0);
        ck_assert_uint_eq(n, 2);
        for (size_t i = 0; i < n; i++)
                ck_assert_int_eq(samples[i].state, HV_STATE_RUNNING);
        free(samples);
        ck_assert_int_eq(hv_domain_set_vcpus(conn, "newvm", 2, 0, &vcpus), 0);
        ck_assert_uint_eq(vcpus, 2);

        /* Gone between list and action: a clean -ENOENT. */
        ck_assert_int_eq(virDomainDestroy(dom), 0);
        ck_assert_int_eq(virDomainUndefine(dom), 0);
        virDomainFree(dom);
        ck_assert_int_eq(hv_domain_set_vcpus(conn, "newvm", 1, HV_VCPUS_ALLOW_UNPLUG, &vcpus),
                         -ENOENT);
        ck_assert_int_eq(hv_domain_list(conn, 0, &refs, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_str_eq(refs[0].name, "test");
        free(refs);

        /* A transient domain: created without a definition, gone when stopped. */
        dom = virDomainCreateXML(admin, new_domain_xml, 0);
        ck_assert_ptr_nonnull(dom);
        ck_assert_int_eq(hv_domain_list(conn, 0, &refs, &n), 0);
        ck_assert_uint_eq(n, 2);
        ck_assert(!find_ref(refs, n, "newvm")->persistent);
        free(refs);
        ck_assert_int_eq(virDomainDestroy(dom), 0);
        virDomainFree(dom);
        ck_assert_int_eq(hv_sample_all(conn, 0, &samples, &n), 0);
        ck_assert_uint_eq(n, 1);
        free(samples);
        virConnectClose(admin);
}
END_TEST

/* Domain events arrive on libvirt's event thread. */
static struct {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        HvDomainEvent events[16];
        size_t n;
} seen = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };

static void on_event(const char *name, HvDomainEvent event, void *userdata) {
        if (strcmp(name, (const char *)userdata) != 0)
                return;
        pthread_mutex_lock(&seen.lock);
        if (seen.n < ELEMENTSOF(seen.events))
                seen.events[seen.n++] = event;
        pthread_cond_broadcast(&seen.cond);
        pthread_mutex_unlock(&seen.lock);
}

/* Waits (at most 2 s, no fixed sleep) until n events have been seen. */
static size_t wait_events(size_t n) {
        struct timespec deadline;
        size_t got;

        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += 2;
        pthread_mutex_lock(&seen.lock);
        while (seen.n < n && pthread_cond_timedwait(&seen.cond, &seen.lock, &deadline) == 0)
                ;
        got = seen.n;
        pthread_mutex_unlock(&seen.lock);
        return got;
}

START_TEST(test_libvirt_domain_events) {
        HvConnectOptions options = { .on_domain_event = on_event, .userdata = (void *)"newvm" };
        _cleanup_(hv_connection_freep) HvConnection *conn = NULL;
        virConnectPtr admin;
        virDomainPtr dom;

        ck_assert_int_eq(hv_event_loop_start(), 0);
        ck_assert_int_eq(hv_event_loop_start(), 0);
        ck_assert_int_eq(hv_connection_open("test:///default", &options, 0, &conn), 0);
        admin = admin_connect();

        dom = virDomainDefineXML(admin, new_domain_xml);
        ck_assert_ptr_nonnull(dom);
        ck_assert_uint_eq(wait_events(1), 1);
        ck_assert_int_eq(virDomainCreate(dom), 0);
        ck_assert_uint_eq(wait_events(2), 2);
        ck_assert_int_eq(virDomainSuspend(dom), 0);
        ck_assert_uint_eq(wait_events(3), 3);
        ck_assert_int_eq(virDomainDestroy(dom), 0);
        ck_assert_uint_eq(wait_events(4), 4);
        ck_assert_int_eq(virDomainUndefine(dom), 0);
        ck_assert_uint_eq(wait_events(5), 5);
        virDomainFree(dom);
        virConnectClose(admin);

        ck_assert_int_eq(seen.events[0], HV_EVENT_DEFINED);
        ck_assert_int_eq(seen.events[1], HV_EVENT_STARTED);
        ck_assert_int_eq(seen.events[2], HV_EVENT_OTHER);
        ck_assert_int_eq(seen.events[3], HV_EVENT_STOPPED);
        ck_assert_int_eq(seen.events[4], HV_EVENT_UNDEFINED);
        /* The test driver has no remote link: alive, no keepalive needed. */
        ck_assert(hv_connection_is_connected(conn));
}
END_TEST

START_TEST(test_state_names) {
        ck_assert_str_eq(hv_domain_state_to_string(HV_STATE_RUNNING), "running");
        ck_assert_str_eq(hv_domain_state_to_string(HV_STATE_PMSUSPENDED), "pmsuspended");
        ck_assert_str_eq(hv_domain_state_to_string((HvDomainState)8), "unknown");
        ck_assert_str_eq(hv_domain_state_to_string((HvDomainState)-1), "unknown");
}
END_TEST

Suite *suite_hypervisor(void) {
        Suite *s = suite_create("hypervisor");
        TCase *tc;

        tc = tcase_create("params");
        tcase_add_test(tc, test_params_full_record);
        tcase_add_test(tc, test_params_incomplete_groups);
        tcase_add_test(tc, test_params_odd_input_ignored);
        tcase_add_test(tc, test_params_vcpu_beyond_limit);
        tcase_add_test(tc, test_params_bad_arguments);
        tcase_add_test(tc, test_sched_params);
        tcase_add_test(tc, test_state_names);
        tcase_add_test(tc, test_cpu_list_count);
        suite_add_tcase(s, tc);

        tc = tcase_create("derive");
        tcase_add_test(tc, test_derive_steal_and_cpu);
        tcase_add_test(tc, test_derive_first_sample);
        tcase_add_test(tc, test_derive_counter_reset);
        tcase_add_test(tc, test_derive_one_vcpu_backwards);
        tcase_add_test(tc, test_derive_vcpu_hotplug);
        tcase_add_test(tc, test_derive_vcpu_unplug);
        tcase_add_test(tc, test_derive_no_common_vcpu);
        tcase_add_test(tc, test_derive_without_delay_field);
        tcase_add_test(tc, test_derive_zero_elapsed);
        tcase_add_test(tc, test_derive_slow_call_blurs_interval);
        tcase_add_test(tc, test_next_base_skips_slow_calls);
        tcase_add_test(tc, test_next_base_after_a_slow_first_call);
        tcase_add_test(tc, test_derive_clamps_jitter);
        tcase_add_test(tc, test_derive_other_domain);
        tcase_add_test(tc, test_sample_paused_job);
        tcase_add_test(tc, test_derive_sequence);
        tcase_add_test(tc, test_recorded_qemu_rounds);
        tcase_add_test(tc, test_derive_all_pairs_by_uuid);
        suite_add_tcase(s, tc);

        tc = tcase_create("dispatch");
        tcase_add_test(tc, test_dispatch_reconnect_backoff);
        tcase_add_test(tc, test_dispatch_lost_during_operation);
        tcase_add_test(tc, test_dispatch_lazy_open);
        tcase_add_test(tc, test_dispatch_unplug_policy);
        tcase_add_test(tc, test_dispatch_unsupported_and_bad_arguments);
        suite_add_tcase(s, tc);

        tc = tcase_create("libvirt");
        tcase_add_test(tc, test_libvirt_open_errors);
        tcase_add_test(tc, test_libvirt_default_domain);
        tcase_add_test(tc, test_libvirt_guest_vcpus_unsupported);
        tcase_add_test(tc, test_libvirt_fixture_list_and_info);
        tcase_add_test(tc, test_libvirt_fixture_actions);
        tcase_add_test(tc, test_libvirt_bulk_stats_state_only);
        tcase_add_test(tc, test_libvirt_domains_come_and_go);
        tcase_add_test(tc, test_libvirt_domain_events);
        suite_add_tcase(s, tc);
        return s;
}

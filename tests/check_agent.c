/* SPDX-License-Identifier: MIT */
/* The agent's pure parts: configuration, history ring, and the worker
 * queue that keeps libvirt off the event loop. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <systemd/sd-event.h>

#include "agent/balloon-guard.h"
#include "agent/collector.h"
#include "agent/agent-config.h"
#include "agent/decision-journal.h"
#include "agent/ring.h"
#include "agent/target-check.h"
#include "agent/vm-limits.h"
#include "agent/worker.h"
#include "common/daemon-util.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/macro.h"
#include "tests.h"

#define MIB (1ULL << 20)
#define GIB (1ULL << 30)

/* ---- configuration ---- */

START_TEST(test_config_defaults) {
        AgentConfig c = { 0 };
        ConfError err;
        ActLimits l;
        ActHost h;

        ck_assert_int_eq(conf_load_defaults(&agent_config_schema, &c, &err), 0);
        ck_assert_str_eq(c.uri, "qemu:///system");
        ck_assert_ptr_null(c.address);
        ck_assert_uint_eq(c.interval, 5 * USEC_PER_SEC);
        ck_assert_str_eq(c.allowed_group, "flexslot");
        ck_assert_int_eq(daemon_log_levels[c.log_level], LOG_LEVEL_INFO);
        ck_assert_int_eq(c.decisions, 256);

        agent_config_to_limits(&c, 16, 64 * GIB, &l, &h);
        ck_assert_uint_eq(act_vcpu_capacity(&l, h.cpus), 16);
        ck_assert_uint_eq(h.memory, 64 * GIB);
        ck_assert_uint_eq(l.reserve_memory, GIB);
        ck_assert_uint_eq(l.r[ACT_MEMORY].floor, 512 * MIB);
        ck_assert_uint_eq(l.r[ACT_CPU_CAP].floor, 100);
        ck_assert_uint_eq(l.r[ACT_CPU_CAP].ceiling, ACT_CAP_NONE);
        ck_assert(!l.allow_vcpu_unplug);
        conf_free(&agent_config_schema, &c);
}
END_TEST

START_TEST(test_config_host_overrides_and_overcommit) {
        AgentConfig c = { 0 };
        ConfError err;
        ActLimits l;
        ActHost h;

        ck_assert_int_eq(conf_load_string(&agent_config_schema, "inline",
                                          "[host]\ncpus = 6\nmemory = 8G\ncpu-overcommit = 1.5\n",
                                          &c, &err),
                         0);
        agent_config_to_limits(&c, 16, 64 * GIB, &l, &h);
        ck_assert_uint_eq(act_vcpu_capacity(&l, h.cpus), 9);
        ck_assert_uint_eq(h.memory, 8 * GIB);
        conf_free(&agent_config_schema, &c);
}
END_TEST

/* The shipped example must load, and as shipped it must mean the defaults. */
START_TEST(test_config_example_is_defaults) {
        AgentConfig example = { 0 }, defaults = { 0 };
        ConfError err;
        char msg[512];
        int r;

        r = conf_load_file(&agent_config_schema, test_srcdir_path("conf/agent.ini"), &example,
                           &err);
        conf_error_format(&err, msg, sizeof(msg));
        ck_assert_msg(r == 0, "%s", msg);
        ck_assert_int_eq(conf_load_defaults(&agent_config_schema, &defaults, &err), 0);
        ck_assert_str_eq(example.uri, defaults.uri);
        ck_assert_uint_eq(example.interval, defaults.interval);
        ck_assert_mem_eq(&example.act, &defaults.act, sizeof(example.act));
        conf_free(&agent_config_schema, &example);
        conf_free(&agent_config_schema, &defaults);
}
END_TEST

/* The simulator applies act_limits_default(): they must be the limits an
 * agent without a configuration file enforces. */
START_TEST(test_config_limits_are_the_simulators) {
        AgentConfig c = { 0 };
        const ActLimits *sim;
        ConfError err;
        ActLimits l;
        ActHost h;

        ck_assert_int_eq(conf_load_defaults(&agent_config_schema, &c, &err), 0);
        agent_config_to_limits(&c, 8, 16 * GIB, &l, &h);
        sim = act_limits_default();
        ck_assert_mem_eq(l.r, sim->r, sizeof(l.r));
        ck_assert_uint_eq(l.min_interval, sim->min_interval);
        ck_assert(l.allow_vcpu_unplug == sim->allow_vcpu_unplug);
        ck_assert(l.cpu_overcommit == sim->cpu_overcommit);
        ck_assert_uint_eq(l.reserve_cpus, sim->reserve_cpus);
        ck_assert_uint_eq(l.reserve_memory, sim->reserve_memory);
        conf_free(&agent_config_schema, &c);
}
END_TEST

typedef struct BadConfig {
        const char *file;
        unsigned line;
        const char *message;
} BadConfig;

static const BadConfig bad_configs[] = {
        { "bad.ini", 3, "[limts]: unknown section" },
        { "empty-section.ini", 1, "[agnt]: unknown section" },
        { "reserve-cpus.ini", 4, "[host] reserve-cpus: 4 leaves nothing of cpus 4" },
        { "memory-range.ini", 5, "[limits] min-memory: 2G is greater than max-memory 1G" },
        { "short-interval.ini", 3, "[agent] interval: value '10ms' out of range [100ms, 1h]" },
        { "tiny-memory.ini", 2, "[limits] min-memory: value '1000K' out of range [1M, 64T]" },
        { "zero-step.ini", 2, "[limits] max-vcpu-step: value '0' out of range [1, 4096]" },
        { "log-level.ini", 3,
          "[agent] log-level: invalid value 'loud' (one of: err, warning, notice, info, "
          "debug)" },
        { "min-change.ini", 3,
          "[limits] min-memory-change: 256M is greater than max-memory-step 128M" },
};

START_TEST(test_config_bad) {
        const BadConfig *b = &bad_configs[_i];
        AgentConfig c = { 0 };
        ConfError err;
        char path[512], expected[1024], got[1024];

        snprintf(path, sizeof(path), "%s%s", test_srcdir_path("tests/fixtures/agent/"), b->file);
        ck_assert_int_lt(conf_load_file(&agent_config_schema, path, &c, &err), 0);
        if (b->line > 0)
                snprintf(expected, sizeof(expected), "%s:%u: %s", path, b->line, b->message);
        else
                snprintf(expected, sizeof(expected), "%s: %s", path, b->message);
        conf_error_format(&err, got, sizeof(got));
        ck_assert_str_eq(got, expected);
        ck_assert_ptr_null(c.uri);
}
END_TEST

/* ---- domains whose settings a sample must read again ---- */

/* The loop hands a copy to a sample job; when that sample succeeds, what it
 * was handed is forgotten and what was added meanwhile stays for the next,
 * even a domain it was handed: it may have read that one before the
 * change. */
START_TEST(test_stale_list) {
        AgentStale stale = { 0 }, copy;

        /* What every sample of an agent that changed nothing does. */
        agent_stale_drop(&stale, 0);
        ck_assert_int_eq(agent_stale_add(&stale, "a"), 0);
        ck_assert_int_eq(agent_stale_add(&stale, "b"), 0);
        ck_assert_int_eq(agent_stale_copy(&stale, &copy), 0);
        ck_assert_int_eq(agent_stale_add(&stale, "c"), 0);
        ck_assert_int_eq(agent_stale_add(&stale, "a"), 0);
        agent_stale_drop(&stale, copy.n);
        ck_assert_uint_eq(stale.n, 2);
        ck_assert_str_eq(stale.uuids[0], "c");
        ck_assert_str_eq(stale.uuids[1], "a");
        ck_assert_uint_eq(copy.n, 2);
        ck_assert_str_eq(copy.uuids[1], "b");
        agent_stale_drop(&stale, 5);
        ck_assert_uint_eq(stale.n, 0);
        agent_stale_done(&copy);
        agent_stale_done(&stale);
}
END_TEST

/* ---- history ring ---- */

static int n_freed;

static void count_free(void *item) {
        n_freed++;
        free(item);
}

static int *int_new(int v) {
        int *p = malloc(sizeof(int));
        ck_assert_ptr_nonnull(p);
        *p = v;
        return p;
}

START_TEST(test_ring_keeps_newest) {
        Ring ring;

        n_freed = 0;
        ck_assert_int_eq(ring_init(&ring, 0, count_free), -EINVAL);
        ck_assert_int_eq(ring_init(&ring, 3, count_free), 0);
        ck_assert_ptr_null(ring_get_newest(&ring, 0));
        for (int i = 1; i <= 5; i++)
                ring_push(&ring, int_new(i));
        ck_assert_uint_eq(ring_size(&ring), 3);
        ck_assert_int_eq(n_freed, 2);
        ck_assert_int_eq(*(int *)ring_get_newest(&ring, 0), 5);
        ck_assert_int_eq(*(int *)ring_get_newest(&ring, 2), 3);
        ck_assert_ptr_null(ring_get_newest(&ring, 3));
        ring_done(&ring);
        ck_assert_int_eq(n_freed, 5);
}
END_TEST

/* ---- decision journal ---- */

/* The decisions numbered above since, as "id id ...". */
static const char *ids_after(const AgentDecisions *d, uint64_t since, char *buf, size_t size) {
        const AgentDecision *x;
        size_t n = 0;

        buf[0] = '\0';
        for (size_t i = 0; (x = agent_decisions_after(d, since, i)) && n < size; i++)
                n += (size_t)snprintf(buf + n, size - n, "%s%llu", n > 0 ? " " : "",
                                      (unsigned long long)x->id);
        return buf;
}

#define IDS_AFTER(d, since) ids_after((d), (since), (char[64]){ 0 }, 64)

START_TEST(test_decisions_after_keep_newest_in_order) {
        AgentDecisions d;
        usec_t before = now_realtime_usec();
        AgentDecision *x;

        ck_assert_int_eq(agent_decisions_init(&d, 3), 0);
        ck_assert_str_eq(IDS_AFTER(&d, 0), "");
        x = agent_decisions_add(&d);
        ck_assert_ptr_nonnull(x);
        ck_assert_uint_eq(x->id, 1);
        ck_assert_uint_eq(x->uid, AGENT_UID_UNKNOWN);
        ck_assert_uint_ge(x->time, before);
        ck_assert_str_eq(IDS_AFTER(&d, 0), "1");
        ck_assert_str_eq(IDS_AFTER(&d, 1), "");
        for (int i = 0; i < 4; i++)
                ck_assert_ptr_nonnull(agent_decisions_add(&d));
        /* 1 and 2 fell out of the ring of 3. */
        ck_assert_str_eq(IDS_AFTER(&d, 0), "3 4 5");
        ck_assert_str_eq(IDS_AFTER(&d, 2), "3 4 5");
        ck_assert_str_eq(IDS_AFTER(&d, 3), "4 5");
        ck_assert_str_eq(IDS_AFTER(&d, 4), "5");
        ck_assert_str_eq(IDS_AFTER(&d, 5), "");
        ck_assert_str_eq(IDS_AFTER(&d, UINT64_MAX), "");
        agent_decisions_done(&d);
}
END_TEST

START_TEST(test_decision_text_is_valid_utf8) {
        char buf[6];

        agent_decision_text(buf, sizeof(buf), "ab\xc3\xa9\xc3\xa9"); /* "abéé": cut in é */
        ck_assert_str_eq(buf, "ab\xc3\xa9");
        agent_decision_text(buf, sizeof(buf),
                            "a\xff"
                            "b");
        ck_assert_str_eq(buf, "a?b");
        agent_decision_text(buf, sizeof(buf), "\xc0\xaf"); /* an overlong '/' */
        ck_assert_str_eq(buf, "??");
        agent_decision_text(buf, sizeof(buf), "\xed\xa0\x80"); /* a surrogate */
        ck_assert_str_eq(buf, "???");
        agent_decision_text(buf, sizeof(buf), "\xe2\x82"); /* a character cut at the end */
        ck_assert_str_eq(buf, "??");
        agent_decision_text(buf, sizeof(buf), "\xf0\x9f\x99\x82"); /* U+1F642 fits */
        ck_assert_str_eq(buf, "\xf0\x9f\x99\x82");
}
END_TEST

/* ---- targets the domain has to show ---- */

static void count_report(const AgentTargetCheck *x, void *userdata) {
        (*(int *)userdata)++;
}

/* A snapshot of one domain "w" showing vcpus and memory measured at. */
static AgentSnapshot *snapshot_of(unsigned vcpus, uint64_t memory, usec_t at) {
        AgentSnapshot *s = calloc(1, sizeof(AgentSnapshot) + sizeof(AgentDomain));
        AgentDomain *d = &s->domains[0];

        s->n_domains = 1;
        snprintf(d->name, sizeof(d->name), "w");
        snprintf(d->uuid, sizeof(d->uuid), "11111111-1111-1111-1111-111111111111");
        d->metrics.valid = HV_METRIC_STATE | HV_METRIC_VCPUS | HV_METRIC_MEMORY;
        d->metrics.vcpus_current = vcpus;
        d->metrics.memory_kib = memory / 1024;
        for (unsigned k = 0; k < AGENT_METRIC_KINDS; k++)
                d->measured[k] = at;
        return s;
}

START_TEST(test_target_judged_after_grace) {
        const char *uuid = "11111111-1111-1111-1111-111111111111";
        AgentTargetChecks c = { 0 };
        AgentSnapshot *s;
        int reports = 0;

        ck_assert_int_eq(agent_target_expect(&c, uuid, "w", ACT_VCPUS, 3, 1000, 7), 0);
        ck_assert_int_eq(agent_target_expect(&c, uuid, "w", ACT_MEMORY, 2 * GIB, 1000, 7), 0);
        /* Measured before the grace period ended: not judged, even short. */
        s = snapshot_of(2, GIB, 999);
        agent_target_checks_judge(&c, s, count_report, &reports);
        free(s);
        ck_assert_int_eq(reports, 0);
        ck_assert_int_eq(c.items[0].state, AGENT_TARGET_PENDING);
        /* After it: the vCPUs are online, the balloon is still short. */
        s = snapshot_of(3, GIB, 1000);
        agent_target_checks_judge(&c, s, count_report, &reports);
        free(s);
        ck_assert_int_eq(reports, 2);
        ck_assert_int_eq(c.items[0].state, AGENT_TARGET_REACHED);
        ck_assert_int_eq(c.items[1].state, AGENT_TARGET_UNREACHED);
        ck_assert_uint_eq(c.items[1].seen, GIB);
        ck_assert_uint_eq(c.items[1].decision, 7);
        /* Unreached stays so, unreported again, until a sample shows it. */
        s = snapshot_of(3, GIB, 2000);
        agent_target_checks_judge(&c, s, count_report, &reports);
        free(s);
        ck_assert_int_eq(reports, 2);
        /* Within a balloon page of it counts. */
        s = snapshot_of(3, 2 * GIB - 3072, 3000);
        agent_target_checks_judge(&c, s, count_report, &reports);
        ck_assert_int_eq(reports, 3);
        ck_assert_int_eq(c.items[1].state, AGENT_TARGET_REACHED);
        /* A new change of a resource replaces its check. */
        ck_assert_int_eq(agent_target_expect(&c, uuid, "w", ACT_MEMORY, 3 * GIB, 4000, 8), 0);
        ck_assert_uint_eq(c.n, 2);
        ck_assert_int_eq(c.items[1].state, AGENT_TARGET_PENDING);
        /* A domain gone drops its checks. */
        s->domains[0].uuid[0] = '2';
        agent_target_checks_judge(&c, s, count_report, &reports);
        free(s);
        ck_assert_uint_eq(c.n, 0);
        ck_assert_int_eq(reports, 3);
        agent_target_checks_done(&c);
}
END_TEST

/* ---- worker queue ---- */

/* A job that blocks on a gate the test opens, standing in for a libvirt
 * call stuck on a busy domain job. */
typedef struct Gate {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        bool open, entered;
} Gate;

static Gate gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false };

typedef struct TestJob {
        int value;
        bool wait_gate;
        WorkerOutcome outcomes[2];
        int results[2];
        int n_answers;
        bool ran;
        bool *freed;
} TestJob;

static int test_job_run(void *userdata, void *data) {
        TestJob *job = data;

        job->ran = true;
        if (job->wait_gate) {
                pthread_mutex_lock(&gate.lock);
                gate.entered = true;
                pthread_cond_broadcast(&gate.cond);
                while (!gate.open)
                        pthread_cond_wait(&gate.cond, &gate.lock);
                pthread_mutex_unlock(&gate.lock);
        }
        return job->value + *(int *)userdata;
}

static void test_job_done(WorkerOutcome outcome, int result, void *data) {
        TestJob *job = data;

        ck_assert_int_lt(job->n_answers, 2);
        job->outcomes[job->n_answers] = outcome;
        job->results[job->n_answers] = result;
        job->n_answers++;
}

static void test_job_free(void *data) {
        TestJob *job = data;
        *job->freed = true;
}

static const WorkerJobOps test_ops = { test_job_run, test_job_done, test_job_free };

static void gate_set(bool open) {
        pthread_mutex_lock(&gate.lock);
        gate.open = open;
        gate.entered = false;
        pthread_cond_broadcast(&gate.cond);
        pthread_mutex_unlock(&gate.lock);
}

static void gate_wait_entered(void) {
        pthread_mutex_lock(&gate.lock);
        while (!gate.entered)
                pthread_cond_wait(&gate.cond, &gate.lock);
        pthread_mutex_unlock(&gate.lock);
}

/* Runs the loop until cond holds; each iteration waits at most 5 s, so a
 * broken worker fails the test instead of hanging it. */
#define RUN_UNTIL(event, cond)                                                        \
        do {                                                                          \
                for (int i_ = 0; i_ < 100 && !(cond); i_++)                           \
                        ck_assert_int_ge(sd_event_run((event), 5 * USEC_PER_SEC), 0); \
                ck_assert_msg((cond), "timed out waiting for " #cond);                \
        } while (0)

static int worker_base = 100;

START_TEST(test_worker_runs_in_order) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        Worker *w = NULL;
        bool freed[3] = { false };
        TestJob jobs[3];

        ck_assert_int_eq(sd_event_new(&e), 0);
        ck_assert_int_eq(worker_new(e, &worker_base, &w), 0);
        for (int i = 0; i < 3; i++) {
                jobs[i] = (TestJob){ .value = i, .freed = &freed[i] };
                ck_assert_int_eq(worker_submit(w, &test_ops, &jobs[i], 5 * USEC_PER_SEC), 0);
        }
        ck_assert_uint_eq(worker_get_pending(w), 3);
        RUN_UNTIL(e, freed[0] && freed[1] && freed[2]);
        for (int i = 0; i < 3; i++) {
                ck_assert_int_eq(jobs[i].n_answers, 1);
                ck_assert_int_eq(jobs[i].outcomes[0], WORKER_DONE);
                ck_assert_int_eq(jobs[i].results[0], 100 + i);
        }
        ck_assert_uint_eq(worker_get_pending(w), 0);
        ck_assert_ptr_null(worker_free(w));
}
END_TEST

/* The stuck job times out while running and still answers later; the job
 * queued behind it times out without ever running; the loop stays free. */
START_TEST(test_worker_timeouts) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        Worker *w = NULL;
        bool freed[2] = { false };
        TestJob stuck = { .value = 1, .wait_gate = true, .freed = &freed[0] };
        TestJob behind = { .value = 2, .freed = &freed[1] };

        gate_set(false);
        ck_assert_int_eq(sd_event_new(&e), 0);
        ck_assert_int_eq(worker_new(e, &worker_base, &w), 0);
        ck_assert_int_eq(worker_submit(w, &test_ops, &stuck, 20 * USEC_PER_MSEC), 0);
        gate_wait_entered();
        ck_assert_int_eq(worker_submit(w, &test_ops, &behind, 40 * USEC_PER_MSEC), 0);

        RUN_UNTIL(e, stuck.n_answers == 1 && behind.n_answers == 1);
        ck_assert_int_eq(stuck.outcomes[0], WORKER_TIMEOUT_RUNNING);
        ck_assert_int_eq(stuck.results[0], -ETIMEDOUT);
        ck_assert_int_eq(behind.outcomes[0], WORKER_TIMEOUT_QUEUED);
        ck_assert(freed[1]);
        ck_assert(!behind.ran);
        ck_assert(!freed[0]);
        ck_assert_uint_eq(worker_get_pending(w), 0);

        gate_set(true);
        RUN_UNTIL(e, freed[0]);
        ck_assert_int_eq(stuck.n_answers, 2);
        ck_assert_int_eq(stuck.outcomes[1], WORKER_LATE);
        ck_assert_int_eq(stuck.results[1], 101);
        ck_assert(!behind.ran);
        ck_assert_ptr_null(worker_free(w));
}
END_TEST

/* What an abandoned worker thread still uses must outlive the test
 * function, and stay reachable so that LeakSanitizer does not count it. */
static bool limit_freed[WORKER_QUEUE_MAX + 1];
static TestJob limit_jobs[WORKER_QUEUE_MAX + 1];
static Worker *volatile abandoned_worker;
static sd_event *volatile abandoned_event;

START_TEST(test_worker_queue_limit_and_stop) {
        bool *freed = limit_freed;
        TestJob *jobs = limit_jobs;
        Worker *w = NULL;
        sd_event *e = NULL;
        int n_cancelled = 0;

        gate_set(false);
        ck_assert_int_eq(sd_event_new(&e), 0);
        ck_assert_int_eq(worker_new(e, &worker_base, &w), 0);
        for (int i = 0; i <= WORKER_QUEUE_MAX; i++) {
                jobs[i] = (TestJob){ .value = i, .wait_gate = i == 0, .freed = &freed[i] };
                ck_assert_int_eq(worker_submit(w, &test_ops, &jobs[i], 0),
                                 i < WORKER_QUEUE_MAX ? 0 : -EBUSY);
        }
        gate_wait_entered();
        /* The running job cannot be stopped: stop gives up after the wait. */
        ck_assert_int_eq(worker_stop(w, 10 * USEC_PER_MSEC), -ETIMEDOUT);
        for (int i = 1; i < WORKER_QUEUE_MAX; i++) {
                ck_assert(freed[i]);
                n_cancelled += jobs[i].outcomes[0] == WORKER_CANCELLED;
        }
        ck_assert_int_eq(n_cancelled, WORKER_QUEUE_MAX - 1);
        ck_assert_int_eq(worker_submit(w, &test_ops, &jobs[WORKER_QUEUE_MAX], 0), -ESHUTDOWN);
        abandoned_worker = w;
        abandoned_event = e;
        gate_set(true);
}
END_TEST

/* An element as libvirt serializes it, with its namespace kept as a
 * prefix, either quote, and every limit. */
START_TEST(test_vm_limits_parse) {
        AgentVmLimits l;
        char why[160];

        ck_assert_int_eq(
                agent_vm_limits_parse("<flexslot:limits xmlns:flexslot=\"" AGENT_LIMITS_XMLNS "\" "
                                      "min-vcpus='2' max-vcpus=\"6\"\n min-memory=\"1G\" "
                                      "max-memory=\"8G\" min-cpu-weight=\"256\" "
                                      "max-cpu-weight=\"4096\"/>",
                                      &l, why, sizeof(why)),
                0);
        ck_assert_uint_eq(l.has_min,
                          ACT_BIT(ACT_VCPUS) | ACT_BIT(ACT_MEMORY) | ACT_BIT(ACT_CPU_WEIGHT));
        ck_assert_uint_eq(l.has_max, l.has_min);
        ck_assert_uint_eq(l.min[ACT_VCPUS], 2);
        ck_assert_uint_eq(l.max[ACT_VCPUS], 6);
        ck_assert_uint_eq(l.min[ACT_MEMORY], 1ULL << 30);
        ck_assert_uint_eq(l.max[ACT_MEMORY], 8ULL << 30);
        ck_assert_uint_eq(l.min[ACT_CPU_WEIGHT], 256);
        ck_assert_uint_eq(l.max[ACT_CPU_WEIGHT], 4096);
        ck_assert(!l.unmanaged);
        ck_assert_int_eq(agent_vm_limits_parse("<limits></limits>", &l, why, sizeof(why)), 0);
        ck_assert_uint_eq(l.has_min | l.has_max, 0);
        ck_assert_int_eq(agent_vm_limits_parse("<limits manage=\"no\" max-vcpus=\"2\"/>", &l, why,
                                               sizeof(why)),
                         0);
        ck_assert(l.unmanaged);
        ck_assert_uint_eq(l.has_max, ACT_BIT(ACT_VCPUS));
        ck_assert_int_eq(agent_vm_limits_parse("<limits manage='yes'/>", &l, why, sizeof(why)), 0);
        ck_assert(!l.unmanaged);
}
END_TEST

static const struct {
        const char *xml, *why;
} bad_vm_limits[] = {
        { "limits/>", "not an element" },
        { "<limits max-cpu-cap=\"2\"/>", "unknown attribute 'max-cpu-cap'" },
        { "<limits min-memory=\"lots\"/>", "min-memory: 'lots' is not a valid size" },
        { "<limits max-vcpus=\"0\"/>", "max-vcpus: '0' is not a valid count" },
        { "<limits max-vcpus=\"4/>", "max-vcpus: value too long or unterminated" },
        { "<limits max-vcpus=4/>", "malformed attribute at 'max-vcpus=4/>'" },
        { "<limits min-vcpus=\"4\" max-vcpus=\"2\"/>", "min-vcpus 4 is above max-vcpus 2" },
        { "<limits manage=\"never\"/>", "manage: 'never' is neither yes nor no" },
};

START_TEST(test_vm_limits_bad) {
        AgentVmLimits l = { .has_min = 1 };
        char why[160] = "";

        ck_assert_int_eq(agent_vm_limits_parse(bad_vm_limits[_i].xml, &l, why, sizeof(why)),
                         -EINVAL);
        ck_assert_str_eq(why, bad_vm_limits[_i].why);
        ck_assert_uint_eq(l.has_min, 1); /* untouched */
}
END_TEST

/* The narrower bound wins, each resource on its own; a VM's minimum above
 * the agent's maximum leaves nothing. */
START_TEST(test_vm_limits_apply) {
        ActLimits agent = { 0 }, l;
        AgentVmLimits vm = { .has_min = ACT_BIT(ACT_MEMORY), .has_max = ACT_BIT(ACT_VCPUS) };
        unsigned floors, ceilings;

        agent.r[ACT_VCPUS] = (ActResourceLimits){ .floor = 1, .ceiling = 8 };
        agent.r[ACT_MEMORY] = (ActResourceLimits){ .floor = 512 << 20, .ceiling = 16ULL << 30 };
        vm.min[ACT_MEMORY] = 1ULL << 30;
        vm.max[ACT_VCPUS] = 12; /* wider than the agent's: the agent's stands */
        ck_assert_int_eq(agent_vm_limits_apply(&vm, &agent, &l, &floors, &ceilings), 0);
        ck_assert_uint_eq(l.r[ACT_MEMORY].floor, 1ULL << 30);
        ck_assert_uint_eq(l.r[ACT_VCPUS].ceiling, 8);
        ck_assert_uint_eq(floors, ACT_BIT(ACT_MEMORY));
        ck_assert_uint_eq(ceilings, 0);
        vm.max[ACT_VCPUS] = 4;
        ck_assert_int_eq(agent_vm_limits_apply(&vm, &agent, &l, &floors, &ceilings), 0);
        ck_assert_uint_eq(l.r[ACT_VCPUS].ceiling, 4);
        ck_assert_uint_eq(ceilings, ACT_BIT(ACT_VCPUS));
        vm.min[ACT_MEMORY] = 32ULL << 30;
        ck_assert_int_eq(agent_vm_limits_apply(&vm, &agent, &l, &floors, &ceilings), -ERANGE);
}
END_TEST

/* ---- the balloon guard ---- */

/* Pressure of the four figures, in percent. */
static AgentDomainPressure pressure_of(double some10, double some60, double full10, double full60) {
        return (AgentDomainPressure){
                .known = true,
                .percent = { some10, some60, full10, full60 },
        };
}

/* The guest's word first (fresh statistics, no faults rising), then its
 * cgroup's pressure where known: "some" above its threshold over 10 s or
 * 60 s, or "full" above its lower one, refuses; at the threshold does
 * not. */
START_TEST(test_balloon_guard_judge) {
        const unsigned fresh = AGENT_GUEST_STATS_FRESH;
        const AgentPressureLimits max = { .some = 10, .full = 1 };
        AgentDomainPressure unknown = { 0 }, calm = pressure_of(10, 10, 1, 1),
                            now = pressure_of(10.01, 0, 0, 0),
                            last_minute = pressure_of(2, 10.5, 0, 0),
                            thrashing = pressure_of(3, 3, 1.2, 0),
                            thrashed = pressure_of(3, 3, 0, 1.01);

        ck_assert_int_eq(agent_balloon_guard_judge(0, &calm, &max), AGENT_GUARD_NO_GUEST_STATS);
        ck_assert_int_eq(agent_balloon_guard_judge(0, &now, &max), AGENT_GUARD_NO_GUEST_STATS);
        ck_assert_int_eq(
                agent_balloon_guard_judge(fresh | AGENT_GUEST_PRESSURE_RISING, &calm, &max),
                AGENT_GUARD_GUEST_PRESSURE);
        ck_assert_int_eq(agent_balloon_guard_judge(fresh, &unknown, &max), AGENT_GUARD_NONE);
        ck_assert_int_eq(agent_pressure_exceeded(&unknown, &max), -1);
        ck_assert_int_eq(agent_balloon_guard_judge(fresh, &calm, &max), AGENT_GUARD_NONE);
        ck_assert_int_eq(agent_pressure_exceeded(&calm, &max), -1);
        ck_assert_int_eq(agent_balloon_guard_judge(fresh, &now, &max), AGENT_GUARD_MEMORY_PRESSURE);
        ck_assert_int_eq(agent_pressure_exceeded(&now, &max), AGENT_PRESSURE_SOME_AVG10);
        ck_assert_int_eq(agent_balloon_guard_judge(fresh, &last_minute, &max),
                         AGENT_GUARD_MEMORY_PRESSURE);
        ck_assert_int_eq(agent_pressure_exceeded(&last_minute, &max), AGENT_PRESSURE_SOME_AVG60);
        ck_assert_int_eq(agent_balloon_guard_judge(fresh, &thrashing, &max),
                         AGENT_GUARD_MEMORY_PRESSURE);
        ck_assert_int_eq(agent_pressure_exceeded(&thrashing, &max), AGENT_PRESSURE_FULL_AVG10);
        ck_assert_int_eq(agent_pressure_exceeded(&thrashed, &max), AGENT_PRESSURE_FULL_AVG60);
        ck_assert_str_eq(agent_pressure_figure_to_string(AGENT_PRESSURE_FULL_AVG60), "full avg60");
        ck_assert_double_eq(agent_pressure_limit(&max, AGENT_PRESSURE_SOME_AVG60), 10);
        ck_assert_double_eq(agent_pressure_limit(&max, AGENT_PRESSURE_FULL_AVG10), 1);
        /* A threshold of 0 refuses any pressure at all, and only that. */
        ck_assert_int_eq(
                agent_balloon_guard_judge(fresh, &thrashed,
                                          &(AgentPressureLimits){ .some = 0, .full = 100 }),
                AGENT_GUARD_MEMORY_PRESSURE);
        ck_assert_int_eq(agent_balloon_guard_judge(fresh, &(AgentDomainPressure){ .known = true },
                                                   &(AgentPressureLimits){ 0 }),
                         AGENT_GUARD_NONE);
}
END_TEST

static void write_pressure(const char *dir, const char *text) {
        char path[512];
        FILE *f;

        snprintf(path, sizeof(path), "%s/memory.pressure", dir);
        f = fopen(path, "we");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_ge(fputs(text, f), 0);
        ck_assert_int_eq(fclose(f), 0);
}

/* A cgroup directory's memory.pressure as the kernel writes it, and what
 * is not one. */
START_TEST(test_pressure_read) {
        static const char *const bad[] = {
                /* "full" alone, or "some" alone: the kernel writes both */
                "full avg10=1.00 avg60=0.00 avg300=0.00 total=1\n",
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
                "some avg10=lots avg60=0.00 avg300=0.00 total=1\n"
                "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
                "some avg10=1.00 avg60=120.00 avg300=0.00 total=1\n"
                "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
                "some avg10=1.00 avg60=2.00 avg300=0.00 total=1\n"
                "full avg10=0.00 avg300=0.00 total=0\n",
                "some avg10=1.00 avg60=2.00 avg300=0.00 total=1\n"
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
        };
        _cleanup_free_ char *dir = test_make_tmpdir();
        AgentDomainPressure p = { 0 };

        ck_assert_ptr_nonnull(dir);
        ck_assert_int_eq(agent_pressure_read(dir, &p), -ENOENT);
        write_pressure(dir, "some avg10=23.50 avg60=4.10 avg300=0.90 total=81723\n"
                            "full avg10=11.00 avg60=2.00 avg300=0.40 total=40031\n");
        ck_assert_int_eq(agent_pressure_read(dir, &p), 0);
        ck_assert(p.known);
        ck_assert_double_eq(p.percent[AGENT_PRESSURE_SOME_AVG10], 23.5);
        ck_assert_double_eq(p.percent[AGENT_PRESSURE_SOME_AVG60], 4.1);
        ck_assert_double_eq(p.percent[AGENT_PRESSURE_FULL_AVG10], 11);
        ck_assert_double_eq(p.percent[AGENT_PRESSURE_FULL_AVG60], 2);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                write_pressure(dir, bad[i]);
                ck_assert_msg(agent_pressure_read(dir, &p) == -EBADMSG, "%s", bad[i]);
        }
        ck_assert_double_eq(p.percent[AGENT_PRESSURE_SOME_AVG10], 23.5); /* untouched */
        test_remove_tree(dir);
}
END_TEST

static const struct {
        const char *text, *path; /* path NULL: -ENOENT */
} domain_cgroups[] = {
        /* libvirt under systemd, cgroup v2 */
        { "0::/machine.slice/machine-qemu\\x2d3\\x2dweb1.scope/libvirt/emulator\n",
          "/machine.slice/machine-qemu\\x2d3\\x2dweb1.scope/libvirt" },
        /* libvirt without systemd, a hybrid host's v1 lines before */
        { "4:memory:/machine/qemu-1-g.libvirt-qemu/emulator\n"
          "0::/machine/qemu-1-g.libvirt-qemu/emulator\n",
          "/machine/qemu-1-g.libvirt-qemu" },
        /* cgroup v1 guests: the v2 line is libvirtd's own, not the guest's */
        { "4:memory:/machine/qemu-1-g.libvirt-qemu/emulator\n0::/system.slice/libvirtd.service\n",
          NULL },
        { "0::/\n", NULL },
        { "4:memory:/machine/qemu-1-g.libvirt-qemu/emulator\n", NULL },
        { "0::/user.slice/machine-qemu\n", NULL },
};

START_TEST(test_domain_cgroup_parse) {
        char path[256] = "untouched";
        int r = agent_domain_cgroup_parse(domain_cgroups[_i].text, path, sizeof(path));

        if (!domain_cgroups[_i].path) {
                ck_assert_int_eq(r, -ENOENT);
                ck_assert_str_eq(path, "untouched");
                return;
        }
        ck_assert_int_eq(r, 0);
        ck_assert_str_eq(path, domain_cgroups[_i].path);
}
END_TEST

/* A stand-in for QEMU as libvirt starts it, as far as /proc shows: a
 * process whose command line is "qemu -name guest=g -uuid UUID". */
typedef struct FakeQemu {
        pid_t pid;
        int stdin_fd; /* held open: it waits on its standard input */
} FakeQemu;

/* Returns once the stand-in runs with its command line: it has written a
 * line. */
static FakeQemu fake_qemu_start(const char *uuid) {
        FakeQemu q;
        int in[2], out[2];
        char ready;

        ck_assert_int_eq(pipe2(in, O_CLOEXEC), 0);
        ck_assert_int_eq(pipe2(out, O_CLOEXEC), 0);
        q.pid = fork();
        ck_assert_int_ge(q.pid, 0);
        if (q.pid == 0) {
                dup2(in[0], STDIN_FILENO);
                dup2(out[1], STDOUT_FILENO);
                execl("/bin/sh", "sh", "-c", "echo; read x", "qemu", "-name", "guest=g", "-uuid",
                      uuid, (char *)NULL);
                _exit(127);
        }
        close(in[0]);
        close(out[1]);
        ck_assert_int_eq(read(out[0], &ready, 1), 1);
        close(out[0]);
        q.stdin_fd = in[1];
        return q;
}

/* Stops the stand-in by its PID and reaps it. */
static void fake_qemu_stop(const FakeQemu *q) {
        ck_assert_int_eq(kill(q->pid, SIGTERM), 0);
        ck_assert_int_eq(waitpid(q->pid, NULL, 0), q->pid);
        close(q->stdin_fd);
}

/* QEMU found by the -uuid on its command line, in this machine's /proc: a
 * process started with one, as libvirt starts QEMU. */
START_TEST(test_qemu_pid_by_uuid) {
        static const char uuid[] = "8a1cbd63-0d6f-4bd1-9a1e-2f4a4d6e7c01";
        FakeQemu qemu = fake_qemu_start("8A1CBD63-0D6F-4BD1-9A1E-2F4A4D6E7C01");
        pid_t found = 0;

        ck_assert_int_eq(agent_qemu_pid("/proc", uuid, &found), 0);
        ck_assert_int_eq(found, qemu.pid);
        ck_assert_int_eq(agent_qemu_pid("/proc", "8a1cbd63-0d6f-4bd1-9a1e-2f4a4d6e7c02", &found),
                         -ESRCH);
        fake_qemu_stop(&qemu);
        ck_assert_int_eq(agent_qemu_pid("/nonexistent", uuid, &found), -ENOENT);
}
END_TEST

START_TEST(test_domain_pressure_on_this_kernel) {
        const char *root = agent_cgroup2_root();
        char top[256], machine[300], emulator[320], procs[340], want[340], uuid[40];
        char pid_text[16], detail[512];
        AgentDomainPressure pressure;
        FakeQemu qemu;

        if (!root || geteuid() != 0) {
                test_skip("domain_pressure_on_this_kernel", "needs root and cgroup v2");
                return;
        }
        snprintf(top, sizeof(top), "%s/flexslot-test.%d", root, (int)getpid());
        snprintf(machine, sizeof(machine), "%s/qemu-1-t.libvirt-qemu", top);
        snprintf(emulator, sizeof(emulator), "%s/emulator", machine);
        snprintf(procs, sizeof(procs), "%s/cgroup.procs", emulator);
        snprintf(want, sizeof(want), "%s/memory.pressure", machine);
        snprintf(uuid, sizeof(uuid), "8a1cbd63-0d6f-4bd1-9a1e-%012d", (int)getpid());
        if (mkdir(top, 0755) < 0) {
                test_skip("domain_pressure_on_this_kernel", "cgroup v2 takes no new cgroup");
                return;
        }
        ck_assert_int_eq(mkdir(machine, 0755), 0);
        ck_assert_int_eq(mkdir(emulator, 0755), 0);

        qemu = fake_qemu_start(uuid);
        snprintf(pid_text, sizeof(pid_text), "%d", (int)qemu.pid);
        if (write_string_file(procs, pid_text) < 0)
                test_skip("domain_pressure_on_this_kernel",
                          "cannot move a process between cgroups");
        else {
                agent_domain_pressure(uuid, &pressure, detail, sizeof(detail));
                ck_assert_msg(pressure.known, "%s", detail);
                ck_assert_str_eq(detail, want);
                for (AgentPressureFigure f = 0; f < _AGENT_PRESSURE_FIGURE_MAX; f++)
                        ck_assert(pressure.percent[f] >= 0 && pressure.percent[f] <= 100);
        }

        fake_qemu_stop(&qemu);
        ck_assert_int_eq(rmdir(emulator), 0);
        ck_assert_int_eq(rmdir(machine), 0);
        ck_assert_int_eq(rmdir(top), 0);
}
END_TEST

Suite *suite_agent(void) {
        Suite *s = suite_create("agent");
        TCase *tc;

        tc = tcase_create("config");
        tcase_add_test(tc, test_config_defaults);
        tcase_add_test(tc, test_config_host_overrides_and_overcommit);
        tcase_add_test(tc, test_config_example_is_defaults);
        tcase_add_test(tc, test_config_limits_are_the_simulators);
        tcase_add_loop_test(tc, test_config_bad, 0, (int)ELEMENTSOF(bad_configs));
        suite_add_tcase(s, tc);

        tc = tcase_create("balloon_guard");
        tcase_add_test(tc, test_balloon_guard_judge);
        tcase_add_test(tc, test_pressure_read);
        tcase_add_loop_test(tc, test_domain_cgroup_parse, 0, (int)ELEMENTSOF(domain_cgroups));
        tcase_add_test(tc, test_qemu_pid_by_uuid);
        tcase_add_test(tc, test_domain_pressure_on_this_kernel);
        suite_add_tcase(s, tc);

        tc = tcase_create("vm_limits");
        tcase_add_test(tc, test_vm_limits_parse);
        tcase_add_loop_test(tc, test_vm_limits_bad, 0, (int)ELEMENTSOF(bad_vm_limits));
        tcase_add_test(tc, test_vm_limits_apply);
        suite_add_tcase(s, tc);

        tc = tcase_create("stale");
        tcase_add_test(tc, test_stale_list);
        suite_add_tcase(s, tc);

        tc = tcase_create("ring");
        tcase_add_test(tc, test_ring_keeps_newest);
        suite_add_tcase(s, tc);

        tc = tcase_create("decisions");
        tcase_add_test(tc, test_decisions_after_keep_newest_in_order);
        tcase_add_test(tc, test_decision_text_is_valid_utf8);
        suite_add_tcase(s, tc);

        tc = tcase_create("targets");
        tcase_add_test(tc, test_target_judged_after_grace);
        suite_add_tcase(s, tc);

        tc = tcase_create("worker");
        tcase_add_test(tc, test_worker_runs_in_order);
        tcase_add_test(tc, test_worker_timeouts);
        tcase_add_test(tc, test_worker_queue_limit_and_stop);
        suite_add_tcase(s, tc);
        return s;
}

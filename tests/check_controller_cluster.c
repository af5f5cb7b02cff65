/* SPDX-License-Identifier: MIT */
/* The controller's live model (controller/daemon/cluster.h) on a store in
 * each test's own directory: a stored ARIA profile reaches the deadline
 * schedulers as it was stored, an operator's slots reach the tracker and
 * its reports are checked against what it has heard, a job resumed with
 * every task done ends at the first heartbeat, and a job's input and the
 * profile of its run reach the snapshot as the simulator gives them. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/cluster-fixture.h"
#include "common/macro.h"
#include "controller/daemon/cluster-heartbeat.h"
#include "controller/daemon/cluster-job.h"
#include "controller/daemon/cluster-output.h"
#include "controller/daemon/cluster-profile.h"
#include "controller/daemon/cluster-snapshot.h"
#include "controller/daemon/cluster.h"
#include "policy/layers/policies.h"
#include "policy/layers/slo-sched.h"
#include "tests.h"

static char *dir;
static ClusterFixture fixture;
/* The fixture's, by the names the tests use. The jobs' inputs, in/a and
 * in/b under dir, are a split each. */
static Store *store;
static Policy *policy;
static ClusterData data;

/* An input of a line's size. */
static void write_input(const char *name) {
        ck_assert_int_eq(cluster_fixture_input(&fixture, name, 16), 0);
}

static void setup(void) {
        StoreError err = { 0 };

        dir = test_make_tmpdir();
        ck_assert_ptr_nonnull(dir);
        ck_assert_int_eq(cluster_fixture_open(&fixture, dir, 64 << 20, &err), 0);
        write_input("a");
        write_input("b");
        store = fixture.store;
        policy = fixture.policy;
        data = fixture.data;
}

static void teardown(void) {
        cluster_fixture_close(&fixture);
        store = NULL;
        policy = NULL;
        test_remove_tree(dir);
        free(dir);
        dir = NULL;
}

static uint64_t submit(const char *user, const char *name, unsigned reduces) {
        static const char *const inputs[] = { "in/a", "in/b" };
        StoreJobSpec spec = { .name = name,
                              .user = user,
                              .pool = "default",
                              .app = "wordcount",
                              .inputs = inputs,
                              .n_inputs = ELEMENTSOF(inputs),
                              .n_reduces = reduces };
        StoreError err = { 0 };
        uint64_t id;

        ck_assert_int_eq(store_job_submit(store, &spec, &id, &err), 0);
        return id;
}

/* Table 1 of ARIA (its WikiTrends profile), the numbers as they are. */
static const StoreProfileStats wikitrends = {
        .map_min = 49,
        .map_avg = 70,
        .map_max = 108,
        .map_input = 64 << 20,
        .map_selectivity = 0.4,
        .sh1_avg = 12,
        .sh1_max = 20,
        .shtyp_avg = 35,
        .shtyp_max = 48,
        .reduce_avg = 15,
        .reduce_max = 22,
        .reduce_selectivity = 0.5,
};

START_TEST(test_profile_round_trip) {
        StoreError err = { 0 };
        ClusterProfile cp = { 0 };
        AriaProfile got;
        Job job = { 0 };

        ck_assert_int_eq(cluster_profile_load(store, "alice", "wt", &cp, &err), -ENOENT);
        ck_assert_int_eq(store_profile_put(store, "alice", "wt", 7, &wikitrends, &err), 0);
        ck_assert_int_eq(cluster_profile_load(store, "alice", "wt", &cp, &err), 0);
        ck_assert_uint_eq(cp.job, 7);
        job.stored_profile = &cp.phases;
        /* 71 splits of a block each, as the job's own splits give it. */
        job.input_size = 71 * (64ULL << 20);
        ck_assert_int_eq(job_validate(&job), 0);
        ck_assert_int_eq(slo_job_profile(&job, 71, &got), 0);
        /* What the schedulers read is what was stored (selectivities are
         * not theirs to read). */
        ck_assert_double_eq_tol(got.map_min, wikitrends.map_min, 1e-6);
        ck_assert_double_eq_tol(got.map_avg, wikitrends.map_avg, 1e-6);
        ck_assert_double_eq_tol(got.map_max, wikitrends.map_max, 1e-6);
        ck_assert_double_eq_tol(got.map_input, wikitrends.map_input, 1e-6);
        ck_assert_double_eq_tol(got.sh1_avg, wikitrends.sh1_avg, 1e-6);
        ck_assert_double_eq_tol(got.sh1_max, wikitrends.sh1_max, 1e-6);
        ck_assert_double_eq_tol(got.shtyp_avg, wikitrends.shtyp_avg, 1e-6);
        ck_assert_double_eq_tol(got.shtyp_max, wikitrends.shtyp_max, 1e-6);
        ck_assert_double_eq_tol(got.reduce_avg, wikitrends.reduce_avg, 1e-6);
        ck_assert_double_eq_tol(got.reduce_max, wikitrends.reduce_max, 1e-6);
}
END_TEST

/* A job's succeeded attempts become its (user, name)'s profile when it
 * ends, and the next job of that name is loaded with it. */
START_TEST(test_profile_saved_and_loaded) {
        StoreError err = { 0 };
        StoreProfile sp = { 0 };
        StoreTaskRecord rec[] = {
                { .type = TASK_MAP,
                  .index = 0,
                  .attempt = 1,
                  .started = 1000000,
                  .finished = 3000000,
                  .input_bytes = 100,
                  .output_bytes = 40 },
                { .type = TASK_MAP,
                  .index = 1,
                  .attempt = 2,
                  .started = 1000000,
                  .finished = 5000000,
                  .input_bytes = 100,
                  .output_bytes = 40 },
                { .type = TASK_REDUCE,
                  .index = 0,
                  .attempt = 3,
                  .started = 5000000,
                  .shuffle_end = 6000000,
                  .finished = 9000000,
                  .input_bytes = 80,
                  .output_bytes = 8 },
        };
        Cluster *c = NULL;
        StoreJob info = { 0 };
        uint64_t id = submit("bob", "wc", 1), next;

        ck_assert_int_eq(store_job_start(store, id, 2, &err), 0);
        for (size_t i = 0; i < ELEMENTSOF(rec); i++) {
                rec[i].job = id;
                rec[i].node = "t1";
                rec[i].status = STORE_TASK_SUCCEEDED;
                rec[i].output = "out";
        }
        ck_assert_int_eq(store_tasks_record(store, rec, ELEMENTSOF(rec), &err), 0);
        ck_assert_int_eq(store_job_get(store, id, &info, &err), 0);
        ck_assert_int_eq(cluster_profile_save(store, &info, &err), 0);
        store_job_clear(&info);
        ck_assert_int_eq(store_profile_get(store, "bob", "wc", &sp, &err), 0);
        ck_assert_uint_eq(sp.job, id);
        ck_assert_double_eq_tol(sp.profile.map_avg, 3, 1e-9);
        ck_assert_double_eq_tol(sp.profile.map_max, 4, 1e-9);
        ck_assert_double_eq_tol(sp.profile.reduce_avg, 3, 1e-9);
        ck_assert_double_eq_tol(sp.profile.map_input, 100, 1e-9);
        store_profile_clear(&sp);

        next = submit("bob", "wc", 1);
        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        ck_assert_uint_eq(c->n_jobs, 2);
        ck_assert_uint_eq(c->jobs[0].profile.job, id);
        ck_assert_uint_eq(c->jobs[1].info.id, next);
        ck_assert_uint_eq(c->jobs[1].profile.job, id);
        cluster_free(c);
}
END_TEST

/* A map whose last allowed attempt failed while the controller was away
 * (its failures stored, its job not ended) fails its job when a restarted
 * controller settles its jobs, with the last failure's reason. */
START_TEST(test_restored_failures_fail_the_job) {
        StoreTaskRecord rec[CLUSTER_MAX_FAILURES];
        StoreError err = { 0 };
        StoreJob info = { 0 };
        Cluster *c = NULL;
        uint64_t id = submit("bob", "wc", 1);

        ck_assert_int_eq(store_job_start(store, id, 2, &err), 0);
        for (unsigned i = 0; i < CLUSTER_MAX_FAILURES; i++)
                rec[i] = (StoreTaskRecord){ .job = id,
                                            .type = TASK_MAP,
                                            .index = 1,
                                            .attempt = i + 1,
                                            .node = "t1",
                                            .status = STORE_TASK_FAILED,
                                            .started = (i + 1) * USEC_PER_SEC,
                                            .finished = (i + 2) * USEC_PER_SEC,
                                            .reason = i + 1 < CLUSTER_MAX_FAILURES ? "early"
                                                                                   : "last" };
        ck_assert_int_eq(store_tasks_record(store, rec, ELEMENTSOF(rec), &err), 0);
        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        c->verify_snapshot = true;
        ck_assert_ptr_nonnull(cluster_job_find(c, id));
        cluster_jobs_settle(c);
        ck_assert_ptr_null(cluster_job_find(c, id));
        ck_assert_int_eq(store_job_get(store, id, &info, &err), 0);
        ck_assert_int_eq(info.state, STORE_JOB_FAILED);
        ck_assert_str_eq(info.message, "map task 1 failed 4 times; the last: last");
        store_job_clear(&info);
        cluster_free(c);
}
END_TEST

static uint64_t register_tracker(Cluster *c, unsigned map_slots, unsigned reduce_slots) {
        const unsigned slots[_SLOT_TYPE_MAX] = { map_slots, reduce_slots };
        uint64_t id;

        ck_assert_int_eq(cluster_register(c, "uuid", "t1", slots, 256 << 20, 1, &id), 0);
        return id;
}

START_TEST(test_set_slots) {
        const unsigned cut[_SLOT_TYPE_MAX] = { 1, 0 };
        StoreError err = { 0 };
        Tracker1Report report = { .free_slots = { 2, 1 } };
        Tracker1Reply reply = { 0 };
        Cluster *c = NULL;
        uint64_t node;

        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        node = register_tracker(c, 2, 1);
        ck_assert_int_eq(cluster_set_slots(c, node + 1, cut, 0, 10, &err), -ENXIO);
        ck_assert_int_eq(cluster_set_slots(c, node, cut, 512 << 20, 10, &err), 0);
        /* The tracker has not heard of the cut: all its old slots free is
         * still a true report. */
        ck_assert_int_eq(cluster_heartbeat(c, node, &report, 20, 2, &reply, &err), 0);
        ck_assert_uint_eq(reply.slots[TRACKER1_MAP], 1);
        ck_assert_uint_eq(reply.slots[TRACKER1_REDUCE], 0);
        ck_assert_uint_eq(reply.slot_memory, 512 << 20);
        tracker1_reply_done(&reply);
        /* Now it has. */
        ck_assert_int_eq(cluster_heartbeat(c, node, &report, 30, 3, &reply, &err), -EINVAL);
        ck_assert_str_eq(err.field, "free-slots");
        ck_assert_uint_eq(cluster_lose_silent(c, 100, 100, 10), 1);
        ck_assert_int_eq(cluster_set_slots(c, node, cut, 0, 110, &err), -ENXIO);
        cluster_free(c);
}
END_TEST

/* A job's inputs are read beneath the data directory: a symlink planted
 * there (by a tracker VM, a task) that leads out of it, named as an input
 * (refused by that name) or found in an input directory, is refused,
 * nothing stored. */
START_TEST(test_inputs_beneath_data_dir) {
        static const struct {
                const char *input;
                bool named;
        } escapes[] = { { "in/out", true }, { "linked", true }, { "in", false } };
        _cleanup_free_ char *outside = NULL, *file_link = NULL, *dir_link = NULL;
        StoreError err = { 0 };
        AdmitVerdict verdict;
        Cluster *c = NULL;
        uint64_t id;

        outside = test_make_tmpdir();
        ck_assert_ptr_nonnull(outside);
        ck_assert_int_ge(asprintf(&file_link, "%s/in/out", dir), 0);
        ck_assert_int_eq(symlink("/etc/passwd", file_link), 0);
        ck_assert_int_ge(asprintf(&dir_link, "%s/linked", dir), 0);
        ck_assert_int_eq(symlink(outside, dir_link), 0);
        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        for (size_t i = 0; i < ELEMENTSOF(escapes); i++) {
                StoreJobSpec spec = { .name = "escape",
                                      .user = "eve",
                                      .pool = "default",
                                      .app = "wordcount",
                                      .inputs = &escapes[i].input,
                                      .n_inputs = 1,
                                      .n_reduces = 1 };

                err = (StoreError){ 0 };
                ck_assert_int_eq(cluster_submit(c, &spec, 10, &id, &verdict, &err), -EINVAL);
                ck_assert_msg(strstr(err.message, "out of the data directory"), "%s", err.message);
                ck_assert_msg(!escapes[i].named || strstr(err.message, escapes[i].input), "%s",
                              err.message);
        }
        ck_assert_uint_eq(c->n_jobs, 0);
        cluster_free(c);
        test_remove_tree(outside);
}
END_TEST

/* A lost tracker stays in the model, for ListNodes, until it has been lost
 * for the keep; a live one stays however long. */
START_TEST(test_forget_lost) {
        const unsigned slots[_SLOT_TYPE_MAX] = { 1, 1 };
        StoreError err = { 0 };
        Cluster *c = NULL;
        uint64_t lost, live, again;

        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        ck_assert_int_eq(cluster_register(c, "u1", "lost", slots, 256 << 20, 1, &lost), 0);
        ck_assert_int_eq(cluster_register(c, "u2", "live", slots, 256 << 20, 50, &live), 0);
        ck_assert_uint_eq(cluster_lose_silent(c, 100, 100, 60), 1);
        ck_assert_ptr_null(cluster_node_find_vm(c, "u1"));
        ck_assert_uint_eq(cluster_forget_lost(c, 100 + 999, 1000), 0);
        ck_assert_uint_eq(c->n_nodes, 2);
        ck_assert_uint_eq(cluster_forget_lost(c, 100 + 1000, 1000), 1);
        ck_assert_uint_eq(c->n_nodes, 1);
        ck_assert_ptr_null(cluster_node_find(c, lost));
        ck_assert_str_eq(cluster_node_find(c, live)->hostname, "live");
        /* Retired when its VM registers again, lost from then. */
        ck_assert_ptr_eq(cluster_node_find_vm(c, "u2"), cluster_node_find(c, live));
        ck_assert_int_eq(cluster_node_lose(c, live, 2000, 2000, "test"), 0);
        ck_assert_int_eq(cluster_node_lose(c, live, 2000, 2000, "test"), -ENOENT);
        ck_assert_int_eq(cluster_register(c, "u2", "live", slots, 256 << 20, 2000, &again), 0);
        ck_assert_uint_eq(cluster_forget_lost(c, 2999, 1000), 0);
        ck_assert_uint_eq(cluster_forget_lost(c, 3000, 1000), 1);
        ck_assert_uint_eq(c->n_nodes, 1);
        ck_assert_uint_eq(c->nodes[0].id, again);
        ck_assert(cluster_snapshot_current(c));
        cluster_free(c);
}
END_TEST

/* Killed after the last task's record and before the job's end: the
 * resumed job ends at the first heartbeat, though nothing finishes. */
START_TEST(test_resumed_complete_job_ends) {
        StoreError err = { 0 };
        StoreTaskRecord rec = { .type = TASK_MAP,
                                .attempt = 1,
                                .node = "t1",
                                .status = STORE_TASK_SUCCEEDED,
                                .started = 1,
                                .finished = 2,
                                .input_bytes = 1,
                                .output = "out" };
        Tracker1Report report = { 0 };
        Tracker1Reply reply = { 0 };
        Cluster *c = NULL;
        StoreJob info = { 0 };
        static const char *const inputs[] = { "in/a" };
        StoreJobSpec spec = { .name = "one",
                              .user = "carol",
                              .pool = "default",
                              .app = "wordcount",
                              .inputs = inputs,
                              .n_inputs = 1 };
        uint64_t id, node;

        ck_assert_int_eq(store_job_submit(store, &spec, &id, &err), 0);
        ck_assert_int_eq(store_job_start(store, id, 1, &err), 0);
        rec.job = id;
        ck_assert_int_eq(store_tasks_record(store, &rec, 1, &err), 0);
        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        node = register_tracker(c, 1, 1);
        ck_assert_int_eq(cluster_heartbeat(c, node, &report, 10, 2, &reply, &err), 0);
        tracker1_reply_done(&reply);
        ck_assert_uint_eq(c->n_jobs, 0);
        ck_assert_int_eq(store_job_get(store, id, &info, &err), 0);
        ck_assert_int_eq(info.state, STORE_JOB_SUCCEEDED);
        store_job_clear(&info);
        cluster_free(c);
}
END_TEST

/* ---- speculation: a task's original attempt and its backup ---- */

#define T0 (1000 * USEC_PER_SEC)
#define SPEC_MAPS 5

/* Five maps on trackers a (3 map slots) and b (2), no reduce slots, under
 * late; map 0's attempt on b makes a tenth of the others' progress, and
 * tracker c (1 map slot) comes when all five run. */
typedef struct Spec {
        Policy *late;
        Cluster *c;
        uint64_t job, a, b, cn;
        uint64_t attempts[SPEC_MAPS]; /* by map */
        uint64_t on[SPEC_MAPS];       /* their trackers */
        ClusterTask *slow;            /* the task b runs slowly */
        uint64_t slow_attempt, backup;
} Spec;

static uint64_t spec_register(Cluster *c, const char *name, unsigned map_slots) {
        const unsigned slots[_SLOT_TYPE_MAX] = { map_slots, 0 };
        uint64_t id;

        ck_assert_int_eq(cluster_register(c, name, name, slots, 256 << 20, 1, &id), 0);
        return id;
}

/* A heartbeat that must be taken; the snapshot the next step reuses is
 * then what a new one would be, and the attempt index holds what runs. */
static void beat(Cluster *c, uint64_t node, unsigned free_maps, Tracker1Running *running,
                 size_t n_running, Tracker1Finished *finished, size_t n_finished, usec_t now,
                 Tracker1Reply *reply) {
        Tracker1Report report = { .free_slots = { free_maps, 0 },
                                  .running = running,
                                  .n_running = n_running,
                                  .finished = finished,
                                  .n_finished = n_finished };
        StoreError err = { 0 };

        ck_assert_msg(cluster_heartbeat(c, node, &report, now, now, reply, &err) == 0, "%s",
                      err.message);
        ck_assert(cluster_snapshot_current(c));
        ck_assert(cluster_attempt_index_current(c));
}

static void spec_beat(Spec *f, uint64_t node, unsigned free_maps, Tracker1Running *running,
                      size_t n_running, Tracker1Finished *finished, size_t n_finished, usec_t now,
                      Tracker1Reply *reply) {
        beat(f->c, node, free_maps, running, n_running, finished, n_finished, now, reply);
}

/* What tracker node runs, by the model, with map 0's progress slow. */
static size_t spec_running(const Spec *f, uint64_t node, Tracker1Running *ret) {
        size_t n = 0;

        for (size_t i = 0; i < SPEC_MAPS; i++)
                if (f->on[i] == node && f->attempts[i])
                        ret[n++] = (Tracker1Running){ .attempt = f->attempts[i],
                                                      .progress = f->attempts[i] == f->slow_attempt
                                                                          ? 0.05
                                                                          : 0.5,
                                                      .input_size = 100 };
        return n;
}

static void spec_take(Spec *f, uint64_t node, const Tracker1Reply *reply) {
        for (size_t i = 0; i < reply->n_assignments; i++) {
                const Tracker1Assignment *as = &reply->assignments[i];

                ck_assert_int_eq(as->type, TRACKER1_MAP);
                ck_assert_uint_eq(f->attempts[as->index], 0);
                f->attempts[as->index] = as->attempt;
                f->on[as->index] = node;
        }
}

/* A wordcount of alice's over five one-split inputs, with one reduce. */
static uint64_t submit_five(const char *name) {
        static const char *const inputs[] = { "in/a", "in/b", "in/c", "in/d", "in/e" };
        StoreJobSpec spec = { .name = name,
                              .user = "alice",
                              .pool = "default",
                              .app = "wordcount",
                              .inputs = inputs,
                              .n_inputs = ELEMENTSOF(inputs),
                              .n_reduces = 1 };
        StoreError err = { 0 };
        uint64_t id;

        write_input("c");
        write_input("d");
        write_input("e");
        ck_assert_int_eq(store_job_submit(store, &spec, &id, &err), 0);
        return id;
}

static void spec_setup(Spec *f) {
        PolicyConfig cfg = { 0 };
        Tracker1Running running[SPEC_MAPS];
        Tracker1Reply reply = { 0 };
        StoreError err = { 0 };
        size_t n;

        *f = (Spec){ 0 };
        ck_assert_int_eq(policy_config_init(&cfg), 0);
        cfg.speculation = "late";
        ck_assert_int_eq(policy_new_named(&cfg, NULL, &f->late), 0);
        policy_config_done(&cfg);
        f->job = submit_five("spec");
        ck_assert_int_eq(cluster_new(store, f->late, &data, &f->c, &err), 0);
        f->c->verify_snapshot = true;
        f->a = spec_register(f->c, "a", 3);
        f->b = spec_register(f->c, "b", 2);
        spec_beat(f, f->a, 3, NULL, 0, NULL, 0, T0, &reply);
        spec_take(f, f->a, &reply);
        ck_assert_uint_eq(reply.n_assignments, 3);
        tracker1_reply_done(&reply);
        spec_beat(f, f->b, 2, NULL, 0, NULL, 0, T0, &reply);
        spec_take(f, f->b, &reply);
        tracker1_reply_done(&reply);
        for (size_t i = 0; i < SPEC_MAPS; i++)
                ck_assert_uint_ne(f->attempts[i], 0);
        for (size_t i = 0; i < SPEC_MAPS && !f->slow_attempt; i++)
                if (f->on[i] == f->b)
                        f->slow_attempt = f->attempts[i];
        for (size_t i = 0; i < f->c->jobs[0].n_tasks; i++)
                if (f->c->jobs[0].tasks[i].n_attempts > 0 &&
                    f->c->jobs[0].tasks[i].attempts[0].id == f->slow_attempt)
                        f->slow = &f->c->jobs[0].tasks[i];
        ck_assert_ptr_nonnull(f->slow);

        /* 70 s on (LATE waits 60 s): every attempt reports its progress. */
        n = spec_running(f, f->a, running);
        spec_beat(f, f->a, 0, running, n, NULL, 0, T0 + 70 * USEC_PER_SEC, &reply);
        ck_assert_uint_eq(reply.n_assignments, 0);
        tracker1_reply_done(&reply);
        n = spec_running(f, f->b, running);
        spec_beat(f, f->b, 0, running, n, NULL, 0, T0 + 70 * USEC_PER_SEC, &reply);
        ck_assert_uint_eq(reply.n_assignments, 0);
        tracker1_reply_done(&reply);

        /* A free slot elsewhere: the slow attempt gets its backup there. */
        f->cn = spec_register(f->c, "c", 1);
        spec_beat(f, f->cn, 1, NULL, 0, NULL, 0, T0 + 71 * USEC_PER_SEC, &reply);
        ck_assert_uint_eq(reply.n_assignments, 1);
        ck_assert_int_eq(reply.assignments[0].type, TRACKER1_MAP);
        ck_assert_uint_eq(reply.assignments[0].index, f->slow->index);
        f->backup = reply.assignments[0].attempt;
        tracker1_reply_done(&reply);
        ck_assert_int_eq(f->slow->state, TASK_RUNNING);
        ck_assert_uint_eq(f->slow->n_attempts, 2);
        ck_assert_uint_eq(f->slow->attempts[0].node, f->b);
        ck_assert_uint_eq(f->slow->attempts[1].node, f->cn);
        ck_assert(f->slow->attempts[1].speculative);
}

static void spec_done(Spec *f) {
        cluster_free(f->c);
        policy_free(f->late);
}

static Tracker1Finished spec_finished(uint64_t attempt, Tracker1Status status, const char *output,
                                      const char *reason) {
        return (Tracker1Finished){ .attempt = attempt,
                                   .status = status,
                                   .input_bytes = 100,
                                   .output = output,
                                   .reason = reason };
}

/* The succeeded attempts of the job's map index in the store. */
static size_t spec_successes(const Spec *f, unsigned index) {
        StoreTaskRecord *recs = NULL;
        StoreError err = { 0 };
        size_t n = 0, k = 0;

        ck_assert_int_eq(store_job_tasks(store, f->job, STORE_TASK_STATUS_BIT(STORE_TASK_SUCCEEDED),
                                         &recs, &n, &err),
                         0);
        for (size_t i = 0; i < n; i++)
                k += recs[i].type == TASK_MAP && recs[i].index == index;
        store_task_records_free(recs, n);
        return k;
}

static void make_dir(const char *name) {
        _cleanup_free_ char *path = NULL;

        ck_assert_int_ge(asprintf(&path, "%s/%s", dir, name), 0);
        ck_assert_int_eq(mkdir(path, 0755), 0);
}

static void touch(const char *name) {
        _cleanup_free_ char *path = NULL;
        FILE *f;

        ck_assert_int_ge(asprintf(&path, "%s/%s", dir, name), 0);
        f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(fclose(f), 0);
}

static bool exists(const char *name) {
        _cleanup_free_ char *path = NULL;
        struct stat st;

        ck_assert_int_ge(asprintf(&path, "%s/%s", dir, name), 0);
        return stat(path, &st) == 0;
}

/* The backup succeeds first: the task is done with its output, the slow
 * attempt is in b's next kills with the reason, and its success that
 * comes after is ignored, its output removed. */
START_TEST(test_spec_first_success_wins) {
        Spec f;
        Tracker1Running running[SPEC_MAPS];
        Tracker1Finished x;
        Tracker1Reply reply = { 0 };
        unsigned index;
        size_t n;
        char winner[64], loser[64];

        spec_setup(&f);
        index = f.slow->index;
        snprintf(winner, sizeof(winner), "out/%" PRIu64 "/_map-%05u.%" PRIu64, f.job, index,
                 f.backup);
        snprintf(loser, sizeof(loser), "out/%" PRIu64 "/_map-%05u.%" PRIu64, f.job, index,
                 f.slow_attempt);
        make_dir("out");
        make_dir("out/1");
        touch(winner);
        touch(loser);
        x = spec_finished(f.backup, TRACKER1_SUCCEEDED, winner, "");
        spec_beat(&f, f.cn, 1, NULL, 0, &x, 1, T0 + 72 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        ck_assert_int_eq(f.slow->state, TASK_DONE);
        ck_assert_uint_eq(f.slow->n_attempts, 0);
        ck_assert_str_eq(f.slow->output, winner);

        n = spec_running(&f, f.b, running);
        spec_beat(&f, f.b, 0, running, n, NULL, 0, T0 + 73 * USEC_PER_SEC, &reply);
        ck_assert_uint_eq(reply.n_kills, 1);
        ck_assert_uint_eq(reply.kills[0].attempt, f.slow_attempt);
        ck_assert_str_eq(reply.kills[0].reason, "speculation: another attempt succeeded");
        tracker1_reply_done(&reply);

        /* The kill came too late: the loser succeeded meanwhile. */
        x = spec_finished(f.slow_attempt, TRACKER1_SUCCEEDED, loser, "");
        spec_beat(&f, f.b, 1, NULL, 0, &x, 1, T0 + 74 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        ck_assert_str_eq(f.slow->output, winner);
        ck_assert_uint_eq(spec_successes(&f, index), 1);
        ck_assert(exists(winner));
        ck_assert(!exists(loser));
        /* Its killed report would be ignored as well. */
        x = spec_finished(f.slow_attempt, TRACKER1_KILLED, "", "speculation");
        spec_beat(&f, f.b, 1, NULL, 0, &x, 1, T0 + 75 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        ck_assert_uint_eq(f.slow->kills, 0);
        ck_assert_int_eq(f.slow->state, TASK_DONE);
        spec_done(&f);
}
END_TEST

/* The original succeeds first: the backup is killed on c. */
START_TEST(test_spec_original_wins) {
        Spec f;
        Tracker1Finished x;
        Tracker1Reply reply = { 0 };

        spec_setup(&f);
        x = spec_finished(f.slow_attempt, TRACKER1_SUCCEEDED, "out/1/map-orig", "");
        spec_beat(&f, f.b, 1, NULL, 0, &x, 1, T0 + 72 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        ck_assert_int_eq(f.slow->state, TASK_DONE);
        ck_assert_str_eq(f.slow->output, "out/1/map-orig");
        spec_beat(&f, f.cn, 0, NULL, 0, NULL, 0, T0 + 73 * USEC_PER_SEC, &reply);
        ck_assert_uint_eq(reply.n_kills, 1);
        ck_assert_uint_eq(reply.kills[0].attempt, f.backup);
        tracker1_reply_done(&reply);
        ck_assert_uint_eq(f.c->nodes[2].running[SLOT_MAP], 0);
        spec_done(&f);
}
END_TEST

/* A failed backup leaves the task running on its original, neither
 * pending again nor failed; the failure counts, and no backup goes where
 * one failed, as in Hadoop 1. */
START_TEST(test_spec_failed_backup) {
        Spec f;
        Tracker1Finished x;
        Tracker1Reply reply = { 0 };

        spec_setup(&f);
        x = spec_finished(f.backup, TRACKER1_FAILED, "", "out of memory");
        spec_beat(&f, f.cn, 1, NULL, 0, &x, 1, T0 + 72 * USEC_PER_SEC, &reply);
        ck_assert_int_eq(f.slow->state, TASK_RUNNING);
        ck_assert_uint_eq(f.slow->n_attempts, 1);
        ck_assert_uint_eq(f.slow->attempts[0].id, f.slow_attempt);
        ck_assert_uint_eq(f.slow->failures, 1);
        ck_assert_uint_eq(f.c->n_jobs, 1);
        /* Still slow, but no backup where one failed. */
        ck_assert_uint_eq(reply.n_assignments, 0);
        tracker1_reply_done(&reply);
        spec_done(&f);
}
END_TEST

/* A lost tracker loses only its attempts: b's original goes, the backup
 * on c runs on and the task is not pending again; c lost as well, it is. */
START_TEST(test_spec_lost_tracker) {
        Spec f;
        Tracker1Reply reply = { 0 };
        usec_t now = T0 + 80 * USEC_PER_SEC;

        spec_setup(&f);
        spec_beat(&f, f.a, 0, NULL, 0, NULL, 0, now, &reply);
        tracker1_reply_done(&reply);
        spec_beat(&f, f.cn, 0, NULL, 0, NULL, 0, now, &reply);
        tracker1_reply_done(&reply);
        ck_assert_uint_eq(cluster_lose_silent(f.c, now, now, 5 * USEC_PER_SEC), 1);
        ck_assert(cluster_attempt_index_current(f.c));
        ck_assert_int_eq(f.c->nodes[1].state, NODE_LOST);
        ck_assert_int_eq(f.slow->state, TASK_RUNNING);
        ck_assert_uint_eq(f.slow->n_attempts, 1);
        ck_assert_uint_eq(f.slow->attempts[0].id, f.backup);
        ck_assert_uint_eq(f.slow->attempts[0].node, f.cn);
        ck_assert_uint_eq(cluster_lose_silent(f.c, now + 10 * USEC_PER_SEC, now + 10 * USEC_PER_SEC,
                                              5 * USEC_PER_SEC),
                          2);
        ck_assert(cluster_attempt_index_current(f.c));
        ck_assert_uint_eq(f.c->n_indexed, 0);
        ck_assert_int_eq(f.slow->state, TASK_PENDING);
        ck_assert_uint_eq(f.slow->n_attempts, 0);
        spec_done(&f);
}
END_TEST

/* A tracker with the token that reports a success the controller never
 * issued, under any name, has nothing removed: not a file under out/, not
 * a name that looks like an attempt's. Nor does a loser's report remove
 * what its tracker names instead of the loser's own output. */
START_TEST(test_made_up_report_unlinks_nothing) {
        Spec f;
        Tracker1Finished x;
        Tracker1Reply reply = { 0 };
        char loser[64];

        spec_setup(&f);
        make_dir("out");
        make_dir("out/1");
        touch("out/1/victim");
        touch("out/1/_map-00000.999");
        x = spec_finished(999, TRACKER1_SUCCEEDED, "out/1/victim", "");
        spec_beat(&f, f.a, 0, NULL, 0, &x, 1, T0 + 72 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        x = spec_finished(999, TRACKER1_SUCCEEDED, "out/1/_map-00000.999", "");
        spec_beat(&f, f.a, 0, NULL, 0, &x, 1, T0 + 72 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        ck_assert(exists("out/1/victim"));
        ck_assert(exists("out/1/_map-00000.999"));

        /* The backup wins; the loser's report names another file. */
        snprintf(loser, sizeof(loser), "out/%" PRIu64 "/_map-%05u.%" PRIu64, f.job, f.slow->index,
                 f.slow_attempt);
        touch(loser);
        x = spec_finished(f.backup, TRACKER1_SUCCEEDED, "out/1/winner", "");
        spec_beat(&f, f.cn, 1, NULL, 0, &x, 1, T0 + 73 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        x = spec_finished(f.slow_attempt, TRACKER1_SUCCEEDED, "out/1/victim", "");
        spec_beat(&f, f.b, 1, NULL, 0, &x, 1, T0 + 74 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        ck_assert(exists("out/1/victim"));
        ck_assert(!exists(loser));
        spec_done(&f);
}
END_TEST

/* out/JOB a symlink out of the data directory, planted by anyone who can
 * write there: a loser's output is not removed through it. */
START_TEST(test_loser_symlink_not_followed) {
        _cleanup_free_ char *outside = test_make_tmpdir(), *link = NULL, *victim = NULL;
        Spec f;
        Tracker1Finished x;
        Tracker1Reply reply = { 0 };
        char loser[64], winner[64];
        struct stat st;
        FILE *file;

        ck_assert_ptr_nonnull(outside);
        spec_setup(&f);
        make_dir("out");
        ck_assert_int_ge(asprintf(&link, "%s/out/%" PRIu64, dir, f.job), 0);
        ck_assert_int_eq(symlink(outside, link), 0);
        snprintf(loser, sizeof(loser), "_map-%05u.%" PRIu64, f.slow->index, f.slow_attempt);
        ck_assert_int_ge(asprintf(&victim, "%s/%s", outside, loser), 0);
        file = fopen(victim, "w");
        ck_assert_ptr_nonnull(file);
        ck_assert_int_eq(fclose(file), 0);

        snprintf(winner, sizeof(winner), "out/%" PRIu64 "/_map-%05u.%" PRIu64, f.job, f.slow->index,
                 f.backup);
        x = spec_finished(f.backup, TRACKER1_SUCCEEDED, winner, "");
        spec_beat(&f, f.cn, 1, NULL, 0, &x, 1, T0 + 72 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        snprintf(loser, sizeof(loser), "out/%" PRIu64 "/_map-%05u.%" PRIu64, f.job, f.slow->index,
                 f.slow_attempt);
        x = spec_finished(f.slow_attempt, TRACKER1_SUCCEEDED, loser, "");
        spec_beat(&f, f.b, 1, NULL, 0, &x, 1, T0 + 73 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        ck_assert_int_eq(stat(victim, &st), 0);
        spec_done(&f);
        test_remove_tree(outside);
}
END_TEST

/* A job's map outputs go when it ends: here cancelled, with a map done. */
START_TEST(test_map_outputs_removed_at_end) {
        Spec f;
        Tracker1Finished x;
        Tracker1Reply reply = { 0 };
        StoreError err = { 0 };
        char winner[64];

        spec_setup(&f);
        make_dir("out");
        make_dir("out/1");
        snprintf(winner, sizeof(winner), "out/%" PRIu64 "/_map-%05u.%" PRIu64, f.job, f.slow->index,
                 f.backup);
        touch(winner);
        x = spec_finished(f.backup, TRACKER1_SUCCEEDED, winner, "");
        spec_beat(&f, f.cn, 1, NULL, 0, &x, 1, T0 + 72 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        ck_assert(exists(winner));
        ck_assert_int_eq(cluster_cancel(f.c, f.job, &err), 0);
        ck_assert(!exists(winner));
        spec_done(&f);
}
END_TEST

/* The job commit renames each reduce's winning output to its final name,
 * and may be repeated after a restart; a part found under neither name is
 * an error naming it. */
START_TEST(test_output_commit) {
        ClusterTask tasks[] = {
                { .type = TASK_MAP,
                  .index = 0,
                  .state = TASK_DONE,
                  .output = "out/1/_map-00000.5" },
                { .type = TASK_REDUCE,
                  .index = 0,
                  .state = TASK_DONE,
                  .output = "out/1/_part-00000.7" },
                { .type = TASK_REDUCE,
                  .index = 1,
                  .state = TASK_DONE,
                  .output = "out/1/_part-00001.8" },
        };
        ClusterJob j = { .info.id = 1, .tasks = tasks, .n_tasks = ELEMENTSOF(tasks) };
        _cleanup_free_ char *outside = test_make_tmpdir(), *link = NULL, *victim = NULL,
                            *gone = NULL;
        char why[256] = "";
        struct stat st;
        FILE *file;

        make_dir("out");
        make_dir("out/1");
        touch("out/1/_map-00000.5");
        touch("out/1/_part-00000.7");
        touch("out/1/_part-00001.8");
        ck_assert_int_eq(cluster_output_commit(&data, &j, why, sizeof(why)), 0);
        ck_assert(exists("out/1/part-00000") && exists("out/1/part-00001"));
        ck_assert(!exists("out/1/_part-00000.7") && !exists("out/1/_part-00001.8"));
        ck_assert(exists("out/1/_map-00000.5"));
        ck_assert_int_eq(cluster_output_commit(&data, &j, why, sizeof(why)), 0);
        /* Found under neither name. */
        ck_assert_int_ge(asprintf(&gone, "%s/out/1/part-00001", dir), 0);
        ck_assert_int_eq(unlink(gone), 0);
        tasks[2].output = "out/1/_part-00001.9";
        ck_assert_int_eq(cluster_output_commit(&data, &j, why, sizeof(why)), -ENOENT);
        ck_assert_ptr_nonnull(strstr(why, "reduce 1"));
        ck_assert_ptr_nonnull(strstr(why, "part-00001.9"));

        /* A name not of the task's attempts is refused, not renamed. */
        touch("out/1/victim.9");
        tasks[2].output = "out/1/victim.9";
        ck_assert_int_lt(cluster_output_commit(&data, &j, why, sizeof(why)), 0);
        ck_assert_ptr_nonnull(strstr(why, "victim.9"));
        ck_assert(exists("out/1/victim.9") && !exists("out/1/victim"));

        /* out/JOB a symlink out of the data directory: not followed. */
        ck_assert_ptr_nonnull(outside);
        ck_assert_int_ge(asprintf(&link, "%s/out/2", dir), 0);
        ck_assert_int_eq(symlink(outside, link), 0);
        ck_assert_int_ge(asprintf(&victim, "%s/_part-00000.7", outside), 0);
        file = fopen(victim, "w");
        ck_assert_ptr_nonnull(file);
        ck_assert_int_eq(fclose(file), 0);
        j.info.id = 2;
        tasks[1].output = "out/2/_part-00000.7";
        tasks[2].output = NULL;
        ck_assert_int_eq(cluster_output_commit(&data, &j, why, sizeof(why)), -EXDEV);
        ck_assert_ptr_nonnull(strstr(why, "out of the data directory"));
        ck_assert_int_eq(stat(victim, &st), 0);
        test_remove_tree(outside);
}
END_TEST

/* DynamicMR's PI-DHSA live: a tracker of 1 map slot and 3 reduce slots,
 * a job of 5 maps whose reduce cannot start yet. The maps borrow the idle
 * reduce slots (case 2), the reply names the slot each occupies, and the
 * tracker's slots are counted by the slot, not the task's type. */
START_TEST(test_dhsa_map_in_reduce_slot) {
        const unsigned slots[_SLOT_TYPE_MAX] = { 1, 3 };
        PolicyConfig cfg = { 0 };
        Policy *dhsa = NULL;
        Cluster *c = NULL;
        Tracker1Report report = { .free_slots = { 1, 3 } };
        Tracker1Reply reply = { 0 };
        Tracker1Finished done;
        StoreError err = { 0 };
        uint64_t node, borrowed = 0;
        unsigned in_slot[_SLOT_TYPE_MAX] = { 0 };
        const ClusterNode *n;

        ck_assert_int_eq(policy_config_init(&cfg), 0);
        ((CoreSettings *)policy_config_settings(&cfg, &core_settings_schema))->dmr.dhsa = DHSA_PI;
        ck_assert_int_eq(policy_new_named(&cfg, NULL, &dhsa), 0);
        policy_config_done(&cfg);
        (void)submit_five("dhsa");
        ck_assert_int_eq(cluster_new(store, dhsa, &data, &c, &err), 0);
        c->verify_snapshot = true;
        ck_assert_int_eq(cluster_register(c, "uuid", "t1", slots, 256 << 20, 1, &node), 0);

        ck_assert_int_eq(cluster_heartbeat(c, node, &report, T0, T0, &reply, &err), 0);
        ck_assert_uint_eq(reply.n_assignments, 4);
        for (size_t i = 0; i < reply.n_assignments; i++) {
                ck_assert_int_eq(reply.assignments[i].type, TRACKER1_MAP);
                in_slot[reply.assignments[i].slot]++;
                if (reply.assignments[i].slot == TRACKER1_REDUCE)
                        borrowed = reply.assignments[i].attempt;
        }
        ck_assert_uint_eq(in_slot[TRACKER1_MAP], 1);
        ck_assert_uint_eq(in_slot[TRACKER1_REDUCE], 3);
        tracker1_reply_done(&reply);
        n = cluster_node_find(c, node);
        ck_assert_uint_eq(n->running[SLOT_MAP], 1);
        ck_assert_uint_eq(n->running[SLOT_REDUCE], 3);

        /* A borrowed map ends: the reduce slot it held is free again, and
         * the tracker says so. */
        done = (Tracker1Finished){ .attempt = borrowed,
                                   .status = TRACKER1_SUCCEEDED,
                                   .input_bytes = 16,
                                   .output = "out/1/map-00000",
                                   .reason = "" };
        report = (Tracker1Report){ .free_slots = { 0, 1 }, .finished = &done, .n_finished = 1 };
        ck_assert_msg(cluster_heartbeat(c, node, &report, T0 + 1, T0 + 1, &reply, &err) == 0, "%s",
                      err.message);
        n = cluster_node_find(c, node);
        ck_assert_uint_eq(n->running[SLOT_MAP], 1);
        /* The freed reduce slot goes to the last map: the reduce waits for
         * every map. */
        ck_assert_uint_eq(reply.n_assignments, 1);
        ck_assert_int_eq(reply.assignments[0].type, TRACKER1_MAP);
        ck_assert_int_eq(reply.assignments[0].slot, TRACKER1_REDUCE);
        ck_assert_uint_eq(n->running[SLOT_REDUCE], 3);
        tracker1_reply_done(&reply);
        cluster_free(c);
        policy_free(dhsa);
}
END_TEST

/* ---- a restarted controller adopts what succeeded while it was away ---- */

static const ClusterTask *map_task(const Cluster *c, unsigned index) {
        for (size_t i = 0; i < c->jobs[0].n_tasks; i++)
                if (c->jobs[0].tasks[i].type == TASK_MAP && c->jobs[0].tasks[i].index == index)
                        return &c->jobs[0].tasks[i];
        return NULL;
}

/* Three maps run when the controller dies. While it is away map 0
 * succeeds with its output there, map 1 reports success without its file,
 * map 2 still runs. Restarted, it hears of them from the re-registered
 * tracker: map 0 is adopted (done, in the store, not run again), map 1 and
 * reports naming another job, another map's name or a later attempt are
 * not, and map 1 runs again. */
START_TEST(test_adopt_after_restart) {
        static const char *const inputs[] = { "in/a", "in/b", "in/c" };
        StoreJobSpec spec = { .name = "adopt",
                              .user = "dave",
                              .pool = "default",
                              .app = "wordcount",
                              .inputs = inputs,
                              .n_inputs = ELEMENTSOF(inputs),
                              .n_reduces = 1 };
        const unsigned slots[_SLOT_TYPE_MAX] = { 3, 1 };
        Tracker1Report report = { .free_slots = { 3, 1 } };
        Tracker1Reply reply = { 0 };
        StoreError err = { 0 };
        Cluster *c = NULL;
        uint64_t job, node, attempt[3] = { 0 };
        char out[3][64], jobdir[32], wrong_job[64], wrong_name[64], later[64];
        Tracker1Finished finished[5];
        Tracker1Running running;
        StoreTaskRecord *recs = NULL;
        size_t n = 0;

        write_input("c");
        ck_assert_int_eq(store_job_submit(store, &spec, &job, &err), 0);
        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        c->verify_snapshot = true;
        ck_assert_int_eq(cluster_register(c, "uuid", "t1", slots, 256 << 20, 1, &node), 0);
        ck_assert_int_eq(cluster_heartbeat(c, node, &report, T0, T0, &reply, &err), 0);
        ck_assert_uint_eq(reply.n_assignments, 3);
        for (size_t i = 0; i < 3; i++)
                attempt[reply.assignments[i].index] = reply.assignments[i].attempt;
        tracker1_reply_done(&reply);
        cluster_free(c); /* killed: the attempts are stored as running */

        make_dir("out");
        for (unsigned i = 0; i < 3; i++)
                snprintf(out[i], sizeof(out[i]), "out/%" PRIu64 "/_map-%05u.%" PRIu64, job, i,
                         attempt[i]);
        snprintf(wrong_job, sizeof(wrong_job), "out/%" PRIu64 "/_map-00000.%" PRIu64, job + 1,
                 attempt[2]);
        snprintf(wrong_name, sizeof(wrong_name), "out/%" PRIu64 "/_map-0000.%" PRIu64, job,
                 attempt[2]);
        snprintf(jobdir, sizeof(jobdir), "out/%" PRIu64, job);
        make_dir(jobdir);
        touch(out[0]);

        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        /* An attempt id of this run's is no earlier controller's. */
        snprintf(later, sizeof(later), "out/%" PRIu64 "/_map-00002.%" PRIu64, job,
                 c->first_attempt);
        touch(later);
        ck_assert_int_eq(cluster_register(c, "uuid", "t1", slots, 256 << 20, 1, &node), 0);
        finished[0] = spec_finished(attempt[0], TRACKER1_SUCCEEDED, out[0], "");
        finished[1] = spec_finished(attempt[1], TRACKER1_SUCCEEDED, out[1], "");
        finished[2] = spec_finished(attempt[0] - 1000, TRACKER1_SUCCEEDED, wrong_job, "");
        finished[3] = spec_finished(attempt[0] - 1001, TRACKER1_SUCCEEDED, wrong_name, "");
        finished[4] = spec_finished(c->first_attempt, TRACKER1_SUCCEEDED, later, "");
        running = (Tracker1Running){ .attempt = attempt[2], .progress = 0.5, .input_size = 16 };
        report = (Tracker1Report){ .free_slots = { 2, 1 },
                                   .running = &running,
                                   .n_running = 1,
                                   .finished = finished,
                                   .n_finished = 5 };
        ck_assert_msg(cluster_heartbeat(c, node, &report, T0 + 1, T0 + 1, &reply, &err) == 0, "%s",
                      err.message);
        ck_assert(cluster_attempt_index_current(c));
        ck_assert_int_eq(map_task(c, 0)->state, TASK_DONE);
        ck_assert_str_eq(map_task(c, 0)->output, out[0]);
        ck_assert_int_ne(map_task(c, 1)->state, TASK_DONE);
        ck_assert_int_ne(map_task(c, 2)->state, TASK_DONE);
        /* Map 0 is not assigned again, map 1 is, and map 2 runs on; the
         * reduce waits for the last map, although the policy's slowstart
         * would start it with a third of the maps done. */
        ck_assert_uint_eq(reply.n_assignments, 1);
        ck_assert_uint_eq(reply.assignments[0].type, TRACKER1_MAP);
        ck_assert_uint_eq(reply.assignments[0].index, 1);
        ck_assert_int_eq(map_task(c, 1)->state, TASK_RUNNING);
        ck_assert_int_eq(map_task(c, 2)->state, TASK_RUNNING);
        /* Map 1's success without its output is a loser's, and map 1 runs
         * again; map 2 runs on as it ran before the restart. */
        ck_assert_uint_ne(map_task(c, 1)->attempts[0].id, attempt[1]);
        ck_assert_uint_eq(map_task(c, 2)->n_attempts, 1);
        ck_assert_uint_eq(map_task(c, 2)->attempts[0].id, attempt[2]);
        tracker1_reply_done(&reply);
        ck_assert_int_eq(store_job_tasks(store, job, STORE_TASK_STATUS_BIT(STORE_TASK_SUCCEEDED),
                                         &recs, &n, &err),
                         0);
        ck_assert_uint_eq(n, 1);
        ck_assert_uint_eq(recs[0].index, 0);
        ck_assert_uint_eq(recs[0].attempt, attempt[0]);
        store_task_records_free(recs, n);
        ck_assert(exists(out[0]));
        cluster_free(c);
}
END_TEST

/* ---- the snapshot kept from step to step ---- */

/* A cluster of the store's jobs whose every reuse of the snapshot is
 * checked against a new build, with one tracker of one map slot, which
 * its first heartbeat (reply) gives a map. */
static Cluster *kept_cluster(uint64_t *ret_tracker, Tracker1Reply *reply) {
        const unsigned one_map[_SLOT_TYPE_MAX] = { 1, 0 };
        StoreError err = { 0 };
        Cluster *c = NULL;

        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        c->verify_snapshot = true;
        ck_assert_int_eq(cluster_register(c, "ua", "a", one_map, 256 << 20, 1, ret_tracker), 0);
        beat(c, *ret_tracker, 1, NULL, 0, NULL, 0, T0, reply);
        ck_assert_uint_eq(reply->n_assignments, 1);
        return c;
}

/* Heartbeats keep the snapshot, those that start or finish a task too, and
 * so do jobs that come or go (each reuse is checked against a new build,
 * verify_snapshot); a new tracker, a lost one and a slot change each make
 * a new one. */
START_TEST(test_snapshot_kept) {
        const unsigned one_map[_SLOT_TYPE_MAX] = { 1, 0 }, two_maps[_SLOT_TYPE_MAX] = { 2, 0 };
        Tracker1Reply reply = { 0 };
        StoreError err = { 0 };
        Tracker1Running running = { .input_size = 16 };
        Tracker1Finished done;
        Cluster *c = NULL;
        uint64_t job, a, b, first;
        char out[64];

        job = submit("erin", "kept", 1);
        c = kept_cluster(&a, &reply);
        first = running.attempt = reply.assignments[0].attempt;
        tracker1_reply_done(&reply);
        ck_assert_ptr_nonnull(c->snapshot);

        for (unsigned k = 1; k <= 3; k++) {
                running.progress = 0.25 * k;
                running.bytes_processed = 4 * k;
                beat(c, a, 0, &running, 1, NULL, 0, T0 + k * USEC_PER_SEC, &reply);
                ck_assert_uint_eq(reply.n_assignments, 0);
                tracker1_reply_done(&reply);
                ck_assert_ptr_nonnull(c->snapshot);
        }

        /* The map ends; the next one starts in its slot. */
        make_dir("out");
        snprintf(out, sizeof(out), "out/%" PRIu64, job);
        make_dir(out);
        snprintf(out, sizeof(out), "out/%" PRIu64 "/_map-00000.%" PRIu64, job, first);
        touch(out);
        done = spec_finished(first, TRACKER1_SUCCEEDED, out, "");
        beat(c, a, 1, NULL, 0, &done, 1, T0 + 4 * USEC_PER_SEC, &reply);
        ck_assert_uint_eq(reply.n_assignments, 1);
        ck_assert_ptr_nonnull(c->snapshot);
        running.attempt = reply.assignments[0].attempt;
        running.progress = 0.1;
        tracker1_reply_done(&reply);
        beat(c, a, 0, &running, 1, NULL, 0, T0 + 5 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        ck_assert_ptr_nonnull(c->snapshot);

        /* A tracker comes, with no slot for the reduce. */
        ck_assert_int_eq(cluster_register(c, "ub", "b", one_map, 256 << 20, 1, &b), 0);
        ck_assert_ptr_null(c->snapshot);
        beat(c, b, 1, NULL, 0, NULL, 0, T0 + 6 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        beat(c, b, 1, NULL, 0, NULL, 0, T0 + 7 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        ck_assert_ptr_nonnull(c->snapshot);

        /* a is lost: its map runs on b. */
        ck_assert_uint_eq(cluster_lose_silent(c, T0 + 100 * USEC_PER_SEC, T0 + 100 * USEC_PER_SEC,
                                              10 * USEC_PER_SEC),
                          2);
        ck_assert(cluster_snapshot_current(c));
        ck_assert_int_eq(cluster_register(c, "ub", "b", one_map, 256 << 20, 1, &b), 0);
        beat(c, b, 1, NULL, 0, NULL, 0, T0 + 101 * USEC_PER_SEC, &reply);
        ck_assert_uint_eq(reply.n_assignments, 1);
        tracker1_reply_done(&reply);
        beat(c, b, 0, NULL, 0, NULL, 0, T0 + 102 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        ck_assert_ptr_nonnull(c->snapshot);
        /* Kept: the next step takes b's slots in as the snapshot reports
         * them (a step that refused the report would drop it). */
        ck_assert_int_eq(cluster_set_slots(c, b, two_maps, 512 << 20, T0, &err), 0);
        ck_assert_ptr_nonnull(c->snapshot);
        ck_assert(cluster_snapshot_current(c));
        beat(c, b, 0, NULL, 0, NULL, 0, T0 + 103 * USEC_PER_SEC, &reply);
        ck_assert_uint_eq(reply.slots[TRACKER1_MAP], 2);
        tracker1_reply_done(&reply);
        ck_assert_ptr_nonnull(c->snapshot);
        /* The only job ends: its tasks, gone, outnumber the others'. */
        ck_assert_int_eq(cluster_cancel(c, job, &err), 0);
        ck_assert_ptr_null(c->snapshot);
        beat(c, b, 0, NULL, 0, NULL, 0, T0 + 104 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        ck_assert_uint_eq(c->snapshot->s.n_jobs, 0);
        cluster_free(c);
}
END_TEST

/* A job that leaves the model stays in the kept snapshot, done and gone,
 * so that the jobs after it keep their indices; those before the first
 * job not gone are settled. Once the gone jobs' tasks outnumber the
 * others', the next step builds a snapshot without them. */
START_TEST(test_snapshot_keeps_gone_jobs) {
        Tracker1Reply reply = { 0 };
        StoreError err = { 0 };
        Cluster *c = NULL;
        ClusterJob *owner = NULL;
        uint64_t first, second, third, fourth, a;
        const Snapshot *s;

        /* Each job has two maps (in/a and in/b) and its reduces. */
        first = submit("erin", "gone", 0);
        second = submit("erin", "gone", 2);
        third = submit("erin", "gone", 6);
        c = kept_cluster(&a, &reply);
        tracker1_reply_done(&reply);
        s = c->snapshot;
        ck_assert_ptr_nonnull(s);

        ck_assert_int_eq(cluster_cancel(c, second, &err), 0);
        ck_assert_ptr_eq(c->snapshot, s);
        ck_assert_uint_eq(s->s.n_jobs, 3);
        ck_assert(!s->job_gone[0] && s->job_gone[1] && !s->job_gone[2]);
        ck_assert_uint_eq(s->s.n_jobs_settled, 0);
        ck_assert(cluster_snapshot_current(c));

        /* The first goes with its running map: both gone ones are settled,
         * and the step places the third's map at the same indices. */
        ck_assert_int_eq(cluster_cancel(c, first, &err), 0);
        ck_assert_ptr_eq(c->snapshot, s);
        ck_assert_uint_eq(s->s.n_jobs_settled, 2);
        ck_assert_uint_eq(s->n_gone_tasks, 6);
        beat(c, a, 1, NULL, 0, NULL, 0, T0 + USEC_PER_SEC, &reply);
        ck_assert_uint_eq(reply.n_assignments, 1);
        ck_assert_ptr_nonnull(cluster_attempt_find(c, reply.assignments[0].attempt, &owner, NULL));
        ck_assert_uint_eq(owner->info.id, third);
        tracker1_reply_done(&reply);
        ck_assert_ptr_eq(c->snapshot, s);

        /* A job that comes goes after them. */
        fourth = submit("erin", "gone", 0);
        ck_assert_int_eq(cluster_add_job(c, fourth, &err), 0);
        ck_assert_ptr_eq(c->snapshot, s);
        ck_assert_uint_eq(s->s.n_jobs, 4);
        ck_assert_uint_eq(s->a.jobs[3].id, fourth);
        ck_assert(cluster_snapshot_current(c));

        /* The third goes: 14 tasks gone against 2. */
        ck_assert_int_eq(cluster_cancel(c, third, &err), 0);
        ck_assert_ptr_null(c->snapshot);
        beat(c, a, 0, NULL, 0, NULL, 0, T0 + 2 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        ck_assert_uint_eq(c->snapshot->s.n_jobs, 1);
        ck_assert_uint_eq(c->snapshot->s.n_jobs_settled, 0);
        cluster_free(c);
}
END_TEST

/* The job of attempt's task in the model. */
static uint64_t job_of_attempt(Cluster *c, uint64_t attempt) {
        ClusterJob *owner = NULL;

        ck_assert_ptr_nonnull(cluster_attempt_find(c, attempt, &owner, NULL));
        return owner->info.id;
}

/* FIFO's walk for a map starts where the last step's stopped, past the
 * jobs it found without a pending map, unless one of those was reported
 * changed since: the first job's failed map runs again before the second
 * job's next map. The steps are vouched for, as the controller runs
 * them. */
START_TEST(test_walk_sees_a_failed_map) {
        Tracker1Reply reply = { 0 };
        StoreError err = { 0 };
        Tracker1Finished failed;
        Cluster *c = NULL;
        uint64_t first, second, t1, t2, t3, a, b;

        first = submit("erin", "walk", 0);
        second = submit("erin", "walk", 0);
        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        t1 = spec_register(c, "u1", 1);
        t2 = spec_register(c, "u2", 1);
        t3 = spec_register(c, "u3", 1);
        beat(c, t1, 1, NULL, 0, NULL, 0, T0, &reply);
        ck_assert_uint_eq(reply.n_assignments, 1);
        a = reply.assignments[0].attempt;
        tracker1_reply_done(&reply);
        beat(c, t2, 1, NULL, 0, NULL, 0, T0, &reply);
        ck_assert_uint_eq(reply.n_assignments, 1);
        tracker1_reply_done(&reply);
        /* The first job's maps all run: the walk goes past it. */
        beat(c, t3, 1, NULL, 0, NULL, 0, T0, &reply);
        ck_assert_uint_eq(reply.n_assignments, 1);
        b = reply.assignments[0].attempt;
        tracker1_reply_done(&reply);
        ck_assert_uint_eq(job_of_attempt(c, a), first);
        ck_assert_uint_eq(job_of_attempt(c, b), second);

        failed = spec_finished(a, TRACKER1_FAILED, "", "walk");
        beat(c, t1, 1, NULL, 0, &failed, 1, T0 + USEC_PER_SEC, &reply);
        ck_assert_uint_eq(reply.n_assignments, 1);
        ck_assert_uint_eq(job_of_attempt(c, reply.assignments[0].attempt), first);
        tracker1_reply_done(&reply);
        cluster_free(c);
}
END_TEST

/* The kept snapshot under random sequences of what happens to a cluster:
 * heartbeats that report attempts running, succeeded, failed or killed, or
 * leave them out (some without the step), jobs submitted (half of them with
 * a deadline) and cancelled, trackers lost and new ones registered, slots
 * set, agents' views of the trackers' VMs and of other tenants' VMs
 * changed, control cycles. After half the events, and at every step
 * (verify_snapshot), the kept snapshot is checked field by field against a
 * new build, the tenants' VMs and the jobs' quotas among the fields. Each
 * seed runs another sequence, under fifo, or fair with LATE's backups and
 * FlexSlot's slot manager, or (every fourth) ARIA, whose steps give the
 * jobs quotas, with the one loop's lever on the flexslot VM allocator. */
#define RANDOM_TRACKERS 4
#define RANDOM_HELD 8
#define RANDOM_TENANTS 3

typedef struct RandomTracker {
        uint64_t id;
        uint64_t held[RANDOM_HELD];
        size_t n_held;
} RandomTracker;

typedef struct RandomCluster {
        Cluster *c;
        RandomTracker trackers[RANDOM_TRACKERS];
        uint64_t seed, next_vm;
        usec_t now;
        unsigned tenants; /* which of the tenants' VMs the agents report, a bit each */
} RandomCluster;

static uint64_t random_next(RandomCluster *r, uint64_t below) {
        /* SplitMix64: a sequence of its own per seed, the same on every
         * machine. */
        uint64_t z = (r->seed += 0x9e3779b97f4a7c15ULL);

        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return (z ^ (z >> 31)) % below;
}

static void random_register(RandomCluster *r, RandomTracker *t) {
        const unsigned slots[_SLOT_TYPE_MAX] = { 1 + (unsigned)random_next(r, 3),
                                                 (unsigned)random_next(r, 2) };
        char name[32];

        snprintf(name, sizeof(name), "vm-%" PRIu64, r->next_vm++);
        *t = (RandomTracker){ 0 };
        ck_assert_int_eq(cluster_register(r->c, name, name, slots, 256 << 20, r->now, &t->id), 0);
}

static void random_submit(RandomCluster *r) {
        static const char *const inputs[] = { "in/a", "in/b" };
        StoreJobSpec spec = { .name = "random",
                              .user = random_next(r, 2) ? "alice" : "bob",
                              .pool = "default",
                              .app = "wordcount",
                              .inputs = inputs,
                              .n_inputs = 1 + random_next(r, 2),
                              .n_reduces = (unsigned)random_next(r, 3) };
        StoreError err = { 0 };
        AdmitVerdict verdict;
        uint64_t id;
        int k;

        if (random_next(r, 2))
                spec.deadline = r->now + (10 + random_next(r, 600)) * USEC_PER_SEC;
        k = cluster_submit(r->c, &spec, r->now, &id, &verdict, &err);
        /* A deadline scheduler may refuse a deadline its profile cannot
         * meet. */
        ck_assert_msg(k == 0 || (k == -EPERM && spec.deadline), "%s", err.message);
}

/* t's heartbeat: each attempt it holds reported running, succeeded, failed
 * or killed, or left out; what the reply assigns held, what it kills
 * dropped. */
static void random_beat(RandomCluster *r, RandomTracker *t) {
        static const Tracker1Status ends[] = { TRACKER1_SUCCEEDED, TRACKER1_SUCCEEDED,
                                               TRACKER1_FAILED, TRACKER1_KILLED };
        Tracker1Running running[RANDOM_HELD];
        Tracker1Finished finished[RANDOM_HELD];
        Tracker1Report report = { .running = running,
                                  .finished = finished,
                                  .steal = (double)random_next(r, 100) / 100,
                                  .iowait = (double)random_next(r, 100) / 100 };
        Tracker1Reply reply = { 0 };
        StoreError err = { 0 };
        const ClusterNode *n = cluster_node_find(r->c, t->id);
        unsigned used[_SLOT_TYPE_MAX] = { 0 };
        size_t kept = 0;

        for (size_t i = 0; i < t->n_held; i++) {
                uint64_t what = random_next(r, 8);

                if (what < 5) {
                        running[report.n_running++] = (Tracker1Running){
                                .attempt = t->held[i],
                                .progress = (double)random_next(r, 101) / 100,
                                .bytes_processed = random_next(r, 1000),
                                .input_size = 1000 + random_next(r, 3),
                                .cpu_time = random_next(r, 1000),
                                .iowait_time = random_next(r, 1000),
                        };
                        t->held[kept++] = t->held[i];
                } else if (what < 7)
                        finished[report.n_finished++] =
                                spec_finished(t->held[i], ends[random_next(r, ELEMENTSOF(ends))],
                                              "out/random", "random end");
                else
                        t->held[kept++] = t->held[i];
        }
        t->n_held = kept;
        for (size_t i = 0; i < report.n_running; i++) {
                unsigned a = 0;
                const ClusterTask *task = cluster_attempt_find(r->c, running[i].attempt, NULL, &a);

                if (task)
                        used[task->attempts[a].slot]++;
        }
        for (SlotType type = 0; type < _SLOT_TYPE_MAX; type++)
                report.free_slots[type == SLOT_MAP ? TRACKER1_MAP : TRACKER1_REDUCE] =
                        n->told[type] - MIN(used[type], n->told[type]);
        ck_assert_msg(cluster_heartbeat(r->c, t->id, &report, r->now, r->now, &reply, &err) == 0,
                      "%s", err.message);
        for (size_t i = 0; i < reply.n_assignments && t->n_held < RANDOM_HELD; i++)
                t->held[t->n_held++] = reply.assignments[i].attempt;
        for (size_t k = 0; k < reply.n_kills; k++)
                for (size_t i = 0; i < t->n_held; i++)
                        if (t->held[i] == reply.kills[k].attempt) {
                                t->held[i] = t->held[--t->n_held];
                                break;
                        }
        tracker1_reply_done(&reply);
}

/* What an agent says of t's VM, on one of two hosts, or nothing. */
static void random_agent(RandomCluster *r, const RandomTracker *t) {
        ClusterNode *n = (ClusterNode *)cluster_node_find(r->c, t->id);
        uint64_t host = random_next(r, 3);

        n->vm = (ClusterVmState){ 0 };
        if (host > 0)
                n->vm = (ClusterVmState){ .host = host,
                                          .host_cpus = 8,
                                          .host_memory = 16ULL << 30,
                                          .vcpus = 2,
                                          .vcpus_max = 4,
                                          .memory = 2ULL << 30,
                                          .memory_max = 4ULL << 30,
                                          .cpu_weight = 1024,
                                          .cpu_use = (double)random_next(r, 200) / 100,
                                          .memory_used = 1ULL << 30,
                                          .measured_at = r->now,
                                          .has_steal = true,
                                          .steal = (double)random_next(r, 100) / 100,
                                          .steal_at = r->now };
        cluster_nodes_changed(r->c);
}

/* What the agents say of other tenants' VMs: the same ones measured anew,
 * or another set of them, on one of two hosts each. */
static void random_tenants(RandomCluster *r) {
        ClusterTenantVm vms[RANDOM_TENANTS];
        size_t n = 0;

        if (random_next(r, 2))
                r->tenants = (unsigned)random_next(r, 1u << RANDOM_TENANTS);
        for (unsigned k = 0; k < RANDOM_TENANTS; k++) {
                if (!(r->tenants & 1u << k))
                        continue;
                vms[n] = (ClusterTenantVm){
                        .vm = { .host = 1 + random_next(r, 2),
                                .host_cpus = 8,
                                .host_memory = 16ULL << 30,
                                .vcpus = 1 + (unsigned)random_next(r, 2),
                                .vcpus_max = 2,
                                .memory = 1ULL << 30,
                                .memory_max = 2ULL << 30,
                                .cpu_weight = 128 + 128 * (unsigned)random_next(r, 8),
                                .cpu_use = (double)random_next(r, 200) / 100,
                                .memory_used = 512ULL << 20,
                                .measured_at = r->now },
                };
                snprintf(vms[n].uuid, sizeof(vms[n].uuid), "00000000-0000-4000-8000-00000000000%u",
                         k);
                n++;
        }
        ck_assert_int_eq(cluster_set_tenants(r->c, vms, n), 0);
}

START_TEST(test_snapshot_random) {
        PolicyConfig cfg = { 0 };
        Policy *p = NULL;
        RandomCluster r = { .seed = (uint64_t)_i * 7919 + 1, .next_vm = 1, .now = T0 };
        StoreError err = { 0 };

        ck_assert_int_eq(policy_config_init(&cfg), 0);
        if (_i % 2) {
                cfg.scheduler = "fair";
                cfg.speculation = "late";
                cfg.slot_manager = "flexslot";
        } else if (_i % 4 == 2) {
                CoreSettings *core = policy_config_settings(&cfg, &core_settings_schema);

                cfg.scheduler = "aria";
                cfg.vm_allocator = "flexslot";
                core->slo.slo_speed = true;
                core->slo.slo_lever = true;
        }
        ck_assert_int_eq(policy_new_named(&cfg, NULL, &p), 0);
        policy_config_done(&cfg);
        make_dir("out");
        ck_assert_int_eq(cluster_new(store, p, &data, &r.c, &err), 0);
        r.c->verify_snapshot = true;
        for (size_t i = 0; i < RANDOM_TRACKERS; i++)
                random_register(&r, &r.trackers[i]);
        for (unsigned k = 0; k < 600; k++) {
                RandomTracker *t = &r.trackers[random_next(&r, RANDOM_TRACKERS)];
                uint64_t what = random_next(&r, 100);
                const unsigned slots[_SLOT_TYPE_MAX] = { (unsigned)random_next(&r, 3),
                                                         (unsigned)random_next(&r, 2) };

                r.now += random_next(&r, 2 * USEC_PER_SEC);
                if (what < 70) {
                        /* Now and then without the step ([policy] step =
                         * no): what it changed waits for the next one. */
                        r.c->step = random_next(&r, 8) > 0;
                        random_beat(&r, t);
                        r.c->step = true;
                } else if (what < 80)
                        random_submit(&r);
                else if (what < 83 && r.c->n_jobs > 0)
                        ck_assert_int_eq(
                                cluster_cancel(r.c, r.c->jobs[random_next(&r, r.c->n_jobs)].info.id,
                                               &err),
                                0);
                else if (what < 86) {
                        ck_assert_int_eq(cluster_node_lose(r.c, t->id, r.now, r.now, "random"), 0);
                        random_register(&r, t);
                } else if (what < 89)
                        ck_assert_int_eq(cluster_set_slots(r.c, t->id, slots, 0, r.now, &err), 0);
                else if (what < 92)
                        random_agent(&r, t);
                else if (what < 95)
                        random_tenants(&r);
                else
                        ck_assert_int_eq(cluster_control(r.c, r.now), 0);
                /* Not after every event: changes that no step took in
                 * pile up in between. */
                if (random_next(&r, 2))
                        ck_assert(cluster_snapshot_current(r.c));
                ck_assert(cluster_attempt_index_current(r.c));
        }
        ck_assert(cluster_snapshot_current(r.c));
        cluster_free(r.c);
        policy_free(p);
}
END_TEST

/* ---- the attempt index ---- */

/* The index holds every running attempt and nothing else through starts
 * (assignments, a backup), stops (a winner and the loser it kills), a lost
 * tracker, a restart of the controller and a cancel. */
START_TEST(test_attempt_index) {
        const unsigned slots[_SLOT_TYPE_MAX] = { 3, 0 };
        Tracker1Reply reply = { 0 };
        StoreError err = { 0 };
        Tracker1Finished x;
        ClusterJob *j = NULL;
        unsigned a = 9;
        uint64_t node;
        usec_t now = T0 + 80 * USEC_PER_SEC;
        Spec f;

        spec_setup(&f);
        ck_assert(cluster_attempt_index_current(f.c));
        ck_assert_uint_eq(f.c->n_indexed, SPEC_MAPS + 1);
        ck_assert_ptr_eq(cluster_attempt_find(f.c, f.backup, &j, &a), f.slow);
        ck_assert_ptr_eq(j, &f.c->jobs[0]);
        ck_assert_uint_eq(a, 1);
        ck_assert_ptr_eq(cluster_attempt_find(f.c, f.slow_attempt, NULL, &a), f.slow);
        ck_assert_uint_eq(a, 0);
        ck_assert_ptr_null(cluster_attempt_find(f.c, f.c->next_attempt, NULL, NULL));

        /* The backup wins; the original is killed. */
        x = spec_finished(f.backup, TRACKER1_SUCCEEDED, "out/1/map-winner", "");
        spec_beat(&f, f.cn, 1, NULL, 0, &x, 1, T0 + 72 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        ck_assert_uint_eq(f.c->n_indexed, SPEC_MAPS - 1);
        ck_assert_ptr_null(cluster_attempt_find(f.c, f.backup, NULL, NULL));
        ck_assert_ptr_null(cluster_attempt_find(f.c, f.slow_attempt, NULL, NULL));

        /* a, silent, is lost with its three attempts; b's other runs on. */
        spec_beat(&f, f.b, 0, NULL, 0, NULL, 0, now, &reply);
        tracker1_reply_done(&reply);
        spec_beat(&f, f.cn, 0, NULL, 0, NULL, 0, now, &reply);
        tracker1_reply_done(&reply);
        ck_assert_uint_eq(cluster_lose_silent(f.c, now, now, 5 * USEC_PER_SEC), 1);
        ck_assert(cluster_attempt_index_current(f.c));
        ck_assert_uint_eq(f.c->n_indexed, 1);
        for (size_t i = 0; i < SPEC_MAPS; i++)
                ck_assert_uint_eq(cluster_attempt_find(f.c, f.attempts[i], NULL, NULL) != NULL,
                                  f.on[i] == f.b && f.attempts[i] != f.slow_attempt);

        /* A restarted controller knows no running attempt; what it starts
         * is in its index. */
        cluster_free(f.c);
        ck_assert_int_eq(cluster_new(store, f.late, &data, &f.c, &err), 0);
        f.c->verify_snapshot = true;
        ck_assert(cluster_attempt_index_current(f.c));
        ck_assert_uint_eq(f.c->n_indexed, 0);
        ck_assert_int_eq(cluster_register(f.c, "d", "d", slots, 256 << 20, 1, &node), 0);
        beat(f.c, node, 3, NULL, 0, NULL, 0, now, &reply);
        ck_assert_uint_eq(reply.n_assignments, 3);
        ck_assert_uint_eq(f.c->n_indexed, 3);
        for (size_t i = 0; i < reply.n_assignments; i++) {
                const ClusterTask *t =
                        cluster_attempt_find(f.c, reply.assignments[i].attempt, &j, NULL);

                ck_assert_ptr_nonnull(t);
                ck_assert_uint_eq(t->index, reply.assignments[i].index);
                ck_assert_int_eq(t->type == TASK_MAP, reply.assignments[i].type == TRACKER1_MAP);
        }
        tracker1_reply_done(&reply);

        ck_assert_int_eq(cluster_cancel(f.c, f.job, &err), 0);
        ck_assert(cluster_attempt_index_current(f.c));
        ck_assert_uint_eq(f.c->n_indexed, 0);
        spec_done(&f);
}
END_TEST

/* Attempts added and stopped out of their ids' order (an adopted attempt
 * is older than this run's) keep the index sorted and whole. */
/* A cluster of one tracker and a job of five maps and a reduce (name),
 * whose attempts a test adds to the index itself. */
static Cluster *index_cluster(const char *name, ClusterNode **ret_node, ClusterJob **ret_job) {
        const unsigned slots[_SLOT_TYPE_MAX] = { 3, 3 };
        StoreError err = { 0 };
        Cluster *c = NULL;
        uint64_t node;

        (void)submit_five(name);
        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        ck_assert_int_eq(cluster_register(c, "uuid", "t1", slots, 256 << 20, 1, &node), 0);
        *ret_node = cluster_node_lookup(c, node);
        *ret_job = &c->jobs[0];
        return c;
}

START_TEST(test_attempt_index_order) {
        static const uint64_t ids[] = { 50, 10, 70, 30, 60 };
        ClusterNode *n;
        ClusterJob *j;
        Cluster *c = index_cluster("order", &n, &j);

        for (size_t i = 0; i < ELEMENTSOF(ids); i++) {
                cluster_attempt_add(c, n, j, &j->tasks[i],
                                    &(ClusterAttempt){ .id = ids[i], .slot = SLOT_MAP });
                ck_assert(cluster_attempt_index_current(c));
        }
        for (size_t i = 1; i < c->index_used; i++)
                ck_assert_uint_lt(c->attempt_index[i - 1].attempt, c->attempt_index[i].attempt);
        cluster_attempt_stop(c, &j->tasks[3], 0); /* 30 */
        cluster_attempt_stop(c, &j->tasks[0], 0); /* 50 */
        ck_assert(cluster_attempt_index_current(c));
        ck_assert_uint_eq(c->n_indexed, 3);
        ck_assert_ptr_null(cluster_attempt_find(c, 30, NULL, NULL));
        ck_assert_ptr_eq(cluster_attempt_find(c, 70, NULL, NULL), &j->tasks[2]);
        ck_assert_uint_eq(n->running[SLOT_MAP], 3);
        /* Stopped entries stay until they outnumber the running ones: one
         * added among them, then two more stopped, and the next add takes
         * the four stopped entries out. */
        cluster_attempt_add(c, n, j, &j->tasks[3], &(ClusterAttempt){ .id = 20, .slot = SLOT_MAP });
        ck_assert_uint_eq(c->index_used, 6);
        cluster_attempt_stop(c, &j->tasks[1], 0); /* 10 */
        cluster_attempt_stop(c, &j->tasks[2], 0); /* 70 */
        ck_assert(cluster_attempt_index_current(c));
        ck_assert_ptr_eq(cluster_attempt_find(c, 20, NULL, NULL), &j->tasks[3]);
        ck_assert_ptr_null(cluster_attempt_find(c, 10, NULL, NULL));
        cluster_attempt_add(c, n, j, &j->tasks[0], &(ClusterAttempt){ .id = 40, .slot = SLOT_MAP });
        ck_assert_uint_eq(c->index_used, 3);
        ck_assert_uint_eq(c->n_indexed, 3);
        ck_assert(cluster_attempt_index_current(c));
        ck_assert_ptr_eq(cluster_attempt_find(c, 40, NULL, NULL), &j->tasks[0]);
        ck_assert_ptr_eq(cluster_attempt_find(c, 60, NULL, NULL), &j->tasks[4]);
        cluster_node_stop_attempts(c, n);
        ck_assert(cluster_attempt_index_current(c));
        ck_assert_uint_eq(c->n_indexed, 0);
        ck_assert_uint_eq(n->running[SLOT_MAP], 0);
        cluster_free(c);
}
END_TEST

/* Ids far apart (one adopted from a run before a restart, one near the
 * top of the range) among consecutive ones, with gaps and stopped entries
 * between them: a lookup finds each running attempt and nothing else,
 * below, between and above them. */
START_TEST(test_attempt_index_uneven) {
        static const uint64_t ids[] = {
                1,       1000000, 1000001, 1000002, 1000004, 1000005,
                1000007, 1000008, 1000009, 1000010, 1000011, UINT64_MAX - 1
        };
        static const uint64_t probes[] = { 0,       1,       2,       999999,         1000003,
                                           1000006, 1000012, 5000000, UINT64_MAX - 2, UINT64_MAX };
        ClusterNode *n;
        ClusterJob *j;
        Cluster *c = index_cluster("uneven", &n, &j);

        ck_assert_uint_eq(j->n_tasks * CLUSTER_ATTEMPTS_MAX, ELEMENTSOF(ids));
        for (size_t i = 0; i < ELEMENTSOF(ids); i++)
                cluster_attempt_add(c, n, j, &j->tasks[i / CLUSTER_ATTEMPTS_MAX],
                                    &(ClusterAttempt){ .id = ids[i], .slot = SLOT_MAP });
        /* 1000004 and 1000009 stop; their entries stay. */
        cluster_attempt_stop(c, &j->tasks[2], 0);
        cluster_attempt_stop(c, &j->tasks[4], 0);
        ck_assert(cluster_attempt_index_current(c));
        ck_assert_uint_eq(c->index_used, ELEMENTSOF(ids));
        for (size_t i = 0; i < ELEMENTSOF(ids); i++) {
                bool stopped = ids[i] == 1000004 || ids[i] == 1000009;
                unsigned a = CLUSTER_ATTEMPTS_MAX;
                const ClusterTask *t = cluster_attempt_find(c, ids[i], NULL, &a);

                if (stopped) {
                        ck_assert_ptr_null(t);
                        continue;
                }
                ck_assert_ptr_nonnull(t);
                ck_assert_uint_lt(a, t->n_attempts);
                ck_assert_uint_eq(t->attempts[a].id, ids[i]);
        }
        for (size_t i = 0; i < ELEMENTSOF(probes); i++)
                ck_assert_ptr_eq(cluster_attempt_find(c, probes[i], NULL, NULL),
                                 probes[i] == 1 ? &j->tasks[0] : NULL);
        cluster_node_stop_attempts(c, n);
        ck_assert_uint_eq(c->n_indexed, 0);
        cluster_free(c);
}
END_TEST

/* A grep job of two maps (in/a and in/b) and a reduce. */
static const char *const two_inputs[] = { "in/a", "in/b" };
static const StoreJobSpec two_maps = { .name = "two",
                                       .user = "dave",
                                       .pool = "default",
                                       .app = "grep",
                                       .app_arg = "line",
                                       .inputs = two_inputs,
                                       .n_inputs = ELEMENTSOF(two_inputs),
                                       .n_reduces = 1 };

/* A reply holds all that its tracker is told, so that the endpoint needs
 * nothing of the model: a map's split, a reduce's map outputs in the maps'
 * order, the application and its argument, the partitions, the slot. */
START_TEST(test_reply_is_self_contained) {
        const char *const *inputs = two_inputs;
        StoreJobSpec spec = two_maps;
        char outputs[2][64];
        Tracker1Finished done[2];
        Tracker1Reply reply = { 0 };
        StoreError err = { 0 };
        Cluster *c = NULL;
        uint64_t job, node;

        ck_assert_int_eq(store_job_submit(store, &spec, &job, &err), 0);
        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        c->verify_snapshot = true;
        node = register_tracker(c, 2, 1);
        beat(c, node, 2, NULL, 0, NULL, 0, T0, &reply);
        /* The reduce waits for the maps. */
        ck_assert_uint_eq(reply.n_assignments, 2);
        for (size_t i = 0; i < reply.n_assignments; i++) {
                const Tracker1Assignment *a = &reply.assignments[i];
                char split[64];

                ck_assert_uint_eq(a->job, job);
                ck_assert_int_eq(a->type, TRACKER1_MAP);
                ck_assert_uint_lt(a->index, 2);
                ck_assert_uint_eq(a->partitions, 1);
                ck_assert_str_eq(a->app, "grep");
                ck_assert_str_eq(a->command, "line");
                ck_assert_int_eq(a->slot, TRACKER1_MAP);
                ck_assert_uint_eq(a->slot_memory, 256 << 20);
                /* Equal splits go by path: map 0 reads in/a. */
                snprintf(split, sizeof(split), "%s:0:16", inputs[a->index]);
                ck_assert_uint_eq(a->n_inputs, 1);
                ck_assert_str_eq(a->inputs[0], split);
                snprintf(outputs[a->index], sizeof(outputs[0]),
                         "out/%" PRIu64 "/_map-%05u.%" PRIu64, job, a->index, a->attempt);
                /* Reported in the other order than the maps'. */
                done[1 - i] = (Tracker1Finished){ .attempt = a->attempt,
                                                  .status = TRACKER1_SUCCEEDED,
                                                  .input_bytes = 16,
                                                  .output = outputs[a->index],
                                                  .reason = "" };
        }
        tracker1_reply_done(&reply);

        beat(c, node, 2, NULL, 0, done, 2, T0 + USEC_PER_SEC, &reply);
        ck_assert_uint_eq(reply.n_assignments, 1);
        ck_assert_uint_eq(reply.assignments[0].job, job);
        ck_assert_int_eq(reply.assignments[0].type, TRACKER1_REDUCE);
        ck_assert_uint_eq(reply.assignments[0].index, 0);
        ck_assert_str_eq(reply.assignments[0].app, "grep");
        ck_assert_str_eq(reply.assignments[0].command, "line");
        ck_assert_int_eq(reply.assignments[0].slot, TRACKER1_REDUCE);
        ck_assert_uint_eq(reply.assignments[0].n_inputs, 2);
        ck_assert_str_eq(reply.assignments[0].inputs[0], outputs[0]);
        ck_assert_str_eq(reply.assignments[0].inputs[1], outputs[1]);
        tracker1_reply_done(&reply);
        cluster_free(c);
}
END_TEST

/* The store's record of an attempt of job. */
static StoreTaskRecord attempt_record(uint64_t job, uint64_t attempt) {
        StoreTaskRecord *recs = NULL, found = { 0 };
        StoreError err = { 0 };
        size_t n = 0;

        ck_assert_int_eq(store_job_tasks(store, job, STORE_TASK_ANY, &recs, &n, &err), 0);
        for (size_t i = 0; i < n; i++)
                if (recs[i].attempt == attempt) {
                        found = recs[i];
                        recs[i] = (StoreTaskRecord){ 0 };
                }
        store_task_records_free(recs, n);
        ck_assert_msg(found.attempt == attempt, "no record of attempt %" PRIu64, attempt);
        return found;
}

static void record_free(StoreTaskRecord *rec) {
        free((char *)rec->node);
        free((char *)rec->output);
        free((char *)rec->reason);
}

static void assert_recorded(uint64_t job, uint64_t attempt, StoreTaskStatus status,
                            const char *reason) {
        StoreTaskRecord rec = attempt_record(job, attempt);

        ck_assert_str_eq(store_task_status_to_string(rec.status),
                         store_task_status_to_string(status));
        ck_assert_str_eq(rec.reason ? rec.reason : "", reason);
        record_free(&rec);
}

/* Every attempt is in the store from its assignment, and how each ended:
 * a success that came after its job was cancelled is discarded, a kill's
 * report killed, the attempts of a lost tracker lost, and after a restart
 * an attempt its tracker no longer runs lost too, its task run again. */
START_TEST(test_every_attempt_recorded) {
        StoreJobSpec spec = two_maps;
        uint64_t job, next, node, attempts[2], lost_attempt;
        Tracker1Finished done[2];
        Tracker1Reply reply = { 0 };
        StoreTaskRecord rec;
        StoreError err = { 0 };
        AdmitVerdict verdict;
        char output[64];
        Cluster *c = NULL;

        ck_assert_int_eq(store_job_submit(store, &spec, &job, &err), 0);
        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        c->verify_snapshot = true;
        node = register_tracker(c, 2, 1);
        beat(c, node, 2, NULL, 0, NULL, 0, T0, &reply);
        ck_assert_uint_eq(reply.n_assignments, 2);
        for (size_t i = 0; i < 2; i++) {
                attempts[i] = reply.assignments[i].attempt;
                assert_recorded(job, attempts[i], STORE_TASK_RUNNING, "");
        }
        snprintf(output, sizeof(output), "out/%" PRIu64 "/_map-%05u.%" PRIu64, job,
                 reply.assignments[0].index, attempts[0]);
        tracker1_reply_done(&reply);

        ck_assert_int_eq(cluster_cancel(c, job, &err), 0);
        done[0] = (Tracker1Finished){ .attempt = attempts[0],
                                      .status = TRACKER1_SUCCEEDED,
                                      .output = output,
                                      .reason = "",
                                      .run_time = USEC_PER_SEC,
                                      .since_end = USEC_PER_SEC / 2 };
        done[1] = (Tracker1Finished){ .attempt = attempts[1],
                                      .status = TRACKER1_KILLED,
                                      .output = "",
                                      .reason = "job cancelled (signal 15)" };
        beat(c, node, 2, NULL, 0, done, 2, T0 + 5 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        assert_recorded(job, attempts[0], STORE_TASK_DISCARDED, "job cancelled");
        assert_recorded(job, attempts[1], STORE_TASK_KILLED, "job cancelled (signal 15)");
        /* Timed by the tracker: it ran 1 s and ended 0.5 s before the
         * heartbeat. */
        rec = attempt_record(job, attempts[0]);
        ck_assert_uint_eq(rec.finished, T0 + 5 * USEC_PER_SEC - USEC_PER_SEC / 2);
        ck_assert_uint_eq(rec.started, rec.finished - USEC_PER_SEC);
        record_free(&rec);

        /* A tracker lost with an attempt. */
        ck_assert_int_eq(cluster_submit(c, &spec, T0 + 6 * USEC_PER_SEC, &next, &verdict, &err), 0);
        beat(c, node, 2, NULL, 0, NULL, 0, T0 + 6 * USEC_PER_SEC, &reply);
        ck_assert_uint_eq(reply.n_assignments, 2);
        lost_attempt = reply.assignments[0].attempt;
        attempts[1] = reply.assignments[1].attempt;
        tracker1_reply_done(&reply);
        cluster_free(c); /* killed with both attempts running */

        /* Its tracker comes back running one of the two: the other is gone. */
        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        node = register_tracker(c, 2, 1);
        beat(c, node, 1,
             &(Tracker1Running){ .attempt = attempts[1], .progress = 0.5, .input_size = 16 }, 1,
             NULL, 0, T0 + 7 * USEC_PER_SEC, &reply);
        assert_recorded(next, lost_attempt, STORE_TASK_LOST,
                        "not on its tracker when the controller restarted");
        assert_recorded(next, attempts[1], STORE_TASK_RUNNING, "");
        /* The gone attempt's map runs again, the other runs on. */
        ck_assert_uint_eq(reply.n_assignments, 1);
        lost_attempt = reply.assignments[0].attempt;
        tracker1_reply_done(&reply);
        ck_assert_uint_eq(cluster_lose_silent(c, T0 + 60 * USEC_PER_SEC, T0 + 60 * USEC_PER_SEC,
                                              10 * USEC_PER_SEC),
                          1);
        assert_recorded(next, lost_attempt, STORE_TASK_LOST, "its tracker was lost");
        assert_recorded(next, attempts[1], STORE_TASK_LOST, "its tracker was lost");
        cluster_free(c);
}
END_TEST

/* An attempt the store will not record is not started, and those the
 * heartbeat started before it stand: here the store has ended the second
 * job behind the model's back. */
START_TEST(test_unrecorded_attempt_not_started) {
        Tracker1Reply reply = { 0 };
        StoreError err = { 0 };
        Cluster *c = NULL;
        uint64_t first, second, node;

        ck_assert_int_eq(store_job_submit(store, &two_maps, &first, &err), 0);
        ck_assert_int_eq(store_job_submit(store, &two_maps, &second, &err), 0);
        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        c->verify_snapshot = true;
        ck_assert_int_eq(store_job_finish(store, second, STORE_JOB_FAILED, "gone", &err), 0);
        node = register_tracker(c, 4, 1);
        beat(c, node, 4, NULL, 0, NULL, 0, T0, &reply);
        ck_assert_uint_eq(reply.n_assignments, 2);
        for (size_t i = 0; i < reply.n_assignments; i++)
                ck_assert_uint_eq(reply.assignments[i].job, first);
        ck_assert_uint_eq(c->n_indexed, 2);
        ck_assert_int_eq(cluster_job_find(c, second)->tasks[0].state, TASK_PENDING);
        tracker1_reply_done(&reply);
        cluster_free(c);
}
END_TEST

/* Attempts of status in the store, as another connection (a restarted
 * controller) reads it: the committed ones. */
static int64_t committed_attempts(const char *status) {
        sqlite3 *raw = NULL;
        sqlite3_stmt *st = NULL;
        int64_t n;

        ck_assert_int_eq(sqlite3_open_v2(fixture.db, &raw, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        ck_assert_int_eq(sqlite3_prepare_v2(raw,
                                            "SELECT count(*) FROM task_attempts WHERE status = ?",
                                            -1, &st, NULL),
                         SQLITE_OK);
        ck_assert_int_eq(sqlite3_bind_text(st, 1, status, -1, SQLITE_STATIC), SQLITE_OK);
        ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
        n = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        ck_assert_int_eq(sqlite3_close(raw), SQLITE_OK);
        return n;
}

/* The heartbeats of a store group (the tracker endpoint's pass of its
 * loop) that end an attempt and start the next are one commit of their
 * records, which no other connection sees before it. */
START_TEST(test_group_heartbeats_one_commit) {
        static const char *const inputs[] = { "in/a", "in/b", "in/c", "in/d", "in/e", "in/f" };
        const unsigned slots[_SLOT_TYPE_MAX] = { 1, 0 };
        StoreJobSpec spec = two_maps;
        Tracker1Reply reply = { 0 };
        StoreError err = { 0 };
        Cluster *c = NULL;
        uint64_t job, nodes[3], attempts[3], commits;
        unsigned indexes[3];
        char outputs[3][64];

        for (size_t i = 2; i < ELEMENTSOF(inputs); i++)
                write_input(inputs[i] + strlen("in/"));
        spec.inputs = inputs;
        spec.n_inputs = ELEMENTSOF(inputs);
        ck_assert_int_eq(store_job_submit(store, &spec, &job, &err), 0);
        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        c->verify_snapshot = true;
        for (size_t i = 0; i < ELEMENTSOF(nodes); i++) {
                char host[16];

                snprintf(host, sizeof(host), "t%zu", i);
                ck_assert_int_eq(cluster_register(c, host, host, slots, 256 << 20, 1, &nodes[i]),
                                 0);
                beat(c, nodes[i], 1, NULL, 0, NULL, 0, T0, &reply);
                ck_assert_uint_eq(reply.n_assignments, 1);
                attempts[i] = reply.assignments[0].attempt;
                indexes[i] = reply.assignments[0].index;
                tracker1_reply_done(&reply);
        }
        ck_assert_int_eq(committed_attempts("running"), 3);

        commits = store_commits(store);
        store_group_begin(store);
        for (size_t i = 0; i < ELEMENTSOF(nodes); i++) {
                Tracker1Finished done = { .attempt = attempts[i],
                                          .status = TRACKER1_SUCCEEDED,
                                          .output = outputs[i],
                                          .reason = "" };

                snprintf(outputs[i], sizeof(outputs[i]), "out/%" PRIu64 "/_map-%05u.%" PRIu64, job,
                         indexes[i], attempts[i]);
                beat(c, nodes[i], 1, NULL, 0, &done, 1, T0 + USEC_PER_SEC, &reply);
                ck_assert_uint_eq(reply.n_assignments, 1);
                tracker1_reply_done(&reply);
        }
        ck_assert_uint_eq(store_commits(store), commits);
        ck_assert_int_eq(committed_attempts("succeeded"), 0);
        ck_assert_int_eq(committed_attempts("running"), 3);
        ck_assert_int_eq(store_group_commit(store, &err), 0);
        ck_assert_uint_eq(store_commits(store), commits + 1);
        ck_assert_int_eq(committed_attempts("succeeded"), 3);
        ck_assert_int_eq(committed_attempts("running"), 3);
        cluster_free(c);
}
END_TEST

/* What the deadline models read of a job in its first run, as the
 * simulator gives it: its input from its splits' lengths before any task
 * ran, and the profile of its succeeded tasks as they succeed, kept across
 * a restart of the controller. */
START_TEST(test_job_input_and_run_profile) {
        /* A map of each of in/a and in/b, 16 bytes each. */
        const uint64_t split = 16;
        StoreError err = { 0 };
        Tracker1Reply reply = { 0 };
        Tracker1Finished x;
        Cluster *c = NULL;
        unsigned flags = 0;
        uint64_t node, attempt;
        char output[64];
        const PhaseStats *maps;

        submit("dave", "first", 1);
        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        c->verify_snapshot = true;
        ck_assert_uint_eq(c->jobs[0].input_size, 2 * split);
        ck_assert_uint_eq(c->jobs[0].tasks[0].input_size, split);
        ck_assert_uint_eq(c->jobs[0].tasks[1].input_size, split);
        ck_assert_int_eq(cluster_snapshot_prepare(c, &flags), 0);
        ck_assert_uint_eq(c->snapshot->s.jobs[0].input_size, 2 * split);
        ck_assert_uint_eq(c->snapshot->s.jobs[0].profile.phases[PROFILE_MAP].count, 0);

        node = register_tracker(c, 1, 0);
        beat(c, node, 1, NULL, 0, NULL, 0, T0, &reply);
        ck_assert_uint_eq(reply.n_assignments, 1);
        ck_assert_int_eq(reply.assignments[0].type, TRACKER1_MAP);
        attempt = reply.assignments[0].attempt;
        snprintf(output, sizeof(output), "out/%" PRIu64 "/_map-%05u.%" PRIu64,
                 reply.assignments[0].job, reply.assignments[0].index, attempt);
        tracker1_reply_done(&reply);
        x = (Tracker1Finished){ .attempt = attempt,
                                .status = TRACKER1_SUCCEEDED,
                                .input_bytes = split,
                                .output = output,
                                .reason = "" };
        beat(c, node, 1, NULL, 0, &x, 1, T0 + 5 * USEC_PER_SEC, &reply);
        tracker1_reply_done(&reply);
        ck_assert_int_eq(cluster_snapshot_prepare(c, &flags), 0);
        maps = &c->snapshot->s.jobs[0].profile.phases[PROFILE_MAP];
        ck_assert_uint_eq(maps->count, 1);
        ck_assert_uint_eq(maps->total, 5 * USEC_PER_SEC);
        ck_assert_uint_eq(c->jobs[0].maps_finished, 0);
        cluster_free(c);

        /* Restarted: the profile comes back from the task records. */
        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        maps = &c->jobs[0].run_profile.phases[PROFILE_MAP];
        ck_assert_uint_eq(maps->count, 1);
        ck_assert_uint_eq(maps->max, 5 * USEC_PER_SEC);
        ck_assert_uint_eq(c->jobs[0].input_size, 2 * split);
        cluster_free(c);
}
END_TEST

/* A deadline job's first run under ARIA, live as in the simulator: until
 * a map finished there is no profile and the job may take every slot;
 * once one finished in 10 s, Eq. 15 gives its five maps left one slot
 * for a deadline 1000 s away, and the job, with two maps running, takes
 * none of the tracker's free slots; the quota is kept for the next steps. */
START_TEST(test_first_run_deadline_quota) {
        static const char *const inputs[] = { "in/a", "in/b", "in/c", "in/d", "in/e", "in/f" };
        StoreJobSpec spec = { .name = "first",
                              .user = "erin",
                              .pool = "default",
                              .app = "wordcount",
                              .inputs = inputs,
                              .n_inputs = ELEMENTSOF(inputs),
                              .deadline = T0 + 1000 * USEC_PER_SEC };
        PolicyConfig cfg = { 0 };
        Policy *aria = NULL;
        StoreError err = { 0 };
        Tracker1Reply reply = { 0 };
        Tracker1Running running[2];
        Tracker1Finished x;
        Cluster *c = NULL;
        uint64_t id, node, attempts[3];
        unsigned quota[_SLOT_TYPE_MAX], flags = 0;
        char output[64];

        for (const char *f = "cdef"; *f; f++)
                write_input((char[]){ *f, 0 });
        ck_assert_int_eq(store_job_submit(store, &spec, &id, &err), 0);
        ck_assert_int_eq(policy_config_init(&cfg), 0);
        cfg.scheduler = "aria";
        ck_assert_int_eq(policy_new_named(&cfg, NULL, &aria), 0);
        policy_config_done(&cfg);
        ck_assert_int_eq(cluster_new(store, aria, &data, &c, &err), 0);
        c->verify_snapshot = true;
        node = spec_register(c, "a", 3);

        beat(c, node, 3, NULL, 0, NULL, 0, T0, &reply);
        ck_assert_uint_eq(reply.n_assignments, 3);
        for (size_t i = 0; i < 3; i++)
                attempts[i] = reply.assignments[i].attempt;
        snprintf(output, sizeof(output), "out/%" PRIu64 "/_map-%05u.%" PRIu64, id,
                 reply.assignments[0].index, attempts[0]);
        tracker1_reply_done(&reply);

        x = (Tracker1Finished){ .attempt = attempts[0],
                                .status = TRACKER1_SUCCEEDED,
                                .input_bytes = 16,
                                .output = output,
                                .reason = "" };
        for (size_t i = 0; i < 2; i++)
                running[i] = (Tracker1Running){ .attempt = attempts[i + 1],
                                                .progress = 0.5,
                                                .input_size = 16 };
        beat(c, node, 1, running, 2, &x, 1, T0 + 10 * USEC_PER_SEC, &reply);
        ck_assert_uint_eq(reply.n_assignments, 0);
        tracker1_reply_done(&reply);

        /* The quota stands between steps: a control cycle gives none, and
         * the next step's snapshot (kept, and refreshed) has it for the
         * one loop's forecasts, as operators see it. */
        cluster_job_quota(c, id, quota);
        ck_assert_uint_eq(quota[SLOT_MAP], 1);
        ck_assert_uint_eq(quota[SLOT_REDUCE], 0); /* a job without reduces */
        ck_assert_int_eq(cluster_control(c, T0 + 11 * USEC_PER_SEC), 0);
        ck_assert_int_eq(cluster_snapshot_prepare(c, &flags), 0);
        ck_assert_uint_eq(c->snapshot->s.jobs[0].quota[SLOT_MAP], 1);
        ck_assert_uint_eq(c->snapshot->s.jobs[0].quota[SLOT_REDUCE], quota[SLOT_REDUCE]);
        cluster_job_quota(c, id + 1, quota);
        ck_assert_uint_eq(quota[SLOT_MAP] + quota[SLOT_REDUCE], 0);
        cluster_free(c);
        policy_free(aria);
}
END_TEST

/* A reduce is given every map's output as it starts, so none starts until
 * each map is done, and then with every map's output, whatever the
 * scheduler: ARIA opens a deadline job's reduces once its first map is
 * done, RAS places reduces from a job's start; the policy core offers
 * neither a reduce before the last map under the controller's snapshot. */
static const char *const early_reduce_schedulers[] = { "aria", "ras" };

START_TEST(test_reduce_waits_for_every_map) {
        static const char *const inputs[] = { "in/a", "in/b" };
        StoreJobSpec spec = { .name = "early",
                              .user = "erin",
                              .pool = "default",
                              .app = "wordcount",
                              .inputs = inputs,
                              .n_inputs = ELEMENTSOF(inputs),
                              .n_reduces = 1,
                              .deadline = T0 + 1000 * USEC_PER_SEC };
        const unsigned slots[_SLOT_TYPE_MAX] = { 2, 1 };
        PolicyConfig cfg = { 0 };
        Policy *sched = NULL;
        StoreError err = { 0 };
        Tracker1Reply reply = { 0 };
        Tracker1Report report = { .free_slots = { 2, 1 } };
        Tracker1Running running;
        Tracker1Finished x[2];
        char outputs[2][64];
        Cluster *c = NULL;
        uint64_t id, node, maps[2];

        write_input("b");
        ck_assert_int_eq(store_job_submit(store, &spec, &id, &err), 0);
        ck_assert_int_eq(policy_config_init(&cfg), 0);
        cfg.scheduler = early_reduce_schedulers[_i];
        ck_assert_int_eq(policy_new_named(&cfg, NULL, &sched), 0);
        policy_config_done(&cfg);
        ck_assert_int_eq(cluster_new(store, sched, &data, &c, &err), 0);
        c->verify_snapshot = true;
        ck_assert_int_eq(cluster_register(c, "a", "a", slots, 256 << 20, 1, &node), 0);

        ck_assert_int_eq(cluster_heartbeat(c, node, &report, T0, T0, &reply, &err), 0);
        ck_assert_uint_eq(reply.n_assignments, 2);
        for (size_t i = 0; i < 2; i++) {
                ck_assert_uint_eq(reply.assignments[i].type, TRACKER1_MAP);
                maps[i] = reply.assignments[i].attempt;
                snprintf(outputs[i], sizeof(outputs[i]), "out/%" PRIu64 "/_map-%05u.%" PRIu64, id,
                         reply.assignments[i].index, maps[i]);
        }
        tracker1_reply_done(&reply);
        for (size_t i = 0; i < 2; i++)
                x[i] = (Tracker1Finished){ .attempt = maps[i],
                                           .status = TRACKER1_SUCCEEDED,
                                           .input_bytes = 16,
                                           .output = outputs[i],
                                           .reason = "" };

        /* One map done, the other running: the scheduler may want the reduce
         * started. */
        running = (Tracker1Running){ .attempt = maps[1], .progress = 0.5, .input_size = 16 };
        report = (Tracker1Report){ .free_slots = { 1, 1 },
                                   .running = &running,
                                   .n_running = 1,
                                   .finished = &x[0],
                                   .n_finished = 1 };
        ck_assert_int_eq(cluster_heartbeat(c, node, &report, T0 + 5 * USEC_PER_SEC,
                                           T0 + 5 * USEC_PER_SEC, &reply, &err),
                         0);
        for (size_t i = 0; i < reply.n_assignments; i++)
                ck_assert_uint_ne(reply.assignments[i].type, TRACKER1_REDUCE);
        tracker1_reply_done(&reply);

        /* Both done: the reduce starts with both maps' outputs. */
        report = (Tracker1Report){ .free_slots = { 2, 1 }, .finished = &x[1], .n_finished = 1 };
        ck_assert_int_eq(cluster_heartbeat(c, node, &report, T0 + 10 * USEC_PER_SEC,
                                           T0 + 10 * USEC_PER_SEC, &reply, &err),
                         0);
        ck_assert_uint_eq(reply.n_assignments, 1);
        ck_assert_uint_eq(reply.assignments[0].type, TRACKER1_REDUCE);
        ck_assert_uint_eq(reply.assignments[0].n_inputs, 2);
        tracker1_reply_done(&reply);
        cluster_free(c);
        policy_free(sched);
}
END_TEST

Suite *suite_controller_cluster(void) {
        Suite *s = suite_create("controller_cluster");
        TCase *tc = tcase_create("model");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_profile_round_trip);
        tcase_add_test(tc, test_profile_saved_and_loaded);
        tcase_add_test(tc, test_set_slots);
        tcase_add_test(tc, test_forget_lost);
        tcase_add_test(tc, test_inputs_beneath_data_dir);
        tcase_add_test(tc, test_reply_is_self_contained);
        tcase_add_test(tc, test_every_attempt_recorded);
        tcase_add_test(tc, test_unrecorded_attempt_not_started);
        tcase_add_test(tc, test_group_heartbeats_one_commit);
        tcase_add_test(tc, test_resumed_complete_job_ends);
        tcase_add_test(tc, test_spec_first_success_wins);
        tcase_add_test(tc, test_spec_original_wins);
        tcase_add_test(tc, test_spec_failed_backup);
        tcase_add_test(tc, test_spec_lost_tracker);
        tcase_add_test(tc, test_made_up_report_unlinks_nothing);
        tcase_add_test(tc, test_loser_symlink_not_followed);
        tcase_add_test(tc, test_map_outputs_removed_at_end);
        tcase_add_test(tc, test_output_commit);
        tcase_add_test(tc, test_dhsa_map_in_reduce_slot);
        tcase_add_test(tc, test_adopt_after_restart);
        tcase_add_test(tc, test_restored_failures_fail_the_job);
        tcase_add_test(tc, test_snapshot_kept);
        tcase_add_test(tc, test_snapshot_keeps_gone_jobs);
        tcase_add_test(tc, test_walk_sees_a_failed_map);
        tcase_add_test(tc, test_attempt_index);
        tcase_add_test(tc, test_attempt_index_order);
        tcase_add_test(tc, test_attempt_index_uneven);
        tcase_add_test(tc, test_job_input_and_run_profile);
        tcase_add_test(tc, test_first_run_deadline_quota);
        tcase_add_loop_test(tc, test_reduce_waits_for_every_map, 0,
                            ELEMENTSOF(early_reduce_schedulers));
        suite_add_tcase(s, tc);

        /* Each sequence builds a snapshot anew at every check: seconds
         * under the sanitizers. */
        tc = tcase_create("snapshot_random");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 120);
        tcase_add_loop_test(tc, test_snapshot_random, 0, 8);
        suite_add_tcase(s, tc);
        return s;
}

/* SPDX-License-Identifier: MIT */
/* The controller's live model (controller/daemon/cluster.h) on a store in
 * each test's own directory: a stored ARIA profile reaches the deadline
 * schedulers as it was stored, an operator's slots reach the tracker and
 * its reports are checked against what it has heard, and a job resumed
 * with every task done ends at the first heartbeat. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "common/macro.h"
#include "controller/daemon/cluster.h"
#include "controller/policies/policies.h"
#include "controller/policies/slo-sched.h"
#include "tests.h"

static char *dir, *db;
static Store *store;
static Policy *policy;
/* The jobs' inputs, in/a and in/b under dir, are a split each. */
static ClusterData data;

static void write_input(const char *name) {
        _cleanup_free_ char *in = NULL, *path = NULL;
        FILE *f;

        ck_assert_int_ge(asprintf(&in, "%s/in", dir), 0);
        ck_assert(mkdir(in, 0755) == 0 || errno == EEXIST);
        ck_assert_int_ge(asprintf(&path, "%s/%s", in, name), 0);
        f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_ge(fputs("a line of input\n", f), 0);
        ck_assert_int_eq(fclose(f), 0);
}

static void setup(void) {
        PolicyConfig cfg = { 0 };
        StoreError err = { 0 };

        dir = test_make_tmpdir();
        ck_assert_ptr_nonnull(dir);
        ck_assert_int_ge(asprintf(&db, "%s/store.db", dir), 0);
        write_input("a");
        write_input("b");
        data = (ClusterData){ .data_dir = dir, .block_size = 64 << 20 };
        ck_assert_int_eq(store_open(db, &store, &err), 0);
        ck_assert_int_eq(policy_config_init(&cfg), 0);
        ck_assert_int_eq(policy_new_named(&cfg, NULL, &policy), 0);
        policy_config_done(&cfg);
}

static void teardown(void) {
        policy = policy_free(policy);
        store = store_close(store);
        test_remove_tree(dir);
        free(db);
        free(dir);
        db = dir = NULL;
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
static const AriaProfile wikitrends = {
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
        job.input_size = cluster_profile_input(&cp, 71);
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

static uint64_t register_tracker(Cluster *c, unsigned map_slots, unsigned reduce_slots) {
        const unsigned slots[_SLOT_TYPE_MAX] = { map_slots, reduce_slots };
        uint64_t id;

        ck_assert_int_eq(cluster_register(c, "uuid", "t1", slots, 256 << 20, 1, &id), 0);
        return id;
}

START_TEST(test_set_slots) {
        const unsigned cut[_SLOT_TYPE_MAX] = { 1, 0 };
        StoreError err = { 0 };
        ClusterReport report = { .free_slots = { 2, 1 } };
        ClusterReply reply = { 0 };
        Cluster *c = NULL;
        uint64_t node;

        ck_assert_int_eq(cluster_new(store, policy, &data, &c, &err), 0);
        node = register_tracker(c, 2, 1);
        ck_assert_int_eq(cluster_set_slots(c, node + 1, cut, 0, 10, &err), -ENXIO);
        ck_assert_int_eq(cluster_set_slots(c, node, cut, 512 << 20, 10, &err), 0);
        /* The tracker has not heard of the cut: all its old slots free is
         * still a true report. */
        ck_assert_int_eq(cluster_heartbeat(c, node, &report, 20, 2, &reply, &err), 0);
        ck_assert_uint_eq(reply.slots[SLOT_MAP], 1);
        ck_assert_uint_eq(reply.slots[SLOT_REDUCE], 0);
        ck_assert_uint_eq(reply.slot_memory, 512 << 20);
        cluster_reply_done(&reply);
        /* Now it has. */
        ck_assert_int_eq(cluster_heartbeat(c, node, &report, 30, 3, &reply, &err), -EINVAL);
        ck_assert_str_eq(err.field, "free-slots");
        ck_assert_uint_eq(cluster_lose_silent(c, 100, 10), 1);
        ck_assert_int_eq(cluster_set_slots(c, node, cut, 0, 110, &err), -ENXIO);
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
        ClusterReport report = { 0 };
        ClusterReply reply = { 0 };
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
        cluster_reply_done(&reply);
        ck_assert_uint_eq(c->n_jobs, 0);
        ck_assert_int_eq(store_job_get(store, id, &info, &err), 0);
        ck_assert_int_eq(info.state, STORE_JOB_SUCCEEDED);
        store_job_clear(&info);
        cluster_free(c);
}
END_TEST

Suite *suite_controller_cluster(void) {
        Suite *s = suite_create("controller_cluster");
        TCase *tc = tcase_create("model");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_profile_round_trip);
        tcase_add_test(tc, test_profile_saved_and_loaded);
        tcase_add_test(tc, test_set_slots);
        tcase_add_test(tc, test_resumed_complete_job_ends);
        suite_add_tcase(s, tc);
        return s;
}

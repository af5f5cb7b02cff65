/* SPDX-License-Identifier: MIT */
/* The YARN driver's model on one round of answers recorded from Hadoop's
 * mini cluster (tests/fixtures/yarn/round/, tests/yarn/record.sh: a
 * wordcount with five maps done and map 0 slow on NodeManager 0): the
 * NodeManagers as nodes on their VMs, the snapshot the policy core checks
 * and steps on (SEPB's kill of the slow map, from the recorded profile;
 * FlexSlot's resize kill of it),
 * the actions decisions become, [yarn] nodes and the ResourceManager's
 * address as the configuration takes them, a ResourceManager that
 * stops listing what it had, the jobs as ListJobs shows them, and ARIA's
 * quota as advice or as a reservation. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "common/macro.h"
#include "controller/daemon/cluster.h"
#include "controller/daemon/controllerd-config.h"
#include "controller/daemon/yarn-config.h"
#include "controller/daemon/yarn-model.h"
#include "policy/layers/policies.h"
#include "tests.h"

#define APP "application_1795772848039_0001"
#define SLOW "attempt_1795772848039_0001_m_000000_0"
#define NM0 "localhost:38169" /* NodeManager 0, where map 0 runs */
#define NM1 "localhost:43039"
#define MS USEC_PER_MSEC

static char *dir;
static Store *store;
static Policy *policy;
static Cluster *cluster;
static YarnModel *model;
static YarnNodeMapEntry *map;
static size_t n_map;

/* An answer of the recorded round, and its size. */
static char *fixture(const char *name, size_t *ret_size) {
        char path[256];
        char *text;

        snprintf(path, sizeof(path), "tests/fixtures/yarn/round/%s", name);
        text = test_read_source(path);
        *ret_size = strlen(text);
        return text;
}

static void take_nodes(usec_t now_monotonic) {
        size_t size, n;
        _cleanup_free_ char *body = fixture("nodes.json", &size);
        YarnNode *nodes;
        char why[256];

        ck_assert_int_eq(yarn_decode_nodes(body, size, &nodes, &n, why, sizeof(why)), 0);
        ck_assert_int_eq(yarn_model_update_nodes(model, cluster, nodes, n, 0, now_monotonic), 0);
        yarn_nodes_free(nodes, n);
}

/* The recorded round, whole. */
static YarnModelJob *take_round(void) {
        size_t size, n;
        _cleanup_free_ char *apps_body = fixture("apps.json", &size);
        _cleanup_free_ char *jobs_body = fixture("jobs.json", &size);
        _cleanup_free_ char *tasks_body = fixture("tasks.json", &size);
        _cleanup_free_ char *attempts_body =
                fixture("attempts-task_1795772848039_0001_m_000000.json", &size);
        YarnApp *apps;
        YarnJob *jobs;
        YarnTask *tasks;
        YarnAttempt *attempts;
        YarnModelJob *j;
        char why[256];

        take_nodes(1);
        ck_assert_int_eq(
                yarn_decode_apps(apps_body, strlen(apps_body), &apps, &n, why, sizeof(why)), 0);
        ck_assert_int_eq(yarn_model_update_apps(model, apps, n, 1, 1), 0);
        yarn_apps_free(apps, n);
        j = yarn_model_job(model, APP);
        ck_assert_ptr_nonnull(j);
        ck_assert_int_eq(
                yarn_decode_jobs(jobs_body, strlen(jobs_body), &jobs, &n, why, sizeof(why)), 0);
        ck_assert_int_eq(yarn_model_take_jobs(model, j, jobs, n), 0);
        ck_assert_int_eq(
                yarn_decode_tasks(tasks_body, strlen(tasks_body), &tasks, &n, why, sizeof(why)), 0);
        ck_assert_int_eq(yarn_model_take_tasks(model, j, tasks, n), 0);
        ck_assert_int_eq(yarn_decode_attempts(attempts_body, strlen(attempts_body), &attempts, &n,
                                              why, sizeof(why)),
                         0);
        yarn_model_take_attempts(j, "task_1795772848039_0001_m_000000", attempts, n);
        j->fresh = true;
        return j;
}

static void setup_with(const char *scheduler, const char *speculation) {
        PolicyConfig cfg = { 0 };
        StoreError err = { 0 };
        ClusterData data;
        char db[512], why[256];

        dir = test_make_tmpdir();
        ck_assert_ptr_nonnull(dir);
        snprintf(db, sizeof(db), "%s/store.db", dir);
        data = (ClusterData){ .data_dir = dir, .block_size = 64 << 20 };
        ck_assert_int_eq(store_open(db, &store, &err), 0);
        ck_assert_int_eq(policy_config_init(&cfg), 0);
        cfg.scheduler = scheduler;
        cfg.speculation = speculation;
        ck_assert_int_eq(policy_new_named(&cfg, NULL, &policy), 0);
        policy_config_done(&cfg);
        ck_assert_int_eq(cluster_new(store, policy, &data, &cluster, &err), 0);
        ck_assert_int_eq(
                yarn_node_map_parse(NM0 "=worker1 vm9=spare", &map, &n_map, why, sizeof(why)), 0);
        ck_assert_int_eq(yarn_model_new(&(YarnModelConfig){ .container_mb = 256,
                                                            .container_vcores = 1,
                                                            .min_containers = 1,
                                                            .split_size = 64 << 20,
                                                            .map = map,
                                                            .n_map = n_map },
                                        &model),
                         0);
}

static void setup(void) {
        setup_with("fifo", "sepb");
}

static void setup_aria(void) {
        setup_with("aria", "none");
}

static void teardown(void) {
        model = yarn_model_free(model);
        yarn_node_map_free(map, n_map);
        map = NULL;
        cluster = cluster_free(cluster);
        policy = policy_free(policy);
        store = store_close(store);
        test_remove_tree(dir);
        free(dir);
        dir = NULL;
}

static const ClusterNode *node_named(const char *id) {
        for (size_t i = 0; i < cluster->n_nodes; i++)
                if (strcmp(cluster->nodes[i].hostname, id) == 0)
                        return &cluster->nodes[i];
        ck_abort_msg("no node %s", id);
        return NULL;
}

START_TEST(test_nodes_on_their_vms) {
        take_nodes(1);
        ck_assert_uint_eq(cluster->n_nodes, 3);
        /* [yarn] nodes first, else the host name as the domain's name. */
        ck_assert_str_eq(node_named(NM0)->vm_uuid, "worker1");
        ck_assert_str_eq(node_named(NM1)->vm_uuid, "localhost");
        ck_assert_int_eq(node_named(NM0)->state, NODE_ALIVE);
        /* 1024 MB and 4 vcores in containers of 256 MB and 1 vcore. */
        ck_assert_uint_eq(node_named(NM0)->slots[SLOT_MAP], 4);
        ck_assert_uint_eq(node_named(NM0)->slots[SLOT_REDUCE], 0);
        ck_assert_uint_eq(node_named(NM0)->running[SLOT_MAP], 2);
        /* A second answer registers none again. */
        take_nodes(2);
        ck_assert_uint_eq(cluster->n_nodes, 3);
}
END_TEST

START_TEST(test_snapshot) {
        YarnModelJob *j = take_round();
        YarnSnapshot s;
        const Job *job;

        ck_assert_int_eq(yarn_snapshot_build(model, cluster, &s), 0);
        ck_assert_int_eq(snapshot_validate(&s.s), 0);
        ck_assert_uint_eq(s.s.n_nodes, 3);
        ck_assert_uint_eq(s.s.n_jobs, 1);
        job = &s.a.jobs[0];
        ck_assert_uint_eq(job->counts[TASK_MAP].total, 6);
        ck_assert_uint_eq(job->counts[TASK_MAP].done, 5);
        ck_assert_uint_eq(job->counts[TASK_MAP].running, 1);
        ck_assert_uint_eq(job->counts[TASK_REDUCE].total, 1);
        /* The five finished maps, 6.1 to 7.6 s, are its ARIA map profile. */
        ck_assert_uint_eq(job->profile.phases[PROFILE_MAP].count, 5);
        ck_assert_uint_eq(job->profile.phases[PROFILE_MAP].min, 6126 * MS);
        ck_assert_uint_eq(job->profile.phases[PROFILE_MAP].max, 7648 * MS);
        /* flexslot-deadline=600: ten minutes after the application started
         * (startedTime 1795772850975), which the job a moment after. */
        ck_assert_uint_eq(j->deadline, (1795772850975 + 600 * 1000) * MS);
        ck_assert_uint_eq(job->deadline, j->deadline);
        ck_assert_uint_gt(job->submitted, 1795772850975 * MS);
        ck_assert_uint_eq(s.s.n_tasks, 2);
        ck_assert_int_eq(s.a.tasks[0].state, TASK_RUNNING);
        ck_assert_int_eq(s.a.tasks[1].type, TASK_REDUCE);
        ck_assert_int_eq(s.a.tasks[1].state, TASK_PENDING);
        ck_assert_uint_eq(s.s.n_attempts, 1);
        ck_assert_str_eq(s.attempt_of[0]->id, SLOW);
        ck_assert_uint_eq(cluster->nodes[s.a.attempts[0].node].id, node_named(NM0)->id);
        ck_assert_uint_eq(s.a.attempts[0].input_size, 64 << 20);
        ck_assert_uint_eq(s.a.attempts[0].kill_count, 0);
        yarn_snapshot_done(&s);
}
END_TEST

/* The policy core itself, SEPB under FIFO, on the recorded round: map 0,
 * twice as long as the finished maps' mean, is killed to run again. */
START_TEST(test_step_kills_the_straggler) {
        YarnModelJob *j = take_round();
        Decisions d = { 0 };
        YarnSnapshot s;
        YarnAction actions[8];
        usec_t started = j->attempts[0].attempts[0].started;
        size_t n;

        ck_assert_int_eq(yarn_snapshot_build(model, cluster, &s), 0);
        /* 10 s in: under twice the mean of 6.7 s, it runs on. */
        ck_assert_int_eq(policy_step(policy, &s.s,
                                     &(PolicyStepArgs){ .now = started + 10 * USEC_PER_SEC,
                                                        .flags = POLICY_STEP_ALL },
                                     &d),
                         0);
        ck_assert_uint_eq(d.n_kills, 0);
        ck_assert_int_eq(policy_step(policy, &s.s,
                                     &(PolicyStepArgs){ .now = started + 20 * USEC_PER_SEC,
                                                        .flags = POLICY_STEP_ALL },
                                     &d),
                         0);
        ck_assert_uint_eq(d.n_kills, 1);
        ck_assert_int_eq(d.kills[0].reason, KILL_RETRY);
        ck_assert_uint_le(yarn_actions_max(model, &d), ELEMENTSOF(actions));
        n = yarn_model_actions(model, cluster, &s, &d, 0, actions);
        ck_assert_uint_eq(n, 1);
        ck_assert_int_eq(actions[0].kind, YARN_ACTION_KILL);
        ck_assert_str_eq(actions[0].app, APP);
        ck_assert_str_eq(actions[0].job, "job_1795772848039_0001");
        ck_assert_str_eq(actions[0].task, "task_1795772848039_0001_m_000000");
        ck_assert_str_eq(actions[0].attempt, SLOW);
        ck_assert_str_eq(actions[0].reason, "retry");
        /* Asked once: the same decision again asks nothing. */
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, 0, actions), 0);
        /* Unless its master did not take it. */
        yarn_model_kill_failed(model, APP, SLOW);
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, 0, actions), 1);
        decisions_done(&d);
        yarn_snapshot_done(&s);
}
END_TEST

/* A kill whose master did not answer this round waits for one that did. */
START_TEST(test_kills_not_now) {
        YarnModelJob *j = take_round();
        Kill kill = { .attempt = 0, .reason = KILL_REPLACE };
        Decisions d = { .kills = &kill, .n_kills = 1 };
        YarnAction actions[8];
        YarnSnapshot s;

        ck_assert_int_eq(yarn_snapshot_build(model, cluster, &s), 0);
        /* Its master did not answer this round. */
        j->fresh = false;
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, 0, actions), 0);
        j->fresh = true;
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, 0, actions), 1);
        ck_assert_str_eq(actions[0].reason, "replace");
        yarn_snapshot_done(&s);
}
END_TEST

/* FlexSlot's resize (Algorithm 1) is a kill through the master as the
 * others are, once; the bigger slot it wants is not given. */
START_TEST(test_resize_kill) {
        YarnModelJob *j = take_round();
        Kill kill = { .attempt = 0, .reason = KILL_RESIZE, .slot_memory = 512 << 20 };
        Decisions d = { .kills = &kill, .n_kills = 1 };
        YarnAction actions[8];
        YarnSnapshot s;

        ck_assert_int_eq(yarn_snapshot_build(model, cluster, &s), 0);
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, 0, actions), 1);
        ck_assert_int_eq(actions[0].kind, YARN_ACTION_KILL);
        ck_assert_str_eq(actions[0].reason, "resize");
        ck_assert_str_eq(actions[0].attempt, SLOW);
        ck_assert_str_eq(actions[0].task, "task_1795772848039_0001_m_000000");
        ck_assert_str_eq(actions[0].job, j->jobs[0].id);
        ck_assert_str_eq(actions[0].app, APP);
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, 0, actions), 0);
        /* Not taken by its master: asked again. */
        yarn_model_kill_failed(model, APP, SLOW);
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, 0, actions), 1);
        yarn_snapshot_done(&s);
}
END_TEST

/* A slot change is a capacity asked of the ResourceManager, until it shows
 * it; back at the NodeManager's own, nothing more is wanted. */
START_TEST(test_capacity) {
        SlotChange change = { .slots = { 1, 0 } };
        Decisions d = { .slot_changes = &change, .n_slot_changes = 1 };
        YarnAction actions[8];
        YarnSnapshot s;
        YarnModelNode *mn;

        take_round();
        change.node = 0;
        mn = &model->nodes[0];
        ck_assert_str_eq(mn->id, cluster->nodes[0].hostname);
        ck_assert_int_eq(yarn_snapshot_build(model, cluster, &s), 0);
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, 0, actions), 1);
        ck_assert_int_eq(actions[0].kind, YARN_ACTION_CAPACITY);
        ck_assert_str_eq(actions[0].node, mn->id);
        ck_assert_uint_eq(actions[0].memory_mb, 256);
        ck_assert_uint_eq(actions[0].vcores, 1);
        /* The policy sees the slots at once; one request at a time. */
        ck_assert_uint_eq(cluster->nodes[0].slots[SLOT_MAP], 1);
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, 0, actions), 0);
        /* Not taken (the ResourceManager still shows 1024 MB): again. */
        yarn_model_capacity_done(model, mn->id);
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, 0, actions), 1);
        yarn_model_capacity_done(model, mn->id);
        /* Taken. */
        mn->memory_mb = 256;
        mn->vcores = 1;
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, 0, actions), 0);
        /* The ResourceManager restarted and forgot: asked again. */
        take_nodes(5);
        ck_assert_uint_eq(cluster->nodes[0].slots[SLOT_MAP], 1);
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, 0, actions), 1);
        yarn_model_capacity_done(model, mn->id);
        /* Back to four, its own: its registered capacity exactly. */
        change.slots[SLOT_MAP] = 3;
        change.slots[SLOT_REDUCE] = 1;
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, 0, actions), 0);
        ck_assert_uint_eq(mn->want, 0);
        /* Within limits: at least min-containers, at most its own. */
        change.slots[SLOT_MAP] = 0;
        change.slots[SLOT_REDUCE] = 0;
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, 0, actions), 1);
        ck_assert_uint_eq(actions[0].memory_mb, 256);
        yarn_snapshot_done(&s);
}
END_TEST

/* An operator's SetSlots on a YARN node: wanted within the limits. */
START_TEST(test_set_slots) {
        StoreError err = { 0 };
        uint64_t id;

        take_nodes(1);
        id = node_named(NM1)->id;
        ck_assert_int_eq(cluster_set_slots(cluster, id, (unsigned[]){ 7, 2 }, 0, 0, &err), 0);
        take_nodes(2);
        ck_assert_uint_eq(node_named(NM1)->slots[SLOT_MAP], 4);
        ck_assert(!node_named(NM1)->slots_pending);
        ck_assert_int_eq(cluster_set_slots(cluster, id, (unsigned[]){ 1, 1 }, 0, 0, &err), 0);
        take_nodes(3);
        ck_assert_uint_eq(node_named(NM1)->slots[SLOT_MAP], 2);
        for (size_t i = 0; i < model->n_nodes; i++)
                if (strcmp(model->nodes[i].id, NM1) == 0)
                        ck_assert_uint_eq(model->nodes[i].want, 2);
}
END_TEST

/* The recorded application as ListJobs shows it, running, then ended as
 * the ResourceManager says; its id follows the store's. */
START_TEST(test_job_records) {
        YarnApp ended = { .state = YARN_APP_FINISHED,
                          .final_status = YARN_FINAL_SUCCEEDED,
                          .finished = 1795772900000 * MS };
        _cleanup_(yarn_model_freep) YarnModel *later = NULL;
        StoreJob *records, r;
        size_t n;
        char why[64];
        YarnApp *apps;
        size_t size, n_apps;
        _cleanup_free_ char *apps_body = fixture("apps.json", &size);

        take_round();
        ck_assert_int_eq(yarn_model_job_records(model, &records, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_uint_eq(records[0].id, 1);
        ck_assert_int_eq(records[0].state, STORE_JOB_RUNNING);
        ck_assert_str_eq(records[0].app, APP);
        ck_assert_str_eq(records[0].name, "streamjob3397353295179246494.jar");
        ck_assert_str_eq(records[0].user, "root");
        ck_assert_str_eq(records[0].pool, "root.default");
        ck_assert_uint_eq(records[0].n_maps, 6);
        ck_assert_uint_eq(records[0].maps_done, 5);
        ck_assert_uint_eq(records[0].n_reduces, 1);
        ck_assert_uint_eq(records[0].reduces_done, 0);
        ck_assert_uint_eq(records[0].submitted, 1795772850975 * MS);
        ck_assert_uint_eq(records[0].finished, 0);
        store_jobs_free(records, n);

        yarn_model_forget(model, yarn_model_job(model, APP), &ended, 0);
        ck_assert_ptr_null(yarn_model_job(model, APP));
        ck_assert_int_eq(yarn_model_job_record(model, 1, &r), 0);
        ck_assert_int_eq(r.state, STORE_JOB_SUCCEEDED);
        ck_assert_uint_eq(r.maps_done, 6);
        ck_assert_uint_eq(r.reduces_done, 1);
        ck_assert_uint_eq(r.finished, 1795772900000 * MS);
        ck_assert_str_eq(r.message, "YARN application " APP ": FINISHED, final status SUCCEEDED");
        store_job_clear(&r);
        ck_assert_int_eq(yarn_model_job_record(model, 2, &r), -ENOENT);

        /* Killed is cancelled. */
        ended = (YarnApp){ .state = YARN_APP_KILLED, .final_status = YARN_FINAL_KILLED };
        ck_assert_int_eq(yarn_model_new(&(YarnModelConfig){ .container_mb = 256,
                                                            .container_vcores = 1,
                                                            .first_job = 42 },
                                        &later),
                         0);
        ck_assert_int_eq(
                yarn_decode_apps(apps_body, strlen(apps_body), &apps, &n_apps, why, sizeof(why)),
                0);
        ck_assert_int_eq(yarn_model_update_apps(later, apps, n_apps, 1, 1), 0);
        yarn_apps_free(apps, n_apps);
        ck_assert_uint_eq(yarn_model_job(later, APP)->id, 42);
        yarn_model_forget(later, yarn_model_job(later, APP), &ended, 7);
        ck_assert_int_eq(yarn_model_job_record(later, 42, &r), 0);
        ck_assert_int_eq(r.state, STORE_JOB_CANCELLED);
        ck_assert_uint_eq(r.finished, 7);
        ck_assert_uint_eq(r.maps_done, 0);
        store_job_clear(&r);
}
END_TEST

/* What a ResourceManager stops listing stays for a while: one that
 * restarted lists nothing until its NodeManagers and masters come back. */
START_TEST(test_listing_grace) {
        usec_t t = 100 * USEC_PER_SEC;
        char why[64];
        StoreJob r;
        YarnApp *none;
        size_t n;

        take_round();
        ck_assert_int_eq(yarn_decode_apps("{\"apps\":{}}", 11, &none, &n, why, sizeof(why)), 0);
        ck_assert_int_eq(yarn_model_update_nodes(model, cluster, NULL, 0, 0, t), 0);
        ck_assert_int_eq(yarn_model_update_apps(model, none, 0, t, t), 0);
        ck_assert_int_eq(node_named(NM0)->state, NODE_ALIVE);
        ck_assert_ptr_nonnull(yarn_model_job(model, APP));
        t += YARN_LISTING_GRACE / 2;
        ck_assert_int_eq(yarn_model_update_nodes(model, cluster, NULL, 0, 0, t), 0);
        ck_assert_int_eq(yarn_model_update_apps(model, none, 0, t, t), 0);
        ck_assert_ptr_nonnull(yarn_model_job(model, APP));
        /* Listed again: the same job, its grace over. */
        take_round();
        ck_assert_uint_eq(yarn_model_job(model, APP)->id, 1);
        ck_assert_uint_eq(yarn_model_job(model, APP)->missing_since, 0);
        t += YARN_LISTING_GRACE;
        ck_assert_int_eq(yarn_model_update_nodes(model, cluster, NULL, 0, 0, t), 0);
        ck_assert_int_eq(yarn_model_update_apps(model, none, 0, t, t), 0);
        t += YARN_LISTING_GRACE + 1;
        ck_assert_int_eq(yarn_model_update_nodes(model, cluster, NULL, 0, 0, t), 0);
        ck_assert_int_eq(yarn_model_update_apps(model, none, 0, t, t), 0);
        ck_assert_int_eq(node_named(NM0)->state, NODE_LOST);
        ck_assert_ptr_null(yarn_model_job(model, APP));
        /* Gone without a word: failed, and said so. */
        ck_assert_int_eq(yarn_model_job_record(model, 1, &r), 0);
        ck_assert_int_eq(r.state, STORE_JOB_FAILED);
        ck_assert_uint_eq(r.finished, t);
        ck_assert_ptr_nonnull(strstr(r.message, "stopped listing it"));
        store_job_clear(&r);
        yarn_apps_free(none, n);
}
END_TEST

/* ARIA on the recorded round, whose application has a deadline (its tag
 * flexslot-deadline=600) and five finished maps: the slots it needs are
 * advice, said once while they stay the same. */
START_TEST(test_advice) {
        YarnModelJob *j = take_round();
        Decisions d = { 0 };
        YarnAction actions[8];
        YarnSnapshot s;

        ck_assert_int_eq(yarn_snapshot_build(model, cluster, &s), 0);
        ck_assert_int_eq(
                policy_step(policy, &s.s,
                            &(PolicyStepArgs){ .now = j->jobs[0].started + 20 * USEC_PER_SEC,
                                               .flags = POLICY_STEP_ALL },
                            &d),
                0);
        ck_assert_uint_eq(d.n_quotas, 1);
        ck_assert_uint_le(yarn_actions_max(model, &d), ELEMENTSOF(actions));
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, 0, actions), 0);
        ck_assert_uint_eq(j->advised, d.quotas[0].slots[SLOT_MAP] + d.quotas[0].slots[SLOT_REDUCE]);
        ck_assert_uint_gt(j->advised, 0);
        decisions_done(&d);
        yarn_snapshot_done(&s);
}
END_TEST

/* ARIA's quota with [yarn] reservation-queue: a reservation of that many
 * containers from now to the deadline, asked once; the id the
 * ResourceManager gives is the request's; once it took it the application
 * moves into it, asked again after a failure YARN_MOVE_TRIES times in all;
 * a node is lent for the queues' refresh once; refused, the quota is
 * advice. */
START_TEST(test_reservation) {
        YarnModelJob *j = take_round();
        usec_t now = j->jobs[0].started + 20 * USEC_PER_SEC;
        Decisions d = { 0 };
        YarnAction actions[8];
        YarnReservationRequest req;
        YarnSnapshot s;
        unsigned containers;

        model->config.reservation_queue = "dedicated";
        ck_assert_int_eq(yarn_snapshot_build(model, cluster, &s), 0);
        ck_assert_int_eq(policy_step(policy, &s.s,
                                     &(PolicyStepArgs){ .now = now, .flags = POLICY_STEP_ALL }, &d),
                         0);
        ck_assert_uint_eq(d.n_quotas, 1);
        containers = d.quotas[0].slots[SLOT_MAP] + d.quotas[0].slots[SLOT_REDUCE];
        ck_assert_uint_gt(containers, 0);
        ck_assert_uint_le(yarn_actions_max(model, &d), ELEMENTSOF(actions));
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, now, actions), 1);
        ck_assert_int_eq(actions[0].kind, YARN_ACTION_RESERVE);
        ck_assert_str_eq(actions[0].app, APP);
        ck_assert_int_eq(j->reservation.state, YARN_RESERVE_ASKING);
        ck_assert_uint_eq(j->advised, 0);

        yarn_model_reservation_id(model, APP, strdup("reservation_1795772848039_0001"));
        yarn_model_reservation(model, j, j->reservation.id, &req);
        ck_assert_str_eq(req.id, "reservation_1795772848039_0001");
        ck_assert_str_eq(req.queue, "dedicated");
        ck_assert_str_eq(req.name, APP);
        ck_assert_uint_eq(req.containers, containers);
        ck_assert_uint_eq(req.memory_mb, 256);
        ck_assert_uint_eq(req.vcores, 1);
        ck_assert_uint_eq(req.arrival, now);
        ck_assert_uint_eq(req.deadline, (1795772850975 + 600 * 1000) * MS);

        /* Asked once, whatever later steps say. */
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, now, actions), 0);
        /* Taken: the application moves into it, at the next round, and
         * again after each failure until the last try. */
        yarn_model_reservation_taken(model, APP);
        for (unsigned try = 1; try <= YARN_MOVE_TRIES; try++) {
                ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, now, actions), 1);
                ck_assert_int_eq(actions[0].kind, YARN_ACTION_MOVE);
                ck_assert_str_eq(actions[0].app, APP);
                ck_assert_str_eq(actions[0].reservation, "reservation_1795772848039_0001");
                ck_assert_int_eq(j->reservation.state, YARN_RESERVE_MOVING);
                ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, now, actions), 0);
                if (try < YARN_MOVE_TRIES) {
                        yarn_model_reservation_move_failed(model, APP, "HTTP 404");
                        ck_assert_int_eq(j->reservation.state, YARN_RESERVE_TAKEN);
                }
        }
        yarn_model_reservation_held(model, APP);
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, now, actions), 0);
        ck_assert_uint_eq(j->advised, 0);
        /* The queues' refresh takes a running node no request is changing,
         * and one at a time until its answer. */
        for (size_t i = 0; i < model->n_nodes; i++) {
                YarnModelNode *mn = yarn_model_queue_refresh_node(model);

                ck_assert_ptr_nonnull(mn);
                ck_assert(mn->asking);
        }
        ck_assert_ptr_null(yarn_model_queue_refresh_node(model));
        yarn_model_capacity_done(model, model->nodes[1].id);
        ck_assert_ptr_eq(yarn_model_queue_refresh_node(model), &model->nodes[1]);
        for (size_t i = 0; i < model->n_nodes; i++)
                yarn_model_capacity_done(model, model->nodes[i].id);
        /* A move that fails on its last try: the reservation is unused,
         * the quota advice. */
        yarn_model_reservation_move_failed(model, APP, "HTTP 404");
        ck_assert_int_eq(j->reservation.state, YARN_RESERVE_REFUSED);
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, now, actions), 0);
        ck_assert_uint_eq(j->advised, containers);
        j->advised = 0;
        /* Refused: advice, said once. */
        yarn_model_reservation_refused(model, APP, "HTTP 500");
        ck_assert_int_eq(j->reservation.state, YARN_RESERVE_REFUSED);
        ck_assert_uint_eq(yarn_model_actions(model, cluster, &s, &d, now, actions), 0);
        ck_assert_uint_eq(j->advised, containers);
        /* An application gone meanwhile: nothing to take. */
        yarn_model_reservation_id(model, "application_1_1", strdup("reservation_1_1"));
        yarn_model_reservation_refused(model, "application_1_1", "gone");
        decisions_done(&d);
        yarn_snapshot_done(&s);
}
END_TEST

START_TEST(test_config) {
        static const struct {
                const char *text, *said;
        } bad[] = {
                { "vm1:8041", "'vm1:8041' is not NODE=VM" },
                { "vm1:8041=", "is not NODE=VM" },
                { "=worker1", "is not NODE=VM" },
                { "vm1=worker1 vm1=worker2", "'vm1' is listed twice" },
                { "vm1=a/b", "is not NODE=VM" },
                { "vm1=$(reboot)", "is not NODE=VM" },
        };
        ControllerConfig c = { 0 };
        ConfError err = { 0 };
        YarnNodeMapEntry *m = NULL;
        size_t n = 0;
        char why[256];

        ck_assert_int_eq(yarn_node_map_parse(" vm1.example:8041=worker1\tvm2=2222-ab+c ", &m, &n,
                                             why, sizeof(why)),
                         0);
        ck_assert_uint_eq(n, 2);
        ck_assert_str_eq(yarn_node_map_find(m, n, "vm1.example:8041", "vm1.example"), "worker1");
        ck_assert_str_eq(yarn_node_map_find(m, n, "vm2:8041", "vm2"), "2222-ab+c");
        ck_assert_ptr_null(yarn_node_map_find(m, n, "vm3:8041", "vm3"));
        yarn_node_map_free(m, n);
        ck_assert_int_eq(yarn_node_map_parse(NULL, &m, &n, why, sizeof(why)), 0);
        ck_assert_uint_eq(n, 0);
        yarn_node_map_free(m, n);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                ck_assert_int_eq(yarn_node_map_parse(bad[i].text, &m, &n, why, sizeof(why)),
                                 -EINVAL);
                ck_assert_msg(strstr(why, bad[i].said), "%s: %s", bad[i].text, why);
        }

        /* The reservable queue goes into a request's body: a name, or
         * refused at its line. */
        ck_assert_int_eq(conf_load_string(&controller_config_schema, "controller.ini",
                                          "[yarn]\nuser = x\nreservation-queue = a\"b\n", &c, &err),
                         -EINVAL);
        ck_assert_uint_eq(err.line, 3);
        ck_assert_str_eq(err.key, "reservation-queue");
        ck_assert_ptr_nonnull(strstr(err.message, "'a\"b' is not a queue name"));
        ck_assert_int_eq(conf_load_string(&controller_config_schema, "controller.ini",
                                          "[yarn]\nreservation-queue = root.dedicated\n", &c, &err),
                         0);
        ck_assert_str_eq(c.yarn_reservation_queue, "root.dedicated");
        conf_free(&controller_config_schema, &c);

        ck_assert(yarn_url_valid("http://rm.example:8088", why, sizeof(why)));
        ck_assert(yarn_url_valid("https://[::1]:8090/gateway/", why, sizeof(why)));
        ck_assert(!yarn_url_valid("ftp://rm", why, sizeof(why)));
        ck_assert(!yarn_url_valid("http://", why, sizeof(why)));
        ck_assert(!yarn_url_valid("http://rm:8088/?user.name=root", why, sizeof(why)));
        ck_assert(!yarn_url_valid("http://admin:secret@rm:8088", why, sizeof(why)));
        ck_assert_ptr_nonnull(strstr(why, "a user"));
}
END_TEST

Suite *suite_yarn_model(void) {
        Suite *s = suite_create("yarn_model");
        TCase *tc = tcase_create("round");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_nodes_on_their_vms);
        tcase_add_test(tc, test_snapshot);
        tcase_add_test(tc, test_step_kills_the_straggler);
        tcase_add_test(tc, test_kills_not_now);
        tcase_add_test(tc, test_resize_kill);
        tcase_add_test(tc, test_capacity);
        tcase_add_test(tc, test_set_slots);
        tcase_add_test(tc, test_listing_grace);
        tcase_add_test(tc, test_job_records);
        suite_add_tcase(s, tc);
        tc = tcase_create("advice");
        tcase_add_checked_fixture(tc, setup_aria, teardown);
        tcase_add_test(tc, test_advice);
        tcase_add_test(tc, test_reservation);
        suite_add_tcase(s, tc);
        tc = tcase_create("config");
        tcase_add_test(tc, test_config);
        suite_add_tcase(s, tc);
        return s;
}

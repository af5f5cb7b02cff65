/* SPDX-License-Identifier: MIT */
/* The policy core's API on hand-made snapshots: policy_new() and the
 * layers' settings, each scheduler and speculation rule through
 * policy_step() with exact expected decisions, heartbeat steps, and
 * policy_admit(). FlexSlot's slot manager is in check_flexslot.c, the VM
 * allocators in check_vm_alloc.c, the contracts every policy keeps in
 * check_contracts.c. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/context.h"
#include "policy/core/policy.h"
#include "tests.h"
#include "check_policy.h"

Fixture fx;

FlexSlotSettings *fx_flexslot(void) {
        return policy_config_settings(&fx.cfg, &flexslot_settings_schema);
}

LateSettings *fx_late(void) {
        return policy_config_settings(&fx.cfg, &late_settings_schema);
}

CoreSettings *fx_core(void) {
        return policy_config_settings(&fx.cfg, &core_settings_schema);
}

AriaSettings *fx_aria(void) {
        return policy_config_settings(&fx.cfg, &aria_settings_schema);
}

static void fx_config_reset(void) {
        policy_config_done(&fx.cfg);
        ck_assert_int_eq(policy_config_init(&fx.cfg), 0);
}

void fx_vm(uint32_t i) {
        fx.vms[i] = (Vm){ .id = 200 + i,
                          .host = 0,
                          .vcpus = 2,
                          .vcpus_max = 4,
                          .memory = 2 * GIB,
                          .memory_max = 4 * GIB,
                          .cpu_weight = 1024,
                          .measured_at = 1 };
}

void fx_cluster(unsigned n, unsigned map_slots, unsigned reduce_slots) {
        decisions_done(&fx.d);
        policy_free(fx.p);
        policy_config_done(&fx.cfg);
        memset(&fx, 0, sizeof(fx));
        fx_config_reset();
        /* Short enough for snapshots a few tens of seconds into a job. */
        fx_flexslot()->min_age = 10 * SEC;
        fx_flexslot()->new_task_window = 30 * SEC;
        fx.hosts[0] = (Host){ .id = 100, .pcpus = 8, .memory = 16 * GIB };
        fx.s.hosts = fx.hosts;
        fx.s.n_hosts = 1;
        for (unsigned i = 0; i < n; i++) {
                fx_vm(i);
                fx.nodes[i] = (Node){ .id = 300 + i,
                                      .vm = i,
                                      .slots = { map_slots, reduce_slots },
                                      .slot_memory = 200 * MIB,
                                      .measured_at = 1 };
        }
        fx.s.vms = fx.vms;
        fx.s.n_vms = n;
        fx.s.nodes = fx.nodes;
        fx.s.n_nodes = n;
        fx.s.jobs = fx.jobs;
        fx.s.tasks = fx.tasks;
        fx.s.attempts = fx.attempts;
}

uint32_t fx_job(usec_t submitted, uint32_t pool) {
        uint32_t j = (uint32_t)fx.s.n_jobs++;

        fx.jobs[j] = (Job){ .id = 400 + j, .submitted = submitted, .pool = pool };
        return j;
}

uint32_t fx_map(uint32_t job, uint32_t loc) {
        uint32_t t = (uint32_t)fx.s.n_tasks++;

        fx.tasks[t] = (Task){ .id = 500 + t,
                              .job = job,
                              .type = TASK_MAP,
                              .state = TASK_PENDING,
                              .input_size = 64 * MIB };
        if (loc != NO_INDEX) {
                fx.tasks[t].locations[0] = loc;
                fx.tasks[t].n_locations = 1;
        }
        return t;
}

uint32_t fx_reduce(uint32_t job) {
        uint32_t t = (uint32_t)fx.s.n_tasks++;

        fx.tasks[t] = (Task){ .id = 500 + t,
                              .job = job,
                              .type = TASK_REDUCE,
                              .state = TASK_PENDING,
                              .input_size = 64 * MIB };
        return t;
}

uint32_t fx_run(uint32_t task, uint32_t node, usec_t started, uint64_t bytes) {
        uint32_t a = (uint32_t)fx.s.n_attempts++;
        Task *t = &fx.tasks[task];

        t->state = TASK_RUNNING;
        fx.attempts[a] = (Attempt){ .id = 600 + a,
                                    .task = task,
                                    .node = node,
                                    .slot = slot_type_of(t->type),
                                    .slot_memory = fx.nodes[node].slot_memory,
                                    .started = started,
                                    .bytes_processed = bytes,
                                    .input_size = t->input_size,
                                    .progress = (double)bytes / (double)t->input_size,
                                    .cpu = 0.5 };
        return a;
}

void fx_done(uint32_t task) {
        fx.tasks[task].state = TASK_DONE;
}

JobProfile fx_profile(unsigned n, double map_s, double reduce_s, double shuffle_s) {
        JobProfile p = { 0 };

        for (unsigned i = 0; i < n; i++) {
                phase_stats_add(&p.phases[PROFILE_MAP], (usec_t)(map_s * SEC));
                if (reduce_s > 0) {
                        phase_stats_add(&p.phases[PROFILE_REDUCE], (usec_t)(reduce_s * SEC));
                        phase_stats_add(&p.phases[PROFILE_TYPICAL_SHUFFLE],
                                        (usec_t)(shuffle_s * SEC));
                }
        }
        return p;
}

uint32_t fx_slo_job(usec_t submitted, usec_t deadline, const JobProfile *p, unsigned maps,
                    const uint32_t *locs) {
        uint32_t j = fx_job(submitted, 0);

        fx.first_map[j] = (uint32_t)fx.s.n_tasks;
        fx.jobs[j].deadline = deadline;
        fx.jobs[j].stored_profile = p;
        for (unsigned i = 0; i < maps; i++)
                fx_map(j, locs ? locs[i] : NO_INDEX);
        fx.jobs[j].input_size = maps * 64 * MIB;
        fx.jobs[j].counts[TASK_MAP].total = maps;
        return j;
}

const SlotQuota *fx_quota_of(uint32_t job) {
        for (size_t i = 0; i < fx.d.n_quotas; i++)
                if (fx.d.quotas[i].job == job)
                        return &fx.d.quotas[i];
        return NULL;
}

unsigned fx_assigned_to(uint32_t job) {
        unsigned n = 0;

        for (size_t i = 0; i < fx.d.n_assignments; i++)
                n += fx.tasks[fx.d.assignments[i].task].job == job;
        return n;
}

int fx_step(unsigned flags, usec_t now) {
        _cleanup_(policy_freep) Policy *p = NULL;
        int r = policy_new_named(&fx.cfg, NULL, &p);

        if (r < 0)
                return r;
        return step(p, &fx.s, now, flags, &fx.d);
}

int fx_step_kept(unsigned flags, usec_t now) {
        if (!fx.p) {
                int r = policy_new_named(&fx.cfg, NULL, &fx.p);

                if (r < 0)
                        return r;
        }
        return step(fx.p, &fx.s, now, flags, &fx.d);
}

int step(Policy *p, const ClusterSnapshot *s, usec_t now, unsigned flags, Decisions *d) {
        return policy_step(p, s, &(PolicyStepArgs){ .now = now, .flags = flags }, d);
}

void fx_check_assignment(size_t i, uint32_t task, uint32_t node, bool local, bool speculative) {
        ck_assert_uint_gt(fx.d.n_assignments, i);
        ck_assert_uint_eq(fx.d.assignments[i].task, task);
        ck_assert_uint_eq(fx.d.assignments[i].node, node);
        ck_assert_int_eq(fx.d.assignments[i].local, local);
        ck_assert_int_eq(fx.d.assignments[i].speculative, speculative);
}

void fx_teardown(void) {
        decisions_done(&fx.d);
        fx.p = policy_free(fx.p);
        policy_config_done(&fx.cfg);
}

/* ---- API ---- */

/* policy_new_named()'s error, formatted. */
static const char *new_error(void) {
        static char text[512];
        Policy *p = NULL;
        ConfError err;

        ck_assert_int_eq(policy_new_named(&fx.cfg, &err, &p), -EINVAL);
        ck_assert_ptr_null(p);
        conf_error_format(&err, text, sizeof(text));
        return text;
}

/* A bad name or setting of the layers in use names its key, and the known
 * names or the key's range in the configuration's units. */
START_TEST(test_policy_new_rejects) {
        Policy *p = NULL;

        fx_config_reset();
        fx.cfg.scheduler = "nope";
        ck_assert_str_eq(new_error(), "[policy] scheduler: unknown policy 'nope' (one of: fifo, "
                                      "fair, aria, deadline, ras)");
        fx_config_reset();
        fx.cfg.slot_manager = "flexslot";
        fx_flexslot()->lambda = 2;
        ck_assert_str_eq(new_error(), "[policy] lambda: value '2' out of range [0, 1]");
        fx_config_reset();
        fx.cfg.slot_manager = "flexslot";
        fx_flexslot()->settle = 2 * USEC_PER_HOUR;
        ck_assert_str_eq(new_error(), "[policy] settle: value '2h' out of range [0, 1h]");
        fx_config_reset();
        fx.cfg.slot_manager = "flexslot";
        fx_flexslot()->min_map_slots = 5;
        fx_flexslot()->max_map_slots = 4;
        ck_assert_str_eq(new_error(), "[policy] min_map_slots: 5 is greater than max_map_slots 4");
        fx_config_reset();
        fx_core()->vm_memory_reserve = 8192 * GIB;
        ck_assert_str_eq(new_error(),
                         "[policy] vm_memory_reserve: value '8T' out of range [0, 4T]");
        /* The settings of a layer not in use are not the Policy's. */
        fx_config_reset();
        fx_flexslot()->lambda = 2;
        ck_assert_int_eq(policy_new_named(&fx.cfg, NULL, &p), 0);
        p = policy_free(p);
        ck_assert_ptr_null(job_scheduler_ops_find(NULL));
        ck_assert_str_eq(vm_allocator_ops_find("demand")->name, "demand");
}
END_TEST

START_TEST(test_step_rejects_bad_input) {
        fx_cluster(1, 1, 0);
        ck_assert_int_eq(fx_step(1u << 7, 10 * SEC), -EINVAL);
        fx.nodes[0].vm = 5;
        ck_assert_int_eq(fx_step(POLICY_STEP_ALL, 10 * SEC), -EINVAL);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
}
END_TEST

START_TEST(test_empty_cluster) {
        const char *const slot_managers[] = { "static", "flexslot" };

        for (size_t i = 0; i < ELEMENTSOF(slot_managers); i++) {
                fx_cluster(0, 0, 0);
                fx.s.n_hosts = 0;
                fx.cfg.scheduler = "fair";
                fx.cfg.slot_manager = slot_managers[i];
                fx.cfg.speculation = "late";
                fx.cfg.vm_allocator = "flexslot";
                fx_flexslot()->unlimited_slots = true;
                ck_assert_int_eq(fx_step(POLICY_STEP_ALL, 10 * SEC), 0);
                ck_assert_uint_eq(fx.d.n_assignments + fx.d.n_kills + fx.d.n_slot_changes +
                                          fx.d.n_vm_targets + fx.d.n_stragglers,
                                  0);
        }
}
END_TEST

/* ---- FIFO ---- */

START_TEST(test_fifo_order_and_locality) {
        uint32_t a, b, a0, a1, b0;

        fx_cluster(2, 2, 0);
        a = fx_job(10 * SEC, 0);
        b = fx_job(5 * SEC, 0);
        a0 = fx_map(a, 1);
        a1 = fx_map(a, 0);
        b0 = fx_map(b, 1);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 20 * SEC), 0);
        /* Node 0: the older job B first, though its map is elsewhere; then A's
         * local map. Node 1: A's remaining map. */
        ck_assert_uint_eq(fx.d.n_assignments, 3);
        fx_check_assignment(0, b0, 0, false, false);
        fx_check_assignment(1, a1, 0, true, false);
        fx_check_assignment(2, a0, 1, true, false);
        ck_assert_uint_eq(fx.d.assignments[0].slot_memory, 200 * MIB);
}
END_TEST

START_TEST(test_fifo_prefers_local_within_job) {
        uint32_t j, t0, t1;

        fx_cluster(2, 1, 0);
        j = fx_job(1 * SEC, 0);
        t0 = fx_map(j, 1);
        t1 = fx_map(j, 0);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 2 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 2);
        fx_check_assignment(0, t1, 0, true, false);
        fx_check_assignment(1, t0, 1, true, false);
}
END_TEST

START_TEST(test_fifo_no_over_assignment) {
        uint32_t j, running;

        fx_cluster(1, 2, 0);
        j = fx_job(1 * SEC, 0);
        running = fx_map(j, 0);
        fx_run(running, 0, 1 * SEC, 0);
        fx_map(j, 0);
        fx_map(j, 0);
        fx_map(j, 0);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 2 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        /* A blacklisted node gets nothing new. */
        fx.nodes[0].state = NODE_BLACKLISTED;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 2 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
}
END_TEST

/* Only an alive node gets tasks; a blacklisted one keeps what it runs. */
START_TEST(test_lost_and_blacklisted_nodes) {
        Assignment to_lost = { .task = 2, .node = 1, .type = TASK_MAP };
        Decisions d = { .assignments = &to_lost, .n_assignments = 1 };
        uint32_t j;

        fx_cluster(3, 2, 0);
        j = fx_job(1 * SEC, 0);
        fx_run(fx_map(j, 2), 2, 1 * SEC, 0);
        for (int i = 0; i < 5; i++)
                fx_map(j, NO_INDEX);
        fx.nodes[1].state = NODE_LOST;
        fx.nodes[2].state = NODE_BLACKLISTED;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 2 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 2);
        fx_check_assignment(0, 1, 0, false, false);
        fx_check_assignment(1, 2, 0, false, false);
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &d), -EBADMSG);
        to_lost.node = 2;
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &d), -EBADMSG);
        to_lost.node = 0;
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &d), 0);
}
END_TEST

START_TEST(test_reduce_slowstart) {
        uint32_t j, m0, r0;

        fx_cluster(1, 0, 1);
        j = fx_job(1 * SEC, 0);
        m0 = fx_map(j, 0);
        fx_map(j, 0);
        r0 = fx_reduce(j);
        /* No map done: 0 < 0.05 * 2. */
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 2 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
        fx_done(m0);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 2 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        fx_check_assignment(0, r0, 0, false, false);
        ck_assert_int_eq(fx.d.assignments[0].type, TASK_REDUCE);
}
END_TEST

/* ---- Fair ---- */

START_TEST(test_fair_max_min_pools) {
        uint32_t a, b, c;

        fx_cluster(1, 4, 0);
        fx.cfg.scheduler = "fair";
        a = fx_job(1 * SEC, 0);
        b = fx_job(2 * SEC, 1);
        c = fx_job(3 * SEC, 1);
        for (int i = 0; i < 5; i++) {
                fx_map(a, 0);
                fx_map(b, 0);
                fx_map(c, 0);
        }
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        /* Pools 0 and 1 share 4 slots 2:2, B and C split pool 1's 2: the
         * slots go A, B, C (furthest below share, then submission), then A. */
        ck_assert_uint_eq(fx.d.n_assignments, 4);
        ck_assert_uint_eq(fx.tasks[fx.d.assignments[0].task].job, a);
        ck_assert_uint_eq(fx.tasks[fx.d.assignments[1].task].job, b);
        ck_assert_uint_eq(fx.tasks[fx.d.assignments[2].task].job, c);
        ck_assert_uint_eq(fx.tasks[fx.d.assignments[3].task].job, a);
}
END_TEST

START_TEST(test_fair_small_demand_leaves_rest) {
        uint32_t a, b;

        /* A wants 1 slot in all: max-min gives B the other 3. */
        fx_cluster(1, 4, 0);
        fx.cfg.scheduler = "fair";
        a = fx_job(1 * SEC, 0);
        b = fx_job(2 * SEC, 1);
        fx_map(a, 0);
        for (int i = 0; i < 6; i++)
                fx_map(b, 0);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 4);
        ck_assert_uint_eq(fx.tasks[fx.d.assignments[0].task].job, a);
        for (int i = 1; i < 4; i++)
                ck_assert_uint_eq(fx.tasks[fx.d.assignments[i].task].job, b);
}
END_TEST

/* The wait is the scheduler's memory across steps, by job id. */
START_TEST(test_fair_delay_scheduling) {
        uint32_t x, a, a0;
        Job swap;

        fx_cluster(2, 1, 0);
        fx.cfg.scheduler = "fair";
        x = fx_job(1 * SEC, 0);
        fx_run(fx_map(x, 1), 1, 1 * SEC, 0); /* node 1, A's data, is busy */
        a = fx_job(2 * SEC, 0);
        a0 = fx_map(a, 1);

        /* Node 0 is free but not local: A starts waiting. */
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
        /* Still within the 5 s delay. */
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_ASSIGN, 104 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);

        /* Waited long enough: runs remotely, though the jobs changed
         * places in the snapshot. */
        swap = fx.jobs[x];
        fx.jobs[x] = fx.jobs[a];
        fx.jobs[a] = swap;
        fx.tasks[0].job = a;
        fx.tasks[a0].job = x;
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_ASSIGN, 105 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        fx_check_assignment(0, a0, 0, false, false);

        /* A local task ends the wait: the next one starts anew. */
        fx.attempts[0].node = 0;
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_ASSIGN, 106 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        fx_check_assignment(0, a0, 1, true, false);
        fx.attempts[0].node = 1;
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_ASSIGN, 107 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_ASSIGN, 112 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
}
END_TEST

/* ---- heartbeats ---- */

/* policy_new_named() with fx.cfg, then one assignment step for node's heartbeat. */
static int fx_beat(uint32_t node, usec_t now) {
        _cleanup_(policy_freep) Policy *p = NULL;
        PolicyStepArgs args = { .now = now,
                                .flags = POLICY_STEP_ASSIGN | POLICY_STEP_HEARTBEAT,
                                .node = node };
        int r = policy_new_named(&fx.cfg, NULL, &p);

        if (r < 0)
                return r;
        return policy_step(p, &fx.s, &args, &fx.d);
}

START_TEST(test_heartbeat_fills_only_its_node) {
        PolicyStepArgs beat1 = { .flags = POLICY_STEP_HEARTBEAT, .node = 1 };
        uint32_t j;

        fx_cluster(3, 2, 1);
        fx_core()->reduce_slowstart = 0;
        j = fx_job(1 * SEC, 0);
        for (int i = 0; i < 6; i++)
                fx_map(j, NO_INDEX);
        fx_reduce(j);
        ck_assert_int_eq(fx_beat(1, 2 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 3);
        for (size_t i = 0; i < fx.d.n_assignments; i++)
                ck_assert_uint_eq(fx.d.assignments[i].node, 1);
        ck_assert_int_eq(fx.d.assignments[2].type, TASK_REDUCE);
        /* A step of no heartbeat fills every node; as the output of node 1's
         * heartbeat, those decisions are refused. */
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 2 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 7);
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &fx.d), 0);
        ck_assert_int_eq(decisions_validate(&fx.s, &beat1, &fx.d), -EBADMSG);
        /* A heartbeat of a node the snapshot does not have. */
        ck_assert_int_eq(fx_beat(3, 2 * SEC), -EINVAL);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
}
END_TEST

/* Five nodes of two map slots: A (pool 0) runs 3 maps on nodes 1 and 2, B
 * (pool 1) runs 1 on node 3 and has one more pending, A six; node 0
 * heartbeats. Over the cluster's 10 slots B's demand of 2 is its share and
 * A gets the other 8: A is further below its share (3/8 against 1/2), then
 * level with B and submitted first (4/8), and gets both free slots. */
static void fair_heartbeat_fixture(void) {
        uint32_t a, b;

        fx_cluster(5, 2, 0);
        fx.cfg.scheduler = "fair";
        a = fx_job(1 * SEC, 0);
        b = fx_job(2 * SEC, 1);
        fx_run(fx_map(a, 1), 1, 1 * SEC, 0);
        fx_run(fx_map(a, 1), 1, 1 * SEC, 0);
        fx_run(fx_map(a, 2), 2, 1 * SEC, 0);
        fx_run(fx_map(b, 3), 3, 1 * SEC, 0);
        for (int i = 0; i < 6; i++)
                fx_map(a, 0);
        fx_map(b, 0);
}

START_TEST(test_heartbeat_fair_shares_whole_cluster) {
        fair_heartbeat_fixture();
        ck_assert_int_eq(fx_beat(0, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 2);
        for (size_t i = 0; i < 2; i++) {
                ck_assert_uint_eq(fx.d.assignments[i].node, 0);
                ck_assert_uint_eq(fx.tasks[fx.d.assignments[i].task].job, 0);
        }
        /* What a driver got when it hid the other nodes' free slots from the
         * step instead: 6 slots, A's share 4, so B (1/2 against 3/4) came
         * first. */
        for (uint32_t n = 1; n < 5; n++)
                fx.nodes[n].slots[SLOT_MAP] = n == 1 ? 2 : n == 4 ? 0 : 1;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_eq(fx.tasks[fx.d.assignments[0].task].job, 1);
}
END_TEST

/* ---- admission, quotas, placements, reservations ---- */

/* Today's schedulers have no admission test: every job is admitted. */
START_TEST(test_admit_by_default) {
        const Job job = { .id = 9,
                          .deadline = 50 * SEC,
                          .counts = { [TASK_MAP] = { .total = 4 } } };
        AdmitVerdict v = { .reason = "untouched" };
        _cleanup_(policy_freep) Policy *p = NULL;

        fx_cluster(2, 2, 1);
        fx_map(fx_job(1 * SEC, 0), 0);
        for (size_t i = 0; job_scheduler_table[i]; i++) {
                fx.cfg.scheduler = job_scheduler_table[i]->name;
                p = policy_free(p);
                ck_assert_int_eq(policy_new_named(&fx.cfg, NULL, &p), 0);
                ck_assert_int_eq(policy_admit(p, &fx.s, 10 * SEC, &job, 0, &v), 0);
                ck_assert(v.admit);
                ck_assert_str_eq(v.reason, "");
                ck_assert(policy_admits_all(p) == !job_scheduler_table[i]->admit);
                /* Only an admission test reads the snapshot. */
                ck_assert_int_eq(policy_admit(p, NULL, 10 * SEC, &job, 0, &v),
                                 policy_admits_all(p) ? 0 : -EINVAL);
                ck_assert_int_eq(policy_admit(p, &fx.s, 10 * SEC, &job, POLICY_STEP_HEARTBEAT, &v),
                                 -EINVAL);
        }
}
END_TEST

/* A toy schedulability test: a job needs a map slot for each map whose
 * deadline cannot wait, and the cluster has the free map slots it has. */
static int toy_admit(void *state, const void *settings, const CoreSettings *core,
                     const ClusterSnapshot *s, usec_t now, const Job *job, AdmitVerdict *ret) {
        unsigned free_slots = 0;

        for (size_t n = 0; n < s->n_nodes; n++)
                free_slots += s->nodes[n].slots[SLOT_MAP];
        for (size_t i = 0; i < s->n_attempts; i++)
                free_slots -= s->attempts[i].slot == SLOT_MAP;
        ret->slots_needed[SLOT_MAP] = job->counts[TASK_MAP].total;
        ret->slots_free[SLOT_MAP] = free_slots;
        ret->finish = now + 10 * SEC;
        ret->admit = ret->slots_needed[SLOT_MAP] <= free_slots;
        if (!ret->admit)
                snprintf(ret->reason, sizeof(ret->reason),
                         "the deadline needs %u map slots, %u are free",
                         ret->slots_needed[SLOT_MAP], free_slots);
        return 0;
}

/* It assigns nothing, and holds node 0's free map slot for job 0's first
 * task when toy_reserves. */
static bool toy_reserves;

static int toy_assign(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        return toy_reserves ? context_reserve(ctx, 0, SLOT_MAP, 0, 0) : 0;
}

static const JobSchedulerOps toy_scheduler = {
        .name = "toy",
        .assign = toy_assign,
        .admit = toy_admit,
};

static int toy_policy(Policy **ret) {
        const PolicyLayers layers = {
                .scheduler = &toy_scheduler,
                .slot_manager = slot_manager_ops_find("static"),
                .speculation = speculation_ops_find("hadoop"),
                .vm_allocator = vm_allocator_ops_find("static"),
        };

        return policy_new(&layers, fx_core(), NULL, ret);
}

START_TEST(test_admit_refusal) {
        Job job = { .id = 9, .deadline = 50 * SEC, .counts = { [TASK_MAP] = { .total = 4 } } };
        AdmitVerdict v = { 0 }, before;
        _cleanup_(policy_freep) Policy *p = NULL;
        ClusterSnapshot bad;
        Fixture copy;

        fx_cluster(2, 2, 0);
        fx_run(fx_map(fx_job(1 * SEC, 0), 0), 1, 1 * SEC, 0);
        ck_assert_int_eq(toy_policy(&p), 0);
        ck_assert(!policy_admits_all(p));
        memcpy(&copy, &fx, sizeof(fx));
        ck_assert_int_eq(policy_admit(p, &fx.s, 10 * SEC, &job, 0, &v), 0);
        ck_assert(!v.admit);
        ck_assert_str_eq(v.reason, "the deadline needs 4 map slots, 3 are free");
        ck_assert_uint_eq(v.slots_needed[SLOT_MAP], 4);
        ck_assert_uint_eq(v.slots_free[SLOT_MAP], 3);
        ck_assert_uint_eq(v.finish, 20 * SEC);
        ck_assert(memcmp(&copy, &fx, sizeof(fx)) == 0);
        job.counts[TASK_MAP].total = 3;
        ck_assert_int_eq(policy_admit(p, &fx.s, 10 * SEC, &job, 0, &v), 0);
        ck_assert(v.admit);
        /* A snapshot is checked unless the driver vouches for it: this one
         * lost the task its attempt runs. */
        bad = fx.s;
        bad.n_tasks = 0;
        ck_assert_int_eq(policy_admit(p, &bad, 10 * SEC, &job, 0, &v), -EINVAL);
        ck_assert_int_eq(policy_admit(p, &bad, 10 * SEC, &job, POLICY_STEP_TRUSTED, &v), 0);
        ck_assert(v.admit);
        /* A job that makes no sense is an error, and the verdict stays. */
        before = v;
        job.counts[TASK_MAP].done = 5;
        ck_assert_int_eq(policy_admit(p, &fx.s, 10 * SEC, &job, 0, &v), -EINVAL);
        ck_assert(memcmp(&before, &v, sizeof(v)) == 0);
}
END_TEST

/* Node 0 has one map slot free, node 1 one beside the old map of job 0
 * that Hadoop's speculation backs up, never on its own node: into node
 * 0's slot, unless the toy scheduler holds that for map 0. */
START_TEST(test_reservation_holds_slot) {
        _cleanup_(policy_freep) Policy *p = NULL;
        uint32_t j;

        fx_cluster(2, 2, 0);
        fx.nodes[0].slots[SLOT_MAP] = 1;
        j = fx_job(1 * SEC, 0);
        fx_map(j, 0);
        fx_run(fx_map(j, 1), 1, 0, 1 * MIB);
        fx_done(fx_map(j, 1));
        ck_assert_int_eq(toy_policy(&p), 0);
        ck_assert_int_eq(step(p, &fx.s, 100 * SEC, POLICY_STEP_ASSIGN, &fx.d), 0);
        ck_assert_uint_eq(fx.d.n_reservations, 0);
        fx_check_assignment(0, 1, 0, false, true);
        toy_reserves = true;
        ck_assert_int_eq(step(p, &fx.s, 100 * SEC, POLICY_STEP_ASSIGN, &fx.d), 0);
        ck_assert_uint_eq(fx.d.n_reservations, 1);
        ck_assert_uint_eq(fx.d.reservations[0].task, 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
}
END_TEST

/* Two nodes of two map slots and one reduce slot; node 1 is blacklisted.
 * Job 0's map 0 is pending, map 1 runs on node 0, map 2 is done. */
typedef struct NewDecisionCase {
        const char *what;
        SlotQuota quotas[2];
        size_t n_quotas;
        Placement placement;
        size_t n_placements;
        Reservation reservation;
        size_t n_reservations;
        bool heartbeat; /* of node 0 */
        bool valid;
} NewDecisionCase;

#define Q(j_, m_, r_)                                                             \
        {                                                                         \
                .job = (j_), .slots = { [SLOT_MAP] = (m_), [SLOT_REDUCE] = (r_) } \
        }
#define PL(n_, s_, c_) \
        { .node = (n_), .slot = (s_), .job = 0, .type = TASK_MAP, .count = (c_) }
#define RV(n_, s_, t_) \
        { .node = (n_), .slot = (s_), .job = 0, .task = (t_) }

static const NewDecisionCase new_decision_cases[] = {
        { "a quota", { Q(0, 3, 1) }, 1, .valid = true },
        { "a quota of no job", { Q(1, 3, 1) }, 1 },
        { "two quotas of one job", { Q(0, 3, 1), Q(0, 1, 0) }, 2 },
        { "both map slots of node 0", .placement = PL(0, SLOT_MAP, 2), .n_placements = 1,
          .valid = true },
        { "placement on no node", .placement = PL(2, SLOT_MAP, 1), .n_placements = 1 },
        { "placement of no job", .placement = { .node = 0, .job = 1, .count = 1 },
          .n_placements = 1 },
        { "placement of no task type",
          .placement = { .node = 0, .job = 0, .type = _TASK_TYPE_MAX, .count = 1 },
          .n_placements = 1 },
        { "more job slots than slots", .placement = PL(0, SLOT_MAP, 3), .n_placements = 1 },
        { "no slot at all", .placement = PL(0, SLOT_REDUCE, 0), .n_placements = 1 },
        { "job slots on a blacklisted node", .placement = PL(1, SLOT_MAP, 1), .n_placements = 1 },
        { "the free map slot of node 0 for map 0", .reservation = RV(0, SLOT_MAP, 0),
          .n_reservations = 1, .valid = true },
        { "a slot for any task of job 0", .reservation = RV(0, SLOT_REDUCE, NO_INDEX),
          .n_reservations = 1, .valid = true },
        { "in node 0's heartbeat", .reservation = RV(0, SLOT_REDUCE, NO_INDEX), .n_reservations = 1,
          .heartbeat = true, .valid = true },
        { "a reservation on no node", .reservation = RV(2, SLOT_MAP, 0), .n_reservations = 1 },
        { "a reservation of no slot type", .reservation = RV(0, _SLOT_TYPE_MAX, 0),
          .n_reservations = 1 },
        { "a reservation of no job", .reservation = { .node = 0, .job = 1, .task = NO_INDEX },
          .n_reservations = 1 },
        { "a reservation for no task", .reservation = RV(0, SLOT_MAP, 7), .n_reservations = 1 },
        { "a reservation for a running task", .reservation = RV(0, SLOT_MAP, 1),
          .n_reservations = 1 },
        { "a reservation on a blacklisted node", .reservation = RV(1, SLOT_REDUCE, NO_INDEX),
          .n_reservations = 1 },
        { "a reservation of a slot the assignment took", .reservation = RV(0, SLOT_MAP, 0),
          .n_reservations = 1 },
};

START_TEST(test_new_decisions_validate) {
        const NewDecisionCase *c = &new_decision_cases[_i];
        SlotQuota quotas[2] = { c->quotas[0], c->quotas[1] };
        Placement placement = c->placement;
        Reservation reservation = c->reservation;
        Assignment take = { .task = 0, .node = 0, .type = TASK_MAP };
        Decisions d = { .quotas = quotas,
                        .n_quotas = c->n_quotas,
                        .placements = &placement,
                        .n_placements = c->n_placements,
                        .reservations = &reservation,
                        .n_reservations = c->n_reservations };
        PolicyStepArgs beat0 = { .flags = POLICY_STEP_HEARTBEAT, .node = 0 };
        uint32_t j;

        fx_cluster(2, 2, 1);
        fx.nodes[1].state = NODE_BLACKLISTED;
        j = fx_job(1 * SEC, 0);
        fx_map(j, 0);
        fx_run(fx_map(j, 0), 0, 0, 0);
        fx_done(fx_map(j, 0));
        if (strstr(c->what, "the assignment took")) {
                d.assignments = &take;
                d.n_assignments = 1;
        }
        ck_assert_msg(decisions_validate(&fx.s, c->heartbeat ? &beat0 : NULL, &d) ==
                              (c->valid ? 0 : -EBADMSG),
                      "%s", c->what);
}
END_TEST

/* ---- speculation ---- */

START_TEST(test_speculation_hadoop) {
        uint32_t j, t0, t1, t2;

        fx_cluster(3, 1, 0);
        fx.cfg.speculation = "hadoop";
        j = fx_job(1 * SEC, 0);
        t0 = fx_map(j, 0);
        t1 = fx_map(j, 0);
        t2 = fx_map(j, 2);
        fx_done(t0);
        fx_run(t1, 0, 10 * SEC, 58 * MIB);
        fx_run(t2, 1, 10 * SEC, 19 * MIB);
        /* Progress 1, 0.906, 0.297: average 0.734; only t2 is 0.2 below. */
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 70 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        fx_check_assignment(0, t2, 2, true, true);
        /* 59 s old: too young. */
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 69 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
        /* Already backed up: no second copy. */
        fx_run(t2, 2, 60 * SEC, 0);
        fx.attempts[2].speculative = true;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 80 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
}
END_TEST

/* A done map the snapshot leaves out, as the live controller's does,
 * counts as progress 1 through its job's counts: 1, 0.5, 0.25 average
 * 0.583, so the 0.25 is backed up; 0.5 and 0.25 alone would not be. */
START_TEST(test_speculation_hadoop_done_left_out) {
        uint32_t j, t1, t2;

        fx_cluster(3, 1, 0);
        fx.cfg.speculation = "hadoop";
        j = fx_job(1 * SEC, 0);
        t1 = fx_map(j, 0);
        t2 = fx_map(j, 2);
        fx.jobs[j].counts[TASK_MAP] = (TaskCounts){ .total = 3, .done = 1, .running = 2 };
        fx_run(t1, 0, 10 * SEC, 32 * MIB);
        fx_run(t2, 1, 10 * SEC, 16 * MIB);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 70 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        fx_check_assignment(0, t2, 2, true, true);
}
END_TEST

/* The scheduler starts the pending map and the speculation layer backs up
 * the slow one: each decision is counted under the layer that made it. */
START_TEST(test_decisions_counted_by_layer) {
        const DecisionCounts *by = fx.d.by_layer;
        uint32_t j, t0, t1, t2;

        fx_cluster(4, 1, 0);
        fx.cfg.speculation = "hadoop";
        j = fx_job(1 * SEC, 0);
        t0 = fx_map(j, 0);
        t1 = fx_map(j, 1);
        t2 = fx_map(j, 2);
        fx_map(j, 3);
        fx_done(t0);
        fx_run(t1, 0, 10 * SEC, 58 * MIB);
        fx_run(t2, 1, 10 * SEC, 19 * MIB);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 70 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 2);
        ck_assert_uint_eq(by[POLICY_LAYER_SCHEDULER].assignments, 1);
        ck_assert_uint_eq(by[POLICY_LAYER_SPECULATION].assignments, 1);
        ck_assert_uint_eq(by[POLICY_LAYER_SLOT_MANAGER].assignments, 0);
        ck_assert_uint_eq(by[POLICY_LAYER_VM_ALLOCATOR].assignments, 0);
        ck_assert(!fx.d.assignments[0].speculative && fx.d.assignments[1].speculative);
        /* A step of other layers starts the counts again. */
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 70 * SEC), 0);
        ck_assert_uint_eq(by[POLICY_LAYER_SCHEDULER].assignments, 0);
        ck_assert_uint_eq(by[POLICY_LAYER_SPECULATION].assignments, 0);
        ck_assert_str_eq(policy_layer_kind_to_string(POLICY_LAYER_SLOT_MANAGER), "slot-manager");
        ck_assert_ptr_null(policy_layer_kind_to_string(_POLICY_LAYER_MAX));
}
END_TEST

/* Seven done maps and three running, on four nodes of one map slot: the
 * third, on node 2, at progress p. Its job's mean less 0.2 is then
 * (7 + 0.9 + 0.95 + p) / 10 - 0.2, which p is below for p under 0.761 (and
 * the other two never are). */
static void hadoop_mean_fixture(double p) {
        const double progress[] = { 0.9, 0.95, p };
        uint32_t j, first;

        fx_cluster(4, 1, 0);
        fx.cfg.speculation = "hadoop";
        j = fx_job(1 * SEC, 0);
        first = (uint32_t)fx.s.n_tasks;
        for (uint32_t i = 0; i < 10; i++)
                fx_map(j, 3);
        for (uint32_t i = 0; i < 7; i++)
                fx_done(first + i);
        for (uint32_t i = 0; i < 3; i++) {
                fx_run(first + 7 + i, i, 0, 32 * MIB);
                fx.attempts[i].progress = progress[i];
        }
        fx.jobs[j].counts[TASK_MAP] = (TaskCounts){ .total = 10, .done = 7, .running = 3 };
        fx.jobs[j].tasks = (JobTasks){ .first = first,
                                       .count = 10,
                                       .first_pending = { first + 10, first + 10 } };
}

/* With the job's tasks kept the mean is bounded from its counts and the
 * running tasks' progress, and the pass over every task made only near the
 * threshold: the backups are those of the pass, far below the mean, far
 * above it and at it (where only the exact sum decides), whether the driver
 * counts the attempts or not. */
START_TEST(test_speculation_hadoop_kept) {
        const double at = 0.685 / 0.9; /* the mean less 0.2, give or take rounding */
        const struct {
                double p;
                int backups; /* -1: whatever the pass says */
        } cases[] = { { 0.1, 1 },
                      { 0.75, 1 },
                      { 0.77, 0 },
                      { 0.99, 0 },
                      { at, -1 },
                      { nextafter(at, 0), -1 },
                      { nextafter(at, 1), -1 } };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                size_t without;

                hadoop_mean_fixture(cases[i].p);
                ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 70 * SEC), 0);
                without = fx.d.n_assignments;
                if (cases[i].backups >= 0)
                        ck_assert_uint_eq(without, (size_t)cases[i].backups);
                fx.s.job_tasks_kept = true;
                ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 70 * SEC), 0);
                ck_assert_msg(fx.d.n_assignments == without, "progress %.17g: %zu backups, %zu",
                              cases[i].p, fx.d.n_assignments, without);
                if (without > 0)
                        fx_check_assignment(0, 9, 3, true, true);
                /* The attempts counted by the driver: a task's only one
                 * adds its progress as the bounds' pass meets it. */
                {
                        NodeAttempts counted[4] = { 0 }, total = { 0 };

                        for (size_t a = 0; a < fx.s.n_attempts; a++)
                                attempt_counted(&counted[fx.attempts[a].node], &total,
                                                &fx.tasks[fx.attempts[a].task], fx.attempts[a].slot,
                                                fx.attempts[a].slot_memory, true);
                        fx.s.node_attempts = counted;
                        fx.s.attempts_total = &total;
                        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 70 * SEC), 0);
                        ck_assert_msg(fx.d.n_assignments == without,
                                      "progress %.17g, counted: %zu backups, %zu", cases[i].p,
                                      fx.d.n_assignments, without);
                        fx.s.node_attempts = NULL;
                        fx.s.attempts_total = NULL;
                }
        }
}
END_TEST

static uint32_t late_tasks[5];

/* Five maps on five nodes with two slots, progress rates per second
 * 0.008, 0.006, 0.001, 0.002, 0.007 at t = 100 s. */
static void late_fixture(void) {
        const double progress[] = { 0.8, 0.6, 0.1, 0.2, 0.7 };
        uint32_t j;

        fx_cluster(5, 2, 0);
        fx.cfg.speculation = "late";
        j = fx_job(1 * SEC, 0);
        for (uint32_t i = 0; i < 5; i++) {
                late_tasks[i] = fx_map(j, (i + 1) % 5);
                fx_run(late_tasks[i], i, 0, (uint64_t)(progress[i] * 64 * MIB));
                fx.attempts[i].progress = progress[i];
        }
}

START_TEST(test_speculation_late) {
        late_fixture();
        /* SlowTaskThreshold: rank 1 of 5, 0.002: only task 2 is below. Its
         * backup goes to node 3, which holds its split and is not slow (node
         * 2 is). The cap, 0.1 x 10 slots, allows one backup. */
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        fx_check_assignment(0, late_tasks[2], 3, true, true);
}
END_TEST

START_TEST(test_speculation_late_order_and_cap) {
        late_fixture();
        fx_late()->late_slow_task_pct = 0.5;
        /* Candidates 2 (900 s left) and 3 (400 s left); the cap of one backup
         * takes the longest first. */
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        ck_assert_uint_eq(fx.d.assignments[0].task, late_tasks[2]);
        /* A cap of three slots: both, longest first, each on the node that
         * holds its split. */
        fx_late()->late_spec_cap = 0.3;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 2);
        fx_check_assignment(0, late_tasks[2], 3, true, true);
        fx_check_assignment(1, late_tasks[3], 4, true, true);
}
END_TEST

/* ---- settings ---- */

/* What every schema of the registry keeps: keys in [policy], each with a
 * meaning and no string (policy_new() copies settings bytewise), a default
 * in its range that validate accepts, and a key names one knob across every
 * schema (conf_load_parts() refuses a key two schemas declare). */
START_TEST(test_settings_schemas) {
        _cleanup_free_ ConfPart *parts = NULL;
        PolicyConfig c;
        ConfError err;

        ck_assert_int_eq(policy_config_init(&c), 0);
        ck_assert_ptr_eq(c.schemas[0], &core_settings_schema);
        ck_assert_uint_ge(c.n_settings, 6);
        ck_assert_ptr_nonnull(policy_config_settings(&c, slot_manager_flexslot.settings));
        ck_assert_ptr_nonnull(policy_config_settings(&c, &vm_allocator_settings_schema));
        for (size_t i = 0; i < c.n_settings; i++) {
                const ConfSchema *schema = c.schemas[i];

                for (size_t k = 0; k < schema->n_keys; k++) {
                        const ConfKey *key = &schema->keys[k];

                        ck_assert_str_eq(key->section, POLICY_SECTION);
                        ck_assert_msg(key->doc && key->doc[0], "%s: no meaning", key->key);
                        ck_assert_msg(key->default_value, "%s: no default", key->key);
                        ck_assert_int_ne(key->type, CONF_STRING);
                }
                /* Loaded from the default texts, and checked as stored. */
                ck_assert_msg(conf_check(schema, c.settings[i], &err) == 0, "%s: %s", err.key,
                              err.message);
        }
        parts = calloc(c.n_settings, sizeof(ConfPart));
        ck_assert_ptr_nonnull(parts);
        policy_config_parts(&c, parts);
        ck_assert_int_eq(conf_load_parts(parts, c.n_settings, "empty", "", NULL, 0, &err), 0);
        policy_config_done(&c);
}
END_TEST

/* Each numeric key of each schema, just outside its range, is refused by
 * the Policy that would read it, with the key and its range. */
START_TEST(test_settings_out_of_range) {
        PolicyConfig c;
        size_t checked = 0;

        ck_assert_int_eq(policy_config_init(&c), 0);
        for (size_t i = 0; i < c.n_settings; i++) {
                const ConfSchema *schema = c.schemas[i];
                _cleanup_free_ void *bad = malloc(schema->size);

                ck_assert_ptr_nonnull(bad);
                for (size_t k = 0; k < schema->n_keys; k++) {
                        const ConfKey *key = &schema->keys[k];
                        char *field = (char *)bad + key->offset, want[256], got[512];
                        char range[CONF_RANGE_MAX];
                        ConfError err;

                        memcpy(bad, c.settings[i], schema->size);
                        if (key->type == CONF_DOUBLE)
                                *(double *)(void *)field = key->dmax * 2 + 1;
                        else if (key->type == CONF_INT || key->type == CONF_DURATION ||
                                 key->type == CONF_SIZE)
                                *(int64_t *)(void *)field = key->max + 1;
                        else
                                continue;
                        ck_assert_int_eq(conf_check(schema, bad, &err), -EINVAL);
                        conf_error_format(&err, got, sizeof(got));
                        snprintf(want, sizeof(want), "[policy] %s: value '", key->key);
                        ck_assert_msg(strncmp(got, want, strlen(want)) == 0, "%s", got);
                        snprintf(want, sizeof(want), "' out of range %s",
                                 conf_key_range(key, range, sizeof(range)));
                        ck_assert_msg(strstr(got, want), "%s", got);
                        checked++;
                }
        }
        ck_assert_uint_ge(checked, 20);
        policy_config_done(&c);
}
END_TEST

/* A configuration outside the simulator (the controller's) loads the core's
 * keys and those of the layers it names, from the layers' own schemas, and
 * a Policy of those layers runs with them. */
START_TEST(test_settings_of_named_layers) {
        static const char text[] = "[policy]\ncontrol_interval = 5s\nlocality_delay = 1s\n"
                                   "late_spec_cap = 0.5\n";
        const SpeculationOps *late = speculation_ops_find("late");
        const JobSchedulerOps *fair = job_scheduler_ops_find("fair");
        CoreSettings core = { 0 };
        FairSettings fair_set = { 0 };
        LateSettings late_set = { 0 };
        const ConfPart parts[] = {
                { &core_settings_schema, &core, NULL },
                { fair->settings, &fair_set, NULL },
                { late->settings, &late_set, NULL },
        };
        const PolicyLayers layers = { fair,      slot_manager_ops_find("static"),
                                      late,      vm_allocator_ops_find("static"),
                                      &fair_set, NULL,
                                      &late_set, NULL };
        _cleanup_(policy_freep) Policy *p = NULL;
        char got[512];
        ConfError err;

        ck_assert_int_eq(
                conf_load_parts(parts, ELEMENTSOF(parts), "controller.ini", text, NULL, 0, &err),
                0);
        ck_assert_uint_eq(core.control_interval, 5 * SEC);
        ck_assert_uint_eq(fair_set.locality_delay, 1 * SEC);
        ck_assert_double_eq(late_set.late_spec_cap, 0.5);
        ck_assert_double_eq(late_set.late_slow_task_pct, 0.25);
        ck_assert_int_eq(policy_new(&layers, &core, &err, &p), 0);
        /* A knob of a layer it does not run is no key of its own. */
        ck_assert_int_eq(conf_load_parts(parts, ELEMENTSOF(parts), "controller.ini",
                                         "[policy]\nlambda = 0.1\n", NULL, 0, &err),
                         -EINVAL);
        conf_error_format(&err, got, sizeof(got));
        ck_assert_str_eq(got, "controller.ini:2: [policy] lambda: unknown key");
}
END_TEST

Suite *suite_policy(void) {
        Suite *s = suite_create("policy");
        TCase *tc;

        tc = tcase_create("api");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_policy_new_rejects);
        tcase_add_test(tc, test_step_rejects_bad_input);
        tcase_add_test(tc, test_empty_cluster);
        suite_add_tcase(s, tc);

        tc = tcase_create("settings");
        tcase_add_test(tc, test_settings_schemas);
        tcase_add_test(tc, test_settings_out_of_range);
        tcase_add_test(tc, test_settings_of_named_layers);
        suite_add_tcase(s, tc);

        tc = tcase_create("schedulers");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_fifo_order_and_locality);
        tcase_add_test(tc, test_fifo_prefers_local_within_job);
        tcase_add_test(tc, test_fifo_no_over_assignment);
        tcase_add_test(tc, test_lost_and_blacklisted_nodes);
        tcase_add_test(tc, test_reduce_slowstart);
        tcase_add_test(tc, test_fair_max_min_pools);
        tcase_add_test(tc, test_fair_small_demand_leaves_rest);
        tcase_add_test(tc, test_fair_delay_scheduling);
        suite_add_tcase(s, tc);

        tc = tcase_create("heartbeats");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_heartbeat_fills_only_its_node);
        tcase_add_test(tc, test_heartbeat_fair_shares_whole_cluster);
        suite_add_tcase(s, tc);

        tc = tcase_create("admission");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_admit_by_default);
        tcase_add_test(tc, test_admit_refusal);
        tcase_add_test(tc, test_reservation_holds_slot);
        tcase_add_loop_test(tc, test_new_decisions_validate, 0,
                            (int)ELEMENTSOF(new_decision_cases));
        suite_add_tcase(s, tc);

        tc = tcase_create("speculation");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_speculation_hadoop);
        tcase_add_test(tc, test_speculation_hadoop_done_left_out);
        tcase_add_test(tc, test_speculation_hadoop_kept);
        tcase_add_test(tc, test_decisions_counted_by_layer);
        tcase_add_test(tc, test_speculation_late);
        tcase_add_test(tc, test_speculation_late_order_and_cap);
        suite_add_tcase(s, tc);
        return s;
}

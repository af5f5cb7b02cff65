/* SPDX-License-Identifier: MIT */
/* The SLO schedulers on hand-made snapshots: ARIA's (EDF order, its Eq. 15
 * quotas, reduces after the first map, the recompute when a task finishes)
 * and the Deadline Constraint Scheduler's (minimum tasks, reduces after the
 * last map, admission). The quotas are worked out by hand from the papers'
 * equations; each test shows the arithmetic. */
#include <errno.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/policy.h"
#include "policy/layers/aria-model.h"
#include "tests.h"
#include "check_policy.h"

/* ---- ARIA ---- */

/* Map-only jobs of 10 s maps under the lower bound: T = N M_avg / m, so
 * m = ceil(4 x 10 / D). B (D = 20 s: 2 slots) comes before C (D = 40 s: 1
 * slot) though C came first, and A, without a deadline, gets what is left.
 * Each takes a map whose split is on the node first. */
START_TEST(test_aria_edf_quota_locality) {
        static const uint32_t b_locs[] = { 1, 0, 0, 1 };
        JobProfile p = fx_profile(4, 10, 0, 0);
        uint32_t a, b, c;

        fx_cluster(2, 2, 0);
        fx.cfg.scheduler = "aria";
        fx_aria()->aria_bound = ARIA_LOWER;
        a = fx_slo_job(1 * SEC, 0, NULL, 4, NULL);
        c = fx_slo_job(2 * SEC, 140 * SEC, &p, 4, NULL);
        b = fx_slo_job(3 * SEC, 120 * SEC, &p, 4, b_locs);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 4);
        /* Node 0: B's two maps there; node 1: C's first, then A's. */
        fx_check_assignment(0, fx.first_map[b] + 1, 0, true, false);
        fx_check_assignment(1, fx.first_map[b] + 2, 0, true, false);
        fx_check_assignment(2, fx.first_map[c], 1, false, false);
        fx_check_assignment(3, fx.first_map[a], 1, false, false);
        ck_assert_uint_eq(fx_quota_of(b)->slots[SLOT_MAP], 2);
        ck_assert_uint_eq(fx_quota_of(c)->slots[SLOT_MAP], 1);
        ck_assert_uint_eq(fx_quota_of(c)->slots[SLOT_REDUCE], 0);
        ck_assert_ptr_null(fx_quota_of(a));
}
END_TEST

/* A job at its quota gets no more, even with slots free and nobody else. */
START_TEST(test_aria_quota_leaves_slots_free) {
        JobProfile p = fx_profile(4, 10, 0, 0);
        uint32_t b;

        fx_cluster(2, 2, 0);
        fx.cfg.scheduler = "aria";
        fx_aria()->aria_bound = ARIA_LOWER;
        b = fx_slo_job(1 * SEC, 120 * SEC, &p, 4, NULL);
        fx_run(fx.first_map[b], 0, 90 * SEC, 0);
        /* m = ceil(40 / 20) = 2, one of them running: one more. */
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
}
END_TEST

/* The slots beyond the quotas (slo_spare). B, due in 20 s with 3 maps of
 * 10 s, has the lower bound's m = ceil(30 / 20) = 2; A has no deadline;
 * the cluster has 4 map slots. Off, as ARIA reads, B runs its 2 and A gets
 * the other 2. On, the deadline job comes first for the slots beyond the
 * quotas, but takes only what it can use, its third map: A gets the
 * fourth slot. Each spare slot says why (no part of the loop on: by
 * earliest deadline). */
START_TEST(test_aria_spare_slots) {
        JobProfile p = fx_profile(4, 10, 0, 0);
        uint32_t a, b;

        fx_cluster(2, 2, 0);
        fx.cfg.scheduler = "aria";
        fx_aria()->aria_bound = ARIA_LOWER;
        a = fx_slo_job(1 * SEC, 0, NULL, 4, NULL);
        b = fx_slo_job(2 * SEC, 120 * SEC, &p, 3, NULL);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx_quota_of(b)->slots[SLOT_MAP], 2);
        ck_assert_uint_eq(fx_assigned_to(b), 2);
        ck_assert_uint_eq(fx_assigned_to(a), 2);
        ck_assert_uint_eq(fx.d.n_spares, 0);

        fx_core()->slo.slo_spare = true;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx_quota_of(b)->slots[SLOT_MAP], 2);
        ck_assert_uint_eq(fx_assigned_to(b), 3);
        ck_assert_uint_eq(fx_assigned_to(a), 1);
        ck_assert_uint_eq(fx.d.n_spares, 2);
        ck_assert_uint_eq(fx.d.spares[0].job, b);
        ck_assert_int_eq(fx.d.spares[0].reason, SPARE_EARLIEST);
        ck_assert_int_eq(fx.d.spares[0].slot, SLOT_MAP);
        ck_assert_uint_eq(fx.d.spares[0].quota, 2);
        ck_assert_uint_eq(fx.d.spares[0].forecast, 0);
        ck_assert_uint_eq(fx.d.spares[1].job, a);
        ck_assert_int_eq(fx.d.spares[1].reason, SPARE_NO_DEADLINE);
}
END_TEST

/* A spare slot's reason must fit its job: "no deadline" for a job
 * without one only, a forecast for "nearest to missing" only. */
START_TEST(test_spare_note_validated) {
        uint32_t a, b;
        SpareNote n;
        Decisions d = { .spares = &n, .n_spares = 1 };

        fx_cluster(1, 2, 0);
        a = fx_slo_job(1 * SEC, 0, NULL, 1, NULL);
        b = fx_slo_job(2 * SEC, 120 * SEC, NULL, 1, NULL);
        n = (SpareNote){ .job = b, .node = 0, .reason = SPARE_NEAREST, .forecast = 90 * SEC };
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &d), 0);
        n = (SpareNote){ .job = a, .node = 0, .reason = SPARE_NO_DEADLINE };
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &d), 0);
        n = (SpareNote){ .job = b, .node = 0, .reason = SPARE_NO_DEADLINE };
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &d), -EBADMSG);
        n = (SpareNote){ .job = a, .node = 0, .reason = SPARE_EARLIEST };
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &d), -EBADMSG);
        n = (SpareNote){ .job = b, .node = 0, .reason = SPARE_EARLIEST, .forecast = 90 * SEC };
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &d), -EBADMSG);
        n = (SpareNote){ .job = b, .node = 1, .reason = SPARE_EARLIEST };
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &d), -EBADMSG);
}
END_TEST

/* Reduces start once the job's first map finished (Algorithm 1, line 15),
 * whatever the core's reduce_slowstart says; without a deadline the core's
 * rule holds. */
START_TEST(test_aria_reduces_after_first_map) {
        JobProfile p = fx_profile(4, 10, 10, 5);
        uint32_t b, r0, m0;

        fx_cluster(1, 0, 2);
        fx.cfg.scheduler = "aria";
        fx_core()->reduce_slowstart = 0.9;
        b = fx_slo_job(1 * SEC, 500 * SEC, &p, 4, NULL);
        m0 = fx.first_map[b];
        r0 = fx_reduce(b);
        fx_reduce(b);
        fx.jobs[b].counts[TASK_REDUCE].total = 2;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
        fx_done(m0);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 20 * SEC), 0);
        ck_assert_uint_ge(fx.d.n_assignments, 1);
        fx_check_assignment(0, r0, 0, false, false);
        /* The same job without a deadline waits for 90 % of its maps. */
        fx.jobs[b].deadline = 0;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
}
END_TEST

/* Reduce slots left to a job without a deadline are those free beyond
 * what the deadline jobs' pending reduces need, lest a reduce that holds
 * its slot through its own job's maps keep theirs out. B (a deadline, its
 * first map done, 3 to go: ARIA opens its reduces) needs both of the
 * node's reduce slots; A, without a deadline, has its maps done and a
 * reduce pending. On the simulator's Hadoop B takes both. On a driver
 * whose reduces read the map outputs at their start B's cannot start
 * before its last map, so they need no slot yet: A's reduce, which runs
 * at once and holds no slot through a map phase, takes one. */
START_TEST(test_aria_waiting_reduces_hold_no_slot) {
        JobProfile p = fx_profile(4, 10, 10, 5);
        uint32_t a, b, ra;

        fx_cluster(1, 0, 2);
        fx.cfg.scheduler = "aria";
        a = fx_job(1 * SEC, 0);
        fx_done(fx_map(a, NO_INDEX));
        fx.jobs[a].counts[TASK_MAP] = (TaskCounts){ .total = 1, .done = 1 };
        ra = fx_reduce(a);
        fx.jobs[a].counts[TASK_REDUCE].total = 1;
        b = fx_slo_job(2 * SEC, 45 * SEC, &p, 4, NULL);
        fx_done(fx.first_map[b]);
        fx.jobs[b].counts[TASK_MAP].done = 1;
        fx_reduce(b);
        fx_reduce(b);
        fx.jobs[b].counts[TASK_REDUCE].total = 2;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 20 * SEC), 0);
        ck_assert_uint_eq(fx_quota_of(b)->slots[SLOT_REDUCE], 2);
        ck_assert_uint_eq(fx.d.n_assignments, 2);
        for (size_t i = 0; i < fx.d.n_assignments; i++)
                ck_assert_uint_eq(fx.tasks[fx.d.assignments[i].task].job, b);
        fx.s.reduces_read_maps_at_start = true;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        fx_check_assignment(0, ra, 0, false, false);
}
END_TEST

/* (m_j, r_j) are computed when the job comes and again when a task of it
 * finishes, not as time passes (lines 22-24). 4 maps of 10 s, lower bound,
 * deadline 100 s: m = ceil(40 / 100) = 1. 85 s later, still 1; then a map
 * finishes: ceil(3 x 10 / 15) = 2. */
START_TEST(test_aria_recompute_on_task_end) {
        JobProfile p = fx_profile(4, 10, 0, 0);
        uint32_t b, m0;

        fx_cluster(1, 4, 0);
        fx.cfg.scheduler = "aria";
        fx_aria()->aria_bound = ARIA_LOWER;
        b = fx_slo_job(0, 100 * SEC, &p, 4, NULL);
        m0 = fx.first_map[b];
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_ASSIGN, 0), 0);
        ck_assert_uint_eq(fx_quota_of(b)->slots[SLOT_MAP], 1);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_ASSIGN, 85 * SEC), 0);
        ck_assert_uint_eq(fx_quota_of(b)->slots[SLOT_MAP], 1);
        fx_done(m0);
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_ASSIGN, 85 * SEC), 0);
        ck_assert_uint_eq(fx_quota_of(b)->slots[SLOT_MAP], 2);
        ck_assert_uint_eq(fx.d.n_assignments, 2);
}
END_TEST

/* Without a stored profile the job's own finished maps are its profile;
 * before the first one there is no model, and the job may run all its
 * tasks. */
START_TEST(test_aria_own_profile) {
        uint32_t b;

        fx_cluster(1, 4, 0);
        fx.cfg.scheduler = "aria";
        fx_aria()->aria_bound = ARIA_LOWER;
        b = fx_slo_job(0, 100 * SEC, NULL, 5, NULL);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_eq(fx_quota_of(b)->slots[SLOT_MAP], 5);
        ck_assert_uint_eq(fx.d.n_assignments, 4);
        /* One map of 10 s done: ceil(4 x 10 / 90) = 1. */
        fx_done(fx.first_map[b]);
        fx.jobs[b].profile = fx_profile(1, 10, 0, 0);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_eq(fx_quota_of(b)->slots[SLOT_MAP], 1);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
}
END_TEST

/* ---- the Deadline Constraint Scheduler ---- */

/* 4 maps whose slowest took 10 s: sigma c_m = 40 s. 2 reduces whose
 * slowest reduce phase took 10 s: f sigma c_r = 20 s, 10 s on 2 reduces;
 * their slowest shuffle, the transfer f sigma c_d, 1 s. Submitted at 0
 * with D = 31 s: s_r^max = 31 - 10 - 1 = 20, n_m^min = ceil(40 / 20) = 2. */
static uint32_t dcs_fixture(JobProfile *p) {
        uint32_t b;

        fx_cluster(1, 4, 2);
        fx.cfg.scheduler = "deadline";
        *p = fx_profile(4, 10, 10, 1);
        b = fx_slo_job(0, 31 * SEC, p, 4, NULL);
        fx_reduce(b);
        fx_reduce(b);
        fx.jobs[b].counts[TASK_REDUCE].total = 2;
        return b;
}

/* Each job gets its minimum maps; its reduces wait for its last map, then
 * get n_r^min for reduces that start now: at 5 s, ceil(20 / (31 - 1 - 5))
 * = 1. */
START_TEST(test_deadline_minimum_tasks) {
        JobProfile p;
        uint32_t b = dcs_fixture(&p), first = fx.first_map[b];

        ck_assert_int_eq(fx_step_kept(POLICY_STEP_ASSIGN, 1 * SEC), 0);
        ck_assert_uint_eq(fx_quota_of(b)->slots[SLOT_MAP], 2);
        ck_assert_uint_eq(fx.d.n_assignments, 2);
        for (uint32_t t = first; t < first + 3; t++)
                fx_done(t);
        /* One map left: no reduce yet, though 3 of 4 maps are done. */
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_ASSIGN, 4 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        ck_assert_int_eq(fx.d.assignments[0].type, TASK_MAP);
        fx_done(first + 3);
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_ASSIGN, 5 * SEC), 0);
        ck_assert_uint_eq(fx_quota_of(b)->slots[SLOT_REDUCE], 1);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        ck_assert_int_eq(fx.d.assignments[0].type, TASK_REDUCE);
}
END_TEST

/* A new job whose minimum maps are not free is refused with the reason and
 * the numbers, and nothing changes; a looser deadline is admitted. The
 * other job with a deadline holds its 2 minimum maps of the 4 slots. New
 * job, submitted at 1 s: 8 maps of 10 s (sigma c_m = 80 s), no reduces, D =
 * 25 s: n_m^min = ceil(80 / 25) = 4 > 2 free. D = 41 s: ceil(80 / 41) =
 * 2. */
START_TEST(test_deadline_admission) {
        JobProfile p, q = fx_profile(8, 10, 0, 0);
        Job job = { .id = 99,
                    .submitted = 1 * SEC,
                    .deadline = 26 * SEC,
                    .input_size = 8 * 64 * MIB,
                    .counts = { [TASK_MAP] = { .total = 8 } },
                    .stored_profile = &q };
        _cleanup_(policy_freep) Policy *pol = NULL;
        AdmitVerdict v;

        dcs_fixture(&p);
        ck_assert_int_eq(policy_new_named(&fx.cfg, NULL, &pol), 0);
        ck_assert_int_eq(policy_admit(pol, &fx.s, 1 * SEC, &job, 0, &v), 0);
        ck_assert(!v.admit);
        ck_assert_str_eq(v.reason, "it needs 4 map slots (n_m^min) and 2 are free");
        ck_assert_uint_eq(v.slots_needed[SLOT_MAP], 4);
        ck_assert_uint_eq(v.slots_free[SLOT_MAP], 2);
        ck_assert_uint_eq(v.slots_free[SLOT_REDUCE], 0);
        /* Asking again gives the same answer. */
        ck_assert_int_eq(policy_admit(pol, &fx.s, 1 * SEC, &job, 0, &v), 0);
        ck_assert(!v.admit);
        job.deadline = 42 * SEC;
        ck_assert_int_eq(policy_admit(pol, &fx.s, 1 * SEC, &job, 0, &v), 0);
        ck_assert(v.admit);
        ck_assert_str_eq(v.reason, "");
        ck_assert_uint_eq(v.slots_needed[SLOT_MAP], 2);
        /* The maps end at 1 + 80 / 2 = 41 s. */
        ck_assert_uint_eq(v.finish, 41 * SEC);
        /* Without a deadline, or a profile, there is nothing to test. */
        job.deadline = 0;
        ck_assert_int_eq(policy_admit(pol, &fx.s, 1 * SEC, &job, 0, &v), 0);
        ck_assert(v.admit);
        job.deadline = 2 * SEC;
        job.stored_profile = NULL;
        ck_assert_int_eq(policy_admit(pol, &fx.s, 1 * SEC, &job, 0, &v), 0);
        ck_assert(v.admit);
}
END_TEST

Suite *suite_slo_sched(void) {
        Suite *s = suite_create("slo_sched");
        TCase *tc;

        tc = tcase_create("aria");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_aria_edf_quota_locality);
        tcase_add_test(tc, test_aria_quota_leaves_slots_free);
        tcase_add_test(tc, test_aria_spare_slots);
        tcase_add_test(tc, test_spare_note_validated);
        tcase_add_test(tc, test_aria_reduces_after_first_map);
        tcase_add_test(tc, test_aria_waiting_reduces_hold_no_slot);
        tcase_add_test(tc, test_aria_recompute_on_task_end);
        tcase_add_test(tc, test_aria_own_profile);
        suite_add_tcase(s, tc);

        tc = tcase_create("deadline");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_deadline_minimum_tasks);
        tcase_add_test(tc, test_deadline_admission);
        suite_add_tcase(s, tc);
        return s;
}

/* SPDX-License-Identifier: MIT */
/* The one loop (policy/layers/slo-loop.h) on hand-made snapshots: the
 * measured speed, the forecasts, ARIA's quota and the Deadline Constraint
 * Scheduler's admission at that speed, the triage, the lever's weights and
 * their return, FlexSlot's favour, and what the core lets a policy do to
 * another tenant's VM. Each number is worked out in the test's comment. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/policy.h"
#include "policy/layers/slo-loop.h"
#include "tests.h"
#include "check_policy.h"

static SloLoopSettings *fx_slo(void) {
        return &fx_core()->slo;
}

/* k of job j's maps done, which took map_s each in this run. */
static void maps_done(uint32_t j, unsigned k, double map_s) {
        for (unsigned i = 0; i < k; i++) {
                fx_done(fx.first_map[j] + i);
                phase_stats_add(&fx.jobs[j].profile.phases[PROFILE_MAP], (usec_t)(map_s * SEC));
        }
        fx.jobs[j].counts[TASK_MAP].done = k;
}

/* ---- speed and forecasts ---- */

/* Profiled maps of 20 s. Two finished in this run in 40 s each: 2 x 20 s
 * of work in 80 s. One running for 30 s has read half its split: 10 s of
 * work in 30 s. One 5 s old is too young to count. 50 / 110 = 0.4545. A
 * job that has done nothing takes the cluster's: the same here. */
START_TEST(test_speed_is_work_over_time) {
        JobProfile p = fx_profile(4, 20, 0, 0);
        uint32_t j, k;

        fx_cluster(2, 2, 0);
        j = fx_slo_job(1 * SEC, 500 * SEC, &p, 4, NULL);
        maps_done(j, 2, 40);
        fx_run(fx.first_map[j] + 2, 0, 70 * SEC, 32 * MIB);
        fx_run(fx.first_map[j] + 3, 1, 95 * SEC, 8 * MIB);
        ck_assert_double_eq_tol(slo_job_speed(&fx.s, 100 * SEC, j, 0), 50.0 / 110.0, 1e-9);
        ck_assert_double_eq_tol(slo_cluster_speed(&fx.s, 100 * SEC), 50.0 / 110.0, 1e-9);
        k = fx_slo_job(2 * SEC, 500 * SEC, &p, 4, NULL);
        ck_assert_double_eq_tol(slo_job_speed(&fx.s, 100 * SEC, k, 0.7), 0.7, 1e-9);
        ck_assert_double_eq(slo_job_speed(&fx.s, 100 * SEC, k, 0), 1);
}
END_TEST

/* ARIA's average bound on what is left, on the slots given: 6 maps of 10 s
 * profiled, at speed 0.5 each 20 s, on 2 slots: the lower bound 6 x 20 / 2
 * = 60, the upper (5 x 20) / 2 + 20 = 70, the average 65 s from now. The
 * replay: 3 whole waves of 20 s, 60 s. With 7 maps on 2 slots the bound
 * counts 70 / 2 (lower) and (6 x 20 / 2 + 20) = 80 (upper): 75; the replay
 * counts the last wave whole, 4 x 20 = 80. */
START_TEST(test_forecasts) {
        JobProfile p = fx_profile(4, 10, 0, 0);
        const unsigned two[_SLOT_TYPE_MAX] = { 2, 0 };
        double scratch[64], end;
        uint32_t j;

        fx_cluster(2, 2, 0);
        j = fx_slo_job(1 * SEC, 500 * SEC, &p, 6, NULL);
        ck_assert_uint_ge(ELEMENTSOF(scratch), slo_forecast_scratch(&fx.s));
        ck_assert_int_eq(
                slo_forecast(&fx.s, 100 * SEC, j, SLO_FORECAST_BOUND, 0.5, two, scratch, &end), 0);
        ck_assert_double_eq_tol(end, 165, 1e-9);
        ck_assert_int_eq(
                slo_forecast(&fx.s, 100 * SEC, j, SLO_FORECAST_REPLAY, 0.5, two, scratch, &end), 0);
        ck_assert_double_eq_tol(end, 160, 1e-9);
        fx_map(j, NO_INDEX);
        fx.jobs[j].counts[TASK_MAP].total = 7;
        fx.jobs[j].input_size = 7 * 64 * MIB;
        ck_assert_int_eq(
                slo_forecast(&fx.s, 100 * SEC, j, SLO_FORECAST_BOUND, 0.5, two, scratch, &end), 0);
        ck_assert_double_eq_tol(end, 175, 1e-9);
        ck_assert_int_eq(
                slo_forecast(&fx.s, 100 * SEC, j, SLO_FORECAST_REPLAY, 0.5, two, scratch, &end), 0);
        ck_assert_double_eq_tol(end, 180, 1e-9);
        /* No profile, no forecast. */
        fx.jobs[j].stored_profile = NULL;
        ck_assert_int_eq(
                slo_forecast(&fx.s, 100 * SEC, j, SLO_FORECAST_BOUND, 1, two, scratch, &end),
                -ENODATA);
}
END_TEST

/* Job j's replay forecast at 100 s, as profiled, on slots. */
static double replay_at_100(uint32_t j, const unsigned *slots) {
        double scratch[64], end;

        ck_assert_int_eq(
                slo_forecast(&fx.s, 100 * SEC, j, SLO_FORECAST_REPLAY, 1, slots, scratch, &end), 0);
        return end;
}

/* The replay takes a running map's input left at the profiled time the job
 * runs at, not the map's rate so far: maps of 20 s, speed 1, 4 maps on 2
 * slots at 100 s. Map A started at 40 s and has read a quarter of its
 * split (it sat on a VM held to its idle limit until DRS's next pass): 3/4
 * x 20 = 15 s left, where its rate so far says 60 x 3 = 180 s. Map B
 * started at 95 s and has read an eighth: 17.5 s left. The slots free at
 * 115 and 117.5 s, and the two pending maps end at 135 and 137.5 s. */
START_TEST(test_replay_running_map_at_profile) {
        JobProfile p = fx_profile(4, 20, 0, 0);
        const unsigned two[_SLOT_TYPE_MAX] = { 2, 0 };
        uint32_t j;

        fx_cluster(2, 2, 0);
        j = fx_slo_job(1 * SEC, 500 * SEC, &p, 4, NULL);
        fx_run(fx.first_map[j], 0, 40 * SEC, 16 * MIB);
        fx_run(fx.first_map[j] + 1, 1, 95 * SEC, 8 * MIB);
        ck_assert_double_eq_tol(replay_at_100(j, two), 137.5, 1e-9);
}
END_TEST

/* A job held to fewer slots than it runs (its quota cut while it was
 * ahead) still runs every map it started, and starts a pending one only as
 * its running maps fall below its slots: maps of 20 s, 4 left, 3 running
 * since 95 s that have read a half, a quarter and none of their splits
 * (ending at 110, 115 and 120 s), on one slot: the pending map starts
 * when the third ends, 120 + 20 = 140 s. Its reduce slot the same way: two
 * reduces running, one pending, one slot: the pending one waits for both
 * (each the maps' end, 140, + 5 s of first shuffle + 10 s of reduce), 155
 * + 5 + 10 = 170 s. */
START_TEST(test_replay_counts_every_running_task) {
        JobProfile p = fx_profile(4, 20, 10, 5);
        const unsigned one[_SLOT_TYPE_MAX] = { 1, 1 };
        uint32_t j, r[3];

        fx_cluster(2, 2, 2);
        j = fx_slo_job(1 * SEC, 500 * SEC, &p, 4, NULL);
        fx_run(fx.first_map[j], 0, 95 * SEC, 32 * MIB);
        fx_run(fx.first_map[j] + 1, 0, 95 * SEC, 16 * MIB);
        fx_run(fx.first_map[j] + 2, 1, 95 * SEC, 0);
        ck_assert_double_eq_tol(replay_at_100(j, one), 140, 1e-9);
        for (unsigned i = 0; i < 3; i++)
                r[i] = fx_reduce(j);
        fx.jobs[j].counts[TASK_REDUCE].total = 3;
        fx_run(r[0], 0, 95 * SEC, 0);
        fx_run(r[1], 1, 95 * SEC, 0);
        ck_assert_double_eq_tol(replay_at_100(j, one), 170, 1e-9);
}
END_TEST

/* A job holding no slot is forecast on the quota its scheduler holds it to
 * (Job.quota, kept by the driver): 6 maps of 10 s on 3 slots, the average
 * of 60 / 3 and 50 / 3 + 10, 23.3 s, where on one slot it is 60 s. */
START_TEST(test_forecast_on_kept_quota) {
        JobProfile p = fx_profile(4, 10, 0, 0);
        double scratch[64], end;
        uint32_t j;

        fx_cluster(2, 2, 0);
        j = fx_slo_job(1 * SEC, 500 * SEC, &p, 6, NULL);
        ck_assert_int_eq(
                slo_forecast(&fx.s, 100 * SEC, j, SLO_FORECAST_BOUND, 1, NULL, scratch, &end), 0);
        ck_assert_double_eq_tol(end, 160, 1e-9);
        fx.jobs[j].quota[SLOT_MAP] = 3;
        ck_assert_int_eq(
                slo_forecast(&fx.s, 100 * SEC, j, SLO_FORECAST_BOUND, 1, NULL, scratch, &end), 0);
        ck_assert_double_eq_tol(end, 100 + (60.0 / 3 + 50.0 / 3 + 10) / 2, 1e-9);
}
END_TEST

/* ---- the schedulers at the measured speed ---- */

/* 14 maps left of a job profiled at 10 s a map, 60 s to its deadline,
 * under the average bound (a = (14 + 13) / 2 x M, c = M_max / 2): as
 * profiled, 135 / m + 5 <= 60 gives m = 3; its two finished maps took
 * 20 s, speed 0.5: 270 / m + 10 <= 60 gives m = 6. Without slo_speed ARIA
 * gives it 3, with it 6; on 6 slots the forecast meets the deadline, so it
 * is not taken for late (which would give it all 14). */
START_TEST(test_aria_quota_at_speed) {
        JobProfile p = fx_profile(4, 10, 0, 0);
        uint32_t j;

        fx_cluster(4, 2, 0);
        fx.cfg.scheduler = "aria";
        fx_aria()->aria_bound = ARIA_AVERAGE;
        j = fx_slo_job(1 * SEC, 160 * SEC, &p, 16, NULL);
        maps_done(j, 2, 20);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx_quota_of(j)->slots[SLOT_MAP], 3);
        ck_assert_uint_eq(fx.d.n_assignments, 3);
        fx_slo()->slo_speed = true;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx_quota_of(j)->slots[SLOT_MAP], 6);
        ck_assert_uint_eq(fx.d.n_assignments, 6);
}
END_TEST

/* Triage: A's deadline has passed and B's has not; earliest deadline
 * first would give A's maps the two free slots, and ARIA would give A all
 * it can use. The loop puts A after B: B's quota (1 map: 2 x 10 s on one
 * slot meets 100 s) first, then A takes the other slot. */
START_TEST(test_triage_hopeless_after_others) {
        JobProfile p = fx_profile(4, 10, 0, 0);
        uint32_t a, b;

        fx_cluster(1, 2, 0);
        fx.cfg.scheduler = "aria";
        a = fx_slo_job(1 * SEC, 50 * SEC, &p, 4, NULL);
        b = fx_slo_job(2 * SEC, 200 * SEC, &p, 2, NULL);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 2);
        ck_assert_uint_eq(fx.tasks[fx.d.assignments[0].task].job, a);
        ck_assert_uint_eq(fx.tasks[fx.d.assignments[1].task].job, a);
        fx_slo()->slo_speed = true;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 2);
        ck_assert_uint_eq(fx.tasks[fx.d.assignments[0].task].job, b);
        ck_assert_uint_eq(fx.tasks[fx.d.assignments[1].task].job, a);
        /* Why A goes last: it is passed over as hopeless, past its
         * deadline, with its forecast on its slots (its 4 maps of 10 s,
         * two waves on the 2 slots: 120 s). */
        ck_assert_uint_eq(fx.d.n_deadlines, 1);
        ck_assert_uint_eq(fx.d.deadlines[0].job, a);
        ck_assert(fx.d.deadlines[0].at_risk);
        ck_assert(fx.d.deadlines[0].hopeless);
        ck_assert_double_eq_tol(usec_to_sec(fx.d.deadlines[0].forecast), 120, 0.05);
}
END_TEST

/* The spare slots go to the deadline job nearest to missing by the loop's
 * forecast, not the earliest deadline. 4 map slots, profiled maps of 10 s,
 * the lower bound. X, due at 140 s, did a map in 10 s (speed 1) and has 3
 * left: m = ceil(30 / 40) = 1, and on 1 slot the replay ends it at 130 s,
 * slack 10 / 40 = 0.25. Y, due at 150 s, did 2 maps in 20 s each (speed
 * 0.5) and has 3 left: m = ceil(30 / 50) = 1 as profiled, and on 1 slot
 * at its speed the replay ends it at 100 + 3 x 20 = 160 s, slack -10 / 50
 * = -0.2. Each gets its quota; without the loop the other 2 slots go to
 * X (earliest deadline), with a part of it on (the favour, which changes
 * nothing else in an assignment step) to Y, which says its forecast. */
START_TEST(test_spare_nearest_to_missing) {
        JobProfile p = fx_profile(4, 10, 0, 0);
        uint32_t x, y;

        fx_cluster(2, 2, 0);
        fx.cfg.scheduler = "aria";
        fx_aria()->aria_bound = ARIA_LOWER;
        fx_slo()->slo_spare = true;
        x = fx_slo_job(1 * SEC, 140 * SEC, &p, 4, NULL);
        maps_done(x, 1, 10);
        y = fx_slo_job(2 * SEC, 150 * SEC, &p, 5, NULL);
        maps_done(y, 2, 20);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx_quota_of(x)->slots[SLOT_MAP], 1);
        ck_assert_uint_eq(fx_quota_of(y)->slots[SLOT_MAP], 1);
        ck_assert_uint_eq(fx_assigned_to(x), 3);
        ck_assert_uint_eq(fx_assigned_to(y), 1);
        ck_assert_uint_eq(fx.d.n_spares, 2);
        ck_assert_int_eq(fx.d.spares[0].reason, SPARE_EARLIEST);

        fx_slo()->slo_favour = true;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx_assigned_to(x), 1);
        ck_assert_uint_eq(fx_assigned_to(y), 3);
        ck_assert_uint_eq(fx.d.n_spares, 2);
        for (size_t i = 0; i < fx.d.n_spares; i++) {
                ck_assert_uint_eq(fx.d.spares[i].job, y);
                ck_assert_int_eq(fx.d.spares[i].reason, SPARE_NEAREST);
                ck_assert_uint_eq(fx.d.spares[i].forecast, 160 * SEC);
                ck_assert_uint_eq(fx.d.spares[i].quota, 1);
        }

        /* Off, the quotas alone: 2 slots stay idle. */
        fx_slo()->slo_spare = false;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 2);
        ck_assert_uint_eq(fx.d.n_spares, 0);
}
END_TEST

/* Admission at the measured speed: 8 maps profiled at 10 s (σ c_m = 80 s
 * of map work), no reduces, 30 s to the deadline: Eq. 1 gives 3 maps, and
 * 4 map slots are free: admitted. The cluster's maps run at half their
 * profiled speed (job c: two maps of 10 s took 20 s each): 160 s of work
 * needs 6 maps, more than are free: refused, and the reason says the
 * speed. */
START_TEST(test_deadline_admission_at_speed) {
        JobProfile p = fx_profile(4, 10, 0, 0);
        _cleanup_(policy_freep) Policy *pol = NULL;
        AdmitVerdict v;
        Job job = { .id = 999,
                    .submitted = 100 * SEC,
                    .deadline = 130 * SEC,
                    .input_size = 8 * 64 * MIB,
                    .counts = { [TASK_MAP] = { .total = 8 } },
                    .stored_profile = &p };
        uint32_t c;

        fx_cluster(2, 2, 1);
        fx.cfg.scheduler = "deadline";
        c = fx_slo_job(1 * SEC, 0, &p, 4, NULL);
        maps_done(c, 2, 20);
        ck_assert_int_eq(policy_new_named(&fx.cfg, NULL, &pol), 0);
        ck_assert_int_eq(policy_admit(pol, &fx.s, 100 * SEC, &job, 0, &v), 0);
        ck_assert(v.admit);
        ck_assert_uint_eq(v.slots_needed[SLOT_MAP], 3);
        pol = policy_free(pol);
        fx_slo()->slo_speed = true;
        ck_assert_int_eq(policy_new_named(&fx.cfg, NULL, &pol), 0);
        ck_assert_int_eq(policy_admit(pol, &fx.s, 100 * SEC, &job, 0, &v), 0);
        ck_assert(!v.admit);
        ck_assert_uint_eq(v.slots_needed[SLOT_MAP], 6);
        ck_assert_uint_eq(v.slots_free[SLOT_MAP], 4);
        ck_assert_msg(strstr(v.reason, "0.50 of its profile's speed"), "%s", v.reason);
}
END_TEST

/* ---- the lever ---- */

static uint32_t late_job, safe_job;

/* One host of 8 pCPUs: this cluster's VMs 0 (running a map of job A, due
 * in 100 s with 9 maps of 100 s left: late on its one slot), 1 (running a
 * map of job B, due in 10,000 s: safe) and 2 (idle); another tenant's VMs
 * 3 and 4. Every VM has 2 vCPUs and weight 1024. */
static void lever_fixture(void) {
        static JobProfile p;

        p = fx_profile(4, 100, 0, 0);
        fx_cluster(3, 2, 0);
        fx.cfg.vm_allocator = "none";
        fx_slo()->slo_lever = true;
        late_job = fx_slo_job(1 * SEC, 200 * SEC, &p, 9, NULL);
        safe_job = fx_slo_job(2 * SEC, 10000 * SEC, &p, 1, NULL);
        fx_run(fx.first_map[late_job], 0, 90 * SEC, 0);
        fx_run(fx.first_map[safe_job], 1, 90 * SEC, 0);
        for (uint32_t v = 3; v < 5; v++) {
                fx_vm(v);
                fx.vms[v].cpu_use = 2;
                fx.vms[v].other_tenant = true;
        }
        fx.s.n_vms = 5;
}

static const VmTarget *target_of(uint32_t vm) {
        for (size_t i = 0; i < fx.d.n_vm_targets; i++)
                if (fx.d.vm_targets[i].vm == vm)
                        return &fx.d.vm_targets[i];
        return NULL;
}

static const LeverNote *lever_of(uint32_t vm) {
        for (size_t i = 0; i < fx.d.n_levers; i++)
                if (fx.d.levers[i].vm == vm)
                        return &fx.d.levers[i];
        return NULL;
}

/* The late VM and the tenant's share their part of the host, 3 of the 5
 * weights: 8 x 3/5 = 4.8 pCPUs. VM 0 is entitled first to its 2 vCPUs,
 * the tenant's to 1.4 each: weights 3072 x 2 / 4.8 = 1280 and 3072 x 1.4 /
 * 4.8 = 896, 3072 in all as before; VMs 1 (safe) and 2 (idle) keep theirs.
 * The tenant's targets change its weight alone. Each target is reported
 * with its job, and each deadline job with its forecast, the replay by
 * default. */
START_TEST(test_lever_takes_from_best_effort) {
        lever_fixture();
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_vm_targets, 3);
        ck_assert_uint_eq(target_of(0)->cpu_weight, 1280);
        ck_assert_uint_eq(target_of(3)->cpu_weight, 896);
        ck_assert_uint_eq(target_of(4)->cpu_weight, 896);
        ck_assert_ptr_null(target_of(1));
        ck_assert_ptr_null(target_of(2));
        ck_assert_uint_eq(target_of(3)->vcpus, 2);
        ck_assert_uint_eq(target_of(3)->memory, 2 * GIB);
        ck_assert_double_eq(target_of(3)->cpu_cap, 0);
        ck_assert_uint_eq(lever_of(0)->job, late_job);
        ck_assert_uint_eq(lever_of(3)->job, NO_INDEX);
        ck_assert_uint_eq(fx.d.n_deadlines, 2);
        for (size_t i = 0; i < 2; i++) {
                const DeadlineNote *n = &fx.d.deadlines[i];

                ck_assert_int_eq(n->at_risk, n->job == late_job);
                ck_assert_int_eq(n->kind, SLO_FORECAST_REPLAY);
        }
        /* Without the lever, none of it. */
        fx_slo()->slo_lever = false;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_vm_targets, 0);
        ck_assert_uint_eq(fx.d.n_deadlines, 0);
}
END_TEST

/* A tenant's VM its owner opted out (unmanaged: its agent refuses every
 * target) keeps its weight and is counted at it: the late VM and VM 3
 * share 2 of the 5 weights, 8 x 2/5 = 3.2 pCPUs; VM 0 is entitled to its
 * 2 vCPUs, 2048 x 2 / 3.2 = 1280, and VM 3 to the rest, 2048 x 1.2 / 3.2 =
 * 768. Found opted out after the lever took its weight, VM 4 is asked
 * nothing back, and its weight is not reported. */
START_TEST(test_lever_leaves_unmanaged_alone) {
        lever_fixture();
        fx.vms[4].unmanaged = true;
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_vm_targets, 2);
        ck_assert_uint_eq(target_of(0)->cpu_weight, 1280);
        ck_assert_uint_eq(target_of(3)->cpu_weight, 768);
        ck_assert_ptr_null(target_of(4));
        ck_assert_ptr_null(lever_of(4));

        fx.vms[4].unmanaged = false;
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, 100 * SEC), 0);
        ck_assert_uint_eq(target_of(4)->cpu_weight, 896);
        /* The agent refused it: the job is safe now, and the lever gives
         * back VM 0's and VM 3's weight, none to VM 4, then or later. */
        fx.vms[4].unmanaged = true;
        fx.vms[0].cpu_weight = 1280;
        fx.vms[3].cpu_weight = 896;
        fx.jobs[late_job].deadline = 5000 * SEC;
        for (int step = 0; step < 2; step++) {
                ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, 100 * SEC), 0);
                ck_assert_ptr_null(target_of(4));
                ck_assert_ptr_null(lever_of(4));
        }
}
END_TEST

/* Once A is safe (its deadline far), the weights go back to what they
 * were, each reported without a job, asked again while a VM does not
 * report its weight back (a target lost on its way); back, they are
 * reported once more and stay back. A late job that is forecast to end
 * before its deadline, but not slo_margin of its time left early, stays
 * late. */
START_TEST(test_lever_gives_back) {
        lever_fixture();
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, 100 * SEC), 0);
        fx.vms[0].cpu_weight = 1280;
        fx.vms[3].cpu_weight = fx.vms[4].cpu_weight = 896;
        /* The forecast (9 maps on one slot: (900 + 800 + 100) / 2) is 900 s
         * from now: a deadline 950 s away is met, but not by 0.1 x 950. */
        fx.jobs[late_job].deadline = 1050 * SEC;
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, 100 * SEC), 0);
        ck_assert_ptr_null(target_of(0));
        ck_assert_uint_eq(fx.d.n_levers, 0);
        ck_assert(fx.d.deadlines[0].at_risk);
        fx.jobs[late_job].deadline = 5000 * SEC;
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_vm_targets, 3);
        ck_assert_uint_eq(target_of(0)->cpu_weight, 1024);
        ck_assert_uint_eq(target_of(3)->cpu_weight, 1024);
        ck_assert_uint_eq(target_of(4)->cpu_weight, 1024);
        ck_assert_uint_eq(lever_of(0)->job, NO_INDEX);
        /* VM 0 took its weight back, the tenant's targets were lost. */
        fx.vms[0].cpu_weight = 1024;
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_vm_targets, 2);
        ck_assert_ptr_null(target_of(0));
        ck_assert_uint_eq(target_of(3)->cpu_weight, 1024);
        ck_assert_uint_eq(target_of(4)->cpu_weight, 1024);
        ck_assert_uint_eq(lever_of(0)->cpu_weight, 1024);
        fx.vms[3].cpu_weight = fx.vms[4].cpu_weight = 1024;
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_vm_targets, 0);
        ck_assert_uint_eq(lever_of(3)->cpu_weight, 1024);
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_vm_targets, 0);
        ck_assert_uint_eq(fx.d.n_levers, 0);
}
END_TEST

/* Every allocator leaves another tenant's VM alone: static divides the
 * host's 8 pCPUs among this cluster's 3 VMs (a cap of 8 / 3 each), not 5. */
START_TEST(test_allocators_skip_other_tenant) {
        lever_fixture();
        fx_slo()->slo_lever = false;
        fx.cfg.vm_allocator = "static";
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_vm_targets, 3);
        for (size_t i = 0; i < fx.d.n_vm_targets; i++) {
                ck_assert_uint_lt(fx.d.vm_targets[i].vm, 3);
                ck_assert_double_eq_tol(fx.d.vm_targets[i].cpu_cap, 8.0 / 3, 1e-9);
        }
}
END_TEST

/* A policy may change nothing of another tenant's VM but its weight, nor
 * report on a job without a deadline. */
START_TEST(test_other_tenant_weight_only) {
        Decisions d = { 0 };
        VmTarget t = { .vm = 3, .cpu_weight = 500, .vcpus = 2, .memory = 2 * GIB };
        DeadlineNote n = { .job = 0, .speed = 1, .forecast = 1 };

        lever_fixture();
        d.vm_targets = &t;
        d.n_vm_targets = 1;
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &d), 0);
        t.vcpus = 3;
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &d), -EBADMSG);
        t.vcpus = 2;
        t.cpu_cap = 1;
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &d), -EBADMSG);
        d.n_vm_targets = 0;
        d.deadlines = &n;
        d.n_deadlines = 1;
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &d), 0);
        fx.jobs[0].deadline = 0;
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &d), -EBADMSG);
        /* A node on another tenant's VM is no node of this cluster. */
        fx.jobs[0].deadline = 200 * SEC;
        fx.nodes[0].vm = 3;
        ck_assert_int_eq(snapshot_validate(&fx.s), -EINVAL);
}
END_TEST

/* ---- FlexSlot's favour ---- */

/* Four maps of job A, profiled at 10 s, at t = 20 s: three read 60 MiB of
 * their 64, the one on node 3, an I/O-bound straggler, 10 MiB: 29.7 s of
 * work in 80 s, speed 0.37. Its 7 maps on the 4 slots it holds take 57 s
 * more by the average bound (the forecast here), past its deadline at 60
 * s: late. FlexSlot's
 * Algorithm 1 kills the straggler to restart it in a bigger slot;
 * favouring A, it does not, since a kill restarts it from zero: LATE's
 * test finds it 20 x 54 / 10 = 108 s from its end, a fresh copy on node 3
 * 10 s at the node's speed, 1.56 s of work in 20 s, 128 s. It reports A's
 * forecast. */
START_TEST(test_favour_spares_late_straggler) {
        static JobProfile p;
        uint32_t a;

        p = fx_profile(4, 10, 0, 0);
        fx_cluster(4, 2, 0);
        fx.cfg.slot_manager = "flexslot";
        fx_slo()->slo_forecast = SLO_FORECAST_BOUND;
        a = fx_slo_job(1, 60 * SEC, &p, 7, NULL);
        for (uint32_t n = 0; n < 4; n++)
                fx_run(fx.first_map[a] + n, n, 0, n == 3 ? 10 * MIB : 60 * MIB);
        fx.attempts[3].iowait = 0.5;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_kills, 1);
        ck_assert_int_eq(fx.d.kills[0].reason, KILL_RESIZE);
        fx_slo()->slo_favour = true;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_stragglers, 1);
        ck_assert_uint_eq(fx.d.n_kills, 0);
        ck_assert_uint_eq(fx.d.n_deadlines, 1);
        ck_assert(fx.d.deadlines[0].at_risk);
}
END_TEST

/* Job A (no deadline) and job B (maps profiled at 10 s, 6 of them, due at
 * b_deadline) on 5 nodes of 2 slots at t = 20 s, each node's steal and each
 * attempt's set for Algorithm 2: A's straggler on node 3 (steal 0.6) and
 * B's on node 2 (steal 0.4) CPU-starved, node 0 running A's fast map the
 * least steal. B's three running maps did 20.3 s of profiled work in 60 s,
 * speed 0.339, 29.5 s a map: its 6 maps on the 3 slots it holds end, by
 * the average bound (the forecast here), at 20 + (59.1 + 78.8) / 2 = 88.9 s; on all 6 slots it
 * can use, at 20 + (29.5 + 54.2) / 2 = 61.9 s. */
static void favour_fixture(usec_t b_deadline) {
        static JobProfile p;
        uint32_t a, b;

        p = fx_profile(4, 10, 0, 0);
        fx_cluster(5, 2, 0);
        fx.cfg.slot_manager = "flexslot";
        fx_slo()->slo_forecast = SLO_FORECAST_BOUND;
        a = fx_slo_job(1, 0, &p, 3, NULL);
        b = fx_slo_job(2, b_deadline, &p, 6, NULL);
        fx_run(fx.first_map[a], 0, 0, 60 * MIB);
        fx_run(fx.first_map[a] + 1, 1, 0, 60 * MIB);
        fx_run(fx.first_map[a] + 2, 3, 0, 10 * MIB);
        fx_run(fx.first_map[b], 4, 0, 60 * MIB);
        fx_run(fx.first_map[b] + 1, 4, 0, 60 * MIB);
        fx_run(fx.first_map[b] + 2, 2, 0, 10 * MIB);
        fx.attempts[2].steal = fx.attempts[5].steal = 0.5;
        fx.nodes[3].steal = 0.6;
        fx.nodes[2].steal = 0.4;
}

/* Algorithm 2 moves a slot from the least-steal node to the most: from
 * node 0 to node 3. B due at 75 s is late on its slots (88.9 s) and can
 * still make it with more (61.9 s): favouring it gives the slot to node 2,
 * its straggler's, though node 3 has the more steal; node 4, which runs
 * B's other maps, gives none. */
START_TEST(test_favour_moves_slot_to_late_job) {
        favour_fixture(75 * SEC);
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 2);
        ck_assert_uint_eq(fx.d.slot_changes[0].node, 0);
        ck_assert_uint_eq(fx.d.slot_changes[1].node, 3);
        fx_slo()->slo_favour = true;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 2);
        ck_assert_uint_eq(fx.d.slot_changes[0].node, 0);
        ck_assert_uint_eq(fx.d.slot_changes[1].node, 2);
        ck_assert_uint_eq(fx.d.slot_changes[1].slots[SLOT_MAP], 3);
}
END_TEST

/* Triage: B due at 50 s misses even with every slot (61.85 s): favour
 * passes it by, and the slot goes where Algorithm 2 alone puts it, node
 * 3; B is reported late and passed over as hopeless, with that forecast. */
START_TEST(test_favour_passes_hopeless_job_by) {
        favour_fixture(50 * SEC);
        fx_slo()->slo_favour = true;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 2);
        ck_assert_uint_eq(fx.d.slot_changes[0].node, 0);
        ck_assert_uint_eq(fx.d.slot_changes[1].node, 3);
        ck_assert_uint_eq(fx.d.n_deadlines, 1);
        ck_assert(fx.d.deadlines[0].at_risk);
        ck_assert(fx.d.deadlines[0].hopeless);
        ck_assert_double_eq_tol(usec_to_sec(fx.d.deadlines[0].forecast), 61.85, 0.01);
        /* Due at 75 s it is favoured, reported late on its slots (88.9 s)
         * and not hopeless. */
        fx.jobs[fx.d.deadlines[0].job].deadline = 75 * SEC;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_deadlines, 1);
        ck_assert(fx.d.deadlines[0].at_risk);
        ck_assert(!fx.d.deadlines[0].hopeless);
        ck_assert_double_eq_tol(usec_to_sec(fx.d.deadlines[0].forecast), 88.9, 0.05);
}
END_TEST

/* LATE's test for a favoured job's straggler (slo_restart_pays()). Job B,
 * maps profiled at 40 s on 64 MiB, 15 of them, due at 210 s, at t = 75 s
 * on 4 nodes of 2 map slots, node 3 grown to 3 at 20 s (III-E's added
 * slot): maps on nodes 0-2 since 35 s have read 60 MiB (1.5 MiB/s, 37.5 s
 * of work in 40 s each, speed 0.9375); an I/O-bound straggler on node 3
 * since 0 has read 45 MiB (0.6 MiB/s); a new straggler in node 3's added
 * slot since 45 s, whose split is on node 1, has read new_mib. Plain
 * FlexSlot re-places the new one on node 1 (no straggler, a free slot,
 * the split) and resizes the old one (Algorithm 1), whatever either has
 * left. B's replay forecast on the 5 slots it holds is past 210 s (218 s
 * with new_mib 30, 256 s with 6) and before it with every slot (191 s,
 * 204 s): late, and not hopeless. */
static uint32_t b_old_straggler, b_new_straggler;

static void restart_fixture(uint64_t new_mib) {
        static JobProfile p;
        uint32_t locs[15], b;

        for (size_t i = 0; i < ELEMENTSOF(locs); i++)
                locs[i] = NO_INDEX;
        locs[4] = 1;
        p = fx_profile(4, 40, 0, 0);
        fx_cluster(4, 2, 0);
        fx.cfg.slot_manager = "flexslot";
        fx.nodes[3].slots[SLOT_MAP] = 3;
        fx.nodes[3].slots_changed_at = 20 * SEC;
        b = fx_slo_job(1, 210 * SEC, &p, 15, locs);
        for (uint32_t n = 0; n < 3; n++)
                fx_run(fx.first_map[b] + n, n, 35 * SEC, 60 * MIB);
        b_old_straggler = fx_run(fx.first_map[b] + 3, 3, 0, 45 * MIB);
        fx.attempts[b_old_straggler].iowait = 0.5;
        b_new_straggler = fx_run(fx.first_map[b] + 4, 3, 45 * SEC, new_mib);
}

static const Kill *kill_of(uint32_t attempt) {
        for (size_t i = 0; i < fx.d.n_kills; i++)
                if (fx.d.kills[i].attempt == attempt)
                        return &fx.d.kills[i];
        return NULL;
}

/* The new straggler has read 30 MiB in 30 s: 34 s left at its rate, where
 * a fresh copy on node 1 reads 64 MiB in 42.7 s (40 s at node 1's speed
 * 0.9375). The old one has 19 MiB, 31.7 s, left; a fresh copy on its node
 * takes 40 s at node 3's speed, (28.1 + 18.75) s of work in (75 + 30) s =
 * 0.446: 89.6 s. Favouring B, FlexSlot restarts neither. */
START_TEST(test_favour_restarts_no_straggler_nearer_its_end) {
        restart_fixture(30 * MIB);
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 75 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_stragglers, 2);
        ck_assert_int_eq(kill_of(b_old_straggler)->reason, KILL_RESIZE);
        ck_assert_int_eq(kill_of(b_new_straggler)->reason, KILL_REPLACE);
        fx_slo()->slo_favour = true;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 75 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_stragglers, 2);
        ck_assert_uint_eq(fx.d.n_kills, 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
        ck_assert_uint_eq(fx.d.n_deadlines, 1);
        ck_assert(fx.d.deadlines[0].at_risk);
        ck_assert(!fx.d.deadlines[0].hopeless);
}
END_TEST

/* The new straggler has read 6 MiB in 30 s: 290 s left, against 42.7 s
 * for a fresh copy on node 1: re-placed there. The old one's fresh copy on
 * node 3 (now 0.304: 131.8 s) still loses to its 31.7 s: not resized. */
START_TEST(test_favour_replaces_straggler_a_fresh_copy_beats) {
        restart_fixture(6 * MIB);
        fx_slo()->slo_favour = true;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 75 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_stragglers, 2);
        ck_assert_uint_eq(fx.d.n_kills, 1);
        ck_assert_int_eq(kill_of(b_new_straggler)->reason, KILL_REPLACE);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        fx_check_assignment(0, fx.attempts[b_new_straggler].task, 1, true, false);
}
END_TEST

Suite *suite_slo_loop(void) {
        Suite *s = suite_create("slo_loop");
        TCase *tc = tcase_create("speed");

        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_speed_is_work_over_time);
        tcase_add_test(tc, test_forecasts);
        tcase_add_test(tc, test_replay_running_map_at_profile);
        tcase_add_test(tc, test_replay_counts_every_running_task);
        tcase_add_test(tc, test_forecast_on_kept_quota);
        suite_add_tcase(s, tc);
        tc = tcase_create("schedulers");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_aria_quota_at_speed);
        tcase_add_test(tc, test_triage_hopeless_after_others);
        tcase_add_test(tc, test_spare_nearest_to_missing);
        tcase_add_test(tc, test_deadline_admission_at_speed);
        suite_add_tcase(s, tc);
        tc = tcase_create("lever");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_lever_takes_from_best_effort);
        tcase_add_test(tc, test_lever_gives_back);
        tcase_add_test(tc, test_lever_leaves_unmanaged_alone);
        tcase_add_test(tc, test_allocators_skip_other_tenant);
        tcase_add_test(tc, test_other_tenant_weight_only);
        suite_add_tcase(s, tc);
        tc = tcase_create("favour");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_favour_spares_late_straggler);
        tcase_add_test(tc, test_favour_moves_slot_to_late_job);
        tcase_add_test(tc, test_favour_passes_hopeless_job_by);
        tcase_add_test(tc, test_favour_restarts_no_straggler_nearer_its_end);
        tcase_add_test(tc, test_favour_replaces_straggler_a_fresh_copy_beats);
        suite_add_tcase(s, tc);
        return s;
}

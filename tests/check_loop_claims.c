/* SPDX-License-Identifier: MIT */
/* What README.md and sim/README.md claim of the one loop
 * (`flexslot-sim experiment slo-interference`, and its W2 as
 * slo-interference-w2), on the experiments' quick runs (seeds 1-3, five
 * jobs of half the size) and on one job alone: the claims that hold there
 * as at full size. Where the one loop does not do
 * what issue 21 hoped, the test holds what it does; a change that changes
 * a result has to change the claim with it. */
#include <stddef.h>
#include <stdio.h>

#include "common/macro.h"
#include "sim/experiment-internal.h"
#include "sim-test.h"
#include "tests.h"

#define SEEDS 3

static SiSeedResult quick_w1[SEEDS], quick_w2[SEEDS];
/* By the loop tests' index: W1, then W2. */
static SiSeedResult *const quick_of[] = { quick_w1, quick_w2 };
/* The same runs with DRS dividing the pool max-min (`drs.divvy=maxmin`),
 * and on KVM alone, without DRS (`drs.enabled=no`). */
static SiSeedResult maxmin_w1[SEEDS], maxmin_w2[SEEDS];
static SiSeedResult kvm_w1[SEEDS], kvm_w2[SEEDS];
static SiSeedResult *const kvm_of[] = { kvm_w1, kvm_w2 };

static void quick_runs(const ScenarioOverride *overrides, size_t n_overrides, SiSeedResult *w1,
                       SiSeedResult *w2) {
        static char dir[4096];
        ExperimentOptions opt = { .quick = true,
                                  .scenario_dir = dir,
                                  .overrides = overrides,
                                  .n_overrides = n_overrides };
        const Experiment *e = experiment_find("slo-interference");
        const Experiment *e2 = experiment_find("slo-interference-w2");

        snprintf(dir, sizeof(dir), "%s", test_srcdir_path("sim/scenarios"));
        ck_assert_ptr_nonnull(e);
        ck_assert_ptr_nonnull(e2);
        for (int64_t k = 0; k < SEEDS; k++) {
                ck_assert_int_eq(slo_interference_seed(e, &opt, SI_W1, k + 1, &w1[k]), 0);
                ck_assert_int_eq(slo_interference_seed(e2, &opt, SI_W2, k + 1, &w2[k]), 0);
        }
}

static void quick_setup(void) {
        static char maxmin[] = "drs.divvy=maxmin", kvm[] = "drs.enabled=no";
        ScenarioOverride o;

        quick_runs(NULL, 0, quick_w1, quick_w2);
        ck_assert_int_eq(scenario_override_parse(maxmin, &o), 0);
        quick_runs(&o, 1, maxmin_w1, maxmin_w2);
        ck_assert_int_eq(scenario_override_parse(kvm, &o), 0);
        quick_runs(&o, 1, kvm_w1, kvm_w2);
}

/* field (an offsetof in SiArmResult, a double) of arm a summed over the
 * seeds. */
static double over_seeds(const SiSeedResult *r, SiArm a, size_t field) {
        double sum = 0;

        for (size_t k = 0; k < SEEDS; k++)
                sum += slo_interference_arm_value(&r[k], a, field);
        return sum;
}

static double missed_over_seeds(const SiSeedResult *r, SiArm a) {
        return over_seeds(r, a, offsetof(SiArmResult, missed));
}

/* ARIA holds a job to the fewest slots its bound says meet its deadline,
 * and leaves the rest idle; FIFO gives the first job every slot. On the
 * interfered cluster ARIA alone misses at least as many deadlines as
 * FlexSlot alone (FIFO) in every seed. */
START_TEST(test_aria_misses_no_fewer_than_fifo) {
        const SiSeedResult *quick = quick_w1;

        for (size_t k = 0; k < SEEDS; k++)
                ck_assert_msg(quick[k].arm[SI_ARIA].missed >= quick[k].arm[SI_FLEXSLOT].missed,
                              "seed %zu: aria %.0f, flexslot %.0f", k + 1,
                              quick[k].arm[SI_ARIA].missed, quick[k].arm[SI_FLEXSLOT].missed);
}
END_TEST

/* Issue 21's goal, the one loop missing fewer deadlines than every other
 * arm in every seed, is not met, on W1 or W2: in some seed another arm
 * misses as few. */
START_TEST(test_loop_not_best_in_every_seed) {
        const SiSeedResult *quick = quick_of[_i];
        bool tied = false;

        for (size_t k = 0; k < SEEDS; k++)
                for (SiArm a = 0; a < SI_ARMS; a++)
                        tied |= a != SI_LOOP &&
                                quick[k].arm[a].missed <= quick[k].arm[SI_LOOP].missed;
        ck_assert(tied);
}
END_TEST

/* On W1 the goal fails on deadlines that could be met: in some seed the
 * loop misses a deadline another arm met (more misses than the jobs every
 * arm missed), and in none were more jobs late alone on the cluster with
 * every slot and the lever than the loop missed. */
START_TEST(test_loop_misses_what_others_meet) {
        const SiSeedResult *quick = quick_w1;
        bool beaten = false;

        for (size_t k = 0; k < SEEDS; k++) {
                ck_assert_double_ge(quick[k].arm[SI_LOOP].missed, (double)quick[k].late_alone);
                beaten |= quick[k].arm[SI_LOOP].missed > (double)quick[k].missed_by_all;
        }
        ck_assert(beaten);
}
END_TEST

/* How DRS divides the pool decides what the loop is worth. With the
 * proportional divvy (the default: the pool in proportion to the demands,
 * a demand being the use) a VM left idle keeps the small entitlement its
 * idleness earned, and the deadline job's maps placed there crawl under a
 * limit no agent weight lifts: on W1 the loop misses as many deadlines as
 * layered over the seeds. With the max-min divvy (each VM its demand, what
 * is left in equal parts) no VM starves: on W1 the loop misses no more
 * than any other arm in any seed, and fewer than layered and ARIA alone
 * over the seeds; on W2 fewer than layered over the seeds. */
START_TEST(test_divvy_decides_the_loop) {
        ck_assert_double_ge(missed_over_seeds(quick_w1, SI_LOOP),
                            missed_over_seeds(quick_w1, SI_LAYERED));
        for (size_t k = 0; k < SEEDS; k++)
                for (SiArm a = 0; a < SI_ARMS; a++)
                        ck_assert_msg(maxmin_w1[k].arm[SI_LOOP].missed <=
                                              maxmin_w1[k].arm[a].missed,
                                      "max-min, seed %zu: loop %.0f, %s %.0f", k + 1,
                                      maxmin_w1[k].arm[SI_LOOP].missed,
                                      slo_interference_arm_name(a), maxmin_w1[k].arm[a].missed);
        ck_assert_double_lt(missed_over_seeds(maxmin_w1, SI_LOOP),
                            missed_over_seeds(maxmin_w1, SI_LAYERED));
        ck_assert_double_lt(missed_over_seeds(maxmin_w1, SI_LOOP),
                            missed_over_seeds(maxmin_w1, SI_ARIA));
        ck_assert_double_lt(missed_over_seeds(maxmin_w2, SI_LOOP),
                            missed_over_seeds(maxmin_w2, SI_LAYERED));
}
END_TEST

/* On KVM alone, without DRS, the lever's weights are the VMs' CPU shares,
 * which decide who runs on a busy host: the loop misses no more deadlines
 * than ARIA alone or layered in any seed, on W1 and W2, and fewer over the
 * seeds; its lever acts (sets targets) in every seed. */
START_TEST(test_kvm_loop_beats_aria) {
        static const SiArm seed_systems[] = { SI_ARIA, SI_LAYERED };
        const SiSeedResult *kvm = kvm_of[_i];

        for (size_t k = 0; k < SEEDS; k++) {
                ck_assert(!kvm[k].drs);
                ck_assert_double_gt(kvm[k].arm[SI_LOOP].lever_targets, 0);
                for (size_t i = 0; i < ELEMENTSOF(seed_systems); i++) {
                        SiArm a = seed_systems[i];

                        ck_assert_msg(kvm[k].arm[SI_LOOP].missed <= kvm[k].arm[a].missed,
                                      "KVM, seed %zu: loop %.0f, %s %.0f", k + 1,
                                      kvm[k].arm[SI_LOOP].missed, slo_interference_arm_name(a),
                                      kvm[k].arm[a].missed);
                }
        }
        ck_assert_double_lt(missed_over_seeds(kvm, SI_LOOP), missed_over_seeds(kvm, SI_ARIA));
        ck_assert_double_lt(missed_over_seeds(kvm, SI_LOOP), missed_over_seeds(kvm, SI_LAYERED));
        /* The weights take effect: the lever alone changes layered's
         * lateness (without them it runs as layered), on W1 cutting it. */
        ck_assert_double_ne(over_seeds(kvm, SI_LEVER, offsetof(SiArmResult, tardiness)),
                            over_seeds(kvm, SI_LAYERED, offsetof(SiArmResult, tardiness)));
        if (kvm == kvm_w1)
                ck_assert_double_lt(over_seeds(kvm, SI_LEVER, offsetof(SiArmResult, tardiness)),
                                    over_seeds(kvm, SI_LAYERED, offsetof(SiArmResult, tardiness)));
}
END_TEST

/* The lever acts in the arms that have it, and only there. */
START_TEST(test_lever_only_where_on) {
        const SiSeedResult *quick = quick_of[_i];

        for (size_t k = 0; k < SEEDS; k++)
                for (SiArm a = 0; a < SI_ARMS; a++)
                        ck_assert_msg((quick[k].arm[a].lever_targets > 0) ==
                                              (a == SI_LOOP || a == SI_LEVER),
                                      "seed %zu, %s: %.0f targets", k + 1,
                                      slo_interference_arm_name(a), quick[k].arm[a].lever_targets);
}
END_TEST

/* One wordcount job (a tenth of its input: 87 s alone on the cluster) due
 * in 100 s, beside the tenant's wordcount: ARIA alone misses it (143 s,
 * its maps starved by the tenant under DRS's shares); with the lever its
 * VMs get the tenant's weight and it ends in 96 s, and the tenant's job
 * takes longer for it. */
START_TEST(test_lever_meets_one_deadline) {
        static const char *const off[] = { "workload.deadlines=100s", "workload.profile_runs=yes",
                                           NULL };
        static const char *const on[] = { "workload.deadlines=100s", "workload.profile_runs=yes",
                                          "policy.slo_lever=yes", "drs.agent_weights=yes", NULL };
        SimTestRun a, b;

        sim_test_run("sim/scenarios/slo-interference.ini", off, ELEMENTSOF(off), 1, &a);
        sim_test_run("sim/scenarios/slo-interference.ini", on, ELEMENTSOF(on), 1, &b);
        ck_assert_double_gt(sim_results(a.sim)->jobs[0].finished, 130);
        ck_assert_double_le(sim_results(b.sim)->jobs[0].finished, 100);
        ck_assert_uint_gt(sim_results(b.sim)->lever_targets, 0);
        ck_assert_double_gt(sim_results(b.sim)->other_mean_jct, sim_results(a.sim)->other_mean_jct);
        sim_test_done(&a);
        sim_test_done(&b);
}
END_TEST

/* The same wordcount with the slots ARIA's quota leaves idle handed on
 * (slo_spare): off, none go beyond its quota; on, it takes 9 more and ends
 * sooner, though by little (143 s to 142 s): beside the tenant under
 * DRS's shares its maps are short of CPU more than of slots. */
START_TEST(test_spare_slots_speed_one_job) {
        static const char *const off[] = { "workload.deadlines=100s", "workload.profile_runs=yes",
                                           NULL };
        static const char *const on[] = { "workload.deadlines=100s", "workload.profile_runs=yes",
                                          "policy.slo_spare=yes", NULL };
        SimTestRun a, b;

        sim_test_run("sim/scenarios/slo-interference.ini", off, ELEMENTSOF(off), 1, &a);
        sim_test_run("sim/scenarios/slo-interference.ini", on, ELEMENTSOF(on), 1, &b);
        ck_assert_uint_eq(sim_results(a.sim)->spare_slots, 0);
        ck_assert_uint_gt(sim_results(b.sim)->spare_slots, 0);
        ck_assert_double_lt(sim_results(b.sim)->jobs[0].finished,
                            sim_results(a.sim)->jobs[0].finished);
        sim_test_done(&a);
        sim_test_done(&b);
}
END_TEST

Suite *suite_loop_claims(void) {
        Suite *s = suite_create("loop_claims");
        TCase *tc = tcase_create("quick");

        tcase_add_unchecked_fixture(tc, quick_setup, NULL);
        tcase_set_timeout(tc, 300);
        tcase_add_test(tc, test_aria_misses_no_fewer_than_fifo);
        tcase_add_loop_test(tc, test_loop_not_best_in_every_seed, 0, ELEMENTSOF(quick_of));
        tcase_add_loop_test(tc, test_lever_only_where_on, 0, ELEMENTSOF(quick_of));
        tcase_add_test(tc, test_loop_misses_what_others_meet);
        tcase_add_test(tc, test_divvy_decides_the_loop);
        tcase_add_loop_test(tc, test_kvm_loop_beats_aria, 0, ELEMENTSOF(kvm_of));
        suite_add_tcase(s, tc);
        tc = tcase_create("one job");
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_lever_meets_one_deadline);
        tcase_add_test(tc, test_spare_slots_speed_one_job);
        suite_add_tcase(s, tc);
        return s;
}

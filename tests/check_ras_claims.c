/* SPDX-License-Identifier: MIT */
/* What sim/README.md claims the model shows of RAS (`ras-exp1`,
 * `ras-exp2`), at the paper's size over three seeds: Table 1's 9 Gridmix
 * jobs on the 20 trackers of sim/scenarios/ras.ini. Where the model
 * disagrees with the paper (RAS's gain over Fair's best static
 * configuration is under 1 % here, 5 % in the paper), the test holds what
 * the model shows; a change of the model or of RAS that changes a result
 * has to change the claim with it. */
#include <stdio.h>

#include "common/macro.h"
#include "sim-test.h"
#include "tests.h"

#define SEEDS 3
#define JOBS 9

typedef enum Setting {
        FAIR_1,
        FAIR_2,
        FAIR_4,
        FAIR_8,
        RAS,
        RAS_GOALS, /* Table 1's goals */
        _SETTING_MAX,
} Setting;

#define GOALS "workload.deadlines=3000s,750s,1050s,750s,450s,2000s,4900s,900s,500s"

static const char *const settings[_SETTING_MAX][4] = {
        [FAIR_1] = { "hadoop.map_slots=1" },
        [FAIR_2] = { "hadoop.map_slots=2" },
        [FAIR_4] = { "hadoop.map_slots=4" },
        [FAIR_8] = { "hadoop.map_slots=8" },
        [RAS] = { "policy.scheduler=ras", "hadoop.map_slots=16", "hadoop.reduce_slots=4" },
        [RAS_GOALS] = { "policy.scheduler=ras", "hadoop.map_slots=16", "hadoop.reduce_slots=4",
                        GOALS },
};

/* Table 1's goals, from the start. */
static const double goal[JOBS] = { 3000, 850, 1250, 1100, 950, 2600, 6000, 3400, 4250 };

typedef struct Run {
        double makespan;
        double finished[JOBS];
} Run;

static Run runs[_SETTING_MAX][SEEDS];

static void run_setting(Setting s, int64_t seed, Run *ret) {
        SimTestRun run;

        sim_test_run("sim/scenarios/ras.ini", settings[s], ELEMENTSOF(settings[s]), seed, &run);
        ck_assert_uint_eq(sim_results(run.sim)->n_jobs, JOBS);
        ret->makespan = sim_results(run.sim)->makespan;
        for (size_t j = 0; j < JOBS; j++)
                ret->finished[j] = sim_results(run.sim)->jobs[j].finished;
        sim_test_done(&run);
}

static void runs_setup(void) {
        for (Setting s = 0; s < _SETTING_MAX; s++)
                for (int64_t k = 0; k < SEEDS; k++)
                        run_setting(s, k + 1, &runs[s][k]);
}

/* Experiment 1 (Fig. 3): RAS's makespan is below Fair's at 1, 2, 4 and 8
 * map slots in every seed, as in the paper, but by less: within 2 % of
 * the best static configuration (the paper's is 5 %), 15 % and more
 * below one slot. The last job (J9, submitted at 3,750 s) ends every
 * run, so the makespans differ by how soon it gets the cluster. */
START_TEST(test_ras_exp1_makespan) {
        for (size_t k = 0; k < SEEDS; k++) {
                double ras = runs[RAS][k].makespan;

                for (Setting s = FAIR_1; s <= FAIR_8; s++)
                        ck_assert_msg(ras < runs[s][k].makespan,
                                      "seed %zu: RAS %.0f s, Fair %d: %.0f s", k + 1, ras, s,
                                      runs[s][k].makespan);
                ck_assert_msg(runs[FAIR_2][k].makespan / ras < 1.02,
                              "seed %zu: Fair 2 %.0f, RAS %.0f", k + 1, runs[FAIR_2][k].makespan,
                              ras);
                ck_assert_msg(runs[FAIR_1][k].makespan / ras > 1.15,
                              "seed %zu: Fair 1 %.0f, RAS %.0f", k + 1, runs[FAIR_1][k].makespan,
                              ras);
        }
}
END_TEST

/* Experiment 2: with Table 1's goals RAS meets all 9 in every seed (the
 * paper's RAS misses J1 by 18 s and J2 by 46 s: our jobs are shorter),
 * while Fair at 2 map slots, its best here, misses J1 (sort 90G) and J8
 * (sort 19G) in every seed. But RAS with relaxed goals meets all 9 of
 * them too: the goals decide no verdict here, which is why ras-exp2 also
 * runs goals as tight against our jobs as Table 1's against the paper's. */
START_TEST(test_ras_exp2_goals) {
        for (size_t k = 0; k < SEEDS; k++) {
                for (size_t j = 0; j < JOBS; j++) {
                        ck_assert_msg(runs[RAS_GOALS][k].finished[j] <= goal[j],
                                      "seed %zu: J%zu ends at %.0f s, goal %.0f s", k + 1, j + 1,
                                      runs[RAS_GOALS][k].finished[j], goal[j]);
                        ck_assert_msg(runs[RAS][k].finished[j] <= goal[j],
                                      "seed %zu: relaxed, J%zu ends at %.0f s, goal %.0f s", k + 1,
                                      j + 1, runs[RAS][k].finished[j], goal[j]);
                }
                ck_assert_double_gt(runs[FAIR_2][k].finished[0], goal[0]);
                ck_assert_double_gt(runs[FAIR_2][k].finished[7], goal[7]);
        }
}
END_TEST

Suite *suite_ras_claims(void) {
        Suite *s = suite_create("ras_claims");
        TCase *tc = tcase_create("claims");

        tcase_add_unchecked_fixture(tc, runs_setup, NULL);
        tcase_set_timeout(tc, 600);
        tcase_add_test(tc, test_ras_exp1_makespan);
        tcase_add_test(tc, test_ras_exp2_goals);
        suite_add_tcase(s, tc);
        return s;
}

/* SPDX-License-Identifier: MIT */
#include "sim-test.h"

#include "tests.h"

#define SIM_TEST_SETS 8

void sim_test_run(const char *scenario, const char *const *sets, size_t max_sets, int64_t seed,
                  SimTestRun *ret) {
        ScenarioOverride o[SIM_TEST_SETS];
        char err[512] = "";
        size_t n = 0;

        *ret = (SimTestRun){ 0 };
        while (n < max_sets && sets[n]) {
                ck_assert_uint_lt(n, SIM_TEST_SETS);
                ck_assert_int_eq(scenario_override_parse(sets[n], &o[n]), 0);
                n++;
        }
        ck_assert_msg(scenario_load(test_srcdir_path(scenario), o, n, &ret->sc, err, sizeof(err)) ==
                              0,
                      "%s", err);
        ret->sc.seed = seed;
        ck_assert_msg(workload_load(ret->sc.workload_file, &ret->wl, err, sizeof(err)) == 0, "%s",
                      err);
        ck_assert_msg(sim_new(&ret->sc, &ret->wl, &ret->sim, err, sizeof(err)) == 0, "%s", err);
        ck_assert_int_eq(sim_run(ret->sim), 0);
}

void sim_test_done(SimTestRun *r) {
        sim_free(r->sim);
        workload_done(&r->wl);
        scenario_done(&r->sc);
        *r = (SimTestRun){ 0 };
}

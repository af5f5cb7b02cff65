/* SPDX-License-Identifier: MIT */
#pragma once

/* A whole simulator run for the suites that check what the model claims
 * (check_sim_claims.c, check_ras_claims.c). */

#include <stddef.h>
#include <stdint.h>

#include "sim/scenario.h"
#include "sim/sim.h"
#include "sim/workload.h"

typedef struct SimTestRun {
        Scenario sc;
        Workload wl;
        Sim *sim;
} SimTestRun;

/* Loads scenario (a path in the source tree) with the first sets of
 * "section.key=value" (up to a NULL) and seed, and runs it to its end;
 * the test fails on any error. */
void sim_test_run(const char *scenario, const char *const *sets, size_t max_sets, int64_t seed,
                  SimTestRun *ret);
void sim_test_done(SimTestRun *r);

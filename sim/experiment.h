/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/scenario.h"
#include "sim/sim.h"

/* The FlexSlot paper's experiments: each runs scenario files under policy
 * variants and prints our figures beside the paper's. */

typedef struct ExperimentOptions {
        const char *scenario_dir;
        const char *out; /* NULL: no files */
        bool quick;
        bool seed_set;
        int64_t seed;
        /* --set values, applied to every scenario before the variants. */
        const ScenarioOverride *overrides;
        size_t n_overrides;
        SimProgressFn progress; /* NULL: none; given to every run */
        void *progress_data;
} ExperimentOptions;

typedef struct Experiment Experiment;

const Experiment *experiment_find(const char *name);
void experiment_list(FILE *f);
/* Returns an exit status: 0, 1 (a run failed) or 2 (a bad file). */
int experiment_run(const char *name, const ExperimentOptions *opt);

typedef struct Spread Spread;

/* Says how ours, variant's normalized job completion times on n benchmarks
 * (means and ranges over seeds), compare with the paper's figures for them
 * (low[i]..high[i]): the ranges, how many agree, on how many the variant is
 * faster or slower than stock in every seed, and whether the model
 * reproduces the paper's gain, as the numbers say. Nothing for n == 0. */
void experiment_compare_print(FILE *f, const char *variant, const Spread *ours, const double *low,
                              const double *high, size_t n);

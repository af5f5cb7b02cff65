/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdio.h>

#include "sim/sim.h"

/* Statistical skewness of FlexSlot II-B: (1/n) sum ((x_i - mu)^3 / sigma^3),
 * with sigma the population standard deviation; 0 when sigma is 0. */
double skewness(const double *x, size_t n);

/* Figures of one run, from its results. */
typedef struct RunSummary {
        double jct;          /* first job's completion time, seconds */
        double mean_jct;     /* over all jobs */
        double map_skewness; /* of map task times (first start to finish) */
        double map_mean, map_p50, map_p95, map_max;
        double cpu, iowait, steal, queue; /* mean seconds per map task */
        unsigned maps, stragglers, resized, resize_kills;
        unsigned slot_changes;      /* changes of a node's map slots */
        double kills_per_straggler; /* resize kills / tasks resized at least once */
        double cpu_util, mem_util;  /* mean over the run */
        double events;
} RunSummary;

int run_summarize(const SimResults *r, RunSummary *ret);
void run_summary_print(FILE *f, const RunSummary *s);

/* Writes jobs.csv, tasks.csv, nodes.csv, util.csv into dir (created if
 * missing) and, when gnuplot is installed, task-cdf.png,
 * task-breakdown.png and nodes.png with the scripts that made them. */
int report_write(const char *dir, const SimResults *r);
/* Runs gnuplot on script; -ENOENT when gnuplot is missing. */
int report_gnuplot(const char *dir, const char *script_name, const char *script);
/* Creates dir and its parents. */
int report_mkdir(const char *dir);

/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdio.h>

#include "sim/results.h"

/* Figures of one run, from its results. */
typedef struct RunSummary {
        double jct;        /* first job's completion time, seconds */
        SimBound bound;    /* the first job's lower bound (sim/bound.c) */
        double pair_bound; /* SimResults' with a co-running cluster, else 0 */
        double mean_jct;   /* over all jobs */
        double makespan;   /* the last job's end, seconds */
        /* Jobs with a deadline that ran: by it, after it; jobs refused at
         * submission. The job times above are of the jobs that ran. */
        unsigned deadlines_met, deadlines_missed, refused;
        double map_skewness; /* of map task times (first start to finish) */
        double map_mean, map_p50, map_p95, map_max;
        double cpu, iowait, steal, queue; /* mean seconds per map task */
        unsigned maps, stragglers, resized, resize_kills;
        unsigned local_maps;   /* maps that read their split where it is stored */
        unsigned slot_changes; /* changes of a node's map slots */
        /* DynamicMR's decisions (SimResults) */
        unsigned borrowed, reservations, retry_kills;
        double kills_per_straggler; /* resize kills / tasks resized at least once */
        double cpu_util, mem_util;  /* mean over the run */
        double events;
        /* The slowest tenth of the maps (FlexSlot Fig. 6): mean seconds of
         * each kind, their mean input, and all maps' mean input (MB). */
        double slow_cpu, slow_iowait, slow_steal, slow_queue, slow_input_mb, map_input_mb;
        /* Mean map time of the fastest half and of the slowest tenth (Fig. 3). */
        double fast_half_mean, slow_tenth_mean;
        /* Maps finished and CPU used per slave, fewest and most (Fig. 4). */
        unsigned node_maps_min, node_maps_max;
        double node_cpu_min, node_cpu_max;
        double tail_share; /* of the first job's time, after its last map finished */
        /* The hosts' idle pCPU time over their pCPUs (seconds: the time
         * they all idled, as it were) before the first job's last map
         * started, from then until its last map ended (its last wave:
         * no map waited for a slot), and after. */
        double idle_early, idle_last_wave, idle_tail;
} RunSummary;

int run_summarize(const SimResults *r, RunSummary *ret);
/* The run's completion time over its lower bound (>= 1); what any policy
 * could save of the run's time is 1 - 1 / that. */
double run_bound_ratio(const RunSummary *s);
/* Share of the slowest tenth of the maps' time spent in steal. */
double run_slow_steal_share(const RunSummary *s);
void run_summary_print(FILE *f, const RunSummary *s);
/* One line for each job with a deadline or refused: when it ended beside its
 * deadline, or why it was refused. */
void run_deadlines_print(FILE *f, const SimResults *r);

/* Creates dir and its parents and checks that files can be made in it:
 * what --out needs before a run starts. Logs why not. */
int report_prepare_dir(const char *dir);

/* Writes one file, dir/name, with fill (which returns 0 or a negative
 * errno); write errors include those fclose() reports. Logs why not. */
typedef int (*ReportFill)(FILE *f, const void *userdata);
int report_write_file(const char *dir, const char *name, ReportFill fill, const void *userdata);

/* Writes s as the inside of a single-quoted gnuplot string. */
void report_quote(FILE *f, const char *s);
/* The commands around one chart's settings and plot command in a gnuplot
 * script: it starts from gnuplot's defaults with CSV input (header line
 * skipped) and a grid, goes to name.png, then again to name.svg. */
void report_chart_begin(FILE *f, const char *name, unsigned width, unsigned height);
void report_chart_end(FILE *f, const char *name, unsigned width, unsigned height);

/* What report_plot() and report_write() return when gnuplot is not
 * installed: the script is written, the charts are not. */
#define REPORT_NO_GNUPLOT 1

/* Runs gnuplot on dir/script_name in dir: 0, REPORT_NO_GNUPLOT, or a
 * negative errno (logged, with gnuplot's exit status when it failed). */
int report_plot(const char *dir, const char *script_name);

/* Writes jobs.csv, tasks.csv, nodes.csv, util.csv, map-cdf.csv and
 * map-breakdown.csv into dir (report_prepare_dir() first) and the charts
 * task-cdf, task-breakdown, nodes, maps-per-node and util (PNG and SVG)
 * with charts.gp, which made them; run names the run in the charts'
 * titles. Returns as report_plot() does; logs its errors. */
int report_write(const char *dir, const char *run, const SimResults *r);

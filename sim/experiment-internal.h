/* SPDX-License-Identifier: MIT */
#pragma once

/* What the experiments' files share: the registry's types (experiment-registry.c),
 * the harness (experiment-cell.c), the figures (experiment-figures.c), the
 * output (experiment-output.c), and each paper's experiments
 * (experiment-flexslot.c, -dmr.c, -slo.c, -ras.c, -alloc.c). */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/time-util.h"
#include "sim/experiment.h"
#include "policy/layers/aria-model.h"
#include "sim/report.h"

#define MAX_VARIANTS 10
#define MAX_ROWS 8
#define MAX_SEEDS 16
#define MAX_VARIANT_SETS 12

typedef enum Metric {
        METRIC_JCT,   /* completion time normalized to the first variant */
        METRIC_KILLS, /* resize kills per resized straggler */
        METRIC_SKEW,  /* skewness of map task times */
} Metric;

/* Who sizes the measured cluster's VMs. */
typedef enum Cloud {
        CLOUD_SCENARIO, /* as the scenario file says */
        CLOUD_DRS,      /* VMware DRS (sim/drs.c), as under the paper's stock Hadoop */
        CLOUD_HOMO,     /* nobody: each VM capped at an equal part of the pool (II-B's Homo) */
        CLOUD_AGENT,    /* the cluster's own VM allocator, no DRS (flexslot's agent on KVM) */
        CLOUD_KVM,      /* nobody: equal shares of each host, no cap (KVM's defaults) */
} Cloud;

typedef struct Variant {
        const char *label;
        const char *slot_manager, *allocator; /* NULL: the scenario's */
        Cloud cloud;
        bool unlimited;
        double alpha;          /* 0: the scenario's */
        usec_t locality_delay; /* 0: the scenario's */
        /* "section.key=value" applied after everything else (NULL-ended). */
        const char *sets[MAX_VARIANT_SETS];
        /* A workload file's text the jobs come from instead of the
         * scenario's file (an experiment's own draws); NULL: the file. */
        const char *workload_text;
} Variant;

typedef struct Row {
        const char *benchmark;
        /* The paper's figure for the experiment's paper_variant, which the
         * chart shows: a number, a range "low-high" or "~number"; or a note. */
        const char *paper;
} Row;

typedef int (*ExperimentFunc)(const Experiment *e, const ExperimentOptions *opt);

struct Experiment {
        const char *name, *title, *scenario;
        ExperimentFunc custom; /* runs instead of the variants x rows table */
        Metric metric;
        const char *paper_label;
        const char *paper_variant; /* the variant the paper's figures are for */
        Variant variants[MAX_VARIANTS];
        Row rows[MAX_ROWS];
        const char *note;
};

size_t experiment_n_variants(const Experiment *e);
size_t experiment_n_rows(const Experiment *e);
/* The index of the variant with that label; SIZE_MAX when none has it
 * (or label is NULL). */
size_t experiment_variant_index(const Experiment *e, const char *label);

/* A mean over seeds and how far the seeds went from it. */
struct Spread {
        double mean, min, max;
};

Spread spread_of(const double *x, size_t n);
/* "mean±h", h half the range; "-" for a NAN mean. */
const char *spread_format(char *buf, size_t size, Spread s, int decimals);
#define SPREAD_TEXT_MAX 32

/* The figures of one run the experiments show: fig_NAME(run) for a field of
 * RunSummary, and a few computed from several. */
#define RUN_FIELDS(X)                  \
        X(skewness, map_skewness)      \
        X(jct, jct)                    \
        X(fast_half, fast_half_mean)   \
        X(slow_tenth, slow_tenth_mean) \
        X(maps_min, node_maps_min)     \
        X(maps_max, node_maps_max)     \
        X(cpu_min, node_cpu_min)       \
        X(cpu_max, node_cpu_max)       \
        X(slow_cpu, slow_cpu)          \
        X(slow_iowait, slow_iowait)    \
        X(slow_steal, slow_steal)      \
        X(slow_queue, slow_queue)      \
        X(tail, tail_share)            \
        X(cpu, cpu)                    \
        X(iowait, iowait)              \
        X(steal, steal)                \
        X(queue, queue)                \
        X(resize_kills, resize_kills)  \
        X(slot_changes, slot_changes)
#define DECLARE_FIGURE(name, field) double fig_##name(const RunSummary *s);
RUN_FIELDS(DECLARE_FIGURE)
#undef DECLARE_FIGURE
double fig_bound_ratio(const RunSummary *s);
double fig_bound_seconds(const RunSummary *s); /* the bound the ratio divides by */
double fig_maps_ratio(const RunSummary *s);    /* most over fewest maps per slave */
double fig_steal_share(const RunSummary *s);   /* of the slowest tenth's time */

/* One benchmark under one variant, run once per seed. */
typedef struct Cell {
        RunSummary runs[MAX_SEEDS];
        double other_jct[MAX_SEEDS]; /* co-running cluster's mean, 0 without */
        size_t n;
        bool no_charts; /* --out wrote its CSV files only: no gnuplot */
} Cell;

/* The seeds every experiment runs: the first and how many. */
int64_t experiment_first_seed(const ExperimentOptions *opt);
size_t experiment_seeds(const ExperimentOptions *opt);

/* The experiment's metric for variant v of a row of cells (one per
 * variant) in seed k's run; NAN where there is none. */
double cell_value(const Experiment *e, const Cell *row, size_t v, size_t k);
/* The same over the seeds. */
Spread cell_spread(const Experiment *e, const Cell *row, size_t v);
double cell_jct(const Cell *c, size_t k);
/* b's completion time over a's in the same seed (FlexSlot's over stock's,
 * say), over the seeds both ran. */
Spread seed_ratio(const Cell *a, const Cell *b);
/* Of a figure of each seed's run: fn(&c->runs[k]). */
Spread cell_figure(const Cell *c, double (*fn)(const RunSummary *));

/* A simulator built for one run, and what it was built from. */
typedef struct CellRun {
        Scenario sc;
        Workload wl;
        Sim *sim;
} CellRun;

/* Loads the experiment's scenario with the variant's settings for
 * benchmark (NULL: the scenario's jobs) and seed and builds the simulator
 * into c; returns an exit status. */
int cell_open(const Experiment *e, const Variant *v, const char *benchmark, int64_t seed,
              const ExperimentOptions *opt, CellRun *c);
void cell_close(CellRun *c);
/* Runs an opened cell as its k-th seed into ret->runs[k] and summarizes it
 * (and writes its files with --out, for the first seed); returns an exit
 * status. */
int cell_run_seed(CellRun *c, const Experiment *e, const Variant *v, const char *benchmark,
                  const ExperimentOptions *opt, Cell *ret, size_t k);

/* One simulator run of benchmark under variant (its label names the run's
 * files); returns an exit status. */
int run_cell(const Experiment *e, const Variant *v, const char *benchmark,
             const ExperimentOptions *opt, Cell *ret);
/* Every variant of every row of the experiment: *ret = cells[row * nv +
 * variant], freed by the caller; returns an exit status. */
int run_cells(const Experiment *e, const ExperimentOptions *opt, Cell **ret);
/* FlexSlot's Table I, Figs. 3, 4 and 6 (by the experiment's name), Fig. 9
 * and the sensitivity runs (experiment-flexslot.c). */
int flexslot_table1_run(const Experiment *e, const ExperimentOptions *opt);
int flexslot_motivation_run(const Experiment *e, const ExperimentOptions *opt);
int flexslot_breakdown_run(const Experiment *e, const ExperimentOptions *opt);
int flexslot_sensitivity_run(const Experiment *e, const ExperimentOptions *opt);
/* The DynamicMR paper's Fig. 8 (experiment-dmr.c). */
int dmr_fig8_run(const Experiment *e, const ExperimentOptions *opt);
/* The deadline papers' experiments on the task-level replay
 * (experiment-slo.c). */
int slo_dcs_run(const Experiment *e, const ExperimentOptions *opt);
int slo_fig5_run(const Experiment *e, const ExperimentOptions *opt);
int slo_table3_run(const Experiment *e, const ExperimentOptions *opt);

/* How dcs draws a run's tasks: each map and reduce phase uniform in [ratio
 * x its estimate, its estimate]; each reduce copies its share of the map
 * output, or all of it with whole_copy. */
typedef struct DcsDraw {
        double ratio;
        bool whole_copy;
} DcsDraw;
/* The experiment's: case 1's observed 37/120, the shares. */
extern const DcsDraw dcs_draw_default;

/* One run of dcs: its finish (s; INFINITY when refused at submission) and
 * the most maps and reduces it ran at once. */
typedef struct DcsRun {
        unsigned maps, reduces;
        double finished;
        bool refused;
} DcsRun;

/* Case c (0, 1) at its deadline d (0, 1), the tasks drawn with seed, under
 * the policy settings of opt's --set (opt may be NULL). */
int slo_dcs_cell(const ExperimentOptions *opt, size_t c, size_t d, const DcsDraw *draw,
                 int64_t seed, DcsRun *ret);

/* One run of aria-table3: workload 0 (W1) or 1 (W2) of jobs jobs (at most
 * 100) drawn with seed, under scheduler (aria under bound, whose pairs gate
 * the arrivals; another under bound's gate) with arrivals below threshold,
 * and the settings of opt's --set (opt may be NULL). */
typedef struct SloTable3Result {
        double utility; /* ARIA's SLO-exceeded utility, % */
        double missed;  /* jobs */
        double load;    /* running tasks over all slots, % */
} SloTable3Result;

/* ARIA's W2 (the Yahoo! workload, section 7.2 and Table 2): each job's task
 * counts from the M45 study, N(154, 558) maps and N(19, 145) reduces, and
 * task times the paper chose, N(100, 20) s a map and N(300, 30) s a reduce
 * (shuffle and sort included). At least one task and one second: an
 * assumption the paper needs too. */
#define W2_MAPS_MEAN 154
#define W2_MAPS_SD 558
#define W2_REDUCES_MEAN 19
#define W2_REDUCES_SD 145
#define W2_MAP_MEAN 100.0
#define W2_MAP_SD 20.0
#define W2_REDUCE_MEAN 300.0
#define W2_REDUCE_SD 30.0

/* One draw of a normal distribution (Box-Muller) from xsubi, at least lo. */
double experiment_normal(unsigned short xsubi[3], double mean, double sd, double lo);
/* One W2 job's map and reduce counts, from xsubi. */
void aria_w2_counts(unsigned short xsubi[3], unsigned *ret_maps, unsigned *ret_reduces);

int slo_table3_cell(const ExperimentOptions *opt, unsigned workload, size_t jobs, int64_t seed,
                    const char *scheduler, AriaBound bound, double threshold, SloTable3Result *ret);
/* The one loop against the seed systems on the interfered cluster
 * (experiment-interference.c). */
typedef enum SiArm {
        SI_ARIA,     /* ARIA alone */
        SI_FLEXSLOT, /* FlexSlot alone (FIFO) */
        SI_LAYERED,  /* ARIA and FlexSlot layered as they are */
        SI_LOOP,     /* the one loop: speed, lever and favour */
        SI_SPEED,    /* layered with each part alone */
        SI_LEVER,
        SI_FAVOUR,
        SI_ARMS,
} SiArm;

/* The forecasts measured: ARIA's average bound and the replay, each as
 * profiled and at the measured speed (slo-loop.h). */
typedef enum SiForecast {
        SI_BOUND_PLAIN,
        SI_BOUND_SPEED,
        SI_REPLAY_PLAIN,
        SI_REPLAY_SPEED,
        SI_FORECASTS,
} SiForecast;

#define SI_JOBS 10     /* deadline jobs a seed */
#define SI_FRACTIONS 3 /* 25, 50 and 75 % of each job's time */
#define SI_FACTORS 4   /* deadlines of 1-1.5, 1.5-2, 2-2.5 and 2.5-3 T_J */

typedef struct SiArmResult {
        double missed, tardiness, utility; /* utility: ARIA's, % */
        double tenant_slowdown;            /* the tenant's mean job time over alone */
        double lever_targets;
        double spare_slots; /* SimResults.spare_slots */
        /* Each job's finish less its deadline (s, + late; INFINITY:
         * refused; NAN: no deadline), by its place in the seed. */
        double late[SI_JOBS];
        /* Jobs, and those missed, by their deadline over T_J. */
        double jobs_by[SI_FACTORS], missed_by[SI_FACTORS];
        /* Mean |forecast - end| and mean signed error over the jobs, over
         * their length, by forecast and fraction of the job. */
        double error[SI_FORECASTS][SI_FRACTIONS], bias[SI_FORECASTS][SI_FRACTIONS];
} SiArmResult;

typedef struct SiSeedResult {
        size_t jobs;
        char job_name[SI_JOBS][24]; /* each job's benchmark (W1) or name (W2) */
        SiArmResult arm[SI_ARMS];
        /* Deadline jobs late even alone on the cluster (FIFO, every slot,
         * the lever) beside the tenant running the same job, and those
         * every arm missed. */
        size_t late_alone, missed_by_all;
        bool drs; /* DRS sized the VMs; else KVM's shares alone */
} SiSeedResult;

/* Its deadline jobs: ARIA's W1 (as the PUMA benchmarks) or W2. */
typedef enum SiWorkload {
        SI_W1,
        SI_W2,
} SiWorkload;

const char *slo_interference_arm_name(SiArm arm);
/* The double at offset (an offsetof in SiArmResult) of arm a's result. */
double slo_interference_arm_value(const SiSeedResult *res, SiArm a, size_t offset);
/* Every arm of one seed of workload (e: slo-interference's entry or its
 * W2's); returns an exit status. */
int slo_interference_seed(const Experiment *e, const ExperimentOptions *opt, SiWorkload workload,
                          int64_t seed, SiSeedResult *ret);
int slo_interference_run(const Experiment *e, const ExperimentOptions *opt);
int slo_interference_w2_run(const Experiment *e, const ExperimentOptions *opt);

/* Our VM allocator against the baselines and the bound (experiment-alloc.c). */
int alloc_run(const Experiment *e, const ExperimentOptions *opt);
/* The RAS paper's Experiments 1 and 2 (experiment-ras.c). */
int ras_exp1_run(const Experiment *e, const ExperimentOptions *opt);
int ras_exp2_run(const Experiment *e, const ExperimentOptions *opt);
/* Its Figs. 9, 10 and 12. */
int dmr_fig9_run(const Experiment *e, const ExperimentOptions *opt);
int dmr_fig10_run(const Experiment *e, const ExperimentOptions *opt);
int dmr_fig12_run(const Experiment *e, const ExperimentOptions *opt);

/* The table of ours beside the paper's, with what it says about the
 * paper's figures and the decisions of every run, on stdout. */
void table_print(const Experiment *e, const Cell *cells, size_t nv, size_t nr,
                 const ExperimentOptions *opt);
/* The title line: the title, the seeds, and [quick] when it is. */
void title_print(const Experiment *e, const ExperimentOptions *opt);
/* Each run's completion time over its lower bound, the first variant's
 * distance from it and its share of time after the last map. */
void bound_print(const Experiment *e, const Cell *cells, size_t nv, size_t nr);
/* Only the decisions of every run (resize kills, map slot changes). */
void decisions_print(const Experiment *e, const Cell *cells, size_t nv, size_t nr);
/* Writes the table as out/NAME/NAME.csv and its charts; returns as
 * report_plot() does. */
int table_write(const Experiment *e, const Cell *cells, size_t nv, size_t nr,
                const ExperimentOptions *opt);
/* Where --out put the files; table: there is a NAME.csv with its charts;
 * no_charts: gnuplot was missing for it. */
void files_print(const Experiment *e, const ExperimentOptions *opt, const Cell *cells, size_t n,
                 bool table, bool no_charts);

/* SPDX-License-Identifier: MIT */
#pragma once

/* A SWIM trace (sim/swim.h) run on a scenario's cluster: each job made into
 * the simulator's map and reduce tasks by the model below, the whole trace
 * run under one or more configurations of policy layers through sim_new()
 * and sim_run(), and each job's completion time beside the same job's run
 * alone on the cluster.
 *
 * The model (README.md's "Replaying a trace" names the sources):
 * - sizes: every byte count times data_scale, by default the cluster's
 *   slaves over the 600 machines of Facebook's 2009 cluster, as SWIM's
 *   GenerateReplayScript scales a trace to the cluster it runs on;
 * - maps: one per block of (scaled) input, the last one the rest: ceil(input
 *   / block_size), Hadoop 1.1.1's FileInputFormat on files of a block
 *   (64 MB, dfs.block.size's default); a job without input still runs one
 *   map, as FileInputFormat gives an empty file one empty split;
 * - reduces: none for a job without shuffle bytes (a map-only job, whose
 *   maps write its output as they go, without a sort buffer, as Hadoop
 *   1.1.1's MapTask does with no reduces); else SWIM's
 *   GenerateReplayScript's rule, round((shuffle + output) / reduce_bytes)
 *   with reduce_bytes a block, at least 1, and (an assumption: SWIM's own
 *   cap, a fifth of the machines past the machines, is not monotone) at
 *   most the cluster's reduce slots;
 * - per-MB CPU: every job's maps and reduces cost what the benchmark costs
 *   (by default PUMA's wordcount in sim/workloads/puma.csv). An
 *   assumption: the trace gives bytes, not CPU; `--costs` shows how much
 *   the results depend on it;
 * - the shuffle bytes are what the maps write (the trace counts them after
 *   any combiner: no combiner and no expensive records here), split
 *   evenly over the reduces; each reduce writes its share of the output.
 *
 * With live set (--live), each job is what tools/swim-load.sh submits to
 * the live stack instead, so that a replay in the simulator and one on the
 * live cluster run the same work: the trace's map input and reduces, but
 * what the maps write, the combiner and what the reduces write are the
 * costs benchmark's own (the live job is that application over text), and a
 * job without shuffle bytes still has its reduces (at least one: the live
 * controller runs no map-only job). */

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/results.h"
#include "sim/scenario.h"
#include "sim/swim.h"
#include "sim/workload.h"

/* SWIM's FB-2009 samples come from a cluster of this many machines. */
#define TRACE_SOURCE_MACHINES 600
#define TRACE_COSTS_DEFAULT "wordcount"
#define TRACE_MAX_CONFIGS 8
#define TRACE_MAX_SEEDS 16
/* Seeds without --seeds: as the experiments' --quick. */
#define TRACE_DEFAULT_SEEDS 3
#define TRACE_MAX_SETS 12
#define TRACE_LABEL_MAX 64

typedef struct TraceModel {
        double data_scale, time_scale;
        double block_size, reduce_bytes; /* bytes */
        unsigned max_reduces;
        const Benchmark *costs; /* map_cpu_per_mb and reduce_cpu_per_mb */
        bool live;              /* the jobs as tools/swim-load.sh runs them */
} TraceModel;

/* The model's task counts of one job. */
unsigned trace_maps(const TraceModel *m, const SwimJob *job);
unsigned trace_reduces(const TraceModel *m, const SwimJob *job);

/* A configuration: layer names and settings joined by '+', e.g.
 * "fair+flexslot" or "aria+flexslot+slo_speed=yes". A name is a
 * scheduler, else a slot manager, a speculation or a VM allocator of the
 * registry (policies.h), in that order; "loop" is the one loop's layers
 * (ARIA and FlexSlot with slo_speed, slo_favour and slo_lever, and the
 * agents' weights beside DRS); KEY=VALUE is a [policy] key, SECTION.KEY=VALUE
 * any scenario key. */
typedef struct TraceConfig {
        char label[TRACE_LABEL_MAX];
        char sets[TRACE_MAX_SETS][96]; /* "section.key=value" */
        size_t n_sets;
} TraceConfig;

/* -EINVAL with err naming the part that is wrong. */
int trace_config_parse(const char *spec, TraceConfig *ret, char *err, size_t err_size);

typedef struct TraceOptions {
        uint32_t given; /* the command line's options: bits 1 << (option - TRACE_OPT_SCENARIO) */
        const char *scenario;              /* a file, or a name in the scenarios' directory */
        const ScenarioOverride *overrides; /* --set, before each configuration's */
        size_t n_overrides;
        double data_scale; /* 0: the cluster's slaves / TRACE_SOURCE_MACHINES */
        double time_scale;
        const char *costs; /* a benchmark of the scenario's workload file; NULL: the default */
        bool live;         /* --live: TraceModel's live */
        int64_t seeds[TRACE_MAX_SEEDS];
        size_t n_seeds;
        TraceConfig configs[TRACE_MAX_CONFIGS]; /* none: the scenario's layers */
        size_t n_configs;
        const char *out; /* NULL: no files */
        SimProgressFn progress;
        void *progress_data;
} TraceOptions;

typedef struct TraceJobResult {
        double submitted, completion; /* seconds: its submission, and its end after it */
        double alone;                 /* completion alone on the cluster */
        double slowdown;              /* completion / alone */
        unsigned maps, reduces;
} TraceJobResult;

/* One run of the trace under one configuration and seed. */
typedef struct TraceRun {
        TraceJobResult *jobs;
        size_t n_jobs;
        double makespan;
        uint64_t events;
} TraceRun;

/* What a replay gave: runs[config * n_seeds + seed]. */
typedef struct TraceResults {
        TraceRun *runs;
        size_t n_configs, n_seeds;
        TraceModel model; /* its costs point at costs */
        Benchmark costs;
        char scenario_layers[TRACE_LABEL_MAX]; /* what the alone runs ran under */
} TraceResults;

/* What one run is built from: the scenario with the overrides (o's, then
 * config's), the trace as its jobs and workload. sim_new() takes sc and wl,
 * which must outlive the simulator. */
typedef struct TraceSetup {
        Scenario sc;
        Workload wl;
        TraceModel model;
        Benchmark costs;
} TraceSetup;

/* config may be NULL (the scenario's layers); -errno with err naming what
 * is wrong. trace_setup_done() frees what it built, also after a failure. */
int trace_setup(const SwimTrace *t, const TraceOptions *o, const TraceConfig *config, int64_t seed,
                TraceSetup *s, char *err, size_t err_size);
void trace_setup_done(TraceSetup *s);

/* Runs trace as o says: for each seed every job alone, then the trace
 * under each configuration. Returns an exit status (0; 1 when a run
 * failed; 2 for a bad scenario, configuration or cost benchmark, with the
 * message on stderr). */
int trace_replay(const SwimTrace *trace, const TraceOptions *o, TraceResults *ret);
void trace_results_done(TraceResults *r);

/* Figures of a run's jobs (those of at least min_maps and at most max_maps
 * maps): their values sorted into ret (room for every job), and how many;
 * the share p (0..1] of them by nearest rank, NAN for no such job; their
 * mean. */
typedef enum TraceFigure { TRACE_COMPLETION, TRACE_SLOWDOWN } TraceFigure;
#define TRACE_ALL_MAPS UINT32_MAX
size_t trace_values(const TraceRun *run, TraceFigure fig, unsigned min_maps, unsigned max_maps,
                    double *ret);
double trace_quantile(const TraceRun *run, TraceFigure fig, double p, unsigned min_maps,
                      unsigned max_maps);
double trace_mean(const TraceRun *run, TraceFigure fig, unsigned min_maps, unsigned max_maps);

/* The tables on f: the trace and its model, then each configuration's
 * figures as mean ± half the range over the seeds (trace-output.c). */
void trace_print(FILE *f, const char *file, const SwimTrace *trace, const TraceOptions *o,
                 const TraceResults *r);
/* With o->out: the first seed's per-job CSV of each configuration and the
 * CDF charts of completion time and slowdown, every configuration in each;
 * returns as report_plot() does. */
int trace_write(const SwimTrace *trace, const TraceOptions *o, const TraceResults *r);

/* flexslot-sim replay's own options, which join the program's (getopt_long
 * values from TRACE_OPT_SCENARIO on). */
enum {
        TRACE_OPT_SCENARIO = 0x200,
        TRACE_OPT_LAYERS,
        TRACE_OPT_COMPARE,
        TRACE_OPT_SEEDS,
        TRACE_OPT_SCALE_TIME,
        TRACE_OPT_SCALE_DATA,
        TRACE_OPT_COSTS,
        TRACE_OPT_LIVE,
        _TRACE_OPT_END,
};

#define TRACE_LONG_OPTIONS                                                       \
        { "scenario", required_argument, NULL, TRACE_OPT_SCENARIO },             \
                { "layers", required_argument, NULL, TRACE_OPT_LAYERS },         \
                { "compare", required_argument, NULL, TRACE_OPT_COMPARE },       \
                { "seeds", required_argument, NULL, TRACE_OPT_SEEDS },           \
                { "scale-time", required_argument, NULL, TRACE_OPT_SCALE_TIME }, \
                { "scale-data", required_argument, NULL, TRACE_OPT_SCALE_DATA }, \
                { "costs", required_argument, NULL, TRACE_OPT_COSTS }, {         \
                "live", no_argument, NULL, TRACE_OPT_LIVE                        \
        }

static inline bool trace_option_is(int c) {
        return c >= TRACE_OPT_SCENARIO && c < _TRACE_OPT_END;
}

/* Takes one of the options into o; -EINVAL with the problem in problem. */
int trace_option(TraceOptions *o, int c, const char *arg, char *problem, size_t size);
/* "--name" of the first replay option given, NULL for none: what another
 * command refuses. */
const char *trace_first_option(const TraceOptions *o);
/* flexslot-sim replay FILE: reads the trace (nothing runs when a line is
 * bad), finds the scenario (by name in scenario_dir), replays, prints and
 * writes; an exit status. */
int trace_command(const char *file, TraceOptions *o, const char *scenario_dir);

/* SPDX-License-Identifier: MIT */
/* What a trace's replay prints and writes: the table of every
 * configuration's figures over the seeds, each job's times, and the CDF
 * charts of completion time and slowdown. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/macro.h"
#include "sim/experiment-internal.h"
#include "sim/report.h"
#include "sim/trace.h"

/* Small jobs: at most this many maps (Zaharia et al.'s delay scheduling
 * paper counts Facebook's jobs of 1-10 maps as its first bins). */
#define SMALL_MAPS 10

typedef struct TraceColumn {
        const char *head;
        double share; /* quantile; 0: the mean */
        TraceFigure fig;
        unsigned min_maps, max_maps;
        int decimals;
} TraceColumn;

static const TraceColumn columns[] = {
        { "JCT p50 s", 0.5, TRACE_COMPLETION, 0, TRACE_ALL_MAPS, 0 },
        { "JCT p95 s", 0.95, TRACE_COMPLETION, 0, TRACE_ALL_MAPS, 0 },
        { "slow mean", 0, TRACE_SLOWDOWN, 0, TRACE_ALL_MAPS, 2 },
        { "slow p50", 0.5, TRACE_SLOWDOWN, 0, TRACE_ALL_MAPS, 2 },
        { "slow p95", 0.95, TRACE_SLOWDOWN, 0, TRACE_ALL_MAPS, 2 },
        { "small p50", 0.5, TRACE_SLOWDOWN, 0, SMALL_MAPS, 2 },
        { "small p95", 0.95, TRACE_SLOWDOWN, 0, SMALL_MAPS, 2 },
        { "large p50", 0.5, TRACE_SLOWDOWN, SMALL_MAPS + 1, TRACE_ALL_MAPS, 2 },
};

static double column_value(const TraceColumn *col, const TraceRun *run) {
        return col->share > 0
                       ? trace_quantile(run, col->fig, col->share, col->min_maps, col->max_maps)
                       : trace_mean(run, col->fig, col->min_maps, col->max_maps);
}

static Spread column_spread(const TraceColumn *col, const TraceResults *r, size_t c) {
        double x[TRACE_MAX_SEEDS];

        for (size_t k = 0; k < r->n_seeds; k++)
                x[k] = column_value(col, &r->runs[c * r->n_seeds + k]);
        return spread_of(x, r->n_seeds);
}

static Spread makespan_spread(const TraceResults *r, size_t c) {
        double x[TRACE_MAX_SEEDS];

        for (size_t k = 0; k < r->n_seeds; k++)
                x[k] = r->runs[c * r->n_seeds + k].makespan / 3600;
        return spread_of(x, r->n_seeds);
}

static const char *config_label(const TraceOptions *o, const TraceResults *r, size_t c) {
        return o->n_configs ? o->configs[c].label : r->scenario_layers;
}

void trace_print(FILE *f, const char *file, const SwimTrace *trace, const TraceOptions *o,
                 const TraceResults *r) {
        const TraceModel *m = &r->model;
        uint64_t maps = 0, reduces = 0;
        size_t small = 0;

        for (size_t j = 0; j < trace->n_jobs; j++) {
                unsigned n = trace_maps(m, &trace->jobs[j]);
                maps += n;
                small += n <= SMALL_MAPS;
                reduces += trace_reduces(m, &trace->jobs[j]);
        }
        fprintf(f,
                "Trace %s: %zu jobs over %.1f h, %" PRIu64 " maps and %" PRIu64 " reduces; "
                "%zu small (at most %d maps)\n"
                "Model: data x%g, submissions x%g; per-MB CPU of %s (maps %.3g s/MB, reduces "
                "%.3g s/MB);\n  a map per %.0f MB block, a reduce per %.0f MB of shuffle and "
                "output%s\nScenario %s\nSeeds",
                file, trace->n_jobs, trace->jobs[trace->n_jobs - 1].submit * m->time_scale / 3600,
                maps, reduces, small, SMALL_MAPS, m->data_scale, m->time_scale, r->costs.name,
                m->costs->map_cpu_per_mb, m->costs->reduce_cpu_per_mb, m->block_size / (1 << 20),
                m->reduce_bytes / (1 << 20),
                m->live ? ";\n  live (--live): what the maps and reduces write is the costs' "
                          "application's,\n  and every job has a reduce, as tools/swim-load.sh "
                          "runs it"
                        : "",
                o->scenario);
        for (size_t k = 0; k < r->n_seeds; k++)
                fprintf(f, "%s%" PRId64, k ? "," : " ", o->seeds[k]);
        fprintf(f,
                ": each figure the mean ± half the range over them\n"
                "JCT: a job's end after its submission; slow: its JCT over its JCT alone on the "
                "cluster under\n  %s; p50, p95: nearest rank; small: at most %d maps, large: "
                "more\n",
                r->scenario_layers, SMALL_MAPS);
        fprintf(f, "%-22s", "configuration");
        for (size_t i = 0; i < ELEMENTSOF(columns); i++)
                fprintf(f, " %12s", columns[i].head);
        fprintf(f, " %12s\n", "makespan h");
        for (size_t c = 0; c < r->n_configs; c++) {
                char text[SPREAD_TEXT_MAX];
                fprintf(f, "%-22s", config_label(o, r, c));
                for (size_t i = 0; i < ELEMENTSOF(columns); i++)
                        fprintf(f, " %12s",
                                spread_format(text, sizeof(text), column_spread(&columns[i], r, c),
                                              columns[i].decimals));
                fprintf(f, " %12s\n", spread_format(text, sizeof(text), makespan_spread(r, c), 2));
        }
}

typedef struct RunFile {
        const SwimTrace *trace;
        const TraceRun *run;
} RunFile;

static int fill_jobs(FILE *f, const void *userdata) {
        const RunFile *rf = userdata;

        fprintf(f, "job,submitted_s,maps,reduces,completion_s,alone_s,slowdown\n");
        for (size_t j = 0; j < rf->run->n_jobs; j++) {
                const TraceJobResult *jr = &rf->run->jobs[j];
                fprintf(f, "%s,%.3f,%u,%u,%.3f,%.3f,%.4f\n", rf->trace->jobs[j].name, jr->submitted,
                        jr->maps, jr->reduces, jr->completion, jr->alone, jr->slowdown);
        }
        return 0;
}

/* Each figure sorted on its own: the CDF of each. */
static int fill_cdf(FILE *f, const void *userdata) {
        const RunFile *rf = userdata;
        size_t n = rf->run->n_jobs;
        _cleanup_free_ double *jct = calloc(MAX(n, (size_t)1), sizeof(double));
        _cleanup_free_ double *slow = calloc(MAX(n, (size_t)1), sizeof(double));

        if (!jct || !slow)
                return -ENOMEM;
        trace_values(rf->run, TRACE_COMPLETION, 0, TRACE_ALL_MAPS, jct);
        trace_values(rf->run, TRACE_SLOWDOWN, 0, TRACE_ALL_MAPS, slow);
        fprintf(f, "fraction,completion_s,slowdown\n");
        for (size_t j = 0; j < n; j++)
                fprintf(f, "%.5f,%.3f,%.4f\n", (double)(j + 1) / (double)n, jct[j], slow[j]);
        return 0;
}

typedef struct TableFile {
        const TraceOptions *o;
        const TraceResults *r;
} TableFile;

/* The table as printed, each figure as its mean, lowest and highest. */
static int fill_table(FILE *f, const void *userdata) {
        const TableFile *t = userdata;

        fprintf(f, "configuration");
        for (size_t i = 0; i < ELEMENTSOF(columns); i++)
                fprintf(f, ",%s,%s min,%s max", columns[i].head, columns[i].head, columns[i].head);
        fprintf(f, ",makespan h,makespan h min,makespan h max\n");
        for (size_t c = 0; c < t->r->n_configs; c++) {
                Spread s;
                fprintf(f, "%s", config_label(t->o, t->r, c));
                for (size_t i = 0; i < ELEMENTSOF(columns); i++) {
                        s = column_spread(&columns[i], t->r, c);
                        fprintf(f, ",%.4f,%.4f,%.4f", s.mean, s.min, s.max);
                }
                s = makespan_spread(t->r, c);
                fprintf(f, ",%.4f,%.4f,%.4f\n", s.mean, s.min, s.max);
        }
        return 0;
}

#define CHART_WIDTH 900
#define CHART_HEIGHT 560

/* One CDF chart with a curve per configuration, from each one's cdf.csv. */
static void cdf_chart(FILE *f, const TableFile *t, const char *name, const char *what,
                      const char *xlabel, int column) {
        report_chart_begin(f, name, CHART_WIDTH, CHART_HEIGHT);
        fprintf(f,
                "set title 'trace replay: %s of every job (seed %" PRId64 ")'\n"
                "set xlabel '%s'; set ylabel 'fraction of jobs'\n"
                "set logscale x; set yrange [0:1]; set key bottom right\nplot ",
                what, t->o->seeds[0], xlabel);
        for (size_t c = 0; c < t->r->n_configs; c++) {
                fprintf(f, "%s'", c ? ", " : "");
                report_quote(f, config_label(t->o, t->r, c));
                fprintf(f, "/cdf.csv' using %d:1 with steps lw 2 title '", column);
                report_quote(f, config_label(t->o, t->r, c));
                fputs("'", f);
        }
        fputs("\n", f);
        report_chart_end(f, name, CHART_WIDTH, CHART_HEIGHT);
}

static int fill_charts(FILE *f, const void *userdata) {
        cdf_chart(f, userdata, "completion-cdf", "completion time", "completion time (s)", 2);
        cdf_chart(f, userdata, "slowdown-cdf", "slowdown",
                  "slowdown (completion time over the job alone)", 3);
        return 0;
}

int trace_write(const SwimTrace *trace, const TraceOptions *o, const TraceResults *r) {
        const TableFile t = { .o = o, .r = r };
        int k = report_prepare_dir(o->out);

        for (size_t c = 0; k >= 0 && c < r->n_configs; c++) {
                const RunFile rf = { .trace = trace, .run = &r->runs[c * r->n_seeds] };
                _cleanup_free_ char *dir = NULL;

                if (asprintf(&dir, "%s/%s", o->out, config_label(o, r, c)) < 0)
                        return log_oom();
                k = report_prepare_dir(dir);
                if (k >= 0)
                        k = report_write_file(dir, "jobs.csv", fill_jobs, &rf);
                if (k >= 0)
                        k = report_write_file(dir, "cdf.csv", fill_cdf, &rf);
        }
        if (k >= 0)
                k = report_write_file(o->out, "replay.csv", fill_table, &t);
        if (k >= 0)
                k = report_write_file(o->out, "charts.gp", fill_charts, &t);
        if (k < 0)
                return k;
        return report_plot(o->out, "charts.gp");
}

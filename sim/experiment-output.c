/* SPDX-License-Identifier: MIT */
/* The experiments' output: the table of ours beside the paper's on stdout,
 * what it says about the paper's figures, and with --out the table as CSV
 * with its charts. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/parse.h"
#include "sim/experiment-internal.h"

void title_print(const Experiment *e, const ExperimentOptions *opt) {
        int64_t first = experiment_first_seed(opt);

        printf("%s%s\n", e->title, opt->quick ? " [quick: reduced input]" : "");
        printf("Seeds %" PRId64 "-%" PRId64 "; ours is the mean ± half the range over them.\n",
               first, first + (int64_t)experiment_seeds(opt) - 1);
}

/* A Row's paper figure as numbers: low == high for one number; false for
 * a note ("-", "falls", "<limited", a figure with a remark). */
static bool paper_figure(const char *text, double *ret_low, double *ret_high) {
        char low[32];
        const char *dash;
        double l, h;

        if (!text)
                return false;
        if (text[0] == '~')
                text++;
        dash = text[0] ? strchr(text + 1, '-') : NULL;
        if (!dash)
                dash = text + strlen(text);
        if ((size_t)(dash - text) >= sizeof(low))
                return false;
        memcpy(low, text, (size_t)(dash - text));
        low[dash - text] = '\0';
        if (parse_double(low, 0, HUGE_VAL, &l) < 0)
                return false;
        h = l;
        if (*dash && (parse_double(dash + 1, l, HUGE_VAL, &h) < 0))
                return false;
        *ret_low = l;
        *ret_high = h;
        return true;
}

/* Ours within this of the paper's figure (or range) agrees with it. */
#define PAPER_TOLERANCE 0.05

static void print_range(FILE *f, double low, double high) {
        if (fabs(high - low) < 0.005)
                fprintf(f, "%.2f", low);
        else
                fprintf(f, "%.2f-%.2f", low, high);
}

void experiment_compare_print(FILE *f, const char *variant, const Spread *ours, const double *low,
                              const double *high, size_t n) {
        double ours_min = HUGE_VAL, ours_max = -HUGE_VAL, paper_min = HUGE_VAL,
               paper_max = -HUGE_VAL, ours_mean = 0, paper_mean = 0;
        size_t within = 0, faster = 0, slower = 0;

        if (n == 0)
                return;
        for (size_t i = 0; i < n; i++) {
                ours_min = MIN(ours_min, ours[i].mean);
                ours_max = MAX(ours_max, ours[i].mean);
                paper_min = MIN(paper_min, low[i]);
                paper_max = MAX(paper_max, high[i]);
                ours_mean += ours[i].mean / (double)n;
                paper_mean += (low[i] + high[i]) / 2 / (double)n;
                within += ours[i].mean >= low[i] - PAPER_TOLERANCE &&
                          ours[i].mean <= high[i] + PAPER_TOLERANCE;
                /* A difference inside the spread over seeds is none. */
                faster += ours[i].max < 1;
                slower += ours[i].min > 1;
        }
        fprintf(f, "Ours against the paper: %s takes ", variant);
        print_range(f, ours_min, ours_max);
        fprintf(f,
                " of stock's time on the %zu benchmark%s the paper gives a figure for, the "
                "paper ",
                n, n == 1 ? "" : "s");
        print_range(f, paper_min, paper_max);
        fprintf(f, " (%zu of %zu within %.2f of it).\n", within, n, PAPER_TOLERANCE);
        fprintf(f,
                "%s is faster than stock in every seed on %zu of them, slower in every seed on "
                "%zu, and neither on %zu.\n",
                variant, faster, slower, n - faster - slower);
        if (within == n)
                fprintf(f, "The model reproduces the paper's figures.\n");
        else if (faster == 0)
                fprintf(f,
                        "The model does not reproduce the paper's gain: %s is %s stock here "
                        "(mean %.2f, the paper %.2f); sim/README.md discusses why.\n",
                        variant, slower > 0 && ours_mean > 1 ? "slower than" : "no faster than",
                        ours_mean, paper_mean);
        else
                fprintf(f,
                        "The model shows a %s gain than the paper's (mean %.2f of stock's "
                        "time, the paper %.2f).\n",
                        ours_mean > paper_mean ? "smaller" : "larger", ours_mean, paper_mean);
}

/* Our figure for the paper's variant beside the paper's, on each row where
 * the paper gives one: only completion times are "gains". */
static void compare_print(const Experiment *e, const Cell *cells, size_t nv, size_t nr) {
        size_t pv = experiment_variant_index(e, e->paper_variant), n = 0;
        double low[MAX_ROWS], high[MAX_ROWS];
        Spread ours[MAX_ROWS];

        if (e->metric != METRIC_JCT || pv == SIZE_MAX)
                return;
        for (size_t i = 0; i < nr; i++)
                if (paper_figure(e->rows[i].paper, &low[n], &high[n]))
                        ours[n++] = cell_spread(e, &cells[i * nv], pv);
        experiment_compare_print(stdout, e->paper_variant, ours, low, high, n);
}

/* What the policies did in each run: FlexSlot's resize kills and slot
 * changes, which stock's never makes. */
void decisions_print(const Experiment *e, const Cell *cells, size_t nv, size_t nr) {
        printf("Decisions per run, mean over the seeds (resize kills / map slot changes):\n%-18s",
               "benchmark");
        for (size_t v = 0; v < nv; v++)
                printf(" %10s", e->variants[v].label);
        printf("\n");
        for (size_t i = 0; i < nr; i++) {
                printf("%-18s", e->rows[i].benchmark);
                for (size_t v = 0; v < nv; v++) {
                        char both[32];
                        snprintf(both, sizeof(both), "%.0f/%.0f",
                                 cell_figure(&cells[i * nv + v], fig_resize_kills).mean,
                                 cell_figure(&cells[i * nv + v], fig_slot_changes).mean);
                        printf(" %10s", both);
                }
                printf("\n");
        }
}

/* Seed k's completion time over its lower bound: with a co-running
 * cluster, the mean of both over the bound of that mean. */
static double cell_bound_ratio(const Cell *c, size_t k) {
        const RunSummary *r = &c->runs[k];

        return r->pair_bound > 0 ? cell_jct(c, k) / r->pair_bound : run_bound_ratio(r);
}

static Spread cell_bound_spread(const Cell *c) {
        double x[MAX_SEEDS];

        for (size_t k = 0; k < c->n; k++)
                x[k] = cell_bound_ratio(c, k);
        return spread_of(x, c->n);
}

typedef struct Table {
        const Experiment *e;
        const Cell *cells;
        size_t nv, nr;
} Table;

/* name.csv: our figure per benchmark and variant (the mean over the
 * seeds), the first variant's completion time, the paper's figure, the
 * decisions of every run, then each variant's lowest and highest figure
 * over the seeds and its completion time over the lower bound. */
static int fill_table_csv(FILE *f, const void *userdata) {
        const Table *t = userdata;

        fprintf(f, "benchmark");
        for (size_t v = 0; v < t->nv; v++)
                fprintf(f, ",%s", t->e->variants[v].label);
        fprintf(f, ",jct_s_%s,paper_low,paper_high", t->e->variants[0].label);
        for (size_t v = 0; v < t->nv; v++)
                fprintf(f, ",resize_kills_%s,slot_changes_%s", t->e->variants[v].label,
                        t->e->variants[v].label);
        for (size_t v = 0; v < t->nv; v++)
                fprintf(f, ",%s_min,%s_max,%s_x_bound", t->e->variants[v].label,
                        t->e->variants[v].label, t->e->variants[v].label);
        fprintf(f, "\n");
        for (size_t i = 0; i < t->nr; i++) {
                const Cell *row = &t->cells[i * t->nv];
                double low, high;
                fprintf(f, "%s", t->e->rows[i].benchmark);
                for (size_t v = 0; v < t->nv; v++)
                        if (isnan(cell_spread(t->e, row, v).mean))
                                fprintf(f, ",");
                        else
                                fprintf(f, ",%.4f", cell_spread(t->e, row, v).mean);
                fprintf(f, ",%.1f", cell_figure(&row[0], fig_jct).mean);
                if (paper_figure(t->e->rows[i].paper, &low, &high))
                        fprintf(f, ",%.4f,%.4f", low, high);
                else
                        fprintf(f, ",,");
                for (size_t v = 0; v < t->nv; v++)
                        fprintf(f, ",%.0f,%.0f", cell_figure(&row[v], fig_resize_kills).mean,
                                cell_figure(&row[v], fig_slot_changes).mean);
                for (size_t v = 0; v < t->nv; v++) {
                        Spread sp = cell_spread(t->e, row, v);
                        if (isnan(sp.mean))
                                fprintf(f, ",,");
                        else
                                fprintf(f, ",%.4f,%.4f", sp.min, sp.max);
                        fprintf(f, ",%.4f", cell_bound_spread(&row[v]).mean);
                }
                fprintf(f, "\n");
        }
        return 0;
}

#define CHART_WIDTH 1000
#define CHART_HEIGHT 560

/* The table as bars, each benchmark a group: ours for each variant, then
 * the paper's (with the range it gives as error bars). */
static void table_chart(FILE *f, const Table *t) {
        const Experiment *e = t->e;
        const char *ylabel = e->metric == METRIC_JCT     ? "normalized job completion time"
                             : e->metric == METRIC_KILLS ? "resize kills per resized straggler"
                                                         : "skewness of map task times";
        /* Columns of name.csv: the paper's low and high figures. */
        size_t low = t->nv + 3, high = t->nv + 4, group = t->nv + 2;
        bool paper = false, range = false;
        double middle;

        for (size_t i = 0; i < t->nr; i++) {
                double l, h;
                if (paper_figure(e->rows[i].paper, &l, &h)) {
                        paper = true;
                        range = range || h > l;
                }
        }
        /* Bars 0..nv-1 are ours, bar nv the paper's. */
        middle = (double)(paper ? t->nv : t->nv - 1) / 2;
        report_chart_begin(f, e->name, CHART_WIDTH, CHART_HEIGHT);
        fputs("set title '", f);
        report_quote(f, e->title);
        fprintf(f, ", ours (simulated)%s'\n", paper ? " and the paper''s" : "");
        fprintf(f,
                "set xlabel 'benchmark'; set ylabel '%s'\n"
                "set style fill solid 0.9 border -1; set boxwidth 0.9; set grid noxtics\n"
                "set xtics rotate by 30 right scale 0; set yrange [0:*]\n"
                "set offsets 0.5, 0.5, 0, 0\n"
                "set key outside right top vertical\n"
                /* An invisible point per group carries its label. */
                "plot '%s.csv' using ($0*%zu+%.1f):(0):xtic(1) with points pt -1 notitle",
                ylabel, e->name, group, middle);
        for (size_t v = 0; v < t->nv; v++) {
                /* A variant without a figure (no straggler resized) would
                 * only make gnuplot warn. */
                bool any = false;
                for (size_t i = 0; i < t->nr; i++)
                        any = any || !isnan(cell_spread(e, &t->cells[i * t->nv], v).mean);
                if (!any)
                        continue;
                fprintf(f, ", '' using ($0*%zu+%zu):%zu with boxes title '", group, v, v + 2);
                report_quote(f, e->variants[v].label);
                fputs("'", f);
        }
        if (paper) {
                fprintf(f,
                        ", '' using ($0*%zu+%zu):(($%zu+$%zu)/2) with boxes fs pattern 4 "
                        "lc rgb 'gray30' title '",
                        group, t->nv, low, high);
                report_quote(f, e->paper_label);
                fputs("'", f);
        }
        if (range)
                fprintf(f,
                        ", '' using ($0*%zu+%zu):($%zu>$%zu?($%zu+$%zu)/2:NaN):%zu:%zu "
                        "with yerrorbars pt -1 lc rgb 'black' title 'range the paper gives'",
                        group, t->nv, high, low, low, high, low, high);
        fputs("\n", f);
        report_chart_end(f, e->name, CHART_WIDTH, CHART_HEIGHT);
}

/* The map task time CDF of every variant of each benchmark in one chart,
 * as FlexSlot's Fig. 8 shows them, from the runs' map-cdf.csv files. */
static int cdf_chart(FILE *f, const Table *t, const char *benchmark) {
        _cleanup_free_ char *name = NULL;

        if (asprintf(&name, "%s-cdf", benchmark) < 0)
                return -ENOMEM;
        report_chart_begin(f, name, CHART_WIDTH, CHART_HEIGHT);
        fputs("set title '", f);
        report_quote(f, t->e->name);
        fputs(", ", f);
        report_quote(f, benchmark);
        fputs(": map task time CDF under each variant'\n"
              "set xlabel 'map task time (s)'; set ylabel 'fraction of map tasks'\n"
              "set yrange [0:1]; set key bottom right\nplot ",
              f);
        for (size_t v = 0; v < t->nv; v++) {
                fprintf(f, "%s'", v ? ", " : "");
                report_quote(f, benchmark);
                fputs("/", f);
                report_quote(f, t->e->variants[v].label);
                fputs("/map-cdf.csv' using 3:2 with steps lw 2 title '", f);
                report_quote(f, t->e->variants[v].label);
                fputs("'", f);
        }
        fputs("\n", f);
        report_chart_end(f, name, CHART_WIDTH, CHART_HEIGHT);
        return 0;
}

static int fill_charts(FILE *f, const void *userdata) {
        const Table *t = userdata;
        int r = 0;

        table_chart(f, t);
        for (size_t i = 0; r >= 0 && i < t->nr; i++)
                r = cdf_chart(f, t, t->e->rows[i].benchmark);
        return r;
}

int table_write(const Experiment *e, const Cell *cells, size_t nv, size_t nr,
                const ExperimentOptions *opt) {
        _cleanup_free_ char *dir = NULL, *csv = NULL;
        const Table t = { .e = e, .cells = cells, .nv = nv, .nr = nr };
        int r;

        if (asprintf(&dir, "%s/%s", opt->out, e->name) < 0 || asprintf(&csv, "%s.csv", e->name) < 0)
                return log_oom();
        r = report_prepare_dir(dir);
        if (r >= 0)
                r = report_write_file(dir, csv, fill_table_csv, &t);
        if (r >= 0)
                r = report_write_file(dir, "charts.gp", fill_charts, &t);
        if (r < 0)
                return r;
        return report_plot(dir, "charts.gp");
}

void files_print(const Experiment *e, const ExperimentOptions *opt, const Cell *cells, size_t n,
                 bool table, bool no_charts) {
        for (size_t i = 0; i < n; i++)
                no_charts = no_charts || cells[i].no_charts;
        if (no_charts)
                printf("gnuplot is missing: CSV files and gnuplot scripts only, no charts.\n");
        if (table && no_charts)
                printf("Table: %s/%s/%s.csv\n", opt->out, e->name, e->name);
        else if (table)
                printf("Charts: %s/%s/%s.csv, the chart %s.png (and .svg) and "
                       "<benchmark>-cdf.png beside it.\n",
                       opt->out, e->name, e->name, e->name);
        printf("Per-run CSV files%s under %s/%s/<benchmark>/<variant>/\n",
               no_charts ? "" : " and charts", opt->out, e->name);
}

void bound_print(const Experiment *e, const Cell *cells, size_t nv, size_t nr) {
        printf("Job completion time over its lower bound (1 = the physical limit), what any "
               "policy can win against %s, and the share of %s's time after its last map:\n%s%-18s",
               e->variants[0].label, e->variants[0].label,
               cells[0].runs[0].pair_bound > 0
                       ? "(with the co-running cluster: both clusters' mean and its bound)\n"
                       : "",
               "benchmark");
        for (size_t v = 0; v < nv; v++)
                printf(" %12s", e->variants[v].label);
        printf(" %10s %10s %10s\n", "bound (s)", "to win", "post-map");
        for (size_t i = 0; i < nr; i++) {
                const Cell *row = &cells[i * nv];
                double ratio = cell_bound_spread(&row[0]).mean;
                printf("%-18s", e->rows[i].benchmark);
                for (size_t v = 0; v < nv; v++) {
                        char text[SPREAD_TEXT_MAX];
                        printf(" %12s",
                               spread_format(text, sizeof(text), cell_bound_spread(&row[v]), 2));
                }
                printf(" %10.0f %9.0f%% %9.0f%%\n", cell_figure(&row[0], fig_bound_seconds).mean,
                       100.0 * (1.0 - 1.0 / ratio), 100.0 * cell_figure(&row[0], fig_tail).mean);
        }
}

void table_print(const Experiment *e, const Cell *cells, size_t nv, size_t nr,
                 const ExperimentOptions *opt) {
        title_print(e, opt);
        printf("%-18s", "benchmark");
        for (size_t v = 0; v < nv; v++)
                printf(" %12s", e->variants[v].label);
        printf("  %-18s %s\n", e->paper_label, e->metric == METRIC_JCT ? "stock JCT (s)" : "");
        for (size_t i = 0; i < nr; i++) {
                const Cell *row = &cells[i * nv];
                char text[SPREAD_TEXT_MAX];
                printf("%-18s", e->rows[i].benchmark);
                for (size_t v = 0; v < nv; v++)
                        printf(" %12s",
                               spread_format(text, sizeof(text), cell_spread(e, row, v), 2));
                printf("  %-18s", e->rows[i].paper);
                if (e->metric == METRIC_JCT)
                        printf(" %s",
                               spread_format(text, sizeof(text), cell_figure(&row[0], fig_jct), 0));
                printf("\n");
        }
        compare_print(e, cells, nv, nr);
        if (e->metric == METRIC_JCT)
                bound_print(e, cells, nv, nr);
        decisions_print(e, cells, nv, nr);
        printf("Note: %s\n", e->note);
}

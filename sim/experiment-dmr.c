/* SPDX-License-Identifier: MIT */
/* The experiments of the DynamicMR paper (Tang, Lee and He, IEEE TCC 2014,
 * section 3) on its testbed (dmr.ini: nine slaves of 12 cores, one slot per
 * core) with the nine benchmarks of its Table 3 (workloads/dynamicmr.csv).
 * Each figure is the mean of runs over several seeds of the workload's
 * splits, with their spread. The paper's numbers are those its text states
 * for the figure (the figures themselves are not given as data, nor the
 * supplement with the other benchmarks). */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "sim/experiment-internal.h"
#include "sim/report.h"
#include "sim/scenario.h"

/* One slot per core of a slave (3.2.2). */
#define DMR_SLOTS 12
#define DMR_CONFIGS (DMR_SLOTS - 1)

static const char *const dmr_benchmarks[] = {
        "sort",
        "wordcount",
        "grep",
        "inverted-index",
        "classification",
        "histogram-movies",
        "histogram-ratings",
        "sequence-count",
        "self-join",
};

/* The scheduler the runs used, dmr.ini's unless --set policy.scheduler
 * said otherwise (the paper runs DynamicMR under Fair and FIFO, 3.5), and
 * the experiment's note. */
static void dmr_note_print(const Experiment *e, const ExperimentOptions *opt) {
        _cleanup_free_ char *path = NULL;
        Scenario sc;
        char err[512];

        /* The runs loaded the scenario already; only memory can fail here,
         * which leaves the line out. */
        if (asprintf(&path, "%s/%s", opt->scenario_dir, e->scenario) >= 0 &&
            scenario_load(path, opt->overrides, opt->n_overrides, &sc, err, sizeof(err)) >= 0) {
                printf("Scheduler: %s (--set policy.scheduler=fair or fifo chooses).\n",
                       sc.scheduler);
                scenario_done(&sc);
        }
        printf("Note: %s\n", e->note);
}

/* A batch of n jobs submitted at once, as "a,b,...": the benchmarks of
 * Table 3 in its order, again from the first after the ninth. The paper's
 * batches are in the supplement's Table 3, which we do not have; this is
 * our assumption. */
static void dmr_batch(char *buf, size_t size, size_t n) {
        size_t at = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < n && at < size; i++)
                at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? "," : "",
                                       dmr_benchmarks[i % ELEMENTSOF(dmr_benchmarks)]);
}

#define DMR_BATCH_MAX 1024

typedef struct DmrVariant {
        const char *label, *dhsa;
} DmrVariant;

static const DmrVariant fig8_variants[] = {
        { "stock", "none" },
        { "PI-DHSA", "pi" },
        { "PD-DHSA", "pd" },
};

#define FIG8_VARIANTS ELEMENTSOF(fig8_variants)

/* Completion times of one benchmark: by map slots - 1, variant and seed
 * (the experiments' seeds, experiment_seeds()). */
typedef struct Fig8Times {
        double jct[DMR_CONFIGS][FIG8_VARIANTS][MAX_SEEDS];
        size_t n; /* seeds */
} Fig8Times;

/* The runs of benchmark (one job, or a batch "a,b,..." submitted at once)
 * under the settings sets (NULL-ended), one per seed, into ret. Returns an
 * exit status. */
static int dmr_runs(const Experiment *e, const ExperimentOptions *opt, const char *label,
                    const char *benchmark, const char *const *sets, Cell *ret) {
        Variant variant = { .label = label };
        ExperimentOptions o = *opt;

        for (size_t i = 0; sets[i]; i++) {
                assert(i < MAX_VARIANT_SETS);
                variant.sets[i] = sets[i];
        }
        /* The experiment writes one table; a report per run would be
         * hundreds. */
        o.out = NULL;
        *ret = (Cell){ 0 };
        return run_cell(e, &variant, benchmark, &o, ret);
}

/* A run's figure the DynamicMR figures compare: the last job's end (for
 * one job its completion time). */
static double dmr_makespan(const Cell *c, size_t k) {
        return c->runs[k].makespan;
}

/* "hadoop.map_slots=m" and "hadoop.reduce_slots=12-m" into set[0..1]. */
static void dmr_slots(char set[2][48], unsigned m) {
        snprintf(set[0], sizeof(set[0]), "hadoop.map_slots=%u", m);
        snprintf(set[1], sizeof(set[1]), "hadoop.reduce_slots=%u", DMR_SLOTS - m);
}

/* The runs of benchmark with c + 1 map slots per slave under v, one per
 * seed, into t. Returns an exit status. */
static int fig8_cell(const Experiment *e, const ExperimentOptions *opt, const char *benchmark,
                     size_t c, size_t v, Fig8Times *t) {
        char set[3][48];
        const char *sets[] = { set[0], set[1], set[2], NULL };
        Cell cell;
        int status;

        dmr_slots(set, (unsigned)c + 1);
        snprintf(set[2], sizeof(set[2]), "policy.dhsa=%s", fig8_variants[v].dhsa);
        status = dmr_runs(e, opt, fig8_variants[v].label, benchmark, sets, &cell);
        for (size_t k = 0; status == 0 && k < cell.n; k++)
                t->jct[c][v][k] = cell_jct(&cell, k);
        t->n = cell.n;
        return status;
}

/* The mean completion time of a configuration over the seeds. */
static double fig8_mean(const Fig8Times *t, size_t c, size_t v) {
        return spread_of(t->jct[c][v], t->n).mean;
}

/* The speedup of a configuration over the seeds: stock Hadoop's time at
 * 1/11 over its time, seed by seed (each seed has its own splits). */
static Spread fig8_speedup(const Fig8Times *t, size_t c, size_t v) {
        double s[MAX_SEEDS];

        for (size_t k = 0; k < t->n; k++)
                s[k] = t->jct[0][0][k] / t->jct[c][v][k];
        return spread_of(s, t->n);
}

static double fig8_ratio_of_extremes(const Fig8Times *t, size_t v) {
        double lo = INFINITY, hi = 0;

        for (size_t c = 0; c < DMR_CONFIGS; c++) {
                double jct = fig8_mean(t, c, v);

                lo = MIN(lo, jct);
                hi = MAX(hi, jct);
        }
        return hi / lo;
}

static void fig8_print(const char *benchmark, const Fig8Times *t, bool paper) {
        double pi_pd = 0;

        printf("%-17s", benchmark);
        for (size_t v = 0; v < FIG8_VARIANTS; v++)
                printf(" %10s", fig8_variants[v].label);
        printf(" %10s\n", "paper");
        for (size_t c = 0; c < DMR_CONFIGS; c++) {
                char slots[8], text[SPREAD_TEXT_MAX];

                snprintf(slots, sizeof(slots), "%zu/%zu", c + 1, DMR_SLOTS - c - 1);
                printf("%-17s", slots);
                for (size_t v = 0; v < FIG8_VARIANTS; v++)
                        printf(" %10s",
                               spread_format(text, sizeof(text), fig8_speedup(t, c, v), 2));
                printf(" %10s\n", paper && c == 0 ? "1/~2" : "-");
                pi_pd += fabs(fig8_mean(t, c, 1) / fig8_mean(t, c, 2) - 1) / DMR_CONFIGS;
        }
        printf("ours: stock's slowest/fastest configuration %.2f, PI-DHSA's %.2f, PD-DHSA's %.2f; "
               "PI-DHSA and PD-DHSA differ by %.1f %% on average\n",
               fig8_ratio_of_extremes(t, 0), fig8_ratio_of_extremes(t, 1),
               fig8_ratio_of_extremes(t, 2), 100 * pi_pd);
        if (paper)
                printf("paper: stock's about 1.8, the DHSAs' about 2x stock at 1/11 and \"little "
                       "impact\" of the configuration on them, PI-DHSA and PD-DHSA \"very "
                       "close\"\n");
        printf("\n");
}

typedef struct Fig8Table {
        const Fig8Times *times; /* one per benchmark */
        int64_t seed;           /* the first */
} Fig8Table;

static int fig8_fill(FILE *f, const void *userdata) {
        const Fig8Table *table = userdata;

        fprintf(f, "benchmark,map_slots,reduce_slots,variant,seed,jct_s,speedup\n");
        for (size_t b = 0; b < ELEMENTSOF(dmr_benchmarks); b++)
                for (size_t c = 0; c < DMR_CONFIGS; c++)
                        for (size_t v = 0; v < FIG8_VARIANTS; v++)
                                for (size_t k = 0; k < table->times[b].n; k++) {
                                        const Fig8Times *t = &table->times[b];

                                        fprintf(f, "%s,%zu,%zu,%s,%" PRId64 ",%.3f,%.4f\n",
                                                dmr_benchmarks[b], c + 1, DMR_SLOTS - c - 1,
                                                fig8_variants[v].label, table->seed + (int64_t)k,
                                                t->jct[c][v][k], t->jct[0][0][k] / t->jct[c][v][k]);
                                }
        return 0;
}

int dmr_fig8_run(const Experiment *e, const ExperimentOptions *opt) {
        _cleanup_free_ Fig8Times *times = calloc(ELEMENTSOF(dmr_benchmarks), sizeof(Fig8Times));
        int64_t seed = experiment_first_seed(opt);

        if (!times)
                return 1;
        for (size_t b = 0; b < ELEMENTSOF(dmr_benchmarks); b++)
                for (size_t c = 0; c < DMR_CONFIGS; c++)
                        for (size_t v = 0; v < FIG8_VARIANTS; v++) {
                                int status = fig8_cell(e, opt, dmr_benchmarks[b], c, v, &times[b]);

                                if (status != 0)
                                        return status;
                        }
        title_print(e, opt);
        for (size_t b = 0; b < ELEMENTSOF(dmr_benchmarks); b++)
                fig8_print(dmr_benchmarks[b], &times[b], b == 0);
        dmr_note_print(e, opt);
        if (opt->out) {
                _cleanup_free_ char *dir = NULL;
                Fig8Table table = { times, seed };

                if (asprintf(&dir, "%s/%s", opt->out, e->name) < 0 || report_prepare_dir(dir) < 0 ||
                    report_write_file(dir, "dmr-fig8.csv", fig8_fill, &table) < 0)
                        return 1;
                printf("Table: %s/dmr-fig8.csv\n", dir);
        }
        return 0;
}

/* ---- Fig. 9: SEPB's share of jobs checked for pending tasks ---- */

/* The paper's batches of 5, 10 and 20 jobs (3.3). */
static const size_t fig9_jobs[] = { 5, 10, 20 };
#define FIG9_WORKLOADS ELEMENTSOF(fig9_jobs)

typedef struct Fig9Variant {
        const char *label, *speculation;
        double jobs_checked; /* sepb's; NAN for the others */
} Fig9Variant;

/* percentageOfJobsCheckedForPendingTasks from 0 to 1 in steps of 0.2: the
 * text names 0, 0.6, 0.8 and 1; the figure's other points are our
 * assumption. Speedups are over sepb at 0, as the paper's. */
static const Fig9Variant fig9_variants[] = {
        { "no speculation", "none", NAN }, { "LATE", "late", NAN },     { "SEPB 0", "sepb", 0 },
        { "SEPB 0.2", "sepb", 0.2 },       { "SEPB 0.4", "sepb", 0.4 }, { "SEPB 0.6", "sepb", 0.6 },
        { "SEPB 0.8", "sepb", 0.8 },       { "SEPB 1", "sepb", 1 },
};
#define FIG9_VARIANTS ELEMENTSOF(fig9_variants)
#define FIG9_BASE 2 /* SEPB 0 */

/* Each seed's speedup of cell over base: base's makespan over its. */
static Spread dmr_speedup(const Cell *base, const Cell *cell) {
        double x[MAX_SEEDS];

        for (size_t k = 0; k < cell->n; k++)
                x[k] = dmr_makespan(base, k) / dmr_makespan(cell, k);
        return spread_of(x, cell->n);
}

static double fig_retry_kills(const RunSummary *s) {
        return s->retry_kills;
}

static double fig_reservations(const RunSummary *s) {
        return s->reservations;
}

/* A row of what SEPB at 1 did in each workload's runs: fn of each run. */
static void fig9_count_print(const char *label, const Cell *cells,
                             double (*fn)(const RunSummary *)) {
        printf("%-16s", label);
        for (size_t w = 0; w < FIG9_WORKLOADS; w++) {
                char text[SPREAD_TEXT_MAX];

                printf(" %14s",
                       spread_format(text, sizeof(text),
                                     cell_figure(&cells[w * FIG9_VARIANTS + FIG9_VARIANTS - 1], fn),
                                     0));
        }
        printf("\n");
}

/* Fig. 9b: the five jobs of the smallest batch one by one, at SEPB 0 and 1
 * (the paper's 0 and 100 %). */
#define FIG9B_JOBS 5
static const double fig9b_checked[] = { 0, 1 };

/* Each job's execution time (submission to end) of the batch at SEPB's
 * jobs_checked, in each of the n seeds, into t. Returns an exit status. */
static int fig9b_times(const Experiment *e, const ExperimentOptions *opt, const char *batch,
                       double jobs_checked, size_t n, double t[FIG9B_JOBS][MAX_SEEDS]) {
        char set[48];
        Variant v = { .label = "fig9b", .sets = { "policy.speculation=sepb", set } };

        snprintf(set, sizeof(set), "policy.jobs_checked=%g", jobs_checked);
        for (size_t k = 0; k < n; k++) {
                const SimResults *r;
                CellRun c;
                int status =
                        cell_open(e, &v, batch, experiment_first_seed(opt) + (int64_t)k, opt, &c);

                if (status != 0)
                        return status;
                if (sim_run(c.sim) < 0) {
                        fprintf(stderr, "flexslot-sim: %s under SEPB %g failed\n", batch,
                                jobs_checked);
                        cell_close(&c);
                        return 1;
                }
                r = sim_results(c.sim);
                for (size_t j = 0; j < FIG9B_JOBS; j++)
                        t[j][k] = j < r->n_jobs ? r->jobs[j].finished - r->jobs[j].submitted : NAN;
                cell_close(&c);
        }
        return 0;
}

static int fig9b_print(const Experiment *e, const ExperimentOptions *opt) {
        double t[ELEMENTSOF(fig9b_checked)][FIG9B_JOBS][MAX_SEEDS];
        char batch[DMR_BATCH_MAX];
        size_t n = experiment_seeds(opt);

        dmr_batch(batch, sizeof(batch), FIG9B_JOBS);
        for (size_t v = 0; v < ELEMENTSOF(fig9b_checked); v++) {
                int status = fig9b_times(e, opt, batch, fig9b_checked[v], n, t[v]);

                if (status != 0)
                        return status;
        }
        printf("\nDynamicMR Fig. 9b: the %d jobs' execution times (s) at SEPB 0 and 1, and "
               "each job's speedup from 0 to 1\n",
               FIG9B_JOBS);
        printf("%-5s %-16s %12s %12s %12s\n", "job", "benchmark", "SEPB 0", "SEPB 1", "speedup");
        for (size_t j = 0; j < FIG9B_JOBS; j++) {
                char text[3][SPREAD_TEXT_MAX];
                double x[MAX_SEEDS];

                for (size_t k = 0; k < n; k++)
                        x[k] = t[0][j][k] / t[1][j][k];
                printf("%-5zu %-16s %12s %12s %12s\n", j + 1,
                       dmr_benchmarks[j % ELEMENTSOF(dmr_benchmarks)],
                       spread_format(text[0], sizeof(text[0]), spread_of(t[0][j], n), 0),
                       spread_format(text[1], sizeof(text[1]), spread_of(t[1][j], n), 0),
                       spread_format(text[2], sizeof(text[2]), spread_of(x, n), 3));
        }
        printf("paper: jobs 2 and 4 slower at 1 (SEPB holds back their speculation), the "
               "batch's makespan shorter\n");
        return 0;
}

int dmr_fig9_run(const Experiment *e, const ExperimentOptions *opt) {
        _cleanup_free_ Cell *cells = calloc(FIG9_WORKLOADS * FIG9_VARIANTS, sizeof(Cell));

        if (!cells)
                return 1;
        for (size_t w = 0; w < FIG9_WORKLOADS; w++) {
                char batch[DMR_BATCH_MAX];

                dmr_batch(batch, sizeof(batch), fig9_jobs[w]);
                for (size_t v = 0; v < FIG9_VARIANTS; v++) {
                        const Fig9Variant *fv = &fig9_variants[v];
                        char set[2][48];
                        const char *sets[] = { set[0], isnan(fv->jobs_checked) ? NULL : set[1],
                                               NULL };
                        int status;

                        snprintf(set[0], sizeof(set[0]), "policy.speculation=%s", fv->speculation);
                        snprintf(set[1], sizeof(set[1]), "policy.jobs_checked=%g",
                                 fv->jobs_checked);
                        status = dmr_runs(e, opt, fv->label, batch, sets,
                                          &cells[w * FIG9_VARIANTS + v]);
                        if (status != 0)
                                return status;
                }
        }
        title_print(e, opt);
        printf("%-16s", "variant");
        for (size_t w = 0; w < FIG9_WORKLOADS; w++)
                printf(" %9zu jobs", fig9_jobs[w]);
        printf("\n");
        for (size_t v = 0; v < FIG9_VARIANTS; v++) {
                printf("%-16s", fig9_variants[v].label);
                for (size_t w = 0; w < FIG9_WORKLOADS; w++) {
                        const Cell *row = &cells[w * FIG9_VARIANTS];
                        char text[SPREAD_TEXT_MAX];

                        printf(" %14s", spread_format(text, sizeof(text),
                                                      dmr_speedup(&row[FIG9_BASE], &row[v]), 3));
                }
                printf("\n");
        }
        printf("%-16s", "SEPB 0 (s)");
        for (size_t w = 0; w < FIG9_WORKLOADS; w++) {
                const Cell *base = &cells[w * FIG9_VARIANTS + FIG9_BASE];
                double x[MAX_SEEDS];
                char text[SPREAD_TEXT_MAX];

                for (size_t k = 0; k < base->n; k++)
                        x[k] = dmr_makespan(base, k);
                printf(" %14s", spread_format(text, sizeof(text), spread_of(x, base->n), 0));
        }
        printf("\n");
        fig9_count_print("SEPB 1 kills", cells, fig_retry_kills);
        fig9_count_print("SEPB 1 reserved", cells, fig_reservations);
        printf("paper: SEPB 3-10 %% faster than at 0 (speedups 1.03-1.10), best at 0.8 for 5 "
               "jobs and at 1 for 10 jobs; 0.6-1 recommended\n");
        printf("Speedup: each seed's last job end at SEPB 0 over the variant's.\n");
        if (fig9b_print(e, opt) != 0)
                return 1;
        dmr_note_print(e, opt);
        return 0;
}

/* ---- Fig. 10: data locality with and without Slot PreScheduling ---- */

/* The paper's sort jobs of 16, 32 and 160 maps (3.4): of Table 3's 20 GB,
 * 320 blocks of 64 MB, the share that many blocks are. */
static const unsigned fig10_maps[] = { 16, 32, 160 };
#define FIG10_ROWS ELEMENTSOF(fig10_maps)
#define SORT_BLOCKS 320

/* Delay scheduling is on in both, as in the paper's HFS; PreScheduling
 * relaxes the load manager, so both run with it. */
static const char *const fig10_prescheduling[] = { "no", "yes" };

static double fig_locality(const RunSummary *s) {
        return s->maps ? 100.0 * s->local_maps / s->maps : NAN;
}

/* Locality points PreScheduling adds, seed by seed (cells: without, with). */
static Spread fig10_gain(const Cell cells[2]) {
        double gain[MAX_SEEDS];

        for (size_t k = 0; k < cells[1].n; k++)
                gain[k] = fig_locality(&cells[1].runs[k]) - fig_locality(&cells[0].runs[k]);
        return spread_of(gain, cells[1].n);
}

/* The runs of benchmark as a job of `blocks` blocks of input, without and
 * with PreScheduling, into ret[0..1]. Returns an exit status. */
static int fig10_pair(const Experiment *e, const ExperimentOptions *opt, const char *benchmark,
                      double blocks, double input_blocks, Cell ret[2]) {
        for (size_t v = 0; v < 2; v++) {
                char set[2][48];
                const char *sets[] = { set[0], set[1], "policy.load_balance=yes", NULL };
                int status;

                snprintf(set[0], sizeof(set[0]), "workload.scale=%g", blocks / input_blocks);
                snprintf(set[1], sizeof(set[1]), "policy.prescheduling=%s", fig10_prescheduling[v]);
                status = dmr_runs(e, opt, fig10_prescheduling[v], benchmark, sets, &ret[v]);
                if (status != 0)
                        return status;
        }
        return 0;
}

/* Blocks of the benchmark's Table 3 input (the workload's, unscaled). */
static int dmr_input_blocks(const Experiment *e, const ExperimentOptions *opt,
                            const char *benchmark, double *ret) {
        Variant v = { .label = benchmark };
        const Benchmark *b;
        CellRun c;
        int status;

        status = cell_open(e, &v, benchmark, experiment_first_seed(opt), opt, &c);
        if (status != 0)
                return status;
        b = workload_find(&c.wl, benchmark);
        if (b)
                *ret = b->input_bytes / (double)c.sc.block_size;
        cell_close(&c);
        return b ? 0 : 2;
}

/* Fig. 11: each benchmark of Table 3 as jobs of Fig. 10's sizes (in
 * blocks of input; small files make more maps), the speedup PreScheduling
 * gives (time without over time with, seed by seed) and the locality it
 * adds. The paper states 1-9 % for the nine benchmarks, not the size. */
static int fig11_print(const Experiment *e, const ExperimentOptions *opt) {
        printf("\nDynamicMR Fig. 11: speedup from PreScheduling (time without / with), locality "
               "points it adds, by input in blocks\n");
        printf("%-18s", "benchmark");
        for (size_t r = 0; r < FIG10_ROWS; r++)
                printf(" %12u %10s", fig10_maps[r], "points");
        printf("\n");
        for (size_t b = 0; b < ELEMENTSOF(dmr_benchmarks); b++) {
                double input;
                int status = dmr_input_blocks(e, opt, dmr_benchmarks[b], &input);

                if (status != 0)
                        return status;
                printf("%-18s", dmr_benchmarks[b]);
                for (size_t r = 0; r < FIG10_ROWS; r++) {
                        char t[2][SPREAD_TEXT_MAX];
                        Cell cells[2];

                        status = fig10_pair(e, opt, dmr_benchmarks[b], fig10_maps[r], input, cells);
                        if (status != 0)
                                return status;
                        printf(" %12s %10s",
                               spread_format(t[0], sizeof(t[0]), dmr_speedup(&cells[0], &cells[1]),
                                             3),
                               spread_format(t[1], sizeof(t[1]), fig10_gain(cells), 1));
                }
                printf("\n");
        }
        printf("paper: 1.01-1.09 on the nine benchmarks (Fig. 11)\n");
        return 0;
}

int dmr_fig10_run(const Experiment *e, const ExperimentOptions *opt) {
        Cell cells[FIG10_ROWS][2];
        int status;

        for (size_t r = 0; r < FIG10_ROWS; r++) {
                status = fig10_pair(e, opt, "sort", fig10_maps[r], SORT_BLOCKS, cells[r]);
                if (status != 0)
                        return status;
        }
        title_print(e, opt);
        printf("%-10s %6s %12s %12s %12s %12s\n", "sort job", "maps", "local % w/o", "local % with",
               "points more", "time w/o/with");
        for (size_t r = 0; r < FIG10_ROWS; r++) {
                char t[4][SPREAD_TEXT_MAX];

                printf("%-10u %6u %12s %12s %12s %12s\n", fig10_maps[r], cells[r][0].runs[0].maps,
                       spread_format(t[0], sizeof(t[0]), cell_figure(&cells[r][0], fig_locality),
                                     1),
                       spread_format(t[1], sizeof(t[1]), cell_figure(&cells[r][1], fig_locality),
                                     1),
                       spread_format(t[2], sizeof(t[2]), fig10_gain(cells[r]), 1),
                       spread_format(t[3], sizeof(t[3]), dmr_speedup(&cells[r][0], &cells[r][1]),
                                     3));
        }
        printf("paper: PreScheduling adds about 2-25 %% locality on top of delay scheduling "
               "(Fig. 10)\n");
        status = fig11_print(e, opt);
        if (status != 0)
                return status;
        dmr_note_print(e, opt);
        return 0;
}

/* ---- Fig. 12: DynamicMR against stock Hadoop at its best slots ---- */

/* The paper's single jobs, then its batches of 5, 10, 20 and 30 jobs. */
static const size_t fig12_batches[] = { 5, 10, 20, 30 };
#define FIG12_ROWS (ELEMENTSOF(dmr_benchmarks) + ELEMENTSOF(fig12_batches))

/* DynamicMR as 3.5 runs it: PI-DHSA, SEPB and PreScheduling (with the load
 * manager it relaxes), at dmr.ini's 6/6 slots. */
static const char *const fig12_dynamicmr[] = {
        "policy.dhsa=pi",
        "policy.load_balance=yes",
        "policy.prescheduling=yes",
        "policy.speculation=sepb",
        NULL,
};
/* The same without SEPB (its first three settings): what speculation
 * costs or gains on top of the slots. */
#define FIG12_NO_SEPB 3

/* Stock Hadoop at each of its slot configurations; the best is the one of
 * the smallest mean over the seeds. Into ret_best, the index of it. */
static int fig12_stock(const Experiment *e, const ExperimentOptions *opt, const char *benchmark,
                       Cell *ret, size_t *ret_best) {
        double best = INFINITY;
        size_t at = 0;

        for (size_t c = 0; c < DMR_CONFIGS; c++) {
                char set[2][48];
                const char *sets[] = { set[0], set[1], NULL };
                Cell cell;
                double x[MAX_SEEDS];
                int status;

                dmr_slots(set, (unsigned)c + 1);
                status = dmr_runs(e, opt, "stock", benchmark, sets, &cell);
                if (status != 0)
                        return status;
                for (size_t k = 0; k < cell.n; k++)
                        x[k] = dmr_makespan(&cell, k);
                if (spread_of(x, cell.n).mean < best) {
                        best = spread_of(x, cell.n).mean;
                        at = c;
                        *ret = cell;
                }
        }
        *ret_best = at;
        return 0;
}

/* DynamicMR's runs beside stock's: at 6/6, the same without SEPB, and at
 * stock's best slots. */
enum { FIG12_AT_6_6, FIG12_WITHOUT_SEPB, FIG12_AT_BEST, _FIG12_DMR_MAX };

/* DynamicMR's run kind d of benchmark, stock's best being best + 1 map
 * slots, into ret. Returns an exit status. */
static int fig12_dynamicmr_runs(const Experiment *e, const ExperimentOptions *opt,
                                const char *benchmark, size_t best, size_t d, Cell *ret) {
        static const char *const labels[_FIG12_DMR_MAX] = { "DynamicMR", "no SEPB", "at best" };
        char set[2][48];
        const char *sets[MAX_VARIANT_SETS + 1] = { NULL };
        size_t n = d == FIG12_WITHOUT_SEPB ? FIG12_NO_SEPB : ELEMENTSOF(fig12_dynamicmr) - 1;

        for (size_t i = 0; i < n; i++)
                sets[i] = fig12_dynamicmr[i];
        if (d == FIG12_AT_BEST) {
                dmr_slots(set, (unsigned)best + 1);
                sets[n] = set[0];
                sets[n + 1] = set[1];
        }
        return dmr_runs(e, opt, labels[d], benchmark, sets, ret);
}

int dmr_fig12_run(const Experiment *e, const ExperimentOptions *opt) {
        _cleanup_free_ Cell *stock = calloc(FIG12_ROWS, sizeof(Cell));
        _cleanup_free_ Cell *dmr = calloc(FIG12_ROWS * _FIG12_DMR_MAX, sizeof(Cell));
        size_t best[FIG12_ROWS];
        char names[FIG12_ROWS][DMR_BATCH_MAX];

        if (!stock || !dmr)
                return 1;
        for (size_t r = 0; r < FIG12_ROWS; r++) {
                int status;

                if (r < ELEMENTSOF(dmr_benchmarks))
                        snprintf(names[r], sizeof(names[r]), "%s", dmr_benchmarks[r]);
                else
                        dmr_batch(names[r], sizeof(names[r]),
                                  fig12_batches[r - ELEMENTSOF(dmr_benchmarks)]);
                status = fig12_stock(e, opt, names[r], &stock[r], &best[r]);
                for (size_t d = 0; status == 0 && d < _FIG12_DMR_MAX; d++)
                        status = fig12_dynamicmr_runs(e, opt, names[r], best[r], d,
                                                      &dmr[r * _FIG12_DMR_MAX + d]);
                if (status != 0)
                        return status;
        }
        title_print(e, opt);
        printf("%-18s %11s %14s %10s %10s %10s %12s\n", "workload", "best stock", "stock (s)",
               "DynamicMR", "no SEPB", "at best", "paper");
        for (size_t r = 0; r < FIG12_ROWS; r++) {
                char label[32], slots[8], t[1 + _FIG12_DMR_MAX][SPREAD_TEXT_MAX];
                double x[MAX_SEEDS];

                if (r < ELEMENTSOF(dmr_benchmarks))
                        snprintf(label, sizeof(label), "%s", dmr_benchmarks[r]);
                else
                        snprintf(label, sizeof(label), "%zu jobs",
                                 fig12_batches[r - ELEMENTSOF(dmr_benchmarks)]);
                snprintf(slots, sizeof(slots), "%zu/%zu", best[r] + 1, DMR_SLOTS - best[r] - 1);
                for (size_t k = 0; k < stock[r].n; k++)
                        x[k] = dmr_makespan(&stock[r], k);
                spread_format(t[0], sizeof(t[0]), spread_of(x, stock[r].n), 0);
                for (size_t d = 0; d < _FIG12_DMR_MAX; d++)
                        spread_format(t[1 + d], sizeof(t[1 + d]),
                                      dmr_speedup(&stock[r], &dmr[r * _FIG12_DMR_MAX + d]), 2);
                printf("%-18s %11s %14s %10s %10s %10s %12s\n", label, slots, t[0], t[1], t[2],
                       t[3], r < ELEMENTSOF(dmr_benchmarks) ? "1.46-2.15" : "1.49-2.12");
        }
        printf("paper: 46-115 %% faster for single jobs, 49-112 %% for batches, per benchmark "
               "only in its figure\n");
        printf("Speedup: each seed's last job end under stock at its best slots over "
               "DynamicMR's: at 6/6, at 6/6 without SEPB, at stock's best slots.\n");
        dmr_note_print(e, opt);
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* The experiments of the DynamicMR paper (Tang, Lee and He, IEEE TCC 2014,
 * section 3) on its testbed (dmr.ini: nine slaves of 12 cores, one slot per
 * core) with the nine benchmarks of its Table 3 (workloads/dynamicmr.csv).
 * Each figure is the mean of runs over several seeds of the workload's
 * splits, with their spread. The paper's numbers are those its text states
 * for the figure (the figures themselves are not given as data, nor the
 * supplement with the other benchmarks). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "sim/experiment-internal.h"
#include "sim/report.h"

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

/* The runs of benchmark with m map slots per slave under v, one per seed,
 * into t. Returns an exit status. */
static int fig8_cell(const Experiment *e, const ExperimentOptions *opt, const char *benchmark,
                     size_t c, size_t v, Fig8Times *t) {
        unsigned m = (unsigned)c + 1;
        char set[3][48];
        Variant variant = { .label = fig8_variants[v].label,
                            .sets = { set[0], set[1], set[2], NULL } };
        ExperimentOptions o = *opt;
        Cell cell = { 0 };
        int status;

        snprintf(set[0], sizeof(set[0]), "hadoop.map_slots=%u", m);
        snprintf(set[1], sizeof(set[1]), "hadoop.reduce_slots=%u", DMR_SLOTS - m);
        snprintf(set[2], sizeof(set[2]), "policy.dhsa=%s", fig8_variants[v].dhsa);
        /* The experiment writes one table; a report per run would be
         * hundreds. */
        o.out = NULL;
        status = run_cell(e, &variant, benchmark, &o, &cell);
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
        printf("Note: %s\n", e->note);
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

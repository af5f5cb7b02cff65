/* SPDX-License-Identifier: MIT */
/* FlexSlot's own experiments, those that are not a table of variants x
 * benchmarks: Table I (skewness on three clusters), Figs. 3, 4 and 6 (the
 * motivation: the static cluster against DRS), Fig. 9 (a map's time split)
 * and the sensitivity runs (each setting under stock and FlexSlot). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "sim/experiment-internal.h"
#include "sim/sim.h"

/* "mean±h" of a figure of a cell's runs. */
static const char *figure_text(char *buf, const Cell *c, double (*fn)(const RunSummary *),
                               int decimals) {
        return spread_format(buf, SPREAD_TEXT_MAX, cell_figure(c, fn), decimals);
}

/* ---- Table I ---- */

#define TABLE1_BENCHMARK "wordcount"
/* The testbed's CPU pool for the 30 slaves: 2 pCPUs (4.8 GHz) each. */
#define TABLE1_NODE_CAP 2.0
/* "nearly 20 % of tasks run at least 20 % longer than the others" (Fig. 2) */
#define TABLE1_STRAGGLER_SHARE 0.2

typedef struct Table1Profile {
        double *caps;     /* per node */
        bool *straggler;  /* per task */
        uint32_t *strong; /* nodes by cap, largest first */
        size_t n_nodes, n_tasks;
} Table1Profile;

static void table1_profile_done(Table1Profile *p) {
        free(p->caps);
        free(p->straggler);
        free(p->strong);
        *p = (Table1Profile){ 0 };
}

static int compare_desc(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;

        return (x < y) - (x > y);
}

/* From the Homo run: which maps straggled, and how the same CPU pool would
 * be split by each node's CPU and I/O wait time (FlexSlot II-B). */
static int table1_profile(const SimResults *r, size_t n_nodes, Table1Profile *p) {
        _cleanup_free_ double *times = calloc(MAX(r->n_tasks, (size_t)1), sizeof(double));
        _cleanup_free_ double *work = calloc(MAX(n_nodes, (size_t)1), sizeof(double));
        double threshold, total = 0;
        size_t n = 0;

        p->n_nodes = n_nodes;
        p->n_tasks = r->n_tasks;
        p->caps = calloc(MAX(n_nodes, (size_t)1), sizeof(double));
        p->strong = calloc(MAX(n_nodes, (size_t)1), sizeof(uint32_t));
        p->straggler = calloc(MAX(r->n_tasks, (size_t)1), sizeof(bool));
        if (!times || !work || !p->caps || !p->strong || !p->straggler)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_tasks; i++)
                if (r->tasks[i].map)
                        times[n++] = r->tasks[i].finished - r->tasks[i].started;
        qsort(times, n, sizeof(double), compare_desc);
        threshold = n > 0 ? times[(size_t)((double)n * TABLE1_STRAGGLER_SHARE)] : 0;
        for (size_t i = 0; i < r->n_tasks; i++) {
                p->straggler[i] =
                        r->tasks[i].map && r->tasks[i].finished - r->tasks[i].started > threshold;
                if (p->straggler[i]) {
                        work[r->tasks[i].node] += r->tasks[i].cpu + r->tasks[i].iowait;
                        total += r->tasks[i].cpu + r->tasks[i].iowait;
                }
        }
        /* Half the pool stays evenly spread so that no node starves; the
         * other half follows the stragglers' CPU and I/O wait time. */
        for (size_t i = 0; i < n_nodes; i++) {
                p->caps[i] = TABLE1_NODE_CAP / 2 +
                             (total > 0 ? TABLE1_NODE_CAP / 2 * (double)n_nodes * work[i] / total
                                        : TABLE1_NODE_CAP / 2);
                p->strong[i] = (uint32_t)i;
        }
        /* Strongest first; ties by index, so the order is reproducible. */
        for (size_t i = 1; i < n_nodes; i++)
                for (size_t j = i; j > 0 && p->caps[p->strong[j]] > p->caps[p->strong[j - 1]];
                     j--) {
                        uint32_t t = p->strong[j];
                        p->strong[j] = p->strong[j - 1];
                        p->strong[j - 1] = t;
                }
        return 0;
}

static int table1_apply(Sim *sim, const Table1Profile *p, bool skew_sched) {
        size_t n_strong = MAX(p->n_nodes / 4, (size_t)1), k = 0;

        for (size_t i = 0; i < p->n_nodes; i++)
                if (sim_set_node_cap(sim, (uint32_t)i, p->caps[i]) < 0)
                        return -EINVAL;
        if (!skew_sched)
                return 0;
        /* Each straggler's split lives on three of the strongest quarter of
         * the nodes, taken in turn. */
        for (size_t t = 0; t < p->n_tasks; t++) {
                uint32_t where[3];
                if (!p->straggler[t])
                        continue;
                for (unsigned i = 0; i < 3; i++)
                        where[i] = p->strong[(k + i) % n_strong];
                k++;
                if (sim_set_task_locations(sim, (uint32_t)t, where, MIN(3u, (unsigned)n_strong)) <
                    0)
                        return -EINVAL;
        }
        return 0;
}

/* One seed of the three clusters; returns an exit status. */
static int table1_seed(const Experiment *e, const Variant *variants, size_t nv, int64_t seed,
                       const ExperimentOptions *opt, Cell *cells, size_t k) {
        Table1Profile profile = { 0 };
        int status = 0;

        for (size_t v = 0; v < nv && status == 0; v++) {
                CellRun c;
                status = cell_open(e, &variants[v], TABLE1_BENCHMARK, seed, opt, &c);
                if (status != 0)
                        break;
                if (v > 0 && table1_apply(c.sim, &profile, v == 2) < 0)
                        status = 1;
                if (status == 0)
                        status = cell_run_seed(&c, e, &variants[v], TABLE1_BENCHMARK, opt,
                                               &cells[v], k);
                if (status == 0 && v == 0 &&
                    table1_profile(sim_results(c.sim), sim_n_nodes(c.sim), &profile) < 0)
                        status = 1;
                cell_close(&c);
        }
        table1_profile_done(&profile);
        return status;
}

int flexslot_table1_run(const Experiment *e, const ExperimentOptions *opt) {
        static const Variant variants[] = {
                { .label = "Homo" },
                { .label = "Heter" },
                /* Delay scheduling that waits as long as it takes: the
                 * stragglers run only where their splits are. */
                { .label = "Heter+skew-sched", .locality_delay = 24 * USEC_PER_HOUR },
        };
        static const char *const paper[] = { "2.65", "2.25", "0.31" };
        Cell cells[ELEMENTSOF(variants)] = { 0 };
        char skew[SPREAD_TEXT_MAX], jct[SPREAD_TEXT_MAX], bound[SPREAD_TEXT_MAX];

        for (size_t k = 0; k < experiment_seeds(opt); k++) {
                int status = table1_seed(e, variants, ELEMENTSOF(variants),
                                         experiment_first_seed(opt) + (int64_t)k, opt, cells, k);
                if (status != 0)
                        return status;
        }
        title_print(e, opt);
        printf("%-18s %12s %8s %12s %12s\n", "cluster", "ours", "paper", "JCT (s)", "x bound");
        for (size_t v = 0; v < ELEMENTSOF(variants); v++)
                printf("%-18s %12s %8s %12s %12s\n", variants[v].label,
                       figure_text(skew, &cells[v], fig_skewness, 2), paper[v],
                       figure_text(jct, &cells[v], fig_jct, 0),
                       figure_text(bound, &cells[v], fig_bound_ratio, 2));
        printf("Note: %s\n", e->note);
        if (opt->out)
                files_print(e, opt, cells, ELEMENTSOF(cells), false, false);
        return 0;
}

/* ---- Fig. 3, 4 and 6: the motivation, static cluster against DRS ---- */

/* Whether a figure's mean under DRS is above or below Homo's by more than
 * half the range of either over the seeds, or neither: a difference inside
 * the spread is none. */
static const char *direction(const Cell *homo, const Cell *drs, double (*fn)(const RunSummary *)) {
        Spread h = cell_figure(homo, fn), d = cell_figure(drs, fn);
        double spread = MAX(h.max - h.min, d.max - d.min) / 2;

        if (d.mean - h.mean > spread)
                return "higher";
        if (h.mean - d.mean > spread)
                return "lower";
        return "no different";
}

static void fig3_print(const Cell *cells) {
        static const struct {
                const char *name;
                double (*fn)(const RunSummary *);
                int decimals;
                const char *paper;
        } figures[] = {
                { "skewness", fig_skewness, 2, "higher (Homo 2.65)" },
                { "fastest half (s)", fig_fast_half, 1, "lower" },
                { "slowest tenth (s)", fig_slow_tenth, 1, "higher" },
                { "JCT (s)", fig_jct, 0, "-" },
                { "JCT x bound", fig_bound_ratio, 2, "-" },
        };
        char a[SPREAD_TEXT_MAX], b[SPREAD_TEXT_MAX];

        printf("%-20s %12s %12s %14s %20s\n", "figure", "homo", "drs", "drs vs homo", "paper");
        for (size_t i = 0; i < ELEMENTSOF(figures); i++)
                printf("%-20s %12s %12s %14s %20s\n", figures[i].name,
                       figure_text(a, &cells[0], figures[i].fn, figures[i].decimals),
                       figure_text(b, &cells[1], figures[i].fn, figures[i].decimals),
                       direction(&cells[0], &cells[1], figures[i].fn), figures[i].paper);
        printf("Ours against the paper: under DRS the skewness is %s, the fast tasks' time %s "
               "and the stragglers' %s than on the static cluster (beyond the spread over the "
               "seeds); the paper has higher, lower and higher.\n",
               direction(&cells[0], &cells[1], fig_skewness),
               direction(&cells[0], &cells[1], fig_fast_half),
               direction(&cells[0], &cells[1], fig_slow_tenth));
}

static void fig4_print(const Cell *cells) {
        char a[5][SPREAD_TEXT_MAX];

        printf("%-8s %12s %12s %12s %12s %12s\n", "cluster", "fewest maps", "most maps",
               "most/fewest", "least CPU", "most CPU");
        for (size_t v = 0; v < 2; v++)
                printf("%-8s %12s %12s %12s %12s %12s\n", v == 0 ? "homo" : "drs",
                       figure_text(a[0], &cells[v], fig_maps_min, 0),
                       figure_text(a[1], &cells[v], fig_maps_max, 0),
                       figure_text(a[2], &cells[v], fig_maps_ratio, 2),
                       figure_text(a[3], &cells[v], fig_cpu_min, 2),
                       figure_text(a[4], &cells[v], fig_cpu_max, 2));
        printf("%-8s %12s %12s %12s\n", "paper", "-", "-", "~10 (drs)");
        printf("Ours against the paper: under DRS the busiest slave ran %.2f times the maps of "
               "the least busy (homo %.2f); the paper ~10.\n",
               cell_figure(&cells[1], fig_maps_ratio).mean,
               cell_figure(&cells[0], fig_maps_ratio).mean);
}

static void fig6_print(const Cell *cells) {
        static const struct {
                const char *name;
                double (*fn)(const RunSummary *);
        } parts[] = { { "cpu", fig_slow_cpu },
                      { "I/O wait", fig_slow_iowait },
                      { "steal", fig_slow_steal },
                      { "queue+start", fig_slow_queue } };
        char a[4][SPREAD_TEXT_MAX], share[SPREAD_TEXT_MAX];

        printf("%-8s", "cluster");
        for (size_t i = 0; i < ELEMENTSOF(parts); i++)
                printf(" %12s", parts[i].name);
        printf(" %14s\n", "steal share");
        for (size_t v = 0; v < 2; v++) {
                printf("%-8s", v == 0 ? "homo" : "drs");
                for (size_t i = 0; i < ELEMENTSOF(parts); i++)
                        printf(" %12s", figure_text(a[i], &cells[v], parts[i].fn, 1));
                printf(" %14s\n", figure_text(share, &cells[v], fig_steal_share, 2));
        }
        printf("%-8s %12s %12s %12s %12s %14s\n", "paper", "-", "-", "largest", "-", "-");
        {
                const Cell *drs = &cells[1];
                size_t largest = 0;
                for (size_t i = 1; i < ELEMENTSOF(parts); i++)
                        if (cell_figure(drs, parts[i].fn).mean >
                            cell_figure(drs, parts[largest].fn).mean)
                                largest = i;
                printf("Ours against the paper: under DRS the stragglers' largest part is %s "
                       "(steal %.0f %% of their time); the paper: steal.\n",
                       parts[largest].name, 100.0 * cell_figure(drs, fig_steal_share).mean);
        }
}

int flexslot_motivation_run(const Experiment *e, const ExperimentOptions *opt) {
        _cleanup_free_ Cell *cells = NULL;
        int status = run_cells(e, opt, &cells);

        if (status != 0)
                return status;
        title_print(e, opt);
        if (strcmp(e->name, "fig3") == 0)
                fig3_print(cells);
        else if (strcmp(e->name, "fig4") == 0)
                fig4_print(cells);
        else
                fig6_print(cells);
        printf("Note: %s\n", e->note);
        if (opt->out)
                files_print(e, opt, cells, experiment_n_variants(e), false, false);
        return 0;
}

/* ---- Fig. 9 ---- */

/* The mean change of a figure against the same seed's run of base, in %. */
static Spread change_pct(const Cell *c, const Cell *base, double (*fn)(const RunSummary *)) {
        double x[MAX_SEEDS];
        size_t n = MIN(c->n, base->n);

        for (size_t k = 0; k < n; k++) {
                double b = fn(&base->runs[k]);
                x[k] = b > 0 ? 100.0 * (fn(&c->runs[k]) - b) / b : 0;
        }
        return spread_of(x, n);
}

int flexslot_breakdown_run(const Experiment *e, const ExperimentOptions *opt) {
        /* Fig. 9's variants have both. */
        size_t nv = experiment_n_variants(e), homo = experiment_variant_index(e, "homo"),
               stock = experiment_variant_index(e, "stock");
        _cleanup_free_ Cell *cells = NULL;
        char a[6][SPREAD_TEXT_MAX];
        int status = run_cells(e, opt, &cells);

        if (status != 0)
                return status;
        title_print(e, opt);
        printf("%-10s %11s %11s %11s %12s %12s %12s\n", "variant", "cpu", "I/O wait", "steal",
               "queue+start", "steal vs st", "I/O vs homo");
        for (size_t v = 0; v < nv; v++)
                printf("%-10s %11s %11s %11s %12s %11s%% %11s%%\n", e->variants[v].label,
                       figure_text(a[0], &cells[v], fig_cpu, 1),
                       figure_text(a[1], &cells[v], fig_iowait, 1),
                       figure_text(a[2], &cells[v], fig_steal, 1),
                       figure_text(a[3], &cells[v], fig_queue, 1),
                       spread_format(a[4], SPREAD_TEXT_MAX,
                                     change_pct(&cells[v], &cells[stock], fig_steal), 0),
                       spread_format(a[5], SPREAD_TEXT_MAX,
                                     change_pct(&cells[v], &cells[homo], fig_iowait), 0));
        printf("%-10s %11s %11s %11s %12s %11s%% %11s%%\n", "paper flexslot", "-", "-", "-", "-",
               "-60.5", "-39.7");
        bound_print(e, cells, nv, 1);
        decisions_print(e, cells, nv, 1);
        printf("Note: %s\n", e->note);
        if (opt->out)
                files_print(e, opt, cells, nv, false, false);
        return 0;
}

/* ---- the estimator and the assumptions: each setting under stock and
 * FlexSlot ---- */

int flexslot_sensitivity_run(const Experiment *e, const ExperimentOptions *opt) {
        size_t nv = experiment_n_variants(e);
        const char *benchmark = e->rows[0].benchmark;
        _cleanup_free_ Cell *cells = calloc(2 * nv, sizeof(Cell));
        char a[7][SPREAD_TEXT_MAX];

        if (!cells)
                return 1;
        for (size_t v = 0; v < nv; v++) {
                Variant stock = e->variants[v], flexslot = e->variants[v];
                int status;

                stock.slot_manager = "static";
                flexslot.slot_manager = "flexslot";
                status = run_cell(e, &stock, benchmark, opt, &cells[2 * v]);
                if (status == 0)
                        status = run_cell(e, &flexslot, benchmark, opt, &cells[2 * v + 1]);
                if (status != 0)
                        return status;
        }
        title_print(e, opt);
        printf("%-10s %10s %11s %11s %11s %11s %11s %13s\n", "setting", "stock JCT", "x bound",
               "skewness", "maps ratio", "slow steal", "post-map", "flexslot/st");
        for (size_t v = 0; v < nv; v++) {
                const Cell *c = &cells[2 * v];
                printf("%-10s %10s %11s %11s %11s %11s %11s %13s\n", e->variants[v].label,
                       figure_text(a[0], c, fig_jct, 0), figure_text(a[1], c, fig_bound_ratio, 2),
                       figure_text(a[2], c, fig_skewness, 2),
                       figure_text(a[3], c, fig_maps_ratio, 2),
                       figure_text(a[4], c, fig_steal_share, 2), figure_text(a[5], c, fig_tail, 2),
                       spread_format(a[6], SPREAD_TEXT_MAX, seed_ratio(c, &cells[2 * v + 1]), 3));
        }
        printf("Columns: stock Hadoop's completion time, its ratio to the lower bound, its map "
               "skewness, its busiest over least busy slave (maps), the steal share of its "
               "slowest tenth of maps, its share of time after the last map, and FlexSlot's "
               "completion time over stock's in the same seed.\n");
        printf("Note: %s\n", e->note);
        return 0;
}

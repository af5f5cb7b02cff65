/* SPDX-License-Identifier: MIT */
/* The experiments of FlexSlot section V. Each one is a scenario file (the
 * testbed and the stock policies) plus a list of variants that change only
 * policy settings; every number printed as "ours" comes from a simulator run
 * of the policy core. The paper's numbers are those its text states (the
 * figures themselves are not given as data); "-" where it states none. */
#include "experiment.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "controller/policies/flexslot.h"
#include "sim/experiment-internal.h"
#include "sim/report.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "sim/workload.h"

/* --quick runs this share of each benchmark's input: enough waves of maps
 * for stragglers and slot moves to matter, small enough for a demo. */
#define QUICK_SCALE 0.15

#define STOCK { "stock", "static", "demand", false, 0, 0 }
#define FLEXSLOT { "flexslot", "flexslot", "demand", false, 0, 0 }
#define FLEXSLOT_ALLOC { "fs+alloc", "flexslot", "flexslot", false, 0, 0 }

static int table1_run(const Experiment *e, const ExperimentOptions *opt);
static int breakdown_run(const Experiment *e, const ExperimentOptions *opt);

static const Experiment experiments[] = {
        {
                .name = "table1",
                .title = "Table I: skewness of wordcount map task times on three clusters",
                .scenario = "table1.ini",
                .custom = table1_run,
                .note = "Homo: every node capped at 2 pCPUs (4.8 GHz); Heter: the same 60 "
                        "pCPUs, half spread evenly and half by the CPU and I/O wait time of "
                        "the stragglers (slowest 20 % of maps) each node ran in the Homo run; "
                        "Heter + skew-sched: also the stragglers' splits live only on the "
                        "strongest quarter of the nodes, where delay scheduling keeps them.",
        },
        {
                .name = "fig9",
                .title = "Fig. 9: mean inverted-index map task time split (seconds)",
                .scenario = "fig10.ini",
                .custom = breakdown_run,
                .variants = { STOCK, FLEXSLOT, FLEXSLOT_ALLOC },
                .rows = { { "inverted-index", NULL } },
                .note = "the paper: FlexSlot cut steal time by 60.5 % and I/O wait by 39.7 % "
                        "against stock Hadoop (its I/O wait figure is against a homogeneous "
                        "cluster).",
        },
        {
                .name = "fig10",
                .title = "Fig. 10: normalized job completion time (stock Hadoop with "
                         "demand-based allocation = 1)",
                .scenario = "fig10.ini",
                .metric = METRIC_JCT,
                .paper_label = "paper flexslot",
                .paper_variant = "flexslot",
                .variants = { STOCK, FLEXSLOT, FLEXSLOT_ALLOC },
                .rows = { { "tera-sort", "-" },
                          { "inverted-index", "0.65" },
                          { "term-vector", "0.71" },
                          { "wordcount", "0.73" },
                          { "grep", "0.73" },
                          { "k-means", "0.75" },
                          { "histogram-movies", "0.87" },
                          { "histogram-ratings", "0.88" } },
                .note = "flexslot = the paper's FlexSlot (slot manager, demand allocator); "
                        "fs+alloc = flexslot slot manager with the flexslot VM allocator.",
        },
        {
                .name = "fig11",
                .title = "Fig. 11: normalized job completion time with a co-running cluster "
                         "(mean of both clusters)",
                .scenario = "fig11.ini",
                .metric = METRIC_JCT,
                .paper_label = "paper flexslot",
                .paper_variant = "flexslot",
                .variants = { STOCK, FLEXSLOT, FLEXSLOT_ALLOC },
                .rows = { { "tera-sort", "-" },
                          { "inverted-index", "0.56-0.66" },
                          { "term-vector", "0.56-0.66" },
                          { "wordcount", "0.56-0.66" },
                          { "grep", "0.56-0.66" },
                          { "k-means", "-" },
                          { "histogram-movies", "0.78" },
                          { "histogram-ratings", "0.77" } },
                .note = "the paper gives 34.2-43.8 % shorter completion for the four text "
                        "jobs without saying which is which.",
        },
        {
                .name = "fig12",
                .title = "Fig. 12: normalized job completion time, limited vs unlimited slots",
                .scenario = "fig10.ini",
                .metric = METRIC_JCT,
                .paper_label = "paper unlimited",
                .paper_variant = "unlimited",
                .variants = { STOCK, FLEXSLOT, { "unlimited", "flexslot", "demand", true, 0 } },
                .rows = { { "tera-sort", "-" },
                          { "inverted-index", "-" },
                          { "term-vector", "-" },
                          { "wordcount", "-" },
                          { "grep", "-" },
                          { "k-means", "~limited" },
                          { "histogram-movies", "<limited" },
                          { "histogram-ratings", "<limited" } },
                .note = "the paper: unlimited is up to 46 % below stock and on average 17-35 % "
                        "below limited; no gain for k-means (CPU bound).",
        },
        {
                .name = "fig14",
                .title = "Fig. 14: average resize kills per straggler (alpha = 0.2)",
                .scenario = "fig10.ini",
                .metric = METRIC_KILLS,
                .paper_label = "paper",
                .paper_variant = "flexslot",
                .variants = { FLEXSLOT },
                .rows = { { "tera-sort", "~1" },
                          { "inverted-index", "~1" },
                          { "term-vector", "~1" },
                          { "wordcount", "~1" },
                          { "grep", "~1" },
                          { "k-means", "~1" },
                          { "histogram-movies", "~1" },
                          { "histogram-ratings", "~1" } },
                .note = "the paper: \"most straggler only required 1 kill\". '-': no "
                        "straggler was resized.",
        },
        {
                .name = "fig15",
                .title = "Fig. 15: average resize kills per straggler against alpha",
                .scenario = "fig10.ini",
                .metric = METRIC_KILLS,
                .paper_label = "paper trend",
                .variants = { { "a=0.1", "flexslot", "demand", false, 0.1 },
                              { "a=0.2", "flexslot", "demand", false, 0.2 },
                              { "a=0.3", "flexslot", "demand", false, 0.3 },
                              { "a=0.4", "flexslot", "demand", false, 0.4 },
                              { "a=0.5", "flexslot", "demand", false, 0.5 } },
                .rows = { { "inverted-index", "falls" },
                          { "k-means", "falls" },
                          { "histogram-movies", "flat" } },
                .note = "the paper: kills fall with alpha for inverted-index and k-means "
                        "(large intermediate data), hardly for histogram-movies.",
        },
        {
                .name = "skew",
                .title = "Skewness of map task times (FlexSlot II-B formula)",
                .scenario = "fig10.ini",
                .metric = METRIC_SKEW,
                .paper_label = "paper flexslot",
                .paper_variant = "flexslot",
                .variants = { STOCK, FLEXSLOT, FLEXSLOT_ALLOC },
                .rows = { { "inverted-index", "0.96 (stock 4.98)" },
                          { "wordcount", "-" } },
                .note = "the paper's Fig. 8 skewness for inverted-index: stock 4.98, "
                        "SkewTune 1.68, FlexSlot 0.96.",
        },
};

const Experiment *experiment_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(experiments); i++)
                if (strcmp(experiments[i].name, name) == 0)
                        return &experiments[i];
        return NULL;
}

void experiment_list(FILE *f) {
        for (size_t i = 0; i < ELEMENTSOF(experiments); i++)
                fprintf(f, "%-7s %s\n", experiments[i].name, experiments[i].title);
}

size_t n_variants(const Experiment *e) {
        size_t n = 0;

        while (n < MAX_VARIANTS && e->variants[n].label)
                n++;
        return n;
}

size_t n_rows(const Experiment *e) {
        size_t n = 0;

        while (n < MAX_ROWS && e->rows[n].benchmark)
                n++;
        return n;
}

typedef struct CellRun {
        Scenario sc;
        Workload wl;
        Sim *sim;
} CellRun;

static void cell_close(CellRun *c) {
        c->sim = sim_free(c->sim);
        workload_done(&c->wl);
        scenario_done(&c->sc);
}

/* The variant's settings on top of the scenario's. */
static void variant_apply(const Variant *v, PolicyConfig *policy) {
        FlexSlotSettings *flexslot = policy_config_settings(policy, &flexslot_settings_schema);
        FairSettings *fair = policy_config_settings(policy, &fair_settings_schema);

        flexslot->unlimited_slots = flexslot->unlimited_slots || v->unlimited;
        if (v->alpha > 0)
                flexslot->alpha = v->alpha;
        if (v->locality_delay > 0)
                fair->locality_delay = v->locality_delay;
}

/* Loads the experiment's scenario with the variant's settings for
 * benchmark and builds the simulator; returns an exit status. */
static int cell_open(const Experiment *e, const Variant *v, const char *benchmark,
                     const ExperimentOptions *opt, CellRun *c) {
        _cleanup_free_ char *path = NULL;
        char err[512];
        int r;

        *c = (CellRun){ 0 };
        if (asprintf(&path, "%s/%s", opt->scenario_dir, e->scenario) < 0)
                return 1;
        r = scenario_load(path, opt->overrides, opt->n_overrides, &c->sc, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "flexslot-sim: %s\n", err);
                return 2;
        }
        r = workload_load(c->sc.workload_file, &c->wl, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "flexslot-sim: %s\n", err);
                cell_close(c);
                return 2;
        }
        if (scenario_set_string(&c->sc.jobs, benchmark) < 0 ||
            (c->sc.interference && scenario_set_string(&c->sc.interference_jobs, benchmark) < 0) ||
            (v->slot_manager && scenario_set_string(&c->sc.slot_manager, v->slot_manager) < 0) ||
            (v->allocator && scenario_set_string(&c->sc.allocator, v->allocator) < 0)) {
                cell_close(c);
                return 1;
        }
        variant_apply(v, &c->sc.policy);
        if (opt->quick)
                c->sc.scale *= QUICK_SCALE;
        if (opt->seed_set)
                c->sc.seed = opt->seed;

        r = sim_new(&c->sc, &c->wl, &c->sim, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "flexslot-sim: %s: %s\n", path, r == -EINVAL ? err : strerror(-r));
                cell_close(c);
                return r == -EINVAL ? 2 : 1;
        }
        sim_set_progress(c->sim, opt->progress, opt->progress_data);
        return 0;
}

/* Runs an opened cell and summarizes it (and writes its files with --out);
 * returns an exit status. */
static int cell_run(CellRun *c, const Experiment *e, const Variant *v, const char *benchmark,
                    const ExperimentOptions *opt, Cell *ret) {
        int r = sim_run(c->sim);

        if (r < 0) {
                fprintf(stderr, "flexslot-sim: %s under %s: %s\n", benchmark, v->label,
                        sim_invariant_error(c->sim) ? sim_invariant_error(c->sim)
                                                    : strerror(-r));
                return 1;
        }
        if (run_summarize(sim_results(c->sim), &ret->sum) < 0)
                return 1;
        ret->other_jct = sim_results(c->sim)->other_mean_jct;
        if (opt->out) {
                _cleanup_free_ char *dir = NULL, *run = NULL;
                if (asprintf(&dir, "%s/%s/%s/%s", opt->out, e->name, benchmark, v->label) < 0 ||
                    asprintf(&run, "%s under %s (%s)", benchmark, v->label, e->name) < 0)
                        return 1;
                r = report_write(dir, run, sim_results(c->sim));
                if (r < 0)
                        return 1;
                ret->no_charts = r == REPORT_NO_GNUPLOT;
        }
        return 0;
}

/* One simulator run of benchmark under variant; returns an exit status. */
static int run_cell(const Experiment *e, const Variant *v, const char *benchmark,
                    const ExperimentOptions *opt, Cell *ret) {
        CellRun c;
        int status = cell_open(e, v, benchmark, opt, &c);

        if (status != 0)
                return status;
        status = cell_run(&c, e, v, benchmark, opt, ret);
        cell_close(&c);
        return status;
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
                p->straggler[i] = r->tasks[i].map &&
                                  r->tasks[i].finished - r->tasks[i].started > threshold;
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
                for (size_t j = i; j > 0 && p->caps[p->strong[j]] > p->caps[p->strong[j - 1]]; j--) {
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
                if (sim_set_task_locations(sim, (uint32_t)t, where, MIN(3u, (unsigned)n_strong)) < 0)
                        return -EINVAL;
        }
        return 0;
}

static int table1_run(const Experiment *e, const ExperimentOptions *opt) {
        static const Variant variants[] = {
                { "Homo", NULL, NULL, false, 0, 0 },
                { "Heter", NULL, NULL, false, 0, 0 },
                /* Delay scheduling that waits as long as it takes: the
                 * stragglers run only where their splits are. */
                { "Heter+skew-sched", NULL, NULL, false, 0, 24 * USEC_PER_HOUR },
        };
        static const char *const paper[] = { "2.65", "2.25", "0.31" };
        Table1Profile profile = { 0 };
        Cell cells[ELEMENTSOF(variants)] = { 0 };
        int status = 0;

        for (size_t v = 0; v < ELEMENTSOF(variants) && status == 0; v++) {
                CellRun c;
                status = cell_open(e, &variants[v], TABLE1_BENCHMARK, opt, &c);
                if (status != 0)
                        break;
                if (v > 0 && table1_apply(c.sim, &profile, v == 2) < 0)
                        status = 1;
                if (status == 0)
                        status = cell_run(&c, e, &variants[v], TABLE1_BENCHMARK, opt, &cells[v]);
                if (status == 0 && v == 0 &&
                    table1_profile(sim_results(c.sim), sim_n_nodes(c.sim), &profile) < 0)
                        status = 1;
                cell_close(&c);
        }
        table1_profile_done(&profile);
        if (status != 0)
                return status;
        printf("%s%s\n", e->title, opt->quick ? " [quick: reduced input]" : "");
        printf("%-18s %8s %8s %10s\n", "cluster", "ours", "paper", "JCT (s)");
        for (size_t v = 0; v < ELEMENTSOF(variants); v++)
                printf("%-18s %8.2f %8s %10.0f\n", variants[v].label, cells[v].sum.map_skewness,
                       paper[v], cells[v].sum.jct);
        printf("Note: %s\n", e->note);
        if (opt->out)
                files_print(e, opt, cells, ELEMENTSOF(cells), false, false);
        return 0;
}

/* ---- Fig. 9 ---- */

static double change_pct(double now, double before) {
        return before > 0 ? 100.0 * (now - before) / before : 0;
}

static int breakdown_run(const Experiment *e, const ExperimentOptions *opt) {
        const char *benchmark = e->rows[0].benchmark;
        size_t nv = n_variants(e);
        Cell cells[MAX_VARIANTS] = { 0 };

        for (size_t v = 0; v < nv; v++) {
                int status = run_cell(e, &e->variants[v], benchmark, opt, &cells[v]);
                if (status != 0)
                        return status;
        }
        printf("%s%s\n", e->title, opt->quick ? " [quick: reduced input]" : "");
        printf("%-10s %8s %8s %8s %12s %10s %10s\n", "variant", "cpu", "I/O wait", "steal",
               "queue+start", "steal vs", "I/O vs");
        for (size_t v = 0; v < nv; v++) {
                const RunSummary *r = &cells[v].sum;
                printf("%-10s %8.1f %8.1f %8.1f %12.1f %9.0f%% %9.0f%%\n", e->variants[v].label,
                       r->cpu, r->iowait, r->steal, r->queue, change_pct(r->steal, cells[0].sum.steal),
                       change_pct(r->iowait, cells[0].sum.iowait));
        }
        printf("%-10s %8s %8s %8s %12s %9s%% %9s%%\n", "paper", "-", "-", "-", "-", "-60.5",
               "-39.7");
        decisions_print(e, cells, nv, 1);
        printf("Note: %s\n", e->note);
        if (opt->out)
                files_print(e, opt, cells, nv, false, false);
        return 0;
}

/* ---- the table of variants x benchmarks ---- */

int experiment_run(const char *name, const ExperimentOptions *opt) {
        const Experiment *e = experiment_find(name);
        size_t nv = n_variants(e), nr = n_rows(e);
        _cleanup_free_ Cell *cells = NULL;
        int status, r;

        /* A directory that cannot take the files fails now, not after the
         * runs. */
        if (opt->out && report_prepare_dir(opt->out) < 0)
                return 1;
        if (e->custom)
                return e->custom(e, opt);

        if (nv == 0 || nr == 0)
                return 1;
        cells = calloc(nv * nr, sizeof(Cell));
        if (!cells)
                return 1;
        for (size_t i = 0; i < nr; i++)
                for (size_t v = 0; v < nv; v++) {
                        status = run_cell(e, &e->variants[v], e->rows[i].benchmark, opt,
                                          &cells[i * nv + v]);
                        if (status != 0)
                                return status;
                }

        table_print(e, cells, nv, nr, opt->quick);
        if (opt->out) {
                r = table_write(e, cells, nv, nr, opt);
                if (r < 0)
                        return 1;
                files_print(e, opt, cells, nv * nr, true, r == REPORT_NO_GNUPLOT);
        }
        return 0;
}

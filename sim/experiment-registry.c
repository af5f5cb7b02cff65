/* SPDX-License-Identifier: MIT */
/* The registry of the experiments (FlexSlot sections II and V, and the
 * DynamicMR, deadline and RAS papers'), and running one by name. Each one
 * is a scenario file (the testbed and the stock policies) plus a list of
 * variants that change who sizes the VMs and the policy settings; every
 * number printed as "ours" comes from simulator runs of the policy core,
 * one per seed, given as the mean and half the range over the seeds. The
 * paper's numbers are those its text states (the figures themselves are
 * not given as data); "-" where it states none. An experiment that is a
 * table of variants x benchmarks is run here; the others by their own
 * function (experiment-*.c). */
#include <string.h>

#include "common/macro.h"
#include "sim/experiment-internal.h"
#include "sim/experiment.h"
#include "sim/report.h"

/* Stock Hadoop and the paper's FlexSlot under DRS; the paper's static
 * homogeneous cluster; FlexSlot with flexslot's allocator instead of DRS. */
#define STOCK \
        { .label = "stock", .slot_manager = "static", .cloud = CLOUD_DRS }
#define FLEXSLOT \
        { .label = "flexslot", .slot_manager = "flexslot", .cloud = CLOUD_DRS }
#define HOMO \
        { .label = "homo", .slot_manager = "static", .cloud = CLOUD_HOMO }
#define FLEXSLOT_ALLOC                                                                    \
        {                                                                                 \
                .label = "fs+alloc", .slot_manager = "flexslot", .allocator = "flexslot", \
                .cloud = CLOUD_AGENT                                                      \
        }
/* The eight PUMA benchmarks of FlexSlot's Figs. 10-14, in the papers'
 * order, each with what the paper gives for it. */
/* clang-format off */
#define PUMA_ROWS(tera_sort, inverted_index, term_vector, wordcount, grep, k_means,  \
                  histogram_movies, histogram_ratings)                               \
        { { "tera-sort", tera_sort },                                                \
          { "inverted-index", inverted_index },                                      \
          { "term-vector", term_vector },                                            \
          { "wordcount", wordcount },                                                \
          { "grep", grep },                                                          \
          { "k-means", k_means },                                                    \
          { "histogram-movies", histogram_movies },                                  \
          { "histogram-ratings", histogram_ratings } }
/* clang-format on */
/* Fig. 10's: the paper's FlexSlot figure for each. */
#define FIG10_ROWS PUMA_ROWS("-", "0.65", "0.71", "0.73", "0.73", "0.75", "0.87", "0.88")
/* A variant under DRS with the given settings (Experiment's sets). */
#define DRS_WITH(name, ...)                                                \
        {                                                                  \
                .label = name, .cloud = CLOUD_DRS, .sets = { __VA_ARGS__ } \
        }
#define KILLS(a) \
        { .label = "a=" #a, .slot_manager = "flexslot", .cloud = CLOUD_DRS, .alpha = a }

static const Experiment experiments[] = {
        {
                .name = "table1",
                .title = "Table I: skewness of wordcount map task times on three clusters",
                .scenario = "table1.ini",
                .custom = flexslot_table1_run,
                .note = "Homo: every node capped at 2 pCPUs (4.8 GHz); Heter: the same 60 "
                        "pCPUs, half spread evenly and half by the CPU and I/O wait time of "
                        "the stragglers (slowest 20 % of maps) each node ran in the Homo run; "
                        "Heter + skew-sched: also the stragglers' splits live only on the "
                        "strongest quarter of the nodes, where delay scheduling keeps them.",
        },
        {
                .name = "fig3",
                .title = "Fig. 3: wordcount map task times on the static and the DRS cluster",
                .scenario = "fig10.ini",
                .custom = flexslot_motivation_run,
                .variants = { HOMO, STOCK },
                .rows = { { "wordcount", NULL } },
                .note = "the paper: under DRS the fast tasks ran faster and the stragglers "
                        "slower than on the static cluster, so the skewness rose (its Homo "
                        "skewness is 2.65, Table I).",
        },
        {
                .name = "fig4",
                .title = "Fig. 4: wordcount map tasks and CPU per slave on the static and the DRS "
                         "cluster",
                .scenario = "fig10.ini",
                .custom = flexslot_motivation_run,
                .variants = { HOMO, STOCK },
                .rows = { { "wordcount", NULL } },
                .note = "the paper: under DRS some nodes ran 10x more tasks than the node with "
                        "the fewest; those hot spots ran fast tasks and got more CPU.",
        },
        {
                .name = "fig6",
                .title = "Fig. 6: where the slowest tenth of wordcount's maps spend their time "
                         "(seconds)",
                .scenario = "fig10.ini",
                .custom = flexslot_motivation_run,
                .variants = { HOMO, STOCK },
                .rows = { { "wordcount", NULL } },
                .note = "the paper: under DRS, steal time contributed most to the stragglers' "
                        "runtime.",
        },
        {
                .name = "fig9",
                .title = "Fig. 9: mean inverted-index map task time split (seconds)",
                .scenario = "fig10.ini",
                .custom = flexslot_breakdown_run,
                .variants = { HOMO, STOCK, FLEXSLOT, FLEXSLOT_ALLOC },
                .rows = { { "inverted-index", NULL } },
                .note = "the paper: FlexSlot cut steal time by 60.5 % against stock Hadoop under "
                        "DRS and I/O wait by 39.7 % against stock Hadoop on the static "
                        "homogeneous cluster (homo).",
        },
        {
                .name = "fig10",
                .title = "Fig. 10: normalized job completion time (stock Hadoop under DRS = 1)",
                .scenario = "fig10.ini",
                .metric = METRIC_JCT,
                .paper_label = "paper flexslot",
                .paper_variant = "flexslot",
                .variants = { STOCK, FLEXSLOT, FLEXSLOT_ALLOC },
                .rows = FIG10_ROWS,
                .note = "flexslot = the paper's FlexSlot (its slot manager) under DRS; fs+alloc "
                        "= the FlexSlot slot manager with flexslot's VM allocator instead of "
                        "DRS; `flexslot-sim experiment alloc` sets it beside KVM's equal shares "
                        "and shows where its time above the bound goes.",
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
                .rows = PUMA_ROWS("-", "0.56-0.66", "0.56-0.66", "0.56-0.66", "0.56-0.66", "-",
                                  "0.78", "0.77"),
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
                .variants = { STOCK, FLEXSLOT,
                              { .label = "unlimited", .slot_manager = "flexslot",
                                .cloud = CLOUD_DRS, .unlimited = true } },
                .rows = PUMA_ROWS("-", "-", "-", "-", "-", "~limited", "<limited", "<limited"),
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
                .rows = PUMA_ROWS("~1", "~1", "~1", "~1", "~1", "~1", "~1", "~1"),
                .note = "the paper: \"most straggler only required 1 kill\". '-': no "
                        "straggler was resized.",
        },
        {
                .name = "fig15",
                .title = "Fig. 15: average resize kills per straggler against alpha",
                .scenario = "fig10.ini",
                .metric = METRIC_KILLS,
                .paper_label = "paper trend",
                .variants = { KILLS(0.1), KILLS(0.2), KILLS(0.3), KILLS(0.4), KILLS(0.5) },
                .rows = { { "inverted-index", "falls" },
                          { "k-means", "falls" },
                          { "histogram-movies", "flat" } },
                .note = "the paper: kills fall with alpha for inverted-index and k-means "
                        "(large intermediate data), hardly for histogram-movies.",
        },
        {
                .name = "alloc",
                .title = "Our VM allocator against stock Hadoop, the paper's FlexSlot and the "
                         "bound (normalized to stock under DRS)",
                .scenario = "fig10.ini",
                .custom = alloc_run,
                .metric = METRIC_JCT,
                .paper_label = "paper flexslot",
                .variants = { STOCK,
                              FLEXSLOT,
                              HOMO,
                              { .label = "kvm", .slot_manager = "static", .cloud = CLOUD_KVM },
                              { .label = "fs-kvm", .slot_manager = "flexslot",
                                .cloud = CLOUD_KVM },
                              { .label = "st+alloc", .slot_manager = "static",
                                .allocator = "flexslot", .cloud = CLOUD_AGENT },
                              FLEXSLOT_ALLOC,
                              { .label = "fs+crit", .slot_manager = "flexslot",
                                .allocator = "flexslot", .cloud = CLOUD_AGENT,
                                .sets = { "policy.critical_first=yes" } },
                              { .label = "fs+unl", .slot_manager = "flexslot",
                                .allocator = "flexslot", .cloud = CLOUD_AGENT,
                                .unlimited = true } },
                .rows = FIG10_ROWS,
                .note = "the paper's setting: stock and flexslot under DRS's pool, homo the "
                        "static 2-pCPU cluster; KVM without a pool: kvm is stock on equal "
                        "uncapped shares of each host, fs-kvm the FlexSlot slot manager on "
                        "them; ours (the agent sizes the VMs, no DRS): st+alloc is stock's slots "
                        "with flexslot's allocator, fs+alloc the FlexSlot slot manager with it, "
                        "fs+crit the same with critical_first, fs+unl with V-F's unlimited "
                        "slots.",
        },
        {
                .name = "dmr-fig8",
                .title = "DynamicMR Fig. 8: speedup over stock Hadoop at 1/11 map/reduce slots "
                         "per slave, by slot configuration",
                .scenario = "dmr.ini",
                .custom = dmr_fig8_run,
                .note = "the DynamicMR testbed (dmr.ini), one job at a time; the paper shows "
                        "sort (Fig. 8), the other benchmarks are in its supplement, whose "
                        "figures we do not have.",
        },
        {
                .name = "dmr-fig9",
                .title = "DynamicMR Fig. 9a: SEPB's speedup by the share of jobs checked for "
                         "pending tasks, against LATE and no speculation",
                .scenario = "dmr.ini",
                .custom = dmr_fig9_run,
                .note = "batches submitted at once, the Table 3 benchmarks in turn (the paper's "
                        "batches are in its supplement); 6/6 slots, no DHSA. Speculation only "
                        "pays where the model has stragglers: dmr.ini's machines are equal, so "
                        "its stragglers are large splits and expensive records.",
        },
        {
                .name = "dmr-fig10",
                .title = "DynamicMR Fig. 10 and 11: data locality and speedup with and without "
                         "Slot PreScheduling, delay scheduling and the load manager on",
                .scenario = "dmr.ini",
                .custom = dmr_fig10_run,
                .note = "locality is the share of maps whose finishing attempt ran on a node "
                        "holding one of its split's three replicas (placed at random). A remote "
                        "map reads its split from the first replica's disk over both hosts' "
                        "links ([cluster] network_bandwidth, an assumed 1 Gbps here).",
        },
        {
                .name = "dmr-fig12",
                .title = "DynamicMR Fig. 12: DynamicMR (PI-DHSA, SEPB, PreScheduling) against "
                         "stock Hadoop at its best slot configuration",
                .scenario = "dmr.ini",
                .custom = dmr_fig12_run,
                .note = "stock runs each of 1/11 to 11/1 slots and keeps the one of the "
                        "smallest mean; DynamicMR runs at 6/6 (the paper does not say its "
                        "configuration). Stock has no speculation, as dmr.ini. Batches are "
                        "the Table 3 benchmarks in turn, submitted at once.",
        },
        {
                .name = "aria-fig5",
                .title = "ARIA Fig. 5: WikiTrends' slots for a deadline by bound, and its "
                         "completion time with them (task-level replay)",
                .custom = slo_fig5_run,
                .note = "Table 1's raw profile (profiles/wikitrends.ini) does not give Fig. 5's "
                        "pairs: the paper omits how it normalizes a profile (its footnote 6), so "
                        "compare the trends and how near each bound's runs end to the deadline, "
                        "not the pairs. Task times are drawn from Table 1's min/avg/max (uniform "
                        "below and above the mean); the shuffle and reduce minimums, which it "
                        "omits, are taken as half the mean. Reduces start at 5 % of the maps "
                        "(Hadoop's default), one wave of copies overlapping the maps.",
        },
        {
                .name = "aria-table3",
                .title = "ARIA Table 3: jobs with deadlines under arrivals held below a load "
                         "threshold, W1 and W2 of Table 2 (task-level replay)",
                .custom = slo_table3_run,
                .note = "the cluster is section 4.1's testbed (64 workers, 4 map and 4 reduce "
                        "slots); W1 picks an application and one of its datasets at random for "
                        "each job, with 64 reduces (Table 2 gives none); deadlines uniform in "
                        "[T_J, 3 T_J], T_J the job alone on the whole cluster under FIFO; a job "
                        "comes when Eq. 15's pair plus the running tasks is under the "
                        "threshold, or no job is left; the scheduler is aria under each bound "
                        "with each job's own task times as its stored profile.",
        },
        {
                .name = "dcs",
                .title = "Deadline Constraint Scheduler section IV: minimum tasks and deadlines "
                         "(task-level replay)",
                .custom = slo_dcs_run,
                .note = "the paper prints the minimum maps of both cases and the reduces of the "
                        "second, and says every deadline was met; its task times are partly "
                        "given (case 1: 37-120 s maps), the rest are the assumptions named "
                        "above, the task times chosen so that the model gives the printed "
                        "numbers; how far below its estimate a run's task is, and that each "
                        "reduce copies its share, are assumptions too, whose effect the last "
                        "table shows.",
        },
        {
                .name = "slo-interference",
                .title = "The one loop: ARIA W1-style deadline jobs on FlexSlot's interfered "
                         "cluster (Fig. 11's hosts under DRS, a best-effort tenant beside)",
                .scenario = "slo-interference.ini",
                .custom = slo_interference_run,
                .note = "jobs drawn from the PUMA benchmarks at a tenth of their input (half "
                        "with --quick), submitted one mean T_J apart and let in by ARIA's 100 % "
                        "load threshold (scenarios/slo-interference.ini), deadlines uniform in "
                        "[T_J, 3 T_J] from when they come (T_J alone on the cluster, FIFO, no "
                        "tenant), each job's stored profile that run's; the tenant runs the same "
                        "jobs at the submissions on stock Hadoop; under the lever the agents' CPU "
                        "weights scale DRS's shares (drs.c); with --set drs.enabled=no (KVM alone) they are "
                        "the VMs' cpu_shares. The arrivals, the scale, the tenant, "
                        "slo_margin and DRS's estimator are assumptions (sim/README.md shows how "
                        "much they matter: under --set drs.divvy=maxmin or drs.ready=yes the "
                        "loop misses the fewest by mean, under the shipped one it does not). There is no job without a deadline, so the slots ARIA's quotas "
                        "leave idle stay idle unless --set policy.slo_spare=yes hands them to the "
                        "deadline jobs, nearest to missing first (every arm with ARIA; FIFO has "
                        "no quotas).",
        },
        {
                .name = "slo-interference-w2",
                .title = "The one loop: ARIA's W2 (Yahoo!) deadline jobs on FlexSlot's "
                         "interfered cluster (Fig. 11's hosts under DRS, a best-effort tenant "
                         "beside)",
                .scenario = "slo-interference.ini",
                .custom = slo_interference_w2_run,
                .note = "each job W2's: its map and reduce counts drawn from the M45 study's "
                        "N(154, 558) and N(19, 145) at a tenth (a twentieth with --quick, at "
                        "least one each), its map and reduce times from N(100, 20) s and "
                        "N(300, 30) s, one draw per job for all its tasks (the paper draws per "
                        "task), a map's output its input; submitted one mean T_J apart, let in "
                        "by ARIA's 100 % load threshold, deadlines uniform in [T_J, 3 T_J] from "
                        "when they come, each job's stored profile its run alone; the tenant "
                        "runs the same jobs at the submissions on stock Hadoop. The share of "
                        "the counts, the per-job times, the arrivals, the tenant and DRS's "
                        "estimator are assumptions (sim/README.md: drs.divvy and drs.ready "
                        "change the arms' order; --set drs.enabled=no runs it on KVM alone, "
                        "the lever's weights the VMs' cpu_shares). --set policy.slo_spare=yes hands the slots ARIA's quotas "
                        "leave idle to the deadline jobs (every arm with ARIA).",
        },
        {
                .name = "ras-exp1",
                .title = "RAS Experiment 1 (Fig. 3): makespan of Table 1's 9 Gridmix jobs under "
                         "Fair with 1-8 map slots per tracker and under RAS, relaxed goals",
                .scenario = "ras.ini",
                .custom = ras_exp1_run,
                .note = "the RAS testbed (ras.ini) and Table 1's jobs at their submission times "
                        "(workloads/gridmix.csv, Table 2's profiles); RAS's job slots bounded "
                        "by 16 map and 4 reduce per tracker, Fair's reduce slots 2; our task "
                        "costs, disk and goals of 100,000 s are assumptions.",
        },
        {
                .name = "ras-exp2",
                .title = "RAS Experiment 2: Table 1's completion time goals, which are met "
                           "under RAS and under Fair at its best static configuration",
                .scenario = "ras.ini",
                .custom = ras_exp2_run,
                .note = "goals are Table 1's, as times from the start; a job meets its goal in "
                        "a seed when it ends by it. Fair does not read goals; its best "
                        "configuration is the one of the shortest mean makespan.",
        },
        {
                .name = "skew",
                .title = "Skewness of map task times (FlexSlot II-B formula)",
                .scenario = "fig10.ini",
                .metric = METRIC_SKEW,
                .paper_label = "paper flexslot",
                .paper_variant = "flexslot",
                .variants = { STOCK, FLEXSLOT, FLEXSLOT_ALLOC },
                .rows = { { "inverted-index", "0.96 (stock 4.98)" }, { "wordcount", "-" } },
                .note = "the paper's Fig. 8 skewness for inverted-index: stock 4.98, "
                        "SkewTune 1.68, FlexSlot 0.96.",
        },
        {
                .name = "drs",
                .title = "DRS's estimator: wordcount under stock Hadoop and FlexSlot for each "
                         "way of estimating demand",
                .scenario = "fig10.ini",
                .custom = flexslot_sensitivity_run,
                .variants = {
                        { .label = "5min", .cloud = CLOUD_DRS },
                        DRS_WITH("60s", "drs.period=60s", "drs.window=60s"),
                        DRS_WITH("3s", "drs.period=3s", "drs.window=3s", "drs.sample=1s"),
                        DRS_WITH("ready", "drs.ready=yes"),
                        DRS_WITH("maxmin", "drs.divvy=maxmin"),
                        DRS_WITH("3s+ready", "drs.period=3s", "drs.window=3s", "drs.sample=1s",
                                 "drs.ready=yes"),
                        DRS_WITH("3s+maxmin", "drs.period=3s", "drs.window=3s", "drs.sample=1s",
                                 "drs.divvy=maxmin"),
                        HOMO,
                },
                .rows = { { "wordcount", NULL } },
                .note = "5min is the default (sim/drs.c): DRS divides the pool every 5 minutes "
                        "by the last 5 minutes' CPU use, in proportion; ready: ready time "
                        "counts as demand; maxmin: each VM its demand, the rest in equal "
                        "parts; homo: no DRS, static 2-pCPU nodes.",
        },
        {
                .name = "assume",
                .title = "The model's assumptions: wordcount under stock Hadoop and FlexSlot as "
                         "each one changes",
                .scenario = "fig10.ini",
                .custom = flexslot_sensitivity_run,
                .variants = {
                        { .label = "as is", .cloud = CLOUD_DRS },
                        DRS_WITH("comb 0.1", "workload.combine_ratio=0.1"),
                        DRS_WITH("comb 0.5", "workload.combine_ratio=0.5"),
                        DRS_WITH("no comb", "workload.combine_ratio=1"),
                        DRS_WITH("big recs", "workload.record_bytes=0"),
                        DRS_WITH("chunk 4M", "hadoop.chunk=4M"),
                        DRS_WITH("disk 80M", "cluster.host_disk_bandwidth=80M"),
                        DRS_WITH("no small", "workload.small_frac=0"),
                        DRS_WITH("exp cpu 3", "workload.expensive_cpu=3"),
                },
                .rows = { { "wordcount", NULL } },
                .note = "comb: what wordcount's combiner keeps of a spill (0.2 as shipped; no "
                        "comb: none kept out); big recs: records never start a spill (only "
                        "the 76 MB data part does); chunk: the model's round of input (16M as "
                        "shipped); disk: each host's disk bandwidth (160M as shipped); no small: "
                        "no file smaller than a block (a quarter as shipped); exp cpu: "
                        "what expensive records cost in CPU (1.2 x as shipped).",
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

/* ---- the table of variants x benchmarks ---- */

int experiment_run(const char *name, const ExperimentOptions *opt) {
        const Experiment *e = experiment_find(name);
        size_t nv = experiment_n_variants(e), nr = experiment_n_rows(e);
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
        status = run_cells(e, opt, &cells);
        if (status != 0)
                return status;
        table_print(e, cells, nv, nr, opt);
        if (opt->out) {
                r = table_write(e, cells, nv, nr, opt);
                if (r < 0)
                        return 1;
                files_print(e, opt, cells, nv * nr, true, r == REPORT_NO_GNUPLOT);
        }
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* The experiments of the deadline papers, run on the task-level replay
 * (replay.h) with the jobs as the papers state them in task times:
 *
 *   dcs          the Deadline Constraint Scheduler (Kc, Anyanwu, CloudCom
 *                2010), section IV's two cases;
 *   aria-fig5    ARIA (Verma, Cherkasova, Campbell, ICAC'11), Fig. 5;
 *   aria-table3  ARIA's Table 3, the workloads of its Table 2.
 *
 * Every number a paper does not give is named as an assumption in the
 * output. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "policy/layers/dcs-model.h"
#include "sim/data.h"
#include "sim/experiment-internal.h"
#include "sim/profile.h"
#include "sim/replay.h"

static usec_t usec_of(double seconds) {
        return (usec_t)llround(seconds * (double)USEC_PER_SEC);
}

/* A uniform draw in [lo, hi] from a seed's stream. */
static double uniform(unsigned short xsubi[3], double lo, double hi) {
        return lo + (hi - lo) * erand48(xsubi);
}

static void seed_stream(int64_t seed, unsigned short xsubi[3]) {
        xsubi[0] = 0x330e;
        xsubi[1] = (unsigned short)seed;
        xsubi[2] = (unsigned short)((uint64_t)seed >> 16);
}

/* The policy settings --set gives (scenario_policy_overrides(): unknown
 * keys refused, as every experiment refuses them), then scheduler and, for
 * a bound of 0 or more, aria's bound. opt may be NULL: the defaults. */
static int slo_config(const ExperimentOptions *opt, const char *scheduler, int bound,
                      PolicyConfig *ret) {
        char err[CONF_ERROR_TEXT_MAX + 64];
        int r = scenario_policy_overrides(opt ? opt->overrides : NULL, opt ? opt->n_overrides : 0,
                                          ret, err, sizeof(err));

        if (r < 0)
                return r;
        ret->scheduler = scheduler;
        if (bound >= 0)
                ((AriaSettings *)policy_config_settings(ret, &aria_settings_schema))->aria_bound =
                        bound;
        return 0;
}

/* Whether --set can be applied to the experiment: every key known, and none
 * of own (NULL-ended), the [policy] keys the experiment varies itself.
 * Says why not on stderr; returns an exit status (0 or 2). */
static int slo_settings_check(const Experiment *e, const ExperimentOptions *opt,
                              const char *const *own) {
        char err[CONF_ERROR_TEXT_MAX + 64];
        PolicyConfig cfg;

        for (size_t i = 0; i < opt->n_overrides; i++)
                for (size_t k = 0; own && own[k]; k++)
                        if (strcmp(opt->overrides[i].section, POLICY_SECTION) == 0 &&
                            strcmp(opt->overrides[i].key, own[k]) == 0) {
                                fprintf(stderr,
                                        "flexslot-sim: %s: %s runs every value of %s itself\n",
                                        opt->overrides[i].where, e->name, own[k]);
                                return 2;
                        }
        if (scenario_policy_overrides(opt->overrides, opt->n_overrides, &cfg, err, sizeof(err)) <
            0) {
                fprintf(stderr,
                        "flexslot-sim: %s: %s (it runs no scenario: --set takes the "
                        "[policy] keys of `flexslot-sim settings`)\n",
                        e->name, err);
                return 2;
        }
        policy_config_done(&cfg);
        return 0;
}

/* ---- dcs ---- */

/* Section IV's cases with parameters that give the printed minimum tasks
 * (tests/check_slo_models.c works them out). The paper gives neither reduce
 * times nor, for the physical cluster, map times or the reduce count. Case
 * 1's one reduce is Hadoop's default (mapred.reduce.tasks), which the
 * paper kept ("all other configuration parameters were default values");
 * its reduce phase, 160 s, is one of those in (138.75, 198.75] that give
 * 6 and 5 maps. Case 2's 74 s maps and 5 reduces of 246 s are the one set
 * of whole seconds that gives all four printed numbers. These are the
 * scheduler's estimates: "the observed worst case computation time"
 * (IV-B), so a run's tasks take at most them. */
typedef struct DcsCase {
        const char *name;
        unsigned trackers; /* 2 map and 2 reduce slots each */
        unsigned maps, reduces;
        double input_mb;
        double map_max;  /* slowest map: the estimate */
        double reduce_s; /* slowest reduce phase: the estimate, an assumption */
        double deadlines[2];
        unsigned paper_maps[2], paper_reduces[2]; /* 0: not printed */
} DcsCase;

static const DcsCase dcs_cases[] = {
        { "virtual, 975 MB", 3, 16, 1, 975, 120, 160, { 600, 700 }, { 6, 5 }, { 0, 0 } },
        { "physical, 2.9 GB", 10, 48, 5, 2969.6, 74, 246, { 680, 1000 }, { 20, 8 }, { 5, 4 } },
};

/* The measured network, 12 MB/s (IV, with iperf between the trackers):
 * the transfer term f sigma c_d is the whole map output (f = 1) over it,
 * which the scheduler's profile carries as its slowest shuffle. */
#define DCS_NETWORK_MB_S 12.0
/* Case 1's observed map times, 37-120 s: the fastest task at 37/120 of the
 * estimate, the ratio every run's tasks are drawn with (uniform in [ratio
 * x estimate, estimate]) unless a sensitivity row says otherwise. */
#define DCS_RATIO (37.0 / 120.0)

const DcsDraw dcs_draw_default = { .ratio = DCS_RATIO };

/* One run of case c with deadline d: each map and reduce phase uniform in
 * [ratio x estimate, estimate] from seed's stream, each reduce copying its
 * 1/v share of the map output at the network's rate over its own link
 * (Assumption 2, uniform keys), or all of it with whole_copy. The
 * scheduler's profile holds the estimates and the whole transfer. */
static int dcs_run(const ExperimentOptions *opt, const DcsCase *c, double deadline,
                   const DcsDraw *draw, int64_t seed, DcsRun *ret) {
        _cleanup_free_ double *map_s = calloc(c->maps, sizeof(double));
        double shuffle[8], reduce[8], copy = c->input_mb / DCS_NETWORK_MB_S;
        unsigned short xsubi[3];
        ReplayJob job = { .deadline = deadline,
                          .maps = c->maps,
                          .reduces = c->reduces,
                          .map_s = map_s,
                          .shuffle_s = shuffle,
                          .first_shuffle_s = shuffle,
                          .reduce_s = reduce };
        ReplayOptions o = { .nodes = c->trackers, .map_slots = 2, .reduce_slots = 2 };
        ReplayJobResult res;
        ReplayStats st;
        JobProfile stored = { 0 };
        PolicyConfig cfg;
        int r;

        if (!map_s || c->reduces > ELEMENTSOF(shuffle))
                return -ENOMEM;
        seed_stream(seed, xsubi);
        for (unsigned i = 0; i < c->maps; i++)
                map_s[i] = uniform(xsubi, draw->ratio * c->map_max, c->map_max);
        for (unsigned i = 0; i < c->reduces; i++) {
                shuffle[i] = draw->whole_copy ? copy : copy / c->reduces;
                reduce[i] = uniform(xsubi, draw->ratio * c->reduce_s, c->reduce_s);
        }
        /* The paper's estimates, as a run alone would have measured them at
         * their slowest: every phase at its estimate, the whole transfer. */
        phase_stats_add(&stored.phases[PROFILE_MAP], usec_of(c->map_max));
        for (unsigned i = 0; i < c->reduces; i++) {
                phase_stats_add(&stored.phases[PROFILE_FIRST_SHUFFLE], usec_of(copy));
                phase_stats_add(&stored.phases[PROFILE_TYPICAL_SHUFFLE], usec_of(copy));
                phase_stats_add(&stored.phases[PROFILE_REDUCE], usec_of(c->reduce_s));
        }
        job.profile = &stored;
        r = slo_config(opt, "deadline", -1, &cfg);
        if (r < 0)
                return r;
        r = replay_run(&cfg, &o, &job, 1, &res, &st);
        policy_config_done(&cfg);
        if (r < 0)
                return r;
        *ret = (DcsRun){ .maps = res.peak[TASK_MAP],
                         .reduces = res.peak[TASK_REDUCE],
                         .finished = res.refused ? INFINITY : res.finished,
                         .refused = res.refused };
        return 0;
}

int slo_dcs_cell(const ExperimentOptions *opt, size_t c, size_t d, const DcsDraw *draw,
                 int64_t seed, DcsRun *ret) {
        if (c >= ELEMENTSOF(dcs_cases) || d >= 2)
                return -EINVAL;
        return dcs_run(opt, &dcs_cases[c], dcs_cases[c].deadlines[d], draw, seed, ret);
}

static int dcs_model(const ExperimentOptions *opt, const DcsCase *c, double deadline,
                     DcsTest *ret) {
        PolicyConfig cfg;
        DcsJob j = {
                .deadline = deadline,
                .input = c->input_mb,
                .filter_ratio = 1,
                .map_cost = c->map_max * c->maps / c->input_mb,
                .reduce_cost = c->reduce_s * c->reduces / c->input_mb,
                .transfer_cost = 1 / DCS_NETWORK_MB_S,
                .maps = c->maps,
                .reduces = c->reduces,
        };
        int r = slo_config(opt, "deadline", -1, &cfg);

        if (r < 0)
                return r;
        j.worst_skew =
                ((const DeadlineSettings *)policy_config_settings(&cfg, &deadline_settings_schema))
                        ->deadline_worst_skew;
        policy_config_done(&cfg);
        return dcs_test(&j, 0, c->trackers * 2, c->trackers * 2, ret);
}

static const char *dcs_case_name(size_t c, size_t d) {
        static char buf[2][2][16];

        snprintf(buf[c][d], sizeof(buf[c][d]), "case%zu/%.0fs", c + 1, dcs_cases[c].deadlines[d]);
        return buf[c][d];
}

static const char *paper_count(char *buf, size_t size, unsigned n) {
        if (n == 0)
                return "-";
        snprintf(buf, size, "%u", n);
        return buf;
}

/* Runs of case c at deadline d under draw over the seeds: their finish
 * times into fin[] and how many met it. */
static int dcs_seeds(const ExperimentOptions *opt, size_t c, size_t d, const DcsDraw *draw,
                     double *fin, unsigned *ret_met) {
        size_t seeds = experiment_seeds(opt);
        int64_t first = experiment_first_seed(opt);
        unsigned met = 0;

        for (size_t k = 0; k < seeds; k++) {
                DcsRun run;
                int r = slo_dcs_cell(opt, c, d, draw, first + (int64_t)k, &run);

                if (r < 0)
                        return r;
                fin[k] = run.finished;
                met += fin[k] <= dcs_cases[c].deadlines[d];
        }
        *ret_met = met;
        return 0;
}

/* The rows of case c, one per deadline, named caseN/D; the run of every
 * task at its estimate into slow[]. */
static int dcs_case_print(size_t i, const ExperimentOptions *opt, DcsRun *slow) {
        const DcsCase *c = &dcs_cases[i];
        const DcsDraw at_estimate = { .ratio = 1 };
        size_t seeds = experiment_seeds(opt);

        for (size_t d = 0; d < 2; d++) {
                double deadline = c->deadlines[d], fin[MAX_SEEDS];
                char pm[16], pr[16], spread[SPREAD_TEXT_MAX];
                unsigned met = 0;
                DcsTest t;
                int r = dcs_model(opt, c, deadline, &t);

                if (r >= 0)
                        r = dcs_run(opt, c, deadline, &at_estimate, 0, &slow[d]);
                if (r >= 0)
                        r = dcs_seeds(opt, i, d, &dcs_draw_default, fin, &met);
                if (r < 0)
                        return r;
                printf("%-12s %6u/%-4u %6s/%-4s %9.1fs %-4s %6u/%-5u %13s s met %u/%zu\n",
                       dcs_case_name(i, d), t.min_maps, t.min_reduces,
                       paper_count(pm, sizeof(pm), c->paper_maps[d]),
                       paper_count(pr, sizeof(pr), c->paper_reduces[d]), slow[d].finished,
                       slow[d].refused                ? "REFUSED"
                       : slow[d].finished <= deadline ? "met"
                                                      : "MISS",
                       slow[d].maps, slow[d].reduces,
                       spread_format(spread, sizeof(spread), spread_of(fin, seeds), 1), met, seeds);
        }
        return 0;
}

/* How the verdicts depend on the two assumptions: runs met per deadline
 * with the tasks drawn at other ratios of their estimates, and with every
 * reduce copying the whole map output. */
static int dcs_sensitivity_print(const ExperimentOptions *opt) {
        static const DcsDraw draws[] = {
                { .ratio = 1 },
                { .ratio = 0.6 },
                { .ratio = DCS_RATIO },
                { .ratio = 1, .whole_copy = true },
                { .ratio = DCS_RATIO, .whole_copy = true },
        };
        size_t seeds = experiment_seeds(opt);

        printf("\nHow much the verdicts depend on the assumptions (runs that met the deadline, of "
               "%zu):\n%-34s",
               seeds, "tasks / each reduce's copy");
        for (size_t c = 0; c < ELEMENTSOF(dcs_cases); c++)
                for (size_t d = 0; d < 2; d++)
                        printf(" %11s", dcs_case_name(c, d));
        printf("\n");
        for (size_t k = 0; k < ELEMENTSOF(draws); k++) {
                char label[48];

                snprintf(label, sizeof(label), "%s%.2f-1 x estimate / %s",
                         draws[k].ratio == DCS_RATIO && !draws[k].whole_copy ? "*" : "",
                         draws[k].ratio, draws[k].whole_copy ? "all of it" : "its share");
                if (draws[k].ratio == 1)
                        snprintf(label, sizeof(label), "at the estimate / %s",
                                 draws[k].whole_copy ? "all of it" : "its share");
                printf("%-34s", label);
                for (size_t c = 0; c < ELEMENTSOF(dcs_cases); c++)
                        for (size_t d = 0; d < 2; d++) {
                                double fin[MAX_SEEDS];
                                unsigned met;
                                int r = dcs_seeds(opt, c, d, &draws[k], fin, &met);

                                if (r < 0)
                                        return r;
                                printf(" %9u/%zu", met, seeds);
                        }
                printf("\n");
        }
        printf("* the experiment's: case 1's observed 37-120 s maps, every task drawn at the "
               "same ratio of its estimate; \"all of it\" is the model before Assumption 2's "
               "shares (each reduce copying the whole map output)\n");
        return 0;
}

int slo_dcs_run(const Experiment *e, const ExperimentOptions *opt) {
        DcsRun slow[ELEMENTSOF(dcs_cases)][2];
        int status = slo_settings_check(e, opt, NULL);

        if (status != 0)
                return status;
        title_print(e, opt);
        printf("%-12s %11s %11s %14s %12s %22s\n", "case", "model", "paper", "run@estimate",
               "maps/reduces", "run@observed range");
        for (size_t c = 0; c < ELEMENTSOF(dcs_cases); c++)
                if (dcs_case_print(c, opt, slow[c]) < 0)
                        return 1;
        for (size_t i = 0; i < ELEMENTSOF(dcs_cases); i++) {
                const DcsCase *c = &dcs_cases[i];

                printf("case%zu: %s, %u maps, reduce tasks %u (assumed), %u+%u slots; estimates "
                       "(the slowest tasks): maps %.0f s, reduce phases %.0f s (assumed); the "
                       "whole map output over 12 MB/s %.2f s, each reduce's share %.2f s\n",
                       i + 1, c->name, c->maps, c->reduces, c->trackers * 2, c->trackers * 2,
                       c->map_max, c->reduce_s, c->input_mb / DCS_NETWORK_MB_S,
                       c->input_mb / DCS_NETWORK_MB_S / c->reduces);
        }
        printf("Columns: the model's minimum tasks at submission, n_m^min/n_r^min (Eq. 1, "
               "Eq. 2 at the model's map end) and the paper's; a run with every task at its "
               "estimate, its finish and the most maps and reduces it ran at once; runs with "
               "every map and reduce phase uniform between %.2f of its estimate (case 1's "
               "observed 37-120 s maps) and the estimate, finish over the seeds and how many met "
               "the deadline. Each reduce copies its share of the map output (Assumption 2, "
               "uniform keys) over its own 12 MB/s link; the scheduler's profile is the "
               "estimates and the whole transfer, f sigma c_d.\n",
               DCS_RATIO);
        printf("ours: at the estimate the misses are whole waves, which neither equation "
               "counts: Eq. 1 spreads the map work evenly over n_m^min slots (16 maps of 120 s on "
               "6 take 3 waves, 360 s, not 320 s: case1/600s ends at %.1f s), Eq. 2 the reduce "
               "work over n_r^min (5 reduces of 246 s on 4 slots take two waves, 492 s, not "
               "307.5 s: case2/1000s ends at %.1f s); tasks below their estimates, as the "
               "paper's were, absorb them.\n",
               slow[0][0].finished, slow[1][1].finished);
        if (dcs_sensitivity_print(opt) < 0)
                return 1;
        printf("Note: %s\n", e->note);
        return 0;
}

/* ---- aria-fig5 ---- */

/* Section 5.2: WikiTrends, 71 maps and 64 reduces, one map and one reduce
 * slot on each of 64 workers, deadlines of 4 to 7 minutes. */
#define FIG5_MAPS 71
#define FIG5_REDUCES 64
#define FIG5_WORKERS 64

static const double fig5_deadlines[] = { 240, 300, 360, 420 };
/* Fig. 5's table: (map, reduce) by deadline and bound. */
static const unsigned fig5_paper[][_ARIA_BOUND_MAX][2] = {
        { { 41, 21 }, { 58, 30 }, { 64, 64 } },
        { { 33, 17 }, { 43, 22 }, { 63, 32 } },
        { { 27, 14 }, { 34, 18 }, { 45, 23 } },
        { { 24, 12 }, { 28, 15 }, { 35, 18 } },
};

/* A phase's time from its minimum, mean and maximum: uniform in [min, avg]
 * or in [avg, max], the first with the chance that makes the mean avg. */
static double draw(unsigned short xsubi[3], double min, double avg, double max) {
        double p = max > min ? (max - avg) / (max - min) : 1;

        return erand48(xsubi) < p ? uniform(xsubi, min, avg) : uniform(xsubi, avg, max);
}

/* Table 1 gives no minimum for the shuffles and the reduce phase: half the
 * mean, an assumption. */
static double phase_min(double avg) {
        return avg / 2;
}

typedef struct Fig5Job {
        double map_s[FIG5_MAPS], shuffle_s[FIG5_REDUCES], first_s[FIG5_REDUCES],
                reduce_s[FIG5_REDUCES];
        ReplayJob job;
} Fig5Job;

/* WikiTrends' tasks drawn from profile p with seed's stream. */
static void fig5_job(const AriaProfile *p, int64_t seed, Fig5Job *ret) {
        unsigned short xsubi[3];

        seed_stream(seed, xsubi);
        for (unsigned i = 0; i < FIG5_MAPS; i++)
                ret->map_s[i] = draw(xsubi, p->map_min, p->map_avg, p->map_max);
        for (unsigned i = 0; i < FIG5_REDUCES; i++) {
                ret->first_s[i] = draw(xsubi, phase_min(p->sh1_avg), p->sh1_avg, p->sh1_max);
                ret->shuffle_s[i] =
                        draw(xsubi, phase_min(p->shtyp_avg), p->shtyp_avg, p->shtyp_max);
                ret->reduce_s[i] =
                        draw(xsubi, phase_min(p->reduce_avg), p->reduce_avg, p->reduce_max);
        }
        ret->job = (ReplayJob){ .maps = FIG5_MAPS,
                                .reduces = FIG5_REDUCES,
                                .map_s = ret->map_s,
                                .shuffle_s = ret->shuffle_s,
                                .first_shuffle_s = ret->first_s,
                                .reduce_s = ret->reduce_s };
}

/* The job's completion time alone with map_slots and reduce_slots. */
static int fig5_run(const ExperimentOptions *opt, const AriaProfile *p, unsigned map_slots,
                    unsigned reduce_slots, int64_t seed, double *ret) {
        ReplayOptions o = { .nodes = FIG5_WORKERS,
                            .map_slots = 1,
                            .reduce_slots = 1,
                            .map_nodes = map_slots,
                            .reduce_nodes = reduce_slots };
        _cleanup_free_ Fig5Job *j = malloc(sizeof(*j));
        ReplayJobResult res;
        ReplayStats st;
        PolicyConfig cfg;
        int r;

        if (!j)
                return -ENOMEM;
        fig5_job(p, seed, j);
        r = slo_config(opt, "fifo", -1, &cfg);
        if (r < 0)
                return r;
        r = replay_run(&cfg, &o, &j->job, 1, &res, &st);
        policy_config_done(&cfg);
        if (r >= 0)
                *ret = res.finished;
        return r;
}

static int fig5_profile(AriaProfile *ret) {
        _cleanup_free_ char *path = NULL;
        char err[512];
        int r = sim_data_path("profiles/wikitrends.ini", &path);

        if (r < 0)
                return r;
        r = profile_load(path, ret, err, sizeof(err));
        if (r < 0)
                fprintf(stderr, "flexslot-sim: %s\n", err);
        return r;
}

/* The rows are the bounds; the runs are FIFO's on the slots each gives. */
static const char *const fig5_own[] = { "aria_bound", NULL };

int slo_fig5_run(const Experiment *e, const ExperimentOptions *opt) {
        size_t seeds = experiment_seeds(opt);
        int64_t first = experiment_first_seed(opt);
        unsigned met[_ARIA_BOUND_MAX] = { 0 }, runs = 0;
        double worst_avg = 0;
        AriaProfile p;
        int status = slo_settings_check(e, opt, fig5_own);

        if (status != 0)
                return status;
        if (fig5_profile(&p) < 0)
                return 2;
        title_print(e, opt);
        printf("%8s %-8s %10s %10s %14s %9s %5s\n", "deadline", "bound", "ours (m,r)", "paper",
               "finish (s)", "/deadline", "met");
        for (size_t d = 0; d < ELEMENTSOF(fig5_deadlines); d++)
                for (AriaBound b = 0; b < _ARIA_BOUND_MAX; b++) {
                        double deadline = fig5_deadlines[d], fin[MAX_SEEDS];
                        char ours[24], paper[24], text[SPREAD_TEXT_MAX];
                        unsigned n_met = 0;
                        AriaAllocation al;
                        Spread sp;

                        if (aria_min_slots(&p, FIG5_MAPS, FIG5_REDUCES, deadline, FIG5_WORKERS,
                                           FIG5_WORKERS, b, &al) < 0)
                                return 1;
                        for (size_t k = 0; k < seeds; k++) {
                                if (fig5_run(opt, &p, al.map_slots, al.reduce_slots,
                                             first + (int64_t)k, &fin[k]) < 0)
                                        return 1;
                                n_met += fin[k] <= deadline;
                        }
                        sp = spread_of(fin, seeds);
                        met[b] += n_met;
                        if (b == ARIA_AVERAGE)
                                worst_avg = fmax(worst_avg, fabs(sp.mean / deadline - 1));
                        snprintf(ours, sizeof(ours), "(%u,%u)%s", al.map_slots, al.reduce_slots,
                                 al.verdict == ARIA_MET ? "" : "*");
                        snprintf(paper, sizeof(paper), "(%u,%u)", fig5_paper[d][b][0],
                                 fig5_paper[d][b][1]);
                        printf("%7.0fs %-8s %10s %10s %14s %9.2f %2u/%zu\n", deadline,
                               aria_bound_to_string(b), ours, paper,
                               spread_format(text, sizeof(text), sp, 1), sp.mean / deadline, n_met,
                               seeds);
                }
        runs = (unsigned)(ELEMENTSOF(fig5_deadlines) * seeds);
        printf("ours: runs that met the deadline: lower bound %u/%u, average %u/%u, upper %u/%u; "
               "the average bound's mean finish within %.0f %% of the deadline\n",
               met[ARIA_LOWER], runs, met[ARIA_AVERAGE], runs, met[ARIA_UPPER], runs,
               100 * worst_avg);
        printf("paper: the lower bound's allocations missed every deadline, the upper bound's met "
               "them well under, the average bound's finished within 7 %% of the deadline\n");
        printf("* the bound misses the deadline even with every slot the job can use; shown is "
               "that allocation.\n");
        printf("Note: %s\n", e->note);
        return 0;
}

/* ---- aria-table3 ---- */

/* Table 2's W1: each application's map counts (one per dataset) and task
 * times. */
typedef struct W1App {
        const char *name;
        unsigned maps[3];
        double map_s, reduce_s;
} W1App;

static const W1App w1_apps[] = {
        { "Bayes", { 54, 68, 72 }, 436, 33 },        { "Sort", { 256, 512, 1024 }, 9, 53 },
        { "TF-IDF", { 768, 0, 0 }, 11, 66 },         { "Twitter", { 294, 192, 390 }, 59, 65 },
        { "Wikitrends", { 71, 720, 740 }, 179, 79 }, { "WordCount", { 507, 640, 676 }, 56, 21 },
};

/* Section 4.1's testbed: 64 workers of four map and four reduce slots. */
#define T3_WORKERS 64
#define T3_SLOTS 4
/* Table 2 gives no reduce count for W1: one wave on the testbed's reduce
 * slots (WikiTrends has 64), an assumption. */
#define W1_REDUCES 64
#define T3_JOBS 100
#define T3_JOBS_QUICK 20

static const double t3_thresholds[] = { 1.05, 1.00, 0.95, 0.90, 0.85 };
/* Table 3: utility (%), jobs that missed, average load (%), by threshold,
 * W1 then W2. */
static const double t3_paper[][2][3] = {
        { { 3.31, 0.54, 28.15 }, { 12.81, 5.21, 34.31 } },
        { { 1.41, 0.43, 26.51 }, { 4.65, 3.54, 33.30 } },
        { { 0, 0, 25.21 }, { 0, 0, 30.77 } },
        { { 0, 0, 24.70 }, { 0, 0, 29.43 } },
        { { 0, 0, 23.52 }, { 0, 0, 28.47 } },
};

double experiment_normal(unsigned short xsubi[3], double mean, double sd, double lo) {
        double u = 1 - erand48(xsubi), v = erand48(xsubi);

        return fmax(lo, mean + sd * sqrt(-2 * log(u)) * cos(2 * M_PI * v));
}

void aria_w2_counts(unsigned short xsubi[3], unsigned *ret_maps, unsigned *ret_reduces) {
        *ret_maps = (unsigned)lround(experiment_normal(xsubi, W2_MAPS_MEAN, W2_MAPS_SD, 1));
        *ret_reduces =
                (unsigned)lround(experiment_normal(xsubi, W2_REDUCES_MEAN, W2_REDUCES_SD, 1));
}

/* A workload's jobs with their task times, profiles and deadlines. */
typedef struct T3Set {
        ReplayJob *jobs;
        JobProfile *profiles;
        double *times; /* every task time, in one block */
        size_t n;
} T3Set;

static void t3_set_done(T3Set *s) {
        free(s->jobs);
        free(s->profiles);
        free(s->times);
}

/* Job i of workload w (0: W1, 1: W2), its tasks' times from *next. */
static void t3_job(size_t w, unsigned short xsubi[3], double **next, ReplayJob *ret) {
        double *t = *next;
        unsigned maps, reduces;

        if (w == 0) {
                const W1App *a = &w1_apps[nrand48(xsubi) % ELEMENTSOF(w1_apps)];
                unsigned n_sets = a->maps[1] ? 3 : 1;

                maps = a->maps[nrand48(xsubi) % n_sets];
                reduces = W1_REDUCES;
                for (unsigned i = 0; i < maps; i++)
                        t[i] = a->map_s;
                for (unsigned i = 0; i < reduces; i++)
                        t[maps + i] = a->reduce_s;
        } else {
                aria_w2_counts(xsubi, &maps, &reduces);
                for (unsigned i = 0; i < maps; i++)
                        t[i] = experiment_normal(xsubi, W2_MAP_MEAN, W2_MAP_SD, 1);
                for (unsigned i = 0; i < reduces; i++)
                        t[maps + i] = experiment_normal(xsubi, W2_REDUCE_MEAN, W2_REDUCE_SD, 1);
        }
        /* Table 2's reduce time is the whole task, shuffle and sort
         * included: no shuffle of its own. */
        for (unsigned i = 0; i < reduces; i++)
                t[maps + reduces + i] = 0;
        *ret = (ReplayJob){ .maps = maps,
                            .reduces = reduces,
                            .map_s = t,
                            .reduce_s = t + maps,
                            .shuffle_s = t + maps + reduces,
                            .first_shuffle_s = t + maps + reduces };
        *next = t + maps + 2 * reduces;
}

/* W2's counts can be large; room for the largest a draw can give. */
#define T3_MAX_TASKS \
        (2 * 1024 + 2 * (W2_MAPS_MEAN + 6 * W2_MAPS_SD) + 2 * (W2_REDUCES_MEAN + 6 * W2_REDUCES_SD))

static ReplayOptions t3_options(double threshold, AriaBound gate) {
        return (ReplayOptions){ .nodes = T3_WORKERS,
                                .map_slots = T3_SLOTS,
                                .reduce_slots = T3_SLOTS,
                                .load_threshold = threshold,
                                .gate_bound = gate };
}

/* T_J of each job, alone with the whole cluster; its deadline uniform in
 * [T_J, 3 T_J]. */
static int t3_deadlines(const ExperimentOptions *opt, T3Set *s, unsigned short xsubi[3]) {
        ReplayOptions o = t3_options(0, ARIA_AVERAGE);
        PolicyConfig cfg;
        int r = slo_config(opt, "fifo", -1, &cfg);

        if (r < 0)
                return r;
        for (size_t j = 0; r >= 0 && j < s->n; j++) {
                ReplayJob solo = s->jobs[j];
                ReplayJobResult res;
                ReplayStats st;

                solo.deadline = 0;
                solo.profile = NULL;
                r = replay_run(&cfg, &o, &solo, 1, &res, &st);
                if (r >= 0)
                        s->jobs[j].deadline = res.finished * uniform(xsubi, 1, 3);
        }
        policy_config_done(&cfg);
        return r;
}

static int t3_set(const ExperimentOptions *opt, size_t w, size_t n, int64_t seed, T3Set *ret) {
        unsigned short xsubi[3];
        T3Set s = { .n = n };
        double *next;
        int r;

        s.jobs = calloc(n, sizeof(*s.jobs));
        s.profiles = calloc(n, sizeof(*s.profiles));
        s.times = calloc(n * T3_MAX_TASKS, sizeof(double));
        if (!s.jobs || !s.profiles || !s.times) {
                t3_set_done(&s);
                return -ENOMEM;
        }
        seed_stream(seed * 2 + (int64_t)w, xsubi);
        next = s.times;
        for (size_t j = 0; j < n; j++) {
                t3_job(w, xsubi, &next, &s.jobs[j]);
                replay_job_profile(&s.jobs[j], &s.profiles[j]);
                s.jobs[j].profile = &s.profiles[j];
        }
        r = t3_deadlines(opt, &s, xsubi);
        if (r < 0) {
                t3_set_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}

/* One run of the set under scheduler (aria under bound, whose pairs also
 * gate the arrivals; FIFO under the average bound's gate). */
static int t3_run(const ExperimentOptions *opt, const T3Set *s, const char *scheduler,
                  AriaBound bound, double threshold, SloTable3Result *ret) {
        _cleanup_free_ ReplayJobResult *res = NULL;
        ReplayOptions o = t3_options(threshold, bound);
        ReplayStats st;
        PolicyConfig cfg;
        int r = slo_config(opt, scheduler, (int)bound, &cfg);

        if (r < 0)
                return r;
        res = calloc(s->n, sizeof(*res));
        r = res ? replay_run(&cfg, &o, s->jobs, s->n, res, &st) : -ENOMEM;
        policy_config_done(&cfg);
        if (r < 0)
                return r;
        *ret = (SloTable3Result){ 100 * st.exceeded, st.missed, 100 * st.load };
        return 0;
}

int slo_table3_cell(const ExperimentOptions *opt, unsigned workload, size_t jobs, int64_t seed,
                    const char *scheduler, AriaBound bound, double threshold,
                    SloTable3Result *ret) {
        T3Set s;
        int r;

        if (workload > 1 || jobs == 0 || jobs > T3_JOBS || bound < 0 || bound >= _ARIA_BOUND_MAX)
                return -EINVAL;
        r = t3_set(opt, workload, jobs, seed, &s);
        if (r < 0)
                return r;
        r = t3_run(opt, &s, scheduler, bound, threshold, ret);
        t3_set_done(&s);
        return r;
}

/* The paper does not say which bound Table 3's scheduler used: aria under
 * each, then FIFO under the same arrivals as the average bound's. */
typedef struct T3Variant {
        const char *label, *scheduler;
        AriaBound bound;
} T3Variant;

static const T3Variant t3_variants[] = {
        { "lower", "aria", ARIA_LOWER },
        { "average", "aria", ARIA_AVERAGE },
        { "upper", "aria", ARIA_UPPER },
        { "fifo", "fifo", ARIA_AVERAGE },
};
#define T3_VARIANTS ELEMENTSOF(t3_variants)

/* The runs vary the bound themselves. */
static const char *const t3_own[] = { "aria_bound", NULL };

/* Mean over the seeds of a figure of variant c at threshold t of set w. */
static double t3_mean(SloTable3Result res[][ELEMENTSOF(t3_thresholds)][T3_VARIANTS][MAX_SEEDS],
                      size_t w, size_t t, size_t c, size_t seeds, size_t field) {
        double sum = 0;

        for (size_t k = 0; k < seeds; k++)
                sum += field == 0 ? res[w][t][c][k].utility : res[w][t][c][k].missed;
        return sum / (double)seeds;
}

int slo_table3_run(const Experiment *e, const ExperimentOptions *opt) {
        size_t seeds = experiment_seeds(opt), n = opt->quick ? T3_JOBS_QUICK : T3_JOBS;
        int64_t first = experiment_first_seed(opt);
        /* [workload][threshold][variant][seed] */
        static SloTable3Result res[2][ELEMENTSOF(t3_thresholds)][T3_VARIANTS][MAX_SEEDS];
        int status = slo_settings_check(e, opt, t3_own);

        if (status != 0)
                return status;
        for (size_t w = 0; w < 2; w++)
                for (size_t k = 0; k < seeds; k++) {
                        T3Set s;
                        int r = t3_set(opt, w, n, first + (int64_t)k, &s);

                        for (size_t t = 0; r >= 0 && t < ELEMENTSOF(t3_thresholds); t++)
                                for (size_t c = 0; r >= 0 && c < T3_VARIANTS; c++)
                                        r = t3_run(opt, &s, t3_variants[c].scheduler,
                                                   t3_variants[c].bound, t3_thresholds[t],
                                                   &res[w][t][c][k]);
                        if (r >= 0)
                                t3_set_done(&s);
                        if (r < 0) {
                                fprintf(stderr, "flexslot-sim: aria-table3: %s\n", strerror(-r));
                                return 1;
                        }
                }
        title_print(e, opt);
        printf("%-9s %-7s %14s %7s %12s %7s %12s %7s\n", "set", "aria", "utility %", "paper",
               "missed", "paper", "load %", "paper");
        for (size_t w = 0; w < 2; w++)
                for (size_t t = 0; t < ELEMENTSOF(t3_thresholds); t++)
                        for (size_t c = 0; c < T3_VARIANTS; c++) {
                                double u[MAX_SEEDS], m[MAX_SEEDS], l[MAX_SEEDS];
                                char a[3][SPREAD_TEXT_MAX], p[3][16], set[16];
                                bool aria = strcmp(t3_variants[c].scheduler, "aria") == 0;

                                for (size_t k = 0; k < seeds; k++) {
                                        u[k] = res[w][t][c][k].utility;
                                        m[k] = res[w][t][c][k].missed;
                                        l[k] = res[w][t][c][k].load;
                                }
                                for (size_t i = 0; i < 3; i++)
                                        snprintf(p[i], sizeof(p[i]), "%.2f", t3_paper[t][w][i]);
                                snprintf(set, sizeof(set), "W%zu/%.0f%%", w + 1,
                                         100 * t3_thresholds[t]);
                                printf("%-9s %-7s %14s %7s %12s %7s %12s %7s\n", set,
                                       t3_variants[c].label,
                                       spread_format(a[0], SPREAD_TEXT_MAX, spread_of(u, seeds), 2),
                                       aria ? p[0] : "-",
                                       spread_format(a[1], SPREAD_TEXT_MAX, spread_of(m, seeds), 2),
                                       aria ? p[1] : "-",
                                       spread_format(a[2], SPREAD_TEXT_MAX, spread_of(l, seeds), 2),
                                       aria ? p[2] : "-");
                        }
        printf("%u jobs per run; W1/105%% is W1 (testbed) with arrivals below a 105 %% load, W2 "
               "is Yahoo!'s. aria runs under each bound of ARIA (the paper does not say which "
               "one Table 3 used), its Eq. 15 pairs gating the arrivals; fifo runs under the "
               "average bound's arrivals.\n",
               (unsigned)n);
        printf("Columns: ARIA's SLO-exceeded utility, the sum over late jobs of (T - D) / D, in "
               "%%; jobs that missed their deadline; running tasks over all slots, averaged "
               "over the run. The paper's are for its SLO scheduler, means over 100 runs; FIFO "
               "under the same arrivals is ours alone.\n");
        for (size_t w = 0; w < 2; w++) {
                printf("ours: W%zu at 85-95 %% (where the paper misses none), jobs missed per "
                       "run:",
                       w + 1);
                for (size_t c = 0; c < T3_VARIANTS - 1; c++) {
                        size_t thresholds = ELEMENTSOF(t3_thresholds), counted = 0;
                        double sum = 0;

                        /* The thresholds of 95 % and below. */
                        for (size_t t = 2; t < thresholds; t++, counted++)
                                sum += t3_mean(res, w, t, c, seeds, 1);
                        printf(" %s %.1f%s", t3_variants[c].label, sum / (double)counted,
                               c + 2 < T3_VARIANTS ? "," : "\n");
                }
        }
        printf("Why: the lower bound (Eq. 1, 8) and, by half, the average bound spread a job's "
               "work evenly over its slots, as if a wave could be cut: an allocation below the "
               "map count adds a whole wave they do not count (W1's Bayes maps take 436 s). "
               "ARIA's upper bound, (n - 1) mu / k + lambda, counts the last wave whole, so its "
               "allocations leave room for it; it asks for more slots, which the threshold then "
               "admits fewer jobs beside.\n");
        printf("Note: %s\n", e->note);
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* slo-interference: the one loop (policy/layers/slo-loop.h) against the
 * seed systems alone and layered, with deadline jobs in the style of ARIA's
 * W1 (section 7.2: an application picked at random for each job, its
 * deadline uniform in [T_J, 3 T_J], T_J its completion alone with the whole
 * cluster) on FlexSlot's interfered cluster (Fig. 11: a second cluster on
 * the same hosts, both under DRS), which here is a best-effort tenant
 * running the same jobs on stock Hadoop (scenarios/slo-interference.ini).
 *
 * Per seed: the jobs are drawn from the PUMA benchmarks; each benchmark
 * drawn runs alone on the cluster (FIFO, no tenant) for its T_J and its
 * profile, which every arm's job gets as its stored profile (ARIA's
 * profile database: a run of it on the quiet cluster); the jobs come one
 * mean T_J apart (an assumption: about one job's load at a time, where
 * ARIA's Table 3 holds arrivals below a load threshold of about 100 %); the
 * tenant's jobs come at the same times. The tenant alone on the hosts
 * gives the time its slowdown is against.
 *
 * slo-interference-w2 runs the same arms on ARIA's W2 (the Yahoo! workload,
 * section 7.2 and Table 2): each job's counts a draw of the M45 study's
 * distributions at a tenth of their size (a twentieth with --quick), as W1's
 * jobs here run a tenth of their input, and its task times the paper's
 * distributions; each job its own benchmark of a workload file written for
 * the seed. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "policy/layers/slo-loop.h"
#include "sim/experiment-internal.h"
#include "sim/report.h"

static const char *const si_benchmarks[] = {
        "tera-sort", "inverted-index", "term-vector",      "wordcount",
        "grep",      "k-means",        "histogram-movies", "histogram-ratings",
};
#define SI_BENCHMARKS ELEMENTSOF(si_benchmarks)

#define SI_JOBS_QUICK 5
/* --quick: half the scenario's input per job. */
#define SI_QUICK_SCALE "workload.scale=0.05"
/* The kinds of job a seed may draw: W1's benchmarks, or W2's jobs, each
 * its own. */
#define SI_KINDS (SI_BENCHMARKS > SI_JOBS ? SI_BENCHMARKS : SI_JOBS)

/* W2's jobs: their counts at this share of the M45 study's (half with
 * --quick), each job at that size exactly (its runs at scale 1). */
#define SI_W2_SHARE 0.1
#define SI_W2_SCALE "workload.scale=1"
/* A W2 map reads one 64 MiB split, the scenario's block; its output is
 * its input, so that a reduce's CPU per MiB of the workload file's range
 * gives it its N(300, 30) s whatever its share of the maps' output. */
#define SI_W2_BLOCK_MB 64.0
#define SI_W2_HEADER                                                                        \
        "name,input_gb,map_cpu_s_per_mb,map_output_ratio,reduce_cpu_s_per_mb,output_ratio," \
        "reduces,small_frac,large_frac,large_max_blocks,expensive_frac,expensive_cpu,"      \
        "expensive_output\n"

#define ARIA "policy.scheduler=aria"
#define FLEXSLOT "policy.slot_manager=flexslot"
#define STATIC "policy.slot_manager=static"
#define LEVER "policy.slo_lever=yes"

typedef struct SiArmSpec {
        const char *label;
        const char *sets[8];
        bool lever; /* LEVER, with the agents' weights applied (si_add_lever()) */
} SiArmSpec;

static const SiArmSpec si_arms[SI_ARMS] = {
        [SI_ARIA] = { "aria", { ARIA, STATIC } },
        [SI_FLEXSLOT] = { "flexslot", { "policy.scheduler=fifo", FLEXSLOT } },
        [SI_LAYERED] = { "layered", { ARIA, FLEXSLOT } },
        [SI_LOOP] = { "loop",
                      { ARIA, FLEXSLOT, "policy.slo_speed=yes", "policy.slo_favour=yes" },
                      true },
        [SI_SPEED] = { "speed", { ARIA, FLEXSLOT, "policy.slo_speed=yes" } },
        [SI_LEVER] = { "lever", { ARIA, FLEXSLOT }, true },
        [SI_FAVOUR] = { "favour", { ARIA, FLEXSLOT, "policy.slo_favour=yes" } },
};

static const char *const si_forecast_names[SI_FORECASTS] = {
        [SI_BOUND_PLAIN] = "ARIA's bound",
        [SI_BOUND_SPEED] = "bound at the speed",
        [SI_REPLAY_PLAIN] = "replay",
        [SI_REPLAY_SPEED] = "replay at the speed",
};

static const double si_fractions[SI_FRACTIONS] = { 0.25, 0.5, 0.75 };

const char *slo_interference_arm_name(SiArm arm) {
        return arm < SI_ARMS ? si_arms[arm].label : NULL;
}

/* ---- forecasts, recorded as the runs go ---- */

typedef struct SiRecord {
        uint32_t job;
        double at;
        double end[SI_FORECASTS];
} SiRecord;

typedef struct SiRecords {
        SiRecord *rec;
        size_t n, cap;
        int error;
} SiRecords;

/* Each control step: every unfinished deadline job's forecasts. */
static void si_observe(const ClusterSnapshot *snap, const Decisions *d, usec_t now,
                       void *userdata) {
        SiRecords *r = userdata;
        double cluster = slo_cluster_speed(snap, now);
        double *scratch = calloc(slo_forecast_scratch(snap), sizeof(double));

        if (!scratch) {
                r->error = -ENOMEM;
                return;
        }
        for (uint32_t j = 0; j < snap->n_jobs && r->error == 0; j++) {
                double speed = slo_job_speed(snap, now, j, cluster);
                SiRecord x = { .job = j, .at = usec_to_sec(now) };
                int e = 0;

                if (snap->jobs[j].deadline == 0)
                        continue;
                for (SiForecast f = 0; e == 0 && f < SI_FORECASTS; f++)
                        e = slo_forecast(snap, now, j,
                                         f < SI_REPLAY_PLAIN ? SLO_FORECAST_BOUND
                                                             : SLO_FORECAST_REPLAY,
                                         f == SI_BOUND_SPEED || f == SI_REPLAY_SPEED ? speed : 1,
                                         NULL, scratch, &x.end[f]);
                if (e == -ENODATA)
                        continue;
                if (e < 0) {
                        r->error = e;
                        break;
                }
                if (r->n == r->cap) {
                        size_t cap = r->cap ? 2 * r->cap : 1024;
                        SiRecord *rec = realloc(r->rec, cap * sizeof(*rec));

                        if (!rec) {
                                r->error = -ENOMEM;
                                break;
                        }
                        r->rec = rec;
                        r->cap = cap;
                }
                r->rec[r->n++] = x;
        }
        free(scratch);
}

/* The forecasts' errors at each fraction of each job's time, over the jobs
 * of one run, into ret. */
static void si_errors(const SiRecords *r, const SimResults *res, SiArmResult *ret) {
        double abs[SI_FORECASTS][SI_FRACTIONS] = { { 0 } },
               sum[SI_FORECASTS][SI_FRACTIONS] = { { 0 } };
        unsigned n[SI_FRACTIONS] = { 0 };

        for (size_t j = 0; j < res->n_jobs; j++) {
                const JobResult *jr = &res->jobs[j];
                double len = jr->finished - jr->submitted;

                if (jr->refused || jr->deadline == 0 || len <= 0)
                        continue;
                for (size_t k = 0; k < SI_FRACTIONS; k++) {
                        double at = jr->submitted + si_fractions[k] * len;

                        for (size_t i = 0; i < r->n; i++) {
                                const SiRecord *x = &r->rec[i];

                                if (x->job != j || x->at < at)
                                        continue;
                                for (SiForecast f = 0; f < SI_FORECASTS; f++) {
                                        double e = (x->end[f] - jr->finished) / len;

                                        abs[f][k] += fabs(e);
                                        sum[f][k] += e;
                                }
                                n[k]++;
                                break;
                        }
                }
        }
        for (SiForecast f = 0; f < SI_FORECASTS; f++)
                for (size_t k = 0; k < SI_FRACTIONS; k++) {
                        ret->error[f][k] = n[k] ? abs[f][k] / n[k] : NAN;
                        ret->bias[f][k] = n[k] ? sum[f][k] / n[k] : NAN;
                }
}

/* ---- runs ---- */

/* One run of the scenario under sets (NULL-ended) with jobs (a list, also
 * the tenant's) of workload (a workload file's text; NULL: the scenario's),
 * each job's stored profile from profiles (NULL: none), recording forecasts
 * into rec (NULL: none). Returns an exit status. */
static int si_run(const Experiment *e, const ExperimentOptions *opt, const char *label,
                  const char *const *sets, const char *workload, const char *jobs, int64_t seed,
                  const JobProfile *const *profiles, size_t n_jobs, SiRecords *rec,
                  const SimResults **ret, CellRun *c) {
        Variant v = { .label = label, .cloud = CLOUD_SCENARIO, .workload_text = workload };
        ExperimentOptions o = *opt;
        int status, r;

        for (size_t i = 0; sets[i]; i++)
                v.sets[i] = sets[i];
        /* The scenario's scale, or the quick one among the sets. */
        o.quick = false;
        o.out = NULL;
        status = cell_open(e, &v, jobs, seed, &o, c);
        if (status != 0)
                return status;
        for (size_t j = 0; profiles && j < n_jobs; j++)
                if (sim_set_job_profile(c->sim, (uint32_t)j, profiles[j]) < 0) {
                        cell_close(c);
                        return 1;
                }
        if (rec)
                sim_set_observer(c->sim, si_observe, rec);
        r = sim_run(c->sim);
        if (r < 0 || (rec && rec->error < 0)) {
                fprintf(stderr, "flexslot-sim: %s: %s, seed %" PRId64 ": %s\n", e->name, label,
                        seed, strerror(-(r < 0 ? r : rec->error)));
                cell_close(c);
                return 1;
        }
        *ret = sim_results(c->sim);
        return 0;
}

/* A draw in [0, 1) from the seed's stream. */
static double si_uniform(unsigned short xsubi[3]) {
        return erand48(xsubi);
}

typedef struct SiSetup {
        size_t n;             /* jobs */
        size_t kind[SI_JOBS]; /* each job's, an index into name, solo and profile */
        const char *name[SI_KINDS];
        char jobs[SI_JOBS * 24];
        double solo[SI_KINDS]; /* T_J; 0: not drawn */
        JobProfile profile[SI_KINDS];
        const JobProfile *profiles[SI_JOBS];
        char gap[64], deadlines[SI_JOBS * 16 + 32];
        double deadline[SI_JOBS]; /* s after submission */
        double tenant_alone;      /* the tenant's mean job time alone */
        bool drs;                 /* DRS sizes the VMs (else KVM's shares alone) */
        /* W2: the seed's jobs as a workload file, and their names. */
        const char *workload; /* NULL: the scenario's (W1) */
        const char *scale;    /* the runs' workload.scale; NULL: the scenario's */
        char w2_names[SI_JOBS][24];
        char w2_text[sizeof(SI_W2_HEADER) + SI_JOBS * 160];
} SiSetup;

/* W1 (ARIA 7.2's testbed workload, here the PUMA benchmarks): job k a
 * benchmark picked at random. */
static void si_draw_w1(unsigned short xsubi[3], SiSetup *st) {
        size_t benchmarks = SI_BENCHMARKS;

        for (size_t b = 0; b < benchmarks; b++)
                st->name[b] = si_benchmarks[b];
        for (size_t k = 0; k < st->n; k++)
                st->kind[k] = (size_t)(si_uniform(xsubi) * (double)benchmarks) % benchmarks;
}

/* W2: job k its own benchmark w2-k, its counts and task times drawn. */
static void si_draw_w2(unsigned short xsubi[3], double share, SiSetup *st) {
        size_t at = (size_t)snprintf(st->w2_text, sizeof(st->w2_text), "%s", SI_W2_HEADER);

        for (size_t k = 0; k < st->n; k++) {
                unsigned maps, reduces;
                double map_s, reduce_s;

                aria_w2_counts(xsubi, &maps, &reduces);
                maps = (unsigned)MAX(1L, lround(maps * share));
                reduces = (unsigned)MAX(1L, lround(reduces * share));
                map_s = experiment_normal(xsubi, W2_MAP_MEAN, W2_MAP_SD, 1);
                reduce_s = experiment_normal(xsubi, W2_REDUCE_MEAN, W2_REDUCE_SD, 1);
                snprintf(st->w2_names[k], sizeof(st->w2_names[k]), "w2-%zu", k + 1);
                st->name[k] = st->w2_names[k];
                st->kind[k] = k;
                /* Each reduce's input is maps / reduces blocks. */
                at += (size_t)snprintf(st->w2_text + at, sizeof(st->w2_text) - at,
                                       "%s,%.6f,%.6f,1,%.6f,0.1,%u,0,0,1,0,1,1\n", st->name[k],
                                       maps * SI_W2_BLOCK_MB / 1024, map_s / SI_W2_BLOCK_MB,
                                       reduce_s * reduces / (maps * SI_W2_BLOCK_MB), reduces);
        }
        st->workload = st->w2_text;
}

/* The seed's jobs of workload, their T_J and profiles alone, their
 * deadlines and arrivals, and the tenant alone. Returns an exit status. */
static int si_setup(const Experiment *e, const ExperimentOptions *opt, SiWorkload workload,
                    int64_t seed, SiSetup *st) {
        unsigned short xsubi[3] = { 0x5107, (unsigned short)seed,
                                    (unsigned short)((uint64_t)seed >> 16) };
        double mean = 0;
        size_t at = 0;

        *st = (SiSetup){ .n = opt->quick ? SI_JOBS_QUICK : SI_JOBS };
        if (workload == SI_W2) {
                si_draw_w2(xsubi, opt->quick ? SI_W2_SHARE / 2 : SI_W2_SHARE, st);
                st->scale = SI_W2_SCALE;
        } else {
                si_draw_w1(xsubi, st);
                st->scale = opt->quick ? SI_QUICK_SCALE : NULL;
        }
        for (size_t k = 0; k < st->n; k++)
                at += (size_t)snprintf(st->jobs + at, sizeof(st->jobs) - at, "%s%s", k ? "," : "",
                                       st->name[st->kind[k]]);
        /* T_J: each benchmark alone with the whole cluster, FIFO, no
         * tenant (ARIA 7.2); its tasks' profile is what every arm gets. */
        for (size_t k = 0; k < st->n; k++) {
                const char *sets[] = { "interference.enabled=no", "policy.scheduler=fifo", STATIC,
                                       st->scale, NULL };
                size_t b = st->kind[k];
                const SimResults *res;
                CellRun c;
                int status;

                if (st->solo[b] > 0)
                        continue;
                status = si_run(e, opt, "solo", sets, st->workload, st->name[b], seed, NULL, 0,
                                NULL, &res, &c);
                if (status != 0)
                        return status;
                st->solo[b] = res->jobs[0].finished - res->jobs[0].submitted;
                (void)sim_job_profile(c.sim, 0, &st->profile[b]);
                cell_close(&c);
        }
        at = (size_t)snprintf(st->deadlines, sizeof(st->deadlines), "workload.deadlines=");
        for (size_t k = 0; k < st->n; k++) {
                size_t b = st->kind[k];

                mean += st->solo[b] / (double)st->n;
                st->deadline[k] = st->solo[b] * (1 + 2 * si_uniform(xsubi));
                st->profiles[k] = &st->profile[b];
                at += (size_t)snprintf(st->deadlines + at, sizeof(st->deadlines) - at, "%s%.0fs",
                                       k ? "," : "", ceil(st->deadline[k]));
        }
        snprintf(st->gap, sizeof(st->gap), "workload.arrival_gap=%.0fs", ceil(mean));
        /* The tenant alone on the hosts: its jobs at the same times. The
         * scenario as loaded says whether DRS runs, and so how the agents'
         * weights apply. */
        {
                const char *sets[] = { "interference.enabled=no",
                                       "policy.scheduler=fifo",
                                       STATIC,
                                       st->gap,
                                       st->scale,
                                       NULL };
                const SimResults *res;
                CellRun c;
                int status = si_run(e, opt, "tenant", sets, st->workload, st->jobs, seed, NULL, 0,
                                    NULL, &res, &c);

                if (status != 0)
                        return status;
                st->drs = c.sc.drs;
                st->tenant_alone = 0;
                for (size_t j = 0; j < res->n_jobs; j++)
                        st->tenant_alone +=
                                (res->jobs[j].finished - res->jobs[j].submitted) / res->n_jobs;
                cell_close(&c);
        }
        return 0;
}

/* Appends the lever and how the agents' CPU weights, the lever's, reach
 * the VMs to sets at n: under DRS they scale DRS's shares (drs.c); on KVM
 * alone (--set drs.enabled=no) the agents apply their targets, the weight
 * being the VM's cpu_shares. Returns the new n. */
static size_t si_add_lever(const SiSetup *st, const char **sets, size_t n) {
        sets[n++] = LEVER;
        sets[n++] = st->drs ? "drs.agent_weights=yes" : "policy.apply_vm_targets=yes";
        return n;
}

/* How many of the seed's deadline jobs miss even alone on the cluster
 * with every slot (FIFO) and the lever, beside the tenant running the
 * same job at the same time (as it does in the arms), into *ret. Returns
 * an exit status. */
static int si_late_alone(const Experiment *e, const ExperimentOptions *opt, int64_t seed,
                         const SiSetup *st, size_t *ret) {
        *ret = 0;
        for (size_t k = 0; k < st->n; k++) {
                char deadline[48];
                /* The lever's two, the scale, NULL. */
                const char *sets[] = { deadline, "policy.scheduler=fifo", STATIC, NULL, NULL, NULL,
                                       NULL };
                const SimResults *res;
                CellRun c;
                int status;

                snprintf(deadline, sizeof(deadline), "workload.deadlines=%.0fs",
                         ceil(st->deadline[k]));
                sets[si_add_lever(st, sets, 3)] = st->scale;
                status = si_run(e, opt, "alone", sets, st->workload, st->name[st->kind[k]], seed,
                                &st->profiles[k], 1, NULL, &res, &c);
                if (status != 0)
                        return status;
                *ret += res->jobs[0].refused ||
                        res->jobs[0].finished > res->jobs[0].deadline + 1e-6;
                cell_close(&c);
        }
        return 0;
}

/* With --out, an arm's per-run files of the first seed (jobs.csv,
 * tasks.csv with every attempt's kills and VM, nodes.csv with the final
 * slots), into DIR/EXPERIMENT/ARM: where a deadline job's time went. */
static int si_write_run(const Experiment *e, const ExperimentOptions *opt, int64_t seed,
                        const char *label, const SimResults *res) {
        _cleanup_free_ char *dir = NULL, *run = NULL;

        if (!opt->out || seed != experiment_first_seed(opt))
                return 0;
        if (asprintf(&dir, "%s/%s/%s", opt->out, e->name, label) < 0 ||
            asprintf(&run, "%s, seed %" PRId64 ", %s", e->name, seed, label) < 0)
                return 1;
        return report_write(dir, run, res) < 0 ? 1 : 0;
}

int slo_interference_seed(const Experiment *e, const ExperimentOptions *opt, SiWorkload workload,
                          int64_t seed, SiSeedResult *ret) {
        _cleanup_free_ SiSetup *st = malloc(sizeof(*st));
        bool missed[SI_JOBS] = { false };
        int status;

        if (!st)
                return 1;
        status = si_setup(e, opt, workload, seed, st);
        if (status != 0)
                return status;
        *ret = (SiSeedResult){ .jobs = st->n, .drs = st->drs };
        for (size_t j = 0; j < st->n; j++)
                snprintf(ret->job_name[j], sizeof(ret->job_name[j]), "%s", st->name[st->kind[j]]);
        status = si_late_alone(e, opt, seed, st, &ret->late_alone);
        if (status != 0)
                return status;
        for (size_t j = 0; j < st->n; j++)
                missed[j] = true;
        for (SiArm a = 0; a < SI_ARMS; a++) {
                const char *sets[MAX_VARIANT_SETS + 1] = { st->gap, st->deadlines };
                size_t n = 2;
                SiArmResult *out = &ret->arm[a];
                SiRecords rec = { 0 };
                const SimResults *res;
                CellRun c;

                for (size_t i = 0; si_arms[a].sets[i]; i++)
                        sets[n++] = si_arms[a].sets[i];
                if (si_arms[a].lever)
                        n = si_add_lever(st, sets, n);
                if (st->scale)
                        sets[n++] = st->scale;
                status = si_run(e, opt, si_arms[a].label, sets, st->workload, st->jobs, seed,
                                st->profiles, st->n, &rec, &res, &c);
                if (status != 0) {
                        free(rec.rec);
                        return status;
                }
                for (size_t j = 0; j < res->n_jobs; j++) {
                        const JobResult *jr = &res->jobs[j];
                        double late = jr->finished - jr->deadline;
                        size_t factor =
                                (size_t)CLAMP((st->deadline[j] / st->solo[st->kind[j]] - 1) / 0.5,
                                              0.0, (double)(SI_FACTORS - 1));

                        out->late[j] = jr->deadline == 0 ? NAN : jr->refused ? INFINITY : late;
                        if (jr->deadline == 0)
                                continue;
                        out->jobs_by[factor]++;
                        missed[j] &= jr->refused || late > 1e-6;
                        if (jr->refused || late > 1e-6) {
                                out->missed_by[factor]++;
                                out->missed++;
                                out->tardiness += jr->refused ? 0 : late;
                                out->utility +=
                                        jr->refused ? 0 : late / (jr->deadline - jr->submitted);
                        }
                }
                status = si_write_run(e, opt, seed, si_arms[a].label, res);
                if (status != 0) {
                        free(rec.rec);
                        cell_close(&c);
                        return status;
                }
                out->utility *= 100;
                out->tenant_slowdown =
                        st->tenant_alone > 0 ? res->other_mean_jct / st->tenant_alone : NAN;
                out->lever_targets = (double)res->lever_targets;
                out->spare_slots = (double)res->spare_slots;
                si_errors(&rec, res, out);
                free(rec.rec);
                cell_close(&c);
        }
        for (size_t j = 0; j < st->n; j++)
                ret->missed_by_all += missed[j];
        return 0;
}

/* ---- output ---- */

double slo_interference_arm_value(const SiSeedResult *res, SiArm a, size_t offset) {
        double x;

        memcpy(&x, (const char *)&res->arm[a] + offset, sizeof(double));
        return x;
}

static Spread si_spread(const SiSeedResult *res, size_t seeds, SiArm a, size_t offset) {
        double x[MAX_SEEDS];

        for (size_t k = 0; k < seeds; k++)
                x[k] = slo_interference_arm_value(&res[k], a, offset);
        return spread_of(x, seeds);
}

/* One number of every arm per seed: a heading of seeds, a row an arm. */
static void si_per_seed_print(const SiSeedResult *res, size_t seeds, int64_t first,
                              const char *title, size_t offset, int decimals) {
        printf("%s per seed:\n%-9s", title, "arm");
        for (size_t k = 0; k < seeds; k++)
                printf(" %6" PRId64, first + (int64_t)k);
        printf("\n");
        for (SiArm a = 0; a < SI_ARMS; a++) {
                printf("%-9s", si_arms[a].label);
                for (size_t k = 0; k < seeds; k++)
                        printf(" %6.*f", decimals, slo_interference_arm_value(&res[k], a, offset));
                printf("\n");
        }
}

/* Seeds in which arm a missed fewer deadlines than every other arm; in
 * ret_as_few[o], those in which arm o missed as few or fewer. */
static size_t si_best_seeds(const SiSeedResult *res, size_t seeds, SiArm a,
                            size_t ret_as_few[SI_ARMS]) {
        size_t n = 0;

        memset(ret_as_few, 0, SI_ARMS * sizeof(size_t));
        for (size_t k = 0; k < seeds; k++) {
                bool best = true;

                for (SiArm o = 0; o < SI_ARMS; o++)
                        if (o != a && res[k].arm[o].missed <= res[k].arm[a].missed) {
                                best = false;
                                ret_as_few[o]++;
                        }
                n += best;
        }
        return n;
}

static void si_forecasts_print(const SiSeedResult *res, size_t seeds, SiArm a) {
        printf("\nForecasts of each job's end against its real end, arm %s: mean |forecast - "
               "end| over the job's length (bias: mean signed, + late), over the jobs, mean ± "
               "half the range over the seeds:\n%-22s",
               si_arms[a].label, "forecast");
        for (size_t k = 0; k < SI_FRACTIONS; k++)
                printf(" %16.0f%% %8s", 100 * si_fractions[k], "bias");
        printf("\n");
        for (SiForecast f = 0; f < SI_FORECASTS; f++) {
                printf("%-22s", si_forecast_names[f]);
                for (size_t k = 0; k < SI_FRACTIONS; k++) {
                        double err[MAX_SEEDS], bias[MAX_SEEDS];
                        char text[SPREAD_TEXT_MAX];

                        for (size_t s = 0; s < seeds; s++) {
                                err[s] = res[s].arm[a].error[f][k];
                                bias[s] = res[s].arm[a].bias[f][k];
                        }
                        printf(" %17s %+8.2f",
                               spread_format(text, sizeof(text), spread_of(err, seeds), 2),
                               spread_of(bias, seeds).mean);
                }
                printf("\n");
        }
}

/* Per seed, whether the one loop missed fewer deadlines than every other
 * arm, and the arms that missed as few or fewer where it did not. */
static void si_verdicts_print(const SiSeedResult *res, size_t seeds, int64_t first) {
        printf("Per seed, the one loop against every other arm:");
        for (size_t k = 0; k < seeds; k++) {
                bool best = true;

                printf(" %" PRId64 ":", first + (int64_t)k);
                for (SiArm o = 0; o < SI_ARMS; o++)
                        if (o != SI_LOOP && res[k].arm[o].missed <= res[k].arm[SI_LOOP].missed) {
                                printf("%s%s", best ? " not fewer than " : ", ", si_arms[o].label);
                                best = false;
                        }
                printf("%s", best ? " fewer than all;" : ";");
        }
        printf("\n");
}

/* Whether job j missed its deadline in arm a of seed res. */
static bool si_job_missed(const SiSeedResult *res, SiArm a, size_t j) {
        return res->arm[a].late[j] > 1e-6;
}

/* What separates the one loop from the best other arm of each seed where
 * it is not alone best (fewest misses, then least tardiness): the jobs
 * one of them misses and the other meets, with each one's finish against
 * the deadline. */
static void si_gaps_print(const SiSeedResult *res, size_t seeds, int64_t first) {
        printf("Where the one loop is not alone best, against the seed's best other arm (the jobs "
               "one misses and the other meets, finish - deadline in s, loop / other):\n");
        for (size_t k = 0; k < seeds; k++) {
                const SiSeedResult *r = &res[k];
                SiArm best = SI_LOOP;

                for (SiArm o = 0; o < SI_ARMS; o++)
                        if (o != SI_LOOP &&
                            (best == SI_LOOP || r->arm[o].missed < r->arm[best].missed ||
                             (r->arm[o].missed == r->arm[best].missed &&
                              r->arm[o].tardiness < r->arm[best].tardiness)))
                                best = o;
                if (r->arm[SI_LOOP].missed < r->arm[best].missed)
                        continue;
                printf("  %" PRId64 ": loop %.0f, %s %.0f missed;", first + (int64_t)k,
                       r->arm[SI_LOOP].missed, si_arms[best].label, r->arm[best].missed);
                for (size_t j = 0; j < r->jobs; j++)
                        if (si_job_missed(r, SI_LOOP, j) != si_job_missed(r, best, j))
                                printf(" %s %+.0f / %+.0f;", r->job_name[j],
                                       r->arm[SI_LOOP].late[j], r->arm[best].late[j]);
                printf("%s\n", r->arm[best].missed == 0
                                       ? " (it missed none: the loop can at most equal it)"
                                       : "");
        }
}

static int si_report(const Experiment *e, const ExperimentOptions *opt, SiWorkload workload) {
        size_t seeds = experiment_seeds(opt);
        int64_t first = experiment_first_seed(opt);
        _cleanup_free_ SiSeedResult *res = calloc(seeds, sizeof(*res));
        size_t best, as_few[SI_ARMS];

        if (!res)
                return 1;
        for (size_t k = 0; k < seeds; k++) {
                int status = slo_interference_seed(e, opt, workload, first + (int64_t)k, &res[k]);

                if (status != 0)
                        return status;
        }
        title_print(e, opt);
        if (!res[0].drs)
                printf("Without DRS (drs.enabled=no): the VMs share their hosts as KVM divides "
                       "them, by CPU weight, and the lever's weights are the VMs' cpu_shares.\n");
        printf("%-9s %12s %16s %14s %16s %14s\n", "arm", "missed", "tardiness (s)", "utility %",
               "tenant slowdown", "lever targets");
        for (SiArm a = 0; a < SI_ARMS; a++) {
                char t[5][SPREAD_TEXT_MAX];

                printf("%-9s %12s %16s %14s %16s %14s\n", si_arms[a].label,
                       spread_format(t[0], sizeof(t[0]),
                                     si_spread(res, seeds, a, offsetof(SiArmResult, missed)), 1),
                       spread_format(t[1], sizeof(t[1]),
                                     si_spread(res, seeds, a, offsetof(SiArmResult, tardiness)), 0),
                       spread_format(t[2], sizeof(t[2]),
                                     si_spread(res, seeds, a, offsetof(SiArmResult, utility)), 1),
                       spread_format(
                               t[3], sizeof(t[3]),
                               si_spread(res, seeds, a, offsetof(SiArmResult, tenant_slowdown)), 2),
                       spread_format(t[4], sizeof(t[4]),
                                     si_spread(res, seeds, a, offsetof(SiArmResult, lever_targets)),
                                     0));
        }
        printf("%zu deadline jobs a run; the tenant runs the same jobs at the submissions.\n",
               res[0].jobs);
        si_per_seed_print(res, seeds, first, "Deadlines missed", offsetof(SiArmResult, missed), 0);
        printf("%-9s", "alone");
        for (size_t k = 0; k < seeds; k++)
                printf(" %6zu", res[k].late_alone);
        printf("\n%-9s", "all arms");
        for (size_t k = 0; k < seeds; k++)
                printf(" %6zu", res[k].missed_by_all);
        printf("\nalone: the deadline jobs late even alone on the cluster with every slot (FIFO) "
               "and the lever, beside the tenant running the same job (no arm can be expected to "
               "meet them); all arms: those every arm missed.\n");
        si_per_seed_print(res, seeds, first, "Tardiness (s)", offsetof(SiArmResult, tardiness), 0);
        si_per_seed_print(res, seeds, first, "Tenant slowdown",
                          offsetof(SiArmResult, tenant_slowdown), 2);
        for (SiArm a = 0; a < SI_ARMS; a++)
                if (si_spread(res, seeds, a, offsetof(SiArmResult, spare_slots)).max > 0) {
                        si_per_seed_print(res, seeds, first,
                                          "Slots given to deadline jobs beyond their quotas "
                                          "(slo_spare)",
                                          offsetof(SiArmResult, spare_slots), 0);
                        break;
                }
        printf("Columns: deadlines missed (a refused job counts as missed); total tardiness, the "
               "sum of the late jobs' T - D; ARIA's SLO-exceeded utility, the sum over late jobs "
               "of (T - D) / D, in %%; the tenant's mean job time over its mean alone on the "
               "hosts; VM targets the lever set for a late job, summed over control cycles.\n");
        printf("Missed by deadline (D over T_J), all seeds:\n%-9s", "arm");
        for (size_t f = 0; f < SI_FACTORS; f++)
                printf("   %.1f-%.1f T_J", 1 + 0.5 * f, 1.5 + 0.5 * f);
        printf("\n");
        for (SiArm a = 0; a < SI_ARMS; a++) {
                printf("%-9s", si_arms[a].label);
                for (size_t f = 0; f < SI_FACTORS; f++) {
                        double jobs = 0, missed = 0;

                        for (size_t k = 0; k < seeds; k++) {
                                jobs += res[k].arm[a].jobs_by[f];
                                missed += res[k].arm[a].missed_by[f];
                        }
                        printf(" %8.0f/%-4.0f", missed, jobs);
                }
                printf("\n");
        }
        best = si_best_seeds(res, seeds, SI_LOOP, as_few);
        printf("ours: the one loop misses fewer deadlines than every other arm in %zu of %zu "
               "seeds",
               best, seeds);
        for (SiArm a = 0, named = 0; a < SI_ARMS; a++)
                if (as_few[a] > 0) {
                        printf("%s%s in %zu",
                               named ? ", " : "; as few or fewer: ", si_arms[a].label, as_few[a]);
                        named = 1;
                }
        printf(". Its mean misses %.1f against layered's %.1f (spreads ±%.1f and ±%.1f); the "
               "price, the tenant's slowdown, %.2f against layered's %.2f.\n",
               si_spread(res, seeds, SI_LOOP, offsetof(SiArmResult, missed)).mean,
               si_spread(res, seeds, SI_LAYERED, offsetof(SiArmResult, missed)).mean,
               (si_spread(res, seeds, SI_LOOP, offsetof(SiArmResult, missed)).max -
                si_spread(res, seeds, SI_LOOP, offsetof(SiArmResult, missed)).min) /
                       2,
               (si_spread(res, seeds, SI_LAYERED, offsetof(SiArmResult, missed)).max -
                si_spread(res, seeds, SI_LAYERED, offsetof(SiArmResult, missed)).min) /
                       2,
               si_spread(res, seeds, SI_LOOP, offsetof(SiArmResult, tenant_slowdown)).mean,
               si_spread(res, seeds, SI_LAYERED, offsetof(SiArmResult, tenant_slowdown)).mean);
        si_verdicts_print(res, seeds, first);
        si_gaps_print(res, seeds, first);
        printf("Goal (issue 21: the one loop misses fewer deadlines than every other arm in every "
               "seed): %s, in %zu of %zu seeds.\n",
               best == seeds ? "met" : "NOT MET", best, seeds);
        si_forecasts_print(res, seeds, SI_LAYERED);
        si_forecasts_print(res, seeds, SI_LOOP);
        printf("Note: %s\n", e->note);
        printf("misses:");
        for (SiArm a = 0; a < SI_ARMS; a++)
                printf(" %s=%.1f", si_arms[a].label,
                       si_spread(res, seeds, a, offsetof(SiArmResult, missed)).mean);
        printf("\n");
        return 0;
}

int slo_interference_run(const Experiment *e, const ExperimentOptions *opt) {
        return si_report(e, opt, SI_W1);
}

int slo_interference_w2_run(const Experiment *e, const ExperimentOptions *opt) {
        return si_report(e, opt, SI_W2);
}

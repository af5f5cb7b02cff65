/* SPDX-License-Identifier: MIT */
/* A SWIM trace as the simulator's jobs (the model of trace.h), and its
 * runs: every job alone, then the trace under each configuration, each
 * through the scenario loader and sim_new() as any run. */
#include "trace.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/macro.h"
#include "policy/layers/policies.h"
#include "sim/sim.h"

unsigned trace_maps(const TraceModel *m, const SwimJob *job) {
        double input = (double)job->input * m->data_scale;

        return input > 0 ? (unsigned)ceil(input / m->block_size) : 1;
}

unsigned trace_reduces(const TraceModel *m, const SwimJob *job) {
        double bytes = ((double)job->shuffle + (double)job->output) * m->data_scale;
        double n = round(bytes / m->reduce_bytes);

        if (job->shuffle == 0 && !m->live)
                return 0;
        return (unsigned)MIN(MAX(n, 1.0), (double)m->max_reduces);
}

/* A benchmark of one job, named as the job: its scaled bytes, the costs'
 * CPU per MB, splits of a block (no small or large files, no expensive
 * records), no combiner; live, what the costs' application writes from
 * that input (trace.h). */
static void trace_benchmark(const TraceModel *m, const SwimJob *job, Benchmark *ret) {
        double input = MAX((double)job->input * m->data_scale, 1.0);
        double shuffle = (double)job->shuffle * m->data_scale;
        double output = (double)job->output * m->data_scale;
        unsigned reduces = trace_reduces(m, job);

        *ret = (Benchmark){
                .input_bytes = input,
                .map_cpu_per_mb = m->costs->map_cpu_per_mb,
                .reduce_cpu_per_mb = m->costs->reduce_cpu_per_mb,
                /* A map-only job's maps write its output. */
                .map_output_ratio = (reduces ? shuffle : output) / input,
                .output_ratio = reduces ? output / shuffle : 1,
                .reduces = reduces,
                .large_max_blocks = 1,
                .expensive_cpu = 1,
                .expensive_output = 1,
                .combine_ratio = 1,
        };
        if (m->live) {
                ret->map_output_ratio = m->costs->map_output_ratio;
                ret->output_ratio = m->costs->output_ratio;
                ret->record_bytes = m->costs->record_bytes;
                ret->combine_ratio = m->costs->combine_ratio;
        }
        snprintf(ret->name, sizeof(ret->name), "%s", job->name);
}

/* The kinds of layer a configuration's name may be, in the order a name
 * is looked up: [policy]'s key for each. */
static const char *const layer_kinds[] = { "scheduler", "slot_manager", "speculation",
                                           "allocator" };

static bool layer_exists(size_t kind, const char *name) {
        switch (kind) {
        case 0:
                return job_scheduler_ops_find(name);
        case 1:
                return slot_manager_ops_find(name);
        case 2:
                return speculation_ops_find(name);
        default:
                return vm_allocator_ops_find(name);
        }
}

/* The one loop's arm of slo-interference (experiment-interference.c). */
static const char *const loop_sets[] = {
        "policy.scheduler=aria", "policy.slot_manager=flexslot", "policy.slo_speed=yes",
        "policy.slo_favour=yes", "policy.slo_lever=yes",         "drs.agent_weights=yes",
};

static int config_add(TraceConfig *c, const char *prefix, const char *item, char *err,
                      size_t err_size) {
        if (c->n_sets == TRACE_MAX_SETS) {
                snprintf(err, err_size, "'%s': more than %d layers and settings", c->label,
                         TRACE_MAX_SETS);
                return -EINVAL;
        }
        if ((size_t)snprintf(c->sets[c->n_sets], sizeof(c->sets[0]), "%s%s", prefix, item) >=
            sizeof(c->sets[0])) {
                snprintf(err, err_size, "'%s': '%s' is too long", c->label, item);
                return -EINVAL;
        }
        c->n_sets++;
        return 0;
}

int trace_config_parse(const char *spec, TraceConfig *ret, char *err, size_t err_size) {
        _cleanup_free_ char *copy = NULL;
        TraceConfig c = { 0 };
        char *save = NULL;
        unsigned kinds = 0;
        int r;

        /* The label names the configuration's directory under --out. */
        if (spec[0] == '\0' || strlen(spec) >= sizeof(c.label) || strchr(spec, '/')) {
                snprintf(err, err_size, "'%s': a configuration is 1 to %zu characters, no '/'",
                         spec, sizeof(c.label) - 1);
                return -EINVAL;
        }
        copy = strdup(spec);
        if (!copy)
                return -ENOMEM;
        snprintf(c.label, sizeof(c.label), "%s", spec);
        for (char *item = strtok_r(copy, "+", &save); item; item = strtok_r(NULL, "+", &save)) {
                char *eq = strchr(item, '='), prefix[32];
                size_t k;

                if (eq) {
                        char *dot = strchr(item, '.');
                        r = config_add(&c, dot && dot < eq ? "" : "policy.", item, err, err_size);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (strcmp(item, "loop") == 0) {
                        for (size_t i = 0; i < ELEMENTSOF(loop_sets); i++) {
                                r = config_add(&c, "", loop_sets[i], err, err_size);
                                if (r < 0)
                                        return r;
                        }
                        kinds |= 1u << 0 | 1u << 1;
                        continue;
                }
                for (k = 0; k < ELEMENTSOF(layer_kinds); k++)
                        if (layer_exists(k, item))
                                break;
                if (k == ELEMENTSOF(layer_kinds)) {
                        snprintf(err, err_size,
                                 "'%s': no layer '%s' (flexslot-sim settings lists the layers' "
                                 "keys; a setting is KEY=VALUE)",
                                 spec, item);
                        return -EINVAL;
                }
                if (kinds & (1u << k)) {
                        snprintf(err, err_size, "'%s': a second %s, '%s'", spec, layer_kinds[k],
                                 item);
                        return -EINVAL;
                }
                kinds |= 1u << k;
                snprintf(prefix, sizeof(prefix), "policy.%s=", layer_kinds[k]);
                r = config_add(&c, prefix, item, err, err_size);
                if (r < 0)
                        return r;
        }
        if (c.n_sets == 0) {
                snprintf(err, err_size, "'%s': no layer or setting", spec);
                return -EINVAL;
        }
        *ret = c;
        return 0;
}

static usec_t trace_submit_usec(const TraceModel *m, const SwimJob *job) {
        return (usec_t)llround(job->submit * m->time_scale * USEC_PER_SEC);
}

/* A comma-separated list of each job's name or submission. */
static int join_jobs(const SwimTrace *t, const TraceModel *m, bool submit, char **ret) {
        size_t size = t->n_jobs * (SWIM_NAME_MAX + 2) + 1, at = 0;
        _cleanup_free_ char *s = malloc(size);

        if (!s)
                return -ENOMEM;
        for (size_t j = 0; j < t->n_jobs; j++) {
                const SwimJob *job = &t->jobs[j];
                if (submit)
                        at += (size_t)snprintf(s + at, size - at, "%s%" PRIu64 "us", j ? "," : "",
                                               trace_submit_usec(m, job));
                else
                        at += (size_t)snprintf(s + at, size - at, "%s%s", j ? "," : "", job->name);
                if (at >= size)
                        return -ENOBUFS;
        }
        *ret = TAKE_PTR(s);
        return 0;
}

void trace_setup_done(TraceSetup *s) {
        workload_done(&s->wl);
        scenario_done(&s->sc);
}

/* The costs benchmark of the scenario's workload file. */
static int trace_costs(const TraceOptions *o, const Scenario *sc, Benchmark *ret, char *err,
                       size_t err_size) {
        const char *name = o->costs ? o->costs : TRACE_COSTS_DEFAULT;
        Workload wl = { 0 };
        const Benchmark *b;
        int r = workload_load(sc->workload_file, &wl, err, err_size);

        if (r < 0)
                return r;
        b = workload_find(&wl, name);
        if (b)
                *ret = *b;
        else
                snprintf(err, err_size, "--costs: no benchmark '%s' in %s", name,
                         sc->workload_file);
        workload_done(&wl);
        return b ? 0 : -EINVAL;
}

int trace_setup(const SwimTrace *t, const TraceOptions *o, const TraceConfig *config, int64_t seed,
                TraceSetup *s, char *err, size_t err_size) {
        ScenarioOverride overrides[TRACE_MAX_SETS + 64];
        size_t n = 0;
        double slaves;
        int r;

        *s = (TraceSetup){ 0 };
        if (o->n_overrides + (config ? config->n_sets : 0) > ELEMENTSOF(overrides)) {
                snprintf(err, err_size, "too many --set options");
                return -EINVAL;
        }
        for (size_t i = 0; i < o->n_overrides; i++)
                overrides[n++] = o->overrides[i];
        for (size_t i = 0; config && i < config->n_sets; i++) {
                if (scenario_override_parse(config->sets[i], &overrides[n]) < 0) {
                        snprintf(err, err_size, "'%s': '%s' is not SECTION.KEY=VALUE",
                                 config->label, config->sets[i]);
                        return -EINVAL;
                }
                /* An error names the configuration that set it. */
                snprintf(overrides[n].where, sizeof(overrides[n].where), "'%s': %s", config->label,
                         config->sets[i]);
                n++;
        }
        r = scenario_load(o->scenario, overrides, n, &s->sc, err, err_size);
        if (r < 0)
                return r;
        s->sc.seed = seed;
        /* The model scales the trace itself; its jobs have no deadline, and
         * the trace runs on the measured cluster alone. */
        s->sc.scale = 1;
        s->sc.profile_runs = false;
        s->sc.load_threshold = 0;
        s->sc.interference = false;
        free(s->sc.deadlines);
        s->sc.deadlines = NULL;
        r = trace_costs(o, &s->sc, &s->costs, err, err_size);
        if (r < 0)
                return r;
        slaves = (double)(s->sc.vms - s->sc.masters);
        s->model = (TraceModel){
                .data_scale = o->data_scale > 0 ? o->data_scale : slaves / TRACE_SOURCE_MACHINES,
                .time_scale = o->time_scale,
                .block_size = (double)s->sc.block_size,
                .reduce_bytes = (double)s->sc.block_size,
                .max_reduces = (unsigned)(slaves * (double)s->sc.reduce_slots),
                .costs = &s->costs,
                .live = o->live,
        };
        s->wl.benchmarks = calloc(t->n_jobs, sizeof(Benchmark));
        if (!s->wl.benchmarks)
                return -ENOMEM;
        s->wl.n_benchmarks = t->n_jobs;
        for (size_t j = 0; j < t->n_jobs; j++)
                trace_benchmark(&s->model, &t->jobs[j], &s->wl.benchmarks[j]);
        free(s->sc.jobs);
        s->sc.jobs = NULL;
        free(s->sc.submit);
        s->sc.submit = NULL;
        r = join_jobs(t, &s->model, false, &s->sc.jobs);
        if (r >= 0)
                r = join_jobs(t, &s->model, true, &s->sc.submit);
        return r;
}

/* Why building a run failed, on stderr: the file's or the scenario's own
 * message where there is one. An exit status: a bad or missing file is
 * the user's to fix. */
static int setup_failed(int r, const char *err) {
        bool file = r == -EINVAL || r == -ENOENT;

        fprintf(stderr, "flexslot-sim: replay: %s\n", file && err[0] ? err : strerror(-r));
        return file ? EXIT_USAGE : EXIT_FAILURE;
}

/* Builds what a configuration runs on: an exit status, with why not on
 * stderr. */
static int trace_check(const SwimTrace *t, const TraceOptions *o, const TraceConfig *config) {
        _cleanup_(trace_setup_done) TraceSetup s = { 0 };
        char err[512] = "";
        int r = trace_setup(t, o, config, o->seeds[0], &s, err, sizeof(err));

        return r >= 0 ? 0 : setup_failed(r, err);
}

/* Runs a built simulator; an exit status, with why it failed on stderr. */
static int trace_sim_run(Sim *sim, const char *what) {
        int r = sim_run(sim);

        if (r >= 0)
                return 0;
        fprintf(stderr, "flexslot-sim: replay: %s: the run failed: %s\n", what,
                sim_invariant_error(sim) ? sim_invariant_error(sim)
                : r == -ETIMEDOUT        ? "jobs left unfinished after 30 simulated days"
                                         : strerror(-r));
        return EXIT_FAILURE;
}

static usec_t lcm_usec(usec_t a, usec_t b) {
        usec_t x = a, y = b;

        while (y) {
                usec_t t = x % y;
                x = y;
                y = t;
        }
        return a / x * b;
}

/* Each job by itself on the cluster, submitted at 0, under the scenario's
 * layers (and --set): the time slowdowns divide by. */
static int trace_alone(const SwimTrace *t, const TraceOptions *o, int64_t seed, double *alone,
                       TraceResults *res) {
        _cleanup_(trace_setup_done) TraceSetup s = { 0 };
        char err[512] = "";
        usec_t cycle;
        int r = trace_setup(t, o, NULL, seed, &s, err, sizeof(err));

        if (r < 0)
                return setup_failed(r, err);
        /* model.costs points at costs once the results are handed out. */
        res->model = s.model;
        res->costs = s.costs;
        snprintf(res->scenario_layers, sizeof(res->scenario_layers), "%s+%s+%s+%s", s.sc.scheduler,
                 s.sc.slot_manager, s.sc.speculation, s.sc.allocator);
        cycle = lcm_usec(scenario_heartbeat_interval(&s.sc),
                         scenario_core(&s.sc)->control_interval);
        for (size_t j = 0; j < t->n_jobs; j++) {
                Scenario solo = s.sc;
                _cleanup_(sim_freep) Sim *sim = NULL;
                char submit[32];
                const JobResult *jr;
                int status;

                solo.jobs = t->jobs[j].name;
                /* At the same point of the trackers' heartbeats and the
                 * control cycle as in the trace: a small job's time is
                 * mostly the wait for a heartbeat. */
                snprintf(submit, sizeof(submit), "%" PRIu64 "us",
                         cycle ? trace_submit_usec(&s.model, &t->jobs[j]) % cycle : 0);
                solo.submit = submit;
                r = sim_new(&solo, &s.wl, &sim, err, sizeof(err));
                if (r < 0)
                        return setup_failed(r, err);
                status = trace_sim_run(sim, t->jobs[j].name);
                if (status != 0)
                        return status;
                jr = &sim_results(sim)->jobs[0];
                alone[j] = jr->finished - jr->submitted;
        }
        return 0;
}

static int trace_run(const SwimTrace *t, const TraceOptions *o, const TraceConfig *config,
                     int64_t seed, const double *alone, TraceRun *ret) {
        _cleanup_(trace_setup_done) TraceSetup s = { 0 };
        _cleanup_(sim_freep) Sim *sim = NULL;
        const SimResults *res;
        char err[512] = "";
        int r = trace_setup(t, o, config, seed, &s, err, sizeof(err)), status;

        if (r >= 0)
                r = sim_new(&s.sc, &s.wl, &sim, err, sizeof(err));
        if (r < 0)
                return setup_failed(r, err);
        sim_set_progress(sim, o->progress, o->progress_data);
        status = trace_sim_run(sim, config ? config->label : "the scenario's layers");
        if (status != 0)
                return status;
        res = sim_results(sim);
        ret->jobs = calloc(res->n_jobs, sizeof(TraceJobResult));
        if (!ret->jobs)
                return EXIT_FAILURE;
        ret->n_jobs = res->n_jobs;
        ret->makespan = res->makespan;
        ret->events = res->events;
        for (size_t j = 0; j < res->n_jobs; j++) {
                const JobResult *jr = &res->jobs[j];
                double completion = jr->finished - jr->submitted;
                ret->jobs[j] = (TraceJobResult){
                        .submitted = jr->submitted,
                        .completion = completion,
                        .alone = alone[j],
                        .slowdown = completion / alone[j],
                        .maps = jr->maps,
                        .reduces = jr->reduces,
                };
        }
        return 0;
}

int trace_replay(const SwimTrace *trace, const TraceOptions *o, TraceResults *ret) {
        size_t nc = MAX(o->n_configs, (size_t)1);
        TraceResults res = { .n_configs = nc, .n_seeds = o->n_seeds };
        _cleanup_free_ double *alone = calloc(trace->n_jobs, sizeof(double));
        int status = 0;

        res.runs = calloc(nc * o->n_seeds, sizeof(TraceRun));
        if (!alone || !res.runs) {
                free(res.runs);
                return EXIT_FAILURE;
        }
        /* Every configuration's scenario first: a bad one ends the command
         * before hours of runs, not after. */
        for (size_t c = 0; status == 0 && c < nc; c++)
                status = trace_check(trace, o, o->n_configs ? &o->configs[c] : NULL);
        for (size_t k = 0; status == 0 && k < o->n_seeds; k++) {
                status = trace_alone(trace, o, o->seeds[k], alone, &res);
                for (size_t c = 0; status == 0 && c < nc; c++)
                        status = trace_run(trace, o, o->n_configs ? &o->configs[c] : NULL,
                                           o->seeds[k], alone, &res.runs[c * o->n_seeds + k]);
        }
        if (status != 0) {
                trace_results_done(&res);
                return status;
        }
        *ret = res;
        ret->model.costs = &ret->costs;
        return 0;
}

void trace_results_done(TraceResults *r) {
        for (size_t i = 0; r->runs && i < r->n_configs * r->n_seeds; i++)
                free(r->runs[i].jobs);
        free(r->runs);
        *r = (TraceResults){ 0 };
}

static int compare_doubles(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}

static double figure_of(const TraceJobResult *j, TraceFigure fig) {
        return fig == TRACE_COMPLETION ? j->completion : j->slowdown;
}

size_t trace_values(const TraceRun *run, TraceFigure fig, unsigned min_maps, unsigned max_maps,
                    double *ret) {
        size_t n = 0;

        for (size_t j = 0; j < run->n_jobs; j++)
                if (run->jobs[j].maps >= min_maps && run->jobs[j].maps <= max_maps)
                        ret[n++] = figure_of(&run->jobs[j], fig);
        qsort(ret, n, sizeof(double), compare_doubles);
        return n;
}

double trace_quantile(const TraceRun *run, TraceFigure fig, double p, unsigned min_maps,
                      unsigned max_maps) {
        _cleanup_free_ double *x = calloc(MAX(run->n_jobs, (size_t)1), sizeof(double));
        size_t n;

        if (!x)
                return NAN;
        n = trace_values(run, fig, min_maps, max_maps, x);
        if (n == 0)
                return NAN;
        return x[(size_t)MAX(ceil(p * (double)n), 1.0) - 1];
}

double trace_mean(const TraceRun *run, TraceFigure fig, unsigned min_maps, unsigned max_maps) {
        double sum = 0;
        size_t n = 0;

        for (size_t j = 0; j < run->n_jobs; j++)
                if (run->jobs[j].maps >= min_maps && run->jobs[j].maps <= max_maps) {
                        sum += figure_of(&run->jobs[j], fig);
                        n++;
                }
        return n ? sum / (double)n : NAN;
}

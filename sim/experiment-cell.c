/* SPDX-License-Identifier: MIT */
/* The experiments' harness: an experiment's variants and rows, the seeds
 * every experiment runs, and a cell (one benchmark under one variant) built
 * from the scenario with the variant's settings, run once per seed and
 * summarized. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "policy/layers/flexslot.h"
#include "sim/experiment-internal.h"
#include "sim/report.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "sim/workload.h"

/* --quick runs this share of each benchmark's input: enough waves of maps
 * for stragglers and slot moves to matter, small enough for a demo. */
#define QUICK_SCALE 0.15
/* Seeds per experiment: enough to see whether a difference is more than
 * the spread of the workload's random splits and placement. */
#define SEEDS 5
#define QUICK_SEEDS 3

size_t experiment_n_variants(const Experiment *e) {
        size_t n = 0;

        while (n < MAX_VARIANTS && e->variants[n].label)
                n++;
        return n;
}

size_t experiment_n_rows(const Experiment *e) {
        size_t n = 0;

        while (n < MAX_ROWS && e->rows[n].benchmark)
                n++;
        return n;
}

size_t experiment_variant_index(const Experiment *e, const char *label) {
        for (size_t v = 0; label && v < experiment_n_variants(e); v++)
                if (strcmp(e->variants[v].label, label) == 0)
                        return v;
        return SIZE_MAX;
}

int64_t experiment_first_seed(const ExperimentOptions *opt) {
        return opt->seed_set ? opt->seed : 1;
}

size_t experiment_seeds(const ExperimentOptions *opt) {
        return opt->quick ? QUICK_SEEDS : SEEDS;
}

void cell_close(CellRun *c) {
        c->sim = sim_free(c->sim);
        workload_done(&c->wl);
        scenario_done(&c->sc);
}

/* The scenario keys of a variant's cloud and its own settings, after the
 * command line's. */
static int variant_overrides(const Variant *v, const ExperimentOptions *opt, ScenarioOverride **ret,
                             size_t *ret_n) {
        static const char *const clouds[][3] = {
                [CLOUD_SCENARIO] = { NULL },
                [CLOUD_DRS] = { "drs.enabled=yes", "policy.apply_vm_targets=no", NULL },
                [CLOUD_HOMO] = { "drs.enabled=no", "policy.apply_vm_targets=no", NULL },
                [CLOUD_AGENT] = { "drs.enabled=no", "policy.apply_vm_targets=yes", NULL },
                [CLOUD_KVM] = { "drs.enabled=no", "policy.apply_vm_targets=no", NULL },
        };
        ScenarioOverride *o = calloc(opt->n_overrides + 2 + MAX_VARIANT_SETS, sizeof(*o));
        size_t n = 0;

        if (!o)
                return -ENOMEM;
        for (size_t i = 0; i < opt->n_overrides; i++)
                o[n++] = opt->overrides[i];
        for (size_t i = 0; clouds[v->cloud][i]; i++)
                if (scenario_override_parse(clouds[v->cloud][i], &o[n++]) < 0)
                        goto bad;
        for (size_t i = 0; i < MAX_VARIANT_SETS && v->sets[i]; i++)
                if (scenario_override_parse(v->sets[i], &o[n++]) < 0)
                        goto bad;
        *ret = o;
        *ret_n = n;
        return 0;
bad:
        free(o);
        return -EINVAL;
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
 * benchmark and seed and builds the simulator; returns an exit status. */
int cell_open(const Experiment *e, const Variant *v, const char *benchmark, int64_t seed,
              const ExperimentOptions *opt, CellRun *c) {
        _cleanup_free_ char *path = NULL;
        _cleanup_free_ ScenarioOverride *overrides = NULL;
        size_t n_overrides;
        char err[512];
        int r;

        *c = (CellRun){ 0 };
        if (asprintf(&path, "%s/%s", opt->scenario_dir, e->scenario) < 0 ||
            variant_overrides(v, opt, &overrides, &n_overrides) < 0)
                return 1;
        r = scenario_load(path, overrides, n_overrides, &c->sc, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "flexslot-sim: %s\n", err);
                return 2;
        }
        r = v->workload_text ? workload_parse(v->label, v->workload_text, &c->wl, err, sizeof(err))
                             : workload_load(c->sc.workload_file, &c->wl, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "flexslot-sim: %s\n", err);
                cell_close(c);
                return 2;
        }
        if ((benchmark && scenario_set_string(&c->sc.jobs, benchmark) < 0) ||
            (benchmark && c->sc.interference &&
             scenario_set_string(&c->sc.interference_jobs, benchmark) < 0) ||
            (v->slot_manager && scenario_set_string(&c->sc.slot_manager, v->slot_manager) < 0) ||
            (v->allocator && scenario_set_string(&c->sc.allocator, v->allocator) < 0)) {
                cell_close(c);
                return 1;
        }
        /* II-B's Homo: the pool split equally, each VM capped at its part
         * (the paper's 4.8 GHz of 153.6 for 32 VMs). */
        if (v->cloud == CLOUD_HOMO)
                c->sc.vm_cap = (double)(c->sc.hosts * c->sc.host_cpus) / (double)c->sc.vms;
        variant_apply(v, &c->sc.policy);
        if (opt->quick)
                c->sc.scale *= QUICK_SCALE;
        c->sc.seed = seed;

        r = sim_new(&c->sc, &c->wl, &c->sim, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "flexslot-sim: %s: %s\n", path, r == -EINVAL ? err : strerror(-r));
                cell_close(c);
                return r == -EINVAL ? 2 : 1;
        }
        sim_set_progress(c->sim, opt->progress, opt->progress_data);
        return 0;
}

int cell_run_seed(CellRun *c, const Experiment *e, const Variant *v, const char *benchmark,
                  const ExperimentOptions *opt, Cell *ret, size_t k) {
        int r = sim_run(c->sim);

        if (r < 0) {
                fprintf(stderr, "flexslot-sim: %s under %s, seed %" PRId64 ": %s\n", benchmark,
                        v->label, c->sc.seed,
                        sim_invariant_error(c->sim) ? sim_invariant_error(c->sim) : strerror(-r));
                return 1;
        }
        if (run_summarize(sim_results(c->sim), &ret->runs[k]) < 0)
                return 1;
        ret->other_jct[k] = sim_results(c->sim)->other_mean_jct;
        ret->n = MAX(ret->n, k + 1);
        if (opt->out && k == 0) {
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

/* Every seed of benchmark under variant; returns an exit status. */
int run_cell(const Experiment *e, const Variant *v, const char *benchmark,
             const ExperimentOptions *opt, Cell *ret) {
        for (size_t k = 0; k < experiment_seeds(opt); k++) {
                CellRun c;
                int status = cell_open(e, v, benchmark, experiment_first_seed(opt) + (int64_t)k,
                                       opt, &c);

                if (status != 0)
                        return status;
                status = cell_run_seed(&c, e, v, benchmark, opt, ret, k);
                cell_close(&c);
                if (status != 0)
                        return status;
        }
        return 0;
}

int run_cells(const Experiment *e, const ExperimentOptions *opt, Cell **ret) {
        size_t nv = experiment_n_variants(e), nr = experiment_n_rows(e);
        _cleanup_free_ Cell *cells = calloc(MAX(nv * nr, (size_t)1), sizeof(Cell));

        if (!cells)
                return 1;
        for (size_t i = 0; i < nr; i++)
                for (size_t v = 0; v < nv; v++) {
                        int status = run_cell(e, &e->variants[v], e->rows[i].benchmark, opt,
                                              &cells[i * nv + v]);
                        if (status != 0)
                                return status;
                }
        *ret = TAKE_PTR(cells);
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* The figures the experiments compute from their runs: one of a run
 * (fig_*), a mean and range over the seeds (Spread), and the experiment's
 * metric of a cell. No output. */
#include <math.h>

#include "common/macro.h"
#include "sim/experiment-internal.h"

#define DEFINE_FIGURE(name, field)               \
        double fig_##name(const RunSummary *s) { \
                return (double)s->field;         \
        }
RUN_FIELDS(DEFINE_FIGURE)
#undef DEFINE_FIGURE

double fig_bound_ratio(const RunSummary *s) {
        return run_bound_ratio(s);
}

double fig_bound_seconds(const RunSummary *s) {
        return s->pair_bound > 0 ? s->pair_bound : s->bound.value;
}

double fig_maps_ratio(const RunSummary *s) {
        return (double)s->node_maps_max / MAX(s->node_maps_min, 1u);
}

double fig_steal_share(const RunSummary *s) {
        return run_slow_steal_share(s);
}

Spread spread_of(const double *x, size_t n) {
        Spread s = { .mean = 0, .min = HUGE_VAL, .max = -HUGE_VAL };
        size_t used = 0;

        for (size_t i = 0; i < n; i++) {
                if (isnan(x[i]))
                        continue;
                s.mean += x[i];
                s.min = MIN(s.min, x[i]);
                s.max = MAX(s.max, x[i]);
                used++;
        }
        if (used == 0)
                return (Spread){ NAN, NAN, NAN };
        s.mean /= (double)used;
        return s;
}

const char *spread_format(char *buf, size_t size, Spread s, int decimals) {
        if (isnan(s.mean))
                snprintf(buf, size, "-");
        else
                snprintf(buf, size, "%.*f±%.*f", decimals, s.mean, decimals, (s.max - s.min) / 2);
        return buf;
}

double cell_jct(const Cell *c, size_t k) {
        /* With a co-running cluster the paper averages both clusters' jobs. */
        return c->other_jct[k] > 0 ? (c->runs[k].jct + c->other_jct[k]) / 2 : c->runs[k].jct;
}

double cell_value(const Experiment *e, const Cell *row, size_t v, size_t k) {
        const RunSummary *r = &row[v].runs[k];

        switch (e->metric) {
        case METRIC_JCT:
                return cell_jct(&row[v], k) / cell_jct(&row[0], k);
        case METRIC_KILLS:
                /* No straggler resized: there is no average to give. */
                return r->resized > 0 ? r->kills_per_straggler : NAN;
        case METRIC_SKEW:
                return r->map_skewness;
        }
        return NAN;
}

Spread cell_spread(const Experiment *e, const Cell *row, size_t v) {
        double x[MAX_SEEDS];

        for (size_t k = 0; k < row[v].n; k++)
                x[k] = cell_value(e, row, v, k);
        return spread_of(x, row[v].n);
}

Spread cell_figure(const Cell *c, double (*fn)(const RunSummary *)) {
        double x[MAX_SEEDS];

        for (size_t k = 0; k < c->n; k++)
                x[k] = fn(&c->runs[k]);
        return spread_of(x, c->n);
}

Spread seed_ratio(const Cell *a, const Cell *b) {
        double x[MAX_SEEDS];
        size_t n = MIN(a->n, b->n);

        for (size_t k = 0; k < n; k++)
                x[k] = b->runs[k].jct / a->runs[k].jct;
        return spread_of(x, n);
}

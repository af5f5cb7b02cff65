/* SPDX-License-Identifier: MIT */
/* Our VM allocator (flexslot's, the agent on KVM with no DRS) on the
 * paper's testbed against stock Hadoop under DRS and on KVM's equal shares,
 * the paper's FlexSlot, and each job's lower bound; then where the time
 * between ours and the bound goes: the hosts' idle pCPUs before the job's
 * last wave of maps, in it, and after its last map. An allocator divides
 * a host's CPU among threads that want it; a pCPU that no thread wants is
 * beyond it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "sim/experiment-internal.h"

static size_t label_at(const Experiment *e, const char *label) {
        for (size_t v = 0; v < experiment_n_variants(e); v++)
                if (strcmp(e->variants[v].label, label) == 0)
                        return v;
        return SIZE_MAX;
}

static double fig_gap(const RunSummary *s) {
        return s->jct - s->bound.value;
}

static double fig_idle_early(const RunSummary *s) {
        return s->idle_early;
}

static double fig_idle_last_wave(const RunSummary *s) {
        return s->idle_last_wave;
}

static double fig_idle_tail(const RunSummary *s) {
        return s->idle_tail;
}

/* Per benchmark, for one variant: its distance from the bound in seconds
 * and the hosts' idle time by phase. */
static void gap_print(const Experiment *e, const Cell *cells, size_t nv, size_t nr, size_t v) {
        char a[5][SPREAD_TEXT_MAX];

        printf("Where %s's time above the bound goes (seconds; hosts' idle pCPU time over "
               "their pCPUs):\n",
               e->variants[v].label);
        printf("%-18s %10s %12s %14s %14s %14s\n", "benchmark", "bound", "above it", "idle: early",
               "last wave", "after maps");
        for (size_t i = 0; i < nr; i++) {
                const Cell *c = &cells[i * nv + v];

                printf("%-18s %10.0f %12s %14s %14s %14s\n", e->rows[i].benchmark,
                       cell_figure(c, fig_bound_seconds).mean,
                       spread_format(a[0], SPREAD_TEXT_MAX, cell_figure(c, fig_gap), 0),
                       spread_format(a[1], SPREAD_TEXT_MAX, cell_figure(c, fig_idle_early), 0),
                       spread_format(a[2], SPREAD_TEXT_MAX, cell_figure(c, fig_idle_last_wave), 0),
                       spread_format(a[3], SPREAD_TEXT_MAX, cell_figure(c, fig_idle_tail), 0));
        }
}

int alloc_run(const Experiment *e, const ExperimentOptions *opt) {
        size_t nv = experiment_n_variants(e), nr = experiment_n_rows(e);
        size_t ours = label_at(e, "fs+alloc"), crit = label_at(e, "fs+crit"),
               unl = label_at(e, "fs+unl"), kvm = label_at(e, "kvm");
        _cleanup_free_ Cell *cells = NULL;
        char a[3][SPREAD_TEXT_MAX];
        int status;

        if (ours == SIZE_MAX || crit == SIZE_MAX || unl == SIZE_MAX || kvm == SIZE_MAX)
                return 1;
        status = run_cells(e, opt, &cells);
        if (status != 0)
                return status;
        table_print(e, cells, nv, nr, opt);
        printf("On KVM without a pool, in the same seed (a ratio inside its spread is no "
               "difference):\n");
        printf("%-18s %18s %18s %18s\n", "benchmark", "fs+alloc / kvm", "fs+crit / fs+alloc",
               "fs+unl / fs+alloc");
        for (size_t i = 0; i < nr; i++) {
                const Cell *row = &cells[i * nv];

                printf("%-18s %18s %18s %18s\n", e->rows[i].benchmark,
                       spread_format(a[0], SPREAD_TEXT_MAX, seed_ratio(&row[kvm], &row[ours]), 3),
                       spread_format(a[1], SPREAD_TEXT_MAX, seed_ratio(&row[ours], &row[crit]), 3),
                       spread_format(a[2], SPREAD_TEXT_MAX, seed_ratio(&row[ours], &row[unl]), 3));
        }
        gap_print(e, cells, nv, nr, ours);
        printf("A pCPU idles when no thread on its host wants it (tasks between heartbeats, "
               "waiting on I/O, the last wave's fewer maps than pCPUs, the reduces after the "
               "maps, each one thread); no division of the host's CPU gives that time "
               "back. More tasks can (fs+unl) where the maps wait on I/O.\n");
        if (opt->out)
                files_print(e, opt, cells, nv * nr, false, false);
        return 0;
}

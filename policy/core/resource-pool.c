/* SPDX-License-Identifier: MIT */
#include "resource-pool.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/macro.h"
#include "policy/core/cpu-share.h"

/* Max-min fair split of pool over VMs each wanting at most bound[i]: the
 * water filling of cpu_share_compute() with equal weights. */
static void maxmin_fill(double pool, const double *bound, size_t n, double *ret,
                        CpuDemand *scratch) {
        for (size_t i = 0; i < n; i++)
                scratch[i] = (CpuDemand){ .runnable = bound[i], .weight = 1 };
        cpu_share_compute(pool, scratch, n, ret);
}

void drs_divvy(DrsDivvy how, double pool, const double *demand, const double *size, size_t n,
               double *ret_share) {
        _cleanup_free_ CpuDemand *scratch = calloc(MAX(n, (size_t)1), sizeof(CpuDemand));
        _cleanup_free_ double *bound = calloc(MAX(n, (size_t)1), sizeof(double));
        _cleanup_free_ double *extra = calloc(MAX(n, (size_t)1), sizeof(double));

        if (!scratch || !bound || !extra) {
                /* No memory for the divvy: equal parts keep every VM running. */
                for (size_t i = 0; i < n; i++)
                        ret_share[i] = MIN(size[i], pool / (double)n);
                return;
        }
        if (how == DRS_DIVVY_MAXMIN) {
                for (size_t i = 0; i < n; i++)
                        bound[i] = MIN(demand[i], size[i]);
                maxmin_fill(pool, bound, n, ret_share, scratch);
                for (size_t i = 0; i < n; i++) {
                        pool -= ret_share[i];
                        bound[i] = size[i] - ret_share[i];
                }
                maxmin_fill(MAX(pool, 0.0), bound, n, extra, scratch);
                for (size_t i = 0; i < n; i++)
                        ret_share[i] += extra[i];
                return;
        }
        /* Proportional: a VM whose part exceeds its size gets its size, and
         * the others divide the rest again; each round fixes one VM at
         * least. */
        for (size_t i = 0; i < n; i++)
                ret_share[i] = -1; /* not fixed */
        for (;;) {
                double wanted = 0, left = pool;
                bool fixed = false;

                for (size_t i = 0; i < n; i++)
                        if (ret_share[i] < 0)
                                wanted += demand[i];
                        else
                                left -= ret_share[i];
                for (size_t i = 0; i < n; i++)
                        if (ret_share[i] < 0 && left * demand[i] / wanted >= size[i]) {
                                ret_share[i] = size[i];
                                fixed = true;
                        }
                if (fixed)
                        continue;
                for (size_t i = 0; i < n; i++)
                        if (ret_share[i] < 0)
                                ret_share[i] = MAX(left, 0.0) * demand[i] / wanted;
                return;
        }
}

unsigned drs_share_weight(double share, size_t n, double pool, double per_vm) {
        return (unsigned)MAX(lround(per_vm * share * (double)n / pool), 2L);
}

double drs_equal_share(double pool, size_t n, double size) {
        return MIN(pool / (double)n, size);
}

int drs_history_init(DrsHistory *h, usec_t window, usec_t sample) {
        *h = (DrsHistory){ 0 };
        if (sample == 0)
                return -EINVAL;
        h->slots = (size_t)(window / sample) + 1;
        h->ring = calloc(h->slots, sizeof(DrsSample));
        return h->ring ? 0 : -ENOMEM;
}

void drs_history_done(DrsHistory *h) {
        free(h->ring);
        *h = (DrsHistory){ 0 };
}

void drs_history_add(DrsHistory *h, DrsSample x) {
        h->ring[h->next] = x;
        h->next = (h->next + 1) % h->slots;
        h->taken = MIN(h->taken + 1, h->slots);
}

/* The oldest sample within the window before now. */
static const DrsSample *window_start(const DrsHistory *h, usec_t window, usec_t now) {
        const DrsSample *best = NULL;

        for (size_t k = 0; k < h->taken; k++) {
                const DrsSample *x = &h->ring[k];
                if (x->at + window >= now && x->at < now && (!best || x->at < best->at))
                        best = x;
        }
        return best;
}

double drs_history_demand(const DrsHistory *h, usec_t window, bool ready, const DrsSample *now) {
        const DrsSample *from = window_start(h, window, now->at);
        double demand = DRS_MIN_DEMAND;

        if (from) {
                double span = usec_to_sec(now->at - from->at);
                demand = (now->cpu - from->cpu) / span;
                if (ready)
                        demand += (now->ready - from->ready) / span;
        }
        return MAX(demand, DRS_MIN_DEMAND);
}

/* SPDX-License-Identifier: MIT */
#include "host.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/macro.h"

/* The spill threshold and merge fan-in of Hadoop 1.x (io.sort.spill.percent,
 * io.sort.factor). */
#define SPILL_PERCENT 0.8
#define SORT_FACTOR 10.0

static double demand_limit(const CpuDemand *d) {
        double limit = MAX(d->runnable, 0.0);

        return d->cap > 0 ? MIN(limit, d->cap) : limit;
}

/* Water filling: raise a level x shared by all unsaturated VMs (VM i gets
 * weight_i * x) until the host is full or every VM is at its limit. Each
 * round saturates at least one VM or ends, so it takes at most n rounds; n is
 * a handful of VMs per host. */
void cpu_share_compute(double pcpus, const CpuDemand *d, size_t n, double *ret_alloc) {
        double left = MAX(pcpus, 0.0);
        size_t active = 0;

        for (size_t i = 0; i < n; i++) {
                ret_alloc[i] = -1.0; /* unsaturated */
                if (demand_limit(&d[i]) <= 0) {
                        ret_alloc[i] = 0.0;
                        continue;
                }
                active++;
        }
        while (active > 0) {
                double weights = 0, level;
                bool saturated = false;

                for (size_t i = 0; i < n; i++)
                        if (ret_alloc[i] < 0)
                                weights += d[i].weight;
                level = left / weights;
                for (size_t i = 0; i < n; i++) {
                        double limit = demand_limit(&d[i]);
                        if (ret_alloc[i] < 0 && limit <= d[i].weight * level) {
                                ret_alloc[i] = limit;
                                left -= limit;
                                active--;
                                saturated = true;
                        }
                }
                if (saturated)
                        continue;
                for (size_t i = 0; i < n; i++)
                        if (ret_alloc[i] < 0)
                                ret_alloc[i] = d[i].weight * level;
                break;
        }
}

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

double disk_share_compute(double disk_bw, double stream_bw, unsigned streams) {
        if (streams == 0)
                return stream_bw;
        return MIN(stream_bw, disk_bw / streams);
}

double spill_buffer_bytes(double sort_buffer, double task_heap, double slot_mem) {
        return sort_buffer * slot_mem / task_heap;
}

unsigned spill_count(double output, double buffer) {
        double per_spill = buffer * SPILL_PERCENT;

        if (output <= per_spill)
                return 1;
        return (unsigned)ceil(output / per_spill);
}

double spill_merge_bytes(double output, unsigned spills) {
        if (spills <= 1)
                return 0;
        return 2.0 * output * ceil(log((double)spills) / log(SORT_FACTOR));
}

/* Spills the map has started once it consumed share x of its input: one
 * each time its output (produced evenly over the input) crosses a multiple
 * of the spill size, except the last spill, which only the flush starts. */
static double spills_started(double output, double buffer, double x) {
        double per_spill = buffer * SPILL_PERCENT;

        return MIN(floor(x * output / per_spill), (double)(spill_count(output, buffer) - 1));
}

double spill_started_bytes(double output, double buffer, double from, double to) {
        return buffer * SPILL_PERCENT *
               (spills_started(output, buffer, to) - spills_started(output, buffer, from));
}

double spill_flush_bytes(double output, double buffer) {
        unsigned spills = spill_count(output, buffer);

        return output - buffer * SPILL_PERCENT * (spills - 1) + spill_merge_bytes(output, spills);
}

double memory_slowdown(double committed, double mem, double penalty) {
        if (committed <= mem || mem <= 0)
                return 1.0;
        return 1.0 + penalty * (committed - mem) / mem;
}

/* SPDX-License-Identifier: MIT */
#include "cpu-share.h"

#include <stdbool.h>

#include "common/macro.h"

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

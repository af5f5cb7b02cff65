/* SPDX-License-Identifier: MIT */
#pragma once

/* How CPU is shared when claimants want more than there is: a host's
 * scheduler among its VMs (the simulator's model, sim/host.h) and DRS's
 * max-min divvy of a pool (resource-pool.h) are both this water filling. */

#include <stddef.h>

typedef struct CpuDemand {
        double runnable; /* vCPUs that want to run, >= 0 */
        double cap;      /* pCPUs at most; <= 0 means no cap */
        double weight;   /* > 0 */
} CpuDemand;

/* Fills ret_alloc[i] with VM i's pCPUs (weighted max-min fair, work
 * conserving up to the caps). n may be 0. */
void cpu_share_compute(double pcpus, const CpuDemand *d, size_t n, double *ret_alloc);

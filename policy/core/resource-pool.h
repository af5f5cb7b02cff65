/* SPDX-License-Identifier: MIT */
#pragma once

/* VMware DRS's division of a resource pool's CPU among its VMs, the part
 * that does not depend on who drives it: the simulator's cloud (sim/drs.c,
 * which also gives the sources of each choice) and the live "drs" VM
 * allocator (policy/layers/vm-alloc.c) both keep a window of each VM's
 * cumulative CPU use, estimate its demand from it and divide the pool by
 * the demands, so that a prediction and a live run follow one rule.
 *
 * A VM's history is a ring of samples of its cumulative CPU time (and the
 * time it was ready to run but held back); its demand over a window is the
 * CPU it used from the oldest sample within the window up to now, over that
 * span, in CPUs, at least DRS_MIN_DEMAND (a VM with no sample in the window
 * has that demand: it is not known to want more). */

#include <stdbool.h>
#include <stddef.h>

#include "common/time-util.h"

/* A demand is at least this many CPUs, so that an idle VM keeps a part of
 * the pool (a limit of zero would mean none). */
#define DRS_MIN_DEMAND 0.01

/* How DRS divides a resource pool among its VMs (sim/drs.c says which
 * sources support which). */
typedef enum DrsDivvy {
        DRS_DIVVY_PROPORTIONAL, /* in proportion to their demands */
        DRS_DIVVY_MAXMIN,       /* each its demand, max-min fair; what is left in equal parts */
} DrsDivvy;

/* Fills ret_share[i] with VM i's part of pool pCPUs: by demand[i] as how
 * says, never more than size[i] (its vCPUs); all of the pool when the sizes
 * allow. Demands must be > 0. */
void drs_divvy(DrsDivvy how, double pool, const double *demand, const double *size, size_t n,
               double *ret_share);

/* The CPU weight that enforces a share on a contended host: weights in
 * proportion to the shares, per_vm for a VM with an equal part of the
 * pool (n VMs), at least 2 (cgroup's cpu.shares floor). */
unsigned drs_share_weight(double share, size_t n, double pool, double per_vm);

/* A VM's part of pool when n VMs split it equally, at most its size (its
 * vCPUs): before DRS has seen any demand, and the Homo cluster's fixed
 * part (FlexSlot II-B). */
double drs_equal_share(double pool, size_t n, double size);

/* A VM's cumulative CPU use and ready time when sampled. */
typedef struct DrsSample {
        usec_t at;
        double cpu, ready; /* vCPU-seconds */
} DrsSample;

/* The samples of one VM over a window: the newest `slots` of them. */
typedef struct DrsHistory {
        DrsSample *ring;
        size_t slots, next, taken;
} DrsHistory;

/* Room for a window's samples taken every `sample` (one more, so that the
 * sample a window ago is still there): -ENOMEM, -EINVAL for a zero sample
 * interval. */
int drs_history_init(DrsHistory *h, usec_t window, usec_t sample);
void drs_history_done(DrsHistory *h);
void drs_history_add(DrsHistory *h, DrsSample x);
/* The VM's demand in CPUs over the window before now.at, given its
 * cumulative use now; with ready, the time it was held back counts as
 * demand too. */
double drs_history_demand(const DrsHistory *h, usec_t window, bool ready, const DrsSample *now);

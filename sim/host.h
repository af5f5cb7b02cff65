/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The physical model of the simulator, all in one place.
 *
 * Hosts. A host has pcpus physical CPUs, a disk of disk_bw bytes/s and its
 * memory. It runs VMs of one or two clusters (the second one is the
 * interference of Fig. 11).
 *
 * CPU. A VM has vcpus virtual CPUs, a CPU weight (cgroup cpu.shares: what
 * the VM allocators set to an entitlement) and an optional cap in pCPUs (a
 * CFS quota, VMware's "limit": the static 4.8 GHz nodes of the paper). Its
 * demand is its
 * runnable vCPUs: min(vcpus, tasks in a CPU phase). The host hands out its
 * pCPUs by weighted max-min fairness (cpu_share_compute): a VM never gets
 * more than its demand or its cap, the rest is split in proportion to the
 * weights, and the split is work conserving: if the VMs want more than the
 * host has, all of it is handed out. A runnable vCPU that does not get a pCPU
 * accumulates steal, which is what libvirt reports as vcpu.N.delay and the
 * guest shows as steal: steal rate = demand - allocation >= 0.
 *
 * Tasks. Inside a VM the guest spreads its allocation evenly over its tasks
 * in a CPU phase; when there are more such tasks than vCPUs, the surplus
 * waits in the guest's run queue ("queue" time, not steal). A task alternates
 * I/O and CPU phases: each round reads a chunk of its input and writes the
 * spills started in it (I/O), then computes on it (CPU).
 *
 * Disk. The I/O phases of all tasks on a host share its disk equally, each
 * at most stream_bw bytes/s (disk_share_compute). Time in an I/O phase is
 * I/O wait.
 *
 * Spills (Hadoop 1.x MapOutputBuffer). A map task's sort buffer is
 * io.sort.mb scaled by its slot memory (100 MB for the default 200 MB heap).
 * Its output, produced evenly over its input, fills the buffer; each time
 * 80 % of the buffer (io.sort.spill.percent) has filled since the last
 * spill, the spill thread writes that much to disk while the map goes on
 * reading input. Those writes belong to the map phase: they take the host
 * disk from the map's own reads and everyone else's, so they lower the
 * input processing speed D that FlexSlot measures (III-B). The model
 * charges each spill to the round in which its threshold is crossed, in
 * series with the round's read, as if the map blocked for the whole spill
 * (it does block once its output fills the other 20 % of the buffer before
 * the spill is written): it leaves out the overlap of the spill with the
 * map's reads and compute, so it overstates the drop of D while a spill is
 * written. The last spill (what is left in the buffer) is written only
 * when the input is consumed, and with more than one spill the spills are
 * then merged ceil(log10(spills)) times (io.sort.factor 10), each pass
 * reading and writing the whole output once more. So once a larger buffer
 * (Alg. 1's slot memory) holds the whole output in one spill, the map phase
 * writes nothing, D rises and the merge is gone; a larger buffer that still
 * needs two or more spills only makes them bigger and later, and changes D
 * and the merge little.
 *
 * Reduces fetch each map's share of output as the map finishes (the
 * shuffle, I/O on the reduce's host), merge what did not fit in 70 % of the
 * heap the same way, then alternate CPU and output writes.
 *
 * Memory. A VM's committed memory is its OS base plus the heaps of the tasks
 * it runs; beyond the VM's current memory the guest pages, which slows its
 * CPU phases by 1 + memory_penalty * overcommit fraction; the lost time is
 * I/O wait (paging is disk I/O).
 *
 * Rates change only at events (a phase starts or ends, a VM is resized), so
 * between events everything moves linearly and the simulator can compute
 * the exact time each phase ends. */

typedef struct CpuDemand {
        double runnable; /* vCPUs that want to run, >= 0 */
        double cap;      /* pCPUs at most; <= 0 means no cap */
        double weight;   /* > 0 */
} CpuDemand;

/* Fills ret_alloc[i] with VM i's pCPUs (weighted max-min fair, work
 * conserving up to the caps). n may be 0. */
void cpu_share_compute(double pcpus, const CpuDemand *d, size_t n, double *ret_alloc);

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

/* Per-stream bandwidth when streams share a disk of disk_bw bytes/s, each at
 * most stream_bw. */
double disk_share_compute(double disk_bw, double stream_bw, unsigned streams);

/* Sort buffer bytes for a map slot of slot_mem bytes, scaled from the
 * configured (sort_buffer, task_heap) pair. */
double spill_buffer_bytes(double sort_buffer, double task_heap, double slot_mem);
/* Number of spills of output bytes through a buffer. */
unsigned spill_count(double output, double buffer);
/* Extra bytes read and written to merge that many spills of output bytes. */
double spill_merge_bytes(double output, unsigned spills);
/* Bytes of the spills a map starts while it consumes its input from share
 * from to share to (0..1) of its split. */
double spill_started_bytes(double output, double buffer, double from, double to);
/* I/O after a map's input is consumed: its last spill and the merge. */
double spill_flush_bytes(double output, double buffer);
/* CPU slow-down factor of a VM that has committed bytes against mem bytes. */
double memory_slowdown(double committed, double mem, double penalty);

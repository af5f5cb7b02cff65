/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "policy/core/cpu-share.h"
#include "policy/core/resource-pool.h"

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
 * I/O and CPU phases in rounds of a chunk of its input (see Maps and Reduces
 * below).
 *
 * Disk. The I/O streams on a host (tasks in an I/O phase and maps' spill
 * threads) share its disk equally, each at most stream_bw bytes/s
 * (disk_share_compute). Time a task spends in an I/O phase, or blocked on
 * its spill thread, is I/O wait. The spill thread's sorting and combining
 * CPU is left out (a map's CPU cost per MB is meant to include it).
 *
 * Network. A map whose split has no replica on its node reads it as HDFS
 * does, from the host of the split's first replica (in one rack, the
 * namenode puts only the reader's own node ahead of it): the read is one
 * of that host's disk streams, and goes at most at an equal share of the
 * holder's link out and of the reader's link in (net_bw bytes/s each way,
 * shared by the remote reads crossing it). A replica on another VM of the
 * reader's own host is read over the virtual bridge: its own disk, no
 * link. The shuffle loads the reducer's disk and no link.
 *
 * Maps (Hadoop 1.1.1's MapTask.MapOutputBuffer, mapred-default.xml). A
 * map's sort buffer is io.sort.mb scaled by its slot memory (100 MB for the
 * default 200 MB heap); io.sort.record.percent (0.05) of it accounts for
 * records at 16 bytes each, the rest holds their data. Its output, produced
 * evenly over its input, starts a spill whenever 80 % (io.sort.spill.percent)
 * of either part has filled since the last one: small records (wordcount's
 * 12 bytes) spill on the record count long before the data part fills.
 * The spill thread sorts a spill, runs the combiner on it when the job has
 * one (what survives: the benchmark's combine ratio) and writes it, while
 * the map thread goes on reading and computing: those writes are a second
 * I/O stream of the attempt, on the host's disk beside the map's reads. The
 * map thread runs at most one round ahead of the spill thread (it blocks,
 * as Hadoop's collect() does when the buffer is full). Once the input is
 * consumed the map waits for the spill thread, writes the last spill and
 * merges the spills as Hadoop's Merger does with io.sort.factor 10: passes
 * over the smallest spills until at most 10 are left, then one final pass
 * that reads them all and writes the map output file, combining again when
 * there were at least 3 spills (min.num.spills.for.combine). One spill is
 * the output file itself.
 *
 * Reduces (Hadoop 1.1.1's ReduceTask.ReduceCopier). A reduce fetches each
 * map's segment of output as the map finishes (the shuffle: I/O on the
 * reduce's host). Segments go to a buffer of 70 % of its heap
 * (mapred.job.shuffle.input.buffer.percent), or straight to disk when one is
 * larger than a quarter of it; the buffer is merged to a disk file when it
 * is 66 % full (mapred.job.shuffle.merge.percent) or holds 1000 segments
 * (mapred.inmem.merge.threshold), and with 19 files on disk (2 io.sort.factor
 * - 1) the 10 smallest are merged into one: all of it during the shuffle,
 * overlapped with the maps. Once every map's segment is in, what is left in
 * memory goes to disk (mapred.job.reduce.input.buffer.percent is 0) unless
 * 10 or more files are already there, passes merge the files down to 10,
 * and the final merge streams into the reduce: each round reads its share
 * of the files and writes its share of the output, then computes. What a
 * combiner would save on the reduce side is left out, and a reduce's input
 * is what the maps write at the default slot memory.
 *
 * Memory. A VM's committed memory is its OS base plus the heaps of the tasks
 * it runs; beyond the VM's current memory the guest pages, which slows its
 * CPU phases by 1 + memory_penalty * overcommit fraction; the lost time is
 * I/O wait (paging is disk I/O).
 *
 * Rates change only at events (a phase starts or ends, a VM is resized), so
 * between events everything moves linearly and the simulator can compute
 * the exact time each phase ends. */

/* Per-stream bandwidth when streams share a disk of disk_bw bytes/s, each at
 * most stream_bw. */
double disk_share_compute(double disk_bw, double stream_bw, unsigned streams);

/* Sort buffer bytes for a map slot of slot_mem bytes, scaled from the
 * configured (sort_buffer, task_heap) pair. */
double spill_buffer_bytes(double sort_buffer, double task_heap, double slot_mem);

/* Bytes read and written by Hadoop's Merger to bring n segments of the
 * given sizes down to io.sort.factor (10) or fewer, smallest first; sizes
 * are left as the final pass finds them, n updated. */
double merge_passes(double *sizes, size_t *n);

/* What a map writes through its sort buffer. */
typedef struct MapSpillPlan {
        double raw;       /* bytes the map function emits */
        double per_spill; /* raw bytes that start a spill */
        double combine;   /* share of a spill's bytes the combiner keeps (1: no combiner) */
        unsigned spills;  /* spill files, the last one written at the flush */
        double flush;  /* I/O once the input is consumed: last spill, merge passes, final merge */
        double output; /* the map output file, which the reduces fetch */
} MapSpillPlan;

/* The plan of a map emitting raw bytes in records records through a sort
 * buffer of buffer bytes. -ENOMEM, or 0. */
int map_spill_plan(double raw, double records, double buffer, double combine, MapSpillPlan *ret);
/* Bytes the spill thread writes for the spills a map starts while it
 * consumes its input from share from to share to (0..1). */
double map_spill_written(const MapSpillPlan *p, double from, double to);

/* A reduce's shuffle: its buffer, what is in it, and its files on disk. */
#define REDUCE_MAX_FILES 20
typedef struct ReduceShuffle {
        double buffer;     /* bytes of the shuffle buffer */
        double mem;        /* bytes in it */
        unsigned segments; /* segments in it */
        double files[REDUCE_MAX_FILES];
        size_t n_files;
} ReduceShuffle;

void reduce_shuffle_init(ReduceShuffle *s, double heap);
/* Takes count fetched segments of segment bytes each; returns the bytes
 * that writes and merges to disk add to the fetch. */
double reduce_shuffle_fetch(ReduceShuffle *s, double segment, unsigned count);
/* Once everything is fetched: returns the bytes written and merged before
 * the reduce starts, and sets *ret_read to what the final merge reads from
 * disk while it streams into the reduce. */
double reduce_shuffle_finish(ReduceShuffle *s, double *ret_read);

/* CPU slow-down factor of a VM that has committed bytes against mem bytes. */
double memory_slowdown(double committed, double mem, double penalty);

/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* A benchmark as the simulator runs it: how much input, what a map and a
 * reduce cost per byte, and how skewed its splits and records are. Read from
 * a workload file (sim/workloads/; the format is described in
 * sim/workloads/README.md). Costs are for one 2.4 GHz core, the Xeon E5530
 * of the FlexSlot testbed. */
typedef struct Benchmark {
        char name[32];
        double input_bytes;
        double map_cpu_per_mb;    /* CPU seconds per MB of map input */
        double map_output_ratio;  /* map output bytes per input byte */
        double reduce_cpu_per_mb; /* CPU seconds per MB of reduce input */
        double output_ratio;      /* job output bytes per reduce input byte */
        unsigned reduces;
        /* Input skew: a fraction of splits come from files smaller than a
         * block (uniform in [0.1, 1) block), a fraction from unsplittable
         * files larger than one (uniform in (1, large_max_blocks]). */
        double small_frac, large_frac, large_max_blocks;
        /* Expensive records: a fraction of splits cost more CPU and emit more
         * output per byte. */
        double expensive_frac, expensive_cpu, expensive_output;
        /* Map output: bytes per record as the sort buffer holds them (0:
         * records never start a spill), and the share of a spill's bytes
         * the job's combiner keeps (1: the job sets no combiner). */
        double record_bytes, combine_ratio;
        /* RAS's job profile (Polo et al., Table 2), in % of a tracker's
         * capacity used by one task: map, shuffle (I/O per map placed) and
         * reduce; ras_profile says whether the file gives one. */
        double ras_map_cpu, ras_map_io, ras_map_memory, ras_shuffle_io, ras_reduce_cpu,
                ras_reduce_io, ras_reduce_memory;
        bool ras_profile;
} Benchmark;

typedef struct Workload {
        Benchmark *benchmarks;
        size_t n_benchmarks;
} Workload;

/* Parses a workload file. On error returns -EINVAL (or -ENOENT, -ENOMEM)
 * and writes "file:line: message" into err. */
int workload_load(const char *path, Workload *ret, char *err, size_t err_size);
int workload_parse(const char *name, const char *text, Workload *ret, char *err, size_t err_size);
void workload_done(Workload *w);
const Benchmark *workload_find(const Workload *w, const char *name);

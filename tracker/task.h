/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "common/time-util.h"
#include "tracker/app.h"
#include "tracker/sortbuf.h"
#include "mapred/split.h"
#include "tracker/status.h"

/* Running one map or one reduce task in the calling process. The tracker
 * runs each in a child process of its own (tracker/child.h), which is
 * where a memory limit and a kill apply.
 *
 * Map outputs and reduce outputs are published atomically (AtomicFile), so
 * a killed task never leaves a partial output under the final name, and a
 * rerun (the same attempt again, or another attempt of the same task)
 * replaces it with an identical complete file: repeating a finished task
 * is harmless. Reduces read map outputs from files: in this form from the
 * shared data directory the maps wrote them to; a shuffle that fetches them
 * from the tracker that ran the map would copy them into the reduce's work
 * directory first, which the copy phase does already.
 *
 * data_dir: the shared data directory, which the split, the map outputs and
 * the output are paths relative to, each resolved beneath it: no symlink or
 * ".." there leads out (common/beneath.h). NULL: the paths are taken as
 * given, for a task run by hand. */

typedef struct MapTaskSpec {
        const AppOps *app;
        AppConfig app_cfg; /* its split is filled in from split */
        const char *data_dir;
        InputSplit split;
        unsigned reduces;
        uint64_t sort_buffer;
        const char *output;   /* the map output file */
        const char *attempt;  /* tags the temporary output */
        const char *work_dir; /* spills and merges, as unnamed files */
        unsigned factor;      /* io.sort.factor; 0 is the default */
        TaskStatus *status;   /* may be NULL */
} MapTaskSpec;

typedef struct MapTaskReport {
        uint64_t input_bytes, input_records;
        uint64_t output_bytes; /* of the map output file */
        SortBufferStats sort;
        usec_t elapsed;
} MapTaskReport;

int map_task_run(const MapTaskSpec *spec, MapTaskReport *ret);

typedef struct ReduceTaskSpec {
        const AppOps *app;
        AppConfig app_cfg;
        const char *data_dir;
        unsigned partition;
        /* Map output files, or directories standing for the map outputs in
         * them (names beginning with '.' or '_' skipped). */
        char *const *inputs;
        size_t n_inputs;
        const char *output;
        const char *attempt;
        const char *work_dir; /* fetched segments and merges */
        unsigned factor;
        TaskStatus *status;
} ReduceTaskSpec;

typedef struct ReduceTaskReport {
        uint64_t map_outputs;
        uint64_t shuffle_bytes; /* of this partition, over all map outputs */
        uint64_t input_records, groups;
        uint64_t output_records, output_bytes;
        uint64_t merge_passes;
        usec_t elapsed;
} ReduceTaskReport;

int reduce_task_run(const ReduceTaskSpec *spec, ReduceTaskReport *ret);

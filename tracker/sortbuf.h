/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "tracker/app.h"
#include "tracker/status.h"

/* The map side's output collector, as Hadoop 1.1.1's MapOutputBuffer:
 * records are hash-partitioned and collected into a sort buffer of
 * io.sort.mb bytes, of which io.sort.record.percent (5 %) keeps 16 bytes of
 * accounting per record and the rest the record bytes. When either part is
 * io.sort.spill.percent (80 %) full, the buffer is sorted by partition then
 * key, the combiner runs over each partition's groups, and the result is
 * spilled to a file. At the end the spills are merged, io.sort.factor at a
 * time, into one output file with a partition index; with at least
 * min.num.spills.for.combine (3) spills the combiner runs again on the
 * merged stream. Unlike Hadoop, the spill runs in the collecting thread, so
 * the last 20 % is headroom for the record that crosses the threshold, not
 * room to keep collecting while a spill thread writes. */

#define SORT_BUFFER_DEFAULT (100ULL << 20) /* io.sort.mb */
#define SORT_BUFFER_MAX (2047ULL << 20)    /* Hadoop's bound on io.sort.mb */
#define SORT_BUFFER_MIN (64ULL << 10)
#define SORT_SPILL_PERCENT 80         /* io.sort.spill.percent */
#define SORT_RECORD_PERCENT 5         /* io.sort.record.percent */
#define SORT_RECORD_ACCOUNTING 16     /* bytes per record in that part */
#define SORT_MIN_SPILLS_FOR_COMBINE 3 /* min.num.spills.for.combine */

/* The sort buffer of a task whose slot has slot_memory bytes: half of it,
 * as Hadoop 1's defaults give io.sort.mb = 100 MB inside a 200 MB child
 * heap, within [SORT_BUFFER_MIN, SORT_BUFFER_MAX]. The other half is for
 * everything else the task holds (the application, read and write
 * buffers), so more slot memory means a larger buffer and fewer spills. */
uint64_t sort_buffer_for_slot(uint64_t slot_memory);

typedef struct SortBufferOptions {
        uint64_t size; /* in [SORT_BUFFER_MIN, SORT_BUFFER_MAX] */
        unsigned partitions;
        /* The application whose combiner runs on spills; none when NULL or
         * when it has no combiner. */
        const AppOps *app;
        void *app_state;
        const char *work_dir; /* spills and merge passes, as unnamed files */
        unsigned factor;      /* io.sort.factor */
        TaskStatus *status;   /* may be NULL */
} SortBufferOptions;

typedef struct SortBufferStats {
        uint64_t records, bytes;  /* collected */
        uint64_t spills;          /* including the final flush */
        uint64_t spilled_records; /* written to spills, after the combiner */
        uint64_t merge_passes;    /* intermediate passes of the final merge */
} SortBufferStats;

typedef struct SortBuffer SortBuffer;

int sort_buffer_new(const SortBufferOptions *opt, SortBuffer **ret);
/* Where the map function's records go. */
Emitter *sort_buffer_emitter(SortBuffer *b);
/* Flushes and merges everything into a complete map output file written
 * into out_fd from offset 0. */
int sort_buffer_finish(SortBuffer *b, int out_fd);
void sort_buffer_stats(const SortBuffer *b, SortBufferStats *ret);
SortBuffer *sort_buffer_free(SortBuffer *b);
DEFINE_POINTER_CLEANUP_FUNC(SortBuffer, sort_buffer_free);

/* SPDX-License-Identifier: MIT */
#include "host.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"

/* Hadoop 1.1.1's defaults (mapred-default.xml) and constants (MapTask,
 * ReduceTask): io.sort.spill.percent, io.sort.record.percent, the 16 bytes
 * of accounting per record (MapOutputBuffer.RECSIZE), io.sort.factor,
 * min.num.spills.for.combine, mapred.job.shuffle.input.buffer.percent,
 * ReduceCopier's MAX_SINGLE_SHUFFLE_SEGMENT_FRACTION,
 * mapred.job.shuffle.merge.percent and mapred.inmem.merge.threshold. */
#define SPILL_PERCENT 0.8
#define RECORD_PERCENT 0.05
#define RECORD_ACCOUNTING_BYTES 16.0
#define SORT_FACTOR ((size_t)10)
#define MIN_SPILLS_FOR_COMBINE 3
#define SHUFFLE_INPUT_BUFFER 0.70
#define SHUFFLE_SINGLE_SEGMENT 0.25
#define SHUFFLE_MERGE_PERCENT 0.66
#define INMEM_MERGE_THRESHOLD 1000

double disk_share_compute(double disk_bw, double stream_bw, unsigned streams) {
        if (streams == 0)
                return stream_bw;
        return MIN(stream_bw, disk_bw / streams);
}

double spill_buffer_bytes(double sort_buffer, double task_heap, double slot_mem) {
        return sort_buffer * slot_mem / task_heap;
}

static int compare_double(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}

/* Merger.MergeQueue.merge(): the first pass takes just enough segments that
 * every later pass takes io.sort.factor, and each pass the smallest ones
 * (getPassFactor()); the last pass, over at most io.sort.factor, is the
 * caller's. */
double merge_passes(double *sizes, size_t *n) {
        double bytes = 0;
        bool first = true;

        qsort(sizes, *n, sizeof(double), compare_double);
        while (*n > SORT_FACTOR) {
                size_t take = SORT_FACTOR, mod = (*n - 1) % (SORT_FACTOR - 1), pos;
                double merged = 0;

                if (first && mod != 0)
                        take = mod + 1;
                first = false;
                for (size_t i = 0; i < take; i++)
                        merged += sizes[i];
                bytes += 2 * merged; /* read and written once more */
                memmove(sizes, sizes + take, (*n - take) * sizeof(double));
                *n -= take;
                for (pos = 0; pos < *n && sizes[pos] < merged; pos++)
                        ;
                memmove(sizes + pos + 1, sizes + pos, (*n - pos) * sizeof(double));
                sizes[pos] = merged;
                (*n)++;
        }
        return bytes;
}

int map_spill_plan(double raw, double records, double buffer, double combine, MapSpillPlan *ret) {
        /* MapOutputBuffer: recordCapacity = io.sort.mb * record.percent,
         * rounded down to whole 16-byte records; the data part is the rest;
         * each part's soft limit is spill.percent of it. */
        double accounting = floor(buffer * RECORD_PERCENT / RECORD_ACCOUNTING_BYTES);
        double data_limit = (buffer - accounting * RECORD_ACCOUNTING_BYTES) * SPILL_PERCENT;
        double record_limit = accounting * SPILL_PERCENT;
        MapSpillPlan p = { .raw = raw, .combine = combine, .per_spill = data_limit, .spills = 1 };

        if (records > 0 && raw > 0)
                p.per_spill = MIN(data_limit, record_limit * raw / records);
        if (raw > p.per_spill && p.per_spill > 0)
                p.spills = (unsigned)ceil(raw / p.per_spill);
        if (p.spills == 1) {
                p.output = p.flush = combine * raw;
        } else {
                _cleanup_free_ double *sizes = calloc(p.spills, sizeof(double));
                double last = combine * (raw - p.per_spill * (p.spills - 1)), passes;
                size_t n = p.spills;

                if (!sizes)
                        return -ENOMEM;
                for (size_t i = 0; i + 1 < n; i++)
                        sizes[i] = combine * p.per_spill;
                sizes[n - 1] = last;
                passes = merge_passes(sizes, &n);
                p.output = combine * raw;
                if (combine < 1 && p.spills >= MIN_SPILLS_FOR_COMBINE)
                        p.output *= combine;
                p.flush = last + passes + combine * raw + p.output;
        }
        *ret = p;
        return 0;
}

/* Spills started once share x of the input is consumed: one each time the
 * output crosses a multiple of per_spill, except the last, which only the
 * flush starts. */
static double spills_started(const MapSpillPlan *p, double x) {
        if (p->spills <= 1)
                return 0;
        return MIN(floor(x * p->raw / p->per_spill), (double)(p->spills - 1));
}

double map_spill_written(const MapSpillPlan *p, double from, double to) {
        return p->combine * p->per_spill * (spills_started(p, to) - spills_started(p, from));
}

void reduce_shuffle_init(ReduceShuffle *s, double heap) {
        *s = (ReduceShuffle){ .buffer = heap * SHUFFLE_INPUT_BUFFER };
}

/* A new file on disk; LocalFSMerger merges the io.sort.factor smallest into
 * one once there are 2 io.sort.factor - 1. Returns the merge's bytes. */
static double reduce_add_file(ReduceShuffle *s, double bytes) {
        double merged = 0;

        s->files[s->n_files++] = bytes;
        if (s->n_files < 2 * SORT_FACTOR - 1)
                return 0;
        qsort(s->files, s->n_files, sizeof(double), compare_double);
        for (size_t i = 0; i < SORT_FACTOR; i++)
                merged += s->files[i];
        memmove(s->files, s->files + SORT_FACTOR, (s->n_files - SORT_FACTOR) * sizeof(double));
        s->n_files -= SORT_FACTOR;
        s->files[s->n_files++] = merged;
        return 2 * merged;
}

/* From an empty buffer, the segments that fill it to an in-memory merge and
 * the bytes the merge writes. */
static unsigned inmem_run(const ReduceShuffle *s, double segment, double *ret_mem) {
        double mem = 0;
        unsigned n = 0;

        do {
                mem += segment;
                n++;
        } while (mem < s->buffer * SHUFFLE_MERGE_PERCENT && n < INMEM_MERGE_THRESHOLD);
        *ret_mem = mem;
        return n;
}

/* Segment by segment, but that every run from an empty buffer to its merge
 * is the same, so it is added up once: a job of millions of maps leaves
 * each reduce millions of tiny segments. */
double reduce_shuffle_fetch(ReduceShuffle *s, double segment, unsigned count) {
        double bytes = 0, run_mem = 0;
        unsigned run = 0;

        for (unsigned i = 0; i < count; i++) {
                if (segment > s->buffer * SHUFFLE_SINGLE_SEGMENT) {
                        bytes += segment + reduce_add_file(s, segment);
                        continue;
                }
                if (s->mem == 0 && s->segments == 0) {
                        if (run == 0)
                                run = inmem_run(s, segment, &run_mem);
                        if (count - i >= run) {
                                bytes += run_mem + reduce_add_file(s, run_mem);
                                i += run - 1;
                                continue;
                        }
                }
                s->mem += segment;
                s->segments++;
                if (s->mem >= s->buffer * SHUFFLE_MERGE_PERCENT ||
                    s->segments >= INMEM_MERGE_THRESHOLD) {
                        bytes += s->mem + reduce_add_file(s, s->mem);
                        s->mem = 0;
                        s->segments = 0;
                }
        }
        return bytes;
}

double reduce_shuffle_finish(ReduceShuffle *s, double *ret_read) {
        double bytes = 0, read = 0;
        size_t n;

        /* createKVIterator(): memory is kept for the final merge only when
         * there are io.sort.factor files already. */
        if (s->mem > 0 && s->n_files < SORT_FACTOR) {
                bytes += s->mem;
                s->files[s->n_files++] = s->mem;
                s->mem = 0;
        }
        n = s->n_files;
        bytes += merge_passes(s->files, &n);
        s->n_files = n;
        for (size_t i = 0; i < n; i++)
                read += s->files[i];
        *ret_read = read;
        return bytes;
}

double memory_slowdown(double committed, double mem, double penalty) {
        if (committed <= mem || mem <= 0)
                return 1.0;
        return 1.0 + penalty * (committed - mem) / mem;
}

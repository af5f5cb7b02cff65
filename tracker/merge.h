/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/macro.h"
#include "tracker/record.h"

/* io.sort.factor: streams merged at once, map side and reduce side. */
#define MERGE_FACTOR_DEFAULT 10U

/* Merges sorted streams into one sorted stream. On equal keys the earlier
 * input comes first, so values keep the order of the spills. The inputs are
 * borrowed. */
typedef struct Merger {
        RecordStream stream;
        RecordStream **inputs;
        size_t n;
        size_t *heap;
        size_t heap_len;
        bool started;
} Merger;

int merger_init(Merger *m, RecordStream **inputs, size_t n);
void merger_done(Merger *m);

/* Groups a sorted stream by key, for combine and reduce. */
typedef struct Grouper {
        ValueIter values;
        RecordStream *in;
        uint8_t *key;
        size_t klen, kcap;
        bool pending;     /* in's current record is unread and starts the next group */
        bool first;       /* the group's first value is in's current record */
        bool in_group;    /* the current group may have more values */
        uint64_t records; /* records taken from in so far */
} Grouper;

void grouper_init(Grouper *g, RecordStream *in);
/* 1 with the next key and its values (the key is valid until the next
 * call; values the function did not read are skipped), 0 at the end, or a
 * negative errno. */
int grouper_next(Grouper *g, const uint8_t **key, size_t *klen, ValueIter **values);
void grouper_done(Grouper *g);

typedef int (*GroupFunc)(void *state, const uint8_t *key, size_t klen, ValueIter *values,
                         Emitter *out);
/* Runs fn on every group of in. */
int group_run(RecordStream *in, GroupFunc fn, void *state, Emitter *out);

typedef struct MergeOptions {
        unsigned factor;      /* >= 2 */
        const char *work_dir; /* intermediate passes write scratch files here */
        /* Called as intermediate passes progress; may be NULL. */
        void (*progress)(void *userdata, uint64_t done, uint64_t total);
        void *userdata;
} MergeOptions;

/* Hadoop's Merger: while more than factor segments remain, the smallest are
 * merged into one on disk (the first pass takes just enough that every
 * later pass merges exactly factor), then the last factor or fewer are
 * merged as a stream. Empty segments are dropped first. */
typedef struct MergeRun MergeRun;

int merge_run_open(const Segment *segs, size_t n, const MergeOptions *opt, MergeRun **ret);
RecordStream *merge_run_stream(MergeRun *m);
/* Intermediate passes made, and the bytes they wrote. */
uint64_t merge_run_passes(const MergeRun *m);
uint64_t merge_run_bytes(const MergeRun *m);
MergeRun *merge_run_free(MergeRun *m);
DEFINE_POINTER_CLEANUP_FUNC(MergeRun, merge_run_free);

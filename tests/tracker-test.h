/* SPDX-License-Identifier: MIT */
#pragma once

/* Helpers of the tracker's test suites: records held in memory, as an
 * emitter and as a stream, and small files. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracker/record.h"

typedef struct TestRecord {
        uint8_t *key, *val;
        size_t klen, vlen;
} TestRecord;

/* An emitter that keeps what it gets. */
typedef struct RecordList {
        Emitter emitter;
        TestRecord *r;
        size_t n, cap;
        char *joined;
} RecordList;

int record_list_emit(Emitter *e, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen);
#define RECORD_LIST_INIT \
        { .emitter.emit = record_list_emit }

void record_list_add(RecordList *l, const void *key, size_t klen, const void *val, size_t vlen);
/* Appends all records of s; 0 or the stream's error. */
int record_list_drain(RecordList *l, RecordStream *s);
/* "key=value key=value ...", valid until the list changes. */
const char *record_list_join(RecordList *l);
/* By key; equal keys in no particular order. */
void record_list_sort(RecordList *l);
void record_list_assert_equal(const RecordList *got, const RecordList *want);
/* Frees the records; the list is empty and usable again. */
void record_list_done(RecordList *l);

typedef struct ListStream {
        RecordStream stream;
        const RecordList *l;
        size_t i;
} ListStream;

void list_stream_init(ListStream *s, const RecordList *l);

void test_write_file(const char *path, const void *data, size_t len);
/* The file's text, in a buffer valid until the next call. */
const char *test_read_file(const char *path);

/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Records are (key, value) pairs of bytes. Between map and reduce they live
 * in segments: runs of records sorted by key, each encoded as
 * varint(key length) varint(value length) key value, the way Hadoop's IFile
 * stores them. A segment is a byte range of a file whose record count is
 * known from an index, so it needs no end marker. */

#define container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

/* Longest key or value, and longest input or output line: a bound on what a
 * single record may make a task allocate. */
#define RECORD_FIELD_MAX (64U << 20)

/* Where map, combine and reduce functions send their output. */
typedef struct Emitter Emitter;
struct Emitter {
        int (*emit)(Emitter *e, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen);
};

static inline int emitter_emit(Emitter *e, const void *key, size_t klen, const void *val,
                               size_t vlen) {
        return e->emit(e, key, klen, val, vlen);
}

/* A source of records. next() returns 1 with key and val set (valid until
 * the following call), 0 at the end (and again on every later call), or a
 * negative errno. */
typedef struct RecordStream RecordStream;
struct RecordStream {
        int (*next)(RecordStream *s);
        const uint8_t *key, *val;
        size_t klen, vlen;
};

/* The values of one key, for combine and reduce: next() returns 1 with the
 * value set (valid until the following call), 0 after the last one, or a
 * negative errno. */
typedef struct ValueIter ValueIter;
struct ValueIter {
        int (*next)(ValueIter *it, const uint8_t **val, size_t *vlen);
};

/* Key order: bytes compared as unsigned, a prefix first (Hadoop's Text
 * comparator, and `LC_ALL=C sort`). */
int record_key_compare(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* Hadoop's HashPartitioner over Text keys: (hash & INT_MAX) % partitions,
 * with Text's hash (31 * h + signed byte, from 1), so a key lands in the
 * same partition as it would in Hadoop. */
unsigned record_partition(const uint8_t *key, size_t klen, unsigned partitions);

/* A sorted run of records in a file. fd and name are borrowed; name is for
 * error messages. */
typedef struct Segment {
        int fd;
        uint64_t offset, length, records;
        const char *name;
} Segment;

/* Buffered writes at increasing offsets of a file (pwrite, so several
 * writers may share one descriptor at different places). */
typedef struct BufWriter {
        int fd;
        uint64_t offset; /* file offset of buf[0] */
        uint8_t *buf;
        size_t len, cap;
} BufWriter;

int buf_writer_init(BufWriter *w, int fd, uint64_t offset);
int buf_writer_write(BufWriter *w, const void *data, size_t n);
int buf_writer_flush(BufWriter *w);
static inline uint64_t buf_writer_tell(const BufWriter *w) {
        return w->offset + w->len;
}
void buf_writer_done(BufWriter *w);

/* Appends one segment to a BufWriter; as an Emitter it takes records in key
 * order (the caller's duty: writing does not compare keys). */
typedef struct SegmentWriter {
        Emitter emitter;
        BufWriter *out;
        uint64_t start, records;
} SegmentWriter;

void segment_writer_begin(SegmentWriter *sw, BufWriter *out);
/* The segment written since begin; its fd is the BufWriter's. */
void segment_writer_end(SegmentWriter *sw, Segment *ret);

/* Reads a segment back as a RecordStream, checking that every record lies
 * inside it and that the count matches: a truncated or corrupt map output
 * is an error naming the segment's file (-EBADMSG), never garbage records. */
typedef struct SegmentReader {
        RecordStream stream;
        Segment seg;
        uint64_t pos;      /* next file offset to read */
        uint64_t left;     /* records still to return */
        uint64_t consumed; /* bytes of the segment returned so far */
        uint8_t *buf;
        size_t start, len, cap;
} SegmentReader;

int segment_reader_init(SegmentReader *r, const Segment *seg);
void segment_reader_done(SegmentReader *r);

/* Reads exactly n bytes at offset; a file that ends before is -EBADMSG. */
int file_pread_exact(int fd, void *buf, size_t n, uint64_t offset);

/* Copies a byte range between files (copy_file_range where the kernel can,
 * else read and write). */
int file_copy_range(int from_fd, uint64_t from, int to_fd, uint64_t to, uint64_t length);

/* Opens an anonymous file for scratch data in dir: it has no name, so it
 * vanishes with the descriptor, even when the task is killed. */
int scratch_file_open(const char *dir, int *ret_fd);

/* Parses a decimal count from bytes (no sign, no space); -EINVAL or
 * -ERANGE otherwise. */
int record_parse_u64(const uint8_t *s, size_t n, uint64_t *ret);

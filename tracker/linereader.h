/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mapred/split.h"

/* A map task's records: the lines of its split, as Hadoop 1.x's
 * TextInputFormat reads them. */

/* Reads a split's lines as Hadoop's LineRecordReader does: a split that
 * does not start at 0 skips everything up to and including the first '\n'
 * at or after offset - 1, and a line is read if it starts before the
 * split's end, so its last line runs past the end. Every line of a file is
 * thus read by exactly one split. A line ends at '\n'; one '\r' before it
 * is dropped (a lone '\r' does not end a line, unlike Hadoop's reader). */
typedef struct LineReader {
        int fd;
        char *path;
        uint64_t start, end;
        uint64_t pos; /* file offset of buf[head] */
        uint8_t *buf;
        size_t head, len, cap;
        bool eof, started;
} LineReader;

/* The split's file opened as task_file_open() (common/fileio.h) opens it:
 * beneath dir_fd unless that is AT_FDCWD. */
int line_reader_open(int dir_fd, const InputSplit *split, LineReader *ret);
/* 1 with the next line (valid until the next call) and its file offset, 0
 * after the split's last line, or a negative errno (a line longer than
 * RECORD_FIELD_MAX is -E2BIG). */
int line_reader_next(LineReader *r, const uint8_t **line, size_t *len, uint64_t *offset);
/* Bytes of the split consumed so far, at most its length. */
uint64_t line_reader_consumed(const LineReader *r);
void line_reader_close(LineReader *r);

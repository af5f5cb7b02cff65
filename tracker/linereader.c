/* SPDX-License-Identifier: MIT */
#include "linereader.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/log.h"
#include "common/macro.h"
#include "tracker/record.h"

#define READ_CHUNK (256U << 10)

int line_reader_open(int dir_fd, const InputSplit *split, LineReader *ret) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *path = NULL;
        _cleanup_free_ uint8_t *buf = NULL;
        struct stat st;

        /* O_NONBLOCK: a FIFO put in the data directory must not hang the
         * open; it is refused below, as anything but a file is. */
        fd = task_file_open(dir_fd, split->path, O_RDONLY | O_NONBLOCK, 0, "input");
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return log_error_errno(-errno, "Cannot stat input %s", split->path);
        if (!S_ISREG(st.st_mode))
                return log_error_errno(-EINVAL, "Input %s is not a regular file", split->path);
        if (split->offset + split->length > (uint64_t)st.st_size)
                return log_error_errno(-EINVAL,
                                       "Split %s:%" PRIu64 ":%" PRIu64
                                       " runs past the end of the file (%" PRIu64 " bytes)",
                                       split->path, split->offset, split->length,
                                       (uint64_t)st.st_size);
        path = strdup(split->path);
        buf = malloc(READ_CHUNK);
        if (!path || !buf)
                return -ENOMEM;
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
        *ret = (LineReader){
                .fd = TAKE_FD(fd),
                .path = TAKE_PTR(path),
                .start = split->offset,
                .end = split->offset + split->length,
                /* Back up one byte, so that a line starting exactly at the
                 * split's start is kept: only a partial line is skipped. */
                .pos = split->offset > 0 ? split->offset - 1 : 0,
                .buf = TAKE_PTR(buf),
                .cap = READ_CHUNK,
                .started = split->offset == 0,
        };
        return 0;
}

/* Reads more after the buffered bytes, moving them to the front first and
 * growing the buffer when it is full of one line. */
static int line_reader_fill(LineReader *r) {
        ssize_t k;

        if (r->head > 0) {
                memmove(r->buf, r->buf + r->head, r->len - r->head);
                r->len -= r->head;
                r->head = 0;
        }
        if (r->len == r->cap) {
                size_t cap = 2 * r->cap;
                uint8_t *buf;

                if (r->len > RECORD_FIELD_MAX)
                        return log_error_errno(
                                -E2BIG, "%s: the line at byte %" PRIu64 " is longer than %u bytes",
                                r->path, r->pos, RECORD_FIELD_MAX);
                buf = realloc(r->buf, cap);
                if (!buf)
                        return -ENOMEM;
                r->buf = buf;
                r->cap = cap;
        }
        do
                k = pread(r->fd, r->buf + r->len, r->cap - r->len, (off_t)(r->pos + r->len));
        while (k < 0 && errno == EINTR);
        if (k < 0)
                return log_error_errno(-errno, "Cannot read %s", r->path);
        if (k == 0)
                r->eof = true;
        r->len += (size_t)k;
        return 0;
}

/* The next raw line from pos: 1 with it (without its '\n'), 0 at the end of
 * the file. pos moves past it. */
static int line_reader_raw(LineReader *r, const uint8_t **line, size_t *len) {
        size_t scanned = 0;

        for (;;) {
                size_t avail = r->len - r->head;
                uint8_t *nl = memchr(r->buf + r->head + scanned, '\n', avail - scanned);
                size_t n, used;
                int k;

                if (nl || (r->eof && avail > 0)) {
                        n = nl ? (size_t)(nl - (r->buf + r->head)) : avail;
                        used = nl ? n + 1 : n;
                        if (n > RECORD_FIELD_MAX)
                                return log_error_errno(-E2BIG,
                                                       "%s: the line at byte %" PRIu64
                                                       " is longer than %u bytes",
                                                       r->path, r->pos, RECORD_FIELD_MAX);
                        *line = r->buf + r->head;
                        *len = n;
                        r->head += used;
                        r->pos += used;
                        return 1;
                }
                if (r->eof)
                        return 0;
                scanned = avail;
                k = line_reader_fill(r);
                if (k < 0)
                        return k;
        }
}

int line_reader_next(LineReader *r, const uint8_t **line, size_t *len, uint64_t *offset) {
        const uint8_t *l = NULL;
        size_t n = 0;
        uint64_t at;
        int k;

        if (!r->started) {
                r->started = true;
                k = line_reader_raw(r, &l, &n);
                if (k <= 0)
                        return k;
        }
        if (r->pos >= r->end)
                return 0;
        at = r->pos;
        k = line_reader_raw(r, &l, &n);
        if (k <= 0)
                return k;
        if (n > 0 && l[n - 1] == '\r')
                n--;
        *line = l;
        *len = n;
        *offset = at;
        return 1;
}

uint64_t line_reader_consumed(const LineReader *r) {
        if (r->pos <= r->start)
                return 0;
        return MIN(r->pos, r->end) - r->start;
}

void line_reader_close(LineReader *r) {
        if (r->fd >= 0)
                close(r->fd);
        r->fd = -1;
        free(r->buf);
        r->buf = NULL;
        free(r->path);
        r->path = NULL;
}

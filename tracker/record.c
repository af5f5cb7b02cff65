/* SPDX-License-Identifier: MIT */
#include "record.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macro.h"

#define WRITE_BUFFER_SIZE (256U << 10)
#define READ_BUFFER_SIZE (128U << 10)
#define COPY_CHUNK (1U << 20)
/* A length fits in 32 bits, so its varint in 5 bytes. */
#define VARINT_MAX_BYTES 5

int record_key_compare(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
        size_t n = MIN(alen, blen);
        /* An empty key may have no buffer at all (the grouper's first):
         * memcmp() must not see its NULL, even for 0 bytes. */
        int c = n > 0 ? memcmp(a, b, n) : 0;

        if (c != 0)
                return c;
        return alen < blen ? -1 : alen > blen ? 1 : 0;
}

unsigned record_partition(const uint8_t *key, size_t klen, unsigned partitions) {
        /* Java's int arithmetic wraps; unsigned arithmetic gives the same
         * bits without C's signed overflow. */
        uint32_t h = 1;

        for (size_t i = 0; i < klen; i++)
                h = 31U * h + (uint32_t)(int32_t)(int8_t)key[i];
        return (h & (uint32_t)INT32_MAX) % partitions;
}

int buf_writer_init(BufWriter *w, int fd, uint64_t offset) {
        uint8_t *buf = malloc(WRITE_BUFFER_SIZE);

        if (!buf)
                return -ENOMEM;
        *w = (BufWriter){ .fd = fd, .offset = offset, .buf = buf, .cap = WRITE_BUFFER_SIZE };
        return 0;
}

static int pwrite_all(int fd, const uint8_t *p, size_t n, uint64_t offset) {
        while (n > 0) {
                ssize_t k = pwrite(fd, p, n, (off_t)offset);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                p += k;
                n -= (size_t)k;
                offset += (uint64_t)k;
        }
        return 0;
}

int buf_writer_flush(BufWriter *w) {
        int r;

        if (w->len == 0)
                return 0;
        r = pwrite_all(w->fd, w->buf, w->len, w->offset);
        if (r < 0)
                return r;
        w->offset += w->len;
        w->len = 0;
        return 0;
}

int buf_writer_write(BufWriter *w, const void *data, size_t n) {
        const uint8_t *p = data;
        int r;

        if (n == 0)
                return 0;
        if (w->len + n <= w->cap) {
                memcpy(w->buf + w->len, p, n);
                w->len += n;
                return 0;
        }
        r = buf_writer_flush(w);
        if (r < 0)
                return r;
        if (n >= w->cap) {
                r = pwrite_all(w->fd, p, n, w->offset);
                if (r < 0)
                        return r;
                w->offset += n;
                return 0;
        }
        memcpy(w->buf, p, n);
        w->len = n;
        return 0;
}

void buf_writer_done(BufWriter *w) {
        free(w->buf);
        *w = (BufWriter){ .fd = -1 };
}

static size_t varint_encode(uint64_t v, uint8_t *out) {
        size_t n = 0;

        while (v >= 0x80) {
                out[n++] = (uint8_t)(v | 0x80);
                v >>= 7;
        }
        out[n++] = (uint8_t)v;
        return n;
}

/* 1 with the value and its size, 0 when more bytes are needed, -EBADMSG
 * when it is longer than a 32-bit length may be. */
static int varint_decode(const uint8_t *p, size_t n, uint64_t *ret, size_t *ret_size) {
        uint64_t v = 0;

        for (size_t i = 0; i < MIN(n, (size_t)VARINT_MAX_BYTES); i++) {
                v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
                if (!(p[i] & 0x80)) {
                        if (v > UINT32_MAX)
                                return -EBADMSG;
                        *ret = v;
                        *ret_size = i + 1;
                        return 1;
                }
        }
        return n >= VARINT_MAX_BYTES ? -EBADMSG : 0;
}

static int segment_writer_emit(Emitter *e, const uint8_t *key, size_t klen, const uint8_t *val,
                               size_t vlen) {
        SegmentWriter *sw = container_of(e, SegmentWriter, emitter);
        uint8_t head[2 * VARINT_MAX_BYTES];
        size_t n;
        int r;

        if (klen > RECORD_FIELD_MAX || vlen > RECORD_FIELD_MAX)
                return -E2BIG;
        n = varint_encode(klen, head);
        n += varint_encode(vlen, head + n);
        r = buf_writer_write(sw->out, head, n);
        if (r >= 0)
                r = buf_writer_write(sw->out, key, klen);
        if (r >= 0)
                r = buf_writer_write(sw->out, val, vlen);
        if (r < 0)
                return r;
        sw->records++;
        return 0;
}

void segment_writer_begin(SegmentWriter *sw, BufWriter *out) {
        *sw = (SegmentWriter){
                .emitter.emit = segment_writer_emit,
                .out = out,
                .start = buf_writer_tell(out),
        };
}

void segment_writer_end(SegmentWriter *sw, Segment *ret) {
        *ret = (Segment){
                .fd = sw->out->fd,
                .offset = sw->start,
                .length = buf_writer_tell(sw->out) - sw->start,
                .records = sw->records,
        };
}

/* Moves the unread bytes to the front and reads until at least want bytes
 * are buffered or the segment ends. */
static int segment_reader_fill(SegmentReader *r, size_t want) {
        uint64_t end = r->seg.offset + r->seg.length;

        if (r->start > 0) {
                memmove(r->buf, r->buf + r->start, r->len - r->start);
                r->len -= r->start;
                r->start = 0;
        }
        if (want > r->cap) {
                size_t cap = MAX(want, 2 * r->cap);
                uint8_t *buf = realloc(r->buf, cap);
                if (!buf)
                        return -ENOMEM;
                r->buf = buf;
                r->cap = cap;
        }
        while (r->len < want && r->pos < end) {
                size_t n = (size_t)MIN((uint64_t)(r->cap - r->len), end - r->pos);
                ssize_t k = pread(r->seg.fd, r->buf + r->len, n, (off_t)r->pos);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return log_error_errno(-errno, "%s: cannot read", r->seg.name);
                }
                if (k == 0)
                        return log_error_errno(-EBADMSG, "%s: ends inside a segment (truncated?)",
                                               r->seg.name);
                r->len += (size_t)k;
                r->pos += (uint64_t)k;
        }
        return 0;
}

static int segment_reader_corrupt(SegmentReader *r, const char *what) {
        return log_error_errno(-EBADMSG, "%s: corrupt segment at byte %" PRIu64 ": %s", r->seg.name,
                               r->seg.offset + r->consumed, what);
}

static int segment_reader_next(RecordStream *s) {
        SegmentReader *r = container_of(s, SegmentReader, stream);
        uint64_t klen, vlen;
        size_t kn, vn, head;
        int k;

        if (r->left == 0) {
                if (r->consumed != r->seg.length)
                        return segment_reader_corrupt(r, "bytes after the last record");
                return 0;
        }
        for (;;) {
                const uint8_t *p = r->buf + r->start;
                size_t avail = r->len - r->start;

                k = varint_decode(p, avail, &klen, &kn);
                if (k > 0)
                        k = varint_decode(p + kn, avail - kn, &vlen, &vn);
                if (k < 0)
                        return segment_reader_corrupt(r, "bad length");
                if (k > 0)
                        break;
                if (r->consumed + avail >= r->seg.length)
                        return segment_reader_corrupt(r, "record header cut off");
                k = segment_reader_fill(r, avail + 2 * VARINT_MAX_BYTES);
                if (k < 0)
                        return k;
        }
        head = kn + vn;
        if (klen > RECORD_FIELD_MAX || vlen > RECORD_FIELD_MAX ||
            head + klen + vlen > r->seg.length - r->consumed)
                return segment_reader_corrupt(r, "record runs past the segment's end");
        if (r->len - r->start < head + klen + vlen) {
                k = segment_reader_fill(r, head + (size_t)(klen + vlen));
                if (k < 0)
                        return k;
        }
        s->key = r->buf + r->start + head;
        s->klen = (size_t)klen;
        s->val = s->key + klen;
        s->vlen = (size_t)vlen;
        r->start += head + (size_t)(klen + vlen);
        r->consumed += head + klen + vlen;
        r->left--;
        return 1;
}

int segment_reader_init(SegmentReader *r, const Segment *seg) {
        uint8_t *buf = malloc(READ_BUFFER_SIZE);

        if (!buf)
                return -ENOMEM;
        *r = (SegmentReader){
                .stream.next = segment_reader_next,
                .seg = *seg,
                .pos = seg->offset,
                .left = seg->records,
                .buf = buf,
                .cap = READ_BUFFER_SIZE,
        };
        return 0;
}

void segment_reader_done(SegmentReader *r) {
        free(r->buf);
        r->buf = NULL;
}

/* copy_file_range refuses across file systems and on some of them. */
static bool copy_needs_fallback(int error) {
        return error == EXDEV || error == EINVAL || error == ENOSYS || error == EOPNOTSUPP ||
               error == EBADF;
}

/* O_TMPFILE is refused where the file system lacks it. */
static bool tmpfile_unsupported(int error) {
        return error == EOPNOTSUPP || error == EISDIR || error == EINVAL;
}

int file_copy_range(int from_fd, uint64_t from, int to_fd, uint64_t to, uint64_t length) {
        _cleanup_free_ uint8_t *buf = NULL;
        loff_t in = (loff_t)from, out = (loff_t)to;

        while (length > 0) {
                ssize_t k = copy_file_range(from_fd, &in, to_fd, &out,
                                            (size_t)MIN(length, (uint64_t)SSIZE_MAX), 0);
                if (k > 0) {
                        length -= (uint64_t)k;
                        continue;
                }
                if (k == 0)
                        return -EBADMSG;
                if (errno == EINTR)
                        continue;
                /* Across file systems, or one that cannot: copy by hand. */
                if (!copy_needs_fallback(errno))
                        return negative_errno();
                break;
        }
        if (length == 0)
                return 0;
        buf = malloc(COPY_CHUNK);
        if (!buf)
                return -ENOMEM;
        while (length > 0) {
                size_t n = (size_t)MIN(length, (uint64_t)COPY_CHUNK);
                int r = file_pread_exact(from_fd, buf, n, (uint64_t)in);

                if (r >= 0)
                        r = pwrite_all(to_fd, buf, n, (uint64_t)out);
                if (r < 0)
                        return r;
                in += (loff_t)n;
                out += (loff_t)n;
                length -= n;
        }
        return 0;
}

int file_pread_exact(int fd, void *buf, size_t n, uint64_t offset) {
        uint8_t *p = buf;

        while (n > 0) {
                ssize_t k = pread(fd, p, n, (off_t)offset);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (k == 0)
                        return -EBADMSG;
                p += k;
                n -= (size_t)k;
                offset += (uint64_t)k;
        }
        return 0;
}

int scratch_file_open(const char *dir, int *ret_fd) {
        _cleanup_free_ char *path = NULL;
        int fd;

        fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0) {
                *ret_fd = fd;
                return 0;
        }
        /* File systems without O_TMPFILE (NFS, 9p): a name, removed at once. */
        if (!tmpfile_unsupported(errno))
                return log_error_errno(-errno, "Cannot create a scratch file in %s", dir);
        if (asprintf(&path, "%s/.flexslot-scratch-XXXXXX", dir) < 0) {
                path = NULL; /* undefined after a failed asprintf */
                return -ENOMEM;
        }
        fd = mkostemp(path, O_CLOEXEC);
        if (fd < 0)
                return log_error_errno(-errno, "Cannot create a scratch file in %s", dir);
        (void)unlink(path);
        *ret_fd = fd;
        return 0;
}

int record_parse_u64(const uint8_t *s, size_t n, uint64_t *ret) {
        uint64_t v = 0;

        if (n == 0)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                unsigned d;

                if (s[i] < '0' || s[i] > '9')
                        return -EINVAL;
                d = (unsigned)(s[i] - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        *ret = v;
        return 0;
}

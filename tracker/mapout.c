/* SPDX-License-Identifier: MIT */
#include "mapout.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/fileio.h"

#define MAP_OUTPUT_VERSION 1U
#define INDEX_ENTRY_SIZE 24U
#define TRAILER_SIZE 24U

static const char map_output_magic[8] = { 'F', 'S', 'L', 'O', 'T', 'M', 'A', 'P' };

int map_output_writer_init(MapOutputWriter *w, int fd, unsigned partitions) {
        Segment *index;
        int r;

        if (partitions == 0 || partitions > MAP_OUTPUT_PARTITIONS_MAX)
                return -EINVAL;
        index = calloc(partitions, sizeof(Segment));
        if (!index)
                return -ENOMEM;
        *w = (MapOutputWriter){ .partitions = partitions, .index = index };
        r = buf_writer_init(&w->out, fd, 0);
        if (r < 0) {
                free(index);
                w->index = NULL;
                return r;
        }
        return 0;
}

Emitter *map_output_writer_begin(MapOutputWriter *w) {
        segment_writer_begin(&w->seg, &w->out);
        return &w->seg.emitter;
}

void map_output_writer_end(MapOutputWriter *w) {
        segment_writer_end(&w->seg, &w->index[w->next]);
        w->next++;
}

static void put_le64(uint8_t *p, uint64_t v) {
        v = htole64(v);
        memcpy(p, &v, sizeof(v));
}

static uint64_t get_le64(const uint8_t *p) {
        uint64_t v;

        memcpy(&v, p, sizeof(v));
        return le64toh(v);
}

static uint32_t get_le32(const uint8_t *p) {
        uint32_t v;

        memcpy(&v, p, sizeof(v));
        return le32toh(v);
}

int map_output_writer_finish(MapOutputWriter *w) {
        uint8_t entry[INDEX_ENTRY_SIZE], trailer[TRAILER_SIZE];
        uint64_t index_offset = buf_writer_tell(&w->out);
        uint32_t v;
        int r;

        if (w->next != w->partitions)
                return -EINVAL;
        for (unsigned p = 0; p < w->partitions; p++) {
                put_le64(entry, w->index[p].offset);
                put_le64(entry + 8, w->index[p].length);
                put_le64(entry + 16, w->index[p].records);
                r = buf_writer_write(&w->out, entry, sizeof(entry));
                if (r < 0)
                        return r;
        }
        put_le64(trailer, index_offset);
        v = htole32(w->partitions);
        memcpy(trailer + 8, &v, 4);
        v = htole32(MAP_OUTPUT_VERSION);
        memcpy(trailer + 12, &v, 4);
        memcpy(trailer + 16, map_output_magic, sizeof(map_output_magic));
        r = buf_writer_write(&w->out, trailer, sizeof(trailer));
        if (r < 0)
                return r;
        return buf_writer_flush(&w->out);
}

void map_output_writer_done(MapOutputWriter *w) {
        buf_writer_done(&w->out);
        free(w->index);
        w->index = NULL;
}

static int map_output_bad(const char *path, const char *what) {
        return log_error_errno(-EBADMSG, "%s: not a valid map output: %s", path, what);
}

static int map_output_read_index(MapOutput *m, uint64_t size) {
        uint8_t trailer[TRAILER_SIZE];
        _cleanup_free_ uint8_t *raw = NULL;
        uint64_t index_offset, expect = 0;
        unsigned partitions;
        int r;

        if (size < TRAILER_SIZE)
                return map_output_bad(m->path, "shorter than its trailer");
        r = file_pread_exact(m->fd, trailer, sizeof(trailer), size - TRAILER_SIZE);
        if (r < 0)
                return log_error_errno(r, "%s: cannot read", m->path);
        if (memcmp(trailer + 16, map_output_magic, sizeof(map_output_magic)) != 0)
                return map_output_bad(m->path, "no trailer (truncated or another kind of file)");
        if (get_le32(trailer + 12) != MAP_OUTPUT_VERSION)
                return map_output_bad(m->path, "unknown version");
        partitions = get_le32(trailer + 8);
        index_offset = get_le64(trailer);
        if (partitions == 0 || partitions > MAP_OUTPUT_PARTITIONS_MAX)
                return map_output_bad(m->path, "partition count out of range");
        if (index_offset > size - TRAILER_SIZE ||
            size - TRAILER_SIZE - index_offset != (uint64_t)partitions * INDEX_ENTRY_SIZE)
                return map_output_bad(m->path, "index does not end at the trailer");

        raw = malloc((size_t)partitions * INDEX_ENTRY_SIZE);
        m->index = calloc(partitions, sizeof(Segment));
        if (!raw || !m->index)
                return -ENOMEM;
        r = file_pread_exact(m->fd, raw, (size_t)partitions * INDEX_ENTRY_SIZE, index_offset);
        if (r < 0)
                return log_error_errno(r, "%s: cannot read its index", m->path);
        for (unsigned p = 0; p < partitions; p++) {
                const uint8_t *e = raw + (size_t)p * INDEX_ENTRY_SIZE;
                Segment *s = &m->index[p];

                *s = (Segment){
                        .fd = m->fd,
                        .offset = get_le64(e),
                        .length = get_le64(e + 8),
                        .records = get_le64(e + 16),
                        .name = m->path,
                };
                /* Every record takes at least two bytes of lengths. */
                if (s->offset != expect || s->length > index_offset - expect ||
                    s->records > s->length / 2)
                        return map_output_bad(m->path, "index entries do not tile the data");
                expect += s->length;
        }
        if (expect != index_offset)
                return map_output_bad(m->path, "index entries do not tile the data");
        m->partitions = partitions;
        return 0;
}

static MapOutput *map_output_new(const char *path) {
        MapOutput *m = calloc(1, sizeof(*m));

        if (!m)
                return NULL;
        m->fd = -1;
        m->path = strdup(path);
        return m->path ? m : map_output_free(m);
}

int map_output_open(int dir_fd, const char *path, MapOutput **ret) {
        _cleanup_(map_output_freep) MapOutput *m = map_output_new(path);
        struct stat st;
        int r;

        if (!m)
                return -ENOMEM;
        /* O_NONBLOCK: a FIFO in its place must not hang the task. */
        m->fd = task_file_open(dir_fd, path, O_RDONLY | O_NONBLOCK, 0, "map output");
        if (m->fd < 0)
                return m->fd;
        if (fstat(m->fd, &st) < 0)
                return log_error_errno(-errno, "Cannot stat %s", path);
        if (!S_ISREG(st.st_mode))
                return log_error_errno(-EINVAL, "%s: not a regular file", path);
        r = map_output_read_index(m, (uint64_t)st.st_size);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(m);
        return 0;
}

MapOutput *map_output_free(MapOutput *m) {
        if (!m)
                return NULL;
        if (m->fd >= 0)
                close(m->fd);
        free(m->index);
        free(m->path);
        free(m);
        return NULL;
}

int atomic_file_tmp_name(const char *path, const char *tag, char **ret) {
        const char *slash = strrchr(path, '/');
        int k;

        if (!*path || (slash && !slash[1])) {
                log_error("Output '%s' is not a file name", path);
                return -EINVAL;
        }
        if (slash)
                k = asprintf(ret, "%.*s/.%s.tmp-%s", (int)(slash - path), path, slash + 1, tag);
        else
                k = asprintf(ret, ".%s.tmp-%s", path, tag);
        return k < 0 ? -ENOMEM : 0;
}

static const char *last_component(const char *path) {
        const char *slash = strrchr(path, '/');

        return slash ? slash + 1 : path;
}

/* The directory path's last component is in, opened as task_file_open()
 * opens files. */
static int open_parent_dir(int dir_fd, const char *path) {
        const char *slash = strrchr(path, '/');
        _cleanup_free_ char *parent = NULL;

        parent = !slash          ? strdup(".")
                 : slash == path ? strdup("/")
                                 : strndup(path, (size_t)(slash - path));
        if (!parent)
                return -ENOMEM;
        return task_file_open(dir_fd, parent, O_RDONLY | O_DIRECTORY, 0, "output directory");
}

int atomic_file_open(int dir_fd, const char *path, const char *tag, AtomicFile *ret) {
        _cleanup_free_ char *tmp = NULL;
        _cleanup_close_ int dir = -1;
        char *final;
        int fd, r;

        r = atomic_file_tmp_name(path, tag, &tmp);
        if (r < 0) {
                tmp = NULL; /* undefined after a failed asprintf */
                return r;
        }
        dir = open_parent_dir(dir_fd, path);
        if (dir < 0)
                return dir;
        /* A rerun's leftover goes, and so does anything planted under the
         * temporary name: the file is always a new one. */
        if (unlinkat(dir, last_component(tmp), 0) < 0 && errno != ENOENT)
                return log_error_errno(-errno, "Cannot remove %s", tmp);
        fd = openat(dir, last_component(tmp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    ATOMIC_FILE_MODE);
        if (fd < 0)
                return log_error_errno(-errno, "Cannot create %s", tmp);
        final = strdup(path);
        if (!final) {
                close(fd);
                (void)unlinkat(dir, last_component(tmp), 0);
                return -ENOMEM;
        }
        *ret = (AtomicFile){
                .fd = fd,
                .dir_fd = TAKE_FD(dir),
                .path = final,
                .tmp_path = TAKE_PTR(tmp),
        };
        ret->name = last_component(ret->path);
        ret->tmp_name = last_component(ret->tmp_path);
        return 0;
}

int atomic_file_commit(AtomicFile *f) {
        int r;

        if (fsync(f->fd) < 0) {
                r = log_error_errno(-errno, "Cannot sync %s", f->tmp_path);
                atomic_file_abort(f);
                return r;
        }
        if (close(f->fd) < 0 && errno != EINTR) {
                f->fd = -1;
                r = log_error_errno(-errno, "Cannot close %s", f->tmp_path);
                atomic_file_abort(f);
                return r;
        }
        f->fd = -1;
        if (renameat(f->dir_fd, f->tmp_name, f->dir_fd, f->name) < 0) {
                r = log_error_errno(-errno, "Cannot rename %s to %s", f->tmp_path, f->path);
                atomic_file_abort(f);
                return r;
        }
        /* Some file systems cannot sync a directory; the rename stands. */
        if (fsync(f->dir_fd) < 0 && errno != EINVAL && errno != EROFS)
                log_warning_errno(-errno, "Cannot sync the directory of %s", f->path);
        close(f->dir_fd);
        free(f->tmp_path);
        free(f->path);
        *f = (AtomicFile){ .fd = -1 };
        return 0;
}

void atomic_file_abort(AtomicFile *f) {
        if (f->fd >= 0)
                close(f->fd);
        if (f->path) {
                (void)unlinkat(f->dir_fd, f->tmp_name, 0);
                close(f->dir_fd);
        }
        free(f->tmp_path);
        free(f->path);
        *f = (AtomicFile){ .fd = -1 };
}

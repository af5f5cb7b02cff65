/* SPDX-License-Identifier: MIT */
/* The tracker's task runtime, its pure and file-level parts: line records
 * read through input splits, the record format and map output files, the
 * merge, and the sort buffer's spills. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/macro.h"
#include "tests.h"
#include "tracker/app.h"
#include "tracker/mapout.h"
#include "tracker/merge.h"
#include "tracker/sortbuf.h"
#include "tracker/linereader.h"
#include "mapred/split.h"
#include "tracker-test.h"

/* ---- line records through input splits ---- */

/* Small files with every kind of line ending, read through every way of
 * splitting them: every line is read exactly once, in order, by the split
 * it starts in. */
static const char *const line_files[] = {
        "",
        "a",
        "a\n",
        "\n",
        "\n\n\n",
        "ab\ncd\n",
        "ab\ncd",
        "a\r\nbb\r\n\nccc",
        "one line that is longer than most\nx\n\n",
        "\r\n\r\r\n",
        NULL, /* filled with generated lines */
};

typedef struct Line {
        uint64_t offset;
        char text[64];
} Line;

/* What a reader must return: lines start at 0 and after every '\n' (not at
 * the end); each ends at '\n' or the end, less one '\r' before '\n'. */
static size_t reference_lines(const char *s, size_t len, Line *out) {
        size_t n = 0;

        for (size_t start = 0; start < len;) {
                const char *nl = memchr(s + start, '\n', len - start);
                size_t end = nl ? (size_t)(nl - s) : len, tlen = end - start;

                if (tlen > 0 && s[end - 1] == '\r')
                        tlen--;
                out[n].offset = start;
                memcpy(out[n].text, s + start, tlen);
                out[n].text[tlen] = '\0';
                n++;
                start = end + 1;
        }
        return n;
}

/* Reads the splits [cuts[i], cuts[i+1]) of path in order into out. */
static size_t read_through_splits(const char *path, const uint64_t *cuts, size_t n_cuts, Line *out,
                                  size_t max) {
        size_t n = 0;

        for (size_t i = 0; i + 1 < n_cuts; i++) {
                InputSplit split = { .path = (char *)path,
                                     .offset = cuts[i],
                                     .length = cuts[i + 1] - cuts[i] };
                LineReader r;
                const uint8_t *line;
                size_t len;
                uint64_t off;
                int k;

                ck_assert_int_eq(line_reader_open(AT_FDCWD, &split, &r), 0);
                while ((k = line_reader_next(&r, &line, &len, &off)) > 0) {
                        ck_assert_uint_lt(n, max);
                        ck_assert_uint_lt(len, sizeof(out[n].text));
                        out[n].offset = off;
                        memcpy(out[n].text, line, len);
                        out[n].text[len] = '\0';
                        n++;
                }
                ck_assert_int_eq(k, 0);
                ck_assert_uint_eq(line_reader_consumed(&r), split.length);
                line_reader_close(&r);
        }
        return n;
}

static void assert_same_lines(const Line *got, size_t n_got, const Line *want, size_t n_want,
                              const char *how) {
        ck_assert_msg(n_got == n_want, "%s: %zu lines read, %zu in the file", how, n_got, n_want);
        for (size_t i = 0; i < n_want; i++) {
                ck_assert_msg(got[i].offset == want[i].offset, "%s: line %zu at %llu, not %llu",
                              how, i, (unsigned long long)got[i].offset,
                              (unsigned long long)want[i].offset);
                ck_assert_str_eq(got[i].text, want[i].text);
        }
}

static void generated_lines(char *buf, size_t size, unsigned seed) {
        size_t n = 0;

        srand(seed);
        while (n + 10 < size) {
                int len = rand() % 8;
                for (int i = 0; i < len; i++)
                        buf[n++] = (char)('a' + rand() % 26);
                if (rand() % 5 == 0)
                        buf[n++] = '\r';
                buf[n++] = '\n';
        }
        buf[n] = '\0';
}

START_TEST(test_split_lines_exactly_once) {
        _cleanup_free_ char *dir = test_make_tmpdir();
        char path[512], generated[200];
        const char *content = line_files[_i];
        Line want[256], got[256];
        size_t len, n_want;

        if (!content) {
                generated_lines(generated, sizeof(generated), 42);
                content = generated;
        }
        len = strlen(content);
        ck_assert_ptr_nonnull(dir);
        snprintf(path, sizeof(path), "%s/f", dir);
        test_write_file(path, content, len);
        n_want = reference_lines(content, len, want);

        /* The splits FileInputFormat makes for every block size. */
        for (uint64_t bs = 1; bs <= len + 3; bs++) {
                InputSplitList l = { 0 };
                uint64_t cuts[256];
                size_t n_cuts = 0;
                char how[64];

                ck_assert_int_eq(input_splits_add_file(&l, path, len, bs), 0);
                cuts[n_cuts++] = 0;
                for (size_t i = 0; i < l.n; i++) {
                        ck_assert_uint_eq(l.splits[i].offset, cuts[n_cuts - 1]);
                        /* Up to 1.1 blocks, and only the last beyond one. */
                        ck_assert(l.splits[i].length * 10 <= bs * 11);
                        if (i + 1 < l.n)
                                ck_assert_uint_eq(l.splits[i].length, bs);
                        cuts[n_cuts++] = l.splits[i].offset + l.splits[i].length;
                }
                ck_assert_uint_eq(cuts[n_cuts - 1], len);
                input_split_list_done(&l);
                snprintf(how, sizeof(how), "block size %llu", (unsigned long long)bs);
                assert_same_lines(got, read_through_splits(path, cuts, n_cuts, got, 256), want,
                                  n_want, how);
        }
        /* And every split into three at any two points, empty splits too. */
        for (uint64_t a = 0; a <= len && len <= 64; a++)
                for (uint64_t b = a; b <= len; b++) {
                        uint64_t cuts[4] = { 0, a, b, len };
                        char how[64];

                        snprintf(how, sizeof(how), "cuts at %llu and %llu", (unsigned long long)a,
                                 (unsigned long long)b);
                        assert_same_lines(got, read_through_splits(path, cuts, 4, got, 256), want,
                                          n_want, how);
                }
}
END_TEST

START_TEST(test_split_directory) {
        _cleanup_free_ char *dir = test_make_tmpdir();
        char path[512];
        char *paths[1] = { dir };
        InputSplitList l;
        LineReader r;

        ck_assert_ptr_nonnull(dir);
        snprintf(path, sizeof(path), "%s/small", dir);
        test_write_file(path, "abc\n", 4);
        snprintf(path, sizeof(path), "%s/big", dir);
        test_write_file(path, "0123456789\n0123456789\n0123456789\n", 33);
        snprintf(path, sizeof(path), "%s/.hidden", dir);
        test_write_file(path, "x\n", 2);
        snprintf(path, sizeof(path), "%s/_SUCCESS", dir);
        test_write_file(path, "", 0);

        /* Largest first; hidden and '_' files are not input. */
        ck_assert_int_eq(input_splits_compute(AT_FDCWD, paths, 1, 16, &l), 0);
        ck_assert_uint_eq(l.n, 3);
        ck_assert_uint_eq(l.splits[0].length, 17);
        ck_assert(strstr(l.splits[0].path, "/big"));
        ck_assert_uint_eq(l.splits[1].length, 16);
        ck_assert_uint_eq(l.splits[2].length, 4);
        ck_assert(strstr(l.splits[2].path, "/small"));
        input_split_list_done(&l);

        /* A split past the end of its file is refused, naming it. */
        snprintf(path, sizeof(path), "%s/small", dir);
        ck_assert_int_eq(line_reader_open(AT_FDCWD,
                                          &(InputSplit){ .path = path, .offset = 2, .length = 3 },
                                          &r),
                         -EINVAL);

        snprintf(path, sizeof(path), "%s/sub", dir);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        ck_assert_int_eq(input_splits_compute(AT_FDCWD, paths, 1, 16, &l), -EISDIR);
        snprintf(path, sizeof(path), "%s/missing", dir);
        paths[0] = path;
        ck_assert_int_eq(input_splits_compute(AT_FDCWD, paths, 1, 16, &l), -ENOENT);
        test_remove_tree(dir);
}
END_TEST

/* ---- records, segments, map output files ---- */

START_TEST(test_partition_is_hadoops) {
        /* Expected values from Hadoop's definition (WritableComparator.
         * hashBytes over signed bytes, from 1), computed independently. */
        static const struct {
                const char *key;
                unsigned r, p;
        } cases[] = {
                { "hello", 3, 2 },     { "hello", 7, 5 },      { "hello", 10, 3 },
                { "", 7, 1 },          { "w123", 7, 2 },       { "w123", 10, 0 },
                { "\xe9t\xe9", 7, 5 }, { "\xe9t\xe9", 10, 1 }, { "the quick brown fox", 7, 6 },
                { "hello", 1, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                ck_assert_uint_eq(record_partition((const uint8_t *)cases[i].key,
                                                   strlen(cases[i].key), cases[i].r),
                                  cases[i].p);
        ck_assert_int_lt(record_key_compare((const uint8_t *)"ab", 2, (const uint8_t *)"abc", 3),
                         0);
        ck_assert_int_gt(record_key_compare((const uint8_t *)"\xe9", 1, (const uint8_t *)"z", 1),
                         0);
        ck_assert_int_eq(record_key_compare((const uint8_t *)"ab", 2, (const uint8_t *)"ab", 2), 0);
        /* An empty key with no buffer (the grouper's first; found by
         * fuzz-mapout under UBSan). */
        ck_assert_int_lt(record_key_compare(NULL, 0, (const uint8_t *)"a", 1), 0);
        ck_assert_int_eq(record_key_compare(NULL, 0, NULL, 0), 0);
}
END_TEST

START_TEST(test_segment_round_trip) {
        _cleanup_free_ char *dir = test_make_tmpdir();
        _cleanup_free_ uint8_t *big = malloc(300000);
        RecordList want = RECORD_LIST_INIT, got = RECORD_LIST_INIT;
        SegmentWriter sw;
        SegmentReader sr;
        BufWriter w;
        Segment seg;
        int fd;

        ck_assert_ptr_nonnull(big);
        memset(big, 'v', 300000);
        ck_assert_int_eq(scratch_file_open(dir, &fd), 0);
        ck_assert_int_eq(buf_writer_init(&w, fd, 7), 0);
        ck_assert_int_eq(buf_writer_write(&w, "garbage", 7), 0);
        segment_writer_begin(&sw, &w);
        record_list_add(&want, "", 0, "", 0);
        record_list_add(&want, "k", 1, "", 0);
        record_list_add(&want, "key", 3, big, 300000); /* larger than a read buffer */
        for (int i = 0; i < 1000; i++)
                record_list_add(&want, "z", 1, "0123456789", (size_t)(i % 11));
        for (size_t i = 0; i < want.n; i++)
                ck_assert_int_eq(emitter_emit(&sw.emitter, want.r[i].key, want.r[i].klen,
                                              want.r[i].val, want.r[i].vlen),
                                 0);
        ck_assert_int_eq(buf_writer_flush(&w), 0);
        segment_writer_end(&sw, &seg);
        buf_writer_done(&w);
        ck_assert_uint_eq(seg.offset, 14);
        ck_assert_uint_eq(seg.records, want.n);
        seg.name = "test";

        ck_assert_int_eq(segment_reader_init(&sr, &seg), 0);
        ck_assert_int_eq(record_list_drain(&got, &sr.stream), 0);
        segment_reader_done(&sr);
        record_list_assert_equal(&got, &want);

        /* One record more claimed than there is, or one byte short: errors. */
        seg.records++;
        ck_assert_int_eq(segment_reader_init(&sr, &seg), 0);
        ck_assert_int_eq(record_list_drain(&got, &sr.stream), -EBADMSG);
        segment_reader_done(&sr);
        seg.records--;
        seg.length--;
        ck_assert_int_eq(segment_reader_init(&sr, &seg), 0);
        ck_assert_int_eq(record_list_drain(&got, &sr.stream), -EBADMSG);
        segment_reader_done(&sr);
        seg.length += 2;
        ck_assert_int_eq(segment_reader_init(&sr, &seg), 0);
        ck_assert_int_eq(record_list_drain(&got, &sr.stream), -EBADMSG);
        segment_reader_done(&sr);

        close(fd);
        record_list_done(&want);
        record_list_done(&got);
        test_remove_tree(dir);
}
END_TEST

static void write_map_output(const char *path, unsigned partitions, unsigned per_partition) {
        MapOutputWriter w;
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        char key[32];

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(map_output_writer_init(&w, fd, partitions), 0);
        for (unsigned p = 0; p < partitions; p++) {
                Emitter *out = map_output_writer_begin(&w);
                for (unsigned i = 0; i < per_partition; i++) {
                        int n = snprintf(key, sizeof(key), "p%u-k%04u", p, i);
                        ck_assert_int_eq(emitter_emit(out, key, (size_t)n, "v", 1), 0);
                }
                map_output_writer_end(&w);
        }
        ck_assert_int_eq(map_output_writer_finish(&w), 0);
        map_output_writer_done(&w);
        close(fd);
}

START_TEST(test_map_output_file) {
        _cleanup_free_ char *dir = test_make_tmpdir();
        MapOutput *m = NULL;
        char path[512];
        struct stat st;
        int fd;

        snprintf(path, sizeof(path), "%s/m.out", dir);
        write_map_output(path, 3, 5);
        ck_assert_int_eq(map_output_open(AT_FDCWD, path, &m), 0);
        ck_assert_uint_eq(m->partitions, 3);
        for (unsigned p = 0; p < 3; p++) {
                RecordList got = RECORD_LIST_INIT;
                SegmentReader sr;
                char first[16];

                ck_assert_uint_eq(m->index[p].records, 5);
                ck_assert_int_eq(segment_reader_init(&sr, &m->index[p]), 0);
                ck_assert_int_eq(record_list_drain(&got, &sr.stream), 0);
                snprintf(first, sizeof(first), "p%u-k0000", p);
                ck_assert_uint_eq(got.n, 5);
                ck_assert_mem_eq(got.r[0].key, first, strlen(first));
                segment_reader_done(&sr);
                record_list_done(&got);
        }
        m = map_output_free(m);

        /* Truncated, or with a foreign trailer: refused. */
        ck_assert_int_eq(stat(path, &st), 0);
        ck_assert_int_eq(truncate(path, st.st_size - 1), 0);
        ck_assert_int_eq(map_output_open(AT_FDCWD, path, &m), -EBADMSG);
        write_map_output(path, 3, 5);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        ck_assert_int_eq(pwrite(fd, "X", 1, st.st_size - 1), 1);
        close(fd);
        ck_assert_int_eq(map_output_open(AT_FDCWD, path, &m), -EBADMSG);
        /* An index entry that does not tile the data. */
        write_map_output(path, 3, 5);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        ck_assert_int_eq(pwrite(fd, "\x01", 1, st.st_size - 24 - 3 * 24 + 24), 1);
        close(fd);
        ck_assert_int_eq(map_output_open(AT_FDCWD, path, &m), -EBADMSG);
        test_write_file(path, "short", 5);
        ck_assert_int_eq(map_output_open(AT_FDCWD, path, &m), -EBADMSG);
        ck_assert_ptr_null(m);
        test_remove_tree(dir);
}
END_TEST

START_TEST(test_atomic_file) {
        _cleanup_free_ char *dir = test_make_tmpdir();
        AtomicFile f;
        char path[512], tmp[600];

        snprintf(path, sizeof(path), "%s/out", dir);
        snprintf(tmp, sizeof(tmp), "%s/.out.tmp-a1", dir);
        ck_assert_int_eq(atomic_file_open(AT_FDCWD, path, "a1", &f), 0);
        ck_assert_int_eq(write(f.fd, "partial", 7), 7);
        ck_assert_int_eq(access(path, F_OK), -1); /* nothing under the final name yet */
        ck_assert_int_eq(access(tmp, F_OK), 0);
        atomic_file_abort(&f);
        ck_assert_int_eq(access(tmp, F_OK), -1);

        ck_assert_int_eq(atomic_file_open(AT_FDCWD, path, "a1", &f), 0);
        ck_assert_int_eq(write(f.fd, "done\n", 5), 5);
        ck_assert_int_eq(atomic_file_commit(&f), 0);
        atomic_file_abort(&f); /* harmless after commit */
        ck_assert_str_eq(test_read_file(path), "done\n");
        ck_assert_int_eq(access(tmp, F_OK), -1);
        ck_assert_int_eq(atomic_file_open(AT_FDCWD, "", "a1", &f), -EINVAL);
        ck_assert_int_eq(atomic_file_open(AT_FDCWD, "dir/", "a1", &f), -EINVAL);
        test_remove_tree(dir);
}
END_TEST

/* A range copied between files, across file systems where the machine has
 * two (/dev/shm is tmpfs), which takes the read-and-write way. */
START_TEST(test_file_copy_range) {
        _cleanup_free_ char *dir = test_make_tmpdir();
        _cleanup_free_ uint8_t *data = malloc(3 << 20), *back = malloc(3 << 20);
        char src[512], dst[512];
        int from, to;

        ck_assert_ptr_nonnull(data);
        ck_assert_ptr_nonnull(back);
        for (size_t i = 0; i < (3 << 20); i++)
                data[i] = (uint8_t)(i * 7 + i / 4096);
        if (access("/dev/shm", W_OK) == 0)
                snprintf(src, sizeof(src), "/dev/shm/flexslot-copy-%d", (int)getpid());
        else
                snprintf(src, sizeof(src), "%s/src", dir);
        snprintf(dst, sizeof(dst), "%s/dst", dir);
        test_write_file(src, data, 3 << 20);
        from = open(src, O_RDONLY | O_CLOEXEC);
        to = open(dst, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        ck_assert_int_ge(from, 0);
        ck_assert_int_ge(to, 0);
        ck_assert_int_eq(file_copy_range(from, 1000, to, 7, (5 << 19) + 3), 0);
        ck_assert_int_eq(file_pread_exact(to, back, (5 << 19) + 3, 7), 0);
        ck_assert(memcmp(back, data + 1000, (5 << 19) + 3) == 0);
        /* Past the source's end: an error, not a short copy. */
        ck_assert_int_eq(file_copy_range(from, (3 << 20) - 10, to, 0, 11), -EBADMSG);
        ck_assert_int_eq(file_pread_exact(from, back, 11, (3 << 20) - 10), -EBADMSG);
        close(from);
        close(to);
        unlink(src);
        test_remove_tree(dir);
}
END_TEST

/* ---- merge and grouping ---- */

START_TEST(test_merge_and_group) {
        RecordList in[4] = { RECORD_LIST_INIT, RECORD_LIST_INIT, RECORD_LIST_INIT,
                             RECORD_LIST_INIT },
                   got = RECORD_LIST_INIT;
        ListStream ls[4];
        RecordStream *streams[4];
        Merger m;

        record_list_add(&in[0], "a", 1, "0", 1);
        record_list_add(&in[0], "c", 1, "0", 1);
        record_list_add(&in[1], "a", 1, "1", 1);
        record_list_add(&in[1], "b", 1, "1", 1);
        record_list_add(&in[1], "c", 1, "1", 1);
        record_list_add(&in[3], "c", 1, "3", 1);
        for (int i = 0; i < 4; i++) {
                list_stream_init(&ls[i], &in[i]);
                streams[i] = &ls[i].stream;
        }
        ck_assert_int_eq(merger_init(&m, streams, 4), 0);
        ck_assert_int_eq(record_list_drain(&got, &m.stream), 0);
        merger_done(&m);
        /* Sorted; equal keys in input order. */
        ck_assert_str_eq(record_list_join(&got), "a=0 a=1 b=1 c=0 c=1 c=3");
        record_list_done(&got);

        for (int i = 0; i < 4; i++) {
                list_stream_init(&ls[i], &in[i]);
                streams[i] = &ls[i].stream;
        }
        ck_assert_int_eq(merger_init(&m, streams, 4), 0);
        {
                Grouper g;
                const uint8_t *key;
                ValueIter *values;
                size_t klen;
                char seen[64] = "";

                grouper_init(&g, &m.stream);
                while (grouper_next(&g, &key, &klen, &values) > 0) {
                        const uint8_t *v;
                        size_t vlen;

                        strncat(seen, (const char *)key, klen);
                        /* Reads only the first value of "c": the rest is skipped. */
                        while (values->next(values, &v, &vlen) > 0) {
                                strncat(seen, (const char *)v, vlen);
                                if (key[0] == 'c')
                                        break;
                        }
                        strcat(seen, " ");
                }
                ck_assert_str_eq(seen, "a01 b1 c0 ");
                ck_assert_uint_eq(g.records, 6);
                grouper_done(&g);
        }
        merger_done(&m);
        for (int i = 0; i < 4; i++)
                record_list_done(&in[i]);
}
END_TEST

/* 20 sorted segments merged 3 at a time: Hadoop's first pass merges just 2
 * so that every later pass merges 3, down to 3 left for the stream: 9
 * passes. */
START_TEST(test_merge_passes) {
        _cleanup_free_ char *dir = test_make_tmpdir();
        Segment segs[21];
        RecordList got = RECORD_LIST_INIT;
        MergeRun *run = NULL;
        MergeOptions mo = { .factor = 3, .work_dir = dir };
        BufWriter w;
        int fd;

        ck_assert_int_eq(scratch_file_open(dir, &fd), 0);
        ck_assert_int_eq(buf_writer_init(&w, fd, 0), 0);
        for (int s = 0; s < 21; s++) {
                SegmentWriter sw;

                segment_writer_begin(&sw, &w);
                /* Segment s holds the keys congruent to s mod 20, the last one none. */
                for (int k = s; s < 20 && k < 400; k += 20) {
                        char key[8];
                        int n = snprintf(key, sizeof(key), "%03d", k);
                        ck_assert_int_eq(emitter_emit(&sw.emitter, key, (size_t)n, "", 0), 0);
                }
                segment_writer_end(&sw, &segs[s]);
                segs[s].name = "test";
        }
        ck_assert_int_eq(buf_writer_flush(&w), 0);
        buf_writer_done(&w);

        ck_assert_int_eq(merge_run_open(segs, 21, &mo, &run), 0);
        ck_assert_uint_eq(merge_run_passes(run), 9);
        ck_assert_int_eq(record_list_drain(&got, merge_run_stream(run)), 0);
        ck_assert_uint_eq(got.n, 400);
        for (size_t i = 0; i < got.n; i++) {
                char key[24];
                snprintf(key, sizeof(key), "%03zu", i);
                ck_assert_mem_eq(got.r[i].key, key, 3);
        }
        run = merge_run_free(run);
        mo.factor = 1;
        ck_assert_int_eq(merge_run_open(segs, 21, &mo, &run), -EINVAL);
        record_list_done(&got);
        close(fd);
        test_remove_tree(dir);
}
END_TEST

/* ---- the sort buffer ---- */

/* Collects n records "kNNNNN" with values of vlen bytes, R partitions,
 * and returns the spills. */
static uint64_t collect_and_spill(const char *dir, uint64_t size, unsigned n, size_t vlen,
                                  const AppOps *app, RecordList *ret_all) {
        SortBufferOptions o = {
                .size = size, .partitions = 3, .app = app, .work_dir = dir, .factor = 10
        };
        SortBuffer *b = NULL;
        SortBufferStats st;
        MapOutput *m = NULL;
        char key[16], path[512], val[2048];
        int fd;

        /* Counts, for wordcount's combiner. */
        memset(val, '1', sizeof(val));
        ck_assert_uint_le(vlen, sizeof(val));
        ck_assert_int_eq(sort_buffer_new(&o, &b), 0);
        for (unsigned i = 0; i < n; i++) {
                /* Keys in a scrambled order, 100 distinct ones. */
                int k = snprintf(key, sizeof(key), "k%05u", (i * 7919) % 100);
                ck_assert_int_eq(emitter_emit(sort_buffer_emitter(b), key, (size_t)k, val, vlen),
                                 0);
        }
        snprintf(path, sizeof(path), "%s/out", dir);
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(sort_buffer_finish(b, fd), 0);
        close(fd);
        sort_buffer_stats(b, &st);
        ck_assert_uint_eq(st.records, n);
        b = sort_buffer_free(b);

        /* Whatever the spills, each partition holds its keys in order. */
        ck_assert_int_eq(map_output_open(AT_FDCWD, path, &m), 0);
        for (unsigned p = 0; p < 3; p++) {
                SegmentReader sr;
                RecordList got = RECORD_LIST_INIT;

                ck_assert_int_eq(segment_reader_init(&sr, &m->index[p]), 0);
                ck_assert_int_eq(record_list_drain(&got, &sr.stream), 0);
                for (size_t i = 0; i < got.n; i++) {
                        ck_assert_uint_eq(record_partition(got.r[i].key, got.r[i].klen, 3), p);
                        if (i > 0)
                                ck_assert_int_le(record_key_compare(got.r[i - 1].key,
                                                                    got.r[i - 1].klen, got.r[i].key,
                                                                    got.r[i].klen),
                                                 0);
                        if (ret_all)
                                record_list_add(ret_all, got.r[i].key, got.r[i].klen, got.r[i].val,
                                                got.r[i].vlen);
                }
                segment_reader_done(&sr);
                record_list_done(&got);
        }
        map_output_free(m);
        return st.spills;
}

START_TEST(test_sort_buffer_spill_thresholds) {
        _cleanup_free_ char *dir = test_make_tmpdir();
        const uint64_t size = 64 << 10;
        /* 5 % of 64 KiB is 204 records of accounting; 80 % of them, 163. */
        const unsigned per_spill = (unsigned)((size * 5 / 100 / 16) * 80 / 100);
        RecordList all = RECORD_LIST_INIT;

        ck_assert_uint_eq(collect_and_spill(dir, size, 1, 1, NULL, NULL), 1);
        ck_assert_uint_eq(collect_and_spill(dir, size, per_spill - 1, 1, NULL, NULL), 1);
        /* The record reaching 80 % spills at once; the flush adds one more
         * only when records are left. */
        ck_assert_uint_eq(collect_and_spill(dir, size, per_spill, 1, NULL, NULL), 1);
        ck_assert_uint_eq(collect_and_spill(dir, size, per_spill + 1, 1, NULL, NULL), 2);
        ck_assert_uint_eq(collect_and_spill(dir, size, 10 * per_spill, 1, NULL, &all), 10);
        ck_assert_uint_eq(all.n, 10 * per_spill);
        record_list_done(&all);
        /* Large records: the data part (the other 95 %, 62272 bytes) fills
         * first: 1000-byte records spill every 50 (80 % is 49760 bytes). */
        ck_assert_uint_eq(collect_and_spill(dir, size, 50 * 4, 994, NULL, NULL), 4);
        ck_assert_uint_eq(collect_and_spill(dir, size, 50 * 4 + 1, 994, NULL, NULL), 5);
        /* A record larger than the buffer is spilled alone. */
        {
                SortBufferOptions o = {
                        .size = size, .partitions = 2, .work_dir = dir, .factor = 10
                };
                _cleanup_free_ char *huge = calloc(1, size);
                SortBuffer *b = NULL;
                SortBufferStats st;
                int fd;

                ck_assert_int_eq(sort_buffer_new(&o, &b), 0);
                ck_assert_int_eq(emitter_emit(sort_buffer_emitter(b), "a", 1, "1", 1), 0);
                ck_assert_int_eq(emitter_emit(sort_buffer_emitter(b), "b", 1, huge, size), 0);
                ck_assert_int_eq(emitter_emit(sort_buffer_emitter(b), "c", 1, "1", 1), 0);
                ck_assert_int_eq(scratch_file_open(dir, &fd), 0);
                ck_assert_int_eq(sort_buffer_finish(b, fd), 0);
                sort_buffer_stats(b, &st);
                ck_assert_uint_eq(st.spills, 3);
                ck_assert_uint_eq(st.spilled_records, 3);
                close(fd);
                sort_buffer_free(b);
        }
        test_remove_tree(dir);
}
END_TEST

/* The claim behind slot memory: the same map output through a larger sort
 * buffer spills less, down to once, and the combined result is the same. */
START_TEST(test_more_memory_fewer_spills) {
        _cleanup_free_ char *dir = test_make_tmpdir();
        const AppOps *wc = app_find("wordcount");
        static const uint64_t slots[] = { 128 << 10, 512 << 10, 2 << 20, 8 << 20, 32 << 20 };
        uint64_t prev = UINT64_MAX;
        char *first = NULL;

        for (size_t i = 0; i < ELEMENTSOF(slots); i++) {
                RecordList all = RECORD_LIST_INIT;
                uint64_t spills =
                        collect_and_spill(dir, sort_buffer_for_slot(slots[i]), 20000, 1, wc, &all);
                ListStream ls;
                RecordList sums = RECORD_LIST_INIT;

                ck_assert_msg(spills < prev || spills == 1,
                              "slot %llu bytes: %llu spills, not fewer than %llu",
                              (unsigned long long)slots[i], (unsigned long long)spills,
                              (unsigned long long)prev);
                prev = spills;
                /* Summed per key the counts are the input's, however combined. */
                record_list_sort(&all);
                list_stream_init(&ls, &all);
                ck_assert_int_eq(group_run(&ls.stream, app_sum_counts, NULL, &sums.emitter), 0);
                if (!first)
                        first = strdup(record_list_join(&sums));
                else
                        ck_assert_str_eq(record_list_join(&sums), first);
                record_list_done(&all);
                record_list_done(&sums);
        }
        ck_assert_uint_eq(prev, 1);
        ck_assert(strstr(first, "k00000=200 "));
        free(first);
        ck_assert_uint_eq(sort_buffer_for_slot(200 << 20), SORT_BUFFER_DEFAULT);
        ck_assert_uint_eq(sort_buffer_for_slot(1), SORT_BUFFER_MIN);
        ck_assert_uint_eq(sort_buffer_for_slot(UINT64_MAX / 2), SORT_BUFFER_MAX);
        test_remove_tree(dir);
}
END_TEST

Suite *suite_tracker_records(void) {
        Suite *s = suite_create("tracker_records");
        TCase *tc;

        tc = tcase_create("splits");
        tcase_add_loop_test(tc, test_split_lines_exactly_once, 0, ELEMENTSOF(line_files));
        tcase_add_test(tc, test_split_directory);
        suite_add_tcase(s, tc);

        tc = tcase_create("records");
        tcase_add_test(tc, test_partition_is_hadoops);
        tcase_add_test(tc, test_segment_round_trip);
        tcase_add_test(tc, test_map_output_file);
        tcase_add_test(tc, test_atomic_file);
        tcase_add_test(tc, test_file_copy_range);
        tcase_add_test(tc, test_merge_and_group);
        tcase_add_test(tc, test_merge_passes);
        suite_add_tcase(s, tc);

        tc = tcase_create("sortbuf");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_sort_buffer_spill_thresholds);
        tcase_add_test(tc, test_more_memory_fewer_spills);
        suite_add_tcase(s, tc);
        return s;
}

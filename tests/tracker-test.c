/* SPDX-License-Identifier: MIT */
#include "tracker-test.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/macro.h"

static uint8_t *dup_bytes(const void *p, size_t n) {
        uint8_t *d = malloc(n + 1);

        ck_assert_ptr_nonnull(d);
        memcpy(d, p, n);
        d[n] = '\0';
        return d;
}

void record_list_add(RecordList *l, const void *key, size_t klen, const void *val, size_t vlen) {
        if (l->n == l->cap) {
                l->cap = l->cap ? 2 * l->cap : 64;
                l->r = realloc(l->r, l->cap * sizeof(TestRecord));
                ck_assert_ptr_nonnull(l->r);
        }
        l->r[l->n++] = (TestRecord){
                .key = dup_bytes(key, klen), .klen = klen, .val = dup_bytes(val, vlen), .vlen = vlen
        };
        l->emitter.emit = record_list_emit;
}

int record_list_emit(Emitter *e, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen) {
        record_list_add(container_of(e, RecordList, emitter), key, klen, val, vlen);
        return 0;
}

int record_list_drain(RecordList *l, RecordStream *s) {
        int r;

        while ((r = s->next(s)) > 0)
                record_list_add(l, s->key, s->klen, s->val, s->vlen);
        return r;
}

const char *record_list_join(RecordList *l) {
        size_t len = 0, at = 0;

        for (size_t i = 0; i < l->n; i++)
                len += l->r[i].klen + l->r[i].vlen + 2;
        free(l->joined);
        l->joined = malloc(len + 1);
        ck_assert_ptr_nonnull(l->joined);
        for (size_t i = 0; i < l->n; i++) {
                if (i > 0)
                        l->joined[at++] = ' ';
                memcpy(l->joined + at, l->r[i].key, l->r[i].klen);
                at += l->r[i].klen;
                l->joined[at++] = '=';
                memcpy(l->joined + at, l->r[i].val, l->r[i].vlen);
                at += l->r[i].vlen;
        }
        l->joined[at] = '\0';
        return l->joined;
}

static int compare_records(const void *a, const void *b) {
        const TestRecord *x = a, *y = b;

        return record_key_compare(x->key, x->klen, y->key, y->klen);
}

void record_list_sort(RecordList *l) {
        if (l->n > 0)
                qsort(l->r, l->n, sizeof(TestRecord), compare_records);
}

void record_list_assert_equal(const RecordList *got, const RecordList *want) {
        ck_assert_uint_eq(got->n, want->n);
        for (size_t i = 0; i < want->n; i++) {
                ck_assert_uint_eq(got->r[i].klen, want->r[i].klen);
                ck_assert_uint_eq(got->r[i].vlen, want->r[i].vlen);
                ck_assert(memcmp(got->r[i].key, want->r[i].key, want->r[i].klen) == 0);
                ck_assert(memcmp(got->r[i].val, want->r[i].val, want->r[i].vlen) == 0);
        }
}

void record_list_done(RecordList *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->r[i].key);
                free(l->r[i].val);
        }
        free(l->r);
        free(l->joined);
        *l = (RecordList)RECORD_LIST_INIT;
}

static int list_stream_next(RecordStream *s) {
        ListStream *ls = container_of(s, ListStream, stream);
        const TestRecord *r;

        if (ls->i == ls->l->n)
                return 0;
        r = &ls->l->r[ls->i++];
        s->key = r->key;
        s->klen = r->klen;
        s->val = r->val;
        s->vlen = r->vlen;
        return 1;
}

void list_stream_init(ListStream *s, const RecordList *l) {
        *s = (ListStream){ .stream.next = list_stream_next, .l = l };
}

void test_write_file(const char *path, const void *data, size_t len) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
        ck_assert_int_eq(close(fd), 0);
}

const char *test_read_file(const char *path) {
        static char buf[1 << 20];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        size_t len = 0;
        ssize_t n;

        ck_assert_int_ge(fd, 0);
        while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
                len += (size_t)n;
        ck_assert_int_eq(n, 0);
        ck_assert_uint_lt(len, sizeof(buf) - 1);
        buf[len] = '\0';
        close(fd);
        return buf;
}

/* SPDX-License-Identifier: MIT */
#include "sortbuf.h"

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macro.h"
#include "tracker/mapout.h"

/* Hadoop's kvindices and kvoffsets together: 16 bytes a record. The value
 * follows the key in the data part. */
typedef struct SortMeta {
        uint32_t partition, offset, klen, vlen;
} SortMeta;

_Static_assert(sizeof(SortMeta) == SORT_RECORD_ACCOUNTING, "accounting is 16 bytes a record");

typedef struct Spill {
        int fd;
        Segment *index;
} Spill;

struct SortBuffer {
        Emitter emitter;
        SortBufferOptions opt;
        uint8_t *data;
        size_t data_cap, data_used, spill_data_at;
        SortMeta *meta;
        size_t meta_cap, n, spill_records_at;
        Spill *spills; /* the spill files */
        size_t n_spills, spills_cap;
        SortBufferStats stats;
};

uint64_t sort_buffer_for_slot(uint64_t slot_memory) {
        return CLAMP(slot_memory / 2, SORT_BUFFER_MIN, SORT_BUFFER_MAX);
}

/* One partition of the sorted buffer as a stream. */
typedef struct MemStream {
        RecordStream stream;
        const SortBuffer *b;
        size_t i, end;
} MemStream;

static int mem_stream_next(RecordStream *s) {
        MemStream *m = container_of(s, MemStream, stream);
        const SortMeta *e;

        if (m->i == m->end)
                return 0;
        e = &m->b->meta[m->i++];
        s->key = m->b->data + e->offset;
        s->klen = e->klen;
        s->val = s->key + e->klen;
        s->vlen = e->vlen;
        return 1;
}

/* The first 8 bytes of a key as a big-endian number, zero-filled past its
 * end: comparing two orders keys by their first 8 bytes with no call, which
 * settles most comparisons of the short keys most jobs have. The data part
 * has 8 bytes of slack, so the load never leaves it. */
static uint64_t key_prefix(const uint8_t *key, uint32_t klen) {
        uint64_t v;

        memcpy(&v, key, sizeof(v));
        v = be64toh(v);
        if (klen < 8)
                v &= ~(UINT64_MAX >> (8 * klen));
        return v;
}

static int sort_meta_compare(const void *a, const void *b, void *userdata) {
        const SortMeta *x = a, *y = b;
        const uint8_t *data = userdata;
        uint64_t px, py;
        int c;

        if (x->partition != y->partition)
                return x->partition < y->partition ? -1 : 1;
        px = key_prefix(data + x->offset, x->klen);
        py = key_prefix(data + y->offset, y->klen);
        if (px != py)
                return px < py ? -1 : 1;
        if (x->klen <= 8 || y->klen <= 8)
                c = x->klen < y->klen ? -1 : x->klen > y->klen ? 1 : 0;
        else
                c = record_key_compare(data + x->offset + 8, x->klen - 8, data + y->offset + 8,
                                       y->klen - 8);
        if (c != 0)
                return c;
        /* Collection order among equal keys: the output does not depend on
         * the sort algorithm. */
        return x->offset < y->offset ? -1 : 1;
}

static int copy_stream(RecordStream *in, Emitter *out) {
        int r;

        while ((r = in->next(in)) > 0) {
                r = emitter_emit(out, in->key, in->klen, in->val, in->vlen);
                if (r < 0)
                        return r;
        }
        return r;
}

static bool has_combiner(const SortBuffer *b) {
        return b->opt.app && b->opt.app->combine;
}

/* Writes the buffer's records, sorted and combined, as a map output file
 * into fd; *ret_index gets its partitions' segments. */
static int sort_buffer_write(SortBuffer *b, int fd, Segment **ret_index) {
        MapOutputWriter w;
        size_t i = 0;
        int r;

        qsort_r(b->meta, b->n, sizeof(SortMeta), sort_meta_compare, b->data);
        r = map_output_writer_init(&w, fd, b->opt.partitions);
        if (r < 0)
                return r;
        for (unsigned p = 0; p < b->opt.partitions && r >= 0; p++) {
                Emitter *out = map_output_writer_begin(&w);
                MemStream m = { .stream.next = mem_stream_next, .b = b, .i = i };

                while (i < b->n && b->meta[i].partition == p)
                        i++;
                m.end = i;
                if (has_combiner(b))
                        r = group_run(&m.stream, b->opt.app->combine, b->opt.app_state, out);
                else
                        r = copy_stream(&m.stream, out);
                map_output_writer_end(&w);
                if (r >= 0)
                        b->stats.spilled_records += w.index[p].records;
        }
        if (r >= 0)
                r = map_output_writer_finish(&w);
        if (r >= 0 && ret_index) {
                *ret_index = TAKE_PTR(w.index);
                for (unsigned p = 0; p < b->opt.partitions; p++)
                        (*ret_index)[p].name = "spill";
        }
        map_output_writer_done(&w);
        if (r < 0)
                return r;
        b->n = 0;
        b->data_used = 0;
        b->stats.spills++;
        TASK_STATUS_SET(b->opt.status, spills, b->stats.spills);
        return 0;
}

static int sort_buffer_spill_file(SortBuffer *b, int *ret_fd) {
        if (b->n_spills == b->spills_cap) {
                size_t cap = b->spills_cap ? 2 * b->spills_cap : 8;
                Spill *v = realloc(b->spills, cap * sizeof(Spill));
                if (!v)
                        return -ENOMEM;
                b->spills = v;
                b->spills_cap = cap;
        }
        return scratch_file_open(b->opt.work_dir, ret_fd);
}

static int sort_buffer_spill(SortBuffer *b) {
        Spill s = { .fd = -1 };
        int r;

        r = sort_buffer_spill_file(b, &s.fd);
        if (r < 0)
                return r;
        r = sort_buffer_write(b, s.fd, &s.index);
        if (r < 0) {
                close(s.fd);
                return log_error_errno(r, "Cannot write spill %" PRIu64 " in %s",
                                       b->stats.spills + 1, b->opt.work_dir);
        }
        b->spills[b->n_spills++] = s;
        return 0;
}

/* A record larger than the whole data part is spilled alone, without the
 * combiner (Hadoop's spillSingleRecord). */
static int sort_buffer_spill_single(SortBuffer *b, unsigned partition, const uint8_t *key,
                                    size_t klen, const uint8_t *val, size_t vlen) {
        Spill s = { .fd = -1 };
        MapOutputWriter w;
        int r;

        r = sort_buffer_spill_file(b, &s.fd);
        if (r < 0)
                return r;
        r = map_output_writer_init(&w, s.fd, b->opt.partitions);
        if (r < 0) {
                close(s.fd);
                return r;
        }
        for (unsigned p = 0; p < b->opt.partitions && r >= 0; p++) {
                Emitter *out = map_output_writer_begin(&w);

                if (p == partition)
                        r = emitter_emit(out, key, klen, val, vlen);
                map_output_writer_end(&w);
        }
        if (r >= 0)
                r = map_output_writer_finish(&w);
        if (r < 0) {
                map_output_writer_done(&w);
                close(s.fd);
                return r;
        }
        s.index = TAKE_PTR(w.index);
        for (unsigned p = 0; p < b->opt.partitions; p++)
                s.index[p].name = "spill";
        map_output_writer_done(&w);
        b->spills[b->n_spills++] = s;
        b->stats.spills++;
        b->stats.spilled_records++;
        TASK_STATUS_SET(b->opt.status, spills, b->stats.spills);
        return 0;
}

static void sort_buffer_append(SortBuffer *b, unsigned p, const uint8_t *key, size_t klen,
                               const uint8_t *val, size_t vlen) {
        memcpy(b->data + b->data_used, key, klen);
        memcpy(b->data + b->data_used + klen, val, vlen);
        b->meta[b->n++] = (SortMeta){
                .partition = p,
                .offset = (uint32_t)b->data_used,
                .klen = (uint32_t)klen,
                .vlen = (uint32_t)vlen,
        };
        b->data_used += klen + vlen;
}

static int sort_buffer_collect(Emitter *e, const uint8_t *key, size_t klen, const uint8_t *val,
                               size_t vlen) {
        SortBuffer *b = container_of(e, SortBuffer, emitter);
        unsigned p = record_partition(key, klen, b->opt.partitions);
        size_t need = klen + vlen;
        int r;

        if (klen > RECORD_FIELD_MAX || vlen > RECORD_FIELD_MAX)
                return log_error_errno(-E2BIG, "A map output record is larger than %u bytes",
                                       RECORD_FIELD_MAX);
        b->stats.records++;
        b->stats.bytes += need;
        if (need > b->data_cap) {
                if (b->n > 0) {
                        r = sort_buffer_spill(b);
                        if (r < 0)
                                return r;
                }
                return sort_buffer_spill_single(b, p, key, klen, val, vlen);
        }
        if (b->data_used + need > b->data_cap || b->n == b->meta_cap) {
                r = sort_buffer_spill(b);
                if (r < 0)
                        return r;
        }
        sort_buffer_append(b, p, key, klen, val, vlen);
        if (b->data_used >= b->spill_data_at || b->n >= b->spill_records_at)
                return sort_buffer_spill(b);
        return 0;
}

/* The buffer's memory, allocated, not touched: pages become resident as
 * records fill them, so a small map does not occupy its whole buffer. */
static SortBuffer *sort_buffer_alloc(const SortBufferOptions *opt) {
        SortBuffer *b = calloc(1, sizeof(*b));
        size_t meta_bytes;

        if (!b)
                return NULL;
        b->emitter.emit = sort_buffer_collect;
        b->opt = *opt;
        meta_bytes = (size_t)(opt->size * SORT_RECORD_PERCENT / 100);
        b->meta_cap = meta_bytes / sizeof(SortMeta);
        b->data_cap = (size_t)opt->size - b->meta_cap * sizeof(SortMeta);
        b->spill_records_at = MAX(b->meta_cap * SORT_SPILL_PERCENT / 100, (size_t)1);
        b->spill_data_at = b->data_cap / 100 * SORT_SPILL_PERCENT;
        b->data = malloc(b->data_cap + sizeof(uint64_t));
        b->meta = malloc(b->meta_cap * sizeof(SortMeta));
        return b->data && b->meta ? b : sort_buffer_free(b);
}

int sort_buffer_new(const SortBufferOptions *opt, SortBuffer **ret) {
        SortBuffer *b;

        if (opt->size < SORT_BUFFER_MIN || opt->size > SORT_BUFFER_MAX || opt->partitions == 0 ||
            opt->partitions > MAP_OUTPUT_PARTITIONS_MAX || opt->factor < 2 || !opt->work_dir)
                return -EINVAL;
        b = sort_buffer_alloc(opt);
        if (!b)
                return -ENOMEM;
        *ret = b;
        return 0;
}

Emitter *sort_buffer_emitter(SortBuffer *b) {
        return &b->emitter;
}

/* Merges partition p of every spill into out. */
static int sort_buffer_merge_partition(SortBuffer *b, unsigned p, Emitter *out) {
        _cleanup_free_ Segment *segs = calloc(b->n_spills, sizeof(Segment));
        _cleanup_(merge_run_freep) MergeRun *m = NULL;
        MergeOptions mo = { .factor = b->opt.factor, .work_dir = b->opt.work_dir };
        int r;

        if (!segs)
                return -ENOMEM;
        for (size_t i = 0; i < b->n_spills; i++)
                segs[i] = b->spills[i].index[p];
        r = merge_run_open(segs, b->n_spills, &mo, &m);
        if (r < 0)
                return r;
        b->stats.merge_passes += merge_run_passes(m);
        if (has_combiner(b) && b->stats.spills >= SORT_MIN_SPILLS_FOR_COMBINE)
                return group_run(merge_run_stream(m), b->opt.app->combine, b->opt.app_state, out);
        return copy_stream(merge_run_stream(m), out);
}

int sort_buffer_finish(SortBuffer *b, int out_fd) {
        MapOutputWriter w;
        int r;

        /* Everything fit: the one spill is the output (Hadoop renames it). */
        if (b->stats.spills == 0)
                return sort_buffer_write(b, out_fd, NULL);
        if (b->n > 0) {
                r = sort_buffer_spill(b);
                if (r < 0)
                        return r;
        }
        TASK_STATUS_SET(b->opt.status, phase, TASK_PHASE_MERGE);
        r = map_output_writer_init(&w, out_fd, b->opt.partitions);
        if (r < 0)
                return r;
        for (unsigned p = 0; p < b->opt.partitions && r >= 0; p++) {
                r = sort_buffer_merge_partition(b, p, map_output_writer_begin(&w));
                map_output_writer_end(&w);
        }
        if (r >= 0)
                r = map_output_writer_finish(&w);
        map_output_writer_done(&w);
        return r;
}

void sort_buffer_stats(const SortBuffer *b, SortBufferStats *ret) {
        *ret = b->stats;
}

SortBuffer *sort_buffer_free(SortBuffer *b) {
        if (!b)
                return NULL;
        for (size_t i = 0; i < b->n_spills; i++) {
                close(b->spills[i].fd);
                free(b->spills[i].index);
        }
        free(b->spills);
        free(b->data);
        free(b->meta);
        free(b);
        return NULL;
}

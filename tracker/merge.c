/* SPDX-License-Identifier: MIT */
#include "merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macro.h"

/* Intermediate merge progress is reported at most this often (bytes). */
#define PROGRESS_STEP (1U << 20)

static bool merger_less(const Merger *m, size_t a, size_t b) {
        const RecordStream *x = m->inputs[a], *y = m->inputs[b];
        int c = record_key_compare(x->key, x->klen, y->key, y->klen);

        return c < 0 || (c == 0 && a < b);
}

static void merger_sift_down(Merger *m, size_t i) {
        for (;;) {
                size_t l = 2 * i + 1, best = i, t;

                if (l < m->heap_len && merger_less(m, m->heap[l], m->heap[best]))
                        best = l;
                if (l + 1 < m->heap_len && merger_less(m, m->heap[l + 1], m->heap[best]))
                        best = l + 1;
                if (best == i)
                        return;
                t = m->heap[i];
                m->heap[i] = m->heap[best];
                m->heap[best] = t;
                i = best;
        }
}

static int merger_next(RecordStream *s) {
        Merger *m = container_of(s, Merger, stream);
        RecordStream *top;
        int r;

        if (!m->started) {
                m->started = true;
                for (size_t i = 0; i < m->n; i++) {
                        r = m->inputs[i]->next(m->inputs[i]);
                        if (r < 0)
                                return r;
                        if (r > 0)
                                m->heap[m->heap_len++] = i;
                }
                for (size_t i = m->heap_len / 2; i-- > 0;)
                        merger_sift_down(m, i);
        } else if (m->heap_len > 0) {
                /* The record returned last came from the top: move past it. */
                top = m->inputs[m->heap[0]];
                r = top->next(top);
                if (r < 0)
                        return r;
                if (r == 0)
                        m->heap[0] = m->heap[--m->heap_len];
                merger_sift_down(m, 0);
        }
        if (m->heap_len == 0)
                return 0;
        top = m->inputs[m->heap[0]];
        s->key = top->key;
        s->klen = top->klen;
        s->val = top->val;
        s->vlen = top->vlen;
        return 1;
}

int merger_init(Merger *m, RecordStream **inputs, size_t n) {
        size_t *heap = calloc(MAX(n, (size_t)1), sizeof(size_t));

        if (!heap)
                return -ENOMEM;
        *m = (Merger){ .stream.next = merger_next, .inputs = inputs, .n = n, .heap = heap };
        return 0;
}

void merger_done(Merger *m) {
        free(m->heap);
        m->heap = NULL;
}

static int grouper_value(ValueIter *it, const uint8_t **val, size_t *vlen) {
        Grouper *g = container_of(it, Grouper, values);
        int r;

        if (!g->in_group)
                return 0;
        if (g->first) {
                g->first = false;
        } else {
                r = g->in->next(g->in);
                if (r <= 0) {
                        g->in_group = false;
                        return r;
                }
                g->records++;
                if (record_key_compare(g->in->key, g->in->klen, g->key, g->klen) != 0) {
                        g->pending = true;
                        g->in_group = false;
                        return 0;
                }
        }
        *val = g->in->val;
        *vlen = g->in->vlen;
        return 1;
}

void grouper_init(Grouper *g, RecordStream *in) {
        *g = (Grouper){ .values.next = grouper_value, .in = in };
}

int grouper_next(Grouper *g, const uint8_t **key, size_t *klen, ValueIter **values) {
        const uint8_t *v;
        size_t vl;
        int r;

        while (g->in_group) {
                r = grouper_value(&g->values, &v, &vl);
                if (r < 0)
                        return r;
        }
        if (!g->pending) {
                r = g->in->next(g->in);
                if (r <= 0)
                        return r;
                g->records++;
        }
        g->pending = false;
        if (g->in->klen > g->kcap) {
                size_t cap = MAX(g->in->klen, 2 * g->kcap);
                uint8_t *k = realloc(g->key, cap);
                if (!k)
                        return -ENOMEM;
                g->key = k;
                g->kcap = cap;
        }
        if (g->in->klen > 0)
                memcpy(g->key, g->in->key, g->in->klen);
        g->klen = g->in->klen;
        g->first = true;
        g->in_group = true;
        *key = g->key;
        *klen = g->klen;
        *values = &g->values;
        return 1;
}

void grouper_done(Grouper *g) {
        free(g->key);
        g->key = NULL;
}

int group_run(RecordStream *in, GroupFunc fn, void *state, Emitter *out) {
        Grouper g;
        const uint8_t *key;
        ValueIter *values;
        size_t klen;
        int r;

        grouper_init(&g, in);
        while ((r = grouper_next(&g, &key, &klen, &values)) > 0) {
                r = fn(state, key, klen, values, out);
                if (r < 0)
                        break;
        }
        grouper_done(&g);
        return r;
}

struct MergeRun {
        Merger merger;
        SegmentReader *readers;
        RecordStream **inputs;
        size_t n;
        int scratch_fd;
        uint64_t passes, bytes;
};

static int segment_by_length(const void *a, const void *b) {
        const Segment *x = a, *y = b;

        if (x->length != y->length)
                return x->length < y->length ? -1 : 1;
        /* Equal lengths keep their order: the offset within one file, then
         * the descriptor, are stable tie-breakers for qsort. */
        if (x->fd != y->fd)
                return x->fd < y->fd ? -1 : 1;
        return x->offset < y->offset ? -1 : x->offset > y->offset ? 1 : 0;
}

/* Sorts segs by length and returns how many of the smallest this pass
 * merges (Hadoop's Merger.getPassFactor). */
static size_t merge_pass_width(Segment *segs, size_t n, unsigned factor, uint64_t pass) {
        size_t mod;

        qsort(segs, n, sizeof(Segment), segment_by_length);
        if (pass > 0 || n <= factor)
                return factor;
        mod = (n - 1) % (factor - 1);
        return mod == 0 ? factor : mod + 1;
}

/* Bytes the intermediate passes will write: merging copies records as they
 * are, so a merged segment is exactly as long as its inputs together. */
static int merge_plan_bytes(const Segment *segs, size_t n, unsigned factor, uint64_t *ret) {
        _cleanup_free_ Segment *w = malloc(MAX(n, (size_t)1) * sizeof(Segment));
        uint64_t total = 0;

        if (!w)
                return -ENOMEM;
        memcpy(w, segs, n * sizeof(Segment));
        for (uint64_t pass = 0; n > factor; pass++) {
                size_t k = merge_pass_width(w, n, factor, pass);
                Segment merged = { .fd = -1 };

                for (size_t i = 0; i < k; i++)
                        merged.length += w[i].length;
                total += merged.length;
                memmove(w, w + k - 1, (n - k + 1) * sizeof(Segment));
                w[0] = merged;
                n -= k - 1;
        }
        *ret = total;
        return 0;
}

static int merge_open_readers(MergeRun *m, const Segment *segs, size_t n) {
        SegmentReader *readers = calloc(MAX(n, (size_t)1), sizeof(SegmentReader));
        RecordStream **inputs = calloc(MAX(n, (size_t)1), sizeof(RecordStream *));
        int r;

        if (!readers || !inputs) {
                free(readers);
                free(inputs);
                return -ENOMEM;
        }
        m->readers = readers;
        m->inputs = inputs;
        for (size_t i = 0; i < n; i++) {
                r = segment_reader_init(&readers[i], &segs[i]);
                if (r < 0)
                        return r;
                inputs[i] = &readers[i].stream;
                m->n = i + 1;
        }
        return merger_init(&m->merger, inputs, n);
}

static void merge_close_readers(MergeRun *m) {
        merger_done(&m->merger);
        for (size_t i = 0; i < m->n; i++)
                segment_reader_done(&m->readers[i]);
        free(m->readers);
        free(m->inputs);
        m->readers = NULL;
        m->inputs = NULL;
        m->n = 0;
}

/* Merges segs into one segment appended to the scratch file at *end. */
static int merge_pass(MergeRun *m, const Segment *segs, size_t k, uint64_t *end,
                      const MergeOptions *opt, uint64_t total, Segment *ret) {
        SegmentWriter sw;
        BufWriter out;
        uint64_t reported = 0;
        int r;

        r = merge_open_readers(m, segs, k);
        if (r >= 0)
                r = buf_writer_init(&out, m->scratch_fd, *end);
        if (r < 0) {
                merge_close_readers(m);
                return r;
        }
        segment_writer_begin(&sw, &out);
        while ((r = merger_next(&m->merger.stream)) > 0) {
                RecordStream *s = &m->merger.stream;
                uint64_t done;

                r = emitter_emit(&sw.emitter, s->key, s->klen, s->val, s->vlen);
                if (r < 0)
                        break;
                done = m->bytes + buf_writer_tell(&out) - *end;
                if (opt->progress && done - reported >= PROGRESS_STEP) {
                        opt->progress(opt->userdata, done, total);
                        reported = done;
                }
        }
        if (r >= 0)
                r = buf_writer_flush(&out);
        if (r >= 0) {
                segment_writer_end(&sw, ret);
                ret->name = "intermediate merge";
                *end += ret->length;
                m->bytes += ret->length;
                if (opt->progress)
                        opt->progress(opt->userdata, m->bytes, total);
        }
        buf_writer_done(&out);
        merge_close_readers(m);
        return r;
}

int merge_run_open(const Segment *segs, size_t n, const MergeOptions *opt, MergeRun **ret) {
        _cleanup_(merge_run_freep) MergeRun *m = NULL;
        _cleanup_free_ Segment *w = NULL;
        uint64_t total, end = 0;
        size_t live = 0;
        int r;

        if (opt->factor < 2)
                return -EINVAL;
        m = calloc(1, sizeof(*m));
        w = malloc(MAX(n, (size_t)1) * sizeof(Segment));
        if (!m || !w)
                return -ENOMEM;
        m->scratch_fd = -1;
        for (size_t i = 0; i < n; i++)
                if (segs[i].records > 0)
                        w[live++] = segs[i];
        r = merge_plan_bytes(w, live, opt->factor, &total);
        if (r < 0)
                return r;
        for (uint64_t pass = 0; live > opt->factor; pass++) {
                size_t k = merge_pass_width(w, live, opt->factor, pass);
                Segment merged;

                if (m->scratch_fd < 0) {
                        r = scratch_file_open(opt->work_dir, &m->scratch_fd);
                        if (r < 0)
                                return r;
                }
                r = merge_pass(m, w, k, &end, opt, total, &merged);
                if (r < 0)
                        return r;
                memmove(w, w + k - 1, (live - k + 1) * sizeof(Segment));
                w[0] = merged;
                live -= k - 1;
                m->passes++;
        }
        r = merge_open_readers(m, w, live);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(m);
        return 0;
}

RecordStream *merge_run_stream(MergeRun *m) {
        return &m->merger.stream;
}

uint64_t merge_run_passes(const MergeRun *m) {
        return m->passes;
}

uint64_t merge_run_bytes(const MergeRun *m) {
        return m->bytes;
}

MergeRun *merge_run_free(MergeRun *m) {
        if (!m)
                return NULL;
        merge_close_readers(m);
        if (m->scratch_fd >= 0)
                close(m->scratch_fd);
        free(m);
        return NULL;
}

/* SPDX-License-Identifier: MIT */
/* The built-in applications of the papers' benchmark sets (PUMA's, which
 * the FlexSlot paper runs, and Hadoop's examples): wordcount, grep, sort and
 * inverted-index here; the two histograms in apps-movies.c. */
#include "app.h"

#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/macro.h"

int app_emit_one(Emitter *out, const void *s, size_t n) {
        return emitter_emit(out, s, n, "1", 1);
}

int app_sum_counts(void *state, const uint8_t *key, size_t klen, ValueIter *values, Emitter *out) {
        const uint8_t *v;
        size_t vlen;
        uint64_t sum = 0, x;
        char buf[24];
        int r, n;

        while ((r = values->next(values, &v, &vlen)) > 0) {
                if (record_parse_u64(v, vlen, &x) < 0 || x > UINT64_MAX - sum)
                        return log_error_errno(
                                -EBADMSG, "The value '%.*s' of key '%.*s' is not a count",
                                (int)MIN(vlen, (size_t)32), v, (int)MIN(klen, (size_t)64), key);
                sum += x;
        }
        if (r < 0)
                return r;
        n = snprintf(buf, sizeof(buf), "%" PRIu64, sum);
        return emitter_emit(out, key, klen, buf, (size_t)n);
}

/* java.util.StringTokenizer's default delimiters, which Hadoop's WordCount
 * splits on. */
static bool is_delimiter(uint8_t c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* The next token of line at or after *pos: 1 with it, 0 when none is left. */
static int next_token(const uint8_t *line, size_t len, size_t *pos, const uint8_t **tok,
                      size_t *tlen) {
        size_t i = *pos, start;

        while (i < len && is_delimiter(line[i]))
                i++;
        if (i == len) {
                *pos = i;
                return 0;
        }
        start = i;
        while (i < len && !is_delimiter(line[i]))
                i++;
        *tok = line + start;
        *tlen = i - start;
        *pos = i;
        return 1;
}

static int wordcount_map(void *state, const MapRecord *rec, Emitter *out) {
        const uint8_t *w;
        size_t pos = 0, n;
        int r;

        while (next_token(rec->line, rec->len, &pos, &w, &n) > 0) {
                r = app_emit_one(out, w, n);
                if (r < 0)
                        return r;
        }
        return 0;
}

static const AppOps app_wordcount = {
        .info = &mapred_app_wordcount,
        .map = wordcount_map,
        .combine = app_sum_counts,
        .reduce = app_sum_counts,
};

/* Hadoop's Grep example (its search job; the second job, which sorts the
 * matches by count, is not part of it): counts every match of an extended
 * regular expression. Empty matches are not counted. */
typedef struct Grep {
        regex_t re;
        char *line; /* the line with a NUL after it */
        size_t cap;
} Grep;

static int grep_init(const AppConfig *cfg, void **ret_state) {
        Grep *g = calloc(1, sizeof(Grep));
        char why[512];
        int r;

        if (!g)
                return -ENOMEM;
        r = mapred_grep_compile(&g->re, cfg->arg, why, sizeof(why));
        if (r < 0) {
                free(g);
                return log_error_errno(r, "%s", why);
        }
        *ret_state = g;
        return 0;
}

static void grep_free(void *state) {
        Grep *g = state;

        regfree(&g->re);
        free(g->line);
        free(g);
}

static int grep_map(void *state, const MapRecord *rec, Emitter *out) {
        Grep *g = state;
        size_t at = 0;
        int r;

        /* REG_STARTEND lets a line hold a NUL, but the string must still
         * end in one for whatever takes its length first. */
        if (rec->len + 1 > g->cap) {
                size_t cap = MAX(rec->len + 1, 2 * g->cap);
                char *l = realloc(g->line, cap);
                if (!l)
                        return -ENOMEM;
                g->line = l;
                g->cap = cap;
        }
        memcpy(g->line, rec->line, rec->len);
        g->line[rec->len] = '\0';
        while (at <= rec->len) {
                /* The offsets returned count from the line's start. */
                regmatch_t m = { .rm_so = (regoff_t)at, .rm_eo = (regoff_t)rec->len };
                int flags = REG_STARTEND | (at > 0 ? REG_NOTBOL : 0);

                if (regexec(&g->re, g->line, 1, &m, flags) != 0)
                        return 0;
                if (m.rm_eo == m.rm_so) {
                        at = (size_t)m.rm_eo + 1;
                        continue;
                }
                r = app_emit_one(out, rec->line + m.rm_so, (size_t)(m.rm_eo - m.rm_so));
                if (r < 0)
                        return r;
                at = (size_t)m.rm_eo;
        }
        return 0;
}

static const AppOps app_grep = {
        .info = &mapred_app_grep,
        .init = grep_init,
        .free = grep_free,
        .map = grep_map,
        .combine = app_sum_counts,
        .reduce = app_sum_counts,
};

/* Sort: identity map and reduce over "key\tvalue" lines (a line without a
 * tab is all key), so the framework's sort is the whole job. */
static int sort_map(void *state, const MapRecord *rec, Emitter *out) {
        const uint8_t *tab = memchr(rec->line, '\t', rec->len);
        size_t klen = tab ? (size_t)(tab - rec->line) : rec->len;

        return emitter_emit(out, rec->line, klen, tab ? tab + 1 : rec->line + rec->len,
                            tab ? rec->len - klen - 1 : 0);
}

static int identity_reduce(void *state, const uint8_t *key, size_t klen, ValueIter *values,
                           Emitter *out) {
        const uint8_t *v;
        size_t vlen;
        int r;

        while ((r = values->next(values, &v, &vlen)) > 0) {
                r = emitter_emit(out, key, klen, v, vlen);
                if (r < 0)
                        return r;
        }
        return r;
}

static const AppOps app_sort = {
        .info = &mapred_app_sort,
        .map = sort_map,
        .reduce = identity_reduce,
};

/* Inverted index: word -> the documents (input file names) it occurs in,
 * each once, sorted, joined by ','. */
static int inverted_index_map(void *state, const MapRecord *rec, Emitter *out) {
        const char *slash = strrchr(rec->path, '/');
        const char *doc = slash ? slash + 1 : rec->path;
        size_t doclen = strlen(doc), pos = 0, n;
        const uint8_t *w;
        int r;

        while (next_token(rec->line, rec->len, &pos, &w, &n) > 0) {
                r = emitter_emit(out, w, n, doc, doclen);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The distinct values of a group, in byte order: copies in one buffer. */
typedef struct ValueSet {
        uint8_t *bytes;
        size_t len, cap;
        size_t *offsets; /* n + 1 of them: value i is [offsets[i], offsets[i+1]) */
        size_t n, ncap;
} ValueSet;

static int value_set_add(ValueSet *s, const uint8_t *v, size_t vlen) {
        if (s->len + vlen > s->cap) {
                size_t cap = MAX(s->len + vlen, 2 * s->cap + 64);
                uint8_t *b = realloc(s->bytes, cap);
                if (!b)
                        return -ENOMEM;
                s->bytes = b;
                s->cap = cap;
        }
        if (s->n + 2 > s->ncap) {
                size_t cap = 2 * s->ncap + 16;
                size_t *o = realloc(s->offsets, cap * sizeof(size_t));
                if (!o)
                        return -ENOMEM;
                s->offsets = o;
                s->ncap = cap;
        }
        if (s->n == 0)
                s->offsets[0] = 0;
        if (vlen > 0)
                memcpy(s->bytes + s->len, v, vlen);
        s->len += vlen;
        s->offsets[++s->n] = s->len;
        return 0;
}

static int value_set_compare(const void *a, const void *b, void *userdata) {
        const ValueSet *s = userdata;
        size_t i = *(const size_t *)a, j = *(const size_t *)b;

        return record_key_compare(s->bytes + s->offsets[i], s->offsets[i + 1] - s->offsets[i],
                                  s->bytes + s->offsets[j], s->offsets[j + 1] - s->offsets[j]);
}

/* Collects a group's values and returns the indices of the distinct ones
 * in byte order. */
static int value_set_collect(ValueSet *s, ValueIter *values, size_t **ret_order, size_t *ret_n) {
        const uint8_t *v;
        size_t vlen, *order, n = 0;
        int r;

        while ((r = values->next(values, &v, &vlen)) > 0) {
                r = value_set_add(s, v, vlen);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        order = malloc(MAX(s->n, (size_t)1) * sizeof(size_t));
        if (!order)
                return -ENOMEM;
        for (size_t i = 0; i < s->n; i++)
                order[i] = i;
        qsort_r(order, s->n, sizeof(size_t), value_set_compare, s);
        for (size_t i = 0; i < s->n; i++)
                if (n == 0 || value_set_compare(&order[n - 1], &order[i], s) != 0)
                        order[n++] = order[i];
        *ret_order = order;
        *ret_n = n;
        return 0;
}

static void value_set_done(ValueSet *s) {
        free(s->bytes);
        free(s->offsets);
}

static int inverted_index_combine(void *state, const uint8_t *key, size_t klen, ValueIter *values,
                                  Emitter *out) {
        ValueSet s = { 0 };
        _cleanup_free_ size_t *order = NULL;
        size_t n;
        int r;

        r = value_set_collect(&s, values, &order, &n);
        for (size_t i = 0; r >= 0 && i < n; i++) {
                size_t v = order[i];
                r = emitter_emit(out, key, klen, s.bytes + s.offsets[v],
                                 s.offsets[v + 1] - s.offsets[v]);
        }
        value_set_done(&s);
        return r;
}

static int inverted_index_reduce(void *state, const uint8_t *key, size_t klen, ValueIter *values,
                                 Emitter *out) {
        ValueSet s = { 0 };
        _cleanup_free_ size_t *order = NULL;
        _cleanup_free_ uint8_t *list = NULL;
        size_t n, len = 0;
        int r;

        r = value_set_collect(&s, values, &order, &n);
        if (r >= 0) {
                list = malloc(s.len + n + 1);
                if (!list)
                        r = -ENOMEM;
        }
        for (size_t i = 0; r >= 0 && i < n; i++) {
                size_t v = order[i], vlen = s.offsets[v + 1] - s.offsets[v];

                if (i > 0)
                        list[len++] = ',';
                memcpy(list + len, s.bytes + s.offsets[v], vlen);
                len += vlen;
        }
        if (r >= 0)
                r = emitter_emit(out, key, klen, list, len);
        value_set_done(&s);
        return r;
}

static const AppOps app_inverted_index = {
        .info = &mapred_app_inverted_index,
        .map = inverted_index_map,
        .combine = inverted_index_combine,
        .reduce = inverted_index_reduce,
};

const AppOps *const app_table[] = {
        &app_wordcount,         &app_grep, &app_sort, &app_inverted_index, &app_histogram_movies,
        &app_histogram_ratings, NULL,
};

const AppOps *app_find(const char *name) {
        for (const AppOps *const *a = app_table; *a; a++)
                if (strcmp((*a)->info->name, name) == 0)
                        return *a;
        return NULL;
}

int app_init(const AppOps *ops, const AppConfig *cfg, void **ret_state) {
        void *state = NULL;
        char why[512];
        int r;

        /* The application's own init checks what it compiles (grep). */
        if ((ops->info->arg_name && !cfg->arg) || (!ops->info->arg_name && cfg->arg)) {
                r = mapred_app_check_arg(ops->info, cfg->arg, why, sizeof(why));
                return log_error_errno(r, "%s", why);
        }
        if (ops->init) {
                r = ops->init(cfg, &state);
                if (r < 0)
                        return r;
        }
        *ret_state = state;
        return 0;
}

void app_free(const AppOps *ops, void *state) {
        if (ops->free && state)
                ops->free(state);
}

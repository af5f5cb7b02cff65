/* SPDX-License-Identifier: MIT */
/* PUMA's histogram benchmarks (Faraz Ahmad et al., the FlexSlot paper's
 * benchmark set). Their input is the Netflix ratings data in PUMA's form,
 * one movie per line:
 *
 *     MOVIE_ID:USER_ID_RATING,USER_ID_RATING,...
 *
 * e.g. "1:1488844_3,822109_5,885013_4". As in PUMA, a line without a ':'
 * after a non-empty movie id is ignored, the rating of a review is what
 * follows its first '_' (the whole review without one), and empty reviews
 * between commas are skipped. A rating that is not a decimal integer is an
 * error naming the file and line (PUMA's task fails on it too). */
#include "app.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "common/macro.h"

#define RATING_MAX 1000000

typedef int (*RatingFunc)(void *userdata, uint64_t rating);

/* Calls fn for every review's rating; 0 also for an ignored line. */
static int for_each_rating(const MapRecord *rec, RatingFunc fn, void *userdata) {
        const uint8_t *colon = memchr(rec->line, ':', rec->len);
        const uint8_t *p, *end = rec->line + rec->len;
        int r;

        if (!colon || colon == rec->line)
                return 0;
        for (p = colon + 1; p < end;) {
                const uint8_t *comma = memchr(p, ',', (size_t)(end - p));
                const uint8_t *tok_end = comma ? comma : end;
                const uint8_t *under = memchr(p, '_', (size_t)(tok_end - p));
                const uint8_t *rating = under ? under + 1 : p;
                uint64_t v;

                if (tok_end > p) {
                        if (record_parse_u64(rating, (size_t)(tok_end - rating), &v) < 0 ||
                            v > RATING_MAX)
                                return log_error_errno(
                                        -EBADMSG,
                                        "%s: line at byte %" PRIu64
                                        ": the review '%.*s' has no rating (USER_RATING)",
                                        rec->path, rec->offset,
                                        (int)MIN((size_t)(tok_end - p), (size_t)40), p);
                        r = fn(userdata, v);
                        if (r < 0)
                                return r;
                }
                p = tok_end + 1;
        }
        return 0;
}

typedef struct RatingSum {
        uint64_t sum, n;
} RatingSum;

static int rating_add(void *userdata, uint64_t rating) {
        RatingSum *s = userdata;

        s->sum += rating;
        s->n++;
        return 0;
}

/* PUMA's bins are half a star wide and named by their upper end, from its
 * float arithmetic: an average of exactly 3.0 goes to 3.5, 3.5 to 4.0. */
static int histogram_movies_map(void *state, const MapRecord *rec, Emitter *out) {
        RatingSum s = { 0 };
        float avg, whole, bin;
        char key[32];
        int r, n;

        r = for_each_rating(rec, rating_add, &s);
        if (r < 0)
                return r;
        /* PUMA would divide by zero and bin a NaN at 0.0: a movie without
         * reviews is left out here instead. */
        if (s.n == 0)
                return 0;
        avg = (float)s.sum / (float)s.n;
        whole = floorf(avg);
        bin = whole + (avg - whole < 0.5f ? 0.5f : 1.0f);
        n = snprintf(key, sizeof(key), "%.1f", (double)bin);
        return app_emit_one(out, key, (size_t)n);
}

const AppOps app_histogram_movies = {
        .info = &mapred_app_histogram_movies,
        .map = histogram_movies_map,
        .combine = app_sum_counts,
        .reduce = app_sum_counts,
};

static int rating_emit(void *userdata, uint64_t rating) {
        char key[24];
        int n = snprintf(key, sizeof(key), "%" PRIu64, rating);

        return app_emit_one(userdata, key, (size_t)n);
}

static int histogram_ratings_map(void *state, const MapRecord *rec, Emitter *out) {
        return for_each_rating(rec, rating_emit, out);
}

const AppOps app_histogram_ratings = {
        .info = &mapred_app_histogram_ratings,
        .map = histogram_ratings_map,
        .combine = app_sum_counts,
        .reduce = app_sum_counts,
};

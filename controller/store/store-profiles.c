/* SPDX-License-Identifier: MIT */
/* ARIA job profiles (Verma, Cherkasova, Campbell, ICAC'11, section 2.2),
 * keyed as section 6's Profile Database keys them, by (user, job name): one
 * per recurring job, from its latest run. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "store-internal.h"

/* The profile's fields, in the order of their columns in every statement
 * below. */
static const struct {
        const char *name;
        size_t offset;
} fields[] = {
#define FIELD(f) \
        { #f, offsetof(StoreProfileStats, f) }
        FIELD(map_min),         FIELD(map_avg),    FIELD(map_max),    FIELD(map_input),
        FIELD(map_selectivity), FIELD(sh1_avg),    FIELD(sh1_max),    FIELD(shtyp_avg),
        FIELD(shtyp_max),       FIELD(reduce_avg), FIELD(reduce_max), FIELD(reduce_selectivity),
#undef FIELD
};

#define PROFILE_COLUMNS                                                                        \
        "map_min, map_avg, map_max, map_input, map_selectivity, sh1_avg, sh1_max, shtyp_avg, " \
        "shtyp_max, reduce_avg, reduce_max, reduce_selectivity"

/* The double at offset in p; memcpy, as the bytes of a struct are not an
 * array of doubles. */
static double get_at(const StoreProfileStats *p, size_t offset) {
        double v;

        memcpy(&v, (const char *)p + offset, sizeof(v));
        return v;
}

static void set_at(StoreProfileStats *p, size_t offset, double v) {
        memcpy((char *)p + offset, &v, sizeof(v));
}

/* The pairs a profile keeps in order, low <= high; the low one is named
 * when they are not. */
static const struct {
        const char *low_name, *high_name;
        size_t low, high;
} ordered_pairs[] = {
#define PAIR(lo, hi) \
        { #lo, #hi, offsetof(StoreProfileStats, lo), offsetof(StoreProfileStats, hi) }
        PAIR(map_min, map_avg),     PAIR(map_avg, map_max),       PAIR(sh1_avg, sh1_max),
        PAIR(shtyp_avg, shtyp_max), PAIR(reduce_avg, reduce_max),
#undef PAIR
};

/* Names the first field of p that a profile may not hold. */
static int check_profile(const StoreProfileStats *p, StoreError *err) {
        if (!p)
                return store_fail(err, "profile", -EINVAL, "profile: missing");
        for (size_t i = 0; i < ELEMENTSOF(fields); i++) {
                double v = get_at(p, fields[i].offset);

                if (!isfinite(v) || v < 0)
                        return store_fail(err, fields[i].name, -EINVAL,
                                          "%s: %g; a profile holds finite numbers, 0 or more",
                                          fields[i].name, v);
        }
        if (!(p->map_avg > 0))
                return store_fail(err, "map_avg", -EINVAL, "map_avg: 0; a map task takes time");
        if (!(p->map_input > 0))
                return store_fail(err, "map_input", -EINVAL,
                                  "map_input: 0; a map task reads something");
        for (size_t i = 0; i < ELEMENTSOF(ordered_pairs); i++) {
                double lo = get_at(p, ordered_pairs[i].low), hi = get_at(p, ordered_pairs[i].high);

                if (lo > hi)
                        return store_fail(err, ordered_pairs[i].low_name, -EINVAL,
                                          "%s: %g is above %s, %g", ordered_pairs[i].low_name, lo,
                                          ordered_pairs[i].high_name, hi);
        }
        return 0;
}

static int check_key(const char *user, const char *name, StoreError *err) {
        int r = store_check_identifier(user, "user", err);

        if (r >= 0)
                r = store_check_text(name, STORE_NAME_MAX, false, "name", NULL, err);
        return r;
}

void store_profile_clear(StoreProfile *p) {
        if (!p)
                return;
        free((char *)p->user);
        free((char *)p->name);
        *p = (StoreProfile){ 0 };
}

void store_profiles_free(StoreProfile *profiles, size_t n) {
        for (size_t i = 0; profiles && i < n; i++)
                store_profile_clear(&profiles[i]);
        free(profiles);
}

/* A row of "user, name, job, updated, " PROFILE_COLUMNS. */
static int profile_from_row(Store *s, sqlite3_stmt *st, void *ret, StoreError *err) {
        StoreProfile *p = ret;
        const char *user = (const char *)sqlite3_column_text(st, 0);
        int64_t job = sqlite3_column_int64(st, 2), updated = sqlite3_column_int64(st, 3);
        char *user_copy = NULL, *name_copy = NULL;

        *p = (StoreProfile){ .job = (uint64_t)job, .updated = (usec_t)updated };
        for (size_t i = 0; i < ELEMENTSOF(fields); i++)
                set_at(&p->profile, fields[i].offset, sqlite3_column_double(st, 4 + (int)i));
        if (!user || sqlite3_column_type(st, 1) == SQLITE_NULL || job <= 0 || updated < 0 ||
            check_profile(&p->profile, NULL) < 0)
                return store_fail(err, NULL, -EUCLEAN, "%s: a profile of user %s is malformed",
                                  s->path,
                                  store_check_identifier(user, "user", NULL) == 0 ? user : "?");
        if (store_column_strdup(st, 0, &user_copy) < 0 ||
            store_column_strdup(st, 1, &name_copy) < 0) {
                free(user_copy);
                return store_fail(err, NULL, -ENOMEM, "out of memory");
        }
        p->user = user_copy;
        p->name = name_copy;
        return 0;
}

static int bind_key(sqlite3_stmt *st, const char *user, const char *name) {
        int rc = sqlite3_bind_text(st, 1, user, -1, SQLITE_STATIC);

        return rc == SQLITE_OK ? sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC) : rc;
}

static int put_profile(Store *s, const char *user, const char *name, uint64_t job,
                       const StoreProfileStats *profile, StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *old = NULL, *st = NULL;
        int rc, r;

        r = store_stmt(s, STMT_PROFILE_JOB,
                       "SELECT job FROM aria_profiles WHERE user = ? AND name = ?", &old, err);
        if (r < 0)
                return r;
        if (bind_key(old, user, name) != SQLITE_OK)
                return store_sqlite_fail(s, sqlite3_errcode(s->db), err, "cannot read a profile");
        rc = sqlite3_step(old);
        if (rc == SQLITE_ROW && (uint64_t)sqlite3_column_int64(old, 0) > job)
                return store_fail(err, "job", -ESTALE,
                                  "job: %" PRIu64 " ran before job %" PRId64
                                  ", whose profile is stored",
                                  job, (int64_t)sqlite3_column_int64(old, 0));
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
                return store_sqlite_fail(s, rc, err, "cannot read a profile");

        r = store_stmt(
                s, STMT_PROFILE_PUT,
                "INSERT OR REPLACE INTO aria_profiles (user, name, job, updated, " PROFILE_COLUMNS
                ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                &st, err);
        if (r < 0)
                return r;
        rc = bind_key(st, user, name);
        if (rc == SQLITE_OK)
                rc = sqlite3_bind_int64(st, 3, (int64_t)job);
        if (rc == SQLITE_OK)
                rc = sqlite3_bind_int64(st, 4, (int64_t)now_realtime_usec());
        for (size_t i = 0; i < ELEMENTSOF(fields) && rc == SQLITE_OK; i++)
                rc = sqlite3_bind_double(st, 5 + (int)i, get_at(profile, fields[i].offset));
        if (rc != SQLITE_OK)
                return store_sqlite_fail(s, rc, err, "cannot write a profile");
        return store_step_done(s, st, err, "cannot write a profile");
}

int store_profile_put(Store *s, const char *user, const char *name, uint64_t job,
                      const StoreProfileStats *profile, StoreError *err) {
        _cleanup_(store_tx_rollbackp) Store *tx = NULL;
        int r;

        r = check_key(user, name, err);
        if (r >= 0 && job == 0)
                r = store_fail(err, "job", -EINVAL, "job: 0, no job");
        if (r >= 0)
                r = store_check_int64(job, "job", err);
        if (r >= 0)
                r = check_profile(profile, err);
        if (r >= 0)
                r = store_tx_begin(s, STORE_TX_WRITE, err);
        if (r < 0)
                return r;
        tx = s;
        r = put_profile(s, user, name, job, profile, err);
        if (r < 0)
                return r;
        return store_tx_commit(TAKE_PTR(tx), err);
}

static void profile_rows_clear(StoreRows *rows) {
        store_profiles_free(rows->items, rows->n);
}

int store_profile_get(Store *s, const char *user, const char *name, StoreProfile *ret,
                      StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        _cleanup_(profile_rows_clear) StoreRows rows = { 0 };
        int r;

        r = check_key(user, name, err);
        if (r >= 0)
                r = store_stmt(s, STMT_PROFILE_GET,
                               "SELECT user, name, job, updated, " PROFILE_COLUMNS
                               " FROM aria_profiles WHERE user = ? AND name = ?",
                               &st, err);
        if (r < 0)
                return r;
        if (bind_key(st, user, name) != SQLITE_OK)
                return store_sqlite_fail(s, sqlite3_errcode(s->db), err, "cannot read a profile");
        r = store_read_rows(s, st, sizeof(StoreProfile), profile_from_row, &rows, err,
                            "cannot read a profile");
        if (r < 0)
                return r;
        if (rows.n == 0)
                return store_fail(err, "name", -ENOENT, "no profile of job %s of user %s", name,
                                  user);
        *ret = *(StoreProfile *)rows.items;
        rows.n = 0;
        return 0;
}

int store_profiles_list(Store *s, StoreProfile **ret, size_t *ret_n, StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        _cleanup_(profile_rows_clear) StoreRows rows = { 0 };
        int r;

        r = store_stmt(s, STMT_PROFILES_LIST,
                       "SELECT user, name, job, updated, " PROFILE_COLUMNS
                       " FROM aria_profiles ORDER BY user, name",
                       &st, err);
        if (r >= 0)
                r = store_read_rows(s, st, sizeof(StoreProfile), profile_from_row, &rows, err,
                                    "cannot list profiles");
        if (r < 0)
                return r;
        *ret = TAKE_PTR(rows.items);
        *ret_n = rows.n;
        rows.n = 0;
        return 0;
}

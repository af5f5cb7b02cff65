/* SPDX-License-Identifier: MIT */
/* Opening a store: the file, the connection's settings, the schema and its
 * upgrades; and what every part of the store shares: errors, the statement
 * cache and transactions. */
#include "store-internal.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/log.h"

/* PRAGMA application_id of a flexslot store, "FLXS": file(1) and the store
 * itself tell it from other SQLite files by it. */
#define STORE_APPLICATION_ID 0x464c5853

/* Another process with the file locked (an operator's sqlite3, a backup) is
 * waited for this long before a statement fails with -EBUSY. */
#define STORE_BUSY_TIMEOUT_MS 5000

/* The schema, one step per version. A step, once released, never changes:
 * stores of every earlier version are brought up to date by running the
 * steps they miss, in one transaction. Version 1 holds jobs and their task
 * attempts; version 2 adds ARIA profiles; version 3 records every attempt
 * from its start, and those lost with their tracker or discarded; version 4
 * an attempt's CPU time and block I/O wait (NULL: not reported). Tables
 * are STRICT (a value of the wrong type is refused) and their constraints
 * repeat the checks the code makes, so that a bug cannot store what the
 * code would refuse. */
static const char *const schema_steps[STORE_SCHEMA_VERSION] = {
        "PRAGMA application_id = 1179408467;\n" /* STORE_APPLICATION_ID */
        "CREATE TABLE schema_version (\n"
        "        version INTEGER PRIMARY KEY,\n"
        "        applied INTEGER NOT NULL\n"
        ") STRICT;\n"
        "CREATE TABLE jobs (\n"
        "        id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
        "        state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded',\n"
        "                                             'failed', 'cancelled')),\n"
        "        name TEXT NOT NULL,\n"
        "        user TEXT NOT NULL,\n"
        "        pool TEXT NOT NULL,\n"
        "        app TEXT,\n"
        "        app_arg TEXT,\n"
        "        mapper TEXT,\n"
        "        reducer TEXT,\n"
        "        n_maps INTEGER NOT NULL DEFAULT 0 CHECK (n_maps >= 0),\n"
        "        n_reduces INTEGER NOT NULL CHECK (n_reduces >= 0),\n"
        "        deadline INTEGER NOT NULL DEFAULT 0,\n"
        "        submitted INTEGER NOT NULL,\n"
        "        started INTEGER NOT NULL DEFAULT 0,\n"
        "        finished INTEGER NOT NULL DEFAULT 0,\n"
        "        message TEXT,\n"
        "        CHECK ((app IS NULL) <> (mapper IS NULL))\n"
        ") STRICT;\n"
        "CREATE INDEX jobs_state ON jobs (state);\n"
        "CREATE TABLE job_inputs (\n"
        "        job INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,\n"
        "        idx INTEGER NOT NULL,\n"
        "        path TEXT NOT NULL,\n"
        "        PRIMARY KEY (job, idx)\n"
        ") STRICT, WITHOUT ROWID;\n"
        "CREATE TABLE task_attempts (\n"
        "        job INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,\n"
        "        type TEXT NOT NULL CHECK (type IN ('map', 'reduce')),\n"
        "        idx INTEGER NOT NULL CHECK (idx >= 0),\n"
        "        attempt INTEGER NOT NULL CHECK (attempt >= 0),\n"
        "        node TEXT NOT NULL,\n"
        "        status TEXT NOT NULL CHECK (status IN ('succeeded', 'failed', 'killed')),\n"
        "        started INTEGER NOT NULL CHECK (started > 0),\n"
        "        finished INTEGER NOT NULL CHECK (finished >= started),\n"
        "        shuffle_end INTEGER NOT NULL DEFAULT 0,\n"
        "        input_bytes INTEGER NOT NULL CHECK (input_bytes >= 0),\n"
        "        output_bytes INTEGER NOT NULL CHECK (output_bytes >= 0),\n"
        "        output TEXT CHECK ((status = 'succeeded') = (output IS NOT NULL)),\n"
        "        reason TEXT,\n"
        "        PRIMARY KEY (job, type, idx, attempt)\n"
        ") STRICT, WITHOUT ROWID;\n"
        /* A task's output is its one succeeded attempt's. */
        "CREATE UNIQUE INDEX task_attempts_succeeded ON task_attempts (job, type, idx)\n"
        "        WHERE status = 'succeeded';\n",

        "CREATE TABLE aria_profiles (\n"
        "        user TEXT NOT NULL,\n"
        "        name TEXT NOT NULL,\n"
        "        job INTEGER NOT NULL CHECK (job > 0),\n"
        "        updated INTEGER NOT NULL,\n"
        "        map_min REAL NOT NULL CHECK (map_min >= 0),\n"
        "        map_avg REAL NOT NULL CHECK (map_avg > 0),\n"
        "        map_max REAL NOT NULL CHECK (map_max >= 0),\n"
        "        map_input REAL NOT NULL CHECK (map_input > 0),\n"
        "        map_selectivity REAL NOT NULL CHECK (map_selectivity >= 0),\n"
        "        sh1_avg REAL NOT NULL CHECK (sh1_avg >= 0),\n"
        "        sh1_max REAL NOT NULL CHECK (sh1_max >= 0),\n"
        "        shtyp_avg REAL NOT NULL CHECK (shtyp_avg >= 0),\n"
        "        shtyp_max REAL NOT NULL CHECK (shtyp_max >= 0),\n"
        "        reduce_avg REAL NOT NULL CHECK (reduce_avg >= 0),\n"
        "        reduce_max REAL NOT NULL CHECK (reduce_max >= 0),\n"
        "        reduce_selectivity REAL NOT NULL CHECK (reduce_selectivity >= 0),\n"
        "        PRIMARY KEY (user, name)\n"
        ") STRICT, WITHOUT ROWID;\n",

        /* SQLite cannot change a CHECK constraint in place: the table is
         * made again, with its rows. */
        "CREATE TABLE task_attempts_v3 (\n"
        "        job INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,\n"
        "        type TEXT NOT NULL CHECK (type IN ('map', 'reduce')),\n"
        "        idx INTEGER NOT NULL CHECK (idx >= 0),\n"
        "        attempt INTEGER NOT NULL CHECK (attempt >= 0),\n"
        "        node TEXT NOT NULL,\n"
        "        status TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed',\n"
        "                                               'killed', 'lost', 'discarded')),\n"
        "        started INTEGER NOT NULL CHECK (started > 0),\n"
        "        finished INTEGER NOT NULL CHECK ((status = 'running') = (finished = 0) AND\n"
        "                                         (finished = 0 OR finished >= started)),\n"
        "        shuffle_end INTEGER NOT NULL DEFAULT 0,\n"
        "        input_bytes INTEGER NOT NULL CHECK (input_bytes >= 0),\n"
        "        output_bytes INTEGER NOT NULL CHECK (output_bytes >= 0),\n"
        "        output TEXT CHECK ((status = 'succeeded') = (output IS NOT NULL)),\n"
        "        reason TEXT,\n"
        "        PRIMARY KEY (job, type, idx, attempt)\n"
        ") STRICT, WITHOUT ROWID;\n"
        "INSERT INTO task_attempts_v3 SELECT job, type, idx, attempt, node, status, started,\n"
        "        finished, shuffle_end, input_bytes, output_bytes, output, reason\n"
        "        FROM task_attempts;\n"
        "DROP TABLE task_attempts;\n"
        "ALTER TABLE task_attempts_v3 RENAME TO task_attempts;\n"
        "CREATE UNIQUE INDEX task_attempts_succeeded ON task_attempts (job, type, idx)\n"
        "        WHERE status = 'succeeded';\n",

        "ALTER TABLE task_attempts ADD COLUMN cpu_time INTEGER CHECK (cpu_time >= 0);\n"
        "ALTER TABLE task_attempts ADD COLUMN io_wait INTEGER\n"
        "        CHECK ((io_wait IS NULL) = (cpu_time IS NULL) AND io_wait >= 0);\n",
};

/* Messages go out over D-Bus, which takes UTF-8 only, and to terminals:
 * text from SQLite (which may quote names from a foreign file) keeps
 * printable ASCII alone. */
static void copy_printable(char *dst, size_t size, const char *src) {
        size_t i = 0;

        for (; src && src[i] && i + 1 < size; i++)
                dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
        if (size > 0)
                dst[i] = '\0';
}

void store_error_set(StoreError *err, const char *field, const char *fmt, ...) {
        va_list ap;

        if (!err)
                return;
        err->field = field;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof(err->message), fmt, ap);
        va_end(ap);
}

void store_error_prefix(StoreError *err, const char *prefix) {
        char message[STORE_ERROR_MAX];

        if (!err)
                return;
        memcpy(message, err->message, sizeof(message));
        snprintf(err->message, sizeof(err->message), "%s%s", prefix, message);
}

void store_sqlite_error_set(Store *s, int rc, StoreError *err, const char *what) {
        char text[256];

        s->errors++;
        if ((rc & 0xff) == SQLITE_NOTADB) {
                store_error_set(err, NULL, "%s: not a SQLite database", s->path);
                return;
        }
        copy_printable(text, sizeof(text), s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
        store_error_set(err, NULL, "%s: %s%s: %s", s->path,
                        (rc & 0xff) == SQLITE_CORRUPT ? "corrupt: " : "", what, text);
}

uint64_t store_errors(const Store *s) {
        return s->errors;
}

int store_stmt(Store *s, StoreStmt id, const char *sql, sqlite3_stmt **ret, StoreError *err) {
        if (!s->stmts[id]) {
                int rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
                                            &s->stmts[id], NULL);
                if (rc != SQLITE_OK)
                        return store_sqlite_fail(s, rc, err, "cannot prepare a statement");
        }
        *ret = s->stmts[id];
        return 0;
}

void store_stmt_resetp(sqlite3_stmt **st) {
        if (!*st)
                return;
        sqlite3_reset(*st);
        sqlite3_clear_bindings(*st);
}

int store_step_done(Store *s, sqlite3_stmt *st, StoreError *err, const char *what) {
        int rc = sqlite3_step(st);

        return rc == SQLITE_DONE ? 0 : store_sqlite_fail(s, rc, err, what);
}

static int run_cached(Store *s, StoreStmt id, const char *sql, StoreError *err, const char *what) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int r;

        r = store_stmt(s, id, sql, &st, err);
        if (r < 0)
                return r;
        return store_step_done(s, st, err, what);
}

/* The group's records are lost (SQLite rolled its transaction back after
 * an I/O error, or its commit failed): the first such failure is what
 * store_group_commit() returns. */
static void group_lost(Store *s, int r, const StoreError *err) {
        s->group_open = false;
        if (s->group_r < 0)
                return;
        s->group_r = r < 0 ? r : -EIO;
        if (err && err->message[0])
                store_error_set(&s->group_err, NULL, "%s (the group's task records are lost)",
                                err->message);
        else
                store_error_set(&s->group_err, NULL,
                                "%s: the group's task records are lost: SQLite rolled its "
                                "transaction back",
                                s->path);
}

/* Commits the open group, whose records a WRITE's sync makes durable with
 * its own. */
static int group_flush(Store *s, StoreError *err) {
        int r;

        s->group_open = false;
        r = run_cached(s, STMT_COMMIT, "COMMIT", err, "cannot commit");
        if (r < 0) {
                store_tx_rollback(s);
                group_lost(s, r, err);
                return r;
        }
        s->commits++;
        return 0;
}

static int begin(Store *s, StoreTx kind, StoreError *err) {
        bool full = kind == STORE_TX_WRITE;
        int r;

        /* synchronous is the connection's, and can change only between
         * transactions. */
        if (kind != STORE_TX_READ && full != s->sync_full) {
                r = full ? run_cached(s, STMT_SYNC_FULL, "PRAGMA synchronous = FULL", err,
                                      "cannot set synchronous")
                         : run_cached(s, STMT_SYNC_NORMAL, "PRAGMA synchronous = NORMAL", err,
                                      "cannot set synchronous");
                if (r < 0)
                        return r;
                s->sync_full = full;
        }
        s->writing = kind != STORE_TX_READ;
        if (kind == STORE_TX_READ)
                return run_cached(s, STMT_BEGIN_READ, "BEGIN DEFERRED", err,
                                  "cannot begin a transaction");
        return run_cached(s, STMT_BEGIN_WRITE, "BEGIN IMMEDIATE", err,
                          "cannot begin a transaction");
}

int store_tx_begin(Store *s, StoreTx kind, StoreError *err) {
        int r;

        if (s->group_open && kind == STORE_TX_WRITE) {
                r = group_flush(s, err);
                if (r < 0)
                        return r;
        }
        if (!s->group_open && !(s->grouping && kind == STORE_TX_RECORD))
                return begin(s, kind, err);
        if (!s->group_open) {
                r = begin(s, STORE_TX_RECORD, err);
                if (r < 0)
                        return r;
                s->group_open = true;
        }
        r = run_cached(s, STMT_SAVEPOINT, "SAVEPOINT nested", err, "cannot begin a transaction");
        if (r >= 0)
                s->nested = true;
        return r;
}

/* After the savepoint's end: is the group's transaction still there? */
static void group_check(Store *s) {
        if (s->group_open && sqlite3_get_autocommit(s->db))
                group_lost(s, -EIO, NULL);
}

int store_tx_commit(Store *s, StoreError *err) {
        int r;

        if (s->nested) {
                r = run_cached(s, STMT_RELEASE, "RELEASE nested", err, "cannot commit");
                if (r < 0)
                        store_tx_rollback(s);
                s->nested = false;
                group_check(s);
                return r;
        }
        r = run_cached(s, STMT_COMMIT, "COMMIT", err, "cannot commit");
        if (r < 0)
                store_tx_rollback(s);
        else if (s->writing)
                s->commits++;
        return r;
}

void store_tx_rollback(Store *s) {
        if (s->nested) {
                /* Fails only when SQLite rolled the group's transaction
                 * back already, which group_check() sees. */
                (void)run_cached(s, STMT_ROLLBACK_TO, "ROLLBACK TO nested", NULL,
                                 "cannot roll back");
                (void)run_cached(s, STMT_RELEASE, "RELEASE nested", NULL, "cannot roll back");
                s->nested = false;
                group_check(s);
                return;
        }
        /* Fails only when no transaction is open: SQLite rolled it back
         * already after an I/O error. */
        (void)run_cached(s, STMT_ROLLBACK, "ROLLBACK", NULL, "cannot roll back");
}

void store_group_begin(Store *s) {
        s->grouping = true;
}

int store_group_commit(Store *s, StoreError *err) {
        int r = 0;

        assert(!s->nested);
        if (s->group_open)
                r = group_flush(s, err);
        s->grouping = false;
        if (s->group_r < 0) {
                r = s->group_r;
                if (err)
                        *err = s->group_err;
                s->group_r = 0;
        }
        return r;
}

bool store_group_open(const Store *s) {
        return s->grouping;
}

bool store_group_holds(const Store *s) {
        return s->group_open;
}

uint64_t store_commits(const Store *s) {
        return s->commits;
}

int store_column_strdup(sqlite3_stmt *st, int col, char **ret) {
        const unsigned char *text = sqlite3_column_text(st, col);
        char *copy = NULL;

        if (text) {
                copy = strdup((const char *)text);
                if (!copy)
                        return -ENOMEM;
        }
        *ret = copy;
        return 0;
}

int store_bind_text(sqlite3_stmt *st, int i, const char *s) {
        return sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

int store_bind_name_set(sqlite3_stmt *st, int first, const char *const *names, int n,
                        unsigned mask) {
        int rc = SQLITE_OK;

        for (int i = 0; i < n && rc == SQLITE_OK; i++)
                rc = store_bind_text(st, first + i, mask & (1u << i) ? names[i] : NULL);
        return rc;
}

int store_name_lookup(const char *const *names, int n, const char *s) {
        for (int i = 0; s && i < n; i++)
                if (strcmp(names[i], s) == 0)
                        return i;
        return -EINVAL;
}

uint64_t store_column_u64(sqlite3_stmt *st, int col, bool *bad) {
        int64_t v = sqlite3_column_int64(st, col);

        if (v < 0)
                *bad = true;
        return v < 0 ? 0 : (uint64_t)v;
}

unsigned store_column_unsigned(sqlite3_stmt *st, int col, bool *bad) {
        uint64_t v = store_column_u64(st, col, bad);

        if (v > UINT32_MAX)
                *bad = true;
        return (unsigned)MIN(v, (uint64_t)UINT32_MAX);
}

int store_collect_rows(Store *s, sqlite3_stmt *st, size_t size, StoreRowFunc from_row,
                       StoreRows *rows, StoreError *err, const char *what) {
        size_t allocated = rows->n;
        int rc, r;

        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
                if (rows->n == allocated) {
                        size_t more = MAX(allocated * 2, (size_t)8);
                        void *grown = reallocarray(rows->items, more, size);

                        if (!grown)
                                return store_fail(err, NULL, -ENOMEM, "out of memory");
                        rows->items = grown;
                        allocated = more;
                }
                r = from_row(s, st, (char *)rows->items + rows->n * size, err);
                if (r < 0)
                        return r;
                rows->n++;
        }
        return rc == SQLITE_DONE ? 0 : store_sqlite_fail(s, rc, err, what);
}

int store_read_rows(Store *s, sqlite3_stmt *st, size_t size, StoreRowFunc from_row, StoreRows *rows,
                    StoreError *err, const char *what) {
        _cleanup_(store_tx_rollbackp) Store *tx = NULL;
        int r;

        r = store_tx_begin(s, STORE_TX_READ, err);
        if (r < 0)
                return r;
        tx = s;
        r = store_collect_rows(s, st, size, from_row, rows, err, what);
        sqlite3_reset(st);
        if (r < 0)
                return r;
        return store_tx_commit(TAKE_PTR(tx), err);
}

/* ---- argument checks ---- */

/* Length of the UTF-8 sequence at s (at most n bytes), 0 if it is not a
 * valid one: no overlong forms, surrogates or code points above U+10FFFF. */
static size_t utf8_sequence(const unsigned char *s, size_t n, uint32_t *ret) {
        size_t len;
        uint32_t c, min;

        if (s[0] < 0x80) {
                *ret = s[0];
                return 1;
        }
        if ((s[0] & 0xe0) == 0xc0)
                len = 2, c = s[0] & 0x1f, min = 0x80;
        else if ((s[0] & 0xf0) == 0xe0)
                len = 3, c = s[0] & 0x0f, min = 0x800;
        else if ((s[0] & 0xf8) == 0xf0)
                len = 4, c = s[0] & 0x07, min = 0x10000;
        else
                return 0;
        if (len > n)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                c = c << 6 | (s[i] & 0x3f);
        }
        if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
                return 0;
        *ret = c;
        return len;
}

int store_check_text(const char *s, size_t max, bool tabs, const char *field, const char *label,
                     StoreError *err) {
        size_t n;

        label = label ?: field;
        if (!s || !*s)
                return store_fail(err, field, -EINVAL, "%s: empty", label);
        n = strlen(s);
        if (n > max)
                return store_fail(err, field, -EINVAL, "%s: %zu bytes, longer than %zu", label, n,
                                  max);
        for (size_t i = 0; i < n;) {
                uint32_t c;
                size_t len = utf8_sequence((const unsigned char *)s + i, n - i, &c);

                if (len == 0)
                        return store_fail(err, field, -EINVAL, "%s: not UTF-8 at byte %zu", label,
                                          i);
                if (c < 0x20 ? !(tabs && c == '\t') : (c >= 0x7f && c < 0xa0))
                        return store_fail(err, field, -EINVAL,
                                          "%s: control character U+%04" PRIX32 " at byte %zu",
                                          label, c, i);
                i += len;
        }
        return 0;
}

int store_check_identifier(const char *s, const char *field, StoreError *err) {
        size_t n;

        if (!s || !*s)
                return store_fail(err, field, -EINVAL, "%s: empty", field);
        n = strlen(s);
        if (n > STORE_IDENTIFIER_MAX)
                return store_fail(err, field, -EINVAL, "%s: %zu bytes, longer than %d", field, n,
                                  STORE_IDENTIFIER_MAX);
        /* What user, host and UUID names are made of; a first character
         * that no option or hidden file begins with. */
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)s[i];
                bool alnum =
                        (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');

                if (!alnum && (i == 0 ? c != '_' : !strchr("._-@:", c)))
                        return store_fail(err, field, -EINVAL,
                                          "%s: byte %zu (0x%02x) is not a letter, a digit or "
                                          "one of %s",
                                          field, i, c, i == 0 ? "_" : "._-@:");
        }
        return 0;
}

int store_check_path(const char *s, const char *field, const char *label, StoreError *err) {
        int r = store_check_text(s, STORE_PATH_MAX, false, field, label, err);

        if (r < 0)
                return r;
        label = label ?: field;
        if (s[0] == '/')
                return store_fail(err, field, -EINVAL,
                                  "%s: absolute; paths are relative to the data directory", label);
        for (const char *p = s; p;) {
                size_t len = strcspn(p, "/");

                if (len == 2 && p[0] == '.' && p[1] == '.')
                        return store_fail(err, field, -EINVAL,
                                          "%s: has a '..' component, which could leave the "
                                          "data directory",
                                          label);
                p = p[len] ? p + len + 1 : NULL;
        }
        return 0;
}

int store_check_int64(uint64_t v, const char *field, StoreError *err) {
        if (v > INT64_MAX)
                return store_fail(err, field, -EINVAL, "%s: %" PRIu64 " is above %" PRId64, field,
                                  v, INT64_MAX);
        return 0;
}

/* ---- opening ---- */

/* One integer from a statement run once, at open. */
static int query_int(Store *s, const char *sql, int64_t *ret, StoreError *err) {
        sqlite3_stmt *st = NULL;
        int rc, r = 0;

        rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
        if (rc == SQLITE_OK)
                rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
                *ret = sqlite3_column_int64(st, 0);
        else
                r = store_sqlite_fail(s, rc, err, "cannot read the schema");
        sqlite3_finalize(st);
        return r;
}

static int run_sql(Store *s, const char *sql, StoreError *err, const char *what) {
        int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

        return rc == SQLITE_OK ? 0 : store_sqlite_fail(s, rc, err, what);
}

/* The version of the store's schema: 0 for a new (empty) file. */
static int schema_version(Store *s, int64_t *ret, StoreError *err) {
        int64_t app_id = 0, n_objects = 0, has_table = 0, version = 0;
        int r;

        r = query_int(s, "PRAGMA application_id", &app_id, err);
        if (r >= 0)
                r = query_int(s, "SELECT count(*) FROM sqlite_schema", &n_objects, err);
        if (r >= 0)
                r = query_int(s,
                              "SELECT count(*) FROM sqlite_schema "
                              "WHERE type = 'table' AND name = 'schema_version'",
                              &has_table, err);
        if (r < 0)
                return r;
        if (app_id == 0 && n_objects == 0) {
                *ret = 0;
                return 0;
        }
        if (app_id != STORE_APPLICATION_ID)
                return store_fail(err, NULL, -EMEDIUMTYPE,
                                  "%s: a SQLite database, but not a flexslot store "
                                  "(application_id %" PRId64 ", %" PRId64 " schema objects)",
                                  s->path, app_id, n_objects);
        if (!has_table)
                return store_fail(err, NULL, -EUCLEAN,
                                  "%s: a flexslot store without its schema_version table", s->path);
        r = query_int(s, "SELECT ifnull(max(version), -1) FROM schema_version", &version, err);
        if (r < 0)
                return r;
        if (version < 1)
                return store_fail(err, NULL, -EUCLEAN, "%s: no schema version recorded", s->path);
        if (version > STORE_SCHEMA_VERSION)
                return store_fail(err, NULL, -EPROTONOSUPPORT,
                                  "%s: schema version %" PRId64 ", written by a newer flexslot; "
                                  "this one reads versions up to %d",
                                  s->path, version, STORE_SCHEMA_VERSION);
        *ret = version;
        return 0;
}

static int record_version(Store *s, int64_t version, StoreError *err) {
        sqlite3_stmt *st = NULL;
        int rc, r;

        rc = sqlite3_prepare_v2(s->db,
                                "INSERT INTO schema_version (version, applied) VALUES (?, ?)", -1,
                                &st, NULL);
        if (rc == SQLITE_OK)
                rc = sqlite3_bind_int64(st, 1, version);
        if (rc == SQLITE_OK)
                rc = sqlite3_bind_int64(st, 2, (int64_t)now_realtime_usec());
        if (rc == SQLITE_OK)
                rc = sqlite3_step(st);
        r = rc == SQLITE_DONE ? 0
                              : store_sqlite_fail(s, rc, err, "cannot record the schema version");
        sqlite3_finalize(st);
        return r;
}

/* Reads the version and runs the steps the store misses, all in one write
 * transaction: two controllers opening one old store upgrade it once, and
 * an upgrade that fails leaves it as it was. */
static int schema_upgrade(Store *s, StoreError *err) {
        _cleanup_(store_tx_rollbackp) Store *tx = NULL;
        int64_t version = 0;
        int r;

        r = store_tx_begin(s, STORE_TX_WRITE, err);
        if (r < 0)
                return r;
        tx = s;
        r = schema_version(s, &version, err);
        if (r < 0)
                return r;
        /* Step i brings a store of version i to version i + 1. */
        for (size_t i = (size_t)version; i < ELEMENTSOF(schema_steps); i++) {
                r = run_sql(s, schema_steps[i], err, "cannot upgrade the schema");
                if (r < 0)
                        return r;
                r = record_version(s, (int64_t)i + 1, err);
                if (r < 0)
                        return r;
        }
        r = store_tx_commit(TAKE_PTR(tx), err);
        if (r < 0)
                return r;
        if (version > 0 && version < STORE_SCHEMA_VERSION)
                log_info("%s: store upgraded from schema version %" PRId64 " to %d", s->path,
                         version, STORE_SCHEMA_VERSION);
        return 0;
}

/* Any errors quick_check finds, or the one it stops at, refuse the file. */
static int check_integrity(Store *s, StoreError *err) {
        sqlite3_stmt *st = NULL;
        char first[256] = "";
        int rc, r = 0;

        rc = sqlite3_prepare_v2(s->db, "PRAGMA quick_check", -1, &st, NULL);
        while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
                const char *row = (const char *)sqlite3_column_text(st, 0);

                if (row && strcmp(row, "ok") != 0 && !first[0])
                        copy_printable(first, sizeof(first), row);
                rc = SQLITE_OK;
        }
        if (rc != SQLITE_DONE)
                r = store_sqlite_fail(s, rc, err, "quick_check stopped");
        else if (first[0])
                r = store_fail(err, NULL, -EUCLEAN, "%s: corrupt: %s", s->path, first);
        sqlite3_finalize(st);
        return r;
}

/* SQLite creates a missing file with the umask's mode; the store holds the
 * commands users run, so it is created here first, for its owner alone (the
 * WAL and its index take the database's mode). */
static int create_file(const char *path, StoreError *err) {
        _cleanup_close_ int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
        struct stat st;

        if (fd < 0 || fstat(fd, &st) < 0)
                return store_fail(err, NULL, negative_errno(), "%s: cannot open: %s", path,
                                  strerror(errno));
        if (!S_ISREG(st.st_mode))
                return store_fail(err, NULL, -EMEDIUMTYPE, "%s: not a regular file", path);
        return 0;
}

static int open_connection(Store *s, const char *path, StoreError *err) {
        int r, rc;

        s->path = strdup(path);
        if (!s->path)
                return store_fail(err, NULL, -ENOMEM, "out of memory");
        r = create_file(path, err);
        if (r < 0)
                return r;
        rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
        if (rc != SQLITE_OK)
                return store_sqlite_fail(s, rc, err, "cannot open");
        sqlite3_extended_result_codes(s->db, 1);
        sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
        /* A file from elsewhere must not run code or write its own schema:
         * no functions from triggers and views, no writable_schema. */
        sqlite3_db_config(s->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
        sqlite3_db_config(s->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
        return 0;
}

/* The journal mode goes into the file's header: set only once the file is
 * known to be a store. */
static int configure(Store *s, StoreError *err) {
        char mode[16] = "";
        sqlite3_stmt *st = NULL;
        int rc, r;

        s->sync_full = true;
        r = run_sql(s, "PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL", err,
                    "cannot configure the connection");
        if (r < 0)
                return r;
        rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL);
        if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
                copy_printable(mode, sizeof(mode), (const char *)sqlite3_column_text(st, 0));
                rc = SQLITE_OK;
        }
        if (rc != SQLITE_OK)
                r = store_sqlite_fail(s, rc, err, "cannot set the journal mode");
        sqlite3_finalize(st);
        if (r < 0)
                return r;
        if (strcmp(mode, "wal") != 0)
                return store_fail(err, NULL, -EOPNOTSUPP,
                                  "%s: the file system does not allow a write-ahead log "
                                  "(journal mode stays %s)",
                                  s->path, mode);
        return 0;
}

int store_open(const char *path, Store **ret, StoreError *err) {
        _cleanup_(store_closep) Store *s = NULL;
        int64_t version;
        int r;

        if (!path || !*path)
                return store_fail(err, "path", -EINVAL, "path: empty");
        s = calloc(1, sizeof(*s));
        if (!s)
                return store_fail(err, NULL, -ENOMEM, "out of memory");
        /* The file is read (and a foreign or newer one refused) before
         * anything is written to it. */
        r = open_connection(s, path, err);
        if (r >= 0)
                r = schema_version(s, &version, err);
        if (r >= 0)
                r = configure(s, err);
        if (r >= 0)
                r = check_integrity(s, err);
        if (r >= 0)
                r = schema_upgrade(s, err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}

Store *store_close(Store *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(s->stmts); i++)
                sqlite3_finalize(s->stmts[i]);
        /* The last connection's close checkpoints the WAL into the database
         * and removes it. */
        sqlite3_close(s->db);
        free(s->path);
        free(s);
        return NULL;
}

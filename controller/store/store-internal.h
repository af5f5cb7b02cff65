/* SPDX-License-Identifier: MIT */
#pragma once

#include <errno.h>
#include <sqlite3.h>
#include <stdbool.h>

#include "store.h"

/* Every statement the store runs, prepared once on first use and kept. */
typedef enum StoreStmt {
        STMT_SYNC_FULL,
        STMT_SYNC_NORMAL,
        STMT_BEGIN_READ,
        STMT_BEGIN_WRITE,
        STMT_COMMIT,
        STMT_ROLLBACK,
        STMT_SAVEPOINT,
        STMT_RELEASE,
        STMT_ROLLBACK_TO,
        STMT_JOB_INSERT,
        STMT_JOB_INPUT_INSERT,
        STMT_JOB_GET,
        STMT_JOB_INPUTS,
        STMT_JOBS_LIST,
        STMT_JOBS_COUNT,
        STMT_JOB_STATUS,
        STMT_JOB_NEXT_ID,
        STMT_JOB_DONE,
        STMT_JOB_START,
        STMT_JOB_FINISH,
        STMT_JOBS_PRUNE,
        STMT_TASK_GET,
        STMT_TASK_SUCCEEDED,
        STMT_TASK_INSERT,
        STMT_TASK_END,
        STMT_TASKS_LIST,
        STMT_PROFILE_JOB,
        STMT_PROFILE_PUT,
        STMT_PROFILE_GET,
        STMT_PROFILES_LIST,
        _STMT_MAX,
} StoreStmt;

/* What a transaction is for, which says how its commit reaches the disk.
 * Both kinds of write survive the controller's own death (kill -9): a
 * commit is in the WAL, in the kernel's page cache, when COMMIT returns.
 * They differ after a power loss or a kernel crash. WRITE syncs the WAL at
 * each commit (synchronous=FULL), so what the store acknowledged is on the
 * disk: jobs, their state changes and profiles, the things a user was told.
 * RECORD syncs only at checkpoints (synchronous=NORMAL), so the last commits
 * may roll back then, but only as a whole suffix of the log (SQLite replays
 * WAL frames up to the first torn one): task records, of which the
 * controller writes one per finished attempt. A lost one means a finished
 * task runs again and replaces its output with the same (outputs are
 * published atomically), and the next WRITE commit, such as the job's end,
 * syncs every earlier record with it. An fsync takes milliseconds on a disk
 * (flexslot-bench-store shows both), which one per task record would make
 * the store's limit. */
typedef enum StoreTx {
        STORE_TX_READ,
        STORE_TX_WRITE,
        STORE_TX_RECORD,
} StoreTx;

struct Store {
        sqlite3 *db;
        char *path;
        bool sync_full; /* the connection's synchronous setting: FULL, or NORMAL */
        sqlite3_stmt *stmts[_STMT_MAX];
        uint64_t errors;  /* store_errors() */
        uint64_t commits; /* store_commits() */
        bool writing;     /* the open transaction is not a READ */
        /* A group (store_group_begin()): grouping from its begin to its
         * commit; group_open while its RECORD transaction is, which the
         * store's other transactions run inside as a savepoint (nested),
         * but for a WRITE, which commits the group first. group_r and
         * group_err: the first failure that lost the group's records,
         * which store_group_commit() returns. */
        bool grouping, group_open, nested;
        int group_r;
        StoreError group_err;
};

/* Fills err (may be NULL). */
void store_error_set(StoreError *err, const char *field, const char *fmt, ...) _printf_(3, 4);
/* Fills err and evaluates to r, which the caller returns: a macro, so that
 * the analyzers see the error a function returns. */
#define store_fail(err, field, r, ...)                        \
        ({                                                    \
                int fail_r_ = (r);                            \
                store_error_set((err), (field), __VA_ARGS__); \
                fail_r_;                                      \
        })
/* Puts prefix before err's message. */
void store_error_prefix(StoreError *err, const char *prefix);

/* An SQLite result code as a negative errno. */
static inline int store_errno_of_sqlite(sqlite3 *db, int rc) {
        int sys;

        switch (rc & 0xff) {
        case SQLITE_NOMEM:
                return -ENOMEM;
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
                return -EBUSY;
        case SQLITE_READONLY:
                return -EROFS;
        case SQLITE_FULL:
                return -ENOSPC;
        case SQLITE_CORRUPT:
                return -EUCLEAN;
        case SQLITE_NOTADB:
                return -EMEDIUMTYPE;
        case SQLITE_CONSTRAINT:
        case SQLITE_MISMATCH:
        case SQLITE_TOOBIG:
        case SQLITE_RANGE:
                return -EINVAL;
        case SQLITE_IOERR:
        case SQLITE_CANTOPEN:
                sys = db ? sqlite3_system_errno(db) : 0;
                return sys > 0 ? -sys : -EIO;
        default:
                return -EIO;
        }
}

/* Fills err with "path: what: SQLite's message". */
void store_sqlite_error_set(Store *s, int rc, StoreError *err, const char *what);
/* That, evaluating to the negative errno of rc (spelled out as negative for
 * the analyzers, which do not follow the mapping). */
#define store_sqlite_fail(s, rc, err, what)                                   \
        ({                                                                    \
                Store *sqlite_s_ = (s);                                       \
                int sqlite_rc_ = (rc), sqlite_r_;                             \
                store_sqlite_error_set(sqlite_s_, sqlite_rc_, (err), (what)); \
                sqlite_r_ = store_errno_of_sqlite(sqlite_s_->db, sqlite_rc_); \
                sqlite_r_ < 0 ? sqlite_r_ : -EIO;                             \
        })

/* The cached statement id, prepared from sql the first time. Release it
 * with store_stmt_resetp(), which a _cleanup_ variable does. */
int store_stmt(Store *s, StoreStmt id, const char *sql, sqlite3_stmt **ret, StoreError *err);
void store_stmt_resetp(sqlite3_stmt **st);
#define _cleanup_stmt_ _cleanup_(store_stmt_resetp)

/* Runs a statement that returns no row (SQLITE_DONE). */
int store_step_done(Store *s, sqlite3_stmt *st, StoreError *err, const char *what);

/* A write transaction takes the write lock at BEGIN (IMMEDIATE), where the
 * busy timeout applies, rather than at its first write. Commit rolls back
 * when it fails. Statements used inside must be reset before commit.
 * While a group is open, a READ or RECORD transaction is a savepoint in
 * the group's, whose commit and rollback are the savepoint's alone; a
 * WRITE commits the group first, so that what it acknowledges is synced
 * with everything before it. */
int store_tx_begin(Store *s, StoreTx kind, StoreError *err);
int store_tx_commit(Store *s, StoreError *err);
void store_tx_rollback(Store *s);
static inline void store_tx_rollbackp(Store **s) {
        if (*s)
                store_tx_rollback(*s);
}

int store_bind_text(sqlite3_stmt *st, int i, const char *s);
/* Binds the names of the set bits of mask (below n) to parameters first ..
 * first + n - 1 of an "IN (?, ...)", and NULL, which matches nothing, for
 * the others. */
int store_bind_name_set(sqlite3_stmt *st, int first, const char *const *names, int n,
                        unsigned mask);
/* The index of s in names, -EINVAL when it is not there. */
int store_name_lookup(const char *const *names, int n, const char *s);

/* Text of a column as a new string, NULL for NULL: -ENOMEM only. */
int store_column_strdup(sqlite3_stmt *st, int col, char **ret);
/* Integer columns that must be in range; one that is not (only a file
 * written by something else holds one) sets *bad. */
uint64_t store_column_u64(sqlite3_stmt *st, int col, bool *bad);
unsigned store_column_unsigned(sqlite3_stmt *st, int col, bool *bad);

/* Fills *ret from the current row of st. */
typedef int (*StoreRowFunc)(Store *s, sqlite3_stmt *st, void *ret, StoreError *err);
typedef struct StoreRows {
        void *items;
        size_t n;
} StoreRows;
/* Steps st to its end, appending each row to rows (elements of size bytes)
 * by from_row. On failure rows holds the rows read so far, for the caller
 * to free. */
int store_collect_rows(Store *s, sqlite3_stmt *st, size_t size, StoreRowFunc from_row,
                       StoreRows *rows, StoreError *err, const char *what);
/* The same in a read transaction of its own, so that the rows are of one
 * moment. */
int store_read_rows(Store *s, sqlite3_stmt *st, size_t size, StoreRowFunc from_row, StoreRows *rows,
                    StoreError *err, const char *what);

/* What a state change or a task record checks of its job (store-jobs.c). */
typedef struct StoreJobStatus {
        StoreJobState state;
        unsigned n_maps, n_reduces;
} StoreJobStatus;

/* field names the id in an -ENOENT. */
int store_job_status(Store *s, uint64_t id, const char *field, StoreJobStatus *ret,
                     StoreError *err);
/* The same for a job that must not have ended: -EALREADY, saying how it
 * ended, for one that has. */
int store_job_status_unended(Store *s, uint64_t id, const char *field, StoreJobStatus *ret,
                             StoreError *err);

/* Argument checks: each sets err's field to field, and names the value in
 * its message as label ("inputs[2]"), or as field when label is NULL. */
int store_check_text(const char *s, size_t max, bool tabs, const char *field, const char *label,
                     StoreError *err);
int store_check_identifier(const char *s, const char *field, StoreError *err);
int store_check_path(const char *s, const char *field, const char *label, StoreError *err);
int store_check_int64(uint64_t v, const char *field, StoreError *err);

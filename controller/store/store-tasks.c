/* SPDX-License-Identifier: MIT */
/* The attempts of a job's tasks: what a restarted controller reads to know
 * which tasks it need not run again, and which attempts its predecessor
 * left running where; what an operator reads to audit a recovery. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-internal.h"

static const char *const task_status_names[_STORE_TASK_STATUS_MAX] = {
        [STORE_TASK_SUCCEEDED] = "succeeded", [STORE_TASK_FAILED] = "failed",
        [STORE_TASK_KILLED] = "killed",       [STORE_TASK_RUNNING] = "running",
        [STORE_TASK_LOST] = "lost",           [STORE_TASK_DISCARDED] = "discarded",
};

static const char *const task_type_names[_TASK_TYPE_MAX] = {
        [TASK_MAP] = "map",
        [TASK_REDUCE] = "reduce",
};

const char *store_task_status_to_string(StoreTaskStatus status) {
        return status >= 0 && status < _STORE_TASK_STATUS_MAX ? task_status_names[status] : NULL;
}

static void task_record_clear(StoreTaskRecord *rec) {
        free((char *)rec->node);
        free((char *)rec->output);
        free((char *)rec->reason);
        *rec = (StoreTaskRecord){ 0 };
}

void store_task_records_free(StoreTaskRecord *records, size_t n) {
        for (size_t i = 0; records && i < n; i++)
                task_record_clear(&records[i]);
        free(records);
}

static bool streq_ptr(const char *a, const char *b) {
        return a && b ? strcmp(a, b) == 0 : a == b;
}

#define TASK_COLUMNS                                                                      \
        "type, idx, attempt, node, status, started, finished, shuffle_end, input_bytes, " \
        "output_bytes, output, reason, job, cpu_time, io_wait"

/* A row of TASK_COLUMNS into a StoreTaskRecord. */
static int task_from_row(Store *s, sqlite3_stmt *st, void *ret, StoreError *err) {
        StoreTaskRecord *rec = ret;
        int type = store_name_lookup(task_type_names, _TASK_TYPE_MAX,
                                     (const char *)sqlite3_column_text(st, 0));
        int status = store_name_lookup(task_status_names, _STORE_TASK_STATUS_MAX,
                                       (const char *)sqlite3_column_text(st, 4));
        char *node = NULL, *output = NULL, *reason = NULL;
        bool bad = type < 0 || status < 0 || sqlite3_column_type(st, 3) == SQLITE_NULL;

        *rec = (StoreTaskRecord){
                .job = store_column_u64(st, 12, &bad),
                .type = type < 0 ? TASK_MAP : (TaskType)type,
                .index = store_column_unsigned(st, 1, &bad),
                .attempt = store_column_u64(st, 2, &bad),
                .status = status < 0 ? STORE_TASK_SUCCEEDED : (StoreTaskStatus)status,
                .started = store_column_u64(st, 5, &bad),
                .finished = store_column_u64(st, 6, &bad),
                .shuffle_end = store_column_u64(st, 7, &bad),
                .input_bytes = store_column_u64(st, 8, &bad),
                .output_bytes = store_column_u64(st, 9, &bad),
                .usage = sqlite3_column_type(st, 13) != SQLITE_NULL,
                .cpu_time = store_column_u64(st, 13, &bad),
                .io_wait = store_column_u64(st, 14, &bad),
        };
        if (rec->usage != (sqlite3_column_type(st, 14) != SQLITE_NULL))
                bad = true;
        if (bad)
                return store_fail(err, NULL, -EUCLEAN,
                                  "%s: a task record of job %" PRIu64 " is malformed", s->path,
                                  rec->job);
        if (store_column_strdup(st, 3, &node) < 0 || store_column_strdup(st, 10, &output) < 0 ||
            store_column_strdup(st, 11, &reason) < 0) {
                free(node);
                free(output);
                return store_fail(err, NULL, -ENOMEM, "out of memory");
        }
        rec->node = node;
        rec->output = output;
        rec->reason = reason;
        return 0;
}

static bool task_records_equal(const StoreTaskRecord *a, const StoreTaskRecord *b) {
        return a->job == b->job && a->type == b->type && a->index == b->index &&
               a->attempt == b->attempt && streq_ptr(a->node, b->node) && a->status == b->status &&
               a->started == b->started && a->finished == b->finished &&
               a->shuffle_end == b->shuffle_end && a->input_bytes == b->input_bytes &&
               a->output_bytes == b->output_bytes && streq_ptr(a->output, b->output) &&
               streq_ptr(a->reason, b->reason) && a->usage == b->usage &&
               (!a->usage || (a->cpu_time == b->cpu_time && a->io_wait == b->io_wait));
}

static int check_record(const StoreTaskRecord *rec, StoreError *err) {
        bool succeeded = rec->status == STORE_TASK_SUCCEEDED;
        bool running = rec->status == STORE_TASK_RUNNING;
        int r;

        r = store_check_int64(rec->job, "job", err);
        if (r >= 0 && (rec->type < 0 || rec->type >= _TASK_TYPE_MAX))
                r = store_fail(err, "type", -EINVAL, "type: %d is neither map nor reduce",
                               (int)rec->type);
        if (r >= 0)
                r = store_check_int64(rec->attempt, "attempt", err);
        if (r >= 0)
                r = store_check_identifier(rec->node, "node", err);
        if (r >= 0 && (rec->status < 0 || rec->status >= _STORE_TASK_STATUS_MAX))
                r = store_fail(err, "status", -EINVAL, "status: %d is not an attempt's",
                               (int)rec->status);
        if (r >= 0)
                r = store_check_int64(rec->finished, "finished", err);
        if (r >= 0 && rec->started == 0)
                r = store_fail(err, "started", -EINVAL, "started: 0, no time");
        if (r >= 0 && running && rec->finished != 0)
                r = store_fail(err, "finished", -EINVAL, "finished: given for a running attempt");
        if (r >= 0 && !running && rec->finished < rec->started)
                r = store_fail(err, "finished", -EINVAL, "finished: before started");
        if (r >= 0 && rec->shuffle_end != 0 &&
            (rec->type != TASK_REDUCE || rec->shuffle_end < rec->started ||
             rec->shuffle_end > rec->finished))
                r = store_fail(err, "shuffle_end", -EINVAL, "shuffle_end: %s",
                               rec->type != TASK_REDUCE ? "a map has no shuffle"
                                                        : "outside the attempt's run");
        if (r >= 0)
                r = store_check_int64(rec->input_bytes, "input_bytes", err);
        if (r >= 0)
                r = store_check_int64(rec->output_bytes, "output_bytes", err);
        if (r >= 0 && rec->usage && running)
                r = store_fail(err, "cpu_time", -EINVAL, "cpu_time: given for a running attempt");
        if (r >= 0 && rec->usage)
                r = store_check_int64(rec->cpu_time, "cpu_time", err);
        if (r >= 0 && rec->usage)
                r = store_check_int64(rec->io_wait, "io_wait", err);
        if (r < 0)
                return r;
        if (succeeded != !!rec->output)
                return store_fail(err, "output", -EINVAL, "output: %s",
                                  succeeded ? "missing; a succeeded attempt has one"
                                            : "given for an attempt that did not succeed");
        if (succeeded && rec->reason)
                return store_fail(err, "reason", -EINVAL,
                                  "reason: given for an attempt that succeeded");
        if (rec->output)
                return store_check_path(rec->output, "output", NULL, err);
        if (rec->reason)
                return store_check_text(rec->reason, STORE_MESSAGE_MAX, false, "reason", NULL, err);
        return 0;
}

/* "map task 3 of job 7", for messages. */
static const char *task_name(char *buf, size_t size, const StoreTaskRecord *rec) {
        snprintf(buf, size, "%s task %u of job %" PRIu64, task_type_names[rec->type], rec->index,
                 rec->job);
        return buf;
}

static int bind_task_key(sqlite3_stmt *st, const StoreTaskRecord *rec) {
        int rc = sqlite3_bind_int64(st, 1, (int64_t)rec->job);

        if (rc == SQLITE_OK)
                rc = store_bind_text(st, 2, task_type_names[rec->type]);
        if (rc == SQLITE_OK)
                rc = sqlite3_bind_int64(st, 3, rec->index);
        return rc;
}

/* What is stored of rec's attempt, other than a running record that rec
 * ends (end_running()). */
typedef enum Recorded {
        RECORDED_NONE,
        RECORDED_SAME, /* the same values */
} Recorded;

static int find_recorded(Store *s, const StoreTaskRecord *rec, StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        _cleanup_(task_record_clear) StoreTaskRecord old = { 0 };
        char name[96];
        int rc, r;

        r = store_stmt(s, STMT_TASK_GET,
                       "SELECT " TASK_COLUMNS " FROM task_attempts "
                       "WHERE job = ? AND type = ? AND idx = ? AND attempt = ?",
                       &st, err);
        if (r < 0)
                return r;
        if (bind_task_key(st, rec) != SQLITE_OK ||
            sqlite3_bind_int64(st, 4, (int64_t)rec->attempt) != SQLITE_OK)
                return store_sqlite_fail(s, sqlite3_errcode(s->db), err, "cannot read a task");
        rc = sqlite3_step(st);
        if (rc == SQLITE_DONE)
                return RECORDED_NONE;
        if (rc != SQLITE_ROW)
                return store_sqlite_fail(s, rc, err, "cannot read a task");
        r = task_from_row(s, st, &old, err);
        if (r < 0)
                return r;
        if (!task_records_equal(&old, rec))
                return store_fail(err, "attempt", -EEXIST,
                                  "attempt %" PRIu64 " of %s: recorded already as %s on %s, "
                                  "with other values",
                                  rec->attempt, task_name(name, sizeof(name), rec),
                                  task_status_names[old.status], old.node);
        return RECORDED_SAME;
}

/* Another attempt of rec's task succeeded already. */
static int check_no_success(Store *s, const StoreTaskRecord *rec, StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        char name[96];
        int rc, r;

        r = store_stmt(s, STMT_TASK_SUCCEEDED,
                       "SELECT attempt FROM task_attempts "
                       "WHERE job = ? AND type = ? AND idx = ? AND status = 'succeeded' "
                       "AND attempt != ?",
                       &st, err);
        if (r < 0)
                return r;
        if (bind_task_key(st, rec) != SQLITE_OK ||
            sqlite3_bind_int64(st, 4, (int64_t)rec->attempt) != SQLITE_OK)
                return store_sqlite_fail(s, sqlite3_errcode(s->db), err, "cannot read a task");
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
                return store_fail(
                        err, "status", -EEXIST, "%s: succeeded already, in attempt %" PRId64,
                        task_name(name, sizeof(name), rec), (int64_t)sqlite3_column_int64(st, 0));
        return rc == SQLITE_DONE ? 0 : store_sqlite_fail(s, rc, err, "cannot read a task");
}

/* A use figure, or NULL when the attempt's use was not reported. */
static int bind_usage(sqlite3_stmt *st, int i, bool usage, usec_t value) {
        return usage ? sqlite3_bind_int64(st, i, (int64_t)value) : sqlite3_bind_null(st, i);
}

/* Every column of rec, as ?1 to ?15 in the order of the table's. */
static int bind_record(sqlite3_stmt *st, const StoreTaskRecord *rec) {
        if (bind_task_key(st, rec) != SQLITE_OK ||
            sqlite3_bind_int64(st, 4, (int64_t)rec->attempt) != SQLITE_OK ||
            store_bind_text(st, 5, rec->node) != SQLITE_OK ||
            store_bind_text(st, 6, task_status_names[rec->status]) != SQLITE_OK ||
            sqlite3_bind_int64(st, 7, (int64_t)rec->started) != SQLITE_OK ||
            sqlite3_bind_int64(st, 8, (int64_t)rec->finished) != SQLITE_OK ||
            sqlite3_bind_int64(st, 9, (int64_t)rec->shuffle_end) != SQLITE_OK ||
            sqlite3_bind_int64(st, 10, (int64_t)rec->input_bytes) != SQLITE_OK ||
            sqlite3_bind_int64(st, 11, (int64_t)rec->output_bytes) != SQLITE_OK ||
            store_bind_text(st, 12, rec->output) != SQLITE_OK ||
            store_bind_text(st, 13, rec->reason) != SQLITE_OK ||
            bind_usage(st, 14, rec->usage, rec->cpu_time) != SQLITE_OK ||
            bind_usage(st, 15, rec->usage, rec->io_wait) != SQLITE_OK)
                return -EIO;
        return 0;
}

static int write_record(Store *s, const StoreTaskRecord *rec, StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int r;

        r = store_stmt(s, STMT_TASK_INSERT,
                       "INSERT INTO task_attempts (job, type, idx, attempt, node, "
                       "status, started, finished, shuffle_end, input_bytes, "
                       "output_bytes, output, reason, cpu_time, io_wait) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       &st, err);
        if (r < 0)
                return r;
        if (bind_record(st, rec) < 0)
                return store_sqlite_fail(s, sqlite3_errcode(s->db), err, "cannot write a task");
        return store_step_done(s, st, err, "cannot write a task");
}

/* rec, which ends its attempt, written over the attempt's running record
 * in place: 1, or 0 when there is none. Most records end an attempt
 * recorded running as it started: a read of the record before the write
 * was a tenth of a heartbeat's time. */
static int end_running(Store *s, const StoreTaskRecord *rec, StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int r;

        r = store_stmt(s, STMT_TASK_END,
                       "UPDATE task_attempts SET node = ?5, status = ?6, started = ?7, "
                       "finished = ?8, shuffle_end = ?9, input_bytes = ?10, output_bytes = ?11, "
                       "output = ?12, reason = ?13, cpu_time = ?14, io_wait = ?15 "
                       "WHERE job = ?1 AND type = ?2 AND idx = ?3 AND attempt = ?4 "
                       "AND status = 'running'",
                       &st, err);
        if (r < 0)
                return r;
        if (bind_record(st, rec) < 0)
                return store_sqlite_fail(s, sqlite3_errcode(s->db), err, "cannot write a task");
        r = store_step_done(s, st, err, "cannot write a task");
        if (r < 0)
                return r;
        return sqlite3_changes(s->db) > 0;
}

static int record_task(Store *s, const StoreTaskRecord *rec, StoreError *err) {
        StoreJobStatus j;
        unsigned n;
        int recorded, r;

        r = check_record(rec, err);
        if (r < 0)
                return r;
        if (rec->status == STORE_TASK_SUCCEEDED) {
                r = check_no_success(s, rec, err);
                if (r < 0)
                        return r;
        }
        /* An attempt that was recorded running belongs to a job that ran,
         * and may end after it (the kills of a cancelled job). */
        if (rec->status != STORE_TASK_RUNNING) {
                r = end_running(s, rec, err);
                if (r != 0)
                        return MIN(r, 0);
        }
        recorded = find_recorded(s, rec, err);
        if (recorded < 0)
                return recorded;
        if (recorded == RECORDED_SAME)
                return 0; /* reported again: nothing to write */
        r = store_job_status_unended(s, rec->job, "job", &j, err);
        if (r < 0)
                return r;
        if (j.state == STORE_JOB_QUEUED)
                return store_fail(err, "job", -EBUSY,
                                  "job %" PRIu64 ": is queued; none of its tasks has run",
                                  rec->job);
        n = rec->type == TASK_MAP ? j.n_maps : j.n_reduces;
        if (rec->index >= n)
                return store_fail(err, "index", -EINVAL,
                                  "index: %u; job %" PRIu64 " has %u %s tasks", rec->index,
                                  rec->job, n, task_type_names[rec->type]);
        return write_record(s, rec, err);
}

int store_tasks_record(Store *s, const StoreTaskRecord *records, size_t n, StoreError *err) {
        _cleanup_(store_tx_rollbackp) Store *tx = NULL;
        int r;

        if (!records || n == 0 || n > STORE_BATCH_MAX)
                return store_fail(err, "records", -EINVAL,
                                  "records: %zu; a batch has 1 to %d records", n, STORE_BATCH_MAX);
        r = store_tx_begin(s, STORE_TX_RECORD, err);
        if (r < 0)
                return r;
        tx = s;
        for (size_t i = 0; i < n; i++) {
                r = record_task(s, &records[i], err);
                if (r < 0) {
                        char prefix[64];

                        if (n > 1) {
                                snprintf(prefix, sizeof(prefix), "record %zu of %zu: ", i, n);
                                store_error_prefix(err, prefix);
                        }
                        return r;
                }
        }
        return store_tx_commit(TAKE_PTR(tx), err);
}

static void task_rows_clear(StoreRows *rows) {
        store_task_records_free(rows->items, rows->n);
}

int store_job_tasks(Store *s, uint64_t job, unsigned statuses, StoreTaskRecord **ret, size_t *ret_n,
                    StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        _cleanup_(task_rows_clear) StoreRows rows = { 0 };
        StoreJobStatus j;
        int r;

        r = store_check_int64(job, "job", err);
        if (r >= 0 && (statuses == 0 || (statuses & ~STORE_TASK_ANY)))
                r = store_fail(err, "statuses", -EINVAL,
                               "statuses: 0x%x is not a set of attempt statuses", statuses);
        if (r >= 0)
                r = store_stmt(s, STMT_TASKS_LIST,
                               "SELECT " TASK_COLUMNS " FROM task_attempts "
                               "WHERE job = ? AND status IN (?, ?, ?, ?, ?, ?) "
                               "ORDER BY type, idx, attempt",
                               &st, err);
        if (r < 0)
                return r;
        if (sqlite3_bind_int64(st, 1, (int64_t)job) != SQLITE_OK ||
            store_bind_name_set(st, 2, task_status_names, _STORE_TASK_STATUS_MAX, statuses) !=
                    SQLITE_OK)
                return store_sqlite_fail(s, sqlite3_errcode(s->db), err, "cannot list tasks");
        r = store_read_rows(s, st, sizeof(StoreTaskRecord), task_from_row, &rows, err,
                            "cannot list tasks");
        /* No record: is there such a job? Jobs are never removed, so the
         * answer holds for the rows read before. */
        if (r >= 0 && rows.n == 0)
                r = store_job_status(s, job, "job", &j, err);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(rows.items);
        *ret_n = rows.n;
        rows.n = 0;
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* Jobs and their states (their tasks' attempts are in store-tasks.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store-internal.h"

static const char *const job_state_names[_STORE_JOB_STATE_MAX] = {
        [STORE_JOB_QUEUED] = "queued",       [STORE_JOB_RUNNING] = "running",
        [STORE_JOB_SUCCEEDED] = "succeeded", [STORE_JOB_FAILED] = "failed",
        [STORE_JOB_CANCELLED] = "cancelled",
};

const char *store_job_state_to_string(StoreJobState state) {
        return state >= 0 && state < _STORE_JOB_STATE_MAX ? job_state_names[state] : NULL;
}

int store_job_state_from_string(const char *s, StoreJobState *ret) {
        int i = store_name_lookup(job_state_names, _STORE_JOB_STATE_MAX, s);

        if (i < 0)
                return i;
        *ret = (StoreJobState)i;
        return 0;
}

/* ---- submitting ---- */

static int check_spec(const StoreJobSpec *spec, StoreError *err) {
        int r;

        if (!spec)
                return store_fail(err, "spec", -EINVAL, "spec: missing");
        r = store_check_text(spec->name, STORE_NAME_MAX, false, "name", NULL, err);
        if (r >= 0)
                r = store_check_identifier(spec->user, "user", err);
        if (r >= 0)
                r = store_check_identifier(spec->pool, "pool", err);
        if (r < 0)
                return r;

        if (!spec->app == !spec->mapper)
                return store_fail(err, "app", -EINVAL, "app: %s",
                                  spec->app ? "given with a mapper; a job runs an application "
                                              "or streaming commands, not both"
                                            : "missing; a job runs an application, or a "
                                              "mapper command");
        if (spec->app) {
                r = store_check_identifier(spec->app, "app", err);
                if (r >= 0 && spec->app_arg)
                        r = store_check_text(spec->app_arg, STORE_COMMAND_MAX, true, "app_arg",
                                             NULL, err);
                if (r >= 0 && spec->reducer)
                        r = store_fail(err, "reducer", -EINVAL,
                                       "reducer: given with an application, which has its own");
        } else {
                r = spec->app_arg ? store_fail(err, "app_arg", -EINVAL,
                                               "app_arg: given without an application")
                                  : store_check_text(spec->mapper, STORE_COMMAND_MAX, true,
                                                     "mapper", NULL, err);
                if (r >= 0 && spec->reducer)
                        r = store_check_text(spec->reducer, STORE_COMMAND_MAX, true, "reducer",
                                             NULL, err);
                if (r >= 0 && spec->reducer && spec->n_reduces == 0)
                        r = store_fail(err, "reducer", -EINVAL,
                                       "reducer: given, but the job has no reduces");
        }
        if (r < 0)
                return r;

        if (!spec->inputs || spec->n_inputs == 0 || spec->n_inputs > STORE_INPUTS_MAX)
                return store_fail(err, "inputs", -EINVAL, "inputs: %zu paths; a job reads 1 to %d",
                                  spec->n_inputs, STORE_INPUTS_MAX);
        for (size_t i = 0; i < spec->n_inputs; i++) {
                char label[32];

                snprintf(label, sizeof(label), "inputs[%zu]", i);
                r = store_check_path(spec->inputs[i], "inputs", label, err);
                if (r < 0)
                        return r;
        }
        if (spec->n_reduces > STORE_REDUCES_MAX)
                return store_fail(err, "n_reduces", -EINVAL, "n_reduces: %u, more than %d",
                                  spec->n_reduces, STORE_REDUCES_MAX);
        return store_check_int64(spec->deadline, "deadline", err);
}

int store_job_check(const StoreJobSpec *spec, StoreError *err) {
        return check_spec(spec, err);
}

static int insert_job(Store *s, const StoreJobSpec *spec, uint64_t *ret_id, StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL, *in = NULL;
        int64_t id;
        int r;

        r = store_stmt(s, STMT_JOB_INSERT,
                       "INSERT INTO jobs (state, name, user, pool, app, app_arg, mapper, "
                       "reducer, n_reduces, deadline, submitted) "
                       "VALUES ('queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       &st, err);
        if (r < 0)
                return r;
        if (store_bind_text(st, 1, spec->name) != SQLITE_OK ||
            store_bind_text(st, 2, spec->user) != SQLITE_OK ||
            store_bind_text(st, 3, spec->pool) != SQLITE_OK ||
            store_bind_text(st, 4, spec->app) != SQLITE_OK ||
            store_bind_text(st, 5, spec->app_arg) != SQLITE_OK ||
            store_bind_text(st, 6, spec->mapper) != SQLITE_OK ||
            store_bind_text(st, 7, spec->reducer) != SQLITE_OK ||
            sqlite3_bind_int64(st, 8, spec->n_reduces) != SQLITE_OK ||
            sqlite3_bind_int64(st, 9, (int64_t)spec->deadline) != SQLITE_OK ||
            sqlite3_bind_int64(st, 10, (int64_t)now_realtime_usec()) != SQLITE_OK)
                return store_sqlite_fail(s, sqlite3_errcode(s->db), err, "cannot write the job");
        r = store_step_done(s, st, err, "cannot write the job");
        if (r < 0)
                return r;
        id = sqlite3_last_insert_rowid(s->db);

        r = store_stmt(s, STMT_JOB_INPUT_INSERT,
                       "INSERT INTO job_inputs (job, idx, path) VALUES (?, ?, ?)", &in, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < spec->n_inputs; i++) {
                sqlite3_reset(in);
                if (sqlite3_bind_int64(in, 1, id) != SQLITE_OK ||
                    sqlite3_bind_int64(in, 2, (int64_t)i) != SQLITE_OK ||
                    store_bind_text(in, 3, spec->inputs[i]) != SQLITE_OK)
                        return store_sqlite_fail(s, sqlite3_errcode(s->db), err,
                                                 "cannot write the job's inputs");
                r = store_step_done(s, in, err, "cannot write the job's inputs");
                if (r < 0)
                        return r;
        }
        *ret_id = (uint64_t)id;
        return 0;
}

int store_job_submit(Store *s, const StoreJobSpec *spec, uint64_t *ret_id, StoreError *err) {
        _cleanup_(store_tx_rollbackp) Store *tx = NULL;
        uint64_t id = 0;
        int r;

        r = check_spec(spec, err);
        if (r >= 0)
                r = store_tx_begin(s, STORE_TX_WRITE, err);
        if (r < 0)
                return r;
        tx = s;
        r = insert_job(s, spec, &id, err);
        if (r >= 0)
                r = store_tx_commit(TAKE_PTR(tx), err);
        if (r < 0)
                return r;
        *ret_id = id;
        return 0;
}

/* ---- reading jobs ---- */

void store_job_clear(StoreJob *job) {
        if (!job)
                return;
        free(job->name);
        free(job->user);
        free(job->pool);
        free(job->app);
        free(job->app_arg);
        free(job->mapper);
        free(job->reducer);
        for (size_t i = 0; i < job->n_inputs; i++)
                free(job->inputs[i]);
        free(job->inputs);
        free(job->message);
        *job = (StoreJob){ 0 };
}

void store_jobs_free(StoreJob *jobs, size_t n) {
        for (size_t i = 0; jobs && i < n; i++)
                store_job_clear(&jobs[i]);
        free(jobs);
}

#define SUCCEEDED_COUNT(type)                                                             \
        "(SELECT count(*) FROM task_attempts t WHERE t.job = jobs.id AND t.type = '" type \
        "' AND t.status = 'succeeded')"

#define JOB_COLUMNS                                                                       \
        "id, state, name, user, pool, app, app_arg, mapper, reducer, n_maps, n_reduces, " \
        "deadline, submitted, started, finished, message, " SUCCEEDED_COUNT(              \
                "map") ", " SUCCEEDED_COUNT("reduce")

static int input_from_row(Store *s, sqlite3_stmt *st, void *ret, StoreError *err) {
        char *path = NULL;

        if (store_column_strdup(st, 0, &path) < 0)
                return store_fail(err, NULL, -ENOMEM, "out of memory");
        if (!path)
                return store_fail(err, NULL, -EUCLEAN, "%s: an input without a path", s->path);
        *(char **)ret = path;
        return 0;
}

static int load_inputs(Store *s, StoreJob *job, StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        StoreRows rows = { 0 };
        int r;

        r = store_stmt(s, STMT_JOB_INPUTS, "SELECT path FROM job_inputs WHERE job = ? ORDER BY idx",
                       &st, err);
        if (r < 0)
                return r;
        if (sqlite3_bind_int64(st, 1, (int64_t)job->id) != SQLITE_OK)
                return store_sqlite_fail(s, sqlite3_errcode(s->db), err, "cannot read a job");
        r = store_collect_rows(s, st, sizeof(char *), input_from_row, &rows, err,
                               "cannot read a job's inputs");
        /* The job owns what was read, also on failure. */
        job->inputs = rows.items;
        job->n_inputs = rows.n;
        return r;
}

/* A row of JOB_COLUMNS, and the job's inputs. */
static int job_from_row(Store *s, sqlite3_stmt *st, void *ret, StoreError *err) {
        _cleanup_(store_job_clear) StoreJob job = { 0 };
        const char *state = (const char *)sqlite3_column_text(st, 1);
        char **texts[] = { &job.name,    &job.user,   &job.pool,   &job.app,
                           &job.app_arg, &job.mapper, &job.reducer };
        bool bad = false;
        int r;

        job.id = store_column_u64(st, 0, &bad);
        for (size_t i = 0; i < ELEMENTSOF(texts); i++)
                if (store_column_strdup(st, 2 + (int)i, texts[i]) < 0)
                        return store_fail(err, NULL, -ENOMEM, "out of memory");
        job.n_maps = store_column_unsigned(st, 9, &bad);
        job.n_reduces = store_column_unsigned(st, 10, &bad);
        job.deadline = store_column_u64(st, 11, &bad);
        job.submitted = store_column_u64(st, 12, &bad);
        job.started = store_column_u64(st, 13, &bad);
        job.finished = store_column_u64(st, 14, &bad);
        if (store_column_strdup(st, 15, &job.message) < 0)
                return store_fail(err, NULL, -ENOMEM, "out of memory");
        job.maps_done = store_column_unsigned(st, 16, &bad);
        job.reduces_done = store_column_unsigned(st, 17, &bad);
        if (bad || store_job_state_from_string(state, &job.state) < 0)
                return store_fail(err, NULL, -EUCLEAN, "%s: job %" PRIu64 " is malformed", s->path,
                                  job.id);
        r = load_inputs(s, &job, err);
        if (r < 0)
                return r;
        *(StoreJob *)ret = job;
        job = (StoreJob){ 0 };
        return 0;
}

static void job_rows_clear(StoreRows *rows) {
        store_jobs_free(rows->items, rows->n);
}

int store_job_get(Store *s, uint64_t id, StoreJob *ret, StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        _cleanup_(job_rows_clear) StoreRows rows = { 0 };
        int r;

        r = store_check_int64(id, "id", err);
        if (r >= 0)
                r = store_stmt(s, STMT_JOB_GET, "SELECT " JOB_COLUMNS " FROM jobs WHERE id = ?",
                               &st, err);
        if (r < 0)
                return r;
        if (sqlite3_bind_int64(st, 1, (int64_t)id) != SQLITE_OK)
                return store_sqlite_fail(s, sqlite3_errcode(s->db), err, "cannot read a job");
        r = store_read_rows(s, st, sizeof(StoreJob), job_from_row, &rows, err, "cannot read a job");
        if (r < 0)
                return r;
        if (rows.n == 0)
                return store_fail(err, "id", -ENOENT, "job %" PRIu64 ": no such job", id);
        *ret = *(StoreJob *)rows.items;
        rows.n = 0;
        return 0;
}

int store_jobs_list(Store *s, unsigned states, StoreJob **ret, size_t *ret_n, StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        _cleanup_(job_rows_clear) StoreRows rows = { 0 };
        int r;

        if (states == 0 || (states & ~STORE_JOB_ANY))
                return store_fail(err, "states", -EINVAL, "states: 0x%x is not a set of job states",
                                  states);
        r = store_stmt(s, STMT_JOBS_LIST,
                       "SELECT " JOB_COLUMNS " FROM jobs WHERE state IN (?, ?, ?, ?, ?) "
                       "ORDER BY id",
                       &st, err);
        if (r < 0)
                return r;
        if (store_bind_name_set(st, 1, job_state_names, _STORE_JOB_STATE_MAX, states) != SQLITE_OK)
                return store_sqlite_fail(s, sqlite3_errcode(s->db), err, "cannot list jobs");
        r = store_read_rows(s, st, sizeof(StoreJob), job_from_row, &rows, err, "cannot list jobs");
        if (r < 0)
                return r;
        *ret = TAKE_PTR(rows.items);
        *ret_n = rows.n;
        rows.n = 0;
        return 0;
}

/* ---- state changes ---- */

static bool job_state_ended(StoreJobState state) {
        return state != STORE_JOB_QUEUED && state != STORE_JOB_RUNNING;
}

int store_job_next_id(Store *s, uint64_t *ret, StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int64_t last = 0;
        int rc, r;

        /* AUTOINCREMENT's own record of the largest id ever given. */
        r = store_stmt(s, STMT_JOB_NEXT_ID, "SELECT seq FROM sqlite_sequence WHERE name = 'jobs'",
                       &st, err);
        if (r < 0)
                return r;
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
                last = sqlite3_column_int64(st, 0);
        else if (rc != SQLITE_DONE)
                return store_sqlite_fail(s, rc, err, "cannot read the last job id");
        if (last < 0 || last == INT64_MAX)
                return store_fail(err, NULL, -EUCLEAN,
                                  "%s: the last job id %" PRId64 " is malformed", s->path, last);
        *ret = (uint64_t)last + 1;
        return 0;
}

int store_job_status(Store *s, uint64_t id, const char *field, StoreJobStatus *ret,
                     StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        bool bad = false;
        int rc, r;

        r = store_stmt(s, STMT_JOB_STATUS, "SELECT state, n_maps, n_reduces FROM jobs WHERE id = ?",
                       &st, err);
        if (r < 0)
                return r;
        if (sqlite3_bind_int64(st, 1, (int64_t)id) != SQLITE_OK)
                return store_sqlite_fail(s, sqlite3_errcode(s->db), err, "cannot read a job");
        rc = sqlite3_step(st);
        if (rc == SQLITE_DONE)
                return store_fail(err, field, -ENOENT, "job %" PRIu64 ": no such job", id);
        if (rc != SQLITE_ROW)
                return store_sqlite_fail(s, rc, err, "cannot read a job");
        ret->n_maps = store_column_unsigned(st, 1, &bad);
        ret->n_reduces = store_column_unsigned(st, 2, &bad);
        if (bad ||
            store_job_state_from_string((const char *)sqlite3_column_text(st, 0), &ret->state) < 0)
                return store_fail(err, NULL, -EUCLEAN, "%s: job %" PRIu64 " is malformed", s->path,
                                  id);
        return 0;
}

int store_job_status_unended(Store *s, uint64_t id, const char *field, StoreJobStatus *ret,
                             StoreError *err) {
        StoreJobStatus j;
        int r;

        r = store_job_status(s, id, field, &j, err);
        if (r < 0)
                return r;
        if (job_state_ended(j.state))
                return store_fail(err, NULL, -EALREADY, "job %" PRIu64 ": has ended (%s)", id,
                                  job_state_names[j.state]);
        *ret = j;
        return 0;
}

static int start_job(Store *s, uint64_t id, unsigned n_maps, StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        StoreJobStatus status;
        int r;

        r = store_job_status_unended(s, id, "id", &status, err);
        if (r < 0)
                return r;
        if (status.state != STORE_JOB_QUEUED)
                return store_fail(err, NULL, -EBUSY, "job %" PRIu64 ": is running already", id);
        r = store_stmt(s, STMT_JOB_START,
                       "UPDATE jobs SET state = 'running', n_maps = ?, started = ? WHERE id = ?",
                       &st, err);
        if (r < 0)
                return r;
        if (sqlite3_bind_int64(st, 1, n_maps) != SQLITE_OK ||
            sqlite3_bind_int64(st, 2, (int64_t)now_realtime_usec()) != SQLITE_OK ||
            sqlite3_bind_int64(st, 3, (int64_t)id) != SQLITE_OK)
                return store_sqlite_fail(s, sqlite3_errcode(s->db), err, "cannot start the job");
        return store_step_done(s, st, err, "cannot start the job");
}

int store_jobs_count(Store *s, uint64_t ret[static _STORE_JOB_STATE_MAX], StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        uint64_t counts[_STORE_JOB_STATE_MAX] = { 0 };
        int r, rc;

        r = store_stmt(s, STMT_JOBS_COUNT, "SELECT state, COUNT(*) FROM jobs GROUP BY state", &st,
                       err);
        if (r < 0)
                return r;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
                int state = store_name_lookup(job_state_names, _STORE_JOB_STATE_MAX,
                                              (const char *)sqlite3_column_text(st, 0));

                if (state < 0)
                        return store_fail(err, NULL, -EUCLEAN,
                                          "%s: a job in the unknown state '%.32s'", s->path,
                                          (const char *)sqlite3_column_text(st, 0));
                counts[state] = (uint64_t)sqlite3_column_int64(st, 1);
        }
        if (rc != SQLITE_DONE)
                return store_sqlite_fail(s, rc, err, "cannot count jobs");
        memcpy(ret, counts, sizeof(counts));
        return 0;
}

int store_job_start(Store *s, uint64_t id, unsigned n_maps, StoreError *err) {
        _cleanup_(store_tx_rollbackp) Store *tx = NULL;
        int r;

        r = store_check_int64(id, "id", err);
        if (r >= 0 && (n_maps == 0 || n_maps > STORE_MAPS_MAX))
                r = store_fail(err, "n_maps", -EINVAL, "n_maps: %u; a job has 1 to %d map tasks",
                               n_maps, STORE_MAPS_MAX);
        if (r >= 0)
                r = store_tx_begin(s, STORE_TX_WRITE, err);
        if (r < 0)
                return r;
        tx = s;
        r = start_job(s, id, n_maps, err);
        if (r < 0)
                return r;
        return store_tx_commit(TAKE_PTR(tx), err);
}

/* Refuses a job's success while a task has no succeeded attempt. */
static int check_all_done(Store *s, uint64_t id, const StoreJobStatus *j, StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        unsigned maps, reduces;
        int rc, r;

        r = store_stmt(s, STMT_JOB_DONE,
                       "SELECT " SUCCEEDED_COUNT("map") ", " SUCCEEDED_COUNT(
                               "reduce") " FROM jobs WHERE id = ?",
                       &st, err);
        if (r < 0)
                return r;
        if (sqlite3_bind_int64(st, 1, (int64_t)id) != SQLITE_OK)
                return store_sqlite_fail(s, sqlite3_errcode(s->db), err, "cannot read a job");
        rc = sqlite3_step(st);
        if (rc != SQLITE_ROW)
                return store_sqlite_fail(s, rc, err, "cannot read a job");
        /* Counts, never negative; at most one success per task. */
        maps = (unsigned)MIN(sqlite3_column_int64(st, 0), (sqlite3_int64)j->n_maps);
        reduces = (unsigned)MIN(sqlite3_column_int64(st, 1), (sqlite3_int64)j->n_reduces);
        if (maps < j->n_maps || reduces < j->n_reduces)
                return store_fail(err, NULL, -EBUSY,
                                  "job %" PRIu64 ": %u of its %u map tasks and %u of its %u "
                                  "reduce tasks have not succeeded",
                                  id, j->n_maps - maps, j->n_maps, j->n_reduces - reduces,
                                  j->n_reduces);
        return 0;
}

static int finish_job(Store *s, uint64_t id, StoreJobState state, const char *message,
                      StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        StoreJobStatus j;
        int r;

        r = store_job_status_unended(s, id, "id", &j, err);
        if (r < 0)
                return r;
        if (state == STORE_JOB_SUCCEEDED) {
                if (j.state != STORE_JOB_RUNNING)
                        return store_fail(err, NULL, -EBUSY,
                                          "job %" PRIu64 ": is queued; only a running job succeeds",
                                          id);
                r = check_all_done(s, id, &j, err);
                if (r < 0)
                        return r;
        }
        r = store_stmt(s, STMT_JOB_FINISH,
                       "UPDATE jobs SET state = ?, finished = ?, message = ? WHERE id = ?", &st,
                       err);
        if (r < 0)
                return r;
        if (store_bind_text(st, 1, job_state_names[state]) != SQLITE_OK ||
            sqlite3_bind_int64(st, 2, (int64_t)now_realtime_usec()) != SQLITE_OK ||
            store_bind_text(st, 3, message) != SQLITE_OK ||
            sqlite3_bind_int64(st, 4, (int64_t)id) != SQLITE_OK)
                return store_sqlite_fail(s, sqlite3_errcode(s->db), err, "cannot end the job");
        return store_step_done(s, st, err, "cannot end the job");
}

int store_job_finish(Store *s, uint64_t id, StoreJobState state, const char *message,
                     StoreError *err) {
        _cleanup_(store_tx_rollbackp) Store *tx = NULL;
        int r;

        r = store_check_int64(id, "id", err);
        if (r >= 0 && (state < 0 || state >= _STORE_JOB_STATE_MAX || !job_state_ended(state)))
                r = store_fail(err, "state", -EINVAL,
                               "state: %d; a job ends succeeded, failed or cancelled", (int)state);
        if (r >= 0 && message)
                r = store_check_text(message, STORE_MESSAGE_MAX, false, "message", NULL, err);
        if (r >= 0)
                r = store_tx_begin(s, STORE_TX_WRITE, err);
        if (r < 0)
                return r;
        tx = s;
        r = finish_job(s, id, state, message, err);
        if (r < 0)
                return r;
        return store_tx_commit(TAKE_PTR(tx), err);
}

static int delete_ended_jobs(Store *s, usec_t ended_before, size_t *ret_n, StoreError *err) {
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int r;

        /* The inputs and task records go with their job (ON DELETE
         * CASCADE); the AUTOINCREMENT id keeps its ids from coming back. */
        r = store_stmt(s, STMT_JOBS_PRUNE,
                       "DELETE FROM jobs WHERE state IN ('succeeded', 'failed', 'cancelled') "
                       "AND finished < ?",
                       &st, err);
        if (r < 0)
                return r;
        if (sqlite3_bind_int64(st, 1, (int64_t)ended_before) != SQLITE_OK)
                return store_sqlite_fail(s, sqlite3_errcode(s->db), err, "cannot forget old jobs");
        r = store_step_done(s, st, err, "cannot forget old jobs");
        if (r >= 0 && ret_n)
                *ret_n = (size_t)sqlite3_changes(s->db);
        return r;
}

int store_jobs_prune(Store *s, usec_t ended_before, size_t *ret_n, StoreError *err) {
        _cleanup_(store_tx_rollbackp) Store *tx = NULL;
        size_t n = 0;
        int r;

        r = store_check_int64(ended_before, "ended_before", err);
        if (r >= 0)
                r = store_tx_begin(s, STORE_TX_WRITE, err);
        if (r < 0)
                return r;
        tx = s;
        r = delete_ended_jobs(s, ended_before, &n, err);
        if (r < 0)
                return r;
        r = store_tx_commit(TAKE_PTR(tx), err);
        if (r >= 0 && ret_n)
                *ret_n = n;
        return r;
}

/* SPDX-License-Identifier: MIT */
/* The controller's store, on SQLite files in each test's own directory:
 * jobs, their states and task attempts, ARIA profiles, what a restarted
 * controller reads to resume, schema upgrades, files it must refuse, and a
 * writer killed with SIGKILL at random points. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/macro.h"
#include "controller/store/store.h"
#include "tests.h"

static char *dir, *db;

static void setup(void) {
        dir = test_make_tmpdir();
        ck_assert_ptr_nonnull(dir);
        ck_assert_int_ge(asprintf(&db, "%s/store.db", dir), 0);
}

static void teardown(void) {
        test_remove_tree(dir);
        free(db);
        free(dir);
        db = dir = NULL;
}

static Store *open_ok(void) {
        StoreError err = { 0 };
        Store *s = NULL;
        int r = store_open(db, &s, &err);

        ck_assert_msg(r == 0, "store_open: %d: %s", r, err.message);
        return s;
}

/* Asserts a refusal: its errno, the field it names (NULL: none) and a part
 * of its message. */
static void refused(const char *call, int r, const StoreError *err, int want_r,
                    const char *want_field, const char *want_text) {
        ck_assert_msg(r == want_r, "%s: %d, not %d (%s)", call, r, want_r, err->message);
        if (want_field)
                ck_assert_msg(err->field && strcmp(err->field, want_field) == 0,
                              "%s: field %s, not %s (%s)", call, err->field ?: "(none)", want_field,
                              err->message);
        else
                ck_assert_msg(!err->field, "%s: field %s (%s)", call, err->field, err->message);
        ck_assert_msg(strstr(err->message, want_text), "%s: message '%s' lacks '%s'", call,
                      err->message, want_text);
}

#define assert_refused(call, err, want_r, want_field, want_text) \
        refused(#call, (call), &(err), want_r, want_field, want_text)

/* ---- SQL on the file itself, as an operator's sqlite3 would ---- */

static void raw_exec(const char *path, const char *sql) {
        sqlite3 *raw = NULL;
        char *msg = NULL;

        ck_assert_int_eq(sqlite3_open(path, &raw), SQLITE_OK);
        ck_assert_msg(sqlite3_exec(raw, sql, NULL, NULL, &msg) == SQLITE_OK, "%s: %s", sql, msg);
        ck_assert_int_eq(sqlite3_close(raw), SQLITE_OK);
}

/* The first column of the first row, as text ("" for none). */
static char *raw_text(const char *path, const char *sql) {
        sqlite3 *raw = NULL;
        sqlite3_stmt *st = NULL;
        char *text;
        int rc;

        ck_assert_int_eq(sqlite3_open(path, &raw), SQLITE_OK);
        ck_assert_int_eq(sqlite3_prepare_v2(raw, sql, -1, &st, NULL), SQLITE_OK);
        rc = sqlite3_step(st);
        ck_assert_msg(rc == SQLITE_ROW || rc == SQLITE_DONE, "%s: %s", sql, sqlite3_errmsg(raw));
        text = strdup(rc == SQLITE_ROW && sqlite3_column_text(st, 0)
                              ? (const char *)sqlite3_column_text(st, 0)
                              : "");
        sqlite3_finalize(st);
        ck_assert_int_eq(sqlite3_close(raw), SQLITE_OK);
        return text;
}

static int64_t raw_int(const char *path, const char *sql) {
        _cleanup_free_ char *text = raw_text(path, sql);

        return strtoll(text, NULL, 10);
}

static void write_file(const char *path, const void *data, size_t size) {
        FILE *f = fopen(path, "we");

        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(data, 1, size, f), size);
        ck_assert_int_eq(fclose(f), 0);
}

static char *read_file(const char *path, size_t *ret_size) {
        FILE *f = fopen(path, "re");
        char *data = NULL;
        long size;

        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
        size = ftell(f);
        rewind(f);
        data = malloc((size_t)size + 1);
        ck_assert_ptr_nonnull(data);
        ck_assert_uint_eq(fread(data, 1, (size_t)size, f), (size_t)size);
        fclose(f);
        *ret_size = (size_t)size;
        return data;
}

/* ---- jobs ---- */

static const char *const wc_inputs[] = { "books/a.txt", "books/b.txt", "more books/c.txt" };

static const StoreJobSpec wordcount = {
        .name = "nightly wordcount",
        .user = "alice",
        .pool = "research",
        .app = "wordcount",
        .inputs = wc_inputs,
        .n_inputs = ELEMENTSOF(wc_inputs),
        .n_reduces = 2,
};

static const char *const grep_inputs[] = { "logs/x.log" };

static const StoreJobSpec streaming = {
        .name = "grep errors \xc3\xa9t\xc3\xa9", /* UTF-8: "été" */
        .user = "bob",
        .pool = "default",
        .mapper = "grep -F 'ERROR\tdisk'",
        .reducer = "sort | uniq -c",
        .inputs = grep_inputs,
        .n_inputs = 1,
        .n_reduces = 1,
        .deadline = 1700000000000000ULL,
};

static uint64_t submit_ok(Store *s, const StoreJobSpec *spec) {
        StoreError err = { 0 };
        uint64_t id = 0;
        int r = store_job_submit(s, spec, &id, &err);

        ck_assert_msg(r == 0, "submit: %d: %s", r, err.message);
        return id;
}

static void assert_streq_null(const char *a, const char *b) {
        if (!a || !b)
                ck_assert_ptr_eq(a, b);
        else
                ck_assert_str_eq(a, b);
}

static void assert_job_is(const StoreJob *j, uint64_t id, const StoreJobSpec *spec) {
        ck_assert_uint_eq(j->id, id);
        ck_assert_str_eq(j->name, spec->name);
        ck_assert_str_eq(j->user, spec->user);
        ck_assert_str_eq(j->pool, spec->pool);
        assert_streq_null(j->app, spec->app);
        assert_streq_null(j->app_arg, spec->app_arg);
        assert_streq_null(j->mapper, spec->mapper);
        assert_streq_null(j->reducer, spec->reducer);
        ck_assert_uint_eq(j->n_inputs, spec->n_inputs);
        for (size_t i = 0; i < spec->n_inputs; i++)
                ck_assert_str_eq(j->inputs[i], spec->inputs[i]);
        ck_assert_uint_eq(j->n_reduces, spec->n_reduces);
        ck_assert_uint_eq(j->deadline, spec->deadline);
}

START_TEST(test_open_new) {
        _cleanup_(store_closep) Store *s = open_ok();
        _cleanup_free_ char *mode = NULL;
        struct stat st;

        s = store_close(s);
        ck_assert_int_eq(stat(db, &st), 0);
        ck_assert_int_eq(st.st_mode & 0777, 0600);
        mode = raw_text(db, "PRAGMA journal_mode");
        ck_assert_str_eq(mode, "wal");
        ck_assert_int_eq(raw_int(db, "PRAGMA application_id"), 0x464c5853);
        ck_assert_int_eq(raw_int(db, "SELECT max(version) FROM schema_version"),
                         STORE_SCHEMA_VERSION);
        ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM schema_version"), STORE_SCHEMA_VERSION);

        /* Opening it again changes nothing. */
        s = open_ok();
        s = store_close(s);
        ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM schema_version"), STORE_SCHEMA_VERSION);
}
END_TEST

START_TEST(test_job_round_trip) {
        _cleanup_(store_closep) Store *s = open_ok();
        StoreJobSpec grep_app = wordcount;
        StoreJob *jobs = NULL;
        StoreJob j = { 0 };
        StoreError err = { 0 };
        uint64_t a, b, c, next = 0;
        size_t n = 0;

        grep_app.app = "grep";
        grep_app.app_arg = "needle\tin haystack";
        /* What a submission checks under its id before it is stored. */
        ck_assert_int_eq(store_job_next_id(s, &next, &err), 0);
        ck_assert_uint_eq(next, 1);
        a = submit_ok(s, &wordcount);
        ck_assert_uint_eq(a, next);
        b = submit_ok(s, &streaming);
        ck_assert_int_eq(store_job_next_id(s, &next, &err), 0);
        ck_assert_uint_eq(next, b + 1);
        c = submit_ok(s, &grep_app);
        ck_assert_uint_eq(c, next);
        ck_assert_uint_gt(a, 0);
        ck_assert_uint_gt(b, a);
        ck_assert_uint_gt(c, b);

        ck_assert_int_eq(store_job_get(s, b, &j, &err), 0);
        assert_job_is(&j, b, &streaming);
        ck_assert_int_eq(j.state, STORE_JOB_QUEUED);
        ck_assert_uint_gt(j.submitted, 0);
        ck_assert_uint_eq(j.started, 0);
        ck_assert_uint_eq(j.finished, 0);
        ck_assert_uint_eq(j.n_maps, 0);
        ck_assert_ptr_null(j.message);
        store_job_clear(&j);

        /* What a restarted controller reads: the same, from a new connection. */
        s = store_close(s);
        s = open_ok();
        ck_assert_int_eq(store_jobs_list(s, STORE_JOB_ANY, &jobs, &n, &err), 0);
        ck_assert_uint_eq(n, 3);
        assert_job_is(&jobs[0], a, &wordcount);
        assert_job_is(&jobs[1], b, &streaming);
        assert_job_is(&jobs[2], c, &grep_app);
        store_jobs_free(jobs, n);

        ck_assert_int_eq(store_job_start(s, a, 4, &err), 0);
        ck_assert_int_eq(
                store_jobs_list(s, STORE_JOB_STATE_BIT(STORE_JOB_RUNNING), &jobs, &n, &err), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_uint_eq(jobs[0].id, a);
        ck_assert_uint_eq(jobs[0].n_maps, 4);
        ck_assert_uint_gt(jobs[0].started, 0);
        store_jobs_free(jobs, n);

        assert_refused(store_job_get(s, c + 1, &j, &err), err, -ENOENT, "id", "no such job");
        assert_refused(store_jobs_list(s, 0, &jobs, &n, &err), err, -EINVAL, "states",
                       "not a set of job states");
        assert_refused(store_jobs_list(s, 1u << _STORE_JOB_STATE_MAX, &jobs, &n, &err), err,
                       -EINVAL, "states", "not a set");
}
END_TEST

static const char *const one_input[] = { "in/part-0" };
static const char *const absolute_input[] = { "in/ok", "/etc/shadow" };
static const char *const dotdot_input[] = { "in/../../x" };
static const char *const empty_input[] = { "" };

/* Each case is the base job with the fields it names set again: what
 * -Woverride-init is there to catch by accident, here on purpose. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
#define BASE                                                                            \
        .name = "j", .user = "u", .pool = "p", .app = "wordcount", .inputs = one_input, \
        .n_inputs = 1, .n_reduces = 1

static const struct {
        StoreJobSpec spec;
        const char *field, *text;
} bad_specs[] = {
        { { BASE, .name = NULL }, "name", "name: empty" },
        { { BASE, .name = "two\nlines" }, "name", "name: control character U+000A at byte 3" },
        { { BASE, .name = "bad \xff byte" }, "name", "name: not UTF-8 at byte 4" },
        { { BASE, .name = "overlong \xc0\xaf" }, "name", "not UTF-8 at byte 9" },
        { { BASE, .name = "surrogate \xed\xa0\x80" }, "name", "not UTF-8 at byte 10" },
        { { BASE, .name = "c1 \xc2\x85" }, "name", "control character U+0085" },
        { { BASE, .name = "tab\there" }, "name", "control character U+0009" },
        { { BASE, .user = "" }, "user", "user: empty" },
        { { BASE, .user = "two words" }, "user", "user: byte 3 (0x20) is not a letter" },
        { { BASE, .user = "-rf" }, "user", "user: byte 0 (0x2d)" },
        { { BASE, .pool = "p/q" }, "pool", "pool: byte 1 (0x2f)" },
        { { BASE, .mapper = "cat" }, "app", "app: given with a mapper" },
        { { BASE, .app = NULL }, "app", "app: missing" },
        { { BASE, .app = "word count" }, "app", "app: byte 4" },
        { { BASE, .reducer = "cat" }, "reducer", "reducer: given with an application" },
        { { BASE, .app_arg = "x\ny" }, "app_arg", "app_arg: control character U+000A" },
        { { BASE, .app = NULL, .mapper = "cat", .app_arg = "x" },
          "app_arg",
          "app_arg: given without an application" },
        { { BASE, .app = NULL, .mapper = "cat\r" }, "mapper", "mapper: control character U+000D" },
        { { BASE, .app = NULL, .mapper = "cat", .reducer = "" }, "reducer", "reducer: empty" },
        { { BASE, .app = NULL, .mapper = "cat", .reducer = "wc", .n_reduces = 0 },
          "reducer",
          "reducer: given, but the job has no reduces" },
        { { BASE, .n_inputs = 0 }, "inputs", "inputs: 0 paths" },
        { { BASE, .inputs = NULL }, "inputs", "inputs: 1 paths" },
        { { BASE, .n_inputs = STORE_INPUTS_MAX + 1 }, "inputs", "a job reads 1 to 1024" },
        { { BASE, .inputs = absolute_input, .n_inputs = 2 }, "inputs", "inputs[1]: absolute" },
        { { BASE, .inputs = dotdot_input }, "inputs", "inputs[0]: has a '..' component" },
        { { BASE, .inputs = empty_input }, "inputs", "inputs[0]: empty" },
        { { BASE, .n_reduces = STORE_REDUCES_MAX + 1 }, "n_reduces", "n_reduces: 100001" },
        { { BASE, .deadline = (usec_t)INT64_MAX + 1 },
          "deadline",
          "deadline: 9223372036854775808" },
};
#pragma GCC diagnostic pop

START_TEST(test_submit_refused) {
        _cleanup_(store_closep) Store *s = open_ok();
        StoreError err = { 0 };
        StoreJob *jobs = NULL;
        uint64_t id = 42;
        size_t n = 1;

        assert_refused(store_job_submit(s, &bad_specs[_i].spec, &id, &err), err, -EINVAL,
                       bad_specs[_i].field, bad_specs[_i].text);
        ck_assert_uint_eq(id, 42);
        ck_assert_int_eq(store_jobs_list(s, STORE_JOB_ANY, &jobs, &n, &err), 0);
        ck_assert_uint_eq(n, 0);
        free(jobs);
}
END_TEST

START_TEST(test_submit_long_fields) {
        _cleanup_(store_closep) Store *s = open_ok();
        _cleanup_free_ char *name = malloc(STORE_NAME_MAX + 2), *path = malloc(STORE_PATH_MAX + 2);
        const char *inputs[] = { path };
        StoreJobSpec spec = wordcount;
        StoreError err = { 0 };
        StoreJob j = { 0 };
        uint64_t id;

        memset(name, 'n', STORE_NAME_MAX + 1);
        name[STORE_NAME_MAX + 1] = '\0';
        memset(path, 'p', STORE_PATH_MAX + 1);
        path[STORE_PATH_MAX + 1] = '\0';
        spec.name = name;
        assert_refused(store_job_submit(s, &spec, &id, &err), err, -EINVAL, "name",
                       "name: 256 bytes, longer than 255");
        spec.inputs = inputs;
        spec.n_inputs = 1;
        name[STORE_NAME_MAX] = '\0';
        assert_refused(store_job_submit(s, &spec, &id, &err), err, -EINVAL, "inputs",
                       "inputs[0]: 4096 bytes, longer than 4095");

        /* At the limits: accepted, and read back whole. */
        path[STORE_PATH_MAX] = '\0';
        id = submit_ok(s, &spec);
        ck_assert_int_eq(store_job_get(s, id, &j, &err), 0);
        assert_job_is(&j, id, &spec);
        store_job_clear(&j);
}
END_TEST

/* ---- state changes ---- */

/* A record's output, in one of enough buffers for the records a test
 * builds before it writes them. */
static char *output_buffer(void) {
        static char outputs[64][64];
        static unsigned next;

        return outputs[next++ % ELEMENTSOF(outputs)];
}

static StoreTaskRecord done_map(uint64_t job, unsigned index, uint64_t attempt) {
        char *out = output_buffer();

        snprintf(out, 64, "out/%" PRIu64 "/map-%u", job, index);
        return (StoreTaskRecord){
                .job = job,
                .type = TASK_MAP,
                .index = index,
                .attempt = attempt,
                .node = "4c4c4544-0042-3510-8052-b4c04f4d4e31",
                .status = STORE_TASK_SUCCEEDED,
                .started = 1000000 + index,
                .finished = 2000000 + index,
                .input_bytes = 64 << 20,
                .output_bytes = 1000 + index,
                .output = out,
        };
}

static StoreTaskRecord done_reduce(uint64_t job, unsigned index, uint64_t attempt) {
        StoreTaskRecord rec = done_map(job, index, attempt);
        char *out = output_buffer();

        snprintf(out, 64, "out/%" PRIu64 "/part-%05u", job, index);
        rec.type = TASK_REDUCE;
        rec.shuffle_end = 1500000;
        rec.output = out;
        return rec;
}

static void record_ok(Store *s, StoreTaskRecord rec) {
        StoreError err = { 0 };
        int r = store_tasks_record(s, &rec, 1, &err);

        ck_assert_msg(r == 0, "record: %d: %s", r, err.message);
}

static StoreJob get_ok(Store *s, uint64_t id) {
        StoreError err = { 0 };
        StoreJob j = { 0 };
        int r = store_job_get(s, id, &j, &err);

        ck_assert_msg(r == 0, "get: %d: %s", r, err.message);
        return j;
}

static StoreJobState state_of(Store *s, uint64_t id) {
        StoreJob j = get_ok(s, id);
        StoreJobState state = j.state;

        store_job_clear(&j);
        return state;
}

START_TEST(test_job_transitions) {
        _cleanup_(store_closep) Store *s = open_ok();
        StoreJobSpec one_reduce = wordcount;
        StoreTaskRecord rec;
        StoreError err = { 0 };
        StoreJob j;
        uint64_t a, b, c;

        one_reduce.n_reduces = 1;
        a = submit_ok(s, &one_reduce);
        b = submit_ok(s, &one_reduce);
        c = submit_ok(s, &one_reduce);

        assert_refused(store_job_start(s, c + 1, 2, &err), err, -ENOENT, "id", "no such job");
        assert_refused(store_job_start(s, a, 0, &err), err, -EINVAL, "n_maps", "n_maps: 0");
        assert_refused(store_job_start(s, a, STORE_MAPS_MAX + 1, &err), err, -EINVAL, "n_maps",
                       "1 to 10000000 map tasks");
        assert_refused(store_job_finish(s, a, STORE_JOB_SUCCEEDED, NULL, &err), err, -EBUSY, NULL,
                       "is queued; only a running job succeeds");
        assert_refused(store_job_finish(s, a, STORE_JOB_RUNNING, NULL, &err), err, -EINVAL, "state",
                       "a job ends succeeded, failed or cancelled");
        assert_refused(store_job_finish(s, a, STORE_JOB_FAILED, "bad\x1b[31m", &err), err, -EINVAL,
                       "message", "message: control character U+001B");
        ck_assert_int_eq(state_of(s, a), STORE_JOB_QUEUED);

        ck_assert_int_eq(store_job_start(s, a, 2, &err), 0);
        assert_refused(store_job_start(s, a, 2, &err), err, -EBUSY, NULL, "is running already");
        ck_assert_int_eq(state_of(s, a), STORE_JOB_RUNNING);

        /* Succeeded only once every task has: two maps and the reduce. */
        record_ok(s, done_map(a, 0, 1));
        assert_refused(store_job_finish(s, a, STORE_JOB_SUCCEEDED, NULL, &err), err, -EBUSY, NULL,
                       "job 1: 1 of its 2 map tasks and 1 of its 1 reduce tasks have not "
                       "succeeded");
        record_ok(s, done_map(a, 1, 1));
        record_ok(s, done_reduce(a, 0, 1));
        ck_assert_int_eq(store_job_finish(s, a, STORE_JOB_SUCCEEDED, NULL, &err), 0);
        j = get_ok(s, a);
        ck_assert_int_eq(j.state, STORE_JOB_SUCCEEDED);
        ck_assert_uint_eq(j.maps_done, 2);
        ck_assert_uint_eq(j.reduces_done, 1);
        ck_assert_uint_ge(j.finished, j.started);
        store_job_clear(&j);

        /* An ended job stays as it ended, and runs no more tasks. */
        rec = done_map(a, 1, 2);
        rec.status = STORE_TASK_KILLED;
        rec.output = NULL;
        assert_refused(store_tasks_record(s, &rec, 1, &err), err, -EALREADY, NULL,
                       "job 1: has ended (succeeded)");
        assert_refused(store_job_finish(s, a, STORE_JOB_CANCELLED, NULL, &err), err, -EALREADY,
                       NULL, "job 1: has ended (succeeded)");
        assert_refused(store_job_start(s, a, 2, &err), err, -EALREADY, NULL,
                       "has ended (succeeded)");

        /* Cancelled while queued, failed while running, with the reason. */
        ck_assert_int_eq(store_job_finish(s, b, STORE_JOB_CANCELLED, "cancelled by alice", &err),
                         0);
        assert_refused(store_job_finish(s, b, STORE_JOB_CANCELLED, NULL, &err), err, -EALREADY,
                       NULL, "has ended (cancelled)");
        ck_assert_int_eq(store_job_start(s, c, 1, &err), 0);
        ck_assert_int_eq(store_job_finish(s, c, STORE_JOB_FAILED, "map 0 failed 4 times", &err), 0);
        j = get_ok(s, c);
        ck_assert_int_eq(j.state, STORE_JOB_FAILED);
        ck_assert_str_eq(j.message, "map 0 failed 4 times");
        store_job_clear(&j);
        j = get_ok(s, b);
        ck_assert_int_eq(j.state, STORE_JOB_CANCELLED);
        ck_assert_str_eq(j.message, "cancelled by alice");
        ck_assert_uint_eq(j.started, 0);
        store_job_clear(&j);
}
END_TEST

/* ---- task attempts ---- */

START_TEST(test_task_records) {
        _cleanup_(store_closep) Store *s = open_ok();
        StoreTaskRecord *recs = NULL, rec;
        StoreError err = { 0 };
        uint64_t a;
        size_t n;
        StoreJob j;

        a = submit_ok(s, &wordcount);
        rec = done_map(a, 0, 1);
        assert_refused(store_tasks_record(s, &rec, 1, &err), err, -EBUSY, "job",
                       "is queued; none of its tasks has run");
        ck_assert_int_eq(store_job_start(s, a, 3, &err), 0);

        record_ok(s, done_map(a, 0, 1));
        /* Reported again after a reconnection: accepted, stored once. */
        record_ok(s, done_map(a, 0, 1));
        rec = done_map(a, 0, 1);
        rec.output_bytes++;
        assert_refused(store_tasks_record(s, &rec, 1, &err), err, -EEXIST, "attempt",
                       "attempt 1 of map task 0 of job 1: recorded already as succeeded");
        /* A speculative copy that also finished: the task has an output. */
        rec = done_map(a, 0, 2);
        assert_refused(store_tasks_record(s, &rec, 1, &err), err, -EEXIST, "status",
                       "map task 0 of job 1: succeeded already, in attempt 1");
        rec.status = STORE_TASK_KILLED;
        rec.output = NULL;
        rec.reason = "lost the speculative race";
        record_ok(s, rec);

        rec = done_map(a, 1, 7);
        rec.status = STORE_TASK_FAILED;
        rec.output = NULL;
        rec.reason = "memory limit: 512M";
        record_ok(s, rec);
        record_ok(s, done_map(a, 1, 8));
        record_ok(s, done_reduce(a, 1, 3));

        ck_assert_int_eq(store_job_tasks(s, a, STORE_TASK_ANY, &recs, &n, &err), 0);
        ck_assert_uint_eq(n, 5);
        /* By type, index and attempt. */
        ck_assert(recs[0].type == TASK_MAP && recs[0].index == 0 && recs[0].attempt == 1);
        ck_assert(recs[1].type == TASK_MAP && recs[1].index == 0 && recs[1].attempt == 2);
        ck_assert(recs[2].type == TASK_MAP && recs[2].index == 1 && recs[2].attempt == 7);
        ck_assert(recs[3].type == TASK_MAP && recs[3].index == 1 && recs[3].attempt == 8);
        ck_assert(recs[4].type == TASK_REDUCE && recs[4].index == 1 && recs[4].attempt == 3);
        ck_assert_int_eq(recs[1].status, STORE_TASK_KILLED);
        ck_assert_str_eq(recs[1].reason, "lost the speculative race");
        ck_assert_ptr_null(recs[1].output);
        ck_assert_int_eq(recs[2].status, STORE_TASK_FAILED);
        ck_assert_str_eq(recs[2].reason, "memory limit: 512M");
        /* Every field as it was given. */
        rec = done_reduce(a, 1, 3);
        ck_assert_uint_eq(recs[4].job, a);
        ck_assert_str_eq(recs[4].node, rec.node);
        ck_assert_uint_eq(recs[4].started, rec.started);
        ck_assert_uint_eq(recs[4].finished, rec.finished);
        ck_assert_uint_eq(recs[4].shuffle_end, rec.shuffle_end);
        ck_assert_uint_eq(recs[4].input_bytes, rec.input_bytes);
        ck_assert_uint_eq(recs[4].output_bytes, rec.output_bytes);
        ck_assert_str_eq(recs[4].output, rec.output);
        ck_assert_ptr_null(recs[4].reason);
        store_task_records_free(recs, n);

        j = get_ok(s, a);
        ck_assert_uint_eq(j.maps_done, 2);
        ck_assert_uint_eq(j.reduces_done, 1);
        store_job_clear(&j);

        assert_refused(store_job_tasks(s, a + 1, STORE_TASK_ANY, &recs, &n, &err), err, -ENOENT,
                       "job", "job 2: no such job");
        assert_refused(store_job_tasks(s, a, 64, &recs, &n, &err), err, -EINVAL, "statuses",
                       "not a set of attempt statuses");
}
END_TEST

/* Attempt of map index of job, as it starts. */
static StoreTaskRecord running_map(uint64_t job, unsigned index, uint64_t attempt) {
        StoreTaskRecord rec = done_map(job, index, attempt);

        rec.status = STORE_TASK_RUNNING;
        rec.finished = 0;
        rec.input_bytes = rec.output_bytes = 0;
        rec.output = NULL;
        return rec;
}

/* Every attempt is recorded running as it starts, and its record replaced
 * when it ends, even after its job ended (a cancelled job's kills): lost
 * and discarded attempts keep their rows. */
/* What an attempt's process used (schema 4): kept, read back, NULL when
 * not reported, compared when reported again, refused on a running one. */
START_TEST(test_task_usage) {
        _cleanup_(store_closep) Store *s = open_ok();
        StoreTaskRecord *recs = NULL, rec, other;
        StoreError err = { 0 };
        uint64_t job = submit_ok(s, &wordcount);
        size_t n;

        ck_assert_int_eq(store_job_start(s, job, 3, &err), 0);
        rec = done_map(job, 0, 1);
        rec.usage = true;
        rec.cpu_time = 1250000;
        rec.io_wait = 30000;
        record_ok(s, rec);
        record_ok(s, done_map(job, 1, 2));
        /* The same report again is no change; another use contradicts it. */
        record_ok(s, rec);
        other = rec;
        other.cpu_time = 1;
        assert_refused(store_tasks_record(s, &other, 1, &err), err, -EEXIST, "attempt",
                       "with other values");
        ck_assert_int_eq(store_job_tasks(s, job, STORE_TASK_ANY, &recs, &n, &err), 0);
        ck_assert_uint_eq(n, 2);
        ck_assert(recs[0].usage);
        ck_assert_uint_eq(recs[0].cpu_time, 1250000);
        ck_assert_uint_eq(recs[0].io_wait, 30000);
        ck_assert(!recs[1].usage);
        store_task_records_free(recs, n);

        other = done_map(job, 2, 3);
        other.status = STORE_TASK_RUNNING;
        other.finished = 0;
        other.output = NULL;
        other.usage = true;
        assert_refused(store_tasks_record(s, &other, 1, &err), err, -EINVAL, "cpu_time",
                       "given for a running attempt");
        other = done_map(job, 2, 3);
        other.usage = true;
        other.io_wait = (uint64_t)INT64_MAX + 1;
        assert_refused(store_tasks_record(s, &other, 1, &err), err, -EINVAL, "io_wait", "io_wait");
}
END_TEST

/* An end written over the attempt's running record in place is refused
 * for what a tracker may get wrong, as any record is, and the running
 * record stays; a good end then replaces it, whatever node and start it
 * names, and the same end again is no change. */
START_TEST(test_task_end_over_running) {
        _cleanup_(store_closep) Store *s = open_ok();
        StoreTaskRecord *recs = NULL, rec;
        StoreError err = { 0 };
        uint64_t a;
        size_t n;

        a = submit_ok(s, &wordcount);
        ck_assert_int_eq(store_job_start(s, a, 3, &err), 0);
        record_ok(s, running_map(a, 0, 1));
        rec = done_map(a, 0, 1);
        rec.finished = rec.started - 1;
        assert_refused(store_tasks_record(s, &rec, 1, &err), err, -EINVAL, "finished",
                       "before started");
        rec = done_map(a, 0, 1);
        rec.status = STORE_TASK_FAILED;
        assert_refused(store_tasks_record(s, &rec, 1, &err), err, -EINVAL, "output",
                       "given for an attempt that did not succeed");
        rec = done_map(a, 0, 1);
        rec.node = "bad node";
        assert_refused(store_tasks_record(s, &rec, 1, &err), err, -EINVAL, "node", "node");
        ck_assert_int_eq(
                store_job_tasks(s, a, STORE_TASK_STATUS_BIT(STORE_TASK_RUNNING), &recs, &n, &err),
                0);
        ck_assert_uint_eq(n, 1);
        ck_assert_uint_eq(recs[0].attempt, 1);
        store_task_records_free(recs, n);

        rec = done_map(a, 0, 1);
        rec.node = "tracker-2";
        rec.started++;
        record_ok(s, rec);
        record_ok(s, rec);
        ck_assert_int_eq(store_job_tasks(s, a, STORE_TASK_ANY, &recs, &n, &err), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_int_eq(recs[0].status, STORE_TASK_SUCCEEDED);
        ck_assert_str_eq(recs[0].node, "tracker-2");
        ck_assert_uint_eq(recs[0].started, rec.started);
        ck_assert_str_eq(recs[0].output, rec.output);
        store_task_records_free(recs, n);
        ck_assert_uint_eq(store_errors(s), 0);
}
END_TEST

START_TEST(test_task_running) {
        _cleanup_(store_closep) Store *s = open_ok();
        StoreTaskRecord *recs = NULL, rec;
        StoreError err = { 0 };
        uint64_t a;
        size_t n;

        a = submit_ok(s, &wordcount);
        ck_assert_int_eq(store_job_start(s, a, 3, &err), 0);
        record_ok(s, running_map(a, 0, 1));
        record_ok(s, running_map(a, 0, 1));
        rec = running_map(a, 0, 2);
        rec.finished = rec.started;
        assert_refused(store_tasks_record(s, &rec, 1, &err), err, -EINVAL, "finished",
                       "finished: given for a running attempt");
        record_ok(s, running_map(a, 0, 2));
        record_ok(s, running_map(a, 1, 3));
        record_ok(s, running_map(a, 2, 4));

        ck_assert_int_eq(
                store_job_tasks(s, a, STORE_TASK_STATUS_BIT(STORE_TASK_RUNNING), &recs, &n, &err),
                0);
        ck_assert_uint_eq(n, 4);
        ck_assert_uint_eq(recs[0].finished, 0);
        store_task_records_free(recs, n);

        record_ok(s, done_map(a, 0, 1));
        /* A second success of the task, of an attempt recorded running:
         * refused, and its record stays. */
        assert_refused(store_tasks_record(s, (StoreTaskRecord[]){ done_map(a, 0, 2) }, 1, &err),
                       err, -EEXIST, "status",
                       "map task 0 of job 1: succeeded already, in attempt 1");
        ck_assert_int_eq(
                store_job_tasks(s, a, STORE_TASK_STATUS_BIT(STORE_TASK_RUNNING), &recs, &n, &err),
                0);
        ck_assert_uint_eq(n, 3);
        store_task_records_free(recs, n);
        ck_assert_uint_eq(store_errors(s), 0);
        rec = done_map(a, 0, 2);
        rec.status = STORE_TASK_DISCARDED;
        rec.output = NULL;
        rec.reason = "another attempt of its task succeeded first";
        record_ok(s, rec);
        rec = done_map(a, 1, 3);
        rec.status = STORE_TASK_LOST;
        rec.output = NULL;
        rec.reason = "its tracker was lost";
        record_ok(s, rec);
        /* Ended: not running again. */
        rec = running_map(a, 0, 1);
        assert_refused(store_tasks_record(s, &rec, 1, &err), err, -EEXIST, "attempt",
                       "recorded already as succeeded");

        ck_assert_int_eq(store_job_finish(s, a, STORE_JOB_CANCELLED, "cancelled", &err), 0);
        rec = done_map(a, 2, 4);
        rec.status = STORE_TASK_KILLED;
        rec.output = NULL;
        rec.reason = "job cancelled";
        record_ok(s, rec);
        rec = running_map(a, 2, 5);
        assert_refused(store_tasks_record(s, &rec, 1, &err), err, -EALREADY, NULL,
                       "has ended (cancelled)");

        ck_assert_int_eq(store_job_tasks(s, a, STORE_TASK_ANY, &recs, &n, &err), 0);
        ck_assert_uint_eq(n, 4);
        ck_assert_int_eq(recs[0].status, STORE_TASK_SUCCEEDED);
        ck_assert_int_eq(recs[1].status, STORE_TASK_DISCARDED);
        ck_assert_str_eq(recs[1].reason, "another attempt of its task succeeded first");
        ck_assert_int_eq(recs[2].status, STORE_TASK_LOST);
        ck_assert_int_eq(recs[3].status, STORE_TASK_KILLED);
        ck_assert_uint_eq(recs[3].finished, 2000002);
        ck_assert_str_eq(store_task_status_to_string(recs[1].status), "discarded");
        ck_assert_str_eq(store_task_status_to_string(recs[2].status), "lost");
        store_task_records_free(recs, n);
}
END_TEST

typedef void (*RecordMutation)(StoreTaskRecord *rec);

static void bad_job(StoreTaskRecord *r) {
        r->job = 99;
}
static void bad_type(StoreTaskRecord *r) {
        r->type = _TASK_TYPE_MAX;
}
static void bad_index(StoreTaskRecord *r) {
        r->index = 3;
}
static void bad_reduce_index(StoreTaskRecord *r) {
        r->type = TASK_REDUCE;
        r->index = 2;
}
static void bad_attempt(StoreTaskRecord *r) {
        r->attempt = (uint64_t)INT64_MAX + 1;
}
static void bad_node(StoreTaskRecord *r) {
        r->node = "vm 1";
}
static void no_node(StoreTaskRecord *r) {
        r->node = NULL;
}
static void bad_status(StoreTaskRecord *r) {
        r->status = _STORE_TASK_STATUS_MAX;
}
static void no_start(StoreTaskRecord *r) {
        r->started = 0;
}
static void ends_before_start(StoreTaskRecord *r) {
        r->finished = r->started - 1;
}
static void map_shuffle(StoreTaskRecord *r) {
        r->shuffle_end = r->started;
}
static void shuffle_after_end(StoreTaskRecord *r) {
        r->type = TASK_REDUCE;
        r->shuffle_end = r->finished + 1;
}
static void huge_bytes(StoreTaskRecord *r) {
        r->output_bytes = UINT64_MAX;
}
static void no_output(StoreTaskRecord *r) {
        r->output = NULL;
}
static void failed_output(StoreTaskRecord *r) {
        r->status = STORE_TASK_FAILED;
}
static void succeeded_reason(StoreTaskRecord *r) {
        r->reason = "why";
}
static void absolute_output(StoreTaskRecord *r) {
        r->output = "/tmp/x";
}
static void bad_reason(StoreTaskRecord *r) {
        r->status = STORE_TASK_KILLED;
        r->output = NULL;
        r->reason = "a\nb";
}

static const struct {
        RecordMutation mutate;
        int r;
        const char *field, *text;
} bad_records[] = {
        { bad_job, -ENOENT, "job", "job 99: no such job" },
        { bad_type, -EINVAL, "type", "type: 2 is neither map nor reduce" },
        { bad_index, -EINVAL, "index", "index: 3; job 1 has 3 map tasks" },
        { bad_reduce_index, -EINVAL, "index", "index: 2; job 1 has 2 reduce tasks" },
        { bad_attempt, -EINVAL, "attempt", "attempt: 9223372036854775808 is above" },
        { bad_node, -EINVAL, "node", "node: byte 2 (0x20)" },
        { no_node, -EINVAL, "node", "node: empty" },
        { bad_status, -EINVAL, "status", "status: 6 is not an attempt's" },
        { no_start, -EINVAL, "started", "started: 0" },
        { ends_before_start, -EINVAL, "finished", "finished: before started" },
        { map_shuffle, -EINVAL, "shuffle_end", "shuffle_end: a map has no shuffle" },
        { shuffle_after_end, -EINVAL, "shuffle_end", "outside the attempt's run" },
        { huge_bytes, -EINVAL, "output_bytes", "output_bytes: 18446744073709551615" },
        { no_output, -EINVAL, "output", "output: missing" },
        { failed_output, -EINVAL, "output", "output: given for an attempt that did not succeed" },
        { succeeded_reason, -EINVAL, "reason", "reason: given for an attempt that succeeded" },
        { absolute_output, -EINVAL, "output", "output: absolute" },
        { bad_reason, -EINVAL, "reason", "reason: control character U+000A" },
};

START_TEST(test_task_record_refused) {
        _cleanup_(store_closep) Store *s = open_ok();
        StoreTaskRecord rec, *recs = NULL;
        StoreError err = { 0 };
        uint64_t a;
        size_t n = 1;

        a = submit_ok(s, &wordcount);
        ck_assert_int_eq(store_job_start(s, a, 3, &err), 0);
        rec = done_map(a, 0, 1);
        bad_records[_i].mutate(&rec);
        assert_refused(store_tasks_record(s, &rec, 1, &err), err, bad_records[_i].r,
                       bad_records[_i].field, bad_records[_i].text);
        ck_assert_int_eq(store_job_tasks(s, a, STORE_TASK_ANY, &recs, &n, &err), 0);
        ck_assert_uint_eq(n, 0);
        free(recs);
}
END_TEST

/* A heartbeat's records are written together or not at all. */
START_TEST(test_task_batch) {
        _cleanup_(store_closep) Store *s = open_ok();
        StoreTaskRecord batch[5], *recs = NULL;
        StoreError err = { 0 };
        uint64_t a, b;
        size_t n;

        a = submit_ok(s, &wordcount);
        b = submit_ok(s, &streaming);
        ck_assert_int_eq(store_job_start(s, a, 8, &err), 0);
        ck_assert_int_eq(store_job_start(s, b, 8, &err), 0);
        for (unsigned i = 0; i < ELEMENTSOF(batch); i++)
                batch[i] = done_map(i % 2 ? b : a, i, 1);
        batch[3].finished = 1;
        assert_refused(store_tasks_record(s, batch, ELEMENTSOF(batch), &err), err, -EINVAL,
                       "finished", "record 3 of 5: finished: before started");
        ck_assert_int_eq(store_job_tasks(s, a, STORE_TASK_ANY, &recs, &n, &err), 0);
        ck_assert_uint_eq(n, 0);
        free(recs);

        /* A record twice in one batch is one record. */
        batch[3] = batch[1];
        ck_assert_int_eq(store_tasks_record(s, batch, ELEMENTSOF(batch), &err), 0);
        ck_assert_int_eq(store_job_tasks(s, a, STORE_TASK_ANY, &recs, &n, &err), 0);
        ck_assert_uint_eq(n, 3);
        store_task_records_free(recs, n);
        ck_assert_int_eq(store_job_tasks(s, b, STORE_TASK_ANY, &recs, &n, &err), 0);
        ck_assert_uint_eq(n, 1);
        store_task_records_free(recs, n);

        assert_refused(store_tasks_record(s, batch, 0, &err), err, -EINVAL, "records",
                       "records: 0; a batch has 1 to");
        assert_refused(store_tasks_record(s, NULL, 1, &err), err, -EINVAL, "records", "records");
}
END_TEST

/* ---- groups ---- */

/* The job's task records that another connection sees: what is committed. */
static int64_t committed_records(uint64_t job) {
        char sql[96];

        snprintf(sql, sizeof(sql), "SELECT count(*) FROM task_attempts WHERE job = %" PRIu64, job);
        return raw_int(db, sql);
}

/* Records of many calls in a group are one commit, which no other
 * connection sees before it; the store's own reads see them. */
START_TEST(test_group_one_commit) {
        _cleanup_(store_closep) Store *s = open_ok();
        StoreTaskRecord *recs = NULL;
        StoreError err = { 0 };
        uint64_t job, commits;
        size_t n;

        job = submit_ok(s, &wordcount);
        ck_assert_int_eq(store_job_start(s, job, 8, &err), 0);
        commits = store_commits(s);
        ck_assert(!store_group_open(s));
        store_group_begin(s);
        ck_assert(store_group_open(s));
        for (unsigned i = 0; i < 8; i++)
                record_ok(s, running_map(job, i, i + 1));
        record_ok(s, done_map(job, 0, 1));
        ck_assert_int_eq(committed_records(job), 0);
        ck_assert_uint_eq(store_commits(s), commits);
        ck_assert_int_eq(store_job_tasks(s, job, STORE_TASK_ANY, &recs, &n, &err), 0);
        ck_assert_uint_eq(n, 8);
        store_task_records_free(recs, n);

        ck_assert_int_eq(store_group_commit(s, &err), 0);
        ck_assert(!store_group_open(s));
        ck_assert_uint_eq(store_commits(s), commits + 1);
        ck_assert_int_eq(committed_records(job), 8);
        /* Outside a group, a record is a commit of its own. */
        record_ok(s, done_map(job, 1, 2));
        ck_assert_uint_eq(store_commits(s), commits + 2);
        /* A group with no record commits nothing. */
        store_group_begin(s);
        ck_assert_int_eq(store_group_commit(s, &err), 0);
        ck_assert_uint_eq(store_commits(s), commits + 2);
}
END_TEST

/* A record refused in a group takes its batch's others with it and leaves
 * the group's other records; a job's change (a WRITE) commits the group
 * with it, and the group goes on after. */
START_TEST(test_group_refusal_and_write) {
        _cleanup_(store_closep) Store *s = open_ok();
        StoreTaskRecord batch[2];
        StoreError err = { 0 };
        uint64_t job, other, commits;

        job = submit_ok(s, &wordcount);
        other = submit_ok(s, &streaming);
        ck_assert_int_eq(store_job_start(s, job, 8, &err), 0);
        ck_assert_int_eq(store_job_start(s, other, 8, &err), 0);
        store_group_begin(s);
        record_ok(s, running_map(job, 0, 1));
        batch[0] = running_map(job, 1, 2);
        batch[1] = running_map(job, 9, 3);
        assert_refused(store_tasks_record(s, batch, 2, &err), err, -EINVAL, "index",
                       "record 1 of 2: index: 9");
        record_ok(s, running_map(job, 2, 4));
        ck_assert_int_eq(committed_records(job), 0);

        commits = store_commits(s);
        ck_assert_int_eq(store_job_finish(s, other, STORE_JOB_CANCELLED, "cancelled", &err), 0);
        ck_assert_int_eq(committed_records(job), 2);
        ck_assert_uint_eq(store_commits(s), commits + 2);
        record_ok(s, running_map(job, 3, 5));
        ck_assert_int_eq(committed_records(job), 2);
        ck_assert_int_eq(store_group_commit(s, &err), 0);
        ck_assert_int_eq(committed_records(job), 3);
        ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM task_attempts WHERE idx = 1"), 0);
}
END_TEST

static off_t file_size(const char *path) {
        struct stat st;

        return stat(path, &st) == 0 ? st.st_size : 0;
}

/* A group whose commit fails loses every record it holds, and says so:
 * here the limit on a file's size stops the log's growth, as a full disk
 * would. The store goes on once there is room. */
START_TEST(test_group_commit_fails) {
        _cleanup_(store_closep) Store *s = open_ok();
        _cleanup_free_ char *wal = NULL;
        struct rlimit unlimited, low;
        StoreError err = { 0 };
        off_t largest;
        uint64_t job;
        int r;

        ck_assert_int_ge(asprintf(&wal, "%s-wal", db), 0);
        job = submit_ok(s, &wordcount);
        ck_assert_int_eq(store_job_start(s, job, 2000, &err), 0);
        store_group_begin(s);
        for (unsigned i = 0; i < 2000; i++)
                record_ok(s, running_map(job, i, i + 1));

        ck_assert_ptr_ne(signal(SIGXFSZ, SIG_IGN), SIG_ERR);
        ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &unlimited), 0);
        largest = file_size(db) > file_size(wal) ? file_size(db) : file_size(wal);
        low = (struct rlimit){ .rlim_cur = (rlim_t)largest + 16384,
                               .rlim_max = unlimited.rlim_max };
        ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &low), 0);
        r = store_group_commit(s, &err);
        ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &unlimited), 0);
        ck_assert_msg(r < 0, "the group committed past the size limit");
        ck_assert_msg(strstr(err.message, ": cannot commit: ") &&
                              strstr(err.message, "(the group's task records are lost)"),
                      "%s", err.message);
        ck_assert(!store_group_open(s));
        ck_assert_int_eq(committed_records(job), 0);

        record_ok(s, running_map(job, 0, 1));
        ck_assert_int_eq(committed_records(job), 1);
}
END_TEST

/* ---- resuming ---- */

/* What a controller restarted mid-job reads back: the unfinished jobs, and
 * of each the tasks it need not run again, with their outputs. */
START_TEST(test_resume) {
        _cleanup_(store_closep) Store *s = open_ok();
        StoreTaskRecord rec, *recs = NULL;
        StoreJob *jobs = NULL;
        StoreError err = { 0 };
        uint64_t a, b, c, d;
        bool map_done[3] = { false }, reduce_done[2] = { false };
        size_t n;

        a = submit_ok(s, &wordcount); /* 3 maps, 2 reduces: half done */
        b = submit_ok(s, &wordcount); /* started, nothing done */
        c = submit_ok(s, &streaming); /* still queued */
        d = submit_ok(s, &streaming); /* ended */
        ck_assert_int_eq(store_job_start(s, a, 3, &err), 0);
        ck_assert_int_eq(store_job_start(s, b, 5, &err), 0);
        ck_assert_int_eq(store_job_start(s, d, 1, &err), 0);
        record_ok(s, done_map(a, 0, 1));
        rec = done_map(a, 1, 2);
        rec.status = STORE_TASK_FAILED;
        rec.output = NULL;
        record_ok(s, rec);
        record_ok(s, done_map(a, 1, 3));
        rec = done_map(a, 2, 4);
        rec.status = STORE_TASK_KILLED;
        rec.output = NULL;
        record_ok(s, rec);
        record_ok(s, done_reduce(a, 0, 5));
        record_ok(s, done_map(d, 0, 1));
        record_ok(s, done_reduce(d, 0, 1));
        ck_assert_int_eq(store_job_finish(s, d, STORE_JOB_SUCCEEDED, NULL, &err), 0);
        s = store_close(s);

        s = open_ok();
        ck_assert_int_eq(store_jobs_list(s, STORE_JOB_UNFINISHED, &jobs, &n, &err), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert_uint_eq(jobs[0].id, a);
        ck_assert_int_eq(jobs[0].state, STORE_JOB_RUNNING);
        ck_assert_uint_eq(jobs[0].n_maps, 3);
        ck_assert_uint_eq(jobs[0].maps_done, 2);
        ck_assert_uint_eq(jobs[0].reduces_done, 1);
        ck_assert_uint_eq(jobs[1].id, b);
        ck_assert_uint_eq(jobs[1].maps_done, 0);
        ck_assert_uint_eq(jobs[2].id, c);
        ck_assert_int_eq(jobs[2].state, STORE_JOB_QUEUED);
        store_jobs_free(jobs, n);

        ck_assert_int_eq(
                store_job_tasks(s, a, STORE_TASK_STATUS_BIT(STORE_TASK_SUCCEEDED), &recs, &n, &err),
                0);
        for (size_t i = 0; i < n; i++) {
                ck_assert_int_eq(recs[i].status, STORE_TASK_SUCCEEDED);
                if (recs[i].type == TASK_MAP) {
                        ck_assert_str_eq(recs[i].output,
                                         done_map(a, recs[i].index, recs[i].attempt).output);
                        map_done[recs[i].index] = true;
                } else {
                        ck_assert_str_eq(recs[i].output, "out/1/part-00000");
                        reduce_done[recs[i].index] = true;
                }
        }
        store_task_records_free(recs, n);
        /* To run again: map 2 (its attempt was killed) and reduce 1. */
        ck_assert(map_done[0] && map_done[1] && !map_done[2]);
        ck_assert(reduce_done[0] && !reduce_done[1]);

        ck_assert_int_eq(
                store_job_tasks(s, b, STORE_TASK_STATUS_BIT(STORE_TASK_SUCCEEDED), &recs, &n, &err),
                0);
        ck_assert_uint_eq(n, 0);
        free(recs);

        /* The resumed job goes on where it was. */
        record_ok(s, done_map(a, 2, 6));
        record_ok(s, done_reduce(a, 1, 7));
        ck_assert_int_eq(store_job_finish(s, a, STORE_JOB_SUCCEEDED, NULL, &err), 0);
}
END_TEST

/* ---- ARIA profiles ---- */

static const StoreProfileStats wiki = {
        .map_min = 94,
        .map_avg = 144,
        .map_max = 186,
        .map_input = 59.85 * 1024 * 1024,
        .map_selectivity = 10.07,
        .sh1_avg = 12,
        .sh1_max = 20,
        .shtyp_avg = 121,
        .shtyp_max = 152,
        .reduce_avg = 16,
        .reduce_max = 33,
        .reduce_selectivity = 0.37,
};

/* Every field different, so that a column read into another field shows. */
static const StoreProfileStats distinct = {
        .map_min = 1.5,
        .map_avg = 2.25,
        .map_max = 3.125,
        .map_input = 4e6,
        .map_selectivity = 5.5,
        .sh1_avg = 6.5,
        .sh1_max = 7.5,
        .shtyp_avg = 8.5,
        .shtyp_max = 9.5,
        .reduce_avg = 10.5,
        .reduce_max = 11.5,
        .reduce_selectivity = 0.125,
};

static void assert_profile_eq(const StoreProfileStats *a, const StoreProfileStats *b) {
        ck_assert(memcmp(a, b, sizeof(*a)) == 0);
}

/* Pruning forgets ended jobs older than the cut, with their records, and
 * nothing else: not a queued or running job, however old; not a job that
 * ended after the cut; not a profile; not an id. */
START_TEST(test_prune) {
        _cleanup_(store_closep) Store *s = open_ok();
        StoreJobSpec one_reduce = wordcount;
        StoreError err = { 0 };
        StoreProfile p = { 0 };
        StoreJob j;
        uint64_t done, failed, running, queued, late, next, counts[_STORE_JOB_STATE_MAX];
        char sql[256];
        usec_t cut;
        size_t n = 99;

        one_reduce.n_reduces = 1;
        done = submit_ok(s, &one_reduce);
        failed = submit_ok(s, &one_reduce);
        running = submit_ok(s, &one_reduce);
        queued = submit_ok(s, &one_reduce);
        late = submit_ok(s, &one_reduce);
        ck_assert_int_eq(store_job_start(s, done, 1, &err), 0);
        record_ok(s, done_map(done, 0, 1));
        record_ok(s, done_reduce(done, 0, 1));
        ck_assert_int_eq(store_job_finish(s, done, STORE_JOB_SUCCEEDED, NULL, &err), 0);
        ck_assert_int_eq(store_job_finish(s, failed, STORE_JOB_FAILED, "no", &err), 0);
        ck_assert_int_eq(store_job_start(s, running, 1, &err), 0);
        record_ok(s, done_map(running, 0, 1));
        ck_assert_int_eq(store_profile_put(s, "alice", "wikitrends", done, &wiki, &err), 0);
        ck_assert_int_eq(store_jobs_count(s, counts, &err), 0);
        ck_assert_uint_eq(counts[STORE_JOB_QUEUED], 2);
        ck_assert_uint_eq(counts[STORE_JOB_RUNNING], 1);
        ck_assert_uint_eq(counts[STORE_JOB_SUCCEEDED], 1);
        ck_assert_uint_eq(counts[STORE_JOB_FAILED], 1);
        ck_assert_uint_eq(counts[STORE_JOB_CANCELLED], 0);

        /* Nothing ended before the first job was even submitted. */
        ck_assert_int_eq(store_jobs_prune(s, 1, &n, &err), 0);
        ck_assert_uint_eq(n, 0);
        j = get_ok(s, done);
        store_job_clear(&j);

        cut = now_realtime_usec() + 1;
        /* One that ends after the cut stays. */
        while (now_realtime_usec() <= cut)
                ;
        ck_assert_int_eq(store_job_finish(s, late, STORE_JOB_CANCELLED, NULL, &err), 0);
        ck_assert_int_eq(store_jobs_prune(s, cut, &n, &err), 0);
        ck_assert_uint_eq(n, 2);
        j = get_ok(s, late);
        ck_assert_int_eq(j.state, STORE_JOB_CANCELLED);
        store_job_clear(&j);
        j = get_ok(s, queued);
        ck_assert_int_eq(j.state, STORE_JOB_QUEUED);
        store_job_clear(&j);
        assert_refused(store_job_get(s, done, &j, &err), err, -ENOENT, "id", "no such job");
        assert_refused(store_job_get(s, failed, &j, &err), err, -ENOENT, "id", "no such job");
        /* Their inputs and records went with them; the others' stay. */
        snprintf(sql, sizeof(sql),
                 "SELECT count(*) FROM job_inputs WHERE job IN (%" PRIu64 ", %" PRIu64 ")", done,
                 failed);
        ck_assert_int_eq(raw_int(db, sql), 0);
        snprintf(sql, sizeof(sql),
                 "SELECT count(DISTINCT job) FROM job_inputs WHERE job IN (%" PRIu64 ", %" PRIu64
                 ", %" PRIu64 ")",
                 running, queued, late);
        ck_assert_int_eq(raw_int(db, sql), 3);
        snprintf(sql, sizeof(sql), "SELECT count(*) FROM task_attempts WHERE job = %" PRIu64,
                 running);
        ck_assert_int_eq(raw_int(db, sql), 1);
        ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM task_attempts"), 1);
        ck_assert_int_eq(store_jobs_count(s, counts, &err), 0);
        ck_assert_uint_eq(counts[STORE_JOB_RUNNING], 1);
        ck_assert_uint_eq(counts[STORE_JOB_QUEUED], 1);
        ck_assert_uint_eq(counts[STORE_JOB_SUCCEEDED] + counts[STORE_JOB_FAILED], 0);
        ck_assert_uint_eq(counts[STORE_JOB_CANCELLED], 1);

        /* The running job and the profile stay. */
        j = get_ok(s, running);
        ck_assert_int_eq(j.state, STORE_JOB_RUNNING);
        ck_assert_uint_eq(j.maps_done, 1);
        store_job_clear(&j);
        ck_assert_int_eq(store_profile_get(s, "alice", "wikitrends", &p, &err), 0);
        store_profile_clear(&p);

        /* A pruned job's id is not given again, also after a reopen. */
        s = store_close(s);
        s = open_ok();
        next = submit_ok(s, &one_reduce);
        ck_assert_uint_gt(next, running);
        ck_assert_int_eq(store_jobs_prune(s, cut, NULL, &err), 0);
}
END_TEST

START_TEST(test_profiles) {
        _cleanup_(store_closep) Store *s = open_ok();
        StoreProfile p = { 0 }, *all = NULL;
        StoreError err = { 0 };
        size_t n;

        ck_assert_int_eq(store_profile_put(s, "alice", "wikitrends", 5, &wiki, &err), 0);
        ck_assert_int_eq(store_profile_put(s, "alice", "sort 10G", 3, &distinct, &err), 0);
        ck_assert_int_eq(store_profile_put(s, "_batch", "wikitrends", 4, &distinct, &err), 0);
        s = store_close(s);
        s = open_ok();

        ck_assert_int_eq(store_profile_get(s, "alice", "wikitrends", &p, &err), 0);
        ck_assert_str_eq(p.user, "alice");
        ck_assert_str_eq(p.name, "wikitrends");
        ck_assert_uint_eq(p.job, 5);
        ck_assert_uint_gt(p.updated, 0);
        assert_profile_eq(&p.profile, &wiki);
        store_profile_clear(&p);
        ck_assert_int_eq(store_profile_get(s, "alice", "sort 10G", &p, &err), 0);
        assert_profile_eq(&p.profile, &distinct);
        store_profile_clear(&p);

        /* A later run replaces it; an earlier one does not. */
        ck_assert_int_eq(store_profile_put(s, "alice", "wikitrends", 9, &distinct, &err), 0);
        assert_refused(store_profile_put(s, "alice", "wikitrends", 8, &wiki, &err), err, -ESTALE,
                       "job", "job: 8 ran before job 9, whose profile is stored");
        ck_assert_int_eq(store_profile_put(s, "alice", "wikitrends", 9, &distinct, &err), 0);
        ck_assert_int_eq(store_profile_get(s, "alice", "wikitrends", &p, &err), 0);
        ck_assert_uint_eq(p.job, 9);
        assert_profile_eq(&p.profile, &distinct);
        store_profile_clear(&p);

        assert_refused(store_profile_get(s, "alice", "terasort", &p, &err), err, -ENOENT, "name",
                       "no profile of job terasort of user alice");
        assert_refused(store_profile_get(s, "al ice", "x", &p, &err), err, -EINVAL, "user",
                       "user: byte 2");
        assert_refused(store_profile_put(s, "alice", "", 10, &wiki, &err), err, -EINVAL, "name",
                       "name: empty");
        assert_refused(store_profile_put(s, "alice", "x", 0, &wiki, &err), err, -EINVAL, "job",
                       "job: 0");
        assert_refused(store_profile_put(s, "alice", "x", 1, NULL, &err), err, -EINVAL, "profile",
                       "profile: missing");

        ck_assert_int_eq(store_profiles_list(s, &all, &n, &err), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert_str_eq(all[0].user, "_batch");
        ck_assert_str_eq(all[1].name, "sort 10G");
        ck_assert_str_eq(all[2].name, "wikitrends");
        ck_assert_uint_eq(all[2].job, 9);
        store_profiles_free(all, n);
}
END_TEST

static const struct {
        size_t offset;
        double value;
        const char *field, *text;
} bad_profiles[] = {
        { offsetof(StoreProfileStats, map_min), NAN, "map_min", "map_min: nan" },
        { offsetof(StoreProfileStats, map_max), INFINITY, "map_max", "map_max: inf" },
        { offsetof(StoreProfileStats, sh1_max), -1, "sh1_max", "sh1_max: -1; a profile holds" },
        { offsetof(StoreProfileStats, map_avg), 0, "map_avg", "map_avg: 0; a map task takes time" },
        { offsetof(StoreProfileStats, map_input), 0, "map_input", "map_input: 0" },
        { offsetof(StoreProfileStats, map_min), 150, "map_min",
          "map_min: 150 is above map_avg, 144" },
        { offsetof(StoreProfileStats, map_max), 100, "map_avg",
          "map_avg: 144 is above map_max, 100" },
        { offsetof(StoreProfileStats, sh1_avg), 21, "sh1_avg", "sh1_avg: 21 is above sh1_max, 20" },
        { offsetof(StoreProfileStats, shtyp_max), 1, "shtyp_avg", "is above shtyp_max, 1" },
        { offsetof(StoreProfileStats, reduce_avg), 34, "reduce_avg", "is above reduce_max, 33" },
        { offsetof(StoreProfileStats, reduce_selectivity), -0.5, "reduce_selectivity",
          "reduce_selectivity: -0.5" },
};

START_TEST(test_profile_refused) {
        _cleanup_(store_closep) Store *s = open_ok();
        StoreProfileStats bad = wiki;
        StoreProfile p = { 0 };
        StoreError err = { 0 };

        ck_assert_int_eq(store_profile_put(s, "alice", "wikitrends", 1, &distinct, &err), 0);
        *(double *)((char *)&bad + bad_profiles[_i].offset) = bad_profiles[_i].value;
        assert_refused(store_profile_put(s, "alice", "wikitrends", 2, &bad, &err), err, -EINVAL,
                       bad_profiles[_i].field, bad_profiles[_i].text);
        ck_assert_int_eq(store_profile_get(s, "alice", "wikitrends", &p, &err), 0);
        ck_assert_uint_eq(p.job, 1);
        assert_profile_eq(&p.profile, &distinct);
        store_profile_clear(&p);
}
END_TEST

/* ---- schema versions ---- */

/* Version 1 as the first release wrote it, kept here by hand: the store
 * must go on reading it whatever the code's schema becomes. */
static const char v1_schema[] =
        "PRAGMA application_id = 1179408467;"
        "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied INTEGER NOT NULL) "
        "STRICT;"
        "CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, state TEXT NOT NULL CHECK "
        "(state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')), name TEXT NOT "
        "NULL, user TEXT NOT NULL, pool TEXT NOT NULL, app TEXT, app_arg TEXT, mapper TEXT, "
        "reducer TEXT, n_maps INTEGER NOT NULL DEFAULT 0 CHECK (n_maps >= 0), n_reduces INTEGER "
        "NOT NULL CHECK (n_reduces >= 0), deadline INTEGER NOT NULL DEFAULT 0, submitted INTEGER "
        "NOT NULL, started INTEGER NOT NULL DEFAULT 0, finished INTEGER NOT NULL DEFAULT 0, "
        "message TEXT, CHECK ((app IS NULL) <> (mapper IS NULL))) STRICT;"
        "CREATE INDEX jobs_state ON jobs (state);"
        "CREATE TABLE job_inputs (job INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE, "
        "idx INTEGER NOT NULL, path TEXT NOT NULL, PRIMARY KEY (job, idx)) STRICT, WITHOUT ROWID;"
        "CREATE TABLE task_attempts (job INTEGER NOT NULL REFERENCES jobs (id) ON DELETE "
        "CASCADE, type TEXT NOT NULL CHECK (type IN ('map', 'reduce')), idx INTEGER NOT NULL "
        "CHECK (idx >= 0), attempt INTEGER NOT NULL CHECK (attempt >= 0), node TEXT NOT NULL, "
        "status TEXT NOT NULL CHECK (status IN ('succeeded', 'failed', 'killed')), started "
        "INTEGER NOT NULL CHECK (started > 0), finished INTEGER NOT NULL CHECK (finished >= "
        "started), shuffle_end INTEGER NOT NULL DEFAULT 0, input_bytes INTEGER NOT NULL CHECK "
        "(input_bytes >= 0), output_bytes INTEGER NOT NULL CHECK (output_bytes >= 0), output "
        "TEXT CHECK ((status = 'succeeded') = (output IS NOT NULL)), reason TEXT, PRIMARY KEY "
        "(job, type, idx, attempt)) STRICT, WITHOUT ROWID;"
        "CREATE UNIQUE INDEX task_attempts_succeeded ON task_attempts (job, type, idx) WHERE "
        "status = 'succeeded';"
        "INSERT INTO schema_version VALUES (1, 1600000000000000);"
        /* A job of the old store, half done. */
        "INSERT INTO jobs (state, name, user, pool, app, n_maps, n_reduces, submitted, started) "
        "VALUES ('running', 'old wordcount', 'carol', 'default', 'wordcount', 2, 1, "
        "1600000000000001, 1600000000000002);"
        "INSERT INTO job_inputs VALUES (1, 0, 'in/old.txt');"
        "INSERT INTO task_attempts (job, type, idx, attempt, node, status, started, finished, "
        "input_bytes, output_bytes, output) VALUES (1, 'map', 0, 1, 'vm-1', 'succeeded', 10, 20, "
        "100, 50, 'out/1/map-0');";

START_TEST(test_upgrade_v1) {
        _cleanup_(store_closep) Store *s = NULL;
        StoreTaskRecord *recs = NULL;
        StoreError err = { 0 };
        StoreJob j;
        size_t n;

        raw_exec(db, v1_schema);
        s = open_ok();
        j = get_ok(s, 1);
        ck_assert_str_eq(j.name, "old wordcount");
        ck_assert_int_eq(j.state, STORE_JOB_RUNNING);
        ck_assert_uint_eq(j.n_inputs, 1);
        ck_assert_str_eq(j.inputs[0], "in/old.txt");
        ck_assert_uint_eq(j.maps_done, 1);
        store_job_clear(&j);
        ck_assert_int_eq(store_job_tasks(s, 1, STORE_TASK_ANY, &recs, &n, &err), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_str_eq(recs[0].output, "out/1/map-0");
        /* Version 4's use: not reported before it. */
        ck_assert(!recs[0].usage);
        store_task_records_free(recs, n);

        /* Version 2's profiles work, and the old job goes on. */
        ck_assert_int_eq(store_profile_put(s, "carol", "old wordcount", 1, &wiki, &err), 0);
        record_ok(s, done_map(1, 1, 2));
        ck_assert_uint_gt(submit_ok(s, &wordcount), 1);
        s = store_close(s);
        ck_assert_int_eq(raw_int(db, "SELECT max(version) FROM schema_version"),
                         STORE_SCHEMA_VERSION);
        ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM aria_profiles"), 1);
}
END_TEST

/* An upgrade that fails half way leaves the store as it was: here the
 * version 2 step runs, and recording version 2 fails after it. */
START_TEST(test_upgrade_atomic) {
        Store *s = NULL;
        StoreError err = { 0 };

        raw_exec(db, v1_schema);
        raw_exec(db, "CREATE TRIGGER no_v2 BEFORE INSERT ON schema_version WHEN NEW.version = 2 "
                     "BEGIN SELECT RAISE(ABORT, 'version 2 refused'); END;");
        ck_assert_int_lt(store_open(db, &s, &err), 0);
        ck_assert_ptr_null(s);
        ck_assert_msg(strstr(err.message, "cannot record the schema version: version 2 refused"),
                      "%s", err.message);
        ck_assert_int_eq(raw_int(db, "SELECT max(version) FROM schema_version"), 1);
        ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM sqlite_schema WHERE name = "
                                     "'aria_profiles'"),
                         0);
        ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM jobs"), 1);
}
END_TEST

START_TEST(test_newer_version_refused) {
        Store *s = open_ok();
        StoreError err = { 0 };
        size_t size_before, size_after;
        _cleanup_free_ char *before = NULL, *after = NULL;

        submit_ok(s, &wordcount);
        s = store_close(s);
        raw_exec(db, "INSERT INTO schema_version VALUES (5, 1900000000000000)");
        before = read_file(db, &size_before);
        assert_refused(store_open(db, &s, &err), err, -EPROTONOSUPPORT, NULL,
                       "schema version 5, written by a newer flexslot; this one reads versions "
                       "up to 4");
        ck_assert_ptr_null(s);
        after = read_file(db, &size_after);
        ck_assert_uint_eq(size_before, size_after);
        ck_assert(memcmp(before, after, size_before) == 0);
}
END_TEST

/* ---- files that are not a store ---- */

static void text_file(const char *path) {
        static const char text[] = "[controller]\nstore = /var/lib/flexslot/store.db\n";
        char buf[4096];

        for (size_t i = 0; i < sizeof(buf); i++)
                buf[i] = text[i % (sizeof(text) - 1)];
        write_file(path, buf, sizeof(buf));
}

static void random_file(const char *path) {
        unsigned char buf[8192];
        uint64_t x = 0x9e3779b97f4a7c15ULL;

        for (size_t i = 0; i < sizeof(buf); i++) {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                buf[i] = (unsigned char)(x >> 56);
        }
        write_file(path, buf, sizeof(buf));
}

static void foreign_database(const char *path) {
        raw_exec(path, "CREATE TABLE t (x); INSERT INTO t VALUES (1);");
}

static void foreign_application(const char *path) {
        raw_exec(path, "PRAGMA application_id = 42;");
}

static void flexslot_without_version(const char *path) {
        raw_exec(path, "PRAGMA application_id = 1179408467; CREATE TABLE jobs (id);");
}

/* A store with some pages of data, closed (so without a WAL). */
static void store_with_jobs(const char *path) {
        _cleanup_free_ char *wal = NULL;
        Store *s = NULL;
        StoreError err = { 0 };
        char name[200];
        StoreJobSpec spec = wordcount;
        uint64_t id;

        ck_assert_int_eq(store_open(path, &s, &err), 0);
        spec.name = name;
        for (int i = 0; i < 200; i++) {
                snprintf(name, sizeof(name), "job %d %0150d", i, i);
                ck_assert_int_eq(store_job_submit(s, &spec, &id, &err), 0);
        }
        store_close(s);
        ck_assert_int_ge(asprintf(&wal, "%s-wal", path), 0);
        ck_assert_int_ne(access(wal, F_OK), 0);
}

/* A value its schema refuses, written past the CHECK constraints. */
static void tampered(const char *path) {
        store_with_jobs(path);
        raw_exec(path, "PRAGMA ignore_check_constraints = ON; "
                       "UPDATE jobs SET state = 'paused' WHERE id = 7;");
}

static void overwrite(const char *path, long offset, size_t size) {
        _cleanup_free_ unsigned char *junk = malloc(size);
        FILE *f = fopen(path, "r+e");

        ck_assert_ptr_nonnull(junk);
        for (size_t i = 0; i < size; i++)
                junk[i] = (unsigned char)(i * 131 + 7);
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(fseek(f, offset, SEEK_SET), 0);
        ck_assert_uint_eq(fwrite(junk, 1, size, f), size);
        ck_assert_int_eq(fclose(f), 0);
}

static void corrupt_pages(const char *path) {
        struct stat st;

        store_with_jobs(path);
        ck_assert_int_eq(stat(path, &st), 0);
        ck_assert_int_gt(st.st_size, 16 * 4096);
        /* Leaves page 1 (the header and the schema) and the last page. */
        overwrite(path, 4096, (size_t)st.st_size - 2 * 4096);
}

static void corrupt_schema_page(const char *path) {
        store_with_jobs(path);
        overwrite(path, 100, 4096 - 100);
}

static void truncated(const char *path) {
        struct stat st;

        store_with_jobs(path);
        ck_assert_int_eq(stat(path, &st), 0);
        ck_assert_int_eq(truncate(path, st.st_size / 2), 0);
}

static const struct {
        void (*make)(const char *path);
        int r;
        const char *text;
} bad_files[] = {
        { text_file, -EMEDIUMTYPE, "not a SQLite database" },
        { random_file, -EMEDIUMTYPE, "not a SQLite database" },
        { foreign_database, -EMEDIUMTYPE,
          "a SQLite database, but not a flexslot store (application_id 0, 1 schema objects)" },
        { foreign_application, -EMEDIUMTYPE, "not a flexslot store (application_id 42" },
        { flexslot_without_version, -EUCLEAN, "a flexslot store without its schema_version" },
        { corrupt_pages, -EUCLEAN, "corrupt: " },
        { corrupt_schema_page, -EUCLEAN, "corrupt: " },
        { truncated, -EUCLEAN, "corrupt: " },
        { tampered, -EUCLEAN, "corrupt: CHECK constraint failed in jobs" },
};

/* Refused with the file named, and left as it was. */
/* A failure of SQLite under a store in use is counted; a refusal of what
 * a client asked is not. */
START_TEST(test_errors_counted) {
        _cleanup_(store_closep) Store *s = open_ok();
        uint64_t counts[_STORE_JOB_STATE_MAX];
        StoreError err = { 0 };
        StoreJob j;

        ck_assert_uint_eq(store_errors(s), 0);
        assert_refused(store_job_get(s, 7, &j, &err), err, -ENOENT, "id", "no such job");
        ck_assert_uint_eq(store_errors(s), 0);
        raw_exec(db, "ALTER TABLE jobs RENAME TO gone");
        ck_assert_int_lt(store_jobs_count(s, counts, &err), 0);
        ck_assert_msg(strstr(err.message, "no such table: jobs"), "%s", err.message);
        ck_assert_uint_eq(store_errors(s), 1);
}
END_TEST

START_TEST(test_bad_file_refused) {
        Store *s = NULL;
        StoreError err = { 0 };
        _cleanup_free_ char *before = NULL, *after = NULL;
        size_t size_before, size_after;

        bad_files[_i].make(db);
        before = read_file(db, &size_before);
        assert_refused(store_open(db, &s, &err), err, bad_files[_i].r, NULL, bad_files[_i].text);
        ck_assert_ptr_null(s);
        ck_assert_msg(strncmp(err.message, db, strlen(db)) == 0, "%s", err.message);
        after = read_file(db, &size_after);
        ck_assert_uint_eq(size_before, size_after);
        ck_assert(memcmp(before, after, size_before) == 0);
}
END_TEST

START_TEST(test_bad_path_refused) {
        _cleanup_free_ char *missing = NULL;
        Store *s = NULL;
        StoreError err = { 0 };

        assert_refused(store_open(dir, &s, &err), err, -EISDIR, NULL,
                       "cannot open: Is a directory");
        ck_assert_int_ge(asprintf(&missing, "%s/no/such/dir/store.db", dir), 0);
        assert_refused(store_open(missing, &s, &err), err, -ENOENT, NULL,
                       "cannot open: No such file or directory");
        assert_refused(store_open("", &s, &err), err, -EINVAL, "path", "path: empty");
        assert_refused(store_open("/dev/null", &s, &err), err, -EMEDIUMTYPE, NULL,
                       "/dev/null: not a regular file");
        ck_assert_ptr_null(s);
}
END_TEST

/* ---- killed with SIGKILL ---- */

/* A child runs a small controller on the store: it resumes what it finds,
 * then submits, starts and ends jobs and records their tasks in batches,
 * in every other round in groups (store_group_begin()) of up to
 * CRASH_GROUP batches, as the tracker endpoint does. It writes "? WRITE" to
 * the pipe before each write and "! WRITE" once the store returned 0, for
 * a group's batches once the group committed. The parent kills it at a
 * random point, then checks that every "!" write is in the store, that each
 * "?" write the child may have been in the middle of (a group's batches)
 * is there whole or not at all, and that the file passes
 * integrity_check. */

#define CRASH_MAPS 4
#define CRASH_REDUCES 2
#define CRASH_ROUNDS 24
#define CRASH_GROUP 3

static uint64_t crash_rand(uint64_t *x) {
        *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
        return *x >> 33;
}

static StoreTaskRecord crash_record(uint64_t job, TaskType type, unsigned index) {
        StoreTaskRecord rec = type == TASK_MAP ? done_map(job, index, index + 1)
                                               : done_reduce(job, index, index + 1);

        return rec;
}

/* The task records a batch intent names: "B job type first count". */
typedef struct CrashBatch {
        uint64_t job;
        int type;
        unsigned first, count;
} CrashBatch;

/* The group's batches acknowledged once it committed. */
static int crash_group_commit(Store *s, int fd, char (*grouped)[64], unsigned *n_grouped,
                              StoreError *err) {
        int r = store_group_commit(s, err);

        for (unsigned i = 0; r >= 0 && i < *n_grouped; i++)
                dprintf(fd, "! %s\n", grouped[i]);
        *n_grouped = 0;
        return r;
}

_Noreturn static void crash_child(const char *path, int fd, uint64_t seed) {
        Store *s = NULL;
        StoreError err = { 0 };
        StoreJob *jobs = NULL;
        size_t n_jobs = 0;
        uint64_t rng = seed;
        bool grouping = seed % 2 == 0;
        char grouped[CRASH_GROUP][64];
        unsigned n_grouped = 0;

        if (store_open(path, &s, &err) < 0 ||
            store_jobs_list(s, STORE_JOB_UNFINISHED, &jobs, &n_jobs, &err) < 0) {
                dprintf(fd, "E %s\n", err.message);
                _exit(1);
        }
        for (unsigned step = 0; step < 100000; step++) {
                StoreJob *j = n_jobs > 0 ? &jobs[0] : NULL;
                StoreTaskRecord batch[CRASH_MAPS];
                bool submit = !j || crash_rand(&rng) % 8 == 0;
                bool record = !submit && j->state != STORE_JOB_QUEUED &&
                              (j->maps_done < j->n_maps || j->reduces_done < j->n_reduces);
                int r;

                /* A group ends before any other write, or when full. */
                if (n_grouped > 0 && (!record || n_grouped == CRASH_GROUP) &&
                    crash_group_commit(s, fd, grouped, &n_grouped, &err) < 0)
                        break;
                if (submit) {
                        char name[64];
                        StoreJobSpec spec = wordcount;
                        uint64_t id;
                        StoreJob *grown;

                        snprintf(name, sizeof(name), "crash %" PRIu64 " %u", seed, step);
                        spec.name = name;
                        spec.n_reduces = CRASH_REDUCES;
                        dprintf(fd, "? J %s\n", name);
                        r = store_job_submit(s, &spec, &id, &err);
                        if (r < 0)
                                break;
                        dprintf(fd, "! J %s\n", name);
                        grown = reallocarray(jobs, n_jobs + 1, sizeof(StoreJob));
                        if (!grown)
                                break;
                        jobs = grown;
                        jobs[n_jobs++] = (StoreJob){ .id = id, .n_reduces = CRASH_REDUCES };
                        continue;
                }
                if (j->state == STORE_JOB_QUEUED) {
                        dprintf(fd, "? S %" PRIu64 "\n", j->id);
                        r = store_job_start(s, j->id, CRASH_MAPS, &err);
                        if (r < 0)
                                break;
                        dprintf(fd, "! S %" PRIu64 "\n", j->id);
                        j->state = STORE_JOB_RUNNING;
                        j->n_maps = CRASH_MAPS;
                } else if (j->maps_done < j->n_maps || j->reduces_done < j->n_reduces) {
                        bool maps = j->maps_done < j->n_maps;
                        unsigned first = maps ? j->maps_done : j->reduces_done;
                        unsigned left = (maps ? j->n_maps : j->n_reduces) - first;
                        unsigned count = 1 + crash_rand(&rng) % MIN(left, 3u);

                        for (unsigned i = 0; i < count; i++)
                                batch[i] = crash_record(j->id, maps ? TASK_MAP : TASK_REDUCE,
                                                        first + i);
                        snprintf(grouped[n_grouped], sizeof(grouped[0]), "B %" PRIu64 " %d %u %u",
                                 j->id, maps ? TASK_MAP : TASK_REDUCE, first, count);
                        dprintf(fd, "? %s\n", grouped[n_grouped]);
                        if (grouping && n_grouped == 0)
                                store_group_begin(s);
                        r = store_tasks_record(s, batch, count, &err);
                        if (r < 0)
                                break;
                        if (grouping)
                                n_grouped++;
                        else
                                dprintf(fd, "! %s\n", grouped[0]);
                        if (maps)
                                j->maps_done += count;
                        else
                                j->reduces_done += count;
                } else {
                        dprintf(fd, "? F %" PRIu64 "\n", j->id);
                        r = store_job_finish(s, j->id, STORE_JOB_SUCCEEDED, NULL, &err);
                        if (r < 0)
                                break;
                        dprintf(fd, "! F %" PRIu64 "\n", j->id);
                        store_job_clear(j);
                        memmove(jobs, jobs + 1, --n_jobs * sizeof(StoreJob));
                }
        }
        dprintf(fd, "E %s\n", err.message);
        _exit(1);
}

/* Whether the write a line names is in the store. For a batch, how many of
 * its records are (all or none must be). */
static unsigned crash_present(Store *s, const char *line) {
        StoreError err = { 0 };
        StoreJob *jobs = NULL;
        StoreJob j = { 0 };
        CrashBatch b;
        uint64_t id;
        size_t n;
        unsigned found = 0;

        if (line[0] == 'J') {
                ck_assert_int_eq(store_jobs_list(s, STORE_JOB_ANY, &jobs, &n, &err), 0);
                for (size_t i = 0; i < n; i++)
                        found += strcmp(jobs[i].name, line + 2) == 0;
                store_jobs_free(jobs, n);
                ck_assert_uint_le(found, 1);
                return found;
        }
        if (line[0] == 'B') {
                StoreTaskRecord *recs = NULL;

                ck_assert_int_eq(
                        sscanf(line, "B %" SCNu64 " %d %u %u", &b.job, &b.type, &b.first, &b.count),
                        4);
                ck_assert_int_eq(store_job_tasks(s, b.job, STORE_TASK_ANY, &recs, &n, &err), 0);
                for (size_t i = 0; i < n; i++)
                        if ((int)recs[i].type == b.type && recs[i].index >= b.first &&
                            recs[i].index < b.first + b.count) {
                                StoreTaskRecord want =
                                        crash_record(b.job, recs[i].type, recs[i].index);

                                ck_assert_str_eq(recs[i].output, want.output);
                                ck_assert_uint_eq(recs[i].attempt, want.attempt);
                                found++;
                        }
                store_task_records_free(recs, n);
                ck_assert_msg(found == 0 || found == b.count, "%s: %u of the batch's records", line,
                              found);
                return found > 0;
        }
        ck_assert_int_eq(sscanf(line + 2, "%" SCNu64, &id), 1);
        ck_assert_int_eq(store_job_get(s, id, &j, &err), 0);
        found = line[0] == 'S' ? j.state != STORE_JOB_QUEUED && j.n_maps == CRASH_MAPS
                               : j.state == STORE_JOB_SUCCEEDED;
        store_job_clear(&j);
        return found;
}

static void crash_round(uint64_t seed, unsigned kill_after, usec_t kill_delay) {
        _cleanup_free_ char *line = NULL, *check = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        size_t size = 0;
        unsigned acked = 0, seen = 0, n_pending = 0;
        bool killed = false;
        char **done = NULL, *pending[CRASH_GROUP] = { 0 };
        int fds[2], status;
        Store *s = NULL;
        pid_t pid;

        ck_assert_int_eq(pipe2(fds, O_CLOEXEC), 0);
        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                close(fds[0]);
                crash_child(db, fds[1], seed);
        }
        close(fds[1]);
        f = fdopen(fds[0], "r");
        ck_assert_ptr_nonnull(f);
        /* Every line the child wrote before it died counts, also those read
         * after the kill. */
        while (getline(&line, &size, f) > 0) {
                line[strcspn(line, "\n")] = '\0';
                ck_assert_msg(line[0] != 'E', "seed %" PRIu64 ": the writer failed: %s", seed,
                              line + 2);
                if (line[0] == '?') {
                        ck_assert_uint_lt(n_pending, CRASH_GROUP);
                        pending[n_pending] = strdup(line + 2);
                        ck_assert_ptr_nonnull(pending[n_pending++]);
                } else {
                        char **grown = reallocarray(done, acked + 1, sizeof(char *));

                        /* Acknowledged in the order written. */
                        ck_assert_uint_gt(n_pending, 0);
                        ck_assert_str_eq(pending[0], line + 2);
                        ck_assert_ptr_nonnull(grown);
                        done = grown;
                        done[acked++] = pending[0];
                        memmove(pending, pending + 1, --n_pending * sizeof(*pending));
                }
                if (++seen >= kill_after && line[0] == '?' && !killed) {
                        struct timespec ts = { .tv_nsec = (long)(kill_delay * NSEC_PER_USEC) };

                        (void)nanosleep(&ts, NULL);
                        ck_assert_int_eq(kill(pid, SIGKILL), 0);
                        killed = true;
                }
        }
        if (!killed)
                (void)kill(pid, SIGKILL);
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
                      "seed %" PRIu64 ": the writer ended with status %d", seed, status);

        check = raw_text(db, "PRAGMA integrity_check");
        ck_assert_str_eq(check, "ok");
        s = open_ok();
        for (unsigned i = 0; i < acked; i++) {
                ck_assert_msg(crash_present(s, done[i]),
                              "seed %" PRIu64 ": '%s' was committed, and is lost", seed, done[i]);
                free(done[i]);
        }
        free(done);
        for (unsigned i = 0; i < n_pending; i++) {
                (void)crash_present(s, pending[i]); /* whole or absent */
                free(pending[i]);
        }
        store_close(s);
}

START_TEST(test_killed_writer) {
        uint64_t rng = 20240611;

        for (unsigned round = 0; round < CRASH_ROUNDS; round++) {
                unsigned kill_after = 2 + (unsigned)(crash_rand(&rng) % 100);

                /* Within the write the child just began: a batch of records
                 * takes tens of microseconds, a job's commit milliseconds
                 * (it syncs). */
                usec_t within = round % 2 ? 300 : 5 * USEC_PER_MSEC;

                crash_round(round + 1, kill_after, crash_rand(&rng) % within);
        }
}
END_TEST

Suite *suite_store(void) {
        Suite *s = suite_create("store");
        TCase *tc;

        tc = tcase_create("jobs");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_open_new);
        tcase_add_test(tc, test_job_round_trip);
        tcase_add_loop_test(tc, test_submit_refused, 0, (int)ELEMENTSOF(bad_specs));
        tcase_add_test(tc, test_submit_long_fields);
        tcase_add_test(tc, test_job_transitions);
        tcase_add_test(tc, test_task_records);
        tcase_add_test(tc, test_task_running);
        tcase_add_test(tc, test_task_end_over_running);
        tcase_add_test(tc, test_task_usage);
        tcase_add_loop_test(tc, test_task_record_refused, 0, (int)ELEMENTSOF(bad_records));
        tcase_add_test(tc, test_task_batch);
        tcase_add_test(tc, test_group_one_commit);
        tcase_add_test(tc, test_group_refusal_and_write);
        tcase_add_test(tc, test_group_commit_fails);
        tcase_add_test(tc, test_resume);
        suite_add_tcase(s, tc);

        tc = tcase_create("profiles");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_profiles);
        tcase_add_test(tc, test_prune);
        tcase_add_test(tc, test_errors_counted);
        tcase_add_loop_test(tc, test_profile_refused, 0, (int)ELEMENTSOF(bad_profiles));
        suite_add_tcase(s, tc);

        tc = tcase_create("files");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, test_upgrade_v1);
        tcase_add_test(tc, test_upgrade_atomic);
        tcase_add_test(tc, test_newer_version_refused);
        tcase_add_loop_test(tc, test_bad_file_refused, 0, (int)ELEMENTSOF(bad_files));
        tcase_add_test(tc, test_bad_path_refused);
        suite_add_tcase(s, tc);

        tc = tcase_create("crash");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_killed_writer);
        tcase_set_timeout(tc, 120);
        suite_add_tcase(s, tc);
        return s;
}

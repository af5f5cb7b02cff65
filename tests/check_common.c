/* SPDX-License-Identifier: MIT */
/* common/: strict parsing, time and logging, the reconnect back-off, the
 * configuration loader and small files. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <getopt.h>

#include "common/backoff.h"
#include "common/config.h"
#include "common/daemon-util.h"
#include "common/fileio.h"
#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/metrics-http.h"
#include "common/parse.h"
#include "common/strv.h"
#include "common/time-util.h"
#include "tests.h"

/* ---- parse ---- */

START_TEST(test_parse_int64) {
        int64_t v = 7;

        ck_assert_int_eq(parse_int64("42", 0, 100, &v), 0);
        ck_assert_int_eq(v, 42);
        ck_assert_int_eq(parse_int64("-5", -10, 10, &v), 0);
        ck_assert_int_eq(v, -5);
        v = 7;
        ck_assert_int_eq(parse_int64("", 0, 100, &v), -EINVAL);
        ck_assert_int_eq(parse_int64(" 5", 0, 100, &v), -EINVAL);
        ck_assert_int_eq(parse_int64("5 ", 0, 100, &v), -EINVAL);
        ck_assert_int_eq(parse_int64("5x", 0, 100, &v), -EINVAL);
        ck_assert_int_eq(parse_int64("0x10", 0, 100, &v), -EINVAL);
        ck_assert_int_eq(parse_int64("101", 0, 100, &v), -ERANGE);
        ck_assert_int_eq(parse_int64("99999999999999999999", INT64_MIN, INT64_MAX, &v), -ERANGE);
        ck_assert_int_eq(v, 7); /* untouched on failure */
}
END_TEST

START_TEST(test_parse_uint64_rejects_sign) {
        uint64_t v = 3;

        ck_assert_int_eq(parse_uint64("-1", 0, UINT64_MAX, &v), -EINVAL);
        ck_assert_int_eq(parse_uint64("+1", 0, UINT64_MAX, &v), -EINVAL);
        ck_assert_int_eq(v, 3);
        ck_assert_int_eq(parse_uint64("18446744073709551615", 0, UINT64_MAX, &v), 0);
        ck_assert(v == UINT64_MAX);
}
END_TEST

START_TEST(test_parse_double) {
        double v = 1.0;

        ck_assert_int_eq(parse_double("0.25", 0, 1, &v), 0);
        ck_assert_double_eq(v, 0.25);
        ck_assert_int_eq(parse_double("1e-3", 0, 1, &v), 0);
        ck_assert_double_eq_tol(v, 0.001, 1e-12);
        v = 9.0;
        ck_assert_int_eq(parse_double("nan", 0, 1, &v), -EINVAL);
        ck_assert_int_eq(parse_double("inf", 0, HUGE_VAL, &v), -EINVAL);
        ck_assert_int_eq(parse_double("0x1p3", 0, 100, &v), -EINVAL);
        ck_assert_int_eq(parse_double(".", 0, 1, &v), -EINVAL);
        ck_assert_int_eq(parse_double("1e", 0, 1, &v), -EINVAL);
        ck_assert_int_eq(parse_double("1.5", 0, 1, &v), -ERANGE);
        ck_assert_double_eq(v, 9.0);
}
END_TEST

START_TEST(test_parse_bool) {
        bool b = false;

        ck_assert_int_eq(parse_bool("Yes", &b), 0);
        ck_assert(b);
        ck_assert_int_eq(parse_bool("off", &b), 0);
        ck_assert(!b);
        ck_assert_int_eq(parse_bool("2", &b), -EINVAL);
        ck_assert_int_eq(parse_bool("", &b), -EINVAL);
}
END_TEST

START_TEST(test_parse_duration_and_size) {
        usec_t d = 0;
        uint64_t s = 0;

        ck_assert_int_eq(parse_duration("3", &d), 0);
        ck_assert_uint_eq(d, 3 * USEC_PER_SEC);
        ck_assert_int_eq(parse_duration("500ms", &d), 0);
        ck_assert_uint_eq(d, 500 * USEC_PER_MSEC);
        ck_assert_int_eq(parse_duration("1.5s", &d), 0);
        ck_assert_uint_eq(d, 1500 * USEC_PER_MSEC);
        ck_assert_int_eq(parse_duration("7d", &d), 0);
        ck_assert_uint_eq(d, 7 * 24 * USEC_PER_HOUR);
        ck_assert_int_eq(parse_duration("2min", &d), 0);
        ck_assert_uint_eq(d, 120 * USEC_PER_SEC);
        ck_assert_int_eq(parse_duration("-1s", &d), -EINVAL);
        ck_assert_int_eq(parse_duration("3 s", &d), -EINVAL);
        ck_assert_int_eq(parse_duration("3parsecs", &d), -EINVAL);

        ck_assert_int_eq(parse_size("4G", &s), 0);
        ck_assert_uint_eq(s, 4ULL << 30);
        ck_assert_int_eq(parse_size("512MiB", &s), 0);
        ck_assert_uint_eq(s, 512ULL << 20);
        ck_assert_int_eq(parse_size("100", &s), 0);
        ck_assert_uint_eq(s, 100);
        ck_assert_int_eq(parse_size("1X", &s), -EINVAL);
        ck_assert_int_eq(parse_size("99999999999T", &s), -ERANGE);
}
END_TEST

/* ---- format ---- */

START_TEST(test_format_duration_and_size) {
        static const struct {
                usec_t usec;
                const char *text;
        } durations[] = {
                { 0, "0" },
                { 1, "1us" },
                { 100 * USEC_PER_MSEC, "100ms" },
                { 1500 * USEC_PER_MSEC, "1.5s" },
                { USEC_PER_SEC, "1s" },
                { 60 * USEC_PER_SEC, "60s" },
                { 90 * USEC_PER_SEC, "90s" },
                { 5 * USEC_PER_MINUTE, "5min" },
                { USEC_PER_HOUR, "1h" },
                { 24 * USEC_PER_HOUR, "24h" },
                { 1500, "1.5ms" },
                { 1234567, "1.234567s" },
        };
        static const struct {
                uint64_t bytes;
                const char *text;
        } sizes[] = {
                { 0, "0" },
                { 1024, "1K" },
                { 1025, "1025" },
                { 1536, "1.5K" },
                { 512ULL << 20, "512M" },
                { 16ULL << 30, "16G" },
                { 3ULL << 29, "1.5G" },
                { 64ULL << 40, "64T" },
                { (1ULL << 30) + 1, "1073741825" },
        };
        char buf[FORMAT_SIZE_MAX];

        for (size_t i = 0; i < ELEMENTSOF(durations); i++)
                ck_assert_str_eq(FORMAT_DURATION(durations[i].usec), durations[i].text);
        for (size_t i = 0; i < ELEMENTSOF(sizes); i++)
                ck_assert_str_eq(FORMAT_SIZE(sizes[i].bytes), sizes[i].text);
        /* A short buffer truncates, it does not overflow. */
        ck_assert_str_eq(format_size(buf, 3, 512ULL << 20), "51");
}
END_TEST

/* What a message prints, a configuration file accepts as the same value. */
START_TEST(test_format_round_trip) {
        /* Durations rounded to these units, so that fractions of a minute
         * and of an hour come up too. */
        static const usec_t grains[] = { 1, USEC_PER_MSEC, 30 * USEC_PER_SEC,
                                         36 * USEC_PER_MINUTE };
        uint64_t x = 88172645463325252ULL;

        for (int i = 0; i < 5000; i++) {
                uint64_t v, parsed = 0;
                usec_t d = 0;

                /* xorshift64, over every magnitude up to 2^51 and with the
                 * low bits cleared now and then to hit whole units. */
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                v = (x >> 13) >> (x % 51);
                if (i % 3 == 0)
                        v &= ~((1ULL << (x % 41)) - 1);
                ck_assert_int_eq(parse_size(FORMAT_SIZE(v), &parsed), 0);
                ck_assert_msg(parsed == v, "%" PRIu64 " -> %s -> %" PRIu64, v, FORMAT_SIZE(v),
                              parsed);
                v -= v % grains[i % ELEMENTSOF(grains)];
                ck_assert_int_eq(parse_duration(FORMAT_DURATION(v), &d), 0);
                ck_assert_msg(d == v, "%" PRIu64 " -> %s -> %" PRIu64, v, FORMAT_DURATION(v), d);
        }
}
END_TEST

/* ---- time ---- */

START_TEST(test_timespec_to_usec) {
        static const struct {
                struct timespec ts;
                usec_t usec;
        } cases[] = {
                { { 0, 0 }, 0 },
                { { 0, 999 }, 0 },
                { { 0, 1000 }, 1 },
                { { 0, 999999999 }, 999999 },
                { { 1, 0 }, USEC_PER_SEC },
                { { 86400, 2500 }, 86400 * USEC_PER_SEC + 2 },
                /* A realtime reading of 2100. */
                { { 4102444800, 123456789 }, 4102444800 * USEC_PER_SEC + 123456 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                ck_assert_uint_eq(timespec_to_usec(&cases[i].ts), cases[i].usec);
}
END_TEST

/* Each of our clocks reads the kernel clock it names: its reading lies
 * between two readings of that clock, without a sleep (a wall clock's
 * would lie far above the thread CPU clock's second one). */
static const struct {
        clockid_t id;
        usec_t (*now)(void);
} clocks[] = {
        { CLOCK_MONOTONIC, now_monotonic_usec },
        { CLOCK_THREAD_CPUTIME_ID, now_thread_cpu_usec },
};

START_TEST(test_time_is_the_clock) {
        struct timespec before, after;
        usec_t now;

        ck_assert_int_eq(clock_gettime(clocks[_i].id, &before), 0);
        now = clocks[_i].now();
        ck_assert_int_eq(clock_gettime(clocks[_i].id, &after), 0);
        ck_assert_uint_gt(now, 0);
        ck_assert_uint_le(timespec_to_usec(&before), now);
        ck_assert_uint_le(now, timespec_to_usec(&after));
}
END_TEST

START_TEST(test_next_deadline_keeps_the_schedule) {
        const usec_t ms = USEC_PER_MSEC;

        /* On time or late within the period: one period after the deadline. */
        ck_assert_uint_eq(usec_next_deadline(1000 * ms, 100 * ms, 1000 * ms), 1100 * ms);
        ck_assert_uint_eq(usec_next_deadline(1000 * ms, 100 * ms, 1060 * ms), 1100 * ms);
        ck_assert_uint_eq(usec_next_deadline(1000 * ms, 100 * ms, 1100 * ms), 1100 * ms);
        /* Slots missed are skipped, the schedule is kept. */
        ck_assert_uint_eq(usec_next_deadline(1000 * ms, 100 * ms, 1100 * ms + 1), 1200 * ms);
        ck_assert_uint_eq(usec_next_deadline(1000 * ms, 100 * ms, 1350 * ms), 1400 * ms);
        ck_assert_uint_eq(usec_next_deadline(1000 * ms, 100 * ms, 1400 * ms), 1400 * ms);
}
END_TEST

/* ---- back-off ---- */

START_TEST(test_backoff_doubles_to_cap) {
        static const usec_t expected_waits[] = { 1, 2, 4, 8, 10, 10 };
        Backoff b;
        usec_t now = 100;

        ck_assert_int_eq(backoff_init(&b, 0, 10), -EINVAL);
        ck_assert_int_eq(backoff_init(&b, 5, 4), -EINVAL);
        ck_assert_int_eq(backoff_init(&b, 1, 10), 0);
        ck_assert(backoff_due(&b, 0));
        for (size_t i = 0; i < ELEMENTSOF(expected_waits); i++) {
                backoff_failed(&b, now);
                ck_assert_uint_eq(b.failures, i + 1);
                ck_assert(!backoff_due(&b, now + expected_waits[i] - 1));
                ck_assert(backoff_due(&b, now + expected_waits[i]));
                now += expected_waits[i];
        }
        backoff_succeeded(&b);
        ck_assert_uint_eq(b.failures, 0);
        ck_assert_uint_eq(b.delay, 1);
        ck_assert(backoff_due(&b, 0));
}
END_TEST

START_TEST(test_backoff_no_overflow) {
        Backoff b;

        ck_assert_int_eq(backoff_init(&b, USEC_INFINITY / 2 + 1, USEC_INFINITY), 0);
        backoff_failed(&b, USEC_INFINITY - 5);
        ck_assert_uint_eq(b.next_attempt, USEC_INFINITY);
        ck_assert_uint_eq(b.delay, USEC_INFINITY);
        backoff_failed(&b, 10);
        ck_assert_uint_eq(b.next_attempt, USEC_INFINITY);
}
END_TEST

/* ---- log ---- */

/* Runs fn with stderr redirected to a temporary file and returns its text. */
static char *capture_stderr(void (*fn)(void)) {
        char path[] = "/tmp/flexslot-log.XXXXXX";
        int fd = mkstemp(path), saved = dup(STDERR_FILENO);
        static char text[4096];
        ssize_t n;

        ck_assert_int_ge(fd, 0);
        fflush(stderr);
        dup2(fd, STDERR_FILENO);
        fn();
        fflush(stderr);
        dup2(saved, STDERR_FILENO);
        close(saved);
        n = pread(fd, text, sizeof(text) - 1, 0);
        ck_assert_int_ge(n, 0);
        text[n] = '\0';
        close(fd);
        unlink(path);
        return text;
}

static void log_some_lines(void) {
        log_info("hello %d", 1);
        log_debug("hidden");
        ck_assert_int_eq(log_error_errno(-ENOENT, "open %s", "x"), -ENOENT);
}

START_TEST(test_log_plain_and_journal) {
        const char *text;

        unsetenv("JOURNAL_STREAM");
        log_open("/usr/sbin/flexslot-test");
        log_set_max_level(LOG_LEVEL_INFO);
        text = capture_stderr(log_some_lines);
        ck_assert_str_eq(text, "flexslot-test: hello 1\n"
                               "flexslot-test: open x: No such file or directory\n");

        log_set_journal_prefix(true);
        text = capture_stderr(log_some_lines);
        ck_assert_str_eq(text, "<6>hello 1\n<3>open x: No such file or directory\n");
        log_set_journal_prefix(false);
}
END_TEST

static void log_forged_line(void) {
        log_warning("Refusing tracker %s", "vm1\n<0>flexslot-test: all is well\x1b[2J");
}

/* Text a client sent cannot start a line of its own: under systemd such a
 * line could claim any priority. */
START_TEST(test_log_one_line) {
        const char *text;

        log_open("/usr/sbin/flexslot-test");
        log_set_journal_prefix(true);
        text = capture_stderr(log_forged_line);
        log_set_journal_prefix(false);
        ck_assert_str_eq(text, "<4>Refusing tracker vm1?<0>flexslot-test: all is well?[2J\n");
}
END_TEST

START_TEST(test_log_level_names) {
        LogLevel l = LOG_LEVEL_INFO;

        ck_assert_int_eq(log_level_from_string("debug", &l), 0);
        ck_assert_int_eq(l, LOG_LEVEL_DEBUG);
        ck_assert_int_eq(log_level_from_string("4", &l), 0);
        ck_assert_int_eq(l, LOG_LEVEL_WARNING);
        ck_assert_int_eq(log_level_from_string("loud", &l), -EINVAL);
        ck_assert_str_eq(log_level_to_string(LOG_LEVEL_ERR), "err");
}
END_TEST

/* ---- config ---- */

typedef struct TestConfig {
        char *uri;
        usec_t interval;
        bool dry_run;
        uint64_t memory_reserve;
        double alpha;
        int mode;
        int64_t slots;
        int64_t min_vcpus;
        int64_t max_vcpus;
} TestConfig;

static const char *const mode_names[] = { "static", "flexslot", NULL };

static const ConfKey test_keys[] = {
        { "agent", "uri", CONF_STRING, offsetof(TestConfig, uri), .required = true },
        { "agent", "interval", CONF_DURATION, offsetof(TestConfig, interval), "3s",
          .min = 100 * USEC_PER_MSEC, .max = USEC_PER_HOUR },
        { "agent", "dry-run", CONF_BOOL, offsetof(TestConfig, dry_run), "no" },
        { "host", "memory-reserve", CONF_SIZE, offsetof(TestConfig, memory_reserve), "1G", .min = 0,
          .max = INT64_MAX },
        { "flexslot", "alpha", CONF_DOUBLE, offsetof(TestConfig, alpha), "0.2", .dmin = 0.01,
          .dmax = 1.0 },
        { "flexslot", "mode", CONF_ENUM, offsetof(TestConfig, mode), "flexslot",
          .choices = mode_names },
        { "flexslot", "slots", CONF_INT, offsetof(TestConfig, slots), "4", .min = 1, .max = 64 },
        { "limits", "min-vcpus", CONF_INT, offsetof(TestConfig, min_vcpus), "1", .min = 1,
          .max = 256 },
        { "limits", "max-vcpus", CONF_INT, offsetof(TestConfig, max_vcpus), "8", .min = 1,
          .max = 256 },
};

static int test_validate(const void *config, ConfError *err) {
        const TestConfig *c = config;

        if (c->min_vcpus > c->max_vcpus)
                return conf_error_set(err, "limits", "min-vcpus",
                                      "%lld is greater than max-vcpus %lld",
                                      (long long)c->min_vcpus, (long long)c->max_vcpus);
        return 0;
}

static const ConfSchema test_schema = {
        .keys = test_keys,
        .n_keys = ELEMENTSOF(test_keys),
        .size = sizeof(TestConfig),
        .validate = test_validate,
};

START_TEST(test_config_defaults_then_file) {
        TestConfig c = { 0 };
        ConfError err;

        ck_assert_int_eq(conf_load_string(&test_schema, "inline", "[agent]\nuri = qemu:///system\n",
                                          &c, &err),
                         0);
        ck_assert_str_eq(c.uri, "qemu:///system");
        ck_assert_uint_eq(c.interval, 3 * USEC_PER_SEC);
        ck_assert(!c.dry_run);
        ck_assert_uint_eq(c.memory_reserve, 1ULL << 30);
        ck_assert_double_eq(c.alpha, 0.2);
        ck_assert_int_eq(c.mode, 1);
        ck_assert_int_eq(c.slots, 4);
        conf_free(&test_schema, &c);
        ck_assert_ptr_null(c.uri);
}
END_TEST

START_TEST(test_config_good_file) {
        TestConfig c = { 0 };
        ConfError err;
        int r = conf_load_file(&test_schema, test_srcdir_path("tests/fixtures/config/good.ini"), &c,
                               &err);

        ck_assert_msg(r == 0, "%s", err.message);
        ck_assert_str_eq(c.uri, "test:///default");
        ck_assert_uint_eq(c.interval, 500 * USEC_PER_MSEC);
        ck_assert(c.dry_run);
        ck_assert_uint_eq(c.memory_reserve, 2ULL << 30);
        ck_assert_double_eq(c.alpha, 0.25);
        ck_assert_int_eq(c.mode, 0);
        ck_assert_int_eq(c.slots, 8);
        ck_assert_int_eq(c.max_vcpus, 4);
        conf_free(&test_schema, &c);
}
END_TEST

typedef struct BadFixture {
        const char *file;
        unsigned line;
        const char *message; /* expected text after "path:line: " */
} BadFixture;

static const BadFixture bad_fixtures[] = {
        { "unknown-section.ini", 4, "[agnet]: unknown section" },
        { "empty-unknown-section.ini", 3, "[agnt]: unknown section" },
        { "unknown-key.ini", 3, "[agent] intervall: unknown key" },
        { "bad-integer.ini", 4, "[flexslot] slots: invalid integer 'four'" },
        { "out-of-range.ini", 5, "[flexslot] slots: value '100' out of range [1, 64]" },
        { "negative-unsigned.ini", 4, "[host] memory-reserve: invalid size '-1G' (e.g. 512M, 4G)" },
        { "bad-duration.ini", 3,
          "[agent] interval: invalid duration 'soon' (e.g. 3s, 500ms, 2min)" },
        { "short-duration.ini", 3, "[agent] interval: value '10us' out of range [100ms, 1h]" },
        { "bad-boolean.ini", 3, "[agent] dry-run: invalid boolean 'maybe' (use yes or no)" },
        { "bad-enum.ini", 4,
          "[flexslot] mode: invalid value 'fastest' (one of: static, flexslot)" },
        { "nan-double.ini", 4, "[flexslot] alpha: invalid number 'nan'" },
        { "syntax-error.ini", 3, "syntax error (expected [section] or key = value)" },
        { "duplicate-key.ini", 4, "[agent] interval: set more than once" },
        { "missing-required.ini", 0, "[agent] uri: required key is missing" },
        { "outside-section.ini", 1, "uri: key outside any [section]" },
        /* A cross-field error names the line of the key it is about. */
        { "cross-field.ini", 4, "[limits] min-vcpus: 6 is greater than max-vcpus 2" },
        { "empty-string.ini", 2, "[agent] uri: empty value" },
};

START_TEST(test_config_bad_fixture) {
        const BadFixture *f = &bad_fixtures[_i];
        TestConfig c = { 0 };
        ConfError err;
        char path[512], expected[1024], got[1024];
        int r;

        /* A configuration already in place must survive the failed load. */
        ck_assert_int_eq(conf_load_string(&test_schema, "inline",
                                          "[agent]\nuri = keep:///me\n[flexslot]\nslots = 9\n", &c,
                                          &err),
                         0);

        snprintf(path, sizeof(path), "%s", test_srcdir_path("tests/fixtures/config/"));
        strncat(path, f->file, sizeof(path) - strlen(path) - 1);
        r = conf_load_file(&test_schema, path, &c, &err);
        ck_assert_int_lt(r, 0);
        ck_assert_uint_eq(err.line, f->line);

        if (f->line > 0)
                snprintf(expected, sizeof(expected), "%s:%u: %s", path, f->line, f->message);
        else
                snprintf(expected, sizeof(expected), "%s: %s", path, f->message);
        conf_error_format(&err, got, sizeof(got));
        ck_assert_str_eq(got, expected);

        ck_assert_str_eq(c.uri, "keep:///me");
        ck_assert_int_eq(c.slots, 9);
        conf_free(&test_schema, &c);
}
END_TEST

START_TEST(test_config_section_headers) {
        static const struct {
                const char *text;
                unsigned line;
                const char *message; /* NULL: accepted */
        } cases[] = {
                { "[agent]\nuri = x\n[flexslot]\n", 0, NULL },
                { "\xEF\xBB\xBF[agent]\nuri = x\n", 0, NULL },
                { "[agent]\r\nuri = x\r\n  [host] ; reserves\r\n", 0, NULL },
                { "; [agnt]\n[agent]\nuri = x\n", 0, NULL },
                { "[agent]\nuri = x\n\n  [agnt]  \n", 4, "inline:4: [agnt]: unknown section" },
                { "[agent]\nuri = x\n[ agent ]\n", 3, "inline:3: [ agent ]: unknown section" },
                { "[]\n[agent]\nuri = x\n", 1, "inline:1: empty section name []" },
                /* inih's own error for a comment inside the brackets. */
                { "[agent]\nuri = x\n[host ;]\n", 3,
                  "inline:3: syntax error (expected [section] or key = value)" },
                /* The first error in the file wins. */
                { "[agent]\nuri = x\nnope\n[agnt]\n", 3,
                  "inline:3: syntax error (expected [section] or key = value)" },
                { "[agent]\nuri = x\n[agnt]\nnope\n", 3, "inline:3: [agnt]: unknown section" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                TestConfig c = { 0 };
                ConfError err;
                char got[1024];
                int r = conf_load_string(&test_schema, "inline", cases[i].text, &c, &err);

                conf_error_format(&err, got, sizeof(got));
                if (!cases[i].message) {
                        ck_assert_msg(r == 0, "case %zu: %s", i, got);
                        conf_free(&test_schema, &c);
                        continue;
                }
                ck_assert_msg(r == -EINVAL, "case %zu accepted", i);
                ck_assert_uint_eq(err.line, cases[i].line);
                ck_assert_str_eq(got, cases[i].message);
        }
}
END_TEST

START_TEST(test_config_assignments) {
        static const char text[] = "[agent]\nuri = file:///\n[flexslot]\nslots = 8\n"
                                   "[limits]\nmax-vcpus = 4\n";
        const ConfAssignment good[] = {
                { "flexslot", "slots", "9", "--set flexslot.slots=9" },
                { "host", "memory-reserve", "2G", "--set host.memory-reserve=2G" },
                { "flexslot", "slots", "10", "--set flexslot.slots=10" },
        };
        static const struct {
                ConfAssignment a;
                const char *message;
        } bad[] = {
                { { "flexslt", "slots", "1", "--set flexslt.slots=1" },
                  "--set flexslt.slots=1: [flexslt]: unknown section" },
                { { "flexslot", "slot", "1", "--set flexslot.slot=1" },
                  "--set flexslot.slot=1: [flexslot] slot: unknown key" },
                { { "flexslot", "slots", "-1", "--set flexslot.slots=-1" },
                  "--set flexslot.slots=-1: [flexslot] slots: value '-1' out of range [1, 64]" },
                { { "agent", "uri", "", "--set agent.uri=" },
                  "--set agent.uri=: [agent] uri: empty value" },
                /* A cross-field error about a key an assignment set. */
                { { "limits", "min-vcpus", "6", "--set limits.min-vcpus=6" },
                  "--set limits.min-vcpus=6: [limits] min-vcpus: 6 is greater than max-vcpus "
                  "4" },
        };
        TestConfig c = { 0 };
        ConfError err;
        bool set[ELEMENTSOF(test_keys)];
        char got[1024];

        ck_assert_int_eq(conf_load_string_with(&test_schema, "t.ini", text, good, ELEMENTSOF(good),
                                               &c, set, &err),
                         0);
        ck_assert_int_eq(c.slots, 10);
        ck_assert_uint_eq(c.memory_reserve, 2ULL << 30);
        ck_assert_int_eq(c.max_vcpus, 4);
        ck_assert_uint_eq(c.interval, 3 * USEC_PER_SEC);
        for (size_t i = 0; i < ELEMENTSOF(test_keys); i++) {
                const char *key = test_keys[i].key;
                ck_assert_msg(set[i] == (strcmp(key, "uri") == 0 || strcmp(key, "slots") == 0 ||
                                         strcmp(key, "max-vcpus") == 0 ||
                                         strcmp(key, "memory-reserve") == 0),
                              "%s", key);
        }

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                ck_assert_int_eq(conf_load_string_with(&test_schema, "t.ini", text, &bad[i].a, 1,
                                                       &c, set, &err),
                                 -EINVAL);
                conf_error_format(&err, got, sizeof(got));
                ck_assert_str_eq(got, bad[i].message);
                ck_assert_int_eq(c.slots, 10);
        }

        /* The file's own error comes first and names its line. */
        ck_assert_int_eq(conf_load_string_with(&test_schema, "t.ini", "[agent]\nuri =\n", good, 1,
                                               &c, NULL, &err),
                         -EINVAL);
        conf_error_format(&err, got, sizeof(got));
        ck_assert_str_eq(got, "t.ini:2: [agent] uri: empty value");
        conf_free(&test_schema, &c);
}
END_TEST

START_TEST(test_config_unreadable_file) {
        TestConfig c = { 0 };
        ConfError err;
        char got[1024];

        ck_assert_int_eq(conf_load_file(&test_schema, "/nonexistent/flexslot.ini", &c, &err),
                         -ENOENT);
        conf_error_format(&err, got, sizeof(got));
        ck_assert_str_eq(got, "/nonexistent/flexslot.ini: cannot read: No such file or directory");
        ck_assert_int_lt(conf_load_file(&test_schema, "/", &c, &err), 0);
        ck_assert_str_eq(err.message, "not a regular file");
        ck_assert_ptr_null(c.uri);
}
END_TEST

START_TEST(test_config_long_line_accepted) {
        TestConfig c = { 0 };
        ConfError err;
        char text[1200], uri[1000];

        memset(uri, 'a', sizeof(uri) - 1);
        uri[sizeof(uri) - 1] = '\0';
        snprintf(text, sizeof(text), "[agent]\nuri = %s\n", uri);
        ck_assert_int_eq(conf_load_string(&test_schema, "inline", text, &c, &err), 0);
        ck_assert_str_eq(c.uri, uri);
        conf_free(&test_schema, &c);
}
END_TEST

START_TEST(test_config_bad_default_is_reported) {
        static const ConfKey keys[] = {
                { "a", "n", CONF_INT, 0, "200", .min = 0, .max = 10 },
        };
        static const ConfSchema schema = { keys, 1, sizeof(int64_t), NULL };
        int64_t n = 0;
        ConfError err;

        ck_assert_int_lt(conf_load_defaults(&schema, &n, &err), 0);
        ck_assert_str_eq(err.message, "built-in default: value '200' out of range [0, 10]");
}
END_TEST

/* A second struct beside TestConfig, loaded from the same text. */
typedef struct ExtraConfig {
        double lambda;
        int64_t moves;
} ExtraConfig;

static const ConfKey extra_keys[] = {
        { "flexslot", "lambda", CONF_DOUBLE, offsetof(ExtraConfig, lambda), "0.05", .dmin = 0,
          .dmax = 1 },
        { "extra", "moves", CONF_INT, offsetof(ExtraConfig, moves), "1", .min = 0, .max = 9 },
};

static int extra_validate(const void *config, ConfError *err) {
        const ExtraConfig *c = config;

        if (c->moves > 0 && c->lambda == 0)
                return conf_error_set(err, "extra", "moves", "moves need a lambda above 0");
        return 0;
}

static const ConfSchema extra_schema = {
        .keys = extra_keys,
        .n_keys = ELEMENTSOF(extra_keys),
        .size = sizeof(ExtraConfig),
        .validate = extra_validate,
};

START_TEST(test_config_parts) {
        static const char text[] = "[agent]\nuri = file:///\n[flexslot]\nslots = 8\nlambda = 0.5\n"
                                   "[extra]\nmoves = 3\n";
        const ConfAssignment set_lambda = { "flexslot", "lambda", "0", "--set flexslot.lambda=0" };
        const ConfAssignment bad_lambda = { "flexslot", "lambda", "2", "--set flexslot.lambda=2" };
        TestConfig c = { 0 };
        ExtraConfig x = { 0 };
        bool set_c[ELEMENTSOF(test_keys)], set_x[ELEMENTSOF(extra_keys)];
        const ConfPart parts[] = { { &test_schema, &c, set_c }, { &extra_schema, &x, set_x } };
        ConfError err;
        char got[512];

        ck_assert_int_eq(conf_load_parts(parts, 2, "t.ini", text, NULL, 0, &err), 0);
        ck_assert_int_eq(c.slots, 8);
        ck_assert_double_eq(x.lambda, 0.5);
        ck_assert_int_eq(x.moves, 3);
        ck_assert(set_x[0] && set_x[1] && !set_c[1]);

        /* Each part's range and validate, naming what set the key; nothing
         * changes in either part. */
        ck_assert_int_eq(conf_load_parts(parts, 2, "t.ini", text, &bad_lambda, 1, &err), -EINVAL);
        conf_error_format(&err, got, sizeof(got));
        ck_assert_str_eq(got, "--set flexslot.lambda=2: [flexslot] lambda: value '2' out of "
                              "range [0, 1]");
        ck_assert_int_eq(conf_load_parts(parts, 2, "t.ini", text, &set_lambda, 1, &err), -EINVAL);
        conf_error_format(&err, got, sizeof(got));
        ck_assert_str_eq(got, "t.ini:7: [extra] moves: moves need a lambda above 0");
        ck_assert_double_eq(x.lambda, 0.5);
        ck_assert_int_eq(c.slots, 8);

        /* A key of both parts is a mistake of the program. */
        ck_assert_int_eq(conf_load_parts((const ConfPart[]){ { &extra_schema, &x, NULL },
                                                             { &extra_schema, &x, NULL } },
                                         2, "t.ini", "", NULL, 0, &err),
                         -EINVAL);
        conf_error_format(&err, got, sizeof(got));
        ck_assert_str_eq(got, "t.ini: [flexslot] lambda: declared by two schemas");
        conf_free(&test_schema, &c);
}
END_TEST

/* A daemon's check of the machine: after validate, blamed on the line of
 * the key it names, and nothing loaded when it refuses. */
static int check_moves_file(const void *config, ConfError *err) {
        const ExtraConfig *x = config;

        return x->moves == 3 ? conf_error_set(err, "extra", "moves", "no such thing here") : 0;
}

START_TEST(test_config_part_check) {
        ExtraConfig x = { 0 };
        ConfPart part = { &extra_schema, &x, NULL, check_moves_file };
        ConfError err;
        char got[256];

        ck_assert_int_eq(conf_load_parts(&part, 1, "t.ini",
                                         "[flexslot]\nlambda = 0.5\n[extra]\nmoves = 3\n", NULL, 0,
                                         &err),
                         -EINVAL);
        conf_error_format(&err, got, sizeof(got));
        ck_assert_str_eq(got, "t.ini:4: [extra] moves: no such thing here");
        ck_assert_int_eq(x.moves, 0);
        ck_assert_int_eq(conf_load_parts(&part, 1, "t.ini",
                                         "[flexslot]\nlambda = 0.5\n[extra]\nmoves = 2\n", NULL, 0,
                                         &err),
                         0);
        ck_assert_int_eq(x.moves, 2);
}
END_TEST

/* A token file its group or others may read is refused: whoever reads it
 * passes for a tracker. */
START_TEST(test_daemon_token_mode) {
        _cleanup_free_ char *dir = test_make_tmpdir();
        char path[512], *token = NULL;
        size_t len = 0;
        FILE *f;

        snprintf(path, sizeof(path), "%s/token", dir);
        f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs("s3cret\n", f);
        fclose(f);
        ck_assert_int_eq(chmod(path, 0640), 0);
        ck_assert_int_eq(daemon_read_token(path, 64, &token, &len), -EPERM);
        ck_assert_ptr_null(token);
        ck_assert_int_eq(chmod(path, 0600), 0);
        ck_assert_int_eq(daemon_read_token(path, 64, &token, &len), 0);
        ck_assert_str_eq(token, "s3cret");
        ck_assert_uint_eq(len, 6);
        free(token);
        test_remove_tree(dir);
}
END_TEST

/* A struct filled in code is held to the ranges a file is held to, said in
 * the file's units, and to validate. */
START_TEST(test_config_check) {
        TestConfig c = { 0 };
        ConfError err;
        char got[512];

        ck_assert_int_eq(conf_load_string(&test_schema, "t", "[agent]\nuri = x\n", &c, &err), 0);
        ck_assert_int_eq(conf_check(&test_schema, &c, &err), 0);
        c.interval = 2 * USEC_PER_HOUR;
        ck_assert_int_eq(conf_check(&test_schema, &c, &err), -EINVAL);
        conf_error_format(&err, got, sizeof(got));
        ck_assert_str_eq(got, "[agent] interval: value '2h' out of range [100ms, 1h]");
        c.interval = USEC_PER_SEC;
        c.alpha = NAN;
        ck_assert_int_eq(conf_check(&test_schema, &c, &err), -EINVAL);
        ck_assert_str_eq(err.message, "value 'nan' out of range [0.01, 1]");
        c.alpha = 0.5;
        c.mode = 2;
        ck_assert_int_eq(conf_check(&test_schema, &c, &err), -EINVAL);
        ck_assert_str_eq(err.key, "mode");
        c.mode = 0;
        c.min_vcpus = 9;
        ck_assert_int_eq(conf_check(&test_schema, &c, &err), -EINVAL);
        ck_assert_str_eq(err.message, "9 is greater than max-vcpus 8");
        conf_free(&test_schema, &c);
}
END_TEST

typedef struct ParsedOwn {
        const char *address;
        bool dry_run;
} ParsedOwn;

static unsigned help_shown;

static void count_help(void) {
        help_shown++;
}

static int own_option(int c, const char *arg, void *userdata) {
        ParsedOwn *p = userdata;

        if (c == 'n')
                p->dry_run = true;
        else
                p->address = arg;
        return 0;
}

static int parse_line(ParsedOwn *own, DaemonOptions *o, char *line) {
        static const struct option options[] = {
                { "address", required_argument, NULL, 'a' },
                { "dry-run", no_argument, NULL, 'n' },
                {},
        };
        const DaemonCommandLine cl = { .program = "flexslot-test",
                                       .config_default = "/etc/flexslot/test.ini",
                                       .help = count_help,
                                       .options = options,
                                       .short_options = "a:n",
                                       .option = own_option,
                                       .userdata = own };
        char *argv[16] = { "flexslot-test" };
        int argc = 1;

        for (char *save = NULL, *w = strtok_r(line, " ", &save); w; w = strtok_r(NULL, " ", &save))
                argv[argc++] = w;
        return daemon_parse_argv(&cl, argc, argv, o);
}

START_TEST(test_daemon_command_line) {
        ParsedOwn own = { 0 };
        DaemonOptions o = { .config_file = "untouched" };
        char ok[] = "-n --log-level=debug --address unix:path=/run/x -c /tmp/f.ini";
        char defaults[] = "";
        char help[] = "-a x --help";
        char bad_level[] = "--log-level=loud";
        char stray[] = "-n stray";
        char missing[] = "-a";
        char unknown[] = "--uri=x";

        ck_assert_int_eq(parse_line(&own, &o, ok), 1);
        ck_assert_str_eq(o.config_file, "/tmp/f.ini");
        ck_assert(o.config_given);
        ck_assert(o.log_level_given);
        ck_assert_int_eq(o.log_level, LOG_LEVEL_DEBUG);
        ck_assert(own.dry_run);
        ck_assert_str_eq(own.address, "unix:path=/run/x");

        /* A second command line starts afresh: the defaults come back. */
        ck_assert_int_eq(parse_line(&own, &o, defaults), 1);
        ck_assert_str_eq(o.config_file, "/etc/flexslot/test.ini");
        ck_assert(!o.config_given && !o.log_level_given);

        ck_assert_int_eq(parse_line(&own, &o, help), 0);
        ck_assert_uint_eq(help_shown, 1);

        /* Usage errors leave the options as they were. */
        o = (DaemonOptions){ .config_file = "untouched" };
        ck_assert_int_eq(parse_line(&own, &o, bad_level), -EINVAL);
        ck_assert_int_eq(parse_line(&own, &o, stray), -EINVAL);
        ck_assert_int_eq(parse_line(&own, &o, missing), -EINVAL);
        ck_assert_int_eq(parse_line(&own, &o, unknown), -EINVAL);
        ck_assert_str_eq(o.config_file, "untouched");
}
END_TEST

/* ---- files and string arrays ---- */

START_TEST(test_small_files) {
        _cleanup_free_ char *dir = test_make_tmpdir(), *path = NULL;
        char buf[8] = "x";

        ck_assert_int_eq(asprintf(&path, "%s/f", dir) > 0, 1);
        /* write_string_file() writes into a file that exists, as into /sys. */
        ck_assert_int_eq(write_string_file(path, "1"), -ENOENT);
        fclose(fopen(path, "we"));
        ck_assert_int_eq(write_string_file(path, "0123456789"), 0);
        /* Cut to the buffer, NUL-terminated. */
        ck_assert_int_eq(read_small_file(path, buf, sizeof(buf)), 0);
        ck_assert_str_eq(buf, "0123456");
        ck_assert_int_eq(read_small_file("/nonexistent/f", buf, sizeof(buf)), -ENOENT);
        ck_assert_str_eq(buf, "0123456");
        test_remove_tree(dir);
}
END_TEST

START_TEST(test_strv_free) {
        _cleanup_(strv_freep) char **v = calloc(3, sizeof(char *));

        ck_assert_ptr_nonnull(v);
        v[0] = strdup("a");
        v[1] = strdup("b");
        strv_free(NULL);
}
END_TEST

/* An observation on a bound falls in that bound's bucket (le: at or
 * below); the buckets are written cumulative, +Inf holding every one. */
START_TEST(test_metrics_histogram) {
        static const double bounds[] = { 0.001, 0.01 };
        MetricsHistogram h = { .bounds = bounds, .n_bounds = ELEMENTSOF(bounds) };
        char *text = NULL;
        size_t size = 0;
        FILE *out;

        metrics_histogram_observe(&h, 0.0005);
        metrics_histogram_observe(&h, 0.001);
        metrics_histogram_observe(&h, 0.005);
        metrics_histogram_observe(&h, 2);
        out = open_memstream(&text, &size);
        ck_assert_ptr_nonnull(out);
        metrics_histogram_write(out, "x_seconds", &h);
        ck_assert_int_eq(fclose(out), 0);
        ck_assert_str_eq(text, "x_seconds_bucket{le=\"0.001\"} 2\n"
                               "x_seconds_bucket{le=\"0.01\"} 3\n"
                               "x_seconds_bucket{le=\"+Inf\"} 4\n"
                               "x_seconds_sum 2.006500000\n"
                               "x_seconds_count 4\n");
        free(text);
}
END_TEST

Suite *suite_common(void) {
        Suite *s = suite_create("common");
        TCase *tc;

        tc = tcase_create("parse");
        tcase_add_test(tc, test_parse_int64);
        tcase_add_test(tc, test_parse_uint64_rejects_sign);
        tcase_add_test(tc, test_parse_double);
        tcase_add_test(tc, test_parse_bool);
        tcase_add_test(tc, test_parse_duration_and_size);
        tcase_add_test(tc, test_format_duration_and_size);
        tcase_add_test(tc, test_format_round_trip);
        suite_add_tcase(s, tc);

        tc = tcase_create("time-log");
        tcase_add_test(tc, test_timespec_to_usec);
        tcase_add_loop_test(tc, test_time_is_the_clock, 0, ELEMENTSOF(clocks));
        tcase_add_test(tc, test_next_deadline_keeps_the_schedule);
        tcase_add_test(tc, test_log_plain_and_journal);
        tcase_add_test(tc, test_log_one_line);
        tcase_add_test(tc, test_log_level_names);
        tcase_add_test(tc, test_daemon_command_line);
        suite_add_tcase(s, tc);

        tc = tcase_create("metrics");
        tcase_add_test(tc, test_metrics_histogram);
        suite_add_tcase(s, tc);

        tc = tcase_create("backoff");
        tcase_add_test(tc, test_backoff_doubles_to_cap);
        tcase_add_test(tc, test_backoff_no_overflow);
        suite_add_tcase(s, tc);

        tc = tcase_create("config");
        tcase_add_test(tc, test_config_defaults_then_file);
        tcase_add_test(tc, test_config_good_file);
        tcase_add_loop_test(tc, test_config_bad_fixture, 0, (int)ELEMENTSOF(bad_fixtures));
        tcase_add_test(tc, test_config_section_headers);
        tcase_add_test(tc, test_config_assignments);
        tcase_add_test(tc, test_config_unreadable_file);
        tcase_add_test(tc, test_config_long_line_accepted);
        tcase_add_test(tc, test_config_bad_default_is_reported);
        tcase_add_test(tc, test_config_parts);
        tcase_add_test(tc, test_config_part_check);
        tcase_add_test(tc, test_daemon_token_mode);
        tcase_add_test(tc, test_config_check);
        suite_add_tcase(s, tc);

        tc = tcase_create("files");
        tcase_add_test(tc, test_small_files);
        tcase_add_test(tc, test_strv_free);
        suite_add_tcase(s, tc);
        return s;
}

/* SPDX-License-Identifier: MIT */
/* Hadoop 1's job semantics that the controller and the trackers share
 * (mapred/): FileInputFormat's splits and their FILE:OFFSET:LENGTH form,
 * and the names of attempts' outputs. Splits of real files and
 * directories, read line by line, are in check_tracker_records.c. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>

#include "common/macro.h"
#include "mapred/output.h"
#include "mapred/split.h"
#include "tests.h"

/* ---- input splits ---- */

START_TEST(test_split_sizes) {
        InputSplitList l = { 0 };
        const uint64_t B = SPLIT_BLOCK_SIZE_DEFAULT;

        /* Exactly 1.1 blocks: one split; one byte more: a block and the rest. */
        ck_assert_int_eq(input_splits_add_file(&l, "a", B + B / 10, B), 0);
        ck_assert_uint_eq(l.n, 1);
        ck_assert_uint_eq(l.splits[0].length, B + B / 10);
        input_split_list_done(&l);
        ck_assert_int_eq(input_splits_add_file(&l, "a", B + B / 10 + 1, B), 0);
        ck_assert_uint_eq(l.n, 2);
        ck_assert_uint_eq(l.splits[0].length, B);
        ck_assert_uint_eq(l.splits[1].offset, B);
        ck_assert_uint_eq(l.splits[1].length, B / 10 + 1);
        input_split_list_done(&l);
        /* 3.05 blocks: three splits, the last one 1.05 blocks. */
        ck_assert_int_eq(input_splits_add_file(&l, "a", 3 * B + B / 20, B), 0);
        ck_assert_uint_eq(l.n, 3);
        ck_assert_uint_eq(l.splits[2].offset, 2 * B);
        ck_assert_uint_eq(l.splits[2].length, B + B / 20);
        input_split_list_done(&l);
        /* An empty file has one empty split, as in Hadoop 1.x. */
        ck_assert_int_eq(input_splits_add_file(&l, "e", 0, B), 0);
        ck_assert_uint_eq(l.n, 1);
        ck_assert_uint_eq(l.splits[0].length, 0);
        input_split_list_done(&l);
        ck_assert_int_eq(input_splits_add_file(&l, "e", 10, 0), -EINVAL);
}
END_TEST

START_TEST(test_split_parse) {
        InputSplit s;

        ck_assert_int_eq(input_split_parse("dir/a:b.txt:10:20", &s), 0);
        ck_assert_str_eq(s.path, "dir/a:b.txt");
        ck_assert_uint_eq(s.offset, 10);
        ck_assert_uint_eq(s.length, 20);
        input_split_done(&s);
        ck_assert_int_eq(input_split_parse("f", &s), -EINVAL);
        ck_assert_int_eq(input_split_parse("f:1", &s), -EINVAL);
        ck_assert_int_eq(input_split_parse(":1:2", &s), -EINVAL);
        ck_assert_int_eq(input_split_parse("f:-1:2", &s), -EINVAL);
        ck_assert_int_eq(input_split_parse("f:1:x", &s), -EINVAL);
        ck_assert_int_eq(input_split_parse("f:1: 2", &s), -EINVAL);
}
END_TEST

/* ---- attempt outputs ---- */

START_TEST(test_output_round_trip) {
        static const AttemptOutput outputs[] = {
                { .job = 3, .map = true, .index = 1, .attempt = 9 },
                { .job = 3, .map = false, .index = 0, .attempt = 1795767344753703 },
                { .job = UINT64_MAX, .map = true, .index = 123456, .attempt = UINT64_MAX },
        };
        static const char *const names[] = {
                "out/3/_map-00001.9",
                "out/3/_part-00000.1795767344753703",
                "out/18446744073709551615/_map-123456.18446744073709551615",
        };

        for (size_t i = 0; i < ELEMENTSOF(outputs); i++) {
                _cleanup_free_ char *name = NULL;
                AttemptOutput o;

                ck_assert_int_eq(attempt_output_format(&outputs[i], &name), 0);
                ck_assert_str_eq(name, names[i]);
                ck_assert_int_eq(attempt_output_parse(name, &o), 0);
                ck_assert_uint_eq(o.job, outputs[i].job);
                ck_assert(o.map == outputs[i].map);
                ck_assert_uint_eq(o.index, outputs[i].index);
                ck_assert_uint_eq(o.attempt, outputs[i].attempt);
        }
}
END_TEST

/* A reader of a job's output lists part-*: no attempt's file may match,
 * neither a winner's before the commit nor a loser's after it. */
START_TEST(test_output_hidden_until_committed) {
        const AttemptOutput reduce = { .job = 7, .index = 3, .attempt = 11 };
        _cleanup_free_ char *name = NULL, *committed = NULL, *map = NULL;
        AttemptOutput o;

        ck_assert_int_eq(attempt_output_format(&reduce, &name), 0);
        ck_assert_int_eq(fnmatch("out/7/part-*", name, FNM_PATHNAME), FNM_NOMATCH);
        ck_assert_int_eq(attempt_output_committed(&reduce, &committed), 0);
        ck_assert_str_eq(committed, "out/7/part-00003");
        ck_assert_int_eq(
                attempt_output_committed(
                        &(AttemptOutput){ .job = 7, .map = true, .index = 3, .attempt = 11 }, &map),
                -EINVAL);
        ck_assert_ptr_null(map);
        /* The names written before the hiding "_" still parse, so that a
         * controller upgraded mid-job commits what its store names. */
        ck_assert_int_eq(attempt_output_parse("out/7/part-00003.11", &o), 0);
        ck_assert(!o.map && o.job == 7 && o.index == 3 && o.attempt == 11);
        ck_assert_int_eq(attempt_output_parse("out/7/map-00003.11", &o), 0);
        ck_assert(o.map);
}
END_TEST

START_TEST(test_output_refused) {
        static const char *const bad[] = {
                "out/3/_map-00001", /* the committed name, no attempt's */
                "out/3/__map-00001.9",
                "out/3/_map-1.9",
                "out/3/map-1.9",      /* not the canonical spelling */
                "out/03/map-00001.9", /* nor this */
                "out/3/map-000001.9", /* nor this */
                "out/3/map-00001.09", /* nor this */
                "out/3/reduce-00001.9",
                "out/0/map-00001.9",
                "out/3/map-00001.0",
                "out/3/map--0001.9",
                "out/3/map-00001.+9",
                "in/3/map-00001.9",
                "out/3/sub/map-00001.9",
                "out/map-00001.9",
                "",
        };
        AttemptOutput o = { .job = 42 };
        char *name = NULL;

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                ck_assert_msg(attempt_output_parse(bad[i], &o) == -EINVAL, "%s", bad[i]);
                ck_assert_uint_eq(o.job, 42);
        }
        ck_assert_int_eq(attempt_output_format(&(AttemptOutput){ .job = 0, .attempt = 1 }, &name),
                         -EINVAL);
        ck_assert_int_eq(attempt_output_format(&(AttemptOutput){ .job = 1, .attempt = 0 }, &name),
                         -EINVAL);
        ck_assert_ptr_null(name);
}
END_TEST

Suite *suite_mapred(void) {
        Suite *s = suite_create("mapred");
        TCase *tc;

        tc = tcase_create("split");
        tcase_add_test(tc, test_split_sizes);
        tcase_add_test(tc, test_split_parse);
        suite_add_tcase(s, tc);

        tc = tcase_create("output");
        tcase_add_test(tc, test_output_round_trip);
        tcase_add_test(tc, test_output_hidden_until_committed);
        tcase_add_test(tc, test_output_refused);
        suite_add_tcase(s, tc);
        return s;
}

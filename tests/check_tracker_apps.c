/* SPDX-License-Identifier: MIT */
/* The built-in applications, function by function: what each map makes of
 * a line, what each combiner and reducer makes of a key's values. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "common/macro.h"
#include "tests.h"
#include "tracker-test.h"
#include "tracker/app.h"

static const char *run_map(const char *app, const char *arg, const char *path, const char *line) {
        static RecordList out;
        const AppOps *ops = app_find(app);
        AppConfig cfg = { .arg = arg };
        MapRecord rec = { .path = path, .line = (const uint8_t *)line, .len = strlen(line) };
        void *state = NULL;
        int r;

        ck_assert_ptr_nonnull(ops);
        record_list_done(&out);
        ck_assert_int_eq(app_init(ops, &cfg, &state), 0);
        r = ops->map(state, &rec, &out.emitter);
        app_free(ops, state);
        return r < 0 ? NULL : record_list_join(&out);
}

static const char *run_group(const char *app, bool combine, const char *key, const char *values) {
        static RecordList in, out;
        const AppOps *ops = app_find(app);
        ListStream ls;
        AppConfig cfg = { .arg = ops->info->arg_name ? "." : NULL };
        void *state = NULL;
        int r;

        record_list_done(&in);
        record_list_done(&out);
        for (const char *v = values; *v;) {
                size_t n = strcspn(v, " ");
                record_list_add(&in, key, strlen(key), v, n);
                v += n + (v[n] == ' ');
        }
        list_stream_init(&ls, &in);
        ck_assert_int_eq(app_init(ops, &cfg, &state), 0);
        r = group_run(&ls.stream, combine ? ops->combine : ops->reduce, state, &out.emitter);
        app_free(ops, state);
        return r < 0 ? NULL : record_list_join(&out);
}

START_TEST(test_app_wordcount_grep_sort) {
        ck_assert_str_eq(run_map("wordcount", NULL, "f", "  the cat\tthe\fend\r "),
                         "the=1 cat=1 the=1 end=1");
        ck_assert_str_eq(run_map("wordcount", NULL, "f", ""), "");
        ck_assert_str_eq(run_group("wordcount", true, "the", "1 2 39"), "the=42");
        ck_assert_str_eq(run_group("wordcount", false, "the", "1"), "the=1");
        ck_assert_ptr_null(run_group("wordcount", false, "the", "1 x"));

        /* Every non-empty match, with ^ only at the line's start. */
        ck_assert_str_eq(run_map("grep", "a+b?", "f", "aab xab b a"), "aab=1 ab=1 a=1");
        ck_assert_str_eq(run_map("grep", "^x", "f", "xx x"), "x=1");
        ck_assert_str_eq(run_map("grep", "z*", "f", "azzb"), "zz=1");
        ck_assert_str_eq(run_group("grep", true, "ab", "2 3"), "ab=5");

        ck_assert_str_eq(run_map("sort", NULL, "f", "key\tva\tlue"), "key=va\tlue");
        ck_assert_str_eq(run_map("sort", NULL, "f", "lonely"), "lonely=");
        ck_assert_str_eq(run_map("sort", NULL, "f", "\tv"), "=v");
        ck_assert_str_eq(run_group("sort", false, "k", "b a b"), "k=b k=a k=b");
}
END_TEST

START_TEST(test_app_inverted_index) {
        ck_assert_str_eq(run_map("inverted-index", NULL, "/data/doc1.txt", "a b a"),
                         "a=doc1.txt b=doc1.txt a=doc1.txt");
        ck_assert_str_eq(run_group("inverted-index", true, "a", "d2 d1 d2"), "a=d1 a=d2");
        ck_assert_str_eq(run_group("inverted-index", false, "a", "d2 d1 d2 d10"), "a=d1,d10,d2");
}
END_TEST

START_TEST(test_app_histograms) {
        /* PUMA's bins: average 3.5 -> 4.0, 3.0 -> 3.5, 1.5 -> 2.0, 4.25 -> 4.5. */
        ck_assert_str_eq(run_map("histogram-movies", NULL, "f", "1:11_3,12_4"), "4.0=1");
        ck_assert_str_eq(run_map("histogram-movies", NULL, "f", "2:5_3"), "3.5=1");
        ck_assert_str_eq(run_map("histogram-movies", NULL, "f", "3:7_1,,8_2"), "2.0=1");
        ck_assert_str_eq(run_map("histogram-movies", NULL, "f", "4:1_4,2_4,3_4,4_5"), "4.5=1");
        ck_assert_str_eq(run_map("histogram-movies", NULL, "f", "5:1_5"), "5.5=1");
        /* No movie id, or no reviews: nothing. */
        ck_assert_str_eq(run_map("histogram-movies", NULL, "f", ":1_4"), "");
        ck_assert_str_eq(run_map("histogram-movies", NULL, "f", "no colon"), "");
        ck_assert_str_eq(run_map("histogram-movies", NULL, "f", "6:"), "");
        ck_assert_ptr_null(run_map("histogram-movies", NULL, "f", "7:1_x"));
        ck_assert_ptr_null(run_map("histogram-movies", NULL, "f", "7:1_"));
        ck_assert_str_eq(run_group("histogram-movies", false, "4.0", "1 1 5"), "4.0=7");

        ck_assert_str_eq(run_map("histogram-ratings", NULL, "f", "1:11_3,12_4,13_03,4"),
                         "3=1 4=1 3=1 4=1");
        ck_assert_ptr_null(run_map("histogram-ratings", NULL, "f", "1:11_-3"));
        ck_assert_str_eq(run_group("histogram-ratings", true, "3", "1 1"), "3=2");
}
END_TEST

START_TEST(test_app_table) {
        void *state = (void *)1;
        size_t n = 0;
        char why[256];

        /* The task runtime runs exactly the applications the controller
         * admits jobs of (mapred/apps-table.h), in one order. */
        for (const AppOps *const *a = app_table; *a; a++, n++) {
                ck_assert_ptr_nonnull((*a)->map);
                ck_assert_ptr_nonnull((*a)->reduce);
                ck_assert_ptr_eq((*a)->info, mapred_apps[n]);
                ck_assert_ptr_eq(app_find((*a)->info->name), *a);
                ck_assert_ptr_eq(mapred_app_find((*a)->info->name), (*a)->info);
        }
        ck_assert_ptr_null(mapred_apps[n]);
        ck_assert_ptr_null(mapred_app_find("streaming"));
        ck_assert_ptr_null(app_find("wordcont"));
        /* The argument is checked before the application sees it. */
        ck_assert_int_eq(app_init(app_find("grep"), &(AppConfig){ 0 }, &state), -EINVAL);
        ck_assert_int_eq(app_init(app_find("wordcount"), &(AppConfig){ .arg = "x" }, &state),
                         -EINVAL);
        ck_assert_int_eq(app_init(app_find("grep"), &(AppConfig){ .arg = "(" }, &state), -EINVAL);
        ck_assert_ptr_eq(state, (void *)1);
        /* What the controller says of a submission, before any task. */
        ck_assert_int_eq(mapred_app_check_arg(&mapred_app_grep, "(", why, sizeof(why)), -EINVAL);
        ck_assert_str_eq(why, "grep: bad pattern '(': Unmatched ( or \\(");
        ck_assert_int_eq(mapred_app_check_arg(&mapred_app_grep, NULL, why, sizeof(why)), -EINVAL);
        ck_assert_str_eq(why, "grep needs its PATTERN");
        ck_assert_int_eq(mapred_app_check_arg(&mapred_app_sort, "x", why, sizeof(why)), -EINVAL);
        ck_assert_str_eq(why, "sort takes no argument");
        ck_assert_int_eq(mapred_app_check_arg(&mapred_app_grep, "w[0-9]+", why, sizeof(why)), 0);
}
END_TEST

Suite *suite_tracker_apps(void) {
        Suite *s = suite_create("tracker_apps");
        TCase *tc = tcase_create("apps");

        tcase_add_test(tc, test_app_wordcount_grep_sort);
        tcase_add_test(tc, test_app_inverted_index);
        tcase_add_test(tc, test_app_histograms);
        tcase_add_test(tc, test_app_table);
        suite_add_tcase(s, tc);
        return s;
}

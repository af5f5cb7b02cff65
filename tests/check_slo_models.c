/* SPDX-License-Identifier: MIT */
/* The deadline models: ARIA's profile, bounds and Eq. 15 slots with the
 * profile file that holds a profile, and the Deadline Constraint
 * Scheduler's minimum tasks and test (RAS's utility is in check_ras.c).
 * Expected values are worked out by hand from the papers' equations; each
 * test shows the arithmetic. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "common/macro.h"
#include "policy/layers/aria-model.h"
#include "policy/layers/dcs-model.h"
#include "policy/layers/slo-math.h"
#include "sim/profile.h"
#include "tests.h"

#define TOL 1e-6
#define MIB (1024.0 * 1024.0)

/* ---- rounding ---- */

START_TEST(test_slo_ceil) {
        ck_assert_uint_eq(slo_ceil(6.0), 6);
        /* 1920 / 320 computed as 1920 * (1 / 320.0) and the like. */
        ck_assert_uint_eq(slo_ceil(6.000000000000001), 6);
        ck_assert_uint_eq(slo_ceil(6.01), 7);
        ck_assert_uint_eq(slo_ceil(0.2), 1);
        ck_assert_uint_eq(slo_ceil(0), 0);
        ck_assert_uint_eq(slo_ceil(-3), 0);
        ck_assert_uint_eq(slo_ceil(NAN), 0);
        ck_assert_uint_eq(slo_ceil(1e30), UINT_MAX);
}
END_TEST

/* ---- ARIA ---- */

/* Table 1, Sept_256,256, shuffle rows in the text's order (first, then
 * typical): see sim/profiles/wikitrends.ini. */
static const AriaProfile wiki = {
        .map_min = 94,
        .map_avg = 144,
        .map_max = 186,
        .map_input = 59.85 * MIB,
        .map_selectivity = 10.07,
        .sh1_avg = 12,
        .sh1_max = 20,
        .shtyp_avg = 121,
        .shtyp_max = 152,
        .reduce_avg = 16,
        .reduce_max = 33,
        .reduce_selectivity = 0.37,
};

/* Table 1 with the two shuffle rows swapped: the reading behind the issue's
 * (111, 47) for a 240 s deadline. */
static AriaProfile wiki_swapped(void) {
        AriaProfile p = wiki;

        p.sh1_avg = 121;
        p.sh1_max = 152;
        p.shtyp_avg = 12;
        p.shtyp_max = 20;
        return p;
}

START_TEST(test_aria_extract) {
        /* Maps of 10, 14 and 12 s; the map stage ends at 22. Reduces r1 and
         * r2 start before 22 (first wave): their shuffles end at 25 and 29,
         * so 3 and 7 s of them come after the maps. r3 starts at 30 (a later
         * wave): an 8 s typical shuffle. Reduce phases: 5, 4 and 6 s. */
        static const AriaTask tasks[] = {
                { .start = 0, .end = 10, .input = 100, .output = 40 },
                { .reduce = true,
                  .start = 11,
                  .shuffle_end = 25,
                  .end = 30,
                  .input = 75,
                  .output = 15 },
                { .start = 0, .end = 14, .input = 100, .output = 60 },
                { .reduce = true,
                  .start = 12,
                  .shuffle_end = 29,
                  .end = 33,
                  .input = 75,
                  .output = 15 },
                { .start = 10, .end = 22, .input = 100, .output = 50 },
                { .reduce = true, .start = 30, .shuffle_end = 38, .end = 44 },
        };
        AriaProfile p;

        ck_assert_int_eq(aria_profile_extract(tasks, ELEMENTSOF(tasks), &p), 0);
        ck_assert_double_eq_tol(p.map_min, 10, TOL);
        ck_assert_double_eq_tol(p.map_avg, 12, TOL);
        ck_assert_double_eq_tol(p.map_max, 14, TOL);
        ck_assert_double_eq_tol(p.map_input, 100, TOL);
        ck_assert_double_eq_tol(p.map_selectivity, 150.0 / 300, TOL);
        ck_assert_double_eq_tol(p.sh1_avg, 5, TOL);
        ck_assert_double_eq_tol(p.sh1_max, 7, TOL);
        ck_assert_double_eq_tol(p.shtyp_avg, 8, TOL);
        ck_assert_double_eq_tol(p.shtyp_max, 8, TOL);
        ck_assert_double_eq_tol(p.reduce_avg, 5, TOL);
        ck_assert_double_eq_tol(p.reduce_max, 6, TOL);
        ck_assert_double_eq_tol(p.reduce_selectivity, 30.0 / 150, TOL);
        ck_assert_int_eq(aria_profile_check(&p), 0);

        /* One reduce wave: no typical shuffle measured, the first one
         * stands for it. */
        ck_assert_int_eq(aria_profile_extract(tasks, 5, &p), 0);
        ck_assert_double_eq_tol(p.shtyp_avg, 5, TOL);
        ck_assert_double_eq_tol(p.shtyp_max, 7, TOL);
        ck_assert_double_eq_tol(p.reduce_avg, 4.5, TOL);

        /* Only r3 and the maps: no overlapping shuffle, the typical one
         * stands for the first. */
        {
                const AriaTask late[] = { tasks[0], tasks[2], tasks[4], tasks[5] };
                ck_assert_int_eq(aria_profile_extract(late, ELEMENTSOF(late), &p), 0);
                ck_assert_double_eq_tol(p.sh1_avg, 8, TOL);
                ck_assert_double_eq_tol(p.sh1_max, 8, TOL);
        }

        /* A map-only job. */
        ck_assert_int_eq(aria_profile_extract(&tasks[0], 1, &p), 0);
        ck_assert_double_eq_tol(p.reduce_avg, 0, TOL);
        ck_assert_double_eq_tol(p.sh1_max, 0, TOL);
        ck_assert_double_eq_tol(p.reduce_selectivity, 0, TOL);
}
END_TEST

START_TEST(test_aria_extract_bad) {
        const AriaProfile before = wiki;
        AriaProfile p = wiki;
        AriaTask t[2] = {
                { .start = 0, .end = 10, .input = 1 },
                { .reduce = true, .start = 5, .shuffle_end = 12, .end = 20 },
        };

        /* No map task. */
        ck_assert_int_eq(aria_profile_extract(&t[1], 1, &p), -EINVAL);
        ck_assert_int_eq(aria_profile_extract(t, 0, &p), -EINVAL);
        /* A reduce whose shuffle ends after it. */
        t[1].shuffle_end = 25;
        ck_assert_int_eq(aria_profile_extract(t, 2, &p), -EINVAL);
        t[1].shuffle_end = 12;
        /* Ends before it starts; not a number; negative bytes. */
        t[0].end = -1;
        ck_assert_int_eq(aria_profile_extract(t, 2, &p), -EINVAL);
        t[0].end = NAN;
        ck_assert_int_eq(aria_profile_extract(t, 2, &p), -EINVAL);
        t[0].end = 10;
        t[0].input = -1;
        ck_assert_int_eq(aria_profile_extract(t, 2, &p), -EINVAL);
        ck_assert_mem_eq(&p, &before, sizeof(p));
}
END_TEST

START_TEST(test_aria_profile_check_and_scale) {
        AriaProfile p = wiki;
        unsigned n = 7;

        ck_assert_int_eq(aria_profile_check(&wiki), 0);
        /* 71 maps of 59.85 MiB read 4249.35 MiB: exactly 71 tasks (the
         * division's rounding noise does not make it 72); a MiB more
         * needs a 72nd, no input still one. */
        ck_assert_int_eq(aria_profile_map_tasks(&wiki, 71 * 59.85 * MIB, &n), 0);
        ck_assert_uint_eq(n, 71);
        ck_assert_int_eq(aria_profile_map_tasks(&wiki, 71 * 59.85 * MIB + MIB, &n), 0);
        ck_assert_uint_eq(n, 72);
        ck_assert_int_eq(aria_profile_map_tasks(&wiki, 0, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_int_eq(aria_profile_map_tasks(&wiki, -1, &n), -EINVAL);
        ck_assert_uint_eq(n, 1);

        p.map_avg = 0;
        ck_assert_int_eq(aria_profile_check(&p), -EINVAL);
        p = wiki;
        p.map_min = 150; /* above the average */
        ck_assert_int_eq(aria_profile_check(&p), -EINVAL);
        p = wiki;
        p.shtyp_max = 100; /* below the average */
        ck_assert_int_eq(aria_profile_check(&p), -EINVAL);
        p = wiki;
        p.reduce_selectivity = INFINITY;
        ck_assert_int_eq(aria_profile_check(&p), -EINVAL);
        ck_assert_int_eq(aria_profile_map_tasks(&p, 1, &n), -EINVAL);
}
END_TEST

START_TEST(test_aria_terms) {
        AriaTerms t;

        /* Eq. 9 for 71 maps, 64 reduces. Lower: a = 71 * 144 = 10224,
         * b = 64 * (121 + 16) = 8768, c = 12 - 121 = -109. */
        ck_assert_int_eq(aria_terms(&wiki, 71, 64, ARIA_LOWER, &t), 0);
        ck_assert_double_eq_tol(t.a, 10224, TOL);
        ck_assert_double_eq_tol(t.b, 8768, TOL);
        ck_assert_double_eq_tol(t.c, -109, TOL);
        /* Upper: a = 70 * 144 = 10080, b = 63 * 137 = 8631,
         * c = 186 + 20 - 121 + 152 + 33 = 270. */
        ck_assert_int_eq(aria_terms(&wiki, 71, 64, ARIA_UPPER, &t), 0);
        ck_assert_double_eq_tol(t.a, 10080, TOL);
        ck_assert_double_eq_tol(t.b, 8631, TOL);
        ck_assert_double_eq_tol(t.c, 270, TOL);
        /* Average: (10224 + 10080) / 2, (8768 + 8631) / 2, (-109 + 270) / 2. */
        ck_assert_int_eq(aria_terms(&wiki, 71, 64, ARIA_AVERAGE, &t), 0);
        ck_assert_double_eq_tol(t.a, 10152, TOL);
        ck_assert_double_eq_tol(t.b, 8699.5, TOL);
        ck_assert_double_eq_tol(t.c, 80.5, TOL);
        /* No reduces: the map stage alone; the upper bound keeps M_max. */
        ck_assert_int_eq(aria_terms(&wiki, 10, 0, ARIA_UPPER, &t), 0);
        ck_assert_double_eq_tol(t.a, 9 * 144, TOL);
        ck_assert_double_eq_tol(t.b, 0, TOL);
        ck_assert_double_eq_tol(t.c, 186, TOL);
        ck_assert_int_eq(aria_terms(&wiki, 0, 1, ARIA_LOWER, &t), -EINVAL);
        ck_assert_int_eq(aria_terms(&wiki, 1, 1, _ARIA_BOUND_MAX, &t), -EINVAL);
}
END_TEST

START_TEST(test_aria_estimate) {
        AriaEstimate e;
        AriaTerms t;

        /* Section 5.2's cluster: 64 map and 64 reduce slots.
         * Lower: map 71 * 144 / 64 = 159.75 (Eq. 1), first shuffle 12,
         * typical (64/64 - 1) * 121 = 0 (Eq. 3), reduce 64 * 16 / 64 = 16;
         * total 187.75 (Eq. 5). */
        ck_assert_int_eq(aria_estimate(&wiki, 71, 64, 64, 64, ARIA_LOWER, &e), 0);
        ck_assert_double_eq_tol(e.map, 159.75, TOL);
        ck_assert_double_eq_tol(e.first_shuffle, 12, TOL);
        ck_assert_double_eq_tol(e.shuffle, 0, TOL);
        ck_assert_double_eq_tol(e.reduce, 16, TOL);
        ck_assert_double_eq_tol(e.total, 187.75, TOL);
        /* Upper: map 70 * 144 / 64 + 186 = 343.5 (Eq. 2), first 20,
         * typical (63/64 - 1) * 121 + 152 = 150.109375 (Eq. 4), reduce
         * 63 * 16 / 64 + 33 = 48.75; total 562.359375 (Eq. 6). */
        ck_assert_int_eq(aria_estimate(&wiki, 71, 64, 64, 64, ARIA_UPPER, &e), 0);
        ck_assert_double_eq_tol(e.map, 343.5, TOL);
        ck_assert_double_eq_tol(e.first_shuffle, 20, TOL);
        ck_assert_double_eq_tol(e.shuffle, 150.109375, TOL);
        ck_assert_double_eq_tol(e.reduce, 48.75, TOL);
        ck_assert_double_eq_tol(e.total, 562.359375, TOL);
        /* Eq. 7 as section 5.1 means it: (187.75 + 562.359375) / 2. */
        ck_assert_int_eq(aria_estimate(&wiki, 71, 64, 64, 64, ARIA_AVERAGE, &e), 0);
        ck_assert_double_eq_tol(e.total, 375.0546875, TOL);

        /* Eq. 9's form gives the same times: a/S_M + b/S_R + c. */
        for (AriaBound b = 0; b < _ARIA_BOUND_MAX; b++) {
                ck_assert_int_eq(aria_terms(&wiki, 71, 64, b, &t), 0);
                ck_assert_int_eq(aria_estimate(&wiki, 71, 64, 30, 17, b, &e), 0);
                ck_assert_double_eq_tol(e.total, t.a / 30 + t.b / 17 + t.c, TOL);
        }

        /* More slots than tasks: the job uses one per task. Lower with 71
         * and 64: 144 + 12 + 0 + 16 = 172, the same with 100 and 100. */
        ck_assert_int_eq(aria_estimate(&wiki, 71, 64, 100, 100, ARIA_LOWER, &e), 0);
        ck_assert_double_eq_tol(e.total, 172, TOL);
        ck_assert_double_eq_tol(e.shuffle, 0, TOL);

        /* No reduces: the map stage alone, reduce slots unused. */
        ck_assert_int_eq(aria_estimate(&wiki, 10, 0, 5, 0, ARIA_UPPER, &e), 0);
        ck_assert_double_eq_tol(e.total, 9 * 144 / 5.0 + 186, TOL);
        ck_assert_double_eq_tol(e.first_shuffle + e.shuffle + e.reduce, 0, TOL);

        ck_assert_int_eq(aria_estimate(&wiki, 10, 1, 5, 0, ARIA_LOWER, &e), -EINVAL);
        ck_assert_int_eq(aria_estimate(&wiki, 10, 1, 0, 5, ARIA_LOWER, &e), -EINVAL);
}
END_TEST

START_TEST(test_aria_one_task) {
        /* One map and one reduce: M 10/12, first shuffle 2/3, typical 4/5,
         * reduce 6/7. Lower: 10 + 2 + (1/1 - 1) 4 + 6 = 18. Upper:
         * 0 + 12, 3, (0/1 - 1) 4 + 5 = 1, 0 + 7: 23. */
        const AriaProfile p = { .map_min = 8,
                                .map_avg = 10,
                                .map_max = 12,
                                .map_input = 1,
                                .sh1_avg = 2,
                                .sh1_max = 3,
                                .shtyp_avg = 4,
                                .shtyp_max = 5,
                                .reduce_avg = 6,
                                .reduce_max = 7 };
        AriaEstimate e;
        AriaAllocation al;

        ck_assert_int_eq(aria_estimate(&p, 1, 1, 1, 1, ARIA_LOWER, &e), 0);
        ck_assert_double_eq_tol(e.total, 18, TOL);
        ck_assert_int_eq(aria_estimate(&p, 1, 1, 1, 1, ARIA_UPPER, &e), 0);
        ck_assert_double_eq_tol(e.shuffle, 1, TOL);
        ck_assert_double_eq_tol(e.total, 23, TOL);

        /* Upper: a = b = 0, c = 23; Eq. 15 gives (0, 0), and a job with
         * tasks gets a slot for each kind. */
        ck_assert_int_eq(aria_min_slots(&p, 1, 1, 30, UINT_MAX, UINT_MAX, ARIA_UPPER, &al), 0);
        ck_assert_int_eq(al.verdict, ARIA_MET);
        ck_assert_uint_eq(al.map_slots, 1);
        ck_assert_uint_eq(al.reduce_slots, 1);
        ck_assert_double_eq_tol(al.map_exact, 0, TOL);
        ck_assert_double_eq_tol(al.time, 23, TOL);
        /* 20 s: the constant 23 alone exceeds it. */
        ck_assert_int_eq(aria_min_slots(&p, 1, 1, 20, UINT_MAX, UINT_MAX, ARIA_UPPER, &al), 0);
        ck_assert_int_eq(al.verdict, ARIA_CONSTANT_EXCEEDS);
        /* Lower, 17 s: c = -2 leaves 19 s, but the one task of each kind
         * takes 10 + 10 - 2 = 18 > 17. */
        ck_assert_int_eq(aria_min_slots(&p, 1, 1, 17, UINT_MAX, UINT_MAX, ARIA_LOWER, &al), 0);
        ck_assert_int_eq(al.verdict, ARIA_TOO_FEW_TASKS);
        ck_assert_uint_eq(al.map_slots, 1);
        ck_assert_uint_eq(al.reduce_slots, 1);
        ck_assert_double_eq_tol(al.time, 18, TOL);
}
END_TEST

/* Fig. 5's lower bound for a 240 s SLO on section 5.2's cluster (71 maps,
 * 64 reduces, 64 + 64 slots). From test_aria_terms: a = 10224, b = 8768,
 * c = -109, so D = 240 + 109 = 349. Eq. 15: sqrt(a) = 101.113797,
 * sqrt(b) = 93.637599, sqrt(a) (sqrt(a) + sqrt(b)) = a + sqrt(ab) =
 * 10224 + 9468.053232 = 19692.053232, and b + sqrt(ab) = 18236.053232:
 * m = 19692.053232 / 349 = 56.424221, r = 18236.053232 / 349 = 52.252302,
 * rounded up (57, 53), which take 10224/57 + 8768/53 - 109 = 235.802383 s.
 * The paper prints (41, 21): see sim/profiles/wikitrends.ini. */
START_TEST(test_aria_min_slots_fig5) {
        AriaAllocation al;

        ck_assert_int_eq(aria_min_slots(&wiki, 71, 64, 240, 64, 64, ARIA_LOWER, &al), 0);
        ck_assert_int_eq(al.verdict, ARIA_MET);
        ck_assert_double_eq_tol(al.map_exact, 56.424221, 1e-5);
        ck_assert_double_eq_tol(al.reduce_exact, 52.252302, 1e-5);
        ck_assert_uint_eq(al.map_slots, 57);
        ck_assert_uint_eq(al.reduce_slots, 53);
        ck_assert_double_eq_tol(al.time, 235.802383, 1e-5);

        /* Average, 240 s: c = 80.5 leaves 159.5 s, but even 71 and 64 slots
         * take 10152/71 + 8699.5/64 + 80.5 = 359.415603 s. */
        ck_assert_int_eq(aria_min_slots(&wiki, 71, 64, 240, 64, 64, ARIA_AVERAGE, &al), 0);
        ck_assert_int_eq(al.verdict, ARIA_TOO_FEW_TASKS);
        ck_assert_uint_eq(al.map_slots, 64);
        ck_assert_uint_eq(al.reduce_slots, 64);
        /* Average, 360 s: one slot per task would do (359.415603 s), but the
         * cluster's 64 map slots for 71 maps take 10152/64 + 8699.5/64 +
         * 80.5 = 375.0546875 s. */
        ck_assert_int_eq(aria_min_slots(&wiki, 71, 64, 360, 64, 64, ARIA_AVERAGE, &al), 0);
        ck_assert_int_eq(al.verdict, ARIA_TOO_FEW_SLOTS);
        ck_assert_uint_eq(al.map_slots, 64);
        ck_assert_uint_eq(al.reduce_slots, 64);
        ck_assert_double_eq_tol(al.time, 375.0546875, TOL);
        /* Without the cluster's limit it is met. */
        ck_assert_int_eq(aria_min_slots(&wiki, 71, 64, 360, UINT_MAX, UINT_MAX, ARIA_AVERAGE, &al),
                         0);
        ck_assert_int_eq(al.verdict, ARIA_MET);
        /* Upper, 240 s: c = 270 >= 240. */
        ck_assert_int_eq(aria_min_slots(&wiki, 71, 64, 240, 64, 64, ARIA_UPPER, &al), 0);
        ck_assert_int_eq(al.verdict, ARIA_CONSTANT_EXCEEDS);
        ck_assert_double_eq_tol(al.map_exact, 0, TOL);
}
END_TEST

/* The reading of Table 1 (shuffle rows swapped): a = 10224,
 * b = 64 (12 + 16) = 1792, c = 121 - 12 = 109, D = 240 - 109 = 131;
 * sqrt(ab) = sqrt(18321408) = 4280.351, m = (10224 + 4280.351) / 131 =
 * 110.720240, r = (1792 + 4280.351) / 131 = 46.353827: the (111, 47) the
 * issue computes. No run of 71 maps can use 111 map slots: one slot per task
 * takes 10224/71 + 1792/64 + 109 = 144 + 28 + 109 = 281 s > 240 s. */
START_TEST(test_aria_min_slots_swapped_reading) {
        const AriaProfile p = wiki_swapped();
        AriaAllocation al;
        char why[256];

        ck_assert_int_eq(aria_min_slots(&p, 71, 64, 240, 64, 64, ARIA_LOWER, &al), 0);
        ck_assert_double_eq_tol(al.map_exact, 110.720240, 1e-5);
        ck_assert_double_eq_tol(al.reduce_exact, 46.353827, 1e-5);
        ck_assert_uint_eq(slo_ceil(al.map_exact), 111);
        ck_assert_uint_eq(slo_ceil(al.reduce_exact), 47);
        ck_assert_int_eq(al.verdict, ARIA_TOO_FEW_TASKS);
        aria_allocation_explain(&al, 71, 64, 240, why, sizeof(why));
        ck_assert_str_eq(why, "even one slot per task (71 map, 64 reduce) takes 281.0s, past the "
                              "deadline of 240.0s");

        /* 300 s: D = 191, m = 14504.351 / 191 = 75.939 > 64 map slots, so
         * m = 64 and r = b / (D - a/64) = 1792 / (191 - 159.75) = 57.344,
         * rounded up (64, 58): 159.75 + 1792/58 + 109 = 299.646552 s. */
        ck_assert_int_eq(aria_min_slots(&p, 71, 64, 300, 64, 64, ARIA_LOWER, &al), 0);
        ck_assert_int_eq(al.verdict, ARIA_MET);
        ck_assert_double_eq_tol(al.map_exact, 75.939012, 1e-5);
        ck_assert_uint_eq(al.map_slots, 64);
        ck_assert_uint_eq(al.reduce_slots, 58);
        ck_assert_double_eq_tol(al.time, 299.646552, 1e-5);
}
END_TEST

START_TEST(test_aria_min_slots_edges) {
        /* 100 maps of 1 s, 2 reduces of 50 s, no shuffle: lower a = 100,
         * b = 100, c = 0. 60 s: Eq. 15 gives m = r = 10 (10 + 10) / 60 =
         * 3.33, more reduces than the 2 there are: r = 2 and m = a / (60 -
         * 100/2) = 10 exactly, met in 10 + 50 = 60 s. */
        const AriaProfile p = { .map_min = 1,
                                .map_avg = 1,
                                .map_max = 1,
                                .map_input = 1,
                                .reduce_avg = 50,
                                .reduce_max = 50 };
        AriaAllocation al;
        char why[256];

        ck_assert_int_eq(aria_min_slots(&p, 100, 2, 60, UINT_MAX, UINT_MAX, ARIA_LOWER, &al), 0);
        ck_assert_int_eq(al.verdict, ARIA_MET);
        ck_assert_double_eq_tol(al.reduce_exact, 10 * 20 / 60.0, TOL);
        ck_assert_uint_eq(al.map_slots, 10);
        ck_assert_uint_eq(al.reduce_slots, 2);
        ck_assert_double_eq_tol(al.time, 60, TOL);
        aria_allocation_explain(&al, 100, 2, 60, why, sizeof(why));
        ck_assert_str_eq(why, "");

        /* No reduces: m = a / D = 100 / 25 = 4 exactly, no reduce slot. */
        ck_assert_int_eq(aria_min_slots(&p, 100, 0, 25, UINT_MAX, UINT_MAX, ARIA_LOWER, &al), 0);
        ck_assert_int_eq(al.verdict, ARIA_MET);
        ck_assert_uint_eq(al.map_slots, 4);
        ck_assert_uint_eq(al.reduce_slots, 0);
        ck_assert_double_eq_tol(al.time, 25, TOL);

        /* A deadline already passed, or now. */
        ck_assert_int_eq(aria_min_slots(&p, 100, 2, 0, 40, 40, ARIA_LOWER, &al), 0);
        ck_assert_int_eq(al.verdict, ARIA_DEADLINE_PASSED);
        ck_assert_int_eq(aria_min_slots(&p, 100, 2, -5, 40, 40, ARIA_LOWER, &al), 0);
        ck_assert_int_eq(al.verdict, ARIA_DEADLINE_PASSED);
        /* It gets all it can use: 40 map slots, its 2 reduces. */
        ck_assert_uint_eq(al.map_slots, 40);
        ck_assert_uint_eq(al.reduce_slots, 2);
        aria_allocation_explain(&al, 100, 2, -5, why, sizeof(why));
        ck_assert_str_eq(why, "the deadline has passed");

        /* No free slot in the cluster. */
        ck_assert_int_eq(aria_min_slots(&p, 100, 2, 600, 0, 5, ARIA_LOWER, &al), 0);
        ck_assert_int_eq(al.verdict, ARIA_TOO_FEW_SLOTS);
        ck_assert_double_eq(al.time, INFINITY);
        ck_assert_int_eq(aria_min_slots(&p, 100, 2, 600, 5, 0, ARIA_LOWER, &al), 0);
        ck_assert_int_eq(al.verdict, ARIA_TOO_FEW_SLOTS);

        ck_assert_int_eq(aria_min_slots(&p, 100, 2, NAN, 5, 5, ARIA_LOWER, &al), -EINVAL);
        ck_assert_int_eq(aria_min_slots(&p, 100, 2, INFINITY, 5, 5, ARIA_LOWER, &al), -EINVAL);
        ck_assert_int_eq(aria_min_slots(&p, 0, 2, 60, 5, 5, ARIA_LOWER, &al), -EINVAL);
}
END_TEST

/* Eq. 9 with m and r slots of a job with nr reduces. */
static double terms_time(const AriaTerms *t, unsigned nr, unsigned m, unsigned r) {
        return t->a / m + (nr > 0 ? t->b / r : 0) + t->c;
}

START_TEST(test_aria_min_slots_meets_rounded_up) {
        /* Over a range of jobs and deadlines, a met allocation meets the
         * bound within the caps, and is Eq. 15's point (or the capped one)
         * rounded up: one slot fewer of each kind misses the deadline. */
        AriaAllocation al;

        for (unsigned nm = 1; nm <= 80; nm += 13)
                for (unsigned nr = 0; nr <= 40; nr += 7)
                        for (double t = 100; t <= 2000; t += 150)
                                for (AriaBound b = 0; b < _ARIA_BOUND_MAX; b++) {
                                        ck_assert_int_eq(
                                                aria_min_slots(&wiki, nm, nr, t, 48, 32, b, &al),
                                                0);
                                        if (al.verdict != ARIA_MET)
                                                continue;
                                        ck_assert(al.time <= t + TOL);
                                        ck_assert_uint_le(al.map_slots, MIN(nm, 48U));
                                        ck_assert_uint_le(al.reduce_slots, MIN(nr, 32U));
                                        if (al.map_slots > 1 && (nr == 0 || al.reduce_slots > 1))
                                                ck_assert(
                                                        terms_time(&al.terms, nr, al.map_slots - 1,
                                                                   al.reduce_slots - 1) > t - TOL);
                                }
}
END_TEST

/* ---- Deadline Constraint Scheduler ---- */

/* Section IV, first case: 975 MB in 16 maps on 3 virtual trackers of 2 map
 * and 2 reduce slots (6 + 6), f = 1, the slowest task 120 s (so c_m =
 * 120 / (975/16) s/MB and sigma c_m = 16 * 120 = 1920 s), 12 MB/s measured
 * (c_d = 1/12 s/MB, f sigma c_d = 81.25 s). The paper gives neither c_r nor
 * the job's reduce count. With the reduce phase taking R = f sigma c_r / v,
 * Eq. 1 gives n_m^min = ceil(1920 / (D - R - 81.25)): the printed 6 maps at
 * 600 s and 5 at 700 s hold exactly when 320 <= 518.75 - R < 384 and
 * 384 <= 618.75 - R < 480, i.e. for R in (138.75, 198.75]. The tests take
 * v = 6 and R = 160 s, then both ends of that interval and just past them. */
static DcsJob case1(double deadline, double reduce_phase) {
        return (DcsJob){
                .deadline = deadline,
                .input = 975,
                .filter_ratio = 1,
                .map_cost = 120 / (975 / 16.0),
                .reduce_cost = reduce_phase * 6 / 975,
                .transfer_cost = 1 / 12.0,
                .maps = 16,
                .reduces = 6,
        };
}

static unsigned case1_min_maps(double deadline, double reduce_phase) {
        DcsJob j = case1(deadline, reduce_phase);
        unsigned n = 0;

        ck_assert_int_eq(dcs_min_map_tasks(&j, 0, &n), 0);
        return n;
}

START_TEST(test_dcs_case1) {
        DcsJob j600 = case1(600, 160), j700 = case1(700, 160);
        double s_r_max;
        DcsTest t;

        /* 600 s: s_r^max = 600 - 160 - 81.25 = 358.75; n_m^min =
         * ceil(1920 / 358.75 = 5.35) = 6. The maps end at 1920/6 = 320;
         * n_r^min = ceil(960 / (600 - 81.25 - 320 = 198.75) = 4.83) = 5. */
        ck_assert_int_eq(dcs_reduce_start_max(&j600, &s_r_max), 0);
        ck_assert_double_eq_tol(s_r_max, 358.75, TOL);
        ck_assert_int_eq(dcs_test(&j600, 0, 6, 6, &t), 0);
        ck_assert_int_eq(t.verdict, DCS_SCHEDULABLE);
        ck_assert_uint_eq(t.min_maps, 6);
        ck_assert_double_eq_tol(t.map_end, 320, TOL);
        ck_assert_uint_eq(t.min_reduces, 5);
        /* 700 s: s_r^max = 458.75, ceil(4.19) = 5; maps end at 384,
         * n_r^min = ceil(960 / 234.75 = 4.09) = 5. */
        ck_assert_int_eq(dcs_test(&j700, 0, 6, 6, &t), 0);
        ck_assert_int_eq(t.verdict, DCS_SCHEDULABLE);
        ck_assert_uint_eq(t.min_maps, 5);
        ck_assert_double_eq_tol(t.map_end, 384, TOL);
        ck_assert_uint_eq(t.min_reduces, 5);

        /* The ends of R's interval: at 198.75, 1920 / 320 = 6 exactly. */
        ck_assert_uint_eq(case1_min_maps(600, 198.75), 6);
        ck_assert_uint_eq(case1_min_maps(700, 198.75), 5);
        ck_assert_uint_eq(case1_min_maps(600, 139), 6);
        ck_assert_uint_eq(case1_min_maps(700, 139), 5);
        /* Past them the printed pair breaks: 1920 / 319.75 = 6.005 -> 7,
         * and 1920 / 480 = 4 exactly. */
        ck_assert_uint_eq(case1_min_maps(600, 199), 7);
        ck_assert_uint_eq(case1_min_maps(700, 138.75), 4);
}
END_TEST

/* Section IV, second case: 2.9 GB (2969.6 MB) in 48 maps on 10 trackers
 * (20 + 20 slots), f = 1, 12 MB/s (f sigma c_d = 247.466667 s); printed:
 * 20 maps and 5 reduces at 680 s, 8 maps and 4 reduces at 1000 s. The paper
 * gives neither the physical cluster's task times, nor c_r, nor the reduce
 * count. A search over whole-second map and reduce task times and 1 to 20
 * reduces finds one set that gives all four printed numbers: maps of 74 s
 * (sigma c_m = 48 * 74 = 3552 s) and 5 reduces of 246 s (f sigma c_r =
 * 1230 s). This checks that the equations can give the printed figures,
 * not the figures themselves:
 * 680 s: s_r^max = 680 - 246 - 247.4667 = 186.5333, 3552 / 186.5333 =
 * 19.04 -> 20; maps end at 3552/20 = 177.6, n_r^min = ceil(1230 / (680 -
 * 247.4667 - 177.6 = 254.9333) = 4.82) = 5.
 * 1000 s: s_r^max = 506.5333, 3552 / 506.5333 = 7.01 -> 8; maps end at
 * 444, n_r^min = ceil(1230 / 308.5333 = 3.99) = 4. */
static DcsJob case2(double deadline) {
        return (DcsJob){
                .deadline = deadline,
                .input = 2969.6,
                .filter_ratio = 1,
                .map_cost = 74 * 48 / 2969.6,
                .reduce_cost = 246 * 5 / 2969.6,
                .transfer_cost = 1 / 12.0,
                .maps = 48,
                .reduces = 5,
        };
}

START_TEST(test_dcs_case2) {
        DcsJob j680 = case2(680), j1000 = case2(1000);
        DcsTest t;

        ck_assert_int_eq(dcs_test(&j680, 0, 20, 20, &t), 0);
        ck_assert_int_eq(t.verdict, DCS_SCHEDULABLE);
        ck_assert_double_eq_tol(t.reduce_start_max, 186.533333, 1e-5);
        ck_assert_uint_eq(t.min_maps, 20);
        ck_assert_double_eq_tol(t.map_end, 177.6, TOL);
        ck_assert_uint_eq(t.min_reduces, 5);
        ck_assert_int_eq(dcs_test(&j1000, 0, 20, 20, &t), 0);
        ck_assert_int_eq(t.verdict, DCS_SCHEDULABLE);
        ck_assert_uint_eq(t.min_maps, 8);
        ck_assert_double_eq_tol(t.map_end, 444, TOL);
        ck_assert_uint_eq(t.min_reduces, 4);
}
END_TEST

START_TEST(test_dcs_refusals) {
        DcsJob j = case1(600, 160);
        DcsTest t;
        char why[256];
        unsigned n = 99;

        /* 5 map slots free for n_m^min = 6. */
        ck_assert_int_eq(dcs_test(&j, 0, 5, 6, &t), 0);
        ck_assert_int_eq(t.verdict, DCS_TOO_FEW_MAP_SLOTS);
        dcs_test_explain(&j, &t, why, sizeof(why));
        ck_assert_str_eq(why, "it needs 6 map slots (n_m^min) and 5 are free");
        /* Its 6 reduces need 6 reduce slots at s_r^max. */
        ck_assert_int_eq(dcs_test(&j, 0, 6, 5, &t), 0);
        ck_assert_int_eq(t.verdict, DCS_TOO_FEW_REDUCE_SLOTS);
        dcs_test_explain(&j, &t, why, sizeof(why));
        ck_assert_str_eq(why, "its 6 reduce tasks need as many reduce slots at 358.8s (s_r^max) "
                              "and 5 are free");
        /* Submitted with the maps starting at 600 s or later: passed. */
        ck_assert_int_eq(dcs_test(&j, 600, 6, 6, &t), 0);
        ck_assert_int_eq(t.verdict, DCS_DEADLINE_PASSED);
        j.deadline = -1;
        ck_assert_int_eq(dcs_test(&j, 0, 6, 6, &t), 0);
        ck_assert_int_eq(t.verdict, DCS_DEADLINE_PASSED);
        j.deadline = 600;
        /* Maps starting at 358.75 = s_r^max have no time left. */
        ck_assert_int_eq(dcs_test(&j, 358.75, 6, 6, &t), 0);
        ck_assert_int_eq(t.verdict, DCS_NO_TIME_FOR_MAPS);
        ck_assert_int_eq(dcs_min_map_tasks(&j, 358.75, &n), -ETIME);
        ck_assert_uint_eq(n, 99);
        /* Maps starting at 300: ceil(1920 / 58.75 = 32.7) = 33 > 16 maps. */
        ck_assert_int_eq(dcs_test(&j, 300, 64, 64, &t), 0);
        ck_assert_int_eq(t.verdict, DCS_MORE_MAPS_THAN_TASKS);
        ck_assert_uint_eq(t.min_maps, 33);
        dcs_test_explain(&j, &t, why, sizeof(why));
        ck_assert_str_eq(why, "it needs 33 maps at once (n_m^min) but has 16 map tasks");

        /* Worst-case skew (II-B-1, Assumption 2) at 1200 s: s_r^max =
         * 1200 - 960 - 81.25 = 158.75, n_m^min = ceil(1920 / 158.75 =
         * 12.09) = 13; the maps end at 1920/13 = 147.69, n_r^min =
         * ceil(960 / (1200 - 81.25 - 147.69)) = ceil(0.99) = 1. */
        j = case1(1200, 160);
        j.worst_skew = true;
        ck_assert_int_eq(dcs_test(&j, 0, 16, 6, &t), 0);
        ck_assert_int_eq(t.verdict, DCS_SCHEDULABLE);
        ck_assert_double_eq_tol(t.reduce_start_max, 158.75, TOL);
        ck_assert_uint_eq(t.min_maps, 13);
        ck_assert_uint_eq(t.min_reduces, 1);
        /* At 600 s the skewed reduce alone (960 s) outlasts the deadline. */
        j.deadline = 600;
        ck_assert_int_eq(dcs_test(&j, 0, 16, 6, &t), 0);
        ck_assert_int_eq(t.verdict, DCS_NO_TIME_FOR_MAPS);
        dcs_test_explain(&j, &t, why, sizeof(why));
        ck_assert_str_eq(why, "the reduce and transfer costs use the whole deadline: the reduces "
                              "would have to start by -441.2s (s_r^max), before the maps can");
}
END_TEST

START_TEST(test_dcs_edges) {
        /* One map of 64 MB at 1 s/MB, f = 0.5, one reduce at 1 s/MB, free
         * transfer. 100 s: s_r^max = 100 - 32 = 68, ceil(64 / 68) = 1. 90 s:
         * s_r^max = 58, ceil(64 / 58) = 2, more than its one map. */
        DcsJob j = { .deadline = 100,
                     .input = 64,
                     .filter_ratio = 0.5,
                     .map_cost = 1,
                     .reduce_cost = 1,
                     .maps = 1,
                     .reduces = 1 };
        unsigned n = 99;
        DcsTest t;

        ck_assert_int_eq(dcs_test(&j, 0, 1, 1, &t), 0);
        ck_assert_int_eq(t.verdict, DCS_SCHEDULABLE);
        ck_assert_uint_eq(t.min_maps, 1);
        ck_assert_uint_eq(t.min_reduces, 1);
        j.deadline = 90;
        ck_assert_int_eq(dcs_test(&j, 0, 1, 1, &t), 0);
        ck_assert_int_eq(t.verdict, DCS_MORE_MAPS_THAN_TASKS);

        /* Reduces that start when only the transfer fits: none suffices. */
        ck_assert_int_eq(dcs_min_reduce_tasks(&j, 90, &n), -ETIME);
        ck_assert_uint_eq(n, 99);

        /* No reduces: s_r^max is the deadline itself, no reduce slot needed;
         * ceil(64 / 90) = 1. */
        j.reduces = 0;
        ck_assert_int_eq(dcs_test(&j, 0, 1, 0, &t), 0);
        ck_assert_int_eq(t.verdict, DCS_SCHEDULABLE);
        ck_assert_double_eq_tol(t.reduce_start_max, 90, TOL);
        ck_assert_uint_eq(t.min_maps, 1);
        ck_assert_uint_eq(t.min_reduces, 0);

        /* Free maps still need a slot. */
        j.map_cost = 0;
        ck_assert_int_eq(dcs_min_map_tasks(&j, 0, &n), 0);
        ck_assert_uint_eq(n, 1);

        /* Bad numbers. */
        j.input = 0;
        ck_assert_int_eq(dcs_test(&j, 0, 1, 1, &t), -EINVAL);
        j.input = 64;
        j.filter_ratio = NAN;
        ck_assert_int_eq(dcs_test(&j, 0, 1, 1, &t), -EINVAL);
        j.filter_ratio = 0.5;
        j.maps = 0;
        ck_assert_int_eq(dcs_test(&j, 0, 1, 1, &t), -EINVAL);
        j.maps = 1;
        ck_assert_int_eq(dcs_test(&j, INFINITY, 1, 1, &t), -EINVAL);
}
END_TEST

/* ---- profile file ---- */

static const char good_profile[] = "[map]\n"
                                   "min = 94s\n"
                                   "avg = 144s\n"
                                   "max = 3.1min\n"
                                   "input = 59.85M\n"
                                   "selectivity = 10.07\n"
                                   "[shuffle]\n"
                                   "first_avg = 12s\n"
                                   "first_max = 20s\n"
                                   "typical_avg = 121s\n"
                                   "typical_max = 152s\n"
                                   "[reduce]\n"
                                   "avg = 16s\n"
                                   "max = 33s\n"
                                   "selectivity = 0.37\n";

START_TEST(test_profile_parse) {
        AriaProfile p;
        char err[256] = "";
        int r = profile_parse("p.ini", good_profile, &p, err, sizeof(err));

        ck_assert_msg(r == 0, "%s", err);
        ck_assert_double_eq_tol(p.map_min, 94, TOL);
        ck_assert_double_eq_tol(p.map_max, 186, TOL);
        ck_assert_double_eq_tol(p.map_input, 62757274, 1); /* 59.85 * 2^20, rounded */
        ck_assert_double_eq_tol(p.map_selectivity, 10.07, TOL);
        ck_assert_double_eq_tol(p.shtyp_max, 152, TOL);
        ck_assert_double_eq_tol(p.reduce_selectivity, 0.37, TOL);
        ck_assert_int_eq(aria_profile_check(&p), 0);
}
END_TEST

/* The shipped profile is Table 1's row as wiki has it. */
START_TEST(test_profile_shipped) {
        AriaProfile p;
        char err[256] = "";
        int r = profile_load(test_srcdir_path("sim/profiles/wikitrends.ini"), &p, err, sizeof(err));

        ck_assert_msg(r == 0, "%s", err);
        ck_assert_double_eq_tol(p.map_avg, wiki.map_avg, TOL);
        ck_assert_double_eq_tol(p.sh1_avg, wiki.sh1_avg, TOL);
        ck_assert_double_eq_tol(p.shtyp_avg, wiki.shtyp_avg, TOL);
        ck_assert_double_eq_tol(p.map_input, wiki.map_input, 1);
        ck_assert_double_eq_tol(p.reduce_max, wiki.reduce_max, TOL);
}
END_TEST

static const struct {
        const char *from, *to, *error;
} bad_profiles[] = {
        { "min = 94s", "min = fast", "p.ini:2: [map] min: invalid duration 'fast'" },
        { "avg = 144s", "avg = 0", "p.ini:3: [map] avg: a map task takes some time" },
        { "min = 94s", "min = 150s", "p.ini:2: [map] min: 150s is above avg, 144s" },
        { "typical_avg = 121s", "typical_avg = 160s",
          "p.ini:10: [shuffle] typical_avg: 160s is above typical_max, 152s" },
        { "max = 33s", "max = 10s", "p.ini:13: [reduce] avg: 16s is above max, 10s" },
        { "selectivity = 0.37", "selectivity = -1",
          "p.ini:15: [reduce] selectivity: value '-1' out of range" },
        { "input = 59.85M", "input = 0", "p.ini:5: [map] input: value '0' out of range" },
        { "first_max = 20s\n", "", "p.ini: [shuffle] first_max: required key is missing" },
        { "[reduce]", "[reduse]", "p.ini:12: [reduse]" },
        { "avg = 16s", "avg = 16s\navg = 17s", "p.ini:14: [reduce] avg:" },
        { "max = 33s", "max = 33s\nspeed = 1", "p.ini:15: [reduce] speed: unknown key" },
};

START_TEST(test_profile_bad) {
        const AriaProfile before = wiki;
        AriaProfile p = wiki;
        char text[1024], err[256] = "";
        const char *at = strstr(good_profile, bad_profiles[_i].from);
        size_t head;

        ck_assert_ptr_nonnull(at);
        head = (size_t)(at - good_profile);
        snprintf(text, sizeof(text), "%.*s%s%s", (int)head, good_profile, bad_profiles[_i].to,
                 at + strlen(bad_profiles[_i].from));
        ck_assert_int_eq(profile_parse("p.ini", text, &p, err, sizeof(err)), -EINVAL);
        ck_assert_msg(strncmp(err, bad_profiles[_i].error, strlen(bad_profiles[_i].error)) == 0,
                      "got '%s', expected '%s...'", err, bad_profiles[_i].error);
        ck_assert_mem_eq(&p, &before, sizeof(p));
}
END_TEST

Suite *suite_slo_models(void) {
        Suite *s = suite_create("slo_models");
        TCase *tc;

        tc = tcase_create("aria");
        tcase_add_test(tc, test_slo_ceil);
        tcase_add_test(tc, test_aria_extract);
        tcase_add_test(tc, test_aria_extract_bad);
        tcase_add_test(tc, test_aria_profile_check_and_scale);
        tcase_add_test(tc, test_aria_terms);
        tcase_add_test(tc, test_aria_estimate);
        tcase_add_test(tc, test_aria_one_task);
        tcase_add_test(tc, test_aria_min_slots_fig5);
        tcase_add_test(tc, test_aria_min_slots_swapped_reading);
        tcase_add_test(tc, test_aria_min_slots_edges);
        tcase_add_test(tc, test_aria_min_slots_meets_rounded_up);
        suite_add_tcase(s, tc);

        tc = tcase_create("dcs");
        tcase_add_test(tc, test_dcs_case1);
        tcase_add_test(tc, test_dcs_case2);
        tcase_add_test(tc, test_dcs_refusals);
        tcase_add_test(tc, test_dcs_edges);
        suite_add_tcase(s, tc);

        tc = tcase_create("profile");
        tcase_add_test(tc, test_profile_parse);
        tcase_add_test(tc, test_profile_shipped);
        tcase_add_loop_test(tc, test_profile_bad, 0, (int)ELEMENTSOF(bad_profiles));
        suite_add_tcase(s, tc);
        return s;
}

/* SPDX-License-Identifier: MIT */
/* What sim/README.md claims the model shows of DynamicMR's Figs. 9, 10 and
 * 12 and of its FIFO runs, on the testbed of sim/scenarios/dmr.ini with
 * workloads/dynamicmr.csv, in every one of the experiments' seeds. Where
 * the model disagrees with the paper, the test holds what the model shows;
 * a change of the model that changes a result has to change the claim with
 * it. The runs are small ones of the experiments' cells: single jobs and
 * a batch of five, each a fraction of a second. */
#include <math.h>
#include <stdio.h>

#include "common/macro.h"
#include "sim/experiment-internal.h"
#include "sim/experiment.h"
#include "sim/report.h"
#include "sim/workload.h"
#include "tests.h"

/* One cell of the dmr-* experiments: benchmark under sets (NULL-ended),
 * once per seed. */
static void dmr_cell(const char *benchmark, const char *const *sets, Cell *ret) {
        const Experiment *e = experiment_find("dmr-fig12");
        ExperimentOptions opt = { .scenario_dir = test_srcdir_path("sim/scenarios") };
        Variant v = { .label = "claim" };

        ck_assert_ptr_nonnull(e);
        *ret = (Cell){ 0 };
        for (size_t i = 0; sets[i]; i++) {
                ck_assert_uint_lt(i, MAX_VARIANT_SETS);
                v.sets[i] = sets[i];
        }
        ck_assert_int_eq(run_cell(e, &v, benchmark, &opt, ret), 0);
        ck_assert_uint_gt(ret->n, 2);
}

static double locality(const RunSummary *s) {
        return (double)s->local_maps / s->maps;
}

/* The paper runs DynamicMR under FIFO too (3.5, Fig. 13): there as under
 * Fair, PI-DHSA lends the idle reduce slots of a 1/11 node to maps. */
START_TEST(test_fifo_pi_dhsa_beats_stock_at_1_11) {
        Cell stock, pi;

        dmr_cell("wordcount",
                 (const char *const[]){ "policy.scheduler=fifo", "hadoop.map_slots=1",
                                        "hadoop.reduce_slots=11", NULL },
                 &stock);
        dmr_cell("wordcount",
                 (const char *const[]){ "policy.scheduler=fifo", "hadoop.map_slots=1",
                                        "hadoop.reduce_slots=11", "policy.dhsa=pi", NULL },
                 &pi);
        for (size_t k = 0; k < stock.n; k++) {
                ck_assert_uint_gt(pi.runs[k].borrowed, 0);
                ck_assert_double_lt(pi.runs[k].makespan, stock.runs[k].makespan / 1.5);
        }
}
END_TEST

/* Fig. 10: with delay scheduling and the load manager on, PreScheduling
 * runs a small sort's maps where their splits are, in every seed at least
 * as many as without it (16 maps on 54 map slots: the load manager leaves
 * most slots idle); with 160 maps every node's slots are allowed and it
 * changes nothing. */
START_TEST(test_fig10_prescheduling_locality) {
        static const char *const scales[] = { "workload.scale=0.05", "workload.scale=0.5" };
        Cell without[2], with[2];

        for (size_t r = 0; r < 2; r++) {
                dmr_cell("sort",
                         (const char *const[]){ scales[r], "policy.load_balance=yes", NULL },
                         &without[r]);
                dmr_cell("sort",
                         (const char *const[]){ scales[r], "policy.load_balance=yes",
                                                "policy.prescheduling=yes", NULL },
                         &with[r]);
        }
        for (size_t k = 0; k < with[0].n; k++) {
                ck_assert_double_ge(locality(&with[0].runs[k]), locality(&without[0].runs[k]));
                ck_assert_double_eq(locality(&with[1].runs[k]), locality(&without[1].runs[k]));
        }
        ck_assert_double_gt(cell_figure(&with[0], locality).mean,
                            cell_figure(&without[0], locality).mean + 0.02);
}
END_TEST

/* Mean over the workload's nine benchmarks of PreScheduling's speedup
 * (time without over time with) on jobs of `blocks` blocks of input, per
 * seed, with network set; each benchmark's speedup within `flat` of 1 if
 * flat > 0. */
static size_t fig11_speedups(const Workload *wl, double blocks, const char *network, double flat,
                             double ret[MAX_SEEDS]) {
        size_t n = 0;

        for (size_t k = 0; k < MAX_SEEDS; k++)
                ret[k] = 0;
        ck_assert_uint_eq(wl->n_benchmarks, 9);
        for (size_t b = 0; b < wl->n_benchmarks; b++) {
                const Benchmark *bench = &wl->benchmarks[b];
                char scale[48];
                Cell without, with;

                snprintf(scale, sizeof(scale), "workload.scale=%g",
                         blocks * 64 * 1024 * 1024 / bench->input_bytes);
                dmr_cell(bench->name,
                         (const char *const[]){ scale, network, "policy.load_balance=yes", NULL },
                         &without);
                dmr_cell(bench->name,
                         (const char *const[]){ scale, network, "policy.load_balance=yes",
                                                "policy.prescheduling=yes", NULL },
                         &with);
                n = with.n;
                for (size_t k = 0; k < with.n; k++) {
                        double speedup = without.runs[k].makespan / with.runs[k].makespan;

                        if (flat > 0)
                                ck_assert_double_lt(fabs(speedup - 1), flat);
                        ret[k] += speedup / (double)wl->n_benchmarks;
                }
        }
        return n;
}

/* Fig. 11 as the model shows it: PreScheduling makes jobs of 16 blocks of
 * input faster on average over the nine benchmarks, in every seed (the
 * paper: 1-9 % faster each); with 160 blocks, where it places no map
 * differently, it changes no benchmark's time by 3 %. Part of the gain is
 * its locality: a remote map reads the replica holder's disk over the
 * network, and on a 0.1 Gbps network (12 MB/s) that costs more, so there
 * PreScheduling gains more than on dmr.ini's assumed 1 Gbps. */
START_TEST(test_fig11_prescheduling_speedup) {
        double gbit[MAX_SEEDS], slow[MAX_SEEDS], large[MAX_SEEDS];
        char err[512] = "";
        Workload wl;
        size_t n;

        ck_assert_msg(workload_load(test_srcdir_path("sim/workloads/dynamicmr.csv"), &wl, err,
                                    sizeof(err)) == 0,
                      "%s", err);
        n = fig11_speedups(&wl, 16, "cluster.network_bandwidth=119M", 0, gbit);
        ck_assert_uint_eq(fig11_speedups(&wl, 16, "cluster.network_bandwidth=12M", 0, slow), n);
        ck_assert_uint_eq(fig11_speedups(&wl, 160, "cluster.network_bandwidth=119M", 0.03, large),
                          n);
        for (size_t k = 0; k < n; k++) {
                ck_assert_double_gt(gbit[k], 1.0);
                ck_assert_double_gt(slow[k], gbit[k]);
        }
        workload_done(&wl);
}
END_TEST

/* Fig. 9 as the model shows it: on dmr.ini's equal machines SEPB's share
 * of jobs checked for pending tasks moves a batch's makespan by under 3 %
 * either way (the paper: 3-10 % faster at 0.6-1 than at 0). SEPB never
 * reserves a slot here, but its layer acts: it kills hopeless maps. */
START_TEST(test_fig9_sepb_share_matters_little) {
        static const char *const batch = "sort,wordcount,grep,inverted-index,classification";
        Cell none, all;
        unsigned kills = 0;

        dmr_cell(batch,
                 (const char *const[]){ "policy.speculation=sepb", "policy.jobs_checked=0", NULL },
                 &none);
        dmr_cell(batch,
                 (const char *const[]){ "policy.speculation=sepb", "policy.jobs_checked=1", NULL },
                 &all);
        for (size_t k = 0; k < all.n; k++) {
                ck_assert_double_lt(fabs(none.runs[k].makespan / all.runs[k].makespan - 1), 0.03);
                ck_assert_uint_eq(all.runs[k].reservations, 0);
                kills += all.runs[k].retry_kills;
        }
        ck_assert_uint_gt(kills, all.n);
}
END_TEST

/* Fig. 12 as the model shows it: DynamicMR (PI-DHSA, SEPB, PreScheduling
 * at 6/6) is a few percent faster than stock at sort's best configuration,
 * 6/6, but slower than stock at wordcount's, 9/3 (the paper: 46-115 %
 * faster than stock at its best for every benchmark). */
START_TEST(test_fig12_dynamicmr_against_best_stock) {
        static const char *const dynamicmr[] = { "policy.dhsa=pi", "policy.load_balance=yes",
                                                 "policy.prescheduling=yes",
                                                 "policy.speculation=sepb", NULL };
        Cell sort_stock, sort_dmr, wc_stock, wc_dmr;

        dmr_cell("sort", (const char *const[]){ NULL }, &sort_stock);
        dmr_cell("sort", dynamicmr, &sort_dmr);
        dmr_cell("wordcount",
                 (const char *const[]){ "hadoop.map_slots=9", "hadoop.reduce_slots=3", NULL },
                 &wc_stock);
        dmr_cell("wordcount", dynamicmr, &wc_dmr);
        for (size_t k = 0; k < sort_stock.n; k++) {
                ck_assert_double_lt(sort_dmr.runs[k].makespan, sort_stock.runs[k].makespan);
                ck_assert_double_gt(sort_dmr.runs[k].makespan, sort_stock.runs[k].makespan / 1.1);
                ck_assert_double_gt(wc_dmr.runs[k].makespan, wc_stock.runs[k].makespan);
        }
}
END_TEST

Suite *suite_dmr_claims(void) {
        Suite *s = suite_create("dmr_claims");
        TCase *tc = tcase_create("paper");

        /* A few dozen small runs: seconds, longer under the sanitizers. */
        tcase_set_timeout(tc, 300);
        tcase_add_test(tc, test_fifo_pi_dhsa_beats_stock_at_1_11);
        tcase_add_test(tc, test_fig10_prescheduling_locality);
        tcase_add_test(tc, test_fig11_prescheduling_speedup);
        tcase_add_test(tc, test_fig9_sepb_share_matters_little);
        tcase_add_test(tc, test_fig12_dynamicmr_against_best_stock);
        suite_add_tcase(s, tc);
        return s;
}

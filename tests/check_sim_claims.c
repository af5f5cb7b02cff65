/* SPDX-License-Identifier: MIT */
/* What sim/README.md claims the model shows, at the paper's size, over
 * three seeds: on the testbed of sim/scenarios/fig10.ini with the shipped
 * PUMA workload. Where the model disagrees with the paper, the test holds
 * what the model shows; a change of the model that changes a result has to
 * change the claim with it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/macro.h"
#include "sim/report.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "sim/workload.h"
#include "sim-test.h"
#include "tests.h"

#define SEEDS 3
#define MAX_SETS 8

/* The runs the claims are about, each once per seed. */
typedef enum Setting {
        HOMO,           /* stock Hadoop, static 2-pCPU nodes */
        DRS,            /* stock Hadoop under DRS as it runs by default */
        DRS_FAST,       /* DRS dividing every 3 s by the last 3 s of use */
        DRS_FAST_READY, /* the same counting ready time as demand */
        FLEXSLOT,       /* the paper's FlexSlot under DRS */
        NO_COMBINER,    /* stock under DRS, wordcount's combiner taken out */
        II_HOMO,        /* inverted-index: stock on the static cluster */
        II_DRS,         /* inverted-index: stock under DRS */
        II_FLEXSLOT,    /* inverted-index: FlexSlot under DRS */
        EQUAL,          /* stock Hadoop, no DRS: equal per-host shares, no caps */
        FS_ALLOC,       /* FlexSlot with flexslot's VM allocator, through the agent's limits */
        KM_ALLOC,       /* k-means: the same */
        KM_CRIT,        /* k-means: the same with critical_first */
        KM_UNL,         /* k-means: fs+alloc with V-F's unlimited slots */
        GREP_ALLOC,     /* grep: FlexSlot with flexslot's VM allocator */
        GREP_UNL,       /* grep: the same with V-F's unlimited slots */
        CO_STOCK,       /* Fig. 11: stock beside a co-running cluster, both under DRS */
        CO_FLEXSLOT,    /* Fig. 11: FlexSlot beside it */
        _SETTING_MAX,
} Setting;

static const char *const settings[_SETTING_MAX][MAX_SETS] = {
        [HOMO] = { "drs.enabled=no", "cluster.vm_cap=2" },
        [DRS] = { NULL },
        [DRS_FAST] = { "drs.period=3s", "drs.window=3s", "drs.sample=1s" },
        [DRS_FAST_READY] = { "drs.period=3s", "drs.window=3s", "drs.sample=1s", "drs.ready=yes" },
        [FLEXSLOT] = { "policy.slot_manager=flexslot" },
        [NO_COMBINER] = { "workload.combine_ratio=1" },
        [II_HOMO] = { "workload.jobs=inverted-index", "drs.enabled=no", "cluster.vm_cap=2" },
        [II_DRS] = { "workload.jobs=inverted-index" },
        [II_FLEXSLOT] = { "workload.jobs=inverted-index", "policy.slot_manager=flexslot" },
        [EQUAL] = { "drs.enabled=no" },
        [FS_ALLOC] = { "drs.enabled=no", "policy.apply_vm_targets=yes",
                       "policy.slot_manager=flexslot", "policy.allocator=flexslot" },
        [KM_ALLOC] = { "workload.jobs=k-means", "drs.enabled=no", "policy.apply_vm_targets=yes",
                       "policy.slot_manager=flexslot", "policy.allocator=flexslot" },
        [KM_CRIT] = { "workload.jobs=k-means", "drs.enabled=no", "policy.apply_vm_targets=yes",
                      "policy.slot_manager=flexslot", "policy.allocator=flexslot",
                      "policy.critical_first=yes" },
        [KM_UNL] = { "workload.jobs=k-means", "drs.enabled=no", "policy.apply_vm_targets=yes",
                     "policy.slot_manager=flexslot", "policy.allocator=flexslot",
                     "policy.unlimited_slots=yes" },
        [GREP_ALLOC] = { "workload.jobs=grep", "drs.enabled=no", "policy.apply_vm_targets=yes",
                         "policy.slot_manager=flexslot", "policy.allocator=flexslot" },
        [GREP_UNL] = { "workload.jobs=grep", "drs.enabled=no", "policy.apply_vm_targets=yes",
                       "policy.slot_manager=flexslot", "policy.allocator=flexslot",
                       "policy.unlimited_slots=yes" },
        [CO_STOCK] = { NULL },
        [CO_FLEXSLOT] = { "policy.slot_manager=flexslot" },
};

static const char *scenario_of(Setting s) {
        return s == CO_STOCK || s == CO_FLEXSLOT ? "sim/scenarios/fig11.ini"
                                                 : "sim/scenarios/fig10.ini";
}

static RunSummary runs[_SETTING_MAX][SEEDS];

static void run_setting(Setting s, int64_t seed, RunSummary *ret) {
        SimTestRun run;

        sim_test_run(scenario_of(s), settings[s], MAX_SETS, seed, &run);
        ck_assert_int_eq(run_summarize(sim_results(run.sim), ret), 0);
        sim_test_done(&run);
}

/* Every run once, before the tests (which fork from here). */
static void runs_setup(void) {
        for (Setting s = 0; s < _SETTING_MAX; s++)
                for (int64_t k = 0; k < SEEDS; k++)
                        run_setting(s, k + 1, &runs[s][k]);
}

static double maps_ratio(const RunSummary *r) {
        return (double)r->node_maps_max / MAX(r->node_maps_min, 1u);
}

static double mean_of(Setting s, double (*fn)(const RunSummary *)) {
        double sum = 0;

        for (size_t k = 0; k < SEEDS; k++)
                sum += fn(&runs[s][k]);
        return sum / SEEDS;
}

/* The mean over the seeds of a's completion time over b's in the same
 * seed. */
static double mean_jct_ratio(Setting a, Setting b) {
        double sum = 0;

        for (size_t k = 0; k < SEEDS; k++)
                sum += runs[a][k].jct / runs[b][k].jct;
        return sum / SEEDS;
}

static double skew_of(const RunSummary *r) {
        return r->map_skewness;
}

static double jct_of(const RunSummary *r) {
        return r->jct;
}

/* Fig. 3, 4 and 6 as the model shows them under DRS as it runs by default
 * (5 minutes of use, divided in proportion): no hot spots and no starved
 * stragglers beyond those of the static cluster, against the paper's 10x
 * and steal-dominated stragglers. */
START_TEST(test_default_drs_is_like_the_static_cluster) {
        ck_assert_double_lt(mean_of(DRS, maps_ratio), 1.4);
        ck_assert_double_lt(fabs(mean_of(DRS, maps_ratio) - mean_of(HOMO, maps_ratio)), 0.15);
        ck_assert_double_lt(
                fabs(mean_of(DRS, run_slow_steal_share) - mean_of(HOMO, run_slow_steal_share)),
                0.05);
        ck_assert_double_lt(fabs(mean_of(DRS, skew_of) - mean_of(HOMO, skew_of)), 0.3);
        for (size_t k = 0; k < SEEDS; k++) {
                /* The stragglers' largest part is their CPU, not steal. */
                ck_assert_double_gt(runs[DRS][k].slow_cpu, runs[DRS][k].slow_steal);
                ck_assert_double_lt(fabs(runs[DRS][k].jct / runs[HOMO][k].jct - 1), 0.05);
        }
}
END_TEST

/* The paper's loop is in the model, with an estimator that follows the
 * last 3 s of use: hot spots, starved stragglers and a long tail of map
 * times (Fig. 3, 4 and 6's direction); counting ready time as demand, as
 * VMware defines it, takes them away again. */
START_TEST(test_fast_use_only_drs_makes_hot_spots) {
        ck_assert_double_gt(mean_of(DRS_FAST, maps_ratio), 1.8);
        ck_assert_double_gt(mean_of(DRS_FAST, run_slow_steal_share),
                            mean_of(HOMO, run_slow_steal_share) + 0.15);
        ck_assert_double_gt(mean_of(DRS_FAST, skew_of), mean_of(HOMO, skew_of) + 2);
        for (size_t k = 0; k < SEEDS; k++)
                ck_assert_double_gt(runs[DRS_FAST][k].slow_steal, runs[DRS_FAST][k].slow_cpu);
        ck_assert_double_lt(mean_of(DRS_FAST_READY, maps_ratio), 1.4);
        ck_assert_double_lt(fabs(mean_of(DRS_FAST_READY, run_slow_steal_share) -
                                 mean_of(HOMO, run_slow_steal_share)),
                            0.05);
}
END_TEST

/* Fig. 10 as the model shows it: the paper's FlexSlot is not faster than
 * stock Hadoop under DRS (the paper: 0.73 for wordcount, 0.65 for
 * inverted-index); on inverted-index it is slower in every seed. */
START_TEST(test_flexslot_does_not_beat_stock) {
        for (size_t k = 0; k < SEEDS; k++) {
                ck_assert_double_gt(runs[FLEXSLOT][k].jct / runs[DRS][k].jct, 0.98);
                ck_assert_double_gt(runs[II_FLEXSLOT][k].jct / runs[II_DRS][k].jct, 1.02);
        }
}
END_TEST

/* Fig. 9 as the model shows it: FlexSlot raises inverted-index's mean map
 * steal against stock under DRS (the paper: -60.5 %) and changes its I/O
 * wait against stock on the static cluster by far less than the paper's
 * -39.7 %. */
START_TEST(test_fig9_flexslot_steal_and_io) {
        for (size_t k = 0; k < SEEDS; k++) {
                ck_assert_double_gt(runs[II_FLEXSLOT][k].steal, runs[II_DRS][k].steal);
                ck_assert_double_gt(runs[II_FLEXSLOT][k].iowait / runs[II_HOMO][k].iowait, 0.85);
        }
}
END_TEST

/* fs+alloc's gain over stock under DRS (Fig. 10) is DRS's limits removed:
 * stock on the same VMs with equal shares and no caps takes the same time. */
START_TEST(test_flexslot_allocator_gain_is_drs_removed) {
        for (size_t k = 0; k < SEEDS; k++) {
                ck_assert_double_lt(runs[FS_ALLOC][k].jct / runs[DRS][k].jct, 0.96);
                ck_assert_double_lt(fabs(runs[FS_ALLOC][k].jct / runs[EQUAL][k].jct - 1), 0.02);
        }
}
END_TEST

/* Algorithm 2 measures steal again only after DRS divided the pool again
 * (every 5 minutes): FlexSlot changes at most two nodes' slots (one move)
 * per period on inverted-index, where its slot moves act (before it
 * waited, 66 changes a run). */
START_TEST(test_flexslot_moves_once_per_drs_period) {
        for (size_t k = 0; k < SEEDS; k++) {
                const RunSummary *r = &runs[II_FLEXSLOT][k];

                ck_assert_uint_gt(r->slot_changes, 0);
                ck_assert_double_le(r->slot_changes, 2 * ceil(r->jct / 300));
        }
}
END_TEST

/* Beside a co-running cluster (Fig. 11) FlexSlot gives a node a slot only
 * where the host has a pCPU idle counting both clusters' VMs: on wordcount
 * it moves at most one pair of slots a run and takes stock's time within
 * 2 % (before the co-running cluster's VMs counted: 1.20 of stock). */
START_TEST(test_flexslot_beside_a_co_running_cluster) {
        for (size_t k = 0; k < SEEDS; k++) {
                ck_assert_uint_le(runs[CO_FLEXSLOT][k].slot_changes, 2);
                ck_assert_double_lt(runs[CO_FLEXSLOT][k].jct / runs[CO_STOCK][k].jct, 1.02);
        }
}
END_TEST

/* Our allocator brings wordcount within 8 % of its bound (stock under DRS:
 * 12 %), and what is left is mostly pCPUs no thread wanted: the hosts idled
 * for at least 60 % of the time the job is above its bound. On k-means,
 * most of that time is the last wave of maps and the reduces after them. */
START_TEST(test_allocator_gap_is_idle_cpu) {
        for (size_t k = 0; k < SEEDS; k++) {
                const RunSummary *wc = &runs[FS_ALLOC][k], *km = &runs[KM_ALLOC][k];
                double wc_gap = wc->jct - wc->bound.value, km_gap = km->jct - km->bound.value;

                ck_assert_double_lt(run_bound_ratio(wc), 1.08);
                ck_assert_double_gt(wc->idle_early + wc->idle_last_wave + wc->idle_tail,
                                    0.6 * wc_gap);
                ck_assert_double_gt(km->idle_last_wave + km->idle_tail, 0.5 * km_gap);
        }
}
END_TEST

/* Handing a contended host's CPU first to the VMs of the attempts that
 * bound completion makes k-means slower over the seeds: a VM's weight
 * speeds all its tasks alike. Not in every seed since the allocator's dead
 * band (vm_target_margin, vm_target_interval): 1.052, 0.985 and 1.035 of
 * fs+alloc in seeds 1-3, where every seed was slower before (1.024, 1.017,
 * 1.016). */
START_TEST(test_critical_first_slows_k_means) {
        ck_assert_double_gt(mean_jct_ratio(KM_CRIT, KM_ALLOC), 1.01);
}
END_TEST

/* What no division of a host's CPU gives back, more tasks can: with V-F's
 * unlimited slots our allocator's grep, whose maps wait on I/O, is faster
 * in every seed (2 % of its 6 % above the bound); k-means, CPU-bound, is
 * slower over the seeds (1.056, 0.978 and 1.038 of fs+alloc in seeds 1-3
 * since the allocator's dead band; before it slower in every seed). */
START_TEST(test_unlimited_slots_fill_idle_cpu) {
        for (size_t k = 0; k < SEEDS; k++)
                ck_assert_double_lt(runs[GREP_UNL][k].jct, runs[GREP_ALLOC][k].jct);
        ck_assert_double_gt(mean_jct_ratio(KM_UNL, KM_ALLOC), 1.01);
}
END_TEST

/* With its combiner and Hadoop's overlapped shuffle and merges, wordcount
 * spends under 5 % of its time after its last map and runs within 20 % of
 * its lower bound: little is left for any policy. Without the combiner
 * the reduce tail is back (the model before Hadoop's map and reduce sides
 * had 43 %) and the job takes half as long again. */
START_TEST(test_wordcount_near_its_bound) {
        for (size_t k = 0; k < SEEDS; k++) {
                ck_assert_double_lt(runs[DRS][k].tail_share, 0.05);
                ck_assert_double_lt(run_bound_ratio(&runs[DRS][k]), 1.2);
                ck_assert_double_gt(runs[NO_COMBINER][k].tail_share, 0.15);
        }
        ck_assert_double_gt(mean_of(NO_COMBINER, jct_of), 1.5 * mean_of(DRS, jct_of));
}
END_TEST

Suite *suite_sim_claims(void) {
        Suite *s = suite_create("sim_claims");
        TCase *tc = tcase_create("paper");

        /* 54 runs at the paper's size: seconds, a minute under the
         * sanitizers. */
        tcase_set_timeout(tc, 600);
        tcase_add_unchecked_fixture(tc, runs_setup, NULL);
        tcase_add_test(tc, test_default_drs_is_like_the_static_cluster);
        tcase_add_test(tc, test_fast_use_only_drs_makes_hot_spots);
        tcase_add_test(tc, test_flexslot_does_not_beat_stock);
        tcase_add_test(tc, test_fig9_flexslot_steal_and_io);
        tcase_add_test(tc, test_flexslot_allocator_gain_is_drs_removed);
        tcase_add_test(tc, test_wordcount_near_its_bound);
        tcase_add_test(tc, test_flexslot_moves_once_per_drs_period);
        tcase_add_test(tc, test_flexslot_beside_a_co_running_cluster);
        tcase_add_test(tc, test_allocator_gap_is_idle_cpu);
        tcase_add_test(tc, test_critical_first_slows_k_means);
        tcase_add_test(tc, test_unlimited_slots_fill_idle_cpu);
        suite_add_tcase(s, tc);
        return s;
}

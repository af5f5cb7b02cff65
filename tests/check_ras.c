/* SPDX-License-Identifier: MIT */
/* RAS's utility of a job's slots (ras-utility.h, Eq. 2 and 3), its
 * Placement Algorithm (ras-place.h) on hand-made jobs and trackers,
 * and the `ras` scheduler (sched-ras.c) on snapshots: no tracker's CPU, I/O
 * or memory is ever exceeded, reduces spread before maps, the job of lowest
 * utility gains first and a job gives up slots only while it stays above
 * it, and the Task Scheduler starts only what the placement and the
 * node's capacity allow. The utilities are worked out by hand from Eq. 2
 * and 3 in the comments. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/policy.h"
#include "policy/layers/ras-place.h"
#include "policy/layers/ras-utility.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "sim/workload.h"
#include "tests.h"
#include "check_policy.h"

#define MAX_CELLS 64
#define TOL 1e-6

/* ---- the utility of a job's slots (ras-utility.h) ---- */

START_TEST(test_ras_required_slots) {
        unsigned n = 99;

        /* 35 pending maps of 60 s by a goal 150 s away: 35 * 60 / 150 = 14
         * exactly; 100 s away: 21. */
        ck_assert_int_eq(ras_required_slots(35, 60, 0, 150, &n), 0);
        ck_assert_uint_eq(n, 14);
        ck_assert_int_eq(ras_required_slots(35, 60, 1000, 1100, &n), 0);
        ck_assert_uint_eq(n, 21);
        /* A far goal still wants one; past or no goal: all of them. */
        ck_assert_int_eq(ras_required_slots(3, 10, 0, 1e6, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_int_eq(ras_required_slots(35, 60, 200, 150, &n), 0);
        ck_assert_uint_eq(n, 35);
        ck_assert_int_eq(ras_required_slots(35, 60, 150, 150, &n), 0);
        ck_assert_uint_eq(n, 35);
        ck_assert_int_eq(ras_required_slots(35, 60, 0, INFINITY, &n), 0);
        ck_assert_uint_eq(n, 35);
        /* A goal 1 s away for 35 maps of 60 s: 2100, capped at 35. */
        ck_assert_int_eq(ras_required_slots(35, 60, 0, 1, &n), 0);
        ck_assert_uint_eq(n, 35);
        ck_assert_int_eq(ras_required_slots(0, 60, 0, 100, &n), 0);
        ck_assert_uint_eq(n, 0);

        n = 99;
        ck_assert_int_eq(ras_required_slots(35, 0, 0, 150, &n), -EINVAL);
        ck_assert_int_eq(ras_required_slots(35, NAN, 0, 150, &n), -EINVAL);
        ck_assert_int_eq(ras_required_slots(35, 60, 0, NAN, &n), -EINVAL);
        ck_assert_uint_eq(n, 99);
}
END_TEST

START_TEST(test_ras_utility) {
        /* Fig. 2's job: s_req = 20, s_pend = 35, r_pend = 10. */
        ck_assert_double_eq_tol(ras_utility(20, 20, 35, 10, 10), 0, TOL);
        ck_assert_double_eq_tol(ras_utility(35, 20, 35, 10, 10), 1, TOL);
        /* (26 - 20) / (35 - 20) = 0.4 */
        ck_assert_double_eq_tol(ras_utility_map(26, 20, 35), 0.4, TOL);
        /* log 10 / log 20 - 1 = 2.302585 / 2.995732 - 1 = -0.231378 */
        ck_assert_double_eq_tol(ras_utility_map(10, 20, 35), -0.231378, 1e-6);
        /* log 5 / log 10 - 1 = -0.301030 */
        ck_assert_double_eq_tol(ras_utility_reduce(5, 10), -0.301030, 1e-6);
        ck_assert_double_eq_tol(ras_utility(10, 20, 35, 5, 10), -0.532408, 1e-6);
        /* One slot: log 1 = 0, so -1 for either kind. */
        ck_assert_double_eq_tol(ras_utility_map(1, 20, 35), -1, TOL);
        ck_assert_double_eq_tol(ras_utility_reduce(1, 10), -1, TOL);

        /* No map slot: -infinity; no reduce slot: the range's -1. */
        ck_assert_double_eq(ras_utility_map(0, 20, 35), -INFINITY);
        ck_assert_double_eq(ras_utility_map(0, 1, 35), -INFINITY);
        ck_assert_double_eq_tol(ras_utility_reduce(0, 10), -1, TOL);
        ck_assert_double_eq_tol(ras_utility_reduce(0, 1), -1, TOL);
        /* Nothing pending: satisfied. */
        ck_assert_double_eq_tol(ras_utility_reduce(0, 0), 0, TOL);
        ck_assert_double_eq_tol(ras_utility_map(0, 0, 0), 1, TOL);
        /* s_pend = s_req: every pending map has its slot. */
        ck_assert_double_eq_tol(ras_utility_map(5, 5, 5), 1, TOL);
        /* More slots than pending maps: 20/15 = 1.33, capped at 1. */
        ck_assert_double_eq_tol(ras_utility_map(40, 20, 35), 20.0 / 15, TOL);
        ck_assert_double_eq_tol(ras_utility(40, 20, 35, 10, 10), 1, TOL);
        /* ... but a missing reduce still counts: 1.33 - 0.30 = 1.03 -> 1,
         * 1.33 - 1 = 0.33. */
        ck_assert_double_eq_tol(ras_utility(40, 20, 35, 5, 10), 1, TOL);
        ck_assert_double_eq_tol(ras_utility(40, 20, 35, 0, 10), 20.0 / 15 - 1, TOL);
        /* More reduce slots than pending reduces. */
        ck_assert_double_eq_tol(ras_utility_reduce(12, 10), 0, TOL);
}
END_TEST

START_TEST(test_ras_utility_monotonic) {
        /* Eq. 2 grows with the allocation and is 0 exactly at s_req. */
        for (unsigned req = 1; req <= 30; req++)
                for (unsigned pend = req; pend <= 40; pend += 3) {
                        double prev = -INFINITY;

                        ck_assert_double_eq_tol(ras_utility_map(req, req, pend), pend > req ? 0 : 1,
                                                TOL);
                        for (unsigned a = 1; a <= pend; a++) {
                                double u = ras_utility_map(a, req, pend);
                                ck_assert(u > prev);
                                ck_assert(u <= 1 + TOL);
                                prev = u;
                        }
                }
}
END_TEST

/* ---- the Placement Algorithm ---- */

/* A tracker of 2 CPUs, 100 units of I/O and 1000 of memory, which the
 * demands below are shares of, and up to slots job slots of each type. */
static RasTracker tracker(unsigned slots) {
        return (RasTracker){ .capacity = { .cpu = 2, .io = 100, .memory = 1000 },
                             .slots = { slots, slots } };
}

static RasJob job(double cpu, double io, uint64_t memory, unsigned s_req, unsigned s_pend,
                  unsigned r_pend) {
        return (RasJob){ .map = { .cpu = cpu, .io = io, .memory = memory },
                         .reduce = { .cpu = cpu, .io = io, .memory = memory },
                         .shuffle = { .memory = memory },
                         .s_req = s_req,
                         .s_pend = s_pend,
                         .r_pend = r_pend };
}

static unsigned map_cells[MAX_CELLS], reduce_cells[MAX_CELLS];
static RasPlacement p = { map_cells, reduce_cells };

static void placement_clear(void) {
        memset(map_cells, 0, sizeof(map_cells));
        memset(reduce_cells, 0, sizeof(reduce_cells));
}

static unsigned job_maps(size_t j, size_t n_trackers) {
        unsigned n = 0;

        for (size_t t = 0; t < n_trackers; t++)
                n += map_cells[j * n_trackers + t];
        return n;
}

static void check_within(const RasJob *jobs, size_t n_jobs, const RasTracker *tt, size_t n_tt) {
        static const Resources none;

        for (size_t t = 0; t < n_tt; t++) {
                Resources use = ras_tracker_use(jobs, n_jobs, n_tt, &p, t);
                ck_assert_msg(ras_fits(&use, &none, 0, &tt[t].capacity),
                              "tracker %zu: cpu %g io %g memory %" PRIu64, t, use.cpu, use.io,
                              use.memory);
        }
}

/* Three jobs of different bottlenecks on three trackers: the placement
 * stays within every resource of every tracker, and no job that wants a
 * map has room left anywhere (the greedy fill of lines 20-23). CPU-bound
 * A (0.5 CPU): 4 fit a tracker; I/O-bound B (40 I/O): 2; memory-bound C
 * (300): 3; each a reduce of its own profile first. */
START_TEST(test_ras_place_within_capacity) {
        RasTracker tt[3] = { tracker(16), tracker(16), tracker(16) };
        RasJob jobs[3] = { job(0.5, 5, 50, 1, 20, 1), job(0.1, 40, 50, 1, 20, 1),
                           job(0.1, 5, 300, 1, 20, 1) };
        double u[3];

        placement_clear();
        ck_assert_int_eq(ras_place(jobs, 3, tt, 3, 10, &p, u), 0);
        check_within(jobs, 3, tt, 3);
        for (size_t j = 0; j < 3; j++) {
                Resources use;
                ck_assert_uint_lt(job_maps(j, 3), jobs[j].s_pend);
                for (size_t t = 0; t < 3; t++) {
                        use = ras_tracker_use(jobs, 3, 3, &p, t);
                        ck_assert(!ras_fits(&use, &jobs[j].map, 1, &tt[t].capacity));
                }
                ck_assert(isfinite(u[j]));
        }
}
END_TEST

/* Reduces first and spread: 2 jobs of 2 reduces on 2 trackers get one of
 * each job on each tracker (no two of a job together), and a reduce
 * already running on tracker 0 sends the next one to tracker 1. The
 * memory is 450 a reduce: two fit a tracker, and the maps (100 each) fill
 * only what the reduces leave. */
START_TEST(test_ras_place_reduces_first) {
        RasTracker tt[2] = { tracker(8), tracker(8) };
        RasJob jobs[2] = { job(0.1, 1, 450, 1, 4, 2), job(0.1, 1, 450, 1, 4, 2) };
        RasJob one[1] = { job(0.1, 1, 450, 1, 0, 2) };

        jobs[0].map.memory = jobs[1].map.memory = 100;
        placement_clear();
        ck_assert_int_eq(ras_place(jobs, 2, tt, 2, 3, &p, NULL), 0);
        for (size_t j = 0; j < 2; j++)
                for (size_t t = 0; t < 2; t++)
                        ck_assert_uint_eq(reduce_cells[j * 2 + t], 1);
        /* 1000 - 2 x 450 leaves one map of 100 per tracker. */
        ck_assert_uint_eq(map_cells[0] + map_cells[1] + map_cells[2] + map_cells[3], 2);
        check_within(jobs, 2, tt, 2);

        placement_clear();
        reduce_cells[0] = 1; /* running on tracker 0 */
        ck_assert_int_eq(ras_place(one, 1, tt, 2, 3, &p, NULL), 0);
        ck_assert_uint_eq(reduce_cells[0], 1);
        ck_assert_uint_eq(reduce_cells[1], 1);

        /* Another job's reduce on tracker 0 counts too: the first criterion
         * is all the reduces of a tracker. */
        placement_clear();
        reduce_cells[0] = 1; /* job 0's, running on tracker 0 */
        jobs[0].r_pend = 1;
        jobs[1].r_pend = 1;
        jobs[0].s_pend = jobs[1].s_pend = 0;
        ck_assert_int_eq(ras_place(jobs, 2, tt, 2, 3, &p, NULL), 0);
        ck_assert_uint_eq(reduce_cells[2], 0);
        ck_assert_uint_eq(reduce_cells[3], 1);
}
END_TEST

/* The lowest utility is raised first, and a job gives up a slot only while
 * it stays above the job it goes to. One tracker holds 4 maps (CPU 0.5
 * each); A runs 4 of its 10 (s_req 1), B has 5 and none running. u_B =
 * -inf, so one of A's slots goes: u_A(3) = 2/9 > -inf. Round 2: u_B(1) =
 * (1-1)/(5-1) = 0 is lowest, and u_A(2) = 1/9 > 0, so another goes: u_B(2)
 * = 1/4. Round 3: A (1/9) is lowest, but u_B(1) = 0 < 1/9: nothing moves.
 * One round stops at A 3, B 1; a third that took B's slot for A would
 * undo the second. */
START_TEST(test_ras_place_lowest_utility_first) {
        RasTracker tt[1] = { tracker(8) };
        RasJob jobs[2] = { job(0.5, 1, 10, 1, 10, 0), job(0.5, 1, 10, 1, 5, 0) };
        double u[2];

        placement_clear();
        map_cells[0] = 4;
        ck_assert_int_eq(ras_place(jobs, 2, tt, 1, 1, &p, u), 0);
        ck_assert_uint_eq(map_cells[0], 3);
        ck_assert_uint_eq(map_cells[1], 1);

        placement_clear();
        map_cells[0] = 4;
        ck_assert_int_eq(ras_place(jobs, 2, tt, 1, 3, &p, u), 0);
        ck_assert_uint_eq(map_cells[0], 2);
        ck_assert_uint_eq(map_cells[1], 2);
        ck_assert_double_eq_tol(u[0], 1.0 / 9, 1e-12);
        ck_assert_double_eq_tol(u[1], 1.0 / 4, 1e-12);
}
END_TEST

/* A new slot goes to the least satisfied job that fits: with room for one
 * map, C (none running, u = -inf) gets it before D (2 running). */
START_TEST(test_ras_place_fill_lowest) {
        RasTracker tt[1] = { tracker(8) };
        RasJob jobs[2] = { job(0.5, 1, 10, 1, 10, 0), job(0.5, 1, 10, 1, 10, 0) };

        placement_clear();
        map_cells[0] = 3; /* D's, index 0 */
        ck_assert_int_eq(ras_place(jobs, 2, tt, 1, 1, &p, NULL), 0);
        ck_assert_uint_eq(map_cells[0], 3);
        ck_assert_uint_eq(map_cells[1], 1);
}
END_TEST

/* Table 2's shuffle I/O is per map of the job placed: with a shuffling
 * reduce of 4 I/O per map on tracker 1 (which takes no map: no CPU), the
 * job's maps on tracker 0 stop at 25, where the reduce's tracker is full
 * (4 x 25 = 100), below the 40 tracker 0's CPU would take. */
START_TEST(test_ras_place_shuffle_io) {
        RasTracker tt[2] = { tracker(64), tracker(64) };
        RasJob jobs[1] = { job(0.05, 1, 10, 1, 60, 1) };

        tt[1].capacity.cpu = 0;
        jobs[0].shuffle = (Resources){ .io = 4, .memory = 10 };
        jobs[0].map.io = 0;
        placement_clear();
        reduce_cells[1] = 1;
        ck_assert_int_eq(ras_place(jobs, 1, tt, 2, 3, &p, NULL), 0);
        ck_assert_uint_eq(map_cells[0], 25);
        ck_assert_uint_eq(map_cells[1], 0);
        check_within(jobs, 1, tt, 2);
}
END_TEST

/* ... up to parallelCopies maps (Table 2's upper bound, 3.6): a reduce
 * fetching from 5 maps at once uses 20 I/O however many more are placed,
 * so tracker 0's CPU binds first, at 40 maps. */
START_TEST(test_ras_place_parallel_copies) {
        RasTracker tt[2] = { tracker(64), tracker(64) };
        RasJob jobs[1] = { job(0.05, 1, 10, 1, 60, 1) };
        Resources use;

        tt[1].capacity.cpu = 0;
        jobs[0].shuffle = (Resources){ .io = 4, .memory = 10 };
        jobs[0].map.io = 0;
        jobs[0].parallel_copies = 5;
        placement_clear();
        reduce_cells[1] = 1;
        ck_assert_int_eq(ras_place(jobs, 1, tt, 2, 3, &p, NULL), 0);
        ck_assert_uint_eq(map_cells[0], 40);
        use = ras_tracker_use(jobs, 1, 2, &p, 1);
        ck_assert_double_eq_tol(use.io, 20, 1e-9);
        check_within(jobs, 1, tt, 2);
}
END_TEST

/* More running than unfinished is a caller's error, and nothing changes. */
START_TEST(test_ras_place_bad_input) {
        RasTracker tt[1] = { tracker(8) };
        RasJob jobs[1] = { job(0.5, 1, 10, 1, 2, 0) };

        placement_clear();
        map_cells[0] = 3;
        ck_assert_int_eq(ras_place(jobs, 1, tt, 1, 1, &p, NULL), -EINVAL);
        ck_assert_uint_eq(map_cells[0], 3);
}
END_TEST

/* s_req and u at their edges: a goal already passed wants every pending
 * map; one task needs one slot and is satisfied with it; a job without
 * reduces loses nothing for them (u^R = 0), one whose every map has a
 * slot has u = 1. */
START_TEST(test_ras_required_edges) {
        RasJob j = job(0.1, 1, 1, 0, 1, 0);
        unsigned n;

        ck_assert_int_eq(ras_required_slots(7, 30, 500, 400, &n), 0);
        ck_assert_uint_eq(n, 7);
        ck_assert_int_eq(ras_required_slots(1, 30, 0, 1000, &n), 0);
        ck_assert_uint_eq(n, 1);
        j.s_req = n;
        ck_assert(ras_job_utility(&j, 0, 0) == -INFINITY);
        ck_assert_double_eq(ras_job_utility(&j, 1, 0), 1.0);
        ck_assert_double_eq(ras_utility_reduce(0, 0), 0.0);
        /* 35 maps, s_req 20, 20 allocated, 10 reduces, 5 placed: u = 0 +
         * log 5 / log 10 - 1. */
        ck_assert_double_eq_tol(ras_utility(20, 20, 35, 5, 10), log(5) / log(10) - 1, 1e-12);
}
END_TEST

/* ---- the scheduler on snapshots ---- */

static uint32_t ras_job(unsigned maps, unsigned reduces, Resources map, Resources reduce) {
        uint32_t j = fx_job(1 * SEC, 0);

        for (unsigned i = 0; i < maps; i++)
                fx_map(j, NO_INDEX);
        for (unsigned i = 0; i < reduces; i++)
                fx_reduce(j);
        fx.jobs[j].counts[TASK_MAP].total = maps;
        fx.jobs[j].counts[TASK_REDUCE].total = reduces;
        fx.jobs[j].demand[TASK_MAP] = map;
        fx.jobs[j].demand[TASK_REDUCE] = reduce;
        fx.jobs[j].shuffle = (Resources){ .memory = reduce.memory };
        return j;
}

static unsigned assigned(uint32_t job, uint32_t node, TaskType type) {
        unsigned n = 0;

        for (size_t i = 0; i < fx.d.n_assignments; i++) {
                const Assignment *a = &fx.d.assignments[i];
                n += fx.tasks[a->task].job == job && a->node == node && a->type == type;
        }
        return n;
}

/* Two nodes of 2 CPUs and 2 GiB with 8 map slots: a CPU-heavy job (0.8
 * CPU a map: 2 fit) and a memory-heavy one (600 MiB: 3 fit) share them.
 * The assignments follow the placement, which the step gives as
 * Placement decisions, and no node runs more than its capacity: on each
 * node 0.8 x a + 0.1 x b <= 2 and 100 MiB x a + 600 MiB x b <= 2 GiB. */
START_TEST(test_ras_scheduler_capacity) {
        Resources cpu_map = { .cpu = 0.8, .io = 1, .memory = 100 * MIB };
        Resources mem_map = { .cpu = 0.1, .io = 1, .memory = 600 * MIB };
        uint32_t a, b;

        fx_cluster(2, 8, 2);
        for (unsigned n = 0; n < 2; n++)
                fx.nodes[n].capacity = (Resources){ .cpu = 2, .io = 100, .memory = 2 * GIB };
        fx.cfg.scheduler = "ras";
        a = ras_job(10, 0, cpu_map, cpu_map);
        b = ras_job(10, 0, mem_map, mem_map);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_gt(fx.d.n_placements, 0);
        for (size_t i = 0; i < fx.d.n_placements; i++) {
                const Placement *pl = &fx.d.placements[i];
                ck_assert_uint_eq(assigned(pl->job, pl->node, pl->type), pl->count);
        }
        for (uint32_t n = 0; n < 2; n++) {
                unsigned na = assigned(a, n, TASK_MAP), nb = assigned(b, n, TASK_MAP);
                ck_assert_uint_gt(na, 0);
                ck_assert_uint_gt(nb, 0);
                ck_assert(0.8 * na + 0.1 * nb <= 2 + 1e-9);
                ck_assert_uint_le(100 * MIB * na + 600 * MIB * nb, 2 * GIB);
        }
}
END_TEST

/* The Task Scheduler never overloads a node moving to a new placement: a
 * node already running 2 maps of the CPU-heavy job (1.6 CPU) gets no map
 * of another CPU-heavy job until they end, even though the new placement
 * gives the newcomer (u = -inf) a slot there; a reduce (memory only) still
 * starts. Nothing is killed. */
START_TEST(test_ras_scheduler_no_overload) {
        Resources cpu_map = { .cpu = 0.8, .io = 1, .memory = 100 * MIB };
        Resources reduce = { .cpu = 0, .io = 0, .memory = 100 * MIB };
        uint32_t a, b;

        fx_cluster(1, 8, 2);
        fx.nodes[0].capacity = (Resources){ .cpu = 2, .io = 100, .memory = 2 * GIB };
        fx.cfg.scheduler = "ras";
        a = ras_job(4, 0, cpu_map, cpu_map);
        fx_run(0, 0, 1 * SEC, 0);
        fx_run(1, 0, 1 * SEC, 0);
        fx.jobs[a].counts[TASK_MAP].running = 2;
        b = ras_job(4, 1, cpu_map, reduce);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_kills, 0);
        ck_assert_uint_eq(assigned(a, 0, TASK_MAP) + assigned(b, 0, TASK_MAP), 0);
        ck_assert_uint_eq(assigned(b, 0, TASK_REDUCE), 1);
}
END_TEST

/* A heartbeat fills only the job slots the placement has on its node: two
 * maps of 1 CPU fill node 0 (the fill visits it first), so node 1's
 * heartbeat starts none though it has the room; node 0's starts both. */
START_TEST(test_ras_scheduler_follows_placement) {
        Resources map = { .cpu = 1, .io = 1, .memory = 100 * MIB };
        _cleanup_(policy_freep) Policy *policy = NULL;
        PolicyStepArgs args = { .now = 10 * SEC,
                                .flags = POLICY_STEP_ASSIGN | POLICY_STEP_HEARTBEAT,
                                .node = 1 };
        uint32_t a;

        fx_cluster(2, 8, 2);
        for (unsigned n = 0; n < 2; n++)
                fx.nodes[n].capacity = (Resources){ .cpu = 2, .io = 100, .memory = 2 * GIB };
        fx.cfg.scheduler = "ras";
        a = ras_job(2, 0, map, map);
        ck_assert_int_eq(policy_new_named(&fx.cfg, NULL, &policy), 0);
        ck_assert_int_eq(policy_step(policy, &fx.s, &args, &fx.d), 0);
        ck_assert_uint_eq(fx.d.n_placements, 1);
        ck_assert_uint_eq(fx.d.placements[0].node, 0);
        ck_assert_uint_eq(fx.d.placements[0].count, 2);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
        args.node = 0;
        ck_assert_int_eq(policy_step(policy, &fx.s, &args, &fx.d), 0);
        ck_assert_uint_eq(assigned(a, 0, TASK_MAP), 2);
}
END_TEST

/* Between cycles the kept placement bounds each job on a node, even with
 * room to spare: A's 4 running maps (0.5 CPU each) fill the node when B
 * comes; the placement gives B two of A's slots (u_A(2) = log 2 / log 10
 * - 1 = -0.70 still above u_B(1) = -1, and then neither gains from the
 * other). When A's four end, within the cycle, the node starts A 2 and
 * B 2, not 4 of either. */
START_TEST(test_ras_scheduler_keeps_placement) {
        Resources map = { .cpu = 0.5, .io = 1, .memory = 100 * MIB };
        RasSettings *set;
        uint32_t a, b;

        fx_cluster(1, 8, 2);
        fx.nodes[0].capacity = (Resources){ .cpu = 2, .io = 100, .memory = 2 * GIB };
        fx.cfg.scheduler = "ras";
        set = policy_config_settings(&fx.cfg, &ras_settings_schema);
        set->ras_cycle = 3600 * SEC;
        a = ras_job(10, 0, map, map);
        for (uint32_t t = 0; t < 4; t++)
                fx_run(t, 0, 1 * SEC, 0);
        fx.jobs[a].counts[TASK_MAP].running = 4;
        b = ras_job(10, 0, map, map);
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
        for (uint32_t t = 0; t < 4; t++)
                fx_done(t);
        fx.s.n_attempts = 0;
        fx.jobs[a].counts[TASK_MAP].running = 0;
        fx.jobs[a].counts[TASK_MAP].done = 4;
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_ASSIGN, 20 * SEC), 0);
        ck_assert_uint_eq(assigned(a, 0, TASK_MAP), 2);
        ck_assert_uint_eq(assigned(b, 0, TASK_MAP), 2);
}
END_TEST

/* ---- the simulator's RAS inputs ---- */

#define WL_HEADER                                                                           \
        "name,input_gb,map_cpu_s_per_mb,map_output_ratio,reduce_cpu_s_per_mb,output_ratio," \
        "reduces,small_frac,large_frac,large_max_blocks,expensive_frac,expensive_cpu,"      \
        "expensive_output"
#define WL_ROW "a,1,0.1,1,0.1,1,1,0,0,1,0,1,1"

/* RAS's profile columns come all together or not at all, and a file with
 * them gives each benchmark its profile. */
START_TEST(test_ras_workload_profile) {
        Workload wl = { 0 };
        char err[256] = "";

        ck_assert_int_eq(workload_parse("w.csv", WL_HEADER ",ras_map_cpu\n" WL_ROW ",30\n", &wl,
                                        err, sizeof(err)),
                         -EINVAL);
        ck_assert_msg(strstr(err, "w.csv:1: header has 'ras_map_cpu' but not 'ras_map_io'"), "%s",
                      err);
        ck_assert_int_eq(workload_parse("w.csv", WL_HEADER "\n" WL_ROW "\n", &wl, err, sizeof(err)),
                         0);
        ck_assert(!wl.benchmarks[0].ras_profile);
        workload_done(&wl);
        ck_assert_int_eq(workload_parse("w.csv",
                                        WL_HEADER ",ras_map_cpu,ras_map_io,ras_map_memory,"
                                                  "ras_shuffle_io,ras_reduce_cpu,ras_reduce_io,"
                                                  "ras_reduce_memory\n" WL_ROW
                                                  ",30,45,25,0.15,20,50,60\n",
                                        &wl, err, sizeof(err)),
                         0);
        ck_assert(wl.benchmarks[0].ras_profile);
        ck_assert_double_eq(wl.benchmarks[0].ras_shuffle_io, 0.15);
        ck_assert_double_eq(wl.benchmarks[0].ras_reduce_memory, 60);
        workload_done(&wl);
}
END_TEST

static int ras_sim(const char *submit, char *err, size_t err_size, Sim **ret) {
        ScenarioOverride o[2];
        Scenario sc = { 0 };
        Workload wl = { 0 };
        size_t n = 0;
        int r;

        ck_assert_int_eq(scenario_override_parse("workload.jobs=sort-6,select-5", &o[n++]), 0);
        if (submit)
                ck_assert_int_eq(scenario_override_parse(submit, &o[n++]), 0);
        ck_assert_int_eq(
                scenario_load(test_srcdir_path("sim/scenarios/ras.ini"), o, n, &sc, err, err_size),
                0);
        ck_assert_int_eq(workload_load(sc.workload_file, &wl, err, err_size), 0);
        r = sim_new(&sc, &wl, ret, err, err_size);
        if (r >= 0)
                r = sim_run(*ret);
        workload_done(&wl);
        scenario_done(&sc);
        return r;
}

/* [workload] submit: one time per job, never before the job before it;
 * a job arrives at its time. */
START_TEST(test_ras_submit_times) {
        Sim *sim = NULL;
        char err[256] = "";

        ck_assert_int_eq(ras_sim("workload.submit=0,10s,20s", err, sizeof(err), &sim), -EINVAL);
        ck_assert_msg(strstr(err, "[workload] submit: one for each of the 2 jobs"), "%s", err);
        ck_assert_int_eq(ras_sim("workload.submit=10s,5s", err, sizeof(err), &sim), -EINVAL);
        ck_assert_msg(strstr(err, "'5s' comes before the job before it"), "%s", err);
        ck_assert_int_eq(ras_sim("workload.submit=0,soon", err, sizeof(err), &sim), -EINVAL);
        ck_assert_msg(strstr(err, "'soon' is neither a duration nor 0"), "%s", err);
        ck_assert_int_eq(ras_sim("workload.submit=0,300s", err, sizeof(err), &sim), 0);
        ck_assert_double_eq(sim_results(sim)->jobs[1].submitted, 300);
        ck_assert_double_gt(sim_results(sim)->jobs[1].finished, 300);
        sim_free(sim);
}
END_TEST

Suite *suite_ras(void) {
        Suite *s = suite_create("ras");
        TCase *tc = tcase_create("utility");

        tcase_add_test(tc, test_ras_required_slots);
        tcase_add_test(tc, test_ras_utility);
        tcase_add_test(tc, test_ras_utility_monotonic);
        suite_add_tcase(s, tc);

        tc = tcase_create("placement");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_ras_place_within_capacity);
        tcase_add_test(tc, test_ras_place_reduces_first);
        tcase_add_test(tc, test_ras_place_lowest_utility_first);
        tcase_add_test(tc, test_ras_place_fill_lowest);
        tcase_add_test(tc, test_ras_place_shuffle_io);
        tcase_add_test(tc, test_ras_place_parallel_copies);
        tcase_add_test(tc, test_ras_place_bad_input);
        tcase_add_test(tc, test_ras_required_edges);
        tcase_add_test(tc, test_ras_scheduler_capacity);
        tcase_add_test(tc, test_ras_scheduler_no_overload);
        tcase_add_test(tc, test_ras_scheduler_follows_placement);
        tcase_add_test(tc, test_ras_scheduler_keeps_placement);
        tcase_add_test(tc, test_ras_workload_profile);
        tcase_add_test(tc, test_ras_submit_times);
        suite_add_tcase(s, tc);
        return s;
}

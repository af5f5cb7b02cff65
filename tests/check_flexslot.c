/* SPDX-License-Identifier: MIT */
/* FlexSlot (policy/layers/flexslot.h): its pure pieces (the score, the
 * input speed, the bottleneck test, Algorithm 1's predicates and Algorithm
 * 2's planner), and its slot manager through policy_step(): straggler
 * detection, every branch of Algorithms 1 and 2, the unlimited variant and
 * re-placement. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/policy.h"
#include "policy/layers/flexslot.h"
#include "tests.h"
#include "check_policy.h"

/* ---- FlexSlot pieces ---- */

static FlexSlotSettings defaults(void) {
        FlexSlotSettings set;
        ConfError err;

        ck_assert_int_eq(conf_load_defaults(&flexslot_settings_schema, &set, &err), 0);
        return set;
}

START_TEST(test_score) {
        /* 64 MiB split at 8 MiB/s: P = (1 + 1/64) * 8. */
        ck_assert_double_eq(flexslot_score(64 * MIB, 8.0 * MIB), 8.125);
        ck_assert_double_eq(flexslot_score(1 * MIB, 2.0 * MIB), 4.0);
        ck_assert_double_eq(flexslot_score(0, 8.0 * MIB), 0);
}
END_TEST

START_TEST(test_input_speed) {
        Attempt a = { .started = 10 * USEC_PER_SEC, .bytes_processed = 40 * MIB };

        /* 40 MiB in 20 s. */
        ck_assert_double_eq(flexslot_input_speed(&a, 30 * USEC_PER_SEC, 10 * USEC_PER_SEC),
                            2.0 * MIB);
        /* Younger than min_age, or not started: not measured. */
        ck_assert_double_eq(flexslot_input_speed(&a, 15 * USEC_PER_SEC, 10 * USEC_PER_SEC), 0);
        ck_assert_double_eq(flexslot_input_speed(&a, 5 * USEC_PER_SEC, 0), 0);
}
END_TEST

static const Attempt *waiting(double iowait, double steal) {
        static Attempt a;

        a = (Attempt){ .iowait = iowait, .steal = steal };
        return &a;
}

/* The attempt's own shares of its run time decide. */
START_TEST(test_bottleneck) {
        FlexSlotSettings cfg = defaults();

        ck_assert_int_eq(flexslot_bottleneck(&cfg, waiting(0.5, 0.1)), BOTTLENECK_IO);
        ck_assert_int_eq(flexslot_bottleneck(&cfg, waiting(0.2, 0.2)), BOTTLENECK_IO);
        ck_assert_int_eq(flexslot_bottleneck(&cfg, waiting(0.3, 0.4)), BOTTLENECK_CPU);
        ck_assert_int_eq(flexslot_bottleneck(&cfg, waiting(0.1, 0.1)), BOTTLENECK_CPU);
        ck_assert_int_eq(flexslot_bottleneck(&cfg, waiting(0.19, 0.09)), BOTTLENECK_NONE);
        cfg.steal_threshold = 0;
        ck_assert_int_eq(flexslot_bottleneck(&cfg, waiting(0.1, 0)), BOTTLENECK_CPU);
}
END_TEST

START_TEST(test_resize_pays) {
        Attempt a = { .input_size = 60 * MIB, .kill_count = 1 };
        usec_t t = 3 * USEC_PER_SEC;

        /* Line 7: the first resize always, after a kill that was no resize
         * too. */
        ck_assert(flexslot_resize_pays(&a, 0, 1.0 * MIB, t));
        /* Later: 60 s at D_prev = 1 MiB/s, now 60/1.5 = 40 s: 20 s saved > T. */
        a.resize_count = 1;
        ck_assert(flexslot_resize_pays(&a, 1.0 * MIB, 1.5 * MIB, t));
        /* 60 / 1.04 = 57.69 s: 2.3 s saved < T = 3 s: stop. */
        ck_assert(!flexslot_resize_pays(&a, 1.0 * MIB, 1.04 * MIB, t));
        /* Slower than before: stop. */
        ck_assert(!flexslot_resize_pays(&a, 1.0 * MIB, 0.9 * MIB, t));
        /* No earlier speed known: stop. */
        ck_assert(!flexslot_resize_pays(&a, 0, 1.5 * MIB, t));
}
END_TEST

START_TEST(test_grow_memory) {
        ck_assert_uint_eq(flexslot_grow_memory(200 * MIB, 0.2, 4096 * MIB), 240 * MIB);
        ck_assert_uint_eq(flexslot_grow_memory(1000, 0.2, 1100), 1100);
        ck_assert_uint_eq(flexslot_grow_memory(1001, 0.5, 4096), 1501);
}
END_TEST

/* Algorithm 2's planner on nodes 0-3; the moves go to from[] and to[]. */
static size_t plan(const FlexSlotSettings *cfg, const double steal[4], const unsigned slots[4],
                   uint32_t from[4], uint32_t to[4]) {
        const uint32_t nodes[] = { 0, 1, 2, 3 };
        uint32_t order[4];

        return flexslot_plan_moves(cfg, nodes, 4, steal, slots, NULL, NULL, order, from, to);
}

static const double uneven[] = { 0.1, 0.3, 0.05, 0.2 }; /* sigma 0.0960 */
static const unsigned four_each[] = { 4, 4, 4, 4 };

START_TEST(test_plan_moves_one_per_cycle) {
        FlexSlotSettings cfg = defaults();
        uint32_t from[4], to[4];

        /* sigma > lambda = 0.05: least steal (2) gives to most (1). */
        ck_assert_uint_eq(plan(&cfg, uneven, four_each, from, to), 1);
        ck_assert_uint_eq(from[0], 2);
        ck_assert_uint_eq(to[0], 1);
        /* Two moves: then the second lowest (0) gives to the second highest (3). */
        cfg.max_moves = 2;
        ck_assert_uint_eq(plan(&cfg, uneven, four_each, from, to), 2);
        ck_assert_uint_eq(from[1], 0);
        ck_assert_uint_eq(to[1], 3);
        /* More moves than pairs: one per pair of distinct nodes. */
        cfg.max_moves = 10;
        ck_assert_uint_eq(plan(&cfg, uneven, four_each, from, to), 2);
}
END_TEST

START_TEST(test_plan_moves_stops_at_lambda) {
        FlexSlotSettings cfg = defaults();
        const uint32_t one[] = { 0 };
        uint32_t order[1], from[4], to[4];

        cfg.lambda = 0.0961;
        ck_assert_uint_eq(plan(&cfg, uneven, four_each, from, to), 0);
        cfg.lambda = 0.096;
        ck_assert_uint_eq(plan(&cfg, uneven, four_each, from, to), 1);
        /* One node alone has no deviation. */
        ck_assert_uint_eq(
                flexslot_plan_moves(&cfg, one, 1, uneven, four_each, NULL, NULL, order, from, to),
                0);
}
END_TEST

START_TEST(test_plan_moves_respects_slot_bounds) {
        FlexSlotSettings cfg = defaults();
        const unsigned slots[] = { 4, 8, 1, 4 };
        uint32_t from[4], to[4];

        /* Node 2 (least steal) is at min_map_slots and node 1 (most) at
         * max_map_slots: node 0 gives to node 3 instead. */
        ck_assert_uint_eq(plan(&cfg, uneven, slots, from, to), 1);
        ck_assert_uint_eq(from[0], 0);
        ck_assert_uint_eq(to[0], 3);
}
END_TEST

START_TEST(test_plan_moves_ties_by_index) {
        FlexSlotSettings cfg = defaults();
        const double steal[] = { 0.3, 0.0, 0.3, 0.0 };
        uint32_t from[4], to[4];

        ck_assert_uint_eq(plan(&cfg, steal, four_each, from, to), 1);
        ck_assert_uint_eq(from[0], 1);
        ck_assert_uint_eq(to[0], 2);
}
END_TEST

/* ---- the slot manager ---- */

static uint32_t straggler; /* the slow attempt of straggler_fixture() */

/* Four nodes with two map slots; one job with a map on each node since t = 0.
 * At t = 20 s three read 3 MiB/s (P = 3.047) and the one on node 3 reads
 * 0.5 MiB/s (P = 0.508) with the given I/O wait and steal, on a node with
 * that steal. */
static void straggler_fixture(double iowait, double steal) {
        uint32_t j;

        fx_cluster(4, 2, 0);
        fx.cfg.slot_manager = "flexslot";
        j = fx_job(1, 0);
        for (uint32_t n = 0; n < 4; n++)
                fx_run(fx_map(j, n), n, 0, n == 3 ? 10 * MIB : 60 * MIB);
        straggler = 3;
        fx.attempts[straggler].iowait = iowait;
        fx.attempts[straggler].steal = steal;
        fx.nodes[3].steal = steal;
}

static void check_no_slot_or_kill(void) {
        ck_assert_uint_eq(fx.d.n_kills, 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
}

START_TEST(test_straggler_detected_io_first_kill) {
        straggler_fixture(0.5, 0);
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_stragglers, 1);
        ck_assert_uint_eq(fx.d.stragglers[0].attempt, straggler);
        ck_assert_double_eq(fx.d.stragglers[0].score, 0.5078125);
        ck_assert_int_eq(fx.d.stragglers[0].bottleneck, BOTTLENECK_IO);
        /* Algorithm 1, first round: kill and restart with 1.2 x 200 MiB. */
        ck_assert_uint_eq(fx.d.n_kills, 1);
        ck_assert_uint_eq(fx.d.kills[0].attempt, straggler);
        ck_assert_int_eq(fx.d.kills[0].reason, KILL_RESIZE);
        ck_assert_uint_eq(fx.d.kills[0].slot_memory, 240 * MIB);
        /* No steal: Algorithm 2 has nothing to balance. */
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
}
END_TEST

/* Algorithm 1 on the I/O-bound straggler (64 MiB at 0.5 MiB/s, 20 s old).
 * D_prev is what the slot manager measured for the task in an earlier
 * control step, when it let it run (its kill count said it was killed
 * before, and no D_prev was known then). */
typedef struct ResizeCase {
        const char *what;
        unsigned kill_count;
        double prev_speed_mib; /* D_prev in MiB/s; 0: no earlier step */
        uint64_t slot_memory_mib;
        uint64_t restart_memory_mib; /* 0: no kill */
} ResizeCase;

static const ResizeCase resize_cases[] = {
        { "line 7: the first kill always, 1.2 x the slot", 0, 0, 200, 240 },
        { "160 s at D_prev, 128 s now: 32 s saved beat the 20 s run", 1, 0.4, 240, 288 },
        { "130.6 s at D_prev: 2.6 s saved, less than T = 3 s", 1, 0.49, 200, 0 },
        { "142.2 s at D_prev: 14.2 s saved, more than T, less than 20 s run", 1, 0.45, 200, 0 },
        { "no D_prev known", 1, 0, 200, 0 },
        { "slower than before", 2, 0.6, 200, 0 },
        { "at the 4 GiB VM ceiling less the 512 MiB reserve", 0, 0, 3584, 0 },
};

/* One control step at 20 s of a Policy kept across steps, in which the
 * straggler has read at speed MiB/s and was killed kill_count times. */
static void straggler_step(double speed_mib, unsigned kill_count) {
        fx.attempts[straggler].bytes_processed = (uint64_t)(speed_mib * 20 * MIB);
        fx.attempts[straggler].kill_count = kill_count;
        fx.attempts[straggler].resize_count = kill_count;
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, 20 * SEC), 0);
}

START_TEST(test_resize_cases) {
        const ResizeCase *c = &resize_cases[_i];

        straggler_fixture(0.5, 0);
        if (c->prev_speed_mib > 0) {
                straggler_step(c->prev_speed_mib, 1);
                ck_assert_uint_eq(fx.d.n_kills, 0);
        }
        fx.attempts[straggler].slot_memory = c->slot_memory_mib * MIB;
        straggler_step(0.5, c->kill_count);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
        if (c->restart_memory_mib == 0) {
                ck_assert_msg(fx.d.n_kills == 0, "%s", c->what);
                return;
        }
        ck_assert_msg(fx.d.n_kills == 1, "%s", c->what);
        ck_assert_uint_eq(fx.d.kills[0].attempt, straggler);
        ck_assert_int_eq(fx.d.kills[0].reason, KILL_RESIZE);
        ck_assert_uint_eq(fx.d.kills[0].slot_memory, c->restart_memory_mib * MIB);
}
END_TEST

/* D_prev is the speed of the step before, killed or not: 0.4 MiB/s, then
 * 0.5 (32 s saved: killed), then 0.5 again (nothing saved: let run). It is
 * kept by the task's id, whatever index the task has, and forgotten once
 * the task has no attempt at a control step. */
START_TEST(test_resize_remembers_by_task) {
        straggler_fixture(0.5, 0);
        straggler_step(0.4, 1);
        ck_assert_uint_eq(fx.d.n_kills, 0);
        straggler_step(0.5, 1);
        ck_assert_uint_eq(fx.d.n_kills, 1);
        straggler_step(0.5, 2);
        ck_assert_uint_eq(fx.d.n_kills, 0);
        /* The same task under another index: the attempts and tasks swap
         * places. */
        straggler_step(0.4, 1);
        fx.tasks[0].id = fx.tasks[3].id;
        fx.tasks[3].id = 500;
        fx.attempts[0].task = 3;
        fx.attempts[3].task = 0;
        straggler_step(0.5, 1);
        ck_assert_uint_eq(fx.d.n_kills, 1);
        /* Without an attempt in a control step, the task is forgotten. */
        straggler_step(0.4, 1);
        fx.s.n_attempts = 3;
        fx.tasks[0].state = TASK_PENDING;
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, 20 * SEC), 0);
        fx.s.n_attempts = 4;
        fx.tasks[0].state = TASK_RUNNING;
        straggler_step(0.5, 1);
        ck_assert_uint_eq(fx.d.n_kills, 0);
}
END_TEST

/* A straggler that III-E re-placed was killed once but never resized: its
 * first resize is Algorithm 1's unconditional one (killcount = 0), even
 * with no D_prev known. */
START_TEST(test_replaced_straggler_first_resize) {
        straggler_fixture(0.5, 0);
        fx.attempts[straggler].kill_count = 1;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_kills, 1);
        ck_assert_int_eq(fx.d.kills[0].reason, KILL_RESIZE);
        ck_assert_uint_eq(fx.d.kills[0].slot_memory, 240 * MIB);
}
END_TEST

START_TEST(test_cpu_straggler_moves_slot) {
        unsigned total = 0;

        straggler_fixture(0.05, 0.3);
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_int_eq(fx.d.stragglers[0].bottleneck, BOTTLENECK_CPU);
        ck_assert_uint_eq(fx.d.n_kills, 0);
        /* Steal 0, 0, 0, 0.3: sigma 0.13 > 0.05; node 0 (least, lowest
         * index) gives a map slot to node 3 (most). */
        ck_assert_uint_eq(fx.d.n_slot_changes, 2);
        ck_assert_uint_eq(fx.d.slot_changes[0].node, 0);
        ck_assert_uint_eq(fx.d.slot_changes[0].slots[SLOT_MAP], 1);
        ck_assert_uint_eq(fx.d.slot_changes[1].node, 3);
        ck_assert_uint_eq(fx.d.slot_changes[1].slots[SLOT_MAP], 3);
        for (size_t i = 0; i < fx.d.n_slot_changes; i++)
                total += fx.d.slot_changes[i].slots[SLOT_MAP];
        ck_assert_uint_eq(total, 4); /* 2 + 2 before: conserved */
}
END_TEST

/* III-C compares the straggler's I/O wait with the steal it saw itself, not
 * its node's mean over four vCPUs: a lone starved straggler (steal 0.4 of
 * its time, 0.1 of its node's) that waits 0.3 of its time on I/O is
 * CPU-bound; one whose node steals but it does not is not. */
START_TEST(test_bottleneck_by_own_steal) {
        straggler_fixture(0.3, 0.1);
        fx.attempts[straggler].steal = 0.4;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_stragglers, 1);
        ck_assert_int_eq(fx.d.stragglers[0].bottleneck, BOTTLENECK_CPU);
        ck_assert_uint_eq(fx.d.n_kills, 0);

        straggler_fixture(0.05, 0.3);
        fx.attempts[straggler].steal = 0.02;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_int_eq(fx.d.stragglers[0].bottleneck, BOTTLENECK_NONE);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
}
END_TEST

START_TEST(test_slot_moves_need_cpu_straggler) {
        /* Node 3 steals 0.3 but its straggler is I/O-bound: nothing moves. */
        straggler_fixture(0.5, 0.3);
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
        /* Nodes 1-3 run stragglers (only node 3's is CPU-bound), so node 0
         * alone may give; while it steals the most, no pair is left. */
        straggler_fixture(0.05, 0.3);
        fx.attempts[1].bytes_processed = 10 * MIB;
        fx.attempts[2].bytes_processed = 10 * MIB;
        fx.nodes[0].steal = 0.35;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_stragglers, 3);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
        /* Once it steals the least, it gives to node 3. */
        fx.nodes[0].steal = 0;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 2);
        ck_assert_uint_eq(fx.d.slot_changes[0].node, 0);
        ck_assert_uint_eq(fx.d.slot_changes[1].node, 3);
}
END_TEST

/* A control step at 20 s changes this many nodes' slots. */
static void check_slot_changes(size_t n) {
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, n);
}

/* The straggler's host needs a pCPU idle. The four VMs use 7.5 of its 8:
 * none; 6.5: one. The host measured counts every VM on it, a co-running
 * cluster's too (Fig. 11): this cluster's VMs use 1 pCPU, but the host is
 * measured at 7.5, then 6.5. */
START_TEST(test_slot_moves_need_idle_host_cpu) {
        straggler_fixture(0.05, 0.3);
        for (uint32_t v = 0; v < 4; v++)
                fx.vms[v].cpu_use = 1.875;
        check_slot_changes(0);
        fx.vms[0].cpu_use = 0.875;
        check_slot_changes(2);

        for (uint32_t v = 0; v < 4; v++)
                fx.vms[v].cpu_use = 0.25;
        fx.hosts[0].cpu_use = 7.5;
        fx.hosts[0].measured_at = 1;
        check_slot_changes(0);
        fx.hosts[0].cpu_use = 6.5;
        check_slot_changes(2);
}
END_TEST

/* A node whose steal is not measured counts neither as stealing nor as
 * free of steal. */
START_TEST(test_unmeasured_steal) {
        /* The straggler's node not measured: its straggler is CPU-bound by
         * its own steal, but the node is no receiver. */
        straggler_fixture(0.05, 0.3);
        fx.nodes[3].measured_at = 0;
        fx.nodes[3].steal = 0;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_stragglers, 1);
        ck_assert_int_eq(fx.d.stragglers[0].bottleneck, BOTTLENECK_CPU);
        check_no_slot_or_kill();
        /* Node 0, the donor when measured, is left out of Algorithm 2:
         * node 1 gives instead. */
        straggler_fixture(0.05, 0.3);
        fx.nodes[0].measured_at = 0;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 2);
        ck_assert_uint_eq(fx.d.slot_changes[0].node, 1);
        ck_assert_uint_eq(fx.d.slot_changes[1].node, 3);
        /* A VM on the host not measured: no pCPU known to be idle. */
        fx.nodes[0].measured_at = 1;
        fx.vms[1].measured_at = 0;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
}
END_TEST

START_TEST(test_slot_moves_stop_at_lambda) {
        straggler_fixture(0.05, 0.3);
        fx_flexslot()->lambda = 0.13;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
}
END_TEST

START_TEST(test_slot_moves_wait_to_settle) {
        straggler_fixture(0.05, 0.3);
        fx_flexslot()->settle = 10 * SEC;
        fx.nodes[2].slots_changed_at = 15 * SEC;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 25 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 2);
        /* Under an allocator that divides the CPU every 5 minutes (DRS),
         * a move waits for it, not for settle alone. */
        fx.s.allocator_period = 300 * SEC;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 25 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 314 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 315 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 2);
}
END_TEST

START_TEST(test_no_bottleneck_no_action) {
        straggler_fixture(0.1, 0.05);
        fx_flexslot()->lambda = 0.5;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_stragglers, 1);
        ck_assert_int_eq(fx.d.stragglers[0].bottleneck, BOTTLENECK_NONE);
        check_no_slot_or_kill();
}
END_TEST

START_TEST(test_straggler_ratio) {
        straggler_fixture(0.5, 0);
        /* 2.5 MiB/s against 3: the clusters are 0.83 apart, above 0.8. */
        fx.attempts[straggler].bytes_processed = 50 * MIB;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_stragglers, 0);
        ck_assert_uint_eq(fx.d.n_kills, 0);
        /* The paper's pure k-means: the low cluster is always stragglers. */
        fx_flexslot()->straggler_ratio = 1.0;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_stragglers, 1);
}
END_TEST

START_TEST(test_young_attempts_not_judged) {
        straggler_fixture(0.5, 0);
        /* 9 s < min_age = 10 s. */
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 9 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_stragglers, 0);
}
END_TEST

/* Straggler analysis is FlexSlot's: Hadoop's fixed slots judge nothing. */
START_TEST(test_static_slot_manager_judges_nothing) {
        straggler_fixture(0.5, 0.3);
        fx.cfg.slot_manager = "static";
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_stragglers, 0);
        check_no_slot_or_kill();
}
END_TEST

/* Two nodes with one map slot, both busy, one map pending; VM 0 has an idle
 * vCPU, VM 1 does not. */
static void unlimited_fixture(void) {
        uint32_t j;

        fx_cluster(2, 1, 0);
        fx.cfg.slot_manager = "flexslot";
        fx_flexslot()->unlimited_slots = true;
        j = fx_job(1, 0);
        fx_run(fx_map(j, 0), 0, 15 * SEC, 0);
        fx_run(fx_map(j, 1), 1, 15 * SEC, 0);
        fx_map(j, 1);
        fx.vms[0].cpu_use = 0.5;
        fx.vms[1].cpu_use = 1.5;
}

START_TEST(test_unlimited_adds_where_free) {
        unlimited_fixture();
        ck_assert_int_eq(fx_step(POLICY_STEP_ALL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 1);
        ck_assert_uint_eq(fx.d.slot_changes[0].node, 0);
        ck_assert_uint_eq(fx.d.slot_changes[0].slots[SLOT_MAP], 2);
        /* The scheduler fills the new slot at once. */
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        fx_check_assignment(0, 2, 0, false, false);
}
END_TEST

START_TEST(test_unlimited_needs_free_resources) {
        unlimited_fixture();
        fx.vms[0].memory = 800 * MIB; /* 200 running + 512 reserve + 200 > 800 */
        ck_assert_int_eq(fx_step(POLICY_STEP_ALL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
        fx.vms[0].memory = 2 * GIB;
        fx.nodes[0].steal = 0.2;
        ck_assert_int_eq(fx_step(POLICY_STEP_ALL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
        /* The host's 8 pCPUs are busy (VM 1 of the fixture uses 1.5). */
        fx.nodes[0].steal = 0;
        fx.vms[1].cpu_use = 7.0;
        ck_assert_int_eq(fx_step(POLICY_STEP_ALL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
        fx.vms[1].cpu_use = 1.5;
        /* The last slot change is younger than settle (15 s). */
        fx.nodes[0].slots_changed_at = 6 * SEC;
        ck_assert_int_eq(fx_step(POLICY_STEP_ALL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
        ck_assert_int_eq(fx_step(POLICY_STEP_ALL, 21 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 1);
        /* Without a measurement of the node or its VM, nothing is added. */
        fx.nodes[0].measured_at = 0;
        ck_assert_int_eq(fx_step(POLICY_STEP_ALL, 21 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
        fx.nodes[0].measured_at = 1;
        fx.vms[0].cpu_use = 0;
        fx.vms[0].measured_at = 0;
        ck_assert_int_eq(fx_step(POLICY_STEP_ALL, 21 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
        fx.vms[0].measured_at = 1;
        /* Limited FlexSlot never adds. */
        fx_flexslot()->unlimited_slots = false;
        ck_assert_int_eq(fx_step(POLICY_STEP_ALL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
}
END_TEST

/* At t = 40 s node 3, which gained a third slot at 20 s, runs an old
 * straggler (since 0, I/O-bound) and a new one in the added slot (since 25 s)
 * whose split is on node 1, both at 0.25 MiB/s; nodes 0-2 run maps at
 * 1.5 MiB/s. */
static uint32_t old_straggler, new_straggler, new_task;

static void replacement_fixture(void) {
        uint32_t j;

        fx_cluster(4, 2, 0);
        fx.cfg.slot_manager = "flexslot";
        fx.nodes[3].slots[SLOT_MAP] = 3;
        fx.nodes[3].slots_changed_at = 20 * SEC;
        j = fx_job(1, 0);
        for (uint32_t n = 0; n < 3; n++)
                fx_run(fx_map(j, n), n, 0, 60 * MIB);
        old_straggler = fx_run(fx_map(j, 3), 3, 0, 10 * MIB);
        fx.attempts[old_straggler].iowait = 0.5;
        new_task = fx_map(j, 1);
        new_straggler = fx_run(new_task, 3, 25 * SEC, 3 * MIB + 3 * MIB / 4);
}

START_TEST(test_new_straggler_replaced_locally) {
        replacement_fixture();
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 40 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_stragglers, 2);
        ck_assert_uint_eq(fx.d.n_kills, 2);
        ck_assert_uint_eq(fx.d.kills[0].attempt, old_straggler);
        ck_assert_int_eq(fx.d.kills[0].reason, KILL_RESIZE);
        ck_assert_uint_eq(fx.d.kills[1].attempt, new_straggler);
        ck_assert_int_eq(fx.d.kills[1].reason, KILL_REPLACE);
        ck_assert_uint_eq(fx.d.kills[1].slot_memory, 200 * MIB);
        /* Node 1 has no straggler, a free slot and the split. */
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        fx_check_assignment(0, new_task, 1, true, false);
}
END_TEST

START_TEST(test_straggler_replaced_only_in_added_slot) {
        replacement_fixture();
        /* It started before the node's last change: not in an added slot. */
        fx.nodes[3].slots_changed_at = 30 * SEC;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 40 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
        ck_assert_uint_eq(fx.d.n_kills, 1);
        /* The node has no more slots than the others: it gained none. */
        fx.nodes[3].slots_changed_at = 20 * SEC;
        fx.nodes[3].slots[SLOT_MAP] = 2;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 40 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
        ck_assert_uint_eq(fx.d.n_kills, 1);
}
END_TEST

START_TEST(test_new_straggler_stays_without_target) {
        replacement_fixture();
        for (uint32_t n = 0; n < 3; n++)
                fx.nodes[n].slots[SLOT_MAP] = 1;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 40 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
        /* It falls to Algorithm 1, which does not apply: it is not I/O-bound. */
        ck_assert_uint_eq(fx.d.n_kills, 1);
        ck_assert_uint_eq(fx.d.kills[0].attempt, old_straggler);
}
END_TEST

Suite *suite_flexslot(void) {
        Suite *s = suite_create("flexslot");
        TCase *tc;

        tc = tcase_create("slot-manager");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_straggler_detected_io_first_kill);
        tcase_add_loop_test(tc, test_resize_cases, 0, (int)ELEMENTSOF(resize_cases));
        tcase_add_test(tc, test_resize_remembers_by_task);
        tcase_add_test(tc, test_replaced_straggler_first_resize);
        tcase_add_test(tc, test_cpu_straggler_moves_slot);
        tcase_add_test(tc, test_bottleneck_by_own_steal);
        tcase_add_test(tc, test_slot_moves_need_cpu_straggler);
        tcase_add_test(tc, test_slot_moves_need_idle_host_cpu);
        tcase_add_test(tc, test_unmeasured_steal);
        tcase_add_test(tc, test_slot_moves_stop_at_lambda);
        tcase_add_test(tc, test_slot_moves_wait_to_settle);
        tcase_add_test(tc, test_no_bottleneck_no_action);
        tcase_add_test(tc, test_straggler_ratio);
        tcase_add_test(tc, test_young_attempts_not_judged);
        tcase_add_test(tc, test_static_slot_manager_judges_nothing);
        tcase_add_test(tc, test_unlimited_adds_where_free);
        tcase_add_test(tc, test_unlimited_needs_free_resources);
        tcase_add_test(tc, test_new_straggler_replaced_locally);
        tcase_add_test(tc, test_straggler_replaced_only_in_added_slot);
        tcase_add_test(tc, test_new_straggler_stays_without_target);
        suite_add_tcase(s, tc);

        tc = tcase_create("pieces");
        tcase_add_test(tc, test_score);
        tcase_add_test(tc, test_input_speed);
        tcase_add_test(tc, test_bottleneck);
        tcase_add_test(tc, test_resize_pays);
        tcase_add_test(tc, test_grow_memory);
        tcase_add_test(tc, test_plan_moves_one_per_cycle);
        tcase_add_test(tc, test_plan_moves_stops_at_lambda);
        tcase_add_test(tc, test_plan_moves_respects_slot_bounds);
        tcase_add_test(tc, test_plan_moves_ties_by_index);
        suite_add_tcase(s, tc);
        return s;
}

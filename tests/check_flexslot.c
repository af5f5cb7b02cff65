/* SPDX-License-Identifier: MIT */
/* The FlexSlot slot manager through policy_step(): straggler detection, every
 * branch of Algorithms 1 and 2, the unlimited variant and re-placement; the VM
 * allocators; and the contracts every policy of every layer keeps. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/policy.h"
#include "tests.h"
#include "check_policy.h"

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

/* ---- VM allocators ---- */

static void check_vm_target(size_t i, uint32_t vm, unsigned weight, unsigned vcpus, uint64_t memory,
                            double cpu_cap) {
        ck_assert_uint_gt(fx.d.n_vm_targets, i);
        ck_assert_uint_eq(fx.d.vm_targets[i].vm, vm);
        ck_assert_uint_eq(fx.d.vm_targets[i].cpu_weight, weight);
        ck_assert_uint_eq(fx.d.vm_targets[i].vcpus, vcpus);
        ck_assert_uint_eq(fx.d.vm_targets[i].memory, memory);
        ck_assert_double_eq(fx.d.vm_targets[i].cpu_cap, cpu_cap);
}

START_TEST(test_vm_static) {
        fx_cluster(4, 2, 0);
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        /* 8 pCPUs and 16 GiB over 4 VMs, the CPU share also a cap. */
        ck_assert_uint_eq(fx.d.n_vm_targets, 4);
        for (uint32_t v = 0; v < 4; v++)
                check_vm_target(v, v, 1024, 2, 4 * GIB, 2.0);
        /* Once there, nothing changes. */
        for (uint32_t v = 0; v < 4; v++) {
                fx.vms[v].memory = 4 * GIB;
                fx.vms[v].cpu_cap = 2.0;
        }
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_vm_targets, 0);
}
END_TEST

/* homo: the pool split equally as caps at the default weight; vCPUs and
 * memory stay as they are. */
START_TEST(test_vm_homo) {
        VmAllocatorSettings *set;

        fx_cluster(4, 2, 0);
        fx.cfg.vm_allocator = "homo";
        set = policy_config_settings(&fx.cfg, &vm_allocator_settings_schema);
        set->pool = 1.6;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_vm_targets, 4);
        for (uint32_t v = 0; v < 4; v++)
                check_vm_target(v, v, 1024, 2, 2 * GIB, 0.4);
        /* No pool given: the host's 8 pCPUs, 2 each, at most the 2 vCPUs. */
        set->pool = 0;
        fx.vms[3].vcpus = 1;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        check_vm_target(0, 0, 1024, 2, 2 * GIB, 2);
        /* The weight follows the part: half the others'. */
        check_vm_target(3, 3, 512, 1, 2 * GIB, 1);
        /* A part below the least cap is raised to it. */
        set->pool = 0.1;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        check_vm_target(0, 0, 1024, 2, 2 * GIB, 0.05);
        /* Once there, nothing changes. */
        for (uint32_t v = 0; v < 4; v++)
                fx.vms[v].cpu_cap = 0.05;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_vm_targets, 0);
}
END_TEST

/* One control step of the drs allocator at t seconds, the VMs measured
 * then at the given use rates. */
static void drs_step(unsigned t, const double *use) {
        for (uint32_t v = 0; v < 4; v++) {
                fx.vms[v].cpu_use = use[v];
                fx.vms[v].measured_at = t * SEC;
        }
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, t * SEC), 0);
}

/* drs: the pool split equally until the first divvy, a period after the
 * first job, then in proportion to each VM's use over the window, within
 * [pool_min_cap, its vCPUs], the weight in proportion too; between divvies
 * the parts stand. */
START_TEST(test_vm_drs) {
        const double busy[] = { 1.2, 0.2, 0.1, 0.1 }, flipped[] = { 0, 0, 0, 1.6 };
        VmAllocatorSettings *set;

        fx_cluster(4, 2, 0);
        fx.cfg.vm_allocator = "drs";
        set = policy_config_settings(&fx.cfg, &vm_allocator_settings_schema);
        set->pool = 1.6;
        set->drs_period = set->drs_window = 120 * SEC;
        set->drs_sample = 20 * SEC;
        /* No job yet: however long, the pool stays split equally. */
        for (unsigned t = 20; t <= 300; t += 20)
                drs_step(t, busy);
        ck_assert_uint_eq(fx.d.n_vm_targets, 4);
        ck_assert_double_eq(fx.d.vm_targets[0].cpu_cap, 0.4);
        fx_map(fx_job(1, 0), NO_INDEX);
        drs_step(310, busy);
        ck_assert_uint_eq(fx.d.n_vm_targets, 4);
        for (uint32_t v = 0; v < 4; v++)
                check_vm_target(v, v, 1024, 2, 2 * GIB, 0.4);
        for (uint32_t v = 0; v < 4; v++) {
                fx.vms[v].cpu_cap = 0.4;
                fx.vms[v].cpu_weight = 1024;
        }
        for (unsigned t = 330; t < 430; t += 20) {
                drs_step(t, busy);
                ck_assert_uint_eq(fx.d.n_vm_targets, 0);
        }
        /* At 430 s, 120 s after the job was first seen: use 1.2, 0.2, 0.1
         * and 0.1 of the 1.6 CPUs, so each its use. */
        drs_step(430, busy);
        ck_assert_uint_eq(fx.d.n_vm_targets, 4);
        ck_assert_double_eq_tol(fx.d.vm_targets[0].cpu_cap, 1.2, 1e-9);
        ck_assert_uint_eq(fx.d.vm_targets[0].cpu_weight, 3072);
        ck_assert_double_eq_tol(fx.d.vm_targets[1].cpu_cap, 0.2, 1e-9);
        ck_assert_uint_eq(fx.d.vm_targets[1].cpu_weight, 512);
        ck_assert_double_eq_tol(fx.d.vm_targets[3].cpu_cap, 0.1, 1e-9);
        ck_assert_uint_eq(fx.d.vm_targets[3].cpu_weight, 256);
        for (uint32_t v = 0; v < 4; v++) {
                fx.vms[v].cpu_cap = fx.d.vm_targets[v].cpu_cap;
                fx.vms[v].cpu_weight = fx.d.vm_targets[v].cpu_weight;
        }
        /* The use flips; the parts stand until the next divvy at 550 s,
         * which sees 120 s of the new use: the idle VMs demand the floor of
         * 0.01 CPU, so VM 3 gets 1.6 / 1.63 of the pool and the others'
         * parts (0.0098) are raised to the least cap. */
        for (unsigned t = 450; t < 550; t += 20) {
                drs_step(t, flipped);
                ck_assert_uint_eq(fx.d.n_vm_targets, 0);
        }
        drs_step(550, flipped);
        ck_assert_uint_eq(fx.d.n_vm_targets, 4);
        for (uint32_t v = 0; v < 3; v++)
                ck_assert_double_eq(fx.d.vm_targets[v].cpu_cap, 0.05);
        ck_assert_double_eq_tol(fx.d.vm_targets[3].cpu_cap, 1.6 * 1.6 / 1.63, 1e-9);
}
END_TEST

START_TEST(test_vm_none) {
        /* The cluster static resizes above: none leaves every VM alone. */
        fx_cluster(4, 2, 0);
        fx.cfg.vm_allocator = "none";
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_vm_targets, 0);
}
END_TEST

/* Four VMs of the given vCPUs under the demand allocator, one control step
 * after a window with the given CPU use and touched memory; VM unmeasured
 * (unless NO_INDEX) has no measurement yet. */
static void demand_step(unsigned vcpus, const double *use, const uint64_t *used,
                        uint32_t unmeasured) {
        fx_cluster(4, 2, 0);
        fx.cfg.vm_allocator = "demand";
        for (uint32_t v = 0; v < 4; v++) {
                fx.vms[v].vcpus = vcpus;
                fx.vms[v].cpu_use = use[v];
                fx.vms[v].memory_used = used[v];
                fx.vms[v].measured_at = v == unmeasured ? 0 : 1;
        }
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_vm_targets, 4);
}

START_TEST(test_vm_demand) {
        const double use[] = { 3, 1, 0, 0 };
        const uint64_t used[] = { 2 * GIB, 1 * GIB, 512 * MIB, 0 };

        demand_step(2, use, used, NO_INDEX);
        /* Needs 1.25 x use (idle VMs count 0.01): 3.75, 1.25, 0.0125 and
         * 0.0125 of 8 pCPUs; the 2.975 left go equally, so the entitlements
         * are 4.49375, 1.99375, 0.75625 and 0.75625 CPUs, 512 weight each.
         * vCPUs stay at 2, memory is 1.25 x use, at least 512 MiB. */
        check_vm_target(0, 0, 2301, 2, 2560 * MIB, 0);
        check_vm_target(1, 1, 1021, 2, 1280 * MIB, 0);
        check_vm_target(2, 2, 387, 2, 640 * MIB, 0);
        check_vm_target(3, 3, 387, 2, 512 * MIB, 0);
}
END_TEST

START_TEST(test_vm_demand_unmeasured) {
        const double use[] = { 3, 1, 0, 0 };
        const uint64_t used[] = { 2 * GIB, 1 * GIB, 512 * MIB, 0 };

        /* VM 3 not measured yet is not idle: it needs its 2 vCPUs and keeps
         * its 2 GiB. Needs 3.75 + 1.25 + 0.0125 + 2 = 7.0125 of 8 pCPUs:
         * 0.246875 spare each, entitlements 3.996875, 1.496875, 0.259375
         * and 2.246875 CPUs at 512 weight each. */
        demand_step(2, use, used, 3);
        check_vm_target(0, 0, 2046, 2, 2560 * MIB, 0);
        check_vm_target(1, 1, 766, 2, 1280 * MIB, 0);
        check_vm_target(2, 2, 133, 2, 640 * MIB, 0);
        check_vm_target(3, 3, 1150, 2, 2 * GIB, 0);
}
END_TEST

START_TEST(test_vm_demand_starves_low_use_on_busy_host) {
        const double use[] = { 3, 3, 3, 0.1 };
        const uint64_t used[] = { 1 * GIB, 1 * GIB, 1 * GIB, 1 * GIB };

        demand_step(4, use, used, NO_INDEX);
        /* Needs 3.75 x 3 + 0.125 = 11.375 > 8 pCPUs: no spare, entitlements
         * in proportion to use (2.637 and 0.088 CPUs). The VM whose tasks
         * waited on I/O keeps its 4 vCPUs: when they run again, what its
         * weight does not get them is steal. */
        for (uint32_t v = 0; v < 3; v++)
                check_vm_target(v, v, 1350, 4, 1280 * MIB, 0);
        check_vm_target(3, 3, 45, 4, 1280 * MIB, 0);
}
END_TEST

/* critical_first: four VMs of 3 map slots on 8 pCPUs (12 CPUs of need).
 * The job's last two maps run, none waits: on node 0 one at a tenth of its
 * input after 20 s of CPU (180 s left on one pCPU), on node 1 one at nine
 * tenths (2.2 s left). The job's maps cannot end before 182.2 / 8 = 22.8 s,
 * and node 0's map ends after that however the rest is shared: its VM is
 * entitled to that map's CPU first, then 7/11 of each other slot's, 2.27
 * CPUs (weight 1164); the others to 3 x 7/11 (977). Without it, 2 CPUs
 * each. */
START_TEST(test_vm_critical_first) {
        VmAllocatorSettings *set;
        uint32_t j, a;

        fx_cluster(4, 3, 0);
        fx.cfg.vm_allocator = "flexslot";
        set = policy_config_settings(&fx.cfg, &vm_allocator_settings_schema);
        j = fx_job(1, 0);
        fx.jobs[j].counts[TASK_MAP] = (TaskCounts){ .total = 2, .running = 2 };
        a = fx_run(fx_map(j, 0), 0, 0, 64 * MIB / 10);
        fx.attempts[a].cpu = 1;
        a = fx_run(fx_map(j, 1), 1, 0, 64 * MIB * 9 / 10);
        fx.attempts[a].cpu = 1;
        set->critical_first = true;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_vm_targets, 4);
        ck_assert_uint_eq(fx.d.vm_targets[0].cpu_weight, 1164);
        for (size_t i = 1; i < 4; i++)
                ck_assert_uint_eq(fx.d.vm_targets[i].cpu_weight, 977);
        set->critical_first = false;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        for (size_t i = 0; i < fx.d.n_vm_targets; i++)
                ck_assert_uint_eq(fx.d.vm_targets[i].cpu_weight, 1024);
}
END_TEST

START_TEST(test_vm_flexslot) {
        uint32_t j;

        fx_cluster(4, 2, 0);
        fx.cfg.vm_allocator = "flexslot";
        /* The slot manager finds the CPU-starved straggler, and moves no
         * slot with this lambda. */
        fx.cfg.slot_manager = "flexslot";
        fx_flexslot()->lambda = 1;
        fx.nodes[0].slots[SLOT_MAP] = 1;
        fx.nodes[3].slots[SLOT_MAP] = 3;
        j = fx_job(1, 0);
        for (uint32_t n = 1; n < 4; n++)
                fx_run(fx_map(j, n), n, 0, n == 3 ? 10 * MIB : 60 * MIB);
        fx.nodes[3].steal = 0.3;
        fx.attempts[2].steal = 0.3;
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_int_eq(fx.d.stragglers[0].bottleneck, BOTTLENECK_CPU);
        /* Needs 1, 2, 2 and 3 slots + 1 CPU-starved straggler = 9 CPUs on 8
         * pCPUs: weights 4096 x need / 9; vCPUs cover the slots but never
         * drop below the 2 each VM has; memory is the slots' plus the 512 MiB
         * reserve. */
        ck_assert_uint_eq(fx.d.n_vm_targets, 4);
        check_vm_target(0, 0, 455, 2, 712 * MIB, 0);
        check_vm_target(1, 1, 910, 2, 912 * MIB, 0);
        check_vm_target(2, 2, 910, 2, 912 * MIB, 0);
        check_vm_target(3, 3, 1820, 3, 1112 * MIB, 0);
        /* Under Hadoop's fixed slots nobody judges stragglers: 8 CPUs of
         * slots on 8 pCPUs, 512 weight a CPU. */
        fx.cfg.slot_manager = "static";
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_stragglers, 0);
        check_vm_target(0, 0, 512, 2, 712 * MIB, 0);
        check_vm_target(3, 3, 1536, 3, 1112 * MIB, 0);
}
END_TEST

START_TEST(test_vm_memory_scaled_to_host) {
        fx_cluster(4, 2, 0);
        fx.cfg.vm_allocator = "flexslot";
        fx.hosts[0].memory = 2 * GIB;
        /* Each wants 2 x 200 + 512 = 912 MiB: 3648 > 2048, scaled by 2048/3648
         * to 512 MiB each. */
        ck_assert_int_eq(fx_step(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_vm_targets, 4);
        for (uint32_t v = 0; v < 4; v++)
                check_vm_target(v, v, 1024, 2, 512 * MIB, 0);
}
END_TEST

/* ---- contracts over every policy of every layer ---- */

typedef struct Combo {
        const char *scheduler, *slot_manager, *speculation, *vm_allocator;
        bool unlimited;
        /* DynamicMR's scheduler modes (CoreSettings.dmr) */
        DhsaMode dhsa;
        bool prescheduling; /* with the load manager */
        /* The one loop (CoreSettings.slo): every part, on this forecast. */
        bool loop;
        SloForecastKind forecast;
} Combo;

static const Combo combos[] = {
        { "fifo", "static", "none", "static", false },
        { "fair", "static", "none", "static", false },
        { "fifo", "flexslot", "none", "static", false },
        { "fifo", "flexslot", "none", "static", true },
        { "fifo", "static", "hadoop", "static", false },
        { "fair", "static", "late", "static", false },
        { "fifo", "static", "none", "demand", false },
        { "fair", "flexslot", "late", "flexslot", false },
        { "fair", "flexslot", "hadoop", "demand", true },
        { "fair", "static", "sepb", "static", false },
        { "fair", "flexslot", "sepb", "flexslot", false, DHSA_PI, true },
        { "fair", "static", "none", "demand", false, DHSA_PD, true },
        { "fifo", "flexslot", "sepb", "static", true, DHSA_PI },
        { "fifo", "static", "late", "flexslot", false, DHSA_PD, true },
        { "aria", "static", "none", "none", false },
        { "aria", "flexslot", "late", "flexslot", true },
        { "deadline", "static", "hadoop", "demand", false },
        { "deadline", "flexslot", "none", "flexslot", false },
        { "ras", "static", "none", "static", false },
        { "ras", "flexslot", "hadoop", "demand", true },
        { "aria", "flexslot", "late", "none", false, .loop = true },
        { "aria", "static", "none", "demand", false, .loop = true,
          .forecast = SLO_FORECAST_REPLAY },
        { "deadline", "flexslot", "hadoop", "flexslot", true, .loop = true },
        { "fair", "flexslot", "sepb", "static", false, DHSA_PI, .loop = true,
          .forecast = SLO_FORECAST_REPLAY },
        { "fifo", "flexslot", "hadoop", "drs", false },
        { "fair", "static", "none", "homo", true },
        { "aria", "flexslot", "late", "drs", false, .loop = true },
};

/* A profile from an earlier run, for the jobs with deadlines. */
static JobProfile profile_of_the_past;

static void stored_profile_make(void) {
        JobProfile *p = &profile_of_the_past;

        *p = (JobProfile){ 0 };
        phase_stats_add(&p->phases[PROFILE_MAP], 20 * SEC);
        phase_stats_add(&p->phases[PROFILE_MAP], 30 * SEC);
        phase_stats_add(&p->phases[PROFILE_TYPICAL_SHUFFLE], 10 * SEC);
        phase_stats_add(&p->phases[PROFILE_REDUCE], 40 * SEC);
}

/* A busy cluster: two pools, pending maps and reduces, old attempts to back
 * up, an I/O-bound and a CPU-starved straggler, uneven steal and VM use. */
static void combo_apply(const Combo *c) {
        fx.cfg.scheduler = c->scheduler;
        fx.cfg.slot_manager = c->slot_manager;
        fx.cfg.speculation = c->speculation;
        fx.cfg.vm_allocator = c->vm_allocator;
        fx_flexslot()->unlimited_slots = c->unlimited;
        fx_core()->dmr.dhsa = c->dhsa;
        fx_core()->dmr.load_balance = c->prescheduling;
        fx_core()->dmr.prescheduling = c->prescheduling;
        fx_core()->slo.slo_speed = fx_core()->slo.slo_lever = fx_core()->slo.slo_favour = c->loop;
        fx_core()->slo.slo_forecast = c->forecast;
}

static void busy_fixture(const Combo *c) {
        uint32_t a, b;

        fx_cluster(5, 2, 1);
        combo_apply(c);
        a = fx_job(1, 0);
        b = fx_job(2, 1);
        /* Job b has a deadline and a profile from an earlier run. */
        stored_profile_make();
        fx.jobs[b].deadline = 300 * SEC;
        fx.jobs[b].stored_profile = &profile_of_the_past;
        fx.jobs[b].input_size = 7 * 64 * MIB;
        for (uint32_t n = 0; n < 4; n++)
                fx_run(fx_map(a, n), n, 0, n >= 2 ? 5 * MIB : 60 * MIB);
        fx_done(fx_map(a, 4));
        fx.attempts[2].iowait = 0.6;
        fx.attempts[3].steal = 0.4;
        fx.nodes[3].steal = 0.4;
        fx.nodes[1].steal = 0.1;
        fx_run(fx_map(b, 0), 0, 50 * SEC, 30 * MIB);
        for (uint32_t n = 0; n < 6; n++)
                fx_map(n % 2 ? a : b, n % 5);
        fx_reduce(a);
        fx_reduce(b);
        for (uint32_t v = 0; v < 5; v++) {
                fx.vms[v].cpu_use = 0.3 * v;
                fx.vms[v].memory_used = (v + 1) * 300 * MIB;
        }
}

static void format_decisions(const Decisions *d, char *buf, size_t size) {
        FILE *f = fmemopen(buf, size, "w");

        ck_assert_ptr_nonnull(f);
        for (size_t i = 0; i < d->n_assignments; i++)
                fprintf(f, "A%u,%u,%d,%d,%llu,%d,%d;", d->assignments[i].task,
                        d->assignments[i].node, d->assignments[i].type, d->assignments[i].slot,
                        (unsigned long long)d->assignments[i].slot_memory,
                        d->assignments[i].speculative, d->assignments[i].local);
        for (size_t i = 0; i < d->n_kills; i++)
                fprintf(f, "K%u,%d,%llu;", d->kills[i].attempt, d->kills[i].reason,
                        (unsigned long long)d->kills[i].slot_memory);
        for (size_t i = 0; i < d->n_slot_changes; i++)
                fprintf(f, "S%u,%u,%u;", d->slot_changes[i].node,
                        d->slot_changes[i].slots[SLOT_MAP], d->slot_changes[i].slots[SLOT_REDUCE]);
        for (size_t i = 0; i < d->n_vm_targets; i++)
                fprintf(f, "V%u,%u,%u,%llu,%.17g;", d->vm_targets[i].vm,
                        d->vm_targets[i].cpu_weight, d->vm_targets[i].vcpus,
                        (unsigned long long)d->vm_targets[i].memory, d->vm_targets[i].cpu_cap);
        for (size_t i = 0; i < d->n_stragglers; i++)
                fprintf(f, "X%u,%.17g,%d;", d->stragglers[i].attempt, d->stragglers[i].score,
                        d->stragglers[i].bottleneck);
        ck_assert_int_eq(fclose(f), 0);
}

/* The task's attempt is killed to run elsewhere (III-E). */
static bool replaced(const Decisions *d, uint32_t task) {
        for (size_t k = 0; k < d->n_kills; k++)
                if (d->kills[k].reason == KILL_REPLACE &&
                    fx.attempts[d->kills[k].attempt].task == task)
                        return true;
        return false;
}

/* A job with a quota gets no new task that takes it past its quota of
 * running tasks (attempts that are not backups; a re-placed one, the slot
 * manager's, is neither new nor counted). */
static void check_quotas(const Decisions *d) {
        for (size_t q = 0; q < d->n_quotas; q++) {
                unsigned running[_TASK_TYPE_MAX] = { 0 }, assigned[_TASK_TYPE_MAX] = { 0 };
                uint32_t job = d->quotas[q].job;

                for (uint32_t i = 0; i < fx.s.n_attempts; i++)
                        if (!fx.attempts[i].speculative && !replaced(d, fx.attempts[i].task) &&
                            fx.tasks[fx.attempts[i].task].job == job)
                                running[fx.tasks[fx.attempts[i].task].type]++;
                for (size_t i = 0; i < d->n_assignments; i++)
                        if (!d->assignments[i].speculative &&
                            !replaced(d, d->assignments[i].task) &&
                            fx.tasks[d->assignments[i].task].job == job)
                                assigned[d->assignments[i].type]++;
                for (TaskType t = TASK_MAP; t < _TASK_TYPE_MAX; t++)
                        ck_assert(assigned[t] == 0 ||
                                  running[t] + assigned[t] <= d->quotas[q].slots[t]);
        }
}

/* What policy_step() checked already (decisions_validate()) is not checked
 * again: these are rules of today's policies, not of the core. Slot managers
 * move map slots within their bounds and leave reduce slots alone (DHSA
 * with equal slot weights changes no count); every task goes into a slot
 * of its own type, but a pending task may borrow one of the other type
 * under DHSA. */
static void check_policy_rules(const Decisions *d) {
        for (size_t i = 0; i < d->n_slot_changes; i++) {
                const SlotChange *c = &d->slot_changes[i];

                ck_assert_uint_ge(c->slots[SLOT_MAP], fx_flexslot()->min_map_slots);
                ck_assert_uint_le(c->slots[SLOT_MAP], fx_flexslot()->max_map_slots);
                ck_assert_uint_eq(c->slots[SLOT_REDUCE], fx.nodes[c->node].slots[SLOT_REDUCE]);
        }
        for (size_t i = 0; i < d->n_assignments; i++) {
                const Assignment *a = &d->assignments[i];

                if (fx_core()->dmr.dhsa == DHSA_NONE || a->speculative)
                        ck_assert_int_eq(a->slot, slot_type_of(a->type));
        }
        check_quotas(d);
}

static void check_slots_conserved(const Decisions *d, bool unlimited) {
        int delta = 0;

        for (size_t i = 0; i < d->n_slot_changes; i++)
                delta += (int)d->slot_changes[i].slots[SLOT_MAP] -
                         (int)fx.nodes[d->slot_changes[i].node].slots[SLOT_MAP];
        if (unlimited)
                ck_assert_int_ge(delta, 0);
        else
                ck_assert_int_eq(delta, 0);
}

START_TEST(test_contracts) {
        const Combo *c = &combos[_i];
        _cleanup_(policy_freep) Policy *p = NULL;
        Decisions again = {};
        static char first[8192], second[8192];

        busy_fixture(c);
        ck_assert_int_eq(policy_new_named(&fx.cfg, NULL, &p), 0);
        ck_assert_int_eq(step(p, &fx.s, 100 * SEC, POLICY_STEP_ALL, &fx.d), 0);
        check_policy_rules(&fx.d);
        check_slots_conserved(&fx.d, c->unlimited);

        /* Same inputs, same decisions: from the same Policy and a new one. */
        ck_assert_int_eq(step(p, &fx.s, 100 * SEC, POLICY_STEP_ALL, &again), 0);
        format_decisions(&fx.d, first, sizeof(first));
        format_decisions(&again, second, sizeof(second));
        ck_assert_str_eq(first, second);
        p = policy_free(p);
        ck_assert_int_eq(policy_new_named(&fx.cfg, NULL, &p), 0);
        ck_assert_int_eq(step(p, &fx.s, 100 * SEC, POLICY_STEP_ALL, &again), 0);
        format_decisions(&again, second, sizeof(second));
        ck_assert_str_eq(first, second);
        decisions_done(&again);
}
END_TEST

/* xorshift64: the same random snapshots on every run. */
static uint64_t rng = 1;

static uint32_t rnd(uint32_t n) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return (uint32_t)(rng % n);
}

static double rnd_share(void) {
        return rnd(101) / 100.0;
}

static void random_attempts(uint32_t task) {
        for (unsigned k = 1 + rnd(2); k > 0 && fx.s.n_attempts < ELEMENTSOF(fx.attempts); k--) {
                uint32_t a =
                        fx_run(task, rnd((uint32_t)fx.s.n_nodes), rnd(100) * SEC, rnd(65) * MIB);

                fx.attempts[a].iowait = rnd_share();
                fx.attempts[a].steal = rnd_share() / 2;
                fx.attempts[a].speculative = k == 2;
                fx.attempts[a].kill_count = rnd(3);
                fx.attempts[a].resize_count = rnd(fx.attempts[a].kill_count + 1);
                fx.attempts[a].slot_memory = (100 + rnd(400)) * MIB;
                /* Some in a borrowed slot, which today's policies never
                 * use but must count as taken. */
                if (rnd(4) == 0)
                        fx.attempts[a].slot =
                                fx.attempts[a].slot == SLOT_MAP ? SLOT_REDUCE : SLOT_MAP;
        }
}

/* Up to 8 nodes on two hosts, 4 jobs and 40 tasks, everything random but
 * valid: dead nodes, nodes without slots, over-full nodes, tasks with two
 * attempts, attempts in borrowed slots, saturated hosts. */
static void random_fixture(const Combo *c) {
        uint32_t n_nodes = 1 + rnd(8), n_jobs = 1 + rnd(4), n_tasks = 1 + rnd(40);

        fx_cluster(n_nodes, 0, 0);
        combo_apply(c);
        fx.hosts[1] = (Host){ .id = 101, .pcpus = 1 + rnd(8), .memory = (1 + rnd(16)) * GIB };
        fx.s.n_hosts = 2;
        for (uint32_t i = 0; i < n_nodes; i++) {
                fx.vms[i].host = rnd(2);
                fx.vms[i].cpu_use = rnd(50) / 10.0;
                fx.vms[i].memory_used = rnd(4096) * MIB;
                fx.nodes[i].slots[SLOT_MAP] = rnd(5);
                fx.nodes[i].slots[SLOT_REDUCE] = rnd(3);
                fx.nodes[i].state = rnd(5) ? NODE_ALIVE : NODE_BLACKLISTED;
                fx.nodes[i].steal = rnd_share() / 2;
                fx.nodes[i].iowait = rnd_share() / 2;
                fx.nodes[i].slots_changed_at = rnd(3) ? 0 : rnd(100) * SEC;
        }
        /* Another tenant's VMs beside, which only the lever may touch. */
        for (uint32_t v = n_nodes; v < ELEMENTSOF(fx.vms) && rnd(2); v++) {
                fx_vm(v);
                fx.vms[v].host = rnd(2);
                fx.vms[v].vcpus = 1 + rnd(4);
                fx.vms[v].cpu_weight = 2 + rnd(4096);
                fx.vms[v].cpu_cap = rnd(2) ? 0 : 0.5 + rnd(4);
                fx.vms[v].cpu_use = rnd(40) / 10.0;
                fx.vms[v].other_tenant = true;
                fx.s.n_vms = v + 1;
        }
        stored_profile_make();
        for (uint32_t j = 0; j < n_jobs; j++) {
                fx_job((1 + rnd(50)) * SEC, rnd(3));
                /* Deadlines past, near and far; some jobs with a profile. */
                fx.jobs[j].deadline = rnd(3) ? rnd(300) * SEC : 0;
                fx.jobs[j].stored_profile = rnd(2) ? &profile_of_the_past : NULL;
                fx.jobs[j].input_size = rnd(4) * 64 * MIB;
        }
        for (uint32_t t = 0; t < n_tasks; t++) {
                uint32_t job = rnd(n_jobs);
                uint32_t task =
                        rnd(4) ? fx_map(job, rnd(n_nodes + 1) == n_nodes ? NO_INDEX : rnd(n_nodes))
                               : fx_reduce(job);

                switch (rnd(3)) {
                case 0:
                        fx_done(task);
                        break;
                case 1:
                        random_attempts(task);
                        break;
                default:
                        break;
                }
        }
}

/* The same contracts on random snapshots; under ASan and UBSan this is also
 * the policy core's fuzz test. */
START_TEST(test_contracts_random) {
        const Combo *c = &combos[_i];
        _cleanup_(policy_freep) Policy *p = NULL;

        rng = 0x9e3779b97f4a7c15ULL + (uint64_t)_i;
        /* One Policy for every round: what its layers remember by id meets
         * other snapshots with the same ids. */
        for (int round = 0; round < 200; round++) {
                random_fixture(c);
                if (!p)
                        ck_assert_int_eq(policy_new_named(&fx.cfg, NULL, &p), 0);
                ck_assert_int_eq(step(p, &fx.s, (100 + round) * SEC, POLICY_STEP_ALL, &fx.d), 0);
                check_policy_rules(&fx.d);
                check_slots_conserved(&fx.d, c->unlimited);
        }
}
END_TEST

/* Hand-made decisions on two one-slot nodes: map 0 pending, map 1 done, map
 * 2 running on node 1 (attempt 0). Each case breaks one rule. */
typedef struct BadCase {
        const char *what;
        Assignment assignment;
        Kill kills[2];
        size_t n_kills;
        SlotChange change;
        size_t n_changes;
        VmTarget target;
} BadCase;

#define PLACE_MAP0 \
        { .task = 0, .node = 0, .type = TASK_MAP }
#define VM0 \
        { .vm = 0, .cpu_weight = 1024, .vcpus = 2, .memory = 2 * GIB }

static const BadCase bad_cases[] = {
        { "node out of range", { .task = 0, .node = 2, .type = TASK_MAP }, .target = VM0 },
        { "task out of range", { .task = 9, .node = 0, .type = TASK_MAP }, .target = VM0 },
        { "done task", { .task = 1, .node = 0, .type = TASK_MAP }, .target = VM0 },
        { "running task without a re-placement",
          { .task = 2, .node = 0, .type = TASK_MAP },
          .target = VM0 },
        { "wrong type", { .task = 0, .node = 0, .type = TASK_REDUCE }, .target = VM0 },
        { "full node", { .task = 0, .node = 1, .type = TASK_MAP }, .target = VM0 },
        { "slot removed", PLACE_MAP0, .change = { .node = 0, .slots = { 0, 0 } }, .n_changes = 1,
          .target = VM0 },
        { "slot change out of range", PLACE_MAP0, .change = { .node = 5, .slots = { 1, 0 } },
          .n_changes = 1, .target = VM0 },
        { "attempt killed twice",
          PLACE_MAP0,
          { { .attempt = 0, .reason = KILL_RESIZE }, { .attempt = 0, .reason = KILL_RESIZE } },
          2,
          .target = VM0 },
        { "kill out of range",
          PLACE_MAP0,
          { { .attempt = 3, .reason = KILL_RESIZE } },
          1,
          .target = VM0 },
        { "kill for no reason",
          PLACE_MAP0,
          { { .attempt = 0, .reason = _KILL_REASON_MAX } },
          1,
          .target = VM0 },
        { "no vCPU", PLACE_MAP0, .target = { .vm = 0, .cpu_weight = 1024, .vcpus = 0 } },
        { "memory above the maximum", PLACE_MAP0,
          .target = { .vm = 0, .cpu_weight = 1024, .vcpus = 2, .memory = 5 * GIB } },
        { "VM out of range", PLACE_MAP0, .target = { .vm = 2, .cpu_weight = 1024, .vcpus = 1 } },
};

START_TEST(test_decisions_validate) {
        const BadCase *c = &bad_cases[_i];
        Assignment assignment = c->assignment;
        Kill kills[2] = { c->kills[0], c->kills[1] };
        SlotChange change = c->change;
        VmTarget target = c->target;
        Decisions d = { .assignments = &assignment,
                        .n_assignments = 1,
                        .kills = kills,
                        .n_kills = c->n_kills,
                        .slot_changes = &change,
                        .n_slot_changes = c->n_changes,
                        .vm_targets = &target,
                        .n_vm_targets = 1 };
        Assignment good = PLACE_MAP0;
        Decisions ok = { .assignments = &good, .n_assignments = 1 };
        uint32_t j;

        fx_cluster(2, 1, 0);
        j = fx_job(1, 0);
        fx_map(j, 0);
        fx_done(fx_map(j, 0));
        fx_run(fx_map(j, 1), 1, 0, 0);
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &ok), 0);
        ck_assert_msg(decisions_validate(&fx.s, NULL, &d) == -EBADMSG, "%s accepted", c->what);
        /* Re-placing the running map frees its slot and lets it be placed,
         * and so does killing it to run again. */
        good = (Assignment){ .task = 2, .node = 1, .type = TASK_MAP };
        kills[0] = (Kill){ .attempt = 0, .reason = KILL_REPLACE };
        ok = (Decisions){ .assignments = &good, .n_assignments = 1, .kills = kills, .n_kills = 1 };
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &ok), 0);
        kills[0].reason = KILL_RETRY;
        ck_assert_int_eq(decisions_validate(&fx.s, NULL, &ok), 0);
}
END_TEST

/* Every policy in the tables is exercised by some combination above. */
START_TEST(test_combos_cover_tables) {
#define COVERED(table, field)                                                  \
        for (size_t i = 0; table[i]; i++) {                                    \
                bool found = false;                                            \
                for (size_t k = 0; k < ELEMENTSOF(combos); k++)                \
                        found |= strcmp(combos[k].field, table[i]->name) == 0; \
                ck_assert_msg(found, "%s not covered", table[i]->name);        \
        }
        COVERED(job_scheduler_table, scheduler)
        COVERED(slot_manager_table, slot_manager)
        COVERED(speculation_table, speculation)
        COVERED(vm_allocator_table, vm_allocator)
#undef COVERED
        for (DhsaMode m = DHSA_NONE; m < _DHSA_MODE_MAX; m++) {
                bool found = false;

                for (size_t k = 0; k < ELEMENTSOF(combos); k++)
                        found |= combos[k].dhsa == m;
                ck_assert_msg(found, "DHSA mode %d not covered", m);
        }
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

        tc = tcase_create("vm-allocator");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_vm_static);
        tcase_add_test(tc, test_vm_none);
        tcase_add_test(tc, test_vm_homo);
        tcase_add_test(tc, test_vm_drs);
        tcase_add_test(tc, test_vm_demand);
        tcase_add_test(tc, test_vm_demand_unmeasured);
        tcase_add_test(tc, test_vm_demand_starves_low_use_on_busy_host);
        tcase_add_test(tc, test_vm_flexslot);
        tcase_add_test(tc, test_vm_critical_first);
        tcase_add_test(tc, test_vm_memory_scaled_to_host);
        suite_add_tcase(s, tc);

        tc = tcase_create("contracts");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_loop_test(tc, test_contracts, 0, (int)ELEMENTSOF(combos));
        tcase_add_loop_test(tc, test_contracts_random, 0, (int)ELEMENTSOF(combos));
        tcase_add_test(tc, test_combos_cover_tables);
        tcase_add_loop_test(tc, test_decisions_validate, 0, (int)ELEMENTSOF(bad_cases));
        suite_add_tcase(s, tc);
        return s;
}

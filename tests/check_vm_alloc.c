/* SPDX-License-Identifier: MIT */
/* The VM allocators (policy/layers/vm-alloc.c) through policy_step(): the
 * static, none, homo and drs allocators, demand's shares of a host, critical jobs
 * first, FlexSlot's and its dead band, and memory scaled to the host. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/policy.h"
#include "tests.h"
#include "check_policy.h"

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

START_TEST(test_vm_none) {
        /* The cluster static resizes above: none leaves every VM alone. */
        fx_cluster(4, 2, 0);
        fx.cfg.vm_allocator = "none";
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

/* The targets of the last step that change a VM's CPU weight or cap (a
 * slot's memory moves with the slots). */
static size_t cpu_targets(void) {
        size_t n = 0;

        for (size_t i = 0; i < fx.d.n_vm_targets; i++) {
                const VmTarget *t = &fx.d.vm_targets[i];

                n += t->cpu_weight != fx.vms[t->vm].cpu_weight ||
                     t->cpu_cap != fx.vms[t->vm].cpu_cap;
        }
        return n;
}

/* Applies every target of the last step to its VM, as an agent would. */
static void apply_targets(void) {
        for (size_t i = 0; i < fx.d.n_vm_targets; i++) {
                const VmTarget *t = &fx.d.vm_targets[i];

                fx.vms[t->vm].cpu_weight = t->cpu_weight;
                fx.vms[t->vm].cpu_cap = t->cpu_cap;
                fx.vms[t->vm].vcpus = t->vcpus;
                fx.vms[t->vm].memory = t->memory;
        }
}

/* The flexslot allocator's dead band: a steady input gives no target once
 * applied; a change beyond vm_target_margin goes out, but not before
 * vm_target_interval since the last; one within the margin never does. */
START_TEST(test_vm_flexslot_hold) {
        VmAllocatorSettings *set;
        size_t changes = 0;

        fx_cluster(4, 2, 0);
        fx.cfg.vm_allocator = "flexslot";
        set = policy_config_settings(&fx.cfg, &vm_allocator_settings_schema);
        ck_assert_double_eq(set->vm_target_margin, 0.1);
        ck_assert_uint_eq(set->vm_target_interval, 30 * SEC);
        /* Slots of 1, 2, 2 and 2 CPUs on 8 pCPUs: a quarter spare each,
         * weights 4096 x 1.25 / 8 and 4096 x 2.25 / 8. */
        fx.nodes[0].slots[SLOT_MAP] = 1;
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, 20 * SEC), 0);
        ck_assert_uint_eq(cpu_targets(), 4);
        ck_assert_uint_eq(fx.d.vm_targets[0].cpu_weight, 640);
        ck_assert_uint_eq(fx.d.vm_targets[1].cpu_weight, 1152);
        apply_targets();
        /* Steady: no target at all. */
        for (unsigned t = 21; t <= 120; t++) {
                ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, t * SEC), 0);
                ck_assert_uint_eq(fx.d.n_vm_targets, 0);
        }
        /* Node 0 gets its slot back at 125 s: 1024 each, 60 % and 11 % from
         * what they have, but the last change was at 20 s: it goes out at
         * once. */
        fx.nodes[0].slots[SLOT_MAP] = 2;
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, 125 * SEC), 0);
        ck_assert_uint_eq(cpu_targets(), 4);
        ck_assert_uint_eq(fx.d.vm_targets[0].cpu_weight, 1024);
        ck_assert_uint_eq(fx.d.vm_targets[1].cpu_weight, 1024);
        apply_targets();
        /* Taken away again 5 s later: held until 30 s after the last
         * change, then sent. */
        fx.nodes[0].slots[SLOT_MAP] = 1;
        for (unsigned t = 130; t < 155; t++) {
                ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, t * SEC), 0);
                ck_assert_uint_eq(cpu_targets(), 0);
        }
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, 155 * SEC), 0);
        ck_assert_uint_eq(cpu_targets(), 4);
        ck_assert_uint_eq(fx.d.vm_targets[0].cpu_weight, 640);
        apply_targets();
        /* Node 0's slot flickers every second for two minutes (as the
         * stragglers the slot manager judges come and go): its VM's weight
         * changes at most once every 30 s (at 185, 216 and 247 s), not
         * every second. */
        for (unsigned t = 156; t < 276; t++) {
                fx.nodes[0].slots[SLOT_MAP] = t % 2 ? 2 : 1;
                ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, t * SEC), 0);
                changes += cpu_targets() > 0;
                apply_targets();
        }
        ck_assert_uint_eq(changes, 3);
        fx.nodes[0].slots[SLOT_MAP] = 1;
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, 300 * SEC), 0);
        apply_targets();
        /* A weight pool 7 % larger moves every weight by 7 %, within the
         * margin: nothing, however long. */
        set->weight_per_vm = 1096;
        for (unsigned t = 310; t <= 400; t += 10) {
                ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, t * SEC), 0);
                ck_assert_uint_eq(cpu_targets(), 0);
        }
        /* A target the agent has not applied yet is given again as it was,
         * not as the step would compute it anew. */
        fx.vms[1].cpu_weight = 1024;
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_CONTROL, 410 * SEC), 0);
        ck_assert_uint_eq(cpu_targets(), 1);
        ck_assert_uint_eq(fx.d.vm_targets[0].cpu_weight, 1152);
}
END_TEST

Suite *suite_vm_alloc(void) {
        Suite *s = suite_create("vm_alloc");
        TCase *tc;

        tc = tcase_create("allocators");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_vm_static);
        tcase_add_test(tc, test_vm_none);
        tcase_add_test(tc, test_vm_homo);
        tcase_add_test(tc, test_vm_drs);
        tcase_add_test(tc, test_vm_demand);
        tcase_add_test(tc, test_vm_demand_unmeasured);
        tcase_add_test(tc, test_vm_demand_starves_low_use_on_busy_host);
        tcase_add_test(tc, test_vm_flexslot);
        tcase_add_test(tc, test_vm_flexslot_hold);
        tcase_add_test(tc, test_vm_critical_first);
        tcase_add_test(tc, test_vm_memory_scaled_to_host);
        suite_add_tcase(s, tc);
        return s;
}

/* SPDX-License-Identifier: MIT */
/* DynamicMR (Tang, Lee and He, TCC 2014) in the policy core: the arithmetic
 * of DHSA, the load manager and SEPB, every case of PI-DHSA and PD-DHSA
 * through the fifo and fair schedulers, slot weights, Slot PreScheduling,
 * and SEPB on LATE with the paper's six-job example. */
#include <errno.h>
#include <string.h>

#include "common/macro.h"
#include "policy/layers/dynamicmr.h"
#include "tests.h"
#include "check_policy.h"

static size_t count_assigned(TaskType type, SlotType slot) {
        size_t n = 0;

        for (size_t i = 0; i < fx.d.n_assignments; i++)
                n += fx.d.assignments[i].type == type && fx.d.assignments[i].slot == slot;
        return n;
}

static size_t count_speculative(void) {
        size_t n = 0;

        for (size_t i = 0; i < fx.d.n_assignments; i++)
                n += fx.d.assignments[i].speculative;
        return n;
}

static uint32_t assigned_job(size_t i) {
        return fx.tasks[fx.d.assignments[i].task].job;
}

/* One assignment step for node's heartbeat, of a new Policy. */
static int beat(uint32_t node, usec_t now) {
        _cleanup_(policy_freep) Policy *p = NULL;
        PolicyStepArgs args = { .now = now,
                                .flags = POLICY_STEP_ASSIGN | POLICY_STEP_HEARTBEAT,
                                .node = node };
        int r = policy_new_named(&fx.cfg, NULL, &p);

        if (r < 0)
                return r;
        return policy_step(p, &fx.s, &args, &fx.d);
}

static void maps(uint32_t job, unsigned n, uint32_t loc) {
        for (unsigned i = 0; i < n; i++)
                fx_map(job, loc);
}

static void reduces(uint32_t job, unsigned n) {
        for (unsigned i = 0; i < n; i++)
                fx_reduce(job);
}

/* ---- settings and arithmetic ---- */

START_TEST(test_settings_validate) {
        static const char *const keys[] = { "reduce_slot_weight", "borrow_map_slots",
                                            "jobs_checked", "dhsa" };
        Policy *p = NULL;
        ConfError err;

        policy_config_done(&fx.cfg);
        ck_assert_int_eq(policy_config_init(&fx.cfg), 0);
        fx.cfg.speculation = "sepb";
        ck_assert_int_eq(fx_core()->dmr.dhsa, DHSA_NONE);
        fx_core()->dmr.prescheduling = true;
        ck_assert_int_eq(policy_new_named(&fx.cfg, &err, &p), -EINVAL);
        ck_assert_str_eq(err.key, "prescheduling");
        fx_core()->dmr.load_balance = true;
        ck_assert_int_eq(policy_new_named(&fx.cfg, &err, &p), 0);
        p = policy_free(p);
        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                CoreSettings core = *fx_core();
                LateSettings late = *fx_late();

                if (i == 0)
                        fx_core()->dmr.reduce_slot_weight = 0;
                else if (i == 1)
                        fx_core()->dmr.borrow_map_slots = 1.5;
                else if (i == 2)
                        fx_late()->jobs_checked = -0.1;
                else
                        fx_core()->dmr.dhsa = _DHSA_MODE_MAX;
                ck_assert_int_eq(policy_new_named(&fx.cfg, &err, &p), -EINVAL);
                ck_assert_str_eq(err.key, keys[i]);
                *fx_core() = core;
                *fx_late() = late;
        }
        ck_assert_ptr_null(p);
}
END_TEST

typedef struct CaseRow {
        unsigned n_map, s_map, n_reduce, s_reduce;
        DhsaCase c;
} CaseRow;

static const CaseRow case_rows[] = {
        { 3, 4, 1, 2, DHSA_CASE_1 },
        { 4, 4, 2, 2, DHSA_CASE_1 },
        { 9, 4, 1, 2, DHSA_CASE_2 },
        { 1, 4, 5, 2, DHSA_CASE_3 },
        { 9, 4, 5, 2, DHSA_CASE_4 },
        /* Ties: a phase whose tasks fill its slots lends nothing. */
        { 9, 4, 2, 2, DHSA_CASE_4 },
        { 4, 4, 5, 2, DHSA_CASE_4 },
};

START_TEST(test_dhsa_cases) {
        for (size_t i = 0; i < ELEMENTSOF(case_rows); i++) {
                const CaseRow *c = &case_rows[i];

                ck_assert_msg(dhsa_case(c->n_map, c->s_map, c->n_reduce, c->s_reduce) == c->c,
                              "row %zu", i);
        }
}
END_TEST

START_TEST(test_dhsa_borrow_target) {
        const unsigned even[_SLOT_TYPE_MAX] = { 1, 1 }, heavy[_SLOT_TYPE_MAX] = { 1, 2 };
        const unsigned s[_SLOT_TYPE_MAX] = { 4, 4 };

        /* Case 2: 5 maps too many, 3 reduce slots unused: 3 of them. */
        ck_assert_uint_eq(dhsa_borrow_target((unsigned[]){ 9, 1 }, s, even, TASK_MAP), 3);
        ck_assert_uint_eq(dhsa_borrow_target((unsigned[]){ 9, 1 }, s, even, TASK_REDUCE), 0);
        /* ... of weight 2: they hold 6 maps, and 5 want one. */
        ck_assert_uint_eq(dhsa_borrow_target((unsigned[]){ 9, 1 }, s, heavy, TASK_MAP), 5);
        /* Case 3, the other way. */
        ck_assert_uint_eq(dhsa_borrow_target((unsigned[]){ 2, 7 }, s, even, TASK_REDUCE), 2);
        ck_assert_uint_eq(dhsa_borrow_target((unsigned[]){ 2, 7 }, s, heavy, TASK_REDUCE), 1);
        /* Cases 1 and 4. */
        ck_assert_uint_eq(dhsa_borrow_target((unsigned[]){ 3, 3 }, s, even, TASK_MAP), 0);
        ck_assert_uint_eq(dhsa_borrow_target((unsigned[]){ 9, 9 }, s, even, TASK_MAP), 0);
}
END_TEST

/* 2.1: 8 map and 4 reduce slots of weights 1 and 2 weigh 16 and run 16
 * maps or 8/2 + 4 = 8 reduces. */
START_TEST(test_slot_weights_arithmetic) {
        ck_assert_uint_eq(8 * 1 + 4 * 2, 16);
        ck_assert_uint_eq(dhsa_max_tasks(8, 1, 4, 2), 16);
        ck_assert_uint_eq(dhsa_max_tasks(4, 2, 8, 1), 8);
        ck_assert_uint_eq(dhsa_slots_taken(3, 1, 2), 2);
        ck_assert_uint_eq(dhsa_slots_taken(3, 2, 1), 6);
        ck_assert_uint_eq(dhsa_tasks_held(3, 2, 1), 6);
        ck_assert_uint_eq(dhsa_tasks_held(3, 1, 2), 1);
        /* Unequal weights that do not divide each other: 3 units a map, 2
         * a reduce slot. */
        ck_assert_uint_eq(dhsa_slots_taken(3, 3, 2), 5);
        ck_assert_uint_eq(dhsa_max_tasks(2, 3, 4, 2), 4);
}
END_TEST

/* 2.3.1 Steps 1-3 and Definitions 1 and 2. */
START_TEST(test_load_manager_arithmetic) {
        /* 30 maps running or pending for 40 map slots: 0.75. */
        ck_assert_double_eq(load_factor(10, 20, 40), 0.75);
        ck_assert_double_eq(load_factor(3, 0, 0), 0);
        /* A node of 8 slots may use ceil(0.75 x 8) = 6; 7/12 x 12 is 7. */
        ck_assert_uint_eq(load_usable_slots(0.75, 8), 6);
        ck_assert_uint_eq(load_usable_slots(0.7, 8), 6);
        ck_assert_uint_eq(load_usable_slots(7.0 / 12.0, 12), 7);
        ck_assert_uint_eq(load_usable_slots(1.6, 8), 8);
        ck_assert_uint_eq(load_usable_slots(0, 8), 0);
        /* Under the line (4 used of 6 usable): 2 allowable, 2 extra. */
        ck_assert_uint_eq(load_allowable_idle(6, 4), 2);
        ck_assert_uint_eq(load_extra_idle(8, 4, 6), 2);
        /* Above it (7 used): none allowable, 1 extra. */
        ck_assert_uint_eq(load_allowable_idle(6, 7), 0);
        ck_assert_uint_eq(load_extra_idle(8, 7, 6), 1);
        ck_assert_uint_eq(load_extra_idle(8, 8, 6), 0);
}
END_TEST

START_TEST(test_sepb_arithmetic) {
        /* 2.2.1: 4 of 6 jobs checked; 0 checks none, 1 all. */
        ck_assert_uint_eq(sepb_jobs_checked(4.0 / 6.0, 6), 4);
        ck_assert_uint_eq(sepb_jobs_checked(0.5, 5), 3);
        ck_assert_uint_eq(sepb_jobs_checked(0, 6), 0);
        ck_assert_uint_eq(sepb_jobs_checked(1, 6), 6);
        ck_assert_uint_eq(sepb_jobs_checked(1, 0), 0);
        /* (1) and (2): skip. */
        ck_assert(sepb_skips(0, 20, 0, 0));
        /* Not (1): the job has pending tasks of its own. */
        ck_assert(!sepb_skips(3, 20, 5, 1));
        /* (1) without (2) or (3). */
        ck_assert(!sepb_skips(0, 0, 0, 1));
        /* (1) and (3): pending tasks of the other type that may borrow. */
        ck_assert(sepb_skips(0, 0, 4, 0.5));
        ck_assert(!sepb_skips(0, 0, 4, 0));
}
END_TEST

/* ---- PI-DHSA ---- */

static void pi_fixture(const char *scheduler, unsigned n, unsigned map_slots,
                       unsigned reduce_slots) {
        fx_cluster(n, map_slots, reduce_slots);
        fx.cfg.scheduler = scheduler;
        fx_core()->dmr.dhsa = DHSA_PI;
        fx_core()->reduce_slowstart = 0;
}

/* Case 1: node 0's map slots are busy and node 1 has two free; two maps
 * wait. N_M = S_M = 4: node 0's idle reduce slots stay idle, the maps go
 * to node 1. One map more (N_M = 5 > S_M, N_R = 0 < S_R) is case 2: node 0
 * lends one reduce slot. */
START_TEST(test_pi_case1_no_borrowing) {
        uint32_t j;

        pi_fixture("fifo", 2, 2, 2);
        j = fx_job(1 * SEC, 0);
        fx_run(fx_map(j, 0), 0, 0, 0);
        fx_run(fx_map(j, 0), 0, 0, 0);
        maps(j, 2, NO_INDEX);
        ck_assert_int_eq(beat(0, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 2);
        ck_assert_uint_eq(count_assigned(TASK_MAP, SLOT_MAP), 2);
        ck_assert_uint_eq(fx.d.assignments[0].node, 1);

        fx_map(j, NO_INDEX);
        ck_assert_int_eq(beat(0, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        ck_assert_int_eq(fx.d.assignments[0].type, TASK_MAP);
        ck_assert_int_eq(fx.d.assignments[0].slot, SLOT_REDUCE);
        ck_assert_uint_eq(fx.d.n_slot_changes, 0);
}
END_TEST

/* Case 2: five maps and one reduce for two slots of each type. The reduce
 * gets its slot first, then the one reduce slot left idle runs a map. */
START_TEST(test_pi_case2_maps_borrow) {
        uint32_t j;

        pi_fixture("fifo", 1, 2, 2);
        j = fx_job(1 * SEC, 0);
        maps(j, 5, 0);
        fx_reduce(j);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 4);
        ck_assert_uint_eq(count_assigned(TASK_MAP, SLOT_MAP), 2);
        ck_assert_uint_eq(count_assigned(TASK_REDUCE, SLOT_REDUCE), 1);
        ck_assert_uint_eq(count_assigned(TASK_MAP, SLOT_REDUCE), 1);
        ck_assert_int_eq(fx.d.assignments[3].slot, SLOT_REDUCE);
        ck_assert(fx.d.assignments[3].local);
        /* Stock Hadoop leaves the reduce slot idle. */
        fx_core()->dmr.dhsa = DHSA_NONE;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 3);
        ck_assert_uint_eq(count_assigned(TASK_MAP, SLOT_REDUCE), 0);
}
END_TEST

/* Case 3: one map and five reduces: a reduce runs in the idle map slot. */
START_TEST(test_pi_case3_reduces_borrow) {
        uint32_t j;

        pi_fixture("fair", 1, 2, 2);
        j = fx_job(1 * SEC, 0);
        fx_map(j, 0);
        reduces(j, 5);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 4);
        ck_assert_uint_eq(count_assigned(TASK_MAP, SLOT_MAP), 1);
        ck_assert_uint_eq(count_assigned(TASK_REDUCE, SLOT_REDUCE), 2);
        ck_assert_uint_eq(count_assigned(TASK_REDUCE, SLOT_MAP), 1);
}
END_TEST

/* Case 4: node 0's map slots are idle because A's maps wait for node 1
 * (delay scheduling), and B's reduces are more than the reduce slots. N_M =
 * 5 > S_M = 4 and N_R = 4 > S_R = 2: nothing moves. With one pending map
 * (N_M = 3 < 4) it is case 3, and a reduce takes one map slot: min(N_R -
 * S_R, S_M - N_M) = 1. */
START_TEST(test_pi_case4_no_borrowing) {
        uint32_t a, b;

        pi_fixture("fair", 2, 2, 1);
        a = fx_job(1 * SEC, 0);
        b = fx_job(2 * SEC, 1);
        fx_run(fx_map(a, 1), 1, 0, 0);
        fx_run(fx_map(a, 1), 1, 0, 0);
        maps(a, 3, 1);
        fx_run(fx_reduce(b), 1, 0, 0);
        reduces(b, 3);
        ck_assert_int_eq(beat(0, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        ck_assert_uint_eq(count_assigned(TASK_REDUCE, SLOT_REDUCE), 1);

        fx_done(2);
        fx_done(3);
        ck_assert_int_eq(beat(0, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 2);
        ck_assert_uint_eq(count_assigned(TASK_REDUCE, SLOT_REDUCE), 1);
        ck_assert_uint_eq(count_assigned(TASK_REDUCE, SLOT_MAP), 1);
}
END_TEST

/* percentageOfBorrowedReduceSlots and percentageOfBorrowedMapSlots: the
 * share of a node's idle slots of the type the other type may take, rounded
 * down. Case 2 on a node of 2 map and 4 reduce slots with ten maps; then
 * case 3 on one of 4 map slots and 1 reduce slot with ten reduces. */
START_TEST(test_pi_borrow_limits) {
        static const struct {
                double share;
                size_t borrowed;
        } limits[] = { { 1, 4 }, { 0.5, 2 }, { 0.3, 1 }, { 0, 0 } };

        for (size_t i = 0; i < ELEMENTSOF(limits); i++) {
                pi_fixture("fifo", 1, 2, 4);
                fx_core()->dmr.borrow_reduce_slots = limits[i].share;
                maps(fx_job(1 * SEC, 0), 10, 0);
                ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
                ck_assert_uint_eq(count_assigned(TASK_MAP, SLOT_MAP), 2);
                ck_assert_uint_eq(count_assigned(TASK_MAP, SLOT_REDUCE), limits[i].borrowed);

                pi_fixture("fifo", 1, 4, 1);
                fx_core()->dmr.borrow_map_slots = limits[i].share;
                reduces(fx_job(1 * SEC, 0), 10);
                ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
                ck_assert_uint_eq(count_assigned(TASK_REDUCE, SLOT_REDUCE), 1);
                ck_assert_uint_eq(count_assigned(TASK_REDUCE, SLOT_MAP), limits[i].borrowed);
        }
}
END_TEST

/* ---- slot weights ---- */

/* 2.1's node of 8 map and 4 reduce slots, of weights 1 and 2: 16 maps (8 in
 * the reduce slots, two to a slot) or 8 reduces (4 in the map slots, each
 * taking two). The core counts one attempt per slot: the node's reduce
 * slots become 8 places for the 16 maps, its map slots 4 for the 8
 * reduces. */
START_TEST(test_weights_16_maps_or_8_reduces) {
        pi_fixture("fifo", 1, 8, 4);
        fx_core()->dmr.reduce_slot_weight = 2;
        maps(fx_job(1 * SEC, 0), 20, 0);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 16);
        ck_assert_uint_eq(count_assigned(TASK_MAP, SLOT_MAP), 8);
        ck_assert_uint_eq(count_assigned(TASK_MAP, SLOT_REDUCE), 8);
        ck_assert_uint_eq(fx.d.n_slot_changes, 1);
        ck_assert_uint_eq(fx.d.slot_changes[0].slots[SLOT_MAP], 8);
        ck_assert_uint_eq(fx.d.slot_changes[0].slots[SLOT_REDUCE], 8);

        pi_fixture("fifo", 1, 8, 4);
        fx_core()->dmr.reduce_slot_weight = 2;
        reduces(fx_job(1 * SEC, 0), 20);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 8);
        ck_assert_uint_eq(count_assigned(TASK_REDUCE, SLOT_REDUCE), 4);
        ck_assert_uint_eq(count_assigned(TASK_REDUCE, SLOT_MAP), 4);
        ck_assert_uint_eq(fx.d.n_slot_changes, 1);
        ck_assert_uint_eq(fx.d.slot_changes[0].slots[SLOT_MAP], 4);
        ck_assert_uint_eq(fx.d.slot_changes[0].slots[SLOT_REDUCE], 4);
}
END_TEST

/* The reshaped counts are re-derived at every step from what the policy
 * remembers of the node: after the 16 maps, two of those in reduce slots
 * finished (6 maps hold 3 reduce slots) and a job with two reduces came.
 * One reduce slot is free, not the 2 the node's 8 counted places less 6
 * would say, and the count becomes 4 - 3 + 6 = 7 places. A new Policy,
 * which never reshaped the node, takes the 8 for configured slots. */
START_TEST(test_weights_remembered_by_node) {
        uint32_t j, r;

        pi_fixture("fifo", 1, 8, 4);
        fx_core()->dmr.reduce_slot_weight = 2;
        j = fx_job(1 * SEC, 0);
        maps(j, 16, 0);
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 16);

        fx.nodes[0].slots[SLOT_REDUCE] = 8;
        for (uint32_t t = 0; t < 16; t++)
                if (t < 14)
                        fx.attempts[fx_run(t, 0, 10 * SEC, 0)].slot =
                                t < 8 ? SLOT_MAP : SLOT_REDUCE;
                else
                        fx_done(t);
        r = fx_job(2 * SEC, 0);
        reduces(r, 2);
        ck_assert_int_eq(fx_step_kept(POLICY_STEP_ASSIGN, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        ck_assert_int_eq(fx.d.assignments[0].slot, SLOT_REDUCE);
        ck_assert_uint_eq(fx.d.n_slot_changes, 1);
        ck_assert_uint_eq(fx.d.slot_changes[0].slots[SLOT_REDUCE], 7);

        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 20 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 2);
}
END_TEST

/* ---- PD-DHSA ---- */

static void pd_fixture(const char *scheduler, unsigned map_slots, unsigned reduce_slots) {
        pi_fixture(scheduler, 1, map_slots, reduce_slots);
        fx_core()->dmr.dhsa = DHSA_PD;
}

static void check_order(const TaskType *types, const SlotType *slots, size_t n) {
        ck_assert_uint_eq(fx.d.n_assignments, n);
        for (size_t i = 0; i < n; i++) {
                ck_assert_int_eq(fx.d.assignments[i].type, types[i]);
                ck_assert_int_eq(fx.d.assignments[i].slot, slots[i]);
        }
}

/* The four attempts of Fig. 4 for one pool, in order: (1) a map in a map
 * slot, (2) a reduce in a reduce slot, then (3) a map in a reduce slot;
 * and (4) a reduce in a map slot for a pool with no map to run. Under fifo
 * the queue is the pool. */
START_TEST(test_pd_attempts_in_order) {
        uint32_t j;

        pd_fixture("fifo", 1, 2);
        j = fx_job(1 * SEC, 0);
        maps(j, 3, 0);
        fx_reduce(j);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        check_order((TaskType[]){ TASK_MAP, TASK_REDUCE, TASK_MAP },
                    (SlotType[]){ SLOT_MAP, SLOT_REDUCE, SLOT_REDUCE }, 3);

        pd_fixture("fair", 2, 1);
        reduces(fx_job(1 * SEC, 0), 3);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        check_order((TaskType[]){ TASK_REDUCE, TASK_REDUCE, TASK_REDUCE },
                    (SlotType[]){ SLOT_REDUCE, SLOT_MAP, SLOT_MAP }, 3);
}
END_TEST

/* Two pools of one job each, A (pool 0) and B (pool 1), on one node; each
 * pool's share of all slots is what max-min gives it. */
static void pd_pools(unsigned map_slots, unsigned reduce_slots, unsigned a_maps, unsigned a_reduces,
                     unsigned b_maps, unsigned b_reduces) {
        uint32_t a, b;

        pd_fixture("fair", map_slots, reduce_slots);
        a = fx_job(1 * SEC, 0);
        b = fx_job(2 * SEC, 1);
        maps(a, a_maps, 0);
        reduces(a, a_reduces);
        maps(b, b_maps, 0);
        reduces(b, b_reduces);
}

static size_t count_job(uint32_t job, TaskType type, SlotType slot) {
        size_t n = 0;

        for (size_t i = 0; i < fx.d.n_assignments; i++)
                n += assigned_job(i) == job && fx.d.assignments[i].type == type &&
                     fx.d.assignments[i].slot == slot;
        return n;
}

/* The pools' cases of 2.1.2 on one node, two slots of each kind in all.
 * Case (a): A has no map (below its map share) and three reduces (above
 * its reduce share), on 3 map and 1 reduce slots; B has five maps. A's
 * second reduce takes a map slot before B gets a third: 2 slots each of
 * the 4. Case (b) is the mirror: A's second map takes a reduce slot before
 * B's reduces get a third. Case (c): A needs one map, less than its
 * shares: it lends the rest, and B (five of each) gets 3 of the 4 slots.
 * Case (d): A wants more of both than its shares and borrows B's unused
 * map share: B has a single reduce, A gets both map slots and a reduce
 * slot. */
typedef struct PoolCase {
        unsigned map_slots, reduce_slots;
        unsigned a_maps, a_reduces, b_maps, b_reduces;
        unsigned want[2][_TASK_TYPE_MAX][_SLOT_TYPE_MAX]; /* by job (A, B) */
} PoolCase;

#define WANT(mm, mr, rm, rr)                                    \
        {                                                       \
                { [SLOT_MAP] = (mm), [SLOT_REDUCE] = (mr) }, {  \
                        [SLOT_MAP] = (rm), [SLOT_REDUCE] = (rr) \
                }                                               \
        }

static const PoolCase pool_cases[] = {
        { 3, 1, 0, 3, 5, 0, { WANT(0, 0, 1, 1), WANT(2, 0, 0, 0) } },
        { 1, 3, 3, 0, 0, 5, { WANT(1, 1, 0, 0), WANT(0, 0, 0, 2) } },
        { 2, 2, 1, 0, 5, 5, { WANT(1, 0, 0, 0), WANT(1, 0, 0, 2) } },
        { 2, 2, 5, 5, 0, 1, { WANT(2, 0, 0, 1), WANT(0, 0, 0, 1) } },
};

START_TEST(test_pd_pool_cases) {
        const PoolCase *c = &pool_cases[_i];

        pd_pools(c->map_slots, c->reduce_slots, c->a_maps, c->a_reduces, c->b_maps, c->b_reduces);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 4);
        for (uint32_t job = 0; job < 2; job++)
                for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                        for (SlotType slot = SLOT_MAP; slot < _SLOT_TYPE_MAX; slot++)
                                ck_assert_msg(count_job(job, type, slot) ==
                                                      c->want[job][type][slot],
                                              "case (%c): job %u, type %d in slot %d", 'a' + _i,
                                              job, type, slot);
}
END_TEST

/* PI-DHSA is fair within each phase instead: in case (a), B's maps take all
 * three map slots and A's one reduce the reduce slot. */
START_TEST(test_pi_against_pd_case_a) {
        pd_pools(3, 1, 0, 3, 5, 0);
        fx_core()->dmr.dhsa = DHSA_PI;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 4);
        ck_assert_uint_eq(count_job(0, TASK_REDUCE, SLOT_REDUCE), 1);
        ck_assert_uint_eq(count_job(1, TASK_MAP, SLOT_MAP), 3);
}
END_TEST

/* visitedForMap: node 0 holds no split of A's maps, whose node 1 is busy,
 * and A started waiting for it just now. Every pool fails all four
 * attempts; the second round relaxes locality for A, which was visited,
 * and node 0 runs both. PI-DHSA (delay scheduling alone) leaves it idle. */
START_TEST(test_pd_visited_for_map) {
        uint32_t x, a;

        fx_cluster(2, 2, 0);
        fx.cfg.scheduler = "fair";
        fx_core()->dmr.dhsa = DHSA_PD;
        x = fx_job(1 * SEC, 0);
        fx_run(fx_map(x, 1), 1, 0, 0);
        fx_run(fx_map(x, 1), 1, 0, 0);
        a = fx_job(2 * SEC, 1);
        maps(a, 2, 1);
        ck_assert_int_eq(beat(0, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 2);
        ck_assert_uint_eq(assigned_job(0), a);
        ck_assert(!fx.d.assignments[0].local);
        fx_core()->dmr.dhsa = DHSA_PI;
        ck_assert_int_eq(beat(0, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
}
END_TEST

/* ---- the load manager and Slot PreScheduling ---- */

/* Four maps for 8 map slots: a load of 0.5, so each node of 4 may run 2. */
START_TEST(test_load_balance_caps_nodes) {
        fx_cluster(2, 4, 0);
        fx_core()->dmr.load_balance = true;
        maps(fx_job(1 * SEC, 0), 4, NO_INDEX);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 4);
        ck_assert_uint_eq(fx.d.assignments[0].node, 0);
        ck_assert_uint_eq(fx.d.assignments[1].node, 0);
        ck_assert_uint_eq(fx.d.assignments[2].node, 1);
        fx_core()->dmr.load_balance = false;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 10 * SEC), 0);
        for (size_t i = 0; i < fx.d.n_assignments; i++)
                ck_assert_uint_eq(fx.d.assignments[i].node, 0);
}
END_TEST

/* Fig. 6 in small: node 0 runs 3 of B's maps on its 4 slots; J1 (the head
 * job, submitted first) has a map whose split is on node 0. 4 maps for 8
 * slots: node 0 may use 2, so it has no allowable idle map slot, and 1
 * extra. PreScheduling gives the extra slot to J1's local map; without it
 * node 0 starts nothing. A job behind J1 with a local map does not pass J1
 * when J1 has none here (5 maps: usable 3, still no allowable slot). */
START_TEST(test_prescheduling_extra_slot) {
        uint32_t b, j1, j3, t;

        fx_cluster(2, 4, 0);
        fx.cfg.scheduler = "fair";
        fx_core()->dmr.load_balance = true;
        b = fx_job(1 * SEC, 1);
        for (int i = 0; i < 3; i++)
                fx_run(fx_map(b, 0), 0, 0, 0);
        j1 = fx_job(2 * SEC, 0);
        t = fx_map(j1, 0);
        ck_assert_int_eq(beat(0, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
        fx_core()->dmr.prescheduling = true;
        ck_assert_int_eq(beat(0, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        fx_check_assignment(0, t, 0, true, false);

        fx.tasks[t].locations[0] = 1;
        j3 = fx_job(3 * SEC, 0);
        fx_map(j3, 0);
        ck_assert_int_eq(beat(0, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
}
END_TEST

/* The second case, under DHSA: node 0's map slots are busy, its reduce
 * slots idle; J1's map has its split there. N_M = 3 < S_M: PI-DHSA alone
 * borrows nothing (node 1 has a free map slot); PreScheduling lends a
 * reduce slot to the local map, within the borrow limit. */
START_TEST(test_prescheduling_borrows_reduce_slot) {
        uint32_t b, j1, t;

        pi_fixture("fair", 2, 2, 2);
        fx_core()->dmr.load_balance = true;
        b = fx_job(1 * SEC, 1);
        fx_run(fx_map(b, 0), 0, 0, 0);
        fx_run(fx_map(b, 0), 0, 0, 0);
        j1 = fx_job(2 * SEC, 0);
        t = fx_map(j1, 0);
        ck_assert_int_eq(beat(0, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
        fx_core()->dmr.prescheduling = true;
        ck_assert_int_eq(beat(0, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        fx_check_assignment(0, t, 0, true, false);
        ck_assert_int_eq(fx.d.assignments[0].slot, SLOT_REDUCE);
        fx_core()->dmr.borrow_reduce_slots = 0;
        ck_assert_int_eq(beat(0, 10 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
}
END_TEST

/* ---- SEPB ---- */

/* 2.2.1's six jobs on 8 nodes of 5 map slots, all but 4 slots of node 7
 * busy. J1 .. J6 run 5, 4, 3, 2, 1 and 0 stragglers (progress 0.1 in 100 s)
 * beside k + 1 fast attempts (0.8), so that LATE (SlowTaskThreshold 0.5)
 * names exactly the stragglers; J6 runs one fast attempt, on node 7. Their
 * pending maps are 0, 0, 10, 10, 15 and 20; J3's and J4's splits are on
 * node 7 (where local selects them), J5's and J6's on node 0, so delay
 * scheduling keeps those two waiting. SpeculativeCap is 0.1 of 40 slots: 4. */
static uint32_t six_jobs[6];

static void six_jobs_fixture(uint32_t pending_loc) {
        static const unsigned stragglers[] = { 5, 4, 3, 2, 1, 0 };
        static const unsigned pending[] = { 0, 0, 10, 10, 15, 20 };
        uint32_t node = 0, attempt;

        fx_cluster(8, 5, 0);
        fx.cfg.scheduler = "fair";
        fx.cfg.speculation = "sepb";
        fx_late()->late_slow_task_pct = 0.5;
        for (uint32_t j = 0; j < 6; j++) {
                unsigned running = j < 5 ? 2 * stragglers[j] + 1 : 1;

                six_jobs[j] = fx_job((1 + j) * SEC, 0);
                for (unsigned k = 0; k < running; k++) {
                        uint32_t where = j == 5 ? 7 : node++ / 5;

                        attempt = fx_run(fx_map(six_jobs[j], where), where, 0, 0);
                        fx.attempts[attempt].progress = k < stragglers[j] ? 0.1 : 0.8;
                }
                maps(six_jobs[j], pending[j], j < 4 ? pending_loc : 0);
        }
}

/* LATE as Hadoop runs it (percentageOfJobsCheckedForPendingTasks 0): J1,
 * first in the queue, backs up four stragglers in all four idle slots.
 * SEPB checking 4 of the 6 jobs: J1's window (J1 .. J4) and J2's have
 * pending maps, so neither backs up; the slots go to the pending maps of
 * J3 and J4. */
START_TEST(test_sepb_six_jobs) {
        six_jobs_fixture(7);
        fx_late()->jobs_checked = 0;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 4);
        for (size_t i = 0; i < 4; i++) {
                ck_assert(fx.d.assignments[i].speculative);
                ck_assert_uint_eq(assigned_job(i), six_jobs[0]);
                ck_assert_uint_eq(fx.d.assignments[i].node, 7);
        }

        fx_late()->jobs_checked = 4.0 / 6.0;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 4);
        ck_assert_uint_eq(count_speculative(), 0);
        ck_assert_uint_eq(count_job(six_jobs[2], TASK_MAP, SLOT_MAP) +
                                  count_job(six_jobs[3], TASK_MAP, SLOT_MAP),
                          4);
        ck_assert_uint_gt(count_job(six_jobs[2], TASK_MAP, SLOT_MAP), 0);
        ck_assert_uint_gt(count_job(six_jobs[3], TASK_MAP, SLOT_MAP), 0);
}
END_TEST

/* When no pending task can start yet (every split waits for node 0), SEPB
 * keeps the slots from J1's backups all the same and reserves them for the
 * first job of J1's window with pending maps, J3. */
START_TEST(test_sepb_reserves_for_pending) {
        six_jobs_fixture(0);
        fx_late()->jobs_checked = 4.0 / 6.0;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_assignments, 0);
        ck_assert_uint_eq(fx.d.n_reservations, 4);
        for (size_t i = 0; i < 4; i++) {
                ck_assert_uint_eq(fx.d.reservations[i].node, 7);
                ck_assert_uint_eq(fx.d.reservations[i].job, six_jobs[2]);
                ck_assert_uint_eq(fx.d.reservations[i].task, NO_INDEX);
        }
        /* Checking only J1 itself: its window has no pending map. */
        fx_late()->jobs_checked = 1.0 / 6.0;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 100 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_reservations, 0);
        ck_assert_uint_eq(count_speculative(), 4);
}
END_TEST

/* Condition (3): J1 has a straggler and no pending task; J2, in its window,
 * has only a pending reduce, for a cluster without reduce slots. With DHSA
 * lending map slots to reduces, J1's backup waits and J2's reduce borrows
 * node 2's free map slot; without DHSA (or with nothing to lend) J1, first
 * in the queue, backs up into it. */
START_TEST(test_sepb_condition3) {
        uint32_t j1, j2, a;

        fx_cluster(3, 2, 0);
        fx.nodes[2].slots[SLOT_MAP] = 1;
        fx.cfg.scheduler = "fifo";
        fx.cfg.speculation = "sepb";
        fx_late()->late_slow_task_pct = 0.5;
        fx_core()->reduce_slowstart = 0;
        j1 = fx_job(1 * SEC, 0);
        for (uint32_t k = 0; k < 3; k++) {
                a = fx_run(fx_map(j1, 0), k == 2 ? 1 : 0, 0, 0);
                fx.attempts[a].progress = k == 0 ? 0.1 : 0.8;
        }
        fx_run(fx_map(j1, 1), 1, 0, 0);
        fx.attempts[3].progress = 0.8;
        j2 = fx_job(2 * SEC, 0);
        fx_reduce(j2);
        fx_core()->dmr.dhsa = DHSA_PI;
        ck_assert_int_eq(beat(2, 100 * SEC), 0);
        ck_assert_uint_eq(count_speculative(), 0);
        ck_assert_uint_eq(count_assigned(TASK_REDUCE, SLOT_MAP), 1);
        fx_core()->dmr.dhsa = DHSA_NONE;
        ck_assert_int_eq(beat(2, 100 * SEC), 0);
        ck_assert_uint_eq(count_speculative(), 1);
        ck_assert_uint_eq(assigned_job(0), j1);
        fx_core()->dmr.dhsa = DHSA_PI;
        fx_core()->dmr.borrow_map_slots = 0;
        ck_assert_int_eq(beat(2, 100 * SEC), 0);
        ck_assert_uint_eq(count_speculative(), 1);
        ck_assert_uint_eq(count_assigned(TASK_REDUCE, SLOT_MAP), 0);
}
END_TEST

/* The kill: maps of the job took 20 s on average (two finished, 40 s). At
 * 41 s an attempt started at 0 has run over twice that and is killed to
 * run again; one started at 2 s has not; one whose task has a backup, and
 * a reduce, are left to LATE. The freed slot takes the pending map. An
 * attempt of a task killed before is not killed again, nor one whose split
 * is larger than the job's mean in proportion. */
START_TEST(test_sepb_kills_hopeless_maps) {
        uint32_t j, old, young, backed, reduce, pending;

        fx_cluster(4, 2, 1);
        fx.cfg.speculation = "sepb";
        j = fx_job(1 * SEC, 0);
        fx.jobs[j].profile.phases[PROFILE_MAP] =
                (PhaseStats){ .count = 2, .total = 40 * SEC, .min = 15 * SEC, .max = 25 * SEC };
        old = fx_run(fx_map(j, 0), 0, 0, 0);
        young = fx_run(fx_map(j, 0), 0, 2 * SEC, 0);
        backed = fx_map(j, 1);
        fx_run(backed, 1, 0, 0);
        fx_run(backed, 2, 30 * SEC, 0);
        fx.attempts[3].speculative = true;
        fx_run(fx_map(j, 2), 2, 40 * SEC, 0);
        fx_run(fx_map(j, 3), 3, 40 * SEC, 0);
        fx_run(fx_map(j, 3), 3, 40 * SEC, 0);
        fx_run(fx_map(j, 1), 1, 40 * SEC, 0);
        reduce = fx_reduce(j);
        fx_run(reduce, 0, 0, 0);
        pending = fx_map(j, 0);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 41 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_kills, 1);
        ck_assert_uint_eq(fx.d.kills[0].attempt, old);
        ck_assert_int_eq(fx.d.kills[0].reason, KILL_RETRY);
        ck_assert_uint_ne(fx.d.kills[0].attempt, young);
        ck_assert_uint_eq(fx.d.n_assignments, 1);
        fx_check_assignment(0, pending, 0, true, false);
        fx.attempts[old].kill_count = 1;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 41 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_kills, 0);
        /* Eight maps of 32 MiB on average: 64 MiB ones may take 80 s. */
        fx.attempts[old].kill_count = 0;
        fx.jobs[j].counts[TASK_MAP].total = 8;
        fx.jobs[j].input_size = 8 * 32 * MIB;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 80 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_kills, 0);
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 81 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_kills, 1);
        fx.jobs[j].counts[TASK_MAP].total = 0;
        fx.jobs[j].input_size = 0;
        /* Without a finished map there is no mean to judge by. */
        fx.jobs[j].profile.phases[PROFILE_MAP] = (PhaseStats){ 0 };
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 41 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_kills, 0);
}
END_TEST

/* SEPB at share 0 is not LATE: nothing waits for pending tasks, so J1,
 * first in the queue, backs up its stragglers ahead of the later jobs'
 * pending maps as Hadoop's LATE does (test_sepb_six_jobs), but SEPB's kill
 * of hopeless maps stays (2.2; Fig. 9a plots LATE beside share 0). A map
 * past twice its estimate: share 0 kills it, LATE does not. */
START_TEST(test_sepb_share0_is_late_plus_kill) {
        uint32_t j, old;

        fx_cluster(4, 2, 1);
        j = fx_job(1 * SEC, 0);
        fx.jobs[j].profile.phases[PROFILE_MAP] =
                (PhaseStats){ .count = 2, .total = 40 * SEC, .min = 15 * SEC, .max = 25 * SEC };
        old = fx_run(fx_map(j, 0), 0, 0, 0);
        fx.cfg.speculation = "sepb";
        fx_late()->jobs_checked = 0;
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 41 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_kills, 1);
        ck_assert_uint_eq(fx.d.kills[0].attempt, old);
        ck_assert_int_eq(fx.d.kills[0].reason, KILL_RETRY);
        fx.cfg.speculation = "late";
        ck_assert_int_eq(fx_step(POLICY_STEP_ASSIGN, 41 * SEC), 0);
        ck_assert_uint_eq(fx.d.n_kills, 0);
}
END_TEST

Suite *suite_dynamicmr(void) {
        Suite *s = suite_create("dynamicmr");
        TCase *tc;

        tc = tcase_create("arithmetic");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_settings_validate);
        tcase_add_test(tc, test_dhsa_cases);
        tcase_add_test(tc, test_dhsa_borrow_target);
        tcase_add_test(tc, test_slot_weights_arithmetic);
        tcase_add_test(tc, test_load_manager_arithmetic);
        tcase_add_test(tc, test_sepb_arithmetic);
        suite_add_tcase(s, tc);

        tc = tcase_create("dhsa");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_pi_case1_no_borrowing);
        tcase_add_test(tc, test_pi_case2_maps_borrow);
        tcase_add_test(tc, test_pi_case3_reduces_borrow);
        tcase_add_test(tc, test_pi_case4_no_borrowing);
        tcase_add_test(tc, test_pi_borrow_limits);
        tcase_add_test(tc, test_weights_16_maps_or_8_reduces);
        tcase_add_test(tc, test_weights_remembered_by_node);
        tcase_add_test(tc, test_pd_attempts_in_order);
        tcase_add_loop_test(tc, test_pd_pool_cases, 0, (int)ELEMENTSOF(pool_cases));
        tcase_add_test(tc, test_pi_against_pd_case_a);
        tcase_add_test(tc, test_pd_visited_for_map);
        suite_add_tcase(s, tc);

        tc = tcase_create("prescheduling");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_load_balance_caps_nodes);
        tcase_add_test(tc, test_prescheduling_extra_slot);
        tcase_add_test(tc, test_prescheduling_borrows_reduce_slot);
        suite_add_tcase(s, tc);

        tc = tcase_create("sepb");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_test(tc, test_sepb_six_jobs);
        tcase_add_test(tc, test_sepb_reserves_for_pending);
        tcase_add_test(tc, test_sepb_condition3);
        tcase_add_test(tc, test_sepb_kills_hopeless_maps);
        tcase_add_test(tc, test_sepb_share0_is_late_plus_kill);
        suite_add_tcase(s, tc);
        return s;
}

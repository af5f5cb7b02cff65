/* SPDX-License-Identifier: MIT */
/* The contracts every policy of every layer keeps, over every combination
 * of the layers' tables, on a busy hand-made cluster and on random ones:
 * decisions that validate, quotas kept, slots conserved; and the decision
 * validator's refusals. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/policy.h"
#include "tests.h"
#include "check_policy.h"

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
        fx_core()->slo.slo_spare = c->loop;
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
 * manager's, is neither new nor counted), but in a spare slot (slo_spare),
 * each of which says so (SpareNote). */
static void check_quotas(const Decisions *d) {
        for (size_t q = 0; q < d->n_quotas; q++) {
                unsigned running[_TASK_TYPE_MAX] = { 0 }, assigned[_TASK_TYPE_MAX] = { 0 },
                         spare[_TASK_TYPE_MAX] = { 0 };
                uint32_t job = d->quotas[q].job;

                for (size_t i = 0; i < d->n_spares; i++)
                        if (d->spares[i].job == job)
                                spare[d->spares[i].slot]++;

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
                        ck_assert(assigned[t] <= (d->quotas[q].slots[t] > running[t]
                                                          ? d->quotas[q].slots[t] - running[t]
                                                          : 0) +
                                                         spare[t]);
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

/* No reduce of a job with a map not done is assigned, as a new task or a
 * backup. */
static void check_no_early_reduce(const Combo *c, const Decisions *d) {
        for (size_t i = 0; i < d->n_assignments; i++) {
                uint32_t task = d->assignments[i].task, job = fx.tasks[task].job;

                if (d->assignments[i].type != TASK_REDUCE)
                        continue;
                for (uint32_t t = 0; t < fx.s.n_tasks; t++)
                        ck_assert_msg(fx.tasks[t].job != job || fx.tasks[t].type != TASK_MAP ||
                                              fx.tasks[t].state == TASK_DONE,
                                      "%s/%s: reduce %u assigned before map %u is done",
                                      c->scheduler, c->speculation, task, t);
        }
}

/* A driver whose reduces read the map outputs only at their start gets
 * none before its job's last map, whatever the layers' own rules (ARIA
 * opens reduces at the first map done, RAS from the job's start) and even
 * with reduce_slowstart 0, which lets the others place them at once: on
 * the busy cluster and on random ones. */
START_TEST(test_reduces_wait_for_every_map) {
        const Combo *c = &combos[_i];
        _cleanup_(policy_freep) Policy *p = NULL;

        busy_fixture(c);
        fx_core()->reduce_slowstart = 0;
        fx.s.reduces_read_maps_at_start = true;
        ck_assert_int_eq(policy_new_named(&fx.cfg, NULL, &p), 0);
        ck_assert_int_eq(step(p, &fx.s, 100 * SEC, POLICY_STEP_ALL, &fx.d), 0);
        check_no_early_reduce(c, &fx.d);

        rng = 0x2545f4914f6cdd1dULL + (uint64_t)_i;
        for (int round = 0; round < 50; round++) {
                random_fixture(c);
                fx.s.reduces_read_maps_at_start = true;
                ck_assert_int_eq(step(p, &fx.s, (100 + round) * SEC, POLICY_STEP_ALL, &fx.d), 0);
                check_no_early_reduce(c, &fx.d);
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

Suite *suite_contracts(void) {
        Suite *s = suite_create("contracts");
        TCase *tc;

        tc = tcase_create("policies");
        tcase_add_checked_fixture(tc, NULL, fx_teardown);
        tcase_add_loop_test(tc, test_contracts, 0, (int)ELEMENTSOF(combos));
        tcase_add_loop_test(tc, test_contracts_random, 0, (int)ELEMENTSOF(combos));
        tcase_add_loop_test(tc, test_reduces_wait_for_every_map, 0, (int)ELEMENTSOF(combos));
        tcase_add_test(tc, test_combos_cover_tables);
        tcase_add_loop_test(tc, test_decisions_validate, 0, (int)ELEMENTSOF(bad_cases));
        suite_add_tcase(s, tc);
        return s;
}

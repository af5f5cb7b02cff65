/* SPDX-License-Identifier: MIT */
/* The policy core's own pieces: statistics, k-means, a step's scratch arena
 * and what layers remember, the snapshot, job and decision validators and a
 * job's profile of phases. */
#include <errno.h>
#include <math.h>

#include "common/macro.h"
#include "policy/core/arena.h"
#include "policy/core/context.h"
#include "policy/core/idmap.h"
#include "policy/core/policy.h"
#include "policy/core/resource-pool.h"
#include "policy/core/stats.h"
#include "tests.h"
#include "check_policy.h"

/* ---- statistics ---- */

START_TEST(test_mean_stddev_skewness) {
        const double x[] = { 1, 2, 3, 10 };
        const double flat[] = { 5, 5, 5 };

        ck_assert_double_eq(stats_mean(x, 4), 4.0);
        ck_assert_double_eq_tol(stats_stddev(x, 4), 3.5355339059327378, 1e-12);
        /* FlexSlot II-B's formula with the population deviation. */
        ck_assert_double_eq_tol(stats_skewness(x, 4), 1.0182337649086284, 1e-12);
        ck_assert_double_eq(stats_skewness(flat, 3), 0.0);
        ck_assert_double_eq(stats_skewness(x, 0), 0.0);
        ck_assert_double_eq(stats_stddev(x, 0), 0.0);
}
END_TEST

START_TEST(test_percentile) {
        const double x[] = { 40, 10, 30, 20, 50 };
        double scratch[5];

        ck_assert_double_eq(stats_percentile(x, 5, 0.0, scratch), 10);
        ck_assert_double_eq(stats_percentile(x, 5, 0.25, scratch), 20);
        ck_assert_double_eq(stats_percentile(x, 5, 0.5, scratch), 30);
        ck_assert_double_eq(stats_percentile(x, 5, 1.0, scratch), 50);
        ck_assert_double_eq(stats_percentile(x, 0, 0.5, scratch), 0);
}
END_TEST

START_TEST(test_max_min_shares) {
        const double demand[] = { 2, 10, 10 };
        double share[3];

        /* 12 slots: the small claimant gets its 2, the rest split 10. */
        stats_max_min_shares(demand, 3, 12, share);
        ck_assert_double_eq(share[0], 2);
        ck_assert_double_eq(share[1], 5);
        ck_assert_double_eq(share[2], 5);
        /* Enough for everyone: each gets its demand. */
        stats_max_min_shares(demand, 3, 100, share);
        ck_assert_double_eq(share[1], 10);
        ck_assert_double_eq(share[2], 10);
}
END_TEST

/* ---- DRS's window of CPU use (resource-pool.h) ---- */

/* Samples every 20 s of a VM using 0.5 CPU, then 1.5: over a 60 s window
 * the demand is what it used since the oldest sample within the window;
 * the ring keeps window / sample + 1 samples. */
START_TEST(test_drs_history_demand) {
        DrsHistory h;
        DrsSample now;

        ck_assert_int_eq(drs_history_init(&h, 60 * USEC_PER_SEC, 0), -EINVAL);
        ck_assert_int_eq(drs_history_init(&h, 60 * USEC_PER_SEC, 20 * USEC_PER_SEC), 0);
        ck_assert_uint_eq(h.slots, 4);
        /* Nothing sampled yet: the floor. */
        now = (DrsSample){ .at = 10 * USEC_PER_SEC, .cpu = 5 };
        ck_assert_double_eq(drs_history_demand(&h, 60 * USEC_PER_SEC, false, &now), DRS_MIN_DEMAND);
        for (unsigned k = 0; k <= 5; k++) {
                double cpu = k <= 3 ? 10.0 * k : 30.0 + 30.0 * (k - 3);

                drs_history_add(
                        &h,
                        (DrsSample){ .at = k * 20 * USEC_PER_SEC, .cpu = cpu, .ready = 2.0 * k });
        }
        ck_assert_uint_eq(h.taken, 4);
        /* The ring holds 40..100 s. At 120 s (cpu 120): from the sample at
         * 60 s (cpu 30), 1.5 CPUs; with the ready time (2 per 20 s), 1.6. */
        now = (DrsSample){ .at = 120 * USEC_PER_SEC, .cpu = 120, .ready = 12 };
        ck_assert_double_eq_tol(drs_history_demand(&h, 60 * USEC_PER_SEC, false, &now), 1.5, 1e-12);
        ck_assert_double_eq_tol(drs_history_demand(&h, 60 * USEC_PER_SEC, true, &now), 1.6, 1e-12);
        /* A window of 20 s starts at the sample 20 s ago (100 s, cpu 90). */
        ck_assert_double_eq_tol(drs_history_demand(&h, 20 * USEC_PER_SEC, false, &now), 1.5, 1e-12);
        /* No use since the window began: the floor, never 0. */
        now.cpu = 30;
        ck_assert_double_eq(drs_history_demand(&h, 60 * USEC_PER_SEC, false, &now), DRS_MIN_DEMAND);
        drs_history_done(&h);
        ck_assert_ptr_null(h.ring);
}
END_TEST

START_TEST(test_drs_share_weight) {
        /* Four VMs of a 1.6-CPU pool: an equal part is the default weight. */
        ck_assert_uint_eq(drs_share_weight(0.4, 4, 1.6, 1024), 1024);
        ck_assert_uint_eq(drs_share_weight(1.2, 4, 1.6, 1024), 3072);
        /* cpu.shares' floor. */
        ck_assert_uint_eq(drs_share_weight(0.0001, 4, 1.6, 1024), 2);
        ck_assert_double_eq(drs_equal_share(1.6, 4, 2), 0.4);
        ck_assert_double_eq(drs_equal_share(16, 4, 2), 2);
}
END_TEST

/* ---- a step's scratch ---- */

/* What a step allocates comes zeroed and aligned; what did not fit the
 * block spills, and after a reset the block holds it all. */
START_TEST(test_arena) {
        Arena a = { 0 };
        double *x;
        char *c;

        for (int step = 0; step < 2; step++) {
                c = arena_alloc(&a, 3, 1);
                x = arena_alloc(&a, 1000, sizeof(double));
                ck_assert_ptr_nonnull(c);
                ck_assert_ptr_nonnull(x);
                ck_assert_uint_eq((uintptr_t)x % _Alignof(max_align_t), 0);
                for (int i = 0; i < 1000; i++)
                        ck_assert(x[i] == 0);
                ck_assert(c[0] == 0 && c[2] == 0);
                ck_assert_ptr_nonnull(arena_alloc(&a, 0, 8));
                /* The first step spills everything, the second nothing. */
                ck_assert_int_eq(a.spills == NULL, step == 1);
                x[999] = 1;
                c[2] = 1;
                arena_reset(&a);
        }
        ck_assert_ptr_null(arena_alloc(&a, SIZE_MAX / 2, 4));
        arena_done(&a);
        ck_assert_ptr_null(a.block);
}
END_TEST

/* ---- what layers remember ---- */

/* Ids that crowd a few buckets (multiples of a large power of two) and
 * consecutive ones, through growth, removals and sweeps, against what
 * should be there: a sweep keeps what was put or touched since the last. */
START_TEST(test_idmap) {
        enum { N = 3000 };
        static bool present[N];
        IdMap m;

        idmap_init(&m, sizeof(uint64_t));
        ck_assert_ptr_null(idmap_get(&m, 7));
        idmap_remove(&m, 7);
        idmap_touch(&m, 7);
        for (uint64_t i = 0; i < N; i++) {
                uint64_t id = i < N / 2 ? i << 40 : i, *v;

                ck_assert_int_eq(idmap_put(&m, id, (void **)&v), 0);
                ck_assert_uint_eq(*v, 0);
                *v = id * 3;
                present[i] = true;
        }
        for (uint64_t i = 0; i < N; i += 3) {
                idmap_remove(&m, i < N / 2 ? i << 40 : i);
                present[i] = false;
        }
        ck_assert_uint_eq(m.n, N - N / 3);
        /* Everything was put since the last sweep. */
        idmap_sweep(&m);
        ck_assert_uint_eq(m.n, N - N / 3);
        for (uint64_t i = 0; i < N; i += 2)
                idmap_touch(&m, i < N / 2 ? i << 40 : i);
        idmap_sweep(&m);
        for (uint64_t i = 0; i < N; i++) {
                uint64_t id = i < N / 2 ? i << 40 : i, *v = idmap_get(&m, id);
                bool want = present[i] && i % 2 == 0;

                ck_assert_msg((v != NULL) == want, "id %llu", (unsigned long long)id);
                if (v)
                        ck_assert_uint_eq(*v, id * 3);
        }
        /* Nothing touched: all go. */
        idmap_sweep(&m);
        ck_assert_uint_eq(m.n, 0);
        ck_assert_ptr_null(idmap_get(&m, 0));
        idmap_done(&m);
}
END_TEST

/* ---- k-means ---- */

START_TEST(test_kmeans_two_clusters) {
        const double x[] = { 10, 11, 12, 3, 2 };
        bool low[5];
        double lo, hi;

        ck_assert_uint_eq(kmeans2_1d(x, 5, low, &lo, &hi), 2);
        ck_assert(!low[0] && !low[1] && !low[2] && low[3] && low[4]);
        ck_assert_double_eq(lo, 2.5);
        ck_assert_double_eq(hi, 11);
}
END_TEST

START_TEST(test_kmeans_iterates_to_fixpoint) {
        /* From the extremes 0 and 10, 4 joins the low cluster and 5 (equally
         * far) the high one; the centroids 2 and 7.5 keep that split. */
        const double x[] = { 0, 4, 5, 10 };
        bool low[4];
        double lo, hi;

        ck_assert_uint_eq(kmeans2_1d(x, 4, low, &lo, &hi), 2);
        ck_assert(low[0] && low[1] && !low[2] && !low[3]);
        ck_assert_double_eq(lo, 2);
        ck_assert_double_eq(hi, 7.5);
}
END_TEST

START_TEST(test_kmeans_degenerate) {
        const double same[] = { 3, 3, 3 };
        const double one[] = { 7 };
        bool low[3] = { true, true, true };
        double lo, hi;

        ck_assert_uint_eq(kmeans2_1d(same, 3, low, &lo, &hi), 0);
        ck_assert(!low[0] && !low[1] && !low[2]);
        ck_assert_double_eq(lo, 3);
        ck_assert_uint_eq(kmeans2_1d(one, 1, low, &lo, &hi), 0);
        ck_assert_uint_eq(kmeans2_1d(NULL, 0, low, &lo, &hi), 0);
}
END_TEST

/* FIFO and the static layers at their defaults, reduces starting once this
 * share of their job's maps is done. */
static int fifo_new(double reduce_slowstart, Policy **ret) {
        const PolicyLayers layers = { &job_scheduler_fifo, &slot_manager_static, &speculation_none,
                                      &vm_allocator_static };
        CoreSettings core;
        ConfError err;

        ck_assert_int_eq(conf_load_defaults(&core_settings_schema, &core, &err), 0);
        core.reduce_slowstart = reduce_slowstart;
        return policy_new(&layers, &core, &err, ret);
}

/* ---- snapshot validation ---- */

START_TEST(test_snapshot_validate) {
        Host hosts[] = { { .pcpus = 4 } };
        Vm vms[] = { { .host = 0 } };
        Node nodes[] = { { .vm = 0, .steal = 0.1, .measured_at = 1 } };
        Job jobs[] = { { .id = 1 } };
        Task tasks[] = { { .job = 0, .state = TASK_RUNNING, .n_locations = 1 } };
        Attempt attempts[] = { { .task = 0, .node = 0, .progress = 0.5 } };
        ClusterSnapshot s = { hosts, 1, vms, 1, nodes, 1, jobs, 1, tasks, 1, attempts, 1 };

        ck_assert_int_eq(snapshot_validate(&s), 0);
        nodes[0].steal = 1.5;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        nodes[0].steal = NAN;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        nodes[0].steal = 0;
        tasks[0].locations[0] = 3;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        tasks[0].locations[0] = 0;
        tasks[0].state = TASK_PENDING; /* a running attempt of a pending task */
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        tasks[0].state = TASK_RUNNING;
        attempts[0].node = 1;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        attempts[0].node = 0;
        vms[0].host = 2;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        vms[0].host = 0;
        vms[0].cpu_cap = -1;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        vms[0].cpu_cap = 0;
        /* Resizes are among the kills; shares in 0..1; a host's use is
         * measured or 0, never negative. */
        attempts[0].resize_count = 1;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        attempts[0].kill_count = 1;
        ck_assert_int_eq(snapshot_validate(&s), 0);
        attempts[0].steal = 1.5;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        attempts[0].steal = 0;
        hosts[0].cpu_use = 2;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        hosts[0].measured_at = 1;
        ck_assert_int_eq(snapshot_validate(&s), 0);
        hosts[0].cpu_use = -1;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        hosts[0] = (Host){ .pcpus = 4 };
        /* Measurements not taken are 0; node states and capacities are in
         * range; a lost node runs nothing. */
        vms[0].cpu_use = 0.5;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        vms[0].measured_at = 1;
        ck_assert_int_eq(snapshot_validate(&s), 0);
        nodes[0].steal = 0.1;
        nodes[0].measured_at = 0;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        nodes[0].measured_at = 1;
        nodes[0].state = _NODE_STATE_MAX;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        nodes[0].state = NODE_LOST;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        nodes[0].state = NODE_BLACKLISTED;
        ck_assert_int_eq(snapshot_validate(&s), 0);
        nodes[0].capacity.cpu = NAN;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        nodes[0].capacity.cpu = 4;
        ck_assert_int_eq(snapshot_validate(&s), 0);
        s.attempts = NULL;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        ck_assert_int_eq(snapshot_validate(NULL), -EINVAL);
}
END_TEST

/* A job's profile as its tasks end: 30 s, 10 s, 20 s. */
START_TEST(test_phase_stats) {
        PhaseStats ps = { 0 };

        ck_assert_uint_eq(phase_stats_mean(&ps), 0);
        phase_stats_add(&ps, 30 * USEC_PER_SEC);
        ck_assert_uint_eq(ps.min, 30 * USEC_PER_SEC);
        phase_stats_add(&ps, 10 * USEC_PER_SEC);
        phase_stats_add(&ps, 20 * USEC_PER_SEC);
        ck_assert_uint_eq(ps.count, 3);
        ck_assert_uint_eq(ps.total, 60 * USEC_PER_SEC);
        ck_assert_uint_eq(ps.min, 10 * USEC_PER_SEC);
        ck_assert_uint_eq(ps.max, 30 * USEC_PER_SEC);
        ck_assert_uint_eq(phase_stats_mean(&ps), 20 * USEC_PER_SEC);
}
END_TEST

/* The core's profile of a run from tasks' times: a reduce whose shuffle
 * end no tracker told (its start) leaves the shuffle after the maps empty
 * and the rest to the reduce phase; one that started after the maps did
 * is a typical shuffle. */
START_TEST(test_run_profile_reduces) {
        JobProfile p = { 0 };
        const usec_t s = USEC_PER_SEC;

        job_profile_add_task(&p, TASK_MAP, 0, 0, 10 * s, 0);
        job_profile_add_task(&p, TASK_REDUCE, 2 * s, 2 * s, 30 * s, 10 * s);
        job_profile_add_task(&p, TASK_REDUCE, 12 * s, 15 * s, 20 * s, 10 * s);
        ck_assert_uint_eq(p.phases[PROFILE_MAP].total, 10 * s);
        ck_assert_uint_eq(p.phases[PROFILE_FIRST_SHUFFLE].count, 1);
        ck_assert_uint_eq(p.phases[PROFILE_FIRST_SHUFFLE].total, 0);
        ck_assert_uint_eq(p.phases[PROFILE_TYPICAL_SHUFFLE].total, 3 * s);
        ck_assert_uint_eq(p.phases[PROFILE_REDUCE].count, 2);
        ck_assert_uint_eq(p.phases[PROFILE_REDUCE].max, 20 * s);
        ck_assert_uint_eq(p.phases[PROFILE_REDUCE].min, 5 * s);
}
END_TEST

/* Job counts and profiles are checked for sense even when not kept. */
START_TEST(test_job_validate) {
        Host hosts[] = { { .pcpus = 4 } };
        Vm vms[] = { { .host = 0 } };
        Node nodes[] = { { .vm = 0 } };
        JobProfile stored = { 0 };
        Job jobs[] = { { .id = 1,
                         .counts = { [TASK_MAP] = { .total = 3, .done = 1, .running = 2 } },
                         .stored_profile = &stored } };
        ClusterSnapshot s = { hosts, 1, vms, 1, nodes, 1, jobs, 1, NULL, 0, NULL, 0 };
        PhaseStats *map = &jobs[0].profile.phases[PROFILE_MAP];

        phase_stats_add(map, 5 * USEC_PER_SEC);
        phase_stats_add(&stored.phases[PROFILE_REDUCE], 7 * USEC_PER_SEC);
        ck_assert_int_eq(snapshot_validate(&s), 0);
        jobs[0].counts[TASK_MAP].running = 3; /* more done and running than tasks */
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        jobs[0].counts[TASK_MAP].running = 2;
        map->min = 6 * USEC_PER_SEC; /* above the longest */
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        map->min = 5 * USEC_PER_SEC;
        stored.phases[PROFILE_MAP].total = 1; /* a total of no task */
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        stored.phases[PROFILE_MAP].total = 0;
        jobs[0].demand[TASK_REDUCE].io = -1;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        jobs[0].demand[TASK_REDUCE].io = 0;
        ck_assert_int_eq(snapshot_validate(&s), 0);
}
END_TEST

/* A trusted driver skips the validation, which still catches the same bad
 * snapshot in every other step; a flag bit beyond the trusted one is still
 * refused. The bad value is a share, which no layer indexes with. */
START_TEST(test_step_trusted_skips_validation) {
        Host hosts[] = { { .pcpus = 4 } };
        Vm vms[] = { { .host = 0, .vcpus = 1, .vcpus_max = 1, .memory_max = 1ULL << 30 } };
        Node nodes[] = { { .vm = 0, .slots = { 1, 0 }, .steal = 1.5 } };
        Job jobs[] = { { .id = 1 } };
        Task tasks[] = { { .job = 0, .state = TASK_PENDING } };
        ClusterSnapshot s = { hosts, 1, vms, 1, nodes, 1, jobs, 1, tasks, 1, NULL, 0 };
        _cleanup_(policy_freep) Policy *p = NULL;
        Decisions d = { 0 };

        ck_assert_int_eq(fifo_new(0.05, &p), 0);
        ck_assert_int_eq(step(p, &s, 10 * USEC_PER_SEC, POLICY_STEP_ALL, &d), -EINVAL);
        ck_assert_uint_eq(d.n_assignments, 0);
        ck_assert_int_eq(step(p, &s, 10 * USEC_PER_SEC, POLICY_STEP_ALL | POLICY_STEP_TRUSTED, &d),
                         0);
        ck_assert_uint_eq(d.n_assignments, 1);
        ck_assert_uint_eq(d.assignments[0].task, 0);
        ck_assert_int_eq(step(p, &s, 10 * USEC_PER_SEC, POLICY_STEP_TRUSTED << 1, &d), -EINVAL);
        ck_assert_int_eq(step(p, NULL, 10 * USEC_PER_SEC, POLICY_STEP_TRUSTED, &d), -EINVAL);
        nodes[0].steal = 0;
        ck_assert_int_eq(step(p, &s, 10 * USEC_PER_SEC, POLICY_STEP_ALL, &d), 0);
        ck_assert_uint_eq(d.n_assignments, 1);
        decisions_done(&d);
}
END_TEST

/* Two jobs, maps before reduces in each; job 0's first map runs. */
static void summarized_cluster(Job jobs[2], Task tasks[6]) {
        for (uint32_t i = 0; i < 6; i++)
                tasks[i] = (Task){ .job = i / 3,
                                   .type = i % 3 == 2 ? TASK_REDUCE : TASK_MAP,
                                   .state = i == 0 ? TASK_RUNNING : TASK_PENDING,
                                   .n_locations = 1,
                                   .locations = { i % 2 } };
        for (uint32_t j = 0; j < 2; j++)
                jobs[j] = (Job){ .id = j,
                                 .submitted = j,
                                 .counts = { [TASK_MAP] = { .total = 2, .running = j == 0 },
                                             [TASK_REDUCE] = { .total = 1 } },
                                 .tasks = { .first = 3 * j,
                                            .count = 3,
                                            .first_pending = { 3 * j + (j == 0), 3 * j + 2 } } };
}

/* summarized_cluster() on two nodes of one host, without attempts. */
typedef struct SummarizedCluster {
        Host hosts[1];
        Vm vms[2];
        Node nodes[2];
        Job jobs[2];
        Task tasks[6];
} SummarizedCluster;

static ClusterSnapshot summarized_snapshot(SummarizedCluster *c) {
        *c = (SummarizedCluster){
                .hosts = { { .pcpus = 8 } },
                .vms = { { .host = 0, .vcpus = 1, .vcpus_max = 1, .memory_max = 1ULL << 30 },
                         { .host = 0, .vcpus = 1, .vcpus_max = 1, .memory_max = 1ULL << 30 } },
                .nodes = { { .vm = 0, .slots = { 2, 1 } }, { .vm = 1, .slots = { 2, 1 } } },
        };
        summarized_cluster(c->jobs, c->tasks);
        return (ClusterSnapshot){ c->hosts, 1, c->vms, 2, c->nodes, 2, c->jobs, 2, c->tasks, 6 };
}

/* Job 0 of summarized_cluster() done: every task of it. */
static void settle_first_job(Job jobs[2], Task tasks[6]) {
        summarized_cluster(jobs, tasks);
        for (uint32_t i = 0; i < 3; i++)
                tasks[i].state = TASK_DONE;
        jobs[0].counts[TASK_MAP] = (TaskCounts){ .total = 2, .done = 2 };
        jobs[0].counts[TASK_REDUCE] = (TaskCounts){ .total = 1, .done = 1 };
        jobs[0].tasks.first_pending[TASK_MAP] = jobs[0].tasks.first_pending[TASK_REDUCE] = 3;
}

/* Settled jobs are passed over: a step that takes them from the last one
 * decides as a fresh Policy that looks at every job, also after the other
 * jobs changed; validation refuses a settled job that is not done. */
START_TEST(test_jobs_settled) {
        SummarizedCluster c;
        ClusterSnapshot s = summarized_snapshot(&c);
        Attempt attempts[] = { { .task = 3, .node = 1 } };
        _cleanup_(policy_freep) Policy *kept = NULL;
        Decisions d = { 0 };

        settle_first_job(c.jobs, c.tasks);
        s.job_tasks_kept = true;
        s.n_jobs_settled = 1;
        ck_assert_int_eq(snapshot_validate(&s), 0);
        ck_assert_int_eq(fifo_new(0, &kept), 0);
        ck_assert_int_eq(step(kept, &s, USEC_PER_SEC, POLICY_STEP_ALL, &d), 0);
        ck_assert_uint_eq(d.n_assignments, 3);
        for (size_t i = 0; i < d.n_assignments; i++)
                ck_assert_uint_ge(d.assignments[i].task, 3);

        /* Job 1's first map runs now: the second step keeps job 0 from the
         * first and must see job 1 as it is. */
        c.tasks[3].state = TASK_RUNNING;
        c.jobs[1].counts[TASK_MAP].running = 1;
        c.jobs[1].tasks.first_pending[TASK_MAP] = 4;
        s.attempts = attempts;
        s.n_attempts = 1;
        for (size_t settled = 0; settled <= 1; settled++) {
                _cleanup_(policy_freep) Policy *fresh = NULL;
                Decisions want = { 0 };

                s.n_jobs_settled = settled;
                ck_assert_int_eq(fifo_new(0, &fresh), 0);
                ck_assert_int_eq(step(fresh, &s, 2 * USEC_PER_SEC, POLICY_STEP_ALL, &want), 0);
                s.n_jobs_settled = 1;
                ck_assert_int_eq(step(kept, &s, 2 * USEC_PER_SEC, POLICY_STEP_ALL, &d), 0);
                ck_assert_uint_eq(d.n_assignments, 2);
                ck_assert_uint_eq(d.n_assignments, want.n_assignments);
                for (size_t i = 0; i < d.n_assignments; i++) {
                        ck_assert_uint_eq(d.assignments[i].task, want.assignments[i].task);
                        ck_assert_uint_eq(d.assignments[i].node, want.assignments[i].node);
                }
                decisions_done(&want);
        }

        s.n_jobs_settled = 2; /* job 1 is not done */
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        s.n_jobs_settled = 3;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        s.n_jobs_settled = 1;
        s.job_tasks_kept = false;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        decisions_done(&d);
}
END_TEST

/* A kept Job.tasks gives the decisions counting does, and validation checks
 * every part of it. */
START_TEST(test_job_tasks_kept) {
        SummarizedCluster c;
        ClusterSnapshot s = summarized_snapshot(&c);
        Job *jobs = c.jobs;
        Task *tasks = c.tasks;
        Attempt attempts[] = { { .task = 0, .node = 0 } };
        _cleanup_(policy_freep) Policy *p = NULL;
        Decisions counted = { 0 }, kept = { 0 };

        s.attempts = attempts;
        s.n_attempts = 1;
        ck_assert_int_eq(fifo_new(0, &p), 0);
        ck_assert_int_eq(step(p, &s, USEC_PER_SEC, POLICY_STEP_ALL, &counted), 0);
        s.job_tasks_kept = true;
        ck_assert_int_eq(step(p, &s, USEC_PER_SEC, POLICY_STEP_ALL, &kept), 0);
        ck_assert_uint_eq(kept.n_assignments, counted.n_assignments);
        ck_assert_uint_eq(kept.n_assignments, 5);
        for (size_t i = 0; i < kept.n_assignments; i++) {
                ck_assert_uint_eq(kept.assignments[i].task, counted.assignments[i].task);
                ck_assert_uint_eq(kept.assignments[i].node, counted.assignments[i].node);
        }
        /* FIFO: node 0 takes job 0's map 1, not job 1's map 4 local to it. */
        ck_assert_uint_eq(kept.assignments[0].task, 1);

        jobs[1].tasks.first = 2; /* not where job 0 ends */
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        summarized_cluster(jobs, tasks);
        jobs[1].tasks.count = 2; /* a task left out */
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        summarized_cluster(jobs, tasks);
        jobs[0].counts[TASK_MAP].done = 1;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        summarized_cluster(jobs, tasks);
        jobs[0].counts[TASK_MAP].running = 0;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        summarized_cluster(jobs, tasks);
        jobs[1].counts[TASK_REDUCE].total = 2;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        summarized_cluster(jobs, tasks);
        jobs[1].tasks.first_pending[TASK_MAP] = 4; /* task 3 is pending */
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        summarized_cluster(jobs, tasks);
        jobs[1].tasks.first_pending[TASK_REDUCE] = 7;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        summarized_cluster(jobs, tasks);
        tasks[3].job = 0;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        summarized_cluster(jobs, tasks);
        ck_assert_int_eq(snapshot_validate(&s), 0);
        decisions_done(&counted);
        decisions_done(&kept);
}
END_TEST

/* Attempts counted by the driver (ClusterSnapshot.node_attempts) give the
 * decisions counting does, in a control step and in a heartbeat's, and
 * validation checks every count against the attempts. */
START_TEST(test_attempts_counted) {
        SummarizedCluster c;
        ClusterSnapshot s = summarized_snapshot(&c);
        Attempt attempts[] = { { .task = 0, .node = 0, .slot = SLOT_MAP, .slot_memory = 100 } };
        NodeAttempts counts[2] = { 0 }, total = { 0 };
        _cleanup_(policy_freep) Policy *p = NULL;
        Decisions counted = { 0 }, kept = { 0 };
        const unsigned flags[] = { POLICY_STEP_ALL, POLICY_STEP_ASSIGN | POLICY_STEP_HEARTBEAT };

        s.attempts = attempts;
        s.n_attempts = 1;
        s.job_tasks_kept = true;
        attempt_counted(&counts[0], &total, &c.tasks[0], SLOT_MAP, 100, true);
        ck_assert_uint_eq(counts[0].held[SLOT_MAP][TASK_MAP], 1);
        ck_assert_uint_eq(counts[0].slot_memory, 100);
        ck_assert_uint_eq(total.held[SLOT_MAP][TASK_MAP], 1);
        ck_assert_uint_eq(total.slot_memory, 100);
        ck_assert_uint_eq(c.tasks[0].running_attempts, 1);
        ck_assert_int_eq(fifo_new(0, &p), 0);
        for (size_t k = 0; k < ELEMENTSOF(flags); k++) {
                PolicyStepArgs args = { .now = USEC_PER_SEC, .flags = flags[k], .node = 0 };

                s.node_attempts = NULL;
                s.attempts_total = NULL;
                ck_assert_int_eq(policy_step(p, &s, &args, &counted), 0);
                s.node_attempts = counts;
                s.attempts_total = &total;
                ck_assert_int_eq(policy_step(p, &s, &args, &kept), 0);
                /* Node 0's one free map slot, or every free slot. */
                ck_assert_uint_eq(counted.n_assignments, k == 0 ? 5 : 2);
                ck_assert_uint_eq(kept.n_assignments, counted.n_assignments);
                for (size_t i = 0; i < kept.n_assignments; i++) {
                        ck_assert_uint_eq(kept.assignments[i].task, counted.assignments[i].task);
                        ck_assert_uint_eq(kept.assignments[i].node, counted.assignments[i].node);
                        ck_assert_uint_eq(kept.assignments[i].slot, counted.assignments[i].slot);
                }
        }

        ck_assert_int_eq(snapshot_validate(&s), 0);
        counts[0].held[SLOT_MAP][TASK_MAP] = 0;
        counts[0].held[SLOT_REDUCE][TASK_MAP] = 1; /* in the wrong slot */
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        counts[0].held[SLOT_REDUCE][TASK_MAP] = 0;
        counts[0].held[SLOT_MAP][TASK_REDUCE] = 1; /* of the wrong task type */
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        counts[0].held[SLOT_MAP][TASK_REDUCE] = 0;
        counts[1].held[SLOT_MAP][TASK_MAP] = 1; /* on the wrong node */
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        counts[1].held[SLOT_MAP][TASK_MAP] = 0;
        counts[0].held[SLOT_MAP][TASK_MAP] = 1;
        counts[0].slot_memory = 99;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        counts[0].slot_memory = 100;
        c.tasks[1].running_attempts = 1; /* a task without one */
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        c.tasks[1].running_attempts = 0;
        total.held[SLOT_REDUCE][TASK_MAP] = 1; /* the cluster's sum */
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        total.held[SLOT_REDUCE][TASK_MAP] = 0;
        s.attempts_total = NULL;
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        s.attempts_total = &total;
        attempt_counted(&counts[0], &total, &c.tasks[0], SLOT_MAP, 100, false);
        ck_assert_uint_eq(counts[0].held[SLOT_MAP][TASK_MAP], 0);
        ck_assert_uint_eq(counts[0].slot_memory, 0);
        ck_assert_uint_eq(total.held[SLOT_MAP][TASK_MAP], 0);
        ck_assert_uint_eq(c.tasks[0].running_attempts, 0);
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        s.n_attempts = 0; /* and the attempt left */
        ck_assert_int_eq(snapshot_validate(&s), 0);
        decisions_done(&counted);
        decisions_done(&kept);
}
END_TEST

/* The assignments of two steps are the same, field by field. */
static void assert_same_assignments(const Decisions *a, const Decisions *b) {
        ck_assert_uint_eq(a->n_assignments, b->n_assignments);
        for (size_t i = 0; i < a->n_assignments; i++) {
                ck_assert_uint_eq(a->assignments[i].task, b->assignments[i].task);
                ck_assert_uint_eq(a->assignments[i].node, b->assignments[i].node);
                ck_assert_uint_eq(a->assignments[i].slot, b->assignments[i].slot);
                ck_assert_uint_eq(a->assignments[i].slot_memory, b->assignments[i].slot_memory);
        }
}

/* A step that keeps its slot counts from the last takes in the nodes the
 * driver reports and decides as a fresh Policy does; a change the driver
 * did not report makes a step it does not vouch for refuse the snapshot,
 * and a snapshot it does not report on is copied whole. */
START_TEST(test_slots_reported) {
        SummarizedCluster c;
        ClusterSnapshot s = summarized_snapshot(&c);
        Attempt attempts[] = { { .task = 0, .node = 0 } };
        uint32_t changed[] = { 1 };
        _cleanup_(policy_freep) Policy *kept = NULL, *fresh = NULL;
        Decisions d = { 0 }, want = { 0 };

        s.attempts = attempts;
        s.n_attempts = 1;
        s.slots_reported = true; /* nothing kept yet: every node's taken */
        ck_assert_int_eq(fifo_new(0, &kept), 0);
        ck_assert_int_eq(step(kept, &s, USEC_PER_SEC, POLICY_STEP_ALL, &d), 0);
        ck_assert_uint_eq(d.n_assignments, 5);

        c.nodes[1].slots[SLOT_MAP] = 0;
        c.nodes[1].slots[SLOT_REDUCE] = 0;
        s.slots_changed = changed;
        s.n_slots_changed = 1;
        ck_assert_int_eq(step(kept, &s, USEC_PER_SEC, POLICY_STEP_ALL, &d), 0);
        ck_assert_int_eq(fifo_new(0, &fresh), 0);
        ck_assert_int_eq(step(fresh, &s, USEC_PER_SEC, POLICY_STEP_ALL, &want), 0);
        ck_assert_uint_eq(d.n_assignments, 2); /* node 0's free slots alone */
        assert_same_assignments(&d, &want);

        c.nodes[1].slots[SLOT_MAP] = 2;
        s.n_slots_changed = 0;
        ck_assert_int_eq(step(kept, &s, USEC_PER_SEC, POLICY_STEP_ALL, &d), -EINVAL);
        ck_assert_uint_eq(d.n_assignments, 0);

        /* Not reported, but not claimed either: copied whole. */
        s.slots_reported = false;
        ck_assert_int_eq(step(kept, &s, USEC_PER_SEC, POLICY_STEP_ALL, &d), 0);
        ck_assert_uint_eq(d.n_assignments, 4);
        s.slots_reported = true;
        s.n_slots_changed = 1;
        ck_assert_int_eq(snapshot_validate(&s), 0);
        changed[0] = 2; /* no such node */
        ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        decisions_done(&d);
        decisions_done(&want);
}
END_TEST

#define RANDOM_NODES 8

/* Random slot changes of random nodes, each reported (now and then twice,
 * or the snapshot not reported on at all), between steps of one Policy:
 * every step checks the slots it kept against every node's (the step is
 * not vouched for) and decides as a fresh Policy on the same snapshot. */
START_TEST(test_slots_reported_random) {
        Host hosts[] = { { .pcpus = 64 } };
        Vm vms[RANDOM_NODES];
        Node nodes[RANDOM_NODES];
        Job jobs[] = { { .id = 1, .counts = { [TASK_MAP] = { .total = 40 } } } };
        Task tasks[40];
        uint32_t changed[2 * RANDOM_NODES];
        ClusterSnapshot s = {
                hosts, 1, vms, RANDOM_NODES, nodes, RANDOM_NODES, jobs, 1, tasks, 40
        };
        _cleanup_(policy_freep) Policy *kept = NULL;
        Decisions d = { 0 }, want = { 0 };
        uint64_t seed = 88172645463325252ULL;

        for (uint32_t i = 0; i < RANDOM_NODES; i++) {
                vms[i] = (Vm){ .host = 0, .vcpus = 1, .vcpus_max = 1, .memory_max = 1ULL << 30 };
                nodes[i] = (Node){ .vm = i, .slots = { 2, 1 }, .slot_memory = 100 + i };
        }
        for (uint32_t i = 0; i < 40; i++)
                tasks[i] = (Task){ .job = 0, .type = TASK_MAP, .state = TASK_PENDING };
        s.slots_changed = changed;
        ck_assert_int_eq(fifo_new(0, &kept), 0);
        for (unsigned k = 0; k < 300; k++) {
                _cleanup_(policy_freep) Policy *fresh = NULL;
                unsigned n = (unsigned)(seed % 4);

                s.n_slots_changed = 0;
                for (unsigned i = 0; i < n; i++) {
                        uint32_t node;

                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        node = (uint32_t)(seed % RANDOM_NODES);
                        nodes[node].slots[SLOT_MAP] = (unsigned)(seed >> 8) % 4;
                        nodes[node].slots[SLOT_REDUCE] = (unsigned)(seed >> 16) % 2;
                        changed[s.n_slots_changed++] = node;
                        if (seed >> 24 & 1)
                                changed[s.n_slots_changed++] = node;
                }
                s.slots_reported = (seed >> 32) % 8 != 0;
                ck_assert_int_eq(step(kept, &s, USEC_PER_SEC, POLICY_STEP_ALL, &d), 0);
                ck_assert_int_eq(fifo_new(0, &fresh), 0);
                ck_assert_int_eq(step(fresh, &s, USEC_PER_SEC, POLICY_STEP_ALL, &want), 0);
                assert_same_assignments(&d, &want);
                seed += k;
        }
        decisions_done(&d);
        decisions_done(&want);
}
END_TEST

#define OPEN_JOBS 12
#define OPEN_TASKS 4 /* a job's: three maps, then a reduce */

/* The cluster of test_open_jobs_random(): n_jobs of OPEN_JOBS arrived, each
 * job's tasks pending or done, its counts and first pending tasks exact. */
typedef struct OpenCluster {
        Host hosts[1];
        Vm vms[2];
        Node nodes[2];
        Job jobs[OPEN_JOBS];
        Task tasks[OPEN_JOBS * OPEN_TASKS];
        uint32_t open[OPEN_JOBS];
        size_t n_jobs;
} OpenCluster;

static bool open_job_done(const Job *job) {
        return job->counts[TASK_MAP].done == job->counts[TASK_MAP].total &&
               job->counts[TASK_REDUCE].done == job->counts[TASK_REDUCE].total;
}

/* The snapshot as a driver that lists the jobs not settled gives it. */
static ClusterSnapshot open_snapshot(OpenCluster *c) {
        ClusterSnapshot s = { c->hosts, 1,       c->vms,    2,        c->nodes,
                              2,        c->jobs, c->n_jobs, c->tasks, c->n_jobs * OPEN_TASKS };
        size_t n_open = 0;

        s.job_tasks_kept = true;
        while (s.n_jobs_settled < c->n_jobs && open_job_done(&c->jobs[s.n_jobs_settled]))
                s.n_jobs_settled++;
        for (uint32_t j = 0; j < c->n_jobs; j++) {
                Job *job = &c->jobs[j];

                for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++) {
                        uint32_t k = job->tasks.first;

                        while (k < job->tasks.first + OPEN_TASKS &&
                               (c->tasks[k].type != type || c->tasks[k].state != TASK_PENDING))
                                k++;
                        job->tasks.first_pending[type] = k;
                }
                if (!open_job_done(job))
                        c->open[n_open++] = j;
        }
        s.open_jobs = c->open;
        s.n_open_jobs = n_open;
        return s;
}

/* One host of two trackers, one job of OPEN_JOBS arrived, every task
 * pending. */
static OpenCluster open_cluster(void) {
        OpenCluster c = {
                .hosts = { { .pcpus = 8 } },
                .vms = { { .host = 0, .vcpus = 1, .vcpus_max = 1, .memory_max = 1ULL << 30 },
                         { .host = 0, .vcpus = 1, .vcpus_max = 1, .memory_max = 1ULL << 30 } },
                .nodes = { { .vm = 0, .slots = { 2, 1 } }, { .vm = 1, .slots = { 2, 1 } } },
                .n_jobs = 1,
        };

        for (uint32_t j = 0; j < OPEN_JOBS; j++) {
                c.jobs[j] = (Job){ .id = j,
                                   .submitted = j,
                                   .counts = { [TASK_MAP] = { .total = OPEN_TASKS - 1 },
                                               [TASK_REDUCE] = { .total = 1 } },
                                   .tasks = { .first = OPEN_TASKS * j, .count = OPEN_TASKS } };
                for (uint32_t i = 0; i < OPEN_TASKS; i++)
                        c.tasks[OPEN_TASKS * j + i] = (Task){
                                .job = j,
                                .type = i == OPEN_TASKS - 1 ? TASK_REDUCE : TASK_MAP,
                        };
        }
        return c;
}

/* Every per-job entry of a step's context that keeps what the last steps
 * found is what a fresh one finds looking at every job, and it walks the
 * jobs not done (on the driver's list) or those after the settled ones in
 * the fresh one's order. */
static void assert_same_job_entries(const PolicyContext *kept, const PolicyContext *fresh,
                                    size_t n_jobs) {
        const ClusterSnapshot *s = kept->snap;
        size_t walked = 0;

        for (size_t j = 0; j < n_jobs; j++) {
                ck_assert_uint_eq(kept->maps_done[j], fresh->maps_done[j]);
                ck_assert_uint_eq(kept->maps_total[j], fresh->maps_total[j]);
                ck_assert_uint_eq(kept->reduces_done[j], fresh->reduces_done[j]);
                ck_assert_uint_eq(kept->reduces_total[j], fresh->reduces_total[j]);
                ck_assert_uint_eq(kept->task_start[j], fresh->task_start[j]);
                ck_assert_uint_eq(kept->job_order[j], fresh->job_order[j]);
                for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                        ck_assert_uint_eq(kept->pending[type][j].from,
                                          fresh->pending[type][j].from);
        }
        ck_assert_uint_eq(kept->task_start[n_jobs], fresh->task_start[n_jobs]);
        ck_assert_uint_eq(fresh->n_unsettled, n_jobs);
        for (size_t k = s->open_jobs ? 0 : s->n_jobs_settled; k < fresh->n_unsettled; k++) {
                uint32_t j = fresh->unsettled[k];

                if (s->open_jobs && open_job_done(&s->jobs[j]))
                        continue;
                ck_assert_uint_lt(walked, kept->n_unsettled);
                ck_assert_uint_eq(kept->unsettled[walked++], j);
        }
        ck_assert_uint_eq(walked, kept->n_unsettled);
}

/* Jobs arrive (now and then done already) and their tasks end in random
 * order, so that jobs settle behind one that does not; a driver lists the jobs not settled (now and
 * then it does not): at every step the context that takes in only the jobs
 * listed then or now holds what a fresh one finds for every job, and a
 * Policy stepping on the lists decides as a fresh one that looks at every
 * job (the reduces wait for all their maps, so a job's stale count would
 * show). Validation refuses a list that leaves out a job not done. */
START_TEST(test_open_jobs_random) {
        OpenCluster c = open_cluster();
        ContextBuffers kept_buffers = { 0 };
        _cleanup_(policy_freep) Policy *kept = NULL;
        Decisions d = { 0 }, want = { 0 }, scratch = { 0 };
        PolicyStepArgs args = { .now = USEC_PER_SEC, .flags = POLICY_STEP_ALL };
        CoreSettings core;
        ConfError err;
        uint64_t seed = 88172645463325252ULL;

        ck_assert_int_eq(conf_load_defaults(&core_settings_schema, &core, &err), 0);
        ck_assert_int_eq(fifo_new(1, &kept), 0);
        for (unsigned k = 0; k < 400; k++) {
                _cleanup_(policy_freep) Policy *fresh = NULL;
                ContextBuffers fresh_buffers = { 0 };
                PolicyContext kept_ctx, fresh_ctx;
                ClusterSnapshot s, all;

                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                if (c.n_jobs < OPEN_JOBS && seed % 3 == 0) {
                        Job *job = &c.jobs[c.n_jobs++];

                        /* Now and then one arrives done, never listed. */
                        for (uint32_t i = 0; (seed >> 4) % 4 == 0 && i < OPEN_TASKS; i++) {
                                c.tasks[job->tasks.first + i].state = TASK_DONE;
                                job->counts[c.tasks[job->tasks.first + i].type].done++;
                        }
                }
                for (unsigned n = 0; n < 1 + (seed >> 8) % 2; n++) {
                        uint32_t t = (uint32_t)((seed >> (16 + 8 * n)) % (c.n_jobs * OPEN_TASKS));
                        Task *task = &c.tasks[t];

                        if (task->state == TASK_PENDING) {
                                task->state = TASK_DONE;
                                c.jobs[task->job].counts[task->type].done++;
                        }
                }
                s = open_snapshot(&c);
                if ((seed >> 40) % 10 == 0)
                        s.open_jobs = NULL, s.n_open_jobs = 0;
                all = s;
                all.open_jobs = NULL;
                all.n_open_jobs = 0;
                all.n_jobs_settled = 0;

                ck_assert_int_eq(context_init(&kept_ctx, &core, &s, &args, &scratch, &kept_buffers),
                                 0);
                ck_assert_int_eq(
                        context_init(&fresh_ctx, &core, &all, &args, &scratch, &fresh_buffers), 0);
                assert_same_job_entries(&kept_ctx, &fresh_ctx, c.n_jobs);
                context_done(&kept_ctx);
                context_done(&fresh_ctx);
                context_buffers_done(&fresh_buffers);

                ck_assert_int_eq(step(kept, &s, USEC_PER_SEC, POLICY_STEP_ALL, &d), 0);
                ck_assert_int_eq(fifo_new(1, &fresh), 0);
                ck_assert_int_eq(step(fresh, &all, USEC_PER_SEC, POLICY_STEP_ALL, &want), 0);
                assert_same_assignments(&d, &want);
        }

        c.n_jobs = OPEN_JOBS;
        c.tasks[0].state = TASK_PENDING; /* job 0 not done, and not listed */
        c.jobs[0].counts[TASK_MAP].done--;
        {
                ClusterSnapshot s = open_snapshot(&c);
                uint32_t unlisted[] = { 0 }, descending[] = { 1, 0 };

                ck_assert_uint_ge(s.n_open_jobs, 1);
                ck_assert_int_eq(snapshot_validate(&s), 0);
                s.open_jobs = unlisted + 1;
                s.n_open_jobs = 0;
                ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
                s.open_jobs = descending;
                s.n_open_jobs = 2;
                ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
                s.open_jobs = unlisted;
                s.n_open_jobs = 1;
                s.n_jobs_settled = 1; /* listed, yet said settled */
                ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
                s.n_jobs_settled = 0;
                s.job_tasks_kept = false;
                ck_assert_int_eq(snapshot_validate(&s), -EINVAL);
        }
        context_buffers_done(&kept_buffers);
        decisions_done(&d);
        decisions_done(&want);
        decisions_done(&scratch);
}
END_TEST

/* The snapshot as a driver that reports the jobs that changed gives it. */
static ClusterSnapshot reported_snapshot(OpenCluster *c, const uint32_t *changed,
                                         size_t n_changed) {
        ClusterSnapshot s = open_snapshot(c);

        s.open_jobs = NULL;
        s.n_open_jobs = 0;
        s.n_jobs_settled = 0;
        s.jobs_reported = true;
        s.jobs_changed = changed;
        s.n_jobs_changed = n_changed;
        return s;
}

/* Task t of the cluster to state, its job's count with it; its job listed
 * as a driver that reports the jobs that changed lists it. */
static void reported_task_set(OpenCluster *c, uint32_t t, TaskState state, uint32_t *changed,
                              bool *listed, size_t *n_changed) {
        Task *task = &c->tasks[t];

        c->jobs[task->job].counts[task->type].done -= task->state == TASK_DONE;
        task->state = state;
        c->jobs[task->job].counts[task->type].done += state == TASK_DONE;
        if (!listed[task->job]) {
                listed[task->job] = true;
                changed[(*n_changed)++] = task->job;
        }
}

/* A driver that reports the jobs whose tasks changed (now and then it does
 * not report at all): jobs arrive, the tasks a step assigns end (now and
 * then a step's assignments are not applied, so that the tasks it placed
 * stay pending), and done tasks go back to pending, as a lost map output
 * sends them. Each step is not vouched for, so it checks the claim against
 * every job and task, and a Policy that keeps its per-job arrays decides as
 * a fresh one on the same snapshot. A change left unreported makes a step
 * refuse the snapshot. */
START_TEST(test_jobs_reported_random) {
        OpenCluster c = open_cluster();
        _cleanup_(policy_freep) Policy *kept = NULL;
        Decisions d = { 0 }, want = { 0 };
        uint32_t changed[OPEN_JOBS];
        bool listed[OPEN_JOBS] = { false };
        size_t n_changed = 0, applied = 0, reopened = 0;
        uint64_t seed = 2463534242ULL;
        ClusterSnapshot s;

        ck_assert_int_eq(fifo_new(1, &kept), 0);
        for (unsigned k = 0; k < 400; k++) {
                _cleanup_(policy_freep) Policy *fresh = NULL;
                uint32_t t;

                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                if (c.n_jobs < OPEN_JOBS && seed % 4 == 0)
                        c.n_jobs++;
                t = (uint32_t)((seed >> 8) % (c.n_jobs * OPEN_TASKS));
                if (c.tasks[t].state == TASK_DONE && (seed >> 20) % 3 == 0) {
                        reported_task_set(&c, t, TASK_PENDING, changed, listed, &n_changed);
                        reopened++;
                }
                s = reported_snapshot(&c, changed, n_changed);
                s.jobs_reported = (seed >> 40) % 10 != 0;

                ck_assert_int_eq(step(kept, &s, USEC_PER_SEC, POLICY_STEP_ALL, &d), 0);
                ck_assert_int_eq(fifo_new(1, &fresh), 0);
                ck_assert_int_eq(step(fresh, &s, USEC_PER_SEC, POLICY_STEP_ALL, &want), 0);
                assert_same_assignments(&d, &want);
                for (size_t i = 0; i < n_changed; i++)
                        listed[changed[i]] = false;
                n_changed = 0;
                for (size_t i = 0; (seed >> 44) % 4 != 0 && i < d.n_assignments; i++) {
                        reported_task_set(&c, d.assignments[i].task, TASK_DONE, changed, listed,
                                          &n_changed);
                        applied++;
                }
        }
        /* Every kind of change came many times. */
        ck_assert_uint_gt(applied, 40);
        ck_assert_uint_gt(reopened, 10);

        /* A done first map back to pending, its job not reported and no
         * task of it placed in the last step: refused. Reported: taken. */
        s = reported_snapshot(&c, changed, n_changed);
        ck_assert_int_eq(step(kept, &s, USEC_PER_SEC, POLICY_STEP_ALL, &d), 0);
        for (size_t i = 0; i < n_changed; i++)
                listed[changed[i]] = false;
        n_changed = 0;
        {
                uint32_t j = 0;
                bool placed = true;

                for (; placed && j < c.n_jobs; j += placed) {
                        placed = c.tasks[OPEN_TASKS * j].state != TASK_DONE;
                        for (size_t i = 0; !placed && i < d.n_assignments; i++)
                                placed = c.tasks[d.assignments[i].task].job == j;
                }
                ck_assert_uint_lt(j, c.n_jobs);
                c.tasks[OPEN_TASKS * j].state = TASK_PENDING;
                c.jobs[j].counts[TASK_MAP].done--;
                s = reported_snapshot(&c, changed, 0);
                ck_assert_int_eq(step(kept, &s, USEC_PER_SEC, POLICY_STEP_ALL, &d), -EINVAL);
                changed[0] = j;
                s.n_jobs_changed = 1;
                ck_assert_int_eq(step(kept, &s, USEC_PER_SEC, POLICY_STEP_ALL, &d), 0);
        }
        decisions_done(&d);
        decisions_done(&want);
}
END_TEST

#define LOCAL_NODES 8
#define LOCAL_BIG 300  /* maps of job 0: indexed */
#define LOCAL_SMALL 40 /* maps of job 1: scanned */

typedef struct LocalCluster {
        Host hosts[1];
        Vm vms[LOCAL_NODES];
        Node nodes[LOCAL_NODES];
        Job jobs[2];
        Task tasks[LOCAL_BIG + LOCAL_SMALL];
} LocalCluster;

static uint64_t xorshift(uint64_t *seed) {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        return *seed;
}

static ClusterSnapshot local_snapshot(LocalCluster *c) {
        ClusterSnapshot s = { c->hosts,    1,       c->vms, LOCAL_NODES, c->nodes,
                              LOCAL_NODES, c->jobs, 2,      c->tasks,    LOCAL_BIG + LOCAL_SMALL };

        s.job_tasks_kept = true;
        for (uint32_t j = 0; j < 2; j++) {
                JobTasks *jt = &c->jobs[j].tasks;
                uint32_t k = jt->first;

                c->jobs[j].counts[TASK_MAP].done = 0;
                for (uint32_t i = jt->first; i < jt->first + jt->count; i++)
                        c->jobs[j].counts[TASK_MAP].done += c->tasks[i].state == TASK_DONE;
                while (k < jt->first + jt->count && c->tasks[k].state != TASK_PENDING)
                        k++;
                jt->first_pending[TASK_MAP] = k;
                jt->first_pending[TASK_REDUCE] = jt->first + jt->count;
        }
        return s;
}

/* The first pending map of the job local to the node, by a scan. */
static uint32_t local_map_scanned(const LocalCluster *c, uint32_t job, uint32_t node) {
        const JobTasks *jt = &c->jobs[job].tasks;

        for (uint32_t i = jt->first; i < jt->first + jt->count; i++)
                if (c->tasks[i].state == TASK_PENDING && task_is_local(&c->tasks[i], node))
                        return i;
        return NO_INDEX;
}

/* Each map its 0-3 replicas, now and then one twice. */
static void local_place(Task *t, uint64_t *seed) {
        t->n_locations = (unsigned)(xorshift(seed) % (MAX_REPLICAS + 1));
        for (unsigned i = 0; i < t->n_locations; i++)
                t->locations[i] = (uint32_t)(xorshift(seed) % LOCAL_NODES);
}

/* A big job's maps by node (ContextBuffers.local_maps, kept from step to
 * step) give every local search the task a scan of the job gives, while the
 * maps start, end and go back to pending between and within steps, in
 * searches for several nodes in one step, and after another job took the
 * index's place; a small job is scanned. A step not vouched for refuses
 * a map's locations changed under the same job. */
START_TEST(test_local_maps_random) {
        static LocalCluster c;
        ContextBuffers buffers = { 0 };
        Decisions scratch = { 0 };
        PolicyStepArgs args = { .now = USEC_PER_SEC, .flags = POLICY_STEP_ALL };
        CoreSettings core;
        ConfError err;
        uint64_t seed = 1181783497276652981ULL;
        unsigned found = 0, none = 0;

        ck_assert_int_eq(conf_load_defaults(&core_settings_schema, &core, &err), 0);
        c.hosts[0] = (Host){ .pcpus = 8 };
        for (uint32_t n = 0; n < LOCAL_NODES; n++) {
                c.vms[n] = (Vm){ .host = 0, .vcpus = 1, .vcpus_max = 1, .memory_max = 1ULL << 30 };
                c.nodes[n] = (Node){ .vm = n, .slots = { 2, 1 } };
        }
        for (uint32_t j = 0; j < 2; j++) {
                uint32_t first = j ? LOCAL_BIG : 0, count = j ? LOCAL_SMALL : LOCAL_BIG;

                c.jobs[j] = (Job){ .id = 100 + j,
                                   .submitted = j,
                                   .counts = { [TASK_MAP] = { .total = count } },
                                   .tasks = { .first = first, .count = count } };
                for (uint32_t i = first; i < first + count; i++) {
                        c.tasks[i] = (Task){ .id = i, .job = j, .type = TASK_MAP };
                        local_place(&c.tasks[i], &seed);
                }
        }
        for (unsigned round = 0; round < 300; round++) {
                ClusterSnapshot s;
                PolicyContext ctx;
                bool searched_big = false;

                /* Maps end or come back (those placed are running). */
                for (unsigned n = 0; n < 12; n++) {
                        Task *t = &c.tasks[xorshift(&seed) % (LOCAL_BIG + LOCAL_SMALL)];

                        t->state = xorshift(&seed) % 3 == 0 ? TASK_PENDING : TASK_DONE;
                }
                /* Another job at index 0: its index is built anew. */
                if (round == 150) {
                        c.jobs[0].id = 200;
                        for (uint32_t i = 0; i < LOCAL_BIG; i++)
                                local_place(&c.tasks[i], &seed);
                }
                s = local_snapshot(&c);
                ck_assert_int_eq(context_init(&ctx, &core, &s, &args, &scratch, &buffers), 0);
                for (unsigned q = 0; q < 4; q++) {
                        uint32_t job = (uint32_t)(xorshift(&seed) % 2);
                        uint32_t node = (uint32_t)(xorshift(&seed) % LOCAL_NODES);
                        uint32_t want = local_map_scanned(&c, job, node);
                        uint32_t got = context_job_next_task(&ctx, job, TASK_MAP, node, true);

                        ck_assert_uint_eq(got, want);
                        found += want != NO_INDEX;
                        none += want == NO_INDEX;
                        searched_big |= job == 0;
                        /* The step placed it: the next search passes it by. */
                        if (got != NO_INDEX && q % 2 == 0) {
                                ck_assert_int_eq(context_assign(&ctx, got, node, SLOT_MAP, false),
                                                 0);
                                c.tasks[got].state = TASK_RUNNING;
                                ck_assert_uint_eq(
                                        context_job_next_task(&ctx, job, TASK_MAP, node, true),
                                        local_map_scanned(&c, job, node));
                        }
                }
                if (searched_big && c.jobs[0].tasks.first_pending[TASK_MAP] < LOCAL_BIG)
                        ck_assert_ptr_nonnull(buffers.local_maps[0].entries);
                ck_assert_ptr_null(buffers.local_maps[1].entries);
                context_done(&ctx);
        }
        ck_assert_uint_gt(found, 300);
        ck_assert_uint_gt(none, 50);

        /* A map's split gets another replica, or moves, its job the same:
         * refused unless vouched for. */
        {
                ClusterSnapshot s;
                PolicyContext ctx;
                uint32_t t = 0, elsewhere = 0;
                Task was;

                while (c.tasks[t].n_locations == 0 || c.tasks[t].n_locations == MAX_REPLICAS)
                        t++;
                while (task_is_local(&c.tasks[t], elsewhere))
                        elsewhere++;
                c.tasks[t].state = TASK_PENDING;
                was = c.tasks[t];
                s = local_snapshot(&c);
                ck_assert_int_eq(context_init(&ctx, &core, &s, &args, &scratch, &buffers), 0);
                context_job_next_task(&ctx, 0, TASK_MAP, c.tasks[t].locations[0], true);
                context_done(&ctx);
                ck_assert_ptr_nonnull(buffers.local_maps[0].entries);
                c.tasks[t].locations[c.tasks[t].n_locations++] = elsewhere;
                ck_assert_int_eq(context_init(&ctx, &core, &s, &args, &scratch, &buffers), -EINVAL);
                c.tasks[t] = was;
                ck_assert_int_eq(context_init(&ctx, &core, &s, &args, &scratch, &buffers), 0);
                context_done(&ctx);
                c.tasks[t].locations[0] = elsewhere;
                ck_assert_int_eq(context_init(&ctx, &core, &s, &args, &scratch, &buffers), -EINVAL);
                args.flags |= POLICY_STEP_TRUSTED;
                ck_assert_int_eq(context_init(&ctx, &core, &s, &args, &scratch, &buffers), 0);
                context_done(&ctx);
        }
        context_buffers_done(&buffers);
        decisions_done(&scratch);
}
END_TEST

/* A driver's attempts whose progress it leaves out until the core asks:
 * two maps at 0.9 until then, at 0.1 and 0.9 after, and a reduce. */
typedef struct LazyFigures {
        Attempt attempts[3];
        unsigned fills[3];
} LazyFigures;

static void lazy_figures_fill(void *userdata, uint32_t attempt) {
        static const double progress[] = { 0.1, 0.9, 0.5 };
        LazyFigures *f = userdata;

        f->attempts[attempt].progress = progress[attempt];
        f->fills[attempt]++;
}

static void assert_fills(const LazyFigures *f, unsigned map0, unsigned map1, unsigned reduce) {
        ck_assert_uint_eq(f->fills[0], map0);
        ck_assert_uint_eq(f->fills[1], map1);
        ck_assert_uint_eq(f->fills[2], reduce);
}

/* The attempts' figures are filled only where a step reads them, each at
 * most once, and before every layer that does not ask for them itself: a
 * heartbeat of a node with no free slot under FIFO and Hadoop's
 * speculation reads none; a heartbeat with a map slot for a backup reads
 * the maps' (not the reduce's, which has no slot) and backs up the slow map
 * as a snapshot with every figure does (a read before the fill would see no
 * slow map); LATE and a step not vouched for fill every attempt's first;
 * an admission without an admission test reads no snapshot, so fills
 * none. */
START_TEST(test_attempt_figures_on_demand) {
        Host hosts[] = { { .pcpus = 8 } };
        Vm vms[] = { { .host = 0, .vcpus = 1, .vcpus_max = 1, .memory_max = 1ULL << 30 },
                     { .host = 0, .vcpus = 1, .vcpus_max = 1, .memory_max = 1ULL << 30 } };
        Node nodes[] = { { .vm = 0, .slots = { 2, 1 } }, { .vm = 1, .slots = { 1, 0 } } };
        Job jobs[] = { { .id = 1,
                         .counts = { [TASK_MAP] = { .total = 3, .done = 1, .running = 2 },
                                     [TASK_REDUCE] = { .total = 1, .running = 1 } },
                         .tasks = { .first = 0, .count = 4, .first_pending = { 4, 4 } } } };
        Task tasks[] = { { .job = 0, .state = TASK_RUNNING },
                         { .job = 0, .state = TASK_RUNNING },
                         { .job = 0, .state = TASK_DONE },
                         { .job = 0, .type = TASK_REDUCE, .state = TASK_RUNNING } };
        LazyFigures f = { .attempts = {
                                  { .task = 0, .node = 0, .progress = 0.9 },
                                  { .id = 1, .task = 1, .node = 0, .progress = 0.9 },
                                  { .id = 2, .task = 3, .node = 0, .slot = SLOT_REDUCE },
                          } };
        ClusterSnapshot s = { hosts, 1, vms, 2, nodes, 2, jobs, 1, tasks, 4, f.attempts, 3 };
        const PolicyLayers hadoop = { &job_scheduler_fifo, &slot_manager_static,
                                      &speculation_hadoop, &vm_allocator_static };
        const PolicyLayers late = { &job_scheduler_fifo, &slot_manager_static, &speculation_late,
                                    &vm_allocator_static };
        _cleanup_(policy_freep) Policy *p = NULL, *q = NULL;
        PolicyStepArgs beat = { .now = 100 * USEC_PER_SEC,
                                .flags = POLICY_STEP_ASSIGN | POLICY_STEP_HEARTBEAT |
                                         POLICY_STEP_TRUSTED };
        Decisions d = { 0 }, want = { 0 };
        AdmitVerdict v;

        s.job_tasks_kept = true; /* the job's mean from its counts, not every task */
        s.fill_attempt = lazy_figures_fill;
        s.fill_attempt_data = &f;
        ck_assert_int_eq(policy_new(&hadoop, NULL, NULL, &p), 0);
        ck_assert_int_eq(policy_step(p, &s, &beat, &d), 0);
        assert_fills(&f, 0, 0, 0);
        ck_assert_uint_eq(d.n_assignments, 0);

        beat.node = 1;
        ck_assert_int_eq(policy_step(p, &s, &beat, &d), 0);
        assert_fills(&f, 1, 1, 0);
        s.fill_attempt = NULL;
        ck_assert_int_eq(policy_step(p, &s, &beat, &want), 0);
        ck_assert_uint_eq(want.n_assignments, 1);
        ck_assert(want.assignments[0].speculative);
        ck_assert_uint_eq(want.assignments[0].task, 0);
        assert_same_assignments(&d, &want);

        /* Filled before a layer that reads them without asking and before
         * a step validates the snapshot. */
        s.fill_attempt = lazy_figures_fill;
        f.attempts[0].progress = 0.9;
        ck_assert_int_eq(policy_new(&late, NULL, NULL, &q), 0);
        beat.node = 0;
        ck_assert_int_eq(policy_step(q, &s, &beat, &d), 0);
        assert_fills(&f, 2, 2, 1);
        beat.flags &= ~POLICY_STEP_TRUSTED;
        ck_assert_int_eq(policy_step(p, &s, &beat, &d), 0);
        assert_fills(&f, 3, 3, 2);
        ck_assert(policy_admits_all(p));
        ck_assert_int_eq(policy_admit(p, &s, beat.now, &jobs[0], 0, &v), 0);
        assert_fills(&f, 3, 3, 2);
        decisions_done(&d);
        decisions_done(&want);
}
END_TEST

/* decisions_validate() tells tasks apart by sorted lists of the decisions'
 * tasks: a task placed twice, or a running one that no kill re-placed, is
 * refused; a re-placed task, or a backup beside its original, is not. */
START_TEST(test_decisions_validate_tasks_once) {
        Host hosts[] = { { .pcpus = 8 } };
        Vm vms[] = { { .host = 0 } };
        Node nodes[] = { { .vm = 0, .slots = { 4, 0 } } };
        Job jobs[] = { { .id = 1 } };
        Task tasks[] = { { .job = 0, .state = TASK_PENDING },
                         { .job = 0, .state = TASK_RUNNING },
                         { .job = 0, .state = TASK_RUNNING } };
        Attempt attempts[] = { { .task = 1, .node = 0 }, { .task = 2, .node = 0 } };
        ClusterSnapshot s = { hosts, 1, vms, 1, nodes, 1, jobs, 1, tasks, 3, attempts, 2 };
        Assignment as[3];
        Kill kill = { .attempt = 1, .reason = KILL_REPLACE };
        Decisions d = { .assignments = as, .kills = &kill };

        as[0] = (Assignment){ .task = 0, .node = 0, .type = TASK_MAP };
        as[1] = (Assignment){ .task = 1, .node = 0, .type = TASK_MAP, .speculative = true };
        d.n_assignments = 2;
        ck_assert_int_eq(decisions_validate(&s, NULL, &d), 0);
        as[1] = as[0];
        ck_assert_int_eq(decisions_validate(&s, NULL, &d), -EBADMSG);
        as[1] = (Assignment){ .task = 2, .node = 0, .type = TASK_MAP };
        ck_assert_int_eq(decisions_validate(&s, NULL, &d), -EBADMSG);
        d.n_kills = 1;
        ck_assert_int_eq(decisions_validate(&s, NULL, &d), 0);
        as[2] = as[1];
        d.n_assignments = 3;
        ck_assert_int_eq(decisions_validate(&s, NULL, &d), -EBADMSG);
}
END_TEST

/* One node with a map and a reduce slot; map 0 runs in the reduce slot
 * (borrowed), map 1 and reduce 2 are pending. */
typedef struct BorrowFixture {
        Host hosts[1];
        Vm vms[1];
        Node nodes[1];
        Job jobs[1];
        Task tasks[3];
        Attempt attempts[1];
        ClusterSnapshot s;
} BorrowFixture;

static void borrow_fixture(BorrowFixture *f) {
        *f = (BorrowFixture){
                .hosts = { { .pcpus = 4 } },
                .vms = { { .host = 0, .vcpus = 1, .vcpus_max = 1, .memory_max = 1ULL << 30 } },
                .nodes = { {
                        .vm = 0,
                        .slots = { [SLOT_MAP] = 1, [SLOT_REDUCE] = 1 },
                } },
                .jobs = { { .id = 1 } },
                .tasks = { { .job = 0, .type = TASK_MAP, .state = TASK_RUNNING },
                           { .job = 0, .type = TASK_MAP, .state = TASK_PENDING },
                           { .job = 0, .type = TASK_REDUCE, .state = TASK_PENDING } },
                .attempts = { { .task = 0, .node = 0, .slot = SLOT_REDUCE } },
        };
        f->s = (ClusterSnapshot){ f->hosts, 1, f->vms,   1, f->nodes,    1,
                                  f->jobs,  1, f->tasks, 3, f->attempts, 1 };
}

static int validate_one(const ClusterSnapshot *s, uint32_t task, SlotType slot,
                        const SlotChange *change, const Kill *kill) {
        Assignment as = { .task = task, .node = 0, .type = s->tasks[task].type, .slot = slot };
        Decisions d = { .assignments = &as,
                        .n_assignments = 1,
                        .slot_changes = (SlotChange *)change,
                        .n_slot_changes = change ? 1 : 0,
                        .kills = (Kill *)kill,
                        .n_kills = kill ? 1 : 0 };

        return decisions_validate(s, NULL, &d);
}

/* Slots are counted by their own type: the map in the reduce slot fills it,
 * so neither a reduce nor another map may go there, while the map slot is
 * still free for either; a slot change turns the map slot into a second
 * reduce slot; a re-placement frees the borrowed slot. */
START_TEST(test_borrowed_slot_validation) {
        const SlotChange to_reduce = { .node = 0, .slots = { [SLOT_MAP] = 0, [SLOT_REDUCE] = 2 } };
        const Kill replace = { .attempt = 0, .reason = KILL_REPLACE };
        BorrowFixture f;

        borrow_fixture(&f);
        ck_assert_int_eq(snapshot_validate(&f.s), 0);
        ck_assert_int_eq(validate_one(&f.s, 1, SLOT_MAP, NULL, NULL), 0);
        ck_assert_int_eq(validate_one(&f.s, 2, SLOT_MAP, NULL, NULL), 0);
        ck_assert_int_eq(validate_one(&f.s, 1, SLOT_REDUCE, NULL, NULL), -EBADMSG);
        ck_assert_int_eq(validate_one(&f.s, 2, SLOT_REDUCE, NULL, NULL), -EBADMSG);
        ck_assert_int_eq(validate_one(&f.s, 2, _SLOT_TYPE_MAX, NULL, NULL), -EBADMSG);

        ck_assert_int_eq(validate_one(&f.s, 2, SLOT_REDUCE, &to_reduce, NULL), 0);
        ck_assert_int_eq(validate_one(&f.s, 1, SLOT_MAP, &to_reduce, NULL), -EBADMSG);
        ck_assert_int_eq(validate_one(&f.s, 2, SLOT_REDUCE, NULL, &replace), 0);

        /* The map placed in the second reduce slot is a valid attempt of the
         * next snapshot; a slot type out of range is not. */
        f.nodes[0].slots[SLOT_REDUCE] = 2;
        ck_assert_int_eq(validate_one(&f.s, 1, SLOT_REDUCE, NULL, NULL), 0);
        f.tasks[1].state = TASK_RUNNING;
        f.attempts[0] = (Attempt){ .task = 1, .node = 0, .slot = SLOT_REDUCE };
        ck_assert_int_eq(snapshot_validate(&f.s), 0);
        f.attempts[0].slot = _SLOT_TYPE_MAX;
        ck_assert_int_eq(snapshot_validate(&f.s), -EINVAL);
}
END_TEST

/* Today's policies keep each task in a slot of its type, and count the
 * borrowed reduce slot as taken: FIFO runs the pending map in the map slot
 * and has no room for the reduce. */
START_TEST(test_borrowed_slot_is_busy) {
        _cleanup_(policy_freep) Policy *p = NULL;
        Decisions d = { 0 };
        BorrowFixture f;

        borrow_fixture(&f);
        ck_assert_int_eq(fifo_new(0, &p), 0);
        ck_assert_int_eq(step(p, &f.s, USEC_PER_SEC, POLICY_STEP_ASSIGN, &d), 0);
        ck_assert_uint_eq(d.n_assignments, 1);
        ck_assert_uint_eq(d.assignments[0].task, 1);
        ck_assert_int_eq(d.assignments[0].slot, SLOT_MAP);
        /* With the map back in a map slot, the reduce slot is free for it. */
        f.attempts[0].slot = SLOT_MAP;
        f.tasks[1].state = TASK_DONE;
        ck_assert_int_eq(step(p, &f.s, USEC_PER_SEC, POLICY_STEP_ASSIGN, &d), 0);
        ck_assert_uint_eq(d.n_assignments, 1);
        ck_assert_uint_eq(d.assignments[0].task, 2);
        ck_assert_int_eq(d.assignments[0].slot, SLOT_REDUCE);
        decisions_done(&d);
}
END_TEST

Suite *suite_core(void) {
        Suite *s = suite_create("core");
        TCase *tc;

        tc = tcase_create("stats");
        tcase_add_test(tc, test_mean_stddev_skewness);
        tcase_add_test(tc, test_percentile);
        tcase_add_test(tc, test_max_min_shares);
        tcase_add_test(tc, test_drs_history_demand);
        tcase_add_test(tc, test_drs_share_weight);
        tcase_add_test(tc, test_kmeans_two_clusters);
        tcase_add_test(tc, test_kmeans_iterates_to_fixpoint);
        tcase_add_test(tc, test_kmeans_degenerate);
        suite_add_tcase(s, tc);

        tc = tcase_create("memory");
        tcase_add_test(tc, test_arena);
        tcase_add_test(tc, test_idmap);
        suite_add_tcase(s, tc);

        tc = tcase_create("model");
        tcase_add_test(tc, test_snapshot_validate);
        tcase_add_test(tc, test_step_trusted_skips_validation);
        tcase_add_test(tc, test_phase_stats);
        tcase_add_test(tc, test_run_profile_reduces);
        tcase_add_test(tc, test_job_validate);
        tcase_add_test(tc, test_job_tasks_kept);
        tcase_add_test(tc, test_jobs_settled);
        tcase_add_test(tc, test_attempts_counted);
        tcase_add_test(tc, test_slots_reported);
        tcase_add_test(tc, test_slots_reported_random);
        tcase_add_test(tc, test_open_jobs_random);
        tcase_add_test(tc, test_jobs_reported_random);
        tcase_add_test(tc, test_local_maps_random);
        tcase_add_test(tc, test_attempt_figures_on_demand);
        tcase_add_test(tc, test_decisions_validate_tasks_once);
        tcase_add_test(tc, test_borrowed_slot_validation);
        tcase_add_test(tc, test_borrowed_slot_is_busy);
        suite_add_tcase(s, tc);
        return s;
}

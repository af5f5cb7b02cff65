/* SPDX-License-Identifier: MIT */
/* The simulator's engine alone: the model of sim/host.h in motion, on a
 * cluster built by hand (no scenario, no policy, no ledger: the engine's
 * task_done hook is the test's). */
#include <stdlib.h>

#include "common/macro.h"
#include "sim/event.h"
#include "sim/host.h"
#include "sim/state.h"
#include "tests.h"

#define MAP 0 /* task and node of the map measured */
#define HOG 1 /* task and node of the CPU hog beside it */

/* One host of one pCPU and a disk for two streams at full speed, with two
 * one-vCPU slave VMs of equal weight (nodes MAP and HOG). Task MAP is a map
 * of two chunks that computes CPU_WORK seconds and writes OUTPUT bytes in
 * one spill; task HOG is a map of no input that computes for longer than
 * the test runs. */
typedef struct Rig {
        Scenario sc;
        Sim sim;
        SimHost host;
        SimVm vms[2];
        uint32_t host_vms[2];
        uint32_t accruing[1];
        CpuDemand demand[2];
        double alloc[2];
        Node nodes[2];
        uint32_t node_vm[2];
        NodeAttempts node_attempts[2];
        GrownSlots grown[2];
        Job job;
        JobExtra jobx;
        Task tasks[2];
        TaskExtra taskx[2];
} Rig;

#define STREAM_BW (16.0 * MB) /* a stream's bandwidth, bytes/s */
#define CHUNK (16 * 1024 * 1024)
#define STARTUP USEC_PER_SEC
#define HEAP (200ULL * 1024 * 1024)
#define CPU_WORK 4.0          /* seconds on one core, 2 per round */
#define OUTPUT (8.0 * MB)     /* half a second at STREAM_BW */
#define HOG_WORK (1e6 * 3600) /* seconds */

/* The engine's hook: when the task finished; the map's end ends the run. */
static void task_done(SimCluster *cl, uint32_t task) {
        cl->taskx[task].finished = event_queue_now(cl->sim->queue);
        if (task == MAP)
                event_queue_stop(cl->sim->queue);
}

static void rig_init(Rig *r) {
        Sim *s = &r->sim;
        SimCluster *cl = &s->clusters[0];

        *r = (Rig){
                .sc = { .chunk = CHUNK,
                        .task_startup = STARTUP,
                        .sort_buffer = HEAP / 2,
                        .task_heap = HEAP,
                        .vm_os_memory = 512ULL * 1024 * 1024 },
                .host = { .pcpus = 1, .disk_bw = 2 * STREAM_BW, .n_vms = 2 },
                .host_vms = { 0, 1 },
                .node_vm = { 0, 1 },
                .job = { .counts = { [TASK_MAP] = { .total = 2 } } },
                .jobx = { .combine = 1 },
                .tasks = { { .id = MAP, .type = TASK_MAP, .input_size = 2 * CHUNK },
                           { .id = HOG, .type = TASK_MAP } },
                .taskx = { { .cpu_work = CPU_WORK, .output = OUTPUT }, { .cpu_work = HOG_WORK } },
        };
        r->host.vms = r->host_vms;
        r->host.demand = r->demand;
        r->host.alloc = r->alloc;
        for (uint32_t i = 0; i < 2; i++) {
                r->vms[i] = (SimVm){ .sim = s,
                                     .node = i,
                                     .vcpus = 1,
                                     .vcpus_max = 1,
                                     .weight = 256,
                                     .memory = 4ULL << 30,
                                     .memory_max = 4ULL << 30 };
                r->nodes[i] = (Node){ .id = i, .vm = i, .slot_memory = HEAP };
        }
        ck_assert_int_eq(event_queue_new(&s->queue), 0);
        s->sc = &r->sc;
        s->hosts = &r->host;
        s->n_hosts = 1;
        s->accruing = r->accruing;
        s->vms = r->vms;
        s->n_vms = 2;
        s->n_clusters = 1;
        s->stream_bw = STREAM_BW;
        s->net_bw = STREAM_BW;
        s->check_invariants = true;
        cl->sim = s;
        cl->jobs = &r->job;
        cl->jobx = &r->jobx;
        cl->n_jobs = cl->n_arrived = 1;
        cl->tasks = r->tasks;
        cl->taskx = r->taskx;
        cl->n_tasks = 2;
        cl->nodes = r->nodes;
        cl->node_vm = r->node_vm;
        cl->n_nodes = 2;
        cl->node_attempts = r->node_attempts;
        cl->grown = r->grown;
        cl->task_done = task_done;
}

static void rig_done(Rig *r) {
        SimCluster *cl = &r->sim.clusters[0];

        for (size_t i = 0; i < cl->n_attempts; i++)
                free(cl->attempts[i]);
        free(cl->attempts);
        free(cl->snap_attempts);
        free(r->host.attempts);
        free(r->host.stale);
        free(r->host.readers);
        event_queue_free(r->sim.queue);
}

/* Runs the map, beside the hog when hog is set, to its end: the map's task
 * record. */
static TaskExtra map_run(bool hog) {
        Rig r;
        SimCluster *cl;
        TaskExtra ret;

        rig_init(&r);
        cl = &r.sim.clusters[0];
        if (hog)
                ck_assert_int_eq(sim_attempt_start(cl, HOG, HOG, SLOT_MAP, HEAP, false), 0);
        ck_assert_int_eq(sim_attempt_start(cl, MAP, MAP, SLOT_MAP, HEAP, false), 0);
        event_queue_run(r.sim.queue, USEC_INFINITY);
        ck_assert_msg(!r.sim.invariant_error[0], "%s", r.sim.invariant_error);
        ck_assert_int_eq(r.sim.error, 0);
        ck_assert_uint_eq(cl->taskx[HOG].finished, 0);
        ret = cl->taskx[MAP];
        rig_done(&r);
        return ret;
}

START_TEST(test_map_beside_cpu_hog) {
        /* What the host model gives each of two runnable one-vCPU VMs of
         * equal weight on one pCPU. */
        const CpuDemand demand[2] = { { .runnable = 1, .weight = 256 },
                                      { .runnable = 1, .weight = 256 } };
        double share[2];
        TaskExtra idle = map_run(false), beside = map_run(true);

        cpu_share_compute(1, demand, 2, share);
        ck_assert_double_lt(share[MAP], 1);

        /* Alone: the JVM's start, each chunk read at a stream's bandwidth
         * and computed on a whole pCPU, then the one spill written. */
        ck_assert_uint_eq(idle.finished, STARTUP + (usec_t)((2 * CHUNK / STREAM_BW + CPU_WORK +
                                                             OUTPUT / STREAM_BW) *
                                                            USEC_PER_SEC));
        ck_assert_double_eq_tol(idle.cpu, CPU_WORK, 1e-9);
        ck_assert_double_eq_tol(idle.steal, 0, 1e-9);

        /* Beside the hog: the reads and the write as fast (the hog does no
         * I/O), the computing at the model's share of the pCPU; the rest of
         * the time went to steal. */
        ck_assert_uint_eq(beside.finished - idle.finished,
                          (usec_t)(CPU_WORK * (1 / share[MAP] - 1) * USEC_PER_SEC));
        ck_assert_double_eq_tol(beside.cpu, CPU_WORK, 1e-9);
        ck_assert_double_eq_tol(beside.steal, CPU_WORK * (1 / share[MAP] - 1), 1e-9);
}
END_TEST

Suite *suite_sim_engine(void) {
        Suite *s = suite_create("sim_engine");
        TCase *tc = tcase_create("engine");

        tcase_add_test(tc, test_map_beside_cpu_hog);
        suite_add_tcase(s, tc);
        return s;
}

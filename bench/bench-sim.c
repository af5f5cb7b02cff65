/* SPDX-License-Identifier: MIT */
/* Simulator throughput: events per CPU second of the event heap alone (a hold
 * model: every event reschedules itself, so the heap stays at a fixed size,
 * as a simulation's does) and of the whole simulator on the Fig. 10
 * scenario, with the ratio between them; the scenario also on four times
 * its cluster and input; and a SWIM trace replayed whole on the scenario's
 * hosts grown to FLEXSLOT_BENCH_REPLAY_NODES slaves. The rates are per second
 * of this thread's CPU time, so that a machine whose CPUs are shared or
 * capped still gives the same figures and ratios. */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "sim/event.h"
#include "sim/report.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "sim/swim.h"
#include "sim/trace.h"
#include "sim/workload.h"

#define HOLD_EVENTS 1000u /* pending events, about what the Fig. 10 run holds */
#define HEAP_DISPATCHES 5000000ULL
/* Each figure is the best of this many runs: on a shared machine the best
 * is the one least disturbed. */
#define REPEATS 3u
/* The replay's slaves without FLEXSLOT_BENCH_REPLAY_NODES: the issue's
 * 10,000 take hours, so `make bench` runs a smaller cluster. */
#define REPLAY_NODES_DEFAULT 30u
#define REPLAY_NODES_MAX 99000u
/* The Fig. 10 scenario's VMs per host. */
#define REPLAY_VMS_PER_HOST 4u

typedef struct Hold {
        uint64_t rng;
        uint64_t left;
} Hold;

static usec_t hold_event(EventQueue *q, void *userdata) {
        Hold *h = userdata;

        if (h->left == 0) {
                event_queue_stop(q);
                return 0;
        }
        h->left--;
        h->rng = h->rng * 6364136223846793005ULL + 1442695040888963407ULL;
        return 1 + (h->rng >> 33) % 10000;
}

static double heap_events_per_sec(void) {
        _cleanup_(event_queue_freep) EventQueue *q = NULL;
        Hold hold = { .rng = 1, .left = HEAP_DISPATCHES };
        usec_t start;
        uint64_t n;

        if (event_queue_new(&q) < 0)
                return 0;
        for (unsigned i = 0; i < HOLD_EVENTS; i++)
                if (event_queue_schedule(q, i, hold_event, &hold, NULL) < 0)
                        return 0;
        start = now_thread_cpu_usec();
        n = event_queue_run(q, USEC_INFINITY);
        return (double)n / usec_to_sec(now_thread_cpu_usec() - start);
}

typedef struct SimRate {
        double total; /* events per CPU second */
        uint64_t events, steps;
        usec_t cpu, policy_cpu; /* the run's, and its steps' when it timed them */
} SimRate;

#define CLOCK_READS 100000u

/* CPU time of one read of the thread's CPU clock, a system call, from
 * many in a row. */
static double clock_read_usec(void) {
        usec_t start = now_thread_cpu_usec(), end = start;

        for (unsigned i = 0; i < CLOCK_READS; i++)
                end = now_thread_cpu_usec();
        return (double)(end - start) / CLOCK_READS;
}

/* The rate not counting the time in policy_step(): the steps' CPU time as
 * a run that timed them (time_policy) measured it, less the clock read
 * each interval holds (the end of the first read and the start of the
 * second), taken off an untimed run's. A timed run is slower by its two
 * clock reads a step, which is why the totals come from untimed runs. */
static double rate_without_core(const SimRate *untimed, const SimRate *timed, double read_usec) {
        double core = MAX((double)timed->policy_cpu - (double)timed->steps * read_usec, 0.0);

        if ((double)untimed->cpu <= core)
                return 0; /* the machine disturbed one of the runs too much to tell */
        return (double)untimed->events / usec_to_sec((usec_t)((double)untimed->cpu - core));
}

/* Runs the simulation to its end and measures it. */
static int sim_rate_measure(Sim *sim, bool time_policy, SimRate *ret) {
        const SimResults *res = sim_results(sim);
        usec_t start, cpu;
        int r;

        sim_set_time_policy(sim, time_policy);
        start = now_thread_cpu_usec();
        r = sim_run(sim);
        cpu = now_thread_cpu_usec() - start;
        *ret = (SimRate){
                .events = res->events,
                .steps = res->policy_steps,
                .total = (double)res->events / usec_to_sec(cpu),
                .cpu = cpu,
                .policy_cpu = res->policy_cpu,
        };
        return r;
}

/* A run of the scenario with its settings changed by sets (section.key=value
 * each, as flexslot-sim's --set). */
static int sim_events_per_sec(const char *path, const char *const *sets, size_t n_sets,
                              bool time_policy, SimRate *ret) {
        ScenarioOverride overrides[8];
        Scenario sc = { 0 };
        Workload wl = { 0 };
        _cleanup_(sim_freep) Sim *sim = NULL;
        char err[512] = "";
        int r;

        assert(n_sets <= ELEMENTSOF(overrides));
        for (size_t i = 0; i < n_sets; i++) {
                r = scenario_override_parse(sets[i], &overrides[i]);
                if (r < 0) {
                        fprintf(stderr, "flexslot-bench-sim: bad setting %s\n", sets[i]);
                        return r;
                }
        }
        r = scenario_load(path, overrides, n_sets, &sc, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "%s\n", err);
                return r;
        }
        r = workload_load(sc.workload_file, &wl, err, sizeof(err));
        if (r >= 0)
                r = sim_new(&sc, &wl, &sim, err, sizeof(err));
        if (r >= 0)
                r = sim_rate_measure(sim, time_policy, ret);
        if (r < 0)
                fprintf(stderr, "flexslot-bench-sim: %s: %s\n", path, err[0] ? err : strerror(-r));
        workload_done(&wl);
        scenario_done(&sc);
        return r;
}

/* The whole trace under the scenario's layers on nodes slaves (and the
 * scenario's two masters), as `flexslot-sim replay` runs it (its first seed), without the
 * runs of each job alone. */
static int replay_events_per_sec(const char *scenario, const char *trace_file, unsigned nodes,
                                 bool time_policy, SimRate *ret) {
        char hosts[64], vms[64], err[512] = "";
        ScenarioOverride overrides[2];
        TraceOptions o = { .scenario = scenario, .time_scale = 1, .seeds = { 1 }, .n_seeds = 1 };
        _cleanup_(trace_setup_done) TraceSetup setup = { 0 };
        _cleanup_(sim_freep) Sim *sim = NULL;
        SwimTrace trace = { 0 };
        int r;

        snprintf(hosts, sizeof(hosts), "cluster.hosts=%u",
                 (nodes + 2 + REPLAY_VMS_PER_HOST - 1) / REPLAY_VMS_PER_HOST);
        snprintf(vms, sizeof(vms), "cluster.vms=%u", nodes + 2);
        if (scenario_override_parse(hosts, &overrides[0]) < 0 ||
            scenario_override_parse(vms, &overrides[1]) < 0)
                return -EINVAL;
        o.overrides = overrides;
        o.n_overrides = ELEMENTSOF(overrides);
        r = swim_load(trace_file, &trace, err, sizeof(err));
        if (r >= 0)
                r = trace_setup(&trace, &o, NULL, o.seeds[0], &setup, err, sizeof(err));
        if (r >= 0)
                r = sim_new(&setup.sc, &setup.wl, &sim, err, sizeof(err));
        if (r >= 0)
                r = sim_rate_measure(sim, time_policy, ret);
        if (r < 0)
                fprintf(stderr, "flexslot-bench-sim: replay of %s: %s\n", trace_file,
                        err[0] ? err : strerror(-r));
        swim_done(&trace);
        return r;
}

static void rate_print(const char *what, const SimRate *rate, const SimRate *timed, double heap,
                       double read_usec) {
        double without_core = rate_without_core(rate, timed, read_usec);

        printf("simulator, %-22s %12.0f events/CPU-s (%.1f %% of the heap "
               "alone; %llu events, %llu policy steps)\n",
               what, rate->total, 100.0 * rate->total / heap, (unsigned long long)rate->events,
               (unsigned long long)rate->steps);
        printf("  without the time in the policy core  %12.0f events/CPU-s (%.1f %% of the "
               "heap alone)\n",
               without_core, 100.0 * without_core / heap);
}

int main(int argc, char **argv) {
        /* The scenario as it is, without speculation and with Hadoop's;
         * then with Hadoop's on four times the cluster and the input,
         * where what a step costs per attempt and per task shows. */
        static const struct {
                const char *what;
                const char *sets[4];
        } runs[] = {
                { "speculation=none", { "policy.speculation=none" } },
                { "speculation=hadoop", { "policy.speculation=hadoop" } },
                { "x4 cluster, hadoop",
                  { "policy.speculation=hadoop", "cluster.hosts=32", "cluster.vms=128",
                    "workload.scale=4" } },
        };
        const char *nodes_env = getenv("FLEXSLOT_BENCH_REPLAY_NODES");
        unsigned nodes = REPLAY_NODES_DEFAULT;
        char what[64];
        double heap, read_usec;
        SimRate rate, timed;

        if (argc != 3) {
                fprintf(stderr, "Usage: flexslot-bench-sim SCENARIO.ini TRACE.tsv\n");
                return 2;
        }
        if (nodes_env) {
                char *end;
                unsigned long n;

                errno = 0;
                n = strtoul(nodes_env, &end, 10);
                if (errno != 0 || end == nodes_env || *end || n == 0 || n > REPLAY_NODES_MAX) {
                        fprintf(stderr,
                                "flexslot-bench-sim: FLEXSLOT_BENCH_REPLAY_NODES=%s: not a "
                                "number of slaves from 1 to %u\n",
                                nodes_env, REPLAY_NODES_MAX);
                        return 2;
                }
                nodes = (unsigned)n;
        }
        heap = 0;
        for (unsigned k = 0; k < REPEATS; k++)
                heap = MAX(heap, heap_events_per_sec());
        /* A replay of the full size runs for hours: each figure as it comes. */
        setvbuf(stdout, NULL, _IOLBF, 0);
        read_usec = clock_read_usec();
        printf("scenario %s\n", argv[1]);
        printf("event heap alone (%u pending):         %12.0f events/CPU-s\n", HOLD_EVENTS, heap);
        for (size_t i = 0; i < ELEMENTSOF(runs); i++) {
                size_t n_sets = 0;

                while (n_sets < ELEMENTSOF(runs[i].sets) && runs[i].sets[n_sets])
                        n_sets++;
                rate = (SimRate){ 0 };
                for (unsigned k = 0; k < REPEATS; k++) {
                        SimRate one;

                        if (sim_events_per_sec(argv[1], runs[i].sets, n_sets, false, &one) < 0)
                                return 1;
                        if (one.total > rate.total)
                                rate = one;
                }
                if (sim_events_per_sec(argv[1], runs[i].sets, n_sets, true, &timed) < 0)
                        return 1;
                rate_print(runs[i].what, &rate, &timed, heap, read_usec);
        }
        printf("replay of %s, whole, on %u slaves%s, one run and one timing its steps:\n", argv[2],
               nodes,
               nodes_env ? "" : " (FLEXSLOT_BENCH_REPLAY_NODES=10000: the full size, hours)");
        if (replay_events_per_sec(argv[1], argv[2], nodes, false, &rate) < 0)
                return 1;
        printf("  the run: %.0f events/CPU-s (%llu events, %llu policy steps); timing its "
               "steps next\n",
               rate.total, (unsigned long long)rate.events, (unsigned long long)rate.steps);
        if (replay_events_per_sec(argv[1], argv[2], nodes, true, &timed) < 0)
                return 1;
        snprintf(what, sizeof(what), "replay, %u slaves", nodes);
        rate_print(what, &rate, &timed, heap, read_usec);
        return 0;
}

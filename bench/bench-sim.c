/* SPDX-License-Identifier: MIT */
/* Simulator throughput: events per second of the event heap alone (a hold
 * model: every event reschedules itself, so the heap stays at a fixed size,
 * as a simulation's does) and of the whole simulator on the Fig. 10
 * scenario, with the ratio between them; the scenario also on four times
 * its cluster and input. */
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
#include "sim/workload.h"

#define HOLD_EVENTS 1000u /* pending events, about what the Fig. 10 run holds */
#define HEAP_DISPATCHES 5000000ULL
/* Each figure is the best of this many runs: on a shared machine the best
 * is the one least disturbed. */
#define REPEATS 3u

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
        start = now_monotonic_usec();
        n = event_queue_run(q, USEC_INFINITY);
        return (double)n / usec_to_sec(now_monotonic_usec() - start);
}

typedef struct SimRate {
        double total;        /* events/s */
        double without_core; /* events/s, not counting the time in policy_step() */
        uint64_t events, steps;
} SimRate;

/* A run of the scenario with its settings changed by sets (section.key=value
 * each, as flexslot-sim's --set). */
static int sim_events_per_sec(const char *path, const char *const *sets, size_t n_sets,
                              SimRate *ret) {
        ScenarioOverride overrides[8];
        Scenario sc = { 0 };
        Workload wl = { 0 };
        _cleanup_(sim_freep) Sim *sim = NULL;
        char err[512] = "";
        usec_t start;
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
        if (r >= 0) {
                const SimResults *res = sim_results(sim);
                usec_t wall;

                start = now_monotonic_usec();
                r = sim_run(sim);
                wall = now_monotonic_usec() - start;
                ret->events = res->events;
                ret->steps = res->policy_steps;
                ret->total = (double)res->events / usec_to_sec(wall);
                ret->without_core = (double)res->events / usec_to_sec(wall - res->policy_wall);
        }
        if (r < 0)
                fprintf(stderr, "flexslot-bench-sim: %s: %s\n", path, err[0] ? err : strerror(-r));
        workload_done(&wl);
        scenario_done(&sc);
        return r;
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
        double heap;
        SimRate rate;

        if (argc != 2) {
                fprintf(stderr, "Usage: flexslot-bench-sim SCENARIO.ini\n");
                return 2;
        }
        heap = 0;
        for (unsigned k = 0; k < REPEATS; k++)
                heap = MAX(heap, heap_events_per_sec());
        printf("scenario %s\n", argv[1]);
        printf("event heap alone (%u pending):         %12.0f events/s\n", HOLD_EVENTS, heap);
        for (size_t i = 0; i < ELEMENTSOF(runs); i++) {
                size_t n_sets = 0;

                while (n_sets < ELEMENTSOF(runs[i].sets) && runs[i].sets[n_sets])
                        n_sets++;
                rate = (SimRate){ 0 };
                for (unsigned k = 0; k < REPEATS; k++) {
                        SimRate one;

                        if (sim_events_per_sec(argv[1], runs[i].sets, n_sets, &one) < 0)
                                return 1;
                        if (one.total > rate.total)
                                rate = one;
                }
                printf("simulator, %-22s %12.0f events/s (%.1f %% of the heap "
                       "alone; %llu events, %llu policy steps)\n",
                       runs[i].what, rate.total, 100.0 * rate.total / heap,
                       (unsigned long long)rate.events, (unsigned long long)rate.steps);
                printf("  without the time in the policy core  %12.0f events/s (%.1f %% of the "
                       "heap alone)\n",
                       rate.without_core, 100.0 * rate.without_core / heap);
        }
        return 0;
}

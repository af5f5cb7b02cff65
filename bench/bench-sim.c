/* SPDX-License-Identifier: MIT */
/* Simulator throughput: events per second of the event heap alone (a hold
 * model: every event reschedules itself, so the heap stays at a fixed size,
 * as a simulation's does) and of the whole simulator on the Fig. 10
 * scenario, with the ratio between them. */
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
#define HEAP_DISPATCHES 20000000ULL

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

static int sim_events_per_sec(const char *path, const char *speculation, SimRate *ret) {
        Scenario sc = { 0 };
        Workload wl = { 0 };
        _cleanup_(sim_freep) Sim *sim = NULL;
        char err[512];
        usec_t start;
        int r;

        r = scenario_load(path, NULL, 0, &sc, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "%s\n", err);
                return r;
        }
        r = workload_load(sc.workload_file, &wl, err, sizeof(err));
        if (r >= 0)
                r = scenario_set_string(&sc.speculation, speculation);
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
        static const char *const speculations[] = { "none", "hadoop" };
        double heap;
        SimRate rate;

        if (argc != 2) {
                fprintf(stderr, "Usage: flexslot-bench-sim SCENARIO.ini\n");
                return 2;
        }
        heap = heap_events_per_sec();
        printf("scenario %s\n", argv[1]);
        printf("event heap alone (%u pending):         %12.0f events/s\n", HOLD_EVENTS, heap);
        for (size_t i = 0; i < ELEMENTSOF(speculations); i++) {
                if (sim_events_per_sec(argv[1], speculations[i], &rate) < 0)
                        return 1;
                printf("simulator, speculation=%-6s         %12.0f events/s (%.1f %% of the heap "
                       "alone; %llu events, %llu policy steps)\n",
                       speculations[i], rate.total, 100.0 * rate.total / heap,
                       (unsigned long long)rate.events, (unsigned long long)rate.steps);
                printf("  without the time in the policy core  %12.0f events/s (%.1f %% of the "
                       "heap alone)\n",
                       rate.without_core, 100.0 * rate.without_core / heap);
        }
        return 0;
}

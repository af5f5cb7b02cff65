/* SPDX-License-Identifier: MIT */
/* The simulator's API (sim.h) once it is built: running it with its
 * progress, the setup experiments make before a run, and the results. */
#include <errno.h>

#include "sim/sim.h"
#include "sim/state.h"

/* Stop a run that has not finished after this much simulated time: a policy
 * that never schedules some task must not hang the simulator. */
#define HORIZON (30ULL * 24 * USEC_PER_HOUR)

static void report_progress(Sim *s, bool finished) {
        SimProgress p = {
                .now = event_queue_now(s->queue),
                .events = event_queue_dispatched(s->queue),
                .finished = finished,
        };

        for (unsigned c = 0; c < s->n_clusters; c++) {
                p.jobs_done += s->clusters[c].n_finished;
                p.jobs += s->clusters[c].n_jobs;
        }
        s->progress(&p, s->progress_data);
}

static void progress_hook(EventQueue *q, void *userdata) {
        report_progress(userdata, false);
}

void sim_set_progress(Sim *s, SimProgressFn fn, void *userdata) {
        s->progress = fn;
        s->progress_data = userdata;
        event_queue_set_hook(s->queue, fn ? SIM_PROGRESS_EVENTS : 0, progress_hook, s);
}

static int run_events(Sim *s) {
        sim_hosts_advance_all(s);
        event_queue_run(s->queue, HORIZON);
        if (s->error < 0)
                return s->error;
        if (s->invariant_error[0])
                return -EPROTO;
        if (!sim_all_done(s))
                return -ETIMEDOUT;
        sim_hosts_advance_all(s);
        return sim_collect(s);
}

int sim_run(Sim *s) {
        int r = run_events(s);

        if (s->progress)
                report_progress(s, true);
        return r;
}

int sim_set_node_cap(Sim *s, uint32_t node, double cap) {
        const SimCluster *cl = &s->clusters[0];

        if (node >= cl->n_nodes || cap < 0)
                return -EINVAL;
        s->vms[cl->node_vm[node]].cap = cap;
        s->hosts[s->vms[cl->node_vm[node]].host].vm_rates_valid = false;
        return 0;
}

int sim_set_task_locations(Sim *s, uint32_t task, const uint32_t *nodes, unsigned n) {
        SimCluster *cl = &s->clusters[0];
        Task *t;

        if (task >= cl->n_tasks || n == 0 || n > MAX_REPLICAS)
                return -EINVAL;
        t = &cl->tasks[task];
        for (unsigned i = 0; i < n; i++) {
                if (nodes[i] >= cl->n_nodes)
                        return -EINVAL;
                t->locations[i] = nodes[i];
        }
        t->n_locations = n;
        return 0;
}

size_t sim_n_nodes(const Sim *s) {
        return s->clusters[0].n_nodes;
}

const SimResults *sim_results(const Sim *s) {
        return &s->results;
}

void sim_set_check_invariants(Sim *s, bool enabled) {
        s->check_invariants = enabled;
}

void sim_set_time_policy(Sim *s, bool enabled) {
        s->time_policy = enabled;
}

const char *sim_invariant_error(const Sim *s) {
        return s->invariant_error[0] ? s->invariant_error : NULL;
}

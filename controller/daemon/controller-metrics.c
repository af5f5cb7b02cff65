/* SPDX-License-Identifier: MIT */
/* The controller's Prometheus metrics (conf/controller.ini [metrics]): what
 * an operator watches a JobTracker for. Jobs come from the store (the ended
 * ones it keeps too), tasks, trackers and stragglers from the live model,
 * both read at the scrape, and so is what the agents' newest samples say
 * of their VMs' vCPU targets and guest agents; heartbeats and decisions
 * are counted as they happen, since the start. */
#include <assert.h>
#include <inttypes.h>

#include "common/log.h"
#include "common/version.h"
#include "daemon.h"

/* A heartbeat is answered in well under a millisecond on a small cluster;
 * the buckets reach a second, where trackers would notice. */
static const double heartbeat_bounds[] = { 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                           0.01,   0.025,   0.05,   0.1,   0.25,   1 };

void controller_metrics_init(Controller *c) {
        static_assert(ELEMENTSOF(heartbeat_bounds) <= METRICS_HISTOGRAM_BOUNDS_MAX,
                      "too many buckets");
        c->heartbeat_seconds = (MetricsHistogram){ .bounds = heartbeat_bounds,
                                                   .n_bounds = ELEMENTSOF(heartbeat_bounds) };
        c->started = now_realtime_usec();
}

static void write_info(FILE *out, const Controller *c) {
        metrics_header(out, "flexslot_controller_up", "gauge",
                       "1: the controller serves (Prometheus' own up says it answered)");
        fputs("flexslot_controller_up 1\n", out);
        metrics_header(out, "flexslot_controller_build_info", "gauge",
                       "The controller's version and its policy's layers, always 1");
        fprintf(out, "flexslot_controller_build_info{version=\"%s\",scheduler=", FLEXSLOT_VERSION);
        metrics_label_value(out, c->config.scheduler);
        fputs(",slot_manager=", out);
        metrics_label_value(out, c->config.slot_manager);
        fputs(",speculation=", out);
        metrics_label_value(out, c->config.speculation);
        fputs(",vm_allocator=", out);
        metrics_label_value(out, c->config.vm_allocator);
        fputs("} 1\n", out);
        metrics_header(out, "flexslot_controller_start_time_seconds", "gauge",
                       "When the controller started, seconds since the epoch");
        fprintf(out, "flexslot_controller_start_time_seconds %.3f\n", usec_to_sec(c->started));
}

/* The store's jobs by state; a store that cannot count leaves them out
 * (its error is counted) rather than answering 0 for each. */
static void write_jobs(FILE *out, Controller *c) {
        uint64_t counts[_STORE_JOB_STATE_MAX];
        StoreError err = { 0 };
        int r;

        metrics_header(out, "flexslot_controller_jobs", "gauge",
                       "Jobs in the store by state (ended ones until [jobs] keep-ended)");
        r = store_jobs_count(c->store, counts, &err);
        if (r < 0)
                log_warning_errno(r, "Metrics: cannot count the jobs: %s", err.message);
        for (StoreJobState s = 0; r >= 0 && s < _STORE_JOB_STATE_MAX; s++)
                fprintf(out, "flexslot_controller_jobs{state=\"%s\"} %" PRIu64 "\n",
                        store_job_state_to_string(s), counts[s]);
        metrics_header(out, "flexslot_controller_store_errors_total", "counter",
                       "Failures of the store's SQLite database since the start");
        fprintf(out, "flexslot_controller_store_errors_total %" PRIu64 "\n",
                store_errors(c->store));
        metrics_header(out, "flexslot_controller_store_commits_total", "counter",
                       "Write transactions committed since the start; the task records of "
                       "one pass of heartbeats are one");
        fprintf(out, "flexslot_controller_store_commits_total %" PRIu64 "\n",
                store_commits(c->store));
}

static void write_tasks(FILE *out, const Cluster *cl) {
        static const char *const task_states[] = {
                [TASK_PENDING] = "pending",
                [TASK_RUNNING] = "running",
                [TASK_DONE] = "done",
        };
        unsigned counts[_TASK_TYPE_MAX][ELEMENTSOF(task_states)] = { { 0 } };
        unsigned stragglers[_TASK_TYPE_MAX] = { 0 }, backups[_TASK_TYPE_MAX] = { 0 };

        for (size_t j = 0; j < cl->n_jobs; j++)
                for (size_t i = 0; i < cl->jobs[j].n_tasks; i++) {
                        const ClusterTask *t = &cl->jobs[j].tasks[i];

                        counts[t->type][t->state]++;
                        stragglers[t->type] += cluster_task_straggles(t);
                        backups[t->type] += cluster_task_backed_up(t);
                }
        metrics_header(out, "flexslot_controller_tasks", "gauge",
                       "Tasks of the queued and running jobs by type and state");
        for (TaskType type = 0; type < _TASK_TYPE_MAX; type++)
                for (size_t s = 0; s < ELEMENTSOF(task_states); s++)
                        fprintf(out, "flexslot_controller_tasks{type=\"%s\",state=\"%s\"} %u\n",
                                type == TASK_MAP ? "map" : "reduce", task_states[s],
                                counts[type][s]);
        metrics_header(out, "flexslot_controller_straggler_tasks", "gauge",
                       "Running tasks a policy layer noted as stragglers or backed up");
        for (TaskType type = 0; type < _TASK_TYPE_MAX; type++)
                fprintf(out, "flexslot_controller_straggler_tasks{type=\"%s\"} %u\n",
                        type == TASK_MAP ? "map" : "reduce", stragglers[type]);
        metrics_header(out, "flexslot_controller_backup_tasks", "gauge",
                       "Running tasks with a backup (speculative) attempt");
        for (TaskType type = 0; type < _TASK_TYPE_MAX; type++)
                fprintf(out, "flexslot_controller_backup_tasks{type=\"%s\"} %u\n",
                        type == TASK_MAP ? "map" : "reduce", backups[type]);
}

static void write_trackers(FILE *out, const Cluster *cl) {
        unsigned counts[_NODE_STATE_MAX] = { 0 };

        for (size_t i = 0; i < cl->n_nodes; i++)
                counts[cl->nodes[i].state]++;
        metrics_header(out, "flexslot_controller_trackers", "gauge",
                       "Trackers registered since the start, by state");
        for (NodeState s = 0; s < _NODE_STATE_MAX; s++)
                fprintf(out, "flexslot_controller_trackers{state=\"%s\"} %u\n",
                        cluster_node_state_to_string(s), counts[s]);
}

static void write_decisions(FILE *out, const Cluster *cl) {
        metrics_header(out, "flexslot_controller_decisions_total", "counter",
                       "Decisions of the policy's steps by the layer that made them and their "
                       "kind (assignments, kills, slot changes, VM targets, quotas, placements, "
                       "reservations; stragglers, deadlines and levers are notes)");
        for (PolicyLayerKind k = 0; k < _POLICY_LAYER_MAX; k++) {
#define WRITE_DECISIONS(type, name)                                                                \
        fprintf(out, "flexslot_controller_decisions_total{layer=\"%s\",kind=\"" #name "\"} %zu\n", \
                policy_layer_kind_to_string(k), cl->decided[k].name);
                DECISION_ARRAYS(WRITE_DECISIONS)
#undef WRITE_DECISIONS
        }
}

static void vm_labels(FILE *out, const AgentsVmGuest *row) {
        fputs("{vm=", out);
        metrics_label_value(out, row->uuid);
        fputs(",domain=", out);
        metrics_label_value(out, row->name);
        fputs(",agent=", out);
        metrics_label_value(out, row->agent);
}

/* A VM's state as a sample of 1 labelled with it; none without one. */
static void write_vm_state(FILE *out, const char *name, const AgentsVmGuest *row, const char *label,
                           const char *state) {
        if (!state[0])
                return;
        fputs(name, out);
        vm_labels(out, row);
        fprintf(out, ",%s=", label);
        metrics_label_value(out, state);
        fputs("} 1\n", out);
}

/* What ListVms shows of each agent's VM's vCPU target and guest agent. A
 * value the agent does not have (an agent before Agent1 version 5, a
 * guest agent that did not answer) is left out rather than written as 0. */
static void write_vm_guests(FILE *out, const Agents *a) {
        _cleanup_free_ AgentsVmGuest *rows = NULL;
        size_t n = 0;
        int r;

        r = agents_vm_guests(a, &rows, &n);
        if (r < 0) {
                log_warning_errno(r, "Metrics: cannot list the agents' VMs: %m");
                return;
        }
        metrics_header(out, "flexslot_controller_vm_vcpus_target_source", "gauge",
                       "Whose count decided the state of the VM's last vCPU target as ListVms "
                       "shows it (guest-agent, hypervisor or tracker), always 1");
        for (size_t i = 0; i < n; i++)
                write_vm_state(out, "flexslot_controller_vm_vcpus_target_source", &rows[i],
                               "source", rows[i].vcpus_target_source);
        metrics_header(out, "flexslot_controller_vm_guest_agent_vcpus", "gauge",
                       "vCPUs online in the VM as its guest agent counted them");
        for (size_t i = 0; i < n; i++)
                if (rows[i].guest_agent_vcpus > 0) {
                        fputs("flexslot_controller_vm_guest_agent_vcpus", out);
                        vm_labels(out, &rows[i]);
                        fprintf(out, "} %" PRIu32 "\n", rows[i].guest_agent_vcpus);
                }
        metrics_header(out, "flexslot_controller_vm_guest_agent", "gauge",
                       "What became of the agent's last question to the VM's guest agent "
                       "(answered, none, unresponsive, unsupported or failed), always 1");
        for (size_t i = 0; i < n; i++)
                write_vm_state(out, "flexslot_controller_vm_guest_agent", &rows[i], "state",
                               rows[i].guest_agent);
}

int controller_metrics_write(FILE *out, void *userdata) {
        Controller *c = userdata;
        int r;

        /* As a Controller1 read (tracker_endpoint_commit()): the jobs and
         * tasks a scrape counts are the store's, which keeps them. A
         * failed commit fails the scrape; the controller stops. */
        r = tracker_endpoint_commit(c, NULL);
        if (r < 0)
                return r;
        write_info(out, c);
        write_jobs(out, c);
        write_tasks(out, c->cluster);
        write_trackers(out, c->cluster);
        metrics_header(out, "flexslot_controller_heartbeats_total", "counter",
                       "Tracker heartbeats received, refused ones included");
        fprintf(out, "flexslot_controller_heartbeats_total %" PRIu64 "\n", c->heartbeats);
        metrics_header(out, "flexslot_controller_heartbeat_duration_seconds", "histogram",
                       "Time from a heartbeat's message to its answer");
        metrics_histogram_write(out, "flexslot_controller_heartbeat_duration_seconds",
                                &c->heartbeat_seconds);
        write_decisions(out, c->cluster);
        write_vm_guests(out, c->agents);
        return ferror(out) ? -EIO : 0;
}

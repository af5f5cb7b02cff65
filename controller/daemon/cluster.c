/* SPDX-License-Identifier: MIT */
/* The live model's life and the changes that come from outside a
 * heartbeat: made from the store, trackers registered, lost or given
 * slots, jobs submitted and cancelled. cluster-internal.h says which file
 * holds the rest. */
#include "controller/daemon/cluster.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/strv.h"
#include "controller/daemon/cluster-internal.h"

/* Kill reasons a tracker hears, and reports back with the killed attempt. */
static const char KILL_CANCELLED[] = "job cancelled";

static void node_done(ClusterNode *n) {
        free(n->hostname);
        free(n->vm_uuid);
        free(n->kills);
        free(n->retired);
}

Cluster *cluster_free(Cluster *c) {
        if (!c)
                return NULL;
        cluster_snapshot_drop(c);
        for (size_t i = 0; i < c->n_jobs; i++)
                cluster_job_done(&c->jobs[i]);
        free(c->jobs);
        for (size_t i = 0; i < c->n_nodes; i++)
                node_done(&c->nodes[i]);
        free(c->nodes);
        for (size_t i = 0; i < c->n_pools; i++)
                free(c->pools[i]);
        free(c->pools);
        free(c->attempt_index);
        decisions_done(&c->decisions);
        free(c);
        return NULL;
}

int cluster_new(Store *store, Policy *policy, const ClusterData *data, Cluster **ret,
                StoreError *err) {
        Cluster *c;
        StoreJob *jobs = NULL;
        size_t n = 0;
        int r;

        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->store = store;
        c->policy = policy;
        c->data = *data;
        c->next_node = 1;
        c->step = true;
        c->unsettled = true;
        /* Above every attempt id of an earlier run (job_load() raises it
         * past the stored ones; this covers the attempts that never ended). */
        c->next_attempt = now_realtime_usec();
        r = store_jobs_list(store, STORE_JOB_UNFINISHED, &jobs, &n, err);
        for (size_t i = 0; i < n && r >= 0; i++)
                r = cluster_resume_job(c, jobs[i].id, err);
        store_jobs_free(jobs, n);
        if (r < 0) {
                cluster_free(c);
                return r;
        }
        c->first_attempt = c->next_attempt;
        *ret = c;
        return 0;
}

int cluster_cancel(Cluster *c, uint64_t id, StoreError *err) {
        ClusterJob *j = cluster_job_find(c, id);
        int r;

        if (!j)
                return cluster_fail(err, -ENOENT, "job", "No running or queued job %" PRIu64, id);
        r = store_job_finish(c->store, id, STORE_JOB_CANCELLED, "cancelled", err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < j->n_tasks; i++)
                cluster_task_kill_attempts(c, &j->tasks[i], KILL_CANCELLED);
        cluster_output_remove_maps(&c->data, j);
        cluster_job_remove(c, j);
        cluster_snapshot_drop(c);
        return 0;
}

int cluster_register(Cluster *c, const char *vm_uuid, const char *hostname,
                     const unsigned slots[static _SLOT_TYPE_MAX], uint64_t slot_memory,
                     usec_t now_monotonic, uint64_t *ret_id) {
        ClusterNode *nodes, n = {
                .id = c->next_node,
                .slots = { slots[SLOT_MAP], slots[SLOT_REDUCE] },
                .told = { slots[SLOT_MAP], slots[SLOT_REDUCE] },
                .slot_memory = slot_memory,
                .last_heartbeat = now_monotonic,
        };

        n.hostname = strdup(hostname);
        n.vm_uuid = strdup(vm_uuid);
        nodes = n.hostname && n.vm_uuid ? realloc(c->nodes, (c->n_nodes + 1) * sizeof(*nodes))
                                        : NULL;
        if (!nodes) {
                node_done(&n);
                return -ENOMEM;
        }
        c->nodes = nodes;
        c->nodes[c->n_nodes++] = n;
        c->next_node++;
        cluster_snapshot_drop(c);
        *ret_id = n.id;
        return 0;
}

int cluster_submit(Cluster *c, const StoreJobSpec *spec, usec_t now, uint64_t *ret_id,
                   AdmitVerdict *ret_verdict, StoreError *err) {
        unsigned flags = 0;
        AdmitVerdict v;
        ClusterProfile profile = { 0 };
        StoreError perr = { 0 };
        Job job = {
                .submitted = now,
                .deadline = spec->deadline,
                .counts = { [TASK_REDUCE] = { .total = spec->n_reduces } },
        };
        char **splits = NULL;
        size_t n_splits = 0;
        uint64_t id;
        int r;

        /* Admission judges the job by its maps: its splits. */
        r = store_job_check(spec, err);
        if (r < 0)
                return r;
        r = cluster_job_splits(c, (char *const *)spec->inputs, spec->n_inputs, &splits, &n_splits,
                               err);
        if (r < 0)
                return r == -ENOMEM ? r : -EINVAL;
        for (size_t i = 0; i < n_splits; i++)
                job.input_size += cluster_split_length(splits[i]);
        strv_free(splits);
        job.counts[TASK_MAP].total = (unsigned)n_splits;
        r = cluster_pool_index(c, spec->pool ? spec->pool : "", &job.pool);
        if (r < 0)
                return r;
        r = cluster_profile_load(c->store, spec->user ? spec->user : "",
                                 spec->name ? spec->name : "", &profile, &perr);
        if (r >= 0)
                job.stored_profile = &profile.phases;
        else if (r != -ENOENT && r != -EINVAL)
                /* -EINVAL: a user or name the store refuses below. */
                log_warning_errno(r, "Admitting without a profile: %s", perr.message);
        r = cluster_snapshot_prepare(c, &flags);
        if (r < 0)
                return r;
        r = policy_admit(c->policy, &c->snapshot->s, now, &job, &v);
        if (r < 0)
                return cluster_fail(err, r, NULL, "The scheduler could not judge the job");
        if (!v.admit) {
                *ret_verdict = v;
                return cluster_fail(err, -EPERM, NULL, "%s", v.reason);
        }
        r = store_job_submit(c->store, spec, &id, err);
        if (r < 0)
                return r;
        /* Stored: from here on a restart finds it even when the model
         * cannot take it now. */
        cluster_snapshot_drop(c);
        r = cluster_add_job(c, id, err);
        if (r < 0)
                log_warning_errno(r, "Job %" PRIu64 " is stored but not started: %s", id,
                                  err ? err->message : "");
        *ret_verdict = v;
        *ret_id = id;
        return 0;
}

int cluster_set_slots(Cluster *c, uint64_t node, const unsigned slots[static _SLOT_TYPE_MAX],
                      uint64_t slot_memory, usec_t now, StoreError *err) {
        ClusterNode *n = cluster_node_lookup(c, node);

        if (!n || n->state == NODE_LOST)
                return cluster_fail(err, -ENXIO, "node", "No %s tracker %" PRIu64,
                                    n ? "live" : "registered", node);
        n->slots[SLOT_MAP] = slots[SLOT_MAP];
        n->slots[SLOT_REDUCE] = slots[SLOT_REDUCE];
        if (slot_memory)
                n->slot_memory = slot_memory;
        n->slots_changed_at = now;
        n->slots_pending = true;
        cluster_snapshot_drop(c);
        return 0;
}

int cluster_node_set_guest(Cluster *c, uint64_t node, const ClusterGuest *guest) {
        ClusterNode *n = cluster_node_lookup(c, node);

        if (!n)
                return -ENOENT;
        n->guest = *guest;
        return 0;
}

size_t cluster_lose_silent(Cluster *c, usec_t now_monotonic, usec_t timeout) {
        size_t lost = 0;

        for (size_t i = 0; i < c->n_nodes; i++) {
                ClusterNode *n = &c->nodes[i];

                if (n->state == NODE_LOST || now_monotonic - n->last_heartbeat <= timeout)
                        continue;
                n->state = NODE_LOST;
                lost++;
                cluster_snapshot_drop(c);
                /* A lost tracker loses its own attempts only: a task
                 * with its other attempt elsewhere runs on. */
                cluster_node_stop_attempts(c, n);
                n->running[SLOT_MAP] = n->running[SLOT_REDUCE] = 0;
                free(n->kills);
                n->kills = NULL;
                n->n_kills = 0;
                log_warning("Tracker %" PRIu64 " (%s) sent no heartbeat for %s: lost", n->id,
                            n->hostname, "longer than the timeout");
        }
        return lost;
}

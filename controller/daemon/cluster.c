/* SPDX-License-Identifier: MIT */
/* The live model's life and the changes that come from outside a
 * heartbeat: made from the store, trackers registered, lost or given
 * slots, jobs submitted and cancelled. cluster.h says which file holds
 * the rest. */
#include "controller/daemon/cluster.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/strv.h"
#include "controller/daemon/cluster-job.h"
#include "controller/daemon/cluster-output.h"
#include "controller/daemon/cluster-profile.h"
#include "controller/daemon/cluster-snapshot.h"

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
        free(c->jobs_mem);
        for (size_t i = 0; i < c->n_nodes; i++)
                node_done(&c->nodes[i]);
        free(c->nodes);
        free(c->tenants);
        for (size_t i = 0; i < c->n_pools; i++)
                free(c->pools[i]);
        free(c->pools);
        free(c->attempt_index);
        for (size_t i = 0; i < c->n_held; i++)
                free(c->held[i].node);
        free(c->held);
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
        /* Its VM is a tracker's now, no other tenant's, before the agents
         * say so at the next control cycle. */
        for (size_t k = 0; k < c->n_tenants; k++)
                if (strcasecmp(c->tenants[k].uuid, vm_uuid) == 0) {
                        memmove(&c->tenants[k], &c->tenants[k + 1],
                                (c->n_tenants - k - 1) * sizeof(*c->tenants));
                        c->n_tenants--;
                        break;
                }
        cluster_snapshot_drop(c);
        *ret_id = n.id;
        return 0;
}

int cluster_submit(Cluster *c, const StoreJobSpec *spec, usec_t now, uint64_t *ret_id,
                   AdmitVerdict *ret_verdict, StoreError *err) {
        const ClusterSnapshot *snap = NULL;
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
        /* A scheduler without admission control reads no snapshot: with
         * thousands of jobs queued, preparing one for each submission was
         * most of its cost. */
        if (!policy_admits_all(c->policy)) {
                r = cluster_snapshot_prepare(c, &flags);
                if (r < 0)
                        return r;
                snap = &c->snapshot->s;
        }
        r = policy_admit(c->policy, snap, now, &job, flags & POLICY_STEP_TRUSTED, &v);
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
        cluster_node_changed(c, (uint32_t)(n - c->nodes));
        return 0;
}

void cluster_nodes_changed(Cluster *c) {
        if (c->snapshot)
                c->snapshot->all_nodes_stale = true;
}

/* Whether the tenants' VMs are those of vms, in their order. */
static bool tenants_same(const Cluster *c, const ClusterTenantVm *vms, size_t n) {
        if (n != c->n_tenants)
                return false;
        for (size_t k = 0; k < n; k++)
                if (strcmp(vms[k].uuid, c->tenants[k].uuid) != 0)
                        return false;
        return true;
}

int cluster_set_tenants(Cluster *c, const ClusterTenantVm *vms, size_t n) {
        ClusterTenantVm *next;

        if (tenants_same(c, vms, n)) {
                for (size_t k = 0; k < n; k++)
                        c->tenants[k].vm = vms[k].vm;
                cluster_nodes_changed(c);
                return 0;
        }
        next = n > 0 ? calloc(n, sizeof(*next)) : NULL;
        if (n > 0 && !next)
                return -ENOMEM;
        for (size_t k = 0; k < n; k++) {
                const ClusterTenantVm *seen = NULL;

                for (size_t i = 0; !seen && i < c->n_tenants; i++)
                        if (strcmp(c->tenants[i].uuid, vms[k].uuid) == 0)
                                seen = &c->tenants[i];
                next[k] = vms[k];
                next[k].id = seen ? seen->id : CLUSTER_TENANT_VM_ID_BASE + c->next_tenant++;
                next[k].lever = seen ? seen->lever : (ClusterLever){ 0 };
        }
        free(c->tenants);
        c->tenants = next;
        c->n_tenants = n;
        /* The VMs moved: the kept snapshot and the last control cycle's VM
         * targets name them by index. */
        cluster_snapshot_drop(c);
        c->decisions.n_vm_targets = 0;
        return 0;
}

int cluster_node_set_guest(Cluster *c, uint64_t node, const ClusterGuest *guest) {
        ClusterNode *n = cluster_node_lookup(c, node);

        if (!n)
                return -ENOENT;
        n->guest = *guest;
        return 0;
}

int cluster_node_update(Cluster *c, uint64_t node, NodeState state,
                        const unsigned slots[static _SLOT_TYPE_MAX],
                        const unsigned running[static _SLOT_TYPE_MAX], usec_t now) {
        ClusterNode *n = cluster_node_lookup(c, node);

        if (!n)
                return -ENXIO;
        if (n->slots[SLOT_MAP] != slots[SLOT_MAP] || n->slots[SLOT_REDUCE] != slots[SLOT_REDUCE])
                n->slots_changed_at = now;
        n->state = state;
        n->slots[SLOT_MAP] = n->told[SLOT_MAP] = slots[SLOT_MAP];
        n->slots[SLOT_REDUCE] = n->told[SLOT_REDUCE] = slots[SLOT_REDUCE];
        n->running[SLOT_MAP] = running[SLOT_MAP];
        n->running[SLOT_REDUCE] = running[SLOT_REDUCE];
        n->slots_pending = false;
        cluster_snapshot_drop(c);
        return 0;
}

/* Why an attempt's record says it was lost. */
static const char WHY_TRACKER_LOST[] = "its tracker was lost";
static const char WHY_NOT_BACK[] = "its tracker did not come back after the controller restarted";

/* The attempts running or stopped on n, which is lost, recorded lost. */
static void node_record_lost(Cluster *c, const ClusterNode *n, usec_t now) {
        _cleanup_free_ StoreTaskRecord *records =
                calloc(c->n_indexed + n->n_retired + 1, sizeof(*records));
        size_t k = 0;

        if (!records) {
                log_oom();
                return;
        }
        for (size_t i = 0; i < c->index_used; i++) {
                const AttemptRef *ref = &c->attempt_index[i];
                const ClusterAttempt *a;

                if (!ref->task || ref->node != n->id)
                        continue;
                a = &ref->task->attempts[cluster_task_attempt_index(ref->task, ref->attempt)];
                records[k++] = (StoreTaskRecord){ .job = ref->job,
                                                  .type = ref->task->type,
                                                  .index = ref->task->index,
                                                  .attempt = ref->attempt,
                                                  .node = n->hostname,
                                                  .status = STORE_TASK_LOST,
                                                  .started = a->started,
                                                  .finished = cluster_ended_at(now, a->started),
                                                  .reason = WHY_TRACKER_LOST };
        }
        for (size_t i = 0; i < n->n_retired; i++)
                records[k++] =
                        (StoreTaskRecord){ .job = n->retired[i].job,
                                           .type = n->retired[i].type,
                                           .index = n->retired[i].index,
                                           .attempt = n->retired[i].attempt,
                                           .node = n->hostname,
                                           .status = STORE_TASK_LOST,
                                           .started = n->retired[i].started,
                                           .finished = cluster_ended_at(now, n->retired[i].started),
                                           .reason = WHY_TRACKER_LOST };
        cluster_records_write(c, records, k);
}

/* The attempts an earlier run left running whose trackers have not said
 * what became of them within timeout (counted from the first call, when the
 * controller's timers run): lost, as their trackers would be, and their
 * tasks free to run. */
static void held_expire(Cluster *c, usec_t now, usec_t now_monotonic, usec_t timeout) {
        if (c->n_held == 0)
                return;
        if (c->held_since == 0) {
                c->held_since = now_monotonic;
                return;
        }
        if (now_monotonic - c->held_since <= timeout)
                return;
        for (size_t i = 0; i < c->n_held; i++) {
                const ClusterHeld *h = &c->held[i];
                ClusterTask *t = cluster_task_find(c, h->job, h->type, h->index, NULL);

                if (t)
                        t->held--;
                cluster_held_lose(c, h, now, WHY_NOT_BACK);
                free(c->held[i].node);
        }
        c->n_held = 0;
        cluster_snapshot_drop(c);
}

/* n is lost (why says how, for the log): a lost tracker loses its own
 * attempts only, recorded lost at now (realtime); a task with its other
 * attempt elsewhere runs on. */
static void node_lose(Cluster *c, ClusterNode *n, usec_t now, usec_t now_monotonic,
                      const char *why) {
        n->state = NODE_LOST;
        n->lost_at = now_monotonic;
        cluster_snapshot_drop(c);
        node_record_lost(c, n, now);
        n->n_retired = 0;
        cluster_node_stop_attempts(c, n);
        n->running[SLOT_MAP] = n->running[SLOT_REDUCE] = 0;
        free(n->kills);
        n->kills = NULL;
        n->n_kills = 0;
        log_warning("Tracker %" PRIu64 " (%s) %s: lost", n->id, n->hostname, why);
}

size_t cluster_lose_silent(Cluster *c, usec_t now, usec_t now_monotonic, usec_t timeout) {
        size_t lost = 0;

        held_expire(c, now, now_monotonic, timeout);

        for (size_t i = 0; i < c->n_nodes; i++) {
                ClusterNode *n = &c->nodes[i];

                if (n->state == NODE_LOST || now_monotonic - n->last_heartbeat <= timeout)
                        continue;
                node_lose(c, n, now, now_monotonic,
                          "sent no heartbeat for longer than the timeout");
                lost++;
        }
        return lost;
}

const ClusterNode *cluster_node_find_vm(const Cluster *c, const char *vm_uuid) {
        for (size_t i = 0; i < c->n_nodes; i++)
                if (c->nodes[i].state != NODE_LOST && strcmp(c->nodes[i].vm_uuid, vm_uuid) == 0)
                        return &c->nodes[i];
        return NULL;
}

int cluster_node_lose(Cluster *c, uint64_t node, usec_t now, usec_t now_monotonic,
                      const char *why) {
        ClusterNode *n = cluster_node_lookup(c, node);

        if (!n || n->state == NODE_LOST)
                return -ENOENT;
        node_lose(c, n, now, now_monotonic, why);
        return 0;
}

size_t cluster_forget_lost(Cluster *c, usec_t now_monotonic, usec_t keep) {
        size_t kept = 0;

        for (size_t i = 0; i < c->n_nodes; i++) {
                ClusterNode *n = &c->nodes[i];

                if (n->state == NODE_LOST && now_monotonic - n->lost_at >= keep) {
                        log_info("Forgot tracker %" PRIu64 " (%s), lost %s ago", n->id, n->hostname,
                                 FORMAT_DURATION(now_monotonic - n->lost_at));
                        node_done(n);
                } else
                        c->nodes[kept++] = *n;
        }
        if (kept == c->n_nodes)
                return 0;
        size_t forgotten = c->n_nodes - kept;

        c->n_nodes = kept;
        /* The nodes moved: the kept snapshot and the last control cycle's
         * VM targets name them by index. */
        cluster_snapshot_drop(c);
        c->decisions.n_vm_targets = 0;
        return forgotten;
}

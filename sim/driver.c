/* SPDX-License-Identifier: MIT */
/* The simulator as a driver of the policy core, following the contract of
 * policy/core/policy.h: fill a snapshot, step, apply the decisions. The
 * simulator decides nothing itself. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "sim/state.h"

int simcl_policy_init(SimCluster *cl, char *err, size_t err_size) {
        const Scenario *sc = cl->sim->sc;
        PolicyConfig cfg = scenario_policy_config(sc);
        ConfError e;
        int r;

        /* The co-running cluster runs its own layers when [interference]
         * names them (a best-effort tenant beside deadline jobs). */
        if (cl->index > 0) {
                cfg.scheduler = sc->interference_scheduler ?: cfg.scheduler;
                cfg.slot_manager = sc->interference_slot_manager ?: cfg.slot_manager;
                cfg.speculation = sc->interference_speculation ?: cfg.speculation;
                cfg.vm_allocator = sc->interference_allocator ?: cfg.vm_allocator;
        }
        /* A cloud that sizes the VMs itself (apply_vm_targets = no, no DRS
         * agent weights) drops every VM target (sim_decisions_apply()), so
         * the allocator's division, a pass over every VM at each control
         * cycle, would be thrown away: the none allocator, which divides
         * nothing, takes its place. Not under the one loop's lever, whose
         * forecasts and weights start from the allocator's targets. */
        if (!sc->apply_vm_targets && !sc->drs_agent_weights && !scenario_core(sc)->slo.slo_lever)
                cfg.vm_allocator = "none";
        r = policy_new_named(&cfg, &e, &cl->policy);

        if (r == -EINVAL)
                conf_error_format(&e, err, err_size);
        else if (r < 0)
                snprintf(err, err_size, "[policy]: %s", strerror(-r));
        return r;
}

/* ---- snapshot ---- */

void sim_node_capacity_update(Sim *s, const SimVm *v) {
        uint64_t os = s->sc->vm_os_memory;

        if (v->node == NO_INDEX)
                return;
        s->clusters[v->cluster].nodes[v->node].capacity = (Resources){
                .cpu = v->vcpus,
                .io = s->hosts[v->host].disk_bw,
                .memory = v->memory > os ? v->memory - os : 0,
        };
}

/* The kept entry is what a fresh build gives, field by field: a path that
 * moved an attempt without its entry would leave it behind. An entry kept
 * as of its tracker's last heartbeat ([hadoop] progress_at_heartbeat) is
 * compared with what time moved brought to now, but for its task's resizes,
 * which no heartbeat brings. */
static void snapshot_attempt_check(SimCluster *cl, size_t i, usec_t now) {
        Attempt fresh = sim_attempt_snapshot(cl->attempts[i], now), kept = cl->snap_attempts[i];

        if (cl->sim->sc->progress_at_heartbeat) {
                sim_attempt_snapshot_update(cl->attempts[i], now, &kept);
                kept.resize_count = cl->snap_attempts[i].resize_count;
        }
        if (!attempt_same(&kept, &fresh))
                snprintf(cl->sim->invariant_error, sizeof(cl->sim->invariant_error),
                         "snapshot attempt %zu (task %u) is not what a fresh build gives", i,
                         fresh.task);
}

/* What time moved of a kept entry, when the core asks
 * (ClusterSnapshot.fill_attempt): a step whose layers read none of it (a
 * heartbeat that leaves no slot for a backup, most of them) spares the
 * pass over every attempt. With progress as the heartbeats report it the
 * entries are whole already: what time moves stays as its tracker last
 * reported it (sim_node_report()), and a resize reaches them as it comes
 * (resize_reaches_siblings()); the core is asked to fill nothing, but in
 * runs that check invariants, which compare each entry read. */
static void snapshot_attempt_fill(void *userdata, uint32_t i) {
        SimCluster *cl = userdata;
        usec_t now = event_queue_now(cl->sim->queue);

        if (!cl->sim->sc->progress_at_heartbeat)
                sim_attempt_snapshot_update(cl->attempts[i], now, &cl->snap_attempts[i]);
        if (cl->sim->check_invariants)
                snapshot_attempt_check(cl, i, now);
}

/* The entries are kept beside the running attempts (engine.c): a step
 * remembers which attempt each index is, and sets what time moved of the
 * entries the core asks for. */
static int snapshot_attempts(SimCluster *cl) {
        if (cl->n_attempts > cl->cap_snap_map) {
                size_t n = MAX(cl->n_attempts, 2 * cl->cap_snap_map);
                SimAttempt **map = realloc(cl->snap_map, n * sizeof(SimAttempt *));

                if (!map)
                        return -ENOMEM;
                cl->snap_map = map;
                cl->cap_snap_map = n;
        }
        if (cl->n_attempts > 0)
                memcpy(cl->snap_map, cl->attempts, cl->n_attempts * sizeof(SimAttempt *));
        return 0;
}

/* The global index of the snapshot's VM i: the cluster's own, then the
 * other cluster's (its hosts' agents see them too). */
static uint32_t snap_vm_global(const SimCluster *cl, size_t i) {
        const Sim *s = cl->sim;

        if (i < cl->n_vms)
                return cl->vms[i];
        return s->clusters[1 - cl->index].vms[i - cl->n_vms];
}

static size_t snap_n_vms(const SimCluster *cl) {
        return cl->n_vms + (cl->sim->n_clusters > 1 ? cl->sim->clusters[1 - cl->index].n_vms : 0);
}

/* A VM is measured once its first window closed (vms_measure()), the agent
 * having sampled it by then; the window starts when the last one closed.
 * The other cluster's VMs come after the cluster's own, as another
 * tenant's. */
static Vm snapshot_vm(const SimCluster *cl, size_t i) {
        uint32_t global = snap_vm_global(cl, i);
        const SimVm *v = &cl->sim->vms[global];
        usec_t measured_at = cl->sim->clusters[v->cluster].measured_at;
        bool measured = measured_at != 0;

        return (Vm){
                .id = global,
                .host = v->host,
                .vcpus = v->vcpus,
                .vcpus_max = v->vcpus_max,
                .memory = v->memory,
                .memory_max = v->memory_max,
                .cpu_weight = sim_vm_agent_weight(cl->sim, v),
                .cpu_cap = v->cap,
                .cpu_use = v->cpu_use,
                .memory_used = measured ? (uint64_t)v->committed : 0,
                .measured_at = measured_at,
                .other_tenant = i >= cl->n_vms,
        };
}

/* Each entry of a cluster's VMs, the own (k 0) or the other's (k 1): when
 * they were measured, which a measurement moves for every VM of the
 * cluster, the figures of those it measured apart (vms_measure()). */
static void snapshot_vms_measured_at(SimCluster *cl, unsigned k) {
        const SimCluster *owner = &cl->sim->clusters[k == 0 ? cl->index : 1 - cl->index];
        size_t from = k == 0 ? 0 : cl->n_vms;

        if (cl->snap_measured_at[k] == owner->measured_at)
                return;
        for (size_t i = from; i < from + owner->n_vms; i++)
                cl->snap_vms[i].measured_at = owner->measured_at;
        cl->snap_measured_at[k] = owner->measured_at;
}

/* The first snapshot builds every entry (the number of VMs never
 * changes); later ones those a change marked stale, and the time of the
 * measurements since. Runs that check invariants compare each with a
 * fresh build. */
static int snapshot_vms(SimCluster *cl) {
        size_t n = snap_n_vms(cl);

        if (!cl->snap_vms) {
                cl->snap_vms = calloc(n, sizeof(Vm));
                cl->snap_vms_stale = calloc(n, sizeof(uint32_t));
                cl->snap_vm_is_stale = calloc(n, sizeof(bool));
                if (!cl->snap_vms || !cl->snap_vms_stale || !cl->snap_vm_is_stale)
                        return -ENOMEM;
                cl->cap_snap_vms = n;
                for (size_t i = 0; i < n; i++)
                        cl->snap_vms[i] = snapshot_vm(cl, i);
        }
        for (size_t k = 0; k < cl->n_snap_vms_stale; k++) {
                uint32_t i = cl->snap_vms_stale[k];

                cl->snap_vms[i] = snapshot_vm(cl, i);
                cl->snap_vm_is_stale[i] = false;
        }
        cl->n_snap_vms_stale = 0;
        for (unsigned k = 0; k < cl->sim->n_clusters; k++)
                snapshot_vms_measured_at(cl, k);
        for (size_t i = 0; cl->sim->check_invariants && i < n; i++) {
                Vm fresh = snapshot_vm(cl, i);

                if (!vm_same(&cl->snap_vms[i], &fresh))
                        snprintf(cl->sim->invariant_error, sizeof(cl->sim->invariant_error),
                                 "snapshot VM %zu is not what a fresh build gives: a change left "
                                 "it unmarked",
                                 i);
        }
        return 0;
}

static size_t arrived_tasks(const SimCluster *cl) {
        size_t last = cl->n_arrived - 1;

        if (cl->n_arrived == 0)
                return 0;
        return cl->jobx[last].first_task + job_n_tasks(&cl->jobs[last]);
}

/* Every task of the job is done. */
static bool job_tasks_done(const Job *job) {
        return job->counts[TASK_MAP].done == job->counts[TASK_MAP].total &&
               job->counts[TASK_REDUCE].done == job->counts[TASK_REDUCE].total;
}

/* Each arrived job's Job.tasks, which spares the core a pass over every
 * task: the job's tasks from JobExtra (Job.counts are kept as tasks start
 * and end), and each first-pending bound moved past the tasks that left
 * pending since the last step (apply_kill() moves it back for a task that
 * returns to pending). A done job's bounds, once past all its tasks, stay
 * there: it leaves the open jobs, so that a step passes over only the jobs
 * not done, which on a day's trace are few of those arrived. The jobs done
 * from the first on are the core's settled ones, and the open jobs its list
 * of those not settled (a done task never runs again here, so a done job
 * stays settled). */
static void snapshot_job_tasks(SimCluster *cl) {
        size_t kept = 0;

        for (; cl->n_jobs_opened < cl->n_arrived; cl->n_jobs_opened++)
                cl->open_jobs[cl->n_open_jobs++] = (uint32_t)cl->n_jobs_opened;
        for (size_t i = 0; i < cl->n_open_jobs; i++) {
                uint32_t j = cl->open_jobs[i];
                const JobExtra *jx = &cl->jobx[j];
                JobTasks *jt = &cl->jobs[j].tasks;
                uint32_t end = jx->first_task + job_n_tasks(&cl->jobs[j]);

                jt->first = jx->first_task;
                jt->count = job_n_tasks(&cl->jobs[j]);
                for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++) {
                        uint32_t k = MAX(jt->first_pending[type], jt->first);
                        while (k < end &&
                               (cl->tasks[k].type != type || cl->tasks[k].state != TASK_PENDING))
                                k++;
                        jt->first_pending[type] = k;
                }
                if (!job_tasks_done(&cl->jobs[j]))
                        cl->open_jobs[kept++] = j;
        }
        cl->n_open_jobs = kept;
        while (cl->n_jobs_settled < cl->n_arrived && job_tasks_done(&cl->jobs[cl->n_jobs_settled]))
                cl->n_jobs_settled++;
}

/* DRS divides the pool every period; the policy's own allocator every
 * control cycle, when its targets are applied; else nothing does. */
static usec_t allocator_period(const Scenario *sc) {
        if (sc->drs)
                return sc->drs_period;
        return sc->apply_vm_targets ? scenario_core(sc)->control_interval : 0;
}

/* A host is measured once every VM on it is, whatever cluster it
 * belongs to: at the earliest of their clusters' last measurements. */
static usec_t host_measured_at(const Sim *s, const SimHost *sh) {
        usec_t at = USEC_INFINITY;

        for (unsigned c = 0; c < s->n_clusters; c++)
                if (sh->clusters & (1u << c))
                        at = MIN(at, s->clusters[c].measured_at);
        return at == USEC_INFINITY ? 0 : at;
}

/* A host's CPU use is its VMs' of their last windows. */
static void snapshot_host(const Sim *s, size_t h, Host *out) {
        const SimHost *sh = &s->hosts[h];

        out->cpu_use = 0;
        out->measured_at = host_measured_at(s, sh);
        for (size_t i = 0; out->measured_at != 0 && i < sh->n_vms; i++)
                out->cpu_use += s->vms[sh->vms[i]].cpu_use;
}

/* Set again only after a measurement, which the steps between share:
 * summed where it measured a VM (SimHost.snap_stale), else only the time
 * moves. */
static void snapshot_hosts(Sim *s) {
        for (size_t h = 0; s->snap_hosts_stale && h < s->n_hosts; h++) {
                SimHost *sh = &s->hosts[h];

                if (sh->snap_stale)
                        snapshot_host(s, h, &s->snap_hosts[h]);
                else
                        s->snap_hosts[h].measured_at = host_measured_at(s, sh);
                sh->snap_stale = false;
        }
        s->snap_hosts_stale = false;
        for (size_t h = 0; s->check_invariants && h < s->n_hosts; h++) {
                Host fresh = s->snap_hosts[h];

                snapshot_host(s, h, &fresh);
                if (!host_same(&fresh, &s->snap_hosts[h]))
                        snprintf(s->invariant_error, sizeof(s->invariant_error),
                                 "snapshot host %zu is not what a fresh build gives", h);
        }
}

/* advance: bring the hosts' model up to now first, as a step wants; a
 * job's admission does without. */
static int simcl_snapshot(SimCluster *cl, bool advance, ClusterSnapshot *ret) {
        Sim *s = cl->sim;
        int r;

        if (advance)
                sim_hosts_advance_all(s);
        r = snapshot_attempts(cl);
        if (r >= 0)
                r = snapshot_vms(cl);
        if (r < 0)
                return r;
        snapshot_hosts(s);
        snapshot_job_tasks(cl);
        *ret = (ClusterSnapshot){
                .hosts = s->snap_hosts,
                .n_hosts = s->n_hosts,
                .vms = cl->snap_vms,
                .n_vms = snap_n_vms(cl),
                .nodes = cl->nodes,
                .n_nodes = cl->n_nodes,
                .jobs = cl->jobs,
                .n_jobs = cl->n_arrived,
                .tasks = cl->tasks,
                .n_tasks = arrived_tasks(cl),
                .attempts = cl->snap_attempts,
                .n_attempts = cl->n_attempts,
                .job_tasks_kept = true,
                .n_jobs_settled = cl->n_jobs_settled,
                .open_jobs = cl->open_jobs,
                .n_open_jobs = cl->n_open_jobs,
                .fill_attempt = s->sc->progress_at_heartbeat && !s->check_invariants
                                        ? NULL
                                        : snapshot_attempt_fill,
                .fill_attempt_data = cl,
                .node_attempts = cl->node_attempts,
                .attempts_total = &cl->attempts_total,
                .slots_reported = true,
                .slots_changed = cl->slots_changed,
                .n_slots_changed = cl->n_slots_changed,
                .allocator_period = allocator_period(s->sc),
        };
        return 0;
}

int sim_snapshot(SimCluster *cl, ClusterSnapshot *ret) {
        int r = simcl_snapshot(cl, true, ret);

        if (r >= 0)
                snapshot_fill_attempts(ret);
        return r;
}

/* ---- decisions ---- */

static usec_t vm_resize_event(EventQueue *q, void *userdata);

/* A resize of a task shows in the entries of its other attempts at once:
 * with progress as the heartbeats report it, a step reads nothing else of
 * an entry that time moves (snapshot_attempt_fill()). */
static void resize_reaches_siblings(SimCluster *cl, uint32_t task) {
        for (size_t i = 0; cl->taskx[task].running > 0 && i < cl->n_attempts; i++)
                if (cl->attempts[i]->task == task)
                        sim_attempt_snapshot_resizes(cl->attempts[i], &cl->snap_attempts[i]);
}

static int apply_kill(SimCluster *cl, const Kill *k) {
        SimAttempt *a = cl->snap_map[k->attempt];
        uint32_t task, node;
        SlotType slot;
        TaskExtra *tx;
        bool speculative;

        if (!a)
                return 0; /* already gone in this step */
        /* It ended before the kill: its tracker reports it done with the
         * heartbeat that would have brought the kill. */
        if (a->phase == PHASE_REPORT)
                return 0;
        cl->snap_map[k->attempt] = NULL;
        task = a->task;
        node = a->node;
        slot = a->slot;
        speculative = a->speculative;
        tx = &cl->taskx[task];
        sim_attempt_kill(a, k->reason == KILL_RESIZE);
        tx->kill_count++;
        if (k->reason == KILL_RETRY && cl->index == 0)
                cl->sim->results.retry_kills++;
        cl->tasks[task].slot_memory = k->slot_memory;
        if (k->reason == KILL_RESIZE) {
                tx->resize_kills++;
                resize_reaches_siblings(cl, task);
                return sim_attempt_start(cl, task, node, slot, k->slot_memory, speculative);
        }
        if (tx->running == 0) {
                Task *t = &cl->tasks[task];
                JobTasks *jt = &cl->jobs[t->job].tasks;

                t->state = TASK_PENDING;
                jt->first_pending[t->type] = MIN(jt->first_pending[t->type], task);
        }
        return 0;
}

/* Under DRS an agent's target changes the VM's weight alone ([drs]
 * agent_weights: it scales DRS's shares); else all of it. */
static void apply_vm_target(SimCluster *cl, const VmTarget *asked) {
        Sim *s = cl->sim;
        SimVm *v = &s->vms[snap_vm_global(cl, asked->vm)];
        VmTarget limited = sim_vm_target_limit(s, v, asked), *t = &limited;
        unsigned vcpus = CLAMP(t->vcpus, 1u, v->vcpus_max);
        uint64_t memory = MIN(t->memory, v->memory_max);
        int r;

        if (t->cpu_weight == 0 || memory == 0 || t->cpu_cap < 0)
                return;
        if (s->sc->drs) {
                vcpus = v->vcpus;
                memory = v->memory;
                t->cpu_cap = v->cap;
        }
        if (t->cpu_weight == sim_vm_agent_weight(s, v) && vcpus == v->vcpus &&
            memory == v->memory && t->cpu_cap == v->cap)
                return;
        v->target_weight = t->cpu_weight;
        v->target_vcpus = vcpus;
        v->target_memory = memory;
        v->target_cap = t->cpu_cap;
        if (v->resize_ev)
                return; /* the pending resize applies the newest target */
        r = event_queue_schedule(s->queue, event_queue_now(s->queue) + s->sc->resize_delay,
                                 vm_resize_event, v, &v->resize_ev);
        if (r < 0)
                sim_fail(s, r);
}

int sim_decisions_apply(SimCluster *cl, const Decisions *d) {
        usec_t now = event_queue_now(cl->sim->queue);
        int r;

        /* Reports first: they name attempts by snapshot index, and kills
         * free attempts. */
        for (size_t i = 0; i < d->n_stragglers; i++) {
                SimAttempt *a = cl->snap_map[d->stragglers[i].attempt];
                cl->taskx[a->task].straggler = true;
        }
        for (size_t i = 0; i < d->n_kills; i++) {
                r = apply_kill(cl, &d->kills[i]);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < d->n_slot_changes; i++) {
                uint32_t node = d->slot_changes[i].node;
                Node *n = &cl->nodes[node];
                bool changed = memcmp(n->slots, d->slot_changes[i].slots, sizeof(n->slots)) != 0;

                if (cl->index == 0 && changed)
                        cl->sim->results.slot_changes++;
                if (changed)
                        changed_list_add(cl->slots_changed, &cl->n_slots_changed, cl->slots_listed,
                                         node);
                cl->map_slots += d->slot_changes[i].slots[SLOT_MAP] - n->slots[SLOT_MAP];
                memcpy(n->slots, d->slot_changes[i].slots, sizeof(n->slots));
                n->slots_changed_at = now;
                r = sim_node_grown_resize(cl, d->slot_changes[i].node);
                if (r < 0)
                        return r;
        }
        /* An attempt runs as its task's type in whatever slot it takes: a
         * map in a reduce slot DHSA lent it runs as a map, and the slot is
         * a reduce slot again when it ends. */
        for (size_t i = 0; i < d->n_assignments; i++) {
                const Assignment *as = &d->assignments[i];
                uint64_t mem = as->slot_memory ? as->slot_memory : cl->nodes[as->node].slot_memory;
                if (cl->tasks[as->task].state == TASK_DONE)
                        continue;
                if (as->slot == SLOT_MAP)
                        mem = sim_node_map_slot_take(cl, as->node, mem);
                r = sim_attempt_start(cl, as->task, as->node, as->slot, mem, as->speculative);
                if (r < 0)
                        return r;
                if (cl->index == 0 && as->slot != slot_type_of(as->type))
                        cl->sim->results.borrowed++;
        }
        /* A reservation holds its slot until the next assignment step of
         * its node replaces it. Here only that step (its heartbeat) starts
         * tasks on the node, FlexSlot's re-placements in a control cycle
         * aside, and the step decides afresh: holding asks nothing of the
         * driver but to count it. */
        if (cl->index == 0)
                cl->sim->results.reservations += d->n_reservations;
        /* Quotas are kept until the next assignment step replaces them
         * (Job.quota): a step gives every unfinished job with a deadline
         * its quota, so a step that gives any replaces them all. */
        if (d->n_quotas > 0)
                for (size_t j = 0; j < cl->n_arrived; j++)
                        memset(cl->jobs[j].quota, 0, sizeof(cl->jobs[j].quota));
        for (size_t i = 0; i < d->n_quotas; i++)
                memcpy(cl->jobs[d->quotas[i].job].quota, d->quotas[i].slots,
                       sizeof(cl->jobs[0].quota));
        /* Placements (RAS's job slots) ask nothing of the driver either: the
         * scheduler that makes them follows them with its own assignments
         * (its Task Scheduler), in this step and the next ones. */
        /* A cluster whose VMs the cloud sizes on its own (no agent) keeps
         * them as they are; under DRS an agent may set CPU weights. */
        for (size_t i = 0; (cl->sim->sc->apply_vm_targets || cl->sim->sc->drs_agent_weights) &&
                           i < d->n_vm_targets;
             i++)
                apply_vm_target(cl, &d->vm_targets[i]);
        for (size_t i = 0; cl->index == 0 && i < d->n_levers; i++)
                cl->sim->results.lever_targets += d->levers[i].job != NO_INDEX;
        for (size_t i = 0; cl->index == 0 && i < d->n_spares; i++)
                cl->sim->results.spare_slots += d->spares[i].reason != SPARE_NO_DEADLINE;
        return 0;
}

/* beat: the node whose heartbeat this is (Hadoop's JobTracker hands out
 * tasks only to the tracker that just reported), or NO_INDEX for a control
 * cycle. */
static int simcl_step(SimCluster *cl, uint32_t beat, unsigned flags) {
        PolicyStepArgs args = { .now = event_queue_now(cl->sim->queue),
                                .flags = flags,
                                .node = beat };
        ClusterSnapshot snap;
        usec_t start = 0;
        int r;

        /* With progress as the heartbeats report it, no entry reads the
         * hosts' state as of now, and each change on a host advances it
         * first: the step spares the advance of every busy host. */
        r = simcl_snapshot(cl, !cl->sim->sc->progress_at_heartbeat, &snap);
        if (r < 0)
                return r;
        if (beat != NO_INDEX)
                args.flags |= POLICY_STEP_HEARTBEAT;
        /* The snapshot mirrors the model, so it is consistent by
         * construction; the O(tasks) validation of every step is for runs
         * that check the model's invariants (tests). */
        if (!cl->sim->check_invariants)
                args.flags |= POLICY_STEP_TRUSTED;
        if (cl->sim->time_policy)
                start = now_thread_cpu_usec();
        r = policy_step(cl->policy, &snap, &args, &cl->decisions);
        if (cl->sim->time_policy)
                cl->sim->results.policy_cpu += now_thread_cpu_usec() - start;
        /* The step took the slots in: the next reports what changes from
         * now on. */
        changed_list_clear(cl->slots_changed, &cl->n_slots_changed, cl->slots_listed);
        cl->sim->results.policy_steps++;
        if (r < 0)
                return r;
        if (cl->index == 0 && (flags & POLICY_STEP_CONTROL) && cl->sim->observe) {
                snapshot_fill_attempts(&snap);
                cl->sim->observe(&snap, &cl->decisions, args.now, cl->sim->observe_data);
        }
        return sim_decisions_apply(cl, &cl->decisions);
}

static bool simcl_done(const SimCluster *cl) {
        return cl->n_finished == cl->n_jobs;
}

/* ---- events ---- */

usec_t sim_heartbeat_event(EventQueue *q, void *userdata) {
        NodeBeat *b = userdata;
        SimCluster *cl = b->cl;
        const Node *n = &cl->nodes[b->node];
        int r;

        if (simcl_done(cl))
                return 0;
        cl->nodes[b->node].last_heartbeat = event_queue_now(q);
        sim_node_report(cl, b->node);
        if (cl->n_arrived > 0 && (node_running(cl, b->node, SLOT_MAP) < n->slots[SLOT_MAP] ||
                                  node_running(cl, b->node, SLOT_REDUCE) < n->slots[SLOT_REDUCE])) {
                r = simcl_step(cl, b->node, POLICY_STEP_ASSIGN);
                if (r < 0)
                        sim_fail(cl->sim, r);
        }
        return cl->sim->heartbeat;
}

static void vm_measure(SimCluster *cl, SimVm *v, double dt) {
        v->cpu_use = (v->cpu_total - v->win_cpu) / dt;
        v->steal_share = share_of(v->steal_total - v->win_steal, dt * v->vcpus);
        v->iowait_share = share_of(v->iowait_total - v->win_iowait, dt * v->vcpus);
        v->win_cpu = v->cpu_total;
        v->win_steal = v->steal_total;
        v->win_iowait = v->iowait_total;
        cl->vm_cpu_use[v->cluster_pos] = v->cpu_use;
        sim_vm_snapshot_stale(cl->sim, v);
        if (v->node != NO_INDEX) {
                cl->nodes[v->node].steal = v->steal_share;
                cl->nodes[v->node].iowait = v->iowait_share;
        }
}

static bool vm_figures_zero(const SimVm *v) {
        return v->cpu_use == 0 && v->steal_share == 0 && v->iowait_share == 0;
}

/* What leaving a host's VMs out of a measurement rests on, checked: their
 * sums have not moved since their window began, and their figures are
 * zeros, as a measurement would set them. */
static void measure_left_out_check(SimCluster *cl, size_t h) {
        Sim *s = cl->sim;
        const SimHost *sh = &s->hosts[h];

        for (size_t i = 0; i < sh->n_vms; i++) {
                const SimVm *v = &s->vms[sh->vms[i]];

                if (v->cluster == cl->index &&
                    (v->cpu_total != v->win_cpu || v->steal_total != v->win_steal ||
                     v->iowait_total != v->win_iowait || !vm_figures_zero(v)))
                        snprintf(s->invariant_error, sizeof(s->invariant_error),
                                 "host %zu is left out of a measurement, but VM %" PRIu32
                                 "'s sums moved or its figures are not zero",
                                 h, sh->vms[i]);
        }
}

/* Closes each VM's measurement window: what the agent would report. Only
 * the hosts with something for it (SimHost.measure_due) are looked at:
 * elsewhere every VM's window is zeros again, as its figures already are,
 * and only the time of the window moves, which is the cluster's. On a
 * cluster sized for a day's trace most hosts are idle most of the time. */
static void vms_measure(SimCluster *cl, usec_t now) {
        Sim *s = cl->sim;
        unsigned bit = 1u << cl->index;
        double dt = usec_to_sec(now - cl->measured_at);

        if (dt <= 0)
                return;
        for (size_t h = 0; h < s->n_hosts; h++) {
                SimHost *sh = &s->hosts[h];
                bool zeros = true;

                if (!(sh->measure_due & bit)) {
                        if (s->check_invariants)
                                measure_left_out_check(cl, h);
                        continue;
                }
                for (size_t i = 0; i < sh->n_vms; i++) {
                        SimVm *v = &s->vms[sh->vms[i]];

                        if (v->cluster != cl->index)
                                continue;
                        vm_measure(cl, v, dt);
                        zeros = zeros && vm_figures_zero(v);
                }
                if (zeros)
                        sh->measure_due &= ~bit;
                sh->snap_stale = true;
        }
        cl->measured_at = now;
        for (size_t i = 0; i < cl->n_nodes; i++)
                cl->nodes[i].measured_at = now;
        s->snap_hosts_stale = true;
}

/* The sums util_record() takes from its totals, as a pass over every VM
 * and node gives them: a change that left a total behind fails the run. */
static void util_totals_check(const SimCluster *cl, double cpu) {
        Sim *s = cl->sim;
        double full_cpu = 0, pcpus = 0, committed = 0, memory = 0;
        unsigned slots = 0;

        for (size_t i = 0; i < cl->n_vms; i++) {
                const SimVm *v = &s->vms[cl->vms[i]];
                full_cpu += v->cpu_use;
                committed += v->committed;
                memory += (double)v->memory;
        }
        for (size_t i = 0; i < s->n_hosts; i++)
                pcpus += s->hosts[i].pcpus;
        for (size_t i = 0; i < cl->n_nodes; i++)
                slots += cl->nodes[i].slots[SLOT_MAP];
        if (full_cpu != cpu || pcpus != s->pcpus || committed != (double)cl->committed ||
            memory != (double)cl->memory || slots != cl->map_slots)
                snprintf(s->invariant_error, sizeof(s->invariant_error),
                         "the utilisation's totals are not what the VMs and nodes add up to: "
                         "a change left one behind");
}

static int util_record(SimCluster *cl, usec_t now) {
        Sim *s = cl->sim;
        SimResults *res = &s->results;
        double cpu = 0;

        for (size_t i = 0; i < cl->n_vms; i++)
                cpu += cl->vm_cpu_use[i];
        if (s->check_invariants)
                util_totals_check(cl, cpu);
        if (res->n_util == res->cap_util) {
                size_t n = res->cap_util ? 2 * res->cap_util : 256;
                UtilSample *u = realloc(res->util, n * sizeof(*u));
                if (!u)
                        return -ENOMEM;
                res->util = u;
                res->cap_util = n;
        }
        res->util[res->n_util++] = (UtilSample){
                .time = usec_to_sec(now),
                .cpu = cpu / s->pcpus,
                .memory = (double)cl->committed / (double)cl->memory,
                .running_maps = 0,
                .map_slots = cl->map_slots,
        };
        /* Maps wherever they run: DHSA puts some in reduce slots. */
        for (size_t i = 0; i < cl->n_attempts; i++)
                res->util[res->n_util - 1].running_maps +=
                        cl->tasks[cl->attempts[i]->task].type == TASK_MAP;
        return 0;
}

/* The driver contract's admission: a job the policy refuses never runs.
 * Without admission control every job is admitted, and the snapshot is
 * built only for runs that check it (tests). */
static int simcl_admit(SimCluster *cl, uint32_t job) {
        ClusterSnapshot snap;
        AdmitVerdict v;
        int r;

        if (policy_admits_all(cl->policy) && !cl->sim->check_invariants)
                return 0;
        r = simcl_snapshot(cl, false, &snap);
        if (r >= 0)
                r = policy_admit(cl->policy, &snap, event_queue_now(cl->sim->queue), &cl->jobs[job],
                                 cl->sim->check_invariants ? 0 : POLICY_STEP_TRUSTED, &v);
        if (r >= 0 && !v.admit)
                sim_job_refuse(cl, job, v.reason);
        return r;
}

/* The next job arrives now: admitted or refused. */
static int job_arrive(SimCluster *cl) {
        int r = simcl_admit(cl, (uint32_t)cl->n_arrived);

        if (r >= 0)
                cl->n_arrived++;
        return r;
}

/* The jobs due arrive, in order, while the load gate lets them. */
static int arrivals_try(SimCluster *cl) {
        while (sim_arrival_next(cl)) {
                int r = job_arrive(cl);

                if (r < 0)
                        return r;
        }
        return 0;
}

usec_t sim_control_event(EventQueue *q, void *userdata) {
        SimCluster *cl = userdata;
        usec_t now = event_queue_now(q);
        int r;

        if (simcl_done(cl))
                return 0;
        sim_hosts_advance_all(cl->sim);
        vms_measure(cl, now);
        if (cl->index == 0) {
                r = util_record(cl, now);
                if (r < 0)
                        sim_fail(cl->sim, r);
        }
        if (sim_arrivals_gated(cl)) {
                r = arrivals_try(cl);
                if (r < 0)
                        sim_fail(cl->sim, r);
        }
        if (cl->n_arrived > 0) {
                r = simcl_step(cl, NO_INDEX, POLICY_STEP_CONTROL);
                if (r < 0)
                        sim_fail(cl->sim, r);
        }
        return scenario_core(cl->sim->sc)->control_interval;
}

static usec_t vm_resize_event(EventQueue *q, void *userdata) {
        SimVm *v = userdata;
        Sim *s = v->sim;

        sim_hosts_advance_all(s);
        v->resize_ev = 0;
        if (s->sc->drs) {
                v->agent_weight = v->target_weight;
                v->weight = sim_drs_vm_weight(s, v);
        } else {
                v->weight = v->target_weight;
                v->vcpus = v->target_vcpus;
                s->clusters[v->cluster].memory += v->target_memory - v->memory;
                v->memory = v->target_memory;
                v->cap = v->target_cap;
        }
        sim_vm_snapshot_stale(s, v);
        sim_node_capacity_update(s, v);
        sim_host_update(s, v->host);
        return 0;
}

void sim_set_observer(Sim *s, SimObserveFn fn, void *userdata) {
        s->observe = fn;
        s->observe_data = userdata;
}

int sim_job_profile(const Sim *s, uint32_t job, JobProfile *ret) {
        const SimCluster *cl = &s->clusters[0];

        if (job >= cl->n_jobs)
                return -EINVAL;
        *ret = cl->jobs[job].profile;
        return 0;
}

int sim_set_job_profile(Sim *s, uint32_t job, const JobProfile *profile) {
        SimCluster *cl = &s->clusters[0];

        if (job >= cl->n_jobs || !profile)
                return -EINVAL;
        cl->jobx[job].stored_profile = *profile;
        cl->jobs[job].stored_profile = &cl->jobx[job].stored_profile;
        return 0;
}

usec_t sim_job_arrival_event(EventQueue *q, void *userdata) {
        SimCluster *cl = userdata;
        int r;

        /* Under the load gate a submission is one more job due, which
         * comes once the gate lets it. */
        if (sim_arrivals_gated(cl)) {
                cl->n_due++;
                r = arrivals_try(cl);
        } else
                r = job_arrive(cl);
        if (r < 0)
                sim_fail(cl->sim, r);
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* A tracker's heartbeat: its report checked against the model, its finished
 * attempts adopted, recorded in the store and applied, then the policy
 * step and its decisions, and the reply. A control cycle is the same step
 * without a tracker. */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/macro.h"
#include "controller/daemon/cluster-heartbeat.h"
#include "controller/daemon/cluster-job.h"
#include "controller/daemon/cluster-output.h"
#include "controller/daemon/cluster-snapshot.h"

/* Kill reasons a tracker hears, and reports back with the killed attempt. */
static const char KILL_UNKNOWN[] = "attempt unknown to the controller";
static const char KILL_TASK_DONE[] = "its task succeeded in another attempt";

/* Why an attempt's record says it ended as it did. */
static const char WHY_DISCARDED[] = "another attempt of its task succeeded first";
static const char WHY_GONE[] = "not on its tracker when the controller restarted";
static const char WHY_NO_OUTPUT[] = "its output is not where its tracker said";

/* The tracker protocol's word for a slot type. */
static Tracker1TaskType wire_slot(SlotType s) {
        return s == SLOT_MAP ? TRACKER1_MAP : TRACKER1_REDUCE;
}

/* The store's word for how a reported attempt ended. */
static StoreTaskStatus store_status(Tracker1Status s) {
        return s == TRACKER1_SUCCEEDED ? STORE_TASK_SUCCEEDED
               : s == TRACKER1_KILLED  ? STORE_TASK_KILLED
                                       : STORE_TASK_FAILED;
}

static double share(usec_t part, usec_t whole) {
        return whole > 0 ? CLAMP((double)part / (double)whole, 0.0, 1.0) : 0.0;
}

static bool share_valid(double x) {
        return isfinite(x) && x >= 0 && x <= 1;
}

static bool text_valid(const char *s) {
        return strlen(s) <= STORE_MESSAGE_MAX;
}

/* A reported attempt as the model knows it, found once per report: task
 * NULL for one it does not know. */
typedef struct Known {
        ClusterJob *job;
        ClusterTask *task;
} Known;

/* The running or the finished attempts of r, n of them, each as the model
 * knows it (a running one's job is not needed): NULL when n is 0. */
static int known_new(Cluster *c, const Tracker1Report *r, size_t n, bool finished, Known **ret) {
        Known *k = n > 0 ? calloc(n, sizeof(*k)) : NULL;

        if (n > 0 && !k)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                ClusterJob *j = NULL;

                if (finished)
                        k[i].task = cluster_attempt_find(c, r->finished[i].attempt, &j, NULL);
                else
                        k[i].task = cluster_attempt_find(c, r->running[i].attempt, NULL, NULL);
                k[i].job = j;
        }
        *ret = k;
        return 0;
}

/* Everything a report says, checked against the model before any of it is
 * believed. Attempts the model does not know are not errors: they are from
 * before a restart of the controller, or of a cancelled job. Each attempt
 * is looked up here once, for the whole heartbeat: *ret_running and
 * *ret_finished say what the model knows of the report's attempts, in the
 * report's order. */
static int report_check(Cluster *c, const ClusterNode *n, const Tracker1Report *r,
                        Known **ret_running, Known **ret_finished, StoreError *err) {
        _cleanup_free_ Known *running = NULL, *finished = NULL;

        for (SlotType type = 0; type < _SLOT_TYPE_MAX; type++)
                if (r->free_slots[wire_slot(type)] > n->told[type])
                        return cluster_fail(err, -EINVAL, "free-slots",
                                            "free %s slots %u is more than the tracker's %u",
                                            type == SLOT_MAP ? "map" : "reduce",
                                            r->free_slots[wire_slot(type)], n->told[type]);
        if (!share_valid(r->steal))
                return cluster_fail(err, -EINVAL, "steal", "steal %g is not a share in 0..1",
                                    r->steal);
        if (!share_valid(r->iowait))
                return cluster_fail(err, -EINVAL, "iowait", "iowait %g is not a share in 0..1",
                                    r->iowait);
        if (r->n_running > TRACKER1_REPORT_MAX || r->n_finished > TRACKER1_REPORT_MAX)
                return cluster_fail(err, -EINVAL, "running", "more than %d attempts in one report",
                                    TRACKER1_REPORT_MAX);
        if (known_new(c, r, r->n_running, false, &running) < 0 ||
            known_new(c, r, r->n_finished, true, &finished) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_running; i++) {
                const Tracker1Running *x = &r->running[i];
                const ClusterTask *t = running[i].task;

                if (!share_valid(x->progress))
                        return cluster_fail(err, -EINVAL, "progress",
                                            "progress %g of attempt %" PRIu64 " is not in 0..1",
                                            x->progress, x->attempt);
                if (t && t->attempts[cluster_task_attempt_index(t, x->attempt)].node != n->id)
                        return cluster_fail(err, -EINVAL, "running",
                                            "attempt %" PRIu64 " runs on another tracker",
                                            x->attempt);
        }
        for (size_t i = 0; i < r->n_finished; i++) {
                const Tracker1Finished *x = &r->finished[i];
                const ClusterTask *t = finished[i].task;

                if ((unsigned)x->status >= _TRACKER1_STATUS_MAX)
                        return cluster_fail(err, -EINVAL, "status",
                                            "unknown status of attempt %" PRIu64, x->attempt);
                if (!text_valid(x->output) || !text_valid(x->reason))
                        return cluster_fail(err, -EINVAL, "output",
                                            "output or reason of attempt %" PRIu64 " is too long",
                                            x->attempt);
                /* The store keeps them as SQLite's signed integers. */
                if (x->cpu_time > INT64_MAX || x->blkio_delay > INT64_MAX)
                        return cluster_fail(err, -EINVAL, "cpu-time",
                                            "CPU time or I/O wait of attempt %" PRIu64
                                            " is out of range",
                                            x->attempt);
                if (t && t->attempts[cluster_task_attempt_index(t, x->attempt)].node != n->id)
                        return cluster_fail(err, -EINVAL, "finished",
                                            "attempt %" PRIu64 " ran on another tracker",
                                            x->attempt);
                for (size_t k = 0; k < i; k++)
                        if (r->finished[k].attempt == x->attempt)
                                return cluster_fail(err, -EINVAL, "finished",
                                                    "attempt %" PRIu64 " is reported twice",
                                                    x->attempt);
        }
        *ret_running = TAKE_PTR(running);
        *ret_finished = TAKE_PTR(finished);
        return 0;
}

/* Whether an attempt before the i-th finished of the report succeeded for
 * the same task: the first success wins (both attempts of a task may run
 * on one tracker), and the later is ignored as a loser's is. */
static bool succeeded_before(const Tracker1Report *r, const Known *finished, size_t i) {
        for (size_t k = 0; k < i; k++)
                if (r->finished[k].status == TRACKER1_SUCCEEDED &&
                    finished[k].task == finished[i].task)
                        return true;
        return false;
}

static size_t running_position(const Tracker1Report *r, uint64_t attempt) {
        size_t i = 0;

        while (i < r->n_running && r->running[i].attempt != attempt)
                i++;
        return i;
}

static size_t finished_position(const Tracker1Report *r, uint64_t attempt) {
        size_t i = 0;

        while (i < r->n_finished && r->finished[i].attempt != attempt)
                i++;
        return i;
}

static void held_remove(Cluster *c, size_t i) {
        free(c->held[i].node);
        memmove(&c->held[i], &c->held[i + 1], (c->n_held - i - 1) * sizeof(*c->held));
        c->n_held--;
}

/* The attempts an earlier run left running on n's host (ClusterHeld), now
 * that its tracker says what became of them: one it still runs, or that
 * ended while the controller was away, is its task's again (as if this run
 * had assigned it there), so the report goes on as for any attempt; one of
 * a task that has succeeded since, or a success without its output, is a
 * loser, killed when it runs; one the tracker does not name is gone (the
 * tracker started again), and its task free to run. */
static void resolve_held(Cluster *c, ClusterNode *n, const Tracker1Report *r, Known *running,
                         Known *finished, usec_t now) {
        for (size_t i = c->n_held; i > 0; i--) {
                const ClusterHeld *h = &c->held[i - 1];
                ClusterRetired retired = { .attempt = h->attempt,
                                           .job = h->job,
                                           .type = h->type,
                                           .index = h->index,
                                           .started = h->started,
                                           .reason = KILL_TASK_DONE };
                size_t run = running_position(r, h->attempt);
                size_t end = finished_position(r, h->attempt);
                ClusterJob *j = NULL;
                ClusterTask *t;
                bool adopt;

                if (strcmp(h->node, n->hostname) != 0)
                        continue;
                t = cluster_task_find(c, h->job, h->type, h->index, &j);
                if (t)
                        t->held--;
                /* A success only with its output where it says, under
                 * the name of this attempt's output of this task. */
                adopt = t && t->state != TASK_DONE && t->n_attempts < CLUSTER_ATTEMPTS_MAX &&
                        (end == r->n_finished || r->finished[end].status != TRACKER1_SUCCEEDED ||
                         cluster_output_adoptable(c, &r->finished[end]) == t);
                if ((run < r->n_running || end < r->n_finished) && adopt) {
                        if (run < r->n_running)
                                log_info("Adopting attempt %" PRIu64 " on tracker %" PRIu64
                                         ", which runs since before the controller restarted",
                                         h->attempt, n->id);
                        else
                                log_info("Adopting attempt %" PRIu64 " on tracker %" PRIu64
                                         ", which %s while the controller was away: %s",
                                         h->attempt, n->id,
                                         tracker1_status_to_string(r->finished[end].status),
                                         r->finished[end].status == TRACKER1_SUCCEEDED
                                                 ? r->finished[end].output
                                                 : r->finished[end].reason);
                        cluster_attempt_add(c, n, j, t,
                                            &(ClusterAttempt){ .id = h->attempt,
                                                               .started = h->started,
                                                               .slot_memory = n->slot_memory,
                                                               .slot = slot_type_of(t->type) });
                        if (run < r->n_running)
                                running[run].task = t;
                        else
                                finished[end] = (Known){ .job = j, .task = t };
                } else if (run < r->n_running || end < r->n_finished) {
                        /* Its report ends it as a loser's (apply_report()). */
                        if (end < r->n_finished && t && t->state != TASK_DONE)
                                retired.reason = WHY_NO_OUTPUT;
                        if (cluster_node_retire(n, &retired) < 0 ||
                            (run < r->n_running &&
                             cluster_node_queue_kill(n, h->attempt, KILL_TASK_DONE) < 0))
                                log_oom();
                } else {
                        cluster_held_lose(c, h, now, WHY_GONE);
                }
                held_remove(c, i - 1);
                cluster_snapshot_drop(c);
        }
}

/* Succeeded attempts that a controller before a restart assigned, which
 * the tracker reports once it has registered again: a task that waits to
 * run takes such an attempt as its own, running on n, so that the report
 * ends it as any other (record_finished(), apply_report()) and the task
 * does not run again. */
static void adopt_finished(Cluster *c, ClusterNode *n, const Tracker1Report *r, Known *finished,
                           usec_t now) {
        for (size_t i = 0; i < r->n_finished; i++) {
                const Tracker1Finished *x = &r->finished[i];
                ClusterJob *j;
                ClusterTask *t;

                if (x->status != TRACKER1_SUCCEEDED || x->attempt >= c->first_attempt ||
                    finished[i].task)
                        continue;
                t = cluster_output_adoptable(c, x);
                j = t ? cluster_job_find(c, t->job) : NULL;
                if (!j)
                        continue;
                log_info("Adopting attempt %" PRIu64 " on tracker %" PRIu64
                         ", which succeeded while the controller was away: %s",
                         x->attempt, n->id, x->output);
                cluster_attempt_add(c, n, j, t,
                                    &(ClusterAttempt){ .id = x->attempt,
                                                       .started = now,
                                                       .slot_memory = n->slot_memory,
                                                       .slot = slot_type_of(t->type) });
                finished[i] = (Known){ .job = j, .task = t };
        }
}

/* When attempt x, assigned at assigned, ran on the controller's clock: by
 * its tracker's own measures (its run time and the time since its end)
 * when it tells them, held within its assignment and now; else by the
 * heartbeats that assigned and reported it, which would round every task
 * up to the heartbeat interval (ARIA's profiles are made of these). */
static void attempt_times(const Tracker1Finished *x, usec_t assigned, usec_t now,
                          usec_t *ret_started, usec_t *ret_ended) {
        usec_t started = MIN(assigned, now), ended = now;

        if (x->run_time > 0) {
                ended = now - MIN(x->since_end, now - started);
                started = ended - MIN(x->run_time, ended - started);
        }
        *ret_started = started;
        *ret_ended = ended;
}

/* A loser's report: an attempt stopped here (retired), or a second
 * success of a task in one report; its record says so, and its reason is
 * why it was stopped when the tracker gives none. */
static StoreTaskRecord loser_record(const ClusterNode *n, const Tracker1Finished *x,
                                    const ClusterRetired *retired, usec_t now) {
        bool succeeded = x->status == TRACKER1_SUCCEEDED;
        usec_t started, ended;

        attempt_times(x, retired->started, now, &started, &ended);
        return (StoreTaskRecord){
                .job = retired->job,
                .type = retired->type,
                .index = retired->index,
                .attempt = x->attempt,
                .node = n->hostname,
                .status = succeeded ? STORE_TASK_DISCARDED : store_status(x->status),
                .started = started,
                .finished = ended,
                .input_bytes = x->input_bytes,
                .output_bytes = x->output_bytes,
                .reason = !succeeded && x->reason[0] ? x->reason : retired->reason,
                .usage = x->usage,
                .cpu_time = x->cpu_time,
                .io_wait = x->blkio_delay,
        };
}

/* The report's finished attempts of known tasks, in one transaction; the
 * losers' apart (cluster_records_write()). */
static int record_finished(Cluster *c, const ClusterNode *n, const Tracker1Report *r,
                           const Known *finished, usec_t now, StoreError *err) {
        _cleanup_free_ StoreTaskRecord *records = NULL, *losers = NULL;
        size_t k = 0, n_losers = 0;

        if (r->n_finished == 0)
                return 0;
        records = calloc(r->n_finished, sizeof(*records));
        losers = calloc(r->n_finished, sizeof(*losers));
        if (!records || !losers)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_finished; i++) {
                const Tracker1Finished *x = &r->finished[i];
                const ClusterTask *t = finished[i].task;
                const ClusterRetired *retired = t ? NULL : cluster_node_find_retired(n, x->attempt);
                usec_t started, ended;

                if (retired) {
                        losers[n_losers++] = loser_record(n, x, retired, now);
                        continue;
                }
                if (!t)
                        continue;
                started = t->attempts[cluster_task_attempt_index(t, x->attempt)].started;
                if (x->status == TRACKER1_SUCCEEDED && succeeded_before(r, finished, i)) {
                        ClusterRetired second = { .job = finished[i].job->info.id,
                                                  .type = t->type,
                                                  .index = t->index,
                                                  .started = started,
                                                  .reason = WHY_DISCARDED };

                        losers[n_losers++] = loser_record(n, x, &second, now);
                        continue;
                }
                attempt_times(x, started, now, &started, &ended);
                records[k++] = (StoreTaskRecord){
                        .job = finished[i].job->info.id,
                        .type = t->type,
                        .index = t->index,
                        .attempt = x->attempt,
                        .node = n->hostname,
                        .status = store_status(x->status),
                        .started = started,
                        .finished = ended,
                        .input_bytes = x->input_bytes,
                        .output_bytes = x->output_bytes,
                        .output = x->status == TRACKER1_SUCCEEDED ? x->output : NULL,
                        .reason =
                                x->status != TRACKER1_SUCCEEDED && x->reason[0] ? x->reason : NULL,
                        .usage = x->usage,
                        .cpu_time = x->cpu_time,
                        .io_wait = x->blkio_delay,
                };
        }
        if (k > 0) {
                int stored = store_tasks_record(c->store, records, k, err);

                if (stored < 0)
                        return stored;
        }
        cluster_records_write(c, losers, n_losers);
        return 0;
}

/* The jobs of the report's finished attempts, each once (0 for the rest),
 * by id: a job that ends leaves c->jobs, and the others move. NULL when
 * nothing finished. */
static int settle_ids(const Tracker1Report *r, const Known *finished, uint64_t **ret) {
        uint64_t *ids = NULL;

        if (r->n_finished > 0) {
                ids = calloc(r->n_finished, sizeof(*ids));
                if (!ids)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < r->n_finished; i++) {
                bool seen = !finished[i].job;

                for (size_t k = 0; !seen && k < i; k++)
                        seen = ids[k] == finished[i].job->info.id;
                if (!seen)
                        ids[i] = finished[i].job->info.id;
        }
        *ret = ids;
        return 0;
}

static void apply_report(Cluster *c, ClusterNode *n, const Tracker1Report *r, const Known *running,
                         const Known *finished, usec_t now, usec_t now_monotonic) {
        n->last_heartbeat = now_monotonic;
        n->steal = r->steal;
        n->iowait = r->iowait;
        n->measured_at = now;
        cluster_node_changed(c, (uint32_t)(n - c->nodes));
        for (size_t i = 0; i < r->n_running; i++) {
                const Tracker1Running *x = &r->running[i];
                ClusterTask *t = running[i].task;
                ClusterAttempt *at;
                usec_t ran;

                if (!t) {
                        /* Not ours (any more): the tracker should not spend
                         * a slot on it. */
                        if (cluster_node_queue_kill(n, x->attempt, KILL_UNKNOWN) < 0)
                                log_oom();
                        continue;
                }
                at = &t->attempts[cluster_task_attempt_index(t, x->attempt)];
                ran = now > at->started ? now - at->started : 0;
                at->progress = x->progress;
                at->bytes_processed = x->bytes_processed;
                if (t->input_size != x->input_size) {
                        /* Every attempt of the task reads it, a backup on
                         * another node too. */
                        t->input_size = x->input_size;
                        cluster_task_changed(c, t);
                }
                at->cpu = share(x->cpu_time, ran);
                at->iowait = share(x->iowait_time, ran);
        }
        for (size_t i = 0; i < r->n_finished; i++) {
                const Tracker1Finished *x = &r->finished[i];
                ClusterTask *t = finished[i].task;
                unsigned a = t ? cluster_task_attempt_index(t, x->attempt) : 0;
                usec_t started;

                /* A loser's report, succeeded or killed, finds no attempt:
                 * its kill took it out of the task when the winner's came,
                 * in an earlier report or earlier in this one. */
                if (!t || a == t->n_attempts) {
                        ClusterRetired retired;
                        bool ours = cluster_node_take_retired(n, x->attempt, &retired);

                        /* Only an attempt the controller stopped here has an
                         * output it removes: a report of any other (made
                         * up, from before a restart) removes nothing. */
                        if (x->status == TRACKER1_SUCCEEDED && ours)
                                cluster_output_discard(c, &retired);
                        else if (x->status == TRACKER1_SUCCEEDED)
                                log_info("Tracker %" PRIu64 " reported attempt %" PRIu64
                                         ", which the controller did not stop there: "
                                         "its output is left alone",
                                         n->id, x->attempt);
                        continue;
                }
                started = MIN(t->attempts[a].started, now);
                cluster_attempt_stop(c, t, a);
                if (x->status == TRACKER1_SUCCEEDED)
                        cluster_task_succeeded(c, finished[i].job, t, x, started, now);
                else if (x->status == TRACKER1_FAILED)
                        cluster_task_failed(t, finished[i].job, x, n);
                else
                        t->kills++;
        }
}

/* A new attempt of t on n, recorded running, and what the tracker's reply
 * says of it. */
static int start_attempt(Cluster *c, ClusterNode *n, const ClusterJob *j, ClusterTask *t,
                         SlotType slot, uint64_t slot_memory, bool speculative, usec_t now,
                         Tracker1Reply *reply) {
        StoreTaskRecord record = { .job = j->info.id,
                                   .type = t->type,
                                   .index = t->index,
                                   .attempt = c->next_attempt,
                                   .node = n->hostname,
                                   .status = STORE_TASK_RUNNING,
                                   .started = now };
        Tracker1Assignment *as, a;
        StoreError err = { 0 };
        int r;

        as = reallocarray(reply->assignments, reply->n_assignments + 1, sizeof(*as));
        if (!as)
                return -ENOMEM;
        reply->assignments = as;
        /* Before the tracker hears of it: a controller that restarts knows
         * every attempt that may run (ClusterHeld). One the store will not
         * take is not started: its task waits for a later heartbeat, and
         * the attempts this step started already stand. */
        r = store_tasks_record(c->store, &record, 1, &err);
        if (r < 0) {
                log_warning_errno(r,
                                  "Not starting attempt %" PRIu64 ", which cannot be recorded: %s",
                                  c->next_attempt, err.message);
                return 0;
        }
        r = cluster_task_assignment(j, t, c->next_attempt, &a);
        if (r < 0)
                return r;
        a.slot_memory = slot_memory ? slot_memory : n->slot_memory;
        a.slot = wire_slot(slot);
        reply->assignments[reply->n_assignments++] = a;
        c->next_attempt++;
        cluster_attempt_add(c, n, j, t,
                            &(ClusterAttempt){ .id = a.attempt,
                                               .started = now,
                                               .slot_memory = a.slot_memory,
                                               .slot = slot,
                                               .speculative = speculative });
        return 0;
}

/* The job of the snapshot's task i, which a step placed: its job is not
 * gone (a gone job's tasks are done). */
static const ClusterJob *job_of(const Cluster *c, const Snapshot *s, uint32_t i) {
        const ClusterJob *j = cluster_job_find((Cluster *)c, s->a.jobs[s->a.tasks[i].job].id);

        assert(j && !s->job_gone[s->a.tasks[i].job]);
        return j;
}

/* A backup of t on n: one at most, of a task still running (a kill of
 * this step may have ended its attempt), not beside the attempt it backs
 * up, where it would share the slowness, nor where its last attempt failed
 * (Hadoop 1 runs no attempt of a task on a tracker that runs one or where
 * one failed, TaskInProgress.hasRunOnMachine()). */
static bool backup_allowed(const ClusterTask *t, const ClusterNode *n) {
        return t->state == TASK_RUNNING && t->n_attempts == 1 && t->attempts[0].node != n->id &&
               t->failed_on != n->id;
}

/* The deadline schedulers' quotas stand until a step gives quotas again: a
 * step that gives any gives every deadline job its own (Job.quota), so it
 * replaces them all. The forecasts of the one loop read them (a job still
 * getting its slots), and operators see them (GetJob); each change is
 * logged. */
static int apply_quotas(Cluster *c, const Snapshot *s) {
        const Decisions *d = &c->decisions;
        _cleanup_free_ unsigned(*next)[_SLOT_TYPE_MAX] = NULL;

        if (d->n_quotas == 0)
                return 0;
        next = calloc(s->s.n_jobs, sizeof(*next));
        if (!next)
                return -ENOMEM;
        for (size_t i = 0; i < d->n_quotas; i++)
                memcpy(next[d->quotas[i].job], d->quotas[i].slots, sizeof(next[0]));
        for (size_t j = 0; j < c->n_jobs; j++) {
                ClusterJob *cj = &c->jobs[j];
                uint32_t k = cluster_snapshot_job(s, cj->info.id);

                assert(k != NO_INDEX);
                if (memcmp(next[k], cj->quota, sizeof(cj->quota)) == 0)
                        continue;
                log_info("Quota: job %" PRIu64 " %u map, %u reduce -> %u map, %u reduce slots",
                         cj->info.id, cj->quota[SLOT_MAP], cj->quota[SLOT_REDUCE],
                         next[k][SLOT_MAP], next[k][SLOT_REDUCE]);
                memcpy(cj->quota, next[k], sizeof(cj->quota));
                cluster_snapshot_job_quota(c, j);
        }
        return 0;
}

/* What the one loop says of its decisions: each deadline job's forecast
 * (at debug), and each weight the lever asks of a VM, for a late job, of a
 * best-effort VM beside one, or given back, logged when it changes (the
 * VM targets carry it to the agents). */
static void record_loop_notes(Cluster *c, const Snapshot *s, usec_t now) {
        const Decisions *d = &c->decisions;

        for (size_t i = 0; i < d->n_deadlines; i++) {
                const DeadlineNote *f = &d->deadlines[i];
                const Job *job = &s->a.jobs[f->job];

                log_debug("Forecast: job %" PRIu64 " ends in %.1f s at speed %.2f, its deadline "
                          "in %.1f s%s",
                          job->id, ((double)f->forecast - (double)now) / USEC_PER_SEC, f->speed,
                          ((double)job->deadline - (double)now) / USEC_PER_SEC,
                          f->hopeless  ? ": late even with every slot it can use, passed over"
                          : f->at_risk ? ": late"
                                       : "");
        }

        for (size_t i = 0; i < d->n_levers; i++) {
                const LeverNote *l = &d->levers[i];
                const ClusterVmState *state;
                const char *uuid = cluster_vm_of(c, l->vm, &state);
                ClusterLever *lever = cluster_vm_lever(c, l->vm);
                char why[64] = "";

                if (!uuid || lever->asked == l->cpu_weight)
                        continue;
                if (lever->asked == 0)
                        lever->before = s->a.vms[l->vm].cpu_weight;
                if (l->job != NO_INDEX)
                        snprintf(why, sizeof(why), " for job %" PRIu64 ", forecast late",
                                 s->a.jobs[l->job].id);
                log_info("Lever: VM %s (%s) CPU weight %u -> %u%s", uuid,
                         l->vm < c->n_nodes ? "a tracker's" : "another tenant's",
                         lever->asked ? lever->asked : lever->before, l->cpu_weight, why);
                lever->asked = l->cpu_weight;
        }
}

/* Why a slot went to a job beyond the deadline jobs' quotas (slo_spare):
 * a deadline job's at info, as its quota changes are; a job without a
 * deadline's, ARIA's own rule, at debug. */
static void record_spare_notes(const Cluster *c, const Snapshot *s, usec_t now) {
        static const char *const slot_names[_SLOT_TYPE_MAX] = {
                [SLOT_MAP] = "map",
                [SLOT_REDUCE] = "reduce",
        };
        const Decisions *d = &c->decisions;

        for (size_t i = 0; i < d->n_spares; i++) {
                const SpareNote *n = &d->spares[i];
                const Job *job = &s->a.jobs[n->job];
                double deadline = ((double)job->deadline - (double)now) / USEC_PER_SEC;
                char why[160];

                if (n->reason == SPARE_NO_DEADLINE) {
                        log_debug("Spare: %s slot on tracker %" PRIu64 " to job %" PRIu64
                                  " (no deadline): no deadline job can use it",
                                  slot_names[n->slot], c->nodes[n->node].id, job->id);
                        continue;
                }
                if (n->reason == SPARE_NEAREST)
                        snprintf(why, sizeof(why),
                                 "nearest to missing its deadline (in %.1f s): forecast to end "
                                 "in %.1f s on its quota",
                                 deadline, ((double)n->forecast - (double)now) / USEC_PER_SEC);
                else if (n->reason == SPARE_EARLIEST)
                        snprintf(why, sizeof(why), "the earliest deadline (in %.1f s)", deadline);
                else
                        snprintf(why, sizeof(why),
                                 "no job that can still meet its deadline takes it, and this one "
                                 "cannot (its deadline in %.1f s)",
                                 deadline);
                log_info("Spare: %s slot on tracker %" PRIu64 " to job %" PRIu64
                         " beyond its quota of %u: %s",
                         slot_names[n->slot], c->nodes[n->node].id, job->id, n->quota, why);
        }
}

/* Kills and slot changes wait in their trackers' queues; assignments are
 * for the heartbeating tracker alone (the step's contract). */
static int apply_decisions(Cluster *c, const Snapshot *s, ClusterNode *n, usec_t now,
                           Tracker1Reply *reply) {
        static const char *const kill_reasons[_KILL_REASON_MAX] = {
                [KILL_RESIZE] = "resize",
                [KILL_REPLACE] = "replace",
                [KILL_RETRY] = "retry",
        };
        const Decisions *d = &c->decisions;
        int r;

        /* Layers note a straggler again on every step it stays one: the
         * attempt names it, for whoever counts them in the log; it stays
         * one until it ends, for the operators' view of its job. */
        for (size_t i = 0; i < d->n_stragglers; i++) {
                const Attempt *at = &s->a.attempts[d->stragglers[i].attempt];
                unsigned a = 0;
                ClusterTask *t = cluster_attempt_find(c, at->id, NULL, &a);

                log_debug("Straggler: attempt %" PRIu64 " on tracker %" PRIu64, at->id,
                          c->nodes[at->node].id);
                if (t)
                        t->attempts[a].straggler = true;
        }
        for (size_t i = 0; i < d->n_kills; i++) {
                const Attempt *at = &s->a.attempts[d->kills[i].attempt];
                ClusterNode *on = &c->nodes[at->node];
                unsigned a = 0;
                ClusterTask *t = cluster_attempt_find(c, at->id, NULL, &a);
                SlotType slot;

                if (!t)
                        /* Gone with its task's winner earlier in this step. */
                        continue;
                log_info("Kill: attempt %" PRIu64 " on tracker %" PRIu64 " (%s)", at->id, on->id,
                         kill_reasons[d->kills[i].reason]);
                /* A resized attempt starts again in the slot it held. */
                slot = t->attempts[a].slot;
                r = cluster_attempt_retire(c, t, a, kill_reasons[d->kills[i].reason]);
                if (r < 0)
                        return r;
                t->kills++;
                t->resizes += d->kills[i].reason == KILL_RESIZE;
                t->slot_memory = d->kills[i].slot_memory;
                if (d->kills[i].reason == KILL_RESIZE && n == on &&
                    t->n_attempts < CLUSTER_ATTEMPTS_MAX) {
                        r = start_attempt(c, on, job_of(c, s, at->task), t, slot, t->slot_memory,
                                          false, now, reply);
                        if (r < 0)
                                return r;
                }
        }
        for (size_t i = 0; i < d->n_slot_changes; i++) {
                ClusterNode *on = &c->nodes[d->slot_changes[i].node];

                if (on->slots[SLOT_MAP] != d->slot_changes[i].slots[SLOT_MAP] ||
                    on->slots[SLOT_REDUCE] != d->slot_changes[i].slots[SLOT_REDUCE])
                        log_info("Slots: tracker %" PRIu64
                                 " %u map, %u reduce -> %u map, %u reduce",
                                 on->id, on->slots[SLOT_MAP], on->slots[SLOT_REDUCE],
                                 d->slot_changes[i].slots[SLOT_MAP],
                                 d->slot_changes[i].slots[SLOT_REDUCE]);
                on->slots[SLOT_MAP] = d->slot_changes[i].slots[SLOT_MAP];
                on->slots[SLOT_REDUCE] = d->slot_changes[i].slots[SLOT_REDUCE];
                on->slots_changed_at = now;
                on->slots_pending = true;
                cluster_node_changed(c, d->slot_changes[i].node);
        }
        record_loop_notes(c, s, now);
        record_spare_notes(c, s, now);
        r = apply_quotas(c, s);
        if (r < 0 || !n)
                return r;
        for (size_t i = 0; i < d->n_assignments; i++) {
                const Assignment *as = &d->assignments[i];
                ClusterTask *t = s->task_of[as->task].task;

                if (as->speculative ? !backup_allowed(t, n) : t->state != TASK_PENDING)
                        continue;
                r = start_attempt(c, n, job_of(c, s, as->task), t, as->slot, as->slot_memory,
                                  as->speculative, now, reply);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void count_decisions(Cluster *c) {
        for (PolicyLayerKind k = 0; k < _POLICY_LAYER_MAX; k++) {
#define ADD_DECISIONS(type, name) c->decided[k].name += c->decisions.by_layer[k].name;
                DECISION_ARRAYS(ADD_DECISIONS)
#undef ADD_DECISIONS
        }
}

static int run_step(Cluster *c, ClusterNode *n, unsigned flags, usec_t now, Tracker1Reply *reply) {
        PolicyStepArgs args = { .now = now, .flags = flags };
        int r;

        r = cluster_snapshot_prepare(c, &args.flags);
        if (r < 0)
                return r;
        if (n)
                args.node = cluster_node_index(c, n->id);
        r = policy_step(c->policy, &c->snapshot->s, &args, &c->decisions);
        cluster_snapshot_stepped(c);
        if (r >= 0) {
                count_decisions(c);
                r = apply_decisions(c, c->snapshot, n, now, reply);
        }
        /* What the decisions changed, the snapshot takes in at the next
         * step (cluster_task_changed(), cluster_node_changed()). */
        if (r < 0)
                cluster_snapshot_drop(c);
        return r;
}

int cluster_heartbeat(Cluster *c, uint64_t node, const Tracker1Report *report, usec_t now,
                      usec_t now_monotonic, Tracker1Reply *ret, StoreError *err) {
        _cleanup_free_ Known *running = NULL, *finished = NULL;
        _cleanup_free_ uint64_t *settle = NULL;
        Tracker1Reply reply = { 0 };
        ClusterNode *n = cluster_node_lookup(c, node);
        int r;

        if (!n)
                return cluster_fail(err, -ENOENT, "tracker", "No tracker %" PRIu64, node);
        if (n->state == NODE_LOST)
                return cluster_fail(err, -ESTALE, "tracker",
                                    "Tracker %" PRIu64 " was lost: register again", node);
        r = report_check(c, n, report, &running, &finished, err);
        if (r < 0)
                return r;
        resolve_held(c, n, report, running, finished, now);
        adopt_finished(c, n, report, finished, now);
        r = settle_ids(report, finished, &settle);
        if (r < 0)
                return r;
        r = record_finished(c, n, report, finished, now, err);
        if (r < 0)
                return r;
        apply_report(c, n, report, running, finished, now, now_monotonic);
        /* Only a finished attempt ends a job (but see unsettled), and only
         * its own: a pass over every task on every heartbeat would be
         * wasted. */
        if (c->unsettled)
                cluster_jobs_settle(c);
        else
                for (size_t i = 0; i < report->n_finished; i++)
                        if (settle[i] != 0)
                                cluster_job_settle(c, settle[i]);

        r = c->step ? run_step(c, n, POLICY_STEP_ASSIGN | POLICY_STEP_HEARTBEAT, now, &reply) : 0;
        if (r < 0) {
                /* The report is in; the tracker asks again next beat. */
                log_warning_errno(r, "Policy step for tracker %" PRIu64 " failed", node);
                tracker1_reply_done(&reply);
        }
        reply.kills = TAKE_PTR(n->kills);
        reply.n_kills = n->n_kills;
        n->n_kills = 0;
        for (SlotType type = 0; type < _SLOT_TYPE_MAX; type++)
                reply.slots[wire_slot(type)] = n->told[type] = n->slots[type];
        reply.slot_memory = n->slot_memory;
        n->slots_pending = false;
        *ret = reply;
        return 0;
}

int cluster_control(Cluster *c, usec_t now) {
        return run_step(c, NULL, POLICY_STEP_CONTROL, now, NULL);
}

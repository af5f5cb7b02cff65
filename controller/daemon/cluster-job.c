/* SPDX-License-Identifier: MIT */
/* A job in the model, as Hadoop's JobInProgress and TaskInProgress: loaded
 * from the store with its splits and tasks, resumed after a restart, its
 * tasks' failures and successes counted, and ended in the store when it is
 * complete or failed. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/beneath.h"
#include "common/log.h"
#include "common/macro.h"
#include "controller/daemon/cluster-job.h"
#include "controller/daemon/cluster-output.h"
#include "controller/daemon/cluster-profile.h"
#include "controller/daemon/cluster-snapshot.h"
#include "mapred/split.h"

/* Kill reasons a tracker hears, and reports back with the killed attempt. */
static const char KILL_SPECULATION[] = "speculation: another attempt succeeded";
static const char KILL_JOB_FAILED[] = "job failed";

void cluster_job_done(ClusterJob *j) {
        for (size_t i = 0; i < j->n_tasks; i++) {
                free(j->tasks[i].output);
                free(j->tasks[i].failure);
        }
        free(j->tasks);
        strv_free(j->splits);
        store_job_clear(&j->info);
}

/* A pool is a small integer for the policy core; the names are kept for the
 * process's life, as the few pools of a cluster are. */
int cluster_pool_index(Cluster *c, const char *name, uint32_t *ret) {
        char **pools, *copy;

        for (size_t i = 0; i < c->n_pools; i++)
                if (strcmp(c->pools[i], name) == 0) {
                        *ret = (uint32_t)i;
                        return 0;
                }
        copy = strdup(name);
        if (!copy)
                return -ENOMEM;
        pools = realloc(c->pools, (c->n_pools + 1) * sizeof(*pools));
        if (!pools) {
                free(copy);
                return -ENOMEM;
        }
        c->pools = pools;
        c->pools[c->n_pools] = copy;
        *ret = (uint32_t)c->n_pools++;
        return 0;
}

/* A job runs without a profile when the store cannot give one. */
static void job_load_profile(Cluster *c, ClusterJob *j) {
        StoreError err = { 0 };
        int r;

        r = cluster_profile_load(c->store, j->info.user, j->info.name, &j->profile, &err);
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "Job %" PRIu64 " runs without its profile: %s", j->info.id,
                                  err.message);
}

/* The running attempt of rec into c->held, which takes its node. */
static int held_add(Cluster *c, StoreTaskRecord *rec) {
        ClusterHeld *held = reallocarray(c->held, c->n_held + 1, sizeof(*held));

        if (!held)
                return -ENOMEM;
        c->held = held;
        c->held[c->n_held++] = (ClusterHeld){ .attempt = rec->attempt,
                                              .job = rec->job,
                                              .type = rec->type,
                                              .index = rec->index,
                                              .node = (char *)rec->node,
                                              .started = rec->started };
        rec->node = NULL;
        return 0;
}

/* Where the task of rec is in its job's tasks: the maps, then the
 * reduces. */
static size_t task_position(const StoreJob *info, const StoreTaskRecord *rec) {
        return rec->type == TASK_MAP ? rec->index : info->n_maps + (size_t)rec->index;
}

uint64_t cluster_split_length(const char *split) {
        InputSplit s;

        /* The model's own FILE:OFFSET:LENGTH, which parses. */
        if (input_split_parse(split, &s) < 0)
                return 0;
        input_split_done(&s);
        return s.length;
}

/* The run's profile from the tasks that succeeded before a restart (one
 * record a task): the maps first, as the job's last map ended before any
 * reduce could. */
static void job_profile_resume(ClusterJob *j, const StoreTaskRecord *done, size_t n_done) {
        usec_t maps_end = 0;

        for (size_t i = 0; i < n_done; i++)
                if (done[i].type == TASK_MAP) {
                        job_profile_add_task(&j->run_profile, TASK_MAP, done[i].started,
                                             done[i].started, done[i].finished, 0);
                        j->maps_done++;
                        maps_end = MAX(maps_end, done[i].finished);
                }
        if (j->maps_done == j->info.n_maps)
                j->maps_finished = maps_end;
        for (size_t i = 0; i < n_done; i++)
                if (done[i].type == TASK_REDUCE)
                        job_profile_add_task(&j->run_profile, TASK_REDUCE, done[i].started,
                                             done[i].shuffle_end ? done[i].shuffle_end
                                                                 : done[i].started,
                                             done[i].finished, j->maps_finished);
}

/* The job's tasks: one map per split (splits, which it takes) and its
 * reduces; those with a succeeded attempt in the store are done. */
static int job_load(Cluster *c, StoreJob *info, char **splits, ClusterJob *ret, StoreError *err) {
        _cleanup_free_ ClusterTask *tasks = NULL;
        StoreTaskRecord *done = NULL;
        size_t n_done = 0, n = (size_t)info->n_maps + info->n_reduces;
        uint64_t input_size = 0;
        uint32_t pool;
        int r;

        r = cluster_pool_index(c, info->pool, &pool);
        if (r < 0)
                return r;
        tasks = calloc(MAX(n, (size_t)1), sizeof(*tasks));
        if (!tasks)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                tasks[i].job = info->id;
                tasks[i].type = i < info->n_maps ? TASK_MAP : TASK_REDUCE;
                tasks[i].index = i < info->n_maps ? (unsigned)i : (unsigned)(i - info->n_maps);
                /* A map reads its split; a reduce's input is known only
                 * as its tracker reports it. */
                if (tasks[i].type == TASK_MAP)
                        tasks[i].input_size = cluster_split_length(splits[i]);
                input_size += tasks[i].input_size;
        }
        r = store_job_tasks(c->store, info->id, STORE_TASK_STATUS_BIT(STORE_TASK_SUCCEEDED), &done,
                            &n_done, err);
        if (r < 0)
                return r;
        *ret = (ClusterJob){ .info = *info, .n_tasks = n, .input_size = input_size };
        job_profile_resume(ret, done, n_done);
        for (size_t i = 0; i < n_done; i++) {
                size_t k = task_position(info, &done[i]);

                if (k >= n)
                        continue;
                ret->tasks_done += tasks[k].state != TASK_DONE;
                tasks[k].state = TASK_DONE;
                tasks[k].output = (char *)done[i].output;
                done[i].output = NULL;
        }
        for (size_t i = 0; i < n_done; i++)
                c->next_attempt = MAX(c->next_attempt, done[i].attempt + 1);
        store_task_records_free(done, n_done);
        /* Attempts that failed or were killed take ids too; those that
         * failed count towards CLUSTER_MAX_FAILURES across restarts, the
         * last one's reason with them (the records come by attempt). Those
         * still running are held (ClusterHeld). */
        r = store_job_tasks(c->store, info->id, STORE_TASK_ANY, &done, &n_done, err);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n_done; i++) {
                size_t k = task_position(info, &done[i]);

                c->next_attempt = MAX(c->next_attempt, done[i].attempt + 1);
                if (done[i].status == STORE_TASK_RUNNING && k < n) {
                        r = held_add(c, &done[i]);
                        if (r < 0) {
                                store_task_records_free(done, n_done);
                                return r;
                        }
                        tasks[k].held += tasks[k].state != TASK_DONE;
                }
                if (done[i].status != STORE_TASK_FAILED || k >= n)
                        continue;
                ret->tasks_failed_out += ++tasks[k].failures == CLUSTER_MAX_FAILURES;
                if (done[i].reason) {
                        free(tasks[k].failure);
                        tasks[k].failure = (char *)done[i].reason;
                        done[i].reason = NULL;
                }
        }
        store_task_records_free(done, n_done);

        ret->pool = pool;
        ret->tasks = TAKE_PTR(tasks);
        ret->splits = splits;
        *info = (StoreJob){ 0 };
        job_load_profile(c, ret);
        return 0;
}

/* Room for one more job at the end: the jobs moved to the allocation's
 * start when the ends of the oldest left it half empty, else a doubling;
 * either moves each job O(1) times per job added. */
static int jobs_grow(Cluster *c) {
        size_t front = (size_t)(c->jobs - c->jobs_mem);
        ClusterJob *jobs;
        size_t max;

        if (front + c->n_jobs < c->jobs_max)
                return 0;
        if (front > 0 && front >= c->n_jobs) {
                memmove(c->jobs_mem, c->jobs, c->n_jobs * sizeof(*c->jobs));
                c->jobs = c->jobs_mem;
                return 0;
        }
        max = MAX(2 * c->jobs_max, (size_t)16);
        jobs = realloc(c->jobs_mem, max * sizeof(*jobs));
        if (!jobs)
                return -ENOMEM;
        memmove(jobs, jobs + front, c->n_jobs * sizeof(*jobs));
        c->jobs_mem = c->jobs = jobs;
        c->jobs_max = max;
        return 0;
}

/* The job's map inputs, "FILE:OFFSET:LENGTH" relative to the data
 * directory: Hadoop's FileInputFormat splits of its input files (a
 * directory stands for its files) at the configured block size, largest
 * first. Nothing but the files and the block size decides them, so a
 * restarted controller derives the same splits again; task records name maps
 * by their index among them. Every input is resolved beneath the data
 * directory (common/beneath.h), so that a symlink planted there cannot make
 * a file of the host a job's input. -ENOENT (err says which) when an input
 * cannot be read, -EXDEV when it leads out of the data directory. */
int cluster_job_splits(const Cluster *c, char *const *inputs, size_t n_inputs, char ***ret,
                       size_t *ret_n, StoreError *err) {
        _cleanup_(input_split_list_done) InputSplitList l = { 0 };
        _cleanup_close_ int data = -1;
        char **splits = NULL;
        int r = 0;

        data = open(c->data.data_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (data < 0)
                return cluster_fail(err, -ENOENT, "inputs", "Cannot open the data directory %s: %s",
                                    c->data.data_dir, strerror(errno));
        for (size_t i = 0; i < n_inputs && r >= 0; i++) {
                _cleanup_close_ int fd = open_beneath(data, inputs[i], O_PATH, 0);

                if (fd == -EXDEV)
                        r = cluster_fail(err, -EXDEV, "inputs",
                                         "inputs[%zu] '%s' leads out of the data directory %s "
                                         "(a symlink)",
                                         i, inputs[i], c->data.data_dir);
                else if (fd < 0)
                        r = cluster_fail(err, -ENOENT, "inputs", "inputs[%zu] '%s': %s in %s", i,
                                         inputs[i], strerror(-fd), c->data.data_dir);
        }
        if (r >= 0) {
                r = input_splits_compute(data, inputs, n_inputs, c->data.block_size, &l);
                if (r == -EXDEV)
                        r = cluster_fail(err, r, "inputs",
                                         "Cannot split the inputs: a file in them leads out of "
                                         "the data directory %s (a symlink)",
                                         c->data.data_dir);
                else if (r < 0 && r != -ENOMEM)
                        r = cluster_fail(err, r, "inputs", "Cannot split the inputs in %s: %s",
                                         c->data.data_dir, strerror(-r));
        }
        if (r >= 0)
                splits = calloc(l.n + 1, sizeof(char *));
        if (r >= 0 && !splits)
                r = -ENOMEM;
        for (size_t i = 0; i < l.n && r >= 0; i++)
                if (asprintf(&splits[i], "%s:%" PRIu64 ":%" PRIu64, l.splits[i].path,
                             l.splits[i].offset, l.splits[i].length) < 0)
                        r = -ENOMEM;
        if (r < 0) {
                strv_free(splits);
                return r;
        }
        *ret = splits;
        *ret_n = l.n;
        return 0;
}

int cluster_add_job(Cluster *c, uint64_t id, StoreError *err) {
        StoreJob info = { 0 };
        char **splits = NULL;
        size_t n_splits = 0;
        int r;

        r = store_job_get(c->store, id, &info, err);
        if (r >= 0)
                r = cluster_job_splits(c, info.inputs, info.n_inputs, &splits, &n_splits, err);
        if (r >= 0 && info.state == STORE_JOB_QUEUED) {
                r = store_job_start(c->store, id, (unsigned)n_splits, err);
                store_job_clear(&info);
                if (r >= 0)
                        r = store_job_get(c->store, id, &info, err);
        }
        if (r >= 0 && info.n_maps != n_splits)
                r = cluster_fail(err, -ESTALE, "inputs",
                                 "The inputs split into %zu maps, not the %u the job started with: "
                                 "its input files or the block size changed",
                                 n_splits, info.n_maps);
        /* The store's ids grow, and a restart resumes the jobs in their
         * order: the jobs stay in the order of their ids
         * (cluster_job_find()). */
        if (r >= 0 && c->n_jobs > 0 && c->jobs[c->n_jobs - 1].info.id >= id)
                r = cluster_fail(err, -EINVAL, "id",
                                 "Job %" PRIu64 " comes after job %" PRIu64
                                 ", whose id is not below it",
                                 id, c->jobs[c->n_jobs - 1].info.id);
        if (r >= 0)
                r = jobs_grow(c);
        if (r >= 0)
                r = cluster_attempt_index_reserve(c, (size_t)info.n_maps + info.n_reduces);
        if (r >= 0)
                r = job_load(c, &info, splits, &c->jobs[c->n_jobs], err);
        else
                strv_free(splits);
        store_job_clear(&info);
        if (r < 0) {
                /* jobs_grow() may have moved the jobs the snapshot points
                 * into. */
                cluster_snapshot_drop(c);
                return r;
        }
        c->n_jobs++;
        c->n_tasks += c->jobs[c->n_jobs - 1].n_tasks;
        cluster_snapshot_add_job(c);
        return 0;
}

/* A job whose splits cannot be made again (its inputs changed or went)
 * fails with the reason instead of stopping the controller: its finished
 * maps are of other splits. */
int cluster_resume_job(Cluster *c, uint64_t id, StoreError *err) {
        int r = cluster_add_job(c, id, err);

        if (r >= 0 || r == -ENOMEM || !err->field || strcmp(err->field, "inputs") != 0)
                return r;
        log_error("Job %" PRIu64 " cannot resume: %s", id, err->message);
        return store_job_finish(c->store, id, STORE_JOB_FAILED, err->message, err);
}

void cluster_job_remove(Cluster *c, ClusterJob *j) {
        size_t i = (size_t)(j - c->jobs);

        /* The attempt index points into its tasks. */
        for (size_t k = 0; k < j->n_tasks; k++)
                assert(j->tasks[k].n_attempts == 0);
        cluster_snapshot_remove_job(c, i);
        c->n_tasks -= j->n_tasks;
        cluster_job_done(j);
        if (i < c->n_jobs / 2) {
                memmove(&c->jobs[1], &c->jobs[0], i * sizeof(*c->jobs));
                c->jobs++;
        } else
                memmove(&c->jobs[i], &c->jobs[i + 1], (c->n_jobs - i - 1) * sizeof(*c->jobs));
        c->n_jobs--;
}

/* Tests (verify_snapshot): the counts kept as tasks change are what a pass
 * over the tasks finds. */
static bool job_counts_hold(const ClusterJob *j) {
        size_t done = 0, failed_out = 0;

        for (size_t i = 0; i < j->n_tasks; i++) {
                done += j->tasks[i].state == TASK_DONE;
                failed_out += j->tasks[i].failures >= CLUSTER_MAX_FAILURES;
        }
        return done == j->tasks_done && failed_out == j->tasks_failed_out;
}

/* Job j ends in the store, and leaves the model, when it failed or every
 * task is done: true then. A job the store will not end stays, to be
 * tried again. */
static bool job_settle(Cluster *c, ClusterJob *cj) {
        StoreJobState state = STORE_JOB_SUCCEEDED;
        const char *why = NULL;
        char msg[STORE_MESSAGE_MAX];
        StoreError err = { 0 };
        int r;

        assert(!c->verify_snapshot || job_counts_hold(cj));
        if (cj->tasks_failed_out == 0 && cj->tasks_done < cj->n_tasks)
                return false;
        for (size_t i = 0; cj->tasks_failed_out > 0 && i < cj->n_tasks; i++)
                if (cj->tasks[i].failures >= CLUSTER_MAX_FAILURES) {
                        snprintf(msg, sizeof(msg), "%s task %u failed %u times; the last: %s",
                                 cj->tasks[i].type == TASK_MAP ? "map" : "reduce",
                                 cj->tasks[i].index, cj->tasks[i].failures,
                                 cj->tasks[i].failure ? cj->tasks[i].failure : "?");
                        state = STORE_JOB_FAILED;
                        why = msg;
                }
        if (state == STORE_JOB_SUCCEEDED &&
            cluster_output_commit(&c->data, cj, msg, sizeof(msg)) < 0) {
                state = STORE_JOB_FAILED;
                why = msg;
        }
        r = store_job_finish(c->store, cj->info.id, state, why, &err);
        if (r < 0) {
                log_warning_errno(r, "Cannot end job %" PRIu64 ": %s", cj->info.id, err.message);
                c->unsettled = true;
                return false;
        }
        log_info("Job %" PRIu64 " %s%s%s", cj->info.id, store_job_state_to_string(state),
                 why ? ": " : "", why ? why : "");
        if (state == STORE_JOB_SUCCEEDED && cluster_profile_save(c->store, &cj->info, &err) < 0)
                log_warning("Job %" PRIu64 " leaves no profile: %s", cj->info.id, err.message);
        if (state == STORE_JOB_FAILED)
                for (size_t i = 0; i < cj->n_tasks; i++)
                        cluster_task_kill_attempts(c, &cj->tasks[i], KILL_JOB_FAILED);
        cluster_output_remove_maps(&c->data, cj);
        cluster_job_remove(c, cj);
        return true;
}

void cluster_jobs_settle(Cluster *c) {
        c->unsettled = false;
        for (size_t j = 0; j < c->n_jobs;)
                if (!job_settle(c, &c->jobs[j]))
                        j++;
}

void cluster_job_settle(Cluster *c, uint64_t id) {
        ClusterJob *cj = cluster_job_find(c, id);

        if (cj)
                (void)job_settle(c, cj);
}

/* An attempt of t failed: counted against CLUSTER_MAX_FAILURES, and its
 * reason kept for the job's message should the task fail it. A failed
 * backup counts too, as every failed attempt counts towards Hadoop 1's
 * mapred.map.max.attempts (TaskInProgress.incompleteSubTask()), and as
 * there the task runs on with its other attempt rather than pending again:
 * we follow it. */
void cluster_task_failed(ClusterTask *t, ClusterJob *j, const Tracker1Finished *x,
                         const ClusterNode *n) {
        const char *reason = x->reason[0] ? x->reason : "no reason given";

        j->tasks_failed_out += ++t->failures == CLUSTER_MAX_FAILURES;
        t->failed_on = n->id;
        log_info("Attempt %" PRIu64 " of job %" PRIu64 " (%s %u, failure %u of %u) on %s: %s",
                 x->attempt, j->info.id, t->type == TASK_MAP ? "map" : "reduce", t->index,
                 t->failures, CLUSTER_MAX_FAILURES, n->hostname, reason);
        free(t->failure);
        t->failure = strdup(reason);
        if (!t->failure)
                log_oom();
}

/* The first attempt of t to succeed wins; the other is killed, and its
 * report, whatever it says, is ignored (apply_report()). */
void cluster_task_succeeded(Cluster *c, ClusterJob *j, ClusterTask *t, const Tracker1Finished *x,
                            usec_t started, usec_t now) {
        char *output = strdup(x->output);

        /* Trackers do not tell when a reduce's shuffle ended. */
        job_profile_add_task(&j->run_profile, t->type, started, started, now, j->maps_finished);
        if (t->type == TASK_MAP && ++j->maps_done == j->info.n_maps)
                j->maps_finished = now;

        if (!output)
                /* Stored already: only a reduce's list of map outputs
                 * misses it until a restart. */
                log_oom();
        cluster_task_kill_attempts(c, t, KILL_SPECULATION);
        j->tasks_done += t->state != TASK_DONE;
        t->state = TASK_DONE;
        free(t->output);
        t->output = output;
}

int cluster_task_assignment(const ClusterJob *j, const ClusterTask *t, uint64_t attempt,
                            Tracker1Assignment *ret) {
        const char *command = j->info.app           ? j->info.app_arg
                              : t->type == TASK_MAP ? j->info.mapper
                                                    : j->info.reducer;
        const char **inputs;
        size_t n = 0;

        /* A map reads its split; a reduce, every map's output. */
        if (t->type == TASK_MAP)
                n = 1;
        else
                for (size_t i = 0; i < j->n_tasks; i++)
                        n += j->tasks[i].type == TASK_MAP && j->tasks[i].output;
        inputs = calloc(MAX(n, (size_t)1), sizeof(*inputs));
        if (!inputs)
                return -ENOMEM;
        if (t->type == TASK_MAP)
                inputs[0] = j->splits[t->index];
        else
                for (size_t i = 0, k = 0; i < j->n_tasks; i++)
                        if (j->tasks[i].type == TASK_MAP && j->tasks[i].output)
                                inputs[k++] = j->tasks[i].output;
        *ret = (Tracker1Assignment){
                .attempt = attempt,
                .job = j->info.id,
                .type = t->type == TASK_MAP ? TRACKER1_MAP : TRACKER1_REDUCE,
                .index = t->index,
                .partitions = j->info.n_reduces,
                .app = j->info.app ? j->info.app : "",
                .command = command ? command : "",
                .inputs = inputs,
                .n_inputs = n,
        };
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* flexslot-tracker's attempts as flexslot-task children (tracker-tasks.h).
 *
 * Map outputs go into the data directory, next to the input: the data
 * directory is already the storage every tracker and the controller share
 * (NFS, virtiofs or 9p), so a reduce reads its partitions from there, and a
 * map output outlives the tracker that wrote it (a lost tracker costs no
 * finished map). Hadoop's shuffle served from the map's tracker is not
 * built. */
#include "tracker-tasks.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/strv.h"
#include "mapred/output.h"
#include "mapred/split.h"
#include "tracker/child.h"
#include "tracker/mapout.h"
#include "tracker/procstat.h"
#include "tracker/sortbuf.h"
#include "tracker/status.h"

/* An attempt this tracker runs. registration is the tracker id it was
 * assigned under: after a re-registration the controller may not take
 * reports of it any more. */
struct TrackerTask {
        uint64_t attempt, registration;
        bool map;
        bool map_slot; /* the slot it holds; a map may hold a lent reduce slot */
        char *output;  /* relative to the data directory */
        TaskChild *child;
        TaskStatus *status;
        sd_event_source *exit_source;
        /* Killed on the controller's word: SIGTERM sent, SIGKILL when the
         * timer fires; the loop goes on meanwhile. */
        bool killing;
        char *kill_cause; /* NULL: none given */
        sd_event_source *kill_timer;
        TrackerTasks *owner;
};

/* A finished attempt, kept until a heartbeat reply acknowledges it; the
 * report's strings are output and reason. */
struct TrackerFinished {
        Tracker1Finished report;
        uint64_t registration;
        char *output, *reason;
        usec_t ended; /* monotonic: the report's since_end is counted from it */
};

static void finished_clear(TrackerFinished *f) {
        free(f->output);
        free(f->reason);
}

static TrackerTask *task_free(TrackerTask *t) {
        if (!t)
                return NULL;
        sd_event_source_disable_unref(t->exit_source);
        sd_event_source_disable_unref(t->kill_timer);
        free(t->kill_cause);
        task_child_free(t->child);
        if (t->status)
                task_status_unmap(t->status);
        free(t->output);
        free(t);
        return NULL;
}

static TrackerTask *task_find(TrackerTasks *k, uint64_t attempt) {
        for (size_t i = 0; i < k->n_tasks; i++)
                if (k->tasks[i]->attempt == attempt)
                        return k->tasks[i];
        return NULL;
}

static void task_forget(TrackerTasks *k, TrackerTask *t) {
        for (size_t i = 0; i < k->n_tasks; i++)
                if (k->tasks[i] == t) {
                        k->tasks[i] = k->tasks[--k->n_tasks];
                        break;
                }
        task_free(t);
}

void tracker_tasks_init(TrackerTasks *t, const TrackerConfig *config, sd_event *event) {
        *t = (TrackerTasks){ .config = config, .event = event };
}

void tracker_tasks_done(TrackerTasks *t) {
        for (size_t i = 0; i < t->n_tasks; i++)
                task_free(t->tasks[i]);
        free(t->tasks);
        for (size_t i = 0; i < t->n_finished; i++)
                finished_clear(&t->finished[i]);
        free(t->finished);
        t->tasks = NULL;
        t->finished = NULL;
        t->n_tasks = t->n_finished = 0;
}

unsigned tracker_tasks_held(const TrackerTasks *t, Tracker1TaskType slot) {
        unsigned n = 0;

        for (size_t i = 0; i < t->n_tasks; i++)
                n += t->tasks[i]->map_slot == (slot == TRACKER1_MAP);
        return n;
}

/* Moves a task that ended into the reports; out says how it ended, cause
 * (NULL: none) why the controller killed it. */
static int task_finish(TrackerTasks *k, TrackerTask *t, const TaskOutcome *out, const char *cause) {
        TaskStatus snap = { 0 };
        TrackerFinished f = { .registration = t->registration, .ended = now_monotonic_usec() };
        TrackerFinished *list;
        char what[TASK_OUTCOME_TEXT_MAX];

        if (t->status)
                task_status_read(t->status, &snap);
        task_outcome_describe(out, what, sizeof(what));
        f.output = strdup(out->end == TASK_END_SUCCEEDED ? t->output : "");
        if (out->end == TASK_END_SUCCEEDED || !cause)
                f.reason = strdup(out->end == TASK_END_SUCCEEDED ? "" : what);
        else if (asprintf(&f.reason, "%s (%s)", cause, what) < 0)
                f.reason = NULL;
        f.report = (Tracker1Finished){
                .attempt = t->attempt,
                .status = out->end == TASK_END_SUCCEEDED ? TRACKER1_SUCCEEDED
                          : out->end == TASK_END_KILLED  ? TRACKER1_KILLED
                                                         : TRACKER1_FAILED,
                .input_bytes = snap.bytes_read,
                .output_bytes = snap.bytes_written,
                .output = f.output,
                .reason = f.reason,
                /* The task's own run, from its fork to its reaping; 0 says
                 * "not told". */
                .run_time = out->wall > 0 ? out->wall : 1,
                .usage = true,
                .cpu_time = out->cpu,
                .blkio_delay = out->blkio_delay,
        };
        list = reallocarray(k->finished, k->n_finished + 1, sizeof(*list));
        if (!f.output || !f.reason || !list) {
                if (list)
                        k->finished = list;
                finished_clear(&f);
                return log_oom();
        }
        k->finished = list;
        k->finished[k->n_finished++] = f;
        log_info("Attempt %" PRIu64 " %s", t->attempt, what);
        task_forget(k, t);
        return 0;
}

/* What a killed attempt wrote, finished or not: no one reads it. */
static void task_remove_output(const TrackerTasks *k, const TrackerTask *t) {
        _cleanup_free_ char *path = NULL, *tmp = NULL;
        char tag[24]; /* a uint64_t in decimal */

        snprintf(tag, sizeof(tag), "%" PRIu64, t->attempt);
        if (asprintf(&path, "%s/%s", k->config->data_dir, t->output) < 0) {
                path = NULL;
                log_oom();
                return;
        }
        if (atomic_file_tmp_name(path, tag, &tmp) < 0) {
                tmp = NULL;
                log_oom();
                return;
        }
        if (unlink(path) < 0 && errno != ENOENT)
                log_warning_errno(-errno, "Cannot remove %s", path);
        if (unlink(tmp) < 0 && errno != ENOENT)
                log_warning_errno(-errno, "Cannot remove %s", tmp);
}

static int on_task_exit(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        TrackerTask *t = userdata;
        TaskOutcome out;
        int r;

        r = task_child_wait(t->child, 0, &out);
        if (r == -ETIMEDOUT)
                return 0;
        if (r < 0)
                return log_error_errno(r, "Cannot reap attempt %" PRIu64, t->attempt);
        if (t->killing)
                task_remove_output(t->owner, t);
        return task_finish(t->owner, t, &out, t->kill_cause);
}

/* An assignment's map input, a split FILE:OFFSET:LENGTH with FILE relative
 * to the data directory, as an argument for flexslot-task. */
static int map_split_arg(const TrackerTasks *k, const char *input, char **ret) {
        InputSplit split = { 0 };
        int r;

        r = input_split_parse(input, &split);
        if (r < 0)
                return r;
        if (strstr(split.path, "..") || split.path[0] == '/')
                r = -EINVAL;
        else if (asprintf(ret, "%s/%s:%" PRIu64 ":%" PRIu64, k->config->data_dir, split.path,
                          split.offset, split.length) < 0)
                r = -ENOMEM;
        input_split_done(&split);
        return r;
}

#define ARGV_FIXED 13

static int task_argv(const TrackerTasks *k, const Tracker1Assignment *a, const char *out,
                     int status_fd, char ***ret) {
        bool map = a->type == TRACKER1_MAP;
        size_t n = ARGV_FIXED + (map ? 1 : a->n_inputs), i = 0;
        char **argv = calloc(n + 1, sizeof(char *));
        int r = 0;

        if (!argv)
                return -ENOMEM;
        argv[i++] = strdup(k->config->task_program);
        if (a->app[0]) {
                r |= asprintf(&argv[i++], "--app=%s", a->app) < 0;
                if (a->command[0])
                        r |= asprintf(&argv[i++], "--app-arg=%s", a->command) < 0;
        } else if (map)
                r |= asprintf(&argv[i++], "--mapper=%s", a->command) < 0;
        else /* Hadoop's identity reduce, over key<TAB>value lines */
                r |= asprintf(&argv[i++], "--reducer=%s", a->command[0] ? a->command : "cat") < 0;
        r |= asprintf(&argv[i++], "--attempt=%" PRIu64, a->attempt) < 0;
        r |= asprintf(&argv[i++], "--work=%s", k->config->work_dir) < 0;
        r |= asprintf(&argv[i++], "--status-fd=%d", status_fd) < 0;
        argv[i++] = strdup("--quiet");
        /* The task resolves every path beneath it: nothing planted in the
         * shared directory leads it out. */
        r |= asprintf(&argv[i++], "--data-dir=%s", k->config->data_dir) < 0;
        r |= asprintf(&argv[i++], "--out=%s/%s", k->config->data_dir, out) < 0;
        if (map) {
                argv[i++] = strdup("map");
                r |= asprintf(&argv[i++], "--reduces=%u", a->partitions) < 0;
                r |= asprintf(&argv[i++], "--sort-buffer=%" PRIu64,
                              sort_buffer_for_slot(a->slot_memory)) < 0;
                if (r == 0 && a->n_inputs == 1) {
                        _cleanup_free_ char *split = NULL;

                        r = map_split_arg(k, a->inputs[0], &split);
                        if (r >= 0 && asprintf(&argv[i++], "--split=%s", split) < 0)
                                r = -ENOMEM;
                } else if (r == 0)
                        r = -EINVAL;
        } else {
                argv[i++] = strdup("reduce");
                r |= asprintf(&argv[i++], "--partition=%u", a->index) < 0;
                for (size_t j = 0; j < a->n_inputs && r == 0; j++)
                        if (strstr(a->inputs[j], "..") || a->inputs[j][0] == '/')
                                r = -EINVAL;
                        else if (asprintf(&argv[i++], "%s/%s", k->config->data_dir, a->inputs[j]) <
                                 0)
                                r = -ENOMEM;
        }
        for (size_t j = 0; j < i && r == 0; j++)
                if (!argv[j])
                        r = -ENOMEM;
        if (r != 0) {
                strv_free(argv);
                return r < 0 ? r : -ENOMEM;
        }
        *ret = argv;
        return 0;
}

/* Creates DATA/out/JOB, where the job's outputs go, for the task user. */
static int make_output_dir(const TrackerTasks *k, uint64_t job) {
        char name[24]; /* a uint64_t in decimal */

        snprintf(name, sizeof(name), "%" PRIu64, job);
        return task_user_make_output_dir(&k->task_user, k->config->data_dir, name);
}

int tracker_tasks_start(TrackerTasks *k, const Tracker1Assignment *a, uint64_t registration) {
        const char *type = tracker1_task_type_to_string(a->type),
                   *slot = tracker1_task_type_to_string(a->slot);
        _cleanup_close_ int status_fd = -1;
        char **argv = NULL;
        char name[32];
        TrackerTask **tasks, *t;
        int r;

        tasks = reallocarray(k->tasks, k->n_tasks + 1, sizeof(TrackerTask *));
        if (!tasks)
                return log_oom();
        k->tasks = tasks;
        t = calloc(1, sizeof(TrackerTask));
        if (!t)
                return log_oom();
        *t = (TrackerTask){ .attempt = a->attempt,
                            .registration = registration,
                            .map = a->type == TRACKER1_MAP,
                            .map_slot = a->slot == TRACKER1_MAP,
                            .owner = k };
        k->tasks[k->n_tasks++] = t;

        /* Each attempt's own name, so that a task's two attempts never
         * write one file; the controller renames the winning reduce's to
         * part-NNNNN when the job succeeds (mapred/output.h). */
        r = attempt_output_format(
                &(AttemptOutput){
                        .job = a->job, .map = t->map, .index = a->index, .attempt = a->attempt },
                &t->output);
        if (r >= 0)
                r = make_output_dir(k, a->job);
        if (r >= 0)
                r = task_status_create(&status_fd, &t->status);
        if (r >= 0)
                r = task_argv(k, a, t->output, status_fd, &argv);
        if (r >= 0) {
                TaskChildSpec spec = { .argv = argv,
                                       .name = name,
                                       .memory_limit = a->slot_memory,
                                       .memory_mode = TASK_MEMORY_AUTO,
                                       .inherit_fd = status_fd,
                                       .user = &k->task_user,
                                       .stderr_dir = k->config->work_dir };

                snprintf(name, sizeof(name), "attempt-%" PRIu64, a->attempt);
                r = task_child_spawn(&spec, &t->child);
        }
        strv_free(argv);
        if (r >= 0)
                r = sd_event_add_io(k->event, &t->exit_source, task_child_fd(t->child), EPOLLIN,
                                    on_task_exit, t);
        if (r < 0) {
                TaskOutcome fail = { .end = TASK_END_FAILED, .exit_status = 127 };

                log_error_errno(r, "Cannot start attempt %" PRIu64 " (%s %u of job %" PRIu64 ")",
                                a->attempt, type, a->index, a->job);
                return task_finish(k, t, &fail, NULL);
        }
        log_info("Attempt %" PRIu64 ": %s %u of job %" PRIu64 " (%s), process %d", a->attempt, type,
                 a->index, a->job, a->app[0] ? a->app : "streaming", (int)task_child_pid(t->child));
        if (t->map_slot != t->map)
                log_info("Attempt %" PRIu64 " holds a lent %s slot", a->attempt, slot);
        return 0;
}

static int on_kill_grace(sd_event_source *s, uint64_t usec, void *userdata) {
        TrackerTask *t = userdata;

        log_info("Attempt %" PRIu64 " outlived its kill grace: SIGKILL", t->attempt);
        task_child_kill_now(t->child);
        return 0;
}

void tracker_tasks_kill(TrackerTasks *k, uint64_t attempt, const char *cause) {
        TrackerTask *t = task_find(k, attempt);
        int r;

        /* The controller asks again for an attempt it no longer knows. */
        if (!t || t->killing)
                return;
        t->killing = true;
        if (cause && !(t->kill_cause = strdup(cause)))
                log_oom();
        task_child_terminate(t->child);
        r = sd_event_add_time_relative(k->event, &t->kill_timer, CLOCK_MONOTONIC,
                                       k->config->kill_grace, 0, on_kill_grace, t);
        if (r < 0) {
                log_warning_errno(r, "Cannot time attempt %" PRIu64 "'s kill grace: SIGKILL now",
                                  attempt);
                task_child_kill_now(t->child);
        }
}

int tracker_tasks_report(const TrackerTasks *k, Tracker1Report *report) {
        Tracker1Running *running = NULL;
        Tracker1Finished *finished = NULL;
        usec_t now = now_monotonic_usec();

        if (k->n_tasks > 0 && !(running = calloc(k->n_tasks, sizeof(*running))))
                return -ENOMEM;
        if (k->n_finished > 0 && !(finished = calloc(k->n_finished, sizeof(*finished)))) {
                free(running);
                return -ENOMEM;
        }
        for (size_t i = 0; i < k->n_tasks; i++) {
                const TrackerTask *t = k->tasks[i];
                TaskStatus snap;
                ProcStat ps = { 0 };

                task_status_read(t->status, &snap);
                (void)proc_stat_read(task_child_pid(t->child), &ps);
                running[i] = (Tracker1Running){
                        .attempt = t->attempt,
                        .progress = task_status_progress(&snap),
                        .bytes_processed = snap.bytes_read,
                        .input_size = t->map ? snap.input_total : snap.copy_total,
                        .cpu_time = proc_stat_cpu(&ps),
                        .iowait_time = ps.blkio_delay,
                };
        }
        for (size_t i = 0; i < k->n_finished; i++) {
                finished[i] = k->finished[i].report;
                finished[i].since_end = now - k->finished[i].ended;
        }
        report->running = running;
        report->n_running = k->n_tasks;
        report->finished = finished;
        report->n_finished = k->n_finished;
        return 0;
}

void tracker_tasks_acknowledge(TrackerTasks *k, size_t n) {
        n = MIN(n, k->n_finished);
        if (n == 0)
                return;
        for (size_t i = 0; i < n; i++)
                finished_clear(&k->finished[i]);
        memmove(k->finished, k->finished + n, (k->n_finished - n) * sizeof(TrackerFinished));
        k->n_finished -= n;
}

void tracker_tasks_forget_others(TrackerTasks *k, uint64_t registration) {
        for (size_t i = k->n_tasks; i > 0; i--)
                if (k->tasks[i - 1]->registration != registration)
                        task_forget(k, k->tasks[i - 1]);
        for (size_t i = k->n_finished; i > 0; i--)
                if (k->finished[i - 1].registration != registration) {
                        finished_clear(&k->finished[i - 1]);
                        memmove(&k->finished[i - 1], &k->finished[i],
                                (k->n_finished - i) * sizeof(TrackerFinished));
                        k->n_finished--;
                }
}

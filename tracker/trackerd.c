/* SPDX-License-Identifier: MIT */
/* flexslot-tracker: the task tracker of one VM. It registers with the
 * controller's endpoint (tracker-protocol.h), heartbeats at the interval
 * the controller gives, runs each assigned task as a flexslot-task child
 * process and reports it when it ends. It outlives the controller: tasks
 * keep running while it reconnects, and what finished meanwhile is
 * reported once a controller answers again.
 *
 * Map outputs go into the data directory, next to the input: the data
 * directory is already the storage every tracker and the controller share
 * (NFS, virtiofs or 9p), so a reduce reads its partitions from there, and a
 * map output outlives the tracker that wrote it (a lost tracker costs no
 * finished map). Hadoop's shuffle served from the map's tracker is not
 * built. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "common/cli.h"
#include "common/config.h"
#include "common/daemon-util.h"
#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/version.h"
#include "controller/daemon/bus-errors.h"
#include "controller/daemon/tracker-protocol.h"
#include "tracker/child.h"
#include "tracker/mapout.h"
#include "tracker/procstat.h"
#include "tracker/sortbuf.h"
#include "mapred/split.h"
#include "tracker/status.h"

#define PROGRAM "flexslot-tracker"
#define DEFAULT_CONFIG_FILE "/etc/flexslot/tracker.ini"
#define PRODUCT_UUID_FILE "/sys/class/dmi/id/product_uuid"
#define TEXT_MAX 255
/* The first reconnect waits this long, each next one twice as long, up to
 * [tracker] reconnect-max. */
#define RECONNECT_MIN (100 * USEC_PER_MSEC)

typedef struct TrackerConfig {
        char *controller, *token_file, *data_dir, *work_dir, *task_program;
        char *vm_uuid, *hostname;
        int64_t map_slots, reduce_slots;
        uint64_t slot_memory;
        usec_t call_timeout, reconnect_max, kill_grace;
        int log_level;
} TrackerConfig;

static const char *const log_level_choices[] = {
        "err", "warning", "notice", "info", "debug", NULL
};
static const int log_levels[] = { LOG_LEVEL_ERR, LOG_LEVEL_WARNING, LOG_LEVEL_NOTICE,
                                  LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

#define F(member) CONF_FIELD(TrackerConfig, member)

static const ConfKey tracker_keys[] = {
        { "tracker", "controller", CONF_STRING, F(controller), "tcp:host=127.0.0.1,port=7411" },
        { "tracker", "token-file", CONF_STRING, F(token_file), "/etc/flexslot/cluster-token" },
        { "tracker", "data-dir", CONF_STRING, F(data_dir), "/srv/flexslot" },
        { "tracker", "work-dir", CONF_STRING, F(work_dir), "/var/tmp" },
        { "tracker", "task-program", CONF_STRING, F(task_program), "flexslot-task" },
        { "tracker", "vm-uuid", CONF_STRING, F(vm_uuid), NULL },
        { "tracker", "hostname", CONF_STRING, F(hostname), NULL },
        { "tracker", "log-level", CONF_ENUM, F(log_level), "info", .choices = log_level_choices },
        { "slots", "map-slots", CONF_INT, F(map_slots), "2", .min = 0, .max = TRACKER_SLOTS_MAX },
        { "slots", "reduce-slots", CONF_INT, F(reduce_slots), "1", .min = 0,
          .max = TRACKER_SLOTS_MAX },
        { "slots", "slot-memory", CONF_SIZE, F(slot_memory), "200M",
          .min = (int64_t)TRACKER_SLOT_MEMORY_MIN, .max = (int64_t)TRACKER_SLOT_MEMORY_MAX },
        { "connection", "call-timeout", CONF_DURATION, F(call_timeout), "10s",
          .min = 10 * USEC_PER_MSEC, .max = USEC_PER_MINUTE },
        { "connection", "reconnect-max", CONF_DURATION, F(reconnect_max), "30s",
          .min = RECONNECT_MIN, .max = USEC_PER_HOUR },
        { "tasks", "kill-grace", CONF_DURATION, F(kill_grace), "1s", .min = 0,
          .max = USEC_PER_MINUTE },
};

static bool text_ok(const char *s) {
        size_t n = s ? strlen(s) : 0;

        return n > 0 && n <= TEXT_MAX;
}

static int tracker_config_validate(const void *config, ConfError *err) {
        const TrackerConfig *c = config;
        static const struct {
                const char *key;
                size_t offset;
        } absolute[] = { { "data-dir", F(data_dir) }, { "work-dir", F(work_dir) } };

        if (!c->controller || (strncmp(c->controller, "tcp:host=", 9) != 0 &&
                               strncmp(c->controller, "unix:path=", 10) != 0))
                return conf_error_set(err, "tracker", "controller",
                                      "'%s' is neither tcp:host=H,port=P nor unix:path=P",
                                      c->controller ? c->controller : "");
        if (!c->token_file || !c->token_file[0])
                return conf_error_set(err, "tracker", "token-file", "must not be empty");
        for (size_t i = 0; i < ELEMENTSOF(absolute); i++) {
                const char *dir = *(char *const *)((const char *)c + absolute[i].offset);

                if (!dir || dir[0] != '/')
                        return conf_error_set(err, "tracker", absolute[i].key,
                                              "'%s' is not an absolute path", dir ? dir : "");
        }
        if (!c->task_program || !c->task_program[0])
                return conf_error_set(err, "tracker", "task-program", "must not be empty");
        if (c->vm_uuid && !text_ok(c->vm_uuid))
                return conf_error_set(err, "tracker", "vm-uuid", "must be 1..%d bytes", TEXT_MAX);
        if (c->hostname && !text_ok(c->hostname))
                return conf_error_set(err, "tracker", "hostname", "must be 1..%d bytes", TEXT_MAX);
        return 0;
}

#undef F

static const ConfSchema tracker_config_schema = {
        .keys = tracker_keys,
        .n_keys = ELEMENTSOF(tracker_keys),
        .size = sizeof(TrackerConfig),
        .validate = tracker_config_validate,
};

/* An attempt this tracker runs. registration is the tracker id it was
 * assigned under: after a re-registration the controller may not take
 * reports of it any more. */
typedef struct Task {
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
        struct Tracker *tracker;
} Task;

/* A finished attempt, kept until a heartbeat reply acknowledges it. */
typedef struct Finished {
        uint64_t attempt, registration;
        const char *status;
        uint64_t input_bytes, output_bytes;
        char *output, *reason;
} Finished;

typedef struct Tracker {
        TrackerConfig config;
        char *token;
        size_t token_len;
        char vm_uuid[TEXT_MAX + 1], hostname[TEXT_MAX + 1];
        sd_event *event;
        sd_bus *bus; /* NULL while disconnected */
        uint64_t id; /* 0 while not registered */
        usec_t interval, backoff;
        unsigned slots[2]; /* map, reduce */
        uint64_t slot_memory;
        sd_event_source *timer;
        Task **tasks;
        size_t n_tasks;
        Finished *finished;
        size_t n_finished;
        CpuTimes cpu_before;
        bool have_cpu;
} Tracker;

static void finished_clear(Finished *f) {
        free(f->output);
        free(f->reason);
}

static Task *task_free(Task *t) {
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

static Task *task_find(Tracker *k, uint64_t attempt) {
        for (size_t i = 0; i < k->n_tasks; i++)
                if (k->tasks[i]->attempt == attempt)
                        return k->tasks[i];
        return NULL;
}

static void task_forget(Tracker *k, Task *t) {
        for (size_t i = 0; i < k->n_tasks; i++)
                if (k->tasks[i] == t) {
                        k->tasks[i] = k->tasks[--k->n_tasks];
                        break;
                }
        task_free(t);
}

/* Slots are counted by the slot a task holds, not by its type. */
static unsigned slots_held(const Tracker *k, bool map_slot) {
        unsigned n = 0;

        for (size_t i = 0; i < k->n_tasks; i++)
                n += k->tasks[i]->map_slot == map_slot;
        return n;
}

/* Moves a task that ended into the reports; out says how it ended, cause
 * (NULL: none) why the controller killed it. */
static int task_finish(Tracker *k, Task *t, const TaskOutcome *out, const char *cause) {
        TaskStatus snap = { 0 };
        Finished f = { .attempt = t->attempt, .registration = t->registration };
        Finished *list;
        char what[160];

        if (t->status)
                task_status_read(t->status, &snap);
        task_outcome_describe(out, what, sizeof(what));
        f.status = out->end == TASK_END_SUCCEEDED ? "succeeded"
                   : out->end == TASK_END_KILLED  ? "killed"
                                                  : "failed";
        f.input_bytes = snap.bytes_read;
        f.output_bytes = snap.bytes_written;
        f.output = strdup(out->end == TASK_END_SUCCEEDED ? t->output : "");
        if (out->end == TASK_END_SUCCEEDED || !cause)
                f.reason = strdup(out->end == TASK_END_SUCCEEDED ? "" : what);
        else if (asprintf(&f.reason, "%s (%s)", cause, what) < 0)
                f.reason = NULL;
        list = realloc(k->finished, (k->n_finished + 1) * sizeof(*list));
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
static void task_remove_output(const Tracker *k, const Task *t) {
        _cleanup_free_ char *path = NULL, *tmp = NULL;
        char tag[24]; /* a uint64_t in decimal */

        snprintf(tag, sizeof(tag), "%" PRIu64, t->attempt);
        if (asprintf(&path, "%s/%s", k->config.data_dir, t->output) < 0) {
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
        Task *t = userdata;
        TaskOutcome out;
        int r;

        r = task_child_wait(t->child, 0, &out);
        if (r == -ETIMEDOUT)
                return 0;
        if (r < 0)
                return log_error_errno(r, "Cannot reap attempt %" PRIu64, t->attempt);
        if (t->killing)
                task_remove_output(t->tracker, t);
        return task_finish(t->tracker, t, &out, t->kill_cause);
}

/* An assignment's map input, a split FILE:OFFSET:LENGTH with FILE relative
 * to the data directory, as an argument for flexslot-task. */
static int map_split_arg(const Tracker *k, const char *input, char **ret) {
        InputSplit split = { 0 };
        int r;

        r = input_split_parse(input, &split);
        if (r < 0)
                return r;
        if (strstr(split.path, "..") || split.path[0] == '/')
                r = -EINVAL;
        else if (asprintf(ret, "%s/%s:%" PRIu64 ":%" PRIu64, k->config.data_dir, split.path,
                          split.offset, split.length) < 0)
                r = -ENOMEM;
        input_split_done(&split);
        return r;
}

/* What an assignment says, as read from the reply. */
typedef struct Assignment {
        uint64_t attempt, job, slot_memory;
        const char *type, *app, *command, *slot;
        unsigned index, partitions;
        const char **inputs;
        size_t n_inputs;
} Assignment;

#define ARGV_FIXED 12

static int task_argv(const Tracker *k, const Assignment *a, const char *out, int status_fd,
                     char ***ret) {
        bool map = strcmp(a->type, "map") == 0;
        size_t n = ARGV_FIXED + (map ? 1 : a->n_inputs), i = 0;
        char **argv = calloc(n + 1, sizeof(char *));
        int r = 0;

        if (!argv)
                return -ENOMEM;
        argv[i++] = strdup(k->config.task_program);
        if (a->app[0]) {
                r |= asprintf(&argv[i++], "--app=%s", a->app) < 0;
                if (a->command[0])
                        r |= asprintf(&argv[i++], "--app-arg=%s", a->command) < 0;
        } else if (map)
                r |= asprintf(&argv[i++], "--mapper=%s", a->command) < 0;
        else /* Hadoop's identity reduce, over key<TAB>value lines */
                r |= asprintf(&argv[i++], "--reducer=%s", a->command[0] ? a->command : "cat") < 0;
        r |= asprintf(&argv[i++], "--attempt=%" PRIu64, a->attempt) < 0;
        r |= asprintf(&argv[i++], "--work=%s", k->config.work_dir) < 0;
        r |= asprintf(&argv[i++], "--status-fd=%d", status_fd) < 0;
        argv[i++] = strdup("--quiet");
        r |= asprintf(&argv[i++], "--out=%s/%s", k->config.data_dir, out) < 0;
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
                        else if (asprintf(&argv[i++], "%s/%s", k->config.data_dir, a->inputs[j]) <
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

/* Creates DATA/out/JOB, where the job's outputs go. */
static int make_output_dir(const Tracker *k, uint64_t job) {
        _cleanup_free_ char *out = NULL, *dir = NULL;

        if (asprintf(&out, "%s/out", k->config.data_dir) < 0 ||
            asprintf(&dir, "%s/%" PRIu64, out, job) < 0)
                return -ENOMEM;
        if (mkdir(out, 0755) < 0 && errno != EEXIST)
                return -errno;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

/* Starts an assignment; one that cannot start is reported failed with why
 * at the next heartbeat, as Hadoop reports a task that failed to launch. */
static int task_start(Tracker *k, const Assignment *a) {
        _cleanup_close_ int status_fd = -1;
        char **argv = NULL;
        char name[32];
        Task **tasks, *t;
        bool slot_known;
        int r;

        tasks = realloc(k->tasks, (k->n_tasks + 1) * sizeof(Task *));
        if (!tasks)
                return log_oom();
        k->tasks = tasks;
        t = calloc(1, sizeof(Task));
        if (!t)
                return log_oom();
        *t = (Task){ .attempt = a->attempt,
                     .registration = k->id,
                     .map = strcmp(a->type, "map") == 0,
                     .tracker = k };
        k->tasks[k->n_tasks++] = t;
        /* A slot of no known type fails the attempt as one that could not
         * launch; until that is reported it holds a slot of its own type. */
        slot_known = strcmp(a->slot, "map") == 0 || strcmp(a->slot, "reduce") == 0;
        t->map_slot = slot_known ? strcmp(a->slot, "map") == 0 : t->map;
        r = slot_known
                    ? 0
                    : log_error_errno(-EINVAL, "Slot type '%s' is neither map nor reduce", a->slot);

        /* Each attempt's own name, so that a task's two attempts never
         * write one file; the controller renames the winning reduce's to
         * part-NNNNN when the job succeeds (tracker-protocol.h). */
        if (r >= 0)
                r = asprintf(&t->output, "out/%" PRIu64 "/%s-%05u.%" PRIu64, a->job,
                             t->map ? "map" : "part", a->index, a->attempt) < 0
                            ? -ENOMEM
                            : 0;
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
                                       .inherit_fd = status_fd };

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
                                a->attempt, a->type, a->index, a->job);
                return task_finish(k, t, &fail, NULL);
        }
        log_info("Attempt %" PRIu64 ": %s %u of job %" PRIu64 " (%s), process %d", a->attempt,
                 a->type, a->index, a->job, a->app[0] ? a->app : "streaming",
                 (int)task_child_pid(t->child));
        if (t->map_slot != t->map)
                log_info("Attempt %" PRIu64 " holds a lent %s slot", a->attempt, a->slot);
        return 0;
}

static int on_kill_grace(sd_event_source *s, uint64_t usec, void *userdata) {
        Task *t = userdata;

        log_info("Attempt %" PRIu64 " outlived its kill grace: SIGKILL", t->attempt);
        task_child_kill_now(t->child);
        return 0;
}

/* SIGTERM now, SIGKILL after kill-grace; the attempt is reported when it
 * is reaped (on_task_exit), so heartbeats go on meanwhile. */
static void task_kill(Tracker *k, uint64_t attempt, const char *cause) {
        Task *t = task_find(k, attempt);
        int r;

        /* The controller asks again for an attempt it no longer knows. */
        if (!t || t->killing)
                return;
        t->killing = true;
        if (cause && !(t->kill_cause = strdup(cause)))
                log_oom();
        task_child_terminate(t->child);
        r = sd_event_add_time_relative(k->event, &t->kill_timer, CLOCK_MONOTONIC,
                                       k->config.kill_grace, 0, on_kill_grace, t);
        if (r < 0) {
                log_warning_errno(r, "Cannot time attempt %" PRIu64 "'s kill grace: SIGKILL now",
                                  attempt);
                task_child_kill_now(t->child);
        }
}

static int append_report(Tracker *k, sd_bus_message *m, size_t *ret_sent) {
        CpuTimes now = { 0 };
        double steal = 0, iowait = 0;
        unsigned running[2] = { slots_held(k, true), slots_held(k, false) };
        size_t sent = 0;
        int r;

        if (proc_cpu_times_read(&now) >= 0) {
                if (k->have_cpu)
                        cpu_times_shares(&k->cpu_before, &now, &steal, &iowait);
                k->cpu_before = now;
                k->have_cpu = true;
        }
        r = sd_bus_message_append(m, "t" TRACKER_NODE_TYPE, k->id,
                                  k->slots[0] > running[0] ? k->slots[0] - running[0] : 0,
                                  k->slots[1] > running[1] ? k->slots[1] - running[1] : 0, steal,
                                  iowait);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', TRACKER_RUNNING_TYPE);
        for (size_t i = 0; i < k->n_tasks && r >= 0; i++) {
                const Task *t = k->tasks[i];
                TaskStatus snap;
                ProcStat ps = { 0 };

                task_status_read(t->status, &snap);
                (void)proc_stat_read(task_child_pid(t->child), &ps);
                r = sd_bus_message_append(m, TRACKER_RUNNING_TYPE, t->attempt,
                                          task_status_progress(&snap), snap.bytes_read,
                                          t->map ? snap.input_total : snap.copy_total,
                                          (uint64_t)proc_stat_cpu(&ps), (uint64_t)ps.blkio_delay);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', TRACKER_FINISHED_TYPE);
        for (; sent < k->n_finished && r >= 0; sent++) {
                const Finished *f = &k->finished[sent];

                r = sd_bus_message_append(m, TRACKER_FINISHED_TYPE, f->attempt, f->status,
                                          f->input_bytes, f->output_bytes, f->output, f->reason);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                *ret_sent = sent;
        return r;
}

static int read_assignment(Tracker *k, sd_bus_message *reply) {
        _cleanup_free_ const char **inputs = NULL;
        Assignment a = { 0 };
        const char *input;
        int r;

        r = sd_bus_message_read(reply, "ttsuuss", &a.attempt, &a.job, &a.type, &a.index,
                                &a.partitions, &a.app, &a.command);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "s");
        while (r >= 0 && (r = sd_bus_message_read(reply, "s", &input)) > 0) {
                const char **more = realloc(inputs, (a.n_inputs + 1) * sizeof(*inputs));

                if (!more)
                        return log_oom();
                inputs = more;
                inputs[a.n_inputs++] = input;
        }
        a.inputs = inputs;
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r >= 0)
                r = sd_bus_message_read(reply, "ts", &a.slot_memory, &a.slot);
        if (r < 0)
                return r;
        return task_start(k, &a);
}

static int read_reply(Tracker *k, sd_bus_message *reply) {
        uint32_t map_slots = 0, reduce_slots = 0;
        uint64_t memory = 0;
        const uint64_t *kills = NULL;
        size_t n_kills = 0, n_causes = 0;
        char **causes = NULL;
        int r;

        r = sd_bus_message_enter_container(reply, 'a', TRACKER_ASSIGNMENT_TYPE);
        while (r >= 0 &&
               (r = sd_bus_message_enter_container(reply, 'r', TRACKER_ASSIGNMENT_FIELDS)) > 0) {
                r = read_assignment(k, reply);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r >= 0)
                r = sd_bus_message_read_array(reply, 't', (const void **)&kills, &n_kills);
        n_kills /= sizeof(uint64_t);
        if (r >= 0)
                r = sd_bus_message_read(reply, TRACKER_SLOTS_TYPE, &map_slots, &reduce_slots,
                                        &memory);
        /* A controller older than kill-reasons sends none. */
        if (r >= 0 && sd_bus_message_peek_type(reply, NULL, NULL) > 0)
                r = sd_bus_message_read_strv(reply, &causes);
        if (r < 0)
                return log_error_errno(r, "Cannot read the heartbeat reply");
        while (causes && causes[n_causes])
                n_causes++;
        for (size_t i = 0; i < n_kills; i++) {
                const char *cause = i < n_causes ? causes[i] : NULL;

                log_info("Killing attempt %" PRIu64 " on the controller's word%s%s", kills[i],
                         cause ? ": " : "", cause ? cause : "");
                task_kill(k, kills[i], cause);
        }
        strv_free(causes);
        /* Fewer slots take effect as tasks end: a running task is never
         * killed for a slot change, but no new one starts beyond them. */
        if (map_slots != k->slots[0] || reduce_slots != k->slots[1] || memory != k->slot_memory)
                log_info("Slots now %u map, %u reduce, %" PRIu64 " bytes each", map_slots,
                         reduce_slots, memory);
        k->slots[0] = map_slots;
        k->slots[1] = reduce_slots;
        k->slot_memory = memory;
        return 0;
}

static void disconnect(Tracker *k) {
        k->bus = sd_bus_flush_close_unref(k->bus);
        k->id = 0;
}

/* Attempts assigned under an earlier registration: the controller takes
 * no report of them once another registration of this tracker holds them
 * (it ran them elsewhere after losing this one), so they are stopped and
 * forgotten. */
static void forget_earlier(Tracker *k) {
        for (size_t i = k->n_tasks; i > 0; i--)
                if (k->tasks[i - 1]->registration != k->id)
                        task_forget(k, k->tasks[i - 1]);
        for (size_t i = k->n_finished; i > 0; i--)
                if (k->finished[i - 1].registration != k->id) {
                        finished_clear(&k->finished[i - 1]);
                        memmove(&k->finished[i - 1], &k->finished[i],
                                (k->n_finished - i) * sizeof(Finished));
                        k->n_finished--;
                }
}

static int call_error(Tracker *k, const char *what, const sd_bus_error *e, int r) {
        /* Only the controller's own errors are answers; the rest (a reset
         * connection, no reply) mean it is gone for now. */
        if (!sd_bus_error_is_set(e) || strncmp(e->name, "org.flexslot.", 13) != 0) {
                log_warning_errno(r, "%s: the controller went away", what);
                disconnect(k);
                return 0;
        }
        if (sd_bus_error_has_names(e, TRACKER_ERROR_UNKNOWN_TRACKER, TRACKER_ERROR_TRACKER_LOST)) {
                log_warning("%s: %s: registering again", what, e->message);
                k->id = 0;
                return 0;
        }
        if (sd_bus_error_has_name(e, TRACKER_ERROR_INVALID_HEARTBEAT)) {
                log_warning("%s refused (%s: %s): forgetting earlier attempts", what, e->name,
                            e->message);
                forget_earlier(k);
                return 0;
        }
        /* A wrong token or a refused registration will not mend itself. */
        return log_error_errno(-EACCES, "%s refused: %s: %s", what, e->name, e->message);
}

static int heartbeat(Tracker *k) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        size_t sent = 0;
        int r;

        r = sd_bus_message_new_method_call(k->bus, &m, NULL, TRACKER_OBJECT_PATH, TRACKER_INTERFACE,
                                           "Heartbeat");
        if (r >= 0)
                r = append_report(k, m, &sent);
        if (r < 0)
                return log_error_errno(r, "Cannot build a heartbeat");
        r = sd_bus_call(k->bus, m, k->config.call_timeout, &e, &reply);
        if (r < 0)
                return call_error(k, "Heartbeat", &e, r);
        /* Acknowledged: those reports are the controller's now. */
        if (sent > 0) {
                for (size_t i = 0; i < sent; i++)
                        finished_clear(&k->finished[i]);
                memmove(k->finished, k->finished + sent, (k->n_finished - sent) * sizeof(Finished));
                k->n_finished -= sent;
        }
        return read_reply(k, reply);
}

static int register_tracker(Tracker *k) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_call_method(k->bus, NULL, TRACKER_OBJECT_PATH, TRACKER_INTERFACE, "Register", &e,
                               &reply, "sssuut", k->token, k->vm_uuid, k->hostname, k->slots[0],
                               k->slots[1], k->slot_memory);
        if (r < 0)
                return call_error(k, "Register", &e, r);
        r = sd_bus_message_read(reply, "tt", &k->id, &k->interval);
        if (r < 0)
                return log_error_errno(r, "Cannot read Register's reply");
        log_info("Registered with %s as tracker %" PRIu64 ", heartbeat every %s",
                 k->config.controller, k->id, FORMAT_DURATION(k->interval));
        k->backoff = 0;
        return 0;
}

static int connect_controller(Tracker *k) {
        int r;

        r = sd_bus_new(&k->bus);
        if (r >= 0)
                r = sd_bus_set_address(k->bus, k->config.controller);
        if (r >= 0)
                r = sd_bus_set_anonymous(k->bus, 1);
        if (r >= 0)
                r = sd_bus_set_method_call_timeout(k->bus, k->config.call_timeout);
        if (r >= 0)
                r = sd_bus_start(k->bus);
        if (r < 0) {
                log_debug_errno(r, "Cannot connect to %s", k->config.controller);
                disconnect(k);
        }
        return 0;
}

/* One step: connect, register, heartbeat, as far as each succeeds; the
 * next step comes after the interval, or after the back-off while there
 * is no controller to talk to. */
static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Tracker *k = userdata;
        usec_t next;
        int r = 0;

        if (!k->bus)
                r = connect_controller(k);
        if (r >= 0 && k->bus && k->id == 0)
                r = register_tracker(k);
        if (r >= 0 && k->bus && k->id != 0)
                r = heartbeat(k);
        if (r < 0)
                return sd_event_exit(k->event, r);
        if (k->bus && k->id != 0)
                next = k->interval;
        else {
                k->backoff =
                        k->backoff ? MIN(2 * k->backoff, k->config.reconnect_max) : RECONNECT_MIN;
                next = k->backoff;
                log_debug("No controller; trying again in %s", FORMAT_DURATION(next));
        }
        r = sd_event_source_set_time(s, usec + next);
        if (r >= 0)
                r = sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        if (r < 0)
                return sd_event_exit(k->event, log_error_errno(r, "Cannot rearm the timer"));
        return 0;
}

/* The VM's SMBIOS UUID, which libvirt sets to the domain's UUID, so the
 * controller matches tracker and domain; [tracker] vm-uuid overrides it. */
static int read_identity(Tracker *k) {
        if (k->config.vm_uuid)
                snprintf(k->vm_uuid, sizeof(k->vm_uuid), "%s", k->config.vm_uuid);
        else {
                FILE *f = fopen(PRODUCT_UUID_FILE, "re");
                bool ok = f && fgets(k->vm_uuid, sizeof(k->vm_uuid), f);

                if (f)
                        fclose(f);
                k->vm_uuid[strcspn(k->vm_uuid, "\n")] = '\0';
                if (!ok || !k->vm_uuid[0]) {
                        log_error("Cannot read the VM's UUID from %s; set [tracker] vm-uuid",
                                  PRODUCT_UUID_FILE);
                        return -ENOENT;
                }
        }
        if (k->config.hostname)
                snprintf(k->hostname, sizeof(k->hostname), "%s", k->config.hostname);
        else if (gethostname(k->hostname, sizeof(k->hostname) - 1) < 0)
                return log_error_errno(negative_errno(), "Cannot get the host name");
        return 0;
}

static int tracker_start(Tracker *k) {
        struct stat st;
        int r;

        if (stat(k->config.data_dir, &st) < 0 || !S_ISDIR(st.st_mode))
                return log_error_errno(-ENOTDIR, "The data directory %s is not a directory",
                                       k->config.data_dir);
        r = controller_bus_errors_register();
        if (r < 0)
                return log_error_errno(r, "Cannot register the error names");
        r = daemon_read_token(k->config.token_file, TRACKER_TOKEN_MAX, &k->token, &k->token_len);
        if (r >= 0)
                r = read_identity(k);
        if (r < 0)
                return r;
        k->slots[0] = (unsigned)k->config.map_slots;
        k->slots[1] = (unsigned)k->config.reduce_slots;
        k->slot_memory = k->config.slot_memory;
        r = daemon_event_new(&k->event);
        if (r < 0)
                return r;
        r = sd_event_add_time_relative(k->event, &k->timer, CLOCK_MONOTONIC, 0, 0, on_timer, k);
        if (r < 0)
                return log_error_errno(r, "Cannot add the heartbeat timer");
        return 0;
}

static void tracker_stop(Tracker *k) {
        k->timer = sd_event_source_disable_unref(k->timer);
        disconnect(k);
        /* Tasks die with the tracker: nothing would report them. */
        for (size_t i = 0; i < k->n_tasks; i++)
                task_free(k->tasks[i]);
        free(k->tasks);
        for (size_t i = 0; i < k->n_finished; i++)
                finished_clear(&k->finished[i]);
        free(k->finished);
        k->event = sd_event_unref(k->event);
        if (k->token)
                explicit_bzero(k->token, k->token_len);
        free(k->token);
        conf_free(&tracker_config_schema, &k->config);
}

static void help(void) {
        printf("Usage: flexslot-tracker [OPTIONS]\n"
               "\n"
               "The flexslot task tracker of one VM: registers with the controller,\n"
               "heartbeats, and runs the map and reduce tasks it is given.\n"
               "\n"
               "  -h --help              Show this help and exit\n"
               "     --version           Show the version and exit\n"
               "  -c --config=FILE       Configuration file (default " DEFAULT_CONFIG_FILE ";\n"
               "                         built-in defaults if that does not exist)\n"
               "     --log-level=LEVEL   err, warning, notice, info or debug\n"
               "\n"
               "Options override the configuration file. See flexslot-tracker(8).\n");
}

int main(int argc, char **argv) {
        static const DaemonCommandLine command_line = {
                .program = PROGRAM,
                .config_default = DEFAULT_CONFIG_FILE,
                .help = help,
        };
        Tracker k = { 0 };
        DaemonOptions o;
        int r;

        log_open(argv[0]);
        r = daemon_parse_argv(&command_line, argc, argv, &o);
        if (r < 0)
                return EXIT_USAGE;
        if (r == 0)
                return EXIT_SUCCESS;
        r = daemon_load_config(&tracker_config_schema, o.config_file, o.config_given, &k.config);
        if (r < 0)
                return EXIT_FAILURE;
        log_set_max_level(o.log_level_given ? o.log_level
                                            : (LogLevel)log_levels[k.config.log_level]);
        r = tracker_start(&k);
        if (r >= 0) {
                log_info("Tracker %s (VM %s) for %s, data in %s", k.hostname, k.vm_uuid,
                         k.config.controller, k.config.data_dir);
                r = daemon_run(k.event, "Running");
        }
        tracker_stop(&k);
        return r == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

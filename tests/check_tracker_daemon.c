/* SPDX-License-Identifier: MIT */
/* flexslot-tracker's daemon parts: its configuration, and its link and
 * tasks against a controller stand-in served from the test's own event
 * loop over a Unix socket (the real protocol, through proto/tracker1.c).
 * The stand-in can refuse Register, or hold a heartbeat unanswered, as a
 * slow controller does: the tracker must go on reaping and killing its
 * tasks meanwhile. Tasks are a shell script in the task program's place.
 * Nothing here sleeps: each test runs the loop until what it waits for
 * has happened, or fails after a limit. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/epoll.h>
#include <sys/un.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "common/daemon-util.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/time-util.h"
#include "proto/errors.h"
#include "proto/tracker1.h"
#include "tests.h"
#include "tracker/tracker-config.h"
#include "tracker/tracker-link.h"
#include "tracker/tracker-tasks.h"

#define WAIT_LIMIT (20 * USEC_PER_SEC)
#define FINISHED_MAX 16

/* ---- configuration ---- */

START_TEST(test_config_defaults_and_example) {
        TrackerConfig defaults = { 0 }, example = { 0 };
        ConfError err;
        char msg[512];
        int r;

        ck_assert_int_eq(conf_load_defaults(&tracker_config_schema, &defaults, &err), 0);
        ck_assert_str_eq(defaults.controller, "tcp:host=127.0.0.1,port=7411");
        ck_assert_str_eq(defaults.data_dir, "/srv/flexslot");
        ck_assert_ptr_null(defaults.vm_uuid);
        ck_assert_int_eq(defaults.map_slots, 2);
        ck_assert_int_eq(defaults.reduce_slots, 1);
        ck_assert_uint_eq(defaults.slot_memory, 200ULL << 20);
        ck_assert_uint_eq(defaults.call_timeout, 10 * USEC_PER_SEC);
        ck_assert_uint_eq(defaults.reconnect_max, 30 * USEC_PER_SEC);
        ck_assert_uint_eq(defaults.kill_grace, USEC_PER_SEC);
        ck_assert_int_eq(daemon_log_levels[defaults.log_level], LOG_LEVEL_INFO);

        /* The shipped example, as shipped, means the defaults. */
        r = conf_load_file(&tracker_config_schema, test_srcdir_path("conf/tracker.ini"), &example,
                           &err);
        conf_error_format(&err, msg, sizeof(msg));
        ck_assert_msg(r == 0, "%s", msg);
        ck_assert_str_eq(example.controller, defaults.controller);
        ck_assert_str_eq(example.token_file, defaults.token_file);
        ck_assert_uint_eq(example.slot_memory, defaults.slot_memory);
        ck_assert_uint_eq(example.reconnect_max, defaults.reconnect_max);
        conf_free(&tracker_config_schema, &defaults);
        conf_free(&tracker_config_schema, &example);
}
END_TEST

static const struct {
        const char *text, *key;
} bad_configs[] = {
        { "[tracker]\ncontroller = http://controller\n", "controller" },
        { "[tracker]\ndata-dir = srv/flexslot\n", "data-dir" },
        { "[tracker]\nwork-dir = tmp\n", "work-dir" },
        { "[tracker]\ntask-program =\n", "task-program" },
        { "[slots]\nmap-slots = 1025\n", "map-slots" },
        { "[slots]\nslot-memory = 512K\n", "slot-memory" },
        { "[connection]\nreconnect-max = 50ms\n", "reconnect-max" },
};

START_TEST(test_config_refused) {
        TrackerConfig c = { 0 };
        ConfError err = { 0 };
        char msg[512];

        ck_assert_int_lt(
                conf_load_string(&tracker_config_schema, "inline", bad_configs[_i].text, &c, &err),
                0);
        conf_error_format(&err, msg, sizeof(msg));
        ck_assert_msg(strstr(msg, bad_configs[_i].key), "'%s' does not name %s", msg,
                      bad_configs[_i].key);
}
END_TEST

START_TEST(test_identity) {
        _cleanup_free_ char *dir = test_make_tmpdir(), *uuid_file = NULL;
        TrackerConfig c = { 0 };
        TrackerIdentity id = { 0 };
        ConfError err;
        FILE *f;

        ck_assert_int_eq(conf_load_defaults(&tracker_config_schema, &c, &err), 0);
        ck_assert_int_ge(asprintf(&uuid_file, "%s/product_uuid", dir), 0);
        /* No UUID to be had. */
        ck_assert_int_eq(tracker_identity_read(&c, uuid_file, &id), -ENOENT);

        f = fopen(uuid_file, "we");
        ck_assert_ptr_nonnull(f);
        fputs("6d1f0c7e-0000-4000-8000-00000000000a\n", f);
        fclose(f);
        ck_assert_int_eq(tracker_identity_read(&c, uuid_file, &id), 0);
        ck_assert_str_eq(id.vm_uuid, "6d1f0c7e-0000-4000-8000-00000000000a");
        ck_assert_int_gt((int)strlen(id.hostname), 0);
        conf_free(&tracker_config_schema, &c);

        /* The configuration's win. */
        ck_assert_int_eq(conf_load_string(&tracker_config_schema, "inline",
                                          "[tracker]\nvm-uuid = vm-a\nhostname = host-a\n", &c,
                                          &err),
                         0);
        ck_assert_int_eq(tracker_identity_read(&c, "/nonexistent", &id), 0);
        ck_assert_str_eq(id.vm_uuid, "vm-a");
        ck_assert_str_eq(id.hostname, "host-a");
        conf_free(&tracker_config_schema, &c);
        test_remove_tree(dir);
}
END_TEST

/* ---- a controller stand-in ---- */

typedef struct Stand {
        sd_event *event;
        int listen_fd;
        sd_event_source *listen;
        sd_bus *bus; /* the tracker's connection; one at a time */
        unsigned registers, heartbeats;
        const char *refuse; /* Register's error name; NULL: accepted */
        uint64_t interval;
        /* From the next heartbeat on, none is answered until the test
         * answers this one. */
        bool hold;
        sd_bus_message *held;
        /* What the next answered heartbeat's reply says. */
        Tracker1Reply next;
        /* The finished attempts of the last heartbeat. */
        Tracker1Finished finished[FINISHED_MAX];
        char reasons[FINISHED_MAX][256];
        size_t n_finished;
} Stand;

static int stand_register(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Stand *s = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Tracker1Registration x;
        int r;

        r = tracker1_register_read(m, &x, error);
        if (r < 0)
                return r;
        ck_assert_uint_eq(x.version, TRACKER1_VERSION);
        ck_assert_str_eq(x.token, "token");
        s->registers++;
        if (s->refuse)
                return sd_bus_error_setf(error, s->refuse, "Refused by the stand-in.");
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = tracker1_registered_append(
                        reply, &(Tracker1Registered){ .tracker = 1, .interval = s->interval });
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        return r;
}

static int stand_reply(Stand *s, sd_bus_message *call) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_message_new_method_return(call, &reply);
        if (r >= 0)
                r = tracker1_reply_append(reply, &s->next);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        s->next = (Tracker1Reply){ .slots = { 2, 1 }, .slot_memory = 256 << 20 };
        return r;
}

static int stand_heartbeat(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Stand *s = userdata;
        _cleanup_(tracker1_report_done) Tracker1Report x = { 0 };
        int r;

        r = tracker1_heartbeat_read(m, &x, error);
        if (r < 0)
                return r;
        s->heartbeats++;
        s->n_finished = MIN(x.n_finished, (size_t)FINISHED_MAX);
        for (size_t i = 0; i < s->n_finished; i++) {
                s->finished[i] = x.finished[i];
                snprintf(s->reasons[i], sizeof(s->reasons[i]), "%s", x.finished[i].reason);
                s->finished[i].reason = s->reasons[i];
                s->finished[i].output = NULL;
        }
        if (s->hold) {
                ck_assert_ptr_null(s->held);
                s->held = sd_bus_message_ref(m);
                return 1;
        }
        return stand_reply(s, m);
}

static const sd_bus_vtable stand_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Register", TRACKER1_REGISTER_TYPE, TRACKER1_REGISTERED_TYPE, stand_register,
                      SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD(TRACKER1_HEARTBEAT_METHOD, TRACKER1_HEARTBEAT_TYPE, TRACKER1_REPLY_TYPE,
                      stand_heartbeat, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

static int stand_accept(sd_event_source *source, int fd, uint32_t revents, void *userdata) {
        Stand *s = userdata;
        int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        sd_id128_t id;

        ck_assert_int_ge(cfd, 0);
        /* A tracker that connects again leaves its old connection. */
        if (s->bus) {
                (void)sd_bus_detach_event(s->bus);
                s->bus = sd_bus_close_unref(s->bus);
        }
        ck_assert_int_ge(sd_id128_randomize(&id), 0);
        ck_assert_int_ge(sd_bus_new(&s->bus), 0);
        ck_assert_int_ge(sd_bus_set_fd(s->bus, cfd, cfd), 0);
        ck_assert_int_ge(sd_bus_set_server(s->bus, 1, id), 0);
        ck_assert_int_ge(sd_bus_set_anonymous(s->bus, 1), 0);
        ck_assert_int_ge(sd_bus_add_object_vtable(s->bus, NULL, TRACKER1_OBJECT_PATH,
                                                  TRACKER1_INTERFACE, stand_vtable, s),
                         0);
        ck_assert_int_ge(sd_bus_attach_event(s->bus, s->event, SD_EVENT_PRIORITY_NORMAL), 0);
        ck_assert_int_ge(sd_bus_start(s->bus), 0);
        return 0;
}

/* The tracker under test, its stand-in controller and a directory with the
 * socket, the data directory and the task program. */
typedef struct Fixture {
        char *dir;
        sd_event *event;
        Stand stand;
        TrackerConfig config;
        TrackerIdentity identity;
        TrackerTasks tasks;
        TrackerLink link;
} Fixture;

/* The task program: attempt 1 waits for DIR/gate, attempt 2 ignores
 * SIGTERM (and so needs the SIGKILL after the kill grace) once it has made
 * DIR/gate.deaf, any other succeeds at once. */
static const char task_script[] = "#!/bin/sh\n"
                                  "case \" $* \" in\n"
                                  "*\" --attempt=1 \"*)\n"
                                  "        while [ ! -e \"$GATE\" ]; do sleep 0.01; done ;;\n"
                                  "*\" --attempt=2 \"*)\n"
                                  "        trap '' TERM\n"
                                  "        : >\"$GATE.deaf\"\n"
                                  "        while :; do sleep 0.01; done ;;\n"
                                  "esac\n"
                                  "exit 0\n";

static void fixture_start(Fixture *f, const char *extra_config) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        _cleanup_free_ char *config = NULL, *path = NULL, *gate = NULL;
        ConfError err = { 0 };
        char msg[512];
        FILE *script;
        int r;

        *f = (Fixture){ .dir = test_make_tmpdir() };
        ck_assert_ptr_nonnull(f->dir);
        ck_assert_int_ge(proto_errors_register(), 0);
        ck_assert_int_ge(asprintf(&path, "%s/data", f->dir), 0);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        free(path);
        ck_assert_int_ge(asprintf(&path, "%s/task.sh", f->dir), 0);
        script = fopen(path, "we");
        ck_assert_ptr_nonnull(script);
        fputs(task_script, script);
        fclose(script);
        ck_assert_int_eq(chmod(path, 0755), 0);
        ck_assert_int_ge(asprintf(&gate, "%s/gate", f->dir), 0);
        ck_assert_int_eq(setenv("GATE", gate, 1), 0);

        ck_assert_int_ge(asprintf(&config,
                                  "[tracker]\ncontroller = unix:path=%s/sock\n"
                                  "data-dir = %s/data\nwork-dir = %s\ntask-program = %s\n"
                                  "vm-uuid = vm-test\nhostname = test\n"
                                  "[connection]\ncall-timeout = 1min\n%s",
                                  f->dir, f->dir, f->dir, path, extra_config),
                         0);
        r = conf_load_string(&tracker_config_schema, "inline", config, &f->config, &err);
        conf_error_format(&err, msg, sizeof(msg));
        ck_assert_msg(r == 0, "%s", msg);
        ck_assert_int_eq(tracker_identity_read(&f->config, "/nonexistent", &f->identity), 0);

        ck_assert_int_ge(sd_event_new(&f->event), 0);
        f->stand = (Stand){ .event = f->event,
                            .interval = 20 * USEC_PER_MSEC,
                            .next = { .slots = { 2, 1 }, .slot_memory = 256 << 20 } };
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", f->dir);
        f->stand.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        ck_assert_int_ge(f->stand.listen_fd, 0);
        ck_assert_int_eq(bind(f->stand.listen_fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
        ck_assert_int_eq(listen(f->stand.listen_fd, 4), 0);
        ck_assert_int_ge(sd_event_add_io(f->event, &f->stand.listen, f->stand.listen_fd, EPOLLIN,
                                         stand_accept, &f->stand),
                         0);

        tracker_tasks_init(&f->tasks, &f->config, f->event);
        ck_assert_int_ge(tracker_link_start(&f->link, &f->config, f->event, &f->tasks, "token",
                                            &f->identity),
                         0);
}

static void fixture_stop(Fixture *f) {
        tracker_link_stop(&f->link);
        tracker_tasks_done(&f->tasks);
        f->stand.held = sd_bus_message_unref(f->stand.held);
        if (f->stand.bus) {
                (void)sd_bus_detach_event(f->stand.bus);
                f->stand.bus = sd_bus_close_unref(f->stand.bus);
        }
        f->stand.listen = sd_event_source_disable_unref(f->stand.listen);
        close(f->stand.listen_fd);
        f->event = sd_event_unref(f->event);
        conf_free(&tracker_config_schema, &f->config);
        test_remove_tree(f->dir);
        free(f->dir);
}

/* Runs the loop until done(f) holds; fails after WAIT_LIMIT or when the
 * loop ends. */
static void run_until(Fixture *f, bool (*done)(const Fixture *f), const char *what) {
        usec_t limit = now_monotonic_usec() + WAIT_LIMIT;

        while (!done(f)) {
                ck_assert_msg(now_monotonic_usec() < limit, "no %s within %.0f s", what,
                              usec_to_sec(WAIT_LIMIT));
                ck_assert_int_ge(sd_event_run(f->event, 100 * USEC_PER_MSEC), 0);
                ck_assert_msg(sd_event_get_state(f->event) != SD_EVENT_FINISHED,
                              "the tracker stopped while waiting for %s", what);
        }
}

static bool registered(const Fixture *f) {
        return f->link.id != 0;
}

static bool refused_twice(const Fixture *f) {
        return f->stand.registers >= 2;
}

static bool heartbeat_held(const Fixture *f) {
        return f->stand.held != NULL;
}

static bool both_ended(const Fixture *f) {
        return f->tasks.n_tasks == 0 && f->tasks.n_finished == 2;
}

static bool both_reported(const Fixture *f) {
        return f->stand.n_finished == 2;
}

static bool attempt_deaf(const Fixture *f) {
        _cleanup_free_ char *path = NULL;

        ck_assert_int_ge(asprintf(&path, "%s/gate.deaf", f->dir), 0);
        return access(path, F_OK) == 0;
}

static bool loop_finished(const Fixture *f) {
        return sd_event_get_state(f->event) == SD_EVENT_FINISHED;
}

/* Attempt a of job 1: map a - 1, a streaming cat of its split. */
static Tracker1Assignment map_of_job_1(uint64_t a) {
        static const char *split[] = { "in:0:10" };

        return (Tracker1Assignment){ .attempt = a,
                                     .job = 1,
                                     .type = TRACKER1_MAP,
                                     .index = (unsigned)(a - 1),
                                     .partitions = 1,
                                     .app = "",
                                     .command = "cat",
                                     .inputs = split,
                                     .n_inputs = 1,
                                     .slot_memory = 256 << 20,
                                     .slot = TRACKER1_MAP };
}

/* A controller of another release refuses the version: the tracker says
 * so, keeps trying at its slowest back-off rather than stopping, and
 * registers once a controller serves it. */
START_TEST(test_incompatible_version_backs_off) {
        Fixture f;

        fixture_start(&f, "reconnect-max = 300ms\n");
        f.stand.refuse = TRACKER1_ERROR_INCOMPATIBLE_VERSION;
        run_until(&f, refused_twice, "second Register");
        ck_assert(f.link.version_refused);
        ck_assert_uint_eq(f.link.id, 0);
        /* Not the 100 ms of a first back-off: reconnect-max at once. */
        ck_assert_uint_eq(f.link.backoff, f.config.reconnect_max);

        f.stand.refuse = NULL;
        run_until(&f, registered, "registration");
        ck_assert(!f.link.version_refused);
        fixture_stop(&f);
}
END_TEST

/* A wrong token will not mend: the tracker stops. */
START_TEST(test_bad_token_stops) {
        Fixture f;
        int code = 0;

        fixture_start(&f, "");
        f.stand.refuse = TRACKER1_ERROR_BAD_TOKEN;
        while (!loop_finished(&f))
                ck_assert_int_ge(sd_event_run(f.event, 100 * USEC_PER_MSEC), 0);
        ck_assert_int_ge(sd_event_get_exit_code(f.event, &code), 0);
        ck_assert_int_eq(code, -EACCES);
        fixture_stop(&f);
}
END_TEST

/* While the controller sits on a heartbeat (the call times out after a
 * minute), an attempt that exits is reaped and one being killed gets its
 * SIGKILL at the end of its grace; both are reported once the controller
 * answers. */
START_TEST(test_slow_controller_holds_nothing_up) {
        Tracker1Assignment assign[] = { map_of_job_1(1), map_of_job_1(2) };
        Tracker1Kill kill = { .attempt = 2, .reason = "job cancelled" };
        _cleanup_free_ char *gate = NULL;
        Fixture f;
        int fd;

        fixture_start(&f, "[tasks]\nkill-grace = 300ms\n");
        f.stand.next.assignments = assign;
        f.stand.next.n_assignments = ELEMENTSOF(assign);
        run_until(&f, registered, "registration");
        /* Killed only once it is deaf to SIGTERM. */
        run_until(&f, attempt_deaf, "attempt 2 to ignore SIGTERM");
        f.stand.next.kills = &kill;
        f.stand.next.n_kills = 1;
        /* The reply with the kill goes out; every heartbeat after it is
         * held. */
        while (f.stand.next.n_kills > 0)
                ck_assert_int_ge(sd_event_run(f.event, 100 * USEC_PER_MSEC), 0);
        f.stand.hold = true;
        run_until(&f, heartbeat_held, "heartbeat to hold");

        ck_assert_int_ge(asprintf(&gate, "%s/gate", f.dir), 0);
        fd = open(gate, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        ck_assert_int_ge(fd, 0);
        close(fd);
        run_until(&f, both_ended, "end of both attempts");
        /* The heartbeat is still on its way, unanswered. */
        ck_assert_ptr_nonnull(f.stand.held);
        ck_assert_ptr_nonnull(f.link.call);

        f.stand.hold = false;
        ck_assert_int_ge(stand_reply(&f.stand, f.stand.held), 0);
        f.stand.held = sd_bus_message_unref(f.stand.held);
        run_until(&f, both_reported, "report of both attempts");
        for (size_t i = 0; i < f.stand.n_finished; i++) {
                const Tracker1Finished *x = &f.stand.finished[i];

                if (x->attempt == 1)
                        ck_assert_int_eq(x->status, TRACKER1_SUCCEEDED);
                else {
                        ck_assert_uint_eq(x->attempt, 2);
                        ck_assert_int_eq(x->status, TRACKER1_KILLED);
                        ck_assert_msg(strstr(x->reason, "job cancelled"), "reason '%s'", x->reason);
                }
        }
        fixture_stop(&f);
}
END_TEST

Suite *suite_tracker_daemon(void) {
        Suite *s = suite_create("tracker_daemon");
        TCase *tc;

        tc = tcase_create("config");
        tcase_add_test(tc, test_config_defaults_and_example);
        tcase_add_loop_test(tc, test_config_refused, 0, (int)ELEMENTSOF(bad_configs));
        tcase_add_test(tc, test_identity);
        suite_add_tcase(s, tc);

        tc = tcase_create("link");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_incompatible_version_backs_off);
        tcase_add_test(tc, test_bad_token_stops);
        tcase_add_test(tc, test_slow_controller_holds_nothing_up);
        suite_add_tcase(s, tc);
        return s;
}

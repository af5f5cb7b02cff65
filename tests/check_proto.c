/* SPDX-License-Identifier: MIT */
/* The wire contracts (proto/): every message appended into a real sd-bus
 * message, sealed as sd-bus sends it, and read back is the struct it was
 * built from; messages that do not read as the protocol has them (wrong
 * types, cut short, words the protocol does not have) are refused with a
 * named error that names the field (Tracker1) or -EBADMSG (Agent1's
 * verdicts, which only a client reads). The bus is one end of a socketpair,
 * started but never used: sd-bus builds messages only for a started bus. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "common/macro.h"
#include "proto/agent1.h"
#include "proto/controller1.h"
#include "proto/errors.h"
#include "proto/tracker1.h"
#include "tests.h"

static sd_bus *bus;
static int peer = -1;

static void bus_setup(void) {
        bus = test_bus_unused(&peer);
        ck_assert_int_ge(proto_errors_register(), 0);
}

static void bus_teardown(void) {
        bus = sd_bus_close_unref(bus);
        if (peer >= 0)
                close(peer);
        peer = -1;
}

static sd_bus_message *new_call(const char *member) {
        sd_bus_message *m = NULL;

        ck_assert_int_ge(sd_bus_message_new_method_call(bus, &m, NULL, TRACKER1_OBJECT_PATH,
                                                        TRACKER1_INTERFACE, member),
                         0);
        return m;
}

/* Sealed as for sending, and read from its start. */
static void seal(sd_bus_message *m) {
        static uint64_t cookie;

        ck_assert_int_ge(sd_bus_message_seal(m, ++cookie, 0), 0);
        ck_assert_int_ge(sd_bus_message_rewind(m, true), 0);
}

/* The reply to a sealed call. */
static sd_bus_message *new_reply(void) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = new_call(TRACKER1_HEARTBEAT_METHOD);
        sd_bus_message *m = NULL;

        ck_assert_int_ge(sd_bus_message_append(call, "t", (uint64_t)1), 0);
        seal(call);
        ck_assert_int_ge(sd_bus_message_new_method_return(call, &m), 0);
        return m;
}

#define ck_assert_str_eq_or_null(a, b) ck_assert_str_eq((a) ? (a) : "", (b) ? (b) : "")

START_TEST(test_names) {
        Tracker1TaskType t;
        Tracker1Status s;

        for (unsigned i = 0; i < _TRACKER1_TASK_TYPE_MAX; i++) {
                ck_assert_int_eq(
                        tracker1_task_type_from_string(tracker1_task_type_to_string(i), &t), 0);
                ck_assert_int_eq(t, i);
        }
        for (unsigned i = 0; i < _TRACKER1_STATUS_MAX; i++) {
                ck_assert_int_eq(tracker1_status_from_string(tracker1_status_to_string(i), &s), 0);
                ck_assert_int_eq(s, i);
        }
        ck_assert_str_eq(tracker1_status_to_string(TRACKER1_KILLED), "killed");
        ck_assert_ptr_null(tracker1_status_to_string(_TRACKER1_STATUS_MAX));
        ck_assert_ptr_null(tracker1_task_type_to_string(_TRACKER1_TASK_TYPE_MAX));
        ck_assert_int_eq(tracker1_status_from_string("done", &s), -EINVAL);
        ck_assert_int_eq(tracker1_task_type_from_string("split", &t), -EINVAL);

        ck_assert(tracker1_version_served(TRACKER1_VERSION));
        ck_assert(tracker1_version_served(TRACKER1_VERSION_MIN));
        ck_assert(!tracker1_version_served(TRACKER1_VERSION_MIN - 1));
        ck_assert(!tracker1_version_served(TRACKER1_VERSION + 1));
}
END_TEST

START_TEST(test_register_round_trip) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = new_call("Register"), *reply = NULL;
        const Tracker1Registration want = {
                .version = TRACKER1_VERSION,
                .token = "secret",
                .vm_uuid = "6d1f0c7e-0000-4000-8000-000000000001",
                .hostname = "vm1",
                .slots = { [TRACKER1_MAP] = 3, [TRACKER1_REDUCE] = 2 },
                .slot_memory = 256ULL << 20,
        };
        const Tracker1Registered registered = { .tracker = 7, .interval = 3000000 };
        Tracker1Registration got;
        Tracker1Registered got_registered;

        ck_assert_int_ge(tracker1_register_append(m, &want), 0);
        seal(m);
        ck_assert_str_eq(sd_bus_message_get_signature(m, true), TRACKER1_REGISTER_TYPE);
        ck_assert_int_eq(tracker1_register_read(m, &got, NULL), 0);
        ck_assert_uint_eq(got.version, want.version);
        ck_assert_str_eq(got.token, want.token);
        ck_assert_str_eq(got.vm_uuid, want.vm_uuid);
        ck_assert_str_eq(got.hostname, want.hostname);
        ck_assert_uint_eq(got.slots[TRACKER1_MAP], 3);
        ck_assert_uint_eq(got.slots[TRACKER1_REDUCE], 2);
        ck_assert_uint_eq(got.slot_memory, want.slot_memory);

        ck_assert_int_ge(sd_bus_message_new_method_return(m, &reply), 0);
        ck_assert_int_ge(tracker1_registered_append(reply, &registered), 0);
        seal(reply);
        ck_assert_int_eq(tracker1_registered_read(reply, &got_registered, NULL), 0);
        ck_assert_uint_eq(got_registered.tracker, 7);
        ck_assert_uint_eq(got_registered.interval, 3000000);
}
END_TEST

static void assert_reports_equal(const Tracker1Report *got, const Tracker1Report *want) {
        ck_assert_uint_eq(got->tracker, want->tracker);
        ck_assert_uint_eq(got->free_slots[TRACKER1_MAP], want->free_slots[TRACKER1_MAP]);
        ck_assert_uint_eq(got->free_slots[TRACKER1_REDUCE], want->free_slots[TRACKER1_REDUCE]);
        ck_assert_double_eq(got->steal, want->steal);
        ck_assert_double_eq(got->iowait, want->iowait);
        ck_assert_uint_eq(got->n_running, want->n_running);
        for (size_t i = 0; i < want->n_running; i++) {
                const Tracker1Running *a = &got->running[i], *b = &want->running[i];

                ck_assert_uint_eq(a->attempt, b->attempt);
                ck_assert_double_eq(a->progress, b->progress);
                ck_assert_uint_eq(a->bytes_processed, b->bytes_processed);
                ck_assert_uint_eq(a->input_size, b->input_size);
                ck_assert_uint_eq(a->cpu_time, b->cpu_time);
                ck_assert_uint_eq(a->iowait_time, b->iowait_time);
        }
        ck_assert_uint_eq(got->n_finished, want->n_finished);
        for (size_t i = 0; i < want->n_finished; i++) {
                const Tracker1Finished *a = &got->finished[i], *b = &want->finished[i];

                ck_assert_uint_eq(a->attempt, b->attempt);
                ck_assert_int_eq(a->status, b->status);
                ck_assert_uint_eq(a->input_bytes, b->input_bytes);
                ck_assert_uint_eq(a->output_bytes, b->output_bytes);
                ck_assert_str_eq_or_null(a->output, b->output);
                ck_assert_str_eq_or_null(a->reason, b->reason);
                ck_assert_uint_eq(a->run_time, b->run_time);
                ck_assert_uint_eq(a->since_end, b->since_end);
                ck_assert_int_eq(a->usage, b->usage);
                ck_assert_uint_eq(a->cpu_time, b->cpu_time);
                ck_assert_uint_eq(a->blkio_delay, b->blkio_delay);
        }
}

START_TEST(test_heartbeat_round_trip) {
        Tracker1Running running[] = {
                { .attempt = 11,
                  .progress = 0.25,
                  .bytes_processed = 1 << 20,
                  .input_size = 4 << 20,
                  .cpu_time = 1500000,
                  .iowait_time = 20000 },
                { .attempt = 12, .progress = 1, .bytes_processed = 0, .input_size = 0 },
        };
        Tracker1Finished finished[] = {
                { .attempt = 9,
                  .status = TRACKER1_SUCCEEDED,
                  .input_bytes = 100,
                  .output_bytes = 10,
                  .output = "out/3/map-00001.9",
                  .reason = "",
                  .run_time = 420000,
                  .since_end = 1700000,
                  .usage = true,
                  .cpu_time = 380000,
                  .blkio_delay = 12000 },
                { .attempt = 10,
                  .status = TRACKER1_KILLED,
                  .output = NULL,
                  .reason = "speculation: another attempt succeeded (killed by SIGTERM)",
                  .usage = true },
                { .attempt = 13,
                  .status = TRACKER1_FAILED,
                  .output = "",
                  .reason = "exit 1",
                  .usage = true },
        };
        const Tracker1Report reports[] = {
                { .tracker = 5,
                  .free_slots = { 1, 0 },
                  .steal = 0.125,
                  .iowait = 0.5,
                  .running = running,
                  .n_running = ELEMENTSOF(running),
                  .finished = finished,
                  .n_finished = ELEMENTSOF(finished) },
                /* Nothing running, nothing finished. */
                { .tracker = UINT64_MAX, .free_slots = { 1024, 1024 } },
        };

        for (size_t i = 0; i < ELEMENTSOF(reports); i++) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *m =
                        new_call(TRACKER1_HEARTBEAT_METHOD);
                _cleanup_(tracker1_report_done) Tracker1Report got = { 0 };

                ck_assert_int_ge(tracker1_heartbeat_append(m, &reports[i]), 0);
                seal(m);
                ck_assert_str_eq(sd_bus_message_get_signature(m, true), TRACKER1_HEARTBEAT_TYPE);
                ck_assert_int_eq(tracker1_heartbeat_read(m, &got, NULL), 0);
                assert_reports_equal(&got, &reports[i]);
        }
}
END_TEST

/* An older revision's heartbeat of tracker 5, up to its finished
 * attempts, with nothing running. */
static sd_bus_message *old_heartbeat(const char *method) {
        sd_bus_message *m = new_call(method);

        ck_assert_int_ge(
                sd_bus_message_append(m, "t" TRACKER1_NODE_TYPE, (uint64_t)5, 1u, 0u, 0.0, 0.0), 0);
        ck_assert_int_ge(sd_bus_message_append(m, "a" TRACKER1_RUNNING_TYPE, 0), 0);
        return m;
}

/* Revision 1's heartbeat (TRACKER1_HEARTBEAT_V1_METHOD) is read as well:
 * its finished attempts carry no times. */
START_TEST(test_heartbeat_v1) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m =
                old_heartbeat(TRACKER1_HEARTBEAT_V1_METHOD);
        _cleanup_(tracker1_report_done) Tracker1Report got = { 0 };

        ck_assert_int_ge(sd_bus_message_append(m, "a" TRACKER1_FINISHED_V1_TYPE, 1, (uint64_t)9,
                                               "succeeded", (uint64_t)100, (uint64_t)10,
                                               "out/3/map-00001.9", ""),
                         0);
        seal(m);
        ck_assert_str_eq(sd_bus_message_get_signature(m, true), TRACKER1_HEARTBEAT_V1_TYPE);
        ck_assert_int_eq(tracker1_heartbeat_read(m, &got, NULL), 0);
        ck_assert_uint_eq(got.n_finished, 1);
        ck_assert_uint_eq(got.finished[0].attempt, 9);
        ck_assert_str_eq(got.finished[0].output, "out/3/map-00001.9");
        ck_assert_uint_eq(got.finished[0].run_time, 0);
        ck_assert_uint_eq(got.finished[0].since_end, 0);
        ck_assert(!got.finished[0].usage);
}
END_TEST

/* Revision 2's (TRACKER1_HEARTBEAT_V2_METHOD): times, but no use of CPU
 * and I/O. */
START_TEST(test_heartbeat_v2) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m =
                old_heartbeat(TRACKER1_HEARTBEAT_V2_METHOD);
        _cleanup_(tracker1_report_done) Tracker1Report got = { 0 };

        ck_assert_int_ge(sd_bus_message_append(m, "a" TRACKER1_FINISHED_V2_TYPE, 1, (uint64_t)9,
                                               "succeeded", (uint64_t)100, (uint64_t)10,
                                               "out/3/map-00001.9", "", (uint64_t)420000,
                                               (uint64_t)1700000),
                         0);
        seal(m);
        ck_assert_str_eq(sd_bus_message_get_signature(m, true), TRACKER1_HEARTBEAT_V2_TYPE);
        ck_assert_int_eq(tracker1_heartbeat_read(m, &got, NULL), 0);
        ck_assert_uint_eq(got.n_finished, 1);
        ck_assert_uint_eq(got.finished[0].run_time, 420000);
        ck_assert_uint_eq(got.finished[0].since_end, 1700000);
        ck_assert(!got.finished[0].usage);
        ck_assert_uint_eq(got.finished[0].cpu_time, 0);
}
END_TEST

static void assert_replies_equal(const Tracker1Reply *got, const Tracker1Reply *want) {
        ck_assert_uint_eq(got->n_assignments, want->n_assignments);
        for (size_t i = 0; i < want->n_assignments; i++) {
                const Tracker1Assignment *a = &got->assignments[i], *b = &want->assignments[i];

                ck_assert_uint_eq(a->attempt, b->attempt);
                ck_assert_uint_eq(a->job, b->job);
                ck_assert_int_eq(a->type, b->type);
                ck_assert_uint_eq(a->index, b->index);
                ck_assert_uint_eq(a->partitions, b->partitions);
                ck_assert_str_eq_or_null(a->app, b->app);
                ck_assert_str_eq_or_null(a->command, b->command);
                ck_assert_uint_eq(a->n_inputs, b->n_inputs);
                for (size_t j = 0; j < b->n_inputs; j++)
                        ck_assert_str_eq(a->inputs[j], b->inputs[j]);
                ck_assert_uint_eq(a->slot_memory, b->slot_memory);
                ck_assert_int_eq(a->slot, b->slot);
        }
        ck_assert_uint_eq(got->n_kills, want->n_kills);
        for (size_t i = 0; i < want->n_kills; i++) {
                ck_assert_uint_eq(got->kills[i].attempt, want->kills[i].attempt);
                ck_assert_str_eq_or_null(got->kills[i].reason, want->kills[i].reason);
        }
        ck_assert_uint_eq(got->slots[TRACKER1_MAP], want->slots[TRACKER1_MAP]);
        ck_assert_uint_eq(got->slots[TRACKER1_REDUCE], want->slots[TRACKER1_REDUCE]);
        ck_assert_uint_eq(got->slot_memory, want->slot_memory);
}

START_TEST(test_reply_round_trip) {
        const char *split[] = { "in/a:b.txt:0:67108864" };
        const char *outputs[] = { "out/3/map-00000.9", "out/3/map-00001.12", "out/3/map-00002.4" };
        Tracker1Assignment assignments[] = {
                { .attempt = 20,
                  .job = 3,
                  .type = TRACKER1_MAP,
                  .index = 0,
                  .partitions = 2,
                  .app = "wordcount",
                  .command = "",
                  .inputs = split,
                  .n_inputs = 1,
                  .slot_memory = 200 << 20,
                  .slot = TRACKER1_REDUCE },
                { .attempt = 21,
                  .job = 3,
                  .type = TRACKER1_REDUCE,
                  .index = 1,
                  .partitions = 2,
                  .app = NULL,
                  .command = NULL,
                  .inputs = outputs,
                  .n_inputs = ELEMENTSOF(outputs),
                  .slot_memory = 1ULL << 40,
                  .slot = TRACKER1_REDUCE },
                /* A streaming map, and a reduce of a job without maps. */
                { .attempt = 22,
                  .job = 4,
                  .type = TRACKER1_MAP,
                  .app = "",
                  .command = "cut -f1",
                  .inputs = split,
                  .n_inputs = 1,
                  .slot = TRACKER1_MAP },
                { .attempt = 23,
                  .job = 5,
                  .type = TRACKER1_REDUCE,
                  .app = "",
                  .command = "",
                  .slot = TRACKER1_REDUCE },
        };
        Tracker1Kill kills[] = {
                { .attempt = 8, .reason = "speculation: another attempt succeeded" },
                { .attempt = 2, .reason = NULL },
        };
        const Tracker1Reply replies[] = {
                { .assignments = assignments,
                  .n_assignments = ELEMENTSOF(assignments),
                  .kills = kills,
                  .n_kills = ELEMENTSOF(kills),
                  .slots = { 2, 1 },
                  .slot_memory = 200 << 20 },
                { .slots = { 0, 0 }, .slot_memory = 1 << 20 },
        };

        for (size_t i = 0; i < ELEMENTSOF(replies); i++) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = new_reply();
                _cleanup_(tracker1_reply_done) Tracker1Reply got = { 0 };

                ck_assert_int_ge(tracker1_reply_append(m, &replies[i]), 0);
                seal(m);
                ck_assert_str_eq(sd_bus_message_get_signature(m, true), TRACKER1_REPLY_TYPE);
                ck_assert_int_eq(tracker1_reply_read(m, &got, NULL), 0);
                assert_replies_equal(&got, &replies[i]);
        }
}
END_TEST

/* A message built by hand, and what reading it must say. */
typedef struct BadMessage {
        const char *what;
        bool reply; /* a Heartbeat reply, else a Heartbeat call */
        int (*build)(sd_bus_message *m);
        const char *error, *field;
} BadMessage;

static int node_cut_short(sd_bus_message *m) {
        return sd_bus_message_append(m, "t(uu)", (uint64_t)1, 1u, 0u);
}

static int no_finished(sd_bus_message *m) {
        return sd_bus_message_append(m, "t(uudd)a(tdtttt)", (uint64_t)1, 1u, 0u, 0.0, 0.0, 0);
}

static int unknown_status(sd_bus_message *m) {
        return sd_bus_message_append(m, "t(uudd)a(tdtttt)a(tsttss)", (uint64_t)1, 1u, 0u, 0.0, 0.0,
                                     0, 1, (uint64_t)4, "done", (uint64_t)0, (uint64_t)0, "", "");
}

static int running_of_other_types(sd_bus_message *m) {
        return sd_bus_message_append(m, "t(uudd)a(tuttt)a(tsttss)", (uint64_t)1, 1u, 0u, 0.0, 0.0,
                                     1, (uint64_t)4, 1u, (uint64_t)0, (uint64_t)0, (uint64_t)0, 0);
}

static int too_many_running(sd_bus_message *m) {
        int r = sd_bus_message_append(m, "t(uudd)", (uint64_t)1, 1u, 0u, 0.0, 0.0);

        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', TRACKER1_RUNNING_TYPE);
        for (uint64_t i = 0; i <= TRACKER1_REPORT_MAX && r >= 0; i++)
                r = sd_bus_message_append(m, TRACKER1_RUNNING_TYPE, i, 0.5, i, i, i, i);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_append(m, "a(tsttss)", 0);
        return r;
}

static int unknown_task_type(sd_bus_message *m) {
        return sd_bus_message_append(m, "a(ttsuussasts)at(uut)as", 1, (uint64_t)1, (uint64_t)2,
                                     "split", 0u, 1u, "", "cat", 1, "f:0:1", (uint64_t)1 << 20,
                                     "map", 0, 1u, 1u, (uint64_t)1 << 20, 0);
}

static int unknown_slot(sd_bus_message *m) {
        return sd_bus_message_append(m, "a(ttsuussasts)at(uut)as", 1, (uint64_t)1, (uint64_t)2,
                                     "map", 0u, 1u, "", "cat", 1, "f:0:1", (uint64_t)1 << 20,
                                     "borrowed", 0, 1u, 1u, (uint64_t)1 << 20, 0);
}

static int no_kill_reasons(sd_bus_message *m) {
        return sd_bus_message_append(m, "a(ttsuussasts)at(uut)", 0, 1, (uint64_t)4, 1u, 1u,
                                     (uint64_t)1 << 20);
}

static int fewer_kill_reasons(sd_bus_message *m) {
        return sd_bus_message_append(m, "a(ttsuussasts)at(uut)as", 0, 2, (uint64_t)4, (uint64_t)5,
                                     1u, 1u, (uint64_t)1 << 20, 1, "why");
}

static int slots_of_other_types(sd_bus_message *m) {
        return sd_bus_message_append(m, "a(ttsuussasts)at(utt)as", 0, 0, 1u, (uint64_t)1,
                                     (uint64_t)1 << 20, 0);
}

static int empty(sd_bus_message *m) {
        return 0;
}

static const BadMessage bad_messages[] = {
        { "a node cut short", false, node_cut_short, TRACKER1_ERROR_INVALID_HEARTBEAT, "node" },
        { "no finished attempts", false, no_finished, TRACKER1_ERROR_INVALID_HEARTBEAT,
          "finished" },
        { "an unknown status", false, unknown_status, TRACKER1_ERROR_INVALID_HEARTBEAT, "status" },
        { "running attempts of other types", false, running_of_other_types,
          TRACKER1_ERROR_INVALID_HEARTBEAT, "running" },
        { "more running attempts than a report may hold", false, too_many_running,
          TRACKER1_ERROR_INVALID_HEARTBEAT, "running" },
        { "an empty heartbeat", false, empty, TRACKER1_ERROR_INVALID_HEARTBEAT, "tracker" },
        { "an unknown task type", true, unknown_task_type, TRACKER1_ERROR_INVALID_REPLY, "type" },
        { "an unknown slot type", true, unknown_slot, TRACKER1_ERROR_INVALID_REPLY, "slot" },
        { "no kill reasons", true, no_kill_reasons, TRACKER1_ERROR_INVALID_REPLY, "kill-reasons" },
        { "fewer kill reasons than kills", true, fewer_kill_reasons, TRACKER1_ERROR_INVALID_REPLY,
          "kill-reasons" },
        { "slots of other types", true, slots_of_other_types, TRACKER1_ERROR_INVALID_REPLY,
          "slots" },
        { "an empty reply", true, empty, TRACKER1_ERROR_INVALID_REPLY, "assignments" },
};

START_TEST(test_bad_message) {
        const BadMessage *b = &bad_messages[_i];
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m =
                b->reply ? new_reply() : new_call(TRACKER1_HEARTBEAT_METHOD);
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        char field[64];
        int r;

        ck_assert_int_ge(b->build(m), 0);
        seal(m);
        if (b->reply) {
                Tracker1Reply got = { .n_kills = 99 };

                r = tracker1_reply_read(m, &got, &error);
                /* Untouched on failure. */
                ck_assert_uint_eq(got.n_kills, 99);
        } else {
                Tracker1Report got = { .tracker = 99 };

                r = tracker1_heartbeat_read(m, &got, &error);
                ck_assert_uint_eq(got.tracker, 99);
        }
        ck_assert_msg(r == -EBADMSG, "%s: %d", b->what, r);
        ck_assert_str_eq(error.name, b->error);
        snprintf(field, sizeof(field), " field %s.", b->field);
        ck_assert_msg(strstr(error.message, field), "%s: '%s' does not name %s", b->what,
                      error.message, b->field);
        ck_assert_int_eq(sd_bus_error_get_errno(&error), EBADMSG);
}
END_TEST

START_TEST(test_bad_register) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = new_call("Register"), *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        Tracker1Registration got;
        Tracker1Registered registered = { .tracker = 99 };

        /* As a tracker before versions calls it. */
        ck_assert_int_ge(sd_bus_message_append(m, "sssuut", "token", "uuid", "host", 1u, 1u,
                                               (uint64_t)1 << 20),
                         0);
        seal(m);
        ck_assert_int_eq(tracker1_register_read(m, &got, &error), -EBADMSG);
        ck_assert_str_eq(error.name, SD_BUS_ERROR_INVALID_ARGS);
        ck_assert_ptr_nonnull(strstr(error.message, "field version"));

        sd_bus_error_free(&error);
        ck_assert_int_ge(sd_bus_message_new_method_return(m, &reply), 0);
        ck_assert_int_ge(sd_bus_message_append(reply, "t", (uint64_t)3), 0);
        seal(reply);
        ck_assert_int_eq(tracker1_registered_read(reply, &registered, &error), -EBADMSG);
        ck_assert_str_eq(error.name, TRACKER1_ERROR_INVALID_REPLY);
        ck_assert_uint_eq(registered.tracker, 99);
}
END_TEST

START_TEST(test_error_names) {
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;

        /* One errno per name, whichever interface's. */
        sd_bus_error_set(&e, TRACKER1_ERROR_INCOMPATIBLE_VERSION, "Version 9.");
        ck_assert_int_eq(sd_bus_error_get_errno(&e), EPROTONOSUPPORT);
        sd_bus_error_free(&e);
        sd_bus_error_set(&e, AGENT1_ERROR_HOST_RESERVE, "Reserve.");
        ck_assert_int_eq(sd_bus_error_get_errno(&e), ENOSPC);
        sd_bus_error_free(&e);
        sd_bus_error_set(&e, CONTROLLER1_ERROR_NO_SUCH_JOB, "No job 3.");
        ck_assert_int_eq(sd_bus_error_get_errno(&e), ENOENT);
        /* Registering again is harmless. */
        ck_assert_int_eq(proto_errors_register(), 0);
}
END_TEST

/* ---- Agent1 ---- */

START_TEST(test_agent1_names) {
        Agent1Resource r;
        Agent1Status st;

        for (unsigned i = 0; i < _AGENT1_RESOURCE_MAX; i++) {
                ck_assert_int_eq(agent1_resource_from_key(agent1_resource_to_key(i), &r), 0);
                ck_assert_int_eq(r, i);
                ck_assert_ptr_nonnull(strchr("utd", agent1_resource_type(i)));
        }
        for (unsigned i = 0; i < _AGENT1_STATUS_MAX; i++) {
                ck_assert_int_eq(agent1_status_from_string(agent1_status_to_string(i), &st), 0);
                ck_assert_int_eq(st, i);
        }
        ck_assert_str_eq(agent1_resource_to_key(AGENT1_CPU_CAP), "cpu-cap");
        ck_assert_int_eq(agent1_resource_type(AGENT1_MEMORY), 't');
        ck_assert_int_eq(agent1_resource_from_key("cpu-weigth", &r), -EINVAL);
        ck_assert_str_eq(agent1_status_to_string(AGENT1_DRY_RUN), "dry-run");
        ck_assert(agent1_status_taken(AGENT1_UNCHANGED));
        ck_assert(!agent1_status_taken(AGENT1_REFUSED));
        ck_assert(!agent1_status_taken(AGENT1_FAILED));
}
END_TEST

START_TEST(test_agent1_target_and_verdicts) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = new_call("SetTarget"), *reply = NULL;
        static const struct {
                Agent1Resource r;
                double value;
                const char *text;
        } target[] = {
                { AGENT1_CPU_WEIGHT, 512, "u 512" },
                { AGENT1_CPU_CAP, 1.5, "d 1.5" },
                { AGENT1_VCPUS, 3, "u 3" },
                { AGENT1_MEMORY, 3221225472.0, "t 3221225472" },
        };
        const Agent1Verdict verdicts[] = {
                { .resource = AGENT1_VCPUS,
                  .status = AGENT1_APPLIED,
                  .before = 2,
                  .after = 3,
                  .error = "",
                  .message = "" },
                { .resource = AGENT1_MEMORY,
                  .status = AGENT1_CLAMPED,
                  .before = 1073741824.0,
                  .after = 2147483648.0,
                  .error = AGENT1_ERROR_STEP_TOO_LARGE,
                  .message = "a step of at most 1G" },
                { .resource = AGENT1_CPU_CAP,
                  .status = AGENT1_REFUSED,
                  .before = -1,
                  .after = -1,
                  .error = AGENT1_ERROR_NOT_SUPPORTED,
                  .message = "no cap here" },
        };
        Agent1Verdict got;

        ck_assert_int_ge(sd_bus_message_open_container(m, 'a', "{sv}"), 0);
        for (size_t i = 0; i < ELEMENTSOF(target); i++)
                ck_assert_int_ge(agent1_target_entry_append(m, target[i].r, target[i].value), 0);
        ck_assert_int_ge(sd_bus_message_close_container(m), 0);
        seal(m);
        ck_assert_str_eq(sd_bus_message_get_signature(m, true), AGENT1_TARGET_TYPE);
        ck_assert_int_ge(sd_bus_message_enter_container(m, 'a', "{sv}"), 0);
        for (size_t i = 0; i < ELEMENTSOF(target); i++) {
                const char *key, *contents;
                char text[64];
                uint32_t u;
                uint64_t t;
                double d;

                ck_assert_int_gt(sd_bus_message_enter_container(m, 'e', "sv"), 0);
                ck_assert_int_gt(sd_bus_message_read(m, "s", &key), 0);
                ck_assert_str_eq(key, agent1_resource_to_key(target[i].r));
                ck_assert_int_gt(sd_bus_message_peek_type(m, NULL, &contents), 0);
                if (contents[0] == 'u') {
                        ck_assert_int_gt(sd_bus_message_read(m, "v", "u", &u), 0);
                        snprintf(text, sizeof(text), "u %u", u);
                } else if (contents[0] == 't') {
                        ck_assert_int_gt(sd_bus_message_read(m, "v", "t", &t), 0);
                        snprintf(text, sizeof(text), "t %llu", (unsigned long long)t);
                } else {
                        ck_assert_int_gt(sd_bus_message_read(m, "v", "d", &d), 0);
                        snprintf(text, sizeof(text), "d %g", d);
                }
                ck_assert_str_eq(text, target[i].text);
                ck_assert_int_ge(sd_bus_message_exit_container(m), 0);
        }

        ck_assert_int_ge(sd_bus_message_new_method_return(m, &reply), 0);
        ck_assert_int_ge(sd_bus_message_open_container(reply, 'a', "{" AGENT1_VERDICT_FIELDS "}"),
                         0);
        for (size_t i = 0; i < ELEMENTSOF(verdicts); i++)
                ck_assert_int_ge(agent1_verdict_append(reply, &verdicts[i]), 0);
        ck_assert_int_ge(sd_bus_message_close_container(reply), 0);
        seal(reply);
        ck_assert_str_eq(sd_bus_message_get_signature(reply, true), AGENT1_VERDICTS_TYPE);
        ck_assert_int_ge(sd_bus_message_enter_container(reply, 'a', "{" AGENT1_VERDICT_FIELDS "}"),
                         0);
        for (size_t i = 0; i < ELEMENTSOF(verdicts); i++) {
                ck_assert_int_eq(agent1_verdict_read(reply, &got), 1);
                ck_assert_int_eq(got.resource, verdicts[i].resource);
                ck_assert_int_eq(got.status, verdicts[i].status);
                ck_assert_double_eq(got.before, verdicts[i].before);
                ck_assert_double_eq(got.after, verdicts[i].after);
                ck_assert_str_eq(got.error, verdicts[i].error);
                ck_assert_str_eq(got.message, verdicts[i].message);
        }
        ck_assert_int_eq(agent1_verdict_read(reply, &got), 0);
}
END_TEST

/* Verdicts an agent of Agent1 never sends. */
static const struct {
        const char *what, *key, *status, *type;
} bad_verdicts[] = {
        { "an unknown key", "cpu-shares", "applied", "u" },
        { "an unknown status", "vcpus", "ok", "u" },
        { "a value of another type than its key's", "vcpus", "applied", "t" },
        { "a cap as a count", "cpu-cap", "refused", "u" },
};

START_TEST(test_agent1_bad_verdict) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = new_reply();
        Agent1Verdict got = { .message = "untouched" };
        char v[8];

        snprintf(v, sizeof(v), "%s", bad_verdicts[_i].type);
        ck_assert_int_ge(sd_bus_message_open_container(m, 'a', "{" AGENT1_VERDICT_FIELDS "}"), 0);
        ck_assert_int_ge(sd_bus_message_open_container(m, 'e', AGENT1_VERDICT_FIELDS), 0);
        ck_assert_int_ge(sd_bus_message_append(m, "s", bad_verdicts[_i].key), 0);
        ck_assert_int_ge(sd_bus_message_open_container(m, 'r', "svvss"), 0);
        ck_assert_int_ge(sd_bus_message_append(m, "s", bad_verdicts[_i].status), 0);
        for (int k = 0; k < 2; k++)
                ck_assert_int_ge(v[0] == 't' ? sd_bus_message_append(m, "v", "t", (uint64_t)3)
                                             : sd_bus_message_append(m, "v", "u", 3u),
                                 0);
        ck_assert_int_ge(sd_bus_message_append(m, "ss", "", ""), 0);
        ck_assert_int_ge(sd_bus_message_close_container(m), 0);
        ck_assert_int_ge(sd_bus_message_close_container(m), 0);
        ck_assert_int_ge(sd_bus_message_close_container(m), 0);
        seal(m);
        ck_assert_int_ge(sd_bus_message_enter_container(m, 'a', "{" AGENT1_VERDICT_FIELDS "}"), 0);
        ck_assert_msg(agent1_verdict_read(m, &got) == -EBADMSG, "%s", bad_verdicts[_i].what);
        ck_assert_str_eq(got.message, "untouched");
}
END_TEST

/* Version 5's fields 17-19 of a metrics reply, and the validity bits. */
typedef struct GuestFields {
        unsigned valid;
        const char *source;
        uint32_t guest_vcpus;
        const char *guest_agent;
} GuestFields;

/* A sample's metrics array of one domain, in the struct of signature type:
 * version 5's with the guest agent's fields g, version 4's with the age
 * and the target states, version 2's with the age, version 1's without. */
static sd_bus_message *metrics_reply_v5(const char *type, double age, const char *vcpus_target,
                                        const GuestFields *g) {
        sd_bus_message *m = new_reply();

        ck_assert_int_ge(sd_bus_message_open_container(m, 'a', type), 0);
        if (strcmp(type, AGENT1_METRICS_TYPE_V1) == 0)
                ck_assert_int_ge(sd_bus_message_append(m, type, "w1", "u1", "running", 2u, 4u,
                                                       (uint64_t)1024, (uint64_t)4096, 0.5, 0.25,
                                                       15u, 0u, -1.0, (uint64_t)0),
                                 0);
        else if (strcmp(type, AGENT1_METRICS_TYPE_V2) == 0)
                ck_assert_int_ge(sd_bus_message_append(m, type, "w1", "u1", "running", 2u, 4u,
                                                       (uint64_t)1024, (uint64_t)4096, 0.5, 0.25,
                                                       15u, 0u, -1.0, (uint64_t)0, age),
                                 0);
        else if (strcmp(type, AGENT1_METRICS_TYPE_V4) == 0)
                ck_assert_int_ge(sd_bus_message_append(m, type, "w1", "u1", "running", 2u, 4u,
                                                       (uint64_t)1024, (uint64_t)4096, 0.5, 0.25,
                                                       15u, 0u, -1.0, (uint64_t)0, age,
                                                       vcpus_target, AGENT1_TARGET_REACHED),
                                 0);
        else
                ck_assert_int_ge(sd_bus_message_append(m, type, "w1", "u1", "running", 2u, 4u,
                                                       (uint64_t)1024, (uint64_t)4096, 0.5, 0.25,
                                                       g->valid, 0u, -1.0, (uint64_t)0, age,
                                                       vcpus_target, AGENT1_TARGET_REACHED,
                                                       g->source, g->guest_vcpus, g->guest_agent),
                                 0);
        ck_assert_int_ge(sd_bus_message_close_container(m), 0);
        seal(m);
        return m;
}

static sd_bus_message *metrics_reply(const char *type, double age, const char *vcpus_target) {
        static const GuestFields answered = { 15u | AGENT1_METRIC_GUEST_VCPUS,
                                              AGENT1_SOURCE_GUEST_AGENT, 2,
                                              AGENT1_GUEST_AGENT_ANSWERED };

        return metrics_reply_v5(type, age, vcpus_target, &answered);
}

/* Version 5's fields an agent of Agent1 never sends. */
static const struct {
        const char *what;
        GuestFields g;
} bad_guest_fields[] = {
        { "a source only the controller has", { 15u, CONTROLLER1_SOURCE_TRACKER, 0, "" } },
        { "an unknown guest agent state", { 15u, "", 0, "hung" } },
        { "a count without an answer",
          { 15u | AGENT1_METRIC_GUEST_VCPUS, "", 2, AGENT1_GUEST_AGENT_UNRESPONSIVE } },
        { "a count beyond the maximum vCPUs",
          { 15u | AGENT1_METRIC_GUEST_VCPUS, "", 5, AGENT1_GUEST_AGENT_ANSWERED } },
        { "a count without its bit", { 15u, "", 2, AGENT1_GUEST_AGENT_ANSWERED } },
};

START_TEST(test_agent1_bad_guest_fields) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = metrics_reply_v5(
                AGENT1_METRICS_TYPE, 0.0, AGENT1_TARGET_REACHED, &bad_guest_fields[_i].g);
        Agent1MetricsShape shape;
        Agent1Metrics x;

        ck_assert_int_eq(agent1_metrics_enter(m, &shape), 0);
        ck_assert_int_eq(shape, AGENT1_METRICS_V5);
        ck_assert_msg(agent1_metrics_read(m, shape, &x) == -EBADMSG, "%s",
                      bad_guest_fields[_i].what);
}
END_TEST

/* Every version reads, the age 0 from version 1, no target state before
 * version 4 and no guest agent before version 5; another struct, an age
 * that is no time or a target state Agent1 does not have is refused. */
START_TEST(test_agent1_metrics_versions) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *v5 =
                metrics_reply(AGENT1_METRICS_TYPE, 0.5, AGENT1_TARGET_REACHED);
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *v4 =
                metrics_reply(AGENT1_METRICS_TYPE_V4, 1.5, AGENT1_TARGET_UNREACHED);
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *v2 =
                metrics_reply(AGENT1_METRICS_TYPE_V2, 7.5, NULL);
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *v1 =
                metrics_reply(AGENT1_METRICS_TYPE_V1, 0.0, NULL);
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *bad_age =
                metrics_reply(AGENT1_METRICS_TYPE_V2, -1.0, NULL);
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *bad_state =
                metrics_reply(AGENT1_METRICS_TYPE, 0.0, "done");
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *other = new_reply();
        Agent1MetricsShape shape;
        Agent1Metrics x;

        ck_assert_int_eq(agent1_metrics_enter(v5, &shape), 0);
        ck_assert_int_eq(shape, AGENT1_METRICS_V5);
        ck_assert_int_eq(agent1_metrics_read(v5, shape, &x), 1);
        ck_assert_double_eq(x.age, 0.5);
        ck_assert_str_eq(x.vcpus_target, AGENT1_TARGET_REACHED);
        ck_assert_str_eq(x.vcpus_target_source, AGENT1_SOURCE_GUEST_AGENT);
        ck_assert_uint_eq(x.guest_vcpus, 2);
        ck_assert_str_eq(x.guest_agent, AGENT1_GUEST_AGENT_ANSWERED);
        ck_assert_int_eq(agent1_metrics_read(v5, shape, &x), 0);

        ck_assert_int_eq(agent1_metrics_enter(v4, &shape), 0);
        ck_assert_int_eq(shape, AGENT1_METRICS_V4);
        ck_assert_int_eq(agent1_metrics_read(v4, shape, &x), 1);
        ck_assert_double_eq(x.age, 1.5);
        ck_assert_str_eq(x.vcpus_target, AGENT1_TARGET_UNREACHED);
        ck_assert_str_eq(x.memory_target, AGENT1_TARGET_REACHED);
        ck_assert_str_eq(x.vcpus_target_source, "");
        ck_assert_uint_eq(x.guest_vcpus, 0);
        ck_assert_str_eq(x.guest_agent, "");
        ck_assert_int_eq(agent1_metrics_read(v4, shape, &x), 0);

        ck_assert_int_eq(agent1_metrics_enter(v2, &shape), 0);
        ck_assert_int_eq(shape, AGENT1_METRICS_V2);
        ck_assert_int_eq(agent1_metrics_read(v2, shape, &x), 1);
        ck_assert_str_eq(x.name, "w1");
        ck_assert_double_eq(x.steal, 0.25);
        ck_assert_double_eq(x.age, 7.5);
        ck_assert_str_eq(x.vcpus_target, "");
        ck_assert_str_eq(x.memory_target, "");
        ck_assert_int_eq(agent1_metrics_read(v2, shape, &x), 0);

        ck_assert_int_eq(agent1_metrics_enter(v1, &shape), 0);
        ck_assert_int_eq(shape, AGENT1_METRICS_V1);
        ck_assert_int_eq(agent1_metrics_read(v1, shape, &x), 1);
        ck_assert_str_eq(x.uuid, "u1");
        ck_assert_uint_eq(x.valid, 15);
        ck_assert_double_eq(x.age, 0.0);

        ck_assert_int_eq(agent1_metrics_enter(bad_age, &shape), 0);
        ck_assert_int_eq(agent1_metrics_read(bad_age, shape, &x), -EBADMSG);
        ck_assert_int_eq(agent1_metrics_enter(bad_state, &shape), 0);
        ck_assert_int_eq(agent1_metrics_read(bad_state, shape, &x), -EBADMSG);

        ck_assert_int_ge(sd_bus_message_append(other, "a(ss)", 1, "a", "b"), 0);
        seal(other);
        ck_assert_int_eq(agent1_metrics_enter(other, &shape), -EBADMSG);
}
END_TEST

Suite *suite_proto(void) {
        Suite *s = suite_create("proto");
        TCase *tc;

        tc = tcase_create("tracker1");
        tcase_add_checked_fixture(tc, bus_setup, bus_teardown);
        tcase_add_test(tc, test_names);
        tcase_add_test(tc, test_register_round_trip);
        tcase_add_test(tc, test_heartbeat_round_trip);
        tcase_add_test(tc, test_heartbeat_v1);
        tcase_add_test(tc, test_heartbeat_v2);
        tcase_add_test(tc, test_reply_round_trip);
        tcase_add_loop_test(tc, test_bad_message, 0, (int)ELEMENTSOF(bad_messages));
        tcase_add_test(tc, test_bad_register);
        suite_add_tcase(s, tc);

        tc = tcase_create("agent1");
        tcase_add_checked_fixture(tc, bus_setup, bus_teardown);
        tcase_add_test(tc, test_agent1_names);
        tcase_add_test(tc, test_agent1_target_and_verdicts);
        tcase_add_test(tc, test_agent1_metrics_versions);
        tcase_add_loop_test(tc, test_agent1_bad_guest_fields, 0, (int)ELEMENTSOF(bad_guest_fields));
        tcase_add_loop_test(tc, test_agent1_bad_verdict, 0, (int)ELEMENTSOF(bad_verdicts));
        suite_add_tcase(s, tc);

        tc = tcase_create("errors");
        tcase_add_checked_fixture(tc, bus_setup, bus_teardown);
        tcase_add_test(tc, test_error_names);
        suite_add_tcase(s, tc);
        return s;
}

/* SPDX-License-Identifier: MIT */
/* org.flexslot.Tracker1's messages, built and read (tracker1.h). */
#include "tracker1.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "proto/errors.h"

static const char *const task_type_names[_TRACKER1_TASK_TYPE_MAX] = {
        [TRACKER1_MAP] = "map",
        [TRACKER1_REDUCE] = "reduce",
};

static const char *const status_names[_TRACKER1_STATUS_MAX] = {
        [TRACKER1_SUCCEEDED] = "succeeded",
        [TRACKER1_FAILED] = "failed",
        [TRACKER1_KILLED] = "killed",
};

static int name_lookup(const char *const *names, unsigned n, const char *s, unsigned *ret) {
        for (unsigned i = 0; i < n; i++)
                if (strcmp(s, names[i]) == 0) {
                        *ret = i;
                        return 0;
                }
        return -EINVAL;
}

const char *tracker1_task_type_to_string(Tracker1TaskType t) {
        return (unsigned)t < _TRACKER1_TASK_TYPE_MAX ? task_type_names[t] : NULL;
}

int tracker1_task_type_from_string(const char *s, Tracker1TaskType *ret) {
        unsigned i;
        int r = name_lookup(task_type_names, _TRACKER1_TASK_TYPE_MAX, s, &i);

        if (r >= 0)
                *ret = (Tracker1TaskType)i;
        return r;
}

const char *tracker1_status_to_string(Tracker1Status s) {
        return (unsigned)s < _TRACKER1_STATUS_MAX ? status_names[s] : NULL;
}

int tracker1_status_from_string(const char *s, Tracker1Status *ret) {
        unsigned i;
        int r = name_lookup(status_names, _TRACKER1_STATUS_MAX, s, &i);

        if (r >= 0)
                *ret = (Tracker1Status)i;
        return r;
}

bool tracker1_version_served(uint32_t version) {
        return version >= TRACKER1_VERSION_MIN && version <= TRACKER1_VERSION;
}

/* A message that does not read as the protocol has it: -EBADMSG, and the
 * error name with the field in *error. What sd-bus could not allocate
 * stays -ENOMEM. */
static int bad_field(sd_bus_error *error, const char *name, const char *what, const char *field,
                     int r) {
        if (r == -ENOMEM)
                return r;
        if (error)
                (void)sd_bus_error_setf(error, name, "Invalid %s field %s.", what, field);
        return -EBADMSG;
}

#define BAD_ARGS(field, r) bad_field(error, SD_BUS_ERROR_INVALID_ARGS, "Register", field, r)
#define BAD_HEARTBEAT(field, r) \
        bad_field(error, TRACKER1_ERROR_INVALID_HEARTBEAT, "heartbeat", field, r)
#define BAD_REPLY(field, r) bad_field(error, TRACKER1_ERROR_INVALID_REPLY, "reply", field, r)

/* sd_bus_message_read() of one complete value: 0 (the end of the message)
 * is a value missing. */
static int read_one(sd_bus_message *m, const char *types, ...) {
        va_list ap;
        int r;

        va_start(ap, types);
        r = sd_bus_message_readv(m, types, ap);
        va_end(ap);
        return r == 0 ? -ENXIO : r;
}

/* Room for one more element of an array of *n, up to max elements. */
static int grow(void **array, size_t *cap, size_t n, size_t size, size_t max) {
        void *p;

        if (n >= max)
                return -E2BIG;
        if (n < *cap)
                return 0;
        p = reallocarray(*array, MIN((n + 1) * 2, max), size);
        if (!p)
                return -ENOMEM;
        *array = p;
        *cap = MIN((n + 1) * 2, max);
        return 0;
}

/* ---- Register ---- */

int tracker1_register_append(sd_bus_message *m, const Tracker1Registration *x) {
        return sd_bus_message_append(m, TRACKER1_REGISTER_TYPE, x->version, x->token, x->vm_uuid,
                                     x->hostname, x->slots[TRACKER1_MAP], x->slots[TRACKER1_REDUCE],
                                     x->slot_memory);
}

int tracker1_register_read(sd_bus_message *m, Tracker1Registration *ret, sd_bus_error *error) {
        Tracker1Registration x = { 0 };
        int r;

        r = read_one(m, "u", &x.version);
        if (r < 0)
                return BAD_ARGS("version", r);
        /* The rest of the signature, after the version read above. */
        r = read_one(m, &TRACKER1_REGISTER_TYPE[1], &x.token, &x.vm_uuid, &x.hostname,
                     &x.slots[TRACKER1_MAP], &x.slots[TRACKER1_REDUCE], &x.slot_memory);
        if (r < 0)
                return BAD_ARGS("slots", r);
        *ret = x;
        return 0;
}

int tracker1_registered_append(sd_bus_message *m, const Tracker1Registered *x) {
        return sd_bus_message_append(m, TRACKER1_REGISTERED_TYPE, x->tracker, x->interval);
}

int tracker1_registered_read(sd_bus_message *m, Tracker1Registered *ret, sd_bus_error *error) {
        Tracker1Registered x;
        int r;

        r = read_one(m, TRACKER1_REGISTERED_TYPE, &x.tracker, &x.interval);
        if (r < 0)
                return BAD_REPLY("tracker", r);
        *ret = x;
        return 0;
}

/* ---- Heartbeat ---- */

int tracker1_heartbeat_append(sd_bus_message *m, const Tracker1Report *x) {
        int r;

        r = sd_bus_message_append(m, "t" TRACKER1_NODE_TYPE, x->tracker,
                                  x->free_slots[TRACKER1_MAP], x->free_slots[TRACKER1_REDUCE],
                                  x->steal, x->iowait);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', TRACKER1_RUNNING_TYPE);
        for (size_t i = 0; i < x->n_running && r >= 0; i++) {
                const Tracker1Running *y = &x->running[i];

                r = sd_bus_message_append(m, TRACKER1_RUNNING_TYPE, y->attempt, y->progress,
                                          y->bytes_processed, y->input_size, y->cpu_time,
                                          y->iowait_time);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', TRACKER1_FINISHED_TYPE);
        for (size_t i = 0; i < x->n_finished && r >= 0; i++) {
                const Tracker1Finished *y = &x->finished[i];
                const char *status = tracker1_status_to_string(y->status);

                r = status ? sd_bus_message_append(m, TRACKER1_FINISHED_TYPE, y->attempt, status,
                                                   y->input_bytes, y->output_bytes,
                                                   y->output ? y->output : "",
                                                   y->reason ? y->reason : "", y->run_time,
                                                   y->since_end, y->cpu_time, y->blkio_delay)
                           : -EINVAL;
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

static int read_running(sd_bus_message *m, Tracker1Report *x, sd_bus_error *error) {
        size_t cap = 0;
        int r;

        r = sd_bus_message_enter_container(m, 'a', TRACKER1_RUNNING_TYPE);
        if (r <= 0)
                return BAD_HEARTBEAT("running", r ?: -ENXIO);
        for (;;) {
                Tracker1Running y;

                r = sd_bus_message_read(m, TRACKER1_RUNNING_TYPE, &y.attempt, &y.progress,
                                        &y.bytes_processed, &y.input_size, &y.cpu_time,
                                        &y.iowait_time);
                if (r <= 0)
                        break;
                r = grow((void **)&x->running, &cap, x->n_running, sizeof(*x->running),
                         TRACKER1_REPORT_MAX);
                if (r < 0)
                        break;
                x->running[x->n_running++] = y;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        return r < 0 ? BAD_HEARTBEAT("running", r) : 0;
}

static int read_finished(sd_bus_message *m, Tracker1Report *x, sd_bus_error *error) {
        const char *contents = NULL, *type;
        size_t cap = 0;
        unsigned revision;
        int r;

        /* Revision 1's attempts carry no times, and 2's no use. */
        r = sd_bus_message_peek_type(m, NULL, &contents);
        if (r <= 0 || !contents)
                return BAD_HEARTBEAT("finished", r ?: -ENXIO);
        revision = strcmp(contents, TRACKER1_FINISHED_TYPE) == 0      ? 3
                   : strcmp(contents, TRACKER1_FINISHED_V2_TYPE) == 0 ? 2
                                                                      : 1;
        type = revision == 3   ? TRACKER1_FINISHED_TYPE
               : revision == 2 ? TRACKER1_FINISHED_V2_TYPE
                               : TRACKER1_FINISHED_V1_TYPE;
        r = sd_bus_message_enter_container(m, 'a', type);
        if (r <= 0)
                return BAD_HEARTBEAT("finished", r ?: -ENXIO);
        for (;;) {
                Tracker1Finished y = { .usage = revision >= 3 };
                const char *status;

                if (revision == 3)
                        r = sd_bus_message_read(m, type, &y.attempt, &status, &y.input_bytes,
                                                &y.output_bytes, &y.output, &y.reason, &y.run_time,
                                                &y.since_end, &y.cpu_time, &y.blkio_delay);
                else if (revision == 2)
                        r = sd_bus_message_read(m, type, &y.attempt, &status, &y.input_bytes,
                                                &y.output_bytes, &y.output, &y.reason, &y.run_time,
                                                &y.since_end);
                else
                        r = sd_bus_message_read(m, type, &y.attempt, &status, &y.input_bytes,
                                                &y.output_bytes, &y.output, &y.reason);
                if (r <= 0)
                        break;
                if (tracker1_status_from_string(status, &y.status) < 0)
                        return BAD_HEARTBEAT("status", -EINVAL);
                r = grow((void **)&x->finished, &cap, x->n_finished, sizeof(*x->finished),
                         TRACKER1_REPORT_MAX);
                if (r < 0)
                        break;
                x->finished[x->n_finished++] = y;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        return r < 0 ? BAD_HEARTBEAT("finished", r) : 0;
}

int tracker1_heartbeat_read(sd_bus_message *m, Tracker1Report *ret, sd_bus_error *error) {
        _cleanup_(tracker1_report_done) Tracker1Report x = { 0 };
        int r;

        r = read_one(m, "t", &x.tracker);
        if (r < 0)
                return BAD_HEARTBEAT("tracker", r);
        r = read_one(m, TRACKER1_NODE_TYPE, &x.free_slots[TRACKER1_MAP],
                     &x.free_slots[TRACKER1_REDUCE], &x.steal, &x.iowait);
        if (r < 0)
                return BAD_HEARTBEAT("node", r);
        r = read_running(m, &x, error);
        if (r >= 0)
                r = read_finished(m, &x, error);
        if (r < 0)
                return r;
        *ret = x;
        x = (Tracker1Report){ 0 };
        return 0;
}

void tracker1_report_done(Tracker1Report *x) {
        free(x->running);
        free(x->finished);
        x->running = NULL;
        x->finished = NULL;
        x->n_running = x->n_finished = 0;
}

/* ---- Heartbeat's reply ---- */

static int append_assignment(sd_bus_message *m, const Tracker1Assignment *a) {
        const char *type = tracker1_task_type_to_string(a->type),
                   *slot = tracker1_task_type_to_string(a->slot);
        int r;

        if (!type || !slot)
                return -EINVAL;
        r = sd_bus_message_open_container(m, 'r', TRACKER1_ASSIGNMENT_FIELDS);
        if (r >= 0)
                r = sd_bus_message_append(m, "ttsuuss", a->attempt, a->job, type, a->index,
                                          a->partitions, a->app ? a->app : "",
                                          a->command ? a->command : "");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "s");
        for (size_t i = 0; i < a->n_inputs && r >= 0; i++)
                r = sd_bus_message_append_basic(m, 's', a->inputs[i]);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_append(m, "ts", a->slot_memory, slot);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

int tracker1_reply_append(sd_bus_message *m, const Tracker1Reply *x) {
        int r;

        r = sd_bus_message_open_container(m, 'a', TRACKER1_ASSIGNMENT_TYPE);
        for (size_t i = 0; i < x->n_assignments && r >= 0; i++)
                r = append_assignment(m, &x->assignments[i]);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "t");
        for (size_t i = 0; i < x->n_kills && r >= 0; i++)
                r = sd_bus_message_append_basic(m, 't', &x->kills[i].attempt);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_append(m, TRACKER1_SLOTS_TYPE, x->slots[TRACKER1_MAP],
                                          x->slots[TRACKER1_REDUCE], x->slot_memory);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "s");
        for (size_t i = 0; i < x->n_kills && r >= 0; i++)
                r = sd_bus_message_append_basic(m, 's',
                                                x->kills[i].reason ? x->kills[i].reason : "");
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

/* One assignment, its struct entered: the field at fault in *ret_field. */
static int read_assignment(sd_bus_message *m, Tracker1Assignment *a, const char **ret_field) {
        const char *type, *slot, *input;
        size_t cap = 0;
        int r;

        *ret_field = "assignments";
        r = read_one(m, "ttsuuss", &a->attempt, &a->job, &type, &a->index, &a->partitions, &a->app,
                     &a->command);
        if (r < 0)
                return r;
        *ret_field = "type";
        if (tracker1_task_type_from_string(type, &a->type) < 0)
                return -EINVAL;
        *ret_field = "inputs";
        r = sd_bus_message_enter_container(m, 'a', "s");
        if (r <= 0)
                return r ?: -ENXIO;
        while ((r = sd_bus_message_read_basic(m, 's', &input)) > 0) {
                r = grow((void **)&a->inputs, &cap, a->n_inputs, sizeof(*a->inputs), SIZE_MAX);
                if (r < 0)
                        return r;
                a->inputs[a->n_inputs++] = input;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        *ret_field = "slot";
        r = read_one(m, "ts", &a->slot_memory, &slot);
        if (r < 0)
                return r;
        if (tracker1_task_type_from_string(slot, &a->slot) < 0)
                return -EINVAL;
        return sd_bus_message_exit_container(m);
}

static int read_assignments(sd_bus_message *m, Tracker1Reply *x, sd_bus_error *error) {
        const char *field = "assignments";
        size_t cap = 0;
        int r;

        r = sd_bus_message_enter_container(m, 'a', TRACKER1_ASSIGNMENT_TYPE);
        if (r <= 0)
                return BAD_REPLY(field, r ?: -ENXIO);
        while ((r = sd_bus_message_enter_container(m, 'r', TRACKER1_ASSIGNMENT_FIELDS)) > 0) {
                r = grow((void **)&x->assignments, &cap, x->n_assignments, sizeof(*x->assignments),
                         SIZE_MAX);
                if (r < 0)
                        return r;
                x->assignments[x->n_assignments] = (Tracker1Assignment){ 0 };
                /* Counted first, so that its inputs are freed with it. */
                r = read_assignment(m, &x->assignments[x->n_assignments++], &field);
                if (r < 0)
                        return BAD_REPLY(field, r);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        return r < 0 ? BAD_REPLY(field, r) : 0;
}

static int read_kills(sd_bus_message *m, Tracker1Reply *x, sd_bus_error *error) {
        const uint64_t *attempts;
        const char *reason;
        size_t size, n = 0;
        int r;

        r = sd_bus_message_read_array(m, 't', (const void **)&attempts, &size);
        if (r < 0)
                return BAD_REPLY("kills", r);
        if (size > 0) {
                x->kills = calloc(size / sizeof(uint64_t), sizeof(Tracker1Kill));
                if (!x->kills)
                        return -ENOMEM;
        }
        for (; x->n_kills < size / sizeof(uint64_t); x->n_kills++)
                x->kills[x->n_kills].attempt = attempts[x->n_kills];
        r = read_one(m, TRACKER1_SLOTS_TYPE, &x->slots[TRACKER1_MAP], &x->slots[TRACKER1_REDUCE],
                     &x->slot_memory);
        if (r < 0)
                return BAD_REPLY("slots", r);
        r = sd_bus_message_enter_container(m, 'a', "s");
        if (r <= 0)
                return BAD_REPLY("kill-reasons", r ?: -ENXIO);
        while ((r = sd_bus_message_read_basic(m, 's', &reason)) > 0) {
                if (n == x->n_kills)
                        return BAD_REPLY("kill-reasons", -E2BIG);
                x->kills[n++].reason = reason;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r < 0 || n != x->n_kills)
                return BAD_REPLY("kill-reasons", r < 0 ? r : -EINVAL);
        return 0;
}

int tracker1_reply_read(sd_bus_message *m, Tracker1Reply *ret, sd_bus_error *error) {
        _cleanup_(tracker1_reply_done) Tracker1Reply x = { 0 };
        int r;

        r = read_assignments(m, &x, error);
        if (r >= 0)
                r = read_kills(m, &x, error);
        if (r < 0)
                return r;
        *ret = x;
        x = (Tracker1Reply){ 0 };
        return 0;
}

void tracker1_reply_done(Tracker1Reply *x) {
        for (size_t i = 0; i < x->n_assignments; i++)
                free(x->assignments[i].inputs);
        free(x->assignments);
        free(x->kills);
        *x = (Tracker1Reply){ 0 };
}

/* ---- ReportGuest ---- */

int tracker1_guest_append(sd_bus_message *m, const Tracker1Guest *x) {
        return sd_bus_message_append(m, "t" TRACKER1_GUEST_TYPE, x->tracker,
                                     x->steal_estimated ? "estimate" : "proc", x->cpus, x->memory);
}

int tracker1_guest_read(sd_bus_message *m, Tracker1Guest *ret, sd_bus_error *error) {
        Tracker1Guest x = { 0 };
        const char *source;
        int r;

        r = read_one(m, "t" TRACKER1_GUEST_TYPE, &x.tracker, &source, &x.cpus, &x.memory);
        if (r < 0)
                return BAD_HEARTBEAT("guest", r);
        if (strcmp(source, "proc") != 0 && strcmp(source, "estimate") != 0)
                return sd_bus_error_setf(error, TRACKER1_ERROR_INVALID_HEARTBEAT,
                                         "Invalid guest field steal-source '%.32s'.", source);
        if (x.cpus < 1 || x.cpus > TRACKER1_GUEST_CPUS_MAX)
                return sd_bus_error_setf(error, TRACKER1_ERROR_INVALID_HEARTBEAT,
                                         "Invalid guest field cpus %u: not 1..%d.", x.cpus,
                                         TRACKER1_GUEST_CPUS_MAX);
        if (x.memory < TRACKER1_SLOT_MEMORY_MIN || x.memory > TRACKER1_SLOT_MEMORY_MAX)
                return sd_bus_error_setf(error, TRACKER1_ERROR_INVALID_HEARTBEAT,
                                         "Invalid guest field memory %" PRIu64 ": not 1M..1T.",
                                         x.memory);
        x.steal_estimated = strcmp(source, "estimate") == 0;
        *ret = x;
        return 0;
}

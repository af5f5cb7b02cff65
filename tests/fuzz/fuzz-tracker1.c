/* SPDX-License-Identifier: MIT */
/* libFuzzer: org.flexslot.Tracker1's decoders (proto/tracker1.c), the
 * controller's reading of a tracker's Register, Heartbeat and ReportGuest
 * and the tracker's reading of the replies, on messages of any shape. The
 * input is a signature, a line of its own, then the values as bus-shape.h
 * draws them from bytes. Every decoder reads the sealed message; what one
 * accepts must hold to the protocol's limits, and a refusal must carry a
 * named error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "tests/fuzz/bus-shape.h"
#include "proto/errors.h"
#include "proto/tracker1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A started bus, for building messages: sd-bus builds them for no other.
 * It is never read or written. */
static sd_bus *message_bus(void) {
        static sd_bus *bus;
        int fds[2];

        if (bus)
                return bus;
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0 || sd_bus_new(&bus) < 0 ||
            sd_bus_set_fd(bus, fds[0], fds[0]) < 0 || sd_bus_set_anonymous(bus, 1) < 0 ||
            sd_bus_start(bus) < 0 || proto_errors_register() < 0)
                abort();
        return bus;
}

/* A refusal carries a name of the protocol's or sd-bus's, and a message. */
static void check_refusal(int r, sd_bus_error *e) {
        if (r >= 0)
                return;
        if (!sd_bus_error_is_set(e) || !e->message ||
            (strncmp(e->name, "org.flexslot.Tracker1.Error.", 28) != 0 &&
             strncmp(e->name, "org.freedesktop.DBus.Error.", 27) != 0))
                abort();
        sd_bus_error_free(e);
}

static void check_text(const char *s) {
        if (!s)
                abort();
}

static void read_all(sd_bus_message *m) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        Tracker1Registration reg;
        Tracker1Registered registered;
        Tracker1Report report = { 0 };
        Tracker1Reply reply = { 0 };
        Tracker1Guest guest;
        int r;

        if (sd_bus_message_rewind(m, true) < 0)
                abort();
        r = tracker1_register_read(m, &reg, &e);
        if (r >= 0) {
                check_text(reg.token);
                check_text(reg.vm_uuid);
                check_text(reg.hostname);
        }
        check_refusal(r, &e);

        (void)sd_bus_message_rewind(m, true);
        check_refusal(tracker1_registered_read(m, &registered, &e), &e);

        (void)sd_bus_message_rewind(m, true);
        r = tracker1_heartbeat_read(m, &report, &e);
        if (r >= 0) {
                if (report.n_running > TRACKER1_REPORT_MAX ||
                    report.n_finished > TRACKER1_REPORT_MAX)
                        abort();
                for (size_t i = 0; i < report.n_finished; i++) {
                        if (report.finished[i].status >= _TRACKER1_STATUS_MAX)
                                abort();
                        check_text(report.finished[i].output);
                        check_text(report.finished[i].reason);
                }
                tracker1_report_done(&report);
        }
        check_refusal(r, &e);

        (void)sd_bus_message_rewind(m, true);
        r = tracker1_reply_read(m, &reply, &e);
        if (r >= 0) {
                for (size_t i = 0; i < reply.n_assignments; i++) {
                        const Tracker1Assignment *a = &reply.assignments[i];

                        if (a->type >= _TRACKER1_TASK_TYPE_MAX ||
                            a->slot >= _TRACKER1_TASK_TYPE_MAX)
                                abort();
                        check_text(a->app);
                        check_text(a->command);
                        for (size_t k = 0; k < a->n_inputs; k++)
                                check_text(a->inputs[k]);
                }
                for (size_t i = 0; i < reply.n_kills; i++)
                        check_text(reply.kills[i].reason);
                tracker1_reply_done(&reply);
        }
        check_refusal(r, &e);

        (void)sd_bus_message_rewind(m, true);
        r = tracker1_guest_read(m, &guest, &e);
        if (r >= 0 && (guest.cpus > TRACKER1_GUEST_CPUS_MAX))
                abort();
        check_refusal(r, &e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static uint64_t cookie;
        sd_bus_message *m = NULL;
        const uint8_t *nl =
                memchr(data, '\n', size < BUS_SHAPE_SIGNATURE_MAX ? size : BUS_SHAPE_SIGNATURE_MAX);
        char sig[BUS_SHAPE_SIGNATURE_MAX + 1];
        BusShapeInput in;
        int r;

        if (!nl)
                return 0;
        memcpy(sig, data, (size_t)(nl - data));
        sig[nl - data] = '\0';
        in = (BusShapeInput){ .p = nl + 1, .n = size - (size_t)(nl - data) - 1 };
        r = sd_bus_message_new_method_call(message_bus(), &m, NULL, TRACKER1_OBJECT_PATH,
                                           TRACKER1_INTERFACE, "Heartbeat");
        if (r >= 0)
                r = bus_shape_append(m, sig, &in);
        if (r >= 0)
                r = sd_bus_message_seal(m, ++cookie, 0);
        if (r >= 0)
                read_all(m);
        sd_bus_message_unref(m);
        return 0;
}

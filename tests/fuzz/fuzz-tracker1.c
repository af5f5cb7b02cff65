/* SPDX-License-Identifier: MIT */
/* libFuzzer: org.flexslot.Tracker1's decoders (proto/tracker1.c), the
 * controller's reading of a tracker's Register, Heartbeat and ReportGuest
 * and the tracker's reading of the replies, on messages of any shape. The
 * input is a signature, a line of its own, then the values: a byte per y
 * and b, 4 per u, 8 per t and d (NaN and infinities too), a length byte and
 * that many bytes per s (made 7-bit and NUL-free, as sd-bus carries only
 * UTF-8), a count byte per array (below 200 up to 19 elements, above it
 * hundreds, past TRACKER1_REPORT_MAX). Values past the input's end are 0.
 * Every decoder reads the sealed message; what one accepts must hold to the
 * protocol's limits, and a refusal must carry a named error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "proto/errors.h"
#include "proto/tracker1.h"

#define SIGNATURE_MAX 64
#define DEPTH_MAX 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct Input {
        const uint8_t *p;
        size_t n;
} Input;

static void take(Input *in, void *buf, size_t k) {
        size_t m = in->n < k ? in->n : k;

        memset(buf, 0, k);
        memcpy(buf, in->p, m);
        in->p += m;
        in->n -= m;
}

static unsigned take_byte(Input *in) {
        uint8_t b;

        take(in, &b, 1);
        return b;
}

/* The length of the complete type at sig, 0 for none. */
static size_t complete_type(const char *sig) {
        size_t k, n;

        switch (sig[0]) {
        case 'y':
        case 'b':
        case 'u':
        case 't':
        case 'd':
        case 's':
                return 1;
        case 'a':
                n = complete_type(sig + 1);
                return n ? n + 1 : 0;
        case '(':
                for (n = 1; sig[n] && sig[n] != ')'; n += k) {
                        k = complete_type(sig + n);
                        if (!k)
                                return 0;
                }
                return sig[n] == ')' && n > 1 ? n + 1 : 0;
        default:
                return 0;
        }
}

/* Appends one value of the complete type sig[0..len). */
static int append_value(sd_bus_message *m, const char *sig, size_t len, Input *in, int depth) {
        char inner[SIGNATURE_MAX + 1];
        int r = 0;

        if (depth > DEPTH_MAX)
                return -E2BIG;
        switch (sig[0]) {
        case 'y': {
                uint8_t v = (uint8_t)take_byte(in);
                return sd_bus_message_append_basic(m, 'y', &v);
        }
        case 'b': {
                int v = take_byte(in) & 1;
                return sd_bus_message_append_basic(m, 'b', &v);
        }
        case 'u': {
                uint32_t v;
                take(in, &v, sizeof(v));
                return sd_bus_message_append_basic(m, 'u', &v);
        }
        case 't': {
                uint64_t v;
                take(in, &v, sizeof(v));
                return sd_bus_message_append_basic(m, 't', &v);
        }
        case 'd': {
                double v;
                take(in, &v, sizeof(v));
                return sd_bus_message_append_basic(m, 'd', &v);
        }
        case 's': {
                char s[256];
                size_t n = take_byte(in);

                take(in, s, n);
                for (size_t i = 0; i < n; i++) {
                        s[i] &= 0x7f;
                        if (s[i] == '\0')
                                s[i] = '0';
                }
                s[n] = '\0';
                return sd_bus_message_append_basic(m, 's', s);
        }
        case 'a': {
                unsigned c = take_byte(in);
                size_t count = c < 200 ? c % 20 : (size_t)(c - 199) * 100;

                memcpy(inner, sig + 1, len - 1);
                inner[len - 1] = '\0';
                r = sd_bus_message_open_container(m, 'a', inner);
                for (size_t i = 0; i < count && r >= 0; i++)
                        r = append_value(m, inner, len - 1, in, depth + 1);
                return r < 0 ? r : sd_bus_message_close_container(m);
        }
        case '(':
                memcpy(inner, sig + 1, len - 2);
                inner[len - 2] = '\0';
                r = sd_bus_message_open_container(m, 'r', inner);
                for (size_t i = 1; i < len - 1 && r >= 0;) {
                        size_t k = complete_type(sig + i);

                        r = append_value(m, sig + i, k, in, depth + 1);
                        i += k;
                }
                return r < 0 ? r : sd_bus_message_close_container(m);
        default:
                return -EINVAL;
        }
}

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
        const uint8_t *nl = memchr(data, '\n', size < SIGNATURE_MAX ? size : SIGNATURE_MAX);
        char sig[SIGNATURE_MAX + 1];
        Input in;
        int r;

        if (!nl)
                return 0;
        memcpy(sig, data, (size_t)(nl - data));
        sig[nl - data] = '\0';
        in = (Input){ .p = nl + 1, .n = size - (size_t)(nl - data) - 1 };
        r = sd_bus_message_new_method_call(message_bus(), &m, NULL, TRACKER1_OBJECT_PATH,
                                           TRACKER1_INTERFACE, "Heartbeat");
        for (size_t i = 0; r >= 0 && sig[i];) {
                size_t k = complete_type(sig + i);

                r = k ? append_value(m, sig + i, k, &in, 0) : -EINVAL;
                i += k;
        }
        if (r >= 0)
                r = sd_bus_message_seal(m, ++cookie, 0);
        if (r >= 0)
                read_all(m);
        sd_bus_message_unref(m);
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* The calls to org.flexslot.Controller1 and their output. Replies are read
 * by the columns a command names, so one reader serves every method: the
 * tab output has a row per record and a field per column, in the method's
 * order; JSON has an object per record with the columns as keys. */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/json.h"
#include "common/macro.h"
#include "proto/controller1.h"
#include "ctl.h"

#define COLUMNS_MAX 32

typedef union CtlValue {
        uint64_t u;
        double d;
        const char *s;
} CtlValue;

static int connect_bus(Ctl *ctl) {
        _cleanup_(sd_bus_unrefp) sd_bus *bus = NULL;
        int r;

        if (ctl->bus)
                return 0;
        if (!ctl->address)
                r = sd_bus_open_system(&bus);
        else {
                r = sd_bus_new(&bus);
                if (r >= 0)
                        r = sd_bus_set_address(bus, ctl->address);
                if (r >= 0)
                        r = sd_bus_set_bus_client(bus, 1);
                if (r >= 0)
                        r = sd_bus_start(bus);
        }
        if (r < 0) {
                fprintf(stderr, "%s: cannot connect to %s: %s\n", CTL_PROGRAM,
                        ctl->address ? ctl->address : "the system bus", strerror(-r));
                return r;
        }
        ctl->bus = TAKE_PTR(bus);
        return 0;
}

int ctl_new_call(Ctl *ctl, const char *method, sd_bus_message **ret) {
        int r;

        r = connect_bus(ctl);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_call(ctl->bus, ret, CONTROLLER1_BUS_NAME,
                                           CONTROLLER1_OBJECT_PATH, CONTROLLER1_INTERFACE, method);
        if (r < 0)
                fprintf(stderr, "%s: cannot build the call of %s: %s\n", CTL_PROGRAM, method,
                        strerror(-r));
        return r;
}

int ctl_send(Ctl *ctl, sd_bus_message *m, sd_bus_message **ret_reply) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_call(ctl->bus, m, 0, &error, ret_reply);
        if (r < 0) {
                if (sd_bus_error_is_set(&error))
                        fprintf(stderr, "%s: %s: %s\n", CTL_PROGRAM, error.name,
                                error.message ? error.message : strerror(-r));
                else
                        fprintf(stderr, "%s: %s failed: %s\n", CTL_PROGRAM,
                                sd_bus_message_get_member(m), strerror(-r));
        }
        sd_bus_error_free(&error);
        return r;
}

static int bad_reply(int r) {
        fprintf(stderr, "%s: the controller's reply does not read as expected: %s\n", CTL_PROGRAM,
                strerror(-r));
        return r;
}

static void signature(const CtlColumn *cols, size_t n, char *buf) {
        for (size_t i = 0; i < n; i++)
                buf[i] = cols[i].type;
        buf[n] = '\0';
}

static int read_fields(sd_bus_message *m, const CtlColumn *cols, size_t n, CtlValue *v) {
        int r = 0;

        for (size_t i = 0; i < n && r >= 0; i++) {
                const char *contents;
                uint32_t u32;
                int b;

                switch (cols[i].type) {
                case 'u':
                        r = sd_bus_message_read_basic(m, 'u', &u32);
                        v[i].u = u32;
                        break;
                case 'b':
                        r = sd_bus_message_read_basic(m, 'b', &b);
                        v[i].u = b;
                        break;
                case 'v':
                        r = sd_bus_message_peek_type(m, NULL, &contents);
                        if (r > 0 && strcmp(contents, "u") == 0) {
                                r = sd_bus_message_read(m, "v", "u", &u32);
                                v[i].u = u32;
                        } else if (r > 0 && strcmp(contents, "t") == 0)
                                r = sd_bus_message_read(m, "v", "t", &v[i].u);
                        else if (r > 0)
                                r = -EBADMSG;
                        break;
                case 't':
                        r = sd_bus_message_read_basic(m, 't', &v[i].u);
                        break;
                case 'd':
                        r = sd_bus_message_read_basic(m, 'd', &v[i].d);
                        break;
                default:
                        r = sd_bus_message_read_basic(m, 's', &v[i].s);
                }
                if (r == 0)
                        r = -EBADMSG;
        }
        return r < 0 ? r : 0;
}

/* A tab-separated field keeps to one line: control characters and the
 * backslash are escaped as C does. */
static void print_text(const char *s) {
        for (; *s; s++) {
                unsigned char c = (unsigned char)*s;

                if (c == '\\')
                        fputs("\\\\", stdout);
                else if (c == '\t')
                        fputs("\\t", stdout);
                else if (c == '\n')
                        fputs("\\n", stdout);
                else if (c < 0x20 || c == 0x7f)
                        printf("\\x%02x", c);
                else
                        putchar(c);
        }
}

static void print_value(const Ctl *ctl, const CtlColumn *col, const CtlValue *v) {
        char buf[32];
        struct tm tm;
        time_t t;

        switch (col->type) {
        case 'd':
                if (ctl->json)
                        json_number(stdout, v->d);
                else
                        printf("%.6g", v->d);
                return;
        case 's':
                if (ctl->json)
                        json_string(stdout, v->s);
                else
                        print_text(v->s);
                return;
        case 'b':
                fputs(v->u ? "true" : "false", stdout);
                return;
        }
        if (col->time && v->u == 0)
                fputs(ctl->json ? "null" : "-", stdout);
        else if (col->time && !ctl->json) {
                t = (time_t)(v->u / USEC_PER_SEC);
                if (gmtime_r(&t, &tm) && strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
                        fputs(buf, stdout);
                else
                        printf("%" PRIu64, v->u);
        } else
                printf("%" PRIu64, v->u);
}

static void print_header(const Ctl *ctl, const CtlColumn *cols, size_t n) {
        if (ctl->json || !ctl->legend)
                return;
        for (size_t i = 0; i < n; i++) {
                if (i > 0)
                        putchar('\t');
                for (const char *p = cols[i].name; *p; p++)
                        putchar(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
        }
        putchar('\n');
}

static void print_row(const Ctl *ctl, const CtlColumn *cols, size_t n, const CtlValue *v,
                      bool first) {
        if (ctl->json)
                fputs(first ? "\n  {" : ",\n  {", stdout);
        for (size_t i = 0; i < n; i++) {
                if (ctl->json)
                        printf("%s\"%s\": ", i > 0 ? ", " : "", cols[i].name);
                else if (i > 0)
                        putchar('\t');
                print_value(ctl, &cols[i], &v[i]);
        }
        fputs(ctl->json ? "}" : "\n", stdout);
}

int ctl_print_table(const Ctl *ctl, sd_bus_message *reply, const CtlColumn *cols, size_t n) {
        char sig[COLUMNS_MAX + 1];
        CtlValue v[COLUMNS_MAX];
        bool first = true;
        int r;

        assert(n <= COLUMNS_MAX);
        signature(cols, n, sig);
        print_header(ctl, cols, n);
        if (ctl->json)
                putchar('[');
        r = sd_bus_message_enter_container(reply, 'a', NULL);
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'r', sig)) > 0) {
                r = read_fields(reply, cols, n, v);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r >= 0)
                        print_row(ctl, cols, n, v, first);
                first = false;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (ctl->json)
                fputs(first ? "]\n" : "\n]\n", stdout);
        return r < 0 ? bad_reply(r) : 0;
}

static void print_fields(const Ctl *ctl, const CtlColumn *cols, size_t n, const CtlValue *v,
                         bool *first) {
        for (size_t i = 0; i < n; i++) {
                if (ctl->json)
                        printf("%s\n  \"%s\": ", *first ? "" : ",", cols[i].name);
                else
                        printf("%s\t", cols[i].name);
                print_value(ctl, &cols[i], &v[i]);
                if (!ctl->json)
                        putchar('\n');
                *first = false;
        }
}

int ctl_print_record(const Ctl *ctl, sd_bus_message *reply, const CtlColumn *cols, size_t n,
                     const CtlColumn *extra, size_t n_extra, const CtlTable *table) {
        char sig[COLUMNS_MAX + 1];
        CtlValue v[COLUMNS_MAX], x[COLUMNS_MAX];
        bool first = true;
        int r;

        assert(n <= COLUMNS_MAX && n_extra <= COLUMNS_MAX);
        signature(cols, n, sig);
        r = sd_bus_message_enter_container(reply, 'r', sig);
        if (r >= 0)
                r = read_fields(reply, cols, n, v);
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r >= 0)
                r = read_fields(reply, extra, n_extra, x);
        if (r < 0)
                return bad_reply(r);
        if (ctl->json)
                putchar('{');
        print_fields(ctl, cols, n, v, &first);
        print_fields(ctl, extra, n_extra, x, &first);
        if (table) {
                if (ctl->json)
                        printf(",\n  \"%s\": ", table->name);
                else
                        putchar('\n');
                r = ctl_print_table(ctl, table->reply, table->cols, table->n);
        }
        if (ctl->json)
                fputs(table ? "}\n" : "\n}\n", stdout);
        return r < 0 ? r : 0;
}

/* The verdict of a resource in ResizeVm's answer, as the agent's SetTarget
 * gives it (agent/bus-change.c): the resource, then (verdict, before,
 * after, error name, message). */
static const CtlColumn verdict_columns[] = {
        { "resource", 's' }, { "verdict", 's' }, { "before", 'v' },
        { "after", 'v' },    { "error", 's' },   { "message", 's' },
};

static bool verdict_taken(const char *verdict) {
        return strcmp(verdict, "refused") != 0 && strcmp(verdict, "failed") != 0;
}

int ctl_print_verdicts(const Ctl *ctl, sd_bus_message *reply, unsigned *ret_refused) {
        const size_t n = ELEMENTSOF(verdict_columns);
        CtlValue v[ELEMENTSOF(verdict_columns)];
        unsigned refused = 0;
        bool first = true;
        int r;

        print_header(ctl, verdict_columns, n);
        if (ctl->json)
                putchar('[');
        r = sd_bus_message_enter_container(reply, 'a', "{s(svvss)}");
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "s(svvss)")) > 0) {
                r = read_fields(reply, verdict_columns, 1, v);
                if (r >= 0)
                        r = sd_bus_message_enter_container(reply, 'r', "svvss");
                if (r >= 0)
                        r = read_fields(reply, verdict_columns + 1, n - 1, v + 1);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        break;
                print_row(ctl, verdict_columns, n, v, first);
                first = false;
                if (!verdict_taken(v[1].s)) {
                        fprintf(stderr, "%s: %s %s: %s: %s\n", CTL_PROGRAM, v[0].s, v[1].s, v[4].s,
                                v[5].s);
                        refused++;
                }
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (ctl->json)
                fputs(first ? "]\n" : "\n]\n", stdout);
        if (r < 0)
                return bad_reply(r);
        *ret_refused = refused;
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* flexslot-tracker-client: speaks org.flexslot.Tracker1 to a controller's
 * endpoint like a tracker that runs no task: it registers, heartbeats at
 * the interval it is told, and reports each assigned attempt finished (or
 * still running, with --mode=hold) at the next beat. It prints what it
 * hears, one line each, for tests to read:
 *   registered TRACKER INTERVAL
 *   assign JOB TYPE INDEX ATTEMPT INPUTS
 *   kill ATTEMPT
 *   slots MAP REDUCE MEMORY    (when a reply changes them)
 *   error NAME: MESSAGE        (and exit 3)
 * --mode=bad-progress sends a progress score of 1.5 once it holds an
 * attempt; --token overrides the token file's; --vm-uuid names its VM
 * (a libvirt domain's UUID) and --steal is the node steal it reports;
 * --protocol-version registers as a tracker of another Tracker1 version.
 * Every message goes through proto/tracker1.c, as the real tracker's, but
 * --guest=SOURCE,CPUS,MEMORY's ReportGuest, sent after registering as given
 * (bad values too, for the controller to refuse), which prints "guest
 * reported" (or the error, and exits 3). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-bus.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/parse.h"
#include "proto/tracker1.h"
#include "tracker-conn.h"

#define HELD_MAX 1024

typedef struct Held {
        uint64_t attempt, job;
        Tracker1TaskType type;
        unsigned index;
} Held;

typedef struct Client {
        sd_bus *bus;
        uint64_t tracker, interval;
        const char *mode;
        double steal;
        unsigned slots[2];
        uint64_t slot_memory;
        Held held[HELD_MAX];
        size_t n_held;
} Client;

static int print_error(const sd_bus_error *e, int r) {
        printf("error %s: %s\n", e->name ? e->name : "?", e->message ? e->message : strerror(-r));
        fflush(stdout);
        return 3;
}

static int append_report(Client *c, sd_bus_message *m) {
        _cleanup_free_ Tracker1Running *running = NULL;
        _cleanup_free_ Tracker1Finished *finished = NULL;
        _cleanup_free_ char(*outputs)[128] = NULL;
        bool hold = strcmp(c->mode, "run") != 0;
        double progress = strcmp(c->mode, "bad-progress") == 0 ? 1.5 : 0.5;
        Tracker1Report report = { .tracker = c->tracker, .steal = c->steal };

        running = calloc(c->n_held + 1, sizeof(*running));
        finished = calloc(c->n_held + 1, sizeof(*finished));
        outputs = calloc(c->n_held + 1, sizeof(*outputs));
        if (!running || !finished || !outputs)
                return -ENOMEM;
        for (size_t i = 0; i < c->n_held; i++) {
                const Held *h = &c->held[i];

                if (hold) {
                        running[report.n_running++] = (Tracker1Running){
                                .attempt = h->attempt,
                                .progress = progress,
                                .bytes_processed = 50,
                                .input_size = 100,
                                .cpu_time = 1000,
                        };
                        continue;
                }
                snprintf(outputs[i], sizeof(outputs[i]), "out/%" PRIu64 "/%s-%u", h->job,
                         tracker1_task_type_to_string(h->type), h->index);
                finished[report.n_finished++] = (Tracker1Finished){
                        .attempt = h->attempt,
                        .status = TRACKER1_SUCCEEDED,
                        .input_bytes = 100,
                        .output_bytes = 10,
                        .output = outputs[i],
                        .reason = "",
                };
        }
        report.running = running;
        report.finished = finished;
        return tracker1_heartbeat_append(m, &report);
}

static int read_reply(Client *c, sd_bus_message *m) {
        _cleanup_(tracker1_reply_done) Tracker1Reply reply = { 0 };
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        r = tracker1_reply_read(m, &reply, &e);
        if (r < 0)
                return log_error_errno(r, "%s", e.message ? e.message : "Unreadable reply");
        if (strcmp(c->mode, "run") == 0)
                c->n_held = 0;
        for (size_t i = 0; i < reply.n_assignments; i++) {
                const Tracker1Assignment *a = &reply.assignments[i];

                printf("assign %" PRIu64 " %s %u %" PRIu64, a->job,
                       tracker1_task_type_to_string(a->type), a->index, a->attempt);
                for (size_t j = 0; j < a->n_inputs; j++)
                        printf(" %s", a->inputs[j]);
                /* A lent slot is named; a task in its own type's is not. */
                if (a->slot != a->type)
                        printf(" (in a %s slot)", tracker1_task_type_to_string(a->slot));
                printf("\n");
                if (c->n_held < HELD_MAX)
                        c->held[c->n_held++] = (Held){
                                .attempt = a->attempt,
                                .job = a->job,
                                .type = a->type,
                                .index = a->index,
                        };
        }
        for (size_t i = 0; i < reply.n_kills; i++)
                printf("kill %" PRIu64 "\n", reply.kills[i].attempt);
        if (reply.slots[TRACKER1_MAP] != c->slots[0] ||
            reply.slots[TRACKER1_REDUCE] != c->slots[1] || reply.slot_memory != c->slot_memory)
                printf("slots %u %u %" PRIu64 "\n", reply.slots[TRACKER1_MAP],
                       reply.slots[TRACKER1_REDUCE], reply.slot_memory);
        c->slots[0] = reply.slots[TRACKER1_MAP];
        c->slots[1] = reply.slots[TRACKER1_REDUCE];
        c->slot_memory = reply.slot_memory;
        fflush(stdout);
        return 0;
}

static int beat(Client *c) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_message_new_method_call(c->bus, &m, NULL, TRACKER1_OBJECT_PATH,
                                           TRACKER1_INTERFACE, TRACKER1_HEARTBEAT_METHOD);
        if (r >= 0)
                r = append_report(c, m);
        if (r < 0)
                return log_error_errno(r, "Cannot build a heartbeat"), 1;
        r = sd_bus_call(c->bus, m, 0, &e, &reply);
        if (r < 0) {
                r = print_error(&e, r);
                sd_bus_error_free(&e);
                return r;
        }
        return read_reply(c, reply) < 0 ? 1 : 0;
}

static int register_tracker(Client *c, const Tracker1Registration *x) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        Tracker1Registered registered;
        int r;

        r = tracker_register(c->bus, x, &registered, &e);
        if (r < 0) {
                r = sd_bus_error_is_set(&e) ? print_error(&e, r)
                                            : (log_error_errno(r, "Register failed"), 1);
                sd_bus_error_free(&e);
                return r;
        }
        c->tracker = registered.tracker;
        c->interval = registered.interval;
        printf("registered %" PRIu64 " %" PRIu64 "\n", c->tracker, c->interval);
        fflush(stdout);
        return 0;
}

/* --guest's SOURCE,CPUS,MEMORY, sent as they are: the controller is the
 * one to refuse a bad value. */
static int report_guest(Client *c, const char *guest) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        char copy[256], *cpus, *memory;
        unsigned n_cpus;
        uint64_t bytes;
        int r;

        if (strlen(guest) >= sizeof(copy))
                return log_error("Invalid --guest '%.32s...': too long", guest), 2;
        strcpy(copy, guest);
        cpus = strchr(copy, ',');
        memory = cpus ? strchr(cpus + 1, ',') : NULL;
        if (!memory)
                return log_error("Invalid --guest '%s': not SOURCE,CPUS,MEMORY", guest), 2;
        *cpus++ = '\0';
        *memory++ = '\0';
        if (parse_int(cpus, 0, INT_MAX, (int *)&n_cpus) < 0 ||
            parse_uint64(memory, 0, UINT64_MAX, &bytes) < 0)
                return log_error("Invalid --guest '%s': not SOURCE,CPUS,MEMORY", guest), 2;
        r = sd_bus_call_method(c->bus, NULL, TRACKER1_OBJECT_PATH, TRACKER1_INTERFACE,
                               "ReportGuest", &e, NULL, "t" TRACKER1_GUEST_TYPE, c->tracker, copy,
                               n_cpus, bytes);
        if (r < 0) {
                r = print_error(&e, r);
                sd_bus_error_free(&e);
                return r;
        }
        printf("guest reported\n");
        fflush(stdout);
        return 0;
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "address", required_argument, NULL, 'a' },
                { "token-file", required_argument, NULL, 't' },
                { "token", required_argument, NULL, 'T' },
                { "beats", required_argument, NULL, 'b' },
                { "map-slots", required_argument, NULL, 'm' },
                { "reduce-slots", required_argument, NULL, 'r' },
                { "hostname", required_argument, NULL, 'H' },
                { "mode", required_argument, NULL, 'M' },
                { "vm-uuid", required_argument, NULL, 'U' },
                { "steal", required_argument, NULL, 'S' },
                { "guest", required_argument, NULL, 'G' },
                { "protocol-version", required_argument, NULL, 'P' },
                {},
        };
        Client c = { .mode = "run" };
        const char *address = NULL, *hostname = "tracker", *token = NULL, *guest = NULL;
        const char *vm_uuid = "00000000-0000-0000-0000-000000000001";
        char token_buf[TRACKER1_TOKEN_MAX + 2] = "";
        uint64_t version = TRACKER1_VERSION;
        unsigned map_slots = 1, reduce_slots = 1;
        int64_t beats = 10;
        int opt, r;

        log_open(argv[0]);
        while ((opt = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (opt) {
                case 'a':
                        address = optarg;
                        break;
                case 't':
                        if (tracker_token_read(optarg, token_buf, sizeof(token_buf)) < 0)
                                return log_error("Cannot read %s", optarg), 2;
                        token = token_buf;
                        break;
                case 'T':
                        token = optarg;
                        break;
                case 'b':
                        if (parse_int64(optarg, 0, 100000, &beats) < 0)
                                return log_error("Invalid --beats '%s'", optarg), 2;
                        break;
                case 'm':
                        if (parse_int(optarg, 0, 1024, (int *)&map_slots) < 0)
                                return log_error("Invalid --map-slots '%s'", optarg), 2;
                        break;
                case 'r':
                        if (parse_int(optarg, 0, 1024, (int *)&reduce_slots) < 0)
                                return log_error("Invalid --reduce-slots '%s'", optarg), 2;
                        break;
                case 'H':
                        hostname = optarg;
                        break;
                case 'M':
                        c.mode = optarg;
                        break;
                case 'U':
                        vm_uuid = optarg;
                        break;
                case 'S':
                        if (parse_double(optarg, 0, 1, &c.steal) < 0)
                                return log_error("Invalid --steal '%s'", optarg), 2;
                        break;
                case 'G':
                        guest = optarg;
                        break;
                case 'P':
                        if (parse_uint64(optarg, 0, UINT32_MAX, &version) < 0)
                                return log_error("Invalid --protocol-version '%s'", optarg), 2;
                        break;
                default:
                        return 2;
                }
        if (!address || !token)
                return log_error("--address and --token-file are needed"), 2;

        r = tracker_bus_open(address, &c.bus);
        if (r < 0)
                return log_error_errno(r, "Cannot connect to %s", address), 1;
        c.slots[0] = map_slots;
        c.slots[1] = reduce_slots;
        c.slot_memory = (uint64_t)256 << 20;
        r = register_tracker(
                &c,
                &(Tracker1Registration){
                        .version = (uint32_t)version,
                        .token = token,
                        .vm_uuid = vm_uuid,
                        .hostname = hostname,
                        .slots = { [TRACKER1_MAP] = map_slots, [TRACKER1_REDUCE] = reduce_slots },
                        .slot_memory = c.slot_memory,
                });
        if (r == 0 && guest)
                r = report_guest(&c, guest);
        for (int64_t i = 0; r == 0 && i < beats; i++) {
                struct timespec ts = { .tv_sec = (time_t)(c.interval / USEC_PER_SEC),
                                       .tv_nsec = (long)(c.interval % USEC_PER_SEC) * 1000 };

                r = beat(&c);
                if (r == 0 && i + 1 < beats)
                        (void)nanosleep(&ts, NULL);
        }
        sd_bus_flush_close_unref(c.bus);
        return r;
}

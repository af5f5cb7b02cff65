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
 * --guest=SOURCE,CPUS,MEMORY sends ReportGuest once after registering and
 * prints "guest reported" (or the error, and exits 3). */
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
#include "controller/daemon/tracker-protocol.h"
#include "tracker-conn.h"

#define HELD_MAX 1024

typedef struct Held {
        uint64_t attempt, job;
        char type[8];
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
        bool hold = strcmp(c->mode, "run") != 0;
        double progress = strcmp(c->mode, "bad-progress") == 0 ? 1.5 : 0.5;
        int r;

        r = sd_bus_message_append(m, "t" TRACKER_NODE_TYPE, c->tracker, 0u, 0u, c->steal, 0.0);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', TRACKER_RUNNING_TYPE);
        for (size_t i = 0; hold && i < c->n_held && r >= 0; i++)
                r = sd_bus_message_append(m, TRACKER_RUNNING_TYPE, c->held[i].attempt, progress,
                                          (uint64_t)50, (uint64_t)100, (uint64_t)1000, (uint64_t)0);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', TRACKER_FINISHED_TYPE);
        for (size_t i = 0; !hold && i < c->n_held && r >= 0; i++) {
                char output[128];

                snprintf(output, sizeof(output), "out/%" PRIu64 "/%s-%u", c->held[i].job,
                         c->held[i].type, c->held[i].index);
                r = sd_bus_message_append(m, TRACKER_FINISHED_TYPE, c->held[i].attempt, "succeeded",
                                          (uint64_t)100, (uint64_t)10, output, "");
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

static int read_slots(Client *c, sd_bus_message *reply) {
        unsigned map, reduce;
        uint64_t memory;
        int r;

        r = sd_bus_message_read(reply, TRACKER_SLOTS_TYPE, &map, &reduce, &memory);
        if (r < 0)
                return r;
        if (map != c->slots[0] || reduce != c->slots[1] || memory != c->slot_memory)
                printf("slots %u %u %" PRIu64 "\n", map, reduce, memory);
        c->slots[0] = map;
        c->slots[1] = reduce;
        c->slot_memory = memory;
        return 0;
}

static int read_reply(Client *c, sd_bus_message *reply) {
        int r;

        if (strcmp(c->mode, "run") == 0)
                c->n_held = 0;
        r = sd_bus_message_enter_container(reply, 'a', TRACKER_ASSIGNMENT_TYPE);
        while (r >= 0 &&
               (r = sd_bus_message_enter_container(reply, 'r', TRACKER_ASSIGNMENT_FIELDS)) > 0) {
                Held h = { 0 };
                const char *type, *app, *command, *input, *slot;
                unsigned partitions;
                uint64_t memory;

                r = sd_bus_message_read(reply, "ttsuuss", &h.attempt, &h.job, &type, &h.index,
                                        &partitions, &app, &command);
                if (r < 0)
                        break;
                snprintf(h.type, sizeof(h.type), "%s", type);
                printf("assign %" PRIu64 " %s %u %" PRIu64, h.job, type, h.index, h.attempt);
                r = sd_bus_message_enter_container(reply, 'a', "s");
                while (r >= 0 && (r = sd_bus_message_read(reply, "s", &input)) > 0)
                        printf(" %s", input);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r >= 0)
                        r = sd_bus_message_read(reply, "ts", &memory, &slot);
                /* A lent slot is named; a task in its own type's is not. */
                if (r >= 0 && strcmp(slot, type) != 0)
                        printf(" (in a %s slot)", slot);
                printf("\n");
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r >= 0 && c->n_held < HELD_MAX)
                        c->held[c->n_held++] = h;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "t");
        for (uint64_t kill; r >= 0 && (r = sd_bus_message_read(reply, "t", &kill)) > 0;)
                printf("kill %" PRIu64 "\n", kill);
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r >= 0)
                r = read_slots(c, reply);
        fflush(stdout);
        return r < 0 ? r : 0;
}

static int beat(Client *c) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_message_new_method_call(c->bus, &m, NULL, TRACKER_OBJECT_PATH, TRACKER_INTERFACE,
                                           "Heartbeat");
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

static int register_tracker(Client *c, const char *token, const char *vm_uuid,
                            const char *hostname) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        r = tracker_register(c->bus, token, vm_uuid, hostname, c->slots, c->slot_memory,
                             &c->tracker, &c->interval, &e);
        if (r < 0) {
                r = sd_bus_error_is_set(&e) ? print_error(&e, r)
                                            : (log_error_errno(r, "Register failed"), 1);
                sd_bus_error_free(&e);
                return r;
        }
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
        r = sd_bus_call_method(c->bus, NULL, TRACKER_OBJECT_PATH, TRACKER_INTERFACE, "ReportGuest",
                               &e, NULL, "t" TRACKER_GUEST_TYPE, c->tracker, copy, n_cpus, bytes);
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
                {},
        };
        Client c = { .mode = "run" };
        const char *address = NULL, *hostname = "tracker", *token = NULL, *guest = NULL;
        const char *vm_uuid = "00000000-0000-0000-0000-000000000001";
        char token_buf[TRACKER_TOKEN_MAX + 2] = "";
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
        r = register_tracker(&c, token, vm_uuid, hostname);
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

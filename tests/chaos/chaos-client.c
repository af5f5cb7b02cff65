/* SPDX-License-Identifier: MIT */
/* flexslot-chaos-client: what a careless or hostile peer does to the
 * controller, for the tests that check it shrugs it off.
 *
 *   idle --address=ENDPOINT --count=N [--timeout=SECONDS]
 *       opens N connections to the tracker endpoint (unix:path=P or
 *       tcp:host=H,port=P) and sends nothing; prints "connected K", then
 *       waits for the controller to close them and prints "closed C of K
 *       after S s". Exits 0 when it closed every one within the timeout
 *       (default 30 s), 1 otherwise.
 *
 *   random --address=ENDPOINT --bus=BUS --token-file=FILE [--seconds=S]
 *          [--seed=N]
 *       for S seconds (default 10), sessions of random and mutated
 *       messages: raw bytes at the endpoint (garbage, or garbage after a
 *       good authentication); Tracker1 calls on a registered connection
 *       (Register, Heartbeat, ReportGuest and an unknown method, with their
 *       signatures as they are, mutated or random, and values drawn as
 *       tests/fuzz/bus-shape.h draws them; heartbeats of random reports
 *       built by proto/tracker1.c); and Controller1 calls on the bus, the
 *       same way. Prints what it sent and how the controller answered.
 *       Exits 1 when a call went unanswered (the controller hung or died)
 *       or a connection could not be made, 0 otherwise: a refusal is the
 *       answer expected. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "bench/tracker-conn.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/parse.h"
#include "common/time-util.h"
#include "proto/controller1.h"
#include "proto/tracker1.h"
#include "tests/fuzz/bus-shape.h"

#define IDLE_MAX 100000
/* How long a call may wait for its answer before the controller counts as
 * hung. */
#define CALL_TIMEOUT_USEC (10 * USEC_PER_SEC)
#define CALLS_PER_SESSION 12
#define RANDOM_BYTES_MAX 4096

/* A stream socket connected to unix:path=P or tcp:host=H,port=P. */
static int endpoint_connect(const char *address) {
        _cleanup_close_ int fd = -1;

        if (strncmp(address, "unix:path=", 10) == 0) {
                struct sockaddr_un sa = { .sun_family = AF_UNIX };

                if (strlen(address + 10) >= sizeof(sa.sun_path))
                        return -EINVAL;
                strcpy(sa.sun_path, address + 10);
                fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
                        return negative_errno();
        } else if (strncmp(address, "tcp:host=", 9) == 0) {
                const char *comma = strchr(address, ',');
                struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
                char host[256];
                int r;

                if (!comma || strncmp(comma, ",port=", 6) != 0 ||
                    (size_t)(comma - (address + 9)) >= sizeof(host))
                        return -EINVAL;
                snprintf(host, sizeof(host), "%.*s", (int)(comma - (address + 9)), address + 9);
                if (getaddrinfo(host, comma + 6, &hints, &ai) != 0)
                        return -EADDRNOTAVAIL;
                fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
                r = fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 ? negative_errno() : 0;
                freeaddrinfo(ai);
                if (r < 0)
                        return r;
        } else
                return -EINVAL;
        return TAKE_FD(fd);
}

static int run_idle(const char *address, unsigned count, usec_t timeout) {
        _cleanup_free_ struct pollfd *fds = calloc(count, sizeof(*fds));
        usec_t start = now_monotonic_usec(), now;
        unsigned connected = 0, closed = 0;

        if (!fds)
                return log_oom(), 1;
        for (unsigned i = 0; i < count; i++) {
                int fd = endpoint_connect(address);

                if (fd < 0) {
                        log_warning_errno(fd, "Connection %u of %u", i + 1, count);
                        break;
                }
                fds[connected++] = (struct pollfd){ .fd = fd, .events = POLLIN | POLLRDHUP };
        }
        printf("connected %u\n", connected);
        fflush(stdout);
        while (closed < connected && (now = now_monotonic_usec()) - start < timeout) {
                int n = poll(fds, connected, (int)((timeout - (now - start)) / USEC_PER_MSEC) + 1);

                if (n < 0 && errno != EINTR)
                        return log_error_errno(negative_errno(), "poll"), 1;
                for (unsigned i = 0; i < connected && n > 0; i++) {
                        char byte;

                        if (fds[i].fd < 0 || !fds[i].revents)
                                continue;
                        /* The controller never speaks first: anything
                         * readable is its hanging up. */
                        if (recv(fds[i].fd, &byte, 1, MSG_DONTWAIT) > 0)
                                continue;
                        close(fds[i].fd);
                        fds[i].fd = -1;
                        closed++;
                }
        }
        printf("closed %u of %u after %.1f s\n", closed, connected,
               (double)(now_monotonic_usec() - start) / USEC_PER_SEC);
        for (unsigned i = 0; i < connected; i++)
                safe_close(fds[i].fd);
        return closed == connected && connected == count ? 0 : 1;
}

typedef struct Chaos {
        const char *endpoint, *bus_address;
        char token[TRACKER1_TOKEN_MAX + 2];
        uint64_t rng;
        uint8_t bytes[RANDOM_BYTES_MAX];
        unsigned raw, tracker_calls, controller_calls, answered, refused, unsendable, dropped;
} Chaos;

/* splitmix64: a seed gives the same run again. */
static uint64_t rnd(Chaos *ch) {
        uint64_t z = (ch->rng += 0x9e3779b97f4a7c15ULL);

        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
}

static unsigned below(Chaos *ch, unsigned n) {
        return (unsigned)(rnd(ch) % n);
}

/* Random bytes after prefix in ch->bytes, the input of a message's values:
 * up to 512 of them, now and then up to the buffer's size. */
static BusShapeInput random_input(Chaos *ch, const void *prefix, size_t prefix_len) {
        size_t size = prefix_len + below(ch, 512);

        if (below(ch, 16) == 0)
                size = prefix_len + below(ch, RANDOM_BYTES_MAX - (unsigned)prefix_len);
        if (prefix_len)
                memcpy(ch->bytes, prefix, prefix_len);
        for (size_t i = prefix_len; i < size; i++)
                ch->bytes[i] = (uint8_t)rnd(ch);
        return (BusShapeInput){ .p = ch->bytes, .n = size };
}

/* The real signature most of the time, one mutated by a character, or a
 * random one. buf holds BUS_SHAPE_SIGNATURE_MAX + 2 bytes. */
static void pick_signature(Chaos *ch, const char *real, char *buf) {
        static const char types[] = "ybutds()a";
        size_t n = strlen(real);
        unsigned pick = below(ch, 20);

        strcpy(buf, real);
        if (pick < 12)
                return;
        if (pick < 17 && n > 0) {
                size_t at = below(ch, (unsigned)n);

                switch (below(ch, 3)) {
                case 0:
                        buf[at] = types[below(ch, sizeof(types) - 1)];
                        break;
                case 1:
                        memmove(buf + at, buf + at + 1, n - at);
                        break;
                default:
                        memmove(buf + at + 1, buf + at, n - at + 1);
                        buf[at] = types[below(ch, sizeof(types) - 1)];
                }
                return;
        }
        n = below(ch, 13);
        for (size_t i = 0; i < n; i++)
                buf[i] = types[below(ch, sizeof(types) - 1)];
        buf[n] = '\0';
}

/* Sends m and waits for its answer: 0 for one (a reply, or an error the
 * controller or sd-bus named), -1 when none came (a timeout, a dropped
 * connection). */
static int call(Chaos *ch, sd_bus *bus, sd_bus_message *m, sd_bus_message **ret_reply) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_call(bus, m, CALL_TIMEOUT_USEC, &e, ret_reply);
        if (r >= 0)
                ch->answered++;
        else if (sd_bus_error_is_set(&e) && r != -ETIMEDOUT && r != -ECONNRESET && r != -ENOTCONN)
                ch->refused++;
        else {
                log_warning_errno(r, "%s: no answer", sd_bus_message_get_member(m) ?: "?");
                ch->dropped++;
        }
        sd_bus_error_free(&e);
        return r >= 0 || ch->dropped == 0 ? 0 : -1;
}

/* A call of member with signature's values drawn after prefix; 0 too when
 * sd-bus would not build it (a signature it refuses). */
static int random_call(Chaos *ch, sd_bus *bus, const char *destination, const char *path,
                       const char *interface, const char *member, const char *signature,
                       const void *prefix, size_t prefix_len, sd_bus_message **ret_reply) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        BusShapeInput in = random_input(ch, prefix, prefix_len);
        int r;

        r = sd_bus_message_new_method_call(bus, &m, destination, path, interface, member);
        if (r >= 0)
                r = bus_shape_append(m, signature, &in);
        if (r < 0) {
                ch->unsendable++;
                return 0;
        }
        return call(ch, bus, m, ret_reply);
}

/* Garbage at the endpoint, after a good authentication half the time,
 * and the connection closed at once. */
static int raw_session(Chaos *ch) {
        static const char auth[] = "\0AUTH ANONYMOUS\r\nBEGIN\r\n";
        _cleanup_close_ int fd = endpoint_connect(ch->endpoint);
        BusShapeInput in;

        if (fd < 0)
                return log_error_errno(fd, "Cannot connect to %s", ch->endpoint), -1;
        if (below(ch, 2) && write(fd, auth, sizeof(auth) - 1) < 0)
                return 0;
        in = random_input(ch, NULL, 0);
        if (write(fd, in.p, in.n) < 0)
                log_debug_errno(negative_errno(), "Garbage not all sent");
        ch->raw++;
        return 0;
}

static const char *const outputs[] = {
        "",
        "out/1/part-00000.1",
        "out/1/map-00000.2",
        "out/1/part-00000",
        "../../etc/passwd",
        "/etc/passwd",
        "out/1/../../x",
        "out/99999999999999999999/part-00000.1",
};

/* A heartbeat proto/tracker1.c builds, of a random report: attempts the
 * controller never issued, any status, odd numbers. */
static int report_call(Chaos *ch, sd_bus *bus, uint64_t tracker) {
        static const double odd[] = { 0, 0.5, 1, 1.5, -1, 1e300, NAN, INFINITY };
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        Tracker1Running running[8];
        Tracker1Finished finished[8];
        Tracker1Report x = {
                .tracker = below(ch, 8) ? tracker : rnd(ch),
                .free_slots = { below(ch, 3), below(ch, 3) },
                .steal = odd[below(ch, ELEMENTSOF(odd))],
                .iowait = odd[below(ch, ELEMENTSOF(odd))],
                .running = running,
                .n_running = below(ch, ELEMENTSOF(running) + 1),
                .finished = finished,
                .n_finished = below(ch, ELEMENTSOF(finished) + 1),
        };
        int r;

        for (size_t i = 0; i < x.n_running; i++)
                running[i] = (Tracker1Running){
                        .attempt = below(ch, 4) ? below(ch, 100) : rnd(ch),
                        .progress = odd[below(ch, ELEMENTSOF(odd))],
                        .bytes_processed = rnd(ch),
                        .input_size = below(ch, 1000),
                        .cpu_time = rnd(ch),
                        .iowait_time = below(ch, 1000),
                };
        for (size_t i = 0; i < x.n_finished; i++)
                finished[i] = (Tracker1Finished){
                        .attempt = below(ch, 4) ? below(ch, 100) : rnd(ch),
                        .status = (Tracker1Status)below(ch, _TRACKER1_STATUS_MAX),
                        .input_bytes = rnd(ch),
                        .output_bytes = below(ch, 1000),
                        .output = outputs[below(ch, ELEMENTSOF(outputs))],
                        .reason = below(ch, 2) ? "" : "exit status 2",
                };
        r = sd_bus_message_new_method_call(bus, &m, NULL, TRACKER1_OBJECT_PATH, TRACKER1_INTERFACE,
                                           TRACKER1_HEARTBEAT_METHOD);
        if (r >= 0)
                r = tracker1_heartbeat_append(m, &x);
        if (r < 0) {
                ch->unsendable++;
                return 0;
        }
        return call(ch, bus, m, NULL);
}

/* Register with the token (the version and the token as they are, the rest
 * random: no real VM UUID among them), then random calls, the heartbeats
 * with the tracker's id. */
static int tracker_session(Chaos *ch) {
        static const struct {
                const char *member, *signature;
        } methods[] = {
                { "Register", TRACKER1_REGISTER_TYPE },
                { TRACKER1_HEARTBEAT_METHOD, TRACKER1_HEARTBEAT_TYPE },
                { "ReportGuest", "t" TRACKER1_GUEST_TYPE },
                { "Unknown", "s" },
        };
        _cleanup_(sd_bus_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        uint8_t prefix[5 + 255];
        uint32_t version = TRACKER1_VERSION;
        uint64_t tracker = 0;
        size_t token_len = strlen(ch->token);
        int r;

        r = tracker_bus_open(ch->endpoint, &bus);
        if (r < 0)
                return log_error_errno(r, "Cannot connect to %s", ch->endpoint), -1;
        if (token_len < 256) {
                memcpy(prefix, &version, sizeof(version));
                prefix[4] = (uint8_t)token_len;
                memcpy(prefix + 5, ch->token, token_len);
                ch->tracker_calls++;
                r = random_call(ch, bus, NULL, TRACKER1_OBJECT_PATH, TRACKER1_INTERFACE, "Register",
                                TRACKER1_REGISTER_TYPE, prefix, 5 + token_len, &reply);
                if (r < 0)
                        return r;
                if (reply)
                        (void)sd_bus_message_read(reply, "t", &tracker);
        }
        for (unsigned i = 0; i < CALLS_PER_SESSION && r >= 0; i++) {
                unsigned k = below(ch, ELEMENTSOF(methods) + 1);
                char signature[BUS_SHAPE_SIGNATURE_MAX + 2];

                ch->tracker_calls++;
                if (k == ELEMENTSOF(methods))
                        r = report_call(ch, bus, tracker);
                else {
                        pick_signature(ch, methods[k].signature, signature);
                        memcpy(prefix, &tracker, sizeof(tracker));
                        r = random_call(ch, bus, NULL, TRACKER1_OBJECT_PATH, TRACKER1_INTERFACE,
                                        methods[k].member, signature, prefix,
                                        signature[0] == 't' ? sizeof(tracker) : 0, NULL);
                }
        }
        return r;
}

/* Random calls of Controller1's methods, now and then on an interface it
 * does not have. */
static int controller_session(Chaos *ch) {
        static const struct {
                const char *member, *signature;
        } methods[] = {
                { "SubmitJob", "ssssasutsss" },
                { "ListJobs", "" },
                { "GetJob", "t" },
                { "CancelJob", "t" },
                { "ListNodes", "" },
                { "SetSlots", "tuut" },
                { "ListProfiles", "" },
                { "ResizeVm", "sut" },
                { "ListVms", "" },
                { "Unknown", "s" },
        };
        _cleanup_(sd_bus_close_unrefp) sd_bus *bus = NULL;
        int r;

        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, ch->bus_address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0)
                return log_error_errno(r, "Cannot connect to %s", ch->bus_address), -1;
        for (unsigned i = 0; i < CALLS_PER_SESSION && r >= 0; i++) {
                unsigned k = below(ch, ELEMENTSOF(methods));
                char signature[BUS_SHAPE_SIGNATURE_MAX + 2];

                pick_signature(ch, methods[k].signature, signature);
                ch->controller_calls++;
                r = random_call(ch, bus, CONTROLLER1_BUS_NAME, CONTROLLER1_OBJECT_PATH,
                                below(ch, 10) ? CONTROLLER1_INTERFACE : "org.flexslot.Nothing1",
                                methods[k].member, signature, NULL, 0, NULL);
        }
        return r;
}

static int run_random(Chaos *ch, usec_t duration) {
        usec_t start = now_monotonic_usec();
        unsigned sessions = 0;
        int r = 0;

        while (r >= 0 && now_monotonic_usec() - start < duration) {
                unsigned pick = below(ch, 10);

                r = pick < 3   ? raw_session(ch)
                    : pick < 7 ? tracker_session(ch)
                               : controller_session(ch);
                sessions++;
        }
        printf("sessions %u, messages %u: %u raw at the endpoint, %u Tracker1 calls, %u "
               "Controller1 calls; %u answered, %u refused by name, %u not built, %u unanswered\n",
               sessions, ch->raw + ch->tracker_calls + ch->controller_calls, ch->raw,
               ch->tracker_calls, ch->controller_calls, ch->answered, ch->refused, ch->unsendable,
               ch->dropped);
        return r < 0 || ch->dropped > 0 ? 1 : 0;
}

static void help(void) {
        printf("Usage: flexslot-chaos-client idle --address=ENDPOINT --count=N "
               "[--timeout=SECONDS]\n"
               "       flexslot-chaos-client random --address=ENDPOINT --bus=BUS "
               "--token-file=FILE\n"
               "                             [--seconds=S] [--seed=N]\n");
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "address", required_argument, NULL, 'a' },
                { "count", required_argument, NULL, 'n' },
                { "timeout", required_argument, NULL, 'T' },
                { "bus", required_argument, NULL, 'b' },
                { "token-file", required_argument, NULL, 't' },
                { "seconds", required_argument, NULL, 's' },
                { "seed", required_argument, NULL, 'S' },
                {},
        };
        static Chaos ch;
        const char *address = NULL, *mode;
        int64_t count = 1, timeout = 30, seconds = 10;
        uint64_t seed = 1;
        int opt;

        log_open(argv[0]);
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (opt) {
                case 'h':
                        help();
                        return 0;
                case 'a':
                        address = optarg;
                        break;
                case 'n':
                        if (parse_int64(optarg, 1, IDLE_MAX, &count) < 0)
                                return log_error("Invalid --count '%s'", optarg), 2;
                        break;
                case 'T':
                        if (parse_int64(optarg, 1, 3600, &timeout) < 0)
                                return log_error("Invalid --timeout '%s'", optarg), 2;
                        break;
                case 'b':
                        ch.bus_address = optarg;
                        break;
                case 't':
                        if (tracker_token_read(optarg, ch.token, sizeof(ch.token)) < 0)
                                return log_error("Cannot read %s", optarg), 2;
                        break;
                case 's':
                        if (parse_int64(optarg, 1, 24 * 3600, &seconds) < 0)
                                return log_error("Invalid --seconds '%s'", optarg), 2;
                        break;
                case 'S':
                        if (parse_uint64(optarg, 0, UINT64_MAX, &seed) < 0)
                                return log_error("Invalid --seed '%s'", optarg), 2;
                        break;
                default:
                        return 2;
                }
        if (optind + 1 != argc || !address)
                return help(), 2;
        mode = argv[optind];
        if (strcmp(mode, "idle") == 0)
                return run_idle(address, (unsigned)count, (usec_t)timeout * USEC_PER_SEC);
        if (strcmp(mode, "random") == 0) {
                if (!ch.bus_address || !ch.token[0])
                        return help(), 2;
                ch.endpoint = address;
                ch.rng = seed;
                printf("seed %" PRIu64 "\n", seed);
                return run_random(&ch, (usec_t)seconds * USEC_PER_SEC);
        }
        log_error("Unknown mode '%s'", mode);
        return 2;
}

/* SPDX-License-Identifier: MIT */
/* flexslot-chaos-client: what a careless or hostile peer does to the
 * controller, for the tests that check it shrugs it off.
 *
 *   idle --address=ENDPOINT --count=N [--timeout=SECONDS]
 *       opens N connections to the tracker endpoint (unix:path=P or
 *       tcp:host=H,port=P) and sends nothing; prints "connected K", then
 *       waits for the controller to close them and prints "closed C of K
 *       after S s". Exits 0 when it closed every one within the timeout
 *       (default 30 s), 1 otherwise. */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/parse.h"
#include "common/time-util.h"

#define IDLE_MAX 100000

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

static void help(void) {
        printf("Usage: flexslot-chaos-client idle --address=ENDPOINT --count=N "
               "[--timeout=SECONDS]\n");
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "address", required_argument, NULL, 'a' },
                { "count", required_argument, NULL, 'n' },
                { "timeout", required_argument, NULL, 'T' },
                {},
        };
        const char *address = NULL, *mode;
        int64_t count = 1, timeout = 30;
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
                default:
                        return 2;
                }
        if (optind + 1 != argc || !address)
                return help(), 2;
        mode = argv[optind];
        if (strcmp(mode, "idle") == 0)
                return run_idle(address, (unsigned)count, (usec_t)timeout * USEC_PER_SEC);
        log_error("Unknown mode '%s'", mode);
        return 2;
}

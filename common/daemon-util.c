/* SPDX-License-Identifier: MIT */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "cli.h"
#include "daemon-util.h"
#include "log.h"
#include "macro.h"
#include "version.h"

const char *const daemon_log_level_choices[] = {
        "err", "warning", "notice", "info", "debug", NULL
};
const LogLevel daemon_log_levels[] = { LOG_LEVEL_ERR, LOG_LEVEL_WARNING, LOG_LEVEL_NOTICE,
                                       LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

int daemon_event_new(sd_event **ret) {
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        sigset_t mask;
        int r;

        /* Blocked before any thread starts, so every thread inherits it and
         * only the event loop sees the signals. */
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return log_error_errno(negative_errno(), "Cannot block signals");
        /* A peer that hangs up (libvirtd restarting, a tracker mid-reply)
         * must be an error return, not the end of the daemon: libvirt writes
         * to its socket without MSG_NOSIGNAL. */
        if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
                return log_error_errno(negative_errno(), "Cannot ignore SIGPIPE");

        r = sd_event_default(&event);
        if (r < 0)
                return log_error_errno(r, "Cannot create the event loop");
        r = sd_event_add_signal(event, NULL, SIGTERM, NULL, NULL);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGINT, NULL, NULL);
        if (r < 0)
                return log_error_errno(r, "Cannot watch signals");
        r = sd_event_set_watchdog(event, true);
        if (r < 0)
                return log_error_errno(r, "Cannot enable the watchdog");
        *ret = TAKE_PTR(event);
        return 0;
}

int daemon_bus_connect(const char *address, const char *description, sd_bus **ret) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        if (!address) {
                r = sd_bus_open_system(&bus);
                if (r < 0)
                        return log_error_errno(r, "Cannot connect to the system bus");
        } else {
                r = sd_bus_new(&bus);
                if (r < 0)
                        return log_oom();
                r = sd_bus_set_address(bus, address);
                if (r < 0)
                        return log_error_errno(r, "Invalid D-Bus address '%s'", address);
                (void)sd_bus_set_bus_client(bus, true);
                r = sd_bus_start(bus);
                if (r < 0)
                        return log_error_errno(r, "Cannot connect to D-Bus at %s", address);
        }
        (void)sd_bus_set_description(bus, description);
        /* Without its bus a daemon is useless; exit and let systemd restart it. */
        r = sd_bus_set_exit_on_disconnect(bus, true);
        if (r < 0)
                return log_error_errno(r, "Cannot set exit-on-disconnect");
        *ret = TAKE_PTR(bus);
        return 0;
}

int daemon_run(sd_event *event, const char *status) {
        int r;

        (void)sd_notifyf(false, "READY=1\nSTATUS=%s", status);
        /* sd-bus ends the loop with EXIT_FAILURE when the bus goes away,
         * which must reach systemd's Restart=on-failure. */
        r = sd_event_loop(event);
        if (r < 0)
                log_error_errno(r, "Event loop failed");
        else if (r > 0)
                log_error("Lost the connection to D-Bus");
        (void)sd_notify(false, "STOPPING=1");
        return r;
}

int daemon_load_config_parts(const ConfPart *parts, size_t n_parts, const char *path, bool given) {
        ConfError err;
        char msg[CONF_ERROR_TEXT_MAX * 2];
        int r;

        if (!given && access(path, F_OK) < 0 && errno == ENOENT)
                r = conf_load_parts(parts, n_parts, path, "", NULL, 0, &err);
        else
                r = conf_load_file_parts(parts, n_parts, path, &err);
        if (r < 0) {
                conf_error_format(&err, msg, sizeof(msg));
                log_error("%s", msg);
        }
        return r;
}

int daemon_load_config(const ConfSchema *schema, const char *path, bool given, void *config) {
        const ConfPart part = { .schema = schema, .config = config };

        return daemon_load_config_parts(&part, 1, path, given);
}

int daemon_read_token(const char *path, size_t max, char **ret, size_t *ret_len) {
        _cleanup_close_ int fd = -1;
        /* Room for one byte too many, and the newline. */
        char buf[DAEMON_TOKEN_MAX + 2];
        struct stat st;
        ssize_t n;

        if (max > DAEMON_TOKEN_MAX)
                return -EINVAL;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return log_error_errno(negative_errno(), "Cannot open the token file %s", path);
        if (fstat(fd, &st) < 0)
                return log_error_errno(negative_errno(), "Cannot stat the token file %s", path);
        if (st.st_mode & DAEMON_TOKEN_MODE_FORBIDDEN)
                return log_error_errno(-EPERM,
                                       "The token file %s is open to its group or others (mode "
                                       "%04o): keep it its owner's alone (chmod 0600)",
                                       path, (unsigned)(st.st_mode & 07777));
        n = read(fd, buf, max + 2);
        if (n < 0)
                return log_error_errno(negative_errno(), "Cannot read the token file %s", path);
        if (n > 0 && buf[n - 1] == '\n')
                n--;
        if (n == 0 || (size_t)n > max || memchr(buf, '\0', (size_t)n) ||
            memchr(buf, '\n', (size_t)n)) {
                explicit_bzero(buf, sizeof(buf));
                log_error("The token file %s must hold one line of 1..%zu bytes", path, max);
                return -EINVAL;
        }
        *ret = strndup(buf, (size_t)n);
        explicit_bzero(buf, sizeof(buf));
        if (!*ret)
                return log_oom();
        *ret_len = (size_t)n;
        return 0;
}

enum { ARG_VERSION = 0x100, ARG_LOG_LEVEL };
#define DAEMON_OPTIONS_MAX 16

int daemon_parse_argv(const DaemonCommandLine *cl, int argc, char **argv, DaemonOptions *ret) {
        static const struct option common[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "config", required_argument, NULL, 'c' },
                { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
        };
        struct option options[DAEMON_OPTIONS_MAX] = { 0 };
        char short_options[2 * DAEMON_OPTIONS_MAX] = ":hc:";
        DaemonOptions o = { .config_file = cl->config_default };
        size_t n = 0;
        int c, r;

        for (size_t i = 0; i < ELEMENTSOF(common); i++)
                options[n++] = common[i];
        /* The tables are the programs' own constants: too many is a bug. */
        for (const struct option *own = cl->options; own && own->name; own++) {
                assert(n + 1 < DAEMON_OPTIONS_MAX);
                options[n++] = *own;
        }
        if (cl->short_options) {
                assert(strlen(short_options) + strlen(cl->short_options) < sizeof(short_options));
                strcat(short_options, cl->short_options);
        }

        /* optind 0 starts getopt afresh, also on a second command line. */
        optind = 0;
        opterr = 0;
        while ((c = getopt_long(argc, argv, short_options, options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        cl->help();
                        return 0;
                case ARG_VERSION:
                        printf("%s %s\n", cl->program, FLEXSLOT_VERSION);
                        return 0;
                case 'c':
                        o.config_file = optarg;
                        o.config_given = true;
                        break;
                case ARG_LOG_LEVEL:
                        if (log_level_from_string(optarg, &o.log_level) < 0) {
                                cli_usage_error(cl->program, "invalid --log-level '%s'", optarg);
                                return -EINVAL;
                        }
                        o.log_level_given = true;
                        break;
                case '?':
                case ':':
                        cli_option_error(cl->program, c, argv);
                        return -EINVAL;
                default:
                        r = cl->option(c, optarg, cl->userdata);
                        if (r < 0)
                                return r;
                }
        if (optind < argc) {
                cli_usage_error(cl->program, "unexpected argument '%s'", argv[optind]);
                return -EINVAL;
        }
        *ret = o;
        return 1;
}

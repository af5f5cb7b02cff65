/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "daemon-util.h"
#include "log.h"
#include "macro.h"

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
        ssize_t n;

        if (max > DAEMON_TOKEN_MAX)
                return -EINVAL;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return log_error_errno(negative_errno(), "Cannot open the token file %s", path);
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

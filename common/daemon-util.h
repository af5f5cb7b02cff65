/* SPDX-License-Identifier: MIT */
#pragma once

/* The skeleton of a flexslot daemon on sd-event and sd-bus, the same in
 * every daemon: signals, the watchdog, the bus connection and the run under
 * systemd's notify protocol. Errors are logged here. */

#include <stdbool.h>
#include <stddef.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "log.h"

struct option;

/* Blocks SIGTERM and SIGINT, ignores SIGPIPE and returns the default event
 * loop, which exits on either signal and feeds systemd's watchdog. Call it
 * before starting any thread, so that every thread inherits the mask. */
int daemon_event_new(sd_event **ret);

/* Connects to the system bus, or with an address to that bus as a client;
 * description names the connection. Losing the connection ends the event
 * loop it is attached to with a failure. */
int daemon_bus_connect(const char *address, const char *description, sd_bus **ret);

/* Tells systemd READY=1 with status (a STATUS= text), runs the loop, says
 * why it ended and STOPPING=1. Returns the loop's result: 0 after SIGTERM or
 * SIGINT, > 0 when the bus went away, < 0 when the loop failed. */
int daemon_run(sd_event *event, const char *status);

/* A daemon's log-level key: its choices for a CONF_ENUM, NULL-terminated,
 * and the LogLevel of each, in their order. */
extern const char *const daemon_log_level_choices[];
extern const LogLevel daemon_log_levels[];

#define DAEMON_TOKEN_MAX 4096
/* What a token file's group and others may do with it: nothing. Whoever
 * reads it can pass for a tracker; on a tracker, a task could. */
#define DAEMON_TOKEN_MODE_FORBIDDEN 0077

/* The secret in a token file: its one line of 1..max bytes (max at most
 * DAEMON_TOKEN_MAX), without the newline, in *ret (a copy; wipe it with
 * explicit_bzero() before freeing). A file its group or others may use is
 * refused. Errors are logged with the path, never with the content. */
int daemon_read_token(const char *path, size_t max, char **ret, size_t *ret_len);

/* Loads config from path after schema's defaults. A daemon's default path
 * (given false) that does not exist means the defaults alone; a path the
 * user gave must exist. A bad file is logged as file:line. */
int daemon_load_config(const ConfSchema *schema, const char *path, bool given, void *config);
/* The same over several parts (common/config.h's conf_load_parts()). */
int daemon_load_config_parts(const ConfPart *parts, size_t n_parts, const char *path, bool given);

/* The options every daemon takes: -h/--help, --version, -c/--config=FILE
 * and --log-level=LEVEL. */
typedef struct DaemonOptions {
        const char *config_file;
        bool config_given;
        LogLevel log_level;
        bool log_level_given;
} DaemonOptions;

/* A daemon's command line: the options above, and its own in getopt_long()'s
 * terms (a table ending in an empty entry whose entries return their short
 * letter or a code >= 0x200, and the short letters, "a:n" style), each
 * handed to option() with its argument. */
typedef struct DaemonCommandLine {
        const char *program;
        const char *config_default;
        void (*help)(void);
        const struct option *options;
        const char *short_options;
        /* 0, or < 0 after a usage error has been said (cli_usage_error()). */
        int (*option)(int c, const char *arg, void *userdata);
        void *userdata;
} DaemonCommandLine;

/* Returns 1 to run, 0 after --help or --version (exit successfully), < 0
 * after a usage error has been said with its hint (exit EXIT_USAGE). */
int daemon_parse_argv(const DaemonCommandLine *cl, int argc, char **argv, DaemonOptions *ret);

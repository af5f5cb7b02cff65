/* SPDX-License-Identifier: MIT */
/* flexslot-tracker: the task tracker of one VM. It registers with the
 * controller's endpoint (proto/tracker1.h), heartbeats at the interval the
 * controller gives, runs each assigned task as a flexslot-task child
 * process and reports it when it ends (tracker-tasks.c). It outlives the
 * controller: tasks keep running while it reconnects (tracker-link.c), and
 * what finished meanwhile is reported once a controller answers again. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <systemd/sd-event.h>

#include "common/cli.h"
#include "common/daemon-util.h"
#include "common/log.h"
#include "common/macro.h"
#include "proto/errors.h"
#include "tracker/tracker-config.h"
#include "tracker/tracker-link.h"
#include "tracker/tracker-tasks.h"

#define PROGRAM "flexslot-tracker"
#define DEFAULT_CONFIG_FILE "/etc/flexslot/tracker.ini"

typedef struct Tracker {
        TrackerConfig config;
        char *token;
        size_t token_len;
        TrackerIdentity identity;
        sd_event *event;
        TrackerTasks tasks;
        TrackerLink link;
} Tracker;

static int tracker_start(Tracker *k) {
        struct stat st;
        int r;

        if (stat(k->config.data_dir, &st) < 0 || !S_ISDIR(st.st_mode))
                return log_error_errno(-ENOTDIR, "The data directory %s is not a directory",
                                       k->config.data_dir);
        r = proto_errors_register();
        if (r < 0)
                return log_error_errno(r, "Cannot register the error names");
        r = daemon_read_token(k->config.token_file, TRACKER1_TOKEN_MAX, &k->token, &k->token_len);
        if (r >= 0)
                r = tracker_identity_read(&k->config, TRACKER_PRODUCT_UUID_FILE, &k->identity);
        if (r < 0)
                return r;
        r = daemon_event_new(&k->event);
        if (r < 0)
                return r;
        tracker_tasks_init(&k->tasks, &k->config, k->event);
        r = task_user_find(k->config.task_user, &k->tasks.task_user);
        if (r < 0)
                return r;
        return tracker_link_start(&k->link, &k->config, k->event, &k->tasks, k->token,
                                  &k->identity);
}

static void tracker_stop(Tracker *k) {
        tracker_link_stop(&k->link);
        tracker_tasks_done(&k->tasks);
        k->event = sd_event_unref(k->event);
        if (k->token)
                explicit_bzero(k->token, k->token_len);
        free(k->token);
        conf_free(&tracker_config_schema, &k->config);
}

static void help(void) {
        printf("Usage: flexslot-tracker [OPTIONS]\n"
               "\n"
               "The flexslot task tracker of one VM: registers with the controller,\n"
               "heartbeats, and runs the map and reduce tasks it is given.\n"
               "\n"
               "  -h --help              Show this help and exit\n"
               "     --version           Show the version and exit\n"
               "  -c --config=FILE       Configuration file (default " DEFAULT_CONFIG_FILE ";\n"
               "                         built-in defaults if that does not exist)\n"
               "     --log-level=LEVEL   err, warning, notice, info or debug\n"
               "\n"
               "Options override the configuration file. See flexslot-tracker(8).\n");
}

int main(int argc, char **argv) {
        static const DaemonCommandLine command_line = {
                .program = PROGRAM,
                .config_default = DEFAULT_CONFIG_FILE,
                .help = help,
        };
        Tracker k = { 0 };
        DaemonOptions o;
        int r;

        log_open(argv[0]);
        r = daemon_parse_argv(&command_line, argc, argv, &o);
        if (r < 0)
                return EXIT_USAGE;
        if (r == 0)
                return EXIT_SUCCESS;
        r = daemon_load_config(&tracker_config_schema, o.config_file, o.config_given, &k.config);
        if (r < 0)
                return EXIT_FAILURE;
        log_set_max_level(o.log_level_given ? o.log_level : daemon_log_levels[k.config.log_level]);
        r = tracker_start(&k);
        if (r >= 0) {
                log_info("Tracker %s (VM %s) for %s, data in %s, tasks as %s", k.identity.hostname,
                         k.identity.vm_uuid, k.config.controller, k.config.data_dir,
                         k.tasks.task_user.name);
                r = daemon_run(k.event, "Running");
        }
        tracker_stop(&k);
        return r == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

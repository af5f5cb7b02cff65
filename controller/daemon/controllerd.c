/* SPDX-License-Identifier: MIT */
/* flexslot-controllerd: keeps the jobs (in the store), serves
 * org.flexslot.Controller1 to operators on a bus and org.flexslot.Tracker1
 * to trackers on its own peer-to-peer endpoint, and runs every heartbeat
 * and control cycle through the policy core. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/format.h"
#include "common/cli.h"
#include "common/daemon-util.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/version.h"
#include "policy/layers/policies.h"
#include "daemon.h"
#include "proto/errors.h"
#include "proto/tracker1.h"

#define DEFAULT_CONFIG_FILE "/etc/flexslot/controller.ini"
#define PROGRAM "flexslot-controllerd"

typedef struct Options {
        DaemonOptions daemon;
        const char *address;
} Options;

static void help(void) {
        printf("Usage: flexslot-controllerd [OPTIONS]\n"
               "\n"
               "The flexslot controller: keeps the jobs, serves org.flexslot.Controller1\n"
               "on D-Bus and the trackers' heartbeats on its own endpoint.\n"
               "\n"
               "  -h --help              Show this help and exit\n"
               "     --version           Show the version and exit\n"
               "  -c --config=FILE       Configuration file (default " DEFAULT_CONFIG_FILE ";\n"
               "                         built-in defaults if that does not exist)\n"
               "  -a --address=ADDRESS   D-Bus address to serve on (default: the system bus)\n"
               "     --log-level=LEVEL   err, warning, notice, info or debug\n"
               "\n"
               "Options override the configuration file.\n");
}

static int parse_option(int c, const char *arg, void *userdata) {
        Options *o = userdata;

        assert(c == 'a');
        o->address = arg;
        return 0;
}

/* Returns 1 to run, 0 to exit successfully, < 0 on a usage error. */
static int parse_argv(int argc, char **argv, Options *o) {
        static const struct option options[] = {
                { "address", required_argument, NULL, 'a' },
                {},
        };
        const DaemonCommandLine command_line = {
                .program = PROGRAM,
                .config_default = DEFAULT_CONFIG_FILE,
                .help = help,
                .options = options,
                .short_options = "a:",
                .option = parse_option,
                .userdata = o,
        };

        *o = (Options){ 0 };
        return daemon_parse_argv(&command_line, argc, argv, &o->daemon);
}

/* What the controller checks of the machine before it starts (the
 * configuration part's check, so each problem names the key's file and
 * line): the data directory is a directory and not the root of the file
 * system (where every file of the host would be a job's input), and the
 * token file exists and is its owner's alone. Both are the trackers':
 * a controller that drives YARN reads neither. */
static int check_system(const void *config, ConfError *err) {
        const ControllerConfig *c = config;
        struct stat st, root;

        if (c->driver != CONTROLLER_DRIVER_TRACKERS)
                return 0;
        if (stat(c->data_dir, &st) < 0)
                return conf_error_set(err, "jobs", "data-dir", "%s: %s", c->data_dir,
                                      strerror(errno));
        if (!S_ISDIR(st.st_mode))
                return conf_error_set(err, "jobs", "data-dir", "%s is not a directory",
                                      c->data_dir);
        if (stat("/", &root) == 0 && st.st_dev == root.st_dev && st.st_ino == root.st_ino)
                return conf_error_set(err, "jobs", "data-dir",
                                      "%s is the root directory: every file of the host would "
                                      "be a job's input",
                                      c->data_dir);
        if (stat(c->token_file, &st) < 0)
                return conf_error_set(err, "trackers", "token-file", "%s: %s", c->token_file,
                                      strerror(errno));
        if (st.st_mode & DAEMON_TOKEN_MODE_FORBIDDEN)
                return conf_error_set(err, "trackers", "token-file",
                                      "%s is open to its group or others (mode %04o): whoever "
                                      "reads it can pass for a tracker; chmod 0600 it",
                                      c->token_file, (unsigned)(st.st_mode & 07777));
        return 0;
}

/* The controller's keys, and in [policy] the parameters of the policy
 * layers, the same keys as flexslot-sim's scenarios. */
static int load_config(Controller *c, const Options *o) {
        ConfPart parts[1 + POLICY_SCHEMAS_MAX];
        bool core_set[32] = { false };
        int r;

        r = policy_config_init(&c->policy_config);
        if (r < 0)
                return log_oom();
        parts[0] = (ConfPart){ .schema = &controller_config_schema,
                               .config = &c->config,
                               .check = check_system };
        policy_config_parts(&c->policy_config, parts + 1);
        /* policy_config_init() puts the core's settings first. */
        assert(c->policy_config.schemas[0] == &core_settings_schema &&
               core_settings_schema.n_keys <= ELEMENTSOF(core_set));
        parts[1].ret_set = core_set;
        r = daemon_load_config_parts(parts, 1 + c->policy_config.n_settings, o->daemon.config_file,
                                     o->daemon.config_given);
        if (r < 0)
                return r;
        for (size_t i = 0; i < core_settings_schema.n_keys; i++) {
                const char *key = core_settings_schema.keys[i].key;

                if (core_set[i] && strcmp(key, "control_interval") == 0)
                        c->control_interval_set = true;
                if (core_set[i] && strcmp(key, "reduce_slowstart") == 0)
                        c->reduce_slowstart_set = true;
        }
        log_set_max_level(o->daemon.log_level_given ? o->daemon.log_level
                                                    : daemon_log_levels[c->config.log_level]);
        if (o->address) {
                char *copy = strdup(o->address);

                if (!copy)
                        return log_oom();
                free(c->config.address);
                c->config.address = copy;
        }
        return 0;
}

/* The group allowed to submit, cancel and set slots besides root; a missing
 * group leaves only root. */
static void resolve_allowed_group(Controller *c) {
        struct group grp, *result = NULL;
        char buf[4096];

        if (getgrnam_r(c->config.allowed_group, &grp, buf, sizeof(buf), &result) == 0 && result) {
                c->allowed_gid = result->gr_gid;
                c->have_allowed_gid = true;
        } else
                log_info("Group '%s' does not exist: only root may submit jobs or change the "
                         "cluster",
                         c->config.allowed_group);
}

/* Two controllers on one store would give one job id twice and run every
 * job twice; SQLite's own locks only serialise their transactions. */
static int lock_store(Controller *c) {
        _cleanup_free_ char *path = NULL;
        char pid[32];
        int n;

        if (asprintf(&path, "%s.lock", c->config.store) < 0)
                return log_oom();
        c->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
        if (c->lock_fd < 0)
                return log_error_errno(negative_errno(), "Cannot open %s", path);
        if (flock(c->lock_fd, LOCK_EX | LOCK_NB) < 0) {
                if (errno == EWOULDBLOCK) {
                        log_error("The store %s is in use by another controller (lock %s)",
                                  c->config.store, path);
                        return -EBUSY;
                }
                return log_error_errno(negative_errno(), "Cannot lock %s", path);
        }
        n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
        if (ftruncate(c->lock_fd, 0) < 0 || write(c->lock_fd, pid, (size_t)n) != n)
                log_warning_errno(negative_errno(), "Cannot write the PID into %s", path);
        return 0;
}

/* The policy core with the layers the configuration names and their
 * parameters; the control interval is the heartbeat interval unless
 * [policy] control_interval says otherwise. */
static int build_policy(Controller *c) {
        PolicyConfig *cfg = &c->policy_config;
        CoreSettings *core = policy_config_settings(cfg, &core_settings_schema);
        ConfError err = { 0 };
        char text[CONF_ERROR_TEXT_MAX * 2];
        int r;

        cfg->scheduler = c->config.scheduler;
        cfg->slot_manager = c->config.slot_manager;
        cfg->speculation = c->config.speculation;
        cfg->vm_allocator = c->config.vm_allocator;
        if (!c->control_interval_set)
                core->control_interval = c->driver->control_interval(c);
        /* A reduce is given its map outputs when it starts and fetches none
         * later (there is no shuffle server), so it starts once every map is
         * done whatever reduce_slowstart says: the snapshot tells the policy
         * core so (reduces_read_maps_at_start). A lower value given here
         * could not take effect, so it is refused rather than ignored. */
        if (c->reduce_slowstart_set && core->reduce_slowstart < 1)
                return log_error_errno(-EINVAL,
                                       "[policy] reduce_slowstart must be 1 in the controller "
                                       "(is %g): a reduce reads its map outputs when it starts",
                                       core->reduce_slowstart);
        /* A tracker runs one task in a slot, whichever type the slot is: a
         * slot weight above 1 (DynamicMR 2.1, challenge C2: two maps in a
         * reduce slot of weight 2) is the simulator's alone. */
        if (core->dmr.map_slot_weight != 1 || core->dmr.reduce_slot_weight != 1)
                return log_error_errno(-EINVAL,
                                       "[policy] map_slot_weight and reduce_slot_weight must be "
                                       "1 in the controller (are %" PRIi64 " and %" PRIi64
                                       "): a tracker runs one task per slot",
                                       core->dmr.map_slot_weight, core->dmr.reduce_slot_weight);
        r = policy_new_named(cfg, &err, &c->policy);
        if (r < 0) {
                conf_error_format(&err, text, sizeof(text));
                return log_error_errno(r, "Cannot build the policy: %s", text);
        }
        log_info("Policy: scheduler %s, slot manager %s, speculation %s, VM allocator %s",
                 cfg->scheduler, cfg->slot_manager, cfg->speculation, cfg->vm_allocator);
        return 0;
}

static int open_state(Controller *c) {
        StoreError err = { 0 };
        int r;

        r = lock_store(c);
        if (r < 0)
                return r;
        r = store_open(c->config.store, &c->store, &err);
        if (r < 0)
                return log_error_errno(r, "Cannot open the store %s: %s", c->config.store,
                                       err.message);
        r = build_policy(c);
        if (r < 0)
                return r;
        r = cluster_new(c->store, c->policy,
                        &(ClusterData){ .data_dir = c->config.data_dir,
                                        .block_size = c->config.block_size },
                        &c->cluster, &err);
        if (r < 0)
                return log_error_errno(r, "Cannot load the unfinished jobs: %s", err.message);
        c->cluster->step = c->config.step;
        if (!c->config.step)
                log_warning("[policy] step is off: heartbeats start no task (for benchmarks)");
        log_info("Resuming %zu unfinished jobs from %s", c->cluster->n_jobs, c->config.store);
        return 0;
}

/* How often ended jobs older than [jobs] keep-ended are looked for. */
#define PRUNE_INTERVAL USEC_PER_HOUR

static void prune_ended_jobs(Controller *c) {
        usec_t now = now_realtime_usec();
        StoreError err = { 0 };
        size_t n = 0;
        int r;

        if (c->config.keep_ended == 0 || now <= c->config.keep_ended)
                return;
        r = store_jobs_prune(c->store, now - c->config.keep_ended, &n, &err);
        if (r < 0)
                log_warning_errno(r, "Cannot forget the jobs that ended over %s ago: %s",
                                  FORMAT_DURATION(c->config.keep_ended), err.message);
        else if (n > 0)
                log_info("Forgot %zu jobs that ended over %s ago", n,
                         FORMAT_DURATION(c->config.keep_ended));
}

static int on_prune_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Controller *c = userdata;
        int r;

        prune_ended_jobs(c);
        r = sd_event_source_set_time_relative(s, PRUNE_INTERVAL);
        if (r >= 0)
                r = sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        if (r < 0)
                return log_error_errno(r, "Cannot rearm the prune timer");
        return 0;
}

int controller_rearm(sd_event_source *s, uint64_t usec, usec_t interval) {
        usec_t now;
        int r;

        r = sd_event_now(sd_event_source_get_event(s), CLOCK_MONOTONIC, &now);
        if (r >= 0)
                r = sd_event_source_set_time(s, usec_next_deadline(usec, interval, now));
        if (r >= 0)
                r = sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        if (r < 0)
                return log_error_errno(r, "Cannot rearm a timer");
        return 0;
}

static int on_control_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Controller *c = userdata;

        agents_refresh(c->agents);
        c->driver->control(c);
        return controller_rearm(s, usec, c->driver->control_interval(c));
}

/* A controller that stops leaves no VM with the weight the lever gave it:
 * another tenant's would stay throttled for good. */
static int on_exit_give_back(sd_event_source *s, void *userdata) {
        Controller *c = userdata;

        agents_give_back_weights(c->agents);
        return 0;
}

int controller_add_periodic(Controller *c, sd_event_source **ret, sd_event_time_handler_t handler,
                            usec_t interval, const char *name) {
        int r;

        r = sd_event_add_time_relative(c->event, ret, CLOCK_MONOTONIC, interval, interval / 20,
                                       handler, c);
        if (r < 0)
                return log_error_errno(r, "Cannot add the %s timer", name);
        (void)sd_event_source_set_description(*ret, name);
        return 0;
}

static int controller_start(Controller *c) {
        int r;

        r = proto_errors_register();
        if (r < 0)
                return log_error_errno(r, "Cannot register the error names");
        resolve_allowed_group(c);
        r = open_state(c);
        if (r < 0)
                return r;

        r = daemon_event_new(&c->event);
        if (r < 0)
                return r;

        r = daemon_bus_connect(c->config.address, "flexslot-controllerd", &c->bus);
        if (r < 0)
                return r;
        r = controller_bus_setup(c);
        if (r < 0)
                return r;
        r = controller_bus_vms_setup(c);
        if (r < 0)
                return r;
        r = agents_new(c->event, c->cluster, &c->config, &c->agents);
        if (r < 0)
                return log_error_errno(r, "Cannot set up the agents");
        /* Before the agents' connections close: each bus attached to the
         * loop closes in an exit source of its own, at normal priority. */
        r = sd_event_add_exit(c->event, &c->give_back, on_exit_give_back, c);
        if (r >= 0)
                r = sd_event_source_set_priority(c->give_back, SD_EVENT_PRIORITY_IMPORTANT);
        if (r < 0)
                return log_error_errno(r, "Cannot add the lever's give-back at exit");
        r = sd_bus_attach_event(c->bus, c->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(r, "Cannot attach the bus to the event loop");
        r = c->driver->start(c);
        if (r < 0)
                return r;
        controller_metrics_init(c);
        if (c->config.metrics_listen) {
                r = metrics_server_new(c->event, c->config.metrics_listen, controller_metrics_write,
                                       c, &c->metrics);
                if (r < 0)
                        return log_error_errno(r, "Cannot serve metrics on %s: %m",
                                               c->config.metrics_listen);
                log_info("Metrics on %s, port %u, at /metrics", c->config.metrics_listen,
                         metrics_server_port(c->metrics));
        }
        r = controller_add_periodic(c, &c->control_timer, on_control_timer,
                                    c->driver->control_interval(c), "control");
        if (r < 0)
                return r;
        /* The first check at once, so that a store that grew while the
         * controller was down shrinks when it starts. */
        r = sd_event_add_time_relative(c->event, &c->prune_timer, CLOCK_MONOTONIC, 0,
                                       PRUNE_INTERVAL / 60, on_prune_timer, c);
        if (r < 0)
                return log_error_errno(r, "Cannot add the prune timer");
        (void)sd_event_source_set_description(c->prune_timer, "prune-ended-jobs");
        return 0;
}

static void controller_stop(Controller *c) {
        c->give_back = sd_event_source_disable_unref(c->give_back);
        c->control_timer = sd_event_source_disable_unref(c->control_timer);
        c->prune_timer = sd_event_source_disable_unref(c->prune_timer);
        if (c->driver)
                c->driver->stop(c);
        c->metrics = metrics_server_free(c->metrics);
        c->agents = agents_free(c->agents);
        c->vm_slot = sd_bus_slot_unref(c->vm_slot);
        c->object_slot = sd_bus_slot_unref(c->object_slot);
        c->bus = sd_bus_flush_close_unref(c->bus);
        c->event = sd_event_unref(c->event);
        c->cluster = cluster_free(c->cluster);
        c->policy = policy_free(c->policy);
        c->store = store_close(c->store);
        if (c->lock_fd >= 0)
                close(c->lock_fd);
        if (c->token)
                explicit_bzero(c->token, c->token_len);
        free(c->token);
        conf_free(&controller_config_schema, &c->config);
        policy_config_done(&c->policy_config);
}

int main(int argc, char **argv) {
        Controller c = { .lock_fd = -1, .listen_fd = -1, .spare_fd = -1 };
        Options o;
        int r;

        log_open(argv[0]);
        r = parse_argv(argc, argv, &o);
        if (r < 0)
                return EXIT_USAGE;
        if (r == 0)
                return EXIT_SUCCESS;
        r = load_config(&c, &o);
        if (r < 0)
                return EXIT_FAILURE;
        c.driver = c.config.driver == CONTROLLER_DRIVER_YARN ? &controller_driver_yarn
                                                             : &controller_driver_trackers;

        r = controller_start(&c);
        if (r >= 0) {
                log_info("Serving %s on %s, %s %s", CONTROLLER1_BUS_NAME,
                         c.config.address ? c.config.address : "the system bus",
                         c.driver->takes_jobs ? "trackers on" : "YARN at",
                         c.driver->takes_jobs ? c.config.listen : c.config.yarn_resourcemanager);
                r = daemon_run(c.event, "Serving");
        }
        controller_stop(&c);
        return r == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

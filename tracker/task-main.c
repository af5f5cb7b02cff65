/* SPDX-License-Identifier: MIT */
/* flexslot-task: runs one map or reduce task from the command line, the way
 * flexslot-tracker runs it, for testing and debugging; also prints a data
 * directory's input splits. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/parse.h"
#include "common/version.h"
#include "tracker/child.h"
#include "tracker/mapout.h"
#include "tracker/task.h"

#define PROGRAM "flexslot-task"
#define ATTEMPT_MAX 100
/* How long a task told to stop on Ctrl-C gets before SIGKILL. */
#define KILL_GRACE (5 * USEC_PER_SEC)

typedef enum Command {
        CMD_MAP,
        CMD_REDUCE,
        CMD_SPLITS,
        CMD_APPS,
} Command;

typedef struct Options {
        Command command;
        const AppOps *app;
        AppConfig app_cfg;
        const char *split, *out, *attempt, *work, *status_fd, *data_dir;
        InputSplit parsed_split;
        char attempt_buf[32];
        unsigned reduces, partition;
        bool reduces_set, partition_set, quiet;
        uint64_t sort_buffer, slot_memory, block_size;
        TaskMemoryMode memory_mode;
        char **paths;
        size_t n_paths;
        /* Options given, to refuse those the command does not take. */
        const char *given[16];
        size_t n_given;
} Options;

static bool attempt_valid(const char *s) {
        size_t n = strlen(s);

        if (n == 0 || n > ATTEMPT_MAX || s[0] == '.')
                return false;
        return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

/* Every command: how it is called and what it does, for the overview and
 * its own --help. */
typedef struct TaskCommand {
        const char *synopsis;
        const char *summary; /* its lines in the overview, after the name */
} TaskCommand;

static const char *const command_names[] = {
        [CMD_MAP] = "map",
        [CMD_REDUCE] = "reduce",
        [CMD_SPLITS] = "splits",
        [CMD_APPS] = "apps",
};

static const TaskCommand commands[] = {
        [CMD_MAP] = { "[OPTIONS] map --split=FILE:OFFSET:LENGTH --reduces=N --out=FILE",
                      "map one input split into one map output file, partitioned for\n"
                      "the reduces, with a partition index" },
        [CMD_REDUCE] = { "[OPTIONS] reduce --partition=P --out=FILE MAP_OUTPUT...",
                         "reduce one partition of map outputs (files, or directories of\n"
                         "them) into key<TAB>value lines" },
        [CMD_SPLITS] = { "splits [--block-size=SIZE] PATH...",
                         "print the input splits of files and directories, one\n"
                         "FILE:OFFSET:LENGTH a line, largest first (Hadoop's rules)" },
        [CMD_APPS] = { "apps", "list the built-in applications" },
};

#define ON(c) (1U << (c))
#define TASKS (ON(CMD_MAP) | ON(CMD_REDUCE))
#define EVERY_COMMAND (TASKS | ON(CMD_SPLITS) | ON(CMD_APPS))

/* Every option: the commands that take it (the others refuse it) and its
 * lines in --help. */
typedef struct OptionUse {
        const char *name;
        unsigned commands; /* bits of Command */
        const char *help;
} OptionUse;

static const OptionUse option_uses[] = {
        { "--app", TASKS, "  -a, --app=NAME          a built-in application (see 'apps')\n" },
        { "--app-arg", TASKS, "      --app-arg=ARG       its argument (grep's pattern)\n" },
        { "--mapper", ON(CMD_MAP),
          "      --mapper=COMMAND    streaming map command (run with /bin/sh -c)\n" },
        { "--reducer", ON(CMD_REDUCE), "      --reducer=COMMAND   streaming reduce command\n" },
        { "--split", ON(CMD_MAP), "  -s, --split=FILE:OFFSET:LENGTH  map: the input split\n" },
        { "--reduces", ON(CMD_MAP), "  -r, --reduces=N         map: the number of reduces\n" },
        { "--partition", ON(CMD_REDUCE),
          "  -p, --partition=P       reduce: the partition to reduce\n" },
        { "--out", TASKS, "  -o, --out=FILE          the output file, published atomically\n" },
        { "--sort-buffer", ON(CMD_MAP),
          "  -b, --sort-buffer=SIZE  map: the sort buffer (io.sort.mb; default half the\n"
          "                          slot memory, else 100M)\n" },
        { "--slot-memory", TASKS,
          "  -m, --slot-memory=SIZE  run the task as a child process held to SIZE of\n"
          "                          memory, as in a slot of that size\n" },
        { "--memory-limit", TASKS,
          "      --memory-limit=auto|cgroup|rlimit\n"
          "                          how --slot-memory is enforced (default auto: a\n"
          "                          memory cgroup where possible, else RLIMIT_AS)\n" },
        { "--data-dir", TASKS,
          "  -d, --data-dir=DIR      the split, the map outputs and --out are in DIR\n"
          "                          (relative to it, or absolute under it) and are\n"
          "                          resolved beneath it: no symlink or '..' in DIR\n"
          "                          leads out of it (how flexslot-tracker runs tasks)\n" },
        { "--attempt", TASKS,
          "      --attempt=ID        the attempt, which tags temporary files\n"
          "                          (default attempt-PID)\n" },
        { "--work", TASKS,
          "  -w, --work=DIR          local directory for spills and merges (default\n"
          "                          $TMPDIR, else /var/tmp)\n" },
        { "--block-size", ON(CMD_SPLITS),
          "      --block-size=SIZE   splits: the block size (default 64M)\n" },
        { "--status-fd", TASKS,
          "      --status-fd=FD      write progress into the status a tracker passes\n" },
        { "--quiet", TASKS, "  -q, --quiet             print no report\n" },
        { "--log-level", EVERY_COMMAND,
          "      --log-level=LEVEL   err, warning, notice, info or debug\n" },
        { "--help", EVERY_COMMAND,
          "  -h, --help              show this help, or with a command that command's\n" },
        { "--version", EVERY_COMMAND, "      --version           show the version\n" },
};

static const char report_help[] =
        "\n"
        "A finished task prints its figures as NAME: VALUE lines.\n"
        "Exit status: 0 on success, 1 when the task fails, 2 on bad usage, 3 when\n"
        "the task runs out of memory (its slot memory).\n";

static void print_options(unsigned commands_mask) {
        printf("\nOptions:\n");
        for (size_t i = 0; i < ELEMENTSOF(option_uses); i++)
                if (option_uses[i].commands & commands_mask)
                        fputs(option_uses[i].help, stdout);
}

static void usage(void) {
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                printf("%s flexslot-task %s\n", i == 0 ? "Usage:" : "      ", commands[i].synopsis);
        printf("\nRuns one MapReduce task as flexslot-tracker runs it, for testing and "
               "debugging.\n\n");
        for (size_t i = 0; i < ELEMENTSOF(commands); i++) {
                const char *line = commands[i].summary;

                printf("  %-10s ", command_names[i]);
                /* The summary's later lines under its first. */
                for (const char *nl; (nl = strchr(line, '\n')); line = nl + 1)
                        printf("%.*s\n             ", (int)(nl - line), line);
                printf("%s\n", line);
        }
        print_options(EVERY_COMMAND);
        fputs(report_help, stdout);
}

/* COMMAND --help: its synopsis, what it does and the options it takes,
 * no other. */
static void command_usage(Command c) {
        const char *summary = commands[c].summary;

        printf("Usage: flexslot-task %s\n\n%c%s.\n", commands[c].synopsis, summary[0] - 'a' + 'A',
               summary + 1);
        print_options(ON(c));
        if (c == CMD_MAP || c == CMD_REDUCE)
                fputs(report_help, stdout);
}

static int options_check_use(const Options *o) {
        for (size_t i = 0; i < o->n_given; i++)
                for (size_t j = 0; j < ELEMENTSOF(option_uses); j++)
                        if (strcmp(o->given[i], option_uses[j].name) == 0 &&
                            !(option_uses[j].commands & ON(o->command)))
                                return cli_usage_error(PROGRAM, "%s does not apply to %s",
                                                       o->given[i], command_names[o->command]);
        return 0;
}

static void options_note(Options *o, const char *name) {
        for (size_t i = 0; i < o->n_given; i++)
                if (strcmp(o->given[i], name) == 0)
                        return;
        if (o->n_given < ELEMENTSOF(o->given))
                o->given[o->n_given++] = name;
}

/* *path as the task resolves it beneath data_dir: a relative path as it
 * is, an absolute one under data_dir relative to it; -EXDEV (said) for an
 * absolute one elsewhere. */
static int data_relative(const char *data_dir, const char *what, const char **path) {
        size_t n = strlen(data_dir);
        const char *p = *path;

        while (n > 0 && data_dir[n - 1] == '/')
                n--;
        if (p[0] != '/')
                return 0;
        if (strncmp(p, data_dir, n) != 0 || p[n] != '/') {
                cli_usage_error(PROGRAM, "%s '%s' is not in the data directory %s", what, p,
                                data_dir);
                return -EXDEV;
        }
        p += n;
        *path = p + strspn(p, "/");
        return 0;
}

static int options_data_relative(Options *o) {
        int r = 0;

        if (!o->data_dir)
                return 0;
        if (o->split)
                r = data_relative(o->data_dir, "--split", &o->split);
        if (r >= 0)
                r = data_relative(o->data_dir, "--out", &o->out);
        for (size_t i = 0; i < o->n_paths && r >= 0; i++)
                r = data_relative(o->data_dir, "map output", (const char **)&o->paths[i]);
        return r;
}

/* The checks of a map or reduce command line once the command is known. */
static int options_check_task(Options *o) {
        const char *cmd_opt = o->command == CMD_MAP ? "--mapper" : "--reducer";
        const char *cmd = o->command == CMD_MAP ? o->app_cfg.mapper : o->app_cfg.reducer;

        if (o->app && cmd)
                return cli_usage_error(PROGRAM, "--app and %s exclude each other", cmd_opt);
        if (!o->app && !cmd)
                return cli_usage_error(PROGRAM, "%s needs --app=NAME or %s=COMMAND",
                                       command_names[o->command], cmd_opt);
        if (cmd && o->app_cfg.arg)
                return cli_usage_error(PROGRAM, "--app-arg is for built-in applications");
        if (!o->app)
                o->app = &app_streaming;
        else if (o->app->info->arg_name && !o->app_cfg.arg)
                return cli_usage_error(PROGRAM, "%s needs its %s: --app-arg=%s", o->app->info->name,
                                       o->app->info->arg_name, o->app->info->arg_name);
        else if (!o->app->info->arg_name && o->app_cfg.arg)
                return cli_usage_error(PROGRAM, "%s takes no --app-arg", o->app->info->name);
        if (!o->out)
                return cli_usage_error(PROGRAM, "%s needs --out=FILE", command_names[o->command]);
        if (options_data_relative(o) < 0)
                return EXIT_USAGE;
        if (o->command == CMD_MAP) {
                if (!o->split)
                        return cli_usage_error(PROGRAM, "map needs --split=FILE:OFFSET:LENGTH");
                if (!o->reduces_set)
                        return cli_usage_error(PROGRAM, "map needs --reduces=N");
                if (o->n_paths > 0)
                        return cli_usage_error(PROGRAM,
                                               "map takes no arguments besides its options");
                if (o->sort_buffer == 0)
                        o->sort_buffer = o->slot_memory ? sort_buffer_for_slot(o->slot_memory)
                                                        : SORT_BUFFER_DEFAULT;
                /* Last: nothing after it fails, so the parsed split is freed. */
                if (input_split_parse(o->split, &o->parsed_split) < 0)
                        return cli_usage_error(PROGRAM, "invalid split '%s' (FILE:OFFSET:LENGTH)",
                                               o->split);
        } else {
                if (!o->partition_set)
                        return cli_usage_error(PROGRAM, "reduce needs --partition=P");
                if (o->n_paths == 0)
                        return cli_usage_error(
                                PROGRAM, "reduce needs its map outputs (files or directories)");
        }
        if (!o->attempt) {
                snprintf(o->attempt_buf, sizeof(o->attempt_buf), "attempt-%d", (int)getpid());
                o->attempt = o->attempt_buf;
        }
        if (!o->work) {
                const char *tmp = getenv("TMPDIR");
                o->work = tmp && *tmp ? tmp : "/var/tmp";
        }
        return 0;
}

static void report_line(const char *name, uint64_t v) {
        printf("%s: %" PRIu64 "\n", name, v);
}

static void report_rate(usec_t elapsed, uint64_t bytes) {
        double s = usec_to_sec(elapsed);

        printf("seconds: %.3f\n", s);
        printf("mb_per_s: %.1f\n", s > 0 ? (double)bytes / (1024.0 * 1024.0) / s : 0.0);
}

typedef struct TaskRun {
        const Options *o;
        TaskStatus *status;
} TaskRun;

/* The task itself, in this process or in the child; returns the exit
 * status. */
static int task_run(void *userdata) {
        const TaskRun *t = userdata;
        const Options *o = t->o;
        int r;

        if (o->command == CMD_MAP) {
                MapTaskSpec spec = {
                        .app = o->app,
                        .app_cfg = o->app_cfg,
                        .data_dir = o->data_dir,
                        .split = o->parsed_split,
                        .reduces = o->reduces,
                        .sort_buffer = o->sort_buffer,
                        .output = o->out,
                        .attempt = o->attempt,
                        .work_dir = o->work,
                        .status = t->status,
                };
                MapTaskReport rep;

                r = map_task_run(&spec, &rep);
                if (r >= 0 && !o->quiet) {
                        report_line("input_bytes", rep.input_bytes);
                        report_line("input_records", rep.input_records);
                        report_line("output_records", rep.sort.records);
                        report_line("spilled_records", rep.sort.spilled_records);
                        report_line("spills", rep.sort.spills);
                        report_line("merge_passes", rep.sort.merge_passes);
                        report_line("output_bytes", rep.output_bytes);
                        report_line("sort_buffer", o->sort_buffer);
                        report_rate(rep.elapsed, rep.input_bytes);
                }
        } else {
                ReduceTaskSpec spec = {
                        .app = o->app,
                        .app_cfg = o->app_cfg,
                        .data_dir = o->data_dir,
                        .partition = o->partition,
                        .inputs = o->paths,
                        .n_inputs = o->n_paths,
                        .output = o->out,
                        .attempt = o->attempt,
                        .work_dir = o->work,
                        .status = t->status,
                };
                ReduceTaskReport rep;

                r = reduce_task_run(&spec, &rep);
                if (r >= 0 && !o->quiet) {
                        report_line("map_outputs", rep.map_outputs);
                        report_line("shuffle_bytes", rep.shuffle_bytes);
                        report_line("input_records", rep.input_records);
                        report_line("groups", rep.groups);
                        report_line("output_records", rep.output_records);
                        report_line("output_bytes", rep.output_bytes);
                        report_line("merge_passes", rep.merge_passes);
                        report_rate(rep.elapsed, rep.shuffle_bytes);
                }
        }
        if (r == -ENOMEM) {
                log_error("%s %s ran out of memory", command_names[o->command], o->attempt);
                return TASK_EXIT_NOMEM;
        }
        if (r < 0) {
                log_error("%s %s failed", command_names[o->command], o->attempt);
                return TASK_EXIT_FAILED;
        }
        return EXIT_SUCCESS;
}

/* With --slot-memory: the task in a child held to it, as the tracker runs
 * it. Ctrl-C or SIGTERM stops the task (which is in its own process group,
 * out of reach of the terminal's signals) before this process goes. */
static int task_run_child(TaskRun *t) {
        const Options *o = t->o;
        TaskChildSpec spec = {
                .fn = task_run,
                .userdata = t,
                .name = o->attempt,
                .memory_limit = o->slot_memory,
                .memory_mode = o->memory_mode,
                .inherit_fd = -1,
        };
        _cleanup_(task_child_freep) TaskChild *c = NULL;
        _cleanup_close_ int sfd = -1;
        TaskOutcome out;
        sigset_t mask;
        char what[TASK_OUTCOME_TEXT_MAX];
        int r;

        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return TASK_EXIT_FAILED;
        sfd = signalfd(-1, &mask, SFD_CLOEXEC);
        if (sfd < 0)
                return TASK_EXIT_FAILED;
        r = task_child_spawn(&spec, &c);
        if (r < 0)
                return TASK_EXIT_FAILED;
        log_debug("%s %s runs as process %d under %s", command_names[o->command], o->attempt,
                  (int)task_child_pid(c), task_memory_mode_to_string(task_child_memory_mode(c)));
        for (;;) {
                struct pollfd fds[2] = {
                        { .fd = task_child_fd(c), .events = POLLIN },
                        { .fd = sfd, .events = POLLIN },
                };

                if (poll(fds, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        return TASK_EXIT_FAILED;
                }
                if (fds[1].revents) {
                        r = task_child_kill(c, KILL_GRACE, &out);
                        break;
                }
                if (fds[0].revents) {
                        r = task_child_wait(c, 0, &out);
                        break;
                }
        }
        if (r < 0)
                return TASK_EXIT_FAILED;
        if (out.end == TASK_END_SUCCEEDED)
                return EXIT_SUCCESS;
        task_outcome_describe(&out, what, sizeof(what));
        log_error("%s %s %s", command_names[o->command], o->attempt, what);
        return out.end == TASK_END_MEMORY ? TASK_EXIT_NOMEM : TASK_EXIT_FAILED;
}

static int cmd_splits(const Options *o) {
        InputSplitList l;
        int r;

        if (o->n_paths == 0)
                return cli_usage_error(PROGRAM, "splits needs files or directories");
        r = input_splits_compute(AT_FDCWD, o->paths, o->n_paths, o->block_size, &l);
        if (r < 0)
                return TASK_EXIT_FAILED;
        for (size_t i = 0; i < l.n; i++)
                printf("%s:%" PRIu64 ":%" PRIu64 "\n", l.splits[i].path, l.splits[i].offset,
                       l.splits[i].length);
        input_split_list_done(&l);
        return EXIT_SUCCESS;
}

static void cmd_apps(void) {
        for (const AppOps *const *a = app_table; *a; a++) {
                char name[64];

                const MapredApp *info = (*a)->info;

                snprintf(name, sizeof(name), "%s%s%s", info->name, info->arg_name ? " " : "",
                         info->arg_name ? info->arg_name : "");
                printf("%-26s %s\n", name, info->summary);
        }
}

static int parse_command(const char *s, Command *ret) {
        for (size_t i = 0; i < ELEMENTSOF(command_names); i++)
                if (strcmp(s, command_names[i]) == 0) {
                        *ret = (Command)i;
                        return 0;
                }
        return -EINVAL;
}

/* Remembers the long name of option c, to refuse it later where it does
 * not apply. */
static void options_note_given(Options *o, const struct option *options, int c) {
        for (const struct option *op = options; op->name; op++)
                if (op->val == c) {
                        for (size_t i = 0; i < ELEMENTSOF(option_uses); i++)
                                if (strcmp(option_uses[i].name + 2, op->name) == 0)
                                        options_note(o, option_uses[i].name);
                        return;
                }
}

static int parse_size_option(const char *name, const char *s, uint64_t min, uint64_t max,
                             uint64_t *ret) {
        uint64_t v;

        if (parse_size(s, &v) < 0 || v < min || v > max)
                return cli_usage_error(PROGRAM, "invalid %s '%s'", name, s);
        *ret = v;
        return 0;
}

static int parse_unsigned_option(const char *what, const char *s, unsigned max, unsigned *ret) {
        int v;

        if (parse_int(s, 0, (int)max, &v) < 0)
                return cli_usage_error(PROGRAM, "invalid %s '%s' (0-%u)", what, s, max);
        *ret = (unsigned)v;
        return 0;
}

static int parse_options(int argc, char **argv, Options *o) {
        static const struct option options[] = {
                { "app", required_argument, NULL, 'a' },
                { "app-arg", required_argument, NULL, 'A' },
                { "mapper", required_argument, NULL, 'M' },
                { "reducer", required_argument, NULL, 'R' },
                { "split", required_argument, NULL, 's' },
                { "reduces", required_argument, NULL, 'r' },
                { "partition", required_argument, NULL, 'p' },
                { "out", required_argument, NULL, 'o' },
                { "sort-buffer", required_argument, NULL, 'b' },
                { "slot-memory", required_argument, NULL, 'm' },
                { "memory-limit", required_argument, NULL, 'L' },
                { "attempt", required_argument, NULL, 't' },
                { "work", required_argument, NULL, 'w' },
                { "block-size", required_argument, NULL, 'B' },
                { "status-fd", required_argument, NULL, 'S' },
                { "data-dir", required_argument, NULL, 'd' },
                { "quiet", no_argument, NULL, 'q' },
                { "log-level", required_argument, NULL, 'l' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                {},
        };
        LogLevel level;
        bool help = false;
        int c, r;

        opterr = 0;
        while ((c = getopt_long(argc, argv, ":a:s:r:p:o:b:m:w:d:qh", options, NULL)) >= 0) {
                options_note_given(o, options, c);
                switch (c) {
                case 'a':
                        o->app = app_find(optarg);
                        if (!o->app)
                                return cli_usage_error(
                                        PROGRAM, "unknown application '%s' (see 'apps')", optarg);
                        break;
                case 'A':
                        o->app_cfg.arg = optarg;
                        break;
                case 'M':
                        o->app_cfg.mapper = optarg;
                        break;
                case 'R':
                        o->app_cfg.reducer = optarg;
                        break;
                case 's':
                        o->split = optarg;
                        break;
                case 'r':
                        r = parse_unsigned_option("number of reduces", optarg,
                                                  MAP_OUTPUT_PARTITIONS_MAX, &o->reduces);
                        if (r != 0)
                                return r;
                        if (o->reduces == 0)
                                return cli_usage_error(PROGRAM,
                                                       "invalid number of reduces '0' (1-%u)",
                                                       MAP_OUTPUT_PARTITIONS_MAX);
                        o->reduces_set = true;
                        break;
                case 'p':
                        r = parse_unsigned_option("partition", optarg,
                                                  MAP_OUTPUT_PARTITIONS_MAX - 1, &o->partition);
                        if (r != 0)
                                return r;
                        o->partition_set = true;
                        break;
                case 'o':
                        o->out = optarg;
                        break;
                case 'b':
                        r = parse_size_option("sort buffer size", optarg, SORT_BUFFER_MIN,
                                              SORT_BUFFER_MAX, &o->sort_buffer);
                        if (r != 0)
                                return r;
                        break;
                case 'm':
                        r = parse_size_option("slot memory", optarg, 1ULL << 20, UINT64_MAX / 2,
                                              &o->slot_memory);
                        if (r != 0)
                                return r;
                        break;
                case 'L':
                        if (strcmp(optarg, "auto") == 0)
                                o->memory_mode = TASK_MEMORY_AUTO;
                        else if (strcmp(optarg, "cgroup") == 0)
                                o->memory_mode = TASK_MEMORY_CGROUP;
                        else if (strcmp(optarg, "rlimit") == 0)
                                o->memory_mode = TASK_MEMORY_RLIMIT;
                        else
                                return cli_usage_error(PROGRAM,
                                                       "invalid --memory-limit '%s' (auto, cgroup "
                                                       "or rlimit)",
                                                       optarg);
                        break;
                case 't':
                        if (!attempt_valid(optarg))
                                return cli_usage_error(PROGRAM,
                                                       "invalid attempt '%s': up to %d letters, "
                                                       "digits, '.', '_' and '-', not first '.'",
                                                       optarg, ATTEMPT_MAX);
                        o->attempt = optarg;
                        break;
                case 'w':
                        o->work = optarg;
                        break;
                case 'B':
                        r = parse_size_option("block size", optarg, 1, UINT64_MAX / 16,
                                              &o->block_size);
                        if (r != 0)
                                return r;
                        break;
                case 'S':
                        o->status_fd = optarg;
                        break;
                case 'd':
                        o->data_dir = optarg;
                        break;
                case 'q':
                        o->quiet = true;
                        break;
                case 'l':
                        if (log_level_from_string(optarg, &level) < 0)
                                return cli_usage_error(PROGRAM, "invalid log level '%s'", optarg);
                        log_set_max_level(level);
                        break;
                case 'h':
                        help = true;
                        break;
                case 'V':
                        printf("flexslot-task %s\n", FLEXSLOT_VERSION);
                        return -1;
                default:
                        return cli_option_error(PROGRAM, c, argv);
                }
        }
        if (optind < argc && parse_command(argv[optind], &o->command) < 0)
                return cli_usage_error(PROGRAM, "unknown command '%s'", argv[optind]);
        if (help) {
                if (optind < argc)
                        command_usage(o->command);
                else
                        usage();
                return -1;
        }
        if (optind >= argc)
                return cli_usage_error(PROGRAM, "missing command (map, reduce, splits or apps)");
        o->paths = argv + optind + 1;
        o->n_paths = (size_t)(argc - optind - 1);
        return options_check_use(o);
}

int main(int argc, char **argv) {
        Options o = { .block_size = SPLIT_BLOCK_SIZE_DEFAULT, .memory_mode = TASK_MEMORY_AUTO };
        TaskRun t = { .o = &o };
        int r, fd;

        log_open("flexslot-task");
        r = parse_options(argc, argv, &o);
        if (r != 0)
                return r < 0 ? EXIT_SUCCESS : r;
        switch (o.command) {
        case CMD_APPS:
                if (o.n_paths > 0)
                        return cli_usage_error(PROGRAM, "apps takes no arguments");
                cmd_apps();
                return EXIT_SUCCESS;
        case CMD_SPLITS:
                return cmd_splits(&o);
        case CMD_MAP:
        case CMD_REDUCE:
                break;
        }
        r = options_check_task(&o);
        if (r != 0)
                return r;
        /* Run by the tracker, which dies: the streaming commands go too. */
        r = task_group_die_with_parent();
        if (r < 0) {
                log_error_errno(r, "Cannot arrange to end with the tracker");
                return TASK_EXIT_FAILED;
        }
        if (!o.status_fd)
                r = EXIT_SUCCESS;
        else if (parse_int(o.status_fd, 3, INT32_MAX, &fd) < 0)
                r = cli_usage_error(PROGRAM, "invalid --status-fd '%s'", o.status_fd);
        else if ((r = task_status_map(fd, &t.status)) < 0)
                r = cli_usage_error(PROGRAM, "--status-fd=%d is not a task status: %s", fd,
                                    strerror(-r));
        if (r == EXIT_SUCCESS)
                r = o.slot_memory ? task_run_child(&t) : task_run(&t);
        task_status_unmap(t.status);
        input_split_done(&o.parsed_split);
        return r;
}

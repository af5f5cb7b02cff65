/* SPDX-License-Identifier: MIT */
/* flexslotctl: the operators' command line of flexslot-controllerd, a
 * client of org.flexslot.Controller1 on the system bus (or the bus at
 * --address). Options may come before or after the command; each command
 * takes the common ones and its own (CtlCommand.options). */
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/macro.h"
#include "common/parse.h"
#include "common/version.h"
#include "ctl.h"

enum {
        ARG_VERSION = 0x100,
        ARG_SYSTEM,
        ARG_NO_LEGEND,
        ARG_APP,
        ARG_ARG,
        ARG_MAPPER,
        ARG_REDUCER,
        ARG_REDUCES,
        ARG_DEADLINE,
        ARG_POOL,
        ARG_USER,
        ARG_NAME,
        ARG_SLOT_MEMORY,
        ARG_WAIT,
        ARG_INTERVAL,
};

static const struct option options[] = {
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, ARG_VERSION },
        { "system", no_argument, NULL, ARG_SYSTEM },
        { "address", required_argument, NULL, 'a' },
        { "json", no_argument, NULL, 'j' },
        { "no-legend", no_argument, NULL, ARG_NO_LEGEND },
        { "app", required_argument, NULL, ARG_APP },
        { "arg", required_argument, NULL, ARG_ARG },
        { "mapper", required_argument, NULL, ARG_MAPPER },
        { "reducer", required_argument, NULL, ARG_REDUCER },
        { "reduces", required_argument, NULL, ARG_REDUCES },
        { "deadline", required_argument, NULL, ARG_DEADLINE },
        { "pool", required_argument, NULL, ARG_POOL },
        { "user", required_argument, NULL, ARG_USER },
        { "name", required_argument, NULL, ARG_NAME },
        { "slot-memory", required_argument, NULL, ARG_SLOT_MEMORY },
        { "wait", no_argument, NULL, ARG_WAIT },
        { "interval", required_argument, NULL, ARG_INTERVAL },
        {},
};

static void help(void) {
        printf("Usage: flexslotctl [OPTIONS] COMMAND [ARGS]\n"
               "\n"
               "Submits and inspects the jobs of flexslot-controllerd and sets its\n"
               "trackers' slots, through org.flexslot.Controller1.\n"
               "\n"
               "Commands:\n");
        for (size_t i = 0; i < ctl_n_commands; i++)
                printf("  %-10s %s\n", ctl_commands[i].name, ctl_commands[i].summary);
        printf("\n"
               "Options:\n"
               "  -h --help            Show this help, or a command's, and exit\n"
               "     --version         Show the version and exit\n"
               "     --system          Talk to the controller on the system bus (default)\n"
               "  -a --address=ADDR    Talk to the controller on the bus at ADDR\n"
               "  -j --json            Print JSON instead of tab-separated fields\n"
               "     --no-legend       Leave out the tab output's header line\n"
               "\n"
               "'flexslotctl COMMAND --help' shows a command's options. Exit status: 0,\n"
               "1 when the call failed (the controller's error is printed by name), 2\n"
               "for a bad command line; watch and submit --wait: 3 when a job failed,\n"
               "4 when one was cancelled.\n");
}

static void command_help(const CtlCommand *cmd) {
        printf("Usage: flexslotctl [OPTIONS] %s%s%s\n\n%s.\n", cmd->name,
               cmd->synopsis[0] ? " " : "", cmd->synopsis, cmd->summary);
        if (cmd->help)
                printf("\n%s", cmd->help);
        printf("\nThe common options are in 'flexslotctl --help'.\n");
}

static const CtlCommand *command_find(const char *name) {
        for (size_t i = 0; i < ctl_n_commands; i++)
                if (strcmp(ctl_commands[i].name, name) == 0)
                        return &ctl_commands[i];
        return NULL;
}

/* A command's option: its value in *dst, and its bit in ctl->given. */
static void take(Ctl *ctl, unsigned bit, const char **dst) {
        ctl->given |= bit;
        *dst = optarg;
}

typedef struct Flags {
        bool help, version;
} Flags;

static int parse_option(Ctl *ctl, int c, char **argv, Flags *flags) {
        usec_t deadline;
        int64_t reduces;

        switch (c) {
        case 'h':
                flags->help = true;
                return 0;
        case ARG_VERSION:
                flags->version = true;
                return 0;
        case ARG_SYSTEM:
                ctl->address = NULL;
                return 0;
        case 'a':
                ctl->address = optarg;
                return 0;
        case 'j':
                ctl->json = true;
                return 0;
        case ARG_NO_LEGEND:
                ctl->legend = false;
                return 0;
        case ARG_APP:
                take(ctl, CTL_OPT_APP, &ctl->app);
                return 0;
        case ARG_ARG:
                take(ctl, CTL_OPT_ARG, &ctl->arg);
                return 0;
        case ARG_MAPPER:
                take(ctl, CTL_OPT_MAPPER, &ctl->mapper);
                return 0;
        case ARG_REDUCER:
                take(ctl, CTL_OPT_REDUCER, &ctl->reducer);
                return 0;
        case ARG_POOL:
                take(ctl, CTL_OPT_POOL, &ctl->pool);
                return 0;
        case ARG_USER:
                take(ctl, CTL_OPT_USER, &ctl->user);
                return 0;
        case ARG_NAME:
                take(ctl, CTL_OPT_NAME, &ctl->name);
                return 0;
        case ARG_REDUCES:
                if (parse_int64(optarg, 0, UINT32_MAX, &reduces) < 0)
                        return cli_usage_error(CTL_PROGRAM, "invalid --reduces '%s'", optarg);
                ctl->reduces = (uint32_t)reduces;
                ctl->given |= CTL_OPT_REDUCES;
                return 0;
        case ARG_DEADLINE:
                if (parse_duration(optarg, &deadline) < 0 || deadline == 0)
                        return cli_usage_error(CTL_PROGRAM,
                                               "invalid --deadline '%s': a duration from now, "
                                               "such as 30min or 2h",
                                               optarg);
                ctl->deadline = deadline;
                ctl->given |= CTL_OPT_DEADLINE;
                return 0;
        case ARG_SLOT_MEMORY:
                if (parse_size(optarg, &ctl->slot_memory) < 0 || ctl->slot_memory == 0)
                        return cli_usage_error(CTL_PROGRAM, "invalid --slot-memory '%s'", optarg);
                ctl->given |= CTL_OPT_SLOT_MEMORY;
                return 0;
        case ARG_WAIT:
                ctl->wait = true;
                ctl->given |= CTL_OPT_WAIT;
                return 0;
        case ARG_INTERVAL:
                if (parse_duration(optarg, &ctl->interval) < 0 ||
                    ctl->interval < USEC_PER_MSEC * 10)
                        return cli_usage_error(CTL_PROGRAM,
                                               "invalid --interval '%s': a duration of 10ms or "
                                               "more, such as 1s",
                                               optarg);
                ctl->given |= CTL_OPT_INTERVAL;
                return 0;
        default:
                return cli_option_error(CTL_PROGRAM, c, argv);
        }
}

/* The option of bit, for naming it when a command does not take it. */
static const char *option_name(unsigned bit) {
        static const struct {
                unsigned bit;
                const char *name;
        } names[] = {
                { CTL_OPT_APP, "--app" },         { CTL_OPT_ARG, "--arg" },
                { CTL_OPT_MAPPER, "--mapper" },   { CTL_OPT_REDUCER, "--reducer" },
                { CTL_OPT_REDUCES, "--reduces" }, { CTL_OPT_DEADLINE, "--deadline" },
                { CTL_OPT_POOL, "--pool" },       { CTL_OPT_USER, "--user" },
                { CTL_OPT_NAME, "--name" },       { CTL_OPT_SLOT_MEMORY, "--slot-memory" },
                { CTL_OPT_WAIT, "--wait" },       { CTL_OPT_INTERVAL, "--interval" },
        };

        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (names[i].bit == bit)
                        return names[i].name;
        return "?";
}

/* The caller's user name: whose a job is unless --user says. */
static int default_user(Ctl *ctl) {
        const struct passwd *pw;

        if (ctl->user)
                return 0;
        pw = getpwuid(geteuid());
        if (!pw) {
                fprintf(stderr, "%s: cannot tell who you are (uid %u): give --user\n", CTL_PROGRAM,
                        (unsigned)geteuid());
                return -ENOENT;
        }
        ctl->user = pw->pw_name;
        return 0;
}

static int run(Ctl *ctl, int argc, char **argv) {
        const CtlCommand *cmd;
        Flags flags = { 0 };
        unsigned n_args, stray;
        int c, r;

        opterr = 0;
        while ((c = getopt_long(argc, argv, ":ha:j", options, NULL)) >= 0) {
                r = parse_option(ctl, c, argv, &flags);
                if (r != 0)
                        return r;
        }
        if (flags.version) {
                printf("flexslotctl %s\n", FLEXSLOT_VERSION);
                return EXIT_SUCCESS;
        }
        if (optind >= argc) {
                if (flags.help) {
                        help();
                        return EXIT_SUCCESS;
                }
                return cli_usage_error(CTL_PROGRAM, "no command given");
        }
        cmd = command_find(argv[optind]);
        if (!cmd)
                return cli_usage_error(CTL_PROGRAM, "unknown command '%s'", argv[optind]);
        if (flags.help) {
                command_help(cmd);
                return EXIT_SUCCESS;
        }
        stray = ctl->given & ~cmd->options;
        if (stray)
                return cli_usage_error(CTL_PROGRAM, "%s does not take %s", cmd->name,
                                       option_name(stray & -stray));
        n_args = (unsigned)(argc - optind - 1);
        if (n_args < cmd->min_args || n_args > cmd->max_args)
                return cli_usage_error(CTL_PROGRAM, "%s takes %s%s", cmd->name,
                                       cmd->synopsis[0] ? "the arguments " : "no arguments",
                                       cmd->synopsis);
        if (!ctl->pool)
                ctl->pool = "default";
        if ((cmd->options & CTL_OPT_USER) && default_user(ctl) < 0)
                return EXIT_FAILURE;
        return cmd->run(ctl, argv + optind + 1, n_args);
}

int main(int argc, char **argv) {
        Ctl ctl = { .legend = true, .interval = USEC_PER_SEC };
        int status;

        status = run(&ctl, argc, argv);
        sd_bus_flush_close_unref(ctl.bus);
        return status;
}

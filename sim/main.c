/* SPDX-License-Identifier: MIT */
/* flexslot-sim: runs a scenario, or one of the paper's experiments, on the
 * simulated cluster. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/parse.h"
#include "common/time-util.h"
#include "common/version.h"
#include "sim/data.h"
#include "sim/experiment.h"
#include "sim/plan.h"
#include "sim/report.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "sim/trace.h"
#include "sim/workload.h"

#define PROGRAM "flexslot-sim"
#define MAX_OVERRIDES 64
/* A terminal's progress line changes at most this often. */
#define PROGRESS_INTERVAL (250 * USEC_PER_MSEC)

/* A command: its synopsis, one line for the overview and the rest of its
 * own --help. */
typedef struct SimCommand {
        const char *name;
        const char *synopsis;
        const char *summary;
        const char *help;
} SimCommand;

static const char common_options_help[] =
        "Options:\n"
        "  -s, --seed=N       seed of the workload's random splits (default: the\n"
        "                     scenario's [workload] seed); an experiment runs it (1)\n"
        "                     and the next four, two with --quick\n"
        "  -o, --out=DIR      write CSV files and charts (PNG and SVG) into DIR\n"
        "  -S, --scenarios=DIR where experiments and replay find their scenario files\n"
        "                     (default: %s)\n"
        "  -q, --quick        experiments: a smaller input, for a demonstration\n"
        "      --set=SECTION.KEY=VALUE\n"
        "                     change one scenario key (repeatable), e.g.\n"
        "                     --set policy.slot_manager=flexslot\n";

static const char plan_options_help[] =
        "Plan options:\n"
        "      --deadline=TIME    from now, e.g. 240s or 4min\n"
        "      --reduces=N        reduce tasks\n"
        "      --maps=N           map tasks, or\n"
        "      --input=SIZE       the input (e.g. 4G), divided by the profile's input\n"
        "                         per map\n"
        "      --map-slots=N, --reduce-slots=N\n"
        "                         the slots the job can have: ARIA's bounds for them,\n"
        "                         its minimum slots at most them (default: no limit)\n"
        "      --map-cost=C, --reduce-cost=C, --transfer-cost=C\n"
        "                         the Deadline Constraint Scheduler's c_m, c_r, c_d in\n"
        "                         seconds per MB: adds its n_m^min, n_r^min and test\n"
        "      --skew             that scheduler's worst-case reduce skew\n"
        "      --json             the answer as JSON\n";

static const char replay_options_help[] =
        "Replay options:\n"
        "      --scenario=NAME    a scenario file, or the name of one in the scenarios'\n"
        "                         directory (default: fig10)\n"
        "      --layers=L         the layers and settings to run under, joined by '+':\n"
        "                         layer names (fair+flexslot), 'loop' (the one loop's),\n"
        "                         KEY=VALUE ([policy]) or SECTION.KEY=VALUE (default:\n"
        "                         the scenario's)\n"
        "      --compare=L1,L2,...  several such configurations, one table\n"
        "      --seeds=LIST       e.g. 1-3 (the default; --seed N: N and the next two)\n"
        "                         or 1,4,7\n"
        "      --scale-time=X     submissions times X (X < 1: more load)\n"
        "      --scale-data=X     bytes times X (default: the cluster's slaves / 600,\n"
        "                         the machines of Facebook's 2009 cluster)\n"
        "      --costs=NAME       the benchmark of the scenario's workload file whose\n"
        "                         per-MB CPU every job takes (default: wordcount)\n"
        "      --live             each job as tools/swim-load.sh runs it on the live\n"
        "                         cluster: what the costs' application writes from the\n"
        "                         job's input, and at least one reduce\n";

static const SimCommand commands[] = {
        { "run", "[OPTIONS] run SCENARIO.ini", "run one scenario file and print a summary",
          "Runs the scenario (sim/scenarios/README.md describes its keys) and prints\n"
          "job times, map task skewness, deadlines and the steal and I/O wait\n"
          "breakdown; with --out, CSV files and charts of every job and task.\n" },
        { "experiment", "[OPTIONS] experiment NAME",
          "run one of the papers' experiments beside the paper's numbers",
          "Runs the experiment over five seeds (two with --quick) and prints our\n"
          "numbers beside the paper's, with their spread over the seeds; 'list'\n"
          "names them.\n" },
        { "plan",
          "plan PROFILE --deadline=TIME --reduces=N (--maps=N | --input=SIZE)\n"
          "                    [PLAN OPTIONS]",
          "the slots a job needs for its deadline, from its ARIA profile",
          "PROFILE is an ARIA job profile, an INI file (the man page describes it),\n"
          "or the name of one in share/flexslot/profiles. Prints the slots each of\n"
          "ARIA's bounds needs for the deadline, and with the costs the Deadline\n"
          "Constraint Scheduler's minimum tasks.\n" },
        { "replay",
          "[OPTIONS] replay FILE [--scenario=NAME] [--layers=L | --compare=L1,L2,...]\n"
          "                    [REPLAY OPTIONS]",
          "replay a SWIM workload trace on a scenario's cluster",
          "FILE is in SWIM's format (a job a line: name, submit s, gap s, map input,\n"
          "shuffle and reduce output bytes, tab-separated), e.g. its\n"
          "FB-2009_samples_24_times_1hr_0.tsv. Each job becomes maps and reduces by\n"
          "the model the man page describes; for each seed every job runs alone on the\n"
          "cluster, then the trace under each configuration. Prints each\n"
          "configuration's completion times and slowdowns (over the job alone) as\n"
          "mean and half the range over the seeds; with --out, each job's times and\n"
          "their CDF charts. A bad line is named FILE:LINE and nothing runs.\n" },
        { "list", "list", "list the experiments", NULL },
        { "settings", "settings", "list the [policy] keys of the policy core and its layers",
          "Each key with its default, its range and what it means; a scenario's\n"
          "[policy] section and the controller's take them alike.\n" },
};

static const SimCommand *command_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                if (strcmp(commands[i].name, name) == 0)
                        return &commands[i];
        return NULL;
}

static void usage(const char *scenario_dir) {
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                printf("%s flexslot-sim %s\n", i == 0 ? "Usage:" : "      ", commands[i].synopsis);
        printf("\nSimulates a Hadoop cluster on KVM hosts driven by the flexslot policy core.\n\n");
        for (size_t i = 0; i < ELEMENTSOF(commands); i++)
                printf("  %-16s %s\n", commands[i].name, commands[i].summary);
        printf("\n");
        printf(common_options_help, scenario_dir);
        printf("\n%s\n", plan_options_help);
        printf("%s\n", replay_options_help);
        printf("  -h, --help         show this help, or with a command that command's\n"
               "      --version      show the version\n"
               "\n"
               "On a terminal, a run shows its progress on stderr.\n"
               "Exit status: 0 on success (for plan: answered, whether or not the deadline\n"
               "can be met), 1 when a run fails, 2 on bad usage or a bad scenario, workload,\n"
               "profile or trace file.\n");
}

/* COMMAND --help: its synopsis, what it does and the options it takes. */
static void command_usage(const SimCommand *cmd, const char *scenario_dir) {
        printf("Usage: flexslot-sim %s\n\n%c%s.\n", cmd->synopsis, cmd->summary[0] - 'a' + 'A',
               cmd->summary + 1);
        if (cmd->help)
                printf("\n%s", cmd->help);
        if (strcmp(cmd->name, "plan") == 0)
                printf("\n%s", plan_options_help);
        else if (strcmp(cmd->name, "replay") == 0) {
                printf("\n%s\n", replay_options_help);
                printf(common_options_help, scenario_dir);
        } else if (strcmp(cmd->name, "run") == 0 || strcmp(cmd->name, "experiment") == 0) {
                printf("\n");
                printf(common_options_help, scenario_dir);
        }
}

/* The progress line on a terminal's stderr: rewritten in place, at most
 * every PROGRESS_INTERVAL of wall time, erased when the run ends. */
typedef struct ProgressLine {
        usec_t next;
        bool shown;
} ProgressLine;

static void progress_line_update(const SimProgress *p, void *userdata) {
        ProgressLine *line = userdata;
        usec_t now, t = p->now / USEC_PER_SEC;

        if (p->finished) {
                if (line->shown)
                        fputs("\r\033[K", stderr);
                *line = (ProgressLine){ 0 };
                return;
        }
        now = now_monotonic_usec();
        if (now < line->next)
                return;
        line->next = now + PROGRESS_INTERVAL;
        line->shown = true;
        fprintf(stderr,
                "\r\033[Ksimulated %" PRIu64 ":%02" PRIu64 ":%02" PRIu64 ", %" PRIu64
                " events, jobs done %zu/%zu",
                t / 3600, t / 60 % 60, t % 60, p->events, p->jobs_done, p->jobs);
        fflush(stderr);
}

/* The keys of a scenario's [policy] section that the policy core and its
 * layers declare, each as its schema says. */
static int cmd_settings(void) {
        PolicyConfig c;
        int r = policy_config_init(&c);

        if (r < 0) {
                fprintf(stderr, "flexslot-sim: %s\n", strerror(-r));
                return EXIT_FAILURE;
        }
        printf("[policy] keys of the policy core and its layers (every layer's, whichever\n"
               "the scenario picks): key = default  range\n");
        for (size_t i = 0; i < c.n_settings; i++)
                for (size_t k = 0; k < c.schemas[i]->n_keys; k++) {
                        const ConfKey *key = &c.schemas[i]->keys[k];
                        char range[CONF_RANGE_MAX];

                        conf_key_range(key, range, sizeof(range));
                        printf("%s = %s%s%s\n    %s\n", key->key, key->default_value,
                               range[0] ? "  " : "", range, key->doc);
                }
        policy_config_done(&c);
        return EXIT_SUCCESS;
}

static int cmd_run(const char *path, const ExperimentOptions *opt) {
        Scenario sc = { 0 };
        Workload wl = { 0 };
        _cleanup_(sim_freep) Sim *sim = NULL;
        RunSummary sum;
        char err[512];
        int r, status = EXIT_FAILURE;

        r = scenario_load(path, opt->overrides, opt->n_overrides, &sc, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "flexslot-sim: %s\n", err);
                return EXIT_USAGE;
        }
        if (opt->seed_set)
                sc.seed = opt->seed;
        r = workload_load(sc.workload_file, &wl, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "flexslot-sim: %s\n", err);
                scenario_done(&sc);
                return EXIT_USAGE;
        }
        r = sim_new(&sc, &wl, &sim, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "flexslot-sim: %s: %s\n", path, r == -EINVAL ? err : strerror(-r));
                status = r == -EINVAL ? EXIT_USAGE : EXIT_FAILURE;
                goto out;
        }
        if (opt->out && report_prepare_dir(opt->out) < 0)
                goto out;
        sim_set_progress(sim, opt->progress, opt->progress_data);
        r = sim_run(sim);
        if (r < 0) {
                fprintf(stderr, "flexslot-sim: %s: the run failed: %s\n", path,
                        sim_invariant_error(sim) ? sim_invariant_error(sim)
                        : r == -ETIMEDOUT        ? "jobs left unfinished after 30 simulated days"
                                                 : strerror(-r));
                goto out;
        }
        r = run_summarize(sim_results(sim), &sum);
        if (r < 0)
                goto out;
        printf("scenario %s: %s, slot manager %s, allocator %s, scheduler %s, speculation %s\n",
               path, sc.jobs, sc.slot_manager, sc.allocator, sc.scheduler, sc.speculation);
        run_summary_print(stdout, &sum);
        run_deadlines_print(stdout, sim_results(sim));
        if (opt->out) {
                _cleanup_free_ char *run = NULL;
                if (asprintf(&run, "%s under slot manager %s, allocator %s", sc.jobs,
                             sc.slot_manager, sc.allocator) < 0)
                        goto out;
                r = report_write(opt->out, run, sim_results(sim));
                if (r < 0)
                        goto out;
                if (r == REPORT_NO_GNUPLOT)
                        printf("CSV files in %s/ (gnuplot is missing: no charts)\n", opt->out);
                else
                        printf("CSV and charts in %s/\n", opt->out);
        }
        status = EXIT_SUCCESS;
out:
        workload_done(&wl);
        scenario_done(&sc);
        return status;
}

/* --scenarios, or the simulator's own: an exit status. */
static int scenario_dir_find(ExperimentOptions *opt, char **data_scenarios) {
        int r;

        if (opt->scenario_dir)
                return EXIT_SUCCESS;
        r = sim_data_path("scenarios", data_scenarios);
        if (r < 0) {
                fprintf(stderr,
                        "flexslot-sim: cannot find the scenarios (%s); give --scenarios DIR\n",
                        strerror(-r));
                return EXIT_FAILURE;
        }
        opt->scenario_dir = *data_scenarios;
        return EXIT_SUCCESS;
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "seed", required_argument, NULL, 's' },
                { "out", required_argument, NULL, 'o' },
                { "scenarios", required_argument, NULL, 'S' },
                { "quick", no_argument, NULL, 'q' },
                { "set", required_argument, NULL, 'O' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                PLAN_LONG_OPTIONS,
                TRACE_LONG_OPTIONS,
                {},
        };
        _cleanup_free_ char *data_scenarios = NULL;
        ExperimentOptions opt = { 0 };
        ScenarioOverride overrides[MAX_OVERRIDES];
        ProgressLine progress = { 0 };
        PlanRequest plan = { 0 };
        TraceOptions replay = { 0 };
        char problem[256];
        const char *command;
        bool help = false;
        int c, n_args, r;

        log_open("flexslot-sim");
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":s:o:S:qh", options, NULL)) >= 0)
                switch (c) {
                case 's':
                        if (parse_int64(optarg, 0, INT64_MAX, &opt.seed) < 0)
                                return cli_usage_error(PROGRAM, "invalid seed '%s'", optarg);
                        opt.seed_set = true;
                        break;
                case 'o':
                        opt.out = optarg;
                        break;
                case 'S':
                        opt.scenario_dir = optarg;
                        break;
                case 'q':
                        opt.quick = true;
                        break;
                case 'O':
                        if (opt.n_overrides == MAX_OVERRIDES)
                                return cli_usage_error(PROGRAM, "more than %d --set options",
                                                       MAX_OVERRIDES);
                        if (scenario_override_parse(optarg, &overrides[opt.n_overrides]) < 0)
                                return cli_usage_error(
                                        PROGRAM, "--set '%s': expected SECTION.KEY=VALUE", optarg);
                        opt.overrides = overrides;
                        opt.n_overrides++;
                        break;
                case 'h':
                        help = true;
                        break;
                case 'V':
                        printf("flexslot-sim %s\n", FLEXSLOT_VERSION);
                        return EXIT_SUCCESS;
                default:
                        if (trace_option_is(c)) {
                                if (trace_option(&replay, c, optarg, problem, sizeof(problem)) < 0)
                                        return cli_usage_error(PROGRAM, "%s", problem);
                                break;
                        }
                        if (!plan_option_is(c))
                                return cli_option_error(PROGRAM, c, argv);
                        if (plan_option(&plan, c, optarg, problem, sizeof(problem)) < 0)
                                return cli_usage_error(PROGRAM, "%s", problem);
                }
        if (help) {
                const SimCommand *cmd = optind < argc ? command_find(argv[optind]) : NULL;
                const char *where = "share/flexslot/scenarios beside bin/";

                if (optind < argc && !cmd)
                        return cli_usage_error(PROGRAM, "unknown command '%s'", argv[optind]);
                /* Without it, the help says where it would be. */
                if (sim_data_path("scenarios", &data_scenarios) >= 0)
                        where = data_scenarios;
                if (cmd)
                        command_usage(cmd, where);
                else
                        usage(where);
                return EXIT_SUCCESS;
        }
        if (optind >= argc)
                return cli_usage_error(
                        PROGRAM,
                        "missing command (run, experiment, replay, plan, list or settings)");
        command = argv[optind];
        n_args = argc - optind - 1;
        if (strcmp(command, "plan") == 0) {
                if (n_args != 1)
                        return cli_usage_error(PROGRAM, "plan takes one profile file");
                if (plan_check(&plan, problem, sizeof(problem)) < 0)
                        return cli_usage_error(PROGRAM, "%s", problem);
                return plan_run(argv[optind + 1], &plan, stdout);
        }
        if (plan_first_option(&plan))
                return cli_usage_error(PROGRAM, "%s is an option of plan",
                                       plan_first_option(&plan));
        if (strcmp(command, "replay") != 0 && trace_first_option(&replay))
                return cli_usage_error(PROGRAM, "--%s is an option of replay",
                                       trace_first_option(&replay));
        if (strcmp(command, "list") == 0) {
                if (n_args != 0)
                        return cli_usage_error(PROGRAM, "list takes no arguments");
                experiment_list(stdout);
                return EXIT_SUCCESS;
        }
        if (strcmp(command, "settings") == 0) {
                if (n_args != 0)
                        return cli_usage_error(PROGRAM, "settings takes no arguments");
                return cmd_settings();
        }
        if (isatty(STDERR_FILENO)) {
                opt.progress = progress_line_update;
                opt.progress_data = &progress;
        }
        if (strcmp(command, "run") == 0) {
                if (n_args != 1)
                        return cli_usage_error(PROGRAM, "run takes one scenario file");
                return cmd_run(argv[optind + 1], &opt);
        }
        if (strcmp(command, "replay") == 0) {
                if (n_args != 1)
                        return cli_usage_error(PROGRAM, "replay takes one trace file");
                r = scenario_dir_find(&opt, &data_scenarios);
                if (r != 0)
                        return r;
                replay.overrides = opt.overrides;
                replay.n_overrides = opt.n_overrides;
                replay.out = opt.out;
                replay.progress = opt.progress;
                replay.progress_data = opt.progress_data;
                for (size_t k = 0; opt.seed_set && replay.n_seeds == 0 && k < TRACE_DEFAULT_SEEDS;
                     k++)
                        replay.seeds[k] = opt.seed + (int64_t)k;
                if (opt.seed_set && replay.n_seeds == 0)
                        replay.n_seeds = TRACE_DEFAULT_SEEDS;
                return trace_command(argv[optind + 1], &replay, opt.scenario_dir);
        }
        if (strcmp(command, "experiment") == 0) {
                if (n_args != 1)
                        return cli_usage_error(PROGRAM, "experiment takes one name (see 'list')");
                if (!experiment_find(argv[optind + 1]))
                        return cli_usage_error(PROGRAM, "unknown experiment '%s' (see 'list')",
                                               argv[optind + 1]);
                r = scenario_dir_find(&opt, &data_scenarios);
                if (r != 0)
                        return r;
                return experiment_run(argv[optind + 1], &opt);
        }
        return cli_usage_error(PROGRAM, "unknown command '%s'", command);
}

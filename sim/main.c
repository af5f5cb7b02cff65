/* SPDX-License-Identifier: MIT */
/* flexslot-sim: runs a scenario, or one of the paper's experiments, on the
 * simulated cluster. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/parse.h"
#include "sim/experiment.h"
#include "sim/report.h"
#include "sim/scenario.h"
#include "sim/sim.h"
#include "sim/workload.h"

#define EXIT_USAGE 2
#define MAX_OVERRIDES 64

static void usage(FILE *f) {
        fprintf(f,
                "Usage: flexslot-sim [OPTIONS] run SCENARIO.ini\n"
                "       flexslot-sim [OPTIONS] experiment NAME\n"
                "       flexslot-sim list\n"
                "\n"
                "Simulates a Hadoop cluster on KVM hosts driven by the flexslot policy core.\n"
                "\n"
                "  run SCENARIO     run one scenario file and print a summary\n"
                "  experiment NAME  run one of the FlexSlot paper's experiments and print our\n"
                "                   numbers beside the paper's (see 'list')\n"
                "  list             list the experiments\n"
                "\n"
                "Options:\n"
                "  -s, --seed=N       seed of the workload's random splits (default: the\n"
                "                     scenario's [workload] seed)\n"
                "  -o, --out=DIR      write CSV files and PNG charts into DIR\n"
                "  -S, --scenarios=DIR where experiments find their scenario files\n"
                "                     (default: %s)\n"
                "  -q, --quick        experiments: a smaller input, for a demonstration\n"
                "      --set=SECTION.KEY=VALUE\n"
                "                     change one scenario key (repeatable), e.g.\n"
                "                     --set policy.slot_manager=flexslot\n"
                "  -h, --help         show this help\n"
                "\n"
                "Exit status: 0 on success, 1 when a run fails, 2 on bad usage or a bad\n"
                "scenario or workload file.\n",
                EXPERIMENT_DEFAULT_DIR);
}

static int usage_error(const char *fmt, ...) _printf_(1, 2);

static int usage_error(const char *fmt, ...) {
        va_list ap;

        fprintf(stderr, "flexslot-sim: ");
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, "\nTry 'flexslot-sim --help'.\n");
        return EXIT_USAGE;
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
                fprintf(stderr, "flexslot-sim: %s: %s\n", path,
                        r == -EINVAL ? err : strerror(-r));
                status = r == -EINVAL ? EXIT_USAGE : EXIT_FAILURE;
                goto out;
        }
        if (opt->out && report_prepare_dir(opt->out) < 0)
                goto out;
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

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "seed", required_argument, NULL, 's' },
                { "out", required_argument, NULL, 'o' },
                { "scenarios", required_argument, NULL, 'S' },
                { "quick", no_argument, NULL, 'q' },
                { "set", required_argument, NULL, 'O' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        ExperimentOptions opt = { .scenario_dir = EXPERIMENT_DEFAULT_DIR };
        ScenarioOverride overrides[MAX_OVERRIDES];
        int c;

        log_open("flexslot-sim");
        while ((c = getopt_long(argc, argv, "s:o:S:qh", options, NULL)) >= 0)
                switch (c) {
                case 's':
                        if (parse_int64(optarg, 0, INT64_MAX, &opt.seed) < 0)
                                return usage_error("invalid seed '%s'", optarg);
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
                                return usage_error("more than %d --set options", MAX_OVERRIDES);
                        if (scenario_override_parse(optarg, &overrides[opt.n_overrides]) < 0)
                                return usage_error("--set '%s': expected SECTION.KEY=VALUE",
                                                   optarg);
                        opt.overrides = overrides;
                        opt.n_overrides++;
                        break;
                case 'h':
                        usage(stdout);
                        return EXIT_SUCCESS;
                default:
                        return usage_error("bad option");
                }
        if (optind >= argc)
                return usage_error("missing command (run, experiment or list)");
        if (strcmp(argv[optind], "list") == 0 && argc - optind == 1) {
                experiment_list(stdout);
                return EXIT_SUCCESS;
        }
        if (strcmp(argv[optind], "run") == 0) {
                if (argc - optind != 2)
                        return usage_error("run takes one scenario file");
                return cmd_run(argv[optind + 1], &opt);
        }
        if (strcmp(argv[optind], "experiment") == 0) {
                if (argc - optind != 2)
                        return usage_error("experiment takes one name (see 'list')");
                if (!experiment_find(argv[optind + 1]))
                        return usage_error("unknown experiment '%s' (see 'list')",
                                           argv[optind + 1]);
                return experiment_run(argv[optind + 1], &opt);
        }
        return usage_error("unknown command '%s'", argv[optind]);
}

/* SPDX-License-Identifier: MIT */
/* flexslot-sim replay: its options, and the command from the trace file
 * to the table. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/macro.h"
#include "common/parse.h"
#include "sim/data.h"
#include "sim/report.h"
#include "sim/trace.h"

#define GIVEN(c) (1u << ((c)-TRACE_OPT_SCENARIO))
#define DEFAULT_SCENARIO "fig10"

static const char *option_name(int c) {
        static const struct option options[] = { TRACE_LONG_OPTIONS };

        for (size_t i = 0; i < ELEMENTSOF(options); i++)
                if (options[i].val == c)
                        return options[i].name;
        return "?";
}

const char *trace_first_option(const TraceOptions *o) {
        for (int c = TRACE_OPT_SCENARIO; c < _TRACE_OPT_END; c++)
                if (o->given & GIVEN(c))
                        return option_name(c);
        return NULL;
}

/* "1-3", "1,2,5" or "4": at most TRACE_MAX_SEEDS, each 0 or more. */
static int parse_seeds(const char *arg, TraceOptions *o, char *problem, size_t size) {
        _cleanup_free_ char *copy = strdup(arg);
        char *save = NULL;
        size_t n = 0;

        if (!copy)
                return -ENOMEM;
        for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
                char *dash = strchr(item + 1, '-');
                int64_t from, to;

                if (dash)
                        *dash = '\0';
                if (parse_int64(item, 0, INT64_MAX, &from) < 0 ||
                    (dash && parse_int64(dash + 1, from, INT64_MAX, &to) < 0)) {
                        snprintf(problem, size,
                                 "--seeds '%s': expected seeds and ranges, e.g. 1-3 or 1,4,7", arg);
                        return -EINVAL;
                }
                if (!dash)
                        to = from;
                for (int64_t s = from; s <= to; s++) {
                        if (n == TRACE_MAX_SEEDS) {
                                snprintf(problem, size, "--seeds '%s': more than %d seeds", arg,
                                         TRACE_MAX_SEEDS);
                                return -EINVAL;
                        }
                        o->seeds[n++] = s;
                }
        }
        if (n == 0) {
                snprintf(problem, size, "--seeds '%s': no seed", arg);
                return -EINVAL;
        }
        o->n_seeds = n;
        return 0;
}

/* --compare's list, or --layers' one configuration. */
static int parse_configs(const char *arg, bool list, TraceOptions *o, char *problem, size_t size) {
        _cleanup_free_ char *copy = strdup(arg);
        const char *opt = list ? "--compare" : "--layers";
        char *save = NULL, err[256];
        size_t n = 0;

        if (!copy)
                return -ENOMEM;
        for (char *item = list ? strtok_r(copy, ",", &save) : copy; item;
             item = list ? strtok_r(NULL, ",", &save) : NULL) {
                if (n == TRACE_MAX_CONFIGS) {
                        snprintf(problem, size, "%s: more than %d configurations", opt,
                                 TRACE_MAX_CONFIGS);
                        return -EINVAL;
                }
                if (trace_config_parse(item, &o->configs[n], err, sizeof(err)) < 0) {
                        snprintf(problem, size, "%s %s", opt, err);
                        return -EINVAL;
                }
                for (size_t i = 0; i < n; i++)
                        if (strcmp(o->configs[i].label, item) == 0) {
                                snprintf(problem, size, "%s: '%s' twice", opt, item);
                                return -EINVAL;
                        }
                n++;
        }
        if (n == 0) {
                snprintf(problem, size, "%s: no configuration", opt);
                return -EINVAL;
        }
        o->n_configs = n;
        return 0;
}

int trace_option(TraceOptions *o, int c, const char *arg, char *problem, size_t size) {
        if ((c == TRACE_OPT_LAYERS && (o->given & GIVEN(TRACE_OPT_COMPARE))) ||
            (c == TRACE_OPT_COMPARE && (o->given & GIVEN(TRACE_OPT_LAYERS)))) {
                snprintf(problem, size, "--layers and --compare: give one");
                return -EINVAL;
        }
        o->given |= GIVEN(c);
        switch (c) {
        case TRACE_OPT_SCENARIO:
                o->scenario = arg;
                return 0;
        case TRACE_OPT_LAYERS:
        case TRACE_OPT_COMPARE:
                return parse_configs(arg, c == TRACE_OPT_COMPARE, o, problem, size);
        case TRACE_OPT_SEEDS:
                return parse_seeds(arg, o, problem, size);
        case TRACE_OPT_SCALE_TIME:
        case TRACE_OPT_SCALE_DATA:
                if (parse_double(arg, 1e-9, 1e6,
                                 c == TRACE_OPT_SCALE_TIME ? &o->time_scale : &o->data_scale) < 0) {
                        snprintf(problem, size, "--%s '%s': expected a factor above 0",
                                 option_name(c), arg);
                        return -EINVAL;
                }
                return 0;
        case TRACE_OPT_COSTS:
                o->costs = arg;
                return 0;
        case TRACE_OPT_LIVE:
                o->live = true;
                return 0;
        default:
                snprintf(problem, size, "not an option of replay");
                return -EINVAL;
        }
}

int trace_command(const char *file, TraceOptions *o, const char *scenario_dir) {
        _cleanup_free_ char *scenario = NULL, *shipped = NULL;
        SwimTrace trace = { 0 };
        TraceResults res = { 0 };
        const char *name = o->scenario ? o->scenario : DEFAULT_SCENARIO;
        char err[512];
        int r, status;

        /* A bare name may be one of the traces that come with the simulator. */
        if (sim_data_find("traces", file, &shipped) == 0)
                file = shipped;
        r = swim_load(file, &trace, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "flexslot-sim: %s\n",
                        r == -EINVAL || r == -ENOENT ? err : strerror(-r));
                return EXIT_USAGE;
        }
        /* A name without a directory or .ini is one of the simulator's. */
        if (strchr(name, '/') || (strlen(name) > 4 && strcmp(name + strlen(name) - 4, ".ini") == 0))
                scenario = strdup(name);
        else if (asprintf(&scenario, "%s/%s.ini", scenario_dir, name) < 0)
                scenario = NULL;
        if (!scenario) {
                swim_done(&trace);
                return EXIT_FAILURE;
        }
        o->scenario = scenario;
        if (o->time_scale == 0)
                o->time_scale = 1;
        if (o->n_seeds == 0)
                for (size_t k = 0; k < TRACE_DEFAULT_SEEDS; k++)
                        o->seeds[o->n_seeds++] = 1 + (int64_t)k;
        if (o->out && report_prepare_dir(o->out) < 0)
                status = EXIT_FAILURE;
        else
                status = trace_replay(&trace, o, &res);
        if (status == 0) {
                trace_print(stdout, file, &trace, o, &res);
                if (o->out) {
                        r = trace_write(&trace, o, &res);
                        if (r < 0)
                                status = EXIT_FAILURE;
                        else
                                printf("Per-job CSV files under %s/<configuration>/, the table in "
                                       "%s/replay.csv%s\n",
                                       o->out, o->out,
                                       r == REPORT_NO_GNUPLOT
                                               ? " (gnuplot is missing: no charts)"
                                               : ", the charts completion-cdf and slowdown-cdf "
                                                 "(PNG and SVG) beside it");
                }
        }
        trace_results_done(&res);
        swim_done(&trace);
        o->scenario = NULL;
        return status;
}

/* SPDX-License-Identifier: MIT */
#include "plan.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/format.h"
#include "common/json.h"
#include "common/macro.h"
#include "common/parse.h"
#include "policy/layers/aria-model.h"
#include "policy/layers/dcs-model.h"
#include "sim/data.h"
#include "sim/profile.h"

#define MAX_TASKS 10000000
#define MAX_SLOTS 10000000
#define MAX_COST 1e6 /* seconds per MB */
#define MB (1024.0 * 1024.0)
#define REASON_MAX 256

#define GIVEN(o) (1U << ((o)-PLAN_OPT_MAPS))

static const char *const option_names[_PLAN_OPT_END - PLAN_OPT_MAPS] = {
        "--maps",          "--input",        "--reduces",  "--deadline",
        "--map-slots",     "--reduce-slots", "--map-cost", "--reduce-cost",
        "--transfer-cost", "--skew",         "--json",
};

static const char *option_name(int option) {
        return option_names[option - PLAN_OPT_MAPS];
}

static int count(const char *value, unsigned min, unsigned *ret) {
        int n;
        int r = parse_int(value, (int)min, MAX_TASKS, &n);

        if (r < 0)
                return r;
        *ret = (unsigned)n;
        return 0;
}

int plan_option(PlanRequest *req, int option, const char *value, char *problem, size_t size) {
        double *cost = option == PLAN_OPT_MAP_COST        ? &req->map_cost
                       : option == PLAN_OPT_REDUCE_COST   ? &req->reduce_cost
                       : option == PLAN_OPT_TRANSFER_COST ? &req->transfer_cost
                                                          : NULL;
        int r = 0;

        switch (option) {
        case PLAN_OPT_MAPS:
                r = count(value, 1, &req->maps);
                if (r < 0)
                        snprintf(problem, size, "invalid --maps '%s' (1 to %d map tasks)", value,
                                 MAX_TASKS);
                break;
        case PLAN_OPT_REDUCES:
                r = count(value, 0, &req->reduces);
                if (r < 0)
                        snprintf(problem, size, "invalid --reduces '%s' (0 to %d reduce tasks)",
                                 value, MAX_TASKS);
                break;
        case PLAN_OPT_MAP_SLOTS:
        case PLAN_OPT_REDUCE_SLOTS:
                r = count(value, 1,
                          option == PLAN_OPT_MAP_SLOTS ? &req->map_slots : &req->reduce_slots);
                if (r < 0)
                        snprintf(problem, size, "invalid %s '%s' (1 to %d slots)",
                                 option_name(option), value, MAX_SLOTS);
                break;
        case PLAN_OPT_INPUT:
                r = parse_size(value, &req->input);
                if (r == 0 && req->input == 0)
                        r = -ERANGE;
                if (r < 0)
                        snprintf(problem, size, "invalid --input '%s' (a size such as 975M)",
                                 value);
                break;
        case PLAN_OPT_DEADLINE:
                r = parse_duration(value, &req->deadline);
                if (r < 0)
                        snprintf(problem, size,
                                 "invalid --deadline '%s' (a duration such as 240s or 4min)",
                                 value);
                break;
        case PLAN_OPT_MAP_COST:
        case PLAN_OPT_REDUCE_COST:
        case PLAN_OPT_TRANSFER_COST:
                r = parse_double(value, 0, MAX_COST, cost);
                if (r < 0)
                        snprintf(problem, size, "invalid %s '%s' (seconds per MB, 0 to %g)",
                                 option_name(option), value, MAX_COST);
                break;
        case PLAN_OPT_SKEW:
                req->skew = true;
                break;
        case PLAN_OPT_JSON:
                req->json = true;
                break;
        default:
                snprintf(problem, size, "not an option of plan");
                return -EINVAL;
        }
        if (r < 0)
                return -EINVAL;
        req->given |= GIVEN(option);
        return 0;
}

int plan_check(const PlanRequest *req, char *problem, size_t size) {
        const uint32_t costs = GIVEN(PLAN_OPT_MAP_COST) | GIVEN(PLAN_OPT_REDUCE_COST) |
                               GIVEN(PLAN_OPT_TRANSFER_COST);
        const uint32_t slots = GIVEN(PLAN_OPT_MAP_SLOTS) | GIVEN(PLAN_OPT_REDUCE_SLOTS);
        bool maps = req->given & GIVEN(PLAN_OPT_MAPS), input = req->given & GIVEN(PLAN_OPT_INPUT);

        if (maps == input)
                snprintf(problem, size, "plan needs --maps or --input (one of them)");
        else if (!(req->given & GIVEN(PLAN_OPT_REDUCES)))
                snprintf(problem, size, "plan needs --reduces");
        else if (!(req->given & GIVEN(PLAN_OPT_DEADLINE)))
                snprintf(problem, size, "plan needs --deadline");
        else if ((req->given & slots) != 0 && (req->given & slots) != slots)
                snprintf(problem, size, "--map-slots and --reduce-slots go together");
        else if ((req->given & costs) != 0 && (req->given & costs) != costs)
                snprintf(problem, size,
                         "the Deadline Constraint Scheduler needs --map-cost, --reduce-cost and "
                         "--transfer-cost");
        else if (req->skew && !(req->given & costs))
                snprintf(problem, size, "--skew needs the Deadline Constraint Scheduler's costs");
        else
                return 0;
        return -EINVAL;
}

const char *plan_first_option(const PlanRequest *req) {
        for (int o = PLAN_OPT_MAPS; o < _PLAN_OPT_END; o++)
                if (req->given & GIVEN(o))
                        return option_name(o);
        return NULL;
}

/* Everything the plan prints, computed before anything is printed. */
typedef struct Plan {
        const char *profile;
        unsigned maps, reduces;
        double deadline; /* seconds */
        bool slots, dcs;
        AriaEstimate estimates[_ARIA_BOUND_MAX]; /* with the given slots */
        AriaAllocation allocations[_ARIA_BOUND_MAX];
        char aria_reasons[_ARIA_BOUND_MAX][REASON_MAX];
        DcsJob job;
        DcsTest test;
        char dcs_reason[REASON_MAX];
} Plan;

static int plan_compute(const AriaProfile *p, const PlanRequest *req, Plan *plan) {
        unsigned cap_m = plan->slots ? req->map_slots : UINT_MAX;
        unsigned cap_r = plan->slots ? req->reduce_slots : UINT_MAX;
        int r;

        for (AriaBound b = 0; b < _ARIA_BOUND_MAX; b++) {
                if (plan->slots) {
                        r = aria_estimate(p, plan->maps, plan->reduces, req->map_slots,
                                          req->reduce_slots, b, &plan->estimates[b]);
                        if (r < 0)
                                return r;
                }
                r = aria_min_slots(p, plan->maps, plan->reduces, plan->deadline, cap_m, cap_r, b,
                                   &plan->allocations[b]);
                if (r < 0)
                        return r;
                aria_allocation_explain(&plan->allocations[b], plan->maps, plan->reduces,
                                        plan->deadline, plan->aria_reasons[b], REASON_MAX);
        }
        if (!plan->dcs)
                return 0;
        plan->job = (DcsJob){
                .deadline = plan->deadline,
                .input = req->given & GIVEN(PLAN_OPT_INPUT) ? (double)req->input / MB
                                                            : plan->maps * p->map_input / MB,
                .filter_ratio = p->map_selectivity,
                .map_cost = req->map_cost,
                .reduce_cost = req->reduce_cost,
                .transfer_cost = req->transfer_cost,
                .maps = plan->maps,
                .reduces = plan->reduces,
                .worst_skew = req->skew,
        };
        r = dcs_test(&plan->job, 0, cap_m, cap_r, &plan->test);
        if (r < 0)
                return r;
        dcs_test_explain(&plan->job, &plan->test, plan->dcs_reason, REASON_MAX);
        return 0;
}

static void print_text(FILE *f, const Plan *plan, const PlanRequest *req) {
        fprintf(f, "%s: %u map and %u reduce tasks, deadline %.1fs\n", plan->profile, plan->maps,
                plan->reduces, plan->deadline);
        if (plan->slots) {
                fprintf(f,
                        "\nARIA completion time with %u map and %u reduce slots (Eq. 1-7):\n"
                        "  bound          map  shuffle   reduce    total\n",
                        req->map_slots, req->reduce_slots);
                for (AriaBound b = 0; b < _ARIA_BOUND_MAX; b++) {
                        const AriaEstimate *e = &plan->estimates[b];
                        fprintf(f, "  %-8s%8.1fs%8.1fs%8.1fs%8.1fs\n", aria_bound_to_string(b),
                                e->map, e->first_shuffle + e->shuffle, e->reduce, e->total);
                }
        }
        fprintf(f,
                "\nARIA minimum slots for the deadline (Eq. 15, rounded up%s):\n"
                "  bound     map  reduce  completion\n",
                plan->slots ? ", at most the slots given" : "");
        for (AriaBound b = 0; b < _ARIA_BOUND_MAX; b++) {
                const AriaAllocation *al = &plan->allocations[b];

                if (al->verdict == ARIA_MET)
                        fprintf(f, "  %-8s %4u  %6u  %9.1fs\n", aria_bound_to_string(b),
                                al->map_slots, al->reduce_slots, al->time);
                else
                        fprintf(f, "  %-8s cannot be met: %s\n", aria_bound_to_string(b),
                                plan->aria_reasons[b]);
        }
        if (!plan->dcs)
                return;
        fprintf(f, "\nDeadline Constraint Scheduler (input %.1f MB, filter ratio %g%s):\n",
                plan->job.input, plan->job.filter_ratio, req->skew ? ", worst-case skew" : "");
        fprintf(f, "  reduces start by %.1fs (s_r^max)", plan->test.reduce_start_max);
        if (plan->test.min_maps > 0)
                fprintf(f, "; n_m^min %u, maps done at %.1fs, n_r^min %u", plan->test.min_maps,
                        plan->test.map_end, plan->test.min_reduces);
        fputc('\n', f);
        if (plan->test.verdict == DCS_SCHEDULABLE)
                fprintf(f, "  schedulable\n");
        else
                fprintf(f, "  refused: %s\n", plan->dcs_reason);
}

/* An empty text is no text: null. */
static void json_reason(FILE *f, const char *s) {
        if (s[0])
                json_string(f, s);
        else
                fputs("null", f);
}

/* A time without a slot to run in is infinite: null. */
static void json_key_number(FILE *f, const char *indent, const char *key, double v,
                            const char *sep) {
        fprintf(f, "%s\"%s\": ", indent, key);
        json_number(f, v);
        fputs(sep, f);
}

static void print_json(FILE *f, const Plan *plan, const PlanRequest *req) {
        fputs("{\n  \"profile\": ", f);
        json_string(f, plan->profile);
        fprintf(f, ",\n  \"maps\": %u,\n  \"reduces\": %u,\n", plan->maps, plan->reduces);
        json_key_number(f, "  ", "deadline_s", plan->deadline, ",\n");
        if (plan->slots)
                fprintf(f, "  \"map_slots\": %u,\n  \"reduce_slots\": %u,\n", req->map_slots,
                        req->reduce_slots);
        else
                fputs("  \"map_slots\": null,\n  \"reduce_slots\": null,\n", f);
        fputs("  \"aria\": {\n", f);
        for (AriaBound b = 0; b < _ARIA_BOUND_MAX; b++) {
                const AriaAllocation *al = &plan->allocations[b];

                fprintf(f, "    \"%s\": {\n", aria_bound_to_string(b));
                if (plan->slots) {
                        const AriaEstimate *e = &plan->estimates[b];
                        fputs("      \"estimate\": {", f);
                        json_key_number(f, "", "map_s", e->map, ", ");
                        json_key_number(f, "", "first_shuffle_s", e->first_shuffle, ", ");
                        json_key_number(f, "", "shuffle_s", e->shuffle, ", ");
                        json_key_number(f, "", "reduce_s", e->reduce, ", ");
                        json_key_number(f, "", "total_s", e->total, "},\n");
                }
                fprintf(f, "      \"met\": %s,\n      \"verdict\": \"%s\",\n",
                        al->verdict == ARIA_MET ? "true" : "false",
                        aria_verdict_to_string(al->verdict));
                fprintf(f, "      \"map_slots\": %u,\n      \"reduce_slots\": %u,\n", al->map_slots,
                        al->reduce_slots);
                json_key_number(f, "      ", "map_exact", al->map_exact, ",\n");
                json_key_number(f, "      ", "reduce_exact", al->reduce_exact, ",\n");
                json_key_number(f, "      ", "a", al->terms.a, ",\n");
                json_key_number(f, "      ", "b", al->terms.b, ",\n");
                json_key_number(f, "      ", "c", al->terms.c, ",\n");
                json_key_number(f, "      ", "time_s", al->time, ",\n");
                fputs("      \"reason\": ", f);
                json_reason(f, plan->aria_reasons[b]);
                fprintf(f, "\n    }%s\n", b + 1 < _ARIA_BOUND_MAX ? "," : "");
        }
        fputs("  },\n  \"dcs\": ", f);
        if (!plan->dcs) {
                fputs("null\n}\n", f);
                return;
        }
        fputs("{\n", f);
        json_key_number(f, "    ", "input_mb", plan->job.input, ",\n");
        json_key_number(f, "    ", "filter_ratio", plan->job.filter_ratio, ",\n");
        fprintf(f, "    \"worst_skew\": %s,\n", req->skew ? "true" : "false");
        json_key_number(f, "    ", "reduce_start_max_s", plan->test.reduce_start_max, ",\n");
        fprintf(f, "    \"min_maps\": %u,\n    \"min_reduces\": %u,\n", plan->test.min_maps,
                plan->test.min_reduces);
        json_key_number(f, "    ", "map_end_s", plan->test.map_end, ",\n");
        fprintf(f, "    \"schedulable\": %s,\n    \"verdict\": \"%s\",\n    \"reason\": ",
                plan->test.verdict == DCS_SCHEDULABLE ? "true" : "false",
                dcs_verdict_to_string(plan->test.verdict));
        json_reason(f, plan->dcs_reason);
        fputs("\n  }\n}\n", f);
}

int plan_run(const char *profile, const PlanRequest *req, FILE *out) {
        _cleanup_free_ char *shipped = NULL;
        Plan plan = { 0 };
        AriaProfile p;
        char err[512];
        int r;

        if (sim_data_find("profiles", profile, &shipped) == 0)
                profile = shipped;
        r = profile_load(profile, &p, err, sizeof(err));
        if (r < 0) {
                fprintf(stderr, "flexslot-sim: %s\n", err);
                return 2;
        }
        plan.profile = profile;
        plan.reduces = req->reduces;
        plan.deadline = usec_to_sec(req->deadline);
        plan.slots = req->given & GIVEN(PLAN_OPT_MAP_SLOTS);
        plan.dcs = req->given & GIVEN(PLAN_OPT_MAP_COST);
        plan.maps = req->maps;
        r = req->given & GIVEN(PLAN_OPT_INPUT)
                    ? aria_profile_map_tasks(&p, (double)req->input, &plan.maps)
                    : 0;
        if (r >= 0)
                r = plan_compute(&p, req, &plan);
        if (r < 0) {
                fprintf(stderr, "flexslot-sim: %s: cannot plan: %s\n", profile, strerror(-r));
                return EXIT_FAILURE;
        }
        if (req->json)
                print_json(out, &plan, req);
        else
                print_text(out, &plan, req);
        return EXIT_SUCCESS;
}

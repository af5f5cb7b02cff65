/* SPDX-License-Identifier: MIT */
#pragma once

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/time-util.h"

/* flexslot-sim plan: how many slots a job needs to meet its deadline, from
 * its ARIA profile, without a simulation. ARIA's bounds and Eq. 15 slots
 * (policy/layers/aria-model.h), and the Deadline Constraint
 * Scheduler's minimum tasks and test (dcs-model.h) when its costs are
 * given. Its options join the program's own (getopt_long values from
 * PLAN_OPT_MAPS on). */

enum {
        PLAN_OPT_MAPS = 0x100,
        PLAN_OPT_INPUT,
        PLAN_OPT_REDUCES,
        PLAN_OPT_DEADLINE,
        PLAN_OPT_MAP_SLOTS,
        PLAN_OPT_REDUCE_SLOTS,
        PLAN_OPT_MAP_COST,
        PLAN_OPT_REDUCE_COST,
        PLAN_OPT_TRANSFER_COST,
        PLAN_OPT_SKEW,
        PLAN_OPT_JSON,
        _PLAN_OPT_END,
};

#define PLAN_LONG_OPTIONS                                                             \
        { "maps", required_argument, NULL, PLAN_OPT_MAPS },                           \
                { "input", required_argument, NULL, PLAN_OPT_INPUT },                 \
                { "reduces", required_argument, NULL, PLAN_OPT_REDUCES },             \
                { "deadline", required_argument, NULL, PLAN_OPT_DEADLINE },           \
                { "map-slots", required_argument, NULL, PLAN_OPT_MAP_SLOTS },         \
                { "reduce-slots", required_argument, NULL, PLAN_OPT_REDUCE_SLOTS },   \
                { "map-cost", required_argument, NULL, PLAN_OPT_MAP_COST },           \
                { "reduce-cost", required_argument, NULL, PLAN_OPT_REDUCE_COST },     \
                { "transfer-cost", required_argument, NULL, PLAN_OPT_TRANSFER_COST }, \
                { "skew", no_argument, NULL, PLAN_OPT_SKEW }, {                       \
                "json", no_argument, NULL, PLAN_OPT_JSON                              \
        }

typedef struct PlanRequest {
        uint32_t given; /* bits 1 << (option - PLAN_OPT_MAPS) */
        unsigned maps, reduces, map_slots, reduce_slots;
        uint64_t input;
        usec_t deadline;
        /* The Deadline Constraint Scheduler's c_m, c_r, c_d in s/MB */
        double map_cost, reduce_cost, transfer_cost;
        bool skew, json;
} PlanRequest;

static inline bool plan_option_is(int c) {
        return c >= PLAN_OPT_MAPS && c < _PLAN_OPT_END;
}

/* Takes one option; on a bad value returns -EINVAL with what was wrong in
 * problem. */
int plan_option(PlanRequest *req, int option, const char *value, char *problem, size_t size);
/* Whether the options make a question: -EINVAL with what is missing or
 * contradictory in problem. */
int plan_check(const PlanRequest *req, char *problem, size_t size);
/* The name of the first option given, for the commands that take none. */
const char *plan_first_option(const PlanRequest *req);
/* Answers it for the profile file (a bare name not in the current directory
 * is looked up in the profiles that come with the simulator). Returns an
 * exit status: 0 (answered, met or not), 1 (failed) or 2 (a bad file). */
int plan_run(const char *profile, const PlanRequest *req, FILE *out);

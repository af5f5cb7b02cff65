/* SPDX-License-Identifier: MIT */
#pragma once

#include <regex.h>
#include <stddef.h>

/* The built-in applications a job may name, and what each takes: the one
 * table the controller checks a submission against and the task runtime
 * runs (tracker/apps.c gives each its functions), so that a job the
 * controller admits is one a task can start. Pure: no I/O, no logging. */

/* The reduces of a job, as the map output's partition index holds them.
 * 0 (a map-only job) is not supported: a map always partitions its output
 * for reduces. */
#define MAPRED_REDUCES_MIN 1U
#define MAPRED_REDUCES_MAX 65536U

typedef struct MapredApp {
        const char *name;
        const char *summary;
        /* What its argument is, for help and errors; NULL when it takes
         * none. An application that names one needs it. */
        const char *arg_name;
        /* Whether arg can be used as the task will use it; NULL: any. A
         * refusal is -EINVAL with why in why. */
        int (*check_arg)(const char *arg, char *why, size_t size);
} MapredApp;

extern const MapredApp mapred_app_wordcount, mapred_app_grep, mapred_app_sort,
        mapred_app_inverted_index, mapred_app_histogram_movies, mapred_app_histogram_ratings;

/* Every one of them, NULL-terminated, and lookup by name. */
extern const MapredApp *const mapred_apps[];
const MapredApp *mapred_app_find(const char *name);

/* Whether app can run with arg (NULL: none given): an argument missing,
 * one not taken, or one that cannot be used is -EINVAL with a sentence
 * naming the application in why. */
int mapred_app_check_arg(const MapredApp *app, const char *arg, char *why, size_t size);

/* grep's pattern compiled as its tasks compile it: a POSIX extended
 * regular expression. -EINVAL with regerror()'s words in why. */
int mapred_grep_compile(regex_t *re, const char *pattern, char *why, size_t size);

/* SPDX-License-Identifier: MIT */
#include "apps-table.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int mapred_grep_compile(regex_t *re, const char *pattern, char *why, size_t size) {
        char msg[256];
        int k = regcomp(re, pattern, REG_EXTENDED);

        if (k == 0)
                return 0;
        regerror(k, re, msg, sizeof(msg));
        snprintf(why, size, "grep: bad pattern '%s': %s", pattern, msg);
        return -EINVAL;
}

static int grep_check(const char *arg, char *why, size_t size) {
        regex_t re;
        int r = mapred_grep_compile(&re, arg, why, size);

        if (r >= 0)
                regfree(&re);
        return r;
}

const MapredApp mapred_app_wordcount = {
        .name = "wordcount",
        .summary = "count each word (split on space, tab, CR, LF, FF); combiner",
};

const MapredApp mapred_app_grep = {
        .name = "grep",
        .summary = "count the matches of an extended regular expression; combiner",
        .arg_name = "PATTERN",
        .check_arg = grep_check,
};

const MapredApp mapred_app_sort = {
        .name = "sort",
        .summary = "sort key<TAB>value lines by key (bytes)",
};

const MapredApp mapred_app_inverted_index = {
        .name = "inverted-index",
        .summary = "word -> the input files it occurs in (sorted, comma-separated); combiner",
};

const MapredApp mapred_app_histogram_movies = {
        .name = "histogram-movies",
        .summary = "movies per half-star bin of their average rating (PUMA); combiner",
};

const MapredApp mapred_app_histogram_ratings = {
        .name = "histogram-ratings",
        .summary = "reviews per rating (PUMA); combiner",
};

const MapredApp *const mapred_apps[] = {
        &mapred_app_wordcount,
        &mapred_app_grep,
        &mapred_app_sort,
        &mapred_app_inverted_index,
        &mapred_app_histogram_movies,
        &mapred_app_histogram_ratings,
        NULL,
};

const MapredApp *mapred_app_find(const char *name) {
        for (const MapredApp *const *a = mapred_apps; *a; a++)
                if (strcmp((*a)->name, name) == 0)
                        return *a;
        return NULL;
}

int mapred_app_check_arg(const MapredApp *app, const char *arg, char *why, size_t size) {
        if (app->arg_name && !arg) {
                snprintf(why, size, "%s needs its %s", app->name, app->arg_name);
                return -EINVAL;
        }
        if (!app->arg_name && arg) {
                snprintf(why, size, "%s takes no argument", app->name);
                return -EINVAL;
        }
        return app->check_arg ? app->check_arg(arg, why, size) : 0;
}

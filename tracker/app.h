/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "mapred/apps-table.h"
#include "tracker/merge.h"
#include "tracker/record.h"
#include "mapred/split.h"

/* A MapReduce application: map, an optional combiner and reduce over byte
 * records, one table of functions per application (the project's driver
 * table pattern). Map gets the lines of its split; reduce emits the
 * (key, value) pairs of the job's output, written as "key\tvalue" lines
 * (just "key" when the value is empty). Intermediate values of the
 * built-in applications are text, as with Hadoop's Text and a decimal
 * count. A combiner must keep its keys: its output stays in sorted runs. */

typedef struct MapRecord {
        const char *path; /* the input file */
        uint64_t offset;  /* of the line in it */
        const uint8_t *line;
        size_t len;
} MapRecord;

typedef struct AppConfig {
        const char *arg;    /* the application's argument (grep's pattern) */
        const char *mapper; /* streaming: shell commands */
        const char *reducer;
        const InputSplit *split; /* map tasks: streaming tells the command */
        unsigned partition;      /* reduce tasks: likewise */
} AppConfig;

typedef struct AppOps {
        /* Its name, summary and argument: the controller checks jobs
         * against the same (mapred/apps-table.h). */
        const MapredApp *info;
        int (*init)(const AppConfig *cfg, void **ret_state); /* may be NULL */
        void (*free)(void *state);
        int (*map)(void *state, const MapRecord *rec, Emitter *out);
        int (*map_end)(void *state, Emitter *out); /* may be NULL */
        GroupFunc combine;                         /* may be NULL */
        GroupFunc reduce;
        int (*reduce_end)(void *state, Emitter *out); /* may be NULL */
} AppOps;

/* The built-in applications, NULL-terminated, in mapred_apps' order (a
 * test holds them to it), and lookup by name. */
extern const AppOps *const app_table[];
const AppOps *app_find(const char *name);

/* Streaming: the mapper and reducer commands of AppConfig. */
extern const AppOps app_streaming;

/* Checks cfg against what ops needs (mapred_app_check_arg()) and runs its
 * init: an argument missing, not wanted or unusable is -EINVAL with a
 * message naming the application. */
int app_init(const AppOps *ops, const AppConfig *cfg, void **ret_state);
void app_free(const AppOps *ops, void *state);

/* For applications: sums decimal counts (wordcount, grep, histograms), so
 * it serves as combiner and reducer. A value that is not a count is
 * -EBADMSG. */
int app_sum_counts(void *state, const uint8_t *key, size_t klen, ValueIter *values, Emitter *out);
/* Emits (s, "1"). */
int app_emit_one(Emitter *out, const void *s, size_t n);

extern const AppOps app_histogram_movies;
extern const AppOps app_histogram_ratings;

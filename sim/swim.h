/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* SWIM's workload format (Chen, Ganapathi, Griffith, Katz: the Statistical
 * Workload Injector for MapReduce, workloadSuite/README): one job a line,
 * six tab-separated fields, a job's name, its submission in seconds from
 * the start, the gap in seconds since the job before it, and its map input,
 * shuffle and reduce output bytes. FB-2009_samples_24_times_1hr_0.tsv,
 * 24 one-hour samples of Facebook's 600-machine cluster in 2009, is one
 * such file. Blank lines and lines starting with '#' are skipped (SWIM's
 * own files have none). */

#define SWIM_NAME_MAX 32

typedef struct SwimJob {
        char name[SWIM_NAME_MAX];
        double submit, gap; /* seconds */
        uint64_t input, shuffle, output;
        unsigned line; /* where the file has it */
} SwimJob;

typedef struct SwimTrace {
        SwimJob *jobs;
        size_t n_jobs;
} SwimTrace;

/* Parses text, named name in errors. Every line must hold a job: six
 * fields, a name of at most SWIM_NAME_MAX - 1 characters that no other job
 * has, numbers in range, submissions in the file's order and each gap the
 * difference of its submission and the one before. On the first that
 * fails it returns -EINVAL and writes "name:line: what is wrong" into err,
 * and ret is untouched. */
int swim_parse(const char *name, const char *text, SwimTrace *ret, char *err, size_t err_size);
int swim_load(const char *path, SwimTrace *ret, char *err, size_t err_size);
void swim_done(SwimTrace *t);

/* SPDX-License-Identifier: MIT */
#include "swim.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/parse.h"
#include "sim/data.h"

#define SWIM_FIELDS 6
/* A day is 86,400 s; a trace of a year is still far inside this. */
#define SWIM_TIME_MAX 1e9
/* An exabyte: beyond any job of a trace, and exact as a double's integer. */
#define SWIM_BYTES_MAX 1000000000000000000ULL

/* Splits line in place at tabs; returns the count, or one more than max
 * when there are more. */
static int split_tabs(char *line, char **fields, int max) {
        int n = 0;

        for (char *p = line;; p++) {
                char *tab = strchr(p, '\t');
                if (n == max)
                        return max + 1;
                fields[n++] = p;
                if (!tab)
                        return n;
                *tab = '\0';
                p = tab;
        }
}

static const char *const byte_fields[] = { "map input bytes", "shuffle bytes",
                                           "reduce output bytes" };

static int parse_job(char **f, SwimJob *job, const SwimJob *prev, const char *name, unsigned line,
                     char *err, size_t err_size) {
        uint64_t *bytes[] = { &job->input, &job->shuffle, &job->output };
        double expected;

        if (f[0][0] == '\0')
                return sim_file_error(err, err_size, name, line, "empty job name");
        if (strlen(f[0]) >= SWIM_NAME_MAX)
                return sim_file_error(err, err_size, name, line,
                                      "job name '%.40s...' longer than %d characters", f[0],
                                      SWIM_NAME_MAX - 1);
        snprintf(job->name, sizeof(job->name), "%s", f[0]);
        if (parse_double(f[1], 0, SWIM_TIME_MAX, &job->submit) < 0)
                return sim_file_error(err, err_size, name, line,
                                      "submit time '%s' is not a number of seconds in [0, %g]",
                                      f[1], SWIM_TIME_MAX);
        if (parse_double(f[2], 0, SWIM_TIME_MAX, &job->gap) < 0)
                return sim_file_error(err, err_size, name, line,
                                      "gap '%s' is not a number of seconds in [0, %g]", f[2],
                                      SWIM_TIME_MAX);
        for (size_t i = 0; i < ELEMENTSOF(bytes); i++)
                if (parse_uint64(f[3 + i], 0, SWIM_BYTES_MAX, bytes[i]) < 0)
                        return sim_file_error(err, err_size, name, line,
                                              "%s '%s' is not a whole number of bytes up to 10^18",
                                              byte_fields[i], f[3 + i]);
        if (prev && job->submit < prev->submit)
                return sim_file_error(
                        err, err_size, name, line,
                        "submitted at %g s, before the job before it (%g s on line %u)",
                        job->submit, prev->submit, prev->line);
        /* The gap repeats what the submissions say: a line whose gap does
         * not is one whose fields are not what they should be. */
        expected = prev ? job->submit - prev->submit : job->submit;
        if (fabs(job->gap - expected) > 1e-6 * MAX(1.0, job->submit))
                return sim_file_error(err, err_size, name, line,
                                      "gap %g s, but the submissions are %g s apart", job->gap,
                                      expected);
        job->line = line;
        return 0;
}

/* A job's name and line, sorted by both. */
typedef struct NameLine {
        const char *name;
        unsigned line;
} NameLine;

static int compare_names(const void *a, const void *b) {
        const NameLine *x = a, *y = b;
        int c = strcmp(x->name, y->name);

        return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* A job's name is what its results are known by: the first line (in the
 * file) that repeats one is the error. */
static int check_unique(const SwimJob *jobs, size_t n, const char *name, char *err,
                        size_t err_size) {
        _cleanup_free_ NameLine *order = calloc(MAX(n, (size_t)1), sizeof(NameLine));
        const NameLine *first = NULL, *again = NULL;

        if (!order)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                order[i] = (NameLine){ jobs[i].name, jobs[i].line };
        qsort(order, n, sizeof(NameLine), compare_names);
        /* order[] holds a name's jobs by line: the second of each is its
         * first repeat. */
        for (size_t i = 1; i < n; i++)
                if (strcmp(order[i].name, order[i - 1].name) == 0 &&
                    (i == 1 || strcmp(order[i - 1].name, order[i - 2].name) != 0) &&
                    (!again || order[i].line < again->line)) {
                        again = &order[i];
                        first = &order[i - 1];
                }
        if (!again)
                return 0;
        return sim_file_error(err, err_size, name, again->line, "job '%s' again (first on line %u)",
                              again->name, first->line);
}

int swim_parse(const char *name, const char *text, SwimTrace *ret, char *err, size_t err_size) {
        _cleanup_free_ char *copy = strdup(text);
        _cleanup_free_ SwimJob *jobs = NULL;
        size_t n = 0, cap = 0;
        unsigned line = 0;
        int r;

        if (!copy)
                return -ENOMEM;
        for (char *p = copy, *next; p; p = next) {
                char *fields[SWIM_FIELDS];
                size_t len;
                int nf;

                next = strchr(p, '\n');
                if (next)
                        *next++ = '\0';
                line++;
                len = strlen(p);
                if (len > 0 && p[len - 1] == '\r')
                        p[len - 1] = '\0';
                if (p[0] == '\0' || p[0] == '#')
                        continue;
                nf = split_tabs(p, fields, SWIM_FIELDS);
                if (nf != SWIM_FIELDS)
                        return sim_file_error(
                                err, err_size, name, line,
                                "%s%d tab-separated fields, expected %d (name, submit s, gap s, "
                                "map input, shuffle and reduce output bytes)",
                                nf > SWIM_FIELDS ? "more than " : "", MIN(nf, SWIM_FIELDS),
                                SWIM_FIELDS);
                if (n == cap) {
                        size_t c = cap ? 2 * cap : 1024;
                        SwimJob *j = realloc(jobs, c * sizeof(*j));
                        if (!j)
                                return -ENOMEM;
                        jobs = j;
                        cap = c;
                }
                r = parse_job(fields, &jobs[n], n ? &jobs[n - 1] : NULL, name, line, err, err_size);
                if (r < 0)
                        return r;
                n++;
        }
        if (n == 0)
                return sim_file_error(err, err_size, name, line, "no jobs");
        r = check_unique(jobs, n, name, err, err_size);
        if (r < 0)
                return r;
        ret->jobs = TAKE_PTR(jobs);
        ret->n_jobs = n;
        return 0;
}

int swim_load(const char *path, SwimTrace *ret, char *err, size_t err_size) {
        _cleanup_free_ char *text = NULL;
        int r = sim_read_text(path, &text, err, err_size);

        if (r < 0)
                return r;
        return swim_parse(path, text, ret, err, err_size);
}

void swim_done(SwimTrace *t) {
        free(t->jobs);
        *t = (SwimTrace){ 0 };
}

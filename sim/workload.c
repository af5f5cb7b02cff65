/* SPDX-License-Identifier: MIT */
#include "workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/parse.h"
#include "sim/data.h"

/* A CSV file: '#' comments and blank lines are skipped, the first other line
 * names the columns (in any order, all required), each further line is one
 * benchmark. */

typedef struct Column {
        const char *name;
        size_t offset; /* of a double in Benchmark; SIZE_MAX for the special ones */
        double min, max;
        const char *missing; /* the value of an optional column a file lacks; NULL: required */
} Column;

#define COL(n, field, lo, hi) \
        { n, offsetof(Benchmark, field), lo, hi, NULL }
#define OPTIONAL(n, field, lo, hi, def) \
        { n, offsetof(Benchmark, field), lo, hi, def }

static const Column columns[] = {
        { "name", SIZE_MAX, 0, 0 },
        COL("input_gb", input_bytes, 0.001, 1e6),
        COL("map_cpu_s_per_mb", map_cpu_per_mb, 0, 1000),
        COL("map_output_ratio", map_output_ratio, 0, 100),
        COL("reduce_cpu_s_per_mb", reduce_cpu_per_mb, 0, 1000),
        COL("output_ratio", output_ratio, 0, 100),
        { "reduces", SIZE_MAX, 0, 0 },
        COL("small_frac", small_frac, 0, 1),
        COL("large_frac", large_frac, 0, 1),
        COL("large_max_blocks", large_max_blocks, 1, 1000),
        COL("expensive_frac", expensive_frac, 0, 1),
        COL("expensive_cpu", expensive_cpu, 1, 1000),
        COL("expensive_output", expensive_output, 1, 1000),
        OPTIONAL("record_bytes", record_bytes, 0, 1e9, "0"),
        OPTIONAL("combine_ratio", combine_ratio, 0.0001, 1, "1"),
        /* RAS's profile: all seven columns or none. */
        OPTIONAL("ras_map_cpu", ras_map_cpu, 0, 100, "0"),
        OPTIONAL("ras_map_io", ras_map_io, 0, 100, "0"),
        OPTIONAL("ras_map_memory", ras_map_memory, 0, 100, "0"),
        OPTIONAL("ras_shuffle_io", ras_shuffle_io, 0, 100, "0"),
        OPTIONAL("ras_reduce_cpu", ras_reduce_cpu, 0, 100, "0"),
        OPTIONAL("ras_reduce_io", ras_reduce_io, 0, 100, "0"),
        OPTIONAL("ras_reduce_memory", ras_reduce_memory, 0, 100, "0"),
};

/* The first of RAS's columns; the rest follow it to the end. */
#define RAS_FIRST_COLUMN (ELEMENTSOF(columns) - 7)

#define N_COLUMNS ELEMENTSOF(columns)
#define MAX_FIELDS 32
#define MAX_BENCHMARKS 256

/* Splits line in place at commas, trimming spaces; returns the count or -1
 * when there are too many fields. */
static int split_fields(char *line, char **fields) {
        int n = 0;

        for (char *p = line;;) {
                char *end, *comma = strchr(p, ',');
                if (n == MAX_FIELDS)
                        return -1;
                if (comma)
                        *comma = '\0';
                while (*p == ' ' || *p == '\t')
                        p++;
                end = p + strlen(p);
                while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
                        *--end = '\0';
                fields[n++] = p;
                if (!comma)
                        return n;
                p = comma + 1;
        }
}

static int parse_row(char **fields, const int *map, Benchmark *b, const char *name, unsigned line,
                     char *err, size_t err_size) {
        memset(b, 0, sizeof(*b));
        for (size_t c = 0; c < N_COLUMNS; c++) {
                const char *v = map[c] >= 0 ? fields[map[c]] : columns[c].missing;
                double d;
                int r;

                if (strcmp(columns[c].name, "name") == 0) {
                        if (v[0] == '\0' || strlen(v) >= sizeof(b->name))
                                return sim_file_error(err, err_size, name, line,
                                                      "name: must be 1 to %zu characters",
                                                      sizeof(b->name) - 1);
                        strcpy(b->name, v);
                        continue;
                }
                if (strcmp(columns[c].name, "reduces") == 0) {
                        int n;
                        r = parse_int(v, 0, 100000, &n);
                        if (r < 0)
                                return sim_file_error(
                                        err, err_size, name, line,
                                        "reduces: '%s' is not an integer in [0, 100000]", v);
                        b->reduces = (unsigned)n;
                        continue;
                }
                r = parse_double(v, columns[c].min, columns[c].max, &d);
                if (r < 0)
                        return sim_file_error(err, err_size, name, line,
                                              "%s: '%s' is not a number in [%g, %g]",
                                              columns[c].name, v, columns[c].min, columns[c].max);
                memcpy((char *)b + columns[c].offset, &d, sizeof(d));
        }
        b->ras_profile = map[RAS_FIRST_COLUMN] >= 0;
        b->input_bytes *= 1024.0 * 1024.0 * 1024.0;
        if (b->small_frac + b->large_frac > 1.0)
                return sim_file_error(err, err_size, name, line,
                                      "small_frac + large_frac must not exceed 1");
        return 0;
}

/* Maps each column to its field; returns the number of fields a row has. */
static int parse_header(char **fields, int n, int *map, const char *name, unsigned line, char *err,
                        size_t err_size) {
        int found = 0;

        for (size_t c = 0; c < N_COLUMNS; c++) {
                map[c] = -1;
                for (int i = 0; i < n; i++)
                        if (strcmp(fields[i], columns[c].name) == 0)
                                map[c] = i;
                if (map[c] < 0 && !columns[c].missing)
                        return sim_file_error(err, err_size, name, line, "header lacks column '%s'",
                                              columns[c].name);
                found += map[c] >= 0;
        }
        if (n != found)
                return sim_file_error(err, err_size, name, line,
                                      "header has %d columns, expected %d", n, found);
        for (size_t c = RAS_FIRST_COLUMN + 1; c < N_COLUMNS; c++)
                if ((map[c] >= 0) != (map[RAS_FIRST_COLUMN] >= 0))
                        return sim_file_error(
                                err, err_size, name, line,
                                "header has '%s' but not '%s': RAS's profile takes all of "
                                "ras_map_cpu .. ras_reduce_memory or none",
                                columns[map[c] >= 0 ? c : RAS_FIRST_COLUMN].name,
                                columns[map[c] >= 0 ? RAS_FIRST_COLUMN : c].name);
        return n;
}

int workload_parse(const char *name, const char *text, Workload *ret, char *err, size_t err_size) {
        _cleanup_free_ char *copy = strdup(text);
        _cleanup_free_ Benchmark *list = NULL;
        int map[N_COLUMNS] = { 0 };
        int width = 0; /* fields per row; 0 before the header */
        unsigned line = 0;
        size_t n = 0;

        if (!copy)
                return -ENOMEM;
        /* strsep, not strtok: empty lines must still count. */
        for (char *rest = copy, *l; (l = strsep(&rest, "\n"));) {
                char *fields[MAX_FIELDS], *p = l;
                int nf, r;

                line++;
                while (*p == ' ' || *p == '\t')
                        p++;
                if (*p == '\0' || *p == '#' || *p == '\r')
                        continue;
                nf = split_fields(p, fields);
                if (nf < 0)
                        return sim_file_error(err, err_size, name, line, "too many fields");
                if (width == 0) {
                        width = parse_header(fields, nf, map, name, line, err, err_size);
                        if (width < 0)
                                return width;
                        continue;
                }
                if (nf != width)
                        return sim_file_error(err, err_size, name, line, "%d fields, expected %d",
                                              nf, width);
                if (n == MAX_BENCHMARKS)
                        return sim_file_error(err, err_size, name, line, "more than %d benchmarks",
                                              MAX_BENCHMARKS);
                if (!list) {
                        list = calloc(MAX_BENCHMARKS, sizeof(Benchmark));
                        if (!list)
                                return -ENOMEM;
                }
                r = parse_row(fields, map, &list[n], name, line, err, err_size);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < n; i++)
                        if (strcmp(list[i].name, list[n].name) == 0)
                                return sim_file_error(err, err_size, name, line,
                                                      "benchmark '%s' defined twice", list[n].name);
                n++;
        }
        if (n == 0)
                return sim_file_error(err, err_size, name, line, "no benchmarks");
        ret->benchmarks = TAKE_PTR(list);
        ret->n_benchmarks = n;
        return 0;
}

int workload_load(const char *path, Workload *ret, char *err, size_t err_size) {
        _cleanup_free_ char *text = NULL;
        int r = sim_read_text(path, &text, err, err_size);

        if (r < 0)
                return r;
        return workload_parse(path, text, ret, err, err_size);
}

void workload_done(Workload *w) {
        free(w->benchmarks);
        *w = (Workload){ 0 };
}

const Benchmark *workload_find(const Workload *w, const char *name) {
        for (size_t i = 0; i < w->n_benchmarks; i++)
                if (strcmp(w->benchmarks[i].name, name) == 0)
                        return &w->benchmarks[i];
        return NULL;
}

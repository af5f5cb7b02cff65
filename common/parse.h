/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "time-util.h"

/* Strict parsers: the whole string must be one value, without surrounding
 * space. They return 0, -EINVAL (malformed) or -ERANGE (outside [min, max]),
 * and never touch *ret on failure. */
int parse_int64(const char *s, int64_t min, int64_t max, int64_t *ret);
int parse_uint64(const char *s, uint64_t min, uint64_t max, uint64_t *ret);
int parse_int(const char *s, int min, int max, int *ret);
/* Finite decimal numbers only: no "nan", "inf" or hexadecimal floats. */
int parse_double(const char *s, double min, double max, double *ret);
/* yes/no, true/false, on/off, 1/0, case-insensitive. */
int parse_bool(const char *s, bool *ret);
/* A number with an optional unit: us, ms, s, min, h; no unit means seconds.
 * Fractions are allowed ("1.5s"). */
int parse_duration(const char *s, usec_t *ret);
/* Bytes with an optional binary suffix: K, M, G, T (also KiB, MB ...), all
 * powers of 1024; no suffix means bytes. */
int parse_size(const char *s, uint64_t *ret);

/* SPDX-License-Identifier: MIT */
#include "format.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"

typedef struct FormatUnit {
        const char *suffix;
        uint64_t factor;
} FormatUnit;

/* A form in a unit of factor f beats the smallest unit's only with fewer
 * digits after the point than f has digits: 12 covers factors up to 2^40. */
#define FRACTION_DIGITS_MAX 12

/* Writes v / factor as a decimal into buf if that is exact within
 * FRACTION_DIGITS_MAX digits after the point; returns its length, or -1. */
static int exact_decimal(uint64_t v, uint64_t factor, char *buf, size_t size) {
        uint64_t rem = v % factor;
        int n = snprintf(buf, size, "%" PRIu64, v / factor);

        if (rem == 0)
                return n;
        if ((size_t)n + 1 + FRACTION_DIGITS_MAX >= size)
                return -1;
        buf[n++] = '.';
        for (int digits = 0; rem != 0; digits++) {
                /* rem < factor <= 2^40: no overflow. */
                uint64_t tenfold = rem * 10;

                if (digits == FRACTION_DIGITS_MAX)
                        return -1;
                buf[n++] = (char)('0' + tenfold / factor);
                rem = tenfold % factor;
        }
        buf[n] = '\0';
        return n;
}

/* units: largest first, the last one with factor 1 so that one form is
 * always exact. Units in which the value is below 1 are not candidates:
 * "100ms", not "0.1s". */
static char *format_units(char *buf, size_t size, uint64_t v, const FormatUnit *units,
                          size_t n_units) {
        char best[64] = "0", candidate[64];
        size_t best_len = SIZE_MAX;

        for (size_t i = 0; v > 0 && i < n_units; i++) {
                int n;

                if (v < units[i].factor)
                        continue;
                n = exact_decimal(v, units[i].factor, candidate, sizeof(candidate));
                if (n < 0)
                        continue;
                if ((size_t)n + strlen(units[i].suffix) < best_len) {
                        best_len = (size_t)n + strlen(units[i].suffix);
                        snprintf(best, sizeof(best), "%s%s", candidate, units[i].suffix);
                }
        }
        snprintf(buf, size, "%s", best);
        return buf;
}

char *format_duration(char *buf, size_t size, usec_t usec) {
        static const FormatUnit units[] = {
                { "h", USEC_PER_HOUR },
                { "min", USEC_PER_MINUTE },
                { "s", USEC_PER_SEC },
                { "ms", USEC_PER_MSEC },
                { "us", 1 },
        };
        return format_units(buf, size, usec, units, ELEMENTSOF(units));
}

char *format_size(char *buf, size_t size, uint64_t bytes) {
        static const FormatUnit units[] = {
                { "T", 1ULL << 40 }, { "G", 1ULL << 30 }, { "M", 1ULL << 20 },
                { "K", 1ULL << 10 }, { "", 1 },
        };
        return format_units(buf, size, bytes, units, ELEMENTSOF(units));
}

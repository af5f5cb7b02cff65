/* SPDX-License-Identifier: MIT */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"

/* strtoll and friends accept leading space and, for unsigned types, a minus
 * sign; reject both up front so " 5" and "-1" never sneak through. */
static bool starts_cleanly(const char *s, bool allow_sign) {
        if (!s || !*s)
                return false;
        if (isspace((unsigned char)s[0]))
                return false;
        if (!allow_sign && (s[0] == '-' || s[0] == '+'))
                return false;
        return true;
}

int parse_int64(const char *s, int64_t min, int64_t max, int64_t *ret) {
        char *end;
        long long v;

        if (!starts_cleanly(s, true))
                return -EINVAL;
        errno = 0;
        v = strtoll(s, &end, 10);
        if (*end != '\0' || end == s)
                return -EINVAL;
        if (errno == ERANGE || v < min || v > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

int parse_uint64(const char *s, uint64_t min, uint64_t max, uint64_t *ret) {
        char *end;
        unsigned long long v;

        if (!starts_cleanly(s, false))
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (*end != '\0' || end == s)
                return -EINVAL;
        if (errno == ERANGE || v < min || v > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

int parse_int(const char *s, int min, int max, int *ret) {
        int64_t v;
        int r = parse_int64(s, min, max, &v);

        if (r < 0)
                return r;
        *ret = (int)v;
        return 0;
}

/* A plain decimal: digits with at most one point and an optional exponent.
 * This keeps strtod's "nan", "inf" and "0x1p3" out of configuration files. */
static bool is_plain_decimal(const char *s) {
        const char *p = s;
        bool digits = false;

        if (*p == '-' || *p == '+')
                p++;
        while (isdigit((unsigned char)*p)) {
                p++;
                digits = true;
        }
        if (*p == '.') {
                p++;
                while (isdigit((unsigned char)*p)) {
                        p++;
                        digits = true;
                }
        }
        if (!digits)
                return false;
        if (*p == 'e' || *p == 'E') {
                p++;
                if (*p == '-' || *p == '+')
                        p++;
                if (!isdigit((unsigned char)*p))
                        return false;
                while (isdigit((unsigned char)*p))
                        p++;
        }
        return *p == '\0';
}

int parse_double(const char *s, double min, double max, double *ret) {
        char *end;
        double v;

        if (!starts_cleanly(s, true) || !is_plain_decimal(s))
                return -EINVAL;
        errno = 0;
        v = strtod(s, &end);
        if (*end != '\0')
                return -EINVAL;
        if (errno == ERANGE || !isfinite(v) || v < min || v > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

int parse_bool(const char *s, bool *ret) {
        static const char *const yes[] = { "1", "yes", "true", "on" };
        static const char *const no[] = { "0", "no", "false", "off" };

        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (strcasecmp(s, yes[i]) == 0) {
                        *ret = true;
                        return 0;
                }
                if (strcasecmp(s, no[i]) == 0) {
                        *ret = false;
                        return 0;
                }
        }
        return -EINVAL;
}

typedef struct UnitFactor {
        const char *suffix;
        double factor;
} UnitFactor;

/* Splits "<decimal><suffix>", looks the suffix up and returns number * factor
 * in *ret. An empty suffix matches the table's "" entry if there is one. */
static int parse_with_units(const char *s, const UnitFactor *units, size_t n_units, double max,
                            double *ret) {
        char number[64];
        size_t len = 0;
        double v;
        int r;

        if (!starts_cleanly(s, false))
                return -EINVAL;
        while (s[len] && (isdigit((unsigned char)s[len]) || s[len] == '.'))
                len++;
        if (len == 0 || len >= sizeof(number))
                return -EINVAL;
        memcpy(number, s, len);
        number[len] = '\0';
        r = parse_double(number, 0, HUGE_VAL, &v);
        if (r < 0)
                return r;

        for (size_t i = 0; i < n_units; i++)
                if (strcasecmp(s + len, units[i].suffix) == 0) {
                        v *= units[i].factor;
                        if (v > max)
                                return -ERANGE;
                        *ret = v;
                        return 0;
                }
        return -EINVAL;
}

int parse_duration(const char *s, usec_t *ret) {
        static const UnitFactor units[] = {
                { "", 1e6 },     { "s", 1e6 },  { "sec", 1e6 },  { "ms", 1e3 },    { "us", 1.0 },
                { "min", 60e6 }, { "m", 60e6 }, { "h", 3600e6 }, { "d", 86400e6 },
        };
        double v;
        int r = parse_with_units(s, units, ELEMENTSOF(units), (double)(UINT64_MAX / 2), &v);

        if (r < 0)
                return r;
        *ret = (usec_t)llround(v);
        return 0;
}

int parse_size(const char *s, uint64_t *ret) {
        static const UnitFactor units[] = {
                { "", 1.0 },
                { "B", 1.0 },
                { "K", 1024.0 },
                { "KiB", 1024.0 },
                { "KB", 1024.0 },
                { "M", 1048576.0 },
                { "MiB", 1048576.0 },
                { "MB", 1048576.0 },
                { "G", 1073741824.0 },
                { "GiB", 1073741824.0 },
                { "GB", 1073741824.0 },
                { "T", 1099511627776.0 },
                { "TiB", 1099511627776.0 },
                { "TB", 1099511627776.0 },
        };
        double v;
        int r = parse_with_units(s, units, ELEMENTSOF(units), (double)(UINT64_MAX / 2), &v);

        if (r < 0)
                return r;
        *ret = (uint64_t)llround(v);
        return 0;
}

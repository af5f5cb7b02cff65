/* SPDX-License-Identifier: MIT */
#include "output.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/parse.h"

int attempt_output_format(const AttemptOutput *o, char **ret) {
        if (o->job == 0 || o->attempt == 0)
                return -EINVAL;
        return asprintf(ret, "out/%" PRIu64 "/%s-%05u.%" PRIu64, o->job, o->map ? "map" : "part",
                        o->index, o->attempt) < 0
                       ? -ENOMEM
                       : 0;
}

int attempt_output_parse(const char *s, AttemptOutput *ret) {
        _cleanup_free_ char *copy = NULL, *canonical = NULL;
        char *job, *kind, *index, *attempt;
        AttemptOutput o;
        uint64_t i;

        if (strncmp(s, "out/", 4) != 0)
                return -EINVAL;
        copy = strdup(s + 4);
        if (!copy)
                return -ENOMEM;
        job = copy;
        kind = strchr(job, '/');
        if (!kind)
                return -EINVAL;
        *kind++ = '\0';
        index = strchr(kind, '-');
        attempt = index ? strchr(index, '.') : NULL;
        if (!attempt)
                return -EINVAL;
        *index++ = *attempt++ = '\0';
        if (strcmp(kind, "map") != 0 && strcmp(kind, "part") != 0)
                return -EINVAL;
        o.map = strcmp(kind, "map") == 0;
        if (parse_uint64(job, 1, UINT64_MAX, &o.job) < 0 ||
            parse_uint64(index, 0, UINT_MAX, &i) < 0 ||
            parse_uint64(attempt, 1, UINT64_MAX, &o.attempt) < 0)
                return -EINVAL;
        o.index = (unsigned)i;
        /* The canonical spelling only: no leading zeros beyond five
         * digits, no sign. */
        if (attempt_output_format(&o, &canonical) < 0)
                return -ENOMEM;
        if (strcmp(canonical, s) != 0)
                return -EINVAL;
        *ret = o;
        return 0;
}

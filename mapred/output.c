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

/* The attempts' names start with "_", which Hadoop's FileInputFormat and
 * every reader following it skip as hidden: an attempt still running,
 * or one that lost and is removed only when its report comes, never shows
 * among a job's part-NNNNN files, before or after the job's commit.
 * LEGACY leaves it out: the names written before it had one, which a
 * controller may find in its store after an upgrade. */
static int output_name(const AttemptOutput *o, bool legacy, char **ret) {
        if (o->job == 0 || o->attempt == 0)
                return -EINVAL;
        return asprintf(ret, "out/%" PRIu64 "/%s%s-%05u.%" PRIu64, o->job, legacy ? "" : "_",
                        o->map ? "map" : "part", o->index, o->attempt) < 0
                       ? -ENOMEM
                       : 0;
}

int attempt_output_format(const AttemptOutput *o, char **ret) {
        return output_name(o, false, ret);
}

int attempt_output_committed(const AttemptOutput *o, char **ret) {
        if (o->job == 0 || o->map)
                return -EINVAL;
        return asprintf(ret, "out/%" PRIu64 "/part-%05u", o->job, o->index) < 0 ? -ENOMEM : 0;
}

int attempt_output_parse(const char *s, AttemptOutput *ret) {
        _cleanup_free_ char *copy = NULL, *canonical = NULL;
        char *job, *kind, *index, *attempt;
        AttemptOutput o;
        uint64_t i;
        bool legacy;

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
        legacy = kind[0] != '_';
        if (!legacy)
                kind++;
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
        if (output_name(&o, legacy, &canonical) < 0)
                return -ENOMEM;
        if (strcmp(canonical, s) != 0)
                return -EINVAL;
        *ret = o;
        return 0;
}

/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The name of a task attempt's output in the data directory:
 * out/JOB/_map-NNNNN.ATTEMPT for a map's, out/JOB/_part-NNNNN.ATTEMPT for a
 * reduce's, NNNNN the task's index in five digits at least. Every attempt
 * writes under a name of its own, as Hadoop's FileOutputCommitter keeps
 * attempts apart, so that two attempts of a task never write one file;
 * the job commit renames each reduce's winning output to
 * out/JOB/part-NNNNN. The leading "_" hides the attempts' files from
 * readers of the job's output (Hadoop's convention), so that a loser's
 * file, removed only when its report comes, is never read as a part.
 * Trackers write these names, and the controller reads them back to adopt
 * work a tracker finished while it was away. */

typedef struct AttemptOutput {
        uint64_t job;     /* > 0 */
        bool map;         /* else a reduce's */
        unsigned index;   /* the map's split, the reduce's partition */
        uint64_t attempt; /* > 0 */
} AttemptOutput;

int attempt_output_format(const AttemptOutput *o, char **ret);
/* out/JOB/part-NNNNN, a reduce's output once its job committed; -EINVAL
 * for a map's. */
int attempt_output_committed(const AttemptOutput *o, char **ret);
/* -EINVAL for anything but a name attempt_output_format() writes, or one
 * without the leading "_" as it was written before it had one. */
int attempt_output_parse(const char *s, AttemptOutput *ret);

/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "time-util.h"

/* Durations and sizes written the way configuration files write them, so
 * that a message speaks the user's units: "100ms", "1.5s", "1h", "512M",
 * "16G", or plain bytes ("1025") where no larger unit is exact. Each picks
 * the shortest exact form (on a tie, the larger unit); parse_duration() and
 * parse_size() read it back to the same value (below 2^51, where their
 * double arithmetic is exact). 0 is "0". */

#define FORMAT_DURATION_MAX 32
#define FORMAT_SIZE_MAX 32

/* Write into buf (size >= FORMAT_*_MAX never truncates) and return it. */
char *format_duration(char *buf, size_t size, usec_t usec);
char *format_size(char *buf, size_t size, uint64_t bytes);

/* For a printf argument: the text lives until the end of the enclosing block. */
#define FORMAT_DURATION(usec) \
        format_duration((char[FORMAT_DURATION_MAX]){ 0 }, FORMAT_DURATION_MAX, (usec))
#define FORMAT_SIZE(bytes) format_size((char[FORMAT_SIZE_MAX]){ 0 }, FORMAT_SIZE_MAX, (bytes))

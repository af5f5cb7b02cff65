/* SPDX-License-Identifier: MIT */
#pragma once

/* The reply times a heartbeat benchmark measured, in microseconds, and
 * their percentiles. */

#include <stddef.h>
#include <stdint.h>

#include "common/time-util.h"

typedef struct Latencies {
        uint32_t *us;
        size_t n, size;
} Latencies;

/* One more; -ENOMEM. Above UINT32_MAX us counts as UINT32_MAX. */
int latencies_record(Latencies *l, usec_t latency);
/* In order, for latencies_percentile(). */
void latencies_sort(Latencies *l);
/* The p-th (0..1) of the sorted times; 0 for none. */
uint32_t latencies_percentile(const Latencies *l, double p);
void latencies_done(Latencies *l);

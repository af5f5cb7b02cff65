/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

/* One time unit across the project: microseconds in a uint64_t. */
typedef uint64_t usec_t;

#define USEC_INFINITY ((usec_t)UINT64_MAX)
#define USEC_PER_MSEC ((usec_t)1000ULL)
#define USEC_PER_SEC ((usec_t)1000000ULL)
#define USEC_PER_MINUTE (60ULL * USEC_PER_SEC)
#define USEC_PER_HOUR (60ULL * USEC_PER_MINUTE)
#define NSEC_PER_USEC ((uint64_t)1000ULL)

struct timespec;

/* A clock's reading in microseconds, the nanoseconds below one cut off. */
usec_t timespec_to_usec(const struct timespec *ts);
/* CLOCK_MONOTONIC in microseconds: for intervals, rate limits, timeouts. */
usec_t now_monotonic_usec(void);
/* CLOCK_REALTIME in microseconds: only for timestamps shown to people. */
usec_t now_realtime_usec(void);
/* CPU time of the calling thread in microseconds: for benchmarks on a
 * machine whose CPUs are shared or limited, where wall time is not the
 * work done. */
usec_t now_thread_cpu_usec(void);

/* The next deadline of a periodic timer that was due at deadline: the first
 * of deadline + k * period (k >= 1) that is not before now. A timer that
 * fell behind skips the slots it missed rather than catching up in a burst,
 * and never drifts by the time its callbacks take. */
usec_t usec_next_deadline(usec_t deadline, usec_t period, usec_t now);

static inline double usec_to_sec(usec_t u) {
        return (double)u / (double)USEC_PER_SEC;
}

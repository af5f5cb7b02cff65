/* SPDX-License-Identifier: MIT */
#include "time-util.h"

#include <time.h>

usec_t timespec_to_usec(const struct timespec *ts) {
        return (usec_t)ts->tv_sec * USEC_PER_SEC + (usec_t)ts->tv_nsec / NSEC_PER_USEC;
}

static usec_t clock_usec(clockid_t id) {
        struct timespec ts;

        /* Cannot fail for the clocks used here; a zero time would be obvious. */
        if (clock_gettime(id, &ts) < 0)
                return 0;
        return timespec_to_usec(&ts);
}

usec_t now_monotonic_usec(void) {
        return clock_usec(CLOCK_MONOTONIC);
}

usec_t now_realtime_usec(void) {
        return clock_usec(CLOCK_REALTIME);
}

usec_t now_thread_cpu_usec(void) {
        return clock_usec(CLOCK_THREAD_CPUTIME_ID);
}

usec_t usec_next_deadline(usec_t deadline, usec_t period, usec_t now) {
        usec_t next = deadline + period;

        if (period == 0)
                return now;
        if (next >= now)
                return next;
        return next + (now - next + period - 1) / period * period;
}

/* SPDX-License-Identifier: MIT */
#pragma once

/* A reconnect back-off: after a failed attempt the next one waits, the wait
 * doubling up to a cap; a success starts over. Pure: the caller supplies
 * the time, so it is safe in any thread and tests need no clock. The
 * agent's libvirt connections and the controller's agent connections use
 * it. */

#include <stdbool.h>

#include "time-util.h"

typedef struct Backoff {
        usec_t initial;      /* first delay after a failure */
        usec_t max;          /* cap of the doubling */
        usec_t delay;        /* delay that the next failure will wait */
        usec_t next_attempt; /* no attempt before this time; 0 = now */
        unsigned failures;   /* consecutive failures */
} Backoff;

/* initial > 0 and max >= initial, else -EINVAL. */
int backoff_init(Backoff *b, usec_t initial, usec_t max);
/* Whether an attempt may be made at time now. */
bool backoff_due(const Backoff *b, usec_t now);
/* An attempt at time now failed: the next one waits delay, and delay doubles
 * up to max. */
void backoff_failed(Backoff *b, usec_t now);
/* An attempt succeeded: back to the initial delay, attempts allowed at once. */
void backoff_succeeded(Backoff *b);

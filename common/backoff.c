/* SPDX-License-Identifier: MIT */
#include "backoff.h"

#include <errno.h>

int backoff_init(Backoff *b, usec_t initial, usec_t max) {
        if (!b || initial == 0 || max < initial)
                return -EINVAL;
        *b = (Backoff){ .initial = initial, .max = max, .delay = initial };
        return 0;
}

bool backoff_due(const Backoff *b, usec_t now) {
        return now >= b->next_attempt;
}

void backoff_failed(Backoff *b, usec_t now) {
        b->next_attempt = now > USEC_INFINITY - b->delay ? USEC_INFINITY : now + b->delay;
        b->delay = b->delay > b->max / 2 ? b->max : b->delay * 2;
        b->failures++;
}

void backoff_succeeded(Backoff *b) {
        b->delay = b->initial;
        b->next_attempt = 0;
        b->failures = 0;
}

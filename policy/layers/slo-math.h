/* SPDX-License-Identifier: MIT */
#pragma once

#include <math.h>

/* What ARIA, the Deadline Constraint Scheduler and RAS share: a count of
 * slots or tasks from a real-valued requirement, rounded up. A requirement
 * that is an integer on paper comes out of a division a hair above it
 * (1920 / 320 = 6.000000000000001 on some inputs), which a plain ceil()
 * would turn into one slot too many; anything within a relative 1e-9 of an
 * integer counts as that integer. Requirements beyond UINT_MAX saturate. */
static inline unsigned slo_ceil(double x) {
        double c;

        if (!(x > 0))
                return 0;
        c = ceil(x - 1e-9 * fmax(1.0, x));
        return c >= 4294967295.0 ? 4294967295U : (unsigned)c;
}

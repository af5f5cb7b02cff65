/* SPDX-License-Identifier: MIT */
/* RAS's utility function and required map slots; the choices the paper
 * leaves open are listed in ras-utility.h. */
#include "ras-utility.h"

#include <errno.h>
#include <math.h>

#include "common/macro.h"
#include "policy/layers/slo-math.h"

int ras_required_slots(unsigned pending_maps, double task_length, double now, double goal,
                       unsigned *ret) {
        if (!isfinite(task_length) || !(task_length > 0) || !isfinite(now) || isnan(goal) ||
            goal == -INFINITY)
                return -EINVAL;
        if (pending_maps == 0)
                *ret = 0;
        else if (goal == INFINITY || goal <= now)
                *ret = pending_maps;
        else
                *ret = CLAMP(slo_ceil(pending_maps * task_length / (goal - now)), 1U, pending_maps);
        return 0;
}

double ras_utility_map(unsigned s_alloc, unsigned s_req, unsigned s_pend) {
        if (s_alloc >= s_req)
                return s_pend > s_req ? ((double)s_alloc - s_req) / ((double)s_pend - s_req) : 1.0;
        if (s_alloc == 0)
                return -INFINITY;
        /* 1 <= s_alloc < s_req, so log(s_req) > 0. */
        return log(s_alloc) / log(s_req) - 1.0;
}

double ras_utility_reduce(unsigned r_alloc, unsigned r_pend) {
        if (r_alloc >= r_pend)
                return 0.0;
        if (r_alloc == 0)
                return -1.0;
        /* 1 <= r_alloc < r_pend, so log(r_pend) > 0. */
        return log(r_alloc) / log(r_pend) - 1.0;
}

double ras_utility(unsigned s_alloc, unsigned s_req, unsigned s_pend, unsigned r_alloc,
                   unsigned r_pend) {
        return fmin(1.0,
                    ras_utility_map(s_alloc, s_req, s_pend) + ras_utility_reduce(r_alloc, r_pend));
}

/* SPDX-License-Identifier: MIT */
/* ARIA's job profiles, completion-time bounds and Lagrange slot estimate;
 * the choices the paper leaves open are listed in aria-model.h. */
#include "aria-model.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "common/macro.h"
#include "policy/layers/slo-math.h"

/* Running minimum, mean and maximum of one kind of duration. */
typedef struct Stat {
        double min, max, sum;
        size_t n;
} Stat;

static void stat_add(Stat *s, double v) {
        if (s->n == 0 || v < s->min)
                s->min = v;
        if (s->n == 0 || v > s->max)
                s->max = v;
        s->sum += v;
        s->n++;
}

static double stat_avg(const Stat *s) {
        return s->n > 0 ? s->sum / (double)s->n : 0.0;
}

static double ratio(double num, double den) {
        return den > 0 ? num / den : 0.0;
}

static bool task_valid(const AriaTask *t) {
        if (!isfinite(t->start) || !isfinite(t->end) || !isfinite(t->input) ||
            !isfinite(t->output) || t->end < t->start || t->input < 0 || t->output < 0)
                return false;
        return !t->reduce ||
               (isfinite(t->shuffle_end) && t->shuffle_end >= t->start && t->shuffle_end <= t->end);
}

int aria_profile_extract(const AriaTask *tasks, size_t n_tasks, AriaProfile *ret) {
        Stat map = { 0 }, first = { 0 }, typical = { 0 }, red = { 0 };
        double map_end = 0, map_in = 0, map_out = 0, red_in = 0, red_out = 0;
        const Stat *sh1, *shtyp;

        for (size_t i = 0; i < n_tasks; i++) {
                const AriaTask *t = &tasks[i];

                if (!task_valid(t))
                        return -EINVAL;
                if (t->reduce)
                        continue;
                stat_add(&map, t->end - t->start);
                if (map.n == 1 || t->end > map_end)
                        map_end = t->end;
                map_in += t->input;
                map_out += t->output;
        }
        if (map.n == 0)
                return -EINVAL;
        for (size_t i = 0; i < n_tasks; i++) {
                const AriaTask *t = &tasks[i];

                if (!t->reduce)
                        continue;
                if (t->start < map_end)
                        /* A clock skew may put the shuffle's end before the
                         * last map's: nothing of it was then left. */
                        stat_add(&first, fmax(0.0, t->shuffle_end - map_end));
                else
                        stat_add(&typical, t->shuffle_end - t->start);
                stat_add(&red, t->end - t->shuffle_end);
                red_in += t->input;
                red_out += t->output;
        }
        sh1 = first.n > 0 ? &first : &typical;
        shtyp = typical.n > 0 ? &typical : &first;
        *ret = (AriaProfile){
                .map_min = map.min,
                .map_avg = stat_avg(&map),
                .map_max = map.max,
                .map_input = map_in / (double)map.n,
                .map_selectivity = ratio(map_out, map_in),
                .sh1_avg = stat_avg(sh1),
                .sh1_max = sh1->max,
                .shtyp_avg = stat_avg(shtyp),
                .shtyp_max = shtyp->max,
                .reduce_avg = stat_avg(&red),
                .reduce_max = red.max,
                .reduce_selectivity = ratio(red_out, red_in),
        };
        return 0;
}

static bool ordered(double min, double avg, double max) {
        return min <= avg && avg <= max;
}

int aria_profile_check(const AriaProfile *p) {
        const double v[] = {
                p->map_min,         p->map_avg,    p->map_max,    p->map_input,
                p->map_selectivity, p->sh1_avg,    p->sh1_max,    p->shtyp_avg,
                p->shtyp_max,       p->reduce_avg, p->reduce_max, p->reduce_selectivity
        };

        for (size_t i = 0; i < ELEMENTSOF(v); i++)
                if (!isfinite(v[i]) || v[i] < 0)
                        return -EINVAL;
        if (!(p->map_avg > 0) || !(p->map_input > 0) ||
            !ordered(p->map_min, p->map_avg, p->map_max) || !ordered(0, p->sh1_avg, p->sh1_max) ||
            !ordered(0, p->shtyp_avg, p->shtyp_max) || !ordered(0, p->reduce_avg, p->reduce_max))
                return -EINVAL;
        return 0;
}

int aria_profile_map_tasks(const AriaProfile *p, double input_bytes, unsigned *ret) {
        if (aria_profile_check(p) < 0 || !isfinite(input_bytes) || input_bytes < 0)
                return -EINVAL;
        *ret = MAX(slo_ceil(input_bytes / p->map_input), 1U);
        return 0;
}

const char *aria_bound_to_string(AriaBound b) {
        static const char *const names[_ARIA_BOUND_MAX] = {
                [ARIA_LOWER] = "lower",
                [ARIA_AVERAGE] = "average",
                [ARIA_UPPER] = "upper",
        };

        return b >= 0 && b < _ARIA_BOUND_MAX ? names[b] : NULL;
}

const char *aria_verdict_to_string(AriaVerdict v) {
        static const char *const names[_ARIA_VERDICT_MAX] = {
                [ARIA_MET] = "met",
                [ARIA_DEADLINE_PASSED] = "deadline-passed",
                [ARIA_CONSTANT_EXCEEDS] = "constant-exceeds-deadline",
                [ARIA_TOO_FEW_TASKS] = "too-few-tasks",
                [ARIA_TOO_FEW_SLOTS] = "too-few-slots",
        };

        return v >= 0 && v < _ARIA_VERDICT_MAX ? names[v] : NULL;
}

static int check_job(const AriaProfile *p, unsigned n_maps, AriaBound bound) {
        if (aria_profile_check(p) < 0 || n_maps == 0 || bound < 0 || bound >= _ARIA_BOUND_MAX)
                return -EINVAL;
        return 0;
}

/* The lower (up = false) or upper bound's terms; see aria-model.h. */
static AriaTerms bound_terms(const AriaProfile *p, unsigned n_maps, unsigned n_reduces, bool up) {
        double nm = up ? n_maps - 1.0 : n_maps, per_reduce = p->shtyp_avg + p->reduce_avg;

        if (n_reduces == 0)
                return (AriaTerms){ .a = nm * p->map_avg, .c = up ? p->map_max : 0 };
        if (!up)
                return (AriaTerms){ .a = nm * p->map_avg,
                                    .b = n_reduces * per_reduce,
                                    .c = p->sh1_avg - p->shtyp_avg };
        return (AriaTerms){ .a = nm * p->map_avg,
                            .b = (n_reduces - 1.0) * per_reduce,
                            .c = p->map_max + p->sh1_max - p->shtyp_avg + p->shtyp_max +
                                 p->reduce_max };
}

int aria_terms(const AriaProfile *p, unsigned n_maps, unsigned n_reduces, AriaBound bound,
               AriaTerms *ret) {
        AriaTerms low, up;
        int r = check_job(p, n_maps, bound);

        if (r < 0)
                return r;
        low = bound_terms(p, n_maps, n_reduces, false);
        up = bound_terms(p, n_maps, n_reduces, true);
        *ret = bound == ARIA_LOWER   ? low
               : bound == ARIA_UPPER ? up
                                     : (AriaTerms){ .a = (low.a + up.a) / 2,
                                                    .b = (low.b + up.b) / 2,
                                                    .c = (low.c + up.c) / 2 };
        return 0;
}

/* Eq. 1-6 for one bound, with min(S, N) slots of each kind. */
static AriaEstimate bound_estimate(const AriaProfile *p, unsigned n_maps, unsigned n_reduces,
                                   unsigned map_slots, unsigned reduce_slots, bool up) {
        double nm = n_maps, nr = n_reduces, km = MIN(map_slots, n_maps);
        double kr = MIN(reduce_slots, n_reduces);
        AriaEstimate e = { 0 };

        e.map = up ? (nm - 1) * p->map_avg / km + p->map_max : nm * p->map_avg / km;
        if (n_reduces > 0) {
                e.first_shuffle = up ? p->sh1_max : p->sh1_avg;
                e.shuffle = up ? ((nr - 1) / kr - 1) * p->shtyp_avg + p->shtyp_max
                               : (nr / kr - 1) * p->shtyp_avg;
                e.reduce = up ? (nr - 1) * p->reduce_avg / kr + p->reduce_max
                              : nr * p->reduce_avg / kr;
        }
        e.total = e.map + e.first_shuffle + e.shuffle + e.reduce;
        return e;
}

int aria_estimate(const AriaProfile *p, unsigned n_maps, unsigned n_reduces, unsigned map_slots,
                  unsigned reduce_slots, AriaBound bound, AriaEstimate *ret) {
        AriaEstimate low, up;
        int r = check_job(p, n_maps, bound);

        if (r < 0)
                return r;
        if (map_slots == 0 || (n_reduces > 0 && reduce_slots == 0))
                return -EINVAL;
        low = bound_estimate(p, n_maps, n_reduces, map_slots, reduce_slots, false);
        up = bound_estimate(p, n_maps, n_reduces, map_slots, reduce_slots, true);
        *ret = bound == ARIA_LOWER ? low
               : bound == ARIA_UPPER
                       ? up
                       : (AriaEstimate){
                                 .map = (low.map + up.map) / 2,
                                 .first_shuffle = (low.first_shuffle + up.first_shuffle) / 2,
                                 .shuffle = (low.shuffle + up.shuffle) / 2,
                                 .reduce = (low.reduce + up.reduce) / 2,
                                 .total = (low.total + up.total) / 2,
                         };
        return 0;
}

/* Eq. 9 with m and r slots (r unused without reduce terms); infinite
 * without a slot for a kind of task the job has. */
static double terms_time(const AriaTerms *t, unsigned n_reduces, unsigned m, unsigned r) {
        if (m == 0 || (n_reduces > 0 && r == 0))
                return INFINITY;
        return t->a / m + (n_reduces > 0 ? t->b / r : 0) + t->c;
}

int aria_min_slots(const AriaProfile *p, unsigned n_maps, unsigned n_reduces, double deadline,
                   unsigned cluster_map_slots, unsigned cluster_reduce_slots, AriaBound bound,
                   AriaAllocation *ret) {
        unsigned cap_m = MIN(n_maps, cluster_map_slots),
                 cap_r = MIN(n_reduces, cluster_reduce_slots);
        AriaAllocation al = { .map_slots = cap_m, .reduce_slots = cap_r };
        double d, sa, sb, m, r;
        int k;

        if (!isfinite(deadline))
                return -EINVAL;
        k = aria_terms(p, n_maps, n_reduces, bound, &al.terms);
        if (k < 0)
                return k;
        d = deadline - al.terms.c;
        if (!(deadline > 0))
                al.verdict = ARIA_DEADLINE_PASSED;
        else if (!(d > 0))
                al.verdict = ARIA_CONSTANT_EXCEEDS;
        else {
                /* Eq. 15 */
                sa = sqrt(al.terms.a);
                sb = sqrt(al.terms.b);
                al.map_exact = sa * (sa + sb) / d;
                al.reduce_exact = n_reduces > 0 ? sb * (sa + sb) / d : 0;
                if (terms_time(&al.terms, n_reduces, n_maps, n_reduces) > deadline)
                        al.verdict = ARIA_TOO_FEW_TASKS;
                else if (terms_time(&al.terms, n_reduces, cap_m, cap_r) > deadline)
                        al.verdict = ARIA_TOO_FEW_SLOTS;
                else
                        al.verdict = ARIA_MET;
        }
        if (al.verdict == ARIA_MET) {
                /* The capped slots meet the deadline, so a / cap_m + b / cap_r
                 * <= d: what is left for the other kind is positive. */
                m = al.map_exact;
                r = al.reduce_exact;
                if (m > cap_m) {
                        m = cap_m;
                        r = n_reduces > 0 ? al.terms.b / (d - al.terms.a / cap_m) : 0;
                } else if (r > cap_r) {
                        r = cap_r;
                        m = al.terms.a / (d - al.terms.b / cap_r);
                }
                al.map_slots = CLAMP(slo_ceil(m), 1U, cap_m);
                al.reduce_slots = n_reduces > 0 ? CLAMP(slo_ceil(r), 1U, cap_r) : 0;
        }
        al.time = terms_time(&al.terms, n_reduces, al.map_slots, al.reduce_slots);
        *ret = al;
        return 0;
}

void aria_allocation_explain(const AriaAllocation *al, unsigned n_maps, unsigned n_reduces,
                             double deadline, char *buf, size_t size) {
        switch (al->verdict) {
        case ARIA_DEADLINE_PASSED:
                snprintf(buf, size, "the deadline has passed");
                break;
        case ARIA_CONSTANT_EXCEEDS:
                snprintf(buf, size,
                         "the constant term alone, %.1fs, is not below the deadline of %.1fs",
                         al->terms.c, deadline);
                break;
        case ARIA_TOO_FEW_TASKS:
                snprintf(buf, size,
                         "even one slot per task (%u map, %u reduce) takes %.1fs, past the "
                         "deadline of %.1fs",
                         n_maps, n_reduces, terms_time(&al->terms, n_reduces, n_maps, n_reduces),
                         deadline);
                break;
        case ARIA_TOO_FEW_SLOTS:
                snprintf(buf, size,
                         "all the slots it can have (%u map, %u reduce) take %.1fs, past the "
                         "deadline of %.1fs",
                         al->map_slots, al->reduce_slots, al->time, deadline);
                break;
        default:
                snprintf(buf, size, "%s", "");
                break;
        }
}

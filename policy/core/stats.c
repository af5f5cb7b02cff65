/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/stats.h"

#define KMEANS_MAX_ROUNDS 100

double stats_mean(const double *x, size_t n) {
        double sum = 0;

        if (n == 0)
                return 0;
        for (size_t i = 0; i < n; i++)
                sum += x[i];
        return sum / (double)n;
}

double stats_stddev(const double *x, size_t n) {
        double mu = stats_mean(x, n), sum = 0;

        if (n == 0)
                return 0;
        for (size_t i = 0; i < n; i++)
                sum += (x[i] - mu) * (x[i] - mu);
        return sqrt(sum / (double)n);
}

double stats_skewness(const double *x, size_t n) {
        double mu = stats_mean(x, n), m2 = 0, m3 = 0, sigma;

        if (n == 0)
                return 0;
        for (size_t i = 0; i < n; i++) {
                double d = x[i] - mu;
                m2 += d * d;
                m3 += d * d * d;
        }
        sigma = sqrt(m2 / (double)n);
        /* A spread this small is the mean's rounding: the values are equal. */
        if (sigma < 1e-12 * MAX(fabs(mu), 1.0))
                return 0;
        return m3 / (double)n / (sigma * sigma * sigma);
}

static int compare_doubles(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}

double stats_percentile(const double *x, size_t n, double p, double *scratch) {
        if (n == 0)
                return 0;
        memcpy(scratch, x, n * sizeof(double));
        qsort(scratch, n, sizeof(double), compare_doubles);
        return scratch[(size_t)(p * (double)(n - 1))];
}

size_t kmeans2_1d(const double *x, size_t n, bool *ret_low, double *ret_low_c, double *ret_high_c) {
        double lo = n > 0 ? x[0] : 0, hi = lo;
        size_t n_low = 0;
        bool changed = true;

        for (size_t i = 0; i < n; i++) {
                lo = fmin(lo, x[i]);
                hi = fmax(hi, x[i]);
                ret_low[i] = false;
        }
        *ret_low_c = lo;
        *ret_high_c = hi;
        if (n < 2 || lo == hi)
                return 0;

        /* Lloyd's iterations converge (each round lowers the within-cluster
         * sum of squares); the cap only keeps the cost bounded. */
        for (unsigned round = 0; changed && round < KMEANS_MAX_ROUNDS; round++) {
                double sum_low = 0, sum_high = 0;

                changed = false;
                n_low = 0;
                for (size_t i = 0; i < n; i++) {
                        bool low = fabs(x[i] - lo) < fabs(x[i] - hi);

                        changed |= low != ret_low[i];
                        ret_low[i] = low;
                        if (low) {
                                sum_low += x[i];
                                n_low++;
                        } else
                                sum_high += x[i];
                }
                /* The minimum always stays low and the maximum high, so neither
                 * cluster is ever empty. */
                lo = sum_low / (double)n_low;
                hi = sum_high / (double)(n - n_low);
        }
        *ret_low_c = lo;
        *ret_high_c = hi;
        return n_low;
}

void stats_max_min_shares(const double *demand, size_t n, double capacity, double *ret_share) {
        size_t n_open = n;
        bool progress = true;

        for (size_t i = 0; i < n; i++)
                ret_share[i] = -1; /* not yet satisfied */
        /* Each round satisfies at least one claimant or ends: at most n rounds. */
        while (n_open > 0 && progress) {
                double equal = capacity / (double)n_open;

                progress = false;
                for (size_t i = 0; i < n; i++)
                        if (ret_share[i] < 0 && demand[i] <= equal) {
                                ret_share[i] = demand[i];
                                capacity -= demand[i];
                                n_open--;
                                progress = true;
                        }
        }
        for (size_t i = 0; i < n; i++)
                if (ret_share[i] < 0)
                        ret_share[i] = capacity / (double)n_open;
}

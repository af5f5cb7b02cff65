/* SPDX-License-Identifier: MIT */
#pragma once

/* Small deterministic statistics for the policies and the reports. */

#include <stdbool.h>
#include <stddef.h>

double stats_mean(const double *x, size_t n);
/* Population standard deviation (divides by n), as FlexSlot's Algorithm 2
 * and skewness use it. 0 for n == 0. */
double stats_stddev(const double *x, size_t n);
/* Statistical skewness of FlexSlot II-B: (1/n) sum (x_i - mu)^3 / sigma^3,
 * with sigma the population standard deviation; 0 when sigma is 0, or so
 * small against the mean that it is rounding (equal values). */
double stats_skewness(const double *x, size_t n);
/* The value at rank floor(p * (n - 1)) of x sorted ascending, p in 0..1;
 * scratch holds n doubles. 0 for n == 0. */
double stats_percentile(const double *x, size_t n, double p, double *scratch);

/* One-dimensional k-means with k = 2 (FlexSlot III-B). Deterministic: the
 * centroids start at the minimum and the maximum, a point equally far from
 * both joins the high cluster, and Lloyd iterations run until no point
 * changes cluster (at most 100 rounds). ret_low[i] tells
 * whether x[i] is in the low cluster; the centroids go to ret_low_c and
 * ret_high_c. Returns the size of the low cluster: 0 when all values are
 * equal (one cluster), or n < 2. */
size_t kmeans2_1d(const double *x, size_t n, bool *ret_low, double *ret_low_c, double *ret_high_c);

/* Max-min fair shares of capacity among n claimants with equal weights:
 * nobody gets more than its demand, and what the satisfied ones leave is
 * split equally among the rest (water-filling). */
void stats_max_min_shares(const double *demand, size_t n, double capacity, double *ret_share);

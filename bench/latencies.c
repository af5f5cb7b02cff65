/* SPDX-License-Identifier: MIT */
#include "latencies.h"

#include <errno.h>
#include <stdlib.h>

#include "common/macro.h"

int latencies_record(Latencies *l, usec_t latency) {
        if (l->n == l->size) {
                size_t n = MAX(l->size * 2, (size_t)65536);
                uint32_t *p = realloc(l->us, n * sizeof(*p));

                if (!p)
                        return -ENOMEM;
                l->us = p;
                l->size = n;
        }
        l->us[l->n++] = (uint32_t)MIN(latency, (usec_t)UINT32_MAX);
        return 0;
}

static int compare_u32(const void *a, const void *b) {
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

        return (x > y) - (x < y);
}

void latencies_sort(Latencies *l) {
        if (l->n > 0)
                qsort(l->us, l->n, sizeof(*l->us), compare_u32);
}

uint32_t latencies_percentile(const Latencies *l, double p) {
        if (l->n == 0)
                return 0;
        return l->us[(size_t)(p * (double)(l->n - 1) + 0.5)];
}

void latencies_done(Latencies *l) {
        free(l->us);
        *l = (Latencies){ 0 };
}

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "common/macro.h"
#include "policy/core/stats.h"
#include "policy/layers/flexslot.h"

#define BYTES_PER_MIB (1024.0 * 1024.0)

double flexslot_input_speed(const Attempt *a, usec_t now, usec_t min_age) {
        if (now <= a->started || now - a->started < min_age)
                return 0;
        return (double)a->bytes_processed / usec_to_sec(now - a->started);
}

double flexslot_score(uint64_t input_size, double speed) {
        double s = (double)input_size / BYTES_PER_MIB;

        if (input_size == 0)
                return 0;
        return (1.0 + 1.0 / s) * (speed / BYTES_PER_MIB);
}

Bottleneck flexslot_bottleneck(const FlexSlotSettings *set, const Attempt *a) {
        if (a->iowait >= set->io_threshold && a->iowait >= a->steal)
                return BOTTLENECK_IO;
        if (a->steal >= set->steal_threshold)
                return BOTTLENECK_CPU;
        return BOTTLENECK_NONE;
}

bool flexslot_resize_pays(const Attempt *a, double prev_speed, double speed, usec_t waste) {
        double size = (double)a->input_size;

        if (a->resize_count == 0)
                return true;
        if (speed <= 0 || prev_speed <= 0)
                return false;
        return size / prev_speed - size / speed > usec_to_sec(waste);
}

uint64_t flexslot_grow_memory(uint64_t memory, double alpha, uint64_t limit) {
        double grown = floor((double)memory * (1.0 + alpha));

        return grown >= (double)limit ? limit : (uint64_t)grown;
}

static int compare_by_steal(const void *a, const void *b, void *userdata) {
        const double *steal = userdata;
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

        if (steal[x] != steal[y])
                return steal[x] < steal[y] ? -1 : 1;
        return (x > y) - (x < y);
}

size_t flexslot_plan_moves(const FlexSlotSettings *set, const uint32_t *nodes, size_t n,
                           const double *steal, const unsigned *slots, const bool *may_give,
                           const bool *may_take, uint32_t *order, uint32_t *ret_from,
                           uint32_t *ret_to) {
        double sum = 0, sum_sq = 0, mu;
        size_t lo = 0, hi, moves = 0;

        if (n < 2)
                return 0;
        for (size_t i = 0; i < n; i++)
                sum += steal[nodes[i]];
        mu = sum / (double)n;
        for (size_t i = 0; i < n; i++)
                sum_sq += (steal[nodes[i]] - mu) * (steal[nodes[i]] - mu);
        if (sqrt(sum_sq / (double)n) <= set->lambda)
                return 0;

        /* Sorting by steal sorts by steal - mu: the donor is the node with the
         * least, the receiver the one with the most. */
        for (size_t i = 0; i < n; i++)
                order[i] = nodes[i];
        qsort_r(order, n, sizeof(uint32_t), compare_by_steal, (void *)steal);
        hi = n - 1;
        while ((int64_t)moves < set->max_moves && lo < hi) {
                if (slots[order[lo]] <= set->min_map_slots || (may_give && !may_give[order[lo]])) {
                        lo++;
                        continue;
                }
                if (slots[order[hi]] >= set->max_map_slots || (may_take && !may_take[order[hi]])) {
                        hi--;
                        continue;
                }
                ret_from[moves] = order[lo++];
                ret_to[moves] = order[hi--];
                moves++;
        }
        return moves;
}

static bool attempt_judged(const PolicyContext *ctx, const FlexSlotAnalysis *an, uint32_t i) {
        const Attempt *a = &ctx->snap->attempts[i];

        return !a->speculative && ctx->snap->tasks[a->task].type == TASK_MAP && an->score[i] > 0;
}

/* k-means over the judged attempts of one job, given in members[0..n). */
static void analyze_job(const PolicyContext *ctx, const FlexSlotSettings *set, FlexSlotAnalysis *an,
                        const uint32_t *members, size_t n, double *values, bool *low) {
        double low_c, high_c;

        for (size_t k = 0; k < n; k++)
                values[k] = an->score[members[k]];
        if (kmeans2_1d(values, n, low, &low_c, &high_c) == 0 ||
            low_c >= set->straggler_ratio * high_c)
                return;
        for (size_t k = 0; k < n; k++) {
                uint32_t i = members[k];
                const Attempt *a = &ctx->snap->attempts[i];

                if (!low[k])
                        continue;
                an->straggler[i] = true;
                an->bottleneck[i] = flexslot_bottleneck(set, a);
                an->node_stragglers[a->node]++;
        }
}

int flexslot_analyze(PolicyContext *ctx, const FlexSlotSettings *set, FlexSlotAnalysis *an) {
        const ClusterSnapshot *s = ctx->snap;
        size_t n = s->n_attempts, n_jobs = s->n_jobs;
        uint32_t *members = context_scratch(ctx, n, sizeof(uint32_t));
        size_t *start = context_scratch(ctx, n_jobs + 1, sizeof(size_t));
        double *values = context_scratch(ctx, n, sizeof(double));
        bool *low = context_scratch(ctx, n, sizeof(bool));
        size_t *next = context_scratch(ctx, n_jobs, sizeof(size_t));

        if (!members || !start || !values || !low || !next)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const Attempt *a = &s->attempts[i];

                an->speed[i] = flexslot_input_speed(a, ctx->now, set->min_age);
                an->score[i] = flexslot_score(a->input_size, an->speed[i]);
                if (attempt_judged(ctx, an, (uint32_t)i))
                        start[s->tasks[a->task].job + 1]++;
        }
        /* Group the judged attempts by job (a counting sort, so each group
         * stays in attempt order). */
        for (size_t j = 0; j < n_jobs; j++) {
                start[j + 1] += start[j];
                next[j] = start[j];
        }
        for (size_t i = 0; i < n; i++)
                if (attempt_judged(ctx, an, (uint32_t)i))
                        members[next[s->tasks[s->attempts[i].task].job]++] = (uint32_t)i;
        for (size_t j = 0; j < n_jobs; j++)
                analyze_job(ctx, set, an, members + start[j], start[j + 1] - start[j], values, low);

        for (size_t i = 0; i < n; i++) {
                int r;

                if (!an->straggler[i])
                        continue;
                r = DECISIONS_PUSH(ctx->d, stragglers, .attempt = (uint32_t)i,
                                   .score = an->score[i], .bottleneck = an->bottleneck[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

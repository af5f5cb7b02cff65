/* SPDX-License-Identifier: MIT */
/* Hadoop 1's default JobQueueTaskScheduler: jobs in submission order; for
 * each free map slot the first job with pending maps runs one, a map whose
 * split is on the node if it has one. Reduces follow the same order once a
 * job's maps are far enough (reduce_slowstart). Every task runs in a slot of
 * its own type, unless DynamicMR lends it one of the other type
 * (dynamicmr.h, which fills the slots; under PD-DHSA the queue is one
 * pool). It remembers only the filler's memory of the nodes. */
#include "policy/core/context.h"
#include "policy/layers/dynamicmr.h"
#include "policy/layers/policies.h"

static int fifo_init(const void *settings, void **ret_state) {
        return dmr_memory_new(ret_state);
}

static void fifo_free(void *state) {
        idmap_free(state);
}

/* FIFO waits for no split: a job's local map if it has one, else any. The
 * head job (PICK_HEAD) is the first with a pending task of the type. */
static uint32_t fifo_pick(void *data, PolicyContext *ctx, uint32_t node, TaskType type,
                          uint32_t pool, PickMode mode, bool *visited) {
        for (size_t k = ctx->order_from[type]; k < ctx->n_unsettled; k++) {
                uint32_t job = ctx->unsettled[k], any, t;

                any = context_job_pending_task(ctx, job, type, node, false);
                if (any == NO_INDEX) {
                        if (k == ctx->order_from[type])
                                ctx->order_from[type]++;
                        continue;
                }
                t = context_job_pending_task(ctx, job, type, node, type == TASK_MAP);
                if (t != NO_INDEX || mode == PICK_HEAD)
                        return t;
                return any;
        }
        return NO_INDEX;
}

static size_t fifo_pools(void *data, PolicyContext *ctx, uint32_t *ret) {
        ret[0] = NO_INDEX;
        return 1;
}

static int fifo_assign(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        TaskSource src = { .pick = fifo_pick, .pools = fifo_pools };
        DmrFill *fill;
        int r = dmr_fill_begin(ctx, state, &fill);

        if (r < 0)
                return r;
        return dmr_fill(fill, &src, state);
}

const JobSchedulerOps job_scheduler_fifo = {
        .name = "fifo",
        .figures_on_demand = true, /* it reads none */
        .init = fifo_init,
        .free = fifo_free,
        .assign = fifo_assign,
};

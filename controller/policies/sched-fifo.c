/* SPDX-License-Identifier: MIT */
/* Hadoop 1's default JobQueueTaskScheduler: jobs in submission order; for
 * each free map slot the first job with pending maps runs one, a map whose
 * split is on the node if it has one. Reduces follow the same order once a
 * job's maps are far enough (reduce_slowstart). Every task runs in a slot of
 * its own type. */
#include "controller/core/context.h"
#include "controller/policies/policies.h"

static uint32_t fifo_pick(const PolicyContext *ctx, uint32_t node, TaskType type) {
        for (size_t k = 0; k < ctx->snap->n_jobs; k++) {
                uint32_t job = ctx->job_order[k], t;

                t = context_job_pending_task(ctx, job, type, node, type == TASK_MAP);
                if (t == NO_INDEX)
                        t = context_job_pending_task(ctx, job, type, node, false);
                if (t != NO_INDEX)
                        return t;
        }
        return NO_INDEX;
}

static int fifo_assign(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        for (uint32_t node = 0; node < ctx->snap->n_nodes; node++)
                for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                        while (context_fillable_slots(ctx, node, slot_type_of(type)) > 0) {
                                uint32_t t = fifo_pick(ctx, node, type);
                                int r;

                                if (t == NO_INDEX)
                                        break;
                                r = context_assign(ctx, t, node, slot_type_of(type), false);
                                if (r < 0)
                                        return r;
                        }
        return 0;
}

const JobSchedulerOps job_scheduler_fifo = {
        .name = "fifo",
        .assign = fifo_assign,
};

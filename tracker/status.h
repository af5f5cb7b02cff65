/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

/* A running task's progress, as its heartbeat will carry it. The task
 * process writes it into a small shared memory file (memfd) that the
 * tracker maps too, so the tracker reads it at any moment without talking
 * to the task; every field is a relaxed atomic, so a reader may see one
 * field a little newer than another, never a torn value. */

typedef enum TaskKind {
        TASK_KIND_MAP = 1,
        TASK_KIND_REDUCE = 2,
} TaskKind;

typedef enum TaskPhase {
        TASK_PHASE_STARTING = 0,
        TASK_PHASE_MAP,    /* reading the split */
        TASK_PHASE_MERGE,  /* map side: merging the spills */
        TASK_PHASE_COPY,   /* reduce: fetching its partition of each map output */
        TASK_PHASE_SORT,   /* reduce: intermediate merges */
        TASK_PHASE_REDUCE, /* reduce: the final merge feeding reduce */
        TASK_PHASE_COMMIT, /* syncing and renaming the output */
        TASK_PHASE_DONE,
} TaskPhase;

typedef struct TaskStatus {
        uint64_t magic;
        uint32_t kind, phase;
        uint64_t input_done, input_total;   /* map: bytes of the split */
        uint64_t copy_done, copy_total;     /* reduce: map outputs */
        uint64_t sort_done, sort_total;     /* reduce: bytes of intermediate merges */
        uint64_t reduce_done, reduce_total; /* reduce: records */
        uint64_t bytes_read, bytes_written; /* input read, output written */
        uint64_t records_in, records_out;
        uint64_t spills;
} TaskStatus;

#define TASK_STATUS_MAGIC UINT64_C(0x5441534b53544154) /* "TASKSTAT" */

/* Stores into a field of a status that may be NULL (a task run without a
 * tracker watching). */
#define TASK_STATUS_SET(s, field, value)                                              \
        do {                                                                          \
                TaskStatus *status_ = (s);                                            \
                if (status_)                                                          \
                        __atomic_store_n(&status_->field, (value), __ATOMIC_RELAXED); \
        } while (0)

/* A new shared status: *ret_fd is the memfd to hand to the task (it is
 * close-on-exec: the spawner dups it to the task's --status-fd). */
int task_status_create(int *ret_fd, TaskStatus **ret);
/* Maps the status a tracker handed over by descriptor. */
int task_status_map(int fd, TaskStatus **ret);
void task_status_unmap(TaskStatus *s);

/* Starts a task's status: kind, phase STARTING, counters zero. */
void task_status_begin(TaskStatus *s, TaskKind kind);
/* A consistent-enough copy of every field. */
void task_status_read(const TaskStatus *s, TaskStatus *ret);

/* The progress score in [0, 1] of a snapshot: for a map, the share of its
 * split consumed (1 once done); for a reduce, Hadoop's thirds: copy, sort
 * and reduce each count 1/3 by their own share done. 0 before the task has
 * begun. */
double task_status_progress(const TaskStatus *snap);
const char *task_phase_to_string(TaskPhase phase);

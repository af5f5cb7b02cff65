/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <systemd/sd-event.h>

#include "common/time-util.h"

/* A worker thread with a request queue, so that calls which can block for a
 * long time (libvirt waits on busy domain jobs) never run on the sd-event
 * thread. Jobs run one at a time in submission order; each has a timeout
 * after which the event loop gets an answer whether or not the job is done.
 * Every callback except run is called on the event loop's thread, so the
 * bus and other loop objects may be used there; run is called on the worker
 * thread and may touch only the job's data and the worker's userdata. */

typedef struct Worker Worker;

typedef enum WorkerOutcome {
        WORKER_DONE,            /* ran within its timeout; result is run's return */
        WORKER_TIMEOUT_QUEUED,  /* timed out before it started: it never runs */
        WORKER_TIMEOUT_RUNNING, /* timed out while running: WORKER_LATE follows */
        WORKER_LATE,            /* finished after WORKER_TIMEOUT_RUNNING */
        WORKER_CANCELLED,       /* the worker stopped before the job started */
} WorkerOutcome;

typedef int (*WorkerRunFunc)(void *worker_userdata, void *data);
typedef void (*WorkerDoneFunc)(WorkerOutcome outcome, int result, void *data);
typedef void (*WorkerFreeFunc)(void *data);

typedef struct WorkerJobOps {
        WorkerRunFunc run;
        WorkerDoneFunc done;      /* may be NULL */
        WorkerFreeFunc free_data; /* may be NULL; called once, after the last done */
} WorkerJobOps;

/* Pending jobs beyond this are refused with -EBUSY: a stuck hypervisor must
 * not let clients pile up memory. */
#define WORKER_QUEUE_MAX 64

/* Starts the thread. userdata is passed to every run. */
int worker_new(sd_event *event, void *userdata, Worker **ret);

/* Queues a job. On success the worker owns data (ops->free_data frees it);
 * on failure the caller still does. timeout 0 means no timeout. */
int worker_submit(Worker *w, const WorkerJobOps *ops, void *data, usec_t timeout);

/* Jobs submitted and not yet answered (queued or running). */
size_t worker_get_pending(Worker *w);

/* Stops the thread: queued jobs are cancelled, a running one is waited for
 * up to wait. Returns 0, or -ETIMEDOUT if the running job did not return in
 * time; then the thread is left behind, detached, and the Worker's memory
 * with it, since the thread still uses it (the process is about to exit). */
int worker_stop(Worker *w, usec_t wait);

/* Stops (waiting without limit unless worker_stop already ran) and frees.
 * NULL is fine; returns NULL. */
Worker *worker_free(Worker *w);
static inline void worker_freep(Worker **w) {
        worker_free(*w);
}

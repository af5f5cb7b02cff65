/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/macro.h"
#include "common/time-util.h"

/* The simulator's clock: a binary heap of events ordered by (time, sequence).
 * The sequence number is the order of scheduling, so two events at the same
 * time run in the order they were scheduled and a run is reproducible. */

typedef struct EventQueue EventQueue;

/* 0 is never a valid id. An id stays unique after its event ran or was
 * cancelled, so a stale id is harmless. */
typedef uint64_t EventId;

/* Returns the delay after which the same event runs again (a periodic event,
 * keeping its id), or 0 when it is done. */
typedef usec_t (*EventFn)(EventQueue *q, void *userdata);

int event_queue_new(EventQueue **ret);
EventQueue *event_queue_free(EventQueue *q);
DEFINE_POINTER_CLEANUP_FUNC(EventQueue, event_queue_free);

/* at must not be earlier than event_queue_now(): -EINVAL. */
int event_queue_schedule(EventQueue *q, usec_t at, EventFn fn, void *userdata, EventId *ret_id);
/* -ENOENT when the event already ran or was cancelled. */
int event_queue_cancel(EventQueue *q, EventId id);
/* Moves a pending event to time at, ordered as if scheduled now (after
 * every event already at that time): what cancel and schedule would do, in
 * one sift. -ENOENT as cancel, -EINVAL for a time in the past. */
int event_queue_move(EventQueue *q, EventId id, usec_t at);

usec_t event_queue_now(const EventQueue *q);
size_t event_queue_pending(const EventQueue *q);
uint64_t event_queue_dispatched(const EventQueue *q);
/* Time of the earliest pending event, USEC_INFINITY when there is none. */
usec_t event_queue_next_time(const EventQueue *q);

/* Runs events in order until none is left, the next one is later than
 * until, or a callback called event_queue_stop(). Returns the number run. */
uint64_t event_queue_run(EventQueue *q, usec_t until);
void event_queue_stop(EventQueue *q);

/* Has event_queue_run() call fn after each `every` events (0: never), before
 * the next one; for watching a long run: fn must not change the queue. */
typedef void (*EventHookFn)(EventQueue *q, void *userdata);
void event_queue_set_hook(EventQueue *q, uint64_t every, EventHookFn fn, void *userdata);

/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-event.h>

#include "proto/tracker1.h"
#include "tracker/task-user.h"
#include "tracker/tracker-config.h"

/* flexslot-tracker's attempts: each assigned attempt runs as a
 * flexslot-task child process, watched from the event loop, and is kept as
 * finished from its end until a heartbeat reply acknowledges its report.
 * Nothing here waits: a kill sends SIGTERM and arms a timer for SIGKILL,
 * and an attempt is reported when its process is reaped. */

typedef struct TrackerTask TrackerTask;
typedef struct TrackerFinished TrackerFinished;

typedef struct TrackerTasks {
        const TrackerConfig *config; /* not owned */
        sd_event *event;             /* not owned */
        TrackerTask **tasks;
        size_t n_tasks;
        TrackerFinished *finished; /* in the order they ended */
        size_t n_finished;
        TaskUser task_user; /* whom tasks run as ([tasks] task-user) */
} TrackerTasks;

void tracker_tasks_init(TrackerTasks *t, const TrackerConfig *config, sd_event *event);
/* Tasks die with the tracker: nothing would report them. */
void tracker_tasks_done(TrackerTasks *t);

/* Starts an assignment of the tracker's registration; one that cannot
 * start is reported failed with why at the next heartbeat, as Hadoop
 * reports a task that failed to launch. A negative errno only when that
 * report cannot be kept. */
int tracker_tasks_start(TrackerTasks *t, const Tracker1Assignment *a, uint64_t registration);
/* SIGTERM to the attempt's process group now, SIGKILL after kill-grace;
 * cause (NULL: none) is given back as the reason of its report. An
 * attempt not running here, or being killed already, is left alone. */
void tracker_tasks_kill(TrackerTasks *t, uint64_t attempt, const char *cause);

/* The slots the running attempts hold, of type slot (a map may hold a lent
 * reduce slot). */
unsigned tracker_tasks_held(const TrackerTasks *t, Tracker1TaskType slot);

/* The running attempts and every finished one kept, into report's running
 * and finished (arrays of the report's own, tracker1_report_done()); the
 * strings are the tasks' until acknowledged. */
int tracker_tasks_report(const TrackerTasks *t, Tracker1Report *report);
/* The first n finished attempts' reports reached the controller: they are
 * forgotten. */
void tracker_tasks_acknowledge(TrackerTasks *t, size_t n);
/* Attempts assigned under another registration than this one: the
 * controller takes no report of them once another registration of this
 * tracker holds them (it ran them elsewhere after losing this one), so
 * they are stopped and forgotten. */
void tracker_tasks_forget_others(TrackerTasks *t, uint64_t registration);

/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "proto/tracker1.h"
#include "tracker/procstat.h"
#include "tracker/tracker-config.h"
#include "tracker/tracker-tasks.h"

/* flexslot-tracker's link to the controller (proto/tracker1.h): connect,
 * register, heartbeat at the interval the controller gives, and connect
 * again with a back-off while there is no controller to talk to. Every
 * call is asynchronous, one at a time: while a controller is slow, the
 * loop goes on reaping tasks and timing kills, and the next heartbeat
 * waits for the answer to the last. */

typedef struct TrackerLink {
        const TrackerConfig *config; /* not owned */
        sd_event *event;             /* not owned */
        TrackerTasks *tasks;         /* not owned */
        /* What Register says: the token, the identity, and the slots from
         * the last reply on (those of the configuration until one came). */
        Tracker1Registration registration;
        sd_bus *bus;       /* NULL while disconnected */
        sd_bus_slot *call; /* the call on its way; NULL: none */
        sd_event_source *timer;
        uint64_t id; /* 0 while not registered */
        usec_t interval, backoff;
        usec_t step_at; /* when the step under way was due */
        size_t sent;    /* finished attempts in the heartbeat on its way */
        CpuTimes cpu_before;
        bool have_cpu;
        /* The node's steal, its source, and whether the kernel counts
         * steal (cpu_times_steal). */
        double steal;
        StealSource steal_source;
        bool steal_accounted;
        /* What ReportGuest last told registration guest_reported_to; a
         * controller without the method is told nothing more. */
        Tracker1Guest guest;
        uint64_t guest_reported_to;
        bool guest_unsupported;
        bool version_refused; /* the controller refused the version: said once */
} TrackerLink;

/* Connects at once, in the event loop; token and identity must outlive
 * the link. A refusal that will not mend (a wrong token) or a reply that
 * cannot be read ends the event loop with a negative errno. */
int tracker_link_start(TrackerLink *l, const TrackerConfig *config, sd_event *event,
                       TrackerTasks *tasks, const char *token, const TrackerIdentity *identity);
void tracker_link_stop(TrackerLink *l);

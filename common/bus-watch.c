/* SPDX-License-Identifier: MIT */
#include "bus-watch.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/epoll.h>

#include "log.h"

struct BusWatch {
        sd_bus *bus;
        /* io: the descriptor, edge-triggered; timer: sd-bus's next timeout,
         * or now when a turn ended with messages perhaps left. A timer,
         * not a defer source: sd-event dispatches a defer source ahead of
         * every source that became ready after it was first enabled, so
         * that a connection whose peer is quick would keep the loop to
         * itself. */
        sd_event_source *io, *timer;
        bus_watch_closed_t closed;
        void *userdata;
};

BusWatch *bus_watch_free(BusWatch *w) {
        if (!w)
                return NULL;
        w->io = sd_event_source_disable_unref(w->io);
        w->timer = sd_event_source_disable_unref(w->timer);
        w->bus = sd_bus_unref(w->bus);
        free(w);
        return NULL;
}

int bus_watch_update(BusWatch *w) {
        uint64_t until;
        uint32_t events, waiting;
        int e, r;

        e = sd_bus_get_events(w->bus);
        if (e < 0)
                return e;
        events = EPOLLET | ((unsigned)e & POLLIN ? EPOLLIN : 0) |
                 ((unsigned)e & POLLOUT ? EPOLLOUT : 0);
        /* Only when it changes: an edge-triggered source set again is armed
         * again, which costs a system call. */
        r = sd_event_source_get_io_events(w->io, &waiting);
        if (r >= 0 && waiting != events)
                r = sd_event_source_set_io_events(w->io, events);
        if (r < 0)
                return r;
        r = sd_bus_get_timeout(w->bus, &until);
        if (r < 0)
                return r;
        if (r == 0)
                return sd_event_source_set_enabled(w->timer, SD_EVENT_OFF);
        r = sd_event_source_set_time(w->timer, until);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(w->timer, SD_EVENT_ONESHOT);
}

/* Processes the connection until it has nothing left or the turn is over,
 * then waits again; a connection that closed, or whose processing failed,
 * goes to the owner. */
static void bus_watch_turn(BusWatch *w) {
        uint64_t now;
        unsigned n;
        int r = 0;

        for (n = 0; n < BUS_WATCH_TURN; n++) {
                r = sd_bus_process(w->bus, NULL);
                if (r <= 0 || sd_bus_is_open(w->bus) <= 0)
                        break;
        }
        if (r >= 0 && sd_bus_is_open(w->bus) > 0) {
                r = bus_watch_update(w);
                /* Behind the sources that are ready now. */
                if (r >= 0 && n == BUS_WATCH_TURN) {
                        r = sd_event_now(sd_event_source_get_event(w->timer), CLOCK_MONOTONIC,
                                         &now);
                        if (r >= 0)
                                r = sd_event_source_set_time(w->timer, now);
                        if (r >= 0)
                                r = sd_event_source_set_enabled(w->timer, SD_EVENT_ONESHOT);
                }
                if (r >= 0)
                        return;
        }
        if (r < 0) {
                log_debug_errno(r, "Closing a connection whose processing failed");
                sd_bus_close(w->bus);
        }
        w->closed(w, w->userdata);
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        bus_watch_turn(userdata);
        return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        bus_watch_turn(userdata);
        return 0;
}

int bus_watch_new(sd_event *event, sd_bus *bus, bus_watch_closed_t closed, void *userdata,
                  BusWatch **ret) {
        BusWatch *w;
        int fd, r;

        fd = sd_bus_get_fd(bus);
        if (fd < 0)
                return fd;
        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->bus = sd_bus_ref(bus);
        w->closed = closed;
        w->userdata = userdata;
        r = sd_event_add_io(event, &w->io, fd, EPOLLIN | EPOLLET, on_io, w);
        if (r >= 0)
                /* Accurate: a turn that comes back is not put off. */
                r = sd_event_add_time(event, &w->timer, CLOCK_MONOTONIC, 0, 1, on_timer, w);
        if (r >= 0)
                r = sd_event_source_set_enabled(w->timer, SD_EVENT_OFF);
        if (r >= 0)
                r = bus_watch_update(w);
        if (r < 0) {
                bus_watch_free(w);
                return r;
        }
        *ret = w;
        return 0;
}

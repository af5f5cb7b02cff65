/* SPDX-License-Identifier: MIT */
#pragma once

/* One of many sd-bus connections on one sd-event loop, each processed when
 * it has news, at a cost that does not grow with the others.
 *
 * sd_bus_attach_event() suits a program's few connections: it gives each a
 * prepare callback, which sd-event calls on every iteration of the loop,
 * and a level-triggered descriptor, which epoll reports on every iteration
 * while it has something to read, though the loop dispatches one source an
 * iteration. With thousands of busy connections a message then costs work
 * in proportion to them all: at 4,000 tracker connections the controller
 * spent its time in epoll and in those callbacks, and answered no
 * heartbeat within seconds.
 *
 * A BusWatch waits on the connection's descriptor edge-triggered and has no
 * prepare callback: when the kernel reports news it processes the
 * connection until nothing is left (at most BUS_WATCH_TURN messages, then
 * it lets the loop's other sources run and takes another turn), and then
 * sets what it waits for from the connection's state: input, output that
 * is queued, sd-bus's own timeouts (authentication, method calls' replies).
 * A message sent on the connection outside its turn needs
 * bus_watch_update() afterwards. The connection has one descriptor for
 * both directions (a socket). */

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

/* The most messages a connection's turn processes before the loop's other
 * sources run. */
#define BUS_WATCH_TURN 4

typedef struct BusWatch BusWatch;

/* The connection closed, or processing it failed (it is closed then): the
 * owner frees the watch here or later; it calls nothing more. */
typedef void (*bus_watch_closed_t)(BusWatch *w, void *userdata);

/* Watches bus, started (sd_bus_start()) and not attached to a loop, on
 * event; keeps a reference to bus. */
int bus_watch_new(sd_event *event, sd_bus *bus, bus_watch_closed_t closed, void *userdata,
                  BusWatch **ret);
BusWatch *bus_watch_free(BusWatch *w);

/* What the watch waits for, again from the connection's state. */
int bus_watch_update(BusWatch *w);

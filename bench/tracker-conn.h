/* SPDX-License-Identifier: MIT */
#pragma once

/* What the programs that speak org.flexslot.Tracker1 from outside (the test
 * tracker, the heartbeat load) share: the token file, the connection to
 * the controller's endpoint and Register. */

#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-bus.h>

#include "proto/tracker1.h"

/* The token file's first line, without its newline. */
int tracker_token_read(const char *path, char *buf, size_t size);

/* An anonymous peer-to-peer connection to the endpoint at address. */
int tracker_bus_open(const char *address, sd_bus **ret);

/* Register (proto/tracker1.h): the tracker's id and interval; the
 * controller's refusal in *error. */
int tracker_register(sd_bus *bus, const Tracker1Registration *x, Tracker1Registered *ret,
                     sd_bus_error *error);

/* SPDX-License-Identifier: MIT */
#pragma once

#include "common/time-util.h"
#include "hypervisor/hypervisor.h"

/* What the collector and the actuator do alike with the libvirt connection
 * each of them owns. */

/* Opens *conn on first use, so that it belongs to the thread that uses it,
 * and lazily, so that the agent starts before libvirtd. */
int agent_connect(HvConnection **conn, const char *uri);

/* The hypervisor's message for the last failure on conn (which may be
 * NULL), else r's. */
const char *agent_hv_error(const HvConnection *conn, int r);

/* The clock of rate limits and ages: clock (tests), else monotonic. */
usec_t agent_now(usec_t (*clock)(void));

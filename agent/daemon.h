/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "host.h"
#include "ring.h"
#include "worker.h"

#define AGENT_BUS_NAME "org.flexslot.Agent1"
#define AGENT_OBJECT_PATH "/org/flexslot/Agent1"
#define AGENT_INTERFACE "org.flexslot.Agent1"

/* flexslot-agentd's state. Everything here belongs to the event loop's
 * thread except host, which the worker thread owns while it runs. */
typedef struct Agent {
        AgentConfig config;
        sd_event *event;
        sd_bus *bus;
        sd_bus_slot *object_slot;
        sd_event_source *sample_timer;
        Worker *worker;
        AgentHost host;
        Ring history; /* AgentSnapshot *, newest last */
        bool sampling;
        bool have_allowed_gid;
        bool status_sent, status_available;
        size_t status_domains;
        gid_t allowed_gid;

        /* D-Bus properties, read through offsetof. */
        char *hostname;
        uint32_t capacity_cpus, reserve_cpus;
        uint64_t capacity_memory, reserve_memory;
        int dry_run;               /* "b" properties are ints in sd-bus */
        int hypervisor_available;
} Agent;

/* Registers the object, its error names and the well-known name. */
int agent_bus_setup(Agent *a);
/* Emits the Sample signal for a new snapshot. */
int agent_bus_emit_sample(Agent *a, const AgentSnapshot *s);
/* Sets HypervisorAvailable and emits PropertiesChanged when it changes. */
void agent_bus_set_available(Agent *a, bool available);

/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "actuator.h"
#include "collector.h"
#include "decision-journal.h"
#include "guest-agent.h"
#include "target-check.h"
#include "agent-config.h"
#include "ring.h"
#include "worker.h"
#include "proto/agent1.h"

/* How much of a caller's string an error message or the log repeats. */
#define AGENT_SHOWN_MAX 64

/* How many resources of changes ended with one verdict and error name
 * (static strings), for the metrics. */
typedef struct AgentChangeCount {
        ActResource resource;
        const char *verdict, *error; /* error: "" for none */
        uint64_t n;
} AgentChangeCount;

typedef struct AgentChangeCounts {
        AgentChangeCount *items;
        size_t n;
} AgentChangeCounts;

typedef struct MetricsServer MetricsServer;

/* flexslot-agentd's state. Everything here belongs to the event loop's
 * thread except collector, actuator and guest_agent, which their worker
 * threads own while they run: samples, changes and questions to guest
 * agents each have a thread and a libvirt connection, so that none waits
 * for another. */
typedef struct Agent {
        AgentConfig config;
        sd_event *event;
        sd_bus *bus;
        sd_bus_slot *object_slot;
        sd_event_source *sample_timer;
        Worker *collector_worker, *actuator_worker, *guest_agent_worker;
        AgentCollector collector;
        AgentActuator actuator;
        AgentGuestAgent guest_agent;
        /* The guest agents' newest answers, stamped into each sample. */
        AgentGuestAnswers guest_answers;
        Ring history; /* AgentSnapshot *, newest last */
        /* Domains whose settings the agent changed, for the next sample to
         * read again. */
        AgentStale stale;
        /* The newest sample's counters as libvirt gave them, for the
         * metrics; the history keeps only what was derived from them. */
        HvDomainSample *latest_samples;
        size_t n_latest_samples;
        AgentChangeCounts change_counts;
        /* The newest change requests and their verdicts, for ListDecisions. */
        AgentDecisions decisions;
        /* vCPU and memory changes the domains have yet to show. */
        AgentTargetChecks target_checks;
        MetricsServer *metrics;
        bool sampling;
        bool asking_guest_agents;
        bool have_allowed_gid;
        bool status_sent, status_available;
        size_t status_domains;
        gid_t allowed_gid;

        /* D-Bus properties, read through offsetof. */
        char *hostname;
        uint32_t capacity_cpus, reserve_cpus;
        uint64_t capacity_memory, reserve_memory;
        int dry_run; /* "b" properties are ints in sd-bus */
        int hypervisor_available;
} Agent;

/* Registers the object, its error names and the well-known name. */
int agent_bus_setup(Agent *a);
/* Emits the Sample signal for a new snapshot. */
int agent_bus_emit_sample(Agent *a, const AgentSnapshot *s);
/* Sets HypervisorAvailable and emits PropertiesChanged when it changes. */
void agent_bus_set_available(Agent *a, bool available);
/* A domain argument: a name or a UUID, as libvirt allows. */
bool agent_domain_is_valid(const char *domain);
/* Error.InvalidArgs for one that is not. */
int agent_bus_invalid_domain(const char *domain, sd_bus_error *error);

/* The change methods (bus-change.c). */
int agent_method_set_target(sd_bus_message *m, void *userdata, sd_bus_error *error);
int agent_method_set_vcpus(sd_bus_message *m, void *userdata, sd_bus_error *error);
int agent_method_set_memory(sd_bus_message *m, void *userdata, sd_bus_error *error);
int agent_method_set_cpu_weight(sd_bus_message *m, void *userdata, sd_bus_error *error);

/* The metrics (exporter.c): one more resource of a change with this
 * verdict and error name (both static strings; "" for no error). */
int agent_count_change(AgentChangeCounts *counts, ActResource resource, const char *verdict,
                       const char *error);
void agent_change_counts_done(AgentChangeCounts *counts);
/* A MetricsWriter: the agent's metrics, userdata the Agent. */
int agent_metrics_write(FILE *out, void *userdata);

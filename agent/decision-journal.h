/* SPDX-License-Identifier: MIT */
#pragma once

/* The decision journal: the newest change requests the agent decided on,
 * each with who asked, what, under which limits and the verdict, in a
 * bounded ring ([agent] decisions) that Agent1's ListDecisions reads. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/time-util.h"
#include "hypervisor/hypervisor.h"
#include "ring.h"

/* The uid of a caller the bus would not name. */
#define AGENT_UID_UNKNOWN UINT32_MAX

typedef struct AgentDecision {
        uint64_t id; /* 1, 2, ...: the order of the decisions */
        usec_t time; /* CLOCK_REALTIME */
        char method[32];
        char sender[256]; /* the caller's unique bus name, "" if unknown */
        uint32_t uid;     /* AGENT_UID_UNKNOWN if unknown */
        char domain[HV_NAME_MAX];
        char inputs[256]; /* the arguments after the domain */
        char limits[512]; /* the limits the decision applied, "" before any */
        char verdict[16]; /* applied, clamped, unchanged, dry-run, refused, failed, ... */
        char error[128];  /* the error name, "" for none */
        bool dry_run;
        char outcome[2048]; /* the whole verdict, resource by resource */
} AgentDecision;

typedef struct AgentDecisions {
        Ring ring; /* AgentDecision *, newest last */
        uint64_t last_id;
} AgentDecisions;

int agent_decisions_init(AgentDecisions *d, size_t capacity);
void agent_decisions_done(AgentDecisions *d);
/* A new decision, numbered and timed, for the caller to fill in; the
 * oldest is dropped from a full ring. NULL when out of memory. */
AgentDecision *agent_decisions_add(AgentDecisions *d);
/* Copies src into a decision's text field of size bytes, cut short and
 * as valid UTF-8, as D-Bus strings must be: a byte of no valid sequence
 * becomes '?' (a caller's argument may hold anything, and cutting it short
 * may split a character). */
void agent_decision_text(char *dst, size_t size, const char *src);
/* The i-th oldest decision numbered above since, NULL past the newest. */
const AgentDecision *agent_decisions_after(const AgentDecisions *d, uint64_t since, size_t i);

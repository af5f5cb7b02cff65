/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>

#include "common/time-util.h"

/* A rate an agent measures of a VM (steal, CPU use) and the realtime of
 * the sample that measured it; at 0: unknown. */
typedef struct AgentRate {
        double value;
        usec_t at;
} AgentRate;

/* The rate after a sample of the agent's received at now: its value when
 * the sample has it, measured at measured_at (the sample's age of the VM
 * before now: an agent keeps the values of a VM busy in a job, with their
 * age), unless old is newer; then the newer of the two while younger than
 * max_age, else unknown. An agent has no rate for a round whose stats call was too slow
 * to time it, or a VM's first: such a round says nothing of the rate, and
 * forgetting the last one made the controller fall back to the tracker's
 * steal, which is 0 in a TCG guest, in most rounds under contention. */
AgentRate agent_rate_next(AgentRate old, bool measured, double value, usec_t measured_at,
                          usec_t now, usec_t max_age);

/* SPDX-License-Identifier: MIT */
#include "agent-rate.h"

AgentRate agent_rate_next(AgentRate old, bool measured, double value, usec_t now, usec_t max_age) {
        if (measured)
                return (AgentRate){ .value = value, .at = now };
        if (old.at != 0 && now >= old.at && now - old.at <= max_age)
                return old;
        return (AgentRate){ 0 };
}

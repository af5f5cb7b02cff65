/* SPDX-License-Identifier: MIT */
#include "agent-rate.h"

AgentRate agent_rate_next(AgentRate old, bool measured, double value, usec_t measured_at,
                          usec_t now, usec_t max_age) {
        AgentRate r = old;

        if (measured && (old.at == 0 || measured_at >= old.at))
                r = (AgentRate){ .value = value, .at = measured_at };
        if (r.at != 0 && now >= r.at && now - r.at <= max_age)
                return r;
        return (AgentRate){ 0 };
}

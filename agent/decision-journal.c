/* SPDX-License-Identifier: MIT */
#include "decision-journal.h"

#include <stdlib.h>

#include "common/macro.h"

int agent_decisions_init(AgentDecisions *d, size_t capacity) {
        d->last_id = 0;
        return ring_init(&d->ring, capacity, free);
}

void agent_decisions_done(AgentDecisions *d) {
        if (d->ring.items)
                ring_done(&d->ring);
}

AgentDecision *agent_decisions_add(AgentDecisions *d) {
        AgentDecision *x = calloc(1, sizeof(*x));

        if (!x)
                return NULL;
        x->id = ++d->last_id;
        x->time = now_realtime_usec();
        x->uid = AGENT_UID_UNKNOWN;
        ring_push(&d->ring, x);
        return x;
}

const AgentDecision *agent_decisions_after(const AgentDecisions *d, uint64_t since, size_t i) {
        size_t n = ring_size(&d->ring);
        const AgentDecision *oldest = ring_get_newest(&d->ring, n > 0 ? n - 1 : 0);
        size_t skip;

        if (!oldest)
                return NULL;
        /* Ids are consecutive, so the ring's position of since + 1 is known. */
        skip = since >= oldest->id ? (size_t)MIN(since - oldest->id + 1, (uint64_t)n) : 0;
        if (i >= n - skip)
                return NULL;
        return ring_get_newest(&d->ring, n - 1 - skip - i);
}

/* SPDX-License-Identifier: MIT */
#include "guest-agent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "connection.h"
#include "proto/agent1.h"

int agent_guest_agent_init(AgentGuestAgent *g, const char *uri, usec_t timeout) {
        *g = (AgentGuestAgent){ .timeout = timeout };
        g->uri = strdup(uri);
        return g->uri ? 0 : -ENOMEM;
}

void agent_guest_agent_done(AgentGuestAgent *g) {
        g->conn = hv_connection_free(g->conn);
        free(g->uri);
        *g = (AgentGuestAgent){ 0 };
}

AgentGuestAgentState agent_guest_agent_state_from_errno(int r) {
        switch (r) {
        case -ENODEV:
                return AGENT_GUEST_AGENT_NONE;
        case -ETIMEDOUT:
                return AGENT_GUEST_AGENT_UNRESPONSIVE;
        case -EOPNOTSUPP:
                return AGENT_GUEST_AGENT_UNSUPPORTED;
        default:
                return r >= 0 ? AGENT_GUEST_AGENT_ANSWERED : AGENT_GUEST_AGENT_FAILED;
        }
}

const char *agent_guest_agent_state_to_string(AgentGuestAgentState s) {
        static const char *const names[] = {
                [AGENT_GUEST_AGENT_NOT_ASKED] = "",
                [AGENT_GUEST_AGENT_ANSWERED] = AGENT1_GUEST_AGENT_ANSWERED,
                [AGENT_GUEST_AGENT_NONE] = AGENT1_GUEST_AGENT_NONE,
                [AGENT_GUEST_AGENT_UNRESPONSIVE] = AGENT1_GUEST_AGENT_UNRESPONSIVE,
                [AGENT_GUEST_AGENT_UNSUPPORTED] = AGENT1_GUEST_AGENT_UNSUPPORTED,
                [AGENT_GUEST_AGENT_FAILED] = AGENT1_GUEST_AGENT_FAILED,
        };
        return s < ELEMENTSOF(names) ? names[s] : "?";
}

void agent_guest_agent_ask(AgentGuestAgent *g, AgentGuestQuery *queries, size_t n) {
        int r = agent_connect(&g->conn, g->uri);

        for (size_t i = 0; i < n; i++) {
                AgentGuestQuery *q = &queries[i];
                unsigned online = 0;
                int k = r < 0 ? r : hv_domain_guest_vcpus(g->conn, q->uuid, g->timeout, 0, &online);

                q->answer = (AgentGuestVcpus){
                        .state = agent_guest_agent_state_from_errno(k),
                        .online = k >= 0 ? online : 0,
                        .measured = agent_now(g->clock),
                };
                snprintf(q->message, sizeof(q->message), "%s",
                         k >= 0 ? "" : agent_hv_error(g->conn, k));
        }
}

int agent_guest_answers_take(AgentGuestAnswers *a, const AgentGuestQuery *q,
                             AgentGuestVcpus *ret_before) {
        AgentGuestVcpus before = { 0 };
        AgentGuestQuery *x = NULL;

        for (size_t i = 0; i < a->n && !x; i++)
                if (strcmp(a->items[i].uuid, q->uuid) == 0)
                        x = &a->items[i];
        if (x)
                before = x->answer;
        else {
                AgentGuestQuery *items = reallocarray(a->items, a->n + 1, sizeof(*items));

                if (!items)
                        return -ENOMEM;
                a->items = items;
                x = &a->items[a->n++];
        }
        *x = *q;
        if (ret_before)
                *ret_before = before;
        return 0;
}

void agent_guest_answers_stamp(AgentGuestAnswers *a, AgentSnapshot *s) {
        size_t kept = 0;

        for (size_t i = 0; i < a->n; i++) {
                bool found = false;

                for (size_t k = 0; k < s->n_domains && !found; k++)
                        if (strcmp(s->domains[k].uuid, a->items[i].uuid) == 0) {
                                s->domains[k].guest_vcpus = a->items[i].answer;
                                found = true;
                        }
                if (found)
                        a->items[kept++] = a->items[i];
        }
        a->n = kept;
}

void agent_guest_answers_done(AgentGuestAnswers *a) {
        free(a->items);
        *a = (AgentGuestAnswers){ 0 };
}

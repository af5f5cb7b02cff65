/* SPDX-License-Identifier: MIT */
#pragma once

/* The guest agent's count of a domain's vCPUs online (QEMU's guest agent,
 * through libvirt: hypervisor.h's hv_domain_guest_vcpus), which tells
 * whether a hot-added vCPU runs anything where libvirt only says it is
 * plugged. A guest agent may be absent, not listening or hung; libvirt then
 * waits for it (5 s for its first word, and by default without end for the
 * answer). So it is never asked on the sampling thread: the daemon asks on
 * a worker thread and a libvirt connection of its own, only about the
 * domains with a vCPU target to confirm (target-check.h), bounded by [agent]
 * guest-agent-timeout, and a question that fails is an answer too: the
 * count unknown, with the reason, never a guess. */

#include <stddef.h>

#include "collector.h"
#include "hypervisor/hypervisor.h"

/* The worker's side: its connection, opened on first use on its thread. */
typedef struct AgentGuestAgent {
        char *uri;
        HvConnection *conn;
        usec_t timeout; /* whole seconds, at least 1 */
        /* For tests: the clock of the answers' times. NULL: monotonic. */
        usec_t (*clock)(void);
} AgentGuestAgent;

int agent_guest_agent_init(AgentGuestAgent *g, const char *uri, usec_t timeout);
void agent_guest_agent_done(AgentGuestAgent *g);

/* One domain's question and, once asked, its answer. */
typedef struct AgentGuestQuery {
        char uuid[HV_UUID_STRING_MAX];
        char name[HV_NAME_MAX];
        AgentGuestVcpus answer;
        char message[256]; /* the hypervisor's words for a failure */
} AgentGuestQuery;

/* Asks the guest agent of each domain in turn, each within g's timeout
 * (as far as the hypervisor honours it), and fills in the answers. For the
 * worker thread: it blocks. */
void agent_guest_agent_ask(AgentGuestAgent *g, AgentGuestQuery *queries, size_t n);

/* What a failure of hv_domain_guest_vcpus (r < 0) says of the guest agent;
 * AGENT_GUEST_AGENT_ANSWERED for r >= 0. */
AgentGuestAgentState agent_guest_agent_state_from_errno(int r);
/* Agent1's word for s (AGENT1_GUEST_AGENT_*), "" for not asked. */
const char *agent_guest_agent_state_to_string(AgentGuestAgentState s);

/* The newest answer per domain, which the event loop keeps and stamps
 * into each sample before its targets are judged. */
typedef struct AgentGuestAnswers {
        AgentGuestQuery *items;
        size_t n;
} AgentGuestAnswers;

/* Keeps q's answer as its domain's newest; ret_before (NULL: not wanted)
 * gets the answer it replaces (state NOT_ASKED for none). -ENOMEM. */
int agent_guest_answers_take(AgentGuestAnswers *a, const AgentGuestQuery *q,
                             AgentGuestVcpus *ret_before);
/* Writes each domain's newest answer into its AgentDomain.guest_vcpus in s,
 * and forgets the answers of domains gone from s. */
void agent_guest_answers_stamp(AgentGuestAnswers *a, AgentSnapshot *s);
void agent_guest_answers_done(AgentGuestAnswers *a);

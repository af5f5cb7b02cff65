/* SPDX-License-Identifier: MIT */
#pragma once

/* The hosts whose agents (org.flexslot.Agent1) the controller talks to,
 * as [agents] hosts lists them, separated by spaces:
 *   local                     the local system bus
 *   unix:path=P, tcp:host=H,port=N, unixexec:...
 *                             a bus at an explicit D-Bus address
 *   ssh:[USER@]HOST           HOST's system bus over SSH, as systemctl -H
 *                             reaches it (sd_bus_open_system_remote)
 * Pure: parsing only, the connections are agent-link.c's. */

#include <stddef.h>

typedef enum AgentHostKind {
        AGENT_HOST_LOCAL,
        AGENT_HOST_ADDRESS,
        AGENT_HOST_SSH,
} AgentHostKind;

typedef struct AgentHost {
        AgentHostKind kind;
        char *name;   /* the entry as written: how logs and ListVms name the agent */
        char *target; /* the address, or [USER@]HOST; NULL for local */
} AgentHost;

#define AGENT_HOSTS_MAX 1024
#define AGENT_HOST_TEXT_MAX 512

/* Parses text (NULL or blank: no agents). -EINVAL with why (a sentence
 * naming the entry) for an entry of no known form, a second entry for one
 * host, or more than AGENT_HOSTS_MAX entries; -ENOMEM. */
int agent_hosts_parse(const char *text, AgentHost **ret, size_t *ret_n, char *why, size_t why_size);
void agent_hosts_free(AgentHost *hosts, size_t n);

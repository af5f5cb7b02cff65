/* SPDX-License-Identifier: MIT */
#pragma once

/* The YARN driver's configuration beyond plain keys ([yarn] in
 * conf/controller.ini): the ResourceManager's address and the map from
 * NodeManagers to their VMs. Pure: parsing only. */

#include <stdbool.h>
#include <stddef.h>

/* [yarn] nodes: "KEY=VM KEY=VM ...", KEY a NodeManager's node id
 * (host:port, as the ResourceManager names it) or its host name, VM its
 * libvirt domain's name or UUID, as the agents report them. */
typedef struct YarnNodeMapEntry {
        char *key, *vm;
} YarnNodeMapEntry;

#define YARN_NODE_MAP_MAX 10000

/* Parses text (NULL or blank: an empty map). -EINVAL with why naming the
 * entry for one not KEY=VM, a KEY or VM of other characters than letters,
 * digits and "_.:-[]" (VM also "+"), or longer than 255, a KEY given twice,
 * or more than YARN_NODE_MAP_MAX entries; -ENOMEM. */
int yarn_node_map_parse(const char *text, YarnNodeMapEntry **ret, size_t *ret_n, char *why,
                        size_t why_size);
void yarn_node_map_free(YarnNodeMapEntry *map, size_t n);

/* The VM of a NodeManager: the map's entry for its node id, else for its
 * host name, else NULL (the host name is then the domain's name). */
const char *yarn_node_map_find(const YarnNodeMapEntry *map, size_t n, const char *node_id,
                               const char *host);

/* Whether url is one the driver takes for the ResourceManager:
 * http:// or https://, a host, maybe a port and a path, no query, no
 * fragment, no user or password; why says what is wrong. */
bool yarn_url_valid(const char *url, char *why, size_t why_size);

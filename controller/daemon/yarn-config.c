/* SPDX-License-Identifier: MIT */
#include "yarn-config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"

#define ITEM_MAX 255

static bool item_ok(const char *s, size_t n, const char *extra) {
        if (n == 0 || n > ITEM_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!(('a' <= s[i] && s[i] <= 'z') || ('A' <= s[i] && s[i] <= 'Z') ||
                      ('0' <= s[i] && s[i] <= '9') || strchr("_.:-[]", s[i]) ||
                      strchr(extra, s[i])))
                        return false;
        return true;
}

void yarn_node_map_free(YarnNodeMapEntry *map, size_t n) {
        for (size_t i = 0; map && i < n; i++) {
                free(map[i].key);
                free(map[i].vm);
        }
        free(map);
}

int yarn_node_map_parse(const char *text, YarnNodeMapEntry **ret, size_t *ret_n, char *why,
                        size_t why_size) {
        YarnNodeMapEntry *map = NULL;
        size_t n = 0;
        const char *p = text ? text : "";

        for (;;) {
                size_t len, key_len;
                const char *eq;
                YarnNodeMapEntry *grown;

                p += strspn(p, " \t");
                if (!*p)
                        break;
                len = strcspn(p, " \t");
                eq = memchr(p, '=', len);
                key_len = eq ? (size_t)(eq - p) : 0;
                if (!eq || !item_ok(p, key_len, "") || !item_ok(eq + 1, len - key_len - 1, "+")) {
                        snprintf(why, why_size,
                                 "'%.*s' is not NODE=VM (a node id or host name, a domain name "
                                 "or UUID)",
                                 (int)MIN(len, (size_t)64), p);
                        goto refused;
                }
                for (size_t i = 0; i < n; i++)
                        if (strlen(map[i].key) == key_len && memcmp(map[i].key, p, key_len) == 0) {
                                snprintf(why, why_size, "'%s' is listed twice", map[i].key);
                                goto refused;
                        }
                if (n == YARN_NODE_MAP_MAX) {
                        snprintf(why, why_size, "more than %d entries", YARN_NODE_MAP_MAX);
                        goto refused;
                }
                grown = realloc(map, (n + 1) * sizeof(*map));
                if (!grown)
                        goto oom;
                map = grown;
                map[n] = (YarnNodeMapEntry){ strndup(p, key_len),
                                             strndup(eq + 1, len - key_len - 1) };
                n++;
                if (!map[n - 1].key || !map[n - 1].vm)
                        goto oom;
                p += len;
        }
        *ret = map;
        *ret_n = n;
        return 0;
oom:
        yarn_node_map_free(map, n);
        return -ENOMEM;
refused:
        yarn_node_map_free(map, n);
        return -EINVAL;
}

const char *yarn_node_map_find(const YarnNodeMapEntry *map, size_t n, const char *node_id,
                               const char *host) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(map[i].key, node_id) == 0)
                        return map[i].vm;
        for (size_t i = 0; host && i < n; i++)
                if (strcmp(map[i].key, host) == 0)
                        return map[i].vm;
        return NULL;
}

bool yarn_url_valid(const char *url, char *why, size_t why_size) {
        const char *rest, *host_end;

        if (strncmp(url, "http://", 7) == 0)
                rest = url + 7;
        else if (strncmp(url, "https://", 8) == 0)
                rest = url + 8;
        else {
                snprintf(why, why_size, "'%.64s' is not an http:// or https:// URL", url);
                return false;
        }
        if (strpbrk(url, "?#@ \t") || strlen(url) > 1024) {
                snprintf(why, why_size,
                         "'%.64s' has a query, a fragment, a user or a space, or is too long", url);
                return false;
        }
        host_end = rest + strcspn(rest, "/");
        if (host_end == rest || !item_ok(rest, (size_t)(host_end - rest), "")) {
                snprintf(why, why_size, "'%.64s' has no host[:port] after the scheme", url);
                return false;
        }
        return true;
}

/* SPDX-License-Identifier: MIT */
#include "agent-hosts.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"

/* The address forms sd-bus connects to, without a daemon to ask: what
 * sd_bus_set_address() would take is only known when it connects. */
static bool address_known(const char *s) {
        static const char *const prefixes[] = { "unix:path=", "unix:abstract=", "tcp:host=",
                                                "unixexec:path=" };

        for (size_t i = 0; i < ELEMENTSOF(prefixes); i++)
                if (strncmp(s, prefixes[i], strlen(prefixes[i])) == 0 &&
                    s[strlen(prefixes[i])] != '\0')
                        return true;
        return false;
}

/* [USER@]HOST: what ssh takes, without an option's leading dash. */
static bool ssh_target_ok(const char *s) {
        const char *host = strchr(s, '@');

        host = host ? host + 1 : s;
        if (s[0] == '\0' || s[0] == '-' || host[0] == '\0' || strchr(host, '@'))
                return false;
        for (const char *p = s; *p; p++)
                if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') ||
                      ('0' <= *p && *p <= '9') || strchr("@._-:[]%", *p)))
                        return false;
        return true;
}

static int entry_parse(const char *word, AgentHost *ret, char *why, size_t why_size) {
        AgentHost h = { .kind = AGENT_HOST_ADDRESS };
        const char *target = word;

        if (strlen(word) > AGENT_HOST_TEXT_MAX) {
                snprintf(why, why_size, "'%.32s...' is longer than %d characters", word,
                         AGENT_HOST_TEXT_MAX);
                return -EINVAL;
        }
        if (strcmp(word, "local") == 0) {
                h.kind = AGENT_HOST_LOCAL;
                target = NULL;
        } else if (strncmp(word, "ssh:", 4) == 0) {
                if (!ssh_target_ok(word + 4)) {
                        snprintf(why, why_size, "'%s' is not ssh:[USER@]HOST", word);
                        return -EINVAL;
                }
                h.kind = AGENT_HOST_SSH;
                target = word + 4;
        } else if (!address_known(word)) {
                snprintf(why, why_size,
                         "'%s' is neither local, ssh:[USER@]HOST nor a D-Bus address "
                         "(unix:path=, unix:abstract=, tcp:host=, unixexec:path=)",
                         word);
                return -EINVAL;
        }
        h.name = strdup(word);
        h.target = target ? strdup(target) : NULL;
        if (!h.name || (target && !h.target)) {
                free(h.name);
                free(h.target);
                return -ENOMEM;
        }
        *ret = h;
        return 0;
}

void agent_hosts_free(AgentHost *hosts, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(hosts[i].name);
                free(hosts[i].target);
        }
        free(hosts);
}

int agent_hosts_parse(const char *text, AgentHost **ret, size_t *ret_n, char *why,
                      size_t why_size) {
        _cleanup_free_ char *copy = strdup(text ? text : "");
        AgentHost *hosts = NULL;
        size_t n = 0;
        char *save = NULL;
        int r = 0;

        if (!copy)
                return -ENOMEM;
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                AgentHost *grown;

                if (n == AGENT_HOSTS_MAX) {
                        snprintf(why, why_size, "more than %d hosts", AGENT_HOSTS_MAX);
                        r = -EINVAL;
                        break;
                }
                grown = realloc(hosts, (n + 1) * sizeof(*hosts));
                if (!grown) {
                        r = -ENOMEM;
                        break;
                }
                hosts = grown;
                r = entry_parse(w, &hosts[n], why, why_size);
                if (r < 0)
                        break;
                n++;
                for (size_t i = 0; i + 1 < n; i++)
                        if (strcmp(hosts[i].name, w) == 0) {
                                snprintf(why, why_size, "'%s' is listed twice", w);
                                r = -EINVAL;
                        }
                if (r < 0)
                        break;
        }
        if (r < 0) {
                agent_hosts_free(hosts, n);
                return r;
        }
        *ret = hosts;
        *ret_n = n;
        return 0;
}

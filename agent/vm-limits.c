/* SPDX-License-Identifier: MIT */
#include "vm-limits.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/macro.h"
#include "common/parse.h"

/* Longest attribute name or value read; longer ones are refused. */
#define TOKEN_MAX 64

const char *agent_vm_limit_name(ActResource r, bool max) {
        switch (r) {
        case ACT_VCPUS:
                return max ? "max-vcpus" : "min-vcpus";
        case ACT_MEMORY:
                return max ? "max-memory" : "min-memory";
        case ACT_CPU_WEIGHT:
                return max ? "max-cpu-weight" : "min-cpu-weight";
        default:
                return NULL;
        }
}

static int why_set(char *why, size_t size, const char *fmt, ...) _printf_(3, 4);

static int why_set(char *why, size_t size, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        if (size > 0)
                vsnprintf(why, size, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* A resource's bound by its attribute name. */
static int limit_from_name(const char *name, ActResource *ret_r, bool *ret_max) {
        for (ActResource r = 0; r < _ACT_RESOURCE_MAX; r++)
                for (int max = 0; max <= 1; max++) {
                        const char *n = agent_vm_limit_name(r, max);

                        if (n && strcmp(n, name) == 0) {
                                *ret_r = r;
                                *ret_max = max;
                                return 0;
                        }
                }
        return -EINVAL;
}

static int value_parse(ActResource r, const char *s, uint64_t *ret) {
        if (r == ACT_MEMORY)
                return parse_size(s, ret);
        /* cpu_shares' and vCPUs' ranges as libvirt takes them. */
        return parse_uint64(s, 1, r == ACT_VCPUS ? 16384 : 262144, ret);
}

/* Copies the token of s up to one of stops (or the end) into buf; the
 * length read, or -EINVAL when it does not fit. */
static int token(const char *s, const char *stops, char *buf) {
        size_t n = strcspn(s, stops);

        if (n >= TOKEN_MAX)
                return -EINVAL;
        memcpy(buf, s, n);
        buf[n] = '\0';
        return (int)n;
}

int agent_vm_limits_parse(const char *xml, AgentVmLimits *ret, char *why, size_t size) {
        AgentVmLimits l = { 0 };
        const char *p = xml;
        char name[TOKEN_MAX], value[TOKEN_MAX];
        int n;

        if (!p || *p != '<')
                return why_set(why, size, "not an element");
        p += strcspn(p, " \t\r\n/>");
        for (;;) {
                ActResource r;
                bool max;
                char quote;

                p += strspn(p, " \t\r\n");
                if (*p == '/' || *p == '>')
                        break;
                n = token(p, "= \t\r\n/>", name);
                if (n <= 0 || p[n] != '=' || (p[n + 1] != '"' && p[n + 1] != '\''))
                        return why_set(why, size, "malformed attribute at '%.*s'", TOKEN_MAX, p);
                quote = p[n + 1];
                p += n + 2;
                n = token(p, (char[]){ quote, '\0' }, value);
                if (n < 0 || p[n] != quote)
                        return why_set(why, size, "%s: value too long or unterminated", name);
                p += n + 1;
                if (strncmp(name, "xmlns", 5) == 0)
                        continue;
                if (strcmp(name, AGENT_VM_MANAGE_ATTRIBUTE) == 0) {
                        bool manage;

                        if (parse_bool(value, &manage) < 0)
                                return why_set(why, size, "%s: '%s' is neither yes nor no", name,
                                               value);
                        l.unmanaged = !manage;
                        continue;
                }
                if (limit_from_name(name, &r, &max) < 0)
                        return why_set(why, size, "unknown attribute '%s'", name);
                if (value_parse(r, value, max ? &l.max[r] : &l.min[r]) < 0)
                        return why_set(why, size, "%s: '%s' is not a valid %s", name, value,
                                       r == ACT_MEMORY ? "size" : "count");
                if (max)
                        l.has_max |= ACT_BIT(r);
                else
                        l.has_min |= ACT_BIT(r);
        }
        if (*p != '>' && strncmp(p, "/>", 2) != 0)
                return why_set(why, size, "malformed element end");
        for (ActResource r = 0; r < _ACT_RESOURCE_MAX; r++)
                if ((l.has_min & l.has_max & ACT_BIT(r)) && l.min[r] > l.max[r])
                        return why_set(why, size, "%s %s is above %s %s",
                                       agent_vm_limit_name(r, false), ACT_VALUE(r, l.min[r]),
                                       agent_vm_limit_name(r, true), ACT_VALUE(r, l.max[r]));
        *ret = l;
        return 0;
}

int agent_vm_limits_apply(const AgentVmLimits *vm, const ActLimits *agent, ActLimits *ret,
                          unsigned *ret_narrowed_floor, unsigned *ret_narrowed_ceiling) {
        ActLimits l = *agent;
        unsigned floors = 0, ceilings = 0;
        int r = 0;

        for (ActResource k = 0; k < _ACT_RESOURCE_MAX; k++) {
                ActResourceLimits *rl = &l.r[k];

                if ((vm->has_min & ACT_BIT(k)) && vm->min[k] > rl->floor) {
                        rl->floor = vm->min[k];
                        floors |= ACT_BIT(k);
                }
                if ((vm->has_max & ACT_BIT(k)) && vm->max[k] < rl->ceiling) {
                        rl->ceiling = vm->max[k];
                        ceilings |= ACT_BIT(k);
                }
                if (rl->floor > rl->ceiling)
                        r = -ERANGE;
        }
        *ret = l;
        *ret_narrowed_floor = floors;
        *ret_narrowed_ceiling = ceilings;
        return r;
}

/* SPDX-License-Identifier: MIT */
#include "target-check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "proto/agent1.h"

#define KIB 1024ULL
/* The balloon moves in 4K pages, and a target is a multiple of 1K: a
 * target between two pages is met by either. */
#define BALLOON_PAGE (4 * KIB)

int agent_target_expect(AgentTargetChecks *c, const char *uuid, const char *name,
                        ActResource resource, uint64_t target, usec_t due, uint64_t decision) {
        AgentTargetCheck *x = NULL;

        for (size_t i = 0; i < c->n && !x; i++)
                if (c->items[i].resource == resource && strcmp(c->items[i].uuid, uuid) == 0)
                        x = &c->items[i];
        if (!x) {
                AgentTargetCheck *items = reallocarray(c->items, c->n + 1, sizeof(*items));

                if (!items)
                        return -ENOMEM;
                c->items = items;
                x = &c->items[c->n++];
        }
        *x = (AgentTargetCheck){
                .resource = resource,
                .target = target,
                .due = due,
                .decision = decision,
                .state = AGENT_TARGET_PENDING,
        };
        snprintf(x->uuid, sizeof(x->uuid), "%s", uuid);
        snprintf(x->name, sizeof(x->name), "%s", name);
        return 0;
}

static bool target_met(const AgentTargetCheck *x, uint64_t seen) {
        if (x->resource == ACT_MEMORY)
                return (seen > x->target ? seen - x->target : x->target - seen) < BALLOON_PAGE;
        return seen == x->target;
}

/* The value of x's resource that d shows, measured at or after x's due
 * time; false when there is none yet. */
static bool seen_after_due(const AgentTargetCheck *x, const AgentDomain *d, uint64_t *ret) {
        unsigned bit = x->resource == ACT_VCPUS ? HV_METRIC_VCPUS : HV_METRIC_MEMORY;
        unsigned kind = (unsigned)__builtin_ctz(bit);

        if (!(d->metrics.valid & bit) || d->measured[kind] < x->due)
                return false;
        *ret = x->resource == ACT_VCPUS ? d->metrics.vcpus_current : d->metrics.memory_kib * KIB;
        return true;
}

/* The vCPUs online that d's guest agent counted after x's due time. */
static bool guest_seen_after_due(const AgentTargetCheck *x, const AgentDomain *d, uint64_t *ret) {
        const AgentGuestVcpus *g = &d->guest_vcpus;

        if (x->resource != ACT_VCPUS || g->state != AGENT_GUEST_AGENT_ANSWERED ||
            g->measured < x->due)
                return false;
        *ret = g->online;
        return true;
}

static bool settled(const AgentTargetCheck *x) {
        return x->state == AGENT_TARGET_REACHED &&
               (x->resource != ACT_VCPUS || x->source == AGENT_SOURCE_GUEST_AGENT);
}

/* The count that judges x now, in *ret, and whose it is; NONE for no new
 * judgement. The guest's own count first; the hypervisor's does not undo a
 * target shown reached. */
static AgentTargetSource count_to_judge(const AgentTargetCheck *x, const AgentDomain *d,
                                        uint64_t *ret) {
        if (settled(x))
                return AGENT_SOURCE_NONE;
        if (guest_seen_after_due(x, d, ret))
                return AGENT_SOURCE_GUEST_AGENT;
        if (x->state != AGENT_TARGET_REACHED && seen_after_due(x, d, ret))
                return AGENT_SOURCE_HYPERVISOR;
        return AGENT_SOURCE_NONE;
}

void agent_target_checks_judge(AgentTargetChecks *c, const AgentSnapshot *s,
                               void (*report)(const AgentTargetCheck *check, void *userdata),
                               void *userdata) {
        size_t kept = 0;

        for (size_t i = 0; i < c->n; i++) {
                AgentTargetCheck *x = &c->items[i];
                const AgentDomain *d = agent_snapshot_find(s, x->uuid);
                AgentTargetSource source;
                uint64_t seen = 0;

                if (!d)
                        continue;
                if (x->resource == ACT_VCPUS && d->guest_vcpus.measured >= x->due)
                        x->guest_agent = d->guest_vcpus.state;
                source = count_to_judge(x, d, &seen);
                if (source != AGENT_SOURCE_NONE) {
                        AgentTargetState state =
                                target_met(x, seen) ? AGENT_TARGET_REACHED : AGENT_TARGET_UNREACHED;

                        x->seen = seen;
                        if (state != x->state || source != x->source) {
                                x->state = state;
                                x->source = source;
                                report(x, userdata);
                        }
                }
                c->items[kept++] = *x;
        }
        c->n = kept;
}

static bool guest_due(const AgentTargetCheck *x, usec_t now) {
        return x->resource == ACT_VCPUS && !settled(x) && now >= x->due &&
               x->guest_agent != AGENT_GUEST_AGENT_NONE &&
               x->guest_agent != AGENT_GUEST_AGENT_UNSUPPORTED &&
               (x->guest_asked == 0 || now - x->guest_asked >= AGENT_GUEST_AGENT_RETRY);
}

int agent_target_checks_guest_queries(AgentTargetChecks *c, usec_t now, AgentGuestQuery **ret,
                                      size_t *ret_n) {
        AgentGuestQuery *queries;
        size_t n = 0, k = 0;

        for (size_t i = 0; i < c->n; i++)
                n += guest_due(&c->items[i], now);
        if (n == 0) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        queries = calloc(n, sizeof(*queries));
        if (!queries)
                return -ENOMEM;
        for (size_t i = 0; i < c->n; i++) {
                AgentTargetCheck *x = &c->items[i];

                if (!guest_due(x, now))
                        continue;
                snprintf(queries[k].uuid, sizeof(queries[k].uuid), "%s", x->uuid);
                snprintf(queries[k].name, sizeof(queries[k].name), "%s", x->name);
                k++;
                x->guest_asked = now;
        }
        *ret = queries;
        *ret_n = n;
        return 0;
}

void agent_target_checks_stamp(const AgentTargetChecks *c, AgentSnapshot *s) {
        for (size_t i = 0; i < c->n; i++) {
                const AgentTargetCheck *x = &c->items[i];

                for (size_t k = 0; k < s->n_domains; k++) {
                        AgentDomain *d = &s->domains[k];

                        if (strcmp(d->uuid, x->uuid) != 0)
                                continue;
                        if (x->resource == ACT_VCPUS) {
                                d->vcpus_target = x->state;
                                d->vcpus_target_source = x->source;
                        } else
                                d->memory_target = x->state;
                }
        }
}

void agent_target_checks_done(AgentTargetChecks *c) {
        free(c->items);
        *c = (AgentTargetChecks){ 0 };
}

const char *agent_target_state_to_string(AgentTargetState s) {
        static const char *const names[] = {
                [AGENT_TARGET_NONE] = "",
                [AGENT_TARGET_PENDING] = AGENT1_TARGET_PENDING,
                [AGENT_TARGET_REACHED] = AGENT1_TARGET_REACHED,
                [AGENT_TARGET_UNREACHED] = AGENT1_TARGET_UNREACHED,
        };
        return s < ELEMENTSOF(names) ? names[s] : "?";
}

const char *agent_target_source_to_string(AgentTargetSource s) {
        static const char *const names[] = {
                [AGENT_SOURCE_NONE] = "",
                [AGENT_SOURCE_HYPERVISOR] = AGENT1_SOURCE_HYPERVISOR,
                [AGENT_SOURCE_GUEST_AGENT] = AGENT1_SOURCE_GUEST_AGENT,
        };
        return s < ELEMENTSOF(names) ? names[s] : "?";
}

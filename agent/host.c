/* SPDX-License-Identifier: MIT */
#include "host.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-errors.h"
#include "common/log.h"
#include "common/macro.h"

#define KIB 1024ULL

const AgentDomain *agent_snapshot_find(const AgentSnapshot *s, const char *domain) {
        if (!s || !domain)
                return NULL;
        for (size_t i = 0; i < s->n_domains; i++)
                if (strcmp(s->domains[i].name, domain) == 0 ||
                    strcasecmp(s->domains[i].uuid, domain) == 0)
                        return &s->domains[i];
        return NULL;
}

int agent_host_init(AgentHost *h, const char *uri, const AgentLimits *limits, bool dry_run,
                    bool allow_vcpu_unplug) {
        *h = (AgentHost){ .limits = *limits,
                          .dry_run = dry_run,
                          .allow_vcpu_unplug = allow_vcpu_unplug };
        h->uri = strdup(uri);
        return h->uri ? 0 : -ENOMEM;
}

void agent_host_done(AgentHost *h) {
        h->conn = hv_connection_free(h->conn);
        free(h->uri);
        free(h->prev);
        free(h->latest);
        free(h->changes);
        *h = (AgentHost){ 0 };
}

static usec_t host_now(const AgentHost *h) {
        return h->clock ? h->clock() : now_monotonic_usec();
}

/* The connection is opened on first use, so that it belongs to the thread
 * that uses it, and lazily, so that the agent starts before libvirtd. */
static int host_connect(AgentHost *h) {
        int r;

        if (h->conn)
                return 0;
        r = hv_connection_open(h->uri, NULL, HV_CONNECT_LAZY, &h->conn);
        if (r < 0)
                return log_error_errno(r, "Cannot open hypervisor connection %s", h->uri);
        return 0;
}

static const char *host_error(const AgentHost *h, int r) {
        const char *e = h->conn ? hv_connection_get_last_error(h->conn) : "";
        return e && *e ? e : strerror(-r);
}

/* Drivers without vCPU or balloon counters (libvirt's test driver, a
 * hypervisor without a balloon device) still report the configured values. */
static void fill_from_info(AgentHost *h, AgentDomain *d) {
        HvDomainMetrics *m = &d->metrics;
        HvDomainInfo info;
        int r;

        if ((m->valid & HV_METRIC_VCPUS) && (m->valid & HV_METRIC_MEMORY))
                return;
        if (m->state == HV_STATE_SHUTOFF)
                return;
        r = hv_domain_get_info(h->conn, d->uuid[0] ? d->uuid : d->name, 0, &info);
        if (r < 0) {
                log_debug_errno(r, "No info for %s: %s", d->name, host_error(h, r));
                return;
        }
        if (!(m->valid & HV_METRIC_VCPUS)) {
                m->vcpus_current = info.vcpus_current;
                m->vcpus_max = info.vcpus_max;
                m->valid |= HV_METRIC_VCPUS;
        }
        if (!(m->valid & HV_METRIC_MEMORY)) {
                m->memory_kib = info.memory_kib;
                m->memory_max_kib = info.memory_max_kib;
                m->valid |= HV_METRIC_MEMORY;
        }
}

int agent_host_sample(AgentHost *h, AgentSnapshot **ret) {
        _cleanup_free_ HvDomainSample *samples = NULL;
        _cleanup_free_ HvDomainMetrics *metrics = NULL;
        _cleanup_free_ AgentSnapshot *snap = NULL, *copy = NULL;
        size_t n = 0, size;
        int r;

        r = host_connect(h);
        if (r < 0)
                return r;
        r = hv_sample_all(h->conn, 0, &samples, &n);
        if (r < 0) {
                log_full_errno(h->sample_failing ? LOG_LEVEL_DEBUG : LOG_LEVEL_WARNING, r,
                               "Sampling %s failed: %s", h->uri, host_error(h, r));
                h->sample_failing = true;
                return r;
        }
        if (h->sample_failing)
                log_notice("Sampling %s works again", h->uri);
        h->sample_failing = false;

        metrics = calloc(MAX(n, (size_t)1), sizeof(*metrics));
        if (!metrics)
                return log_oom();
        /* Pairs each domain with its previous sample by sorting, not by a
         * search per domain: a pass must stay flat per domain on hosts with
         * thousands of them. */
        r = hv_metrics_derive_all(h->prev, h->n_prev, samples, n, metrics);
        if (r < 0)
                return r;

        size = sizeof(AgentSnapshot) + n * sizeof(AgentDomain);
        snap = calloc(1, size);
        copy = malloc(size);
        if (!snap || !copy)
                return log_oom();
        snap->realtime = now_realtime_usec();
        snap->n_domains = n;
        for (size_t i = 0; i < n; i++) {
                AgentDomain *d = &snap->domains[i];

                memcpy(d->name, samples[i].name, sizeof(d->name));
                memcpy(d->uuid, samples[i].uuid, sizeof(d->uuid));
                d->metrics = metrics[i];
                fill_from_info(h, d);
        }

        /* The worker keeps its own copy: the loop frees its snapshots as
         * they leave the history. */
        memcpy(copy, snap, size);
        free(h->latest);
        h->latest = TAKE_PTR(copy);
        free(h->prev);
        h->prev = TAKE_PTR(samples);
        h->n_prev = n;
        *ret = TAKE_PTR(snap);
        return 0;
}

static bool state_is_live(HvDomainState s) {
        return s == HV_STATE_RUNNING || s == HV_STATE_BLOCKED || s == HV_STATE_PAUSED;
}

/* What the host's running VMs hold of one resource, with this domain at
 * its current value rather than the one of the last sample. */
static uint64_t host_used(const AgentHost *h, const char *uuid, SafetyResource r,
                          uint64_t current) {
        uint64_t used = current;

        if (!h->latest)
                return used;
        for (size_t i = 0; i < h->latest->n_domains; i++) {
                const AgentDomain *d = &h->latest->domains[i];
                if (strcmp(d->uuid, uuid) == 0 || !state_is_live(d->metrics.state))
                        continue;
                used += r == SAFETY_VCPUS ? d->metrics.vcpus_current
                                          : d->metrics.memory_kib * KIB;
        }
        return used;
}

static AgentChangeRecord *change_record_find(AgentHost *h, const char *uuid) {
        for (size_t i = 0; i < h->n_changes; i++)
                if (strcmp(h->changes[i].uuid, uuid) == 0)
                        return &h->changes[i];
        return NULL;
}

static int change_record_set(AgentHost *h, const char *uuid, usec_t when) {
        AgentChangeRecord *rec = change_record_find(h, uuid), *grown;

        if (rec) {
                rec->when = when;
                return 0;
        }
        /* Records older than the rate limit mean nothing any more; dropping
         * them bounds the table by the domains changed in one interval. */
        for (size_t i = 0; i < h->n_changes;)
                if (when - h->changes[i].when >= h->limits.min_interval)
                        h->changes[i] = h->changes[--h->n_changes];
                else
                        i++;
        grown = reallocarray(h->changes, h->n_changes + 1, sizeof(*grown));
        if (!grown)
                return -ENOMEM;
        h->changes = grown;
        rec = &h->changes[h->n_changes++];
        memcpy(rec->uuid, uuid, sizeof(rec->uuid));
        rec->when = when;
        return 0;
}

static int change_failed(AgentHost *h, AgentChange *c, int r, const char *fmt, ...)
        _printf_(4, 5);

static int change_failed(AgentHost *h, AgentChange *c, int r, const char *fmt, ...) {
        va_list ap;

        c->status = AGENT_CHANGE_FAILED;
        c->error = r;
        if (fmt) {
                va_start(ap, fmt);
                vsnprintf(c->message, sizeof(c->message), fmt, ap);
                va_end(ap);
        } else
                snprintf(c->message, sizeof(c->message), "%s", host_error(h, r));
        return 0;
}

static int read_current(const AgentChange *c, const HvDomainInfo *info,
                        uint64_t *ret_current, uint64_t *ret_max) {
        switch (c->resource) {
        case SAFETY_VCPUS:
                *ret_current = info->vcpus_current;
                *ret_max = info->vcpus_max;
                return 0;
        case SAFETY_MEMORY:
                *ret_current = info->memory_kib * KIB;
                *ret_max = info->memory_max_kib * KIB;
                return 0;
        default:
                if (!(info->fields & HV_INFO_CPU_WEIGHT))
                        return -EOPNOTSUPP;
                *ret_current = info->cpu_shares;
                *ret_max = 0;
                return 0;
        }
}

static int apply(AgentHost *h, const AgentChange *c, const char *uuid, uint64_t *ret_after) {
        unsigned vcpus;
        uint64_t v;
        int r;

        switch (c->resource) {
        case SAFETY_VCPUS:
                r = hv_domain_set_vcpus(h->conn, uuid, (unsigned)c->requested,
                                        h->allow_vcpu_unplug ? HV_VCPUS_ALLOW_UNPLUG : 0, &vcpus);
                v = vcpus;
                break;
        case SAFETY_MEMORY:
                r = hv_domain_set_memory(h->conn, uuid, c->requested / KIB, 0, &v);
                v *= KIB;
                break;
        default:
                r = hv_domain_set_cpu_weight(h->conn, uuid, c->requested, 0, &v);
                break;
        }
        if (r >= 0)
                *ret_after = v;
        return r;
}

int agent_host_change(AgentHost *h, AgentChange *c) {
        const char *what = safety_resource_to_string(c->resource);
        AgentChangeRecord *rec;
        SafetyRequest req;
        HvDomainInfo info;
        uint64_t current, domain_max, after = 0;
        int r;

        r = host_connect(h);
        if (r < 0)
                return change_failed(h, c, -ENOTCONN, "cannot open %s", h->uri);
        r = hv_domain_get_info(h->conn, c->domain, 0, &info);
        if (r == -ENOENT) {
                char text[sizeof(c->domain) + 16];
                return change_failed(h, c, r, "%s",
                                     agent_error_no_domain(text, sizeof(text), c->domain));
        }
        if (r < 0)
                return change_failed(h, c, r, NULL);
        memcpy(c->name, info.name, sizeof(c->name));
        if (!state_is_live(info.state))
                return change_failed(h, c, -ESRCH, "domain %s is %s; live changes need it running",
                                     info.name, hv_domain_state_to_string(info.state));
        r = read_current(c, &info, &current, &domain_max);
        if (r < 0)
                return change_failed(h, c, r, "the hypervisor reports no %s for %s", what,
                                     info.name);

        rec = change_record_find(h, info.uuid);
        req = (SafetyRequest){
                .resource = c->resource,
                .current = current,
                .requested = c->requested,
                .domain_max = domain_max,
                .host_used = host_used(h, info.uuid, c->resource, current),
                .changed_before = rec != NULL,
                .last_change = rec ? rec->when : 0,
                .now = host_now(h),
        };
        c->before = c->after = current;
        c->verdict = safety_check(&h->limits, &req, c->message, sizeof(c->message));
        if (c->verdict == SAFETY_NO_CHANGE) {
                c->status = AGENT_CHANGE_UNCHANGED;
                return 0;
        }
        if (c->verdict != SAFETY_APPLY) {
                c->status = AGENT_CHANGE_REFUSED;
                return 0;
        }
        if (h->dry_run) {
                c->status = AGENT_CHANGE_DRY_RUN;
                return 0;
        }

        r = apply(h, c, info.uuid, &after);
        if (r < 0)
                return change_failed(h, c, r, NULL);
        /* Counted even if the read-back differs: the domain was touched. */
        r = change_record_set(h, info.uuid, req.now);
        if (r < 0)
                return r;
        c->status = AGENT_CHANGE_APPLIED;
        c->after = after;
        return 0;
}

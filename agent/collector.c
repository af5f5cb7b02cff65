/* SPDX-License-Identifier: MIT */
#include "collector.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/format.h"
#include "common/log.h"
#include "connection.h"
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

unsigned agent_snapshot_guest_memory(const AgentSnapshot *s, const char *domain) {
        const AgentDomain *d = agent_snapshot_find(s, domain);

        return d ? d->guest_memory : 0;
}

unsigned agent_guest_memory(const HvDomainSample *prev, const HvDomainSample *cur) {
        unsigned both = prev ? prev->fields & cur->fields : 0, g = 0;

        if ((both & HV_FIELD_BALLOON_GUEST) && (both & HV_FIELD_BALLOON_UPDATE) &&
            cur->balloon_last_update > prev->balloon_last_update)
                g |= AGENT_GUEST_STATS_FRESH;
        if ((both & HV_FIELD_BALLOON_PRESSURE) &&
            (cur->balloon_major_faults > prev->balloon_major_faults ||
             cur->balloon_swap_in_kib > prev->balloon_swap_in_kib))
                g |= AGENT_GUEST_PRESSURE_RISING;
        return g;
}

void agent_snapshot_others(const AgentSnapshot *s, const char *domain, uint64_t *ret_vcpus,
                           uint64_t *ret_memory) {
        const AgentDomain *self = agent_snapshot_find(s, domain);
        uint64_t vcpus = 0, memory = 0;

        for (size_t i = 0; s && i < s->n_domains; i++) {
                const AgentDomain *d = &s->domains[i];

                if (d == self || !hv_domain_state_is_live(d->metrics.state))
                        continue;
                vcpus += d->metrics.vcpus_current;
                memory += d->metrics.memory_kib * KIB;
        }
        *ret_vcpus = vcpus;
        *ret_memory = memory;
}

uint64_t agent_cap_from_quota(int64_t quota_usec, uint64_t period_usec, unsigned vcpus) {
        uint64_t milli;

        if (quota_usec <= 0 || period_usec == 0)
                return ACT_CAP_NONE;
        milli = ((uint64_t)quota_usec * vcpus * ACT_MILLI + period_usec / 2) / period_usec;
        return MAX(milli, (uint64_t)1);
}

uint64_t agent_cap_from_quotas(int64_t global_quota_usec, uint64_t global_period_usec,
                               int64_t vcpu_quota_usec, uint64_t vcpu_period_usec, unsigned vcpus) {
        return MIN(agent_cap_from_quota(global_quota_usec, global_period_usec, 1),
                   agent_cap_from_quota(vcpu_quota_usec, vcpu_period_usec, vcpus));
}

uint64_t agent_cap_from_info(const HvDomainInfo *info) {
        bool global = info->fields & HV_INFO_GLOBAL_QUOTA, vcpu = info->fields & HV_INFO_QUOTA;

        return agent_cap_from_quotas(global ? info->global_quota_usec : 0,
                                     global ? info->global_period_usec : 0,
                                     vcpu ? info->vcpu_quota_usec : 0,
                                     vcpu ? info->vcpu_period_usec : 0, info->vcpus_current);
}

uint64_t agent_domain_cpu_cap(const AgentDomain *d) {
        return agent_cap_from_quotas(d->global_quota_usec, d->global_period_usec,
                                     d->vcpu_quota_usec, d->vcpu_period_usec,
                                     d->metrics.vcpus_current);
}

int agent_collector_init(AgentCollector *c, const char *uri) {
        *c = (AgentCollector){ 0 };
        c->uri = strdup(uri);
        return c->uri ? 0 : -ENOMEM;
}

void agent_collector_done(AgentCollector *c) {
        c->conn = hv_connection_free(c->conn);
        free(c->uri);
        free(c->prev);
        free(c->latest);
        *c = (AgentCollector){ 0 };
}

/* A domain in an index of the previous snapshot. */
typedef struct DomainRef {
        const AgentDomain *d;
} DomainRef;

/* The previous sample of a domain is found by UUID and name together: a
 * renamed or re-created domain has its settings read again. */
static int domain_compare(const AgentDomain *x, const AgentDomain *y) {
        int r = strcmp(x->uuid, y->uuid);

        return r != 0 ? r : strcmp(x->name, y->name);
}

static int ref_compare(const void *a, const void *b) {
        return domain_compare(((const DomainRef *)a)->d, ((const DomainRef *)b)->d);
}

/* The previous snapshot's domains, for finding a domain's previous sample:
 * at the same place (libvirt mostly answers in the same order), else by a
 * search in an index sorted on first need, so that a pass stays flat per
 * domain on hosts with thousands of them. */
typedef struct Before {
        const AgentSnapshot *snap;
        DomainRef *sorted;
} Before;

static const AgentDomain *before_find(Before *b, const AgentDomain *d, size_t i) {
        const DomainRef key = { d }, *found;
        size_t n = b->snap ? b->snap->n_domains : 0;

        if (i < n && domain_compare(&b->snap->domains[i], d) == 0)
                return &b->snap->domains[i];
        if (n == 0)
                return NULL;
        if (!b->sorted) {
                b->sorted = calloc(n, sizeof(*b->sorted));
                if (!b->sorted)
                        return NULL; /* the settings are read again */
                for (size_t k = 0; k < n; k++)
                        b->sorted[k].d = &b->snap->domains[k];
                qsort(b->sorted, n, sizeof(*b->sorted), ref_compare);
        }
        found = bsearch(&key, b->sorted, n, sizeof(*b->sorted), ref_compare);
        return found ? found->d : NULL;
}

static bool is_stale(const AgentStale *stale, const char *uuid) {
        for (size_t i = 0; stale && i < stale->n; i++)
                if (strcasecmp(stale->uuids[i], uuid) == 0)
                        return true;
        return false;
}

int agent_stale_add(AgentStale *s, const char *uuid) {
        char(*grown)[HV_UUID_STRING_MAX];

        grown = reallocarray(s->uuids, s->n + 1, sizeof(*grown));
        if (!grown)
                return -ENOMEM;
        s->uuids = grown;
        snprintf(s->uuids[s->n++], sizeof(*grown), "%s", uuid);
        return 0;
}

void agent_stale_drop(AgentStale *s, size_t n) {
        n = MIN(n, s->n);
        if (n == 0)
                return;
        memmove(s->uuids, s->uuids + n, (s->n - n) * sizeof(*s->uuids));
        s->n -= n;
}

int agent_stale_copy(const AgentStale *s, AgentStale *ret) {
        AgentStale copy = { 0 };

        if (s->n > 0) {
                copy.uuids = calloc(s->n, sizeof(*copy.uuids));
                if (!copy.uuids)
                        return -ENOMEM;
                memcpy(copy.uuids, s->uuids, s->n * sizeof(*copy.uuids));
                copy.n = s->n;
        }
        *ret = copy;
        return 0;
}

void agent_stale_done(AgentStale *s) {
        free(s->uuids);
        *s = (AgentStale){ 0 };
}

static void take_settings(AgentDomain *d, const HvDomainInfo *info, usec_t now) {
        d->settings = 0;
        d->vcpu_quota_usec = d->global_quota_usec = 0;
        if (info->fields & HV_INFO_CPU_WEIGHT) {
                d->cpu_weight = info->cpu_shares;
                d->settings |= AGENT_SETTING_CPU_WEIGHT;
        }
        if (info->fields & HV_INFO_QUOTA) {
                d->vcpu_quota_usec = info->vcpu_quota_usec;
                d->vcpu_period_usec = info->vcpu_period_usec;
                d->settings |= AGENT_SETTING_CPU_CAP;
        }
        if (info->fields & HV_INFO_GLOBAL_QUOTA) {
                d->global_quota_usec = info->global_quota_usec;
                d->global_period_usec = info->global_period_usec;
                d->settings |= AGENT_SETTING_CPU_CAP;
        }
        d->settings_read = now;
}

/* Fills what the bulk call left out: the settings, carried over from the
 * previous sample while they are fresh, and the vCPUs and memory of drivers
 * without those counters (libvirt's test driver, a hypervisor without a
 * balloon device), which still report the configured values. */
static void fill_from_info(AgentCollector *c, AgentDomain *d, const AgentDomain *before, bool stale,
                           usec_t now) {
        HvDomainMetrics *m = &d->metrics;
        bool live = hv_domain_state_is_live(m->state), settings_due = live;
        HvDomainInfo info;
        int r;

        d->first_seen = before ? before->first_seen : now;
        if (live && before && !stale) {
                d->settings = before->settings;
                d->cpu_weight = before->cpu_weight;
                d->vcpu_quota_usec = before->vcpu_quota_usec;
                d->vcpu_period_usec = before->vcpu_period_usec;
                d->global_quota_usec = before->global_quota_usec;
                d->global_period_usec = before->global_period_usec;
                d->settings_read = before->settings_read;
                settings_due = now - before->settings_read >= AGENT_SETTINGS_MAX_AGE ||
                               (d->settings != AGENT_SETTINGS_ALL &&
                                now - d->first_seen < AGENT_SETTINGS_MAX_AGE);
        }
        if (!settings_due && (m->valid & HV_METRIC_VCPUS) && (m->valid & HV_METRIC_MEMORY))
                return;
        if (m->state == HV_STATE_SHUTOFF)
                return;
        r = hv_domain_get_info(c->conn, d->uuid[0] ? d->uuid : d->name, 0, &info);
        if (r < 0) {
                log_debug_errno(r, "No info for %s: %s", d->name, agent_hv_error(c->conn, r));
                /* Not again before the settings are due anyway (a new
                 * domain's: at the next sample). */
                if (settings_due)
                        d->settings_read = now;
                return;
        }
        /* Read anyway: fresh settings cost nothing more. */
        if (live)
                take_settings(d, &info, now);
        if (live && before && before->settings != AGENT_SETTINGS_ALL &&
            d->settings == AGENT_SETTINGS_ALL)
                log_info("Domain %s: libvirt has its CPU weight and cap %s after it was first seen",
                         d->name, FORMAT_DURATION(now - d->first_seen));
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

/* The counters whose absence from a live domain's answer, after a round
 * that had them, means the bulk call skipped what needs the domain's job. */
#define SKIPPABLE_FIELDS                                                                      \
        (HV_FIELD_CPU_TIME | HV_FIELD_VCPU_COUNT | HV_FIELD_VCPU_DELAY | HV_FIELD_VCPU_TIME | \
         HV_FIELD_BALLOON | HV_FIELD_BALLOON_GUEST)

static_assert(HV_METRIC_MEMORY_GUEST == 1u << (AGENT_METRIC_KINDS - 1),
              "AGENT_METRIC_KINDS counts the HvMetricValid bits");

/* Copies the metric of kind bit from src to dest. */
static void metric_copy(HvDomainMetrics *dest, const HvDomainMetrics *src, unsigned bit) {
        switch (bit) {
        case HV_METRIC_STATE:
                dest->state = src->state;
                break;
        case HV_METRIC_STEAL:
                dest->steal = src->steal;
                break;
        case HV_METRIC_CPU_USE:
                dest->cpu_use = src->cpu_use;
                break;
        case HV_METRIC_VCPUS:
                dest->vcpus_current = src->vcpus_current;
                dest->vcpus_max = src->vcpus_max;
                break;
        case HV_METRIC_MEMORY:
                dest->memory_kib = src->memory_kib;
                dest->memory_max_kib = src->memory_max_kib;
                break;
        default:
                dest->memory_unused_kib = src->memory_unused_kib;
                dest->memory_available_kib = src->memory_available_kib;
        }
        dest->valid |= bit;
}

/* Stamps what this round measured of d, and keeps what it did not from
 * before, with its time, while the domain stays live: a shut-off domain's
 * rates and guest figures are unknown, not its last ones. */
static void keep_unmeasured(AgentDomain *d, const AgentDomain *before, usec_t now) {
        bool carry = before && hv_domain_state_is_live(d->metrics.state) &&
                     hv_domain_state_is_live(before->metrics.state);
        usec_t oldest = now;

        for (unsigned k = 0; k < AGENT_METRIC_KINDS; k++) {
                unsigned bit = 1u << k;

                if (d->metrics.valid & bit)
                        d->measured[k] = now;
                else if (carry && (before->metrics.valid & bit)) {
                        metric_copy(&d->metrics, &before->metrics, bit);
                        d->measured[k] = before->measured[k];
                } else
                        continue;
                oldest = MIN(oldest, d->measured[k]);
        }
        d->age_usec = now - oldest;
}

/* Counts a round that skipped d: its answer lacks counters its previous
 * one had, or the domain is paused for a libvirt job; says so once per run
 * of such rounds. */
static void note_skipped(AgentDomain *d, const AgentDomain *before, const HvDomainSample *prev,
                         const HvDomainSample *cur) {
        unsigned lost = prev ? prev->fields & ~cur->fields & SKIPPABLE_FIELDS : 0;
        unsigned rounds = before ? before->skipped_rounds : 0;
        const char *job = hv_sample_paused_job(cur);

        d->skipped_total = before ? before->skipped_total : 0;
        if ((lost == 0 && !job) || !hv_domain_state_is_live(cur->state)) {
                if (rounds > 0)
                        log_info("Domain %s answers with all its counters again after %u "
                                 "round(s)",
                                 d->name, rounds);
                d->skipped_rounds = 0;
                return;
        }
        if (job) {
                snprintf(d->job, sizeof(d->job), "%s", job);
                /* A paused guest runs nothing: its rates would say idle. */
                d->metrics.valid &= ~(HV_METRIC_STEAL | HV_METRIC_CPU_USE);
        }
        if (rounds == 0 && job)
                log_notice("Domain %s is paused for a libvirt job (%s): skipped, its last "
                           "values stand, with their age",
                           d->name, job);
        else if (rounds == 0)
                log_notice("Domain %s answered without some counters (busy in a job: "
                           "migration, shutdown, a hung monitor); its last values stand, "
                           "with their age",
                           d->name);
        d->skipped_rounds = rounds + 1;
        d->skipped_total++;
}

int agent_collector_sample(AgentCollector *c, const AgentStale *stale, AgentSnapshot **ret) {
        _cleanup_free_ HvDomainSample *samples = NULL;
        _cleanup_free_ HvDomainMetrics *metrics = NULL;
        _cleanup_free_ const HvDomainSample **paired = NULL;
        _cleanup_free_ AgentSnapshot *snap = NULL, *copy = NULL;
        Before before = { .snap = c->latest };
        size_t n = 0, size;
        usec_t now = agent_now(c->clock);
        int r;

        r = agent_connect(&c->conn, c->uri);
        if (r < 0)
                return r;
        r = hv_sample_all(c->conn, 0, &samples, &n);
        if (r < 0) {
                log_full_errno(c->sample_failing ? LOG_LEVEL_DEBUG : LOG_LEVEL_WARNING, r,
                               "Sampling %s failed: %s", c->uri, agent_hv_error(c->conn, r));
                c->sample_failing = true;
                return r;
        }
        if (c->sample_failing)
                log_notice("Sampling %s works again", c->uri);
        c->sample_failing = false;

        metrics = calloc(MAX(n, (size_t)1), sizeof(*metrics));
        paired = calloc(MAX(n, (size_t)1), sizeof(const HvDomainSample *));
        if (!metrics || !paired)
                return log_oom();
        /* Pairs each domain with its previous sample by sorting, not by a
         * search per domain: a pass must stay flat per domain on hosts with
         * thousands of them. */
        r = hv_metrics_derive_all(c->prev, c->n_prev, samples, n, metrics, paired);
        if (r < 0)
                return r;

        size = sizeof(AgentSnapshot) + n * sizeof(AgentDomain);
        snap = calloc(1, size);
        copy = malloc(size);
        if (!snap || !copy) {
                free(before.sorted);
                return log_oom();
        }
        snap->realtime = now_realtime_usec();
        snap->n_domains = n;
        for (size_t i = 0; i < n; i++) {
                AgentDomain *d = &snap->domains[i];
                const AgentDomain *prior;

                memcpy(d->name, samples[i].name, sizeof(d->name));
                memcpy(d->uuid, samples[i].uuid, sizeof(d->uuid));
                d->metrics = metrics[i];
                prior = before_find(&before, d, i);
                fill_from_info(c, d, prior, is_stale(stale, d->uuid), now);
                note_skipped(d, prior, paired[i], &samples[i]);
                keep_unmeasured(d, prior, now);
                d->guest_memory = agent_guest_memory(paired[i], &samples[i]);
        }
        free(before.sorted);
        /* A round whose call was too slow for rates, or that lacked the
         * domain's counters, is not the next one's base: the next derives
         * over the longer interval instead. One paused for a job has them,
         * and the rates after the job start from it. */
        for (size_t i = 0; i < n; i++) {
                const AgentDomain *d = &snap->domains[i];
                const HvDomainSample *base = d->skipped_rounds > 0 && !d->job[0]
                                                     ? paired[i]
                                                     : hv_metrics_next_base(paired[i], &samples[i]);

                if (base != &samples[i])
                        samples[i] = *base;
        }

        /* The collector keeps its own copy: the loop frees its snapshots as
         * they leave the history. */
        memcpy(copy, snap, size);
        free(c->latest);
        c->latest = TAKE_PTR(copy);
        free(c->prev);
        c->prev = TAKE_PTR(samples);
        c->n_prev = n;
        *ret = TAKE_PTR(snap);
        return 0;
}

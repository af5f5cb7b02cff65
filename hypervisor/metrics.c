/* SPDX-License-Identifier: MIT */
/* Pure code: raw counters from a bulk stats record, metrics from two
 * samples. No libvirt call, no clock, no I/O. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "hypervisor/libvirt.h"

static const char *const state_names[] = {
        [HV_STATE_NOSTATE] = "nostate",   [HV_STATE_RUNNING] = "running",
        [HV_STATE_BLOCKED] = "blocked",   [HV_STATE_PAUSED] = "paused",
        [HV_STATE_SHUTDOWN] = "shutdown", [HV_STATE_SHUTOFF] = "shutoff",
        [HV_STATE_CRASHED] = "crashed",   [HV_STATE_PMSUSPENDED] = "pmsuspended",
};

const char *hv_domain_state_to_string(HvDomainState state) {
        if ((unsigned)state >= ELEMENTSOF(state_names))
                return "unknown";
        return state_names[state];
}

bool hv_domain_state_is_live(HvDomainState state) {
        return state == HV_STATE_RUNNING || state == HV_STATE_BLOCKED || state == HV_STATE_PAUSED;
}

const char *hv_sample_paused_job(const HvDomainSample *s) {
        if (!(s->fields & HV_FIELD_STATE) || s->state != HV_STATE_PAUSED)
                return NULL;
        switch (s->state_reason) {
        case VIR_DOMAIN_PAUSED_MIGRATION:
        case VIR_DOMAIN_PAUSED_POSTCOPY:
                return "migration";
        case VIR_DOMAIN_PAUSED_SAVE:
                return "save";
        case VIR_DOMAIN_PAUSED_DUMP:
                return "dump";
        case VIR_DOMAIN_PAUSED_SNAPSHOT:
                return "snapshot";
        default:
                return NULL;
        }
}

#define BITMAP_WORDS (HV_VCPU_MAX / 64)

static void bitmap_set(uint64_t *bitmap, unsigned id) {
        bitmap[id / 64] |= UINT64_C(1) << (id % 64);
}

static bool bitmap_test(const uint64_t *bitmap, unsigned id) {
        return bitmap[id / 64] & (UINT64_C(1) << (id % 64));
}

static bool bitmap_equal(const uint64_t *a, const uint64_t *b) {
        return memcmp(a, b, BITMAP_WORDS * sizeof(uint64_t)) == 0;
}

static bool bitmap_empty(const uint64_t *a) {
        for (unsigned w = 0; w < BITMAP_WORDS; w++)
                if (a[w])
                        return false;
        return true;
}

bool hv_sample_has_vcpu(const HvDomainSample *s, unsigned id) {
        return s && id < HV_VCPU_MAX && bitmap_test(s->vcpu_present, id);
}

/* Counters come as ULLONG from QEMU; other unsigned or non-negative integer
 * types are accepted so that a driver's choice of type does not lose data. */
static bool param_get_u64(const virTypedParameter *p, uint64_t *ret) {
        switch (p->type) {
        case VIR_TYPED_PARAM_UINT:
                *ret = p->value.ui;
                return true;
        case VIR_TYPED_PARAM_ULLONG:
                *ret = p->value.ul;
                return true;
        case VIR_TYPED_PARAM_INT:
                if (p->value.i < 0)
                        return false;
                *ret = (uint64_t)p->value.i;
                return true;
        case VIR_TYPED_PARAM_LLONG:
                if (p->value.l < 0)
                        return false;
                *ret = (uint64_t)p->value.l;
                return true;
        default:
                return false;
        }
}

/* Parses "<digits>.<rest>" strictly (no sign, no space); *ret_rest points
 * after the dot. Larger ids are clamped to UINT32_MAX, which the
 * caller treats as out of range. */
static bool parse_vcpu_id(const char *s, unsigned *ret_id, const char **ret_rest) {
        uint64_t id = 0;
        const char *p = s;

        if (*p < '0' || *p > '9')
                return false;
        for (; *p >= '0' && *p <= '9'; p++)
                id = MIN(id * 10 + (uint64_t)(*p - '0'), (uint64_t)UINT32_MAX);
        if (*p != '.')
                return false;
        *ret_id = (unsigned)id;
        *ret_rest = p + 1;
        return true;
}

/* What one record gave, collected first: the sample gets a group of fields
 * only when the group is complete. */
typedef enum Seen {
        SEEN_CPU_TIME = 1u << 0,
        SEEN_VCPU_CURRENT = 1u << 1,
        SEEN_VCPU_MAX = 1u << 2,
        SEEN_BALLOON_CURRENT = 1u << 3,
        SEEN_BALLOON_MAX = 1u << 4,
        SEEN_BALLOON_UNUSED = 1u << 5,
        SEEN_BALLOON_AVAILABLE = 1u << 6,
        SEEN_BALLOON_MAJOR_FAULT = 1u << 7,
        SEEN_BALLOON_SWAP_IN = 1u << 8,
        SEEN_BALLOON_LAST_UPDATE = 1u << 9,
} Seen;

typedef struct ParseState {
        unsigned seen; /* Seen bits */
        uint64_t vcpu_current, vcpu_max;
        uint64_t vcpu_seen[BITMAP_WORDS];
        uint64_t has_delay[BITMAP_WORDS];
        uint64_t has_time[BITMAP_WORDS];
        bool vcpu_out_of_range;
} ParseState;

static const struct {
        const char *field;
        size_t offset; /* of a uint64_t in HvDomainSample */
        Seen seen;
} u64_params[] = {
        { "cpu.time", offsetof(HvDomainSample, cpu_time_ns), SEEN_CPU_TIME },
        { "balloon.current", offsetof(HvDomainSample, balloon_current_kib), SEEN_BALLOON_CURRENT },
        { "balloon.maximum", offsetof(HvDomainSample, balloon_max_kib), SEEN_BALLOON_MAX },
        { "balloon.unused", offsetof(HvDomainSample, balloon_unused_kib), SEEN_BALLOON_UNUSED },
        { "balloon.available", offsetof(HvDomainSample, balloon_available_kib),
          SEEN_BALLOON_AVAILABLE },
        { "balloon.major_fault", offsetof(HvDomainSample, balloon_major_faults),
          SEEN_BALLOON_MAJOR_FAULT },
        { "balloon.swap_in", offsetof(HvDomainSample, balloon_swap_in_kib), SEEN_BALLOON_SWAP_IN },
        { "balloon.last-update", offsetof(HvDomainSample, balloon_last_update),
          SEEN_BALLOON_LAST_UPDATE },
};

static void parse_vcpu_param(const virTypedParameter *p, const char *after_prefix,
                             HvDomainSample *s, ParseState *st) {
        const char *rest;
        unsigned id;
        uint64_t value;

        if (!parse_vcpu_id(after_prefix, &id, &rest))
                return;
        if (id >= HV_VCPU_MAX) {
                st->vcpu_out_of_range = true;
                return;
        }
        bitmap_set(st->vcpu_seen, id);
        if (!param_get_u64(p, &value))
                return;
        if (strcmp(rest, "delay") == 0) {
                s->vcpu_delay_ns[id] = value;
                bitmap_set(st->has_delay, id);
        } else if (strcmp(rest, "time") == 0) {
                s->vcpu_time_ns[id] = value;
                bitmap_set(st->has_time, id);
        }
}

static void parse_param(const virTypedParameter *p, HvDomainSample *s, ParseState *st) {
        const char *f = p->field;
        uint64_t value;

        if (strncmp(f, "vcpu.", 5) == 0 && f[5] >= '0' && f[5] <= '9') {
                parse_vcpu_param(p, f + 5, s, st);
                return;
        }
        if (strcmp(f, "state.state") == 0 && p->type == VIR_TYPED_PARAM_INT) {
                s->state = (HvDomainState)p->value.i;
                s->fields |= HV_FIELD_STATE;
                return;
        }
        if (strcmp(f, "state.reason") == 0 && p->type == VIR_TYPED_PARAM_INT) {
                s->state_reason = p->value.i;
                return;
        }
        if (!param_get_u64(p, &value))
                return;
        if (strcmp(f, "vcpu.current") == 0) {
                st->vcpu_current = value;
                st->seen |= SEEN_VCPU_CURRENT;
                return;
        }
        if (strcmp(f, "vcpu.maximum") == 0) {
                st->vcpu_max = value;
                st->seen |= SEEN_VCPU_MAX;
                return;
        }
        for (size_t i = 0; i < ELEMENTSOF(u64_params); i++)
                if (strcmp(f, u64_params[i].field) == 0) {
                        memcpy((char *)s + u64_params[i].offset, &value, sizeof(value));
                        st->seen |= u64_params[i].seen;
                        return;
                }
}

static bool all_seen(const ParseState *st, unsigned bits) {
        return (st->seen & bits) == bits;
}

static void keep_vcpu_counters(HvDomainSample *s, const ParseState *st, const uint64_t *has,
                               HvSampleField field, uint64_t values[HV_VCPU_MAX]) {
        if (!st->vcpu_out_of_range && !bitmap_empty(st->vcpu_seen) &&
            bitmap_equal(st->vcpu_seen, has))
                s->fields |= field;
        else
                memset(values, 0, HV_VCPU_MAX * sizeof(uint64_t));
}

/* Keeps a group of fields only when complete; an incomplete one is zeroed so
 * that a cleared bit always means "holds 0". */
static void sample_keep_groups(HvDomainSample *s, const ParseState *st) {
        if (all_seen(st, SEEN_CPU_TIME))
                s->fields |= HV_FIELD_CPU_TIME;
        if (all_seen(st, SEEN_VCPU_CURRENT | SEEN_VCPU_MAX) && st->vcpu_current <= UINT32_MAX &&
            st->vcpu_max <= UINT32_MAX) {
                s->vcpus_current = (unsigned)st->vcpu_current;
                s->vcpus_max = (unsigned)st->vcpu_max;
                s->fields |= HV_FIELD_VCPU_COUNT;
        }
        if (all_seen(st, SEEN_BALLOON_CURRENT | SEEN_BALLOON_MAX))
                s->fields |= HV_FIELD_BALLOON;
        else
                s->balloon_current_kib = s->balloon_max_kib = 0;
        if (all_seen(st, SEEN_BALLOON_UNUSED | SEEN_BALLOON_AVAILABLE))
                s->fields |= HV_FIELD_BALLOON_GUEST;
        else
                s->balloon_unused_kib = s->balloon_available_kib = 0;
        if (all_seen(st, SEEN_BALLOON_MAJOR_FAULT | SEEN_BALLOON_SWAP_IN))
                s->fields |= HV_FIELD_BALLOON_PRESSURE;
        else
                s->balloon_major_faults = s->balloon_swap_in_kib = 0;
        if (all_seen(st, SEEN_BALLOON_LAST_UPDATE))
                s->fields |= HV_FIELD_BALLOON_UPDATE;

        /* Steal over a subset of the vCPUs would be a guess: all or nothing. */
        if (!st->vcpu_out_of_range)
                memcpy(s->vcpu_present, st->vcpu_seen, sizeof(st->vcpu_seen));
        keep_vcpu_counters(s, st, st->has_delay, HV_FIELD_VCPU_DELAY, s->vcpu_delay_ns);
        keep_vcpu_counters(s, st, st->has_time, HV_FIELD_VCPU_TIME, s->vcpu_time_ns);
}

int hv_sample_from_params(const char *name, const char *uuid, const virTypedParameter *params,
                          int n, usec_t sampled_usec, HvDomainSample *ret) {
        ParseState st = { 0 };

        if (!name || !ret || n < 0 || (n > 0 && !params))
                return -EINVAL;
        if (name[0] == '\0' || strlen(name) >= sizeof(ret->name) ||
            (uuid && strlen(uuid) >= sizeof(ret->uuid)))
                return -EINVAL;

        memset(ret, 0, sizeof(*ret));
        strcpy(ret->name, name);
        if (uuid)
                strcpy(ret->uuid, uuid);
        ret->sampled_usec = sampled_usec;

        for (int i = 0; i < n; i++)
                parse_param(&params[i], ret, &st);
        sample_keep_groups(ret, &st);
        return 0;
}

static bool same_domain(const HvDomainSample *a, const HvDomainSample *b) {
        if (a->uuid[0] && b->uuid[0])
                return strcmp(a->uuid, b->uuid) == 0;
        return strcmp(a->name, b->name) == 0;
}

/* Sum of the delay deltas over the vCPUs in both samples; false when a
 * counter went backwards or no vCPU is common. */
static bool delay_delta(const HvDomainSample *prev, const HvDomainSample *cur, uint64_t *ret_sum,
                        unsigned *ret_n) {
        uint64_t sum = 0;
        unsigned n = 0;

        for (unsigned w = 0; w < BITMAP_WORDS; w++) {
                uint64_t common = prev->vcpu_present[w] & cur->vcpu_present[w];

                while (common) {
                        unsigned id = w * 64 + (unsigned)__builtin_ctzll(common);

                        common &= common - 1;
                        if (cur->vcpu_delay_ns[id] < prev->vcpu_delay_ns[id])
                                return false;
                        sum += cur->vcpu_delay_ns[id] - prev->vcpu_delay_ns[id];
                        n++;
                }
        }
        if (n == 0)
                return false;
        *ret_sum = sum;
        *ret_n = n;
        return true;
}

/* The first call after libvirtd starts can take seconds (it probes QEMU's
 * capabilities) while the next takes milliseconds, and under host
 * contention a call takes a few hundred: a rate over an interval known only
 * to within a large share of itself is noise (a 1-vCPU guest once showed
 * cpu_use 207). Each stamp is off by at most half its call's span. */
static bool interval_uncertain(const HvDomainSample *prev, const HvDomainSample *cur) {
        return (prev->span_usec + cur->span_usec) / 2 * HV_RATE_MAX_TIMING_ERROR_INVERSE >
               cur->sampled_usec - prev->sampled_usec;
}

const HvDomainSample *hv_metrics_next_base(const HvDomainSample *prev, const HvDomainSample *cur) {
        if (!prev || !same_domain(prev, cur) || cur->sampled_usec <= prev->sampled_usec ||
            !interval_uncertain(prev, cur))
                return cur;
        /* The more certain stamp stays; the next interval is longer, and
         * the error shrinks against it. */
        return cur->span_usec > prev->span_usec ? prev : cur;
}

int hv_metrics_derive(const HvDomainSample *prev, const HvDomainSample *cur, HvDomainMetrics *ret) {
        HvDomainMetrics m = { 0 };
        double wall_ns;

        if (!cur || !ret)
                return -EINVAL;

        if (cur->fields & HV_FIELD_STATE) {
                m.state = cur->state;
                m.valid |= HV_METRIC_STATE;
        }
        if (cur->fields & HV_FIELD_VCPU_COUNT) {
                m.vcpus_current = cur->vcpus_current;
                m.vcpus_max = cur->vcpus_max;
                m.valid |= HV_METRIC_VCPUS;
        }
        if (cur->fields & HV_FIELD_BALLOON) {
                m.memory_kib = cur->balloon_current_kib;
                m.memory_max_kib = cur->balloon_max_kib;
                m.valid |= HV_METRIC_MEMORY;
        }
        if (cur->fields & HV_FIELD_BALLOON_GUEST) {
                m.memory_unused_kib = cur->balloon_unused_kib;
                m.memory_available_kib = cur->balloon_available_kib;
                m.valid |= HV_METRIC_MEMORY_GUEST;
        }

        if (!prev || !same_domain(prev, cur) || cur->sampled_usec <= prev->sampled_usec) {
                *ret = m;
                return 0;
        }
        m.interval_usec = cur->sampled_usec - prev->sampled_usec;
        wall_ns = (double)m.interval_usec * (double)NSEC_PER_USEC;

        if (interval_uncertain(prev, cur)) {
                *ret = m;
                return 0;
        }

        if ((prev->fields & cur->fields & HV_FIELD_CPU_TIME) &&
            cur->cpu_time_ns >= prev->cpu_time_ns) {
                m.cpu_use = (double)(cur->cpu_time_ns - prev->cpu_time_ns) / wall_ns;
                m.valid |= HV_METRIC_CPU_USE;
        }

        if (prev->fields & cur->fields & HV_FIELD_VCPU_DELAY) {
                uint64_t delay_ns;
                unsigned n;

                if (delay_delta(prev, cur, &delay_ns, &n)) {
                        m.steal = MIN((double)delay_ns / (wall_ns * (double)n), 1.0);
                        m.valid |= HV_METRIC_STEAL;
                }
        }

        *ret = m;
        return 0;
}

/* The identity derive pairs by (see same_domain). */
static const char *sample_key(const HvDomainSample *s) {
        return s->uuid[0] ? s->uuid : s->name;
}

/* Sorting these, not the samples: each sample is kilobytes. */
typedef struct SampleRef {
        const HvDomainSample *sample;
} SampleRef;

static int compare_sample_refs(const void *a, const void *b) {
        return strcmp(sample_key(((const SampleRef *)a)->sample),
                      sample_key(((const SampleRef *)b)->sample));
}

int hv_metrics_derive_all(const HvDomainSample *prev, size_t n_prev, const HvDomainSample *cur,
                          size_t n_cur, HvDomainMetrics *ret, const HvDomainSample **ret_prev) {
        _cleanup_free_ SampleRef *index = NULL;

        if ((n_prev > 0 && !prev) || (n_cur > 0 && (!cur || !ret)))
                return -EINVAL;
        index = calloc(MAX(n_prev, (size_t)1), sizeof(SampleRef));
        if (!index)
                return -ENOMEM;
        for (size_t i = 0; i < n_prev; i++)
                index[i].sample = &prev[i];
        qsort(index, n_prev, sizeof(SampleRef), compare_sample_refs);

        for (size_t i = 0; i < n_cur; i++) {
                const SampleRef key = { &cur[i] };
                const SampleRef *found = n_prev > 0
                                                 ? bsearch(&key, index, n_prev, sizeof(SampleRef),
                                                           compare_sample_refs)
                                                 : NULL;

                (void)hv_metrics_derive(found ? found->sample : NULL, &cur[i], &ret[i]);
                if (ret_prev)
                        ret_prev[i] = found ? found->sample : NULL;
        }
        return 0;
}

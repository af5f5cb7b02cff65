/* SPDX-License-Identifier: MIT */
/* flexslot-bench-host: what one sampling pass of the agent costs, against the
 * per-domain libvirt calls that exporters make, measured in the same run.
 *
 *   flexslot-bench-host pass URI PASSES
 *       One agent sampling pass (one bulk virConnectGetAllDomainStats call
 *       through the hypervisor layer, then the metric derivation) against
 *       two per-domain baselines on the same domains: virDomainGetInfo +
 *       virDomainGetVcpus + virDomainMemoryStats per domain (what libvirt
 *       exporters do), and one stats call per domain (virDomainListGetStats
 *       on a one-domain list). Prints milliseconds per pass (median).
 *   flexslot-bench-host record URI DOMAIN
 *       Prints the bulk-stats record of DOMAIN as "field type value" lines.
 *   flexslot-bench-host replay RECORD N[,N...] ROUNDS
 *       The agent's own processing of a bulk-stats answer: N domains made
 *       from the recorded one (typed parameters as libvirt returns them) are
 *       the answer of a replay hypervisor driver, and the agent's sampling
 *       step (agent_collector_sample) runs on it: parsing, matching each domain
 *       with its previous sample, deriving metrics, building the snapshot.
 *       Also the floor: parsing and derivation alone, previous sample found
 *       by index. Prints microseconds per domain (median over ROUNDS).
 *   flexslot-bench-host watch URI DOMAIN SECONDS
 *       Samples every 0.5 s through the hypervisor layer and prints the
 *       derived metrics of DOMAIN ("steal=... cpu_use=... vcpus=N memory_kib=N").
 *
 * Output lines start with a keyword so that bench/host.sh can pick them up. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "common/macro.h"
#include "common/parse.h"
#include "agent/collector.h"
#include "common/log.h"
#include "common/time-util.h"
#include "hypervisor/hypervisor.h"
#include "hypervisor/libvirt.h"

#define STATS_GROUPS                                                                   \
        (VIR_DOMAIN_STATS_STATE | VIR_DOMAIN_STATS_CPU_TOTAL | VIR_DOMAIN_STATS_VCPU | \
         VIR_DOMAIN_STATS_BALLOON)
#define MAX_ROUNDS 1000
#define MAX_PARAMS 4096

static void silent_error(void *userdata, virErrorPtr err) {
}

/* CLOCK_MONOTONIC in nanoseconds: the replay steps of a few domains take
 * microseconds. */
static uint64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int compare_usec(const void *a, const void *b) {
        usec_t x = *(const usec_t *)a, y = *(const usec_t *)b;
        return x < y ? -1 : x > y;
}

static usec_t median(usec_t *v, size_t n) {
        qsort(v, n, sizeof(*v), compare_usec);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void free_domains(virDomainPtr *doms, int n) {
        for (int i = 0; i < n; i++)
                virDomainFree(doms[i]);
        free(doms);
}

/* ---- pass ---------------------------------------------------------------- */

/* The agent's pass: one bulk call through the hypervisor layer, metrics for
 * every domain against the previous pass. */
static int pass_agent(HvConnection *conn, HvDomainSample **prev, size_t *n_prev, usec_t *ret) {
        _cleanup_free_ HvDomainSample *cur = NULL;
        size_t n = 0;
        usec_t t0 = now_monotonic_usec();
        int r;

        r = hv_sample_all(conn, 0, &cur, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                HvDomainMetrics m;
                const HvDomainSample *p = NULL;

                for (size_t j = 0; j < *n_prev && !p; j++)
                        if (strcmp((*prev)[j].uuid, cur[i].uuid) == 0)
                                p = &(*prev)[j];
                (void)hv_metrics_derive(p, &cur[i], &m);
        }
        *ret = now_monotonic_usec() - t0;
        free(*prev);
        *prev = TAKE_PTR(cur);
        *n_prev = n;
        return 0;
}

/* Exporter style: list, then GetInfo + GetVcpus + MemoryStats per domain. */
static int pass_per_domain_calls(virConnectPtr c, usec_t *ret, unsigned *ret_unsupported) {
        virDomainPtr *doms = NULL;
        usec_t t0 = now_monotonic_usec();
        unsigned unsupported = 0;
        int n;

        n = virConnectListAllDomains(c, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
        if (n < 0)
                return -EIO;
        for (int i = 0; i < n; i++) {
                virDomainInfo info;
                virVcpuInfo vcpus[HV_VCPU_MAX];
                virDomainMemoryStatStruct mem[VIR_DOMAIN_MEMORY_STAT_NR];

                if (virDomainGetInfo(doms[i], &info) < 0) {
                        free_domains(doms, n);
                        return -EIO;
                }
                if (virDomainGetVcpus(doms[i], vcpus, (int)MIN(info.nrVirtCpu, HV_VCPU_MAX), NULL,
                                      0) < 0)
                        unsupported |= 1;
                if (virDomainMemoryStats(doms[i], mem, VIR_DOMAIN_MEMORY_STAT_NR, 0) < 0)
                        unsupported |= 2;
        }
        free_domains(doms, n);
        *ret = now_monotonic_usec() - t0;
        *ret_unsupported = unsupported;
        return 0;
}

/* One bulk-stats call per domain. */
static int pass_per_domain_stats(virConnectPtr c, usec_t *ret) {
        virDomainPtr *doms = NULL;
        usec_t t0 = now_monotonic_usec();
        int n;

        n = virConnectListAllDomains(c, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
        if (n < 0)
                return -EIO;
        for (int i = 0; i < n; i++) {
                virDomainPtr one[2] = { doms[i], NULL };
                virDomainStatsRecordPtr *records = NULL;

                if (virDomainListGetStats(one, STATS_GROUPS, &records,
                                          VIR_CONNECT_GET_ALL_DOMAINS_STATS_NOWAIT) < 0) {
                        free_domains(doms, n);
                        return -EIO;
                }
                virDomainStatsRecordListFree(records);
        }
        free_domains(doms, n);
        *ret = now_monotonic_usec() - t0;
        return 0;
}

/* One bulk call asking for one stats group only. */
static int pass_group(virConnectPtr c, unsigned group, usec_t *ret) {
        virDomainStatsRecordPtr *records = NULL;
        usec_t t0 = now_monotonic_usec();

        if (virConnectGetAllDomainStats(c, group, &records,
                                        VIR_CONNECT_GET_ALL_DOMAINS_STATS_NOWAIT) < 0)
                return -EIO;
        virDomainStatsRecordListFree(records);
        *ret = now_monotonic_usec() - t0;
        return 0;
}

static const struct {
        const char *name;
        unsigned group;
} stats_groups[] = {
        { "state", VIR_DOMAIN_STATS_STATE },
        { "cpu_total", VIR_DOMAIN_STATS_CPU_TOTAL },
        { "vcpu", VIR_DOMAIN_STATS_VCPU },
        { "balloon", VIR_DOMAIN_STATS_BALLOON },
};

static int cmd_pass(const char *uri, const char *passes_s) {
        _cleanup_(hv_connection_freep) HvConnection *conn = NULL;
        _cleanup_free_ HvDomainSample *prev = NULL;
        static usec_t t_agent[MAX_ROUNDS], t_calls[MAX_ROUNDS], t_stats[MAX_ROUNDS];
        size_t n_prev = 0;
        unsigned unsupported = 0;
        virConnectPtr c;
        int passes, r, ndom;
        usec_t a, b, s;

        if (parse_int(passes_s, 1, MAX_ROUNDS, &passes) < 0) {
                fprintf(stderr, "bad PASSES: %s\n", passes_s);
                return 2;
        }
        r = hv_connection_open(uri, NULL, 0, &conn);
        if (r < 0) {
                fprintf(stderr, "cannot open %s: %s\n", uri, strerror(-r));
                return 1;
        }
        c = virConnectOpen(uri);
        if (!c) {
                fprintf(stderr, "cannot open %s\n", uri);
                return 1;
        }
        ndom = virConnectNumOfDomains(c);
        /* One warm-up pass of each kind (connection setup, first monitor
         * queries), then interleaved passes so drift hits all three alike. */
        r = pass_agent(conn, &prev, &n_prev, &a);
        if (r >= 0)
                r = pass_per_domain_calls(c, &b, &unsupported);
        if (r >= 0)
                r = pass_per_domain_stats(c, &s);
        for (int i = 0; r >= 0 && i < passes; i++) {
                r = pass_agent(conn, &prev, &n_prev, &t_agent[i]);
                if (r >= 0)
                        r = pass_per_domain_calls(c, &t_calls[i], &unsupported);
                if (r >= 0)
                        r = pass_per_domain_stats(c, &t_stats[i]);
        }
        if (r < 0) {
                fprintf(stderr, "a sampling pass failed: %s\n", strerror(-r));
                virConnectClose(c);
                return 1;
        }
        a = median(t_agent, (size_t)passes);
        b = median(t_calls, (size_t)passes);
        s = median(t_stats, (size_t)passes);
        printf("pass domains=%d passes=%d agent_bulk_us=%" PRIu64 " per_domain_calls_us=%" PRIu64
               " per_domain_stats_us=%" PRIu64 " calls_unsupported=%s%s",
               ndom, passes, a, b, s, unsupported & 1 ? "GetVcpus," : "",
               unsupported & 2 ? "MemoryStats" : (unsupported & 1 ? "" : "none"));
        /* Where the bulk call's time goes: one group at a time. */
        for (size_t g = 0; g < ELEMENTSOF(stats_groups); g++) {
                for (int i = 0; i < passes; i++)
                        if (pass_group(c, stats_groups[g].group, &t_agent[i]) < 0) {
                                fprintf(stderr, "the %s group failed\n", stats_groups[g].name);
                                virConnectClose(c);
                                return 1;
                        }
                printf(" group_%s_us=%" PRIu64, stats_groups[g].name,
                       median(t_agent, (size_t)passes));
        }
        printf("\n");
        virConnectClose(c);
        return 0;
}

/* ---- record and replay --------------------------------------------------- */

static const char *const type_names[] = {
        [VIR_TYPED_PARAM_INT] = "int",       [VIR_TYPED_PARAM_UINT] = "uint",
        [VIR_TYPED_PARAM_LLONG] = "llong",   [VIR_TYPED_PARAM_ULLONG] = "ullong",
        [VIR_TYPED_PARAM_DOUBLE] = "double", [VIR_TYPED_PARAM_BOOLEAN] = "boolean",
        [VIR_TYPED_PARAM_STRING] = "string",
};

static int cmd_record(const char *uri, const char *domain) {
        virDomainStatsRecordPtr *records = NULL;
        virConnectPtr c = virConnectOpen(uri);
        int n, found = 0;

        if (!c) {
                fprintf(stderr, "cannot open %s\n", uri);
                return 1;
        }
        n = virConnectGetAllDomainStats(c, STATS_GROUPS, &records, 0);
        for (int i = 0; i < n; i++) {
                virDomainStatsRecordPtr rec = records[i];

                if (strcmp(virDomainGetName(rec->dom), domain) != 0)
                        continue;
                found = 1;
                for (int k = 0; k < rec->nparams; k++) {
                        const virTypedParameter *p = &rec->params[k];

                        printf("%s %s ", p->field, type_names[p->type]);
                        switch (p->type) {
                        case VIR_TYPED_PARAM_INT:
                                printf("%d\n", p->value.i);
                                break;
                        case VIR_TYPED_PARAM_UINT:
                                printf("%u\n", p->value.ui);
                                break;
                        case VIR_TYPED_PARAM_LLONG:
                                printf("%lld\n", p->value.l);
                                break;
                        case VIR_TYPED_PARAM_ULLONG:
                                printf("%llu\n", p->value.ul);
                                break;
                        case VIR_TYPED_PARAM_DOUBLE:
                                printf("%.17g\n", p->value.d);
                                break;
                        case VIR_TYPED_PARAM_BOOLEAN:
                                printf("%d\n", p->value.b);
                                break;
                        default:
                                printf("%s\n", p->value.s);
                                break;
                        }
                }
        }
        if (n >= 0)
                virDomainStatsRecordListFree(records);
        virConnectClose(c);
        if (!found) {
                fprintf(stderr, "no bulk-stats record for %s\n", domain);
                return 1;
        }
        return 0;
}

typedef struct Record {
        virTypedParameter params[MAX_PARAMS];
        int n;
} Record;

static int record_load(const char *path, Record *rec) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        char line[512];
        unsigned lineno = 0;

        if (!f)
                return negative_errno();
        rec->n = 0;
        while (fgets(line, sizeof(line), f)) {
                char field[VIR_TYPED_PARAM_FIELD_LENGTH], type[16], value[256];
                virTypedParameter *p;
                int t = -1;

                lineno++;
                if (line[0] == '#' || line[0] == '\n')
                        continue;
                if (sscanf(line, "%79s %15s %255s", field, type, value) != 3 ||
                    rec->n >= MAX_PARAMS) {
                        fprintf(stderr, "%s:%u: bad line\n", path, lineno);
                        return -EINVAL;
                }
                for (size_t i = 1; i < ELEMENTSOF(type_names); i++)
                        if (type_names[i] && strcmp(type_names[i], type) == 0)
                                t = (int)i;
                p = &rec->params[rec->n];
                memset(p, 0, sizeof(*p));
                snprintf(p->field, sizeof(p->field), "%s", field);
                p->type = t;
                switch (t) {
                case VIR_TYPED_PARAM_INT:
                case VIR_TYPED_PARAM_BOOLEAN: {
                        int64_t v;
                        if (parse_int64(value, INT32_MIN, INT32_MAX, &v) < 0)
                                t = -1;
                        p->value.i = (int)v;
                        break;
                }
                case VIR_TYPED_PARAM_UINT:
                case VIR_TYPED_PARAM_ULLONG: {
                        uint64_t v;
                        if (parse_uint64(value, 0, UINT64_MAX, &v) < 0)
                                t = -1;
                        if (p->type == VIR_TYPED_PARAM_UINT)
                                p->value.ui = (unsigned)v;
                        else
                                p->value.ul = v;
                        break;
                }
                case VIR_TYPED_PARAM_LLONG: {
                        int64_t v;
                        if (parse_int64(value, INT64_MIN, INT64_MAX, &v) < 0)
                                t = -1;
                        p->value.l = v;
                        break;
                }
                case VIR_TYPED_PARAM_DOUBLE:
                        if (parse_double(value, -1e300, 1e300, &p->value.d) < 0)
                                t = -1;
                        break;
                default:
                        /* Strings do not appear in the groups the agent asks for. */
                        t = -1;
                        break;
                }
                if (t < 0) {
                        fprintf(stderr, "%s:%u: bad type or value\n", path, lineno);
                        return -EINVAL;
                }
                rec->n++;
        }
        return rec->n > 0 ? 0 : -EINVAL;
}

/* N domains made from one recorded record: their typed parameters as libvirt
 * returns them, with counters that advance every round by amounts that
 * differ per domain, so that no two domains look alike. */
typedef struct Replay {
        const Record *rec;
        int ndom;
        char (*names)[32];
        char (*uuids)[HV_UUID_STRING_MAX];
        virTypedParameter **params;
        int *counters; /* indexes of cpu.time, vcpu.N.time, vcpu.N.delay */
        int n_counters;
        uint64_t round;
        usec_t sampled;
        uint64_t excluded_ns; /* time spent advancing the counters, not processing */
} Replay;

static Replay *replay_current; /* the replay driver's data (one at a time) */

static void replay_free(Replay *rp) {
        if (!rp)
                return;
        for (int i = 0; rp->params && i < rp->ndom; i++)
                free(rp->params[i]);
        free(rp->params);
        free(rp->names);
        free(rp->uuids);
        free(rp->counters);
        free(rp);
}

static int replay_new(const Record *rec, int ndom, Replay **ret) {
        Replay *rp = calloc(1, sizeof(*rp));

        if (!rp)
                return -ENOMEM;
        rp->rec = rec;
        rp->ndom = ndom;
        rp->sampled = USEC_PER_SEC;
        rp->names = calloc((size_t)ndom, sizeof(*rp->names));
        rp->uuids = calloc((size_t)ndom, sizeof(*rp->uuids));
        rp->params = calloc((size_t)ndom, sizeof(virTypedParameter *));
        rp->counters = calloc((size_t)rec->n, sizeof(int));
        if (!rp->names || !rp->uuids || !rp->params || !rp->counters) {
                replay_free(rp);
                return -ENOMEM;
        }
        for (int k = 0; k < rec->n; k++) {
                const virTypedParameter *p = &rec->params[k];

                if (p->type == VIR_TYPED_PARAM_ULLONG &&
                    (strcmp(p->field, "cpu.time") == 0 ||
                     (strncmp(p->field, "vcpu.", 5) == 0 &&
                      (strstr(p->field, ".time") || strstr(p->field, ".delay")))))
                        rp->counters[rp->n_counters++] = k;
        }
        for (int i = 0; i < ndom; i++) {
                snprintf(rp->names[i], sizeof(rp->names[i]), "bench-%06d", i);
                snprintf(rp->uuids[i], sizeof(rp->uuids[i]), "%08x-0000-4000-8000-%012x",
                         (unsigned)i, (unsigned)i);
                rp->params[i] = malloc(sizeof(virTypedParameter) * (size_t)rec->n);
                if (!rp->params[i]) {
                        replay_free(rp);
                        return -ENOMEM;
                }
                memcpy(rp->params[i], rec->params, sizeof(virTypedParameter) * (size_t)rec->n);
        }
        *ret = rp;
        return 0;
}

/* What a new answer from libvirt looks like: every counter moved on. */
static void replay_advance(Replay *rp) {
        uint64_t t0 = now_ns();

        for (int i = 0; i < rp->ndom; i++)
                for (int c = 0; c < rp->n_counters; c++)
                        rp->params[i][rp->counters[c]].value.ul +=
                                100000000ULL + (((uint64_t)i + rp->round) * 7919ULL) % 50000000ULL;
        rp->round++;
        rp->sampled += USEC_PER_SEC;
        rp->excluded_ns += now_ns() - t0;
}

/* A hypervisor driver whose bulk call answers with the replayed records,
 * parsed exactly as the libvirt backend parses a real answer. */
static int replay_drv_open(HvConnection *conn, const char *uri, unsigned flags) {
        return replay_current ? 0 : -ENOENT;
}

static void replay_drv_close(HvConnection *conn) {
}

static int replay_drv_sample_all(HvConnection *conn, unsigned flags, HvDomainSample **ret,
                                 size_t *ret_n) {
        Replay *rp = replay_current;
        HvDomainSample *s;

        replay_advance(rp);
        s = malloc(sizeof(*s) * (size_t)rp->ndom);
        if (!s)
                return -ENOMEM;
        for (int i = 0; i < rp->ndom; i++) {
                int r = hv_sample_from_params(rp->names[i], rp->uuids[i], rp->params[i], rp->rec->n,
                                              rp->sampled, &s[i]);
                if (r < 0) {
                        free(s);
                        return r;
                }
        }
        *ret = s;
        *ret_n = (size_t)rp->ndom;
        return 0;
}

static const HypervisorDriver replay_driver = {
        .name = "replay",
        .open = replay_drv_open,
        .close = replay_drv_close,
        .sample_all = replay_drv_sample_all,
};

/* The agent's own sampling step (agent_collector_sample: the bulk answer parsed
 * into samples, each matched with its previous sample, metrics derived, the
 * snapshot built) on the replayed answer. Returns the median time of one
 * step divided by the number of domains, in microseconds. */
static int replay_agent(const Record *rec, int ndom, int rounds, double *ret_us) {
        static usec_t t[MAX_ROUNDS];
        AgentCollector h;
        Replay *rp = NULL;
        int r;

        r = replay_new(rec, ndom, &rp);
        if (r < 0)
                return r;
        replay_current = rp;
        r = agent_collector_init(&h, "replay:///");
        if (r < 0)
                goto out_replay;
        r = hv_connection_open_driver(&replay_driver, "replay:///", NULL, 0, &h.conn);
        if (r < 0)
                goto out;
        /* Round -1 fills the previous samples; then the timed rounds. */
        for (int round = -1; round < rounds; round++) {
                AgentSnapshot *snap = NULL;
                uint64_t t0 = now_ns(), excluded = rp->excluded_ns;
                bool derived = false;

                r = agent_collector_sample(&h, NULL, &snap);
                if (r < 0)
                        goto out;
                if (round >= 0)
                        t[round] = now_ns() - t0 - (rp->excluded_ns - excluded);
                for (size_t i = 0; i < snap->n_domains; i++)
                        if (snap->domains[i].metrics.valid & HV_METRIC_STEAL)
                                derived = true;
                free(snap);
                if (round >= 0 && !derived) {
                        fprintf(stderr, "replay: the agent derived no steal\n");
                        r = -EINVAL;
                        goto out;
                }
        }
        *ret_us = (double)median(t, (size_t)rounds) / 1000.0 / ndom;
out:
        agent_collector_done(&h);
out_replay:
        replay_current = NULL;
        replay_free(rp);
        return r;
}

/* The floor: the same parsing and derivation with the previous sample found
 * by index (no lookup) and a two-deep history per domain. */
static int replay_floor(const Record *rec, int ndom, int rounds, double *ret_us) {
        static usec_t t[MAX_ROUNDS];
        HvDomainSample *prev = NULL, *cur = NULL;
        Replay *rp = NULL;
        int r;

        r = replay_new(rec, ndom, &rp);
        if (r < 0)
                return r;
        for (int round = -1; round < rounds; round++) {
                uint64_t t0;
                double checksum = 0;

                replay_advance(rp);
                t0 = now_ns();
                cur = malloc(sizeof(*cur) * (size_t)ndom);
                if (!cur) {
                        r = -ENOMEM;
                        goto out;
                }
                for (int i = 0; i < ndom; i++) {
                        HvDomainMetrics m;

                        r = hv_sample_from_params(rp->names[i], rp->uuids[i], rp->params[i], rec->n,
                                                  rp->sampled, &cur[i]);
                        if (r < 0)
                                goto out;
                        r = hv_metrics_derive(prev ? &prev[i] : NULL, &cur[i], &m);
                        if (r < 0)
                                goto out;
                        checksum += m.steal + m.cpu_use;
                }
                free(prev);
                prev = TAKE_PTR(cur);
                if (round >= 0)
                        t[round] = now_ns() - t0;
                if (round >= 0 && !(checksum > 0)) {
                        fprintf(stderr, "replay: no metric was derived\n");
                        r = -EINVAL;
                        goto out;
                }
        }
        *ret_us = (double)median(t, (size_t)rounds) / 1000.0 / ndom;
out:
        free(prev);
        free(cur);
        replay_free(rp);
        return r;
}

static int cmd_replay(const char *path, const char *counts, const char *rounds_s) {
        static Record rec; /* large: not on the stack */
        char list[256], *save = NULL;
        int rounds, r;

        if (snprintf(list, sizeof(list), "%s", counts) >= (int)sizeof(list)) {
                fprintf(stderr, "too long: %s\n", counts);
                return 2;
        }
        if (parse_int(rounds_s, 1, MAX_ROUNDS, &rounds) < 0) {
                fprintf(stderr, "bad ROUNDS: %s\n", rounds_s);
                return 2;
        }
        r = record_load(path, &rec);
        if (r < 0) {
                fprintf(stderr, "cannot load %s: %s\n", path, strerror(-r));
                return 1;
        }
        for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                int ndom;
                double agent = 0, floor = 0;

                if (parse_int(tok, 1, 100000, &ndom) < 0) {
                        fprintf(stderr, "bad domain count: %s\n", tok);
                        return 2;
                }
                r = replay_agent(&rec, ndom, rounds, &agent);
                if (r >= 0)
                        r = replay_floor(&rec, ndom, rounds, &floor);
                if (r < 0) {
                        fprintf(stderr, "replay of %d domains failed: %s\n", ndom, strerror(-r));
                        return 1;
                }
                printf("replay domains=%d rounds=%d params=%d agent_us_per_domain=%.3f "
                       "floor_us_per_domain=%.3f\n",
                       ndom, rounds, rec.n, agent, floor);
        }
        return 0;
}

/* ---- watch ----------------------------------------------------------------- */

static int cmd_watch(const char *uri, const char *domain, const char *seconds_s) {
        _cleanup_(hv_connection_freep) HvConnection *conn = NULL;
        HvDomainSample prev = { 0 };
        bool have_prev = false;
        int seconds, r;

        if (parse_int(seconds_s, 1, 3600, &seconds) < 0) {
                fprintf(stderr, "bad SECONDS: %s\n", seconds_s);
                return 2;
        }
        r = hv_connection_open(uri, NULL, 0, &conn);
        if (r < 0) {
                fprintf(stderr, "cannot open %s: %s\n", uri, strerror(-r));
                return 1;
        }
        for (int i = 0; i < seconds * 2; i++) {
                _cleanup_free_ HvDomainSample *s = NULL;
                size_t n = 0;
                struct timespec half = { 0, 500 * 1000 * 1000 };

                r = hv_sample_all(conn, 0, &s, &n);
                if (r < 0) {
                        fprintf(stderr, "sampling failed: %s\n", strerror(-r));
                        return 1;
                }
                for (size_t k = 0; k < n; k++) {
                        HvDomainMetrics m;

                        if (strcmp(s[k].name, domain) != 0)
                                continue;
                        if (hv_metrics_derive(have_prev ? &prev : NULL, &s[k], &m) < 0)
                                continue;
                        if (m.valid & HV_METRIC_STEAL)
                                printf("watch steal=%.4f cpu_use=%.4f vcpus=%u memory_kib=%" PRIu64
                                       "\n",
                                       m.steal, m.cpu_use, m.vcpus_current, m.memory_kib);
                        /* The reader is gone (SIGPIPE may be ignored): stop. */
                        if (fflush(stdout) != 0 || ferror(stdout))
                                return 0;
                        prev = s[k];
                        have_prev = true;
                }
                nanosleep(&half, NULL);
        }
        return 0;
}

int main(int argc, char **argv) {
        /* libvirt may write to a socket its daemon closed (hypervisor.h);
         * watch stops on the write error when its reader is gone. */
        signal(SIGPIPE, SIG_IGN);
        virSetErrorFunc(NULL, silent_error);
        if (argc == 4 && strcmp(argv[1], "pass") == 0)
                return cmd_pass(argv[2], argv[3]);
        if (argc == 4 && strcmp(argv[1], "record") == 0)
                return cmd_record(argv[2], argv[3]);
        if (argc == 5 && strcmp(argv[1], "replay") == 0)
                return cmd_replay(argv[2], argv[3], argv[4]);
        if (argc == 5 && strcmp(argv[1], "watch") == 0)
                return cmd_watch(argv[2], argv[3], argv[4]);
        fprintf(stderr,
                "usage: %s pass URI PASSES | record URI DOMAIN | "
                "replay RECORD N[,N...] ROUNDS | watch URI DOMAIN SECONDS\n",
                argv[0]);
        return 2;
}

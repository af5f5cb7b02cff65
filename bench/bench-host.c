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
 *       from the recorded one (typed parameters as libvirt returns them),
 *       turned into samples (hv_sample_from_params), metrics derived against
 *       the previous round (hv_metrics_derive) and kept as history. Prints
 *       microseconds per domain (median over ROUNDS).
 *   flexslot-bench-host watch URI DOMAIN SECONDS
 *       Samples every 0.5 s through the hypervisor layer and prints the
 *       derived metrics of DOMAIN ("steal=... cpu_use=... vcpus=N memory_kib=N").
 *
 * Output lines start with a keyword so that bench/host.sh can pick them up. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "common/macro.h"
#include "common/parse.h"
#include "common/time-util.h"
#include "hypervisor/hypervisor.h"

#define STATS_GROUPS                                                                               \
        (VIR_DOMAIN_STATS_STATE | VIR_DOMAIN_STATS_CPU_TOTAL | VIR_DOMAIN_STATS_VCPU |             \
         VIR_DOMAIN_STATS_BALLOON)
#define MAX_ROUNDS 1000
#define MAX_PARAMS 4096

static void silent_error(void *userdata, virErrorPtr err) {
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
        virConnectClose(c);
        if (r < 0) {
                fprintf(stderr, "a sampling pass failed: %s\n", strerror(-r));
                return 1;
        }
        a = median(t_agent, (size_t)passes);
        b = median(t_calls, (size_t)passes);
        s = median(t_stats, (size_t)passes);
        printf("pass domains=%d passes=%d agent_bulk_us=%" PRIu64 " per_domain_calls_us=%" PRIu64
               " per_domain_stats_us=%" PRIu64 " calls_unsupported=%s%s\n",
               ndom, passes, a, b, s, unsupported & 1 ? "GetVcpus," : "",
               unsupported & 2 ? "MemoryStats" : (unsupported & 1 ? "" : "none"));
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

/* Advances the counters of one domain's parameters as time passing would:
 * cpu.time, vcpu.N.time and vcpu.N.delay grow by amounts that differ per
 * domain, so no two domains look alike. */
static void params_advance(virTypedParameter *p, int n, uint64_t seed) {
        for (int k = 0; k < n; k++) {
                if (p[k].type != VIR_TYPED_PARAM_ULLONG)
                        continue;
                if (strcmp(p[k].field, "cpu.time") == 0 ||
                    (strncmp(p[k].field, "vcpu.", 5) == 0 &&
                     (strstr(p[k].field, ".time") || strstr(p[k].field, ".delay"))))
                        p[k].value.ul += 100000000ULL + (seed * 7919ULL) % 50000000ULL;
        }
}

typedef struct ReplayDomain {
        char name[32], uuid[HV_UUID_STRING_MAX];
        virTypedParameter *params;
        HvDomainSample *history[2]; /* a two-deep history: previous and current */
} ReplayDomain;

static int replay_one(const Record *rec, int ndom, int rounds, double *ret_us_per_domain) {
        static usec_t t[MAX_ROUNDS];
        ReplayDomain *d = calloc((size_t)ndom, sizeof(*d));
        usec_t sampled = 1000000;
        int r = 0;

        if (!d)
                return -ENOMEM;
        for (int i = 0; i < ndom; i++) {
                snprintf(d[i].name, sizeof(d[i].name), "bench-%06d", i);
                snprintf(d[i].uuid, sizeof(d[i].uuid), "%08x-0000-4000-8000-%012x", (unsigned)i,
                         (unsigned)i);
                d[i].params = malloc(sizeof(virTypedParameter) * (size_t)rec->n);
                if (!d[i].params) {
                        r = -ENOMEM;
                        goto out;
                }
                memcpy(d[i].params, rec->params, sizeof(virTypedParameter) * (size_t)rec->n);
        }
        /* Round -1 fills the history; then the timed rounds. */
        for (int round = -1; round < rounds; round++) {
                usec_t t0;
                double checksum = 0;

                /* What a new answer from libvirt looks like: fresh counters,
                 * prepared outside the timed part. */
                for (int i = 0; i < ndom; i++)
                        params_advance(d[i].params, rec->n, (uint64_t)i + (uint64_t)round);
                sampled += USEC_PER_SEC;

                t0 = now_monotonic_usec();
                for (int i = 0; i < ndom; i++) {
                        HvDomainSample *s = malloc(sizeof(*s));
                        HvDomainMetrics m;

                        if (!s) {
                                r = -ENOMEM;
                                goto out;
                        }
                        r = hv_sample_from_params(d[i].name, d[i].uuid, d[i].params, rec->n,
                                                  sampled, s);
                        if (r < 0) {
                                free(s);
                                goto out;
                        }
                        r = hv_metrics_derive(d[i].history[1], s, &m);
                        if (r < 0) {
                                free(s);
                                goto out;
                        }
                        checksum += m.steal + m.cpu_use;
                        free(d[i].history[0]);
                        d[i].history[0] = d[i].history[1];
                        d[i].history[1] = s;
                }
                if (round >= 0)
                        t[round] = now_monotonic_usec() - t0;
                if (round >= 0 && !(checksum > 0)) {
                        fprintf(stderr, "replay: no metric was derived\n");
                        r = -EINVAL;
                        goto out;
                }
        }
        *ret_us_per_domain = (double)median(t, (size_t)rounds) / ndom;
out:
        for (int i = 0; i < ndom; i++) {
                free(d[i].params);
                free(d[i].history[0]);
                free(d[i].history[1]);
        }
        free(d);
        return r;
}

static int cmd_replay(const char *path, const char *counts, const char *rounds_s) {
        _cleanup_free_ Record *rec = malloc(sizeof(Record));
        _cleanup_free_ char *list = strdup(counts);
        char *save = NULL;
        int rounds, r;

        if (!rec || !list)
                return 1;
        if (parse_int(rounds_s, 1, MAX_ROUNDS, &rounds) < 0) {
                fprintf(stderr, "bad ROUNDS: %s\n", rounds_s);
                return 2;
        }
        r = record_load(path, rec);
        if (r < 0) {
                fprintf(stderr, "cannot load %s: %s\n", path, strerror(-r));
                return 1;
        }
        for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                int ndom;
                double us = 0;

                if (parse_int(tok, 1, 1000000, &ndom) < 0) {
                        fprintf(stderr, "bad domain count: %s\n", tok);
                        return 2;
                }
                r = replay_one(rec, ndom, rounds, &us);
                if (r < 0) {
                        fprintf(stderr, "replay of %d domains failed: %s\n", ndom, strerror(-r));
                        return 1;
                }
                printf("replay domains=%d rounds=%d params=%d us_per_domain=%.3f\n", ndom, rounds,
                       rec->n, us);
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
        virSetErrorFunc(NULL, silent_error);
        if (argc == 4 && strcmp(argv[1], "pass") == 0)
                return cmd_pass(argv[2], argv[3]);
        if (argc == 4 && strcmp(argv[1], "record") == 0)
                return cmd_record(argv[2], argv[3]);
        if (argc == 5 && strcmp(argv[1], "replay") == 0)
                return cmd_replay(argv[2], argv[3], argv[4]);
        if (argc == 5 && strcmp(argv[1], "watch") == 0)
                return cmd_watch(argv[2], argv[3], argv[4]);
        fprintf(stderr, "usage: %s pass URI PASSES | record URI DOMAIN | "
                        "replay RECORD N[,N...] ROUNDS | watch URI DOMAIN SECONDS\n",
                argv[0]);
        return 2;
}

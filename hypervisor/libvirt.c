/* SPDX-License-Identifier: MIT */
/* The libvirt backend of the driver table. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libvirt/virterror.h>

#include "common/log.h"
#include "common/macro.h"
#include "hypervisor/libvirt.h"

/* One bulk call gives all of these; groups the driver lacks (the test driver
 * has only state) are left out of its answer, not reported as errors. */
#define STATS_GROUPS                                                                   \
        (VIR_DOMAIN_STATS_STATE | VIR_DOMAIN_STATS_CPU_TOTAL | VIR_DOMAIN_STATS_VCPU | \
         VIR_DOMAIN_STATS_BALLOON)

typedef struct LvEventContext {
        HvDomainEventFunc func;
        void *userdata;
} LvEventContext;

typedef struct LvConn {
        virConnectPtr conn;
        bool shared; /* a test:///FILE connection (see lv_connect) */
        /* Set by the close callback from the event thread. libvirt calls the
         * callback under the lock that unregistering takes, so it never runs
         * after lv_close unregistered it. Local drivers accept the callback
         * but never call it (nor its free function: no ownership to hand). */
        atomic_bool closed;
        bool close_callback;
        int lifecycle_id; /* -1 = no lifecycle callback */
} LvConn;

static atomic_bool event_loop_running;

static void domain_unrefp(virDomainPtr *d) {
        if (*d)
                virDomainFree(*d);
}
#define _cleanup_domain_ _cleanup_(domain_unrefp)

/* libvirt prints every error to stderr by default; errors are turned into
 * errno values and messages here and logged by whoever handles them. */
static void ignore_libvirt_error(void *userdata, virErrorPtr error) {
}

static void libvirt_init_once(void) {
        if (virInitialize() < 0)
                log_error("Initializing libvirt failed");
        virSetErrorFunc(NULL, ignore_libvirt_error);
}

static void libvirt_init(void) {
        static pthread_once_t once = PTHREAD_ONCE_INIT;

        pthread_once(&once, libvirt_init_once);
}

static void *event_loop_thread(void *arg) {
        while (virEventRunDefaultImpl() >= 0)
                ;
        log_error("libvirt event loop failed, keepalive and domain events stop");
        atomic_store(&event_loop_running, false);
        return NULL;
}

static int event_loop_result;

static void event_loop_start_once(void) {
        pthread_attr_t attr;
        pthread_t thread;
        int r;

        libvirt_init();
        if (virEventRegisterDefaultImpl() < 0) {
                event_loop_result = -EIO;
                return;
        }
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        r = pthread_create(&thread, &attr, event_loop_thread, NULL);
        pthread_attr_destroy(&attr);
        if (r != 0) {
                event_loop_result = -r;
                return;
        }
        atomic_store(&event_loop_running, true);
}

int hv_event_loop_start(void) {
        static pthread_once_t once = PTHREAD_ONCE_INIT;

        pthread_once(&once, event_loop_start_once);
        return event_loop_result;
}

static int errno_from_libvirt(int code, int domain) {
        switch (code) {
        case VIR_ERR_NO_DOMAIN:
                return -ENOENT;
        case VIR_ERR_OPERATION_INVALID:
                return -ESRCH;
        case VIR_ERR_INVALID_ARG:
        case VIR_ERR_XML_ERROR:
        case VIR_ERR_CONFIG_UNSUPPORTED:
                return -EINVAL;
        case VIR_ERR_NO_SUPPORT:
        case VIR_ERR_NO_CONNECT:
        case VIR_ERR_OPERATION_UNSUPPORTED:
        case VIR_ERR_ARGUMENT_UNSUPPORTED:
                return -EOPNOTSUPP;
        case VIR_ERR_AUTH_FAILED:
        case VIR_ERR_AUTH_CANCELLED:
        case VIR_ERR_AUTH_UNAVAILABLE:
        case VIR_ERR_OPERATION_DENIED:
        case VIR_ERR_ACCESS_DENIED:
                return -EPERM;
        case VIR_ERR_OPERATION_TIMEOUT:
        case VIR_ERR_AGENT_UNRESPONSIVE:
                return -ETIMEDOUT;
        case VIR_ERR_RPC:
        case VIR_ERR_INVALID_CONN:
                return -ENOTCONN;
        case VIR_ERR_SYSTEM_ERROR:
                /* A socket that cannot be reached or broke. */
                return domain == VIR_FROM_RPC || domain == VIR_FROM_REMOTE ? -ENOTCONN : -EIO;
        default:
                return -EIO;
        }
}

/* Turns libvirt's last error into an errno value and the connection's
 * message. A failure on a connection that died is a lost connection,
 * whatever libvirt called it. */
static int lv_error(HvConnection *hc, virConnectPtr conn, const char *what) {
        virErrorPtr e = virGetLastError();
        int r = errno_from_libvirt(e ? e->code : VIR_ERR_INTERNAL_ERROR,
                                   e ? e->domain : VIR_FROM_NONE);

        hv_connection_set_last_error(hc, "%s", e && e->message ? e->message : what);
        log_debug("%s: %s", what, hv_connection_get_last_error(hc));
        if (r != -ENOTCONN && conn && virConnectIsAlive(conn) == 0)
                r = -ENOTCONN;
        virResetLastError();
        return r;
}

static LvConn *lv_get(HvConnection *hc) {
        return hv_connection_get_private(hc);
}

static void on_close(virConnectPtr conn, int reason, void *opaque) {
        atomic_store((atomic_bool *)opaque, true);
}

static HvDomainEvent event_from_libvirt(int event, int detail) {
        switch (event) {
        case VIR_DOMAIN_EVENT_DEFINED:
                return detail == VIR_DOMAIN_EVENT_DEFINED_ADDED ? HV_EVENT_DEFINED : HV_EVENT_OTHER;
        case VIR_DOMAIN_EVENT_UNDEFINED:
                return HV_EVENT_UNDEFINED;
        case VIR_DOMAIN_EVENT_STARTED:
                return HV_EVENT_STARTED;
        case VIR_DOMAIN_EVENT_STOPPED:
                return HV_EVENT_STOPPED;
        default:
                return HV_EVENT_OTHER;
        }
}

static int on_lifecycle(virConnectPtr conn, virDomainPtr dom, int event, int detail, void *opaque) {
        const LvEventContext *ctx = opaque;

        ctx->func(virDomainGetName(dom), event_from_libvirt(event, detail), ctx->userdata);
        return 0;
}

/* Close callback, keepalive and domain events all need the event loop;
 * drivers without them (test:///, local qemu:/// in-process) refuse the
 * first two, which only means there is no remote link to watch. */
static void lv_watch(HvConnection *hc, LvConn *lv) {
        const HvConnectOptions *o = hv_connection_get_options(hc);
        _cleanup_free_ LvEventContext *ctx = NULL;

        if (!atomic_load(&event_loop_running))
                return;

        if (virConnectRegisterCloseCallback(lv->conn, on_close, &lv->closed, NULL) == 0)
                lv->close_callback = true;
        if (virConnectSetKeepAlive(lv->conn, o->keepalive_interval_sec, o->keepalive_count) < 0)
                log_debug("No keepalive on %s", hv_connection_get_uri(hc));
        virResetLastError();

        if (!o->on_domain_event)
                return;
        ctx = calloc(1, sizeof(*ctx));
        if (!ctx) {
                log_oom();
                return;
        }
        *ctx = (LvEventContext){ o->on_domain_event, o->userdata };
        lv->lifecycle_id = virConnectDomainEventRegisterAny(
                lv->conn, NULL, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
                VIR_DOMAIN_EVENT_CALLBACK(on_lifecycle), ctx, free);
        if (lv->lifecycle_id < 0) {
                log_warning("No domain events from %s: %s", hv_connection_get_uri(hc),
                            virGetLastErrorMessage());
                virResetLastError();
                return;
        }
        ctx = NULL; /* libvirt frees it */
}

/* libvirt's in-process test driver gives every open of test:///FILE a copy
 * of its own of the host FILE describes, where a real hypervisor is one
 * host however many connections reach it. Opens of one test:///FILE in a
 * process share the first one's libvirt connection (libvirt connections
 * may be used from several threads), so that callers with a connection
 * each, such as the agent's collector and actuator, see one host there as
 * they would on a real one. libvirt shares test:///default itself. */
typedef struct LvShared {
        struct LvShared *next;
        char *uri;
        virConnectPtr conn; /* each user holds a reference */
        unsigned users;
} LvShared;

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static LvShared *shared_conns;

static bool is_shared_uri(const char *uri) {
        return strncmp(uri, "test:///", 8) == 0 && strcmp(uri, "test:///default") != 0;
}

static virConnectPtr lv_connect(const char *uri, bool *ret_shared) {
        LvShared *s;
        virConnectPtr conn = NULL;

        *ret_shared = false;
        if (!is_shared_uri(uri))
                return virConnectOpen(uri);
        pthread_mutex_lock(&shared_lock);
        for (s = shared_conns; s && strcmp(s->uri, uri) != 0; s = s->next)
                ;
        if (s) {
                if (virConnectRef(s->conn) == 0) {
                        s->users++;
                        conn = s->conn;
                }
        } else {
                s = calloc(1, sizeof(*s));
                if (s && (s->uri = strdup(uri)) && (conn = virConnectOpen(uri))) {
                        s->conn = conn;
                        s->users = 1;
                        s->next = shared_conns;
                        shared_conns = s;
                } else if (s) {
                        free(s->uri);
                        free(s);
                }
        }
        pthread_mutex_unlock(&shared_lock);
        *ret_shared = conn != NULL;
        return conn;
}

static void lv_disconnect(LvConn *lv) {
        if (lv->shared) {
                pthread_mutex_lock(&shared_lock);
                for (LvShared **p = &shared_conns; *p; p = &(*p)->next)
                        if ((*p)->conn == lv->conn) {
                                LvShared *s = *p;

                                if (--s->users == 0) {
                                        *p = s->next;
                                        free(s->uri);
                                        free(s);
                                }
                                break;
                        }
                pthread_mutex_unlock(&shared_lock);
        }
        virConnectClose(lv->conn);
}

static int lv_open(HvConnection *hc, const char *uri, unsigned flags) {
        virConnectPtr conn;
        LvConn *lv;
        bool shared;

        libvirt_init();
        conn = lv_connect(uri, &shared);
        if (!conn)
                return lv_error(hc, NULL, "open");
        lv = calloc(1, sizeof(*lv));
        if (!lv) {
                LvConn tmp = { .conn = conn, .shared = shared };
                lv_disconnect(&tmp);
                return -ENOMEM;
        }
        lv->conn = conn;
        lv->shared = shared;
        lv->lifecycle_id = -1;
        lv_watch(hc, lv);
        hv_connection_set_private(hc, lv);
        return 0;
}

static void lv_close(HvConnection *hc) {
        LvConn *lv = lv_get(hc);

        if (!lv)
                return;
        if (lv->lifecycle_id >= 0)
                virConnectDomainEventDeregisterAny(lv->conn, lv->lifecycle_id);
        if (lv->close_callback)
                virConnectUnregisterCloseCallback(lv->conn, on_close);
        lv_disconnect(lv);
        virResetLastError();
        free(lv);
        hv_connection_set_private(hc, NULL);
}

static bool lv_is_alive(HvConnection *hc) {
        LvConn *lv = lv_get(hc);

        if (atomic_load(&lv->closed))
                return false;
        return virConnectIsAlive(lv->conn) == 1;
}

static bool looks_like_uuid(const char *s) {
        static const char pattern[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";

        if (strlen(s) != sizeof(pattern) - 1)
                return false;
        for (size_t i = 0; pattern[i]; i++)
                if (pattern[i] == '-' ? s[i] != '-' : !strchr("0123456789abcdefABCDEF", s[i]))
                        return false;
        return true;
}

/* A UUID string names the domain with that UUID, else the name is tried. */
static int lv_lookup(HvConnection *hc, const char *domain, virDomainPtr *ret) {
        virConnectPtr conn = lv_get(hc)->conn;
        virDomainPtr d = NULL;

        if (looks_like_uuid(domain))
                d = virDomainLookupByUUIDString(conn, domain);
        if (!d)
                d = virDomainLookupByName(conn, domain);
        if (!d)
                return lv_error(hc, conn, "lookup");
        *ret = d;
        return 0;
}

static int copy_name(char *dest, size_t size, const char *name) {
        if (!name || strlen(name) >= size)
                return -EINVAL;
        strcpy(dest, name);
        return 0;
}

static int lv_list_domains(HvConnection *hc, unsigned flags, HvDomainRef **ret, size_t *ret_n) {
        virConnectPtr conn = lv_get(hc)->conn;
        virDomainPtr *doms = NULL;
        _cleanup_free_ HvDomainRef *refs = NULL;
        size_t n_refs = 0;
        int n, r = 0;

        n = virConnectListAllDomains(conn, &doms, 0);
        if (n < 0)
                return lv_error(hc, conn, "list domains");
        refs = calloc((size_t)MAX(n, 1), sizeof(*refs));
        if (!refs)
                r = -ENOMEM;
        for (int i = 0; i < n; i++) {
                HvDomainRef *ref = &refs[n_refs];
                int state, reason, active, persistent;

                if (r < 0 ||
                    copy_name(ref->name, sizeof(ref->name), virDomainGetName(doms[i])) < 0 ||
                    virDomainGetUUIDString(doms[i], ref->uuid) < 0)
                        continue;
                if (virDomainGetState(doms[i], &state, &reason, 0) < 0 ||
                    (active = virDomainIsActive(doms[i])) < 0 ||
                    (persistent = virDomainIsPersistent(doms[i])) < 0) {
                        int e = lv_error(hc, conn, "domain state");

                        /* Gone since the list was made: not an error of the list. */
                        if (e != -ENOENT)
                                r = e;
                        continue;
                }
                ref->state = (HvDomainState)state;
                ref->active = active;
                ref->persistent = persistent;
                n_refs++;
        }
        for (int i = 0; i < n; i++)
                virDomainFree(doms[i]);
        free(doms);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(refs);
        *ret_n = n_refs;
        return 0;
}

static int lv_sample_all(HvConnection *hc, unsigned flags, HvDomainSample **ret, size_t *ret_n) {
        virConnectPtr conn = lv_get(hc)->conn;
        virDomainStatsRecordPtr *records = NULL;
        _cleanup_free_ HvDomainSample *samples = NULL;
        size_t n_samples = 0;
        usec_t start, end, middle;
        int n;

        start = now_monotonic_usec();
        /* NOWAIT: a domain stuck in a job (migration, a hung monitor) gives
         * what it can without its job lock instead of blocking the round. */
        n = virConnectGetAllDomainStats(conn, STATS_GROUPS, &records,
                                        VIR_CONNECT_GET_ALL_DOMAINS_STATS_NOWAIT);
        if (n < 0)
                return lv_error(hc, conn, "domain stats");
        end = now_monotonic_usec();
        middle = start + (end - start) / 2;

        samples = calloc((size_t)MAX(n, 1), sizeof(*samples));
        if (!samples) {
                virDomainStatsRecordListFree(records);
                return -ENOMEM;
        }
        for (int i = 0; i < n; i++) {
                char uuid[VIR_UUID_STRING_BUFLEN] = "";
                const char *name = virDomainGetName(records[i]->dom);

                (void)virDomainGetUUIDString(records[i]->dom, uuid);
                if (hv_sample_from_params(name, uuid, records[i]->params, records[i]->nparams,
                                          middle, &samples[n_samples]) < 0) {
                        log_warning("Skipping domain with unusable name '%s'", name ? name : "");
                        continue;
                }
                samples[n_samples++].span_usec = end - start;
        }
        virDomainStatsRecordListFree(records);
        *ret = TAKE_PTR(samples);
        *ret_n = n_samples;
        return 0;
}

/* A quota libvirt answered; <= 0: none. */
static int64_t quota_of(long long quota) {
        return quota > HV_QUOTA_MAX ? -1 : quota;
}

/* A pair of quota and period, when both are there. */
static bool quota_pair(virTypedParameter *params, int n, const char *quota_field,
                       const char *period_field, int64_t *ret_quota, uint64_t *ret_period) {
        unsigned long long period;
        long long quota;

        if (virTypedParamsGetLLong(params, n, quota_field, &quota) != 1 ||
            virTypedParamsGetULLong(params, n, period_field, &period) != 1)
                return false;
        *ret_quota = quota_of(quota);
        *ret_period = period;
        return true;
}

void hv_sched_from_params(virTypedParameter *params, int n, HvDomainInfo *info) {
        unsigned long long shares;

        if (virTypedParamsGetULLong(params, n, VIR_DOMAIN_SCHEDULER_CPU_SHARES, &shares) == 1) {
                info->cpu_shares = shares;
                info->fields |= HV_INFO_CPU_WEIGHT;
        }
        if (quota_pair(params, n, VIR_DOMAIN_SCHEDULER_VCPU_QUOTA, VIR_DOMAIN_SCHEDULER_VCPU_PERIOD,
                       &info->vcpu_quota_usec, &info->vcpu_period_usec))
                info->fields |= HV_INFO_QUOTA;
        if (quota_pair(params, n, VIR_DOMAIN_SCHEDULER_GLOBAL_QUOTA,
                       VIR_DOMAIN_SCHEDULER_GLOBAL_PERIOD, &info->global_quota_usec,
                       &info->global_period_usec))
                info->fields |= HV_INFO_GLOBAL_QUOTA;
}

/* Reads cpu_shares, vcpu_quota and vcpu_period, global_quota and
 * global_period where the driver has them. */
static int lv_get_sched(HvConnection *hc, virDomainPtr d, HvDomainInfo *info) {
        virConnectPtr conn = lv_get(hc)->conn;
        _cleanup_free_ virTypedParameter *params = NULL;
        _cleanup_free_ char *type = NULL;
        int n = 0, r;

        type = virDomainGetSchedulerType(d, &n);
        if (!type) {
                r = lv_error(hc, conn, "scheduler type");
                return r == -EOPNOTSUPP ? 0 : r;
        }
        if (n <= 0)
                return 0;
        params = calloc((size_t)n, sizeof(*params));
        if (!params)
                return -ENOMEM;
        /* Without flags: the test driver refuses the flags the *Flags
         * variant adds, and "current" is what is wanted anyway. */
        if (virDomainGetSchedulerParameters(d, params, &n) < 0) {
                r = lv_error(hc, conn, "scheduler parameters");
                return r == -EOPNOTSUPP ? 0 : r;
        }
        hv_sched_from_params(params, n, info);
        virTypedParamsClear(params, n);
        virResetLastError();
        return 0;
}

static int lv_domain_info(HvConnection *hc, virDomainPtr d, HvDomainInfo *ret) {
        virConnectPtr conn = lv_get(hc)->conn;
        HvDomainInfo info = { 0 };
        virDomainInfo vi;
        int max, r;

        if (copy_name(info.name, sizeof(info.name), virDomainGetName(d)) < 0)
                return -EINVAL;
        if (virDomainGetUUIDString(d, info.uuid) < 0 || virDomainGetInfo(d, &vi) < 0)
                return lv_error(hc, conn, "domain info");
        max = virDomainGetVcpusFlags(d, VIR_DOMAIN_VCPU_MAXIMUM);
        if (max < 0)
                return lv_error(hc, conn, "maximum vCPUs");
        info.state = (HvDomainState)vi.state;
        info.vcpus_current = vi.nrVirtCpu;
        info.vcpus_max = (unsigned)max;
        info.memory_kib = vi.memory;
        info.memory_max_kib = vi.maxMem;
        r = lv_get_sched(hc, d, &info);
        if (r < 0)
                return r;
        *ret = info;
        return 0;
}

static int lv_domain_get_info(HvConnection *hc, const char *domain, unsigned flags,
                              HvDomainInfo *ret) {
        _cleanup_domain_ virDomainPtr d = NULL;
        int r;

        r = lv_lookup(hc, domain, &d);
        if (r < 0)
                return r;
        return lv_domain_info(hc, d, ret);
}

static int lv_domain_set_vcpus(HvConnection *hc, const char *domain, unsigned vcpus, unsigned flags,
                               unsigned *ret_vcpus) {
        virConnectPtr conn = lv_get(hc)->conn;
        _cleanup_domain_ virDomainPtr d = NULL;
        int r, got;

        r = lv_lookup(hc, domain, &d);
        if (r < 0)
                return r;
        if (virDomainSetVcpusFlags(d, vcpus, VIR_DOMAIN_AFFECT_LIVE) < 0)
                return lv_error(hc, conn, "set vCPUs");
        got = virDomainGetVcpusFlags(d, VIR_DOMAIN_AFFECT_LIVE);
        if (got < 0)
                return lv_error(hc, conn, "read back vCPUs");
        *ret_vcpus = (unsigned)got;
        return 0;
}

static int lv_domain_set_memory(HvConnection *hc, const char *domain, uint64_t kib, unsigned flags,
                                uint64_t *ret_kib) {
        virConnectPtr conn = lv_get(hc)->conn;
        _cleanup_domain_ virDomainPtr d = NULL;
        virDomainInfo vi;
        int r;

        if (kib > ULONG_MAX)
                return -EINVAL;
        r = lv_lookup(hc, domain, &d);
        if (r < 0)
                return r;
        if (virDomainSetMemoryFlags(d, (unsigned long)kib, VIR_DOMAIN_AFFECT_LIVE) < 0)
                return lv_error(hc, conn, "set memory");
        if (virDomainGetInfo(d, &vi) < 0)
                return lv_error(hc, conn, "read back memory");
        *ret_kib = vi.memory;
        return 0;
}

/* Applies scheduler parameters live after checking that the domain's
 * scheduler has them (need: HvInfoField bits), and reads them back. A
 * refusal names the last parameter, the one the change is for. */
static int lv_set_sched(HvConnection *hc, const char *domain, virTypedParameter *params, int n,
                        unsigned need, HvDomainInfo *ret_info) {
        virConnectPtr conn = lv_get(hc)->conn;
        _cleanup_domain_ virDomainPtr d = NULL;
        HvDomainInfo info = { 0 };
        int r;

        r = lv_lookup(hc, domain, &d);
        if (r < 0)
                return r;
        r = lv_domain_info(hc, d, &info);
        if (r < 0)
                return r;
        if ((info.fields & need) != need) {
                hv_connection_set_last_error(hc, "%s has no %s scheduler parameter", domain,
                                             params[n - 1].field);
                return -EOPNOTSUPP;
        }
        if (virDomainSetSchedulerParametersFlags(d, params, n, VIR_DOMAIN_AFFECT_LIVE) < 0)
                return lv_error(hc, conn, "set scheduler parameters");
        return lv_domain_info(hc, d, ret_info);
}

static void param_set(virTypedParameter *p, const char *field, int type) {
        memset(p, 0, sizeof(*p));
        snprintf(p->field, sizeof(p->field), "%s", field);
        p->type = type;
}

static int lv_domain_set_cpu_weight(HvConnection *hc, const char *domain, uint64_t shares,
                                    unsigned flags, uint64_t *ret_shares) {
        virTypedParameter p;
        HvDomainInfo info = { 0 };
        int r;

        param_set(&p, VIR_DOMAIN_SCHEDULER_CPU_SHARES, VIR_TYPED_PARAM_ULLONG);
        p.value.ul = shares;
        r = lv_set_sched(hc, domain, &p, 1, HV_INFO_CPU_WEIGHT, &info);
        if (r < 0)
                return r;
        *ret_shares = info.cpu_shares;
        return 0;
}

static int lv_domain_set_quota(HvConnection *hc, const char *domain, int64_t quota_usec,
                               uint64_t period_usec, unsigned flags, int64_t *ret_quota_usec,
                               uint64_t *ret_period_usec) {
        bool global = flags & HV_QUOTA_GLOBAL;
        virTypedParameter p[3];
        HvDomainInfo info = { 0 };
        int n = 0, r;

        /* First, as libvirt applies them in order: under cgroup v1 the
         * domain's quota may not be set below a vCPU's. */
        if (global) {
                param_set(&p[n], VIR_DOMAIN_SCHEDULER_VCPU_QUOTA, VIR_TYPED_PARAM_LLONG);
                p[n++].value.l = -1;
        }
        param_set(&p[n],
                  global ? VIR_DOMAIN_SCHEDULER_GLOBAL_PERIOD : VIR_DOMAIN_SCHEDULER_VCPU_PERIOD,
                  VIR_TYPED_PARAM_ULLONG);
        p[n++].value.ul = period_usec;
        param_set(&p[n],
                  global ? VIR_DOMAIN_SCHEDULER_GLOBAL_QUOTA : VIR_DOMAIN_SCHEDULER_VCPU_QUOTA,
                  VIR_TYPED_PARAM_LLONG);
        p[n++].value.l = quota_usec;
        r = lv_set_sched(hc, domain, p, n,
                         global ? HV_INFO_GLOBAL_QUOTA | HV_INFO_QUOTA : HV_INFO_QUOTA, &info);
        if (r < 0)
                return r;
        *ret_quota_usec = global ? info.global_quota_usec : info.vcpu_quota_usec;
        *ret_period_usec = global ? info.global_period_usec : info.vcpu_period_usec;
        return 0;
}

static int lv_domain_get_metadata(HvConnection *hc, const char *domain, const char *ns_uri,
                                  unsigned flags, char **ret) {
        _cleanup_domain_ virDomainPtr d = NULL;
        virErrorPtr e;
        char *xml;
        int r;

        r = lv_lookup(hc, domain, &d);
        if (r < 0)
                return r;
        xml = virDomainGetMetadata(d, VIR_DOMAIN_METADATA_ELEMENT, ns_uri,
                                   VIR_DOMAIN_AFFECT_CURRENT);
        if (!xml) {
                /* No element of the namespace: nothing set, not a failure. */
                e = virGetLastError();
                if (!e || e->code != VIR_ERR_NO_DOMAIN_METADATA)
                        return lv_error(hc, lv_get(hc)->conn, "domain metadata");
                virResetLastError();
        }
        *ret = xml;
        return 0;
}

int hv_cpu_list_count(const char *list, unsigned *ret) {
        unsigned n = 0;

        for (const char *p = list; *p;) {
                char *end;
                unsigned long first, last;

                if (*p < '0' || *p > '9')
                        return -EINVAL;
                first = last = strtoul(p, &end, 10);
                if (*end == '-') {
                        if (end[1] < '0' || end[1] > '9')
                                return -EINVAL;
                        last = strtoul(end + 1, &end, 10);
                }
                /* No guest has CPU ids anywhere near 2^16 (KVM's limit is 4096). */
                if (last < first || last > UINT16_MAX || (*end != ',' && *end != '\0') ||
                    (*end == ',' && end[1] == '\0'))
                        return -EINVAL;
                n += (unsigned)(last - first + 1);
                p = *end ? end + 1 : end;
        }
        *ret = n;
        return 0;
}

/* The guest agent's failures by what they mean here: libvirt reports a
 * domain without the agent's channel as an unsupported argument, and one
 * whose agent is not connected or did not answer as unresponsive. */
static int guest_agent_error(HvConnection *hc, virConnectPtr conn, const char *what) {
        virErrorPtr e = virGetLastError();
        bool no_channel = e && e->code == VIR_ERR_ARGUMENT_UNSUPPORTED;
        int r = lv_error(hc, conn, what);

        return no_channel && r == -EOPNOTSUPP ? -ENODEV : r;
}

static int lv_domain_guest_vcpus(HvConnection *hc, const char *domain, usec_t timeout,
                                 unsigned flags, unsigned *ret_online) {
        virConnectPtr conn = lv_get(hc)->conn;
        _cleanup_domain_ virDomainPtr d = NULL;
        virTypedParameterPtr params = NULL;
        const char *online = NULL;
        unsigned n = 0;
        int r;

        r = lv_lookup(hc, domain, &d);
        if (r < 0)
                return r;
        /* Not fatal: a driver without it still answers, unbounded. */
        if (virDomainAgentSetResponseTimeout(d, (int)(timeout / USEC_PER_SEC), 0) < 0) {
                log_debug("No guest agent response timeout for %s: %s", domain,
                          virGetLastErrorMessage());
                virResetLastError();
        }
        if (virDomainGetGuestVcpus(d, &params, &n, 0) < 0)
                return guest_agent_error(hc, conn, "guest agent's vCPUs");
        if (virTypedParamsGetString(params, (int)n, "online", &online) != 1 || !online)
                r = -EIO;
        else
                r = hv_cpu_list_count(online, ret_online) < 0 ? -EIO : 0;
        if (r < 0)
                hv_connection_set_last_error(hc, "the guest agent's answer has no list of vCPUs "
                                                 "online");
        virTypedParamsFree(params, (int)n);
        return r;
}

const HypervisorDriver hv_libvirt_driver = {
        .name = "libvirt",
        .open = lv_open,
        .close = lv_close,
        .is_alive = lv_is_alive,
        .list_domains = lv_list_domains,
        .sample_all = lv_sample_all,
        .domain_get_info = lv_domain_get_info,
        .domain_set_vcpus = lv_domain_set_vcpus,
        .domain_set_memory = lv_domain_set_memory,
        .domain_set_cpu_weight = lv_domain_set_cpu_weight,
        .domain_set_quota = lv_domain_set_quota,
        .domain_get_metadata = lv_domain_get_metadata,
        .domain_guest_vcpus = lv_domain_guest_vcpus,
};

/* SPDX-License-Identifier: MIT */
/* The dispatch layer: argument and flag checks once for every driver, the
 * unplug policy, and reconnect with back-off around every operation. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/backoff.h"
#include "common/log.h"
#include "common/macro.h"
#include "hypervisor.h"

#define BACKOFF_INITIAL_DEFAULT (1 * USEC_PER_SEC)
#define BACKOFF_MAX_DEFAULT (60 * USEC_PER_SEC)
#define KEEPALIVE_INTERVAL_DEFAULT 5
#define KEEPALIVE_COUNT_DEFAULT 3

/* libvirt's widest accepted ranges; the host narrows them (cgroup v1
 * cpu.shares 2..262144, v2 cpu.weight 1..10000) and says so in its error. */
#define CPU_SHARES_MIN 1
#define CPU_SHARES_MAX 262144
#define VCPU_PERIOD_MIN 1000
#define VCPU_PERIOD_MAX 1000000
#define VCPU_QUOTA_MIN 1000

struct HvConnection {
        const HypervisorDriver *driver;
        char *uri;
        unsigned flags;
        HvConnectOptions options;
        Backoff backoff;
        bool connected;
        void *priv;
        char last_error[256];
};

static usec_t conn_now(const HvConnection *conn) {
        return conn->options.clock ? conn->options.clock(conn->options.userdata)
                                   : now_monotonic_usec();
}

static void conn_lost(HvConnection *conn) {
        if (!conn->connected)
                return;
        log_warning("Connection to %s lost, reconnecting", conn->uri);
        conn->driver->close(conn);
        conn->connected = false;
}

/* Makes sure the connection works before an operation: notices a loss the
 * driver saw (close callback, keepalive) and reconnects when the back-off
 * allows. */
static int conn_begin(HvConnection *conn) {
        usec_t now;
        int r;

        conn->last_error[0] = '\0';
        if (conn->connected && conn->driver->is_alive && !conn->driver->is_alive(conn))
                conn_lost(conn);
        if (conn->connected)
                return 0;

        now = conn_now(conn);
        if (!backoff_due(&conn->backoff, now)) {
                hv_connection_set_last_error(conn, "not connected to %s", conn->uri);
                return -ENOTCONN;
        }
        r = conn->driver->open(conn, conn->uri, conn->flags);
        if (r < 0) {
                backoff_failed(&conn->backoff, now);
                log_debug_errno(r, "Reconnecting to %s failed (%u in a row), next try in %.1fs",
                                conn->uri, conn->backoff.failures,
                                usec_to_sec(conn->backoff.next_attempt - now));
                return -ENOTCONN;
        }
        if (conn->backoff.failures > 0)
                log_notice("Reconnected to %s after %u failed attempts", conn->uri,
                           conn->backoff.failures);
        backoff_succeeded(&conn->backoff);
        conn->connected = true;
        return 0;
}

/* After an operation: a driver that found the connection gone says so with
 * -ENOTCONN; the next call reconnects. A success clears messages of errors
 * the driver handled on the way (a domain that vanished while listing). */
static int conn_end(HvConnection *conn, int r) {
        if (r == -ENOTCONN)
                conn_lost(conn);
        if (r >= 0)
                conn->last_error[0] = '\0';
        return r;
}

int hv_connection_open_driver(const HypervisorDriver *driver, const char *uri,
                              const HvConnectOptions *options, unsigned flags, HvConnection **ret) {
        _cleanup_free_ HvConnection *conn = NULL;
        int r;

        if (!driver || !driver->open || !driver->close || !uri || !ret ||
            (flags & ~(unsigned)HV_CONNECT_LAZY))
                return -EINVAL;

        conn = calloc(1, sizeof(*conn));
        if (!conn)
                return -ENOMEM;
        conn->driver = driver;
        conn->flags = flags;
        if (options)
                conn->options = *options;
        if (conn->options.backoff_initial == 0)
                conn->options.backoff_initial = BACKOFF_INITIAL_DEFAULT;
        if (conn->options.backoff_max == 0)
                conn->options.backoff_max = MAX(BACKOFF_MAX_DEFAULT, conn->options.backoff_initial);
        if (conn->options.keepalive_interval_sec <= 0)
                conn->options.keepalive_interval_sec = KEEPALIVE_INTERVAL_DEFAULT;
        if (conn->options.keepalive_count == 0)
                conn->options.keepalive_count = KEEPALIVE_COUNT_DEFAULT;
        r = backoff_init(&conn->backoff, conn->options.backoff_initial, conn->options.backoff_max);
        if (r < 0)
                return r;
        conn->uri = strdup(uri);
        if (!conn->uri)
                return -ENOMEM;

        r = driver->open(conn, uri, flags);
        if (r == -ENOTCONN && (flags & HV_CONNECT_LAZY)) {
                backoff_failed(&conn->backoff, conn_now(conn));
                log_warning("Cannot connect to %s yet, retrying in the background", uri);
        } else if (r < 0) {
                free(conn->uri);
                return r;
        } else
                conn->connected = true;

        *ret = TAKE_PTR(conn);
        return 0;
}

int hv_connection_open(const char *uri, const HvConnectOptions *options, unsigned flags,
                       HvConnection **ret) {
        return hv_connection_open_driver(&hv_libvirt_driver, uri, options, flags, ret);
}

HvConnection *hv_connection_free(HvConnection *conn) {
        if (!conn)
                return NULL;
        if (conn->connected)
                conn->driver->close(conn);
        free(conn->uri);
        free(conn);
        return NULL;
}

const char *hv_connection_get_uri(const HvConnection *conn) {
        return conn->uri;
}

bool hv_connection_is_connected(const HvConnection *conn) {
        return conn->connected;
}

unsigned hv_connection_get_failures(const HvConnection *conn) {
        return conn->backoff.failures;
}

const char *hv_connection_get_last_error(const HvConnection *conn) {
        return conn->last_error;
}

void hv_connection_set_last_error(HvConnection *conn, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(conn->last_error, sizeof(conn->last_error), fmt, ap);
        va_end(ap);
}

void *hv_connection_get_private(const HvConnection *conn) {
        return conn->priv;
}

void hv_connection_set_private(HvConnection *conn, void *data) {
        conn->priv = data;
}

const HvConnectOptions *hv_connection_get_options(const HvConnection *conn) {
        return &conn->options;
}

/* The driver's operation, or NULL when there is no connection to ask. */
#define DRIVER_OP(conn, op) ((conn) ? (conn)->driver->op : NULL)

/* Checks shared by every operation, then makes sure the connection works;
 * returns 0 to go on. */
static int op_begin(HvConnection *conn, const void *op, unsigned flags, unsigned allowed_flags) {
        if (!conn || (flags & ~allowed_flags))
                return -EINVAL;
        if (!op) {
                hv_connection_set_last_error(conn, "%s driver does not support this",
                                             conn->driver->name);
                return -EOPNOTSUPP;
        }
        return conn_begin(conn);
}

static int domain_op_begin(HvConnection *conn, const void *op, const char *domain, unsigned flags,
                           unsigned allowed_flags) {
        if (!domain || domain[0] == '\0')
                return -EINVAL;
        return op_begin(conn, op, flags, allowed_flags);
}

int hv_domain_list(HvConnection *conn, unsigned flags, HvDomainRef **ret, size_t *ret_n) {
        int r;

        if (!ret || !ret_n)
                return -EINVAL;
        r = op_begin(conn, DRIVER_OP(conn, list_domains), flags, 0);
        if (r < 0)
                return r;
        return conn_end(conn, conn->driver->list_domains(conn, flags, ret, ret_n));
}

int hv_sample_all(HvConnection *conn, unsigned flags, HvDomainSample **ret, size_t *ret_n) {
        int r;

        if (!ret || !ret_n)
                return -EINVAL;
        r = op_begin(conn, DRIVER_OP(conn, sample_all), flags, 0);
        if (r < 0)
                return r;
        return conn_end(conn, conn->driver->sample_all(conn, flags, ret, ret_n));
}

int hv_domain_get_info(HvConnection *conn, const char *domain, unsigned flags, HvDomainInfo *ret) {
        int r;

        if (!ret)
                return -EINVAL;
        r = domain_op_begin(conn, DRIVER_OP(conn, domain_get_info), domain, flags, 0);
        if (r < 0)
                return r;
        return conn_end(conn, conn->driver->domain_get_info(conn, domain, flags, ret));
}

int hv_domain_set_vcpus(HvConnection *conn, const char *domain, unsigned vcpus, unsigned flags,
                        unsigned *ret_vcpus) {
        HvDomainInfo info;
        unsigned got;
        int r;

        if (vcpus == 0)
                return -EINVAL;
        r = domain_op_begin(conn, DRIVER_OP(conn, domain_set_vcpus), domain, flags,
                            HV_VCPUS_ALLOW_UNPLUG);
        if (r < 0)
                return r;
        /* The unplug policy needs the current count, whatever the driver. */
        r = hv_domain_get_info(conn, domain, 0, &info);
        if (r < 0)
                return r;
        if (vcpus > info.vcpus_max) {
                hv_connection_set_last_error(conn, "%u vCPUs requested, %s has at most %u", vcpus,
                                             domain, info.vcpus_max);
                return -EINVAL;
        }
        if (vcpus < info.vcpus_current && !(flags & HV_VCPUS_ALLOW_UNPLUG)) {
                hv_connection_set_last_error(conn,
                                             "unplugging vCPUs of %s (%u -> %u) is not allowed",
                                             domain, info.vcpus_current, vcpus);
                return -EPERM;
        }
        r = conn_end(conn, conn->driver->domain_set_vcpus(conn, domain, vcpus, flags, &got));
        if (r < 0)
                return r;
        if (ret_vcpus)
                *ret_vcpus = got;
        return 0;
}

int hv_domain_set_memory(HvConnection *conn, const char *domain, uint64_t kib, unsigned flags,
                         uint64_t *ret_kib) {
        uint64_t got;
        int r;

        if (kib == 0)
                return -EINVAL;
        r = domain_op_begin(conn, DRIVER_OP(conn, domain_set_memory), domain, flags, 0);
        if (r < 0)
                return r;
        r = conn_end(conn, conn->driver->domain_set_memory(conn, domain, kib, flags, &got));
        if (r < 0)
                return r;
        if (ret_kib)
                *ret_kib = got;
        return 0;
}

int hv_domain_set_cpu_weight(HvConnection *conn, const char *domain, uint64_t shares,
                             unsigned flags, uint64_t *ret_shares) {
        uint64_t got;
        int r;

        if (shares < CPU_SHARES_MIN || shares > CPU_SHARES_MAX)
                return -EINVAL;
        r = domain_op_begin(conn, DRIVER_OP(conn, domain_set_cpu_weight), domain, flags, 0);
        if (r < 0)
                return r;
        r = conn_end(conn, conn->driver->domain_set_cpu_weight(conn, domain, shares, flags, &got));
        if (r < 0)
                return r;
        if (ret_shares)
                *ret_shares = got;
        return 0;
}

int hv_domain_set_quota(HvConnection *conn, const char *domain, int64_t quota_usec,
                        uint64_t period_usec, unsigned flags, int64_t *ret_quota_usec,
                        uint64_t *ret_period_usec) {
        int64_t got_quota;
        uint64_t got_period;
        int r;

        if (period_usec < VCPU_PERIOD_MIN || period_usec > VCPU_PERIOD_MAX ||
            (quota_usec != -1 && (quota_usec < VCPU_QUOTA_MIN || quota_usec > HV_QUOTA_MAX)))
                return -EINVAL;
        r = domain_op_begin(conn, DRIVER_OP(conn, domain_set_quota), domain, flags,
                            HV_QUOTA_GLOBAL);
        if (r < 0)
                return r;
        r = conn_end(conn, conn->driver->domain_set_quota(conn, domain, quota_usec, period_usec,
                                                          flags, &got_quota, &got_period));
        if (r < 0)
                return r;
        if (ret_quota_usec)
                *ret_quota_usec = got_quota;
        if (ret_period_usec)
                *ret_period_usec = got_period;
        return 0;
}

int hv_domain_get_metadata(HvConnection *conn, const char *domain, const char *ns_uri,
                           unsigned flags, char **ret) {
        int r;

        if (!ns_uri || !*ns_uri || !ret)
                return -EINVAL;
        r = domain_op_begin(conn, DRIVER_OP(conn, domain_get_metadata), domain, flags, 0);
        if (r < 0)
                return r;
        return conn_end(conn, conn->driver->domain_get_metadata(conn, domain, ns_uri, flags, ret));
}

int hv_domain_guest_vcpus(HvConnection *conn, const char *domain, usec_t timeout, unsigned flags,
                          unsigned *ret_online) {
        unsigned online;
        int r;

        if (!ret_online || timeout < USEC_PER_SEC || timeout / USEC_PER_SEC > INT_MAX)
                return -EINVAL;
        r = domain_op_begin(conn, DRIVER_OP(conn, domain_guest_vcpus), domain, flags, 0);
        if (r < 0)
                return r;
        r = conn_end(conn, conn->driver->domain_guest_vcpus(conn, domain, timeout, flags, &online));
        if (r < 0)
                return r;
        *ret_online = online;
        return 0;
}

/* SPDX-License-Identifier: MIT */
#pragma once

/* The hypervisor layer: one driver table (libvirt's own pattern: one typedef
 * per operation, NULL = unsupported), a dispatch layer that validates
 * arguments once and reconnects with back-off, and pure functions that turn
 * raw counters into per-VM metrics.
 *
 * Threads: an HvConnection is used by one thread at a time (the agent's
 * libvirt worker, never the sd-bus thread, because libvirt calls can block
 * for seconds). Different connections may be used from different threads.
 * The pure functions (hv_metrics_derive, and hv_sample_from_params in
 * libvirt.h) touch only their arguments and are safe anywhere. This header
 * names no libvirt type: the libvirt backend's own are in libvirt.h.
 *
 * Units: CPU times in nanoseconds (libvirt's), memory in KiB (libvirt's),
 * wall-clock time and CPU quota/period in microseconds (usec_t).
 *
 * Errors are negative errno values:
 *   -EINVAL      bad argument or unknown flag bit; a value the hypervisor
 *                refused (above the maximum, out of range)
 *   -ENOENT      no such domain (also when it vanished between list and action)
 *   -ESRCH       the domain exists but its state does not allow the action
 *                (a live change to a domain that is not running)
 *   -EOPNOTSUPP  the driver or hypervisor does not support the operation
 *   -EPERM       refused by policy (vCPU unplug without HV_VCPUS_ALLOW_UNPLUG)
 *                or by the hypervisor's access control
 *   -ENOTCONN    the connection is lost; a reconnect is attempted on a later
 *                call once the back-off delay has passed
 *   -ETIMEDOUT   the hypervisor timed out (domain job lock, guest agent)
 *   -EIO         anything else the hypervisor reported */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/time-util.h"

/* Domain names longer than this are refused by the sampler (libvirt allows
 * longer ones, nobody uses them). */
#define HV_NAME_MAX 256
/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" plus NUL (VIR_UUID_STRING_BUFLEN). */
#define HV_UUID_STRING_MAX 37
/* Per-vCPU counters are kept for vCPU ids below this. A domain with a higher
 * vCPU id gets no per-vCPU fields at all (steal invalid rather than computed
 * over a subset). */
#define HV_VCPU_MAX 256

/* Mirrors virDomainState so that values can be compared with virsh output. */
typedef enum HvDomainState {
        HV_STATE_NOSTATE = 0,
        HV_STATE_RUNNING = 1,
        HV_STATE_BLOCKED = 2,
        HV_STATE_PAUSED = 3,
        HV_STATE_SHUTDOWN = 4,
        HV_STATE_SHUTOFF = 5,
        HV_STATE_CRASHED = 6,
        HV_STATE_PMSUSPENDED = 7,
} HvDomainState;

/* "running", "paused", ...; "unknown" for values outside the enum. */
const char *hv_domain_state_to_string(HvDomainState state);
/* Running, blocked or paused: the domain has a live process to change. */
bool hv_domain_state_is_live(HvDomainState state);

/* ---- raw counters ---------------------------------------------------- */

/* Which fields of an HvDomainSample were present in the hypervisor's answer.
 * A field whose bit is clear holds 0 and must not be used. */
typedef enum HvSampleField {
        HV_FIELD_STATE = 1u << 0,            /* state, state_reason */
        HV_FIELD_CPU_TIME = 1u << 1,         /* cpu_time_ns */
        HV_FIELD_VCPU_COUNT = 1u << 2,       /* vcpus_current, vcpus_max */
        HV_FIELD_VCPU_DELAY = 1u << 3,       /* vcpu_delay_ns[] (libvirt >= 7.2) */
        HV_FIELD_VCPU_TIME = 1u << 4,        /* vcpu_time_ns[] */
        HV_FIELD_BALLOON = 1u << 5,          /* balloon_current_kib, balloon_max_kib */
        HV_FIELD_BALLOON_GUEST = 1u << 6,    /* balloon_unused_kib, balloon_available_kib */
        HV_FIELD_BALLOON_PRESSURE = 1u << 7, /* balloon_major_faults, balloon_swap_in_kib */
        HV_FIELD_BALLOON_UPDATE = 1u << 8,   /* balloon_last_update */
} HvSampleField;

/* One domain's counters at one moment: plain data, no pointers, so arrays of
 * samples can be copied, kept as history and freed with free(). About 4.7 KiB
 * (the per-vCPU arrays), so keep few generations of them. */
typedef struct HvDomainSample {
        char name[HV_NAME_MAX];
        char uuid[HV_UUID_STRING_MAX];
        unsigned fields; /* HvSampleField bits */
        /* CLOCK_MONOTONIC at the middle of the bulk call; all domains of one
         * call share it. The hypervisor read the counters somewhere within
         * span_usec around it, which bounds how well rates can be known. */
        usec_t sampled_usec;
        usec_t span_usec;

        HvDomainState state;
        int state_reason; /* virDomain<State>Reason of the state */

        uint64_t cpu_time_ns; /* cpu.time: all of the domain's threads */

        unsigned vcpus_current; /* vcpu.current: online vCPUs */
        unsigned vcpus_max;     /* vcpu.maximum: hot-plug limit */

        /* vCPU n's counters are valid when bit n of vcpu_present is set; the
         * ids of online vCPUs need not be contiguous after hot-(un)plug.
         * vcpu.<n>.delay: time runnable but waiting for a host CPU (what the
         * guest sees as steal). vcpu.<n>.time: time running on a host CPU. */
        uint64_t vcpu_present[HV_VCPU_MAX / 64];
        uint64_t vcpu_delay_ns[HV_VCPU_MAX];
        uint64_t vcpu_time_ns[HV_VCPU_MAX];

        uint64_t balloon_current_kib;   /* balloon.current: memory the guest has */
        uint64_t balloon_max_kib;       /* balloon.maximum: boot memory */
        uint64_t balloon_unused_kib;    /* balloon.unused: guest-reported free */
        uint64_t balloon_available_kib; /* balloon.available: guest-reported total */
        /* The guest's counters of memory pressure, as its balloon driver
         * reported them: balloon.major_fault (page faults that read from
         * disk) and balloon.swap_in (KiB swapped in). */
        uint64_t balloon_major_faults;
        uint64_t balloon_swap_in_kib;
        /* balloon.last-update: when the guest last reported its statistics
         * (its balloon stats period), in seconds; libvirt answers with the
         * last report whether or not the guest still sends them. */
        uint64_t balloon_last_update;
} HvDomainSample;

/* Whether vCPU id's counters are in the sample. */
bool hv_sample_has_vcpu(const HvDomainSample *s, unsigned id);
/* The libvirt job a paused domain waits for, by its state's reason:
 * "migration", "save", "dump" or "snapshot"; NULL when it is not paused
 * for one (running, or paused by a user, an I/O error, ...). */
const char *hv_sample_paused_job(const HvDomainSample *s);

/* ---- derived metrics ------------------------------------------------- */

typedef enum HvMetricValid {
        HV_METRIC_STATE = 1u << 0,
        HV_METRIC_STEAL = 1u << 1,
        HV_METRIC_CPU_USE = 1u << 2,
        HV_METRIC_VCPUS = 1u << 3,
        HV_METRIC_MEMORY = 1u << 4,
        HV_METRIC_MEMORY_GUEST = 1u << 5,
} HvMetricValid;

/* What the agent reports per VM for one interval. A metric whose valid bit is
 * clear holds 0 and means "no value this round", never "zero". */
typedef struct HvDomainMetrics {
        unsigned valid;       /* HvMetricValid bits */
        usec_t interval_usec; /* wall time between the two samples; 0 without prev */

        HvDomainState state;

        /* Steal as the guest sees it in /proc/stat: the fraction of its vCPUs'
         * wall time that they were runnable but not running,
         *   sum over vCPUs n in both samples of delta(vcpu.n.delay)
         *   / (delta(wall time) * number of those vCPUs),
         * clamped to [0, 1] (sampling jitter can push it a little over 1).
         * An idle VM has low steal even on a crowded host: divide by
         * (steal + cpu_use/vcpus) for "share of wanted time not given". */
        double steal;

        /* Host CPUs used: delta(cpu.time) / delta(wall time). 1.0 = one host
         * CPU fully busy; a 4-vCPU VM at full load shows about 4.0 (plus its
         * emulator threads). Not clamped. */
        double cpu_use;

        unsigned vcpus_current, vcpus_max;
        uint64_t memory_kib, memory_max_kib;              /* balloon current/maximum */
        uint64_t memory_unused_kib, memory_available_kib; /* MEMORY_GUEST */
} HvDomainMetrics;

#define HV_RATE_MAX_TIMING_ERROR_INVERSE 10

/* Derives cur's metrics from two samples of the same domain. prev may be
 * NULL (first sample): then only the instantaneous metrics (state, vCPUs,
 * memory) are valid. The rates (steal, cpu_use) are invalid, not zero, when:
 *   - prev belongs to another domain (different uuid, or name if no uuid),
 *   - no wall time passed (cur not later than prev),
 *   - a counter went backwards (domain restarted, vCPU re-plugged): no value
 *     this round, the next round has a good prev again,
 *   - a counter is missing in either sample (steal needs vcpu.N.delay, which
 *     libvirt < 7.2 does not give; a shut-off domain has no counters),
 *   - no vCPU is present in both samples,
 *   - the interval is known to worse than 1/HV_RATE_MAX_TIMING_ERROR_INVERSE
 *     of itself: half of each sample's span_usec exceeds that share.
 * When the vCPU set changed between the samples, steal uses only the vCPUs
 * present in both. Pure: no clock, no I/O. Returns 0, or -EINVAL if cur or
 * ret is NULL. */
int hv_metrics_derive(const HvDomainSample *prev, const HvDomainSample *cur, HvDomainMetrics *ret);

/* The sample to derive the domain's next sample against: cur, except when
 * the interval from prev was too uncertain for rates (see above): then the
 * one of the two whose call was the faster, so that the next interval is
 * longer and gives the rates this one could not. Without that, a stats call
 * slowed by host contention (at a 1 s interval, one over 100 ms) cost two
 * rounds their steal, its own and the next, and a run of them every
 * round's. */
const HvDomainSample *hv_metrics_next_base(const HvDomainSample *prev, const HvDomainSample *cur);

/* hv_metrics_derive for every domain of a round: ret[i] gets cur[i]'s
 * metrics, each paired with the sample of the same domain in prev (by UUID,
 * by name without one; prev's order does not matter), in O(n log n) rather
 * than a search per domain. A domain new in cur gets the first-sample
 * metrics. prev may be NULL when n_prev is 0. ret_prev (NULL: not wanted)
 * gets, for each cur[i], the sample of prev it was paired with, or NULL.
 * Returns 0, -EINVAL or -ENOMEM (then ret is untouched). */
int hv_metrics_derive_all(const HvDomainSample *prev, size_t n_prev, const HvDomainSample *cur,
                          size_t n_cur, HvDomainMetrics *ret, const HvDomainSample **ret_prev);

/* ---- connection and driver table ---------------------------------------- */

typedef struct HvConnection HvConnection;

/* One entry of hv_domain_list. */
typedef struct HvDomainRef {
        char name[HV_NAME_MAX];
        char uuid[HV_UUID_STRING_MAX];
        HvDomainState state;
        bool active;     /* running, paused, ...: has a live process */
        bool persistent; /* defined (survives a stop), not only created */
} HvDomainRef;

/* Current settings of one domain, as hv_domain_get_info reads them. */
typedef enum HvInfoField {
        HV_INFO_CPU_WEIGHT = 1u << 0,   /* cpu_shares */
        HV_INFO_QUOTA = 1u << 1,        /* vcpu_quota_usec, vcpu_period_usec */
        HV_INFO_GLOBAL_QUOTA = 1u << 2, /* global_quota_usec, global_period_usec */
} HvInfoField;

typedef struct HvDomainInfo {
        char name[HV_NAME_MAX];
        char uuid[HV_UUID_STRING_MAX];
        HvDomainState state;
        unsigned vcpus_current, vcpus_max;
        uint64_t memory_kib, memory_max_kib;
        unsigned fields;         /* HvInfoField bits: which of the below are set */
        uint64_t cpu_shares;     /* relative CPU weight (cgroup cpu.shares/weight) */
        int64_t vcpu_quota_usec; /* per vCPU per period; <= 0 = unlimited */
        uint64_t vcpu_period_usec;
        int64_t global_quota_usec; /* the whole domain's per period; <= 0 = unlimited */
        uint64_t global_period_usec;
} HvDomainInfo;

/* Flags of hv_domain_set_vcpus. */
typedef enum HvVcpusFlags {
        /* Allows lowering the vCPU count (hot-unplug). Under QEMU/TCG unplug
         * times out and a later re-plug crashed QEMU: take CPU away with
         * hv_domain_set_cpu_weight or hv_domain_set_quota instead, and pass
         * this only when the configuration explicitly allows unplug. */
        HV_VCPUS_ALLOW_UNPLUG = 1u << 0,
} HvVcpusFlags;

/* Called from libvirt's event thread (see hv_event_loop_start) when a domain
 * appears, disappears or changes state; name is valid during the call only.
 * Must not use the HvConnection (another thread owns it): note the change
 * and let the owner re-list or re-sample. */
typedef enum HvDomainEvent {
        HV_EVENT_DEFINED,   /* new persistent domain */
        HV_EVENT_UNDEFINED, /* persistent definition removed */
        HV_EVENT_STARTED,
        HV_EVENT_STOPPED, /* destroyed, shut down, crashed; a transient one is gone */
        HV_EVENT_OTHER,   /* paused, resumed, ... */
} HvDomainEvent;
typedef void (*HvDomainEventFunc)(const char *name, HvDomainEvent event, void *userdata);

typedef struct HvConnectOptions {
        usec_t backoff_initial; /* 0 = default 1 s */
        usec_t backoff_max;     /* 0 = default 60 s */
        /* Keepalive probe interval (seconds) and count, for remote URIs; only
         * effective while hv_event_loop_start's loop runs. 0 = defaults 5, 3. */
        int keepalive_interval_sec;
        unsigned keepalive_count;
        /* Optional; needs hv_event_loop_start. */
        HvDomainEventFunc on_domain_event;
        void *userdata;
        /* Monotonic clock for the back-off; NULL = now_monotonic_usec. Tests
         * pass their own so that no test sleeps. */
        usec_t (*clock)(void *userdata);
} HvConnectOptions;

/* The driver table. The dispatch layer (hv_* below) has already checked the
 * connection, the arguments and the flag bits; drivers only do the work.
 * Actions read the value back after applying it and return what was read.
 * A driver reports a lost connection with -ENOTCONN; the dispatch layer then
 * reconnects (close + open) with back-off. */
typedef int (*HvDrvOpen)(HvConnection *conn, const char *uri, unsigned flags);
typedef void (*HvDrvClose)(HvConnection *conn);
/* Whether the connection still works (close callback, keepalive). */
typedef bool (*HvDrvIsAlive)(HvConnection *conn);
typedef int (*HvDrvListDomains)(HvConnection *conn, unsigned flags, HvDomainRef **ret,
                                size_t *ret_n);
/* Every domain in one bulk call; does not wait for busy domains. */
typedef int (*HvDrvSampleAll)(HvConnection *conn, unsigned flags, HvDomainSample **ret,
                              size_t *ret_n);
typedef int (*HvDrvDomainGetInfo)(HvConnection *conn, const char *domain, unsigned flags,
                                  HvDomainInfo *ret);
typedef int (*HvDrvDomainSetVcpus)(HvConnection *conn, const char *domain, unsigned vcpus,
                                   unsigned flags, unsigned *ret_vcpus);
typedef int (*HvDrvDomainSetMemory)(HvConnection *conn, const char *domain, uint64_t kib,
                                    unsigned flags, uint64_t *ret_kib);
typedef int (*HvDrvDomainSetCpuWeight)(HvConnection *conn, const char *domain, uint64_t shares,
                                       unsigned flags, uint64_t *ret_shares);
typedef int (*HvDrvDomainSetQuota)(HvConnection *conn, const char *domain, int64_t quota_usec,
                                   uint64_t period_usec, unsigned flags, int64_t *ret_quota_usec,
                                   uint64_t *ret_period_usec);
typedef int (*HvDrvDomainGuestVcpus)(HvConnection *conn, const char *domain, usec_t timeout,
                                     unsigned flags, unsigned *ret_online);
/* *ret: malloc'd, NULL when the domain has no such element. */
typedef int (*HvDrvDomainGetMetadata)(HvConnection *conn, const char *domain, const char *ns_uri,
                                      unsigned flags, char **ret);

typedef struct HypervisorDriver {
        const char *name;
        HvDrvOpen open;
        HvDrvClose close;
        HvDrvIsAlive is_alive;
        HvDrvListDomains list_domains;
        HvDrvSampleAll sample_all;
        HvDrvDomainGetInfo domain_get_info;
        HvDrvDomainSetVcpus domain_set_vcpus;
        HvDrvDomainSetMemory domain_set_memory;
        HvDrvDomainSetCpuWeight domain_set_cpu_weight;
        HvDrvDomainSetQuota domain_set_quota;
        HvDrvDomainGetMetadata domain_get_metadata;
        HvDrvDomainGuestVcpus domain_guest_vcpus;
} HypervisorDriver;

/* The libvirt backend: any libvirt URI (qemu:///system, test:///default,
 * test:///abs/path.xml, qemu+ssh://...). */
extern const HypervisorDriver hv_libvirt_driver;

/* Starts libvirt's default event loop in a thread of its own, once per
 * process (later calls return 0). Needed for keepalive, the close callback
 * on remote connections and domain events; connections opened before it
 * ran do not get them. */
int hv_event_loop_start(void);

/* Flags of hv_connection_open. */
typedef enum HvConnectFlags {
        /* If the hypervisor cannot be reached now (-ENOTCONN), return a
         * connection anyway that is "lost" and reconnects with back-off on
         * later calls, so a daemon can start before libvirtd. */
        HV_CONNECT_LAZY = 1u << 0,
} HvConnectFlags;

/* Opens uri with the libvirt backend. options may be NULL (defaults).
 * The process must ignore SIGPIPE (libvirt's advice too): libvirt's client
 * can write to the socket of a libvirtd that went away, and the signal would
 * kill the caller instead of the call failing with -ENOTCONN. Signal
 * dispositions belong to the program, so this layer does not set it.
 * Returns 0, -EINVAL (bad argument, unreadable or invalid test:/// file),
 * -EOPNOTSUPP (no libvirt driver for the URI), -EPERM, -ENOTCONN (the
 * daemon the URI names is unreachable: also what an unknown scheme gives, as
 * libvirt hands those to libvirtd), -ENOMEM. */
int hv_connection_open(const char *uri, const HvConnectOptions *options, unsigned flags,
                       HvConnection **ret);
/* Same with another driver (tests, other hypervisors). */
int hv_connection_open_driver(const HypervisorDriver *driver, const char *uri,
                              const HvConnectOptions *options, unsigned flags, HvConnection **ret);
/* Closes and frees; NULL is fine; returns NULL. */
HvConnection *hv_connection_free(HvConnection *conn);
static inline void hv_connection_freep(HvConnection **p) {
        hv_connection_free(*p);
}

const char *hv_connection_get_uri(const HvConnection *conn);
/* False while the connection is lost (until a reconnect succeeds). */
bool hv_connection_is_connected(const HvConnection *conn);
/* Reconnect attempts that failed since the connection was last good. */
unsigned hv_connection_get_failures(const HvConnection *conn);
/* Message of the last operation's failure ("" if it succeeded), e.g. libvirt's
 * "requested cpu amount exceeds maximum supported amount (100 > 32)": for
 * error replies and logs. Valid until the next call on conn. */
const char *hv_connection_get_last_error(const HvConnection *conn);
/* For drivers: sets the message hv_connection_get_last_error returns. */
void hv_connection_set_last_error(HvConnection *conn, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
/* Driver state, for the driver's own use. */
void *hv_connection_get_private(const HvConnection *conn);
void hv_connection_set_private(HvConnection *conn, void *data);
const HvConnectOptions *hv_connection_get_options(const HvConnection *conn);

/* The operations. domain is a domain name or a UUID string. flags must be 0
 * unless documented. Outputs are untouched on failure. Arrays are allocated
 * with malloc; free them with free(). */
int hv_domain_list(HvConnection *conn, unsigned flags, HvDomainRef **ret, size_t *ret_n);
/* Counters of every domain (running or not) from one bulk call that does not
 * wait for domains busy in a job; in the driver's order, which may change
 * between calls: pair rounds with hv_metrics_derive_all. */
int hv_sample_all(HvConnection *conn, unsigned flags, HvDomainSample **ret, size_t *ret_n);
int hv_domain_get_info(HvConnection *conn, const char *domain, unsigned flags, HvDomainInfo *ret);
/* Live vCPU count, 1..vcpus_max; lowering it needs HV_VCPUS_ALLOW_UNPLUG
 * (else -EPERM). Returns the live count read back. */
int hv_domain_set_vcpus(HvConnection *conn, const char *domain, unsigned vcpus, unsigned flags,
                        unsigned *ret_vcpus);
/* Live balloon target in KiB (> 0, at most the maximum). Returns the current
 * memory read back right after; it can lag the target while the guest
 * balloon driver works, and stays put if the guest has none. */
int hv_domain_set_memory(HvConnection *conn, const char *domain, uint64_t kib, unsigned flags,
                         uint64_t *ret_kib);
/* Live CPU weight (cpu_shares, 1..262144; cgroup v1 hosts take 2..262144,
 * v2 hosts 1..10000). Returns the value read back. */
int hv_domain_set_cpu_weight(HvConnection *conn, const char *domain, uint64_t shares,
                             unsigned flags, uint64_t *ret_shares);
/* The kernel's largest CFS quota (max_cfs_runtime, 2^44 - 1), usec. */
#define HV_QUOTA_MAX INT64_C(17592186044415)

/* Flags of hv_domain_set_quota. */
typedef enum HvQuotaFlags {
        /* The whole domain's quota (libvirt's global_quota and
         * global_period, HV_INFO_GLOBAL_QUOTA) instead of each vCPU's; the
         * quota per vCPU is lifted, so that the whole domain's binds
         * alone. */
        HV_QUOTA_GLOBAL = 1u << 0,
} HvQuotaFlags;

/* Live CPU cap of each vCPU, or with HV_QUOTA_GLOBAL of the whole domain:
 * quota_usec of CPU time every period_usec (libvirt's vcpu_quota and
 * vcpu_period, or global_quota and global_period). period 1000..1000000;
 * quota -1 = unlimited, else at least 1000. Returns both values read
 * back. */
int hv_domain_set_quota(HvConnection *conn, const char *domain, int64_t quota_usec,
                        uint64_t period_usec, unsigned flags, int64_t *ret_quota_usec,
                        uint64_t *ret_period_usec);
/* The element of namespace ns_uri in the domain's <metadata> (libvirt's
 * virDomainGetMetadata, of the running definition when it runs), as XML
 * text that libvirt serialized, in *ret (free with free()); *ret NULL when
 * the domain has no such element. */
int hv_domain_get_metadata(HvConnection *conn, const char *domain, const char *ns_uri,
                           unsigned flags, char **ret);
/* How many vCPUs the guest's own kernel has online, as the guest agent in
 * it answers (libvirt's virDomainGetGuestVcpus): what a vCPU hotplug
 * achieved, where the hypervisor counts a vCPU as soon as it is plugged.
 * timeout (> 0, whole seconds) bounds how long the hypervisor waits for the
 * guest agent; libvirt keeps it as the domain's agent response timeout
 * (virDomainAgentSetResponseTimeout), which every later guest agent call
 * on the domain then has, whoever makes it, until the domain stops
 * (without it libvirt waits 5 s for the agent's first word and then
 * without end). Besides the usual: -ENODEV when the domain has no guest
 * agent channel, -ETIMEDOUT when no guest agent listens on it or it did not
 * answer in time, -ESRCH when the domain is not running, -EOPNOTSUPP when
 * the driver cannot ask a guest (libvirt's test driver). */
int hv_domain_guest_vcpus(HvConnection *conn, const char *domain, usec_t timeout, unsigned flags,
                          unsigned *ret_online);

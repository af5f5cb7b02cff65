/* SPDX-License-Identifier: MIT */
/* org.flexslot.Agent1: the D-Bus glue of flexslot-agentd. Reads are
 * answered from the sample history on the loop thread and never wait for
 * libvirt; changes go to the worker thread and are answered asynchronously,
 * or with Error.HypervisorUnavailable when libvirt does not answer in time. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-errors.h"
#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"
#include "daemon.h"

#define METRICS_TYPE "(sssuuttdd)"
/* How much of a domain argument an error message or the log repeats. */
#define DOMAIN_SHOWN_MAX 64


static const AgentSnapshot *latest_snapshot(const Agent *a) {
        return ring_get_newest(&a->history, 0);
}

/* Rates without a value this round are -1, sizes without one 0. */
static int append_metrics(sd_bus_message *m, const AgentDomain *d) {
        const HvDomainMetrics *x = &d->metrics;
        bool vcpus = x->valid & HV_METRIC_VCPUS, memory = x->valid & HV_METRIC_MEMORY;

        return sd_bus_message_append(m, METRICS_TYPE, d->name, d->uuid,
                                     hv_domain_state_to_string(x->state),
                                     vcpus ? x->vcpus_current : 0u, vcpus ? x->vcpus_max : 0u,
                                     memory ? x->memory_kib * 1024 : (uint64_t)0,
                                     memory ? x->memory_max_kib * 1024 : (uint64_t)0,
                                     x->valid & HV_METRIC_CPU_USE ? x->cpu_use : -1.0,
                                     x->valid & HV_METRIC_STEAL ? x->steal : -1.0);
}

static int append_all_metrics(sd_bus_message *m, const AgentSnapshot *s) {
        int r;

        r = sd_bus_message_open_container(m, 'a', METRICS_TYPE);
        if (r < 0)
                return r;
        for (size_t i = 0; i < s->n_domains; i++) {
                r = append_metrics(m, &s->domains[i]);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(m);
}

static int no_sample_error(sd_bus_error *error) {
        return sd_bus_error_set(error, AGENT_ERROR_HYPERVISOR_UNAVAILABLE,
                                "No sample yet: the hypervisor has not answered.");
}

/* A domain argument: a name or a UUID, as libvirt allows. */
static int validate_domain(const char *domain, sd_bus_error *error) {
        if (domain[0] == '\0' || strlen(domain) >= HV_NAME_MAX)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Invalid domain name '%.*s'.", DOMAIN_SHOWN_MAX, domain);
        return 0;
}

static const AgentDomain *find_domain(const Agent *a, const char *domain,
                                      sd_bus_error *error) {
        const AgentDomain *d = agent_snapshot_find(latest_snapshot(a), domain);
        char text[HV_NAME_MAX + 16];

        if (!d)
                sd_bus_error_setf(error, AGENT_ERROR_NO_SUCH_DOMAIN, "%s.",
                                  agent_error_no_domain(text, sizeof(text), domain));
        return d;
}

static int method_list_domains(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const AgentSnapshot *s = latest_snapshot(userdata);
        int r;

        if (!s)
                return no_sample_error(error);
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(sss)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < s->n_domains; i++) {
                r = sd_bus_message_append(reply, "(sss)", s->domains[i].name, s->domains[i].uuid,
                                          hv_domain_state_to_string(s->domains[i].metrics.state));
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_get_metrics(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const AgentSnapshot *s = latest_snapshot(userdata);
        const AgentDomain *d;
        const char *domain;
        int r;

        r = sd_bus_message_read(m, "s", &domain);
        if (r < 0)
                return r;
        r = validate_domain(domain, error);
        if (r < 0)
                return r;
        if (!s)
                return no_sample_error(error);
        d = find_domain(userdata, domain, error);
        if (!d)
                return -ENOENT;
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "t", s->realtime);
        if (r < 0)
                return r;
        r = append_metrics(reply, d);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_get_all_metrics(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const AgentSnapshot *s = latest_snapshot(userdata);
        int r;

        if (!s)
                return no_sample_error(error);
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "t", s->realtime);
        if (r < 0)
                return r;
        r = append_all_metrics(reply, s);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* The domain's newest max_samples samples (0: all kept), oldest first. */
static int method_get_history(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Agent *a = userdata;
        const char *domain;
        uint32_t max_samples;
        size_t n;
        int r;

        r = sd_bus_message_read(m, "su", &domain, &max_samples);
        if (r < 0)
                return r;
        r = validate_domain(domain, error);
        if (r < 0)
                return r;
        if (!latest_snapshot(a))
                return no_sample_error(error);
        if (!find_domain(a, domain, error))
                return -ENOENT;

        n = ring_size(&a->history);
        if (max_samples > 0 && max_samples < n)
                n = max_samples;
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(t" METRICS_TYPE ")");
        if (r < 0)
                return r;
        for (size_t i = n; i-- > 0;) {
                const AgentSnapshot *s = ring_get_newest(&a->history, i);
                const AgentDomain *d = agent_snapshot_find(s, domain);

                if (!d)
                        continue;
                r = sd_bus_message_open_container(reply, 'r', "t" METRICS_TYPE);
                if (r < 0)
                        return r;
                r = sd_bus_message_append(reply, "t", s->realtime);
                if (r < 0)
                        return r;
                r = append_metrics(reply, d);
                if (r < 0)
                        return r;
                r = sd_bus_message_close_container(reply);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

typedef struct ChangeJob {
        Agent *agent;
        sd_bus_message *call;
        sd_bus_creds *creds; /* the caller's, NULL if the bus would not say */
        /* The caller has had its answer (a timeout); the outcome is late. */
        bool answered;
        AgentChange change;
} ChangeJob;

static void change_free(void *data) {
        ChangeJob *j = data;

        if (!j)
                return;
        sd_bus_creds_unref(j->creds);
        sd_bus_message_unref(j->call);
        free(j);
}

DEFINE_POINTER_CLEANUP_FUNC(ChangeJob, change_free);

/* A domain argument as the log shows it: the caller chose it, so it is
 * cut short, and no control character gets to start a line of its own. */
static void printable_domain(const char *domain, char buf[static DOMAIN_SHOWN_MAX + 4]) {
        size_t i = 0;

        for (; i < DOMAIN_SHOWN_MAX && domain[i]; i++)
                buf[i] = (unsigned char)domain[i] < 0x20 || domain[i] == 0x7f ? '?' : domain[i];
        snprintf(buf + i, 4, "%s", domain[i] ? "..." : "");
}

/* The audit trail: one line per change request, saying what was asked, by
 * whom (unique name and effective uid) and the verdict; notice for what was
 * granted, warning for everything else. */
static void audit(const ChangeJob *j, LogLevel level, const char *fmt, ...) _printf_(3, 4);

static void audit(const ChangeJob *j, LogLevel level, const char *fmt, ...) {
        const AgentChange *c = &j->change;
        const char *sender = sd_bus_message_get_sender(j->call);
        char domain[DOMAIN_SHOWN_MAX + 4], uid_text[16] = "?", verdict[1024];
        uid_t uid;
        va_list ap;

        if (level > log_get_max_level())
                return;
        printable_domain(c->domain, domain);
        if (j->creds && sd_bus_creds_get_euid(j->creds, &uid) >= 0)
                snprintf(uid_text, sizeof(uid_text), "%u", (unsigned)uid);
        va_start(ap, fmt);
        vsnprintf(verdict, sizeof(verdict), fmt, ap);
        va_end(ap);
        log_full_errno(level, 0, "%s('%s', %s) by uid %s (%s): %s%s",
                       sd_bus_message_get_member(j->call), domain,
                       SAFETY_VALUE(c->resource, c->requested), uid_text, sender ? sender : "?",
                       j->answered ? "after its timeout, " : "", verdict);
}

/* Root, or a member of [agent] allowed-group. On the system bus the policy
 * file already enforces this; checking here too keeps a private bus or a
 * permissive policy from opening the mutating methods to everyone. */
static int authorize(Agent *a, sd_bus_creds *creds, sd_bus_error *error) {
        const gid_t *gids = NULL;
        uid_t euid;
        gid_t egid;
        int n;

        if (sd_bus_creds_get_euid(creds, &euid) >= 0 && euid == 0)
                return 0;
        if (a->have_allowed_gid) {
                if (sd_bus_creds_get_egid(creds, &egid) >= 0 && egid == a->allowed_gid)
                        return 0;
                n = sd_bus_creds_get_supplementary_gids(creds, &gids);
                for (int i = 0; i < n; i++)
                        if (gids[i] == a->allowed_gid)
                                return 0;
        }
        return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                 "Changing VMs needs root or group '%s'.",
                                 a->config.allowed_group);
}

static int change_run(void *userdata, void *data) {
        ChangeJob *j = data;
        return agent_host_change(userdata, &j->change);
}

static const char *verdict_error(SafetyVerdict v) {
        switch (v) {
        case SAFETY_STEP_TOO_LARGE:
                return AGENT_ERROR_STEP_TOO_LARGE;
        case SAFETY_CHANGE_TOO_SMALL:
                return AGENT_ERROR_CHANGE_TOO_SMALL;
        case SAFETY_HOST_RESERVE:
                return AGENT_ERROR_HOST_RESERVE;
        case SAFETY_RATE_LIMITED:
                return AGENT_ERROR_RATE_LIMITED;
        default:
                return AGENT_ERROR_OUT_OF_RANGE;
        }
}

static const char *errno_error(int r) {
        switch (-r) {
        case ENOENT:
                return AGENT_ERROR_NO_SUCH_DOMAIN;
        case ESRCH:
                return AGENT_ERROR_NOT_RUNNING;
        case EOPNOTSUPP:
                return AGENT_ERROR_NOT_SUPPORTED;
        case EPERM:
                return AGENT_ERROR_NOT_PERMITTED;
        case EINVAL:
                /* Past our limits, so the hypervisor's own (e.g. its maximum). */
                return AGENT_ERROR_OUT_OF_RANGE;
        case ENOTCONN:
        case ETIMEDOUT:
                return AGENT_ERROR_HYPERVISOR_UNAVAILABLE;
        default:
                return AGENT_ERROR_HYPERVISOR_FAILED;
        }
}

#define CHANGE_ERROR_MAX (HV_NAME_MAX + sizeof(((AgentChange *)NULL)->message) + 4)

/* The error a finished change is answered with, or NULL for success. */
static const char *change_error(const AgentChange *c, char *msg, size_t size) {
        switch (c->status) {
        case AGENT_CHANGE_REFUSED:
                snprintf(msg, size, "%s: %s.", c->name, c->message);
                return verdict_error(c->verdict);
        case AGENT_CHANGE_FAILED:
                snprintf(msg, size, "%s.", c->message);
                return errno_error(c->error);
        default:
                return NULL;
        }
}

static void audit_change(const ChangeJob *j) {
        const AgentChange *c = &j->change;
        const char *what = safety_resource_to_string(c->resource), *name;
        char msg[CHANGE_ERROR_MAX];

        switch (c->status) {
        case AGENT_CHANGE_APPLIED:
                if (c->after == c->requested)
                        audit(j, LOG_LEVEL_NOTICE, "applied, %s %s -> %s", what,
                              SAFETY_VALUE(c->resource, c->before),
                              SAFETY_VALUE(c->resource, c->after));
                else
                        audit(j, LOG_LEVEL_WARNING, "applied, %s %s -> %s, not as asked%s", what,
                              SAFETY_VALUE(c->resource, c->before),
                              SAFETY_VALUE(c->resource, c->after),
                              c->resource == SAFETY_MEMORY ? " (the balloon may still be moving)"
                                                           : "");
                return;
        case AGENT_CHANGE_UNCHANGED:
                audit(j, LOG_LEVEL_NOTICE, "unchanged, %s already %s", what,
                      SAFETY_VALUE(c->resource, c->before));
                return;
        case AGENT_CHANGE_DRY_RUN:
                audit(j, LOG_LEVEL_NOTICE, "allowed, not applied (dry run), %s stays %s", what,
                      SAFETY_VALUE(c->resource, c->before));
                return;
        default:
                /* Failed only when the hypervisor could not do what it was
                 * asked; a missing domain, say, is refused. */
                name = change_error(c, msg, sizeof(msg));
                audit(j, LOG_LEVEL_WARNING, "%s, %s: %s",
                      strcmp(name, AGENT_ERROR_HYPERVISOR_FAILED) == 0 ||
                                      strcmp(name, AGENT_ERROR_HYPERVISOR_UNAVAILABLE) == 0
                              ? "failed"
                              : "refused",
                      name, msg);
                return;
        }
}

static int reply_change(ChangeJob *j) {
        const AgentChange *c = &j->change;
        char msg[CHANGE_ERROR_MAX];
        const char *name = change_error(c, msg, sizeof(msg));

        if (name)
                return sd_bus_reply_method_error(j->call, &SD_BUS_ERROR_MAKE_CONST(name, msg));
        if (c->resource == SAFETY_VCPUS)
                return sd_bus_reply_method_return(j->call, "uu", (uint32_t)c->before,
                                                  (uint32_t)c->after);
        return sd_bus_reply_method_return(j->call, "tt", c->before, c->after);
}

/* Answers the caller with an error and puts it in the audit trail. */
static int reply_refused(ChangeJob *j, const char *verdict, const char *name, const char *fmt, ...)
        _printf_(4, 5);

static int reply_refused(ChangeJob *j, const char *verdict, const char *name, const char *fmt,
                         ...) {
        char msg[512];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        audit(j, LOG_LEVEL_WARNING, "%s, %s: %s", verdict, name, msg);
        return sd_bus_reply_method_error(j->call, &SD_BUS_ERROR_MAKE_CONST(name, msg));
}

static void change_done(WorkerOutcome outcome, int result, void *data) {
        ChangeJob *j = data;
        const char *what = safety_resource_to_string(j->change.resource);
        const char *timeout = FORMAT_DURATION(j->agent->config.hypervisor_timeout);
        int r = 0;

        switch (outcome) {
        case WORKER_DONE:
                if (result < 0) {
                        audit(j, LOG_LEVEL_WARNING, "failed: %s", strerror(-result));
                        r = sd_bus_reply_method_errno(j->call, result, NULL);
                        break;
                }
                audit_change(j);
                r = reply_change(j);
                break;
        case WORKER_TIMEOUT_QUEUED:
                r = reply_refused(j, "not made", AGENT_ERROR_HYPERVISOR_UNAVAILABLE,
                                  "The hypervisor did not answer within %s; the change was not "
                                  "made.",
                                  timeout);
                break;
        case WORKER_TIMEOUT_RUNNING:
                r = reply_refused(j, "outstanding", AGENT_ERROR_HYPERVISOR_UNAVAILABLE,
                                  "The hypervisor did not answer within %s; the change may "
                                  "still take effect (watch the Sample signal).",
                                  timeout);
                j->answered = true;
                break;
        case WORKER_LATE:
                if (result < 0)
                        audit(j, LOG_LEVEL_WARNING, "failed: %s", strerror(-result));
                else
                        audit_change(j);
                break;
        case WORKER_CANCELLED:
                r = reply_refused(j, "not made", AGENT_ERROR_HYPERVISOR_UNAVAILABLE,
                                  "The agent is shutting down.");
                break;
        }
        if (r < 0)
                log_warning_errno(r, "Cannot reply to a %s change", what);
}

static const WorkerJobOps change_ops = { change_run, change_done, change_free };

/* Validation needing no hypervisor state, then authorization; the limits,
 * the no-op check and the change itself need the domain's current values,
 * so they run on the worker against fresh state rather than a cached
 * sample. */
static int change_check(Agent *a, const ChangeJob *j, const char *domain, sd_bus_error *error) {
        int r;

        r = validate_domain(domain, error);
        if (r < 0)
                return r;
        if (j->change.requested == 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "The %s value must be positive.",
                                         safety_resource_to_string(j->change.resource));
        if (j->change.resource == SAFETY_MEMORY && j->change.requested % 1024 != 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Memory %llu is not a multiple of 1024 bytes.",
                                         (unsigned long long)j->change.requested);
        if (!j->creds)
                return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
                                        "The bus does not say who the caller is.");
        return authorize(a, j->creds, error);
}

/* Shared by the Set* methods after they read their arguments. Every
 * request ends in one line of the audit trail: here when refused, in
 * change_done otherwise. */
static int submit_change(Agent *a, sd_bus_message *m, SafetyResource resource, const char *domain,
                         uint64_t value, sd_bus_error *error) {
        _cleanup_(change_freep) ChangeJob *j = NULL;
        int r;

        j = calloc(1, sizeof(*j));
        if (!j)
                return -ENOMEM;
        j->agent = a;
        j->call = sd_bus_message_ref(m);
        j->change.resource = resource;
        j->change.requested = value;
        snprintf(j->change.domain, sizeof(j->change.domain), "%s", domain);
        /* Without credentials the request is refused below, and logged with
         * its sender alone. */
        (void)sd_bus_query_sender_creds(m,
                                        SD_BUS_CREDS_EUID | SD_BUS_CREDS_EGID |
                                                SD_BUS_CREDS_SUPPLEMENTARY_GIDS |
                                                SD_BUS_CREDS_AUGMENT,
                                        &j->creds);

        r = change_check(a, j, domain, error);
        if (r >= 0) {
                r = worker_submit(a->worker, &change_ops, j, a->config.hypervisor_timeout);
                if (r == -EBUSY)
                        r = sd_bus_error_set(error, AGENT_ERROR_HYPERVISOR_UNAVAILABLE,
                                             "Too many requests are waiting for the "
                                             "hypervisor.");
        }
        if (r < 0) {
                if (sd_bus_error_is_set(error))
                        audit(j, LOG_LEVEL_WARNING, "%s, %s: %s",
                              sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED) ? "denied"
                                                                                       : "refused",
                              error->name, error->message);
                else
                        audit(j, LOG_LEVEL_WARNING, "failed: %s", strerror(-r));
                return r;
        }
        /* The worker owns it now and answers from change_done. */
        TAKE_PTR(j);
        return 1;
}

static int method_set_vcpus(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *domain;
        uint32_t vcpus;
        int r;

        r = sd_bus_message_read(m, "su", &domain, &vcpus);
        if (r < 0)
                return r;
        return submit_change(userdata, m, SAFETY_VCPUS, domain, vcpus, error);
}

static int method_set_memory(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *domain;
        uint64_t bytes;
        int r;

        r = sd_bus_message_read(m, "st", &domain, &bytes);
        if (r < 0)
                return r;
        return submit_change(userdata, m, SAFETY_MEMORY, domain, bytes, error);
}

static int method_set_cpu_weight(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *domain;
        uint64_t weight;
        int r;

        r = sd_bus_message_read(m, "st", &domain, &weight);
        if (r < 0)
                return r;
        return submit_change(userdata, m, SAFETY_CPU_WEIGHT, domain, weight, error);
}

static int property_get_uri(sd_bus *bus, const char *path, const char *interface,
                            const char *property, sd_bus_message *reply, void *userdata,
                            sd_bus_error *error) {
        Agent *a = userdata;
        return sd_bus_message_append(reply, "s", a->config.uri);
}

static int property_get_interval(sd_bus *bus, const char *path, const char *interface,
                                 const char *property, sd_bus_message *reply, void *userdata,
                                 sd_bus_error *error) {
        Agent *a = userdata;
        return sd_bus_message_append(reply, "t", (uint64_t)a->config.interval);
}

static int property_get_last_sample(sd_bus *bus, const char *path, const char *interface,
                                    const char *property, sd_bus_message *reply,
                                    void *userdata, sd_bus_error *error) {
        const AgentSnapshot *s = latest_snapshot(userdata);
        return sd_bus_message_append(reply, "t", s ? s->realtime : (uint64_t)0);
}

/* Every method is callable by anyone as far as sd-bus is concerned: the
 * policy file and authorize() decide who may change VMs. */
static const sd_bus_vtable agent_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("HostName", "s", NULL, offsetof(Agent, hostname),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("URI", "s", property_get_uri, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Interval", "t", property_get_interval, 0,
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CapacityCPUs", "u", NULL, offsetof(Agent, capacity_cpus),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CapacityMemory", "t", NULL, offsetof(Agent, capacity_memory),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("ReserveCPUs", "u", NULL, offsetof(Agent, reserve_cpus),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("ReserveMemory", "t", NULL, offsetof(Agent, reserve_memory),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("DryRun", "b", NULL, offsetof(Agent, dry_run),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("HypervisorAvailable", "b", NULL, offsetof(Agent, hypervisor_available),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("LastSample", "t", property_get_last_sample, 0, 0),

        SD_BUS_METHOD_WITH_ARGS("ListDomains", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sss)", domains),
                                method_list_domains, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetMetrics", SD_BUS_ARGS("s", domain),
                                SD_BUS_RESULT("t", timestamp, METRICS_TYPE, metrics),
                                method_get_metrics, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetAllMetrics", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("t", timestamp, "a" METRICS_TYPE, domains),
                                method_get_all_metrics, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetHistory", SD_BUS_ARGS("s", domain, "u", max_samples),
                                SD_BUS_RESULT("a(t" METRICS_TYPE ")", samples),
                                method_get_history, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetVcpus", SD_BUS_ARGS("s", domain, "u", vcpus),
                                SD_BUS_RESULT("u", before, "u", after), method_set_vcpus,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetMemory", SD_BUS_ARGS("s", domain, "t", bytes),
                                SD_BUS_RESULT("t", before, "t", after), method_set_memory,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetCpuWeight", SD_BUS_ARGS("s", domain, "t", weight),
                                SD_BUS_RESULT("t", before, "t", after), method_set_cpu_weight,
                                SD_BUS_VTABLE_UNPRIVILEGED),

        SD_BUS_SIGNAL_WITH_ARGS("Sample", SD_BUS_ARGS("t", timestamp, "a" METRICS_TYPE, domains),
                                0),
        SD_BUS_VTABLE_END,
};

int agent_bus_setup(Agent *a) {
        int r;

        r = agent_bus_errors_register();
        if (r < 0)
                return log_error_errno(r, "Cannot register D-Bus error names");
        r = sd_bus_add_object_vtable(a->bus, &a->object_slot, AGENT_OBJECT_PATH, AGENT_INTERFACE,
                                     agent_vtable, a);
        if (r < 0)
                return log_error_errno(r, "Cannot add the D-Bus object");
        r = sd_bus_request_name(a->bus, AGENT_BUS_NAME, 0);
        if (r < 0)
                return log_error_errno(r, "Cannot own the D-Bus name %s", AGENT_BUS_NAME);
        return 0;
}

int agent_bus_emit_sample(Agent *a, const AgentSnapshot *s) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_signal(a->bus, &m, AGENT_OBJECT_PATH, AGENT_INTERFACE, "Sample");
        if (r < 0)
                return r;
        r = sd_bus_message_append(m, "t", s->realtime);
        if (r < 0)
                return r;
        r = append_all_metrics(m, s);
        if (r < 0)
                return r;
        return sd_bus_send(a->bus, m, NULL);
}

void agent_bus_set_available(Agent *a, bool available) {
        int r;

        if (a->hypervisor_available == (int)available)
                return;
        a->hypervisor_available = available;
        r = sd_bus_emit_properties_changed(a->bus, AGENT_OBJECT_PATH, AGENT_INTERFACE,
                                           "HypervisorAvailable", NULL);
        if (r < 0)
                log_warning_errno(r, "Cannot emit PropertiesChanged");
}

/* SPDX-License-Identifier: MIT */
/* org.flexslot.Agent1's change methods. SetTarget applies a VM target
 * (CPU weight, CPU cap, vCPUs, memory) within the actuation limits,
 * clamping what can be brought within them, and answers a verdict per
 * resource. SetVcpus, SetMemory and SetCpuWeight are SetTarget of one
 * resource that refuses rather than clamps and answers (before, after) or
 * the refusal's error. Arguments are validated and the caller authorized
 * here, on the loop thread; the limits and the change run on the actuator's
 * worker against the domain's fresh state; the answer and one line of the
 * audit trail come back here. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"
#include "daemon.h"
#include "proto/errors.h"

/* SetTarget's resources (proto/agent1.h) as the actuation contract names
 * them. */
static const ActResource act_resource_of[_AGENT1_RESOURCE_MAX] = {
        [AGENT1_CPU_WEIGHT] = ACT_CPU_WEIGHT,
        [AGENT1_VCPUS] = ACT_VCPUS,
        [AGENT1_CPU_CAP] = ACT_CPU_CAP,
        [AGENT1_MEMORY] = ACT_MEMORY,
};

static Agent1Resource wire_resource(ActResource r) {
        Agent1Resource w = 0;

        while (w < _AGENT1_RESOURCE_MAX && act_resource_of[w] != r)
                w++;
        return w;
}

/* The type of the resource's D-Bus values. */
static char resource_type(ActResource r) {
        return agent1_resource_type(wire_resource(r));
}

#define TARGET_KEYS "cpu-weight (u), vcpus (u), cpu-cap (d) and memory (t)"

typedef struct ChangeJob {
        Agent *agent;
        sd_bus_message *call;
        sd_bus_creds *creds; /* the caller's, NULL if the bus would not say */
        /* SetVcpus and the like: one resource, refused rather than clamped,
         * answered (before, after) or with the refusal's error. */
        bool single;
        bool domain_valid;
        /* The caller has had its answer (a timeout); the outcome is late. */
        bool answered;
        /* The arguments after the domain, as the audit trail shows them. */
        char args[256];
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

/* A caller's string as the log or an error shows it: cut short, and no
 * control character gets to start a line of its own. */
static char *printable(const char *s, char buf[static AGENT_SHOWN_MAX + 4]) {
        size_t i = 0;

        for (; i < AGENT_SHOWN_MAX && s[i]; i++)
                buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
        snprintf(buf + i, 4, "%s", s[i] ? "..." : "");
        return buf;
}

#define PRINTABLE(s) printable((s), (char[AGENT_SHOWN_MAX + 4]){ 0 })

static void args_append(ChangeJob *j, const char *key, const char *value) {
        size_t n = strlen(j->args);

        snprintf(j->args + n, sizeof(j->args) - n, "%s%s=%s", n > 0 ? ", " : "", PRINTABLE(key),
                 value);
}

/* The audit trail and the decision journal: one line per change request,
 * saying what was asked, by whom (unique name and effective uid) and the
 * verdict, then as key=value fields the decision's number, the verdict, its
 * error name, the dry-run flag and the limits applied; notice for what was
 * granted, warning for everything else. The same goes into the ring that
 * ListDecisions reads. */
static uint64_t audit(const ChangeJob *j, LogLevel level, const char *verdict, const char *error,
                      const char *fmt, ...) _printf_(5, 6);

/* Returns the decision's number, 0 when it could not be kept. */
static uint64_t audit(const ChangeJob *j, LogLevel level, const char *verdict, const char *error,
                      const char *fmt, ...) {
        const char *sender = sd_bus_message_get_sender(j->call);
        const char *method = sd_bus_message_get_member(j->call);
        char uid_text[16] = "?", outcome[sizeof(((AgentDecision *)NULL)->outcome)];
        uint32_t uid = AGENT_UID_UNKNOWN;
        uid_t euid;
        AgentDecision *d;
        va_list ap;
        size_t n;

        if (j->creds && sd_bus_creds_get_euid(j->creds, &euid) >= 0) {
                uid = (uint32_t)euid;
                snprintf(uid_text, sizeof(uid_text), "%u", (unsigned)uid);
        }
        n = (size_t)snprintf(outcome, sizeof(outcome), "%s",
                             j->answered ? "after its timeout, " : "");
        va_start(ap, fmt);
        vsnprintf(outcome + n, sizeof(outcome) - n, fmt, ap);
        va_end(ap);
        d = agent_decisions_add(&j->agent->decisions);
        if (!d)
                log_oom();
        else {
                snprintf(d->method, sizeof(d->method), "%s", method);
                snprintf(d->sender, sizeof(d->sender), "%s", sender ? sender : "");
                d->uid = uid;
                agent_decision_text(d->domain, sizeof(d->domain), j->change.domain);
                agent_decision_text(d->inputs, sizeof(d->inputs), j->args);
                agent_decision_text(d->limits, sizeof(d->limits), j->change.limits);
                snprintf(d->verdict, sizeof(d->verdict), "%s", verdict);
                agent_decision_text(d->error, sizeof(d->error), error);
                d->dry_run = j->agent->dry_run;
                agent_decision_text(d->outcome, sizeof(d->outcome), outcome);
        }
        log_full_errno(level, 0,
                       "%s('%s', %s) by uid %s (%s): %s [decision=%llu verdict=\"%s\" "
                       "error=\"%s\" dry_run=%s limits=\"%s\"]",
                       method, PRINTABLE(j->change.domain), j->args, uid_text,
                       sender ? sender : "?", outcome, d ? (unsigned long long)d->id : 0ULL,
                       verdict, error, j->agent->dry_run ? "yes" : "no", j->change.limits);
        return d ? d->id : 0;
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
                                 "Changing VMs needs root or group '%s'.", a->config.allowed_group);
}

static int change_run(void *userdata, void *data) {
        ChangeJob *j = data;
        return agent_actuator_change(userdata, &j->change);
}

static const char *rule_error(ActRule rule) {
        switch (rule) {
        case ACT_RULE_UNKNOWN:
                return AGENT1_ERROR_NOT_SUPPORTED;
        case ACT_RULE_UNPLUG:
                return AGENT1_ERROR_NOT_PERMITTED;
        case ACT_RULE_STEP:
                return AGENT1_ERROR_STEP_TOO_LARGE;
        case ACT_RULE_MIN_CHANGE:
                return AGENT1_ERROR_CHANGE_TOO_SMALL;
        case ACT_RULE_HOST_RESERVE:
                return AGENT1_ERROR_HOST_RESERVE;
        case ACT_RULE_RATE:
                return AGENT1_ERROR_RATE_LIMITED;
        default:
                return AGENT1_ERROR_OUT_OF_RANGE;
        }
}

/* The error of a refusal: the balloon guard's, else the rule's. */
static const char *refusal_error(const AgentResourceChange *x) {
        switch (x->guard) {
        case AGENT_GUARD_NO_GUEST_STATS:
                return AGENT1_ERROR_GUEST_MEMORY_UNKNOWN;
        case AGENT_GUARD_GUEST_PRESSURE:
                return AGENT1_ERROR_GUEST_UNDER_PRESSURE;
        case AGENT_GUARD_MEMORY_PRESSURE:
                return AGENT1_ERROR_MEMORY_PRESSURE;
        default:
                return rule_error(x->outcome.rule);
        }
}

static const char *errno_error(int r) {
        switch (-r) {
        case ENOENT:
                return AGENT1_ERROR_NO_SUCH_DOMAIN;
        case ESRCH:
                return AGENT1_ERROR_NOT_RUNNING;
        case EOPNOTSUPP:
                return AGENT1_ERROR_NOT_SUPPORTED;
        case EPERM:
                return AGENT1_ERROR_NOT_PERMITTED;
        case EROFS:
                return AGENT1_ERROR_NOT_MANAGED;
        case EINVAL:
                /* Past our limits, so the hypervisor's own (e.g. its maximum). */
                return AGENT1_ERROR_OUT_OF_RANGE;
        case ENOTCONN:
        case ETIMEDOUT:
                return AGENT1_ERROR_HYPERVISOR_UNAVAILABLE;
        default:
                return AGENT1_ERROR_HYPERVISOR_FAILED;
        }
}

/* Failed only when the hypervisor could not do what it was asked; a
 * missing domain, say, is refused. */
static const char *error_verdict(const char *name) {
        return strcmp(name, AGENT1_ERROR_HYPERVISOR_FAILED) == 0 ||
                               strcmp(name, AGENT1_ERROR_HYPERVISOR_UNAVAILABLE) == 0
                       ? "failed"
                       : "refused";
}

#define CHANGE_ERROR_MAX (HV_NAME_MAX + sizeof(((AgentChange *)NULL)->message) + 4)

/* The error a resource's outcome is, or NULL; for a refusal, the message
 * names the domain, as a single-value method's error does. */
static const char *resource_error(const AgentChange *c, ActResource r, char *msg, size_t size) {
        const AgentResourceChange *x = &c->r[r];

        switch (x->status) {
        case AGENT_CHANGE_REFUSED:
                snprintf(msg, size, "%s: %s.", c->name, x->message);
                return refusal_error(x);
        case AGENT_CHANGE_FAILED:
                snprintf(msg, size, "%s.", x->message);
                return errno_error(x->error);
        default:
                return NULL;
        }
}

/* One resource's verdict for the audit trail; a single-value request's
 * line names the resource in its verdict, a target's before it. */
static LogLevel resource_verdict(const ChangeJob *j, ActResource r, char *buf, size_t size) {
        const AgentChange *c = &j->change;
        const AgentResourceChange *x = &c->r[r];
        const char *what = j->single ? act_resource_to_string(r) : "", *sp = j->single ? " " : "";
        char msg[CHANGE_ERROR_MAX];
        const char *name;

        switch (x->status) {
        case AGENT_CHANGE_APPLIED:
                if (x->after == x->outcome.requested) {
                        snprintf(buf, size, "applied, %s%s%s -> %s", what, sp,
                                 ACT_VALUE(r, x->before), ACT_VALUE(r, x->after));
                        return LOG_LEVEL_NOTICE;
                }
                snprintf(buf, size, "applied, %s%s%s -> %s, not as asked%s", what, sp,
                         ACT_VALUE(r, x->before), ACT_VALUE(r, x->after),
                         r == ACT_MEMORY ? " (the balloon may still be moving)" : "");
                return LOG_LEVEL_WARNING;
        case AGENT_CHANGE_CLAMPED:
                snprintf(buf, size, "clamped, %s%s%s -> %s, %s: %s", what, sp,
                         ACT_VALUE(r, x->before), ACT_VALUE(r, x->after),
                         rule_error(x->outcome.rule), x->message);
                return LOG_LEVEL_NOTICE;
        case AGENT_CHANGE_UNCHANGED:
                snprintf(buf, size, "unchanged, %s%salready %s", what, sp, ACT_VALUE(r, x->before));
                return LOG_LEVEL_NOTICE;
        case AGENT_CHANGE_DRY_RUN:
                if (x->outcome.verdict == ACT_CLAMPED)
                        snprintf(buf, size,
                                 "allowed as %s, not applied (dry run), %s%sstays %s: %s",
                                 ACT_VALUE(r, x->outcome.value), what, sp, ACT_VALUE(r, x->before),
                                 x->message);
                else
                        snprintf(buf, size, "allowed, not applied (dry run), %s%sstays %s", what,
                                 sp, ACT_VALUE(r, x->before));
                return LOG_LEVEL_NOTICE;
        default:
                name = resource_error(c, r, msg, sizeof(msg));
                snprintf(buf, size, "%s, %s: %s", error_verdict(name), name, msg);
                return LOG_LEVEL_WARNING;
        }
}

static const Agent1Status wire_status[] = {
        [AGENT_CHANGE_APPLIED] = AGENT1_APPLIED,     [AGENT_CHANGE_CLAMPED] = AGENT1_CLAMPED,
        [AGENT_CHANGE_UNCHANGED] = AGENT1_UNCHANGED, [AGENT_CHANGE_DRY_RUN] = AGENT1_DRY_RUN,
        [AGENT_CHANGE_REFUSED] = AGENT1_REFUSED,     [AGENT_CHANGE_FAILED] = AGENT1_FAILED,
};

/* A resource's verdict and its error name ("" for none; a clamp names
 * its rule), as the metrics count them and the decision journal keeps
 * them. */
static void resource_outcome(const AgentChange *c, ActResource r, const char **ret_verdict,
                             const char **ret_error) {
        char msg[CHANGE_ERROR_MAX];
        const char *name;

        if (c->error < 0) {
                *ret_error = errno_error(c->error);
                *ret_verdict = error_verdict(*ret_error);
                return;
        }
        name = resource_error(c, r, msg, sizeof(msg));
        if (c->r[r].status == AGENT_CHANGE_CLAMPED)
                name = rule_error(c->r[r].outcome.rule);
        *ret_verdict = agent1_status_to_string(wire_status[c->r[r].status]);
        *ret_error = name ? name : "";
}

/* The metrics' count of each resource's verdict, by error name. */
static void count_change(const ChangeJob *j) {
        const AgentChange *c = &j->change;

        for (ActResource r = 0; r < _ACT_RESOURCE_MAX; r++) {
                const char *verdict, *name;

                if (!(c->target.set & ACT_BIT(r)))
                        continue;
                resource_outcome(c, r, &verdict, &name);
                if (agent_count_change(&j->agent->change_counts, r, verdict, name) < 0)
                        log_oom();
        }
}

/* How far a verdict is from what was asked: a change's verdict is its
 * resources' furthest. */
static const unsigned status_rank[] = {
        [AGENT_CHANGE_UNCHANGED] = 1, [AGENT_CHANGE_APPLIED] = 2, [AGENT_CHANGE_DRY_RUN] = 3,
        [AGENT_CHANGE_CLAMPED] = 4,   [AGENT_CHANGE_REFUSED] = 5, [AGENT_CHANGE_FAILED] = 6,
};

static uint64_t audit_change(const ChangeJob *j) {
        const AgentChange *c = &j->change;
        LogLevel level = LOG_LEVEL_NOTICE;
        char line[2048] = "", one[1024];
        const char *verdict = "", *error = "";
        unsigned rank = 0;
        size_t n = 0;

        count_change(j);
        if (c->error < 0) {
                const char *name = errno_error(c->error);
                return audit(j, LOG_LEVEL_WARNING, error_verdict(name), name, "%s, %s: %s.",
                             error_verdict(name), name, c->message);
        }
        for (ActResource r = 0; r < _ACT_RESOURCE_MAX; r++) {
                if (!(c->target.set & ACT_BIT(r)))
                        continue;
                if (status_rank[c->r[r].status] > rank) {
                        rank = status_rank[c->r[r].status];
                        resource_outcome(c, r, &verdict, &error);
                }
                level = MIN(level, resource_verdict(j, r, one, sizeof(one)));
                if (j->single) {
                        snprintf(line, sizeof(line), "%s", one);
                        break;
                }
                /* One sentence: the resources' verdicts end in ';', not '.'. */
                if (strlen(one) > 0 && one[strlen(one) - 1] == '.')
                        one[strlen(one) - 1] = '\0';
                n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s: %s", n > 0 ? "; " : "",
                                      act_resource_to_string(r), one);
                n = MIN(n, sizeof(line) - 1);
        }
        return audit(j, level, verdict, error, "%s", line);
}

/* A resource's value as SetTarget's verdicts carry it; one the hypervisor
 * does not report is 0, or -1 for a cap, where 0 means none (as in the
 * metrics). */
static double wire_value(ActResource r, uint64_t v, bool known) {
        if (r == ACT_CPU_CAP)
                return known ? act_cap_to_cpus(v) : -1.0;
        if (!known)
                return 0;
        return resource_type(r) == 'u' ? (double)MIN(v, (uint64_t)UINT32_MAX) : (double)v;
}

/* SetTarget's answer: a verdict per resource, the error name "" for a
 * resource applied as asked. */
static int reply_target(ChangeJob *j) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const AgentChange *c = &j->change;
        int r;

        r = sd_bus_message_new_method_return(j->call, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "{" AGENT1_VERDICT_FIELDS "}");
        if (r < 0)
                return r;
        for (ActResource k = 0; k < _ACT_RESOURCE_MAX; k++) {
                const AgentResourceChange *x = &c->r[k];
                bool known = x->outcome.rule != ACT_RULE_UNKNOWN;
                const char *name = "";

                if (!(c->target.set & ACT_BIT(k)))
                        continue;
                if (x->status == AGENT_CHANGE_FAILED)
                        name = errno_error(x->error);
                else if (x->status == AGENT_CHANGE_REFUSED || x->outcome.verdict == ACT_REFUSED ||
                         x->outcome.verdict == ACT_CLAMPED)
                        name = refusal_error(x);
                r = agent1_verdict_append(reply, &(Agent1Verdict){
                                                         .resource = wire_resource(k),
                                                         .status = wire_status[x->status],
                                                         .before = wire_value(k, x->before, known),
                                                         .after = wire_value(k, x->after, known),
                                                         .error = name,
                                                         .message = x->message,
                                                 });
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int reply_change(ChangeJob *j) {
        const AgentChange *c = &j->change;
        char msg[CHANGE_ERROR_MAX];
        const char *name = NULL;
        ActResource r = ACT_CPU_WEIGHT;

        if (c->error < 0) {
                snprintf(msg, sizeof(msg), "%s.", c->message);
                name = errno_error(c->error);
        } else if (!j->single)
                return reply_target(j);
        else {
                while (!(c->target.set & ACT_BIT(r)))
                        r++;
                name = resource_error(c, r, msg, sizeof(msg));
        }
        if (name)
                return sd_bus_reply_method_error(j->call, &SD_BUS_ERROR_MAKE_CONST(name, msg));
        if (r == ACT_VCPUS)
                return sd_bus_reply_method_return(j->call, "uu", (uint32_t)c->r[r].before,
                                                  (uint32_t)c->r[r].after);
        return sd_bus_reply_method_return(j->call, "tt", c->r[r].before, c->r[r].after);
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
        audit(j, LOG_LEVEL_WARNING, verdict, name, "%s, %s: %s", verdict, name, msg);
        return sd_bus_reply_method_error(j->call, &SD_BUS_ERROR_MAKE_CONST(name, msg));
}

/* What the collector reads per domain (the weight and the quota, which a
 * vCPU change moves) changed: the next sample reads it again. */
static void note_settings_changed(ChangeJob *j) {
        const AgentChange *c = &j->change;
        static const ActResource settings[] = { ACT_CPU_WEIGHT, ACT_VCPUS, ACT_CPU_CAP };

        if (c->error < 0)
                return;
        for (size_t i = 0; i < ELEMENTSOF(settings); i++) {
                AgentChangeStatus s = c->r[settings[i]].status;

                if (s == AGENT_CHANGE_APPLIED || s == AGENT_CHANGE_CLAMPED) {
                        if (agent_stale_add(&j->agent->stale, c->uuid) < 0)
                                log_oom();
                        return;
                }
        }
}

/* A vCPU or memory change made: the domain has [agent] target-grace to
 * show it (decision: the change's number in the journal). */
static void expect_targets(ChangeJob *j, uint64_t decision) {
        static const ActResource shown[] = { ACT_VCPUS, ACT_MEMORY };
        const AgentChange *c = &j->change;
        Agent *a = j->agent;

        if (c->error < 0)
                return;
        for (size_t i = 0; i < ELEMENTSOF(shown); i++) {
                const AgentResourceChange *x = &c->r[shown[i]];

                if (x->status != AGENT_CHANGE_APPLIED && x->status != AGENT_CHANGE_CLAMPED)
                        continue;
                if (agent_target_expect(
                            &a->target_checks, c->uuid, c->name, shown[i], x->outcome.value,
                            now_monotonic_usec() + a->config.target_grace, decision) < 0)
                        log_oom();
        }
}

static void change_done(WorkerOutcome outcome, int result, void *data) {
        ChangeJob *j = data;
        const char *timeout = FORMAT_DURATION(j->agent->config.hypervisor_timeout);
        int r = 0;

        switch (outcome) {
        case WORKER_DONE:
                if (result < 0) {
                        audit(j, LOG_LEVEL_WARNING, "failed", "", "failed: %s", strerror(-result));
                        r = sd_bus_reply_method_errno(j->call, result, NULL);
                        break;
                }
                note_settings_changed(j);
                expect_targets(j, audit_change(j));
                r = reply_change(j);
                break;
        case WORKER_TIMEOUT_QUEUED:
                r = reply_refused(j, "not made", AGENT1_ERROR_HYPERVISOR_UNAVAILABLE,
                                  "The hypervisor did not answer within %s; the change was not "
                                  "made.",
                                  timeout);
                break;
        case WORKER_TIMEOUT_RUNNING:
                r = reply_refused(j, "outstanding", AGENT1_ERROR_HYPERVISOR_UNAVAILABLE,
                                  "The hypervisor did not answer within %s; the change may "
                                  "still take effect (watch the Sample signal).",
                                  timeout);
                j->answered = true;
                break;
        case WORKER_LATE:
                if (result < 0)
                        audit(j, LOG_LEVEL_WARNING, "failed", "", "failed: %s", strerror(-result));
                else {
                        note_settings_changed(j);
                        expect_targets(j, audit_change(j));
                }
                break;
        case WORKER_CANCELLED:
                r = reply_refused(j, "not made", AGENT1_ERROR_HYPERVISOR_UNAVAILABLE,
                                  "The agent is shutting down.");
                break;
        }
        if (r < 0)
                log_warning_errno(r, "Cannot reply to a %s request",
                                  sd_bus_message_get_member(j->call));
}

static const WorkerJobOps change_ops = { change_run, change_done, change_free };

/* A request, with its domain argument read; a domain longer than any name
 * is kept cut short for the audit trail and refused in submit_change().
 * NULL only when out of memory. r: how reading went. */
static ChangeJob *change_new(Agent *a, sd_bus_message *m, bool single, int *r) {
        const char *domain;
        ChangeJob *j;

        j = calloc(1, sizeof(*j));
        if (!j) {
                *r = -ENOMEM;
                return NULL;
        }
        j->agent = a;
        j->call = sd_bus_message_ref(m);
        j->single = single;
        j->change.flags = single ? ACT_STRICT : 0;
        /* Without credentials the request is refused later, and logged with
         * its sender alone. */
        (void)sd_bus_query_sender_creds(m,
                                        SD_BUS_CREDS_EUID | SD_BUS_CREDS_EGID |
                                                SD_BUS_CREDS_SUPPLEMENTARY_GIDS |
                                                SD_BUS_CREDS_AUGMENT,
                                        &j->creds);
        *r = sd_bus_message_read(m, "s", &domain);
        if (*r >= 0) {
                snprintf(j->change.domain, sizeof(j->change.domain), "%s", domain);
                j->domain_valid = agent_domain_is_valid(domain);
        }
        return j;
}

/* A value given for r: what no limit needs to judge, since no VM can have
 * it. */
static int check_value(ActResource r, uint64_t v, sd_bus_error *error) {
        const char *what = act_resource_to_string(r);

        if (r != ACT_CPU_CAP && v == 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "The %s value must be positive.", what);
        if (r == ACT_MEMORY && v % 1024 != 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Memory %llu is not a multiple of 1024 bytes.",
                                         (unsigned long long)v);
        return 0;
}

static void target_set(ChangeJob *j, ActResource r, uint64_t v) {
        if (j->single)
                snprintf(j->args, sizeof(j->args), "%s", ACT_VALUE(r, v));
        else
                args_append(j, act_resource_to_string(r), ACT_VALUE(r, v));
        j->change.target.set |= ACT_BIT(r);
        j->change.target.value[r] = v;
}

/* One entry of SetTarget's a{sv}; the message is inside the entry. */
static int read_target_entry(ChangeJob *j, sd_bus_message *m, sd_bus_error *error) {
        const char *key, *contents;
        Agent1Resource w;
        ActResource r;
        uint32_t u = 0;
        uint64_t t = 0;
        double d = 0;
        char type;
        int k;

        k = sd_bus_message_read(m, "s", &key);
        if (k < 0)
                return k;
        k = sd_bus_message_peek_type(m, &type, &contents);
        if (k < 0)
                return k;
        if (agent1_resource_from_key(key, &w) < 0) {
                args_append(j, key, "?");
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Unknown target key '%s'; the keys are " TARGET_KEYS ".",
                                         PRINTABLE(key));
        }
        r = act_resource_of[w];
        if (j->change.target.set & ACT_BIT(r)) {
                args_append(j, key, "?");
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Target key '%s' is given twice.", key);
        }
        if (strlen(contents) != 1 || contents[0] != resource_type(r)) {
                args_append(j, key, "?");
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Target key '%s' must be of type %c, not %s.", key,
                                         resource_type(r), PRINTABLE(contents));
        }
        k = sd_bus_message_enter_container(m, 'v', contents);
        if (k < 0)
                return k;
        switch (resource_type(r)) {
        case 'u':
                k = sd_bus_message_read_basic(m, 'u', &u);
                t = u;
                break;
        case 't':
                k = sd_bus_message_read_basic(m, 't', &t);
                break;
        default:
                k = sd_bus_message_read_basic(m, 'd', &d);
                break;
        }
        if (k < 0)
                return k;
        k = sd_bus_message_exit_container(m);
        if (k < 0)
                return k;
        if (r == ACT_CPU_CAP && !(isfinite(d) && d >= 0)) {
                args_append(j, key, "?");
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Target key 'cpu-cap' must be 0 (no cap) or a number of "
                                         "CPUs, not %g.",
                                         d);
        }
        target_set(j, r, r == ACT_CPU_CAP ? act_cap_from_cpus(d) : t);
        return 0;
}

static int read_target(ChangeJob *j, sd_bus_message *m, sd_bus_error *error) {
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                r = read_target_entry(j, m, error);
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        if (j->change.target.set == 0)
                return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS,
                                        "The target sets nothing; the keys are " TARGET_KEYS ".");
        return 0;
}

/* Validation needing no hypervisor state, then authorization, then the
 * worker; the limits, the no-op check and the change itself need the
 * domain's current values, so they run on the worker against fresh state
 * rather than a cached sample. Every request ends in one line of the audit
 * trail: here when refused, in change_done otherwise. The domain and the
 * values have been read (r: how that went). */
static int submit_change(ChangeJob *j_, int r, sd_bus_error *error) {
        _cleanup_(change_freep) ChangeJob *j = j_;
        Agent *a = j->agent;

        if (r >= 0 && !j->domain_valid)
                r = agent_bus_invalid_domain(j->change.domain, error);
        for (ActResource k = 0; r >= 0 && k < _ACT_RESOURCE_MAX; k++)
                if (j->change.target.set & ACT_BIT(k))
                        r = check_value(k, j->change.target.value[k], error);
        if (r >= 0 && !j->creds)
                r = sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
                                     "The bus does not say who the caller is.");
        if (r >= 0)
                r = authorize(a, j->creds, error);
        if (r >= 0) {
                agent_snapshot_others(ring_get_newest(&a->history, 0), j->change.domain,
                                      &j->change.others_vcpus, &j->change.others_memory);
                j->change.guest_memory = agent_snapshot_guest_memory(
                        ring_get_newest(&a->history, 0), j->change.domain);
                r = worker_submit(a->actuator_worker, &change_ops, j, a->config.hypervisor_timeout);
                if (r == -EBUSY)
                        r = sd_bus_error_set(error, AGENT1_ERROR_HYPERVISOR_UNAVAILABLE,
                                             "Too many requests are waiting for the "
                                             "hypervisor.");
        }
        if (r < 0) {
                if (sd_bus_error_is_set(error)) {
                        const char *verdict =
                                sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED)
                                        ? "denied"
                                        : "refused";
                        audit(j, LOG_LEVEL_WARNING, verdict, error->name, "%s, %s: %s", verdict,
                              error->name, error->message);
                } else
                        audit(j, LOG_LEVEL_WARNING, "failed", "", "failed: %s", strerror(-r));
                return r;
        }
        /* The worker owns it now and answers from change_done. */
        TAKE_PTR(j);
        return 1;
}

int agent_method_set_target(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        int r;
        ChangeJob *j = change_new(userdata, m, false, &r);

        if (!j)
                return r;
        if (r >= 0)
                r = read_target(j, m, error);
        return submit_change(j, r, error);
}

/* SetVcpus (u), SetMemory (t), SetCpuWeight (t). */
static int set_single(sd_bus_message *m, void *userdata, sd_bus_error *error, ActResource res) {
        uint32_t u = 0;
        uint64_t t = 0;
        int r;
        ChangeJob *j = change_new(userdata, m, true, &r);

        if (!j)
                return r;
        if (r >= 0)
                r = sd_bus_message_read_basic(m, res == ACT_VCPUS ? 'u' : 't',
                                              res == ACT_VCPUS ? (void *)&u : &t);
        if (r >= 0)
                target_set(j, res, res == ACT_VCPUS ? u : t);
        return submit_change(j, r, error);
}

int agent_method_set_vcpus(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return set_single(m, userdata, error, ACT_VCPUS);
}

int agent_method_set_memory(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return set_single(m, userdata, error, ACT_MEMORY);
}

int agent_method_set_cpu_weight(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return set_single(m, userdata, error, ACT_CPU_WEIGHT);
}

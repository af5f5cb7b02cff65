/* SPDX-License-Identifier: MIT */
#include "actuator.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"
#include "connection.h"
#include "vm-limits.h"

#define KIB 1024ULL
/* libvirt's default period, for a domain that reports none. */
#define VCPU_PERIOD_DEFAULT (100 * USEC_PER_MSEC)

int agent_actuator_init(AgentActuator *a, const char *uri, const ActLimits *limits,
                        const ActHost *capacity, bool dry_run) {
        *a = (AgentActuator){ .limits = *limits,
                              .capacity = { .cpus = capacity->cpus, .memory = capacity->memory },
                              .dry_run = dry_run };
        a->uri = strdup(uri);
        return a->uri ? 0 : -ENOMEM;
}

void agent_actuator_done(AgentActuator *a) {
        a->conn = hv_connection_free(a->conn);
        free(a->uri);
        free(a->records);
        *a = (AgentActuator){ 0 };
}

static AgentChangeRecord *record_find(AgentActuator *a, const char *uuid) {
        for (size_t i = 0; i < a->n_records; i++)
                if (strcmp(a->records[i].uuid, uuid) == 0)
                        return &a->records[i];
        return NULL;
}

static bool record_expired(const AgentActuator *a, const AgentChangeRecord *rec, usec_t now) {
        for (ActResource r = 0; r < _ACT_RESOURCE_MAX; r++)
                if ((rec->history.changed & ACT_BIT(r)) &&
                    now - rec->history.last[r] < a->limits.min_interval)
                        return false;
        return true;
}

static int record_note(AgentActuator *a, const char *uuid, ActResource r, usec_t now) {
        AgentChangeRecord *rec = record_find(a, uuid), *grown;

        if (!rec) {
                /* Records older than the rate limit mean nothing any more;
                 * dropping them bounds the table by the domains changed in
                 * one interval. */
                for (size_t i = 0; i < a->n_records;)
                        if (record_expired(a, &a->records[i], now))
                                a->records[i] = a->records[--a->n_records];
                        else
                                i++;
                grown = reallocarray(a->records, a->n_records + 1, sizeof(*grown));
                if (!grown)
                        return -ENOMEM;
                a->records = grown;
                rec = &a->records[a->n_records++];
                *rec = (AgentChangeRecord){ 0 };
                memcpy(rec->uuid, uuid, sizeof(rec->uuid));
        }
        act_history_note(&rec->history, r, now);
        return 0;
}

static int change_failed(AgentChange *c, int r, const char *fmt, ...) _printf_(3, 4);

static int change_failed(AgentChange *c, int r, const char *fmt, ...) {
        va_list ap;

        c->error = r;
        va_start(ap, fmt);
        vsnprintf(c->message, sizeof(c->message), fmt, ap);
        va_end(ap);
        return 0;
}

/* The period of the quota a cap is set as (set_cap()). */
static uint64_t period_of(const HvDomainInfo *info) {
        uint64_t period = info->fields & HV_INFO_GLOBAL_QUOTA ? info->global_period_usec
                                                              : info->vcpu_period_usec;

        return period > 0 ? period : VCPU_PERIOD_DEFAULT;
}

/* The domain's values in the contract's units. */
static ActVm vm_of(const HvDomainInfo *info) {
        ActVm vm = {
                .known = ACT_BIT(ACT_VCPUS) | ACT_BIT(ACT_MEMORY),
                .value = { [ACT_VCPUS] = info->vcpus_current,
                           [ACT_MEMORY] = info->memory_kib * KIB },
                .max = { [ACT_VCPUS] = info->vcpus_max, [ACT_MEMORY] = info->memory_max_kib * KIB },
        };

        if (info->fields & HV_INFO_CPU_WEIGHT) {
                vm.known |= ACT_BIT(ACT_CPU_WEIGHT);
                vm.value[ACT_CPU_WEIGHT] = info->cpu_shares;
        }
        if (info->fields & (HV_INFO_QUOTA | HV_INFO_GLOBAL_QUOTA)) {
                vm.known |= ACT_BIT(ACT_CPU_CAP);
                vm.value[ACT_CPU_CAP] = agent_cap_from_info(info);
        }
        return vm;
}

/* The cap is the whole domain's quota where the domain has one (libvirt's
 * global_quota), as DRS and the simulator cap a VM: its busy vCPUs share
 * it. Else it is a quota per vCPU, set for the vCPU count the domain has by
 * then, under which a guest with one busy vCPU gets only its part of the
 * cap. */
static int set_cap(AgentActuator *a, const AgentChange *c, uint64_t cap, unsigned vcpus,
                   const HvDomainInfo *info, uint64_t *ret_after) {
        bool global = info->fields & HV_INFO_GLOBAL_QUOTA;
        uint64_t period = period_of(info), got_period;
        uint64_t per = global ? 1 : vcpus;
        int64_t quota = -1, got_quota;
        int r;

        if (cap != ACT_CAP_NONE)
                quota = (int64_t)((cap * period + per * ACT_MILLI / 2) / (per * ACT_MILLI));
        if (!global)
                log_notice("Domain %s has no whole-VM CPU quota (global_quota): its cap of %s is "
                           "set as a quota per vCPU for %u vCPUs",
                           c->name, ACT_VALUE(ACT_CPU_CAP, cap), vcpus);
        r = hv_domain_set_quota(a->conn, c->uuid, quota, period, global ? HV_QUOTA_GLOBAL : 0,
                                &got_quota, &got_period);
        if (r < 0)
                return r;
        *ret_after = agent_cap_from_quota(got_quota, got_period, (unsigned)per);
        return 0;
}

static int apply(AgentActuator *a, const AgentChange *c, ActResource r, uint64_t value,
                 unsigned vcpus, const HvDomainInfo *info, uint64_t *ret_after) {
        unsigned got_vcpus;
        uint64_t got;
        int k;

        switch (r) {
        case ACT_CPU_WEIGHT:
                k = hv_domain_set_cpu_weight(a->conn, c->uuid, value, 0, &got);
                break;
        case ACT_VCPUS:
                k = hv_domain_set_vcpus(a->conn, c->uuid, (unsigned)value,
                                        a->limits.allow_vcpu_unplug ? HV_VCPUS_ALLOW_UNPLUG : 0,
                                        &got_vcpus);
                got = got_vcpus;
                break;
        case ACT_CPU_CAP:
                return set_cap(a, c, value, vcpus, info, ret_after);
        default:
                k = hv_domain_set_memory(a->conn, c->uuid, value / KIB, 0, &got);
                got *= KIB;
                break;
        }
        if (k >= 0)
                *ret_after = got;
        return k;
}

/* Applies one resource the plan allows; a failure is that resource's. */
static int apply_one(AgentActuator *a, AgentChange *c, ActResource r, unsigned vcpus,
                     const HvDomainInfo *info, usec_t now) {
        AgentResourceChange *x = &c->r[r];
        uint64_t after;
        int k;

        k = apply(a, c, r, x->outcome.value, vcpus, info, &after);
        if (k < 0) {
                x->status = AGENT_CHANGE_FAILED;
                x->error = k;
                snprintf(x->message, sizeof(x->message), "%s", agent_hv_error(a->conn, k));
                return 0;
        }
        x->status = x->outcome.verdict == ACT_CLAMPED ? AGENT_CHANGE_CLAMPED : AGENT_CHANGE_APPLIED;
        x->after = after;
        /* Counted even if the read-back differs: the resource was touched. */
        return record_note(a, c->uuid, r, now);
}

/* A vCPU change moves a cap set as a quota per vCPU: the cap the target
 * leaves alone is set again for the new count. A whole-VM quota stays as
 * it is. */
static void keep_cap(AgentActuator *a, const AgentChange *c, const ActVm *vm, unsigned vcpus,
                     const HvDomainInfo *info) {
        uint64_t cap = vm->value[ACT_CPU_CAP], after;
        int r;

        if (!(vm->known & ACT_BIT(ACT_CPU_CAP)) || cap == ACT_CAP_NONE ||
            (info->fields & HV_INFO_GLOBAL_QUOTA))
                return;
        r = set_cap(a, c, cap, vcpus, info, &after);
        if (r < 0)
                log_warning_errno(r,
                                  "Cannot keep the CPU cap of %s at %s across its vCPU change: %s",
                                  c->name, ACT_VALUE(ACT_CPU_CAP, cap), agent_hv_error(a->conn, r));
}

/* The agent's limits narrowed by the VM's own in its metadata, and the
 * bounds the VM's set. A VM whose limits cannot be read or make no sense is
 * not changed at all: the operator set them to be kept; nor is one its
 * metadata opts out. */
static int vm_limits(AgentActuator *a, AgentChange *c, ActLimits *ret, unsigned *ret_floors,
                     unsigned *ret_ceilings) {
        _cleanup_free_ char *xml = NULL;
        AgentVmLimits vm = { 0 };
        char why[160];
        int r;

        r = hv_domain_get_metadata(a->conn, c->uuid, AGENT_LIMITS_XMLNS, 0, &xml);
        if (r < 0 && r != -EOPNOTSUPP) {
                change_failed(c, r, "cannot read %s's limits in its metadata: %s", c->name,
                              agent_hv_error(a->conn, r));
                return r;
        }
        if (xml && agent_vm_limits_parse(xml, &vm, why, sizeof(why)) < 0) {
                change_failed(c, -EPERM, "%s's limits in its metadata (%s): %s", c->name,
                              AGENT_LIMITS_XMLNS, why);
                return -EPERM;
        }
        if (vm.unmanaged) {
                change_failed(c, -EROFS,
                              "%s is not managed: its metadata (%s) says " AGENT_VM_MANAGE_ATTRIBUTE
                              "=\"no\"",
                              c->name, AGENT_LIMITS_XMLNS);
                return -EROFS;
        }
        if (agent_vm_limits_apply(&vm, &a->limits, ret, ret_floors, ret_ceilings) == 0)
                return 0;
        for (ActResource k = 0; k < _ACT_RESOURCE_MAX; k++)
                if (ret->r[k].floor > ret->r[k].ceiling)
                        change_failed(c, -EINVAL,
                                      "%s's limits in its metadata leave no %s within the "
                                      "agent's: minimum %s, maximum %s",
                                      c->name, act_resource_to_string(k),
                                      ACT_VALUE(k, ret->r[k].floor),
                                      ACT_VALUE(k, ret->r[k].ceiling));
        return -EINVAL;
}

/* Names the VM's limit in the message of a target its range bound. */
static void name_vm_limit(const AgentChange *c, ActResource k, const ActLimits *limits,
                          unsigned floors, unsigned ceilings, AgentResourceChange *x) {
        const ActResourceLimits *rl = &limits->r[k];
        bool above = x->outcome.proposed > rl->ceiling;
        size_t n = strlen(x->message);

        if (x->outcome.rule != ACT_RULE_RANGE || !((above ? ceilings : floors) & ACT_BIT(k)))
                return;
        snprintf(x->message + n, sizeof(x->message) - n, ", set by %s's metadata %s", c->name,
                 agent_vm_limit_name(k, above));
}

static void limits_append(AgentChange *c, const char *fmt, ...) _printf_(2, 3);

static void limits_append(AgentChange *c, const char *fmt, ...) {
        size_t n = strlen(c->limits);
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(c->limits + n, sizeof(c->limits) - n, fmt, ap);
        va_end(ap);
}

/* The balloon guard (balloon-guard.h) on a shrink of x's memory: what the
 * domain's cgroup said of its memory pressure goes into the limits the
 * decision journal shows, a refusal into x. */
static void guard_shrink(AgentActuator *a, AgentChange *c, AgentResourceChange *x) {
        AgentDomainPressure pressure;
        char detail[PATH_MAX + 64];
        const char *why;
        int over;

        if (x->outcome.value >= x->outcome.current)
                return;
        agent_domain_pressure(c->uuid, &pressure, detail, sizeof(detail));
        if (pressure.known)
                limits_append(c,
                              "; balloon-guard memory.pressure some avg10 %.2f%% avg60 %.2f%% full "
                              "avg10 %.2f%% avg60 %.2f%% (max some %g%%, full %g%%, %s)",
                              pressure.percent[AGENT_PRESSURE_SOME_AVG10],
                              pressure.percent[AGENT_PRESSURE_SOME_AVG60],
                              pressure.percent[AGENT_PRESSURE_FULL_AVG10],
                              pressure.percent[AGENT_PRESSURE_FULL_AVG60],
                              a->balloon_guard_pressure.some, a->balloon_guard_pressure.full,
                              detail);
        else
                limits_append(c, "; balloon-guard without memory.pressure (%s)", detail);
        x->guard =
                agent_balloon_guard_judge(c->guest_memory, &pressure, &a->balloon_guard_pressure);
        switch (x->guard) {
        case AGENT_GUARD_NONE:
                return;
        case AGENT_GUARD_NO_GUEST_STATS:
                why = "the guest reported no memory statistics since the last sample (it needs "
                      "a balloon stats period)";
                break;
        case AGENT_GUARD_GUEST_PRESSURE:
                why = "the guest had more major faults or swap-in than in the sample before";
                break;
        default:
                why = "its cgroup's memory.pressure is above the balloon guard's threshold";
                break;
        }
        x->status = AGENT_CHANGE_REFUSED;
        snprintf(x->message, sizeof(x->message), "memory %s is below the current %s, and %s",
                 ACT_VALUE(ACT_MEMORY, x->outcome.value), ACT_VALUE(ACT_MEMORY, x->outcome.current),
                 why);
        over = agent_pressure_exceeded(&pressure, &a->balloon_guard_pressure);
        if (x->guard == AGENT_GUARD_MEMORY_PRESSURE && over >= 0) {
                size_t n = strlen(x->message);

                snprintf(x->message + n, sizeof(x->message) - n, " (%s %.2f%% > %g%%)",
                         agent_pressure_figure_to_string(over), pressure.percent[over],
                         agent_pressure_limit(&a->balloon_guard_pressure, over));
        }
}

/* Each targeted resource's range, step and minimum change, naming the
 * bounds the VM's metadata set, then the rate limit. */
static void describe_limits(AgentChange *c, const ActLimits *limits, unsigned floors,
                            unsigned ceilings) {
        for (ActResource k = 0; k < _ACT_RESOURCE_MAX; k++) {
                const ActResourceLimits *rl = &limits->r[k];

                if (!(c->target.set & ACT_BIT(k)))
                        continue;
                limits_append(c, "%s%s [%s, %s]", c->limits[0] ? "; " : "",
                              act_resource_to_string(k), ACT_VALUE(k, rl->floor),
                              ACT_VALUE(k, rl->ceiling));
                if (rl->max_step != UINT64_MAX)
                        limits_append(c, " step %s", ACT_VALUE(k, rl->max_step));
                if (rl->min_change > 0)
                        limits_append(c, " min-change %s", ACT_VALUE(k, rl->min_change));
                if (floors & ACT_BIT(k))
                        limits_append(c, " %s from metadata", agent_vm_limit_name(k, false));
                if (ceilings & ACT_BIT(k))
                        limits_append(c, " %s from metadata", agent_vm_limit_name(k, true));
        }
        if (limits->min_interval > 0)
                limits_append(c, "; min-interval %s", FORMAT_DURATION(limits->min_interval));
}

int agent_actuator_change(AgentActuator *a, AgentChange *c) {
        AgentChangeRecord *rec;
        ActLimits limits;
        unsigned floors, ceilings;
        ActRequest req;
        HvDomainInfo info;
        ActPlan plan;
        unsigned vcpus;
        bool cap_applied = false;
        int r;

        r = agent_connect(&a->conn, a->uri);
        if (r < 0)
                return change_failed(c, -ENOTCONN, "cannot open %s", a->uri);
        r = hv_domain_get_info(a->conn, c->domain, 0, &info);
        if (r == -ENOENT) {
                char text[sizeof(c->domain) + 16];
                return change_failed(c, r, "%s",
                                     agent_error_no_domain(text, sizeof(text), c->domain));
        }
        if (r < 0)
                return change_failed(c, r, "%s", agent_hv_error(a->conn, r));
        memcpy(c->name, info.name, sizeof(c->name));
        memcpy(c->uuid, info.uuid, sizeof(c->uuid));
        if (!hv_domain_state_is_live(info.state))
                return change_failed(c, -ESRCH, "domain %s is %s; live changes need it running",
                                     info.name, hv_domain_state_to_string(info.state));

        r = vm_limits(a, c, &limits, &floors, &ceilings);
        if (r < 0)
                return 0;
        describe_limits(c, &limits, floors, ceilings);

        rec = record_find(a, info.uuid);
        req = (ActRequest){
                .vm = vm_of(&info),
                .host = { .cpus = a->capacity.cpus,
                          .memory = a->capacity.memory,
                          .others_vcpus = c->others_vcpus,
                          .others_memory = c->others_memory },
                .history = rec ? rec->history : (ActHistory){ 0 },
                .target = c->target,
                .now = agent_now(a->clock),
        };
        r = act_plan(&limits, &req, c->flags, &plan);
        if (r < 0)
                return r;

        vcpus = info.vcpus_current;
        for (ActResource k = 0; k < _ACT_RESOURCE_MAX; k++) {
                AgentResourceChange *x = &c->r[k];

                if (!(c->target.set & ACT_BIT(k)))
                        continue;
                x->outcome = plan.r[k];
                x->before = x->after = plan.r[k].current;
                (void)act_explain(&limits, &req, k, &plan.r[k], x->message, sizeof(x->message));
                name_vm_limit(c, k, &limits, floors, ceilings, x);
                switch (plan.r[k].verdict) {
                case ACT_UNCHANGED:
                        x->status = AGENT_CHANGE_UNCHANGED;
                        continue;
                case ACT_REFUSED:
                        x->status = AGENT_CHANGE_REFUSED;
                        continue;
                default:
                        break;
                }
                if (k == ACT_MEMORY && a->balloon_guard) {
                        guard_shrink(a, c, x);
                        if (x->guard != AGENT_GUARD_NONE)
                                continue;
                }
                if (a->dry_run) {
                        x->status = AGENT_CHANGE_DRY_RUN;
                        continue;
                }
                r = apply_one(a, c, k, vcpus, &info, req.now);
                if (r < 0)
                        return r;
                if (k == ACT_VCPUS && x->status != AGENT_CHANGE_FAILED)
                        vcpus = (unsigned)x->after;
                if (k == ACT_CPU_CAP)
                        cap_applied = x->status != AGENT_CHANGE_FAILED;
        }
        if (vcpus != info.vcpus_current && !cap_applied)
                keep_cap(a, c, &req.vm, vcpus, &info);
        return 0;
}

char *agent_error_no_domain(char *buf, size_t size, const char *domain) {
        snprintf(buf, size, "No domain '%s'", domain);
        return buf;
}

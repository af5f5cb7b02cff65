/* SPDX-License-Identifier: MIT */
/* The agent's Prometheus metrics (conf/agent.ini [metrics]). Counters that
 * libvirt exporters already publish keep their names and meaning
 * (libvirt_domain_info_cpu_time_seconds_total, libvirt_domain_vcpu_*), so a
 * dashboard built on those works here; what only the agent knows is
 * flexslot_*. A value never measured is left out, never written as 0:
 * Prometheus shows it as absent, which it is. One a domain busy in a job
 * did not answer is its last, with flexslot_domain_sample_age_seconds. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/metrics-http.h"
#include "common/time-util.h"
#include "daemon.h"

int agent_count_change(AgentChangeCounts *counts, ActResource resource, const char *verdict,
                       const char *error) {
        AgentChangeCount *grown;

        for (size_t i = 0; i < counts->n; i++) {
                AgentChangeCount *c = &counts->items[i];

                if (c->resource == resource && strcmp(c->verdict, verdict) == 0 &&
                    strcmp(c->error, error) == 0) {
                        c->n++;
                        return 0;
                }
        }
        grown = reallocarray(counts->items, counts->n + 1, sizeof(*counts->items));
        if (!grown)
                return -ENOMEM;
        counts->items = grown;
        counts->items[counts->n++] = (AgentChangeCount){
                .resource = resource, .verdict = verdict, .error = error, .n = 1
        };
        return 0;
}

void agent_change_counts_done(AgentChangeCounts *counts) {
        free(counts->items);
        *counts = (AgentChangeCounts){ 0 };
}

static void labels(FILE *out, const char *name, const char *uuid) {
        fputs("{domain=", out);
        metrics_label_value(out, name);
        fputs(",uuid=", out);
        metrics_label_value(out, uuid);
}

static void write_domains(FILE *out, const AgentSnapshot *s) {
        static const struct {
                const char *name, *type, *help;
        } gauges[] = {
                { "flexslot_domain_steal_ratio", "gauge",
                  "Share of the vCPUs' wall time runnable but not running (what the guest "
                  "sees as steal), over the last sampling interval" },
                { "flexslot_domain_cpu_use_cpus", "gauge",
                  "Host CPUs the domain used over the last sampling interval" },
                { "flexslot_domain_vcpus", "gauge", "vCPUs online" },
                { "flexslot_domain_vcpus_maximum", "gauge", "vCPUs the domain may have" },
                { "flexslot_domain_memory_bytes", "gauge", "Balloon size" },
                { "flexslot_domain_memory_maximum_bytes", "gauge", "Memory the domain may have" },
                { "flexslot_domain_cpu_weight", "gauge", "CPU weight (cpu_shares)" },
                { "flexslot_domain_sample_age_seconds", "gauge",
                  "How long before the newest sample the oldest of the domain's values was "
                  "measured (a domain busy in a job keeps its last ones)" },
                { "flexslot_domain_samples_skipped_total", "counter",
                  "Samples that skipped the domain: answered without counters it had had, or "
                  "found it paused for a job (a migration, a save, a dump, a snapshot)" },
                { "flexslot_domain_running", "gauge", "1 when the domain runs" },
        };

        for (size_t g = 0; g < ELEMENTSOF(gauges); g++) {
                metrics_header(out, gauges[g].name, gauges[g].type, gauges[g].help);
                for (size_t i = 0; i < s->n_domains; i++) {
                        const AgentDomain *d = &s->domains[i];
                        const HvDomainMetrics *m = &d->metrics;
                        double v;

                        switch (g) {
                        case 0:
                                if (!(m->valid & HV_METRIC_STEAL))
                                        continue;
                                v = m->steal;
                                break;
                        case 1:
                                if (!(m->valid & HV_METRIC_CPU_USE))
                                        continue;
                                v = m->cpu_use;
                                break;
                        case 2:
                        case 3:
                                if (!(m->valid & HV_METRIC_VCPUS))
                                        continue;
                                v = g == 2 ? m->vcpus_current : m->vcpus_max;
                                break;
                        case 4:
                        case 5:
                                if (!(m->valid & HV_METRIC_MEMORY))
                                        continue;
                                v = 1024.0 * (double)(g == 4 ? m->memory_kib : m->memory_max_kib);
                                break;
                        case 6:
                                if (!(d->settings & AGENT_SETTING_CPU_WEIGHT))
                                        continue;
                                v = (double)d->cpu_weight;
                                break;
                        case 7:
                                v = usec_to_sec(d->age_usec);
                                break;
                        case 8:
                                v = (double)d->skipped_total;
                                break;
                        default:
                                v = m->state == HV_STATE_RUNNING;
                        }
                        fputs(gauges[g].name, out);
                        labels(out, d->name, d->uuid);
                        if (g == ELEMENTSOF(gauges) - 1 && hv_domain_state_to_string(m->state))
                                fprintf(out, ",state=\"%s\"", hv_domain_state_to_string(m->state));
                        fprintf(out, "} %.17g\n", v);
                }
        }
}

/* The counters of the last sample, as libvirt reports them. */
static void write_counters(FILE *out, const HvDomainSample *samples, size_t n) {
        metrics_header(out, "libvirt_domain_info_cpu_time_seconds_total", "counter",
                       "CPU time of all the domain's threads (libvirt's cpu.time)");
        for (size_t i = 0; i < n; i++) {
                if (!(samples[i].fields & HV_FIELD_CPU_TIME))
                        continue;
                fputs("libvirt_domain_info_cpu_time_seconds_total", out);
                labels(out, samples[i].name, samples[i].uuid);
                fprintf(out, "} %.9f\n", (double)samples[i].cpu_time_ns / 1e9);
        }
        for (unsigned k = 0; k < 2; k++) {
                const char *name = k == 0 ? "libvirt_domain_vcpu_delay_seconds_total"
                                          : "libvirt_domain_vcpu_time_seconds_total";

                metrics_header(out, name, "counter",
                               k == 0 ? "Time the vCPU was runnable but waited for a host CPU "
                                        "(libvirt's vcpu.N.delay; the guest's steal)"
                                      : "Time the vCPU ran on a host CPU (libvirt's vcpu.N.time)");
                for (size_t i = 0; i < n; i++) {
                        const HvDomainSample *d = &samples[i];

                        if (!(d->fields & (k == 0 ? HV_FIELD_VCPU_DELAY : HV_FIELD_VCPU_TIME)))
                                continue;
                        for (unsigned v = 0; v < HV_VCPU_MAX; v++) {
                                if (!(d->vcpu_present[v / 64] & (UINT64_C(1) << (v % 64))))
                                        continue;
                                fputs(name, out);
                                labels(out, d->name, d->uuid);
                                fprintf(out, ",vcpu=\"%u\"} %.9f\n", v,
                                        (double)(k == 0 ? d->vcpu_delay_ns[v]
                                                        : d->vcpu_time_ns[v]) /
                                                1e9);
                        }
                }
        }
}

static void write_changes(FILE *out, const AgentChangeCounts *counts) {
        metrics_header(out, "flexslot_agent_changes_total", "counter",
                       "Resources of VM changes asked of the agent, by verdict and by the error "
                       "name of a refusal or failure");
        for (size_t i = 0; i < counts->n; i++) {
                const AgentChangeCount *c = &counts->items[i];

                fprintf(out, "flexslot_agent_changes_total{resource=\"%s\",verdict=\"%s\",error=",
                        act_resource_to_string(c->resource), c->verdict);
                metrics_label_value(out, c->error);
                fprintf(out, "} %" PRIu64 "\n", c->n);
        }
}

/* The vCPU and memory targets judged since their change: 1 shown, 0 not. */
static void write_targets(FILE *out, const AgentTargetChecks *checks) {
        bool header = false;

        for (size_t i = 0; i < checks->n; i++) {
                const AgentTargetCheck *x = &checks->items[i];

                if (x->state == AGENT_TARGET_PENDING)
                        continue;
                if (!header)
                        metrics_header(out, "flexslot_domain_target_reached", "gauge",
                                       "1 when the domain shows its last vCPU or memory target, "
                                       "0 when it did not within the grace period");
                header = true;
                fputs("flexslot_domain_target_reached", out);
                labels(out, x->name, x->uuid);
                fprintf(out, ",resource=\"%s\"} %d\n", act_resource_to_string(x->resource),
                        x->state == AGENT_TARGET_REACHED);
        }
}

int agent_metrics_write(FILE *out, void *userdata) {
        const Agent *a = userdata;
        const AgentSnapshot *s = ring_get_newest(&a->history, 0);

        metrics_header(out, "flexslot_agent_hypervisor_up", "gauge",
                       "1 when the last sample of the hypervisor succeeded");
        fprintf(out, "flexslot_agent_hypervisor_up %d\n", a->hypervisor_available ? 1 : 0);
        if (s) {
                usec_t now = now_realtime_usec();

                metrics_header(out, "flexslot_agent_sample_age_seconds", "gauge",
                               "Time since the newest sample was taken");
                fprintf(out, "flexslot_agent_sample_age_seconds %.3f\n",
                        now > s->realtime ? usec_to_sec(now - s->realtime) : 0.0);
                metrics_header(out, "flexslot_agent_domains", "gauge",
                               "Domains in the newest sample");
                fprintf(out, "flexslot_agent_domains %zu\n", s->n_domains);
                write_domains(out, s);
        }
        write_counters(out, a->latest_samples, a->n_latest_samples);
        write_changes(out, &a->change_counts);
        write_targets(out, &a->target_checks);
        return ferror(out) ? -EIO : 0;
}

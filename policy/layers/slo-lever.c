/* SPDX-License-Identifier: MIT */
/* The one loop's lever: CPU weight for deadline jobs forecast late, taken
 * from the best-effort VMs on their hosts (slo-loop.h). */
#include <errno.h>
#include <math.h>

#include "common/macro.h"
#include "policy/layers/slo-loop.h"

void slo_lever_init(SloLever *l) {
        idmap_init(&l->late, sizeof(bool));
        idmap_init(&l->base, sizeof(unsigned));
}

void slo_lever_done(SloLever *l) {
        idmap_done(&l->late);
        idmap_done(&l->base);
}

/* Forecasts every deadline job, reports it and marks the late ones in
 * late[] (per job), with the hysteresis of slo_margin. */
static int forecast_jobs(SloLever *l, PolicyContext *ctx, bool *late) {
        const ClusterSnapshot *s = ctx->snap;
        double *end = context_scratch(ctx, s->n_jobs + 1, sizeof(double));
        double *speed = context_scratch(ctx, s->n_jobs + 1, sizeof(double));
        int r;

        if (!end || !speed)
                return -ENOMEM;
        r = slo_forecast_jobs(ctx, end, speed);
        if (r < 0)
                return r;
        for (uint32_t j = 0; j < s->n_jobs; j++) {
                bool *was;

                if (isnan(end[j]))
                        continue;
                r = idmap_put(&l->late, s->jobs[j].id, (void **)&was);
                if (r < 0)
                        return r;
                *was = slo_late(ctx, j, *was, end[j]);
                late[j] = *was;
                r = slo_note(ctx, j, end[j], speed[j], *was);
                if (r < 0)
                        return r;
        }
        idmap_sweep(&l->late);
        return 0;
}

/* The allocator's target for vm in this step; NULL when it set none. */
static VmTarget *allocator_target(const PolicyContext *ctx, uint32_t vm) {
        for (size_t i = 0; i < ctx->d->n_vm_targets; i++)
                if (ctx->d->vm_targets[i].vm == vm)
                        return &ctx->d->vm_targets[i];
        return NULL;
}

/* The weight the VM has before the lever: the allocator's target of this
 * step, else what it had when the lever first changed it, else its own. */
static unsigned base_weight(const SloLever *l, const PolicyContext *ctx, uint32_t vm) {
        const unsigned *kept = idmap_get(&l->base, ctx->snap->vms[vm].id);
        const VmTarget *t = allocator_target(ctx, vm);

        if (t)
                return t->cpu_weight;
        return kept ? *kept : ctx->snap->vms[vm].cpu_weight;
}

/* The VM's target with weight, the allocator's otherwise, and its report. */
static int set_weight(SloLever *l, PolicyContext *ctx, uint32_t vm, unsigned weight, uint32_t job) {
        const Vm *v = &ctx->snap->vms[vm];
        VmTarget *t = allocator_target(ctx, vm);
        unsigned base = base_weight(l, ctx, vm);
        unsigned *kept;
        int r;

        weight = MAX(weight, 2u);
        if (t)
                t->cpu_weight = weight;
        else if (weight != v->cpu_weight) {
                r = DECISIONS_PUSH(ctx->d, vm_targets, .vm = vm, .cpu_weight = weight,
                                   .vcpus = v->vcpus, .memory = v->memory, .cpu_cap = v->cpu_cap);
                if (r < 0)
                        return r;
        } else
                return 0;
        if (job != NO_INDEX || weight != base) {
                r = idmap_put(&l->base, v->id, (void **)&kept);
                if (r < 0)
                        return r;
                if (*kept == 0)
                        *kept = base;
        }
        return DECISIONS_PUSH(ctx->d, levers, .vm = vm, .job = job, .cpu_weight = weight);
}

typedef enum VmRole {
        ROLE_KEEP,   /* runs only deadline jobs that are safe */
        ROLE_LATE,   /* runs a late deadline job */
        ROLE_EFFORT, /* best effort: another tenant's, or no deadline job's task */
} VmRole;

/* One host with a late job's VM on it: R and B split their part afresh. */
static int host_split(SloLever *l, PolicyContext *ctx, uint32_t host, const VmRole *role,
                      const uint32_t *vm_job) {
        const ClusterSnapshot *s = ctx->snap;
        double all = 0, part = 0, need = 0, effort = 0, pcpus = s->hosts[host].pcpus, share, rest;

        for (uint32_t v = 0; v < s->n_vms; v++) {
                double b, vcpus = s->vms[v].vcpus;

                if (s->vms[v].host != host)
                        continue;
                b = base_weight(l, ctx, v);
                all += b;
                if (role[v] == ROLE_KEEP)
                        continue;
                part += b;
                if (role[v] == ROLE_LATE)
                        need += s->vms[v].cpu_cap > 0 ? fmin(s->vms[v].cpu_cap, vcpus) : vcpus;
                else
                        effort += b;
        }
        if (all <= 0 || part <= 0 || pcpus <= 0)
                return 0;
        /* The late VMs' and the best-effort VMs' part of the host's CPU. */
        share = pcpus * part / all;
        rest = fmax(share - need, 0);
        for (uint32_t v = 0; v < s->n_vms; v++) {
                double entitled, vcpus = s->vms[v].vcpus;
                int r;

                if (s->vms[v].host != host || role[v] == ROLE_KEEP)
                        continue;
                if (role[v] == ROLE_LATE) {
                        double want =
                                s->vms[v].cpu_cap > 0 ? fmin(s->vms[v].cpu_cap, vcpus) : vcpus;
                        entitled = need > share ? share * want / need : want;
                } else
                        entitled = effort > 0 ? rest * base_weight(l, ctx, v) / effort : 0;
                r = set_weight(l, ctx, v, (unsigned)lround(part * entitled / share),
                               role[v] == ROLE_LATE ? vm_job[v] : NO_INDEX);
                if (r < 0)
                        return r;
        }
        return 0;
}

int slo_lever_step(SloLever *l, PolicyContext *ctx) {
        const ClusterSnapshot *s = ctx->snap;
        bool *late = context_scratch(ctx, s->n_jobs + 1, sizeof(bool));
        bool *levered = context_scratch(ctx, s->n_hosts + 1, sizeof(bool));
        VmRole *role = context_scratch(ctx, s->n_vms + 1, sizeof(VmRole));
        uint32_t *vm_job = context_scratch(ctx, s->n_vms + 1, sizeof(uint32_t));
        bool *deadline_work = context_scratch(ctx, s->n_vms + 1, sizeof(bool));
        bool *other_work = context_scratch(ctx, s->n_vms + 1, sizeof(bool));
        int r;

        if (!late || !levered || !role || !vm_job || !deadline_work || !other_work)
                return -ENOMEM;
        r = forecast_jobs(l, ctx, late);
        if (r < 0)
                return r;
        for (uint32_t v = 0; v < s->n_vms; v++)
                vm_job[v] = NO_INDEX;
        for (size_t i = 0; i < s->n_attempts; i++) {
                const Attempt *a = &s->attempts[i];
                uint32_t job = s->tasks[a->task].job, vm = s->nodes[a->node].vm;

                if (ctx->killed[i])
                        continue;
                if (s->jobs[job].deadline == 0) {
                        other_work[vm] = true;
                        continue;
                }
                deadline_work[vm] = true;
                if (late[job] && vm_job[vm] == NO_INDEX)
                        vm_job[vm] = job;
        }
        for (uint32_t v = 0; v < s->n_vms; v++) {
                /* An idle VM of this cluster may get a late job's task
                 * at any heartbeat: it keeps its weight. So does one its
                 * owner opted out: its agent would refuse every change. */
                role[v] = s->vms[v].unmanaged     ? ROLE_KEEP
                          : vm_job[v] != NO_INDEX ? ROLE_LATE
                          : s->vms[v].other_tenant || (other_work[v] && !deadline_work[v])
                                  ? ROLE_EFFORT
                                  : ROLE_KEEP;
                if (role[v] == ROLE_LATE)
                        levered[s->vms[v].host] = true;
        }
        for (uint32_t h = 0; h < s->n_hosts; h++)
                if (levered[h]) {
                        r = host_split(l, ctx, h, role, vm_job);
                        if (r < 0)
                                return r;
                }
        /* The weight goes back where no late job runs any more, asked at
         * every step until the VM reports it: a target asked once may be
         * lost on its way (a live controller sends only its control
         * cycle's, one at a time per VM), and would leave the VM levered
         * for good. Back, it is reported once more and forgotten. One
         * found opted out since is forgotten at the sweep: its agent
         * refused the lever's weight, and would refuse it back. */
        for (uint32_t v = 0; v < s->n_vms; v++) {
                unsigned base;

                if (s->vms[v].unmanaged)
                        continue;
                if (levered[s->vms[v].host] || !idmap_get(&l->base, s->vms[v].id)) {
                        idmap_touch(&l->base, s->vms[v].id);
                        continue;
                }
                base = base_weight(l, ctx, v);
                if (s->vms[v].cpu_weight != base) {
                        idmap_touch(&l->base, s->vms[v].id);
                        r = set_weight(l, ctx, v, base, NO_INDEX);
                } else {
                        idmap_remove(&l->base, s->vms[v].id);
                        r = DECISIONS_PUSH(ctx->d, levers, .vm = v, .job = NO_INDEX,
                                           .cpu_weight = base);
                }
                if (r < 0)
                        return r;
        }
        idmap_sweep(&l->base);
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* VMware DRS as the FlexSlot testbed ran it ([drs] in a scenario): the
 * cloud, not a policy of the cluster, so the cluster's VM allocator is off
 * (apply_vm_targets = no) while DRS runs.
 *
 * One resource pool per virtual cluster: FlexSlot II-C and V-A put the 32
 * VMs in a pool of 153.6 GHz, which is the 8 hosts' 64 cores of 2.4 GHz
 * (pool = 0: every host's pCPUs). DRS divides ("divvies") the pool among the
 * VMs by their estimated demand, each at most its size (its vCPUs), and
 * enforces each VM's part on its host as a limit (a cap) and as its shares
 * (the CPU weight, in proportion to the part), so that a VM can never use
 * more than its entitlement even on an idle host, and VMs on a contended
 * host split it by their entitlements. DRS also moves VMs between hosts
 * (vMotion); the model leaves that out.
 *
 * The estimator, each part configurable:
 * - period: DRS runs every 5 minutes by default (VMware: "DRS runs its
 *   algorithm once every 5 minutes (by default)"; vSphere 7 shortened it to
 *   a minute, after the paper's vSphere 5.1).
 * - window: the demand is the average over the last 5 minutes, the span of
 *   the per-VM statistics DRS reads (vSphere API, rescpu counters: "average
 *   and peak values over 1-minute, 5-minute, and 15-minute intervals", on
 *   which "the VMkernel makes recommendations"), sampled every 20 s (sample:
 *   vCenter's real-time statistics interval).
 * - ready: whether time a VM was ready to run but held back (by contention
 *   or its limit: the model's steal) counts as demand. No by default: the
 *   FlexSlot paper says DRS "computes a node's CPU demand based on its
 *   recent actual CPU consumption" (II-C), and VMware's DRS performance
 *   study says the same ("For CPU, demand is calculated based on the amount
 *   of CPU the VM is currently consuming"). VMware's own definition of a
 *   VM's demand (what it would use without contention or a limit) includes
 *   it: `ready = yes`.
 * - divvy: "proportional" (the pool in proportion to the demands: the
 *   literal reading of "divided by estimated demand") by default, or
 *   "maxmin" (each VM its demand, max-min fair, what is left in equal parts,
 *   as vSphere 6.7's second divvy pass does for reservations). The sources
 *   do not settle which the paper's vSphere 5.1 did; both are assumptions,
 *   and `flexslot-sim experiment drs` shows what each changes.
 * - Before the first divvy no demand has been seen: the pool is split
 *   equally (the VMs' shares are equal), i.e. the paper's static 4.8 GHz
 *   nodes.
 * - A demand is at least 0.01 pCPU, so that an idle VM keeps a limit (a
 *   zero would mean none).
 * - With [drs] agent_weights a cluster's agents set CPU weights beside DRS
 *   (the one loop's lever, slo-loop.h): a VM's shares on its host are
 *   DRS's times the agent's weight over the default weight, so that the
 *   agent moves weight between the VMs of a host and DRS still divides
 *   the pool; DRS's limits stand, and the agent changes nothing else.
 *   This is an **assumption**: vSphere has no such agent; on KVM the agent
 *   sets cpu_shares and there is no DRS. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "sim/state.h"

static double drs_pool(const Sim *s) {
        double pool = 0;

        if (s->sc->drs_pool > 0)
                return s->sc->drs_pool;
        for (size_t i = 0; i < s->n_hosts; i++)
                pool += s->hosts[i].pcpus;
        return pool;
}

double sim_drs_pool(const Sim *s) {
        return drs_pool(s);
}

unsigned sim_drs_vm_weight(const Sim *s, const SimVm *v) {
        return (unsigned)MAX(
                lround((double)v->drs_weight * sim_vm_agent_weight(s, v) / s->sc->vm_weight), 2L);
}

/* Enforces the entitlements on the hosts: a limit and shares, the latter
 * scaled by an agent's weight ([drs] agent_weights; none: its default). */
static void drs_apply(SimCluster *cl, const double *share, double pool) {
        Sim *s = cl->sim;

        sim_hosts_advance_all(s);
        for (size_t i = 0; i < cl->n_vms; i++) {
                SimVm *v = &s->vms[cl->vms[i]];
                v->cap = share[i];
                v->drs_weight = drs_share_weight(share[i], cl->n_vms, pool, s->sc->vm_weight);
                v->weight = sim_drs_vm_weight(s, v);
                sim_vm_snapshot_stale(s, v);
        }
        for (size_t h = 0; h < s->n_hosts; h++)
                sim_host_update(s, (uint32_t)h);
}

static usec_t drs_sample_event(EventQueue *q, void *userdata) {
        SimCluster *cl = userdata;
        usec_t now = event_queue_now(q);

        if (cl->n_finished == cl->n_jobs)
                return 0;
        sim_hosts_advance_all(cl->sim);
        for (size_t i = 0; i < cl->n_vms; i++) {
                const SimVm *v = &cl->sim->vms[cl->vms[i]];
                drs_history_add(&cl->drs.history[i], (DrsSample){
                                                             .at = now,
                                                             .cpu = v->cpu_total,
                                                             .ready = v->steal_total,
                                                     });
        }
        return cl->sim->sc->drs_sample;
}

static usec_t drs_divvy_event(EventQueue *q, void *userdata) {
        SimCluster *cl = userdata;
        Sim *s = cl->sim;
        usec_t now = event_queue_now(q);
        double pool = drs_pool(s);

        if (cl->n_finished == cl->n_jobs)
                return 0;
        sim_hosts_advance_all(s);
        for (size_t i = 0; i < cl->n_vms; i++) {
                const SimVm *v = &s->vms[cl->vms[i]];
                DrsSample at = { .at = now, .cpu = v->cpu_total, .ready = v->steal_total };

                cl->drs.demand[i] = drs_history_demand(&cl->drs.history[i], s->sc->drs_window,
                                                       s->sc->drs_ready, &at);
                cl->drs.size[i] = v->vcpus;
        }
        drs_divvy(s->sc->drs_divvy, pool, cl->drs.demand, cl->drs.size, cl->n_vms, cl->drs.share);
        drs_apply(cl, cl->drs.share, pool);
        return s->sc->drs_period;
}

int sim_drs_start(SimCluster *cl) {
        Sim *s = cl->sim;
        const Scenario *sc = s->sc;
        double pool = drs_pool(s);
        int r;

        cl->drs.history = calloc(cl->n_vms, sizeof(DrsHistory));
        cl->drs.demand = calloc(cl->n_vms, sizeof(double));
        cl->drs.size = calloc(cl->n_vms, sizeof(double));
        cl->drs.share = calloc(cl->n_vms, sizeof(double));
        if (!cl->drs.history || !cl->drs.demand || !cl->drs.size || !cl->drs.share)
                return -ENOMEM;
        for (size_t i = 0; i < cl->n_vms; i++) {
                r = drs_history_init(&cl->drs.history[i], sc->drs_window, sc->drs_sample);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < cl->n_vms; i++)
                cl->drs.share[i] =
                        drs_equal_share(pool, cl->n_vms, (double)s->vms[cl->vms[i]].vcpus);
        drs_apply(cl, cl->drs.share, pool);
        r = event_queue_schedule(s->queue, 0, drs_sample_event, cl, NULL);
        if (r < 0)
                return r;
        return event_queue_schedule(s->queue, sc->drs_period, drs_divvy_event, cl, NULL);
}

void sim_drs_done(SimCluster *cl) {
        for (size_t i = 0; cl->drs.history && i < cl->n_vms; i++)
                drs_history_done(&cl->drs.history[i]);
        free(cl->drs.history);
        free(cl->drs.demand);
        free(cl->drs.size);
        free(cl->drs.share);
}

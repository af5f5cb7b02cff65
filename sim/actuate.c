/* SPDX-License-Identifier: MIT */
/* The simulator's VM targets as the agent would apply them: through the
 * actuation contract (actuation/) with the agent's default limits, so that
 * what the simulator evaluates is what the agent would do. */
#include "actuation/act-config.h"
#include "sim/state.h"

VmTarget sim_vm_target_limit(Sim *s, SimVm *v, const VmTarget *t) {
        const SimHost *h = &s->hosts[v->host];
        VmTarget limited = *t;
        ActRequest req = {
                .vm = { .known = ACT_ALL,
                        .value = { [ACT_CPU_WEIGHT] = sim_vm_agent_weight(s, v),
                                   [ACT_VCPUS] = v->vcpus,
                                   [ACT_CPU_CAP] = act_cap_from_cpus(v->cap),
                                   [ACT_MEMORY] = v->memory },
                        .max = { [ACT_VCPUS] = v->vcpus_max, [ACT_MEMORY] = v->memory_max } },
                /* The agent counts the host's running VMs as its last sample
                 * saw them: as they are, not as pending resizes will make
                 * them. */
                .host = { .cpus = (uint64_t)h->pcpus, .memory = (uint64_t)s->sc->host_memory },
                .history = v->act_history,
                .target = { .set = ACT_ALL,
                            .value = { [ACT_CPU_WEIGHT] = t->cpu_weight,
                                       [ACT_VCPUS] = t->vcpus,
                                       [ACT_CPU_CAP] = act_cap_from_cpus(t->cpu_cap),
                                       [ACT_MEMORY] = t->memory } },
                .now = event_queue_now(s->queue),
        };
        ActPlan plan;

        for (size_t i = 0; i < h->n_vms; i++) {
                const SimVm *o = &s->vms[h->vms[i]];

                if (o == v)
                        continue;
                req.host.others_vcpus += o->vcpus;
                req.host.others_memory += o->memory;
        }
        /* Only unknown flags fail, and there are none. */
        (void)act_plan(act_limits_default(), &req, 0, &plan);
        for (ActResource r = 0; r < _ACT_RESOURCE_MAX; r++)
                if (plan.r[r].value != plan.r[r].current)
                        act_history_note(&v->act_history, r, req.now);
        limited.cpu_weight = (unsigned)plan.r[ACT_CPU_WEIGHT].value;
        limited.vcpus = (unsigned)plan.r[ACT_VCPUS].value;
        limited.cpu_cap = act_cap_to_cpus(plan.r[ACT_CPU_CAP].value);
        limited.memory = plan.r[ACT_MEMORY].value;
        return limited;
}

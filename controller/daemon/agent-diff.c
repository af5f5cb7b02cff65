/* SPDX-License-Identifier: MIT */
/* Which part of a VM target is a change worth sending to an agent
 * (agents-internal.h), apart from the sending so that it is tested alone. */
#include <math.h>

#include "common/macro.h"
#include "controller/daemon/agents-internal.h"

bool agent_weight_changed(uint32_t target, uint32_t current) {
        uint32_t step = target > current ? target - current : current - target;

        return step > MAX(current / AGENT_WEIGHT_DEAD_BAND_INVERSE, AGENT_WEIGHT_DEAD_BAND_MIN);
}

bool agent_target_diff(const VmTarget *t, const AgentVm *vm, AgentTarget *ret) {
        /* The agent takes memory in KiB. */
        uint64_t memory = t->memory / 1024 * 1024;

        *ret = (AgentTarget){
                .vcpus = t->vcpus != vm->vcpus ? t->vcpus : 0,
                .memory = memory != vm->memory ? memory : 0,
                .cpu_weight = (vm->valid & AGENT1_METRIC_CPU_WEIGHT) &&
                                              agent_weight_changed(t->cpu_weight, vm->cpu_weight)
                                      ? t->cpu_weight
                                      : 0,
                /* The agent's cap has its own minimum change; a hundredth of
                 * a CPU is no change. */
                .set_cap = (vm->valid & AGENT1_METRIC_CPU_CAP) &&
                           fabs(t->cpu_cap - vm->cpu_cap) > 0.01,
                .cpu_cap = t->cpu_cap,
        };
        return ret->vcpus || ret->memory || ret->cpu_weight || ret->set_cap;
}

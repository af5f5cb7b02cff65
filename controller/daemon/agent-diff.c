/* SPDX-License-Identifier: MIT */
/* Which part of a VM target is a change worth sending to an agent, and
 * whether a VM shows one taken (agents-internal.h), apart from the sending
 * and ListVms so that they are tested alone. */
#include <math.h>
#include <string.h>

#include "common/macro.h"
#include "controller/daemon/agents-internal.h"
#include "proto/controller1.h"

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

void agent_vcpus_target_shown(const AgentVm *vm, uint32_t guest_cpus, const char **ret_state,
                              const char **ret_source) {
        *ret_state = vm->vcpus_target;
        *ret_source = vm->vcpus_target_source;
        if (strcmp(vm->vcpus_target_source, AGENT1_SOURCE_GUEST_AGENT) != 0 && guest_cpus > 0 &&
            strcmp(vm->vcpus_target, AGENT1_TARGET_REACHED) == 0) {
                *ret_state =
                        guest_cpus < vm->vcpus ? AGENT1_TARGET_UNREACHED : AGENT1_TARGET_REACHED;
                *ret_source = CONTROLLER1_SOURCE_TRACKER;
        }
}

/* SPDX-License-Identifier: MIT */
/* The tables of every policy of every layer, and their lookup by name. */
#include <errno.h>
#include <string.h>

#include "controller/policies/policies.h"

const JobSchedulerOps *const job_scheduler_table[] = {
        &job_scheduler_fifo,
        &job_scheduler_fair,
        NULL,
};

const SlotManagerOps *const slot_manager_table[] = {
        &slot_manager_static,
        &slot_manager_flexslot,
        NULL,
};

const SpeculationOps *const speculation_table[] = {
        &speculation_none,
        &speculation_hadoop,
        &speculation_late,
        NULL,
};

const VmAllocatorOps *const vm_allocator_table[] = {
        &vm_allocator_static,
        &vm_allocator_demand,
        &vm_allocator_flexslot,
        NULL,
};

/* The four tables differ in type only; each entry starts with its name. */
#define DEFINE_OPS_FIND(func, type, table)                     \
        const type *func(const char *name) {                   \
                for (size_t i = 0; name && table[i]; i++)      \
                        if (strcmp(table[i]->name, name) == 0) \
                                return table[i];               \
                return NULL;                                   \
        }

DEFINE_OPS_FIND(job_scheduler_ops_find, JobSchedulerOps, job_scheduler_table)
DEFINE_OPS_FIND(slot_manager_ops_find, SlotManagerOps, slot_manager_table)
DEFINE_OPS_FIND(speculation_ops_find, SpeculationOps, speculation_table)
DEFINE_OPS_FIND(vm_allocator_ops_find, VmAllocatorOps, vm_allocator_table)

int policy_layers_find(const PolicyConfig *cfg, PolicyLayers *ret) {
        PolicyLayers layers = {
                .scheduler = job_scheduler_ops_find(cfg->scheduler),
                .slot_manager = slot_manager_ops_find(cfg->slot_manager),
                .speculation = speculation_ops_find(cfg->speculation),
                .vm_allocator = vm_allocator_ops_find(cfg->vm_allocator),
        };

        if (!layers.scheduler || !layers.slot_manager || !layers.speculation ||
            !layers.vm_allocator)
                return -EINVAL;
        *ret = layers;
        return 0;
}

int policy_new_named(const PolicyConfig *cfg, Policy **ret) {
        PolicyLayers layers;
        int r;

        if (!cfg)
                return -EINVAL;
        r = policy_layers_find(cfg, &layers);
        if (r < 0)
                return r;
        return policy_new(&layers, cfg, ret);
}

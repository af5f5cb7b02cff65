/* SPDX-License-Identifier: MIT */
#pragma once

/* Every policy of every layer, and the tables that find them by name
 * (registry.c): what a driver uses to build a Policy from names in its
 * configuration. */

#include "controller/core/policy.h"

extern const JobSchedulerOps job_scheduler_fifo;
extern const JobSchedulerOps job_scheduler_fair;

extern const SlotManagerOps slot_manager_static;
extern const SlotManagerOps slot_manager_flexslot;

extern const SpeculationOps speculation_none;
extern const SpeculationOps speculation_hadoop;
extern const SpeculationOps speculation_late;

extern const VmAllocatorOps vm_allocator_static;
extern const VmAllocatorOps vm_allocator_demand;
extern const VmAllocatorOps vm_allocator_flexslot;

/* The tables end with NULL. */
extern const JobSchedulerOps *const job_scheduler_table[];
extern const SlotManagerOps *const slot_manager_table[];
extern const SpeculationOps *const speculation_table[];
extern const VmAllocatorOps *const vm_allocator_table[];

/* Lookup by name; NULL when unknown. */
const JobSchedulerOps *job_scheduler_ops_find(const char *name);
const SlotManagerOps *slot_manager_ops_find(const char *name);
const SpeculationOps *speculation_ops_find(const char *name);
const VmAllocatorOps *vm_allocator_ops_find(const char *name);

/* The layers cfg's names name: -EINVAL when one is unknown. */
int policy_layers_find(const PolicyConfig *cfg, PolicyLayers *ret);
/* policy_new() with the layers cfg names; the name strings must outlive
 * the Policy. */
int policy_new_named(const PolicyConfig *cfg, Policy **ret);

/* SPDX-License-Identifier: MIT */
#pragma once

/* Every policy of every layer; the tables in controller/core/policy.c list
 * them for lookup by name. */

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

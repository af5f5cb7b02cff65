/* SPDX-License-Identifier: MIT */
#pragma once

/* A VM's own limits, which an operator sets in the domain's libvirt
 * <metadata> as one element of the namespace AGENT_LIMITS_XMLNS:
 *
 *   <flexslot:limits xmlns:flexslot="https://flexslot.org/xmlns/limits/1"
 *                    min-vcpus="2" max-vcpus="4" min-memory="1G" max-memory="6G"
 *                    min-cpu-weight="256" max-cpu-weight="4096"/>
 *
 * (virsh metadata DOMAIN https://flexslot.org/xmlns/limits/1 --key flexslot
 * --set '<limits min-memory="1G"/>'). Each attribute is optional; sizes take
 * parse_size()'s suffixes. They narrow the agent's [limits] for that VM
 * only: the higher floor and the lower ceiling win. manage="no" opts the VM
 * out: the agent still measures it and changes nothing of it (manage="yes",
 * the default, is the same as no attribute). Pure: the actuator reads the
 * element and hands it here. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actuation/actuation.h"

#define AGENT_LIMITS_XMLNS "https://flexslot.org/xmlns/limits/1"

typedef struct AgentVmLimits {
        unsigned has_min, has_max; /* ACT_BIT(resource): min or max is set */
        uint64_t min[_ACT_RESOURCE_MAX], max[_ACT_RESOURCE_MAX];
        bool unmanaged; /* manage="no" */
} AgentVmLimits;

/* The limits of the element xml (as libvirt serializes it: one element with
 * attributes; namespace declarations are skipped). On a malformed element,
 * an unknown attribute, a value that does not parse or a min above its max:
 * -EINVAL with why (at most size bytes) naming the attribute and value, and
 * *ret untouched. */
int agent_vm_limits_parse(const char *xml, AgentVmLimits *ret, char *why, size_t size);

/* The agent's limits narrowed by vm's into ret; ret_narrowed_floor and
 * ret_narrowed_ceiling get ACT_BIT(resource) for each bound the VM's limit
 * set. -ERANGE when a VM's bound leaves a range empty (its minimum above
 * the agent's ceiling, its maximum below the agent's floor): ret has that
 * resource's floor above its ceiling. */
int agent_vm_limits_apply(const AgentVmLimits *vm, const ActLimits *agent, ActLimits *ret,
                          unsigned *ret_narrowed_floor, unsigned *ret_narrowed_ceiling);

/* The attribute that opts a VM out of changes. */
#define AGENT_VM_MANAGE_ATTRIBUTE "manage"

/* "min-vcpus" and the like: the attribute of a resource's bound; NULL for
 * the CPU cap, which has none. */
const char *agent_vm_limit_name(ActResource r, bool max);

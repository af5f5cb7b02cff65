/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

/* A memory cgroup per task: the kernel's memory controller holds a task
 * (and everything it starts) to its slot memory and OOM-kills it beyond,
 * which the tracker then sees in the cgroup's oom_kill counter. cgroup v2
 * (memory.max) where this process's cgroup can have children with the
 * memory controller; else the v1 memory hierarchy (memory.limit_in_bytes),
 * which hosts with mixed hierarchies still have. */

typedef struct MemoryCgroup {
        int version; /* 1 or 2 */
        char *path;
        char *procs; /* path of its cgroup.procs, written by the child itself */
} MemoryCgroup;

/* Where task cgroups go: parent when given (a directory delegated to the
 * tracker), else this process's own memory cgroup. *ret_dir is allocated.
 * -EOPNOTSUPP when no writable memory controller is there. */
int memory_cgroup_find_parent(const char *parent, int *ret_version, char **ret_dir);

/* Makes parent_dir/flexslot-NAME limited to limit bytes (swap too, where the
 * kernel offers it). A stale group of that name is removed first. */
int memory_cgroup_create(int version, const char *parent_dir, const char *name, uint64_t limit,
                         MemoryCgroup *ret);
/* Processes of the group the kernel's OOM killer has killed. */
int memory_cgroup_oom_kills(const MemoryCgroup *cg, uint64_t *ret);
/* Kills what is left in it, waits (boundedly) until it is empty and removes
 * it. */
int memory_cgroup_destroy(MemoryCgroup *cg);

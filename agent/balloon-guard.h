/* SPDX-License-Identifier: MIT */
#pragma once

/* The balloon guard ([agent] balloon-guard): a shrink of a guest's memory
 * needs the guest's word that it has room, which only fresh memory
 * statistics give; it stops while the guest's major faults or swap-in
 * rise, and, where cgroup v2 gives it, while the domain's own cgroup
 * reports memory pressure (PSI: the share of the last 10 s in which some of
 * its tasks stalled on memory, "some avg10") above [agent]
 * balloon-guard-pressure. The decision is pure (agent_balloon_guard_judge);
 * the reads beside it take the directories they read, so that they run on
 * files a test writes. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Why the balloon guard refused a shrink. */
typedef enum AgentGuard {
        AGENT_GUARD_NONE,
        AGENT_GUARD_NO_GUEST_STATS,  /* no fresh memory statistics from the guest */
        AGENT_GUARD_GUEST_PRESSURE,  /* its major faults or swap-in rising */
        AGENT_GUARD_MEMORY_PRESSURE, /* its cgroup's memory.pressure above the threshold */
} AgentGuard;

/* The domain's memory pressure as its cgroup v2 reports it. */
typedef struct AgentDomainPressure {
        bool known;        /* read; else cgroup v2 does not give it for the domain */
        double some_avg10; /* percent, 0..100 */
} AgentDomainPressure;

/* Whether a shrink may go ahead: guest_memory is the domain's
 * AgentGuestMemory bits (collector.h) from the newest sample, pressure what
 * its cgroup said (unknown pressure holds nothing back), max_some_avg10 the
 * threshold in percent. */
AgentGuard agent_balloon_guard_judge(unsigned guest_memory, const AgentDomainPressure *pressure,
                                     double max_some_avg10);

/* The "some avg10" of dir's memory.pressure (PSI's format: "some avg10=1.23
 * avg60=... total=N", then "full ..."): -ENOENT when dir has none (a
 * cgroup v1 hierarchy, a kernel without PSI), -EBADMSG when it does not
 * read as PSI. */
int agent_pressure_read(const char *dir, double *ret_some_avg10);

/* The domain's cgroup, relative to the cgroup v2 mount, from the text of
 * its QEMU process's /proc/PID/cgroup: the "0::" line's path, less the
 * final "emulator" in which libvirt keeps QEMU's own threads beside the
 * vCPUs'. -ENOENT when that path is not one of libvirt's machines (a
 * component "machine-qemu..." under systemd, "....libvirt-qemu" without):
 * on a cgroup v1 host libvirt does not place its guests in the v2
 * hierarchy, and the process sits in its parent's, whose pressure is not
 * the guest's. */
int agent_domain_cgroup_parse(const char *proc_cgroup, char *ret_path, size_t size);

/* The process whose command line has "-uuid UUID", as libvirt starts QEMU,
 * among the numeric entries of proc (a procfs mount): -ESRCH when none. */
int agent_qemu_pid(const char *proc, const char *uuid, pid_t *ret);

/* Where the cgroup v2 hierarchy is mounted: /sys/fs/cgroup, or
 * /sys/fs/cgroup/unified on a host with both hierarchies; NULL without one. */
const char *agent_cgroup2_root(void);

/* The domain's pressure, from procfs at /proc and the cgroup v2 hierarchy
 * at /sys/fs/cgroup (or /sys/fs/cgroup/unified on a hybrid host), and in
 * detail (at most size bytes) the directory read, or why it is not known:
 * the step that found nothing. */
void agent_domain_pressure(const char *uuid, AgentDomainPressure *ret, char *detail, size_t size);

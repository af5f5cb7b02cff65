/* SPDX-License-Identifier: MIT */
#pragma once

/* The balloon guard ([agent] balloon-guard): a shrink of a guest's memory
 * needs the guest's word that it has room, which only fresh memory
 * statistics give; it stops while the guest's major faults or swap-in
 * rise, and, where cgroup v2 gives it, while the domain's own cgroup
 * reports memory pressure (PSI, the kernel's Documentation/accounting/
 * psi.rst) above a threshold. PSI says two things of a cgroup's memory:
 * "some", the share of time in which some of its tasks stalled on it
 * (latency added, work still going on), and "full", the share in which
 * all of them stalled at once (no work at all: thrashing), each averaged
 * over the last 10, 60 and 300 s. The guard weighs both, over 10 s and
 * 60 s: avg10 is what happens now, avg60 what happened within the last
 * minute, which a shrink, whose effect lasts, must not ignore because the
 * last 10 s were calm (a guest between two bursts of reclaim). "some"
 * above [agent] balloon-guard-pressure in either window refuses, and so
 * does "full" above balloon-guard-full-pressure, a lower threshold since
 * "full" is a part of "some" and any share of it is lost work (systemd-
 * oomd and oomd act on "full" alone, but they kill; declining a shrink
 * costs little, so the earlier sign counts too). avg300 is left out: five
 * minutes back is older than the guest's statistics the guard also needs
 * fresh. The decision is pure (agent_balloon_guard_judge); the reads
 * beside it take the directories they read, so that they run on files a
 * test writes. */

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

/* The figures of memory.pressure the guard weighs, in the file's order. */
typedef enum AgentPressureFigure {
        AGENT_PRESSURE_SOME_AVG10,
        AGENT_PRESSURE_SOME_AVG60,
        AGENT_PRESSURE_FULL_AVG10,
        AGENT_PRESSURE_FULL_AVG60,
        _AGENT_PRESSURE_FIGURE_MAX,
} AgentPressureFigure;

/* "some avg10", ... */
const char *agent_pressure_figure_to_string(AgentPressureFigure f);

/* The domain's memory pressure as its cgroup v2 reports it. */
typedef struct AgentDomainPressure {
        bool known; /* read; else cgroup v2 does not give it for the domain */
        double percent[_AGENT_PRESSURE_FIGURE_MAX]; /* 0..100 */
} AgentDomainPressure;

/* The guard's thresholds, percent: [agent] balloon-guard-pressure for
 * "some", balloon-guard-full-pressure for "full". */
typedef struct AgentPressureLimits {
        double some, full;
} AgentPressureLimits;

/* The first figure of pressure above its threshold, or -1 for none (and
 * for unknown pressure, which holds nothing back). */
int agent_pressure_exceeded(const AgentDomainPressure *pressure, const AgentPressureLimits *max);
/* The threshold figure f is held to. */
double agent_pressure_limit(const AgentPressureLimits *max, AgentPressureFigure f);

/* Whether a shrink may go ahead: guest_memory is the domain's
 * AgentGuestMemory bits (collector.h) from the newest sample, pressure what
 * its cgroup said. */
AgentGuard agent_balloon_guard_judge(unsigned guest_memory, const AgentDomainPressure *pressure,
                                     const AgentPressureLimits *max);

/* The avg10 and avg60 of both lines of dir's memory.pressure (PSI's
 * format: "some avg10=1.23 avg60=4.56 avg300=7.89 total=N", then the same
 * for "full"), in ret (known set): -ENOENT when dir has none (a cgroup v1
 * hierarchy, a kernel without PSI), -EBADMSG when it does not read as PSI
 * (either line missing, a share outside 0..100). */
int agent_pressure_read(const char *dir, AgentDomainPressure *ret);

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

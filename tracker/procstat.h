/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/time-util.h"

/* What a heartbeat carries about a task process and its node, from /proc.
 * FlexSlot tells a straggler's bottleneck by its I/O wait against the
 * node's steal. */

typedef struct ProcStat {
        char state;
        usec_t utime, stime;   /* the process itself */
        usec_t cutime, cstime; /* its children, once waited for */
        /* delayacct_blkio_ticks: time spent waiting for block I/O. The
         * kernel counts it only with task delay accounting on
         * (kernel.task_delayacct=1 or the delayacct boot option); it is 0
         * otherwise. */
        usec_t blkio_delay;
        uint64_t rss_bytes;
} ProcStat;

/* Parses the text of /proc/<pid>/stat. The command name in parentheses may
 * itself hold spaces and parentheses: fields are counted after the last
 * ')'. -EBADMSG when a field is missing or malformed. */
int proc_stat_parse(const char *text, long ticks_per_sec, long page_size, ProcStat *ret);
int proc_stat_read(pid_t pid, ProcStat *ret);

static inline usec_t proc_stat_cpu(const ProcStat *s) {
        return s->utime + s->stime + s->cutime + s->cstime;
}

/* The node's CPU time by kind, summed over CPUs (the "cpu" line of
 * /proc/stat). */
typedef struct CpuTimes {
        usec_t user, nice, system, idle, iowait, irq, softirq, steal;
        /* When read; 0 from proc_cpu_times_parse: */
        unsigned cpus; /* online CPUs */
        usec_t uptime; /* CLOCK_BOOTTIME */
} CpuTimes;

int proc_cpu_times_parse(const char *text, long ticks_per_sec, CpuTimes *ret);
int proc_cpu_times_read(CpuTimes *ret);
/* Shares of steal and of iowait in the CPU time between two samples (0
 * when no time passed); either output may be NULL. */
void cpu_times_shares(const CpuTimes *before, const CpuTimes *after, double *ret_steal,
                      double *ret_iowait);

typedef enum StealSource {
        STEAL_FROM_PROC, /* the kernel's steal counter */
        STEAL_ESTIMATED, /* wall time no field of /proc/stat accounts for */
        _STEAL_SOURCE_MAX,
} StealSource;

/* The node's steal between two samples, and whose it is. A kernel with a
 * steal clock (KVM's steal-time, Xen) counts steal in /proc/stat; without
 * one (QEMU's TCG, hypervisors without the feature) the counter stays 0
 * however starved the vCPUs are, but the time they did not run is missing
 * from every field: the share of wall time (uptime times online CPUs)
 * that no field accounts for estimates it (measured under TCG: 0.70 where
 * the host saw 0.79). *accounted becomes true once the steal counter
 * moved; from then on the counter is trusted. *ret_steal is left alone
 * when the samples do not give a value (no time passed, the CPUs online
 * changed, no uptime), so that the caller's last one stands. */
StealSource cpu_times_steal(const CpuTimes *before, const CpuTimes *after, bool *accounted,
                            double *ret_steal);
const char *steal_source_to_string(StealSource s);

/* MemTotal of /proc/meminfo's text, in bytes: what the guest has, the
 * balloon's share taken out. -EBADMSG when it is not there. */
int proc_meminfo_total_parse(const char *text, uint64_t *ret);
int proc_meminfo_total_read(uint64_t *ret);

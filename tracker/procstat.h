/* SPDX-License-Identifier: MIT */
#pragma once

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
} CpuTimes;

int proc_cpu_times_parse(const char *text, long ticks_per_sec, CpuTimes *ret);
int proc_cpu_times_read(CpuTimes *ret);
/* Shares of steal and of iowait in the CPU time between two samples (0
 * when no time passed). */
void cpu_times_shares(const CpuTimes *before, const CpuTimes *after, double *ret_steal,
                      double *ret_iowait);

/* SPDX-License-Identifier: MIT */
#include "procstat.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/parse.h"
#include "common/fileio.h"

/* Fields of /proc/<pid>/stat, counted from 1 as proc(5) does. */
#define FIELD_STATE 3
#define FIELD_UTIME 14
#define FIELD_STIME 15
#define FIELD_CUTIME 16
#define FIELD_CSTIME 17
#define FIELD_RSS 24
#define FIELD_BLKIO 42

static usec_t ticks_to_usec(uint64_t ticks, long ticks_per_sec) {
        return ticks * USEC_PER_SEC / (uint64_t)ticks_per_sec;
}

/* Splits s at spaces into up to max fields (modifying it). */
static size_t split_fields(char *s, char **fields, size_t max) {
        size_t n = 0;
        char *save = NULL;

        for (char *t = strtok_r(s, " \n", &save); t && n < max; t = strtok_r(NULL, " \n", &save))
                fields[n++] = t;
        return n;
}

int proc_stat_parse(const char *text, long ticks_per_sec, long page_size, ProcStat *ret) {
        /* Field 3 onwards, after the command name. */
        char *f[FIELD_BLKIO - 2];
        char buf[1024];
        const char *paren = strrchr(text, ')');
        uint64_t v[6];
        int64_t rss;
        static const int wanted[] = { FIELD_UTIME, FIELD_STIME, FIELD_CUTIME, FIELD_CSTIME,
                                      FIELD_BLKIO };

        if (!paren || ticks_per_sec <= 0 || page_size <= 0 || strlen(paren + 1) >= sizeof(buf))
                return -EBADMSG;
        strcpy(buf, paren + 1);
        if (split_fields(buf, f, ELEMENTSOF(f)) < ELEMENTSOF(f))
                return -EBADMSG;
        if (strlen(f[0]) != 1)
                return -EBADMSG;
        for (size_t i = 0; i < ELEMENTSOF(wanted); i++)
                if (parse_uint64(f[wanted[i] - FIELD_STATE], 0, INT64_MAX, &v[i]) < 0)
                        return -EBADMSG;
        /* rss may be negative in a transient kernel race; count it as 0. */
        if (parse_int64(f[FIELD_RSS - FIELD_STATE], INT64_MIN, INT64_MAX, &rss) < 0)
                return -EBADMSG;
        *ret = (ProcStat){
                .state = f[0][0],
                .utime = ticks_to_usec(v[0], ticks_per_sec),
                .stime = ticks_to_usec(v[1], ticks_per_sec),
                .cutime = ticks_to_usec(v[2], ticks_per_sec),
                .cstime = ticks_to_usec(v[3], ticks_per_sec),
                .blkio_delay = ticks_to_usec(v[4], ticks_per_sec),
                .rss_bytes = rss > 0 ? (uint64_t)rss * (uint64_t)page_size : 0,
        };
        return 0;
}

int proc_stat_read(pid_t pid, ProcStat *ret) {
        char path[64], text[1024];
        int r;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        r = read_small_file(path, text, sizeof(text));
        if (r < 0)
                return r;
        return proc_stat_parse(text, sysconf(_SC_CLK_TCK), sysconf(_SC_PAGESIZE), ret);
}

int proc_cpu_times_parse(const char *text, long ticks_per_sec, CpuTimes *ret) {
        char buf[512], *f[9];
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        uint64_t v[8];

        if (len >= sizeof(buf) || ticks_per_sec <= 0 || strncmp(text, "cpu ", 4) != 0)
                return -EBADMSG;
        memcpy(buf, text, len);
        buf[len] = '\0';
        /* Kernels before 2.6.11 lack steal: every field is required here. */
        if (split_fields(buf, f, ELEMENTSOF(f)) < ELEMENTSOF(f))
                return -EBADMSG;
        for (size_t i = 0; i < ELEMENTSOF(v); i++)
                if (parse_uint64(f[i + 1], 0, INT64_MAX, &v[i]) < 0)
                        return -EBADMSG;
        *ret = (CpuTimes){
                .user = ticks_to_usec(v[0], ticks_per_sec),
                .nice = ticks_to_usec(v[1], ticks_per_sec),
                .system = ticks_to_usec(v[2], ticks_per_sec),
                .idle = ticks_to_usec(v[3], ticks_per_sec),
                .iowait = ticks_to_usec(v[4], ticks_per_sec),
                .irq = ticks_to_usec(v[5], ticks_per_sec),
                .softirq = ticks_to_usec(v[6], ticks_per_sec),
                .steal = ticks_to_usec(v[7], ticks_per_sec),
        };
        return 0;
}

int proc_cpu_times_read(CpuTimes *ret) {
        char text[4096];
        struct timespec ts;
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        CpuTimes t;
        int r;

        r = read_small_file("/proc/stat", text, sizeof(text));
        if (r >= 0)
                r = proc_cpu_times_parse(text, sysconf(_SC_CLK_TCK), &t);
        if (r < 0)
                return r;
        t.cpus = cpus > 0 ? (unsigned)cpus : 0;
        if (clock_gettime(CLOCK_BOOTTIME, &ts) == 0)
                t.uptime = (usec_t)ts.tv_sec * USEC_PER_SEC + (usec_t)ts.tv_nsec / NSEC_PER_USEC;
        *ret = t;
        return 0;
}

static usec_t cpu_times_total(const CpuTimes *t) {
        return t->user + t->nice + t->system + t->idle + t->iowait + t->irq + t->softirq + t->steal;
}

/* A counter that went backwards (a CPU going offline) counts as no time. */
static usec_t delta(usec_t before, usec_t after) {
        return after > before ? after - before : 0;
}

void cpu_times_shares(const CpuTimes *before, const CpuTimes *after, double *ret_steal,
                      double *ret_iowait) {
        usec_t total = delta(cpu_times_total(before), cpu_times_total(after));

        if (ret_steal)
                *ret_steal =
                        total ? (double)delta(before->steal, after->steal) / (double)total : 0.0;
        if (ret_iowait)
                *ret_iowait =
                        total ? (double)delta(before->iowait, after->iowait) / (double)total : 0.0;
}

StealSource cpu_times_steal(const CpuTimes *before, const CpuTimes *after, bool *accounted,
                            double *ret_steal) {
        usec_t wall, total;

        if (before->steal > 0 || after->steal > before->steal)
                *accounted = true;
        if (*accounted) {
                cpu_times_shares(before, after, ret_steal, NULL);
                return STEAL_FROM_PROC;
        }
        wall = delta(before->uptime, after->uptime) * after->cpus;
        if (before->uptime == 0 || wall == 0 || before->cpus != after->cpus)
                return STEAL_ESTIMATED;
        total = delta(cpu_times_total(before), cpu_times_total(after));
        /* Ticks are counted whole: a little more than wall is jitter. */
        *ret_steal = total >= wall ? 0.0 : (double)(wall - total) / (double)wall;
        return STEAL_ESTIMATED;
}

const char *steal_source_to_string(StealSource s) {
        static const char *const names[] = {
                [STEAL_FROM_PROC] = "proc",
                [STEAL_ESTIMATED] = "estimate",
        };

        return (unsigned)s < ELEMENTSOF(names) ? names[s] : "unknown";
}

int proc_meminfo_total_parse(const char *text, uint64_t *ret) {
        const char *p = strstr(text, "MemTotal:");
        char digits[24];
        size_t n;
        uint64_t kib;

        if (!p || (p != text && p[-1] != '\n'))
                return -EBADMSG;
        p += strlen("MemTotal:");
        p += strspn(p, " ");
        n = strspn(p, "0123456789");
        if (n == 0 || n >= sizeof(digits) || strncmp(p + n, " kB", 3) != 0)
                return -EBADMSG;
        memcpy(digits, p, n);
        digits[n] = '\0';
        if (parse_uint64(digits, 1, UINT64_MAX / 1024, &kib) < 0)
                return -EBADMSG;
        *ret = kib * 1024;
        return 0;
}

int proc_meminfo_total_read(uint64_t *ret) {
        char text[4096];
        int r;

        r = read_small_file("/proc/meminfo", text, sizeof(text));
        if (r < 0)
                return r;
        return proc_meminfo_total_parse(text, ret);
}

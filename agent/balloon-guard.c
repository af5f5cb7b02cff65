/* SPDX-License-Identifier: MIT */
#include "balloon-guard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector.h"
#include "common/fileio.h"
#include "common/macro.h"
#include "common/parse.h"

/* A PSI file is two lines of about 60 bytes. */
#define PRESSURE_FILE_MAX 512
/* QEMU's command line as libvirt writes it runs to a few KiB; "-uuid"
 * comes within its first dozen arguments, well inside this. */
#define CMDLINE_MAX (16 * 1024)

const char *agent_pressure_figure_to_string(AgentPressureFigure f) {
        static const char *const names[] = {
                [AGENT_PRESSURE_SOME_AVG10] = "some avg10",
                [AGENT_PRESSURE_SOME_AVG60] = "some avg60",
                [AGENT_PRESSURE_FULL_AVG10] = "full avg10",
                [AGENT_PRESSURE_FULL_AVG60] = "full avg60",
        };
        return (size_t)f < ELEMENTSOF(names) ? names[f] : "?";
}

double agent_pressure_limit(const AgentPressureLimits *max, AgentPressureFigure f) {
        return f == AGENT_PRESSURE_SOME_AVG10 || f == AGENT_PRESSURE_SOME_AVG60 ? max->some
                                                                                : max->full;
}

int agent_pressure_exceeded(const AgentDomainPressure *pressure, const AgentPressureLimits *max) {
        if (!pressure->known)
                return -1;
        for (AgentPressureFigure f = 0; f < _AGENT_PRESSURE_FIGURE_MAX; f++)
                if (pressure->percent[f] > agent_pressure_limit(max, f))
                        return (int)f;
        return -1;
}

AgentGuard agent_balloon_guard_judge(unsigned guest_memory, const AgentDomainPressure *pressure,
                                     const AgentPressureLimits *max) {
        if (!(guest_memory & AGENT_GUEST_STATS_FRESH))
                return AGENT_GUARD_NO_GUEST_STATS;
        if (guest_memory & AGENT_GUEST_PRESSURE_RISING)
                return AGENT_GUARD_GUEST_PRESSURE;
        if (agent_pressure_exceeded(pressure, max) >= 0)
                return AGENT_GUARD_MEMORY_PRESSURE;
        return AGENT_GUARD_NONE;
}

/* A share of a PSI line, "avgN=12.34" at *p followed by a space; moves *p
 * past it. */
static int read_share(const char **p, const char *key, double *ret) {
        char number[32];
        size_t k = strlen(key), n;

        if (strncmp(*p, key, k) != 0)
                return -EBADMSG;
        *p += k;
        n = strcspn(*p, " \n");
        if (n == 0 || n >= sizeof(number) || (*p)[n] != ' ')
                return -EBADMSG;
        memcpy(number, *p, n);
        number[n] = '\0';
        *p += n + 1;
        return parse_double(number, 0, 100, ret) < 0 ? -EBADMSG : 0;
}

/* The avg10 and avg60 of the PSI line at *p that starts with name ("some"
 * or "full"); moves *p to the next line. */
static int read_line(const char **p, const char *name, double *ret_avg10, double *ret_avg60) {
        size_t k = strlen(name);
        const char *end;
        int r;

        if (strncmp(*p, name, k) != 0 || (*p)[k] != ' ')
                return -EBADMSG;
        *p += k + 1;
        r = read_share(p, "avg10=", ret_avg10);
        if (r >= 0)
                r = read_share(p, "avg60=", ret_avg60);
        if (r < 0)
                return r;
        end = strchr(*p, '\n');
        if (!end)
                return -EBADMSG;
        *p = end + 1;
        return 0;
}

int agent_pressure_read(const char *dir, AgentDomainPressure *ret) {
        _cleanup_free_ char *path = NULL;
        AgentDomainPressure x = { .known = true };
        char buf[PRESSURE_FILE_MAX];
        const char *p = buf;
        int r;

        if (asprintf(&path, "%s/memory.pressure", dir) < 0)
                return -ENOMEM;
        r = read_small_file(path, buf, sizeof(buf));
        if (r < 0)
                return r == -ENOENT ? r : -EBADMSG;
        r = read_line(&p, "some", &x.percent[AGENT_PRESSURE_SOME_AVG10],
                      &x.percent[AGENT_PRESSURE_SOME_AVG60]);
        if (r >= 0)
                r = read_line(&p, "full", &x.percent[AGENT_PRESSURE_FULL_AVG10],
                              &x.percent[AGENT_PRESSURE_FULL_AVG60]);
        if (r < 0)
                return r;
        *ret = x;
        return 0;
}

/* Whether a cgroup path's component is one of libvirt's machines. */
static bool is_machine(const char *component, size_t n) {
        static const char suffix[] = ".libvirt-qemu";
        size_t k = sizeof(suffix) - 1;

        return (n > 12 && strncmp(component, "machine-qemu", 12) == 0) ||
               (n > k && strncmp(component + n - k, suffix, k) == 0);
}

int agent_domain_cgroup_parse(const char *proc_cgroup, char *ret_path, size_t size) {
        const char *line = proc_cgroup, *path, *c;
        bool machine = false;
        size_t n;

        while (line && strncmp(line, "0::", 3) != 0) {
                line = strchr(line, '\n');
                if (line)
                        line++;
        }
        if (!line)
                return -ENOENT;
        path = line + 3;
        n = strcspn(path, "\n");
        if (n >= 9 && strncmp(path + n - 9, "/emulator", 9) == 0)
                n -= 9;
        for (c = path; c < path + n;) {
                size_t k;

                c += strspn(c, "/");
                k = MIN(strcspn(c, "/\n"), (size_t)(path + n - c));
                machine = machine || is_machine(c, k);
                c += k;
        }
        if (!machine)
                return -ENOENT;
        if (n >= size)
                return -ENAMETOOLONG;
        memcpy(ret_path, path, n);
        ret_path[n] = '\0';
        return 0;
}

/* A process's command line, its arguments NUL-separated, cut at size - 1
 * bytes and NUL-terminated; its length. */
static ssize_t read_cmdline(int proc_fd, const char *pid, char *buf, size_t size) {
        char path[PATH_MAX];
        _cleanup_close_ int fd = -EBADF;
        size_t len = 0;

        snprintf(path, sizeof(path), "%s/cmdline", pid);
        fd = openat(proc_fd, path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        while (len < size - 1) {
                ssize_t k = read(fd, buf + len, size - 1 - len);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return negative_errno();
                if (k == 0)
                        break;
                len += (size_t)k;
        }
        buf[len] = '\0';
        return (ssize_t)len;
}

static bool has_uuid_argument(const char *args, size_t len, const char *uuid) {
        const char *prev = NULL;

        for (const char *a = args; a < args + len; a += strlen(a) + 1) {
                if (prev && strcmp(prev, "-uuid") == 0 && strcasecmp(a, uuid) == 0)
                        return true;
                prev = a;
        }
        return false;
}

int agent_qemu_pid(const char *proc, const char *uuid, pid_t *ret) {
        char buf[CMDLINE_MAX];
        DIR *d;
        struct dirent *e;
        int r = -ESRCH;

        d = opendir(proc);
        if (!d)
                return negative_errno();
        while (r == -ESRCH && (e = readdir(d))) {
                uint64_t pid;
                ssize_t len;

                if (parse_uint64(e->d_name, 1, INT_MAX, &pid) < 0)
                        continue;
                /* A process that ended meanwhile, or that we may not read. */
                len = read_cmdline(dirfd(d), e->d_name, buf, sizeof(buf));
                if (len > 0 && has_uuid_argument(buf, (size_t)len, uuid)) {
                        *ret = (pid_t)pid;
                        r = 0;
                }
        }
        closedir(d);
        return r;
}

const char *agent_cgroup2_root(void) {
        static const char *const roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };

        for (size_t i = 0; i < ELEMENTSOF(roots); i++) {
                char path[64];

                snprintf(path, sizeof(path), "%s/cgroup.controllers", roots[i]);
                if (access(path, F_OK) == 0)
                        return roots[i];
        }
        return NULL;
}

void agent_domain_pressure(const char *uuid, AgentDomainPressure *ret, char *detail, size_t size) {
        char file[64], text[4096], cgroup[PATH_MAX], dir[PATH_MAX + 32];
        const char *root = agent_cgroup2_root();
        pid_t pid = 0;
        int r;

        *ret = (AgentDomainPressure){ 0 };
        if (!root) {
                snprintf(detail, size, "no cgroup v2 hierarchy");
                return;
        }
        r = agent_qemu_pid("/proc", uuid, &pid);
        if (r < 0) {
                snprintf(detail, size, "no QEMU process with -uuid %s", uuid);
                return;
        }
        snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
        r = read_small_file(file, text, sizeof(text));
        if (r >= 0)
                r = agent_domain_cgroup_parse(text, cgroup, sizeof(cgroup));
        if (r < 0) {
                snprintf(detail, size, "QEMU process %d is in no cgroup v2 of libvirt's", (int)pid);
                return;
        }
        snprintf(dir, sizeof(dir), "%s%s", root, cgroup);
        r = agent_pressure_read(dir, ret);
        if (r < 0) {
                snprintf(detail, size, "%s/memory.pressure: %s", dir,
                         r == -ENOENT ? "none" : "not PSI");
                return;
        }
        snprintf(detail, size, "%s/memory.pressure", dir);
}

/* SPDX-License-Identifier: MIT */
#include "cgroup.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/parse.h"
#include "common/fileio.h"

/* Killed processes leave their cgroup within milliseconds; give up on
 * removing it after this long. */
#define DESTROY_TRIES 2000
#define DESTROY_STEP_NSEC 1000000L

/* Whether word is one of the items of a list separated by sep. */
static bool list_has(const char *list, const char *word, const char *sep) {
        size_t n = strlen(word);

        for (const char *p = list; *p;) {
                size_t len = strcspn(p, sep);
                if (len == n && strncmp(p, word, n) == 0)
                        return true;
                p += len;
                p += strspn(p, sep);
        }
        return false;
}

/* The mount point of the cgroup2 hierarchy (v1: the hierarchy with the
 * memory controller), and its root in *ret_root, from
 * /proc/self/mountinfo; NULL when there is none. */
static char *cgroup_mount_find(int version, char **ret_root) {
        _cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;

        while (f && getline(&line, &cap, f) > 0) {
                char root[4096], mount[4096], fstype[64], opts[1024];
                const char *dash = strstr(line, " - ");
                char *m, *r;

                if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", root, mount) != 2 ||
                    sscanf(dash + 3, "%63s %*s %1023s", fstype, opts) != 2)
                        continue;
                if (!(version == 2 && strcmp(fstype, "cgroup2") == 0) &&
                    !(version == 1 && strcmp(fstype, "cgroup") == 0 &&
                      list_has(opts, "memory", ",")))
                        continue;
                m = strdup(mount);
                r = strdup(root);
                if (!m || !r) {
                        free(m);
                        free(r);
                        return NULL;
                }
                *ret_root = r;
                return m;
        }
        return NULL;
}

/* This process's cgroup in a hierarchy, from /proc/self/cgroup: the "0::"
 * line for v2, the line listing the memory controller for v1; NULL when
 * there is none. */
static char *cgroup_self_path(int version) {
        _cleanup_fclose_ FILE *f = fopen("/proc/self/cgroup", "re");
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;

        while (f && getline(&line, &cap, f) > 0) {
                char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
                char *controllers, *path;

                if (!c2)
                        continue;
                *c1 = *c2 = '\0';
                controllers = c1 + 1;
                path = c2 + 1;
                path[strcspn(path, "\n")] = '\0';
                if (version == 2 ? strcmp(line, "0") != 0 || *controllers != '\0'
                                 : !list_has(controllers, "memory", ","))
                        continue;
                return strdup(path);
        }
        return NULL;
}

/* Whether children of dir can have the memory controller. */
static int cgroup_usable(int version, const char *dir) {
        _cleanup_free_ char *file = NULL;
        char buf[1024];
        int r;

        if (access(dir, W_OK) < 0)
                return negative_errno();
        if (version == 1) {
                if (asprintf(&file, "%s/memory.limit_in_bytes", dir) < 0) {
                        file = NULL;
                        return -ENOMEM;
                }
                return access(file, F_OK) < 0 ? -EOPNOTSUPP : 0;
        }
        if (asprintf(&file, "%s/cgroup.subtree_control", dir) < 0) {
                file = NULL;
                return -ENOMEM;
        }
        r = read_small_file(file, buf, sizeof(buf));
        if (r < 0)
                return r;
        if (list_has(buf, "memory", " \n"))
                return 0;
        /* Refused while dir holds processes itself (v2's rule that only
         * leaves have them), unless the tracker was given a delegated
         * subtree. */
        r = write_string_file(file, "+memory");
        return r < 0 ? -EOPNOTSUPP : 0;
}

static int cgroup_own_dir(int version, char **ret) {
        _cleanup_free_ char *root = NULL, *self = NULL;
        _cleanup_free_ char *mount = cgroup_mount_find(version, &root);
        const char *rel;
        char *dir;
        int r;

        if (!mount || !root)
                return -ENOENT;
        self = cgroup_self_path(version);
        if (!self)
                return -ENOENT;
        /* Inside a cgroup namespace both are relative to its root. */
        rel = self;
        if (strcmp(root, "/") != 0 && strncmp(self, root, strlen(root)) == 0)
                rel = self + strlen(root);
        if (asprintf(&dir, "%s%s", mount, strcmp(rel, "/") == 0 ? "" : rel) < 0)
                return -ENOMEM;
        r = cgroup_usable(version, dir);
        if (r < 0) {
                free(dir);
                return r;
        }
        *ret = dir;
        return 0;
}

int memory_cgroup_find_parent(const char *parent, int *ret_version, char **ret_dir) {
        struct statfs sf;
        char *dir;
        int version, r;

        if (!parent) {
                for (version = 2; version >= 1; version--)
                        if (cgroup_own_dir(version, &dir) >= 0) {
                                *ret_version = version;
                                *ret_dir = dir;
                                return 0;
                        }
                return -EOPNOTSUPP;
        }
        if (statfs(parent, &sf) < 0)
                return log_error_errno(-errno, "Cannot use cgroup %s", parent);
        if (sf.f_type == CGROUP2_SUPER_MAGIC)
                version = 2;
        else if (sf.f_type == CGROUP_SUPER_MAGIC)
                version = 1;
        else
                return log_error_errno(-EINVAL, "%s is not a cgroup directory", parent);
        r = cgroup_usable(version, parent);
        if (r < 0)
                return log_error_errno(r, "Cannot make memory cgroups under %s", parent);
        dir = strdup(parent);
        if (!dir)
                return -ENOMEM;
        *ret_version = version;
        *ret_dir = dir;
        return 0;
}

static int cgroup_write(const MemoryCgroup *cg, const char *file, const char *value) {
        _cleanup_free_ char *path = NULL;

        if (asprintf(&path, "%s/%s", cg->path, file) < 0) {
                path = NULL;
                return -ENOMEM;
        }
        return write_string_file(path, value);
}

static void memory_cgroup_done(MemoryCgroup *cg) {
        free(cg->path);
        free(cg->procs);
        *cg = (MemoryCgroup){ 0 };
}

int memory_cgroup_create(int version, const char *parent_dir, const char *name, uint64_t limit,
                         MemoryCgroup *ret) {
        MemoryCgroup cg = { .version = version };
        char value[32];
        int r;

        if (asprintf(&cg.path, "%s/flexslot-%s", parent_dir, name) < 0) {
                cg.path = NULL;
                return -ENOMEM;
        }
        if (asprintf(&cg.procs, "%s/cgroup.procs", cg.path) < 0) {
                cg.procs = NULL;
                memory_cgroup_done(&cg);
                return -ENOMEM;
        }
        if (mkdir(cg.path, 0755) < 0 &&
            (errno != EEXIST || rmdir(cg.path) < 0 || mkdir(cg.path, 0755) < 0)) {
                r = log_error_errno(-errno, "Cannot create cgroup %s", cg.path);
                memory_cgroup_done(&cg);
                return r;
        }
        snprintf(value, sizeof(value), "%" PRIu64, limit);
        if (version == 2) {
                r = cgroup_write(&cg, "memory.max", value);
                /* No swap to hide in, and an OOM kill takes the whole task
                 * (a streaming command with it). Older kernels lack them. */
                if (r >= 0)
                        (void)cgroup_write(&cg, "memory.swap.max", "0");
                if (r >= 0)
                        (void)cgroup_write(&cg, "memory.oom.group", "1");
        } else {
                r = cgroup_write(&cg, "memory.limit_in_bytes", value);
                if (r >= 0)
                        (void)cgroup_write(&cg, "memory.memsw.limit_in_bytes", value);
        }
        if (r < 0) {
                log_error_errno(r, "Cannot set the memory limit of cgroup %s", cg.path);
                (void)rmdir(cg.path);
                memory_cgroup_done(&cg);
                return r;
        }
        *ret = cg;
        return 0;
}

int memory_cgroup_oom_kills(const MemoryCgroup *cg, uint64_t *ret) {
        _cleanup_free_ char *path = NULL;
        char buf[1024];
        int r;

        if (asprintf(&path, "%s/%s", cg->path,
                     cg->version == 2 ? "memory.events" : "memory.oom_control") < 0) {
                path = NULL;
                return -ENOMEM;
        }
        r = read_small_file(path, buf, sizeof(buf));
        if (r < 0)
                return r;
        for (char *line = buf; line && *line;) {
                char *nl = strchr(line, '\n');

                if (nl)
                        *nl = '\0';
                if (strncmp(line, "oom_kill ", 9) == 0)
                        return parse_uint64(line + 9, 0, UINT64_MAX, ret) < 0 ? -EBADMSG : 0;
                line = nl ? nl + 1 : NULL;
        }
        /* Kernels before 4.13 do not count kills. */
        return -ENODATA;
}

static void memory_cgroup_kill_all(const MemoryCgroup *cg) {
        _cleanup_fclose_ FILE *f = fopen(cg->procs, "re");
        char line[32];

        if (!f)
                return;
        while (fgets(line, sizeof(line), f)) {
                int pid;

                line[strcspn(line, "\n")] = '\0';
                if (parse_int(line, 1, INT32_MAX, &pid) >= 0)
                        (void)kill(pid, SIGKILL);
        }
}

int memory_cgroup_destroy(MemoryCgroup *cg) {
        const struct timespec step = { .tv_nsec = DESTROY_STEP_NSEC };
        int r = 0;

        if (!cg->path)
                return 0;
        for (int i = 0; i < DESTROY_TRIES; i++) {
                if (rmdir(cg->path) >= 0 || errno == ENOENT) {
                        r = 0;
                        break;
                }
                r = -errno;
                if (r != -EBUSY)
                        break;
                if (i % 100 == 0)
                        memory_cgroup_kill_all(cg);
                nanosleep(&step, NULL);
        }
        if (r < 0)
                log_warning_errno(r, "Cannot remove cgroup %s", cg->path);
        memory_cgroup_done(cg);
        return r;
}

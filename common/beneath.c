/* SPDX-License-Identifier: MIT */
#include "beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "macro.h"

/* openat2() may say EAGAIN when a rename or mount raced with the lookup. */
#define KERNEL_TRIES 3

static int open_beneath_kernel(int dir_fd, const char *path, int flags, mode_t mode) {
        bool creates = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
        /* openat2() refuses a mode where no file is created. */
        struct open_how how = {
                .flags = (uint64_t)(unsigned)(flags | O_CLOEXEC),
                .mode = creates ? mode : 0,
                .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
        };
        long fd = -1;

        for (int i = 0; i < KERNEL_TRIES; i++) {
                fd = syscall(SYS_openat2, dir_fd, path, &how, sizeof(how));
                if (fd >= 0 || errno != EAGAIN)
                        break;
        }
        return fd < 0 ? negative_errno() : (int)fd;
}

/* The directories a walk has entered: fds[0] is the caller's, not owned. */
typedef struct WalkStack {
        int *fds;
        size_t n, cap;
} WalkStack;

static void walk_stack_done(WalkStack *s) {
        for (size_t i = 1; i < s->n; i++)
                close(s->fds[i]);
        free(s->fds);
}

static int walk_stack_push(WalkStack *s, int fd) {
        if (s->n == s->cap) {
                size_t cap = s->cap ? 2 * s->cap : 16;
                int *fds = realloc(s->fds, cap * sizeof(int));

                if (!fds) {
                        close(fd);
                        return -ENOMEM;
                }
                s->fds = fds;
                s->cap = cap;
        }
        s->fds[s->n++] = fd;
        return 0;
}

/* The rest of the walk once the symlink name in dir has been read: its
 * target, then what followed it (rest, possibly empty). */
static int walk_expand(int dir, const char *name, const char *rest, char **todo) {
        char target[PATH_MAX];
        struct statfs fs;
        ssize_t len;
        char *next;

        len = readlinkat(dir, name, target, sizeof(target) - 1);
        if (len < 0)
                return negative_errno();
        if ((size_t)len >= sizeof(target) - 1)
                return -ENAMETOOLONG;
        target[len] = '\0';
        /* Magic links live in procfs; their targets are not paths at all
         * (openat2() says ELOOP of them too). */
        if (fstatfs(dir, &fs) < 0)
                return negative_errno();
        if (fs.f_type == PROC_SUPER_MAGIC)
                return -ELOOP;
        if (target[0] == '/')
                return -EXDEV;
        if (asprintf(&next, "%s%s%s", target, *rest ? "/" : "", rest) < 0)
                return -ENOMEM;
        free(*todo);
        *todo = next;
        return 0;
}

int open_beneath_walk(int dir_fd, const char *path, int flags, mode_t mode) {
        _cleanup_(walk_stack_done) WalkStack stack = { 0 };
        _cleanup_free_ char *todo = NULL;
        unsigned links = 0;
        size_t pos = 0;
        int r;

        if (!*path)
                return -ENOENT;
        if (path[0] == '/')
                return -EXDEV;
        r = walk_stack_push(&stack, dir_fd);
        if (r < 0)
                return r;
        todo = strdup(path);
        if (!todo)
                return -ENOMEM;
        for (;;) {
                int cur = stack.fds[stack.n - 1], fd;
                char name[NAME_MAX + 1];
                size_t len;
                bool last;
                struct stat st;

                pos += strspn(todo + pos, "/");
                if (!todo[pos]) {
                        /* "dir/", ".", "a/..": the directory reached. */
                        fd = openat(cur, ".", flags | O_CLOEXEC, mode);
                        return fd < 0 ? negative_errno() : fd;
                }
                len = strcspn(todo + pos, "/");
                if (len > NAME_MAX)
                        return -ENAMETOOLONG;
                memcpy(name, todo + pos, len);
                name[len] = '\0';
                pos += len;
                /* A trailing slash makes the name a directory to enter. */
                last = !todo[pos];
                if (strcmp(name, ".") == 0)
                        continue;
                if (strcmp(name, "..") == 0) {
                        if (stack.n == 1)
                                return -EXDEV;
                        close(stack.fds[--stack.n]);
                        continue;
                }
                if (fstatat(cur, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                        if (errno == ENOENT && last && (flags & O_CREAT))
                                st.st_mode = S_IFREG; /* created below */
                        else
                                return negative_errno();
                }
                if (S_ISLNK(st.st_mode) && !(last && (flags & O_NOFOLLOW))) {
                        if (++links > BENEATH_SYMLINKS_MAX)
                                return -ELOOP;
                        r = walk_expand(cur, name, todo + pos + strspn(todo + pos, "/"), &todo);
                        if (r < 0)
                                return r;
                        pos = 0;
                        continue;
                }
                /* O_NOFOLLOW: a symlink put there since the fstatat() is
                 * refused, not followed. */
                if (last) {
                        fd = openat(cur, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
                        return fd < 0 ? negative_errno() : fd;
                }
                fd = openat(cur, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return negative_errno();
                r = walk_stack_push(&stack, fd);
                if (r < 0)
                        return r;
        }
}

int open_beneath(int dir_fd, const char *path, int flags, mode_t mode) {
        int fd = open_beneath_kernel(dir_fd, path, flags, mode);

        if (fd == -ENOSYS || fd == -EPERM)
                return open_beneath_walk(dir_fd, path, flags, mode);
        return fd;
}

int open_parent_beneath(int dir_fd, const char *path, int *ret_fd, const char **ret_name) {
        const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
        _cleanup_free_ char *parent = NULL;
        int fd;

        if (path[0] == '/')
                return -EXDEV;
        if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
                return -EINVAL;
        parent = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
        if (!parent)
                return -ENOMEM;
        fd = open_beneath(dir_fd, parent, O_RDONLY | O_DIRECTORY, 0);
        if (fd < 0)
                return fd;
        *ret_fd = fd;
        *ret_name = name;
        return 0;
}

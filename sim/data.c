/* SPDX-License-Identifier: MIT */
#include "data.h"

#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/macro.h"

/* Drops the last component of an absolute path in place ("/a/b" -> "/a",
 * "/a" -> ""): "" stands for the root, to which a '/' is joined. */
static void drop_last(char *path) {
        char *slash = strrchr(path, '/');

        if (slash)
                *slash = '\0';
}

int sim_data_path(const char *name, char **ret) {
        char exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe));

        if (n < 0)
                return negative_errno();
        if ((size_t)n >= sizeof(exe))
                return -ENAMETOOLONG;
        exe[n] = '\0';
        drop_last(exe); /* the program */
        drop_last(exe); /* bin/ */
        if (asprintf(ret, "%s/share/flexslot%s%s", exe, name[0] ? "/" : "", name) < 0)
                return -ENOMEM;
        return 0;
}

int sim_path_relative_to(const char *file, const char *path, char **ret) {
        _cleanup_free_ char *copy = NULL, *dir = NULL;

        if (path[0] == '/') {
                *ret = strdup(path);
                return *ret ? 0 : -ENOMEM;
        }
        copy = strdup(file);
        if (!copy)
                return -ENOMEM;
        /* The directory holds the file just read, so it exists; with its
         * symbolic links resolved, each leading ".." of path is exactly its
         * parent. The rest of path is kept as written. */
        dir = realpath(dirname(copy), NULL);
        if (!dir)
                return negative_errno();
        for (;;) {
                if (strncmp(path, "./", 2) == 0)
                        path += 2;
                else if (strncmp(path, "../", 3) == 0) {
                        drop_last(dir);
                        path += 3;
                } else
                        break;
                while (*path == '/')
                        path++;
        }
        if (asprintf(ret, "%s/%s", dir, path) < 0)
                return -ENOMEM;
        return 0;
}

int sim_read_text(const char *path, char **ret_text, char *err, size_t err_size) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        ssize_t n;

        if (!f) {
                int r = negative_errno();
                snprintf(err, err_size, "%s: cannot open: %s", path, strerror(-r));
                return r;
        }
        /* Up to a NUL byte, which a text file has none of. An empty file
         * leaves nothing in the buffer, not even the NUL. */
        n = getdelim(&text, &size, '\0', f);
        if (n < 0 && !feof(f)) {
                snprintf(err, err_size, "%s: cannot read", path);
                return -EIO;
        }
        if (n > 0 && text[n - 1] == '\0') {
                snprintf(err, err_size, "%s: contains a NUL byte", path);
                return -EINVAL;
        }
        *ret_text = n > 0 ? TAKE_PTR(text) : strdup("");
        return *ret_text ? 0 : -ENOMEM;
}

int sim_data_find(const char *dir, const char *name, char **ret) {
        _cleanup_free_ char *shipped = NULL, *rel = NULL;
        int r;

        if (strchr(name, '/') || access(name, F_OK) == 0)
                return -ENOENT;
        if (asprintf(&rel, "%s/%s", dir, name) < 0)
                return -ENOMEM;
        r = sim_data_path(rel, &shipped);
        if (r < 0 || !shipped || access(shipped, F_OK) < 0)
                return -ENOENT;
        *ret = TAKE_PTR(shipped);
        return 0;
}

int sim_file_error(char *err, size_t size, const char *name, unsigned line, const char *fmt, ...) {
        char msg[256];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        snprintf(err, size, "%s:%u: %s", name, line, msg);
        return -EINVAL;
}

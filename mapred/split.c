/* SPDX-License-Identifier: MIT */
#include "split.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/parse.h"

static int input_split_list_push(InputSplitList *l, const char *path, uint64_t offset,
                                 uint64_t length) {
        char *p;

        if (l->n == l->cap) {
                size_t cap = l->cap ? 2 * l->cap : 16;
                InputSplit *s = realloc(l->splits, cap * sizeof(InputSplit));
                if (!s)
                        return -ENOMEM;
                l->splits = s;
                l->cap = cap;
        }
        p = strdup(path);
        if (!p)
                return -ENOMEM;
        l->splits[l->n++] = (InputSplit){ .path = p, .offset = offset, .length = length };
        return 0;
}

int input_splits_add_file(InputSplitList *l, const char *path, uint64_t size, uint64_t block_size) {
        uint64_t left = size;
        int r;

        if (block_size == 0)
                return -EINVAL;
        if (size == 0)
                return input_split_list_push(l, path, 0, 0);
        /* Hadoop's left / block > 1.1 in doubles, here exactly. */
        while ((unsigned __int128)left * 10 > (unsigned __int128)block_size * 11) {
                r = input_split_list_push(l, path, size - left, block_size);
                if (r < 0)
                        return r;
                left -= block_size;
        }
        return input_split_list_push(l, path, size - left, left);
}

static int compare_strings(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

int dir_list_files(int dir_fd, const char *dir, char ***ret, size_t *ret_n) {
        DIR *d;
        struct dirent *de;
        char **v = NULL;
        size_t n = 0, cap = 0;
        int fd, r = 0;

        fd = task_file_open(dir_fd, dir, O_RDONLY | O_DIRECTORY, 0, "directory");
        if (fd < 0)
                return fd;
        d = fdopendir(fd);
        if (!d) {
                r = negative_errno();
                close(fd);
                return log_error_errno(r, "Cannot read directory %s", dir);
        }
        while ((errno = 0, de = readdir(d))) {
                struct stat st;
                char *path;

                if (de->d_name[0] == '.' || de->d_name[0] == '_')
                        continue;
                if (fstatat(dirfd(d), de->d_name, &st, 0) < 0) {
                        r = log_error_errno(-errno, "Cannot stat %s/%s", dir, de->d_name);
                        break;
                }
                if (S_ISDIR(st.st_mode)) {
                        r = log_error_errno(-EISDIR,
                                            "%s/%s is a directory: input directories are not "
                                            "read recursively",
                                            dir, de->d_name);
                        break;
                }
                if (!S_ISREG(st.st_mode))
                        continue;
                if (n + 2 > cap) {
                        size_t c = cap ? 2 * cap : 16;
                        char **nv = realloc(v, c * sizeof(char *));
                        if (!nv) {
                                r = -ENOMEM;
                                break;
                        }
                        v = nv;
                        v[n] = NULL;
                        cap = c;
                }
                if (asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
                        r = -ENOMEM;
                        break;
                }
                v[n++] = path;
                v[n] = NULL;
        }
        if (r == 0 && errno != 0)
                r = log_error_errno(-errno, "Cannot read directory %s", dir);
        closedir(d);
        if (r == 0 && !v) {
                v = calloc(1, sizeof(char *));
                if (!v)
                        r = -ENOMEM;
        }
        if (r < 0) {
                strv_free(v);
                return r;
        }
        if (n > 1)
                qsort(v, n, sizeof(char *), compare_strings);
        *ret = v;
        *ret_n = n;
        return 0;
}

static int split_by_size(const void *a, const void *b) {
        const InputSplit *x = a, *y = b;
        int c;

        if (x->length != y->length)
                return x->length > y->length ? -1 : 1;
        c = strcmp(x->path, y->path);
        if (c != 0)
                return c;
        return x->offset < y->offset ? -1 : x->offset > y->offset ? 1 : 0;
}

/* What path is, opened as task_file_open() opens it (beneath dir_fd unless
 * that is AT_FDCWD): -EINVAL for neither a file nor a directory. */
static int input_stat(int dir_fd, const char *path, struct stat *ret) {
        _cleanup_close_ int fd = task_file_open(dir_fd, path, O_PATH, 0, "input");

        if (fd < 0)
                return fd;
        if (fstat(fd, ret) < 0)
                return log_error_errno(-errno, "Cannot stat input %s", path);
        if (!S_ISREG(ret->st_mode) && !S_ISDIR(ret->st_mode))
                return log_error_errno(-EINVAL, "Input %s is neither a file nor a directory", path);
        return 0;
}

static int input_splits_add_path(InputSplitList *l, int dir_fd, const char *path,
                                 uint64_t block_size) {
        struct stat st;
        char **files = NULL;
        size_t n = 0;
        int r;

        r = input_stat(dir_fd, path, &st);
        if (r < 0)
                return r;
        if (S_ISREG(st.st_mode))
                return input_splits_add_file(l, path, (uint64_t)st.st_size, block_size);
        r = dir_list_files(dir_fd, path, &files, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n && r >= 0; i++) {
                r = input_stat(dir_fd, files[i], &st);
                if (r >= 0)
                        r = input_splits_add_file(l, files[i], (uint64_t)st.st_size, block_size);
        }
        strv_free(files);
        return r;
}

int input_splits_compute(int dir_fd, char *const *paths, size_t n_paths, uint64_t block_size,
                         InputSplitList *ret) {
        InputSplitList l = { 0 };
        int r;

        for (size_t i = 0; i < n_paths; i++) {
                r = input_splits_add_path(&l, dir_fd, paths[i], block_size);
                if (r < 0) {
                        input_split_list_done(&l);
                        return r;
                }
        }
        if (l.n > 0)
                qsort(l.splits, l.n, sizeof(InputSplit), split_by_size);
        *ret = l;
        return 0;
}

void input_split_list_done(InputSplitList *l) {
        for (size_t i = 0; i < l->n; i++)
                free(l->splits[i].path);
        free(l->splits);
        *l = (InputSplitList){ 0 };
}

int input_split_parse(const char *s, InputSplit *ret) {
        const char *c2 = strrchr(s, ':'), *c1;
        uint64_t offset, length;
        char number[32];
        char *path;

        if (!c2)
                return -EINVAL;
        c1 = memrchr(s, ':', (size_t)(c2 - s));
        if (!c1 || c1 == s || (size_t)(c2 - c1 - 1) >= sizeof(number))
                return -EINVAL;
        memcpy(number, c1 + 1, (size_t)(c2 - c1 - 1));
        number[c2 - c1 - 1] = '\0';
        if (parse_uint64(number, 0, INT64_MAX, &offset) < 0 ||
            parse_uint64(c2 + 1, 0, INT64_MAX - offset, &length) < 0)
                return -EINVAL;
        path = strndup(s, (size_t)(c1 - s));
        if (!path)
                return -ENOMEM;
        *ret = (InputSplit){ .path = path, .offset = offset, .length = length };
        return 0;
}

void input_split_done(InputSplit *s) {
        free(s->path);
        s->path = NULL;
}

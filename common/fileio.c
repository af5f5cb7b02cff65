/* SPDX-License-Identifier: MIT */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/beneath.h"
#include "common/log.h"
#include "common/macro.h"

int read_small_file(const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        size_t len = 0;

        if (fd < 0)
                return negative_errno();
        while (len < size - 1) {
                ssize_t k = read(fd, buf + len, size - 1 - len);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (k == 0)
                        break;
                len += (size_t)k;
        }
        buf[len] = '\0';
        return 0;
}

int write_string_file(const char *path, const char *s) {
        _cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
        size_t len = strlen(s);
        ssize_t k;

        if (fd < 0)
                return negative_errno();
        do
                k = write(fd, s, len);
        while (k < 0 && errno == EINTR);
        if (k < 0)
                return negative_errno();
        return (size_t)k == len ? 0 : -EIO;
}

int task_file_open(int dir_fd, const char *path, int flags, mode_t mode, const char *what) {
        int fd;

        if (dir_fd == AT_FDCWD) {
                fd = openat(AT_FDCWD, path, flags | O_CLOEXEC, mode);
                if (fd < 0)
                        fd = negative_errno();
        } else
                fd = open_beneath(dir_fd, path, flags, mode);
        if (fd == -EXDEV)
                return log_error_errno(fd,
                                       "Cannot open %s %s: it leads out of the data directory "
                                       "(an absolute path, '..' or a symlink)",
                                       what, path);
        if (fd < 0)
                return log_error_errno(fd, "Cannot open %s %s", what, path);
        return fd;
}

int task_data_dir_open(const char *data_dir, int *ret_fd) {
        int fd;

        if (!data_dir) {
                *ret_fd = AT_FDCWD;
                return 0;
        }
        fd = open(data_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return log_error_errno(-errno, "Cannot open the data directory %s", data_dir);
        *ret_fd = fd;
        return 0;
}

void task_data_dir_close(int fd) {
        if (fd >= 0)
                close(fd);
}

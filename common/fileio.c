/* SPDX-License-Identifier: MIT */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

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

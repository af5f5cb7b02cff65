/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include <sys/types.h>

/* Small files of /proc and /sys. */

/* Reads up to size - 1 bytes and NUL-terminates them. */
int read_small_file(const char *path, char *buf, size_t size);
/* Writes s in one write(2), as kernel interface files want. */
int write_string_file(const char *path, const char *s);

/* A task's file: with dir_fd AT_FDCWD, path as open(2) takes it (a task run
 * from the command line names its own files); with the data directory's
 * descriptor, path relative to it and resolved beneath it
 * (common/beneath.h). Errors are logged naming what (an "input", a "map
 * output") and path, and a path that leads out of the directory says so. */
int task_file_open(int dir_fd, const char *path, int flags, mode_t mode, const char *what);
/* The descriptor task_file_open() takes: data_dir opened, or AT_FDCWD when
 * it is NULL. */
int task_data_dir_open(const char *data_dir, int *ret_fd);
void task_data_dir_close(int fd);

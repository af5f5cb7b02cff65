/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* Paths resolved beneath a directory. What a client names relative to the
 * data directory (a job's input, a task's output) must not lead out of it:
 * not by "..", not by an absolute path, and not by a symlink that someone
 * with write access to the directory (any tracker VM, any task) planted
 * there, absolute or climbing out with "..". A symlink that stays beneath
 * is followed; magic links (/proc/PID/fd/N) are refused.
 *
 * openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS does it in the
 * kernel (Linux 5.6). Where it is missing (ENOSYS) or a seccomp filter
 * refuses it (EPERM), a walk does the same a component at a time: each
 * directory held open, ".." taken from the walk's own stack rather than the
 * file system (so a directory renamed meanwhile cannot carry it out),
 * symlinks read and expanded in place, at most BENEATH_SYMLINKS_MAX of
 * them.
 *
 * A path that would leave the directory is -EXDEV, as openat2() says it;
 * every other error is the one openat(2) would give. */

#define BENEATH_SYMLINKS_MAX 40

/* openat(dir_fd, path, flags | O_CLOEXEC, mode) confined beneath dir_fd:
 * the new descriptor or a negative errno. */
int open_beneath(int dir_fd, const char *path, int flags, mode_t mode);

/* The directory holding path's last component, opened beneath dir_fd (for
 * reading, so that it can be synced), and that component, a pointer into
 * path: what renameat(2), unlinkat(2) and an openat(2) with O_NOFOLLOW
 * then take. -EINVAL for a path whose last component is empty, "." or
 * "..". */
int open_parent_beneath(int dir_fd, const char *path, int *ret_fd, const char **ret_name);

/* The walk alone, whatever the kernel has: for tests, which hold it to
 * what openat2() does. */
int open_beneath_walk(int dir_fd, const char *path, int flags, mode_t mode);

/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

/* Small files of /proc and /sys. */

/* Reads up to size - 1 bytes and NUL-terminates them. */
int read_small_file(const char *path, char *buf, size_t size);
/* Writes s in one write(2), as kernel interface files want. */
int write_string_file(const char *path, const char *s);

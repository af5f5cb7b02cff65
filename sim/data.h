/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include "common/macro.h"

/* The simulator's data: scenarios/, workloads/ and profiles/ in
 * PREFIX/share/flexslot, found beside the running program's bin/
 * (PREFIX/bin/flexslot-sim). The build tree has the same layout
 * ($(BUILD)/share/flexslot links to the source's sim/), so a built program
 * finds the source's files. Nothing is compiled in: a DESTDIR copy and a
 * moved tree find their own. */

/* "PREFIX/share/flexslot/name" (name may be ""), or a negative errno when
 * the program's own path cannot be read. */
int sim_data_path(const char *name, char **ret);

/* A path from a file the user gave, resolved against that file's
 * directory as the user would read it: absolute, without the "./" and
 * "dir/.." that a plain join leaves. */
int sim_path_relative_to(const char *file, const char *path, char **ret);

/* The whole of a text file. err gets "path: what went wrong". */
int sim_read_text(const char *path, char **ret_text, char *err, size_t err_size);

/* A bare name that is no file in the current directory may be one of the
 * simulator's own in share/flexslot/dir: 0 and its path in ret, or -ENOENT
 * (or -ENOMEM). */
int sim_data_find(const char *dir, const char *name, char **ret);

/* An error in a file the simulator reads, as each of its readers says one:
 * "name:line: message" into err. Returns -EINVAL. */
int sim_file_error(char *err, size_t size, const char *name, unsigned line, const char *fmt, ...)
        _printf_(5, 6);

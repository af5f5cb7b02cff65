/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include "policy/layers/aria-model.h"

/* An ARIA job profile file (INI; the format is described in
 * sim/profiles/README.md): every field of section 2.2, durations with their
 * unit ("144s"), the input per map task as a size ("59.85M"). Every key is
 * required; an unknown one, a bad value or a key given twice is an error.
 * On error returns -EINVAL (or -ENOENT, -ENOMEM) and writes
 * "file:line: [section] key: message" into err. */
int profile_parse(const char *name, const char *text, AriaProfile *ret, char *err, size_t err_size);
int profile_load(const char *path, AriaProfile *ret, char *err, size_t err_size);

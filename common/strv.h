/* SPDX-License-Identifier: MIT */
#pragma once

#include "common/macro.h"

/* NULL-terminated arrays of strings that own their strings, as
 * sd_bus_message_read_strv() and dir_list_files() return them. */

/* Frees every string and the array; NULL is fine. */
void strv_free(char **v);
DEFINE_POINTER_CLEANUP_FUNC(char *, strv_free);

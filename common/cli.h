/* SPDX-License-Identifier: MIT */
#pragma once

/* The command-line conventions every flexslot program keeps: a usage error
 * says what was wrong on stderr, then "Try 'PROGRAM --help'.", and the
 * program exits with EXIT_USAGE. getopt's own complaints are replaced by
 * cli_option_error(), so that they read alike in every program: parse with
 * opterr = 0 and an option string that starts with ':'. */

#include "macro.h"

#define EXIT_USAGE 2

/* Prints "PROGRAM: message" and the hint; returns EXIT_USAGE. */
int cli_usage_error(const char *program, const char *fmt, ...) _printf_(2, 3);
/* The usage error for what getopt_long() returned as c ('?' or ':'). */
int cli_option_error(const char *program, int c, char *const *argv);

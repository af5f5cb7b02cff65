/* SPDX-License-Identifier: MIT */
#include "cli.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>

int cli_usage_error(const char *program, const char *fmt, ...) {
        va_list ap;

        fprintf(stderr, "%s: ", program);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, "\nTry '%s --help'.\n", program);
        return EXIT_USAGE;
}

/* A missing value is only possible for the last argument; an unknown long
 * option leaves optopt 0. */
int cli_option_error(const char *program, int c, char *const *argv) {
        if (c == ':')
                return cli_usage_error(program, "option '%s' needs a value", argv[optind - 1]);
        if (optopt != 0)
                return cli_usage_error(program, "unknown option '-%c'", optopt);
        return cli_usage_error(program, "unknown option '%s'", argv[optind - 1]);
}

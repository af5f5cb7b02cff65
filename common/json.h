/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdio.h>

/* The pieces of JSON output the command-line tools write by hand. */

/* s as a JSON string, quoted and escaped. */
void json_string(FILE *f, const char *s);
/* v as a JSON number; JSON has no infinity or NaN: those are null. */
void json_number(FILE *f, double v);

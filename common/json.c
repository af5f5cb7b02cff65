/* SPDX-License-Identifier: MIT */
#include "json.h"

#include <math.h>

void json_string(FILE *f, const char *s) {
        fputc('"', f);
        for (; *s; s++) {
                unsigned char c = (unsigned char)*s;

                if (c == '"' || c == '\\')
                        fprintf(f, "\\%c", c);
                else if (c < 0x20)
                        fprintf(f, "\\u%04x", c);
                else
                        fputc(c, f);
        }
        fputc('"', f);
}

void json_number(FILE *f, double v) {
        if (isfinite(v))
                fprintf(f, "%.10g", v);
        else
                fputs("null", f);
}

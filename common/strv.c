/* SPDX-License-Identifier: MIT */
#include "strv.h"

#include <stdlib.h>

void strv_free(char **v) {
        if (!v)
                return;
        for (char **p = v; *p; p++)
                free(*p);
        free(v);
}

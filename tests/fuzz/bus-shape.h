/* SPDX-License-Identifier: MIT */
#pragma once

/* D-Bus messages of any shape for the fuzz target of Tracker1's decoders
 * and the random-message client: the values of a signature drawn from
 * bytes. A byte per y and b, 4 per u, 8 per t and d (NaN and infinities
 * too), a length byte and that many bytes per s (made 7-bit and NUL-free,
 * as sd-bus carries only UTF-8), a count byte per array (below 200 up to
 * 19 elements, from 200 on hundreds, past Tracker1's TRACKER1_REPORT_MAX).
 * Values past the bytes' end are 0. The types are y, b, u, t, d, s, arrays
 * and structs, which are what the project's interfaces use. */

#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-bus.h>

#define BUS_SHAPE_SIGNATURE_MAX 64

typedef struct BusShapeInput {
        const uint8_t *p;
        size_t n;
} BusShapeInput;

/* Appends values of every complete type of signature, drawn from in:
 * -EINVAL for a signature of other types or not complete, -E2BIG for one
 * nested deeper than 8, else what sd-bus says. */
int bus_shape_append(sd_bus_message *m, const char *signature, BusShapeInput *in);

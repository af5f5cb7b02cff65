/* SPDX-License-Identifier: MIT */
#include "tests/fuzz/bus-shape.h"

#include <errno.h>
#include <string.h>

#define DEPTH_MAX 8

static void take(BusShapeInput *in, void *buf, size_t k) {
        size_t m = in->n < k ? in->n : k;

        memset(buf, 0, k);
        memcpy(buf, in->p, m);
        in->p += m;
        in->n -= m;
}

static unsigned take_byte(BusShapeInput *in) {
        uint8_t b;

        take(in, &b, 1);
        return b;
}

/* The length of the complete type at sig, 0 for none. */
static size_t complete_type(const char *sig) {
        size_t k, n;

        switch (sig[0]) {
        case 'y':
        case 'b':
        case 'u':
        case 't':
        case 'd':
        case 's':
                return 1;
        case 'a':
                n = complete_type(sig + 1);
                return n ? n + 1 : 0;
        case '(':
                for (n = 1; sig[n] && sig[n] != ')'; n += k) {
                        k = complete_type(sig + n);
                        if (!k)
                                return 0;
                }
                return sig[n] == ')' && n > 1 ? n + 1 : 0;
        default:
                return 0;
        }
}

/* Appends one value of the complete type sig[0..len). */
static int append_value(sd_bus_message *m, const char *sig, size_t len, BusShapeInput *in,
                        int depth) {
        char inner[BUS_SHAPE_SIGNATURE_MAX + 1];
        int r = 0;

        if (depth > DEPTH_MAX)
                return -E2BIG;
        switch (sig[0]) {
        case 'y': {
                uint8_t v = (uint8_t)take_byte(in);
                return sd_bus_message_append_basic(m, 'y', &v);
        }
        case 'b': {
                int v = take_byte(in) & 1;
                return sd_bus_message_append_basic(m, 'b', &v);
        }
        case 'u': {
                uint32_t v;
                take(in, &v, sizeof(v));
                return sd_bus_message_append_basic(m, 'u', &v);
        }
        case 't': {
                uint64_t v;
                take(in, &v, sizeof(v));
                return sd_bus_message_append_basic(m, 't', &v);
        }
        case 'd': {
                double v;
                take(in, &v, sizeof(v));
                return sd_bus_message_append_basic(m, 'd', &v);
        }
        case 's': {
                char s[256];
                size_t n = take_byte(in);

                take(in, s, n);
                for (size_t i = 0; i < n; i++) {
                        s[i] &= 0x7f;
                        if (s[i] == '\0')
                                s[i] = '0';
                }
                s[n] = '\0';
                return sd_bus_message_append_basic(m, 's', s);
        }
        case 'a': {
                unsigned c = take_byte(in);
                size_t count = c < 200 ? c % 20 : (size_t)(c - 199) * 100;

                memcpy(inner, sig + 1, len - 1);
                inner[len - 1] = '\0';
                r = sd_bus_message_open_container(m, 'a', inner);
                for (size_t i = 0; i < count && r >= 0; i++)
                        r = append_value(m, inner, len - 1, in, depth + 1);
                return r < 0 ? r : sd_bus_message_close_container(m);
        }
        case '(':
                memcpy(inner, sig + 1, len - 2);
                inner[len - 2] = '\0';
                r = sd_bus_message_open_container(m, 'r', inner);
                for (size_t i = 1; i < len - 1 && r >= 0;) {
                        size_t k = complete_type(sig + i);

                        r = append_value(m, sig + i, k, in, depth + 1);
                        i += k;
                }
                return r < 0 ? r : sd_bus_message_close_container(m);
        default:
                return -EINVAL;
        }
}

int bus_shape_append(sd_bus_message *m, const char *signature, BusShapeInput *in) {
        int r = 0;

        if (strlen(signature) > BUS_SHAPE_SIGNATURE_MAX)
                return -EINVAL;
        for (size_t i = 0; r >= 0 && signature[i];) {
                size_t k = complete_type(signature + i);

                r = k ? append_value(m, signature + i, k, in, 0) : -EINVAL;
                i += k;
        }
        return r;
}

/* SPDX-License-Identifier: MIT */
#include "decision-journal.h"

#include <stdlib.h>
#include <string.h>

#include "common/macro.h"

int agent_decisions_init(AgentDecisions *d, size_t capacity) {
        d->last_id = 0;
        return ring_init(&d->ring, capacity, free);
}

void agent_decisions_done(AgentDecisions *d) {
        if (d->ring.items)
                ring_done(&d->ring);
}

AgentDecision *agent_decisions_add(AgentDecisions *d) {
        AgentDecision *x = calloc(1, sizeof(*x));

        if (!x)
                return NULL;
        x->id = ++d->last_id;
        x->time = now_realtime_usec();
        x->uid = AGENT_UID_UNKNOWN;
        ring_push(&d->ring, x);
        return x;
}

const AgentDecision *agent_decisions_after(const AgentDecisions *d, uint64_t since, size_t i) {
        size_t n = ring_size(&d->ring);
        const AgentDecision *oldest = ring_get_newest(&d->ring, n > 0 ? n - 1 : 0);
        size_t skip;

        if (!oldest)
                return NULL;
        /* Ids are consecutive, so the ring's position of since + 1 is known. */
        skip = since >= oldest->id ? (size_t)MIN(since - oldest->id + 1, (uint64_t)n) : 0;
        if (i >= n - skip)
                return NULL;
        return ring_get_newest(&d->ring, n - 1 - skip - i);
}

/* The length of the valid UTF-8 sequence s starts with, as D-Bus checks
 * it (no overlong form, no surrogate, nothing above U+10FFFF); 0 for
 * none. */
static size_t utf8_sequence_length(const unsigned char *s) {
        uint32_t u;
        size_t n;

        if (s[0] < 0x80)
                return 1;
        if (s[0] >= 0xc2 && s[0] <= 0xdf) {
                n = 2;
                u = s[0] & 0x1fu;
        } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
                n = 3;
                u = s[0] & 0x0fu;
        } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
                n = 4;
                u = s[0] & 0x07u;
        } else
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80) /* the string's NUL too */
                        return 0;
                u = u << 6 | (s[i] & 0x3fu);
        }
        if ((n == 3 && u < 0x800) || (n == 4 && (u < 0x10000 || u > 0x10ffff)) ||
            (u >= 0xd800 && u <= 0xdfff))
                return 0;
        return n;
}

void agent_decision_text(char *dst, size_t size, const char *src) {
        size_t i = 0;

        while (src[i] && i + 1 < size) {
                size_t n = utf8_sequence_length((const unsigned char *)src + i);

                if (n == 0) {
                        dst[i++] = '?';
                        continue;
                }
                if (i + n + 1 > size)
                        break;
                memcpy(dst + i, src + i, n);
                i += n;
        }
        dst[i] = '\0';
}

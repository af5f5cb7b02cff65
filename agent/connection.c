/* SPDX-License-Identifier: MIT */
#include "connection.h"

#include <string.h>

#include "common/log.h"

int agent_connect(HvConnection **conn, const char *uri) {
        int r;

        if (*conn)
                return 0;
        r = hv_connection_open(uri, NULL, HV_CONNECT_LAZY, conn);
        if (r < 0)
                return log_error_errno(r, "Cannot open hypervisor connection %s", uri);
        return 0;
}

const char *agent_hv_error(const HvConnection *conn, int r) {
        const char *e = conn ? hv_connection_get_last_error(conn) : "";
        return e && *e ? e : strerror(-r);
}

usec_t agent_now(usec_t (*clock)(void)) {
        return clock ? clock() : now_monotonic_usec();
}

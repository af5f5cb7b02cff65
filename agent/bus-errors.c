/* SPDX-License-Identifier: MIT */
#include "bus-errors.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

const sd_bus_error_map agent_bus_error_map[] = {
        SD_BUS_ERROR_MAP(AGENT_ERROR_NO_SUCH_DOMAIN, ENOENT),
        SD_BUS_ERROR_MAP(AGENT_ERROR_NOT_RUNNING, ESRCH),
        SD_BUS_ERROR_MAP(AGENT_ERROR_OUT_OF_RANGE, ERANGE),
        SD_BUS_ERROR_MAP(AGENT_ERROR_STEP_TOO_LARGE, E2BIG),
        SD_BUS_ERROR_MAP(AGENT_ERROR_CHANGE_TOO_SMALL, EDOM),
        SD_BUS_ERROR_MAP(AGENT_ERROR_HOST_RESERVE, ENOSPC),
        SD_BUS_ERROR_MAP(AGENT_ERROR_RATE_LIMITED, EAGAIN),
        SD_BUS_ERROR_MAP(AGENT_ERROR_NOT_SUPPORTED, EOPNOTSUPP),
        SD_BUS_ERROR_MAP(AGENT_ERROR_NOT_PERMITTED, EPERM),
        SD_BUS_ERROR_MAP(AGENT_ERROR_HYPERVISOR_UNAVAILABLE, EHOSTDOWN),
        SD_BUS_ERROR_MAP(AGENT_ERROR_HYPERVISOR_FAILED, EIO),
        SD_BUS_ERROR_MAP_END,
};

int agent_bus_errors_register(void) {
        static bool registered;
        int r;

        if (registered)
                return 0;
        r = sd_bus_error_add_map(agent_bus_error_map);
        if (r < 0)
                return r;
        registered = true;
        return 0;
}

char *agent_error_no_domain(char *buf, size_t size, const char *domain) {
        snprintf(buf, size, "No domain '%s'", domain);
        return buf;
}

/* SPDX-License-Identifier: MIT */
#include "bus-errors.h"

#include <errno.h>
#include <stdbool.h>

const sd_bus_error_map controller_bus_error_map[] = {
        SD_BUS_ERROR_MAP(CONTROLLER_ERROR_INVALID_ARGUMENT, EINVAL),
        SD_BUS_ERROR_MAP(CONTROLLER_ERROR_NO_SUCH_JOB, ENOENT),
        SD_BUS_ERROR_MAP(CONTROLLER_ERROR_NO_SUCH_NODE, ENXIO),
        SD_BUS_ERROR_MAP(CONTROLLER_ERROR_NOT_ADMITTED, EPERM),
        SD_BUS_ERROR_MAP(CONTROLLER_ERROR_STORE_FAILED, EIO),
        SD_BUS_ERROR_MAP(CONTROLLER_ERROR_NO_SUCH_VM, ENXIO),
        SD_BUS_ERROR_MAP(CONTROLLER_ERROR_AGENT_UNREACHABLE, EHOSTUNREACH),
        SD_BUS_ERROR_MAP(CONTROLLER_ERROR_NOT_SUPPORTED, EOPNOTSUPP),
        SD_BUS_ERROR_MAP(TRACKER_ERROR_BAD_TOKEN, EACCES),
        SD_BUS_ERROR_MAP(TRACKER_ERROR_INVALID_HEARTBEAT, EBADMSG),
        SD_BUS_ERROR_MAP(TRACKER_ERROR_UNKNOWN_TRACKER, ESRCH),
        SD_BUS_ERROR_MAP(TRACKER_ERROR_TRACKER_LOST, ESTALE),
        SD_BUS_ERROR_MAP(TRACKER_ERROR_TOO_MANY, EUSERS),
        SD_BUS_ERROR_MAP_END,
};

int controller_bus_errors_register(void) {
        static bool registered;
        int r;

        if (registered)
                return 0;
        r = sd_bus_error_add_map(controller_bus_error_map);
        if (r < 0)
                return r;
        registered = true;
        return 0;
}

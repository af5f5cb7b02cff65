/* SPDX-License-Identifier: MIT */
#include "errors.h"

#include <errno.h>
#include <stdbool.h>

#include "common/macro.h"

const sd_bus_error_map agent1_error_map[] = {
        SD_BUS_ERROR_MAP(AGENT1_ERROR_NO_SUCH_DOMAIN, ENOENT),
        SD_BUS_ERROR_MAP(AGENT1_ERROR_NOT_RUNNING, ESRCH),
        SD_BUS_ERROR_MAP(AGENT1_ERROR_OUT_OF_RANGE, ERANGE),
        SD_BUS_ERROR_MAP(AGENT1_ERROR_STEP_TOO_LARGE, E2BIG),
        SD_BUS_ERROR_MAP(AGENT1_ERROR_CHANGE_TOO_SMALL, EDOM),
        SD_BUS_ERROR_MAP(AGENT1_ERROR_HOST_RESERVE, ENOSPC),
        SD_BUS_ERROR_MAP(AGENT1_ERROR_RATE_LIMITED, EAGAIN),
        SD_BUS_ERROR_MAP(AGENT1_ERROR_NOT_SUPPORTED, EOPNOTSUPP),
        SD_BUS_ERROR_MAP(AGENT1_ERROR_NOT_PERMITTED, EPERM),
        SD_BUS_ERROR_MAP(AGENT1_ERROR_HYPERVISOR_UNAVAILABLE, EHOSTDOWN),
        SD_BUS_ERROR_MAP(AGENT1_ERROR_HYPERVISOR_FAILED, EIO),
        SD_BUS_ERROR_MAP(AGENT1_ERROR_GUEST_MEMORY_UNKNOWN, ENODATA),
        SD_BUS_ERROR_MAP(AGENT1_ERROR_GUEST_UNDER_PRESSURE, EBUSY),
        SD_BUS_ERROR_MAP(AGENT1_ERROR_NOT_MANAGED, EROFS),
        SD_BUS_ERROR_MAP_END,
};

const sd_bus_error_map controller1_error_map[] = {
        SD_BUS_ERROR_MAP(CONTROLLER1_ERROR_INVALID_ARGUMENT, EINVAL),
        SD_BUS_ERROR_MAP(CONTROLLER1_ERROR_NO_SUCH_JOB, ENOENT),
        SD_BUS_ERROR_MAP(CONTROLLER1_ERROR_NO_SUCH_NODE, ENXIO),
        SD_BUS_ERROR_MAP(CONTROLLER1_ERROR_NOT_ADMITTED, EPERM),
        SD_BUS_ERROR_MAP(CONTROLLER1_ERROR_STORE_FAILED, EIO),
        SD_BUS_ERROR_MAP(CONTROLLER1_ERROR_NO_SUCH_VM, ENXIO),
        SD_BUS_ERROR_MAP(CONTROLLER1_ERROR_AGENT_UNREACHABLE, EHOSTUNREACH),
        SD_BUS_ERROR_MAP(CONTROLLER1_ERROR_NOT_SUPPORTED, EOPNOTSUPP),
        SD_BUS_ERROR_MAP_END,
};

const sd_bus_error_map tracker1_error_map[] = {
        SD_BUS_ERROR_MAP(TRACKER1_ERROR_BAD_TOKEN, EACCES),
        SD_BUS_ERROR_MAP(TRACKER1_ERROR_INCOMPATIBLE_VERSION, EPROTONOSUPPORT),
        SD_BUS_ERROR_MAP(TRACKER1_ERROR_INVALID_HEARTBEAT, EBADMSG),
        SD_BUS_ERROR_MAP(TRACKER1_ERROR_INVALID_REPLY, EBADMSG),
        SD_BUS_ERROR_MAP(TRACKER1_ERROR_UNKNOWN_TRACKER, ESRCH),
        SD_BUS_ERROR_MAP(TRACKER1_ERROR_TRACKER_LOST, ESTALE),
        SD_BUS_ERROR_MAP(TRACKER1_ERROR_TOO_MANY, EUSERS),
        SD_BUS_ERROR_MAP(TRACKER1_ERROR_VM_IN_USE, EADDRINUSE),
        SD_BUS_ERROR_MAP_END,
};

int proto_errors_register(void) {
        static const sd_bus_error_map *const maps[] = { agent1_error_map, controller1_error_map,
                                                        tracker1_error_map };
        static bool registered;
        int r;

        if (registered)
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(maps); i++) {
                r = sd_bus_error_add_map(maps[i]);
                if (r < 0)
                        return r;
        }
        registered = true;
        return 0;
}

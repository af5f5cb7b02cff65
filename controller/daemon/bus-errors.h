/* SPDX-License-Identifier: MIT */
#pragma once

#include <systemd/sd-bus.h>

/* The controller's named errors, for it and its clients: those of
 * org.flexslot.Controller1 (operators) and of org.flexslot.Tracker1 (the
 * trackers' endpoint, tracker-protocol.h). Each maps to one errno. */
#define CONTROLLER_ERROR_PREFIX "org.flexslot.Controller1.Error."
#define CONTROLLER_ERROR_INVALID_ARGUMENT CONTROLLER_ERROR_PREFIX "InvalidArgument"
#define CONTROLLER_ERROR_NO_SUCH_JOB CONTROLLER_ERROR_PREFIX "NoSuchJob"
#define CONTROLLER_ERROR_NO_SUCH_NODE CONTROLLER_ERROR_PREFIX "NoSuchNode"
#define CONTROLLER_ERROR_NOT_ADMITTED CONTROLLER_ERROR_PREFIX "NotAdmitted"
#define CONTROLLER_ERROR_STORE_FAILED CONTROLLER_ERROR_PREFIX "StoreFailed"
#define CONTROLLER_ERROR_NO_SUCH_VM CONTROLLER_ERROR_PREFIX "NoSuchVm"
#define CONTROLLER_ERROR_AGENT_UNREACHABLE CONTROLLER_ERROR_PREFIX "AgentUnreachable"
/* What the cluster driver does not do ([cluster] driver = yarn takes no
 * job: YARN's own clients submit them). */
#define CONTROLLER_ERROR_NOT_SUPPORTED CONTROLLER_ERROR_PREFIX "NotSupported"

#define TRACKER_ERROR_PREFIX "org.flexslot.Tracker1.Error."
#define TRACKER_ERROR_BAD_TOKEN TRACKER_ERROR_PREFIX "BadToken"
#define TRACKER_ERROR_INVALID_HEARTBEAT TRACKER_ERROR_PREFIX "InvalidHeartbeat"
#define TRACKER_ERROR_UNKNOWN_TRACKER TRACKER_ERROR_PREFIX "UnknownTracker"
#define TRACKER_ERROR_TRACKER_LOST TRACKER_ERROR_PREFIX "TrackerLost"
#define TRACKER_ERROR_TOO_MANY TRACKER_ERROR_PREFIX "TooManyTrackers"

extern const sd_bus_error_map controller_bus_error_map[];

/* Registers the map once per process (sd-bus keeps a global list). */
int controller_bus_errors_register(void);

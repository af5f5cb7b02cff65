/* SPDX-License-Identifier: MIT */
#pragma once

#include <systemd/sd-bus.h>

/* The named errors of flexslot's three interfaces, for the programs that
 * answer with them and their clients. Each maps to one errno, so that a
 * client's sd_bus_error_get_errno() is meaningful once
 * proto_errors_register() ran. */

/* org.flexslot.Agent1 (agent1.h): flexslot-agentd. */
#define AGENT1_ERROR_PREFIX "org.flexslot.Agent1.Error."
#define AGENT1_ERROR_NO_SUCH_DOMAIN AGENT1_ERROR_PREFIX "NoSuchDomain"
#define AGENT1_ERROR_NOT_RUNNING AGENT1_ERROR_PREFIX "NotRunning"
#define AGENT1_ERROR_OUT_OF_RANGE AGENT1_ERROR_PREFIX "OutOfRange"
#define AGENT1_ERROR_STEP_TOO_LARGE AGENT1_ERROR_PREFIX "StepTooLarge"
#define AGENT1_ERROR_CHANGE_TOO_SMALL AGENT1_ERROR_PREFIX "ChangeTooSmall"
#define AGENT1_ERROR_HOST_RESERVE AGENT1_ERROR_PREFIX "HostReserve"
#define AGENT1_ERROR_RATE_LIMITED AGENT1_ERROR_PREFIX "RateLimited"
#define AGENT1_ERROR_NOT_SUPPORTED AGENT1_ERROR_PREFIX "NotSupported"
#define AGENT1_ERROR_NOT_PERMITTED AGENT1_ERROR_PREFIX "NotPermitted"
#define AGENT1_ERROR_HYPERVISOR_UNAVAILABLE AGENT1_ERROR_PREFIX "HypervisorUnavailable"
#define AGENT1_ERROR_HYPERVISOR_FAILED AGENT1_ERROR_PREFIX "HypervisorFailed"
/* A shrink of a guest's memory refused by the agent's balloon guard: no
 * fresh memory statistics from the guest, its major faults or swap-in
 * rising, or its cgroup's memory pressure (PSI) above the agent's
 * threshold. */
#define AGENT1_ERROR_GUEST_MEMORY_UNKNOWN AGENT1_ERROR_PREFIX "GuestMemoryUnknown"
#define AGENT1_ERROR_GUEST_UNDER_PRESSURE AGENT1_ERROR_PREFIX "GuestUnderPressure"
#define AGENT1_ERROR_MEMORY_PRESSURE AGENT1_ERROR_PREFIX "MemoryPressure"
/* A change of a domain that its libvirt metadata opts out of the agent's
 * changes (<flexslot:limits manage="no"/>): measured, never changed. */
#define AGENT1_ERROR_NOT_MANAGED AGENT1_ERROR_PREFIX "NotManaged"

/* org.flexslot.Controller1 (controller1.h): flexslot-controllerd's
 * operators' interface. */
#define CONTROLLER1_ERROR_PREFIX "org.flexslot.Controller1.Error."
#define CONTROLLER1_ERROR_INVALID_ARGUMENT CONTROLLER1_ERROR_PREFIX "InvalidArgument"
#define CONTROLLER1_ERROR_NO_SUCH_JOB CONTROLLER1_ERROR_PREFIX "NoSuchJob"
#define CONTROLLER1_ERROR_NO_SUCH_NODE CONTROLLER1_ERROR_PREFIX "NoSuchNode"
#define CONTROLLER1_ERROR_NOT_ADMITTED CONTROLLER1_ERROR_PREFIX "NotAdmitted"
#define CONTROLLER1_ERROR_STORE_FAILED CONTROLLER1_ERROR_PREFIX "StoreFailed"
#define CONTROLLER1_ERROR_NO_SUCH_VM CONTROLLER1_ERROR_PREFIX "NoSuchVm"
#define CONTROLLER1_ERROR_AGENT_UNREACHABLE CONTROLLER1_ERROR_PREFIX "AgentUnreachable"
/* What the controller's cluster driver does not do: one that drives a YARN
 * cluster takes no job ([cluster] driver = yarn; YARN's own clients submit
 * them). */
#define CONTROLLER1_ERROR_NOT_SUPPORTED CONTROLLER1_ERROR_PREFIX "NotSupported"

/* org.flexslot.Tracker1 (tracker1.h): the controller's trackers' endpoint.
 * InvalidReply is the trackers' own, for a reply they cannot read; the
 * controller never sends it. */
#define TRACKER1_ERROR_PREFIX "org.flexslot.Tracker1.Error."
#define TRACKER1_ERROR_BAD_TOKEN TRACKER1_ERROR_PREFIX "BadToken"
#define TRACKER1_ERROR_INCOMPATIBLE_VERSION TRACKER1_ERROR_PREFIX "IncompatibleVersion"
#define TRACKER1_ERROR_INVALID_HEARTBEAT TRACKER1_ERROR_PREFIX "InvalidHeartbeat"
#define TRACKER1_ERROR_INVALID_REPLY TRACKER1_ERROR_PREFIX "InvalidReply"
#define TRACKER1_ERROR_UNKNOWN_TRACKER TRACKER1_ERROR_PREFIX "UnknownTracker"
#define TRACKER1_ERROR_TRACKER_LOST TRACKER1_ERROR_PREFIX "TrackerLost"
#define TRACKER1_ERROR_TOO_MANY TRACKER1_ERROR_PREFIX "TooManyTrackers"
#define TRACKER1_ERROR_VM_IN_USE TRACKER1_ERROR_PREFIX "VmInUse"

extern const sd_bus_error_map agent1_error_map[];
extern const sd_bus_error_map controller1_error_map[];
extern const sd_bus_error_map tracker1_error_map[];

/* Registers the three maps once per process (sd-bus keeps a global list). */
int proto_errors_register(void);

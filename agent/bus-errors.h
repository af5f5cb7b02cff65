/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

#include <systemd/sd-bus.h>

/* org.flexslot.Agent1's named errors, for the agent and its clients. Each
 * maps to one errno, so a client's sd_bus_error_get_errno() is meaningful
 * once agent_bus_errors_register() ran. */
#define AGENT_ERROR_PREFIX "org.flexslot.Agent1.Error."
#define AGENT_ERROR_NO_SUCH_DOMAIN AGENT_ERROR_PREFIX "NoSuchDomain"
#define AGENT_ERROR_NOT_RUNNING AGENT_ERROR_PREFIX "NotRunning"
#define AGENT_ERROR_OUT_OF_RANGE AGENT_ERROR_PREFIX "OutOfRange"
#define AGENT_ERROR_STEP_TOO_LARGE AGENT_ERROR_PREFIX "StepTooLarge"
#define AGENT_ERROR_CHANGE_TOO_SMALL AGENT_ERROR_PREFIX "ChangeTooSmall"
#define AGENT_ERROR_HOST_RESERVE AGENT_ERROR_PREFIX "HostReserve"
#define AGENT_ERROR_RATE_LIMITED AGENT_ERROR_PREFIX "RateLimited"
#define AGENT_ERROR_NOT_SUPPORTED AGENT_ERROR_PREFIX "NotSupported"
#define AGENT_ERROR_NOT_PERMITTED AGENT_ERROR_PREFIX "NotPermitted"
#define AGENT_ERROR_HYPERVISOR_UNAVAILABLE AGENT_ERROR_PREFIX "HypervisorUnavailable"
#define AGENT_ERROR_HYPERVISOR_FAILED AGENT_ERROR_PREFIX "HypervisorFailed"

extern const sd_bus_error_map agent_bus_error_map[];

/* Registers the map once per process (sd-bus keeps a global list). */
int agent_bus_errors_register(void);

/* The message of Error.NoSuchDomain, without a final period: one text
 * whichever method finds the domain missing. Returns buf. */
char *agent_error_no_domain(char *buf, size_t size, const char *domain);

/* SPDX-License-Identifier: MIT */
#pragma once

/* What of the hypervisor layer speaks libvirt's own types: the reading of
 * a bulk stats record into an HvDomainSample. For the libvirt backend and
 * for tests and benchmarks that replay recorded records; the driver table
 * (hypervisor.h) names no libvirt type. */

#include <libvirt/libvirt.h>

#include "hypervisor/hypervisor.h"

/* Fills *ret from one record of virConnectGetAllDomainStats (its typed
 * parameters), without any libvirt call, so recorded samples can be replayed
 * in tests and benchmarks. name and uuid are the domain's (uuid may be NULL
 * or ""). Unknown parameters and parameters of an unexpected type are
 * ignored; the per-vCPU fields are present only if every online vCPU's
 * counter was given with an id below HV_VCPU_MAX.
 * Returns 0, or -EINVAL (NULL arguments, n < 0, empty or too long name). */
int hv_sample_from_params(const char *name, const char *uuid, const virTypedParameter *params,
                          int n, usec_t sampled_usec, HvDomainSample *ret);

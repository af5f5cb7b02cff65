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

/* Adds to *info what virDomainGetSchedulerParameters answered: cpu_shares,
 * vcpu_quota and vcpu_period, global_quota and global_period, each pair
 * only when both are there (HvInfoField bits). A quota above the kernel's
 * largest (2^44 - 1 usec) is no quota: libvirt answers cgroup v2's "max"
 * as 18446744073709551. Not const: libvirt's getters take none. */
void hv_sched_from_params(virTypedParameter *params, int n, HvDomainInfo *info);

/* The number of CPUs in a list as libvirt writes a CPU bitmap ("0-3,6":
 * ids and ranges of ids, comma-separated; "" for none): -EINVAL for text
 * that is not one (a range running backwards, an id that is no number). */
int hv_cpu_list_count(const char *list, unsigned *ret);

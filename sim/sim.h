/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "sim/results.h"
#include "sim/scenario.h"
#include "sim/workload.h"

/* The simulated cluster: hosts and VMs under the model of sim/host.h, one
 * Hadoop cluster (plus an optional co-located second one for interference),
 * driven by the policy core (policy/core/policy.h) exactly as the live
 * controller drives it: snapshots in, decisions out. */

typedef struct Sim Sim;

/* Builds the cluster and its jobs. err gets a message for the user (a bad
 * policy name, an unknown benchmark). */
int sim_new(const Scenario *sc, const Workload *wl, Sim **ret, char *err, size_t err_size);
Sim *sim_free(Sim *s);
DEFINE_POINTER_CLEANUP_FUNC(Sim, sim_free);

/* Experiment setup between sim_new() and sim_run(), for the measured
 * cluster: a slave node's CPU cap in pCPUs (FlexSlot II-B's heterogeneous
 * cluster), and where a map task's input split lives (FlexSlot II-B's
 * "skew-sched": a locality-honouring scheduler then runs it there).
 * -EINVAL for an index out of range. */
int sim_set_node_cap(Sim *s, uint32_t node, double cap);
int sim_set_task_locations(Sim *s, uint32_t task, const uint32_t *nodes, unsigned n);
size_t sim_n_nodes(const Sim *s);

/* Runs until every job of both clusters finished (or a safety horizon of
 * simulated time passed: -ETIMEDOUT). */
int sim_run(Sim *s);

/* sim_run() calls fn every SIM_PROGRESS_EVENTS events and as it returns,
 * whatever the outcome. What to show, and how often in wall time, is the
 * caller's: the simulation reads no clock. */
#define SIM_PROGRESS_EVENTS 4096
void sim_set_progress(Sim *s, SimProgressFn fn, void *userdata);
const SimResults *sim_results(const Sim *s);

/* fn sees each control step of the measured cluster (SimObserveFn), for
 * an experiment that measures what the policy saw: the forecasts of
 * slo-interference. */
void sim_set_observer(Sim *s, SimObserveFn fn, void *userdata);

/* Experiment setup between sim_new() and sim_run(): job's stored profile
 * (ARIA's profile database), instead of [workload] profile_runs'. -EINVAL
 * for a job out of range. */
int sim_set_job_profile(Sim *s, uint32_t job, const JobProfile *profile);
/* After a run: the profile of the measured cluster's job, as its finished
 * tasks measured it (ARIA's phases). -EINVAL for a job out of range. */
int sim_job_profile(const Sim *s, uint32_t job, JobProfile *ret);

/* Model invariants, checked after every host update when enabled (tests):
 * pCPUs handed out <= pCPUs, allocation <= demand, steal >= 0, work
 * conserving. -EPROTO and a message when one fails. */
void sim_set_check_invariants(Sim *s, bool enabled);
const char *sim_invariant_error(const Sim *s);

/* Whether the run measures the CPU time of its policy steps
 * (SimResults.policy_cpu), for benchmarks: off, a run reads no clock, whose
 * thread CPU clock is a system call on each side of every step. */
void sim_set_time_policy(Sim *s, bool enabled);

/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "policy/core/decisions.h"
#include "sim/scenario.h"
#include "sim/workload.h"

/* The simulated cluster: hosts and VMs under the model of sim/host.h, one
 * Hadoop cluster (plus an optional co-located second one for interference),
 * driven by the policy core (policy/core/policy.h) exactly as the live
 * controller drives it: snapshots in, decisions out. */

typedef struct Sim Sim;

/* Per finished task of the measured cluster (cluster 0). */
typedef struct TaskResult {
        uint32_t job;
        uint32_t node; /* index among the slave nodes, of the finishing attempt */
        uint32_t vm;   /* the same node's VM: its index in SimResults.nodes */
        bool map;
        double input_mb;
        double started, finished;         /* seconds; first attempt's start, last finish */
        double cpu, iowait, steal, queue; /* seconds, summed over all attempts */
        unsigned resize_kills, attempts;
        bool straggler; /* named a straggler by the slot manager at least once */
        bool local;     /* a map whose finishing attempt ran where a replica of its split is */
} TaskResult;

/* A lower bound on a job's completion time that no policy can beat on the
 * cluster it ran on, its work counted as if it ran alone (sim/bound.c). */
typedef struct SimBound {
        double cpu;   /* its first task's start, then all its CPU work on the pool's pCPUs */
        double disk;  /* its first task's start, then the I/O no policy avoids on all disks */
        double chain; /* its first task's start, the longest map alone, the longest reduce tail */
        double maps_then_tail; /* the map work on the pool, then the longest reduce tail */
        double value;          /* the largest of them, seconds after submission */
        /* What they are made of: the first task's start (s), the CPU work
         * (pCPU-s) and unavoidable I/O (bytes), and the pCPUs and disk
         * bandwidth (bytes/s) they are spread over. */
        double start, work_cpu, work_io, pcpus, disks;
} SimBound;

typedef struct JobResult {
        char name[32];
        double submitted, finished; /* seconds */
        double deadline;            /* seconds, absolute; 0: none */
        unsigned maps, reduces;
        SimBound bound;
        /* Turned away at submission (policy_admit()), why; finished is
         * then when. */
        bool refused;
        char refusal[160];
} JobResult;

/* One row per VM of cluster 0, averaged over the run. */
typedef struct NodeResult {
        uint32_t host;
        bool master;
        double cpu_use;    /* pCPUs */
        double steal;      /* share of vCPU time */
        double iowait;     /* share of vCPU time */
        unsigned maps_run; /* map tasks it finished (FlexSlot Fig. 4) */
        unsigned final_map_slots;
} NodeResult;

/* Cluster-wide utilisation at each control cycle. */
typedef struct UtilSample {
        double time;
        double cpu;    /* share of the hosts' pCPUs used by cluster 0 */
        double memory; /* share of cluster 0's VM memory committed */
        unsigned running_maps, map_slots;
} UtilSample;

typedef struct SimResults {
        JobResult *jobs;
        size_t n_jobs;
        TaskResult *tasks;
        size_t n_tasks;
        NodeResult *nodes;
        size_t n_nodes;
        UtilSample *util;
        size_t n_util, cap_util;
        uint64_t events;
        uint64_t slot_changes; /* changes of a node's map slots (the slot manager's) */
        /* DynamicMR: attempts started in a slot of the other type (DHSA),
         * slots reserved (SEPB), attempts killed to run again (SEPB). */
        uint64_t borrowed, reservations, retry_kills;
        uint64_t policy_steps; /* policy_step() calls, both clusters */
        /* VM targets the one loop's lever set for a late deadline job
         * (LeverNote with a job), summed over the control steps. */
        uint64_t lever_targets;
        /* Wall time spent in them, for benchmarks; it never feeds back
         * into the simulation. */
        usec_t policy_wall;
        double makespan; /* seconds */
        /* Co-running cluster's mean job completion time (0 without one). */
        double other_mean_jct;
        /* With a co-running cluster, a lower bound on the mean completion
         * time of both clusters' first jobs (sim/bound.c); 0 without one. */
        double pair_bound;
} SimResults;

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

/* How far a run is, for a progress display. */
typedef struct SimProgress {
        usec_t now; /* simulated time */
        uint64_t events;
        size_t jobs_done, jobs; /* of both clusters */
        bool finished;          /* the last call, as sim_run() returns */
} SimProgress;

typedef void (*SimProgressFn)(const SimProgress *p, void *userdata);

/* sim_run() calls fn every SIM_PROGRESS_EVENTS events and as it returns,
 * whatever the outcome. What to show, and how often in wall time, is the
 * caller's: the simulation reads no clock. */
#define SIM_PROGRESS_EVENTS 4096
void sim_set_progress(Sim *s, SimProgressFn fn, void *userdata);
const SimResults *sim_results(const Sim *s);

/* Called after each control step of the measured cluster with its
 * snapshot and the decisions the step made (decisions refer to the
 * snapshot), for an experiment that measures what the policy saw: the
 * forecasts of slo-interference. Both are valid during the call only. */
typedef void (*SimObserveFn)(const ClusterSnapshot *snap, const Decisions *d, usec_t now,
                             void *userdata);
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

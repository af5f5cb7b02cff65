/* SPDX-License-Identifier: MIT */
#pragma once

/* What a simulator run gives back: its results once it ended (cluster 0's
 * tasks, jobs and VMs, the decisions counted), and how far it is while it
 * runs. Data only: the simulator's state (sim/state.h) keeps them, sim.h's
 * API hands them out. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/time-util.h"
#include "policy/core/decisions.h"

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
        /* Slots the deadline schedulers gave deadline jobs beyond their
         * quotas (slo_spare: SpareNote of a deadline job). */
        uint64_t spare_slots;
        /* CPU time spent in them, for benchmarks (measured only under
         * sim_set_time_policy()); it never feeds back into the simulation. */
        usec_t policy_cpu;
        double makespan; /* seconds */
        /* Co-running cluster's mean job completion time (0 without one). */
        double other_mean_jct;
        /* With a co-running cluster, a lower bound on the mean completion
         * time of both clusters' first jobs (sim/bound.c); 0 without one. */
        double pair_bound;
} SimResults;

/* How far a run is, for a progress display. */
typedef struct SimProgress {
        usec_t now; /* simulated time */
        uint64_t events;
        size_t jobs_done, jobs; /* of both clusters */
        bool finished;          /* the last call, as sim_run() returns */
} SimProgress;

typedef void (*SimProgressFn)(const SimProgress *p, void *userdata);

/* What sees each control step of the measured cluster (sim_set_observer()):
 * its snapshot and the decisions the step made, which refer to it, both
 * valid during the call only. */
typedef void (*SimObserveFn)(const ClusterSnapshot *snap, const Decisions *d, usec_t now,
                             void *userdata);

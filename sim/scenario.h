/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/config.h"
#include "common/time-util.h"
#include "policy/layers/policies.h"

/* A scenario file (INI, sim/scenarios/, keys documented in
 * sim/scenarios/README.md): the testbed, Hadoop's settings, the policy
 * layers and the workload. Sizes are bytes, durations usec. */
typedef struct Scenario {
        /* [cluster] */
        int64_t hosts, host_cpus, vms, masters, vm_vcpus, vm_vcpus_max;
        uint64_t host_memory, host_disk_bw, stream_bw, net_bw, vm_memory, vm_memory_max,
                vm_os_memory;
        double vm_cap, vm_weight, memory_penalty;
        double host_cpu_limit; /* CPUs a host's VMs may use together; 0: host_cpus */
        /* [hadoop] */
        int64_t map_slots, reduce_slots;
        uint64_t block_size, sort_buffer, task_heap, chunk;
        /* heartbeat: the least interval between a tracker's heartbeats;
         * heartbeats_in_second: how many the JobTracker takes a second
         * (scenario_heartbeat_interval()). */
        usec_t heartbeat, task_startup;
        /* CPU time each attempt takes to launch, after task_startup and
         * before its work, on its VM's vCPUs as the work's CPU is
         * (engine.c's PHASE_LAUNCH); 0: none. */
        usec_t task_launch_cpu;
        int64_t heartbeats_in_second;
        /* A task's end reaches the JobTracker with its tracker's next
         * heartbeat (engine.c's PHASE_REPORT); no: at once. */
        bool report_at_heartbeat;
        /* What the policy sees of a running attempt that time moves (its
         * progress, bytes, and shares of CPU, I/O wait and steal) is as
         * of its tracker's last heartbeat; no: as of the step. */
        bool progress_at_heartbeat;
        /* [policy]: the layers' names and what the simulator does with
         * their decisions; the rest of the section is `policy`. */
        char *scheduler, *slot_manager, *speculation, *allocator;
        usec_t resize_delay;
        bool apply_vm_targets;
        /* The settings of the core and of every layer, their keys declared
         * by the layers; its layer names are unset (the strings above name
         * them). The core's vm_memory_reserve is [cluster] vm_os_memory
         * unless the file or --set gives it. */
        PolicyConfig policy;
        /* [workload] */
        char *workload_file, *jobs;
        /* Each job's deadline after its submission, "none" for none;
         * NULL: no job has one. */
        char *deadlines;
        /* Each job's submission from the start, in the order of jobs;
         * NULL: every arrival_gap. */
        char *submit;
        bool profile_runs;
        /* Above 0: ARIA 7.2's arrivals (sim/arrival.c). */
        double load_threshold;
        double scale;
        /* Replace every benchmark's columns when >= 0 (sensitivity runs). */
        double combine_ratio, record_bytes, small_frac, expensive_cpu;
        int64_t seed;
        usec_t arrival_gap;
        /* [drs]: VMware DRS as the FlexSlot testbed ran it (sim/drs.c) */
        bool drs;
        double drs_pool; /* pCPUs; 0: every host's */
        usec_t drs_period, drs_window, drs_sample;
        bool drs_ready;
        int drs_divvy;          /* DrsDivvy of policy/core/resource-pool.h */
        bool drs_agent_weights; /* the cluster's agents set CPU weights beside DRS */
        /* [interference]: a second cluster of the same shape and policies
         * on the same hosts, running its own jobs (FlexSlot V-E) */
        bool interference;
        char *interference_jobs;
        /* Its layers; NULL: the measured cluster's. */
        char *interference_scheduler, *interference_slot_manager, *interference_speculation,
                *interference_allocator;
} Scenario;

/* The simulator's own keys; a scenario file also has those of
 * Scenario.policy. */
extern const ConfSchema scenario_schema;

/* A "section.key=value" from the command line's --set. */
typedef struct ScenarioOverride {
        char section[32];
        char key[32];
        const char *value;               /* points into the parsed string */
        char where[CONF_ERROR_TEXT_MAX]; /* "--set section.key=value", naming it in errors */
} ScenarioOverride;

/* -EINVAL unless assignment is section.key=value (value may be empty). */
int scenario_override_parse(const char *assignment, ScenarioOverride *ret);

/* Loads path, then the overrides in order (a later one wins). The workload
 * file comes out absolute: a relative one resolved against the scenario's
 * directory, none the one that comes with the simulator (sim/data.h). Errors go to
 * err as "file:line: ..." or "--set section.key=value: ...", naming what set
 * the key a cross-field check refuses. */
int scenario_load(const char *path, const ScenarioOverride *overrides, size_t n_overrides,
                  Scenario *ret, char *err, size_t err_size);
int scenario_load_string(const char *name, const char *text, Scenario *ret, char *err,
                         size_t err_size);
/* The settings of the policy core and of every layer at their defaults,
 * then the overrides, for what runs policies without a scenario (the
 * task-level replay's experiments): the [policy] keys the layers declare,
 * each applied as scenario_load() applies it; any other key (another
 * section's, or a layer's name, which such an experiment picks itself) is
 * refused as unknown, with err naming the assignment. */
int scenario_policy_overrides(const ScenarioOverride *overrides, size_t n_overrides,
                              PolicyConfig *ret, char *err, size_t err_size);
/* Replaces a string field (e.g. &s->slot_manager) with a copy of value. */
int scenario_set_string(char **field, const char *value);
/* The interval at which each of a cluster's trackers heartbeats: as Hadoop
 * 1.x's JobTracker sets it (getNextHeartbeatInterval()), the trackers over
 * the heartbeats it takes a second, truncated to whole milliseconds, and at
 * least s->heartbeat (its 3 s minimum). */
usec_t scenario_heartbeat_interval(const Scenario *s);
/* The core's settings in s->policy. */
CoreSettings *scenario_core(const Scenario *s);
/* s->policy with the layers s names: what builds a Policy. Shares the
 * settings of s->policy, so it lives no longer than s. */
PolicyConfig scenario_policy_config(const Scenario *s);
void scenario_done(Scenario *s);

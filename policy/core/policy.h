/* SPDX-License-Identifier: MIT */
#pragma once

/* The policy core's step: one pure function from (settings, snapshot, now,
 * the layers' state) to Decisions, made of four layers that compose, each
 * a table of function pointers (layer.h):
 *
 *   slot manager   straggler handling, slot memory and slot counts  (control)
 *   job scheduler  which pending task goes into which free slot     (assign)
 *   speculation    backup copies of slow tasks into remaining slots (assign)
 *   VM allocator   CPU weight, vCPUs and memory of each VM          (control)
 *
 * policy_step() runs them in that order (a speculation layer may also run
 * just before the scheduler: layer.h); each layer sees the snapshot plus the
 * decisions of the layers before it (the slot of a re-placed attempt is free
 * for the scheduler, a slot the slot manager added can be filled, the VM
 * allocator knows which nodes gained slots and which stragglers the slot
 * manager found). The core does no I/O, reads no clock, logs nothing and
 * keeps no global state: the same inputs (snapshot, time, and what the
 * layers remember from earlier steps) give the same Decisions. It knows
 * no policy (policy/layers/ holds them), counts slots by their own
 * type and lets a task run in a slot of either; running each task in the
 * slot named after its type (slot_type_of()) is a rule of the policies that
 * keep it, which all do but the schedulers under DynamicMR's slot
 * borrowing (CoreSettings.dmr.dhsa).
 *
 * The headers: model.h the snapshot, decisions.h what a step is asked and
 * answers, settings.h the core's settings and how a layer declares its own,
 * layer.h and context.h what a
 * layer is and sees, idmap.h and arena.h what it remembers and the step's
 * scratch, this one the step. A Policy keeps the layers' state
 * and the memory of its steps: an arena each step's scratch comes from
 * (context_scratch()), reset when the step ends.
 *
 * Driver contract (simulator and live controller alike):
 *   1. fill a ClusterSnapshot (model.h), call policy_step() with the current
 *      time and the layers to run (POLICY_STEP_CONTROL every control interval,
 *      POLICY_STEP_ASSIGN on every heartbeat or cycle; a heartbeat also says
 *      POLICY_STEP_HEARTBEAT and which node beats);
 *   2. apply the Decisions in array order: kills, slot changes (both counts),
 *      assignments (each in a slot of the type it names, which may be the
 *      other type's: a map in a reduce slot runs as a map), VM targets;
 *      keep quotas, placements and reservations until the next step of
 *      their kind replaces them (the deadline schedulers' quotas are what
 *      they hold their own assignments to, for a driver to show; DynamicMR's
 *      SEPB reserves slots; the simulator applies no quotas); record the
 *      reports (StragglerNote, DeadlineNote, LeverNote, SpareNote) as it
 *      likes;
 *   3. ask policy_admit() when a job is submitted, and run it only if
 *      admitted (the simulator does so at each job's arrival, and reports
 *      the jobs it refused with the reason). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/time-util.h"
#include "policy/core/decisions.h"
#include "policy/core/layer.h"
#include "policy/core/model.h"
#include "policy/core/settings.h"

typedef struct Policy Policy;

/* A Policy of the given layers (which must outlive it) with their settings
 * (PolicyLayers) and the core's (NULL: core_settings_schema's defaults):
 * -EINVAL for a missing layer, or a setting out of its range or at odds
 * with another, which err (NULL: not wanted) names with its key and range
 * (conf_check()). The settings are copied. policy_new_named() in
 * policy/layers/policies.h finds the layers by name. */
int policy_new(const PolicyLayers *layers, const CoreSettings *core, ConfError *err, Policy **ret);
Policy *policy_free(Policy *p);
static inline void policy_freep(Policy **p) {
        policy_free(*p);
}

/* One control cycle or heartbeat at time args->now: the layers of
 * args->flags (POLICY_STEP_ALL bits), optionally POLICY_STEP_TRUSTED and
 * POLICY_STEP_HEARTBEAT. -EINVAL for a bad snapshot (unless trusted),
 * unknown flag bits or a heartbeat of a node the snapshot does not have,
 * -ENOMEM, -EBADMSG if a policy broke the contract of decisions_validate()
 * (a bug); *d is left empty on failure. */
int policy_step(Policy *p, const ClusterSnapshot *s, const PolicyStepArgs *args, Decisions *d);

/* Whether job, not yet in s, may run, asked at now: the job scheduler's
 * verdict (its admit op; without one, every valid job is admitted and s is
 * not read, and may be NULL) in *ret. flags is 0 or POLICY_STEP_TRUSTED,
 * which vouches for s as it does in a step. Nothing changes, in the Policy
 * or elsewhere. -EINVAL for a bad job (see job_validate()), flag, or
 * snapshot (unless trusted), or an error of the layer; *ret is untouched
 * on failure. */
int policy_admit(Policy *p, const ClusterSnapshot *s, usec_t now, const Job *job, unsigned flags,
                 AdmitVerdict *ret);
/* The job scheduler has no admission control: policy_admit() admits every
 * valid job without reading the snapshot. A driver may then spare itself
 * building one (the simulator on a day's trace admits thousands of jobs;
 * the controller queues tens of thousands of tasks). */
bool policy_admits_all(const Policy *p);

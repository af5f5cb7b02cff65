/* SPDX-License-Identifier: MIT */
#pragma once

/* The one loop: ARIA's and the Deadline Constraint Scheduler's estimates,
 * FlexSlot's slot moves and straggler handling and the VM allocators,
 * acting on one forecast of each deadline job on a cluster whose slots do
 * not all run at the speed its jobs were profiled at (steal from another
 * tenant, DRS's limits). Each part is switched on its own in [policy]
 * (CoreSettings.slo, settings.h):
 *
 *   slo_speed   the schedulers count each slot at its measured speed
 *               (sched-aria.c, sched-deadline.c);
 *   slo_lever   the VM allocators give a late job's VMs CPU weight taken
 *               from best-effort VMs on their hosts (slo-lever.c);
 *   slo_favour  FlexSlot favours the job nearest to missing its deadline
 *               (slots.c);
 *   slo_spare   the slots the deadline schedulers' quotas leave idle go to
 *               the deadline job nearest to missing first (slo-sched.h).
 *
 * Triage: a late job that misses its deadline even with every slot it can
 * use (slo_hopeless()) goes after the jobs that can still meet theirs in
 * ARIA's order (slo-sched.h) and gets no favour from FlexSlot. The
 * Deadline Constraint Scheduler (Kc and Anyanwu, CloudCom 2010) refuses at
 * admission a job its schedulability test finds cannot meet its deadline,
 * so as not to run it at the others' expense; applying the same test to a
 * job already running is an assumption of ours (no paper of the seed
 * re-tests a running job).
 *
 * Speed (slo-speed.c): the work a job's maps did, in profiled seconds,
 * over the time they took; 1 runs as profiled, 0.5 takes twice as long.
 * Its finished maps of this run did their count times the stored
 * profile's mean map in their total time; a running map did its expected
 * time (the profiled mean scaled by its split against the job's mean
 * split) times the share of its input it consumed (not Hadoop's progress
 * score, which gives a map's sort a third of it for a fraction of its
 * time) in its age. Summing work and time over both, rather than
 * averaging the running maps' rates, keeps the slow maps from counting
 * more than they weigh: at any moment the running maps are more often
 * the slow ones, since they run longer (with running maps alone the
 * simulator's jobs measured 0.6-0.9 where their maps ended up at 1.0).
 * A job's speed is its own, else the cluster's (the same over every job's
 * maps, the job's slots being any of them), else 1. Choices the papers
 * leave to us:
 * - An attempt is measured once SLO_SPEED_MIN_AGE old and with progress:
 *   before, its JVM start and first read are most of its age.
 * - One speed for a job's map and reduce phases, measured on its maps (a
 *   reduce's progress waits on the maps until they end); the shuffle,
 *   which moves bytes rather than computes, is left at its profiled time.
 * - Speeds are clamped to [SLO_SPEED_MIN, SLO_SPEED_MAX].
 * So "count each slot at its measured speed" is the job's profile with its
 * map and reduce times divided by its speed (slo_profile_at_speed()), on
 * which Eq. 15 and the Deadline Constraint Scheduler's costs then work.
 *
 * Forecasts (slo-forecast.c), of when a deadline job ends, at now:
 * - bound: ARIA's average bound (Eq. 7 as aria-model.h reads it) on the
 *   job's tasks left (running ones counted whole, as ARIA's recompute
 *   counts them), its profile at its speed, on the slots it holds: its
 *   running maps and reduces, or the quota its scheduler last held it to
 *   when that is more (Job.quota, which the driver keeps: a job still
 *   getting its slots), at least one while maps are left; without a
 *   reduce running or a quota, the reduces left up to the cluster's
 *   reduce slots (an optimistic choice of ours).
 * - replay: the job's work left replayed on the same slots, as Jockey
 *   (Ferguson et al., EuroSys'12) asks a simulator of a job's remaining
 *   work: every running map ends after the share of its split it has not
 *   read at the profiled mean at the job's speed, the pending maps take
 *   that mean in whole waves on the slots as they free, and the reduces
 *   then take the first shuffle's part after the maps (first wave) or a
 *   typical shuffle (later waves) and the profiled reduce phase at the
 *   speed. A job running more tasks of a type than its slots (its quota
 *   cut while it ran) keeps them all to their ends and starts a pending
 *   one only as its running ones fall below its slots. A running map is
 *   not timed by its own rate so far, for the reason the speed is a ratio
 *   of sums: the running maps are more often the slow ones, and under DRS
 *   a map started on a VM held to its idle limit reads about 1 % of its
 *   split a minute until DRS's next pass, then runs as profiled (its rate
 *   so far forecast such a map hundreds of seconds late; over
 *   slo-interference's jobs the replay was late by 0.7 of a job's length
 *   at a quarter of it, and is within 0.1-0.25 now).
 * `flexslot-sim experiment slo-interference` measures both (and ARIA's
 * bound without the speed) against the real finish at 25, 50 and 75 % of
 * each job; slo_forecast picks which one the lever, ARIA's late test and
 * FlexSlot act on: the replay by default, the one nearer the real end
 * there (at a quarter, half and three quarters of a job, 0.21, 0.17 and
 * 0.12 of its length off against the bound's 0.28, 0.26 and 0.30).
 *
 * A job is late when its forecast is past its deadline; the lever keeps it
 * late until its forecast is slo_margin of its time left early (so that
 * weight given is not taken back at the next cycle because it worked).
 * Each layer that acts for a late job reports the forecast it acted on
 * (DeadlineNote): ARIA when it gives the job every slot, the lever every
 * control cycle for every deadline job, FlexSlot when the lever does not;
 * ARIA and FlexSlot, each job their triage passes over as hopeless, with
 * its forecast with every slot (DeadlineNote.hopeless); the lever reports
 * each weight it sets (LeverNote). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/core/context.h"
#include "policy/core/decisions.h"
#include "policy/core/idmap.h"
#include "policy/core/model.h"
#include "policy/core/settings.h"
#include "policy/layers/aria-model.h"

#define SLO_SPEED_MIN_AGE (10 * USEC_PER_SEC)
#define SLO_SPEED_MIN 0.05
#define SLO_SPEED_MAX 4.0

/* The running attempt's measured speed against its job's profile, 0 when
 * it cannot be measured (not a map, a backup, no profile, too young, no
 * progress yet). */
double slo_attempt_speed(const ClusterSnapshot *s, usec_t now, uint32_t attempt);
/* The share of a map attempt's input it consumed (its progress when its
 * input size is not known). */
double slo_map_done(const Attempt *a);

/* The speed of what s measures on its nodes: every measured attempt's, as
 * a ratio of sums; 0 when none is measured. */
double slo_cluster_speed(const ClusterSnapshot *s, usec_t now);

/* Job's speed (above), clamped; cluster is slo_cluster_speed() (0: none). */
double slo_job_speed(const ClusterSnapshot *s, usec_t now, uint32_t job, double cluster);
/* The speed of a job that has not run yet: the cluster's, else 1. */
double slo_new_job_speed(double cluster);

/* The speed of what runs on node, as slo_cluster_speed() over its
 * attempts; else the cluster's (cluster, 0: none), else 1. */
double slo_node_speed(const ClusterSnapshot *s, usec_t now, uint32_t node, double cluster);

/* LATE's test for restarting a running map attempt on node (a re-placement
 * there, or a resize on its own), which throws its work away: LATE
 * (Zaharia et al., OSDI'08, section 4.1, as speculation.c runs it)
 * estimates a task's time left as (1 - progress) / progress rate, its
 * progress here the share of its split it read; a fresh copy takes its
 * profiled time (map_avg scaled by its split) at node's speed
 * (slo_node_speed()). Whether the fresh copy ends sooner; true when there
 * is nothing to forecast it by (no profile, no progress yet). */
bool slo_restart_pays(const ClusterSnapshot *s, usec_t now, uint32_t attempt, uint32_t node,
                      double cluster);

/* p with its map and reduce phases as they take at speed. */
void slo_profile_at_speed(AriaProfile *p, double speed);

/* The doubles of scratch slo_forecast() needs on s. */
size_t slo_forecast_scratch(const ClusterSnapshot *s);
/* When job (with a profile) ends, forecast at now by kind, its slots at
 * speed (1: as profiled), in seconds from the clock's zero, on slots (by
 * SlotType; NULL: those it holds, or its kept quota, Job.quota, when that
 * is more); scratch holds slo_forecast_scratch(s) doubles (a step's
 * context_scratch()). -ENODATA without a profile (slo-sched.h's), or when
 * it has no task left. */
int slo_forecast(const ClusterSnapshot *s, usec_t now, uint32_t job, SloForecastKind kind,
                 double speed, const unsigned *slots, double *scratch, double *ret_end);

/* Each deadline job's forecast end (s; NAN for a job without a deadline, a
 * profile or a task left) and speed (1 for those), by the forecast the
 * core's settings name, at the step's time: per job of ctx's snapshot. */
int slo_forecast_jobs(PolicyContext *ctx, double *ret_end, double *ret_speed);
/* The same for one job, on slots (NULL: as slo_forecast()). */
int slo_forecast_one(PolicyContext *ctx, uint32_t job, const unsigned *slots, double *ret_end,
                     double *ret_speed);
/* Whether job, late before (was) or not, is late with a forecast end (NAN:
 * none, it stays as it was): forecast past its deadline, or late before
 * and not yet forecast slo_margin of its time left early. */
bool slo_late(const PolicyContext *ctx, uint32_t job, bool was, double end);
/* Whether job cannot meet its deadline any more: past it, or forecast
 * late at speed even with every slot it can use; ret_end gets that
 * forecast (NAN: not forecast, its deadline passed or nothing left). */
int slo_hopeless(PolicyContext *ctx, uint32_t job, double speed, bool *ret, double *ret_end);
/* Reports job's forecast (DeadlineNote): -ENOMEM. */
int slo_note(PolicyContext *ctx, uint32_t job, double end, double speed, bool late);
/* Reports that late job is passed over as hopeless (triage), with its
 * forecast with every slot, all (slo_hopeless()), or end when that is NAN:
 * -ENOMEM. */
int slo_note_hopeless(PolicyContext *ctx, uint32_t job, double all, double end, double speed);

/* How near job is to missing its deadline: (deadline - forecast) / (deadline
 * - now), below 0 when forecast late; INFINITY for a job without a deadline,
 * a forecast or time left. */
double slo_slack(const ClusterSnapshot *s, usec_t now, uint32_t job, double forecast_end);

/* The lever (slo-lever.c), which every VM allocator runs after its own
 * division when slo_lever is set. Each control step it forecasts every
 * deadline job (slo_forecast, at its measured speed) and reports it
 * (DeadlineNote). On a host running a task of a late job, the VMs split
 * their part of the host's CPU weight (the weight the allocator gives
 * them, or had before the lever) afresh: the late jobs' VMs are entitled
 * first to all the CPU they can use (their vCPUs, or their cap), the
 * best-effort VMs (another tenant's, and this cluster's running tasks of
 * jobs without a deadline only) to the rest in proportion to their
 * weights, and any other VM (running safe deadline jobs, or idle, which a
 * late job's task may take at the next heartbeat) keeps its weight; the
 * total weight
 * of the host is what it was, so the late jobs' CPU is taken from the
 * best-effort VMs and from no one else. A VM whose host runs no late job
 * any more gets its weight back. The agent's safety limits (actuation/)
 * apply to every target on its way. Each target it sets is reported
 * (LeverNote: the VM, the late job it serves or none, the weight). */
typedef struct SloLever {
        IdMap late; /* by Job.id: a bool, forecast late (and not safe again yet) */
        IdMap base; /* by Vm.id: an unsigned, its weight before the lever changed it */
} SloLever;

void slo_lever_init(SloLever *l);
void slo_lever_done(SloLever *l);
/* The lever's step after a VM allocator's targets in ctx->d: -ENOMEM. */
int slo_lever_step(SloLever *l, PolicyContext *ctx);

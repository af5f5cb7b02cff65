/* SPDX-License-Identifier: MIT */
#pragma once

/* DynamicMR (Tang, Lee and He, "DynamicMR: A Dynamic Slot Allocation
 * Optimization Framework for MapReduce Clusters", IEEE TCC 2014), section 2:
 * the arithmetic of its three techniques, each a pure function, and the
 * slot filler the fifo and fair schedulers hand their free slots to. Its
 * settings are CoreSettings.dmr (policy/core/settings.h) and, for SEPB,
 * LateSettings.jobs_checked (policies.h).
 *
 * Where the pieces live in the four layers, and why.
 *
 * DHSA (2.1) belongs to the job scheduler, as a mode of the fifo and fair
 * schedulers (dmr.dhsa), not to a slot manager:
 * - the paper decides to borrow at every heartbeat, from the demand of that
 *   moment, which is when the scheduler runs; a slot manager runs on
 *   control cycles;
 * - a borrowed slot stays its lender's: the Assignment names the slot type
 *   the task takes (a map in SLOT_REDUCE), the attempt keeps it, and when
 *   the map ends the slot is a free reduce slot again ("restore them
 *   later") with nothing to undo. Converting the slot (a SlotChange to one
 *   more map slot and one reduce slot less) would count the map in a map
 *   slot: once reduces came back, giving the slot back would let the node
 *   start a reduce in the slot the map still holds;
 * - PD-DHSA's fairness is between pools over both slot types, and
 *   PI-DHSA's first step is the fair scheduler's own max-min per type:
 *   only the scheduler knows pools and jobs;
 * - the configured ratio of maps to reduces still rules (3.6): a scheduler
 *   fills each type's slots with its own tasks first and lends only what
 *   is left idle.
 * The slot manager layer stays free for what changes a node's configured
 * slots (FlexSlot moves map slots between nodes), so the two compose: the
 * filler takes a node's configured slots as it finds them.
 *
 * SEPB (2.2) is the speculation layer "sepb" (speculation.c), LATE with
 * its gate. Slot PreScheduling (2.3.2) and the load manager whose limits
 * it relaxes (2.3.1) are scheduler modes (dmr.load_balance,
 * dmr.prescheduling), done by the filler as DHSA is: both decide which
 * task takes which free slot.
 *
 * Choices where the paper is vague:
 *
 * - DHSA demand (2.1.1): N_M and N_R count the running attempts of each
 *   type (in whatever slot) and the pending tasks that may start, so
 *   reduces waiting for reduce_slowstart are not demand (Hadoop's fair
 *   scheduler counts them so too); S_M and S_R are the configured slots of
 *   the schedulable nodes. The paper's four cases leave ties out; a type
 *   whose demand equals its slots lends nothing, so N_M > S_M with
 *   N_R = S_R is busy like case 4, and N_M <= S_M with N_R <= S_R is case
 *   1. In case 2 the maps may hold up to min(N_M - S_M, unused reduce
 *   slots) reduce slots cluster-wide, the number "determined based on the
 *   number of unused reduce slots and its map slots required"; case 3 the
 *   same the other way. Intra-phase comes first: every node's slots are
 *   filled with their own type (the whole cluster, type by type, as the
 *   schedulers always did), then each node lends what is still idle.
 * - PI-DHSA's fairness across pools in the borrowed slots: the phase's
 *   max-min shares over its own slots plus the slots it may borrow, as Fig.
 *   7a shows (three pools each at a third of all 108 slots while only maps
 *   run).
 * - PD-DHSA (2.1.2): a pool's share is max-min over all slots, in weight
 *   units (a task counts its own slot type's weight, wherever it runs), and
 *   the pools are served neediest first, each trying the paper's four
 *   attempts of Fig. 4 in order on the heartbeating node: (1) a map in an
 *   idle map slot, (2) a reduce in an idle reduce slot, (3) a map in a
 *   reduce slot, (4) a reduce in a map slot. Cases (a)-(d) of the pools
 *   follow from that order: a pool below its share fills its other phase
 *   from the slots it would lend before any other pool gets them. A pool
 *   that fails all four is passed over for the rest of the heartbeat; the
 *   cluster-wide cases of PI-DHSA do not apply (each pool is selfish).
 *   visitedForMap: a job asked for a map that had none it may start here
 *   (delay scheduling wants a local one) is marked; when every pool failed
 *   all four attempts, the pools are tried once more with locality relaxed
 *   for the marked jobs, so a node that holds no split of any pending map
 *   (a new node) runs maps rather than idle. Under fifo, PD-DHSA has one
 *   pool, the queue.
 * - Borrow limits: percentageOfBorrowedReduceSlots of the reduce slots a
 *   node has idle when its heartbeat comes to borrowing (after its own
 *   reduces) may take maps, rounded down (a share of a slot is kept back,
 *   to err on the side of the reserve the limit is for); the same for map
 *   slots and reduces. They apply to every borrow, PreScheduling's too.
 * - Slot weights (2.1, C2): a node's slots of a type are a pool of weight
 *   units, count x weight; a task takes its own slot type's weight out of
 *   the pool of the slot it runs in. n maps of weight 1 borrowing reduce
 *   slots of weight 2 take ceil(n / 2) of them, so a node of 8 map and 4
 *   reduce slots runs 8 + 4 x 2 = 16 maps, or 4 + 8 / 2 = 8 reduces. The
 *   core counts one attempt per slot, so the filler reshapes a node's slot
 *   count of the lending type to the places it holds: configured slots
 *   less the slots its borrowers take plus the borrowers (4 - 4 + 8 = 8
 *   reduce "slots" holding 8 maps; 8 - 4 x 2 + 4 = 4 map slots holding 4
 *   reduces). Every step re-derives a node's counts from its configuration
 *   and the attempts running (a half-used lent slot is not offered as a
 *   free slot of its type), and the scheduler remembers by Node.id how far
 *   it reshaped each node, so that a slot manager's changes in between
 *   pass through. With equal weights (the default) it never reshapes.
 * - Load manager (2.3.1, Hadoop's CapBasedLoadManager): Step 1's load
 *   factor counts running attempts and pending tasks that may start, of the
 *   whole cluster, at the start of the step; Step 2 rounds the usable slots
 *   up, as Hadoop does (ceil(min(load, 1) x slots)); Step 3 subtracts the
 *   slots in use of that type on the node, borrowers included. Borrowed
 *   slots are outside it: DHSA's own limits govern them.
 * - Slot PreScheduling (2.3.2): after a node's slots are filled, while it
 *   has extra idle map slots (Definition 2: idle but above the load
 *   manager's line), the head job of the scheduler's order with pending
 *   maps gets one if it has a map whose split is on the node; the first
 *   head job without one ends it, so no job passes another (the paper's
 *   fairness claim) and delay scheduling handles the rest. Under DHSA, a
 *   node with no idle map slot lends idle reduce slots to the head job's
 *   local maps the same way, whatever the cluster-wide case (the paper's
 *   second case), within the borrow limit. The pre-allocation is an
 *   assignment: a local pending map can start in a free slot of its node
 *   at once, so nothing is left for a reservation to hold (SEPB's are the
 *   reservations DynamicMR makes).
 * - SEPB (2.2) and its kill: see speculation.c and sepb_*() below. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/core/context.h"
#include "policy/core/idmap.h"

/* ---- DHSA ---- */

/* PI-DHSA's cases of 2.1.1, from the cluster's demand N and slots S. */
typedef enum DhsaCase {
        DHSA_CASE_1 = 1, /* N_M <= S_M, N_R <= S_R: no borrowing */
        DHSA_CASE_2,     /* N_M > S_M, N_R < S_R: maps borrow unused reduce slots */
        DHSA_CASE_3,     /* N_M < S_M, N_R > S_R: reduces borrow unused map slots */
        DHSA_CASE_4,     /* both phases full: no borrowing */
} DhsaCase;

DhsaCase dhsa_case(unsigned n_map, unsigned s_map, unsigned n_reduce, unsigned s_reduce);
/* How many tasks of type `borrower` may run in slots of the other type
 * cluster-wide, by the case (0 outside cases 2 and 3), with slot weights
 * indexed by SlotType. */
unsigned dhsa_borrow_target(const unsigned n[_TASK_TYPE_MAX], const unsigned s[_SLOT_TYPE_MAX],
                            const unsigned weight[_SLOT_TYPE_MAX], TaskType borrower);
/* Slots of weight slot_weight that n tasks of weight task_weight take:
 * ceil(n x task_weight / slot_weight). */
unsigned dhsa_slots_taken(unsigned n, unsigned task_weight, unsigned slot_weight);
/* Tasks of weight task_weight that slots of weight slot_weight hold:
 * floor(slots x slot_weight / task_weight). */
unsigned dhsa_tasks_held(unsigned slots, unsigned slot_weight, unsigned task_weight);
/* The most tasks of a type a node of own slots of its type and other slots
 * of the other type runs with borrowing (2.1: 8 map and 4 reduce slots of
 * weights 1 and 2 run 16 maps or 8 reduces). */
unsigned dhsa_max_tasks(unsigned own, unsigned own_weight, unsigned other, unsigned other_weight);

/* ---- load manager (2.3.1) ---- */

/* Step 1: (pending + running) / capacity; 0 without capacity. */
double load_factor(unsigned pending, unsigned running, unsigned capacity);
/* Step 2: ceil(min(load, 1) x node_slots). */
unsigned load_usable_slots(double load, unsigned node_slots);
/* Step 3, Definition 1: usable - used, 0 if that is negative. */
unsigned load_allowable_idle(unsigned usable, unsigned used);
/* Definition 2: slots - max(used, usable), 0 if that is negative. */
unsigned load_extra_idle(unsigned slots, unsigned used, unsigned usable);

/* ---- SEPB (2.2) ---- */

/* maxNumOfJobsCheckedForPendingTasks: share x n_jobs rounded up (the
 * paper's example checks 4 of 6 jobs), at most n_jobs. */
size_t sepb_jobs_checked(double share, size_t n_jobs);
/* Whether job J_i's backups for a slot of one type wait, from the three
 * conditions of 2.2 written for a map slot (a reduce slot's are the same
 * with the types swapped): (1) own_pending, J_i's pending tasks of the
 * slot's type (failed ones waiting to run again are pending too), is 0;
 * (2) window_pending, those of the window J_i .. J_j, is above 0; (3)
 * window_other, the window's pending tasks of the other type, is above 0
 * and borrow, the share of the slot type that other type may borrow (0
 * without DHSA), is above 0. Skip when (1) and (2), or (1) and (3). */
bool sepb_skips(unsigned own_pending, unsigned window_pending, unsigned window_other,
                double borrow);

/* Each job's pending tasks of each type that may start now (eligible, not
 * placed in this step): ret[type][job], arrays of n_jobs. */
void dmr_count_pending(const PolicyContext *ctx, unsigned *ret[_TASK_TYPE_MAX]);

/* ---- the slot filler ---- */

typedef enum PickMode {
        PICK_NORMAL,  /* the scheduler's rules, delay scheduling included */
        PICK_RELAXED, /* PD-DHSA: a job marked in visited may take a map from anywhere */
        PICK_HEAD,    /* PreScheduling: the head job's local map, or none */
} PickMode;

/* How a scheduler hands out tasks. */
typedef struct TaskSource {
        void *data;
        /* The task of this type the scheduler starts next on node, from
         * jobs of that pool (NO_INDEX: any), or NO_INDEX. A job asked for a
         * map that has pending maps but none it may start on node (delay
         * scheduling) is marked in visited (per job) under PICK_NORMAL;
         * visited is NULL but under PD-DHSA, the only mode that reads it. */
        uint32_t (*pick)(void *data, PolicyContext *ctx, uint32_t node, TaskType type,
                         uint32_t pool, PickMode mode, bool *visited);
        /* The task pick() gave got a slot. */
        void (*took)(void *data, PolicyContext *ctx, uint32_t task);
        /* PD-DHSA: the pools neediest first into ret (room for one per job);
         * returns their number. */
        size_t (*pools)(void *data, PolicyContext *ctx, uint32_t *ret);
} TaskSource;

typedef struct DmrFill DmrFill;

/* A scheduler's memory for the filler, by Node.id: how far it reshaped
 * each node's slot counts (two ints, by SlotType). */
int dmr_memory_new(void **ret);

/* Starts a step's filling: counts, reshapes the nodes' slots to what their
 * attempts hold, and works out the load factors and PI-DHSA's borrowing.
 * -ENOMEM. */
int dmr_fill_begin(PolicyContext *ctx, IdMap *memory, DmrFill **ret);
/* What a task type's fair shares divide: its own slots plus what PI-DHSA
 * lets it borrow, in tasks. */
double dmr_phase_capacity(DmrFill *f, TaskType type);
/* PD-DHSA's: every slot, in weight units. */
double dmr_total_capacity(DmrFill *f);
/* The weight a task of this type counts (its own slot type's). */
unsigned dmr_task_weight(const DmrFill *f, TaskType type);
/* Fills the free slots as the settings say (own types, DHSA, the load
 * manager, PreScheduling) with the source's tasks and remembers the
 * reshaped slot counts. */
int dmr_fill(DmrFill *f, const TaskSource *src, IdMap *memory);

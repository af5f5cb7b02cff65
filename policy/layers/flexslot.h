/* SPDX-License-Identifier: MIT */
#pragma once

/* FlexSlot (Guo, Rao, Jiang, Zhou), section III: the pieces the slot manager
 * and the VM allocator build on, each a pure function so that it can be
 * tested alone. Choices where the paper is silent:
 *
 * - III-B, P = (1 + 1/S) * D: S is the split size in MiB and D the input
 *   speed in MiB/s (with S in bytes the 1/S term, the normalized progress
 *   rate, would vanish). D is the attempt's average speed since it started,
 *   bytes_processed / age; an attempt is judged only once it is min_age old
 *   (default 30 s), since its first seconds (JVM start, the wait for a CPU
 *   or the disk in the guest, the first read) count in the age but process
 *   nothing: judged at 10 s, two thirds of the uniform tera-sort maps in the
 *   simulator fell in the low cluster at some point and were killed, and
 *   the job took 24% longer; at 30 s none were (LATE waits a minute for the
 *   same reason).
 * - III-B, k-means: tasks are clustered per job, against their peers (the
 *   tasks of different applications run at unrelated speeds). Backup
 *   attempts are not judged: they are copies of a task already judged.
 *   k-means always splits values that are not all equal, so noise alone
 *   would make half of a uniform job "stragglers"; the low cluster counts
 *   only when its centroid is below straggler_ratio times the high one
 *   (default 0.8; 1.0 gives the paper's pure k-means).
 * - III-C, bottleneck: I/O when the attempt's I/O wait share is at least
 *   io_threshold (default 0.2) and at least its own steal share; else CPU
 *   when its steal share is at least steal_threshold (default 0.1); else
 *   none. Both are the attempt's shares of its run time, as Fig. 5 and
 *   Fig. 6 split each task's time: the node's steal is a mean over its
 *   vCPUs and its last interval, and a lone starved straggler on a 4-vCPU
 *   VM shows at most a quarter of its steal there. The figures show
 *   stragglers whose time is dominated by one of the two; the thresholds
 *   keep a straggler with a little of both from being resized for nothing.
 * - Unmeasured nodes and VMs elsewhere: Algorithm 2 leaves a node without a
 *   steal measurement out (neither donor nor receiver, nor in mu and sigma);
 *   a host the driver does not measure as a whole, with a VM of this
 *   cluster whose CPU use is not measured, has no pCPU known to be idle;
 *   V-F adds no slot to a node whose steal or VM is not measured; a
 *   straggler's re-placement prefers measured nodes to unmeasured ones.
 * - Algorithm 1, line 7: the printed test S/D - S/D_prev > T would kill
 *   again only when the last resize made the task slower; the text says the
 *   resizing continues while "the resulting decrease in the input processing
 *   time ... outweighs the wasted processing time due to task killing (T)",
 *   so the test here is S/D_prev - S/D > T. The paper takes T as the work a
 *   kill wastes because it judges a restarted task at the next heartbeat;
 *   here an attempt is judged once min_age old, so the waste is its age when
 *   that is longer than T (with T alone, noise in the speed of I/O-bound
 *   tasks re-killed some of them eleven times in the simulator's tera-sort
 *   run). D_prev is the slot manager's memory of the task (by Task.id): the
 *   speed it measured when it last killed the task or let it run (line 13),
 *   kept while the task has an attempt at each control step; without one, a
 *   task resized before is not killed again. The first resize is
 *   unconditional (killcount = 0): a kill that re-placed the task (III-E)
 *   is no resize and does not count. Slot memory never grows past the VM's memory ceiling
 * less vm_memory_reserve; at that cap the task is no longer killed.
 * - Algorithm 2: the loop of the paper recomputes mu and sigma over steal
 *   values that only change once moved slots have been filled and the
 *   hypervisor reacted, so taken literally it never ends. Here one control
 *   cycle makes at most max_moves moves (default 1), pairing the k-th lowest
 *   steal node with the k-th highest, and measures again only once the last
 *   slot change is settle old (default 15 s, five heartbeats: the new slot
 *   must be filled and the allocator must react before steal can move), and
 *   at least one allocator period (ClusterSnapshot.allocator_period: DRS's
 *   5 minutes in the paper's testbed), since steal moves only once the
 *   allocator has divided the CPU again. A
 *   node keeps at least min_map_slots and gets at most max_map_slots
 *   (default 8, twice the paper's 4). As III-E says, slots move "from nodes
 *   running fast tasks to nodes running stragglers" once a straggler's
 *   bottleneck is CPU: the algorithm runs only while some straggler is
 *   CPU-bound, a donor runs no straggler and a receiver runs a CPU-bound one.
 *   The paper counts on the cloud's demand-based allocator to follow the new
 *   slot with CPU from a cluster-wide pool (VMware DRS); here a host is the
 *   pool, so a receiver's host must also have a pCPU idle (the CPU use of
 *   all its VMs, a co-running cluster's too (Fig. 11), at most pcpus - 1;
 *   Host.cpu_use, or this cluster's VMs' when the driver measures no more).
 *   Without these bounds a receiver whose
 *   host has no CPU to give keeps gaining slots every cycle (its steal never
 *   falls) until it holds them all: in the simulator's Fig. 10 wordcount run
 *   that made the job 41% slower than stock Hadoop.
 * - V-F, unlimited: the moves stay as above (conserving), and in addition
 *   a node whose map slots are all busy while maps are pending gets one more
 *   when its resources are free: a vCPU idle (cpu_use + 1 <= vcpus), a pCPU
 *   idle on its host, no contention (steal below steal_threshold) and memory
 *   for the slot (committed slot memory + vm_memory_reserve + one slot <= VM
 *   memory). A node grows by one slot at a time, once its last change is
 *   settle old, since cpu_use and steal lag behind a new slot (without the
 *   wait the simulator's wordcount cluster grew from 120 to 150 slots in
 *   half a minute, and then ran at up to 0.79 steal). Slots are only added:
 *   a rule that removed slots beyond one per vCPU under steal made them
 *   oscillate and cost 3 to 10% in the simulator's wordcount and
 *   histogram-movies runs.
 * - III-E, re-placement: the paper worries about "newly added slots" that
 *   get a straggler. An attempt is such a new task when its node gained
 *   slots (it has more map slots than the mean of the alive nodes), it
 *   started after the node's last slot change, it is younger than
 *   new_task_window and was never killed for resizing. If it is a straggler
 *   and its node runs another straggler, it is killed and placed on an alive
 *   node without stragglers that has a free map slot: a node holding its
 *   split first, then the lowest steal, then the lowest index. Without such
 *   a node it stays, and Algorithm 1 applies to it as to any straggler. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy/core/context.h"
#include "policy/core/layer.h"

/* The flexslot slot manager's settings (its schema: slot_manager_flexslot's
 * settings, in slots.c), each described above. */
typedef struct FlexSlotSettings {
        double alpha;           /* slot memory step of Algorithm 1 */
        double lambda;          /* steal standard deviation bound of Algorithm 2 */
        double straggler_ratio; /* 1.0 is the paper's pure k-means */
        double io_threshold;    /* bottleneck: attempt I/O wait share */
        double steal_threshold; /* bottleneck: node steal share */
        usec_t min_age;         /* an attempt is judged only after running this long */
        usec_t new_task_window; /* "newly scheduled" for straggler re-placement */
        int64_t max_moves;      /* Algorithm 2 moves per control cycle */
        usec_t settle;          /* no moves until the last one is this old */
        int64_t min_map_slots, max_map_slots; /* per node */
        bool unlimited_slots;                 /* V-F: add slots where resources are free */
} FlexSlotSettings;
extern const ConfSchema flexslot_settings_schema;

/* D in bytes/s, or 0 when the attempt is younger than min_age. */
double flexslot_input_speed(const Attempt *a, usec_t now, usec_t min_age);
/* P = (1 + 1/S) * D, S in MiB, D in MiB/s; 0 for an empty split. */
double flexslot_score(uint64_t input_size, double speed);
Bottleneck flexslot_bottleneck(const FlexSlotSettings *set, const Attempt *a);
/* Algorithm 1, line 7, with the time a kill wastes in place of T: a's
 * speed is D, prev_speed D_prev (0: not known). */
bool flexslot_resize_pays(const Attempt *a, double prev_speed, double speed, usec_t waste);
/* Algorithm 1, line 9, rounded down to whole bytes and capped at limit. */
uint64_t flexslot_grow_memory(uint64_t memory, double alpha, uint64_t limit);

/* Algorithm 2 for one control cycle over the nodes listed in nodes[0..n):
 * steal, slots, may_give and may_take are indexed by node (NULL may_give or
 * may_take: every node may). Writes the moves (one map slot from ret_from[k]
 * to ret_to[k]) and returns their number; 0 when the standard deviation of
 * steal is at most lambda. order holds n entries of scratch. */
size_t flexslot_plan_moves(const FlexSlotSettings *set, const uint32_t *nodes, size_t n,
                           const double *steal, const unsigned *slots, const bool *may_give,
                           const bool *may_take, uint32_t *order, uint32_t *ret_from,
                           uint32_t *ret_to);

/* FlexSlot's judgement of one step's attempts (III-B, III-C), the slot
 * manager's own: indexed by attempt, except node_stragglers by node. */
typedef struct FlexSlotAnalysis {
        double *speed; /* input processing speed D in bytes/s; 0: not measured */
        double *score; /* P; 0: not measured */
        bool *straggler;
        Bottleneck *bottleneck;
        unsigned *node_stragglers; /* straggler attempts on the node */
} FlexSlotAnalysis;

/* Judges the step's attempts into *a (zeroed arrays as long as the
 * snapshot's attempts and nodes) and adds a StragglerNote for each
 * straggler. */
int flexslot_analyze(PolicyContext *ctx, const FlexSlotSettings *set, FlexSlotAnalysis *a);

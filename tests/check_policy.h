/* SPDX-License-Identifier: MIT */
#pragma once

/* Hand-made cluster snapshots for the policy suites (check_policy.c,
 * check_flexslot.c, check_vm_alloc.c, check_contracts.c and the others that
 * include this), and the step helper check_core.c shares. One fixture per
 * test process: Check forks each test. */

#include "policy/core/policy.h"
#include "policy/layers/flexslot.h"
#include "policy/layers/policies.h"

#define MIB (1024ULL * 1024ULL)
#define GIB (1024ULL * MIB)
#define SEC USEC_PER_SEC

typedef struct Fixture {
        Host hosts[2];
        Vm vms[8];
        Node nodes[8];
        Job jobs[8];
        Task tasks[128];
        Attempt attempts[64];
        ClusterSnapshot s;
        PolicyConfig cfg;
        Decisions d;
        Policy *p;             /* of fx_step_kept() */
        uint32_t first_map[8]; /* of each job fx_slo_job() made */
} Fixture;

extern Fixture fx;

/* The settings of these layers in fx.cfg. */
FlexSlotSettings *fx_flexslot(void);
LateSettings *fx_late(void);
CoreSettings *fx_core(void);
AriaSettings *fx_aria(void);

/* One host (8 pCPUs, 16 GiB) with n VMs of 2 vCPUs (max 4) and 2 GiB (max
 * 4 GiB), each the node of a tracker with 200 MiB slots; VMs and nodes are
 * measured (at time 1). */
void fx_cluster(unsigned n, unsigned map_slots, unsigned reduce_slots);
/* fx.vms[i] as fx_cluster() makes it, without its node. */
void fx_vm(uint32_t i);
uint32_t fx_job(usec_t submitted, uint32_t pool);
/* A pending 64 MiB map whose split is on node loc (NO_INDEX: nowhere). */
uint32_t fx_map(uint32_t job, uint32_t loc);
uint32_t fx_reduce(uint32_t job);
/* An attempt of task on node since started that has read bytes, in a slot
 * of the task's type. */
uint32_t fx_run(uint32_t task, uint32_t node, usec_t started, uint64_t bytes);
void fx_done(uint32_t task);
/* A profile of n maps of map_s seconds each and reduce phases of reduce_s
 * (none for 0) after shuffles of shuffle_s. */
JobProfile fx_profile(unsigned n, double map_s, double reduce_s, double shuffle_s);
/* A job with a deadline (0: none) and maps pending maps of 64 MiB whose
 * splits are on the nodes in locs (NULL: nowhere), with the profile p
 * (NULL: none) as its stored one; its first map is fx.first_map[job]. */
uint32_t fx_slo_job(usec_t submitted, usec_t deadline, const JobProfile *p, unsigned maps,
                    const uint32_t *locs);
/* The step's quota of job; NULL without one. */
const SlotQuota *fx_quota_of(uint32_t job);
/* How many of the step's assignments are of job's tasks. */
unsigned fx_assigned_to(uint32_t job);
/* policy_step() at now with flags, not a heartbeat. */
int step(Policy *p, const ClusterSnapshot *s, usec_t now, unsigned flags, Decisions *d);
/* policy_new_named() with fx.cfg, then one policy_step() into fx.d. */
int fx_step(unsigned flags, usec_t now);
/* The same with one Policy for the fixture's life, made at its first step
 * from fx.cfg: what its layers remember carries from step to step. */
int fx_step_kept(unsigned flags, usec_t now);
void fx_check_assignment(size_t i, uint32_t task, uint32_t node, bool local, bool speculative);
void fx_teardown(void);

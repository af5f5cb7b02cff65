/* SPDX-License-Identifier: MIT */
/* VM allocators: how each host's CPU and memory are divided among its VMs.
 * Each policy states what a VM wants (a CPU need in CPUs, vCPUs, memory, a
 * cap); the division is common. CPU is an entitlement, as VMware DRS
 * computes it for a resource pool: when the needs on a host exceed its
 * pCPUs each VM is entitled to its proportional part of them, otherwise to
 * its need plus an equal part of what is left (the VMs' static shares are
 * equal). The entitlement becomes the VM's CPU weight (the host's pool is
 * weight_per_vm per VM), so it binds when the host is contended: a VM
 * whose runnable vCPUs exceed what its weight gets them accumulates steal,
 * which is what FlexSlot's Algorithm 2 reads (III-C). Memory is scaled
 * down together when the wants exceed the host (never below
 * min_vm_memory), everything within the VM's maxima. Only VMs whose target
 * differs from what they have get a VmTarget.
 *
 * Another tenant's VM (Vm.other_tenant) is no VM of theirs: they divide a
 * host among this cluster's VMs and leave it as it is. Each of them then
 * runs the one loop's lever when slo_lever is set (slo-loop.h), which may
 * take weight from another tenant's VM for a late deadline job.
 *
 * none: no targets; every VM keeps the size its operator gave it. The
 *   controller's default, so that starting it changes no VM until an
 *   allocator is chosen.
 * static: equal fixed shares of the host, the CPU share also as a cap (the
 *   paper's homogeneous cluster of fixed 4.8 GHz nodes, II-B). The other
 *   two set no cap: a cap would leave CPU idle that ESX's scheduler, which
 *   enforces DRS's entitlements through shares, hands out.
 * demand: the DRS-like baseline of FlexSlot II-C: the need is recent
 *   consumption (CPU use and touched memory) times demand_headroom, so a VM
 *   whose tasks waited on I/O or were starved looks idle, gets a small
 *   weight, and is starved when its tasks want CPU again on a busy host.
 *   It changes entitlements only: the guest keeps its vCPUs (DRS does not
 *   hot-remove vCPUs, and fewer vCPUs would show starvation as the guest's
 *   run queue instead of steal). A VM not measured yet is not taken for
 *   idle: it needs all its vCPUs and keeps its memory.
 * flexslot: what the tasks on the VM's node need: one CPU's worth per map
 *   slot (with the slot manager's changes) and per running reduce, plus one
 *   per straggler starved of CPU (III-C); vCPUs enough to run every slot at
 *   once (never fewer than the VM has); memory for every slot at its slot
 *   memory, grown slots included, plus vm_memory_reserve. The stragglers are
 *   those the slot manager reported in the step (StragglerNote): with a
 *   slot manager that judges none, there are none. A VM's CPU weight and
 *   cap change only by more than vm_target_margin of what they were last
 *   given, at most once per vm_target_interval (hold_cpu()).
 *   With critical_first, the attempts that bound their job's completion (see
 *   attempt_critical()) are entitled to a CPU each before the rest of the
 *   needs are divided. Off by default: in the simulator's Fig. 10 it made
 *   k-means 3-4 % slower in every seed and changed nothing else beyond the
 *   spread (`flexslot-sim experiment alloc`); a VM's weight speeds all its
 *   tasks alike, and the time a job spends above its bound is mostly pCPUs
 *   no runnable thread wanted, which no division of CPU gives back.
 * drs: VMware DRS as the FlexSlot testbed ran it (II-C), live: every
 *   drs_period the cluster's pool is divided among its VMs by their CPU use
 *   over the last drs_window (sampled every drs_sample), each part at most
 *   the VM's vCPUs, and enforced as a cap (at least pool_min_cap) and as
 *   its CPU weight, in proportion to the part. The estimate and the divvy
 *   are the simulator's ([drs], sim/drs.c), from one source
 *   (policy/core/resource-pool.h), so a prediction and a live run follow one
 *   rule. Live, a VM's cumulative use is its measured use rate integrated
 *   between measurements (a driver reports rates, not counters); its ready
 *   time is not counted (the simulator's default, ready = no). Before the
 *   first divvy the pool is split equally; the first comes a period after
 *   the first job is seen (the simulator's DRS starts with the cluster's
 *   jobs). Only CPU is divided: vCPUs and memory stay as they are.
 * homo: the pool split equally, each part a cap (at least pool_min_cap) and
 *   the default weight, never changed: the paper's Homo cluster of fixed
 *   4.8 GHz nodes (II-B), which is DRS before its first divvy. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/context.h"
#include "policy/core/idmap.h"
#include "policy/core/resource-pool.h"
#include "policy/layers/policies.h"
#include "policy/layers/slo-loop.h"

#define GIB (1LL << 30)

static const char *const drs_divvy_names[] = { "proportional", "maxmin", NULL };

static const ConfKey vm_allocator_keys[] = {
        SETTING_INT(VmAllocatorSettings, weight_per_vm, "1024", 2, 262144,
                    "VM allocators: a host's pool of CPU weight is this times its VMs"),
        SETTING_DOUBLE(VmAllocatorSettings, demand_headroom, "1.25", 1, 10,
                       "demand allocator: a VM's entitlement is this times its recent use"),
        SETTING_SIZE(VmAllocatorSettings, min_vm_memory, "512M", 0, 4096 * GIB,
                     "VM allocators: the least memory a VM is given"),
        SETTING_BOOL(VmAllocatorSettings, critical_first, "no",
                     "flexslot allocator: a contended host's CPU goes first to the VMs running "
                     "the attempts that bound their jobs' completion"),
        SETTING_DOUBLE(
                VmAllocatorSettings, pool, "0", 0, 1e6,
                "drs and homo allocators: CPUs of the cluster's pool; 0: every host's pCPUs"),
        SETTING_DOUBLE(VmAllocatorSettings, pool_min_cap, "0.05", 0.01, 4096,
                       "drs and homo allocators: the least CPU cap of a VM"),
        SETTING_DURATION(VmAllocatorSettings, drs_period, "5min", USEC_PER_SEC, 24 * USEC_PER_HOUR,
                         "drs allocator: how often the pool is divided"),
        SETTING_DURATION(VmAllocatorSettings, drs_window, "5min", USEC_PER_SEC, 24 * USEC_PER_HOUR,
                         "drs allocator: the span of CPU use a VM's demand is the average of"),
        SETTING_DURATION(VmAllocatorSettings, drs_sample, "20s", USEC_PER_SEC, USEC_PER_HOUR,
                         "drs allocator: how often a VM's CPU use is sampled"),
        SETTING_ENUM(VmAllocatorSettings, drs_divvy, "proportional", drs_divvy_names,
                     "drs allocator: the pool in proportion to the demands, or max-min fair"),
        SETTING_DOUBLE(VmAllocatorSettings, vm_target_margin, "0.1", 0, 10,
                       "flexslot allocator: a VM's CPU weight or cap changes only by more than "
                       "this fraction of what it was last given"),
        SETTING_DURATION(VmAllocatorSettings, vm_target_interval, "30s", 0, 24 * USEC_PER_HOUR,
                         "flexslot allocator: the least time between two changes of a VM's CPU "
                         "weight and cap (the agent's [limits] min-interval)"),
};

const ConfSchema vm_allocator_settings_schema = {
        .keys = vm_allocator_keys,
        .n_keys = ELEMENTSOF(vm_allocator_keys),
        .size = sizeof(VmAllocatorSettings),
};

typedef struct VmWant {
        double need;
        /* The part of need that bounds a job's completion, met before the
         * rest (at most need). */
        double critical;
        unsigned vcpus;
        uint64_t memory;
        double cpu_cap;
} VmWant;

/* data: the policy's own, per node or NULL. */
typedef void (*VmWantFunc)(const PolicyContext *ctx, const VmAllocatorSettings *set, uint32_t vm,
                           uint32_t node, unsigned vms_on_host, const void *data, VmWant *ret);

static unsigned clamp_vcpus(double want, const Vm *vm) {
        return (unsigned)CLAMP(ceil(want), 1.0, (double)MAX(vm->vcpus_max, 1u));
}

static uint64_t clamp_memory(const VmAllocatorSettings *set, double want, const Vm *vm) {
        double lo = (double)MIN(set->min_vm_memory, vm->memory_max);

        return (uint64_t)CLAMP(floor(want), lo, (double)vm->memory_max);
}

/* What the flexslot allocator last gave a VM's CPU, by Vm.id. */
typedef struct VmHeld {
        unsigned cpu_weight;
        double cpu_cap;
        usec_t at; /* when; 0: nothing yet */
} VmHeld;

static bool cpu_moved(double to, double from, double margin) {
        /* From no cap to one, or back, is always a change. */
        if ((to == 0) != (from == 0))
                return true;
        return fabs(to - from) > margin * from;
}

/* Holds a VM's CPU weight and cap at what it was last given unless the
 * new ones differ by more than vm_target_margin and vm_target_interval has
 * passed since: the flexslot allocator's need follows the stragglers the
 * slot manager judges in each step, and those come and go from one step to
 * the next. Unheld, a guest's weight swung between 683 and 1024 every cycle
 * in a real run (demo/vmexp.sh's arm E: 1,950 targets in 534 s, 1,234 of
 * them refused by the agent's rate limit), every swing a change of the
 * guest's share that no task had time to use. The first change goes out as
 * computed. */
static int hold_cpu(IdMap *held, const VmAllocatorSettings *set, const Vm *vm, usec_t now,
                    VmTarget *t) {
        VmHeld *h;
        int r = idmap_put(held, vm->id, (void **)&h);

        if (r < 0)
                return r;
        if (h->at == 0) {
                if (t->cpu_weight != vm->cpu_weight || t->cpu_cap != vm->cpu_cap)
                        *h = (VmHeld){ .cpu_weight = t->cpu_weight,
                                       .cpu_cap = t->cpu_cap,
                                       .at = now };
                return 0;
        }
        if ((cpu_moved(t->cpu_weight, h->cpu_weight, set->vm_target_margin) ||
             cpu_moved(t->cpu_cap, h->cpu_cap, set->vm_target_margin)) &&
            now >= h->at + set->vm_target_interval) {
                *h = (VmHeld){ .cpu_weight = t->cpu_weight, .cpu_cap = t->cpu_cap, .at = now };
                return 0;
        }
        t->cpu_weight = h->cpu_weight;
        t->cpu_cap = h->cpu_cap;
        return 0;
}

/* vms: the host's n VMs of the cluster's own, in the snapshot's order.
 * held: what hold_cpu() keeps, or NULL for targets as computed. */
static int allocate_host(PolicyContext *ctx, const VmAllocatorSettings *set, uint32_t host,
                         const uint32_t *vms, unsigned n, const uint32_t *vm_node, VmWant *wants,
                         VmWantFunc want, const void *data, IdMap *held) {
        const ClusterSnapshot *s = ctx->snap;
        double pcpus = (double)s->hosts[host].pcpus;
        double need = 0, critical = 0, memory = 0, scale, cpu_scale, spare, rest;

        for (unsigned i = 0; i < n; i++) {
                uint32_t v = vms[i];

                want(ctx, set, v, vm_node[v], n, data, &wants[v]);
                wants[v].critical = MIN(wants[v].critical, wants[v].need);
                need += wants[v].need;
                critical += wants[v].critical;
                memory += (double)wants[v].memory;
        }
        scale = memory > (double)s->hosts[host].memory ? (double)s->hosts[host].memory / memory
                                                       : 1.0;
        /* The entitlements add up to the host's pCPUs (see the top): the
         * critical needs first, then the rest of the needs. */
        rest = MAX(pcpus - critical, 0.0);
        cpu_scale = need - critical > rest ? rest / (need - critical) : 1.0;
        spare = n > 0 && need < pcpus ? (pcpus - need) / n : 0;
        for (unsigned i = 0; i < n; i++) {
                uint32_t v = vms[i];
                const Vm *vm = &s->vms[v];
                VmTarget t = { .vm = v, .vcpus = wants[v].vcpus, .cpu_cap = wants[v].cpu_cap };
                int r;
                double entitled =
                        critical > pcpus
                                ? wants[v].critical * pcpus / critical
                                : wants[v].critical +
                                          (wants[v].need - wants[v].critical) * cpu_scale + spare;

                t.cpu_weight = pcpus > 0 ? (unsigned)MAX(lround((double)set->weight_per_vm * n *
                                                                entitled / pcpus),
                                                         2L)
                                         : (unsigned)set->weight_per_vm;
                t.memory = clamp_memory(set, (double)wants[v].memory * scale, vm);
                if (held) {
                        r = hold_cpu(held, set, vm, ctx->now, &t);
                        if (r < 0)
                                return r;
                }
                if (t.cpu_weight == vm->cpu_weight && t.vcpus == vm->vcpus &&
                    t.memory == vm->memory && t.cpu_cap == vm->cpu_cap)
                        continue;
                r = DECISIONS_PUSH(ctx->d, vm_targets, .vm = t.vm, .cpu_weight = t.cpu_weight,
                                   .vcpus = t.vcpus, .memory = t.memory, .cpu_cap = t.cpu_cap);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int allocate_by(PolicyContext *ctx, const VmAllocatorSettings *set, VmWantFunc want,
                       const void *data, IdMap *held) {
        const ClusterSnapshot *s = ctx->snap;
        uint32_t *vm_node = context_scratch(ctx, s->n_vms, sizeof(uint32_t));
        VmWant *wants = context_scratch(ctx, s->n_vms, sizeof(VmWant));
        /* The cluster's own VMs by host, each host's in the snapshot's
         * order (a counting sort): a host's division reads its VMs alone. */
        uint32_t *first = context_scratch(ctx, s->n_hosts + 1, sizeof(uint32_t));
        uint32_t *filled = context_scratch(ctx, s->n_hosts, sizeof(uint32_t));
        uint32_t *by_host = context_scratch(ctx, s->n_vms, sizeof(uint32_t));

        if (!vm_node || !wants || !first || !filled || !by_host)
                return -ENOMEM;
        memset(first, 0, (s->n_hosts + 1) * sizeof(uint32_t));
        memset(filled, 0, s->n_hosts * sizeof(uint32_t));
        for (uint32_t v = 0; v < s->n_vms; v++) {
                vm_node[v] = NO_INDEX;
                first[s->vms[v].host + 1] += !s->vms[v].other_tenant;
        }
        for (uint32_t h = 0; h < s->n_hosts; h++)
                first[h + 1] += first[h];
        for (uint32_t v = 0; v < s->n_vms; v++) {
                uint32_t h = s->vms[v].host;

                if (!s->vms[v].other_tenant)
                        by_host[first[h] + filled[h]++] = v;
        }
        for (uint32_t i = 0; i < s->n_nodes; i++)
                vm_node[s->nodes[i].vm] = i;
        for (uint32_t h = 0; h < s->n_hosts; h++) {
                int r = allocate_host(ctx, set, h, by_host + first[h], first[h + 1] - first[h],
                                      vm_node, wants, want, data, held);

                if (r < 0)
                        return r;
        }
        if (held)
                idmap_sweep(held);
        return 0;
}

static void static_want(const PolicyContext *ctx, const VmAllocatorSettings *set, uint32_t v,
                        uint32_t node, unsigned n, const void *data, VmWant *ret) {
        const Vm *vm = &ctx->snap->vms[v];
        const Host *h = &ctx->snap->hosts[vm->host];

        *ret = (VmWant){
                .need = 1,
                .vcpus = vm->vcpus,
                .memory = clamp_memory(set, (double)h->memory / n, vm),
                .cpu_cap = (double)h->pcpus / n,
        };
}

static void demand_want(const PolicyContext *ctx, const VmAllocatorSettings *set, uint32_t v,
                        uint32_t node, unsigned n, const void *data, VmWant *ret) {
        const Vm *vm = &ctx->snap->vms[v];
        double headroom = set->demand_headroom;

        if (!vm_measured(vm)) {
                *ret = (VmWant){ .need = vm->vcpus, .vcpus = vm->vcpus, .memory = vm->memory };
                return;
        }

        /* A floor of a hundredth of a CPU keeps an idle VM schedulable. */
        *ret = (VmWant){
                .need = fmax(vm->cpu_use, 0.01) * headroom,
                .vcpus = vm->vcpus,
                .memory = clamp_memory(set, (double)vm->memory_used * headroom, vm),
        };
}

/* What the flexslot allocator counts per node. */
typedef struct FlexslotNeeds {
        unsigned *starved;  /* CPU-starved stragglers */
        unsigned *critical; /* attempts that bound their job's completion */
} FlexslotNeeds;

static void flexslot_want(const PolicyContext *ctx, const VmAllocatorSettings *set, uint32_t v,
                          uint32_t node, unsigned n, const void *data, VmWant *ret) {
        const FlexslotNeeds *needs = data;
        const Vm *vm = &ctx->snap->vms[v];
        double slots = 0, starved = 0, critical = 0, memory = 0;

        if (node != NO_INDEX && node_schedulable(&ctx->snap->nodes[node])) {
                slots = ctx->slots[SLOT_MAP][node] + context_busy_slots(ctx, node, SLOT_REDUCE);
                starved = needs->starved[node];
                critical = MIN(needs->critical[node], (double)vm->vcpus);
                memory = (double)(context_node_committed_memory(ctx, node) +
                                  ctx->core->vm_memory_reserve);
        }
        ret->need = slots + starved;
        ret->critical = critical;
        ret->vcpus = clamp_vcpus(MAX(slots, (double)vm->vcpus), vm);
        ret->memory = clamp_memory(set, memory, vm);
}

/* Every allocator's state: the one loop's lever (slo-loop.h), which runs
 * after the allocator's own division when slo_lever is set. */
static int alloc_init(const void *settings, void **ret_state) {
        SloLever *l = calloc(1, sizeof(*l));

        if (!l)
                return -ENOMEM;
        slo_lever_init(l);
        *ret_state = l;
        return 0;
}

static void alloc_free(void *state) {
        if (!state)
                return;
        slo_lever_done(state);
        free(state);
}

static int lever(void *state, PolicyContext *ctx, int r) {
        if (r < 0 || !ctx->core->slo.slo_lever)
                return r;
        return slo_lever_step(state, ctx);
}

static int none_allocate(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        return lever(state, ctx, 0);
}

static int static_allocate(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        return lever(state, ctx, allocate_by(ctx, settings, static_want, NULL, NULL));
}

static int demand_allocate(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        return lever(state, ctx, allocate_by(ctx, settings, demand_want, NULL, NULL));
}

/* A running map's CPU work as far as its rate so far tells: the CPU it used
 * over its progress, and what of that is left. 0 before it progressed. */
static void map_cpu_work(const PolicyContext *ctx, const Attempt *a, double *ret_total,
                         double *ret_left) {
        double used = a->cpu * context_attempt_age(ctx, (uint32_t)(a - ctx->snap->attempts));

        *ret_total = *ret_left = 0;
        if (a->progress <= 0 || used <= 0)
                return;
        *ret_total = used / a->progress;
        *ret_left = *ret_total - used;
}

/* Each job's map phase can end no sooner than its maps' CPU work left (the
 * running ones' and, at their mean, the waiting ones') over all the pCPUs:
 * its horizon in seconds. */
static int map_horizons(const PolicyContext *ctx, double *horizon) {
        const ClusterSnapshot *s = ctx->snap;
        double *total = context_scratch(ctx, s->n_jobs, sizeof(double));
        unsigned *n = context_scratch(ctx, s->n_jobs, sizeof(unsigned));
        double pcpus = 0;

        if (!total || !n)
                return -ENOMEM;
        for (size_t h = 0; h < s->n_hosts; h++)
                pcpus += s->hosts[h].pcpus;
        for (size_t i = 0; i < s->n_attempts; i++) {
                const Attempt *a = &s->attempts[i];
                uint32_t job = s->tasks[a->task].job;
                double work, left;

                if (s->tasks[a->task].type != TASK_MAP || a->speculative)
                        continue;
                map_cpu_work(ctx, a, &work, &left);
                if (work <= 0)
                        continue;
                horizon[job] += left;
                total[job] += work;
                n[job]++;
        }
        for (size_t j = 0; j < s->n_jobs; j++) {
                const TaskCounts *maps = &s->jobs[j].counts[TASK_MAP];
                unsigned waiting = maps->total - MIN(maps->total, maps->done + maps->running);

                if (n[j] > 0)
                        horizon[j] += waiting * total[j] / n[j];
                horizon[j] = pcpus > 0 ? horizon[j] / pcpus : 0;
        }
        return 0;
}

/* The attempt bounds its job's completion: a map whose CPU work left, on
 * one pCPU, reaches past its job's horizon (the map phase ends with it
 * however the rest is shared: the makespan of tasks on m processors is at
 * least the larger of their work over m and the longest one), or a reduce
 * once every map is done (the job ends with its slowest reduce). */
static bool attempt_critical(const PolicyContext *ctx, const Attempt *a, const double *horizon) {
        const Task *t = &ctx->snap->tasks[a->task];
        const TaskCounts *maps = &ctx->snap->jobs[t->job].counts[TASK_MAP];
        double work, left;

        if (t->type != TASK_MAP)
                return maps->done >= maps->total;
        map_cpu_work(ctx, a, &work, &left);
        return left > 0 && left >= horizon[t->job];
}

/* What the flexslot allocator keeps. */
typedef struct FlexslotState {
        SloLever lever; /* first: the lever's state, as every allocator's */
        IdMap held;     /* VmHeld by Vm.id */
} FlexslotState;

static int flexslot_init(const void *settings, void **ret_state) {
        FlexslotState *st = calloc(1, sizeof(*st));

        if (!st)
                return -ENOMEM;
        slo_lever_init(&st->lever);
        idmap_init(&st->held, sizeof(VmHeld));
        *ret_state = st;
        return 0;
}

static void flexslot_free(void *state) {
        FlexslotState *st = state;

        if (!st)
                return;
        slo_lever_done(&st->lever);
        idmap_done(&st->held);
        free(st);
}

/* The stragglers are those the slot manager reported in this step. */
static int flexslot_allocate(void *state, const void *settings, PolicyContext *ctx,
                             unsigned flags) {
        FlexslotState *st = state;
        const VmAllocatorSettings *set = settings;
        const ClusterSnapshot *s = ctx->snap;
        FlexslotNeeds needs = {
                .starved = context_scratch(ctx, s->n_nodes, sizeof(unsigned)),
                .critical = context_scratch(ctx, s->n_nodes, sizeof(unsigned)),
        };
        bool *starved = context_scratch(ctx, s->n_attempts, sizeof(bool));
        double *horizon = context_scratch(ctx, s->n_jobs, sizeof(double));
        int r;

        if (!needs.starved || !needs.critical || !starved || !horizon)
                return -ENOMEM;
        for (size_t i = 0; i < ctx->d->n_stragglers; i++)
                if (ctx->d->stragglers[i].bottleneck == BOTTLENECK_CPU) {
                        starved[ctx->d->stragglers[i].attempt] = true;
                        needs.starved[s->attempts[ctx->d->stragglers[i].attempt].node]++;
                }
        if (!set->critical_first)
                return lever(&st->lever, ctx,
                             allocate_by(ctx, set, flexslot_want, &needs, &st->held));
        r = map_horizons(ctx, horizon);
        if (r < 0)
                return r;
        for (size_t i = 0; i < s->n_attempts; i++)
                if (!ctx->killed[i] &&
                    (starved[i] || attempt_critical(ctx, &s->attempts[i], horizon)))
                        needs.critical[s->attempts[i].node]++;
        return lever(&st->lever, ctx, allocate_by(ctx, set, flexslot_want, &needs, &st->held));
}

/* The cluster's pool: the setting, or every host's pCPUs. */
static double cluster_pool(const ClusterSnapshot *s, const VmAllocatorSettings *set) {
        double pool = 0;

        if (set->pool > 0)
                return set->pool;
        for (uint32_t h = 0; h < s->n_hosts; h++)
                pool += s->hosts[h].pcpus;
        return pool;
}

static size_t own_vms(const ClusterSnapshot *s) {
        size_t n = 0;

        for (uint32_t v = 0; v < s->n_vms; v++)
                n += !s->vms[v].other_tenant;
        return n;
}

/* A VM's part of the pool as its cap and weight; only a change is a
 * target. */
static int pool_target(PolicyContext *ctx, const VmAllocatorSettings *set, uint32_t v, double share,
                       size_t n, double pool) {
        const Vm *vm = &ctx->snap->vms[v];
        double cap = CLAMP(share, set->pool_min_cap, (double)MAX(vm->vcpus, 1u));
        unsigned weight = drs_share_weight(share, n, pool, (double)set->weight_per_vm);

        if (weight == vm->cpu_weight && cap == vm->cpu_cap)
                return 0;
        return DECISIONS_PUSH(ctx->d, vm_targets, .vm = v, .cpu_weight = weight, .vcpus = vm->vcpus,
                              .memory = vm->memory, .cpu_cap = cap);
}

static int homo_allocate(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        const VmAllocatorSettings *set = settings;
        const ClusterSnapshot *s = ctx->snap;
        double pool = cluster_pool(s, set);
        size_t n = own_vms(s);
        int r = 0;

        for (uint32_t v = 0; v < s->n_vms && r >= 0; v++)
                if (!s->vms[v].other_tenant)
                        r = pool_target(ctx, set, v,
                                        drs_equal_share(pool, n, (double)s->vms[v].vcpus), n, pool);
        return lever(state, ctx, r);
}

/* What the drs allocator keeps of a VM. */
typedef struct DrsVm {
        uint64_t id;
        DrsHistory history;
        DrsSample last; /* cumulative use at the last measurement; at 0: none */
        usec_t sampled; /* the last sample's time */
        double share;   /* its part of the pool; < 0: none yet */
        bool seen;      /* in this step's snapshot */
} DrsVm;

typedef struct DrsState {
        SloLever lever; /* first: the lever's state, as every allocator's */
        const VmAllocatorSettings *set;
        DrsVm *vms;
        size_t n, cap;
        usec_t next_divvy; /* 0: not started */
        double *demand, *size, *share;
} DrsState;

static int drs_init(const void *settings, void **ret_state) {
        DrsState *st = calloc(1, sizeof(*st));

        if (!st)
                return -ENOMEM;
        slo_lever_init(&st->lever);
        st->set = settings;
        *ret_state = st;
        return 0;
}

static void drs_free(void *state) {
        DrsState *st = state;

        if (!st)
                return;
        slo_lever_done(&st->lever);
        for (size_t i = 0; i < st->n; i++)
                drs_history_done(&st->vms[i].history);
        free(st->vms);
        free(st->demand);
        free(st->size);
        free(st->share);
        free(st);
}

/* The VM's record, a new one (no share yet) the first time. */
static int drs_vm(DrsState *st, const VmAllocatorSettings *set, uint64_t id, DrsVm **ret) {
        int r;

        for (size_t i = 0; i < st->n; i++)
                if (st->vms[i].id == id) {
                        *ret = &st->vms[i];
                        return 0;
                }
        if (st->n == st->cap) {
                size_t cap = MAX(st->cap * 2, (size_t)8);
                DrsVm *vms = reallocarray(st->vms, cap, sizeof(DrsVm));
                double *d = reallocarray(st->demand, cap, sizeof(double));
                double *z = d ? reallocarray(st->size, cap, sizeof(double)) : NULL;
                double *sh = z ? reallocarray(st->share, cap, sizeof(double)) : NULL;

                if (vms)
                        st->vms = vms;
                if (d)
                        st->demand = d;
                if (z)
                        st->size = z;
                if (!vms || !d || !z || !sh)
                        return -ENOMEM;
                st->share = sh;
                st->cap = cap;
        }
        st->vms[st->n] = (DrsVm){ .id = id, .share = -1 };
        r = drs_history_init(&st->vms[st->n].history, set->drs_window, set->drs_sample);
        if (r < 0)
                return r;
        *ret = &st->vms[st->n++];
        return 0;
}

/* Integrates a new measurement of the VM's use rate into its cumulative
 * use, and samples that every drs_sample. */
static void drs_measure(DrsVm *d, const VmAllocatorSettings *set, const Vm *vm) {
        if (!vm_measured(vm) || vm->measured_at <= d->last.at)
                return;
        if (d->last.at != 0)
                d->last.cpu += vm->cpu_use * usec_to_sec(vm->measured_at - d->last.at);
        d->last.at = vm->measured_at;
        if (d->history.taken == 0 || d->last.at >= d->sampled + set->drs_sample) {
                drs_history_add(&d->history, d->last);
                d->sampled = d->last.at;
        }
}

/* Divides the pool among the VMs of this step by their demands. */
static void drs_divide(DrsState *st, const VmAllocatorSettings *set, const ClusterSnapshot *s,
                       double pool) {
        size_t k = 0;

        for (size_t i = 0; i < st->n; i++) {
                const DrsVm *d = &st->vms[i];
                if (!d->seen)
                        continue;
                st->demand[k] = d->last.at ? drs_history_demand(&d->history, set->drs_window, false,
                                                                &d->last)
                                           : DRS_MIN_DEMAND;
                st->size[k++] = 0;
        }
        k = 0;
        for (uint32_t v = 0; v < s->n_vms; v++)
                if (!s->vms[v].other_tenant)
                        st->size[k++] = (double)s->vms[v].vcpus;
        drs_divvy((DrsDivvy)set->drs_divvy, pool, st->demand, st->size, k, st->share);
        k = 0;
        for (size_t i = 0; i < st->n; i++)
                if (st->vms[i].seen)
                        st->vms[i].share = st->share[k++];
}

static int drs_allocate(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        DrsState *st = state;
        const VmAllocatorSettings *set = settings;
        const ClusterSnapshot *s = ctx->snap;
        double pool = cluster_pool(s, set);
        size_t n = own_vms(s);
        int r = 0;

        for (size_t i = 0; i < st->n; i++)
                st->vms[i].seen = false;
        for (uint32_t v = 0; v < s->n_vms; v++) {
                DrsVm *d;

                if (s->vms[v].other_tenant)
                        continue;
                r = drs_vm(st, set, s->vms[v].id, &d);
                if (r < 0)
                        return r;
                d->seen = true;
                drs_measure(d, set, &s->vms[v]);
        }
        /* DRS's clock starts with the first job, as the simulator's
         * does with the cluster's first submission: a divvy of the idle
         * time before it would starve whichever VM happened to be idle. */
        if (st->next_divvy == 0) {
                if (s->n_jobs > 0)
                        st->next_divvy = ctx->now + set->drs_period;
        } else if (ctx->now >= st->next_divvy) {
                drs_divide(st, set, s, pool);
                st->next_divvy +=
                        set->drs_period * (1 + (ctx->now - st->next_divvy) / set->drs_period);
        }
        for (uint32_t v = 0; v < s->n_vms && r >= 0; v++) {
                DrsVm *d;

                if (s->vms[v].other_tenant)
                        continue;
                r = drs_vm(st, set, s->vms[v].id, &d);
                if (r >= 0)
                        r = pool_target(ctx, set, v,
                                        d->share >= 0
                                                ? d->share
                                                : drs_equal_share(pool, n, (double)s->vms[v].vcpus),
                                        n, pool);
        }
        return lever(&st->lever, ctx, r);
}

const VmAllocatorOps vm_allocator_none = {
        .name = "none",
        .settings = &vm_allocator_settings_schema,
        .init = alloc_init,
        .free = alloc_free,
        .allocate = none_allocate,
};

const VmAllocatorOps vm_allocator_static = {
        .name = "static",
        .settings = &vm_allocator_settings_schema,
        .init = alloc_init,
        .free = alloc_free,
        .allocate = static_allocate,
};

const VmAllocatorOps vm_allocator_demand = {
        .name = "demand",
        .settings = &vm_allocator_settings_schema,
        .init = alloc_init,
        .free = alloc_free,
        .allocate = demand_allocate,
};

const VmAllocatorOps vm_allocator_flexslot = {
        .name = "flexslot",
        .settings = &vm_allocator_settings_schema,
        .init = flexslot_init,
        .free = flexslot_free,
        .allocate = flexslot_allocate,
};

const VmAllocatorOps vm_allocator_drs = {
        .name = "drs",
        .settings = &vm_allocator_settings_schema,
        .init = drs_init,
        .free = drs_free,
        .allocate = drs_allocate,
};

const VmAllocatorOps vm_allocator_homo = {
        .name = "homo",
        .settings = &vm_allocator_settings_schema,
        .init = alloc_init,
        .free = alloc_free,
        .allocate = homo_allocate,
};

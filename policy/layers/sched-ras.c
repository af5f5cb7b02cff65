/* SPDX-License-Identifier: MIT */
/* RAS, the Resource-aware Adaptive Scheduler (Polo et al., Middleware
 * 2011): job slots, bound to a job and a task type, placed on the trackers
 * by the Placement Algorithm every control cycle (ras-place.h) under the
 * trackers' CPU, I/O and memory (Node.capacity) and the jobs' resource
 * profiles (Job.demand, Job.shuffle), and the Task Scheduler that follows
 * the placement (3.5).
 *
 * Choices where the paper is vague:
 * - The control cycle (3.2, "of the order of tens of seconds") is
 *   ras_cycle: an assignment step recomputes the placement when the last
 *   one is that old, or when a job came that it does not know (the cycle
 *   exists "to react quickly to new job submissions"). Between cycles the
 *   placement is kept by Job.id and Node.id, and every step gives it as
 *   its Placement decisions.
 * - The Job Completion Time Estimator (3.2) is ras_required_slots() of the
 *   job's unfinished maps, its goal (Job.deadline; a job without one has
 *   none) and its observed mean map length: of its own finished maps, else
 *   its stored profile's, else ras_map_length.
 * - A job's s_pend and r_pend are its unfinished tasks, running or not: the
 *   utility is 1 when every one of them holds a slot, as section 3.3 says.
 * - Reduces are placed from the job's start, whatever reduce_slowstart
 *   says, since RAS places them first so that the shuffle overlaps the
 *   maps (3.4); under a driver whose reduces read the map outputs at their
 *   start the core offers none before the job's last map, and the slot
 *   goes to another cell's task.
 * - The Task Scheduler: on a node with free slots (the heartbeating one),
 *   the job slots the placement has there and no task fills go to tasks,
 *   the job of lowest utility first, each only if the tasks running there
 *   plus the new one stay within the node's capacity, under the same
 *   demands as the placement (a shuffling reduce's I/O counts the maps of
 *   its job running now, at most ras_parallel_copies). A map whose split is on the node goes first.
 * It never kills: a node that runs more of a job than the new placement gives it gets none of that
 * job until enough end.
 * - A node's slot counts (Node.slots) bound its job slots: the job slots a
 *   tracker may create at most, which a scenario sets high enough for its
 *   resources to bind first.
 * - A job without a profile (a zero Job.demand and Job.shuffle) uses
 *   nothing in the model, so only the slot counts bound it. The simulator
 *   gives every job a demand: Table 2's from its workload's RAS columns, or
 *   else what a task of its benchmark uses alone (sim.c) and no shuffle
 *   demand. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "policy/core/context.h"
#include "policy/core/idmap.h"
#include "policy/layers/policies.h"
#include "policy/layers/ras-place.h"
#include "policy/layers/ras-utility.h"

static const ConfKey ras_keys[] = {
        SETTING_DURATION(RasSettings, ras_cycle, "10s", USEC_PER_MSEC, 24 * USEC_PER_HOUR,
                         "ras: the control cycle T, how often the placement is made afresh"),
        SETTING_INT(RasSettings, ras_rounds, "3", 1, 1000,
                    "ras: the most map rounds of the Placement Algorithm in one cycle"),
        SETTING_DURATION(RasSettings, ras_map_length, "60s", USEC_PER_MSEC, 24 * USEC_PER_HOUR,
                         "ras: a map's length for a job before any of its maps finished and "
                         "without a stored profile"),
        /* Hadoop 1's mapred.reduce.parallel.copies; RAS's Table 2 bounds a
         * shuffle's I/O by it (4.1). */
        SETTING_INT(RasSettings, ras_parallel_copies, "5", 1, 1000,
                    "ras: a shuffling reduce fetches at most this many maps' output at once "
                    "(parallelCopies), which bounds its I/O"),
};

const ConfSchema ras_settings_schema = {
        .keys = ras_keys,
        .n_keys = ELEMENTSOF(ras_keys),
        .size = sizeof(RasSettings),
};

/* A job's slots on a node in the kept placement. */
typedef struct RasCell {
        uint64_t job_id, node_id;
        uint32_t job, node; /* indices when it was made: tried first */
        unsigned slots[_TASK_TYPE_MAX];
} RasCell;

typedef struct RasState {
        RasCell *cells;
        size_t n_cells, cap_cells;
        IdMap utility; /* a double by Job.id */
        usec_t made_at;
        bool made;
} RasState;

/* One step: the jobs not finished, by snapshot index. */
typedef struct RasStep {
        PolicyContext *ctx;
        const RasSettings *set;
        RasState *st;
        uint32_t *live; /* live jobs, in submission order */
        size_t n_live;
        uint32_t *live_of;      /* per job: its position in live, NO_INDEX */
        unsigned *maps_running; /* per job, with this step's assignments */
        bool *map_phase_over;   /* per job: no map waits for a slot */
} RasStep;

static void ras_free(void *state) {
        RasState *s = state;

        if (!s)
                return;
        idmap_done(&s->utility);
        free(s->cells);
        free(s);
}

static int ras_init(const void *settings, void **ret_state) {
        RasState *s = calloc(1, sizeof(*s));

        if (!s)
                return -ENOMEM;
        idmap_init(&s->utility, sizeof(double));
        *ret_state = s;
        return 0;
}

static unsigned unfinished(const Job *j, TaskType type) {
        return j->counts[type].total - j->counts[type].done;
}

static double map_length(const Job *j, const RasSettings *set) {
        usec_t len = phase_stats_mean(&j->profile.phases[PROFILE_MAP]);

        if (len == 0 && j->stored_profile)
                len = phase_stats_mean(&j->stored_profile->phases[PROFILE_MAP]);
        if (len == 0)
                len = set->ras_map_length;
        return (double)len / USEC_PER_SEC;
}

static int step_begin(RasStep *rs) {
        const PolicyContext *ctx = rs->ctx;
        const ClusterSnapshot *s = ctx->snap;

        rs->live = context_scratch(ctx, s->n_jobs + 1, sizeof(uint32_t));
        rs->live_of = context_scratch(ctx, s->n_jobs + 1, sizeof(uint32_t));
        rs->maps_running = context_scratch(ctx, s->n_jobs + 1, sizeof(unsigned));
        rs->map_phase_over = context_scratch(ctx, s->n_jobs + 1, sizeof(bool));
        if (!rs->live || !rs->live_of || !rs->maps_running || !rs->map_phase_over)
                return -ENOMEM;
        for (size_t k = 0; k < s->n_jobs; k++) {
                uint32_t j = ctx->job_order[k];
                const Job *job = &s->jobs[j];

                rs->live_of[j] = NO_INDEX;
                if (unfinished(job, TASK_MAP) + unfinished(job, TASK_REDUCE) == 0)
                        continue;
                rs->live_of[j] = (uint32_t)rs->n_live;
                rs->live[rs->n_live++] = j;
                rs->map_phase_over[j] =
                        context_job_next_task(ctx, j, TASK_MAP, NO_INDEX, false) == NO_INDEX;
        }
        for (size_t a = 0; a < s->n_attempts; a++) {
                const Task *t = &s->tasks[s->attempts[a].task];
                if (!ctx->killed[a] && !s->attempts[a].speculative && t->type == TASK_MAP)
                        rs->maps_running[t->job]++;
        }
        return 0;
}

/* The placement is due: the cycle is over, or a job came that it does not
 * know. */
static bool placement_due(const RasStep *rs) {
        const RasState *st = rs->st;

        if (!st->made || rs->ctx->now - st->made_at >= rs->set->ras_cycle)
                return true;
        for (size_t i = 0; i < rs->n_live; i++)
                if (!idmap_get(&st->utility, rs->ctx->snap->jobs[rs->live[i]].id))
                        return true;
        return false;
}

static int placement_input(const RasStep *rs, RasJob *jobs, RasTracker *trackers, RasPlacement *p) {
        const PolicyContext *ctx = rs->ctx;
        const ClusterSnapshot *s = ctx->snap;
        size_t n_nodes = s->n_nodes;
        double now = (double)ctx->now / USEC_PER_SEC;

        for (size_t i = 0; i < rs->n_live; i++) {
                const Job *job = &s->jobs[rs->live[i]];
                double goal = job->deadline ? (double)job->deadline / USEC_PER_SEC : INFINITY;
                int r;

                jobs[i] = (RasJob){
                        .map = job->demand[TASK_MAP],
                        .shuffle = job->shuffle,
                        .reduce = job->demand[TASK_REDUCE],
                        .s_pend = unfinished(job, TASK_MAP),
                        .r_pend = unfinished(job, TASK_REDUCE),
                        .reduce_phase = rs->map_phase_over[rs->live[i]],
                        .parallel_copies = (unsigned)rs->set->ras_parallel_copies,
                };
                r = ras_required_slots(jobs[i].s_pend, map_length(job, rs->set), now, goal,
                                       &jobs[i].s_req);
                if (r < 0)
                        return r;
        }
        for (size_t n = 0; n < n_nodes; n++) {
                bool up = node_schedulable(&s->nodes[n]);
                trackers[n] = (RasTracker){
                        .capacity = s->nodes[n].capacity,
                        .slots = { [SLOT_MAP] = up ? ctx->slots[SLOT_MAP][n] : 0,
                                   [SLOT_REDUCE] = up ? ctx->slots[SLOT_REDUCE][n] : 0 },
                };
        }
        for (size_t a = 0; a < s->n_attempts; a++) {
                const Attempt *at = &s->attempts[a];
                const Task *t = &s->tasks[at->task];
                uint32_t i = rs->live_of[t->job];
                if (ctx->killed[a] || at->speculative || i == NO_INDEX)
                        continue;
                (t->type == TASK_MAP ? p->map : p->reduce)[i * n_nodes + at->node]++;
        }
        return 0;
}

static int placement_keep(RasStep *rs, const RasPlacement *p, const double *utility) {
        RasState *st = rs->st;
        const ClusterSnapshot *s = rs->ctx->snap;

        st->n_cells = 0;
        for (size_t i = 0; i < rs->n_live; i++) {
                uint32_t j = rs->live[i];
                double *u;
                int r = idmap_put(&st->utility, s->jobs[j].id, (void **)&u);
                if (r < 0)
                        return r;
                *u = utility[i];
                for (size_t n = 0; n < s->n_nodes; n++) {
                        unsigned m = p->map[i * s->n_nodes + n],
                                 red = p->reduce[i * s->n_nodes + n];
                        if (m + red == 0)
                                continue;
                        if (st->n_cells == st->cap_cells) {
                                void *cells = st->cells;
                                r = decisions_grow(&cells, &st->cap_cells, sizeof(RasCell));
                                if (r < 0)
                                        return r;
                                st->cells = cells;
                        }
                        st->cells[st->n_cells++] = (RasCell){
                                .job_id = s->jobs[j].id,
                                .node_id = s->nodes[n].id,
                                .job = j,
                                .node = (uint32_t)n,
                                .slots = { [TASK_MAP] = m, [TASK_REDUCE] = red },
                        };
                }
        }
        idmap_sweep(&st->utility);
        st->made_at = rs->ctx->now;
        st->made = true;
        return 0;
}

/* The Placement Algorithm on the step's snapshot, kept in the state. */
static int placement_make(RasStep *rs) {
        const PolicyContext *ctx = rs->ctx;
        size_t n_nodes = ctx->snap->n_nodes, cells = rs->n_live * n_nodes + 1;
        RasJob *jobs = context_scratch(ctx, rs->n_live + 1, sizeof(RasJob));
        RasTracker *trackers = context_scratch(ctx, n_nodes + 1, sizeof(RasTracker));
        double *utility = context_scratch(ctx, rs->n_live + 1, sizeof(double));
        RasPlacement p = {
                .map = context_scratch(ctx, cells, sizeof(unsigned)),
                .reduce = context_scratch(ctx, cells, sizeof(unsigned)),
        };
        int r;

        if (!jobs || !trackers || !utility || !p.map || !p.reduce)
                return -ENOMEM;
        r = placement_input(rs, jobs, trackers, &p);
        if (r >= 0)
                r = ras_place(jobs, rs->n_live, trackers, n_nodes, (unsigned)rs->set->ras_rounds,
                              &p, utility);
        if (r >= 0)
                r = placement_keep(rs, &p, utility);
        return r;
}

/* A kept cell's job and node in this snapshot, by their ids: false when
 * either is gone or the job is finished. */
static bool cell_resolve(const RasStep *rs, RasCell *c) {
        const ClusterSnapshot *s = rs->ctx->snap;

        if (c->job >= s->n_jobs || s->jobs[c->job].id != c->job_id) {
                c->job = NO_INDEX;
                for (size_t j = 0; j < s->n_jobs && c->job == NO_INDEX; j++)
                        if (s->jobs[j].id == c->job_id)
                                c->job = (uint32_t)j;
        }
        if (c->node >= s->n_nodes || s->nodes[c->node].id != c->node_id) {
                c->node = NO_INDEX;
                for (size_t n = 0; n < s->n_nodes && c->node == NO_INDEX; n++)
                        if (s->nodes[n].id == c->node_id)
                                c->node = (uint32_t)n;
        }
        return c->job != NO_INDEX && c->node != NO_INDEX && rs->live_of[c->job] != NO_INDEX;
}

/* One task's demand on a node now. */
static Resources task_demand(const RasStep *rs, uint32_t job, TaskType type) {
        const Job *j = &rs->ctx->snap->jobs[job];
        Resources d = j->shuffle;

        if (type == TASK_MAP)
                return j->demand[TASK_MAP];
        if (rs->map_phase_over[job])
                return j->demand[TASK_REDUCE];
        d.io *= MIN(rs->maps_running[job], (unsigned)rs->set->ras_parallel_copies);
        return d;
}

static void use_add(Resources *use, const Resources *d) {
        use->cpu += d->cpu;
        use->io += d->io;
        use->memory += d->memory;
}

/* The Task Scheduler on node n: the placement's free job slots there,
 * lowest utility first, while the node's capacity holds. */
static int fill_node(RasStep *rs, uint32_t n) {
        PolicyContext *ctx = rs->ctx;
        const ClusterSnapshot *s = ctx->snap;
        RasState *st = rs->st;
        unsigned *here = context_scratch(ctx, 2 * (size_t)s->n_jobs + 1, sizeof(unsigned));
        Resources use = { 0 };

        if (!here)
                return -ENOMEM;
        for (size_t a = 0; a < s->n_attempts; a++) {
                const Attempt *at = &s->attempts[a];
                const Task *t = &s->tasks[at->task];
                Resources d;
                if (at->node != n || ctx->killed[a])
                        continue;
                d = task_demand(rs, t->job, t->type);
                use_add(&use, &d);
                if (!at->speculative)
                        here[2 * t->job + t->type]++;
        }
        for (;;) {
                const RasCell *best = NULL;
                TaskType best_type = TASK_MAP;
                double best_u = INFINITY;
                uint32_t task;
                int r;

                for (size_t c = 0; c < st->n_cells; c++) {
                        const RasCell *cell = &st->cells[c];
                        const double *u;
                        if (cell->node != n || cell->job == NO_INDEX)
                                continue;
                        u = idmap_get(&st->utility, cell->job_id);
                        for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++) {
                                Resources d = task_demand(rs, cell->job, type);
                                if (here[2 * cell->job + type] >= cell->slots[type] ||
                                    context_fillable_slots(ctx, n, slot_type_of(type)) == 0 ||
                                    !ras_fits(&use, &d, 1, &s->nodes[n].capacity) ||
                                    context_job_next_task(ctx, cell->job, type, NO_INDEX, false) ==
                                            NO_INDEX)
                                        continue;
                                if (!best || (u ? *u : -INFINITY) < best_u) {
                                        best = cell;
                                        best_type = type;
                                        best_u = u ? *u : -INFINITY;
                                }
                        }
                }
                if (!best)
                        return 0;
                task = context_job_next_task(ctx, best->job, best_type, n, best_type == TASK_MAP);
                if (task == NO_INDEX)
                        task = context_job_next_task(ctx, best->job, best_type, n, false);
                r = context_assign(ctx, task, n, slot_type_of(best_type), false);
                if (r < 0)
                        return r;
                here[2 * best->job + best_type]++;
                if (best_type == TASK_MAP)
                        rs->maps_running[best->job]++;
                Resources d = task_demand(rs, best->job, best_type);
                use_add(&use, &d);
        }
}

static int ras_assign(void *state, const void *settings, PolicyContext *ctx, unsigned flags) {
        RasStep rs = { .ctx = ctx, .set = settings, .st = state };
        int r = step_begin(&rs);

        if (r >= 0 && placement_due(&rs))
                r = placement_make(&rs);
        if (r < 0)
                return r;
        for (size_t c = 0; c < rs.st->n_cells; c++) {
                RasCell *cell = &rs.st->cells[c];
                if (!cell_resolve(&rs, cell)) {
                        cell->job = NO_INDEX;
                        continue;
                }
                for (TaskType type = TASK_MAP; r >= 0 && type < _TASK_TYPE_MAX; type++)
                        if (cell->slots[type] > 0)
                                r = DECISIONS_PUSH(ctx->d, placements, .node = cell->node,
                                                   .slot = slot_type_of(type), .job = cell->job,
                                                   .type = type, .count = cell->slots[type]);
                if (r < 0)
                        return r;
        }
        for (uint32_t n = 0; n < ctx->snap->n_nodes; n++) {
                if (context_fillable_slots(ctx, n, SLOT_MAP) +
                            context_fillable_slots(ctx, n, SLOT_REDUCE) ==
                    0)
                        continue;
                r = fill_node(&rs, n);
                if (r < 0)
                        return r;
        }
        return 0;
}

const JobSchedulerOps job_scheduler_ras = {
        .name = "ras",
        .settings = &ras_settings_schema,
        .init = ras_init,
        .free = ras_free,
        .assign = ras_assign,
};

/* SPDX-License-Identifier: MIT */
/* The job schedulers' decision rate through policy_step(): every scheduler
 * on one large snapshot (1,000 jobs, 10,000 trackers, every slot free),
 * assignments per second and the ratio to fifo's in the same run; and the
 * case ARIA's section 6 times, 500 jobs with deadlines on 66 nodes, which
 * its scheduler decides "in under 1 s". Each step starts from the same
 * snapshot; the schedulers' own memory carries from step to step, as it
 * does in a run. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "policy/core/policy.h"
#include "policy/layers/policies.h"

#define SPLIT (64ULL << 20)

typedef struct Snap {
        Host host;
        Vm *vms;
        Node *nodes;
        Job *jobs;
        Task *tasks;
        JobProfile profile;
        ClusterSnapshot s;
} Snap;

static void snap_free(Snap *b) {
        free(b->vms);
        free(b->nodes);
        free(b->jobs);
        free(b->tasks);
}

/* nodes trackers of 2 map and 2 reduce slots; jobs of maps maps and
 * reduces reduces each, every other one (all when all_deadlines) with a
 * deadline and a stored profile of 20 s maps and 30 s reduces. */
static int snap_new(size_t nodes, size_t jobs, unsigned maps, unsigned reduces, bool all_deadlines,
                    Snap *ret) {
        size_t per_job = maps + reduces, t = 0;
        Snap b = { .host = { .id = 1, .pcpus = 64, .memory = 1ULL << 40 } };

        b.vms = calloc(nodes, sizeof(*b.vms));
        b.nodes = calloc(nodes, sizeof(*b.nodes));
        b.jobs = calloc(jobs, sizeof(*b.jobs));
        b.tasks = calloc(jobs * per_job, sizeof(*b.tasks));
        if (!b.vms || !b.nodes || !b.jobs || !b.tasks) {
                snap_free(&b);
                return -ENOMEM;
        }
        for (uint32_t i = 0; i < nodes; i++) {
                b.vms[i] = (Vm){ .id = 1 + i,
                                 .vcpus = 4,
                                 .vcpus_max = 4,
                                 .memory = 8ULL << 30,
                                 .memory_max = 8ULL << 30,
                                 .cpu_weight = 1024 };
                b.nodes[i] = (Node){
                        .id = 1 + i, .vm = i, .slots = { 2, 2 }, .slot_memory = 200ULL << 20
                };
        }
        for (unsigned i = 0; i < 5; i++) {
                phase_stats_add(&b.profile.phases[PROFILE_MAP], 20 * USEC_PER_SEC);
                phase_stats_add(&b.profile.phases[PROFILE_TYPICAL_SHUFFLE], 10 * USEC_PER_SEC);
                phase_stats_add(&b.profile.phases[PROFILE_REDUCE], 30 * USEC_PER_SEC);
        }
        for (uint32_t j = 0; j < jobs; j++) {
                bool deadline = all_deadlines || j % 2 == 0;

                b.jobs[j] = (Job){
                        .id = 1 + j,
                        .submitted = (usec_t)j * USEC_PER_SEC,
                        .deadline = deadline ? (usec_t)(j + 600) * USEC_PER_SEC : 0,
                        .pool = j % 8,
                        .input_size = maps * SPLIT,
                        .counts = { [TASK_MAP] = { .total = maps },
                                    [TASK_REDUCE] = { .total = reduces } },
                        .stored_profile = deadline ? &b.profile : NULL,
                };
                for (unsigned i = 0; i < per_job; i++, t++) {
                        b.tasks[t] = (Task){ .id = 1 + t,
                                             .job = j,
                                             .type = i < maps ? TASK_MAP : TASK_REDUCE,
                                             .state = TASK_PENDING,
                                             .input_size = SPLIT };
                        if (i < maps) {
                                b.tasks[t].locations[0] = (uint32_t)((t * 7919) % nodes);
                                b.tasks[t].n_locations = 1;
                        }
                }
        }
        b.s = (ClusterSnapshot){ .hosts = &b.host,
                                 .n_hosts = 1,
                                 .vms = b.vms,
                                 .n_vms = nodes,
                                 .nodes = b.nodes,
                                 .n_nodes = nodes,
                                 .jobs = b.jobs,
                                 .n_jobs = jobs,
                                 .tasks = b.tasks,
                                 .n_tasks = t };
        *ret = b;
        return 0;
}

typedef struct Rate {
        double step_s;          /* wall seconds per step */
        double decisions_per_s; /* assignments per second */
        size_t assignments;     /* of one step */
} Rate;

/* steps ASSIGN steps of scheduler on s, the first untimed. */
static int measure(const Snap *b, const char *scheduler, unsigned steps, Rate *ret) {
        _cleanup_(policy_freep) Policy *p = NULL;
        PolicyConfig cfg;
        Decisions d = { 0 };
        usec_t start, spent = 0;
        size_t decided = 0;
        int r = policy_config_init(&cfg);

        if (r < 0)
                return r;
        cfg.scheduler = scheduler;
        r = policy_new_named(&cfg, NULL, &p);
        policy_config_done(&cfg);
        for (unsigned i = 0; r >= 0 && i <= steps; i++) {
                PolicyStepArgs args = { .now = 1000 * USEC_PER_SEC, .flags = POLICY_STEP_ASSIGN };

                start = now_monotonic_usec();
                r = policy_step(p, &b->s, &args, &d);
                if (i == 0)
                        continue;
                spent += now_monotonic_usec() - start;
                decided += d.n_assignments;
        }
        if (r >= 0)
                *ret = (Rate){ usec_to_sec(spent) / steps, decided / usec_to_sec(spent),
                               decided / steps };
        decisions_done(&d);
        return r;
}

int main(void) {
        Rate rates[8], aria;
        size_t n = 0;
        Snap big, paper;
        int r;

        r = snap_new(10000, 1000, 20, 5, false, &big);
        if (r < 0)
                return EXIT_FAILURE;
        printf("Job schedulers on 1,000 jobs (20 maps, 5 reduces each; half with deadlines) and "
               "10,000 trackers (2+2 slots), one policy_step() each:\n");
        for (const JobSchedulerOps *const *ops = job_scheduler_table; *ops && n < 8; ops++, n++) {
                r = measure(&big, (*ops)->name, 5, &rates[n]);
                if (r < 0) {
                        fprintf(stderr, "%s: %s\n", (*ops)->name, strerror(-r));
                        snap_free(&big);
                        return EXIT_FAILURE;
                }
                printf("  %-9s %8.1f ms/step %7zu assignments %12.0f decisions/s  %5.2fx fifo\n",
                       (*ops)->name, 1e3 * rates[n].step_s, rates[n].assignments,
                       rates[n].decisions_per_s,
                       rates[n].decisions_per_s / rates[0].decisions_per_s);
        }
        snap_free(&big);

        r = snap_new(66, 500, 20, 5, true, &paper);
        if (r >= 0)
                r = measure(&paper, "aria", 20, &aria);
        snap_free(&paper);
        if (r < 0)
                return EXIT_FAILURE;
        printf("ARIA section 6's case, 500 jobs with deadlines on 66 nodes: %.2f ms per step "
               "(%zu assignments; paper: under 1 s), %.0fx under the paper's second\n",
               1e3 * aria.step_s, aria.assignments, 1 / aria.step_s);
        return EXIT_SUCCESS;
}

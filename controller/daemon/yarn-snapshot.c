/* SPDX-License-Identifier: MIT */
/* The policy step's snapshot of the YARN model: the live model's nodes with
 * their agents' hosts and VMs (cluster_snapshot_nodes()), the capacity the
 * ResourceManager gives each, and every running MapReduce job's tasks and
 * running attempts as its application master last answered; built anew at
 * every step, as a round brings new answers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "yarn-internal.h"

void yarn_snapshot_done(YarnSnapshot *s) {
        free(s->hosts);
        free(s->vms);
        free(s->nodes);
        free(s->jobs);
        free(s->tasks);
        free(s->attempts);
        free(s->job_of);
        free(s->task_of);
        free(s->attempt_of);
        *s = (YarnSnapshot){ 0 };
}

static bool task_done(const YarnTask *t) {
        return t->state == YARN_TASK_SUCCEEDED || t->state == YARN_TASK_FAILED ||
               t->state == YARN_TASK_KILLED;
}

static bool attempt_running(const YarnAttempt *a) {
        return a->state == YARN_ATTEMPT_NEW || a->state == YARN_ATTEMPT_STARTING ||
               a->state == YARN_ATTEMPT_RUNNING || a->state == YARN_ATTEMPT_COMMIT_PENDING;
}

/* The snapshot index of the alive node at web address http; NO_INDEX. */
static uint32_t node_of_attempt(const YarnModel *m, const Cluster *c, const YarnSnapshot *s,
                                const char *http) {
        for (size_t i = 0; http && i < m->n_nodes; i++) {
                const YarnModelNode *mn = &m->nodes[i];

                if (!mn->http_address || strcmp(mn->http_address, http) != 0)
                        continue;
                for (uint32_t k = 0; k < c->n_nodes; k++)
                        if (c->nodes[k].id == mn->node)
                                return s->nodes[k].state == NODE_LOST ? NO_INDEX : k;
        }
        return NO_INDEX;
}

/* The attempts of one task into s; kills counts its killed attempts. */
static void snapshot_attempts(const YarnModel *m, const Cluster *c, YarnSnapshot *s,
                              const YarnModelAttempts *as, uint32_t task, size_t *n_attempts) {
        unsigned killed = 0, first = UINT32_MAX;
        size_t start = *n_attempts;

        for (size_t i = 0; i < as->n; i++) {
                unsigned number;

                killed += as->attempts[i].state == YARN_ATTEMPT_KILLED;
                if (attempt_running(&as->attempts[i]) &&
                    yarn_attempt_number(as->attempts[i].id, &number) >= 0)
                        first = MIN(first, number);
        }
        for (size_t i = 0; i < as->n; i++) {
                const YarnAttempt *a = &as->attempts[i];
                uint32_t node = node_of_attempt(m, c, s, a->node_http_address);
                uint64_t input = s->tasks[task].input_size;
                unsigned number;

                if (!attempt_running(a) || node == NO_INDEX ||
                    yarn_attempt_number(a->id, &number) < 0)
                        continue;
                s->attempt_of[*n_attempts] = a;
                s->attempts[(*n_attempts)++] = (Attempt){
                        .id = s->tasks[task].id << 8 | (number & 0xff),
                        .task = task,
                        .node = node,
                        .slot = SLOT_MAP,
                        .slot_memory = m->config.container_mb * 1024 * 1024,
                        .started = a->started,
                        .progress = a->progress,
                        .bytes_processed = (uint64_t)(a->progress * (double)input),
                        .input_size = input,
                        .steal = s->nodes[node].steal,
                        .speculative = number != first,
                        .kill_count = killed,
                };
        }
        for (size_t i = start; i < *n_attempts; i++)
                s->attempts[i].kill_count = killed;
}

/* Job j's tasks that are not done into s (the done ones counted), its map
 * profile from its finished maps. */
static void snapshot_job(const YarnModel *m, const Cluster *c, YarnSnapshot *s, uint32_t ji,
                         size_t *n_tasks, size_t *n_attempts) {
        YarnModelJob *mj = s->job_of[ji];
        const YarnJob *info = &mj->jobs[0];
        Job *job = &s->jobs[ji];

        *job = (Job){ .id = mj->id,
                      .submitted = info->started,
                      .deadline = mj->deadline,
                      .pool = mj->pool,
                      .tasks = { .first = (uint32_t)*n_tasks,
                                 .first_pending = { UINT32_MAX, UINT32_MAX } } };
        job->counts[TASK_MAP].failed = info->maps_failed;
        job->counts[TASK_MAP].killed = info->maps_killed;
        job->counts[TASK_REDUCE].failed = info->reduces_failed;
        job->counts[TASK_REDUCE].killed = info->reduces_killed;
        for (size_t i = 0; i < mj->n_tasks; i++) {
                const YarnTask *t = &mj->tasks[i];
                TaskType type = t->type == YARN_MAP ? TASK_MAP : TASK_REDUCE;
                unsigned index;

                if (t->type == _YARN_TASK_TYPE_UNKNOWN || yarn_task_index(t->id, &index) < 0 ||
                    index >= 1u << 23)
                        continue;
                job->counts[type].total++;
                if (task_done(t)) {
                        job->counts[type].done++;
                        if (type == TASK_MAP && t->state == YARN_TASK_SUCCEEDED)
                                phase_stats_add(&job->profile.phases[PROFILE_MAP], t->elapsed);
                        continue;
                }
                if (t->state != YARN_TASK_RUNNING && t->state != YARN_TASK_KILL_WAIT &&
                    job->tasks.first_pending[type] == UINT32_MAX)
                        job->tasks.first_pending[type] = (uint32_t)*n_tasks;
                s->task_of[*n_tasks] = t;
                s->tasks[*n_tasks] = (Task){
                        .id = mj->id << 24 | (uint64_t)type << 23 | index,
                        .job = ji,
                        .type = type,
                        .state = t->state == YARN_TASK_RUNNING || t->state == YARN_TASK_KILL_WAIT
                                         ? TASK_RUNNING
                                         : TASK_PENDING,
                        .input_size = type == TASK_MAP ? m->config.split_size : 0,
                };
                job->counts[type].running += s->tasks[*n_tasks].state == TASK_RUNNING;
                if (s->tasks[*n_tasks].state == TASK_RUNNING)
                        snapshot_attempts(m, c, s, &mj->attempts[i], (uint32_t)*n_tasks,
                                          n_attempts);
                (*n_tasks)++;
        }
        job->tasks.count = (uint32_t)*n_tasks - job->tasks.first;
        for (TaskType type = TASK_MAP; type < _TASK_TYPE_MAX; type++)
                if (job->tasks.first_pending[type] == UINT32_MAX)
                        job->tasks.first_pending[type] = (uint32_t)*n_tasks;
}

int yarn_snapshot_build(const YarnModel *m, const Cluster *c, YarnSnapshot *ret) {
        size_t nn = MAX(c->n_nodes, (size_t)1), nv = MAX(cluster_snapshot_vms(c), (size_t)1);
        size_t n_jobs = 0, n_tasks = 0, n_attempts = 0;
        size_t cap_tasks = 1, cap_attempts = 1;
        YarnSnapshot s = { 0 };

        for (size_t j = 0; j < m->n_jobs; j++) {
                if (m->jobs[j].n_jobs == 0)
                        continue;
                n_jobs++;
                cap_tasks += m->jobs[j].n_tasks;
                for (size_t t = 0; t < m->jobs[j].n_tasks; t++)
                        cap_attempts += m->jobs[j].attempts[t].n;
        }
        s.hosts = calloc(nv, sizeof(*s.hosts));
        s.vms = calloc(nv, sizeof(*s.vms));
        s.nodes = calloc(nn, sizeof(*s.nodes));
        s.jobs = calloc(MAX(n_jobs, (size_t)1), sizeof(*s.jobs));
        s.job_of = calloc(MAX(n_jobs, (size_t)1), sizeof(YarnModelJob *));
        s.tasks = calloc(cap_tasks, sizeof(*s.tasks));
        s.task_of = calloc(cap_tasks, sizeof(const YarnTask *));
        s.attempts = calloc(cap_attempts, sizeof(*s.attempts));
        s.attempt_of = calloc(cap_attempts, sizeof(const YarnAttempt *));
        if (!s.hosts || !s.vms || !s.nodes || !s.jobs || !s.job_of || !s.tasks || !s.task_of ||
            !s.attempts || !s.attempt_of) {
                yarn_snapshot_done(&s);
                return -ENOMEM;
        }
        cluster_snapshot_nodes(c, s.hosts, &s.s.n_hosts, s.vms, s.nodes);
        for (size_t i = 0; i < c->n_nodes; i++) {
                const YarnModelNode *mn = yarn_model_node_by_node(m, c->nodes[i].id);

                if (mn)
                        s.nodes[i].capacity =
                                (Resources){ .cpu = mn->vcores, .memory = mn->memory_mb << 20 };
        }
        n_jobs = 0;
        for (size_t j = 0; j < m->n_jobs; j++)
                if (m->jobs[j].n_jobs > 0)
                        s.job_of[n_jobs++] = &m->jobs[j];
        for (uint32_t j = 0; j < n_jobs; j++)
                snapshot_job(m, c, &s, j, &n_tasks, &n_attempts);
        s.s = (ClusterSnapshot){ .hosts = s.hosts,
                                 .n_hosts = s.s.n_hosts,
                                 .vms = s.vms,
                                 .n_vms = cluster_snapshot_vms(c),
                                 .nodes = s.nodes,
                                 .n_nodes = c->n_nodes,
                                 .jobs = s.jobs,
                                 .n_jobs = n_jobs,
                                 .tasks = s.tasks,
                                 .n_tasks = n_tasks,
                                 .attempts = s.attempts,
                                 .n_attempts = n_attempts,
                                 .job_tasks_kept = true };
        *ret = s;
        return 0;
}

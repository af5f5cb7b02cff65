/* SPDX-License-Identifier: MIT */
/* The YARN driver's model: answers in, a snapshot and actions out
 * (yarn-model.h says how YARN maps onto Hadoop 1's model). */
#include "controller/daemon/yarn-model.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/parse.h"
#include "yarn-config.h"

/* The tag of an application with a deadline, SECONDS after its start. */
#define DEADLINE_TAG "flexslot-deadline="

static const char *const kill_reasons[_KILL_REASON_MAX] = {
        [KILL_RESIZE] = "resize",
        [KILL_REPLACE] = "replace",
        [KILL_RETRY] = "retry",
};

static void id_set_done(YarnIdSet *set) {
        for (size_t i = 0; i < set->n; i++)
                free(set->ids[i]);
        free(set->ids);
        *set = (YarnIdSet){ 0 };
}

static bool id_set_has(const YarnIdSet *set, const char *id) {
        for (size_t i = 0; i < set->n; i++)
                if (strcmp(set->ids[i], id) == 0)
                        return true;
        return false;
}

/* Adds id: 1 when it is new, 0 when it was there, -ENOMEM. */
static int id_set_add(YarnIdSet *set, const char *id) {
        char **grown, *copy;

        if (id_set_has(set, id))
                return 0;
        grown = realloc(set->ids, (set->n + 1) * sizeof(*grown));
        if (!grown)
                return -ENOMEM;
        set->ids = grown;
        copy = strdup(id);
        if (!copy)
                return -ENOMEM;
        set->ids[set->n++] = copy;
        return 1;
}

static void tasks_free(YarnModelJob *j) {
        for (size_t i = 0; j->attempts && i < j->n_tasks; i++)
                yarn_attempts_free(j->attempts[i].attempts, j->attempts[i].n);
        free(j->attempts);
        yarn_tasks_free(j->tasks, j->n_tasks);
        j->attempts = NULL;
        j->tasks = NULL;
        j->n_tasks = 0;
}

static void job_done(YarnModelJob *j) {
        free(j->app);
        yarn_jobs_free(j->jobs, j->n_jobs);
        tasks_free(j);
        id_set_done(&j->killed);
        id_set_done(&j->declined);
}

static void node_done(YarnModelNode *n) {
        free(n->id);
        free(n->host);
        free(n->http_address);
}

YarnModel *yarn_model_free(YarnModel *m) {
        if (!m)
                return NULL;
        for (size_t i = 0; i < m->n_jobs; i++)
                job_done(&m->jobs[i]);
        free(m->jobs);
        for (size_t i = 0; i < m->n_nodes; i++)
                node_done(&m->nodes[i]);
        free(m->nodes);
        for (size_t i = 0; i < m->n_pools; i++)
                free(m->pools[i]);
        free(m->pools);
        free(m);
        return NULL;
}

int yarn_model_new(const YarnModelConfig *config, YarnModel **ret) {
        YarnModel *m = calloc(1, sizeof(*m));

        if (!m)
                return -ENOMEM;
        m->config = *config;
        m->next_job = 1;
        *ret = m;
        return 0;
}

unsigned yarn_model_slots(const YarnModelConfig *config, uint64_t memory_mb, unsigned vcores) {
        uint64_t slots = MIN(memory_mb / config->container_mb,
                             (uint64_t)(vcores / config->container_vcores));

        return (unsigned)MIN(slots, (uint64_t)UINT32_MAX);
}

/* What the controller may ask of a node: min-containers at least (its
 * registered capacity when that holds fewer), its registered capacity at
 * most. */
static unsigned clamp_slots(const YarnModel *m, const YarnModelNode *n, unsigned slots) {
        unsigned most = yarn_model_slots(&m->config, n->registered_mb, n->registered_vcores);

        return MIN(MAX(slots, m->config.min_containers), most);
}

static NodeState node_state(YarnNodeState s) {
        switch (s) {
        case YARN_NODE_RUNNING:
                return NODE_ALIVE;
        /* Known to the ResourceManager, and given no new containers. */
        case YARN_NODE_NEW:
        case YARN_NODE_UNHEALTHY:
        case YARN_NODE_DECOMMISSIONING:
                return NODE_BLACKLISTED;
        default:
                return NODE_LOST;
        }
}

static YarnModelNode *node_by_id(const YarnModel *m, const char *id) {
        for (size_t i = 0; i < m->n_nodes; i++)
                if (strcmp(m->nodes[i].id, id) == 0)
                        return &m->nodes[i];
        return NULL;
}

static YarnModelNode *node_by_node(const YarnModel *m, uint64_t node) {
        for (size_t i = 0; i < m->n_nodes; i++)
                if (m->nodes[i].node == node)
                        return &m->nodes[i];
        return NULL;
}

static int node_add(YarnModel *m, Cluster *c, const YarnNode *x, usec_t now_monotonic) {
        const char *vm = yarn_node_map_find(m->config.map, m->config.n_map, x->id, x->host);
        unsigned slots[_SLOT_TYPE_MAX] = { yarn_model_slots(&m->config, x->memory_mb, x->vcores) };
        YarnModelNode n = {
                .state = _YARN_NODE_STATE_UNKNOWN,
                .registered_mb = x->memory_mb,
                .registered_vcores = x->vcores,
        }, *grown;
        int r;

        n.id = strdup(x->id);
        n.host = strdup(x->host);
        grown = n.id && n.host ? realloc(m->nodes, (m->n_nodes + 1) * sizeof(*grown)) : NULL;
        if (!grown) {
                node_done(&n);
                return -ENOMEM;
        }
        m->nodes = grown;
        r = cluster_register(c, vm ? vm : x->host, x->id, slots,
                             m->config.container_mb * 1024 * 1024, now_monotonic, &n.node);
        if (r < 0) {
                node_done(&n);
                return r;
        }
        m->nodes[m->n_nodes++] = n;
        log_info("YARN node %s is node %" PRIu64 ", VM %s (%s): %" PRIu64 " MB, %u vcores, %u "
                 "containers",
                 x->id, n.node, vm ? vm : x->host, vm ? "[yarn] nodes" : "its host name",
                 x->memory_mb, x->vcores, slots[SLOT_MAP]);
        return 0;
}

/* A node's state and capacity as the ResourceManager says them; a node it
 * does not list (x NULL) keeps what it had until the grace is over. */
static int node_take(YarnModelNode *n, const YarnNode *x, usec_t now_monotonic) {
        YarnNodeState state = x ? x->state : n->state;

        if (!x) {
                if (n->missing_since == 0)
                        n->missing_since = now_monotonic;
                if (now_monotonic - n->missing_since > YARN_LISTING_GRACE)
                        state = YARN_NODE_LOST;
        } else
                n->missing_since = 0;
        if (state != n->state && n->state != _YARN_NODE_STATE_UNKNOWN)
                log_full_errno(state == YARN_NODE_RUNNING ? LOG_LEVEL_INFO : LOG_LEVEL_WARNING, 0,
                               "YARN node %s: %s%s", n->id, yarn_node_state_name(state),
                               x ? "" : " (the ResourceManager has not listed it for a while)");
        n->state = state;
        if (!x)
                return 0;
        n->memory_mb = x->memory_mb;
        n->vcores = x->vcores;
        n->containers = x->containers;
        if (x->http_address &&
            (!n->http_address || strcmp(n->http_address, x->http_address) != 0)) {
                char *copy = strdup(x->http_address);

                if (!copy)
                        return -ENOMEM;
                free(n->http_address);
                n->http_address = copy;
        }
        return 0;
}

int yarn_model_update_nodes(YarnModel *m, Cluster *c, const YarnNode *nodes, size_t n, usec_t now,
                            usec_t now_monotonic) {
        int r;

        for (size_t i = 0; i < n; i++)
                if (!node_by_id(m, nodes[i].id)) {
                        r = node_add(m, c, &nodes[i], now_monotonic);
                        if (r < 0)
                                return r;
                }
        for (size_t k = 0; k < m->n_nodes; k++) {
                YarnModelNode *mn = &m->nodes[k];
                const ClusterNode *cn = cluster_node_find(c, mn->node);
                const YarnNode *x = NULL;
                unsigned rm, slots[_SLOT_TYPE_MAX] = { 0 }, running[_SLOT_TYPE_MAX] = { 0 };

                for (size_t i = 0; !x && i < n; i++)
                        if (strcmp(nodes[i].id, mn->id) == 0)
                                x = &nodes[i];
                r = node_take(mn, x, now_monotonic);
                if (r < 0)
                        return r;
                running[SLOT_MAP] = mn->containers;
                if (cn && cn->slots_pending) {
                        unsigned asked = cn->slots[SLOT_MAP] + cn->slots[SLOT_REDUCE];

                        mn->want = clamp_slots(m, mn, asked);
                        log_info("YARN node %s: %u containers asked, %u wanted (%u..%u)", mn->id,
                                 asked, mn->want, clamp_slots(m, mn, 0),
                                 clamp_slots(m, mn, UINT32_MAX));
                }
                rm = yarn_model_slots(&m->config, mn->memory_mb, mn->vcores);
                slots[SLOT_MAP] = mn->want ? mn->want : rm;
                r = cluster_node_update(c, mn->node, node_state(mn->state), slots, running, now);
                if (r < 0)
                        return r;
        }
        return 0;
}

YarnModelJob *yarn_model_job(YarnModel *m, const char *app) {
        for (size_t i = 0; i < m->n_jobs; i++)
                if (strcmp(m->jobs[i].app, app) == 0)
                        return &m->jobs[i];
        return NULL;
}

void yarn_model_forget(YarnModel *m, YarnModelJob *j) {
        size_t i = (size_t)(j - m->jobs);

        job_done(j);
        memmove(j, j + 1, (m->n_jobs - i - 1) * sizeof(*j));
        m->n_jobs--;
}

static int pool_index(YarnModel *m, const char *queue, uint32_t *ret) {
        char **grown;

        for (size_t i = 0; i < m->n_pools; i++)
                if (strcmp(m->pools[i], queue) == 0) {
                        *ret = (uint32_t)i;
                        return 0;
                }
        grown = realloc(m->pools, (m->n_pools + 1) * sizeof(*grown));
        if (!grown)
                return -ENOMEM;
        m->pools = grown;
        m->pools[m->n_pools] = strdup(queue);
        if (!m->pools[m->n_pools])
                return -ENOMEM;
        *ret = (uint32_t)m->n_pools++;
        return 0;
}

/* flexslot-deadline=SECONDS among the tags: the deadline, 0 for none. */
static usec_t app_deadline(const YarnApp *a) {
        const char *t = a->tags ? strstr(a->tags, DEADLINE_TAG) : NULL;
        char text[24];
        uint64_t seconds;
        size_t n;

        if (!t || (t != a->tags && t[-1] != ','))
                return 0;
        t += strlen(DEADLINE_TAG);
        n = strcspn(t, ",");
        if (n == 0 || n >= sizeof(text))
                return 0;
        memcpy(text, t, n);
        text[n] = '\0';
        if (parse_uint64(text, 1, 365 * 24 * 3600, &seconds) < 0)
                return 0;
        return a->started + seconds * USEC_PER_SEC;
}

static bool app_is_ours(const YarnApp *a) {
        return a->state == YARN_APP_RUNNING && (!a->type || strcmp(a->type, "MAPREDUCE") == 0);
}

int yarn_model_update_apps(YarnModel *m, const YarnApp *apps, size_t n, usec_t now_monotonic) {
        int r;

        for (size_t i = m->n_jobs; i > 0; i--) {
                YarnModelJob *j = &m->jobs[i - 1];
                bool listed = false;

                for (size_t k = 0; !listed && k < n; k++)
                        listed = app_is_ours(&apps[k]) && strcmp(apps[k].id, j->app) == 0;
                if (listed) {
                        j->missing_since = 0;
                        continue;
                }
                if (j->missing_since == 0) {
                        j->missing_since = now_monotonic;
                        log_info("YARN application %s is not listed as running: its job stays "
                                 "until its master says it ended, %s at most",
                                 j->app, FORMAT_DURATION(YARN_LISTING_GRACE));
                } else if (now_monotonic - j->missing_since > YARN_LISTING_GRACE) {
                        log_info("YARN application %s runs no more", j->app);
                        yarn_model_forget(m, j);
                }
        }
        for (size_t k = 0; k < n; k++) {
                YarnModelJob j = { .id = m->next_job }, *grown;

                if (!app_is_ours(&apps[k]) || yarn_model_job(m, apps[k].id))
                        continue;
                r = pool_index(m, apps[k].queue, &j.pool);
                if (r < 0)
                        return r;
                j.app = strdup(apps[k].id);
                grown = j.app ? realloc(m->jobs, (m->n_jobs + 1) * sizeof(*grown)) : NULL;
                if (!grown) {
                        free(j.app);
                        return -ENOMEM;
                }
                m->jobs = grown;
                j.deadline = app_deadline(&apps[k]);
                m->jobs[m->n_jobs++] = j;
                m->next_job++;
                log_info("YARN application %s '%s' of %s in %s: job %" PRIu64 "%s%s", j.app,
                         apps[k].name, apps[k].user, apps[k].queue, j.id,
                         j.deadline ? ", deadline in " : "",
                         j.deadline ? FORMAT_DURATION(j.deadline - apps[k].started) : "");
        }
        return 0;
}

int yarn_model_take_jobs(YarnModel *m, YarnModelJob *j, YarnJob *jobs, size_t n) {
        yarn_jobs_free(j->jobs, j->n_jobs);
        j->jobs = jobs;
        j->n_jobs = n;
        return 0;
}

static YarnModelAttempts *attempts_of(YarnModelJob *j, const char *task) {
        for (size_t i = 0; i < j->n_tasks; i++)
                if (strcmp(j->tasks[i].id, task) == 0)
                        return &j->attempts[i];
        return NULL;
}

int yarn_model_take_tasks(YarnModel *m, YarnModelJob *j, YarnTask *tasks, size_t n) {
        YarnModelAttempts *attempts = calloc(MAX(n, (size_t)1), sizeof(*attempts));

        if (!attempts) {
                yarn_tasks_free(tasks, n);
                return -ENOMEM;
        }
        /* A running task's attempts stand until its next attempts answer. */
        for (size_t i = 0; i < n; i++) {
                YarnModelAttempts *old =
                        tasks[i].state == YARN_TASK_RUNNING ? attempts_of(j, tasks[i].id) : NULL;

                if (old) {
                        attempts[i] = *old;
                        *old = (YarnModelAttempts){ 0 };
                }
        }
        tasks_free(j);
        j->tasks = tasks;
        j->attempts = attempts;
        j->n_tasks = n;
        return 0;
}

void yarn_model_take_attempts(YarnModelJob *j, const char *task, YarnAttempt *attempts, size_t n) {
        YarnModelAttempts *a = attempts_of(j, task);

        if (!a) {
                yarn_attempts_free(attempts, n);
                return;
        }
        yarn_attempts_free(a->attempts, a->n);
        *a = (YarnModelAttempts){ attempts, n };
}

/* ---- the snapshot ---- */

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
        size_t nn = MAX(c->n_nodes, (size_t)1), n_jobs = 0, n_tasks = 0, n_attempts = 0;
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
        s.hosts = calloc(nn, sizeof(*s.hosts));
        s.vms = calloc(nn, sizeof(*s.vms));
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
                const YarnModelNode *mn = node_by_node(m, c->nodes[i].id);

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
                                 .n_vms = c->n_nodes,
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

/* ---- decisions ---- */

size_t yarn_actions_max(const YarnModel *m, const Decisions *d) {
        return d->n_kills + m->n_nodes;
}

static void note_oom(int r) {
        if (r == -ENOMEM)
                log_oom();
}

static size_t kill_actions(YarnModel *m, const YarnSnapshot *s, const Decisions *d,
                           YarnAction *ret) {
        size_t n = 0;

        for (size_t i = 0; i < d->n_kills; i++) {
                const Kill *k = &d->kills[i];
                const Attempt *sa = &s->attempts[k->attempt];
                YarnModelJob *j = s->job_of[s->tasks[sa->task].job];
                const YarnAttempt *a = s->attempt_of[k->attempt];
                const YarnTask *t = s->task_of[sa->task];
                int r;

                if (k->reason == KILL_RESIZE) {
                        r = id_set_add(&j->declined, a->id);
                        if (r > 0)
                                log_notice("Not done: FlexSlot would restart straggler %s with "
                                           "%s of memory; a MapReduce attempt's container is "
                                           "its job's size (mapreduce.map.memory.mb), which "
                                           "cannot be set for one attempt from outside",
                                           a->id, FORMAT_SIZE(k->slot_memory));
                        note_oom(r);
                        continue;
                }
                if (id_set_has(&j->killed, a->id))
                        continue;
                if (!j->fresh) {
                        log_info("Not now: kill of %s (%s): its application master did not "
                                 "answer this round",
                                 a->id, kill_reasons[k->reason]);
                        continue;
                }
                r = id_set_add(&j->killed, a->id);
                if (r < 0) {
                        note_oom(r);
                        continue;
                }
                log_info("Kill: attempt %s of job %" PRIu64 " on YARN node %s (%s), through its "
                         "application master",
                         a->id, j->id, a->node_http_address, kill_reasons[k->reason]);
                ret[n++] = (YarnAction){ .kind = YARN_ACTION_KILL,
                                         .app = j->app,
                                         .job = j->jobs[0].id,
                                         .task = t->id,
                                         .attempt = a->id,
                                         .reason = kill_reasons[k->reason] };
        }
        return n;
}

static void slot_changes(YarnModel *m, Cluster *c, const Decisions *d, usec_t now) {
        for (size_t i = 0; i < d->n_slot_changes; i++) {
                const SlotChange *sc = &d->slot_changes[i];
                const ClusterNode *cn = &c->nodes[sc->node];
                YarnModelNode *mn = node_by_node(m, cn->id);
                unsigned want, slots[_SLOT_TYPE_MAX] = { 0 };

                if (!mn)
                        continue;
                want = clamp_slots(m, mn, sc->slots[SLOT_MAP] + sc->slots[SLOT_REDUCE]);
                if (want == cn->slots[SLOT_MAP] + cn->slots[SLOT_REDUCE])
                        continue;
                log_info("Slots: YARN node %s %u -> %u containers (asked %u map, %u reduce)",
                         mn->id, cn->slots[SLOT_MAP] + cn->slots[SLOT_REDUCE], want,
                         sc->slots[SLOT_MAP], sc->slots[SLOT_REDUCE]);
                mn->want = want;
                slots[SLOT_MAP] = want;
                (void)cluster_node_update(c, mn->node, cn->state, slots, cn->running, now);
        }
}

/* Capacity requests for the nodes the ResourceManager shows at other than
 * wanted; a node back at its registered capacity wants nothing more. */
static size_t capacity_actions(YarnModel *m, YarnAction *ret) {
        size_t n = 0;

        for (size_t i = 0; i < m->n_nodes; i++) {
                YarnModelNode *mn = &m->nodes[i];
                unsigned most =
                        yarn_model_slots(&m->config, mn->registered_mb, mn->registered_vcores);
                bool full = mn->want >= most;

                if (!mn->want || mn->asking || mn->state != YARN_NODE_RUNNING)
                        continue;
                if (full && mn->memory_mb == mn->registered_mb &&
                    mn->vcores == mn->registered_vcores) {
                        mn->want = 0;
                        continue;
                }
                if (!full && yarn_model_slots(&m->config, mn->memory_mb, mn->vcores) == mn->want)
                        continue;
                mn->asking = true;
                ret[n++] = (YarnAction){
                        .kind = YARN_ACTION_CAPACITY,
                        .node = mn->id,
                        .memory_mb = full ? mn->registered_mb : mn->want * m->config.container_mb,
                        .vcores = full ? mn->registered_vcores
                                       : mn->want * m->config.container_vcores,
                };
        }
        return n;
}

/* An SLO scheduler's quota, said when it changes. */
static void advise(const YarnSnapshot *s, const Decisions *d) {
        for (size_t i = 0; i < d->n_quotas; i++) {
                const SlotQuota *q = &d->quotas[i];
                YarnModelJob *j = s->job_of[q->job];
                unsigned containers = q->slots[SLOT_MAP] + q->slots[SLOT_REDUCE];

                if (containers == j->advised)
                        continue;
                j->advised = containers;
                log_info("Advice: job %" PRIu64 " (%s) needs %u map and %u reduce containers at "
                         "least to meet its deadline; YARN's reservations are not used, the "
                         "queue's share is what it gets",
                         j->id, j->app, q->slots[SLOT_MAP], q->slots[SLOT_REDUCE]);
        }
}

size_t yarn_model_actions(YarnModel *m, Cluster *c, const YarnSnapshot *s, const Decisions *d,
                          usec_t now, YarnAction *ret) {
        size_t n;

        for (size_t i = 0; i < d->n_stragglers; i++) {
                const YarnAttempt *a = s->attempt_of[d->stragglers[i].attempt];

                log_debug("Straggler: attempt %s on YARN node %s", a->id, a->node_http_address);
        }
        if (d->n_assignments + d->n_placements + d->n_reservations > 0)
                log_debug("YARN places containers itself: this step's %zu assignments, %zu job "
                          "slots and %zu reservations are not carried out",
                          d->n_assignments, d->n_placements, d->n_reservations);
        n = kill_actions(m, s, d, ret);
        slot_changes(m, c, d, now);
        n += capacity_actions(m, ret + n);
        advise(s, d);
        return n;
}

void yarn_model_capacity_done(YarnModel *m, const char *node_id) {
        YarnModelNode *mn = node_by_id(m, node_id);

        if (mn)
                mn->asking = false;
}

void yarn_model_kill_failed(YarnModel *m, const char *app, const char *attempt) {
        YarnModelJob *j = yarn_model_job(m, app);

        for (size_t i = 0; j && i < j->killed.n; i++)
                if (strcmp(j->killed.ids[i], attempt) == 0) {
                        free(j->killed.ids[i]);
                        j->killed.ids[i] = j->killed.ids[--j->killed.n];
                        return;
                }
}

/* SPDX-License-Identifier: MIT */
/* The YARN driver's model: the ResourceManager's and the application
 * masters' answers taken in (yarn-model.h says how YARN maps onto Hadoop
 * 1's model; yarn-snapshot.c and yarn-actions.c take it from there). */
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

static void id_set_done(YarnIdSet *set) {
        for (size_t i = 0; i < set->n; i++)
                free(set->ids[i]);
        free(set->ids);
        *set = (YarnIdSet){ 0 };
}

bool yarn_id_set_has(const YarnIdSet *set, const char *id) {
        for (size_t i = 0; i < set->n; i++)
                if (strcmp(set->ids[i], id) == 0)
                        return true;
        return false;
}

int yarn_id_set_add(YarnIdSet *set, const char *id) {
        char **grown, *copy;

        if (yarn_id_set_has(set, id))
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
        free(j->name);
        free(j->user);
        free(j->queue);
        yarn_jobs_free(j->jobs, j->n_jobs);
        tasks_free(j);
        id_set_done(&j->killed);
        id_set_done(&j->stragglers);
        free(j->reservation.id);
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
        store_jobs_free(m->ended, m->n_ended);
        free(m);
        return NULL;
}

int yarn_model_new(const YarnModelConfig *config, YarnModel **ret) {
        YarnModel *m = calloc(1, sizeof(*m));

        if (!m)
                return -ENOMEM;
        m->config = *config;
        m->next_job = MAX(config->first_job, (uint64_t)1);
        *ret = m;
        return 0;
}

unsigned yarn_model_slots(const YarnModelConfig *config, uint64_t memory_mb, unsigned vcores) {
        uint64_t slots = MIN(memory_mb / config->container_mb,
                             (uint64_t)(vcores / config->container_vcores));

        return (unsigned)MIN(slots, (uint64_t)UINT32_MAX);
}

unsigned yarn_model_clamp_slots(const YarnModel *m, const YarnModelNode *n, unsigned slots) {
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

YarnModelNode *yarn_model_node_by_id(const YarnModel *m, const char *id) {
        for (size_t i = 0; i < m->n_nodes; i++)
                if (strcmp(m->nodes[i].id, id) == 0)
                        return &m->nodes[i];
        return NULL;
}

YarnModelNode *yarn_model_node_by_node(const YarnModel *m, uint64_t node) {
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
                if (!yarn_model_node_by_id(m, nodes[i].id)) {
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

                        mn->want = yarn_model_clamp_slots(m, mn, asked);
                        log_info("YARN node %s: %u containers asked, %u wanted (%u..%u)", mn->id,
                                 asked, mn->want, yarn_model_clamp_slots(m, mn, 0),
                                 yarn_model_clamp_slots(m, mn, UINT32_MAX));
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

/* ---- jobs as Controller1 shows them ---- */

static int record_strings(StoreJob *r, const char *name, const char *user, const char *pool,
                          const char *app, const char *message) {
        r->name = strdup(name);
        r->user = strdup(user);
        r->pool = strdup(pool);
        r->app = strdup(app);
        r->message = message ? strdup(message) : NULL;
        if (!r->name || !r->user || !r->pool || !r->app || (message && !r->message)) {
                store_job_clear(r);
                return -ENOMEM;
        }
        return 0;
}

/* A running job: its counts as its master last gave them (none before its
 * first answer). */
static int job_record(const YarnModelJob *j, StoreJob *ret) {
        const YarnJob *info = j->n_jobs > 0 ? &j->jobs[0] : NULL;
        StoreJob r = {
                .id = j->id,
                .state = STORE_JOB_RUNNING,
                .n_maps = info ? info->maps : 0,
                .n_reduces = info ? info->reduces : 0,
                .maps_done = info ? info->maps_done : 0,
                .reduces_done = info ? info->reduces_done : 0,
                .deadline = j->deadline,
                .submitted = j->submitted,
                .started = j->submitted,
        };
        int e = record_strings(&r, j->name, j->user, j->queue, j->app, NULL);

        if (e < 0)
                return e;
        *ret = r;
        return 0;
}

static int record_copy(const StoreJob *from, StoreJob *ret) {
        StoreJob r = *from;
        int e = record_strings(&r, from->name, from->user, from->pool, from->app, from->message);

        if (e < 0)
                return e;
        r.inputs = NULL;
        r.n_inputs = 0;
        *ret = r;
        return 0;
}

/* How an application ended in Controller1's words: killed is cancelled;
 * an application that stopped being listed without a word counts as
 * failed, its message says so. */
static StoreJobState ended_state(const YarnApp *app) {
        if (!app)
                return STORE_JOB_FAILED;
        if (app->state == YARN_APP_KILLED || app->final_status == YARN_FINAL_KILLED)
                return STORE_JOB_CANCELLED;
        if (app->state == YARN_APP_FINISHED && app->final_status == YARN_FINAL_SUCCEEDED)
                return STORE_JOB_SUCCEEDED;
        return STORE_JOB_FAILED;
}

/* Job j, whose application ended, among the ended jobs (the oldest
 * forgotten beyond YARN_ENDED_JOBS_MAX). */
static int job_keep_ended(YarnModel *m, const YarnModelJob *j, const YarnApp *app, usec_t now) {
        _cleanup_free_ char *message = NULL;
        StoreJob r;
        int e;

        if (app)
                e = asprintf(&message, "YARN application %s: %s, final status %s", j->app,
                             yarn_app_state_name(app->state),
                             yarn_app_final_status_name(app->final_status));
        else
                e = asprintf(&message,
                             "YARN application %s: the ResourceManager stopped listing it, how it "
                             "ended is not known",
                             j->app);
        if (e < 0)
                return -ENOMEM;
        e = job_record(j, &r);
        if (e < 0)
                return e;
        r.state = ended_state(app);
        r.finished = app && app->finished ? app->finished : now;
        if (r.state == STORE_JOB_SUCCEEDED) {
                r.maps_done = r.n_maps;
                r.reduces_done = r.n_reduces;
        }
        r.message = TAKE_PTR(message);
        if (m->n_ended == YARN_ENDED_JOBS_MAX) {
                store_job_clear(&m->ended[0]);
                memmove(m->ended, m->ended + 1, --m->n_ended * sizeof(*m->ended));
        } else {
                StoreJob *grown = realloc(m->ended, (m->n_ended + 1) * sizeof(*grown));

                if (!grown) {
                        store_job_clear(&r);
                        return -ENOMEM;
                }
                m->ended = grown;
        }
        m->ended[m->n_ended++] = r;
        return 0;
}

static int record_compare(const void *a, const void *b) {
        uint64_t x = ((const StoreJob *)a)->id, y = ((const StoreJob *)b)->id;

        return x < y ? -1 : x > y;
}

int yarn_model_job_records(const YarnModel *m, StoreJob **ret, size_t *ret_n) {
        StoreJob *records = calloc(MAX(m->n_ended + m->n_jobs, (size_t)1), sizeof(*records));
        size_t n = 0;
        int r = records ? 0 : -ENOMEM;

        for (size_t i = 0; r >= 0 && i < m->n_ended; i++, n += r >= 0)
                r = record_copy(&m->ended[i], &records[n]);
        for (size_t i = 0; r >= 0 && i < m->n_jobs; i++, n += r >= 0)
                r = job_record(&m->jobs[i], &records[n]);
        if (r < 0) {
                store_jobs_free(records, n);
                return r;
        }
        qsort(records, n, sizeof(*records), record_compare);
        *ret = records;
        *ret_n = n;
        return 0;
}

int yarn_model_job_record(const YarnModel *m, uint64_t id, StoreJob *ret) {
        for (size_t i = 0; i < m->n_jobs; i++)
                if (m->jobs[i].id == id)
                        return job_record(&m->jobs[i], ret);
        for (size_t i = 0; i < m->n_ended; i++)
                if (m->ended[i].id == id)
                        return record_copy(&m->ended[i], ret);
        return -ENOENT;
}

void yarn_model_forget(YarnModel *m, YarnModelJob *j, const YarnApp *app, usec_t now) {
        size_t i = (size_t)(j - m->jobs);

        if (job_keep_ended(m, j, app, now) < 0)
                log_oom();
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

int yarn_model_update_apps(YarnModel *m, const YarnApp *apps, size_t n, usec_t now,
                           usec_t now_monotonic) {
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
                        yarn_model_forget(m, j, NULL, now);
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
                j.name = strdup(apps[k].name);
                j.user = strdup(apps[k].user);
                j.queue = strdup(apps[k].queue);
                grown = j.app && j.name && j.user && j.queue
                                ? realloc(m->jobs, (m->n_jobs + 1) * sizeof(*grown))
                                : NULL;
                if (!grown) {
                        job_done(&j);
                        return -ENOMEM;
                }
                j.submitted = apps[k].started;
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

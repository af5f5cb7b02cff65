/* SPDX-License-Identifier: MIT */
/* The YARN driver: every [yarn] poll-interval a round of requests asks the
 * ResourceManager for its nodes and running MapReduce applications, and
 * each application's master (through the ResourceManager's proxy) for its
 * job, tasks and the attempts of its running tasks; when the last answer is
 * in, the policy steps on the model (yarn-model.c) and what it decided goes
 * back: node capacities to the ResourceManager, attempt kills to the
 * application masters, VM targets to the agents.
 *
 * What does not answer is named in the log and changes nothing: the model
 * keeps the last answers; a round without the ResourceManager's decides
 * nothing; an application master that does not answer keeps its job's
 * last view, and no kill goes to it; one whose proxy answers 302 ran its
 * last (its application ended between two answers); a node or an
 * application the ResourceManager stops listing stays for
 * YARN_LISTING_GRACE (a restarted one lists them again as they come
 * back). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"
#include "yarn-config.h"
#include "controller/daemon/yarn-model.h"
#include "controller/yarn/yarn-http.h"
#include "daemon.h"

typedef enum CallKind {
        CALL_NODES,
        CALL_APPS,
        CALL_JOBS,
        CALL_TASKS,
        CALL_ATTEMPTS,
        CALL_APP,
        /* Not part of a round: */
        CALL_KILL,
        CALL_CAPACITY,
        CALL_RESERVATION_NEW,
        CALL_RESERVATION_SUBMIT,
        CALL_MOVE,
        CALL_QUEUE_REFRESH,
} CallKind;

typedef struct YarnDriver {
        Controller *c;
        YarnHttp *http;
        YarnModel *model;
        YarnNodeMapEntry *map;
        size_t n_map;
        char *base;      /* the ResourceManager's URL, no '/' at its end */
        char *user;      /* user.name=USER, escaped; NULL: none */
        unsigned rounds; /* how many began */
        bool in_round;   /* one is on its way */
        size_t waiting;  /* its requests not answered yet */
        bool nodes_ok, apps_ok;
        bool rm_down;       /* the last round went without the ResourceManager */
        char rm_error[288]; /* why, this round */
        /* The requests in flight, whose callbacks free them: the ones
         * yarn_http_free() drops at the stop are freed here. */
        struct Call *calls;
} YarnDriver;

typedef struct Call {
        YarnDriver *d;
        struct Call *prev, *next;
        CallKind kind;
        unsigned round;
        char *app, *what; /* its application; the task, attempt or node it is about */
} Call;

static void call_free(Call *q) {
        if (q->prev)
                q->prev->next = q->next;
        else if (q->d->calls == q)
                q->d->calls = q->next;
        if (q->next)
                q->next->prev = q->prev;
        free(q->app);
        free(q->what);
        free(q);
}

static void on_answer(const YarnHttpAnswer *a, void *userdata);

/* METHOD base + path (+ user.name), about app and what (NULL: none). */
static int call(YarnDriver *d, CallKind kind, const char *app, const char *what, const char *method,
                const char *body, const char *fmt, ...) _printf_(7, 8);
static int call(YarnDriver *d, CallKind kind, const char *app, const char *what, const char *method,
                const char *body, const char *fmt, ...) {
        _cleanup_free_ char *path = NULL, *url = NULL;
        Call *q;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&path, fmt, ap);
        va_end(ap);
        if (r < 0)
                return log_oom();
        if (asprintf(&url, "%s%s%s%s", d->base, path,
                     !d->user            ? ""
                     : strchr(path, '?') ? "&"
                                         : "?",
                     d->user ? d->user : "") < 0)
                return log_oom();
        q = calloc(1, sizeof(*q));
        if (!q)
                return log_oom();
        *q = (Call){ .d = d, .kind = kind, .round = d->rounds };
        q->app = app ? strdup(app) : NULL;
        q->what = what ? strdup(what) : NULL;
        if ((app && !q->app) || (what && !q->what)) {
                call_free(q);
                return log_oom();
        }
        r = yarn_http_request(d->http, method, url, body, on_answer, q);
        if (r < 0) {
                call_free(q);
                return log_warning_errno(r, "Cannot ask %s", url);
        }
        q->next = d->calls;
        if (d->calls)
                d->calls->prev = q;
        d->calls = q;
        if (kind < CALL_KILL)
                d->waiting++;
        return 0;
}

/* Why an answer is not the one wanted, for the log: the transport's
 * error, or the status and what the body says. */
static void answer_text(const YarnHttpAnswer *a, char *buf, size_t size) {
        char text[160];

        if (a->error) {
                snprintf(buf, size, "%s", a->error_text);
                return;
        }
        yarn_error_text(a->body, a->size, text, sizeof(text));
        snprintf(buf, size, "HTTP %ld%s%s", a->status, text[0] ? ": " : "", text);
}

static void rm_failed(YarnDriver *d, const char *what, const char *why) {
        if (!d->rm_error[0])
                snprintf(d->rm_error, sizeof(d->rm_error), "%.16s: %.255s", what, why);
}

static void on_nodes(YarnDriver *d, const YarnHttpAnswer *a) {
        YarnNode *nodes = NULL;
        size_t n = 0;
        char why[256];
        int r;

        if (a->error || a->status != 200) {
                answer_text(a, why, sizeof(why));
                rm_failed(d, "nodes", why);
                return;
        }
        r = yarn_decode_nodes(a->body, a->size, &nodes, &n, why, sizeof(why));
        if (r < 0) {
                rm_failed(d, "nodes", r == -ENOMEM ? "out of memory" : why);
                return;
        }
        r = yarn_model_update_nodes(d->model, d->c->cluster, nodes, n, now_realtime_usec(),
                                    now_monotonic_usec());
        yarn_nodes_free(nodes, n);
        if (r < 0) {
                log_warning_errno(r, "Cannot take the ResourceManager's nodes");
                rm_failed(d, "nodes", strerror(-r));
                return;
        }
        d->nodes_ok = true;
}

static void on_apps(YarnDriver *d, const YarnHttpAnswer *a) {
        YarnApp *apps = NULL;
        size_t n = 0;
        char why[256];
        int r;

        if (a->error || a->status != 200) {
                answer_text(a, why, sizeof(why));
                rm_failed(d, "applications", why);
                return;
        }
        r = yarn_decode_apps(a->body, a->size, &apps, &n, why, sizeof(why));
        if (r < 0) {
                rm_failed(d, "applications", r == -ENOMEM ? "out of memory" : why);
                return;
        }
        r = yarn_model_update_apps(d->model, apps, n, now_realtime_usec(), now_monotonic_usec());
        yarn_apps_free(apps, n);
        if (r < 0) {
                rm_failed(d, "applications", strerror(-r));
                return;
        }
        d->apps_ok = true;
        for (size_t i = 0; i < d->model->n_jobs; i++) {
                YarnModelJob *j = &d->model->jobs[i];

                j->fresh = true;
                (void)call(d, CALL_JOBS, j->app, NULL, "GET", NULL,
                           "/proxy/%s/ws/v1/mapreduce/jobs", j->app);
        }
}

/* An answer of job j's application master that is not its data: the
 * application ended (forgotten), or the master is not there (its last view
 * stands; said once a round). Returns whether a was such an answer. */
static bool am_failed(YarnDriver *d, YarnModelJob *j, const YarnHttpAnswer *a, const char *what) {
        char why[256];

        if (!a->error && a->status == 200)
                return false;
        answer_text(a, why, sizeof(why));
        /* The proxy redirects the requests of an application that has no
         * master: one that ended (to its history), or one whose master has
         * not registered (again, after a restart of the ResourceManager) to
         * the application's page. Its state tells. */
        if (!a->error && a->status == 302) {
                if (j->fresh)
                        (void)call(d, CALL_APP, j->app, NULL, "GET", NULL, "/ws/v1/cluster/apps/%s",
                                   j->app);
                j->fresh = false;
                return true;
        }
        /* 404: the proxy knows no such application, which a restarted
         * ResourceManager that has not recovered it yet says too. */
        if (j->fresh)
                log_warning("The application master of %s did not give its %s (%s): its job's "
                            "last view stands, no kill goes to it this round",
                            j->app, what, why);
        j->fresh = false;
        return true;
}

/* A decoder's refusal of an AM's answer a: named, with what it starts
 * with, and the job's last view stands. */
static void am_unreadable(YarnModelJob *j, const char *what, const YarnHttpAnswer *a, int r,
                          const char *why) {
        char text[64];

        yarn_error_text(a->body, a->size, text, sizeof(text));
        log_warning("The application master of %s sent %s that cannot be read (%s; it begins "
                    "'%s'): its job's last view stands",
                    j->app, what, r == -ENOMEM ? "out of memory" : why, text);
        j->fresh = false;
}

/* The ResourceManager's word on an application its master's proxy
 * redirected: ended, or not yet back. */
static void on_app(YarnDriver *d, YarnModelJob *j, const YarnHttpAnswer *a) {
        YarnApp *app = NULL;
        char why[256];
        int r;

        if (a->error || a->status != 200) {
                answer_text(a, why, sizeof(why));
                log_info("YARN application %s: its master does not answer and the "
                         "ResourceManager does not know it (%s); its job stays %s at most",
                         j->app, why, FORMAT_DURATION(YARN_LISTING_GRACE));
                return;
        }
        r = yarn_decode_app(a->body, a->size, &app, why, sizeof(why));
        if (r < 0) {
                log_warning("The ResourceManager sent application %s that cannot be read (%s)",
                            j->app, r == -ENOMEM ? "out of memory" : why);
                return;
        }
        if (yarn_app_ended(app->state)) {
                log_info("YARN application %s ended: %s", j->app, yarn_app_state_name(app->state));
                yarn_model_forget(d->model, j, app, now_realtime_usec());
        } else
                log_info("YARN application %s is %s, its master not back yet", j->app,
                         yarn_app_state_name(app->state));
        yarn_apps_free(app, 1);
}

static void on_jobs(YarnDriver *d, YarnModelJob *j, const YarnHttpAnswer *a) {
        YarnJob *jobs = NULL;
        size_t n = 0;
        char why[256];
        int r;

        if (am_failed(d, j, a, "jobs"))
                return;
        r = yarn_decode_jobs(a->body, a->size, &jobs, &n, why, sizeof(why));
        if (r < 0) {
                am_unreadable(j, "jobs", a, r, why);
                return;
        }
        (void)yarn_model_take_jobs(d->model, j, jobs, n);
        /* None yet: the master is still setting its job up. */
        if (n > 0)
                (void)call(d, CALL_TASKS, j->app, NULL, "GET", NULL,
                           "/proxy/%s/ws/v1/mapreduce/jobs/%s/tasks", j->app, j->jobs[0].id);
}

static void on_tasks(YarnDriver *d, YarnModelJob *j, const YarnHttpAnswer *a) {
        YarnTask *tasks = NULL;
        size_t n = 0;
        char why[256];
        int r;

        if (am_failed(d, j, a, "tasks"))
                return;
        r = yarn_decode_tasks(a->body, a->size, &tasks, &n, why, sizeof(why));
        if (r < 0) {
                am_unreadable(j, "tasks", a, r, why);
                return;
        }
        r = yarn_model_take_tasks(d->model, j, tasks, n);
        if (r < 0) {
                am_unreadable(j, "tasks", a, r, why);
                return;
        }
        for (size_t i = 0; j->n_jobs > 0 && i < j->n_tasks; i++)
                if (j->tasks[i].state == YARN_TASK_RUNNING)
                        (void)call(d, CALL_ATTEMPTS, j->app, j->tasks[i].id, "GET", NULL,
                                   "/proxy/%s/ws/v1/mapreduce/jobs/%s/tasks/%s/attempts", j->app,
                                   j->jobs[0].id, j->tasks[i].id);
}

static void on_attempts(YarnDriver *d, YarnModelJob *j, const char *task, const YarnHttpAnswer *a) {
        YarnAttempt *attempts = NULL;
        size_t n = 0;
        char why[256];
        int r;

        if (am_failed(d, j, a, "attempts"))
                return;
        r = yarn_decode_attempts(a->body, a->size, &attempts, &n, why, sizeof(why));
        if (r < 0) {
                am_unreadable(j, "attempts", a, r, why);
                return;
        }
        yarn_model_take_attempts(j, task, attempts, n);
}

static void on_kill(YarnDriver *d, const Call *q, const YarnHttpAnswer *a) {
        YarnAttemptState state;
        char why[256];

        if (!a->error && a->status == 200 &&
            yarn_decode_attempt_state(a->body, a->size, &state, why, sizeof(why)) >= 0) {
                log_info("Killed attempt %s: its application master says %s", q->what,
                         yarn_attempt_state_name(state));
                return;
        }
        answer_text(a, why, sizeof(why));
        /* Gone before the kill came: it ended, and its application or its
         * master with it. */
        if (!a->error && (a->status == 404 || a->status == 302)) {
                log_info("Attempt %s had ended before its kill (%s)", q->what, why);
                return;
        }
        log_warning("The kill of attempt %s failed (%s): asked again while it straggles", q->what,
                    why);
        yarn_model_kill_failed(d->model, q->app, q->what);
}

static void on_capacity(YarnDriver *d, const Call *q, const YarnHttpAnswer *a) {
        YarnResource res;
        char why[256];

        yarn_model_capacity_done(d->model, q->what);
        if (!a->error && a->status == 200 &&
            yarn_decode_resource(a->body, a->size, &res, why, sizeof(why)) >= 0) {
                /* It applies the change on its own time: its answer may
                 * still give the node's resource before it. */
                log_info("YARN node %s: the ResourceManager took the new capacity (its "
                         "answer, which may still be the old one: %" PRIu64 " MB, %u vcores)",
                         q->what, res.memory_mb, res.vcores);
                return;
        }
        answer_text(a, why, sizeof(why));
        log_warning("YARN node %s: the ResourceManager did not take the new capacity (%s): "
                    "asked again next round",
                    q->what, why);
}

/* A step of a reservation that did not go as asked: the job's quota is
 * advice from now on. */
static void reservation_failed(YarnDriver *d, const Call *q, const char *step,
                               const YarnHttpAnswer *a) {
        char why[256], said[288];

        answer_text(a, why, sizeof(why));
        snprintf(said, sizeof(said), "%s: %s", step, why);
        yarn_model_reservation_refused(d->model, q->app, said);
}

/* A new reservation's id: the reservation submitted under it. */
static void on_reservation_new(YarnDriver *d, YarnModelJob *j, const Call *q,
                               const YarnHttpAnswer *a) {
        _cleanup_free_ char *body = NULL;
        YarnReservationRequest req;
        char *id = NULL, why[256];
        int r;

        if (a->error || a->status != 200) {
                reservation_failed(d, q, "new-reservation", a);
                return;
        }
        r = yarn_decode_reservation_id(a->body, a->size, &id, why, sizeof(why));
        if (r < 0) {
                yarn_model_reservation_refused(d->model, q->app,
                                               r == -ENOMEM ? "out of memory" : why);
                return;
        }
        yarn_model_reservation_id(d->model, q->app, id);
        yarn_model_reservation(d->model, j, id, &req);
        r = yarn_reservation_submit_body(&req, &body);
        if (r >= 0)
                r = call(d, CALL_RESERVATION_SUBMIT, q->app, id, "POST", body,
                         "/ws/v1/cluster/reservation/submit");
        if (r < 0)
                yarn_model_reservation_refused(d->model, q->app, strerror(-r));
}

/* The reservation taken: the next round moves the application into its
 * queue, which the ResourceManager makes at its plan follower's next
 * step. */
static void on_reservation_submit(YarnDriver *d, const Call *q, const YarnHttpAnswer *a) {
        /* 202 Accepted, as Hadoop answers. */
        if (a->error || (a->status != 202 && a->status != 200)) {
                reservation_failed(d, q, "submit", a);
                return;
        }
        log_info("Reserved: %s for YARN application %s", q->what, q->app);
        yarn_model_reservation_taken(d->model, q->app);
}

/* POST a node's capacity: memory_mb and vcores. */
static int capacity_call(YarnDriver *d, CallKind kind, const char *app, const char *node,
                         uint64_t memory_mb, unsigned vcores) {
        char body[128];

        /* -1: containers running above the new capacity run to their end,
         * none is preempted. */
        snprintf(body, sizeof(body),
                 "{\"resource\":{\"memory\":%" PRIu64 ",\"vCores\":%u},\"overCommitTimeout\":-1}",
                 memory_mb, vcores);
        return call(d, kind, app, node, "POST", body, "/ws/v1/cluster/nodes/%s/resource", node);
}

/* The application in its reservation's queue, which Hadoop 3.4 made with
 * no resources: a node's capacity set again as it is has the
 * ResourceManager compute its queues' resources (yarn-model.h). */
static void on_move(YarnDriver *d, YarnModelJob *j, const Call *q, const YarnHttpAnswer *a) {
        _cleanup_free_ char *queue = NULL;
        YarnModelNode *mn;
        char why[256];

        if (a->error || a->status != 200 ||
            yarn_decode_queue(a->body, a->size, &queue, why, sizeof(why)) < 0) {
                answer_text(a, why, sizeof(why));
                yarn_model_reservation_move_failed(d->model, q->app, why);
                return;
        }
        log_info("YARN application %s runs in its reservation %s (queue %s)", q->app, q->what,
                 queue);
        yarn_model_reservation_held(d->model, q->app);
        mn = yarn_model_queue_refresh_node(d->model);
        if (!mn) {
                log_warning("No YARN node to set its capacity again now: the queue of "
                            "reservation %s gives job %" PRIu64 " no container until a node's "
                            "capacity changes",
                            q->what, j->id);
                return;
        }
        if (capacity_call(d, CALL_QUEUE_REFRESH, q->what, mn->id, mn->memory_mb, mn->vcores) < 0)
                yarn_model_capacity_done(d->model, mn->id);
}

static void on_queue_refresh(YarnDriver *d, const Call *q, const YarnHttpAnswer *a) {
        char why[256];

        yarn_model_capacity_done(d->model, q->what);
        if (!a->error && a->status == 200) {
                log_info("YARN node %s: its capacity set again as it was, for the "
                         "ResourceManager to give the queue of reservation %s its resources",
                         q->what, q->app);
                return;
        }
        answer_text(a, why, sizeof(why));
        log_warning("YARN node %s: its capacity could not be set again (%s): the queue of "
                    "reservation %s gives no container until a node's capacity changes",
                    q->what, why, q->app);
}

static void apply(YarnDriver *d, const YarnAction *x) {
        char body[YARN_ID_MAX + 16];

        switch (x->kind) {
        case YARN_ACTION_KILL:
                if (call(d, CALL_KILL, x->app, x->attempt, "PUT", "{\"state\":\"KILLED\"}",
                         "/proxy/%s/ws/v1/mapreduce/jobs/%s/tasks/%s/attempts/%s/state", x->app,
                         x->job, x->task, x->attempt) < 0)
                        yarn_model_kill_failed(d->model, x->app, x->attempt);
                break;
        case YARN_ACTION_CAPACITY:
                log_info("YARN node %s: asking the ResourceManager for %" PRIu64 " MB and %u "
                         "vcores",
                         x->node, x->memory_mb, x->vcores);
                if (capacity_call(d, CALL_CAPACITY, NULL, x->node, x->memory_mb, x->vcores) < 0)
                        yarn_model_capacity_done(d->model, x->node);
                break;
        case YARN_ACTION_RESERVE:
                if (call(d, CALL_RESERVATION_NEW, x->app, NULL, "POST", NULL,
                         "/ws/v1/cluster/reservation/new-reservation") < 0)
                        yarn_model_reservation_refused(d->model, x->app,
                                                       "new-reservation could not be asked");
                break;
        case YARN_ACTION_MOVE:
                snprintf(body, sizeof(body), "{\"queue\":\"%s\"}", x->reservation);
                if (call(d, CALL_MOVE, x->app, x->reservation, "PUT", body,
                         "/ws/v1/cluster/apps/%s/queue", x->app) < 0)
                        yarn_model_reservation_move_failed(d->model, x->app,
                                                           "the move could not be asked");
                break;
        }
}

/* The policy on the model, and its decisions carried out. */
static void step(YarnDriver *d) {
        Controller *c = d->c;
        PolicyStepArgs args = { .now = now_realtime_usec(), .flags = POLICY_STEP_ALL };
        _cleanup_free_ YarnAction *actions = NULL;
        YarnSnapshot s;
        size_t n;
        int r;

        r = yarn_snapshot_build(d->model, c->cluster, &s);
        if (r < 0) {
                log_warning_errno(r, "Cannot build the YARN cluster's snapshot");
                return;
        }
        r = policy_step(c->policy, &s.s, &args, &c->cluster->decisions);
        if (r >= 0) {
                actions = calloc(MAX(yarn_actions_max(d->model, &c->cluster->decisions), (size_t)1),
                                 sizeof(*actions));
                r = actions ? 0 : -ENOMEM;
        }
        if (r < 0) {
                log_warning_errno(r, "Policy step on the YARN cluster failed");
                yarn_snapshot_done(&s);
                return;
        }
        n = yarn_model_actions(d->model, c->cluster, &s, &c->cluster->decisions, args.now, actions);
        for (size_t i = 0; i < n; i++)
                apply(d, &actions[i]);
        yarn_snapshot_done(&s);
        agents_apply_targets(c->agents);
}

static void round_end(YarnDriver *d) {
        d->in_round = false;
        if (!d->nodes_ok || !d->apps_ok) {
                if (!d->rm_down)
                        log_warning("The ResourceManager at %s does not answer (%s): its last "
                                    "view stands, nothing is decided until it answers",
                                    d->base, d->rm_error);
                d->rm_down = true;
                return;
        }
        if (d->rm_down)
                log_info("The ResourceManager at %s answers again", d->base);
        d->rm_down = false;
        step(d);
}

static void on_answer(const YarnHttpAnswer *a, void *userdata) {
        Call *q = userdata;
        YarnDriver *d = q->d;
        YarnModelJob *j = q->app ? yarn_model_job(d->model, q->app) : NULL;

        switch (q->kind) {
        case CALL_NODES:
                on_nodes(d, a);
                break;
        case CALL_APPS:
                on_apps(d, a);
                break;
        /* An application that left the model meanwhile has no more use for
         * its master's answers. */
        case CALL_JOBS:
                if (j)
                        on_jobs(d, j, a);
                break;
        case CALL_TASKS:
                if (j)
                        on_tasks(d, j, a);
                break;
        case CALL_ATTEMPTS:
                if (j)
                        on_attempts(d, j, q->what, a);
                break;
        case CALL_APP:
                if (j)
                        on_app(d, j, a);
                break;
        case CALL_KILL:
                on_kill(d, q, a);
                break;
        case CALL_CAPACITY:
                on_capacity(d, q, a);
                break;
        /* An application that ended meanwhile has its reservation lapse at
         * its deadline. */
        case CALL_RESERVATION_NEW:
                if (j)
                        on_reservation_new(d, j, q, a);
                break;
        case CALL_RESERVATION_SUBMIT:
                if (j)
                        on_reservation_submit(d, q, a);
                break;
        case CALL_MOVE:
                if (j)
                        on_move(d, j, q, a);
                break;
        case CALL_QUEUE_REFRESH:
                on_queue_refresh(d, q, a);
                break;
        }
        if (q->kind < CALL_KILL && q->round == d->rounds && --d->waiting == 0)
                round_end(d);
        call_free(q);
}

static void yarn_control(Controller *c) {
        YarnDriver *d = c->yarn;

        if (d->in_round) {
                log_debug("YARN round %u still waits for %zu answers", d->rounds, d->waiting);
                return;
        }
        d->rounds++;
        d->in_round = true;
        d->waiting = 0;
        d->nodes_ok = d->apps_ok = false;
        d->rm_error[0] = '\0';
        (void)call(d, CALL_NODES, NULL, NULL, "GET", NULL, "/ws/v1/cluster/nodes");
        (void)call(d, CALL_APPS, NULL, NULL, "GET", NULL,
                   "/ws/v1/cluster/apps?states=RUNNING&applicationTypes=MAPREDUCE");
        if (d->waiting == 0) {
                rm_failed(d, "requests", "none could be sent");
                round_end(d);
        }
}

static void yarn_stop(Controller *c) {
        YarnDriver *d = c->yarn;

        if (!d)
                return;
        yarn_http_free(d->http);
        while (d->calls)
                call_free(d->calls);
        yarn_model_free(d->model);
        yarn_node_map_free(d->map, d->n_map);
        free(d->base);
        free(d->user);
        free(d);
        c->yarn = NULL;
}

static int yarn_start(Controller *c) {
        const ControllerConfig *cfg = &c->config;
        YarnDriver *d = calloc(1, sizeof(*d));
        YarnModelConfig mc;
        uint64_t container_mb, first_job;
        StoreError err = { 0 };
        char why[256];
        size_t len;
        int r;

        if (!d)
                return log_oom();
        c->yarn = d;
        d->c = c;
        r = yarn_node_map_parse(cfg->yarn_nodes, &d->map, &d->n_map, why, sizeof(why));
        if (r < 0)
                return log_error_errno(r, "[yarn] nodes: %s", r == -EINVAL ? why : "");
        d->base = strdup(cfg->yarn_resourcemanager);
        if (!d->base)
                return log_oom();
        len = strlen(d->base);
        while (len > 0 && d->base[len - 1] == '/')
                d->base[--len] = '\0';
        if (cfg->yarn_user) {
                _cleanup_free_ char *escaped = yarn_http_escape(cfg->yarn_user);

                if (!escaped || asprintf(&d->user, "user.name=%s", escaped) < 0)
                        return log_oom();
        }
        /* YARN counts memory in MB. */
        container_mb = MAX(cfg->yarn_container_memory >> 20, (uint64_t)1);
        r = store_job_next_id(c->store, &first_job, &err);
        if (r < 0)
                return log_error_errno(r, "Cannot read the store's next job id: %s", err.message);
        mc = (YarnModelConfig){
                .first_job = first_job,
                .container_mb = container_mb,
                .container_vcores = (unsigned)cfg->yarn_container_vcores,
                .min_containers = (unsigned)cfg->yarn_min_containers,
                .split_size = cfg->block_size,
                .reservation_queue = cfg->yarn_reservation_queue,
                .map = d->map,
                .n_map = d->n_map,
        };
        r = yarn_model_new(&mc, &d->model);
        if (r >= 0)
                r = yarn_http_new(c->event, cfg->yarn_timeout, YARN_BODY_MAX, &d->http);
        if (r < 0)
                return log_error_errno(r, "Cannot set up the YARN driver");
        if (c->cluster->n_jobs > 0)
                log_warning("%zu jobs of the store wait for [cluster] driver = trackers: YARN runs "
                            "its own",
                            c->cluster->n_jobs);
        log_info("YARN driver: ResourceManager %s every %s; slots are containers of %" PRIu64
                 " MB and %u vcores, %u at least per node; FlexSlot's moves and SetSlots change "
                 "node capacities, kills go to the application masters (a resize's bigger "
                 "container is not given); backups, job slots and slot pre-scheduling are not "
                 "done (YARN places and sizes containers); SLO quotas %s%s",
                 d->base, FORMAT_DURATION(cfg->yarn_poll_interval), mc.container_mb,
                 mc.container_vcores, mc.min_containers,
                 mc.reservation_queue ? "become reservations in queue " : "are logged as advice",
                 mc.reservation_queue ? mc.reservation_queue : "");
        return 0;
}

static int yarn_list_jobs(const Controller *c, StoreJob **ret, size_t *ret_n) {
        return yarn_model_job_records(c->yarn->model, ret, ret_n);
}

static int yarn_get_job(const Controller *c, uint64_t id, StoreJob *ret) {
        return yarn_model_job_record(c->yarn->model, id, ret);
}

static usec_t yarn_control_interval(const Controller *c) {
        return c->config.yarn_poll_interval;
}

const ControllerDriver controller_driver_yarn = {
        .name = "yarn",
        .start = yarn_start,
        .stop = yarn_stop,
        .control_interval = yarn_control_interval,
        .control = yarn_control,
        .takes_jobs = false,
        .list_jobs = yarn_list_jobs,
        .get_job = yarn_get_job,
};

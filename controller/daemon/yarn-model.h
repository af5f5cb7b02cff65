/* SPDX-License-Identifier: MIT */
#pragma once

/* The YARN driver's view of a YARN cluster, made from the answers of its
 * ResourceManager and MapReduce application masters (controller/yarn/),
 * turned into the policy core's snapshot, and the policy's decisions turned
 * into what YARN can be asked (yarn-model.c, yarn-snapshot.c and
 * yarn-actions.c, in that order, each calling only those before it). No I/O: yarn-driver.c
 * asks and applies.
 *
 * How YARN is read, beside Hadoop 1's JobTracker that the policies were
 * written for:
 *   - A NodeManager is a node of the live model (cluster.h), registered
 *     the first time the ResourceManager lists it, its VM found as
 *     [yarn] nodes maps it (by node id, then host name), else by its host
 *     name taken as the libvirt domain's name.
 *   - Its slots are the containers its capacity holds: min(memory /
 *     container-memory, vcores / container-vcores), all of them map slots,
 *     whatever runs in them: a YARN container runs a map or a reduce, which
 *     is what DynamicMR's borrowing makes of Hadoop 1's typed slots.
 *   - A running MapReduce application is a job; its tasks and their
 *     running attempts are those of its application master. A map's input
 *     is taken as split-size bytes and the bytes it has read as its
 *     progress times that: the AM's REST gives no attempt's bytes.
 *     An attempt's node is the NodeManager of its web address. The job's
 *     finished maps make its ARIA map profile.
 *
 * And what the decisions become:
 *   - a node's new slot count (FlexSlot's moves, an operator's SetSlots):
 *     its capacity, slots x container size, through the ResourceManager,
 *     between min-containers and the capacity the NodeManager had when
 *     the controller first saw it; asked again whenever the
 *     ResourceManager shows another (it forgets on a restart);
 *   - a kill (SEPB's retry, FlexSlot's re-placement and its resize,
 *     Algorithm 1): the attempt killed through its AM, which runs the task
 *     again where YARN gives it a container; a resize's bigger slot is not
 *     given, and said so: an attempt's container size is its job's, which
 *     cannot be set for one attempt from outside;
 *   - an SLO scheduler's slot quota (ARIA's minimum slots for a job's
 *     deadline): where [yarn] reservation-queue names a reservable queue, a
 *     reservation of that many containers from now to the deadline, asked
 *     once, from the job's first quota, then the job's application moved
 *     into the reservation's queue (asked again the next rounds while the
 *     ResourceManager has not made that queue yet, YARN_MOVE_TRIES at
 *     most), and the ResourceManager's queues' resources computed again
 *     (below); else, or once YARN refused, advice in the log. Hadoop 3.4
 *     makes a reservation's queue with no resources (its effective
 *     minimum and maximum 0, whatever its capacity) and computes them only
 *     when the cluster's resources change: until then an application in
 *     it, moved or submitted there with its reservation id, gets no
 *     container (a 40 s job waited for its reservation's end and took
 *     630 s). Setting a node's capacity again as it is makes that change:
 *     the driver does it once the application is in its reservation;
 *   - assignments, backups, RAS's job slots and pre-scheduling's
 *     reservations: not done, YARN places containers itself;
 *   - VM targets: through the agents, as for trackers. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "controller/daemon/cluster-snapshot.h"
#include "controller/daemon/cluster.h"
#include "controller/store/store.h"
#include "controller/yarn/yarn-json.h"

typedef struct YarnModelConfig {
        uint64_t container_mb; /* a slot's memory, in MB as YARN counts it */
        unsigned container_vcores;
        unsigned min_containers;
        uint64_t split_size; /* bytes a map's input is taken to be */
        /* The reservable queue deadline jobs' reservations go in; NULL:
         * their quotas are advice. Not owned. */
        const char *reservation_queue;
        /* The first job's id: the store's next, so that ListJobs and
         * GetJob never give a store's job and a YARN job one id. */
        uint64_t first_job;
        /* NodeManagers' VMs ([yarn] nodes; not owned). */
        const struct YarnNodeMapEntry *map;
        size_t n_map;
} YarnModelConfig;

/* How long a node or a running application may be missing from the
 * ResourceManager's lists before it counts as gone: a restarted
 * ResourceManager lists none for a while, until the NodeManagers and the
 * application masters it recovers have come back to it. */
#define YARN_LISTING_GRACE (30 * USEC_PER_SEC)

/* How many ended YARN jobs ListJobs and GetJob still show, the oldest
 * forgotten first: they live in memory only (YARN keeps their history). */
#define YARN_ENDED_JOBS_MAX 256

typedef struct YarnModelNode {
        uint64_t node; /* its id in the live model */
        char *id, *host, *http_address;
        YarnNodeState state;
        uint64_t memory_mb, registered_mb;
        unsigned vcores, registered_vcores;
        unsigned containers;
        unsigned want;        /* the slots the controller wants; 0: none */
        bool asking;          /* a capacity request is on its way */
        usec_t missing_since; /* monotonic; 0: listed */
} YarnModelNode;

/* A task's attempts, as its last attempts answer said. */
typedef struct YarnModelAttempts {
        YarnAttempt *attempts;
        size_t n;
} YarnModelAttempts;

/* A set of attempt ids, to do a thing once per attempt. */
typedef struct YarnIdSet {
        char **ids;
        size_t n;
} YarnIdSet;

/* Where a job's reservation is. */
typedef enum YarnReserveState {
        YARN_RESERVE_NONE,    /* not asked */
        YARN_RESERVE_ASKING,  /* its id or its submission on their way */
        YARN_RESERVE_TAKEN,   /* the ResourceManager took it: the application is to move */
        YARN_RESERVE_MOVING,  /* the application's move on its way */
        YARN_RESERVE_HELD,    /* the application runs in it */
        YARN_RESERVE_REFUSED, /* YARN said no, or did not answer: advice */
} YarnReserveState;

typedef struct YarnModelReservation {
        YarnReserveState state;
        char *id;            /* the ResourceManager's, once it gave one */
        unsigned containers; /* the quota asked */
        usec_t arrival;      /* realtime: when it was asked */
        unsigned moves;      /* the application's moves asked */
} YarnModelReservation;

/* How many rounds a reserved job's application is asked to move into its
 * reservation's queue, which the ResourceManager makes at its plan
 * follower's next step (a second by default) after taking it. */
#define YARN_MOVE_TRIES 5

typedef struct YarnModelJob {
        uint64_t id; /* the snapshot's, the model's own */
        char *app;   /* application id */
        char *name, *user, *queue;
        usec_t submitted; /* realtime: the application's start */
        uint32_t pool;
        usec_t deadline;      /* from its tag flexslot-deadline=SECONDS; 0: none */
        bool fresh;           /* every answer of its AM this round came */
        usec_t missing_since; /* monotonic, since the ResourceManager lists it no more; 0 */
        YarnJob *jobs;        /* the AM's jobs answer; jobs[0] is the job */
        size_t n_jobs;
        YarnTask *tasks;             /* its tasks answer */
        YarnModelAttempts *attempts; /* by task */
        size_t n_tasks;
        YarnIdSet killed;     /* attempts this controller asked its AM to kill */
        YarnIdSet stragglers; /* attempts the log named stragglers */
        unsigned advised;     /* the containers the last advice said; 0: none */
        YarnModelReservation reservation;
} YarnModelJob;

typedef struct YarnModel {
        YarnModelConfig config;
        YarnModelNode *nodes;
        size_t n_nodes;
        YarnModelJob *jobs;
        size_t n_jobs;
        uint64_t next_job;
        char **pools;
        size_t n_pools;
        /* Jobs whose applications ended, as ListJobs shows them, by id. */
        StoreJob *ended;
        size_t n_ended;
} YarnModel;

int yarn_model_new(const YarnModelConfig *config, YarnModel **ret);
YarnModel *yarn_model_free(YarnModel *m);
DEFINE_POINTER_CLEANUP_FUNC(YarnModel, yarn_model_free);

/* The slots a capacity holds. */
unsigned yarn_model_slots(const YarnModelConfig *config, uint64_t memory_mb, unsigned vcores);

/* The ResourceManager's nodes: new ones registered in c, each node's
 * state and slots into c (the controller's wanted slots where it has
 * some, taking an operator's SetSlots first); a node no longer listed for
 * YARN_LISTING_GRACE is lost. -ENOMEM. */
int yarn_model_update_nodes(YarnModel *m, Cluster *c, const YarnNode *nodes, size_t n, usec_t now,
                            usec_t now_monotonic);
/* The running MapReduce applications: a job for each new one; the job of
 * one no longer listed for YARN_LISTING_GRACE is forgotten (its master's
 * saying it ended forgets it before: yarn_model_forget()). */
int yarn_model_update_apps(YarnModel *m, const YarnApp *apps, size_t n, usec_t now,
                           usec_t now_monotonic);
YarnModelJob *yarn_model_job(YarnModel *m, const char *app);
/* An AM's answers, taken over (the arrays are the model's after a call,
 * even one that fails): its jobs (the first is the job), its job's tasks
 * (attempts of tasks still running are kept until their next answer),
 * one task's attempts (dropped when the task is not known). */
int yarn_model_take_jobs(YarnModel *m, YarnModelJob *j, YarnJob *jobs, size_t n);
int yarn_model_take_tasks(YarnModel *m, YarnModelJob *j, YarnTask *tasks, size_t n);
void yarn_model_take_attempts(YarnModelJob *j, const char *task, YarnAttempt *attempts, size_t n);
/* The job's application ended between two answers: forgotten, and kept
 * as an ended job: app is the ResourceManager's word on it (its state
 * and final status), NULL when it has none (it stopped listing it). */
void yarn_model_forget(YarnModel *m, YarnModelJob *j, const YarnApp *app, usec_t now);

/* The jobs as Controller1 shows them (ListJobs, GetJob), ended ones and
 * running ones, by id: each a StoreJob whose application is its YARN
 * application id and whose message says how it ended. -ENOMEM;
 * yarn_model_job_record() -ENOENT for an id that is no YARN job. */
int yarn_model_job_records(const YarnModel *m, StoreJob **ret, size_t *ret_n);
int yarn_model_job_record(const YarnModel *m, uint64_t id, StoreJob *ret);

/* The policy's snapshot of the model and c's nodes, and what its indices
 * stand for. */
typedef struct YarnSnapshot {
        ClusterSnapshot s;
        SnapshotArrays a;
        YarnModelJob **job_of;          /* by snapshot job */
        const YarnTask **task_of;       /* by snapshot task */
        const YarnAttempt **attempt_of; /* by snapshot attempt */
} YarnSnapshot;

int yarn_snapshot_build(const YarnModel *m, const Cluster *c, YarnSnapshot *ret);
void yarn_snapshot_done(YarnSnapshot *s);

/* What the driver is to ask YARN for one decision. */
typedef enum YarnActionKind {
        YARN_ACTION_KILL,     /* PUT the attempt's state KILLED through its AM */
        YARN_ACTION_CAPACITY, /* POST the node's resource */
        /* A new reservation, submitted (yarn_model_reservation()). */
        YARN_ACTION_RESERVE,
        /* PUT the application's queue: its reservation's. */
        YARN_ACTION_MOVE,
} YarnActionKind;

typedef struct YarnAction {
        YarnActionKind kind;
        /* KILL: the attempt's application, job, task and attempt ids;
         * CAPACITY: node is the node id; RESERVE: app; MOVE: app and its
         * reservation's id. Not owned: the model's, valid until its next
         * update. */
        const char *app, *job, *task, *attempt, *node, *reservation;
        const char *reason; /* KILL: the policy's (retry, replace) */
        uint64_t memory_mb;
        unsigned vcores;
} YarnAction;

/* Decisions d of a step on s into actions (ret, of room for
 * yarn_actions_max()), logging what is not done and the advice: kills
 * of attempts never asked before, capacities for the nodes whose slots
 * changed (decisions, SetSlots) or that the ResourceManager shows at other
 * than wanted, reservations for jobs with a first quota, moves of the
 * applications whose reservations YARN took. Marks the kills asked, the
 * capacities, reservations and moves on their way. */
size_t yarn_actions_max(const YarnModel *m, const Decisions *d);
size_t yarn_model_actions(YarnModel *m, Cluster *c, const YarnSnapshot *s, const Decisions *d,
                          usec_t now, YarnAction *ret);
/* Job j's reservation as the ResourceManager is asked for it, of id (not
 * owned, as j's strings). */
void yarn_model_reservation(const YarnModel *m, const YarnModelJob *j, const char *id,
                            YarnReservationRequest *ret);
/* The reservation of app's job: given its id (taken), taken by the
 * ResourceManager (the application to move into it), its application in it
 * (held), the move not done (why: asked again next round, YARN_MOVE_TRIES
 * at most, then refused), or refused (why, for the log); nothing for an
 * application no more in the model. */
void yarn_model_reservation_id(YarnModel *m, const char *app, char *id);
void yarn_model_reservation_taken(YarnModel *m, const char *app);
void yarn_model_reservation_held(YarnModel *m, const char *app);
void yarn_model_reservation_move_failed(YarnModel *m, const char *app, const char *why);
void yarn_model_reservation_refused(YarnModel *m, const char *app, const char *why);
/* A running node whose capacity no request is changing now, marked as
 * asked (yarn_model_capacity_done() when answered): its capacity set again
 * as the ResourceManager shows it makes the ResourceManager compute its
 * queues' resources again, a new reservation's queue's among them (see
 * the top of this file). NULL: none now. */
YarnModelNode *yarn_model_queue_refresh_node(YarnModel *m);
/* A capacity request ended (answered or not): another may go. */
void yarn_model_capacity_done(YarnModel *m, const char *node_id);
/* A kill the AM did not take (it did not answer, or failed): it may be
 * asked again. */
void yarn_model_kill_failed(YarnModel *m, const char *app, const char *attempt);

/* ---- for the YARN model's own files ---- */

bool yarn_id_set_has(const YarnIdSet *set, const char *id);
/* Adds id: 1 when it is new, 0 when it was there, -ENOMEM. */
int yarn_id_set_add(YarnIdSet *set, const char *id);

/* What the controller may ask of a node: min-containers at least (its
 * registered capacity when that holds fewer), its registered capacity at
 * most. */
unsigned yarn_model_clamp_slots(const YarnModel *m, const YarnModelNode *n, unsigned slots);

/* The node of YARN node id id, or of the live model's node; NULL. */
YarnModelNode *yarn_model_node_by_id(const YarnModel *m, const char *id);
YarnModelNode *yarn_model_node_by_node(const YarnModel *m, uint64_t node);

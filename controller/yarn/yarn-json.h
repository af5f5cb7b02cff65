/* SPDX-License-Identifier: MIT */
#pragma once

/* What YARN's REST answers say, read from their JSON: the ResourceManager's
 * (Hadoop 3, /ws/v1/cluster/...) and a MapReduce application master's
 * (/ws/v1/mapreduce/..., reached through the ResourceManager's proxy), as
 * Jersey writes them: a list is {"nodes":{"node":[...]}}, an empty one
 * {"nodes":null} or {"nodes":{}} (the ResourceManager says
 * {"apps":{}} when no application runs).
 *
 * Pure: no I/O, nothing logged. A decoder takes a whole body and either
 * fills its result or returns -EBADMSG with why saying what was wrong, by
 * its path in the answer ("nodes.node[2].id: not a string"); -ENOMEM when
 * memory runs out. Fields the controller does not read are not looked at;
 * those it reads must be there with the right type, except where a comment
 * says Hadoop may leave one out. An id (of a node, an application, a job, a
 * task, an attempt) goes into the paths of later requests, so it must be
 * 1..YARN_ID_MAX characters of letters, digits and "_.:-[]"; a state this
 * controller does not know is _UNKNOWN, not an error, so that a newer
 * Hadoop's answers still decode. Names are cut to YARN_NAME_MAX bytes.
 *
 * And the one request body that carries more than a few numbers and ids,
 * a reservation's, written with json-c so that every name in it is
 * escaped. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/time-util.h"

/* Entries one answer may hold, and the bytes of a body a decoder takes. */
#define YARN_LIST_MAX 100000
#define YARN_BODY_MAX (64u << 20)
#define YARN_ID_MAX 255
#define YARN_NAME_MAX 255

/* Hadoop's NodeState. */
typedef enum YarnNodeState {
        YARN_NODE_NEW,
        YARN_NODE_RUNNING,
        YARN_NODE_UNHEALTHY,
        YARN_NODE_DECOMMISSIONED,
        YARN_NODE_LOST,
        YARN_NODE_REBOOTED,
        YARN_NODE_DECOMMISSIONING,
        YARN_NODE_SHUTDOWN,
        _YARN_NODE_STATE_UNKNOWN,
} YarnNodeState;

/* MapReduce's TaskState. */
typedef enum YarnTaskState {
        YARN_TASK_NEW,
        YARN_TASK_SCHEDULED,
        YARN_TASK_RUNNING,
        YARN_TASK_SUCCEEDED,
        YARN_TASK_FAILED,
        YARN_TASK_KILL_WAIT,
        YARN_TASK_KILLED,
        _YARN_TASK_STATE_UNKNOWN,
} YarnTaskState;

/* MapReduce's TaskAttemptState. */
typedef enum YarnAttemptState {
        YARN_ATTEMPT_NEW,
        YARN_ATTEMPT_STARTING,
        YARN_ATTEMPT_RUNNING,
        YARN_ATTEMPT_COMMIT_PENDING,
        YARN_ATTEMPT_SUCCEEDED,
        YARN_ATTEMPT_FAILED,
        YARN_ATTEMPT_KILLED,
        _YARN_ATTEMPT_STATE_UNKNOWN,
} YarnAttemptState;

/* YARN's YarnApplicationState. */
typedef enum YarnAppState {
        YARN_APP_NEW,
        YARN_APP_NEW_SAVING,
        YARN_APP_SUBMITTED,
        YARN_APP_ACCEPTED,
        YARN_APP_RUNNING,
        YARN_APP_FINISHED,
        YARN_APP_FAILED,
        YARN_APP_KILLED,
        _YARN_APP_STATE_UNKNOWN,
} YarnAppState;

/* YARN's FinalApplicationStatus: how an application's master said it
 * ended (UNDEFINED while it runs, and when left out). */
typedef enum YarnAppFinalStatus {
        YARN_FINAL_UNDEFINED,
        YARN_FINAL_SUCCEEDED,
        YARN_FINAL_FAILED,
        YARN_FINAL_KILLED,
        YARN_FINAL_ENDED,
        _YARN_FINAL_STATUS_UNKNOWN,
} YarnAppFinalStatus;

typedef enum YarnTaskType {
        YARN_MAP,
        YARN_REDUCE,
        _YARN_TASK_TYPE_UNKNOWN,
} YarnTaskType;

/* A NodeManager as the ResourceManager sees it (/ws/v1/cluster/nodes). */
typedef struct YarnNode {
        char *id;           /* its NodeId, host:port, which a resource update names */
        char *host;         /* nodeHostName */
        char *http_address; /* nodeHTTPAddress, which attempts name their node by */
        YarnNodeState state;
        /* Its capacity now (totalResource, or used plus available before
         * Hadoop 3.3 had it) and what containers hold of it. */
        uint64_t memory_mb, used_memory_mb;
        unsigned vcores, used_vcores;
        unsigned containers;
} YarnNode;

/* An application (/ws/v1/cluster/apps). */
typedef struct YarnApp {
        char *id;
        char *user, *name, *queue, *type; /* type: applicationType, "MAPREDUCE" for ours */
        char *tags;                       /* applicationTags, comma-separated */
        YarnAppState state;
        YarnAppFinalStatus final_status;
        usec_t started, finished; /* realtime; finished 0: not yet */
} YarnApp;

/* A MapReduce job of an application master (/ws/v1/mapreduce/jobs). */
typedef struct YarnJob {
        char *id, *name, *user, *queue;
        usec_t started;
        unsigned maps, maps_done, reduces, reduces_done;
        unsigned maps_failed, maps_killed, reduces_failed, reduces_killed; /* attempts */
} YarnJob;

/* A task of a job (.../jobs/JOB/tasks). */
typedef struct YarnTask {
        char *id;
        YarnTaskType type;
        YarnTaskState state;
        double progress; /* 0..1 */
        usec_t started, finished, elapsed;
} YarnTask;

/* An attempt of a task (.../tasks/TASK/attempts). */
typedef struct YarnAttempt {
        char *id;
        YarnTaskType type;
        YarnAttemptState state;
        double progress; /* 0..1 */
        usec_t started, elapsed;
        /* The NodeManager it runs on, by web address; NULL before it has
         * a container. */
        char *node_http_address;
} YarnAttempt;

/* The capacity a resource update answers with (POST .../resource). */
typedef struct YarnResource {
        uint64_t memory_mb;
        unsigned vcores;
} YarnResource;

int yarn_decode_nodes(const char *body, size_t size, YarnNode **ret, size_t *ret_n, char *why,
                      size_t why_size);
int yarn_decode_apps(const char *body, size_t size, YarnApp **ret, size_t *ret_n, char *why,
                     size_t why_size);
/* One application (/ws/v1/cluster/apps/APP: {"app":{...}}); yarn_apps_free(ret, 1). */
int yarn_decode_app(const char *body, size_t size, YarnApp **ret, char *why, size_t why_size);
int yarn_decode_jobs(const char *body, size_t size, YarnJob **ret, size_t *ret_n, char *why,
                     size_t why_size);
int yarn_decode_tasks(const char *body, size_t size, YarnTask **ret, size_t *ret_n, char *why,
                      size_t why_size);
int yarn_decode_attempts(const char *body, size_t size, YarnAttempt **ret, size_t *ret_n, char *why,
                         size_t why_size);
int yarn_decode_resource(const char *body, size_t size, YarnResource *ret, char *why,
                         size_t why_size);
/* The state an attempt's state change answers with ({"state":"KILLED"}). */
int yarn_decode_attempt_state(const char *body, size_t size, YarnAttemptState *ret, char *why,
                              size_t why_size);
/* The id a new reservation answers with
 * ({"reservation-id":"reservation_..."}): it goes into the submission and
 * the application's move, so it is checked as every id. Free it. */
int yarn_decode_reservation_id(const char *body, size_t size, char **ret, char *why,
                               size_t why_size);
/* The queue an application's move answers with
 * ({"queue":"root.dedicated.reservation_..."}). Free it. */
int yarn_decode_queue(const char *body, size_t size, char **ret, char *why, size_t why_size);

/* A reservation of the ResourceManager's reservation system (Hadoop's
 * Reservation Definition Language): containers of memory_mb and vcores,
 * all of them at once from arrival to deadline (the whole seconds of it),
 * in the reservable queue (a plan). */
typedef struct YarnReservationRequest {
        const char *id;    /* a new reservation's id */
        const char *queue; /* the reservable queue */
        const char *name;  /* for people: what it is for */
        unsigned containers;
        uint64_t memory_mb;
        unsigned vcores;
        usec_t arrival, deadline; /* realtime */
} YarnReservationRequest;

/* The body of POST /ws/v1/cluster/reservation/submit for q, in *ret (free
 * it); -EINVAL for an id or queue that is no id, no containers, or a
 * deadline not a second after the arrival; -ENOMEM. */
int yarn_reservation_submit_body(const YarnReservationRequest *q, char **ret);

/* What an error answer says, for the log: the message of Hadoop's
 * {"RemoteException":{...}}, else the start of the body as printable
 * text; never fails. */
void yarn_error_text(const char *body, size_t size, char *buf, size_t buf_size);

void yarn_nodes_free(YarnNode *nodes, size_t n);
void yarn_apps_free(YarnApp *apps, size_t n);
void yarn_jobs_free(YarnJob *jobs, size_t n);
void yarn_tasks_free(YarnTask *tasks, size_t n);
void yarn_attempts_free(YarnAttempt *attempts, size_t n);

/* Whether s is an id decoders accept (see above). */
bool yarn_id_valid(const char *s);
const char *yarn_node_state_name(YarnNodeState s);
const char *yarn_attempt_state_name(YarnAttemptState s);
const char *yarn_app_state_name(YarnAppState s);
const char *yarn_app_final_status_name(YarnAppFinalStatus s);
/* FINISHED, FAILED or KILLED: it will not run again. */
bool yarn_app_ended(YarnAppState s);

/* A task's or an attempt's number within its job or task: 12 for
 * task_..._m_000012, 3 for attempt_..._m_000012_3; -EINVAL for an id not
 * so made. */
int yarn_task_index(const char *task_id, unsigned *ret);
int yarn_attempt_number(const char *attempt_id, unsigned *ret);

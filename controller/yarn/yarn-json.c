/* SPDX-License-Identifier: MIT */
/* YARN's REST answers read with json-c: each kind of entry is a table of the
 * fields the controller reads (kind, offset, whether Hadoop may leave it
 * out), and one decoder walks any list of them. */
#include "controller/yarn/yarn-json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "common/macro.h"
#include "common/parse.h"

/* Deeper than any answer read here (a node's resource details are 8). */
#define JSON_DEPTH 24

typedef enum FieldKind {
        FIELD_ID,      /* char *, checked as yarn_id_valid() */
        FIELD_NAME,    /* char *, any text, cut to YARN_NAME_MAX */
        FIELD_COUNT,   /* unsigned, an integer 0..UINT32_MAX */
        FIELD_MB,      /* uint64_t, an integer >= 0 */
        FIELD_MSEC,    /* usec_t from milliseconds >= 0 (a time or a duration) */
        FIELD_PERCENT, /* double 0..1 from a number 0..100 */
        FIELD_ENUM,    /* int: the index of the text in choices, else their count */
} FieldKind;

typedef struct Field {
        const char *key;
        size_t offset;
        const char *const *choices;
        FieldKind kind;
        bool optional; /* missing or null: left zero */
} Field;

typedef struct Entry {
        size_t size;
        const Field *fields;
        size_t n_fields;
        /* After the fields: what one entry needs beyond them; NULL: none. */
        int (*check)(json_object *o, void *entry, char *why, size_t why_size);
} Entry;

/* A field of type's member; what follows: .optional, .choices. */
#define FIELD_OF(type, k, how, member, ...) \
        { .key = (k), .kind = (how), .offset = offsetof(type, member), __VA_ARGS__ }

static const char *const node_states[] = {
        [YARN_NODE_NEW] = "NEW",
        [YARN_NODE_RUNNING] = "RUNNING",
        [YARN_NODE_UNHEALTHY] = "UNHEALTHY",
        [YARN_NODE_DECOMMISSIONED] = "DECOMMISSIONED",
        [YARN_NODE_LOST] = "LOST",
        [YARN_NODE_REBOOTED] = "REBOOTED",
        [YARN_NODE_DECOMMISSIONING] = "DECOMMISSIONING",
        [YARN_NODE_SHUTDOWN] = "SHUTDOWN",
        NULL,
};

static const char *const app_states[] = {
        [YARN_APP_NEW] = "NEW",
        [YARN_APP_NEW_SAVING] = "NEW_SAVING",
        [YARN_APP_SUBMITTED] = "SUBMITTED",
        [YARN_APP_ACCEPTED] = "ACCEPTED",
        [YARN_APP_RUNNING] = "RUNNING",
        [YARN_APP_FINISHED] = "FINISHED",
        [YARN_APP_FAILED] = "FAILED",
        [YARN_APP_KILLED] = "KILLED",
        NULL,
};

static const char *const app_final_statuses[] = {
        [YARN_FINAL_UNDEFINED] = "UNDEFINED", [YARN_FINAL_SUCCEEDED] = "SUCCEEDED",
        [YARN_FINAL_FAILED] = "FAILED",       [YARN_FINAL_KILLED] = "KILLED",
        [YARN_FINAL_ENDED] = "ENDED",         NULL,
};

static const char *const task_states[] = {
        [YARN_TASK_NEW] = "NEW",         [YARN_TASK_SCHEDULED] = "SCHEDULED",
        [YARN_TASK_RUNNING] = "RUNNING", [YARN_TASK_SUCCEEDED] = "SUCCEEDED",
        [YARN_TASK_FAILED] = "FAILED",   [YARN_TASK_KILL_WAIT] = "KILL_WAIT",
        [YARN_TASK_KILLED] = "KILLED",   NULL,
};

static const char *const attempt_states[] = {
        [YARN_ATTEMPT_NEW] = "NEW",
        [YARN_ATTEMPT_STARTING] = "STARTING",
        [YARN_ATTEMPT_RUNNING] = "RUNNING",
        [YARN_ATTEMPT_COMMIT_PENDING] = "COMMIT_PENDING",
        [YARN_ATTEMPT_SUCCEEDED] = "SUCCEEDED",
        [YARN_ATTEMPT_FAILED] = "FAILED",
        [YARN_ATTEMPT_KILLED] = "KILLED",
        NULL,
};

static const char *const task_types[] = {
        [YARN_MAP] = "MAP",
        [YARN_REDUCE] = "REDUCE",
        NULL,
};

static int fail(char *why, size_t why_size, const char *fmt, ...) _printf_(3, 4);
static int fail(char *why, size_t why_size, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(why, why_size, fmt, ap);
        va_end(ap);
        return -EBADMSG;
}

bool yarn_id_valid(const char *s) {
        size_t n = strlen(s);

        if (n == 0 || n > YARN_ID_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-[]",
                            s[i]))
                        return false;
        return true;
}

static int choice_index(const char *const *choices, const char *s) {
        int i = 0;

        for (; choices[i]; i++)
                if (strcmp(choices[i], s) == 0)
                        return i;
        return i;
}

const char *yarn_node_state_name(YarnNodeState s) {
        return (unsigned)s < _YARN_NODE_STATE_UNKNOWN ? node_states[s] : "unknown";
}

const char *yarn_attempt_state_name(YarnAttemptState s) {
        return (unsigned)s < _YARN_ATTEMPT_STATE_UNKNOWN ? attempt_states[s] : "unknown";
}

const char *yarn_app_state_name(YarnAppState s) {
        return (unsigned)s < _YARN_APP_STATE_UNKNOWN ? app_states[s] : "unknown";
}

const char *yarn_app_final_status_name(YarnAppFinalStatus s) {
        return (unsigned)s < _YARN_FINAL_STATUS_UNKNOWN ? app_final_statuses[s] : "unknown";
}

bool yarn_app_ended(YarnAppState s) {
        return s == YARN_APP_FINISHED || s == YARN_APP_FAILED || s == YARN_APP_KILLED;
}

/* A JSON number that is a whole number in [0, max]: Jackson writes longs
 * as integers, and an integral double is taken too. */
static bool whole_number(json_object *v, uint64_t max, uint64_t *ret) {
        if (json_object_is_type(v, json_type_int)) {
                int64_t i = json_object_get_int64(v);

                /* json-c saturates at INT64_MAX; a negative is no count. */
                if (i < 0 || (uint64_t)i > max || i == INT64_MAX)
                        return false;
                *ret = (uint64_t)i;
                return true;
        }
        if (json_object_is_type(v, json_type_double)) {
                double d = json_object_get_double(v);

                if (!isfinite(d) || d < 0 || d > (double)max || d != floor(d))
                        return false;
                *ret = (uint64_t)d;
                return true;
        }
        return false;
}

static int read_field(json_object *o, const Field *f, void *entry, const char *path, char *why,
                      size_t why_size) {
        void *at = (char *)entry + f->offset;
        json_object *v = NULL;
        const char *s;
        uint64_t u;

        if (!json_object_object_get_ex(o, f->key, &v) || !v) {
                if (f->optional)
                        return 0;
                return fail(why, why_size, "%s.%s: missing", path, f->key);
        }
        switch (f->kind) {
        case FIELD_ID:
        case FIELD_NAME:
        case FIELD_ENUM:
                if (!json_object_is_type(v, json_type_string))
                        return fail(why, why_size, "%s.%s: not a string", path, f->key);
                s = json_object_get_string(v);
                if (f->kind == FIELD_ENUM) {
                        *(int *)at = choice_index(f->choices, s);
                        return 0;
                }
                if (f->kind == FIELD_ID && !yarn_id_valid(s)) {
                        /* An empty one is Hadoop's "none" where it may
                         * leave a field out. */
                        if (f->optional && !s[0])
                                return 0;
                        return fail(why, why_size, "%s.%s: '%.64s' is not an id", path, f->key, s);
                }
                /* An id is short already. */
                *(char **)at = strndup(s, YARN_NAME_MAX);
                return *(char **)at ? 0 : -ENOMEM;
        case FIELD_PERCENT:
                if (!json_object_is_type(v, json_type_double) &&
                    !json_object_is_type(v, json_type_int))
                        return fail(why, why_size, "%s.%s: not a number", path, f->key);
                *(double *)at = json_object_get_double(v) / 100;
                if (!isfinite(*(double *)at) || *(double *)at < 0 || *(double *)at > 1)
                        return fail(why, why_size, "%s.%s: not a percentage", path, f->key);
                return 0;
        case FIELD_COUNT:
        case FIELD_MB:
        case FIELD_MSEC:
                if (!whole_number(v,
                                  f->kind == FIELD_COUNT  ? UINT32_MAX
                                  : f->kind == FIELD_MSEC ? UINT64_MAX / USEC_PER_MSEC
                                                          : UINT64_MAX / 2,
                                  &u))
                        return fail(why, why_size, "%s.%s: not a count in range", path, f->key);
                if (f->kind == FIELD_COUNT)
                        *(unsigned *)at = (unsigned)u;
                else if (f->kind == FIELD_MB)
                        *(uint64_t *)at = u;
                else
                        *(usec_t *)at = u * USEC_PER_MSEC;
                return 0;
        }
        return -EINVAL;
}

static int read_entry(json_object *o, const Entry *e, void *entry, const char *path, char *why,
                      size_t why_size) {
        int r;

        if (!json_object_is_type(o, json_type_object))
                return fail(why, why_size, "%s: not an object", path);
        for (size_t i = 0; i < e->n_fields; i++) {
                r = read_field(o, &e->fields[i], entry, path, why, why_size);
                if (r < 0)
                        return r;
        }
        return e->check ? e->check(o, entry, why, why_size) : 0;
}

/* The entry's strings. */
static void entry_done(const Entry *e, void *entry) {
        for (size_t i = 0; i < e->n_fields; i++)
                if (e->fields[i].kind == FIELD_ID || e->fields[i].kind == FIELD_NAME)
                        free(*(char **)((char *)entry + e->fields[i].offset));
}

static void entries_free(const Entry *e, void *entries, size_t n) {
        for (size_t i = 0; entries && i < n; i++)
                entry_done(e, (char *)entries + i * e->size);
        free(entries);
}

/* The whole body as one JSON value: json-c's strict mode refuses anything
 * but white space after it. */
static int parse(const char *body, size_t size, json_object **ret, char *why, size_t why_size) {
        json_tokener *tok;
        json_object *o;
        enum json_tokener_error err;
        size_t used;

        if (size > YARN_BODY_MAX)
                return fail(why, why_size, "an answer of %zu bytes, over %u", size, YARN_BODY_MAX);
        tok = json_tokener_new_ex(JSON_DEPTH);
        if (!tok)
                return -ENOMEM;
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
        o = json_tokener_parse_ex(tok, body, (int)size);
        err = json_tokener_get_error(tok);
        used = json_tokener_get_parse_end(tok);
        json_tokener_free(tok);
        if (!o || err != json_tokener_success) {
                json_object_put(o);
                return fail(why, why_size, "not JSON (%s at byte %zu)",
                            err == json_tokener_continue ? "it ends early"
                                                         : json_tokener_error_desc(err),
                            used);
        }
        *ret = o;
        return 0;
}

/* {outer: {inner: [entries]}}, {outer: null} or {outer: {}}. */
static int decode_list(const char *body, size_t size, const char *outer, const char *inner,
                       const Entry *e, void **ret, size_t *ret_n, char *why, size_t why_size) {
        json_object *root = NULL, *wrap = NULL, *list = NULL;
        void *entries = NULL;
        size_t n = 0;
        char path[96];
        int r;

        r = parse(body, size, &root, why, why_size);
        if (r < 0)
                return r;
        if (!json_object_is_type(root, json_type_object) ||
            !json_object_object_get_ex(root, outer, &wrap)) {
                r = fail(why, why_size, "no '%s' object", outer);
                goto out;
        }
        if (!wrap || (json_object_is_type(wrap, json_type_object) &&
                      !json_object_object_get_ex(wrap, inner, &list)))
                goto done;
        if (!json_object_is_type(wrap, json_type_object) || !list ||
            !json_object_is_type(list, json_type_array)) {
                r = fail(why, why_size, "%s.%s: not a list", outer, inner);
                goto out;
        }
        n = json_object_array_length(list);
        if (n > YARN_LIST_MAX) {
                r = fail(why, why_size, "%s.%s: %zu entries, over %d", outer, inner, n,
                         YARN_LIST_MAX);
                goto out;
        }
        entries = calloc(MAX(n, (size_t)1), e->size);
        if (!entries) {
                r = -ENOMEM;
                goto out;
        }
        for (size_t i = 0; i < n; i++) {
                snprintf(path, sizeof(path), "%s.%s[%zu]", outer, inner, i);
                r = read_entry(json_object_array_get_idx(list, i), e, (char *)entries + i * e->size,
                               path, why, why_size);
                if (r < 0) {
                        entries_free(e, entries, n);
                        goto out;
                }
        }
done:
        *ret = entries;
        *ret_n = n;
        r = 0;
out:
        json_object_put(root);
        return r;
}

/* One object: {outer: {fields}} (outer NULL: the fields at the top), of
 * numbers and states, or of one string: nothing to free when a field is
 * wrong. */
static int decode_one(const char *body, size_t size, const char *outer, const Entry *e, void *ret,
                      char *why, size_t why_size) {
        json_object *root = NULL, *o;
        int r;

        r = parse(body, size, &root, why, why_size);
        if (r < 0)
                return r;
        o = root;
        if (outer && (!json_object_is_type(root, json_type_object) ||
                      !json_object_object_get_ex(root, outer, &o))) {
                r = fail(why, why_size, "no '%s' object", outer);
                goto out;
        }
        memset(ret, 0, e->size);
        r = read_entry(o, e, ret, outer ? outer : "answer", why, why_size);
out:
        json_object_put(root);
        return r;
}

#define NODE(...) FIELD_OF(YarnNode, __VA_ARGS__)
static const Field node_fields[] = {
        NODE("id", FIELD_ID, id),
        NODE("nodeHostName", FIELD_ID, host),
        /* Not there for a node that left: the decommissioned, the lost. */
        NODE("nodeHTTPAddress", FIELD_ID, http_address, .optional = true),
        NODE("state", FIELD_ENUM, state, .choices = node_states),
        NODE("usedMemoryMB", FIELD_MB, used_memory_mb),
        NODE("availMemoryMB", FIELD_MB, memory_mb),
        NODE("usedVirtualCores", FIELD_COUNT, used_vcores),
        NODE("availableVirtualCores", FIELD_COUNT, vcores),
        NODE("numContainers", FIELD_COUNT, containers),
};

/* memory_mb and vcores hold what is available, until the node's total. */
static int node_check(json_object *o, void *entry, char *why, size_t why_size) {
        static const Field total[] = {
                NODE("memory", FIELD_MB, memory_mb),
                NODE("vCores", FIELD_COUNT, vcores),
        };
        YarnNode *n = entry;
        json_object *t;

        if (!json_object_object_get_ex(o, "totalResource", &t) || !t) {
                n->memory_mb += n->used_memory_mb;
                n->vcores += n->used_vcores;
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(total); i++) {
                int r = read_field(t, &total[i], n, "node.totalResource", why, why_size);

                if (r < 0)
                        return r;
        }
        return 0;
}

static const Entry node_entry = { sizeof(YarnNode), node_fields, ELEMENTSOF(node_fields),
                                  node_check };

#define APP(...) FIELD_OF(YarnApp, __VA_ARGS__)
static const Field app_fields[] = {
        APP("id", FIELD_ID, id),
        APP("user", FIELD_NAME, user),
        APP("name", FIELD_NAME, name),
        APP("queue", FIELD_NAME, queue),
        APP("applicationType", FIELD_NAME, type, .optional = true),
        APP("applicationTags", FIELD_NAME, tags, .optional = true),
        APP("state", FIELD_ENUM, state, .choices = app_states),
        APP("finalStatus", FIELD_ENUM, final_status, .choices = app_final_statuses,
            .optional = true),
        APP("startedTime", FIELD_MSEC, started),
        APP("finishedTime", FIELD_MSEC, finished, .optional = true),
};
static const Entry app_entry = { sizeof(YarnApp), app_fields, ELEMENTSOF(app_fields), NULL };

#define JOB(...) FIELD_OF(YarnJob, __VA_ARGS__)
static const Field job_fields[] = {
        JOB("id", FIELD_ID, id),
        JOB("name", FIELD_NAME, name),
        JOB("user", FIELD_NAME, user),
        JOB("queue", FIELD_NAME, queue, .optional = true),
        JOB("startTime", FIELD_MSEC, started),
        JOB("mapsTotal", FIELD_COUNT, maps),
        JOB("mapsCompleted", FIELD_COUNT, maps_done),
        JOB("reducesTotal", FIELD_COUNT, reduces),
        JOB("reducesCompleted", FIELD_COUNT, reduces_done),
        /* The job's history server gives the attempt counts under other
         * names: an AM's answer has them. */
        JOB("failedMapAttempts", FIELD_COUNT, maps_failed, .optional = true),
        JOB("killedMapAttempts", FIELD_COUNT, maps_killed, .optional = true),
        JOB("failedReduceAttempts", FIELD_COUNT, reduces_failed, .optional = true),
        JOB("killedReduceAttempts", FIELD_COUNT, reduces_killed, .optional = true),
};

static int job_check(json_object *o, void *entry, char *why, size_t why_size) {
        const YarnJob *j = entry;

        if (j->maps_done > j->maps || j->reduces_done > j->reduces)
                return fail(why, why_size, "job %s: more tasks done than it has", j->id);
        return 0;
}

static const Entry job_entry = { sizeof(YarnJob), job_fields, ELEMENTSOF(job_fields), job_check };

#define TASK(...) FIELD_OF(YarnTask, __VA_ARGS__)
static const Field task_fields[] = {
        TASK("id", FIELD_ID, id),
        TASK("type", FIELD_ENUM, type, .choices = task_types),
        TASK("state", FIELD_ENUM, state, .choices = task_states),
        TASK("progress", FIELD_PERCENT, progress),
        TASK("startTime", FIELD_MSEC, started),
        TASK("finishTime", FIELD_MSEC, finished),
        TASK("elapsedTime", FIELD_MSEC, elapsed),
};
static const Entry task_entry = { sizeof(YarnTask), task_fields, ELEMENTSOF(task_fields), NULL };

#define ATTEMPT(...) FIELD_OF(YarnAttempt, __VA_ARGS__)
static const Field attempt_fields[] = {
        ATTEMPT("id", FIELD_ID, id),
        ATTEMPT("type", FIELD_ENUM, type, .choices = task_types),
        ATTEMPT("state", FIELD_ENUM, state, .choices = attempt_states),
        ATTEMPT("progress", FIELD_PERCENT, progress),
        ATTEMPT("startTime", FIELD_MSEC, started),
        ATTEMPT("elapsedTime", FIELD_MSEC, elapsed),
        /* Empty until the attempt has a container. */
        ATTEMPT("nodeHttpAddress", FIELD_ID, node_http_address, .optional = true),
};
static const Entry attempt_entry = { sizeof(YarnAttempt), attempt_fields,
                                     ELEMENTSOF(attempt_fields), NULL };

static const Field resource_fields[] = {
        FIELD_OF(YarnResource, "memory", FIELD_MB, memory_mb),
        FIELD_OF(YarnResource, "vCores", FIELD_COUNT, vcores),
};
static const Entry resource_entry = { sizeof(YarnResource), resource_fields,
                                      ELEMENTSOF(resource_fields), NULL };

static const Field attempt_state_fields[] = {
        { .key = "state", .kind = FIELD_ENUM, .choices = attempt_states },
};
static const Entry attempt_state_entry = { sizeof(int), attempt_state_fields,
                                           ELEMENTSOF(attempt_state_fields), NULL };

int yarn_decode_nodes(const char *body, size_t size, YarnNode **ret, size_t *ret_n, char *why,
                      size_t why_size) {
        return decode_list(body, size, "nodes", "node", &node_entry, (void **)ret, ret_n, why,
                           why_size);
}

int yarn_decode_apps(const char *body, size_t size, YarnApp **ret, size_t *ret_n, char *why,
                     size_t why_size) {
        return decode_list(body, size, "apps", "app", &app_entry, (void **)ret, ret_n, why,
                           why_size);
}

int yarn_decode_app(const char *body, size_t size, YarnApp **ret, char *why, size_t why_size) {
        json_object *root = NULL, *o;
        YarnApp *app;
        int r;

        r = parse(body, size, &root, why, why_size);
        if (r < 0)
                return r;
        if (!json_object_is_type(root, json_type_object) ||
            !json_object_object_get_ex(root, "app", &o)) {
                json_object_put(root);
                return fail(why, why_size, "no 'app' object");
        }
        app = calloc(1, sizeof(*app));
        r = app ? read_entry(o, &app_entry, app, "app", why, why_size) : -ENOMEM;
        json_object_put(root);
        if (r < 0) {
                yarn_apps_free(app, 1);
                return r;
        }
        *ret = app;
        return 0;
}

int yarn_decode_jobs(const char *body, size_t size, YarnJob **ret, size_t *ret_n, char *why,
                     size_t why_size) {
        return decode_list(body, size, "jobs", "job", &job_entry, (void **)ret, ret_n, why,
                           why_size);
}

int yarn_decode_tasks(const char *body, size_t size, YarnTask **ret, size_t *ret_n, char *why,
                      size_t why_size) {
        return decode_list(body, size, "tasks", "task", &task_entry, (void **)ret, ret_n, why,
                           why_size);
}

int yarn_decode_attempts(const char *body, size_t size, YarnAttempt **ret, size_t *ret_n, char *why,
                         size_t why_size) {
        return decode_list(body, size, "taskAttempts", "taskAttempt", &attempt_entry, (void **)ret,
                           ret_n, why, why_size);
}

static const Field reservation_id_fields[] = {
        { .key = "reservation-id", .kind = FIELD_ID },
};
static const Entry reservation_id_entry = { sizeof(char *), reservation_id_fields,
                                            ELEMENTSOF(reservation_id_fields), NULL };

static const Field queue_fields[] = {
        { .key = "queue", .kind = FIELD_NAME },
};
static const Entry queue_entry = { sizeof(char *), queue_fields, ELEMENTSOF(queue_fields), NULL };

int yarn_decode_reservation_id(const char *body, size_t size, char **ret, char *why,
                               size_t why_size) {
        return decode_one(body, size, NULL, &reservation_id_entry, ret, why, why_size);
}

int yarn_decode_queue(const char *body, size_t size, char **ret, char *why, size_t why_size) {
        return decode_one(body, size, NULL, &queue_entry, ret, why, why_size);
}

/* Adds key: value to o, taking value's reference, even on failure. */
static int add(json_object *o, const char *key, json_object *value) {
        if (!value)
                return -ENOMEM;
        if (json_object_object_add(o, key, value) < 0) {
                json_object_put(value);
                return -ENOMEM;
        }
        return 0;
}

static json_object *new_msec(usec_t t) {
        return json_object_new_int64((int64_t)(t / USEC_PER_MSEC));
}

int yarn_reservation_submit_body(const YarnReservationRequest *q, char **ret) {
        json_object *root, *definition, *requests, *list, *request, *capability;
        const char *text;
        usec_t duration;
        int r;

        if (!yarn_id_valid(q->id) || !yarn_id_valid(q->queue) || q->containers == 0 ||
            q->memory_mb == 0 || q->vcores == 0 || q->deadline <= q->arrival ||
            q->deadline / USEC_PER_MSEC > INT64_MAX)
                return -EINVAL;
        duration = (q->deadline - q->arrival) / USEC_PER_SEC * USEC_PER_SEC;
        if (duration == 0)
                return -EINVAL;
        root = json_object_new_object();
        definition = json_object_new_object();
        requests = json_object_new_object();
        list = json_object_new_array();
        request = json_object_new_object();
        capability = json_object_new_object();
        /* Each added object is its parent's, then the root's. */
        r = root && definition && requests && list && request && capability ? 0 : -ENOMEM;
        if (r >= 0)
                r = add(capability, "memory", json_object_new_int64((int64_t)q->memory_mb));
        if (r >= 0)
                r = add(capability, "vCores", json_object_new_int64(q->vcores));
        if (r >= 0)
                r = add(request, "capability", TAKE_PTR(capability));
        if (r >= 0)
                r = add(request, "num-containers", json_object_new_int64(q->containers));
        /* All of them at once: ARIA's slots are held together. */
        if (r >= 0)
                r = add(request, "min-concurrency", json_object_new_int64(q->containers));
        /* Whole seconds: the planner counts time in its plan follower's
         * steps (a second by default) and cannot fill a window with a
         * duration that is not a whole number of them (Hadoop 3.4 refuses
         * it as "cannot be satisfied"). */
        if (r >= 0)
                r = add(request, "duration", new_msec(duration));
        if (r >= 0 && json_object_array_add(list, request) < 0)
                r = -ENOMEM;
        if (r >= 0)
                request = NULL;
        /* R_ALL: the one request whole, or no reservation. */
        if (r >= 0)
                r = add(requests, "reservation-request-interpreter", json_object_new_int(1));
        if (r >= 0)
                r = add(requests, "reservation-request", TAKE_PTR(list));
        if (r >= 0)
                r = add(definition, "arrival", new_msec(q->arrival));
        if (r >= 0)
                r = add(definition, "deadline", new_msec(q->deadline));
        if (r >= 0)
                r = add(definition, "reservation-name", json_object_new_string(q->name));
        if (r >= 0)
                r = add(definition, "reservation-requests", TAKE_PTR(requests));
        if (r >= 0)
                r = add(root, "queue", json_object_new_string(q->queue));
        if (r >= 0)
                r = add(root, "reservation-id", json_object_new_string(q->id));
        if (r >= 0)
                r = add(root, "reservation-definition", TAKE_PTR(definition));
        text = r >= 0 ? json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN) : NULL;
        *ret = text ? strdup(text) : NULL;
        json_object_put(capability);
        json_object_put(request);
        json_object_put(list);
        json_object_put(requests);
        json_object_put(definition);
        json_object_put(root);
        return *ret ? 0 : -ENOMEM;
}

int yarn_decode_resource(const char *body, size_t size, YarnResource *ret, char *why,
                         size_t why_size) {
        YarnResource res;
        int r = decode_one(body, size, "resourceInfo", &resource_entry, &res, why, why_size);

        if (r >= 0)
                *ret = res;
        return r;
}

int yarn_decode_attempt_state(const char *body, size_t size, YarnAttemptState *ret, char *why,
                              size_t why_size) {
        int state;
        int r = decode_one(body, size, NULL, &attempt_state_entry, &state, why, why_size);

        if (r >= 0)
                *ret = (YarnAttemptState)state;
        return r;
}

void yarn_error_text(const char *body, size_t size, char *buf, size_t buf_size) {
        json_object *root = NULL, *e, *m;
        char why[8];
        size_t k = 0;

        if (buf_size == 0)
                return;
        if (parse(body, size, &root, why, sizeof(why)) >= 0 &&
            json_object_is_type(root, json_type_object) &&
            json_object_object_get_ex(root, "RemoteException", &e) &&
            json_object_object_get_ex(e, "message", &m) &&
            json_object_is_type(m, json_type_string)) {
                snprintf(buf, buf_size, "%s", json_object_get_string(m));
                json_object_put(root);
                return;
        }
        json_object_put(root);
        /* HTML or text: its words, tags and control characters out. */
        for (size_t i = 0; i < size && k + 1 < buf_size; i++) {
                char c = body[i];

                if (c == '<') {
                        while (i < size && body[i] != '>')
                                i++;
                        c = ' ';
                }
                if ((unsigned char)c < ' ' || c == 0x7f)
                        c = ' ';
                if (c == ' ' && (k == 0 || buf[k - 1] == ' '))
                        continue;
                buf[k++] = c;
        }
        while (k > 0 && buf[k - 1] == ' ')
                k--;
        buf[k] = '\0';
}

void yarn_nodes_free(YarnNode *nodes, size_t n) {
        entries_free(&node_entry, nodes, n);
}

void yarn_apps_free(YarnApp *apps, size_t n) {
        entries_free(&app_entry, apps, n);
}

void yarn_jobs_free(YarnJob *jobs, size_t n) {
        entries_free(&job_entry, jobs, n);
}

void yarn_tasks_free(YarnTask *tasks, size_t n) {
        entries_free(&task_entry, tasks, n);
}

void yarn_attempts_free(YarnAttempt *attempts, size_t n) {
        entries_free(&attempt_entry, attempts, n);
}

/* The number after the last '_' of id, which has at least min_parts
 * parts; its digits only. */
static int last_number(const char *id, unsigned min_parts, unsigned *ret) {
        const char *end = strrchr(id, '_');
        unsigned parts = 1;
        uint64_t v;

        for (const char *p = id; *p; p++)
                parts += *p == '_';
        if (!end || parts < min_parts || parse_uint64(end + 1, 0, UINT32_MAX, &v) < 0)
                return -EINVAL;
        for (const char *p = end + 1; *p; p++)
                if (*p < '0' || *p > '9')
                        return -EINVAL;
        *ret = (unsigned)v;
        return 0;
}

/* task_CLUSTER_APP_{m,r}_NNNNNN */
int yarn_task_index(const char *task_id, unsigned *ret) {
        return strncmp(task_id, "task_", 5) == 0 ? last_number(task_id, 5, ret) : -EINVAL;
}

/* attempt_CLUSTER_APP_{m,r}_NNNNNN_N */
int yarn_attempt_number(const char *attempt_id, unsigned *ret) {
        return strncmp(attempt_id, "attempt_", 8) == 0 ? last_number(attempt_id, 6, ret) : -EINVAL;
}

/* SPDX-License-Identifier: MIT */
/* org.flexslot.Controller1: the operators' interface of
 * flexslot-controllerd. Jobs are read from the store, which holds every
 * job, ended ones too; changes go through the live model (cluster.h),
 * which writes the store first.
 *
 * Who may change what: root, and the members of [controller]
 * allowed-group, may submit jobs and set slots; a job is its submitter's,
 * by the bus's word of who called (only root names another user), and
 * only its user or root cancels it. The system bus policy lets the same
 * callers in; checking here too keeps a private bus or a looser policy
 * from opening the cluster to everyone. Reading is anyone's the bus lets
 * call. */
#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/strv.h"
#include "daemon.h"
#include "proto/errors.h"
#include "proto/tracker1.h"
#include "submit.h"

/* A store's or the model's error at the handler's edge. */
static int reply_error(int r, const StoreError *err, sd_bus_error *error) {
        const char *name;

        switch (r) {
        case -EINVAL:
                name = CONTROLLER1_ERROR_INVALID_ARGUMENT;
                break;
        case -ENOENT:
                name = CONTROLLER1_ERROR_NO_SUCH_JOB;
                break;
        case -ENXIO:
                name = CONTROLLER1_ERROR_NO_SUCH_NODE;
                break;
        case -EPERM:
                name = CONTROLLER1_ERROR_NOT_ADMITTED;
                break;
        case -ENOMEM:
                return r;
        default:
                log_warning_errno(r, "Store: %s", err->message);
                name = CONTROLLER1_ERROR_STORE_FAILED;
        }
        return sd_bus_error_setf(error, name, "%s.", err->message[0] ? err->message : "Refused");
}

/* Before a method reads the store or the model: the heartbeats of the
 * loop's pass so far are committed, or a client could be told of an
 * attempt that succeeded, or of a job that ended, which the store then
 * loses when their group's commit fails. A change commits them anyway,
 * before its own, but what it checks first is read as well. */
static int read_committed(Controller *c, sd_bus_error *error) {
        StoreError err = { 0 };
        int r;

        r = tracker_endpoint_commit(c, &err);
        if (r < 0)
                return sd_bus_error_setf(error, CONTROLLER1_ERROR_STORE_FAILED,
                                         "The controller could not store what its trackers "
                                         "reported, and stops: %s.",
                                         err.message[0] ? err.message : "commit failed");
        return 0;
}

/* A job of the store (source CONTROLLER1_JOB_SOURCE_STORE) or of the
 * cluster driver's own (its name). */
static int append_job(sd_bus_message *m, const StoreJob *j, const char *source) {
        return sd_bus_message_append(
                m, CONTROLLER1_JOB_TYPE, j->id, store_job_state_to_string(j->state), j->name,
                j->user, j->pool, j->app ? j->app : "", j->n_maps, j->n_reduces, j->maps_done,
                j->reduces_done, j->submitted, j->finished, j->deadline, source);
}

/* Job id of the driver's own into ret: 1, 0 when it is none of them. */
static int driver_job(Controller *c, uint64_t id, StoreJob *ret) {
        int r;

        if (!c->driver->get_job)
                return 0;
        r = c->driver->get_job(c, id, ret);
        if (r == -ENOENT)
                return 0;
        return r < 0 ? r : 1;
}

/* Who called, by the bus's word. */
typedef struct Caller {
        uid_t uid;
        char name[STORE_IDENTIFIER_MAX + 1]; /* its user name */
} Caller;

/* The caller of a method that changes the cluster, who must be root or a
 * member of allowed-group; what names the change for the refusal. */
static int caller_authorize(Controller *c, sd_bus_message *m, const char *what, Caller *ret,
                            sd_bus_error *error) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        struct passwd pw, *found = NULL;
        const gid_t *gids = NULL;
        bool member = false;
        char buf[4096];
        uid_t euid;
        gid_t egid;
        int r, n;

        r = sd_bus_query_sender_creds(m,
                                      SD_BUS_CREDS_EUID | SD_BUS_CREDS_EGID |
                                              SD_BUS_CREDS_SUPPLEMENTARY_GIDS |
                                              SD_BUS_CREDS_AUGMENT,
                                      &creds);
        if (r >= 0)
                r = sd_bus_creds_get_euid(creds, &euid);
        if (r < 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                         "%s needs the caller's user, which the bus does not say.",
                                         what);
        if (euid != 0 && c->have_allowed_gid) {
                member = sd_bus_creds_get_egid(creds, &egid) >= 0 && egid == c->allowed_gid;
                n = sd_bus_creds_get_supplementary_gids(creds, &gids);
                for (int i = 0; i < n && !member; i++)
                        member = gids[i] == c->allowed_gid;
        }
        if (euid != 0 && !member)
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                         "%s needs root or group '%s'.", what,
                                         c->config.allowed_group);
        if (getpwuid_r(euid, &pw, buf, sizeof(buf), &found) != 0 || !found ||
            strlen(pw.pw_name) >= sizeof(ret->name))
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                         "%s: uid %u has no user name a job can carry.", what,
                                         (unsigned)euid);
        ret->uid = euid;
        memcpy(ret->name, pw.pw_name, strlen(pw.pw_name) + 1);
        return 0;
}

/* An empty string is an argument not given: D-Bus has no null string. */
static const char *empty_to_null(const char *s) {
        return s[0] ? s : NULL;
}

static int method_submit_job(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Controller *c = userdata;
        _cleanup_(strv_freep) char **inputs = NULL;
        const char *app, *arg, *mapper, *reducer, *pool, *user, *name;
        StoreError err = { 0 };
        AdmitVerdict verdict;
        StoreJobSpec spec;
        Caller caller;
        uint32_t reduces;
        uint64_t deadline, id;
        usec_t now;
        int r;

        if (!c->driver->takes_jobs)
                return sd_bus_error_setf(error, CONTROLLER1_ERROR_NOT_SUPPORTED,
                                         "This controller drives a %s cluster, whose jobs are "
                                         "submitted to it, not here.",
                                         c->driver->name);
        r = sd_bus_message_read(m, "ssss", &app, &arg, &mapper, &reducer);
        if (r >= 0)
                r = sd_bus_message_read_strv(m, &inputs);
        if (r >= 0)
                r = sd_bus_message_read(m, "utsss", &reduces, &deadline, &pool, &user, &name);
        if (r < 0)
                return r;
        /* Before any check: what is refused and why says something of the
         * cluster, which is for those who may use it. */
        r = caller_authorize(c, m, "Submitting a job", &caller, error);
        if (r < 0)
                return r;
        r = read_committed(c, error);
        if (r < 0)
                return r;
        /* Profiles and pools are keyed by the user: it is the caller's. */
        if (!user[0])
                user = caller.name;
        else if (caller.uid != 0 && strcmp(user, caller.name) != 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                         "user '%.64s': a job is its submitter's (%s); only root "
                                         "submits for another user.",
                                         user, caller.name);
        spec = (StoreJobSpec){
                .name = name,
                .user = user,
                .pool = pool,
                .app = empty_to_null(app),
                .app_arg = empty_to_null(arg),
                .mapper = empty_to_null(mapper),
                .reducer = empty_to_null(reducer),
                .inputs = (const char *const *)inputs,
                .n_inputs = 0,
                .n_reduces = reduces,
                .deadline = deadline,
        };
        while (inputs && inputs[spec.n_inputs])
                spec.n_inputs++;
        now = now_realtime_usec();
        r = submit_check_runnable(&spec, now, &err);
        if (r >= 0)
                r = submit_check_output(c->store, c->config.data_dir, &err);
        if (r >= 0)
                r = cluster_submit(c->cluster, &spec, now, &id, &verdict, &err);
        if (r < 0) {
                log_info("SubmitJob '%.64s' by %.64s refused: %s", name, user, err.message);
                return reply_error(r, &err, error);
        }
        log_info("Job %" PRIu64 " '%.64s' of %.64s submitted: %.64s, %zu inputs, %u reduces", id,
                 name, user, spec.app ? spec.app : "streaming", spec.n_inputs, reduces);
        return sd_bus_reply_method_return(m, "t", id);
}

static int method_list_jobs(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Controller *c = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        StoreError err = { 0 };
        StoreJob *jobs = NULL, *own = NULL;
        size_t n = 0, n_own = 0;
        int r;

        r = read_committed(c, error);
        if (r < 0)
                return r;
        r = store_jobs_list(c->store, STORE_JOB_ANY, &jobs, &n, &err);
        if (r < 0)
                return reply_error(r, &err, error);
        /* The driver's ids follow the store's: its jobs come after. */
        if (c->driver->list_jobs) {
                r = c->driver->list_jobs(c, &own, &n_own);
                if (r < 0) {
                        store_jobs_free(jobs, n);
                        return r;
                }
        }
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', CONTROLLER1_JOB_TYPE);
        for (size_t i = 0; i < n && r >= 0; i++)
                r = append_job(reply, &jobs[i], CONTROLLER1_JOB_SOURCE_STORE);
        for (size_t i = 0; i < n_own && r >= 0; i++)
                r = append_job(reply, &own[i], c->driver->name);
        store_jobs_free(jobs, n);
        store_jobs_free(own, n_own);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_get_job(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Controller *c = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        StoreError err = { 0 };
        StoreJob job = { 0 };
        const char *source = CONTROLLER1_JOB_SOURCE_STORE;
        unsigned stragglers, backups, quota[_SLOT_TYPE_MAX];
        uint64_t id;
        int r;

        r = sd_bus_message_read(m, "t", &id);
        if (r >= 0)
                r = read_committed(c, error);
        if (r < 0)
                return r;
        r = driver_job(c, id, &job);
        if (r > 0)
                source = c->driver->name;
        else if (r == 0)
                r = store_job_get(c->store, id, &job, &err);
        if (r < 0)
                return reply_error(r, &err, error);
        cluster_job_stragglers(c->cluster, id, &stragglers, &backups);
        cluster_job_quota(c->cluster, id, quota);
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = append_job(reply, &job, source);
        if (r >= 0)
                r = sd_bus_message_append(reply, "suuuu", job.message ? job.message : "",
                                          stragglers, backups, quota[SLOT_MAP], quota[SLOT_REDUCE]);
        store_job_clear(&job);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_list_attempts(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Controller *c = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        StoreError err = { 0 };
        StoreTaskRecord *records = NULL;
        size_t n = 0;
        uint64_t id;
        int r;

        r = sd_bus_message_read(m, "t", &id);
        if (r >= 0)
                r = read_committed(c, error);
        if (r < 0)
                return r;
        r = store_job_tasks(c->store, id, STORE_TASK_ANY, &records, &n, &err);
        if (r < 0)
                return reply_error(r, &err, error);
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', CONTROLLER1_ATTEMPT_TYPE);
        for (size_t i = 0; i < n && r >= 0; i++) {
                const StoreTaskRecord *x = &records[i];

                r = sd_bus_message_append(reply, CONTROLLER1_ATTEMPT_TYPE, x->attempt,
                                          x->type == TASK_MAP ? "map" : "reduce", x->index, x->node,
                                          store_task_status_to_string(x->status), x->started,
                                          x->finished, x->reason ? x->reason : "",
                                          x->usage ? usec_to_sec(x->cpu_time) : -1.0,
                                          x->usage ? usec_to_sec(x->io_wait) : -1.0);
        }
        store_task_records_free(records, n);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_cancel_job(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Controller *c = userdata;
        StoreError err = { 0 };
        StoreJob job = { 0 };
        Caller caller;
        bool owner;
        uint64_t id;
        int r;

        r = sd_bus_message_read(m, "t", &id);
        if (r < 0)
                return r;
        r = caller_authorize(c, m, "Cancelling a job", &caller, error);
        if (r < 0)
                return r;
        r = read_committed(c, error);
        if (r < 0)
                return r;
        r = driver_job(c, id, &job);
        if (r > 0) {
                r = sd_bus_error_setf(error, CONTROLLER1_ERROR_NOT_SUPPORTED,
                                      "Job %" PRIu64 " is %s application %.64s: it is cancelled "
                                      "there, not here.",
                                      id, c->driver->name, job.app);
                store_job_clear(&job);
                return r;
        }
        if (r < 0)
                return r;
        /* A job that is not there is cluster_cancel()'s to say. */
        if (caller.uid != 0 && store_job_get(c->store, id, &job, &err) >= 0) {
                owner = strcmp(job.user, caller.name) == 0;
                if (!owner)
                        r = sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
                                              "Job %" PRIu64 " is %.64s's: only its user or "
                                              "root cancels it.",
                                              id, job.user);
                store_job_clear(&job);
                if (!owner)
                        return r;
        }
        r = cluster_cancel(c->cluster, id, &err);
        if (r < 0)
                return reply_error(r, &err, error);
        log_info("Job %" PRIu64 " cancelled", id);
        return sd_bus_reply_method_return(m, NULL);
}

static int method_list_nodes(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Controller *c = userdata;
        const Cluster *cl = c->cluster;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = read_committed(c, error);
        if (r >= 0)
                r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', CONTROLLER1_NODE_TYPE);
        for (size_t i = 0; i < cl->n_nodes && r >= 0; i++) {
                const ClusterNode *n = &cl->nodes[i];
                double steal;
                usec_t at;

                /* What the policy core sees: the agent's when it measures it. */
                (void)cluster_node_steal(n, &steal, &at);
                r = sd_bus_message_append(reply, CONTROLLER1_NODE_TYPE, n->id, n->hostname,
                                          n->vm_uuid, cluster_node_state_to_string(n->state),
                                          n->slots[SLOT_MAP], n->slots[SLOT_REDUCE],
                                          n->running[SLOT_MAP], n->running[SLOT_REDUCE], steal,
                                          n->iowait);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_set_slots(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Controller *c = userdata;
        StoreError err = { 0 };
        unsigned slots[_SLOT_TYPE_MAX];
        uint64_t node, memory;
        Caller caller;
        int r;

        r = sd_bus_message_read(m, "tuut", &node, &slots[SLOT_MAP], &slots[SLOT_REDUCE], &memory);
        if (r < 0)
                return r;
        r = caller_authorize(c, m, "Setting slots", &caller, error);
        if (r < 0)
                return r;
        r = read_committed(c, error);
        if (r < 0)
                return r;
        if (slots[SLOT_MAP] > TRACKER1_SLOTS_MAX || slots[SLOT_REDUCE] > TRACKER1_SLOTS_MAX)
                return sd_bus_error_setf(error, CONTROLLER1_ERROR_INVALID_ARGUMENT,
                                         "Slots %u map, %u reduce: each must be 0..%d.",
                                         slots[SLOT_MAP], slots[SLOT_REDUCE], TRACKER1_SLOTS_MAX);
        if (memory != 0 && (memory < TRACKER1_SLOT_MEMORY_MIN || memory > TRACKER1_SLOT_MEMORY_MAX))
                return sd_bus_error_setf(error, CONTROLLER1_ERROR_INVALID_ARGUMENT,
                                         "Slot memory %" PRIu64
                                         " bytes: must be 0 (unchanged) or 1 MiB..1 TiB.",
                                         memory);
        r = cluster_set_slots(c->cluster, node, slots, memory, now_realtime_usec(), &err);
        if (r < 0)
                return reply_error(r, &err, error);
        log_info("Tracker %" PRIu64 " set to %u map and %u reduce slots", node, slots[SLOT_MAP],
                 slots[SLOT_REDUCE]);
        return sd_bus_reply_method_return(m, NULL);
}

static int append_profile(sd_bus_message *m, const StoreProfile *sp) {
        const StoreProfileStats *p = &sp->profile;

        return sd_bus_message_append(
                m, CONTROLLER1_PROFILE_TYPE, sp->user, sp->name, sp->job, sp->updated, p->map_min,
                p->map_avg, p->map_max, p->map_input, p->map_selectivity, p->sh1_avg, p->sh1_max,
                p->shtyp_avg, p->shtyp_max, p->reduce_avg, p->reduce_max, p->reduce_selectivity);
}

static int method_list_profiles(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Controller *c = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        StoreError err = { 0 };
        StoreProfile *profiles = NULL;
        size_t n = 0;
        int r;

        r = read_committed(c, error);
        if (r < 0)
                return r;
        r = store_profiles_list(c->store, &profiles, &n, &err);
        if (r < 0)
                return reply_error(r, &err, error);
        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', CONTROLLER1_PROFILE_TYPE);
        for (size_t i = 0; i < n && r >= 0; i++)
                r = append_profile(reply, &profiles[i]);
        store_profiles_free(profiles, n);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static const sd_bus_vtable controller_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS(
                "SubmitJob",
                SD_BUS_ARGS("s", application, "s", argument, "s", mapper, "s", reducer, "as",
                            inputs, "u", reduces, "t", deadline, "s", pool, "s", user, "s", name),
                SD_BUS_RESULT("t", job), method_submit_job, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListJobs", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("a" CONTROLLER1_JOB_TYPE, jobs), method_list_jobs,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetJob", SD_BUS_ARGS("t", job),
                                SD_BUS_RESULT(CONTROLLER1_JOB_TYPE, job, "s", message, "u",
                                              stragglers, "u", backups, "u", map_quota, "u",
                                              reduce_quota),
                                method_get_job, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListAttempts", SD_BUS_ARGS("t", job),
                                SD_BUS_RESULT("a" CONTROLLER1_ATTEMPT_TYPE, attempts),
                                method_list_attempts, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("CancelJob", SD_BUS_ARGS("t", job), SD_BUS_NO_RESULT,
                                method_cancel_job, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListNodes", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("a" CONTROLLER1_NODE_TYPE, nodes), method_list_nodes,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(
                "SetSlots",
                SD_BUS_ARGS("t", node, "u", map_slots, "u", reduce_slots, "t", slot_memory),
                SD_BUS_NO_RESULT, method_set_slots, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListProfiles", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("a" CONTROLLER1_PROFILE_TYPE, profiles),
                                method_list_profiles, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

int controller_bus_setup(Controller *c) {
        int r;

        r = sd_bus_add_object_vtable(c->bus, &c->object_slot, CONTROLLER1_OBJECT_PATH,
                                     CONTROLLER1_INTERFACE, controller_vtable, c);
        if (r < 0)
                return log_error_errno(r, "Cannot add the D-Bus object");
        r = sd_bus_request_name(c->bus, CONTROLLER1_BUS_NAME, 0);
        if (r < 0)
                return log_error_errno(r, "Cannot take the name %s", CONTROLLER1_BUS_NAME);
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* The trackers' endpoint: a D-Bus peer-to-peer listener (no bus daemon; the
 * trackers in VMs cannot reach the host's bus), one sd-bus server
 * connection per tracker, serving org.flexslot.Tracker1
 * (proto/tracker1.h). Each connection is on the loop through a BusWatch
 * (common/bus-watch.h), not sd_bus_attach_event(): a heartbeat costs the
 * same at 4,000 connections as at 4. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/bus-watch.h"
#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/parse.h"
#include "controller/daemon/cluster-heartbeat.h"
#include "daemon.h"
#include "proto/errors.h"
#include "proto/tracker1.h"

/* Out of descriptors, how long the endpoint waits before it tries to
 * accept again when no connection closes meanwhile. */
#define ACCEPT_RETRY_USEC (500 * USEC_PER_MSEC)
/* The least time between two warnings of a kind that peers which have not
 * registered cause: anyone who can connect could fill the log otherwise. */
#define WARN_INTERVAL_USEC (10 * USEC_PER_SEC)

/* A heartbeat's reply that waits for the store group holding its records
 * (store_group_begin()): what it says is sent only once that is durable
 * against the controller's death. */
typedef struct HeldReply {
        TrackerConnection *connection; /* NULL once it closed */
        sd_bus_message *call, *reply;
        usec_t start; /* monotonic: when the heartbeat was read */
} HeldReply;

struct TrackerConnection {
        Controller *controller;
        sd_bus *bus;
        BusWatch *watch;
        uint64_t tracker; /* 0: not registered (yet, or again after TrackerLost) */
        /* While unregistered: closes the connection at [trackers]
         * register-timeout, so that a peer that never registers holds no
         * descriptor for long. */
        sd_event_source *register_timer;
        TrackerConnection *next;
};

static void accept_resume(Controller *c);

/* The level of a warning of w's kind: warning for the first, then for one
 * per WARN_INTERVAL_USEC, debug for the others; *ret_held is how many went
 * to debug since the last warning. */
static LogLevel warn_level(WarnLimit *w, unsigned *ret_held) {
        usec_t now = now_monotonic_usec();

        *ret_held = w->held;
        if (w->last && now - w->last < WARN_INTERVAL_USEC) {
                w->held++;
                return LOG_LEVEL_DEBUG;
        }
        w->held = 0;
        w->last = now;
        return LOG_LEVEL_WARNING;
}

static TrackerConnection *connection_free(TrackerConnection *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->controller->n_held; i++)
                if (t->controller->held[i].connection == t)
                        t->controller->held[i].connection = NULL;
        t->register_timer = sd_event_source_disable_unref(t->register_timer);
        t->watch = bus_watch_free(t->watch);
        if (t->bus) {
                /* Never flushed: sd_bus_flush() waits, without a timeout,
                 * for a peer to authenticate and to read what is queued,
                 * and a peer that does neither would stop the controller. */
                t->bus = sd_bus_close_unref(t->bus);
        }
        free(t);
        return NULL;
}

static void connection_drop(TrackerConnection *t) {
        Controller *c = t->controller;

        for (TrackerConnection **p = &c->connections; *p; p = &(*p)->next)
                if (*p == t) {
                        *p = t->next;
                        c->n_connections--;
                        if (t->tracker)
                                c->n_registered--;
                        break;
                }
        connection_free(t);
        /* A descriptor is free: the endpoint may take connections again. */
        accept_resume(c);
}

static int on_register_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        TrackerConnection *t = userdata;

        log_debug("Closing a tracker connection that did not register within %s",
                  FORMAT_DURATION(t->controller->config.register_timeout));
        connection_drop(t);
        return 0;
}

/* The connection's registration: tracker, or 0 for none, when the
 * register timer starts again. */
static int connection_set_tracker(TrackerConnection *t, uint64_t tracker) {
        Controller *c = t->controller;
        int r;

        c->n_registered += (tracker != 0) - (t->tracker != 0);
        t->tracker = tracker;
        if (tracker) {
                t->register_timer = sd_event_source_disable_unref(t->register_timer);
                return 0;
        }
        if (t->register_timer) {
                r = sd_event_source_set_time_relative(t->register_timer,
                                                      c->config.register_timeout);
                if (r >= 0)
                        r = sd_event_source_set_enabled(t->register_timer, SD_EVENT_ONESHOT);
        } else
                r = sd_event_add_time_relative(c->event, &t->register_timer, CLOCK_MONOTONIC,
                                               c->config.register_timeout, 0, on_register_timeout,
                                               t);
        if (r < 0)
                return log_warning_errno(r, "Cannot time a tracker connection's registration");
        return 0;
}

/* Whether a equals the token, in time that depends on the token's length
 * only: a tracker learns nothing of it from how long a refusal takes. */
static bool token_equal(const Controller *c, const char *a) {
        size_t n = strnlen(a, TRACKER1_TOKEN_MAX + 1);
        unsigned char diff = n != c->token_len;

        for (size_t i = 0; i < c->token_len; i++)
                diff |= (unsigned char)c->token[i] ^ (unsigned char)(i < n ? a[i] : 0);
        return diff == 0;
}

/* The return of method call m: Register's answer or Heartbeat's reply,
 * whichever is given. */
static int reply_new(sd_bus_message *m, const Tracker1Registered *registered,
                     const Tracker1Reply *heartbeat, sd_bus_message **ret) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0 && registered)
                r = tracker1_registered_append(reply, registered);
        if (r >= 0 && heartbeat)
                r = tracker1_reply_append(reply, heartbeat);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(reply);
        return 0;
}

static int send_reply(sd_bus_message *m, const Tracker1Registered *registered,
                      const Tracker1Reply *heartbeat) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = reply_new(m, registered, heartbeat, &reply);
        return r < 0 ? r : sd_bus_send(NULL, reply, NULL);
}

/* What a tracker is answered when the records its heartbeat brought were
 * lost; one error for it, whichever way the commit failed. */
static int commit_error_set(sd_bus_error *error, const StoreError *err) {
        return sd_bus_error_setf(error, SD_BUS_ERROR_IO_ERROR,
                                 "The controller could not store what this heartbeat reported "
                                 "and started: %s.",
                                 err->message);
}

/* The group's end: its records committed, then its replies sent; when the
 * commit fails, each held call is answered with the error instead, and the
 * controller stops: its model took in records that the store lost, and
 * its restart (the unit's Restart=on-failure) reads the model again from
 * what the store holds, as after a kill -9. What a tracker was not
 * answered it reports again; an attempt it was not told of does not run.
 * The commit's error in *ret_err, if not NULL. */
static int group_release(Controller *c, StoreError *ret_err) {
        _cleanup_free_ HeldReply *held = TAKE_PTR(c->held);
        size_t n = c->n_held;
        _cleanup_(sd_bus_error_free) sd_bus_error lost = SD_BUS_ERROR_NULL;
        StoreError err = { 0 };
        int r;

        c->n_held = 0;
        (void)sd_event_source_set_enabled(c->group_commit, SD_EVENT_OFF);
        r = store_group_commit(c->store, &err);
        if (r < 0) {
                log_error_errno(r, "Cannot commit the records of %zu heartbeats, stopping: %s", n,
                                err.message);
                (void)commit_error_set(&lost, &err);
        }
        for (size_t i = 0; i < n; i++) {
                HeldReply *h = &held[i];

                if (r >= 0)
                        (void)sd_bus_send(NULL, h->reply, NULL);
                else
                        (void)sd_bus_reply_method_error(h->call, &lost);
                /* Sent outside the connection's turn. */
                if (h->connection && bus_watch_update(h->connection->watch) < 0)
                        log_debug("Cannot watch tracker %" PRIu64 "'s connection again",
                                  h->connection->tracker);
                metrics_histogram_observe(&c->heartbeat_seconds,
                                          usec_to_sec(now_monotonic_usec() - h->start));
                sd_bus_message_unref(h->call);
                sd_bus_message_unref(h->reply);
        }
        if (r < 0) {
                (void)sd_event_exit(c->event, r);
                if (ret_err)
                        *ret_err = err;
        }
        return r;
}

static int on_group_commit(sd_event_source *s, void *userdata) {
        (void)group_release(userdata, NULL);
        return 0;
}

int tracker_endpoint_commit(Controller *c, StoreError *ret_err) {
        /* No endpoint (the YARN driver), or no heartbeat's records
         * waiting: the store holds all the model took in. */
        if (!c->group_commit || !store_group_open(c->store))
                return 0;
        return group_release(c, ret_err);
}

/* After a heartbeat: a group that holds records not yet committed, or
 * replies, lasts the loop's pass (1), and its replies wait; one that holds
 * nothing ends here (0), and a reply that could depend on nothing
 * uncommitted goes at once. Negative: the group lost records, and the
 * controller stops; the commit's error in *ret_err. */
static int group_continue(Controller *c, StoreError *ret_err) {
        int r;

        if (store_group_holds(c->store) || c->n_held > 0) {
                r = sd_event_source_set_enabled(c->group_commit, SD_EVENT_ONESHOT);
                if (r < 0) {
                        log_warning_errno(r, "Cannot defer the heartbeats' commit: committing now");
                        r = group_release(c, ret_err);
                        return r < 0 ? r : 0;
                }
                return 1;
        }
        r = store_group_commit(c->store, ret_err);
        if (r < 0) {
                log_error_errno(r, "Cannot commit a heartbeat's records, stopping: %s",
                                ret_err->message);
                (void)sd_event_exit(c->event, r);
        }
        return r;
}

/* reply, for call, waits for the group's commit, which the loop runs once
 * no other source is ready, or now when the group is full. */
static int group_hold(Controller *c, TrackerConnection *t, sd_bus_message *call,
                      sd_bus_message *reply, usec_t start) {
        HeldReply *held;

        if (!c->held) {
                c->held = calloc(HEARTBEAT_GROUP_MAX, sizeof(*c->held));
                if (!c->held)
                        return -ENOMEM;
        }
        held = &c->held[c->n_held++];
        *held = (HeldReply){ .connection = t,
                             .call = sd_bus_message_ref(call),
                             .reply = sd_bus_message_ref(reply),
                             .start = start };
        if (c->n_held == HEARTBEAT_GROUP_MAX)
                (void)group_release(c, NULL);
        return 0;
}

static bool text_ok(const char *s) {
        size_t n = strlen(s);

        if (n == 0 || n > TRACKER1_TEXT_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
                        return false;
        return true;
}

static bool tracker_connected(const Controller *c, uint64_t tracker) {
        for (const TrackerConnection *t = c->connections; t; t = t->next)
                if (t->tracker == tracker)
                        return true;
        return false;
}

/* A VM has one tracker: the agent's steal and the VM targets are the VM's,
 * and two registrations would take them both. While the VM's registration
 * is alive and its connection open, a tracker that claims the VM is refused
 * by name, so that whoever holds the token cannot push a working tracker
 * out. Once that connection has gone (the tracker restarted, or its
 * connection broke and it comes back), the old registration gives way at
 * once rather than at lost-timeout: it is the same VM's tracker, and its
 * attempts will not report on the old registration again. */
static int claim_vm(Controller *c, const Tracker1Registration *x, sd_bus_error *error) {
        const ClusterNode *old = cluster_node_find_vm(c->cluster, x->vm_uuid);

        if (!old)
                return 0;
        if (tracker_connected(c, old->id)) {
                log_warning("Refusing tracker %s: VM %s is tracker %" PRIu64
                            "'s (%s), which is connected",
                            x->hostname, x->vm_uuid, old->id, old->hostname);
                return sd_bus_error_setf(error, TRACKER1_ERROR_VM_IN_USE,
                                         "VM %s is tracker %" PRIu64
                                         "'s (%s), which is connected; a VM has one tracker.",
                                         x->vm_uuid, old->id, old->hostname);
        }
        return cluster_node_lose(c->cluster, old->id, now_realtime_usec(), now_monotonic_usec(),
                                 "gave way to a new registration of its VM");
}

static int method_register(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        TrackerConnection *t = userdata;
        Controller *c = t->controller;
        Tracker1Registration x;
        unsigned slots[_SLOT_TYPE_MAX], held;
        uint64_t id;
        int r;

        r = tracker1_register_read(m, &x, error);
        if (r < 0)
                return r;
        /* First, so that a tracker of another release hears that, whatever
         * else it sent. */
        if (!tracker1_version_served(x.version)) {
                log_full_errno(warn_level(&c->warn_version, &held), 0,
                               "Refusing tracker %s (VM %.64s): it speaks Tracker1 version "
                               "%" PRIu32 ", this controller %u..%u (%u more such at debug level "
                               "since the last warning)",
                               text_ok(x.hostname) ? x.hostname : "?",
                               text_ok(x.vm_uuid) ? x.vm_uuid : "?", x.version,
                               TRACKER1_VERSION_MIN, TRACKER1_VERSION, held);
                return sd_bus_error_setf(error, TRACKER1_ERROR_INCOMPATIBLE_VERSION,
                                         "The tracker speaks Tracker1 version %" PRIu32
                                         "; this controller serves versions %u to %u.",
                                         x.version, TRACKER1_VERSION_MIN, TRACKER1_VERSION);
        }
        if (!token_equal(c, x.token)) {
                log_full_errno(warn_level(&c->warn_token, &held), 0,
                               "A tracker presented a wrong cluster token (%u more at debug "
                               "level since the last warning)",
                               held);
                return sd_bus_error_set(error, TRACKER1_ERROR_BAD_TOKEN,
                                        "The cluster token is wrong.");
        }
        if (!text_ok(x.vm_uuid))
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Invalid VM UUID '%.64s'.", x.vm_uuid);
        if (!text_ok(x.hostname))
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Invalid hostname '%.64s'.", x.hostname);
        slots[SLOT_MAP] = x.slots[TRACKER1_MAP];
        slots[SLOT_REDUCE] = x.slots[TRACKER1_REDUCE];
        if (slots[SLOT_MAP] > TRACKER1_SLOTS_MAX || slots[SLOT_REDUCE] > TRACKER1_SLOTS_MAX)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Slots %u map, %u reduce: at most %d each.",
                                         slots[SLOT_MAP], slots[SLOT_REDUCE], TRACKER1_SLOTS_MAX);
        if (x.slot_memory < TRACKER1_SLOT_MEMORY_MIN || x.slot_memory > TRACKER1_SLOT_MEMORY_MAX)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Slot memory %" PRIu64 " is outside 1M..1T.",
                                         x.slot_memory);
        if (t->tracker)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "This connection has tracker %" PRIu64 " already.",
                                         t->tracker);
        /* Connections that have not registered do not count: a peer that
         * only connects takes no registered tracker's place. */
        if (c->n_registered >= (size_t)c->config.max_trackers) {
                log_warning("Refusing tracker %s (VM %s): %zu trackers registered, "
                            "max-trackers is %" PRIi64,
                            x.hostname, x.vm_uuid, c->n_registered, c->config.max_trackers);
                return sd_bus_error_setf(error, TRACKER1_ERROR_TOO_MANY,
                                         "%zu trackers are registered, as many as this "
                                         "controller takes (max-trackers).",
                                         c->n_registered);
        }
        /* Last: a refusal above changes nothing. */
        r = claim_vm(c, &x, error);
        if (r < 0)
                return r;
        r = cluster_register(c->cluster, x.vm_uuid, x.hostname, slots, x.slot_memory,
                             now_monotonic_usec(), &id);
        if (r < 0)
                return r;
        (void)connection_set_tracker(t, id);
        log_info("Tracker %" PRIu64 " registered: %s (VM %s), %u map and %u reduce slots", id,
                 x.hostname, x.vm_uuid, slots[SLOT_MAP], slots[SLOT_REDUCE]);
        return send_reply(
                m,
                &(Tracker1Registered){ .tracker = id,
                                       .interval = (uint64_t)c->config.heartbeat_interval },
                NULL);
}

/* *ret_held: the reply waits for the group's commit (group_hold()). */
static int handle_heartbeat(sd_bus_message *m, void *userdata, usec_t start, bool *ret_held,
                            sd_bus_error *error) {
        TrackerConnection *t = userdata;
        Controller *c = t->controller;
        _cleanup_(tracker1_report_done) Tracker1Report report = { 0 };
        _cleanup_(tracker1_reply_done) Tracker1Reply reply = { 0 };
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *answer = NULL;
        StoreError err = { 0 }, commit_err = { 0 };
        uint64_t id;
        int held, r;

        /* Whose it is, before what it says. */
        r = sd_bus_message_read(m, "t", &id);
        if (r < 0)
                return r;
        if (!t->tracker)
                return sd_bus_error_set(error, TRACKER1_ERROR_BAD_TOKEN,
                                        "Register with the cluster token first.");
        if (id != t->tracker)
                return sd_bus_error_setf(error, TRACKER1_ERROR_UNKNOWN_TRACKER,
                                         "Tracker %" PRIu64 " is not this connection's.", id);
        r = sd_bus_message_rewind(m, true);
        if (r >= 0)
                r = tracker1_heartbeat_read(m, &report, error);
        if (r < 0)
                return r;
        /* The heartbeats of the loop's pass share one commit. */
        store_group_begin(c->store);
        r = cluster_heartbeat(c->cluster, id, &report, now_realtime_usec(), now_monotonic_usec(),
                              &reply, &err);
        held = group_continue(c, &commit_err);
        if (held < 0)
                return commit_error_set(error, &commit_err);
        switch (r) {
        case -ENOENT: /* lost, then forgotten */
                (void)connection_set_tracker(t, 0);
                return sd_bus_error_setf(error, TRACKER1_ERROR_UNKNOWN_TRACKER, "%s.", err.message);
        case -ESTALE:
                (void)connection_set_tracker(t, 0);
                return sd_bus_error_setf(error, TRACKER1_ERROR_TRACKER_LOST, "%s.", err.message);
        case -EINVAL:
                log_warning("Heartbeat of tracker %" PRIu64 " refused: %s", id, err.message);
                return sd_bus_error_setf(error, TRACKER1_ERROR_INVALID_HEARTBEAT,
                                         "Invalid heartbeat field %s: %s.",
                                         err.field ? err.field : "?", err.message);
        default:
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < reply.n_assignments; i++)
                log_debug("Tracker %" PRIu64 ": attempt %" PRIu64 " of job %" PRIu64 " %s %u", id,
                          reply.assignments[i].attempt, reply.assignments[i].job,
                          tracker1_task_type_to_string(reply.assignments[i].type),
                          reply.assignments[i].index);
        r = reply_new(m, NULL, &reply, &answer);
        if (r < 0)
                return r;
        if (!held)
                return sd_bus_send(NULL, answer, NULL);
        r = group_hold(c, t, m, answer, start);
        if (r < 0)
                return r;
        *ret_held = true;
        return 1;
}

/* Every heartbeat counted and timed, refused ones too: a tracker refused
 * on every beat is what an operator looks for. */
static int method_heartbeat(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Controller *c = ((TrackerConnection *)userdata)->controller;
        usec_t start = now_monotonic_usec();
        bool held = false;
        int r;

        r = handle_heartbeat(m, userdata, start, &held, error);
        c->heartbeats++;
        /* A held reply's time is observed as it is sent. */
        if (!held)
                metrics_histogram_observe(&c->heartbeat_seconds,
                                          usec_to_sec(now_monotonic_usec() - start));
        return r;
}

static int method_report_guest(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        TrackerConnection *t = userdata;
        Tracker1Guest x;
        ClusterGuest g;
        int r;

        r = tracker1_guest_read(m, &x, error);
        if (r < 0)
                return r;
        if (!t->tracker)
                return sd_bus_error_set(error, TRACKER1_ERROR_BAD_TOKEN,
                                        "Register with the cluster token first.");
        if (x.tracker != t->tracker)
                return sd_bus_error_setf(error, TRACKER1_ERROR_UNKNOWN_TRACKER,
                                         "Tracker %" PRIu64 " is not this connection's.",
                                         x.tracker);
        g = (ClusterGuest){ .cpus = x.cpus,
                            .memory = x.memory,
                            .steal_estimated = x.steal_estimated };
        r = cluster_node_set_guest(t->controller->cluster, x.tracker, &g);
        if (r == -ENOENT)
                return sd_bus_error_setf(error, TRACKER1_ERROR_UNKNOWN_TRACKER,
                                         "No tracker %" PRIu64 ".", x.tracker);
        if (r < 0)
                return r;
        log_info("Tracker %" PRIu64 ": its guest sees %u CPUs and %s of memory; its steal is %s",
                 x.tracker, g.cpus, FORMAT_SIZE(g.memory),
                 g.steal_estimated ? "an estimate" : "the kernel's");
        return sd_bus_reply_method_return(m, NULL);
}

/* A revision's heartbeat: the same arguments and reply but for its finished
 * attempts' fields. */
#define HEARTBEAT_METHOD(name, finished_type)                                                  \
        SD_BUS_METHOD_WITH_ARGS(                                                               \
                name,                                                                          \
                SD_BUS_ARGS("t", tracker, TRACKER1_NODE_TYPE, node, "a" TRACKER1_RUNNING_TYPE, \
                            running, "a" finished_type, finished),                             \
                SD_BUS_RESULT("a" TRACKER1_ASSIGNMENT_TYPE, assignments, "at", kills,          \
                              TRACKER1_SLOTS_TYPE, slots, "as", kill_reasons),                 \
                method_heartbeat, SD_BUS_VTABLE_UNPRIVILEGED)

static const sd_bus_vtable tracker_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("Register",
                                SD_BUS_ARGS("u", version, "s", token, "s", vm_uuid, "s", hostname,
                                            "u", map_slots, "u", reduce_slots, "t", slot_memory),
                                SD_BUS_RESULT("t", tracker, "t", interval), method_register,
                                SD_BUS_VTABLE_UNPRIVILEGED | SD_BUS_VTABLE_SENSITIVE),
        HEARTBEAT_METHOD(TRACKER1_HEARTBEAT_METHOD, TRACKER1_FINISHED_TYPE),
        /* Revision 2's trackers: the same report without the attempts'
         * use of CPU and I/O. */
        HEARTBEAT_METHOD(TRACKER1_HEARTBEAT_V2_METHOD, TRACKER1_FINISHED_V2_TYPE),
        /* Revision 1's trackers: without the attempts' times either. */
        HEARTBEAT_METHOD(TRACKER1_HEARTBEAT_V1_METHOD, TRACKER1_FINISHED_V1_TYPE),
        SD_BUS_METHOD_WITH_ARGS("ReportGuest",
                                SD_BUS_ARGS("t", tracker, TRACKER1_GUEST_TYPE, guest),
                                SD_BUS_NO_RESULT, method_report_guest, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

/* The tracker stays known (its tasks run on) until it misses heartbeats
 * for the lost timeout; only the connection goes. */
static void on_closed(BusWatch *w, void *userdata) {
        TrackerConnection *t = userdata;

        log_debug("Tracker %" PRIu64 " hung up", t->tracker);
        connection_drop(t);
}

/* The spare descriptor: taken at start, given up to shed a connection. */
static void spare_open(Controller *c) {
        if (c->spare_fd < 0)
                c->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC | O_NOCTTY);
}

static void accept_resume(Controller *c) {
        if (!c->accept_retry || sd_event_source_get_enabled(c->accept_retry, NULL) <= 0)
                return;
        (void)sd_event_source_set_enabled(c->accept_retry, SD_EVENT_OFF);
        spare_open(c);
        if (sd_event_source_set_enabled(c->listen_source, SD_EVENT_ON) < 0)
                /* The retry timer tries again. */
                (void)sd_event_source_set_enabled(c->accept_retry, SD_EVENT_ONESHOT);
}

static int on_accept_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        Controller *c = userdata;

        (void)sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        accept_resume(c);
        return 0;
}

/* Out of descriptors (error): the waiting connection is taken with the
 * spare descriptor and closed, and the endpoint stops accepting until a
 * connection closes or ACCEPT_RETRY_USEC passes. A listening socket left
 * readable would wake the loop at once, again and again, and starve the
 * connections whose closing would free descriptors. */
static void accept_pause(Controller *c, int error) {
        unsigned held;
        int fd;
        int r;

        if (c->spare_fd >= 0) {
                c->spare_fd = safe_close(c->spare_fd);
                fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC);
                if (fd >= 0) {
                        close(fd);
                        c->accept_shed++;
                }
                spare_open(c);
        }
        r = sd_event_source_set_enabled(c->listen_source, SD_EVENT_OFF);
        if (r >= 0)
                r = sd_event_source_set_time_relative(c->accept_retry, ACCEPT_RETRY_USEC);
        if (r >= 0)
                r = sd_event_source_set_enabled(c->accept_retry, SD_EVENT_ONESHOT);
        if (r < 0)
                log_warning_errno(r, "Cannot pause the tracker endpoint");
        if (warn_level(&c->warn_accept, &held) != LOG_LEVEL_WARNING)
                return;
        log_warning_errno(error,
                          "Cannot accept trackers: %zu connections (%zu registered); closed %u "
                          "new connections at once since the last warning. Raise LimitNOFILE= "
                          "or lower max-trackers",
                          c->n_connections, c->n_registered, c->accept_shed);
        c->accept_shed = 0;
}

static int on_accept(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Controller *c = userdata;
        TrackerConnection *t;
        unsigned held;
        int cfd;
        sd_id128_t id;
        int r;

        cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (cfd < 0) {
                r = negative_errno();
                if (r == -EMFILE || r == -ENFILE || r == -ENOBUFS || r == -ENOMEM)
                        accept_pause(c, r);
                else if (r != -EAGAIN && r != -EINTR && r != -ECONNABORTED)
                        log_warning_errno(r, "Cannot accept a tracker");
                return 0;
        }
        t = calloc(1, sizeof(*t));
        if (!t) {
                close(cfd);
                return log_oom(), 0;
        }
        t->controller = c;
        r = sd_id128_randomize(&id);
        if (r >= 0)
                r = sd_bus_new(&t->bus);
        if (r >= 0)
                r = sd_bus_set_fd(t->bus, cfd, cfd);
        if (r < 0) {
                /* Until sd_bus_set_fd() took it, the socket is ours. */
                close(cfd);
                log_warning_errno(r, "Cannot set up a tracker connection");
                connection_free(t);
                return 0;
        }
        r = sd_bus_set_server(t->bus, 1, id);
        if (r >= 0)
                r = sd_bus_set_anonymous(t->bus, 1);
        if (r >= 0)
                r = sd_bus_add_object_vtable(t->bus, NULL, TRACKER1_OBJECT_PATH, TRACKER1_INTERFACE,
                                             tracker_vtable, t);
        if (r >= 0)
                r = sd_bus_start(t->bus);
        if (r >= 0)
                r = bus_watch_new(c->event, t->bus, on_closed, t, &t->watch);
        if (r >= 0)
                r = connection_set_tracker(t, 0);
        if (r < 0) {
                /* A peer that hung up at once, as often as not. */
                log_full_errno(warn_level(&c->warn_setup, &held), r,
                               "Cannot set up a tracker connection (%u more at debug level since "
                               "the last warning)",
                               held);
                connection_free(t);
                return 0;
        }
        t->next = c->connections;
        c->connections = t;
        c->n_connections++;
        return 0;
}

/* tcp:host=H,port=P or unix:path=P (config.c checked the prefix). */
static int listen_socket(const char *address, int *ret_fd) {
        _cleanup_close_ int fd = -1;
        int r;

        if (strncmp(address, "unix:path=", 10) == 0) {
                struct sockaddr_un sa = { .sun_family = AF_UNIX };
                const char *path = address + 10;

                if (strlen(path) >= sizeof(sa.sun_path) || path[0] != '/')
                        return log_error_errno(-EINVAL, "Invalid socket path '%s'", path);
                strcpy(sa.sun_path, path);
                fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
                if (fd < 0)
                        return log_error_errno(negative_errno(), "Cannot create a socket");
                (void)unlink(path);
                if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
                        return log_error_errno(negative_errno(), "Cannot bind %s", path);
        } else {
                struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
                                          .ai_flags = AI_NUMERICSERV | AI_PASSIVE },
                                *ai = NULL;
                char host[256], port[16];
                const char *comma = strchr(address + 9, ',');
                uint64_t p;
                struct sockaddr_storage sa;
                socklen_t len = sizeof(sa);
                int one = 1;

                if (!comma || strncmp(comma, ",port=", 6) != 0 ||
                    (size_t)(comma - (address + 9)) >= sizeof(host) ||
                    parse_uint64(comma + 6, 0, 65535, &p) < 0)
                        return log_error_errno(-EINVAL, "Invalid tracker endpoint '%s'", address);
                snprintf(host, sizeof(host), "%.*s", (int)(comma - (address + 9)), address + 9);
                snprintf(port, sizeof(port), "%" PRIu64, p);
                r = getaddrinfo(host, port, &hints, &ai);
                if (r != 0)
                        return log_error_errno(-EADDRNOTAVAIL, "Cannot resolve '%s': %s", host,
                                               gai_strerror(r));
                fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
                if (fd >= 0)
                        (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
                r = fd < 0                                      ? negative_errno()
                    : bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 ? negative_errno()
                                                                : 0;
                freeaddrinfo(ai);
                if (r < 0)
                        return log_error_errno(r, "Cannot listen on %s", address);
                /* With port=0 the kernel picks one; say which. */
                if (getsockname(fd, (struct sockaddr *)&sa, &len) >= 0 &&
                    getnameinfo((struct sockaddr *)&sa, len, host, sizeof(host), port, sizeof(port),
                                NI_NUMERICHOST | NI_NUMERICSERV) == 0)
                        log_info("Tracker endpoint tcp:host=%s,port=%s", host, port);
        }
        if (listen(fd, SOMAXCONN) < 0)
                return log_error_errno(negative_errno(), "Cannot listen on %s", address);
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int tracker_endpoint_start(Controller *c) {
        int r;

        r = listen_socket(c->config.listen, &c->listen_fd);
        if (r < 0)
                return r;
        r = sd_event_add_io(c->event, &c->listen_source, c->listen_fd, EPOLLIN, on_accept, c);
        if (r < 0)
                return log_error_errno(r, "Cannot watch the tracker endpoint");
        (void)sd_event_source_set_description(c->listen_source, "tracker-endpoint");
        r = sd_event_add_time_relative(c->event, &c->accept_retry, CLOCK_MONOTONIC,
                                       ACCEPT_RETRY_USEC, 0, on_accept_retry, c);
        if (r >= 0)
                r = sd_event_source_set_enabled(c->accept_retry, SD_EVENT_OFF);
        if (r < 0)
                return log_error_errno(r, "Cannot add the tracker endpoint's retry timer");
        (void)sd_event_source_set_description(c->accept_retry, "tracker-endpoint-retry");
        /* Behind every other source: the pass's heartbeats, as many as
         * are ready (up to HEARTBEAT_GROUP_MAX), go first. */
        r = sd_event_add_defer(c->event, &c->group_commit, on_group_commit, c);
        if (r >= 0)
                r = sd_event_source_set_priority(c->group_commit, SD_EVENT_PRIORITY_IDLE);
        if (r >= 0)
                r = sd_event_source_set_enabled(c->group_commit, SD_EVENT_OFF);
        if (r < 0)
                return log_error_errno(r, "Cannot add the heartbeats' commit");
        (void)sd_event_source_set_description(c->group_commit, "tracker-endpoint-commit");
        spare_open(c);
        if (c->spare_fd < 0)
                return log_error_errno(negative_errno(), "Cannot open /dev/null");
        return 0;
}

void tracker_endpoint_stop(Controller *c) {
        if (c->group_commit)
                (void)group_release(c, NULL);
        c->group_commit = sd_event_source_disable_unref(c->group_commit);
        c->listen_source = sd_event_source_disable_unref(c->listen_source);
        c->accept_retry = sd_event_source_disable_unref(c->accept_retry);
        while (c->connections)
                connection_drop(c->connections);
        c->listen_fd = safe_close(c->listen_fd);
        c->spare_fd = safe_close(c->spare_fd);
}

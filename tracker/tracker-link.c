/* SPDX-License-Identifier: MIT */
/* flexslot-tracker's link to the controller (tracker-link.h). A step
 * starts when the timer fires: connect if need be, Register if not
 * registered, then Heartbeat, each call sent asynchronously and the next
 * one made from the answer's callback; the step ends with an answer, an
 * error or a timeout (call-timeout), and the timer is set for the next
 * one: the interval after this one was due, or the back-off while there
 * is no controller to talk to. */
#include "tracker-link.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"
#include "proto/errors.h"

static void disconnect(TrackerLink *l) {
        /* A call on its way is dropped unanswered, its callback never run. */
        l->call = sd_bus_slot_unref(l->call);
        l->bus = sd_bus_close_unref(l->bus);
        l->id = 0;
}

/* Sets the timer for the next step. */
static int step_end(TrackerLink *l) {
        usec_t next;
        int r;

        if (l->bus && l->id != 0)
                next = l->interval;
        else {
                l->backoff = l->backoff ? MIN(2 * l->backoff, l->config->reconnect_max)
                                        : TRACKER_RECONNECT_MIN;
                next = l->backoff;
                log_debug("No controller; trying again in %s", FORMAT_DURATION(next));
        }
        r = sd_event_source_set_time(l->timer, l->step_at + next);
        if (r >= 0)
                r = sd_event_source_set_enabled(l->timer, SD_EVENT_ONESHOT);
        if (r < 0)
                return sd_event_exit(l->event, log_error_errno(r, "Cannot rearm the timer"));
        return 0;
}

/* The step ends on a failure that will not mend. */
static int fatal(TrackerLink *l, int r) {
        return sd_event_exit(l->event, r);
}

/* An error answer to a call, or none in time; 0 when the next step is to
 * try again, a negative errno when the tracker is to stop. */
static int call_error(TrackerLink *l, const char *what, const sd_bus_error *e) {
        int r = sd_bus_error_get_errno(e);

        /* Only the controller's own errors are answers; the rest (a reset
         * connection, no reply) mean it is gone for now. */
        if (!sd_bus_error_is_set(e) || strncmp(e->name, "org.flexslot.", 13) != 0) {
                log_warning_errno(r > 0 ? -r : -EIO, "%s: the controller went away", what);
                disconnect(l);
                return 0;
        }
        if (sd_bus_error_has_names(e, TRACKER1_ERROR_UNKNOWN_TRACKER,
                                   TRACKER1_ERROR_TRACKER_LOST)) {
                log_warning("%s: %s: registering again", what, e->message);
                l->id = 0;
                return 0;
        }
        if (sd_bus_error_has_name(e, TRACKER1_ERROR_INVALID_HEARTBEAT)) {
                log_warning("%s refused (%s: %s): forgetting earlier attempts", what, e->name,
                            e->message);
                tracker_tasks_forget_others(l->tasks, l->id);
                return 0;
        }
        /* The controller is of another release than this tracker: nothing
         * to do but wait, at the slowest back-off, for one that serves it
         * (the tracker outlives controllers, and its running attempts
         * report once one answers). */
        if (sd_bus_error_has_name(e, TRACKER1_ERROR_INCOMPATIBLE_VERSION)) {
                if (!l->version_refused)
                        log_error("%s refused: %s: %s Trying again every %s.", what, e->name,
                                  e->message, FORMAT_DURATION(l->config->reconnect_max));
                else
                        log_debug("%s refused again: %s", what, e->message);
                l->version_refused = true;
                disconnect(l);
                l->backoff = l->config->reconnect_max;
                return 0;
        }
        /* The controller has as many trackers as it takes, or another
         * tracker of this VM is connected: room comes when one leaves or is
         * lost, so try again, backing off. */
        if (sd_bus_error_has_names(e, TRACKER1_ERROR_TOO_MANY, TRACKER1_ERROR_VM_IN_USE)) {
                log_warning("%s refused: %s: %s Trying again.", what, e->name, e->message);
                disconnect(l);
                return 0;
        }
        /* A wrong token or a refused registration will not mend itself. */
        return log_error_errno(-EACCES, "%s refused: %s: %s", what, e->name, e->message);
}

static int heartbeat_send(TrackerLink *l);

static int on_guest_reported(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        TrackerLink *l = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(m);
        int r;

        l->call = sd_bus_slot_unref(l->call);
        if (e && sd_bus_error_has_names(e, SD_BUS_ERROR_UNKNOWN_METHOD,
                                        TRACKER1_ERROR_INVALID_HEARTBEAT)) {
                log_notice("The controller takes no guest report (%s: %s): it is not told what "
                           "the guest sees",
                           e->name, e->message);
                l->guest_unsupported = true;
                return step_end(l);
        }
        if (e) {
                r = call_error(l, "ReportGuest", e);
                return r < 0 ? fatal(l, r) : step_end(l);
        }
        log_info("Guest: %u CPUs, %s of memory, steal from %s", l->guest.cpus,
                 FORMAT_SIZE(l->guest.memory), l->guest.steal_estimated ? "estimate" : "proc");
        l->guest_reported_to = l->id;
        return step_end(l);
}

/* What this tracker sees of its VM, for ReportGuest: after each
 * registration and when it changes (a vCPU hot-added, the balloon); else
 * the step ends. */
static int guest_send(TrackerLink *l) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        Tracker1Guest g = { .tracker = l->id,
                            .steal_estimated = l->steal_source == STEAL_ESTIMATED,
                            .cpus = l->cpu_before.cpus };
        int r;

        /* Not before two samples have told where the steal comes from. */
        if (l->guest_unsupported || l->steal_source == _STEAL_SOURCE_MAX || g.cpus == 0 ||
            proc_meminfo_total_read(&g.memory) < 0)
                return step_end(l);
        if (l->guest_reported_to == l->id && g.cpus == l->guest.cpus &&
            g.memory == l->guest.memory && g.steal_estimated == l->guest.steal_estimated)
                return step_end(l);
        r = sd_bus_message_new_method_call(l->bus, &m, NULL, TRACKER1_OBJECT_PATH,
                                           TRACKER1_INTERFACE, "ReportGuest");
        if (r >= 0)
                r = tracker1_guest_append(m, &g);
        if (r >= 0)
                r = sd_bus_call_async(l->bus, &l->call, m, on_guest_reported, l,
                                      l->config->call_timeout);
        if (r < 0) {
                log_debug_errno(r, "Cannot call ReportGuest");
                disconnect(l);
                return step_end(l);
        }
        l->guest = g;
        return 0;
}

static int on_registered(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        TrackerLink *l = userdata;
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        Tracker1Registered x;
        int r;

        l->call = sd_bus_slot_unref(l->call);
        if (sd_bus_message_is_method_error(m, NULL)) {
                r = call_error(l, "Register", sd_bus_message_get_error(m));
                return r < 0 ? fatal(l, r) : step_end(l);
        }
        r = tracker1_registered_read(m, &x, &e);
        if (r < 0)
                return fatal(l, log_error_errno(r, "Cannot read Register's reply: %s",
                                                e.message ? e.message : strerror(-r)));
        l->id = x.tracker;
        l->interval = x.interval;
        l->backoff = 0;
        l->version_refused = false;
        /* A new controller may give the same id: it has heard nothing. */
        l->guest_reported_to = 0;
        log_info("Registered with %s as tracker %" PRIu64 ", heartbeat every %s",
                 l->config->controller, l->id, FORMAT_DURATION(l->interval));
        return heartbeat_send(l);
}

static int register_send(TrackerLink *l) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(l->bus, &m, NULL, TRACKER1_OBJECT_PATH,
                                           TRACKER1_INTERFACE, "Register");
        if (r >= 0)
                r = tracker1_register_append(m, &l->registration);
        if (r >= 0)
                r = sd_bus_call_async(l->bus, &l->call, m, on_registered, l,
                                      l->config->call_timeout);
        /* The step's timer guards the call: a TCP connection that fails
         * while sd-bus still opens it (the controller is down) can leave
         * the call neither answered nor timed out, and the tracker would
         * never try again (on_timer). */
        if (r >= 0)
                r = sd_event_source_set_time(l->timer, l->step_at + l->config->call_timeout);
        if (r >= 0)
                r = sd_event_source_set_enabled(l->timer, SD_EVENT_ONESHOT);
        if (r < 0) {
                log_debug_errno(r, "Cannot call Register");
                disconnect(l);
                return step_end(l);
        }
        return 0;
}

/* Applies what the reply says: new attempts, kills, slots. */
static int reply_apply(TrackerLink *l, const Tracker1Reply *x) {
        Tracker1Registration *g = &l->registration;
        int r;

        for (size_t i = 0; i < x->n_assignments; i++) {
                r = tracker_tasks_start(l->tasks, &x->assignments[i], l->id);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < x->n_kills; i++) {
                const char *cause = x->kills[i].reason;

                log_info("Killing attempt %" PRIu64 " on the controller's word%s%s",
                         x->kills[i].attempt, cause ? ": " : "", cause ? cause : "");
                tracker_tasks_kill(l->tasks, x->kills[i].attempt, cause);
        }
        /* Fewer slots take effect as tasks end: a running task is never
         * killed for a slot change, but no new one starts beyond them. */
        if (x->slots[TRACKER1_MAP] != g->slots[TRACKER1_MAP] ||
            x->slots[TRACKER1_REDUCE] != g->slots[TRACKER1_REDUCE] ||
            x->slot_memory != g->slot_memory)
                log_info("Slots now %u map, %u reduce, %" PRIu64 " bytes each",
                         x->slots[TRACKER1_MAP], x->slots[TRACKER1_REDUCE], x->slot_memory);
        g->slots[TRACKER1_MAP] = x->slots[TRACKER1_MAP];
        g->slots[TRACKER1_REDUCE] = x->slots[TRACKER1_REDUCE];
        g->slot_memory = x->slot_memory;
        return 0;
}

static int on_heartbeat_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        TrackerLink *l = userdata;
        _cleanup_(tracker1_reply_done) Tracker1Reply x = { 0 };
        _cleanup_(sd_bus_error_free) sd_bus_error e = SD_BUS_ERROR_NULL;
        int r;

        l->call = sd_bus_slot_unref(l->call);
        if (sd_bus_message_is_method_error(m, NULL)) {
                r = call_error(l, "Heartbeat", sd_bus_message_get_error(m));
                return r < 0 ? fatal(l, r) : step_end(l);
        }
        /* Acknowledged: those reports are the controller's now. */
        tracker_tasks_acknowledge(l->tasks, l->sent);
        l->sent = 0;
        r = tracker1_reply_read(m, &x, &e);
        if (r < 0)
                return fatal(l, log_error_errno(r, "Cannot read the heartbeat reply: %s",
                                                e.message ? e.message : strerror(-r)));
        r = reply_apply(l, &x);
        if (r < 0)
                return fatal(l, r);
        return guest_send(l);
}

static int heartbeat_send(TrackerLink *l) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        _cleanup_(tracker1_report_done) Tracker1Report report = { .tracker = l->id };
        const unsigned *slots = l->registration.slots;
        CpuTimes now = { 0 };
        int r;

        if (proc_cpu_times_read(&now) >= 0) {
                if (l->have_cpu) {
                        cpu_times_shares(&l->cpu_before, &now, NULL, &report.iowait);
                        l->steal_source = cpu_times_steal(&l->cpu_before, &now, &l->steal_accounted,
                                                          &l->steal);
                }
                l->cpu_before = now;
                l->have_cpu = true;
        }
        report.steal = l->steal;
        for (Tracker1TaskType t = 0; t < _TRACKER1_TASK_TYPE_MAX; t++) {
                unsigned held = tracker_tasks_held(l->tasks, t);

                report.free_slots[t] = slots[t] > held ? slots[t] - held : 0;
        }
        r = tracker_tasks_report(l->tasks, &report);
        if (r >= 0)
                r = sd_bus_message_new_method_call(l->bus, &m, NULL, TRACKER1_OBJECT_PATH,
                                                   TRACKER1_INTERFACE, TRACKER1_HEARTBEAT_METHOD);
        if (r >= 0)
                r = tracker1_heartbeat_append(m, &report);
        if (r < 0)
                return fatal(l, log_error_errno(r, "Cannot build a heartbeat"));
        r = sd_bus_call_async(l->bus, &l->call, m, on_heartbeat_reply, l, l->config->call_timeout);
        if (r < 0) {
                log_warning_errno(r, "Heartbeat: the controller went away");
                disconnect(l);
                return step_end(l);
        }
        l->sent = report.n_finished;
        return 0;
}

static int connect_controller(TrackerLink *l) {
        int r;

        r = sd_bus_new(&l->bus);
        if (r >= 0)
                r = sd_bus_set_address(l->bus, l->config->controller);
        if (r >= 0)
                r = sd_bus_set_anonymous(l->bus, 1);
        if (r >= 0)
                r = sd_bus_set_method_call_timeout(l->bus, l->config->call_timeout);
        if (r >= 0)
                r = sd_bus_attach_event(l->bus, l->event, SD_EVENT_PRIORITY_NORMAL);
        if (r >= 0)
                r = sd_bus_start(l->bus);
        if (r < 0) {
                log_debug_errno(r, "Cannot connect to %s", l->config->controller);
                disconnect(l);
        }
        return r;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        TrackerLink *l = userdata;

        l->step_at = usec;
        if (l->call && l->id == 0) {
                log_warning("Register: no answer in %s: the controller went away",
                            FORMAT_DURATION(l->config->call_timeout));
                disconnect(l);
                return step_end(l);
        }
        if (!l->bus && connect_controller(l) < 0)
                return step_end(l);
        if (l->id == 0)
                return register_send(l);
        return heartbeat_send(l);
}

int tracker_link_start(TrackerLink *l, const TrackerConfig *config, sd_event *event,
                       TrackerTasks *tasks, const char *token, const TrackerIdentity *identity) {
        int r;

        *l = (TrackerLink){
                .config = config,
                .event = event,
                .tasks = tasks,
                .registration = {
                        .version = TRACKER1_VERSION,
                        .token = token,
                        .vm_uuid = identity->vm_uuid,
                        .hostname = identity->hostname,
                        .slots = { [TRACKER1_MAP] = (unsigned)config->map_slots,
                                   [TRACKER1_REDUCE] = (unsigned)config->reduce_slots },
                        .slot_memory = config->slot_memory,
                },
                .steal_source = _STEAL_SOURCE_MAX, /* until two samples of /proc/stat */
        };
        r = sd_event_add_time_relative(event, &l->timer, CLOCK_MONOTONIC, 0, 0, on_timer, l);
        if (r < 0)
                return log_error_errno(r, "Cannot add the heartbeat timer");
        (void)sd_event_source_set_description(l->timer, "tracker-link");
        return 0;
}

void tracker_link_stop(TrackerLink *l) {
        l->timer = sd_event_source_disable_unref(l->timer);
        disconnect(l);
}

/* SPDX-License-Identifier: MIT */
/* flexslot-bench-heartbeat: a heartbeat load on flexslot-controllerd's
 * tracker endpoint (proto/tracker1.h). It opens --trackers connections,
 * registers a tracker on each, and then, by default, keeps one heartbeat
 * outstanding per connection for --seconds after a --warmup: each reply is
 * answered at once by the next heartbeat, as a tracker would if its interval
 * were 0 (closed loop: the reply time is then the connections over the
 * rate, whatever the controller does). With --rate R the load is open: the
 * connections together offer R heartbeats per second, each on a schedule of
 * its own (one every N/R seconds, the phases spread evenly), as trackers
 * with a heartbeat interval do. A heartbeat that falls due while its
 * connection's last is unanswered goes when the reply comes, and its reply
 * time is counted from when it was due, not sent, so that a slow reply
 * cannot hide the heartbeats it held back (no coordinated omission). The
 * schedule sends what has fallen due at most once a millisecond, and the
 * attempts assigned in the warm-up count as having run for a while, so
 * that they end spread (warmup_age()). By
 * default the trackers hold every attempt they are given (reported
 * running, never finished), so the cluster fills and stays full: the
 * controller's store is not written, and what is measured is the
 * protocol, the model and the policy step. With --task-beats N an attempt
 * succeeds in the heartbeat after its Nth, and the step starts another in
 * its slot: each such heartbeat writes the store. With --store FILE (the
 * controller's store) each attempt assigned is looked up there, read with
 * SQL in a connection of the load's own as an operator's sqlite3 would, as
 * its reply comes: one not there was announced before its record was
 * committed. With --watch ADDRESS too (the controller's D-Bus bus), one
 * Controller1 ListAttempts call is in flight there through the measured
 * interval, each for the job of the latest attempt assigned, and each
 * attempt its reply lists as running or succeeded is looked up in the
 * store as the reply comes: one not there so was shown to a client before
 * its record was committed. One line of key=value figures on stdout:
 *   trackers seconds heartbeats rate (per s) p50_us p99_us max_us
 *   offered (--rate; 0: closed loop) late (of the heartbeats due in the
 *   measured interval, those sent after they were due); with --rate,
 *   heartbeats are those due in the measured interval (all answered, the
 *   load waits for them) and rate the replies that came in it per second;
 *   latency_from (due with --rate, else sent: where reply times count from)
 *   assigned (attempts held at the end) cpu (this process's CPU share)
 *   unanswered (connections none of whose heartbeats sent in the measured
 *   interval was answered in it) finished (attempts reported succeeded)
 *   unrecorded (attempts not in --store's file when assigned; 0 without)
 *   checked (attempts --watch's replies listed running or succeeded, each
 *   looked up; 0 without) unstored (those of them the file lacks: a
 *   running one in any state, as it may have ended since, a succeeded one
 *   as succeeded) */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <sqlite3.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "common/bus-watch.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/parse.h"
#include "common/time-util.h"
#include "proto/controller1.h"
#include "proto/tracker1.h"
#include "latencies.h"
#include "tracker-conn.h"

#define HELD_MAX 64
/* --rate: the schedule's timer fires at most once in this time. */
#define SCHEDULE_TICK USEC_PER_MSEC

typedef struct Load Load;

typedef struct Tracker {
        Load *load;
        sd_bus *bus;
        BusWatch *watch;
        uint64_t id;
        /* When the heartbeat in flight was due (closed loop: sent); its
         * reply time counts from there. */
        usec_t due;
        bool in_flight;
        /* --rate: heartbeats that fell due while one was in flight, the
         * first of them due at held_back_due. */
        size_t n_held_back;
        usec_t held_back_due;
        size_t answered; /* heartbeats sent and answered in the measured interval */
        uint64_t held[HELD_MAX];
        bool held_reduce[HELD_MAX];
        unsigned held_beats[HELD_MAX]; /* heartbeats that reported it running */
        size_t n_held;
        /* Reported succeeded in the heartbeat in flight (0: none). */
        uint64_t finishing;
} Tracker;

struct Load {
        sd_event *event;
        Tracker *trackers;
        size_t n_trackers;
        size_t active; /* heartbeats in flight or held back */
        unsigned slots[2];
        usec_t start, end; /* the measured interval, monotonic */
        Latencies latencies;
        /* --rate: the interval between a connection's heartbeats, and the
         * schedule, whose kth heartbeat is connection k mod n_trackers's,
         * due at first_due + k / rate seconds. */
        double rate;
        usec_t period, first_due;
        uint64_t next_beat;
        sd_event_source *schedule;
        size_t late, replies_in_interval;
        unsigned task_beats; /* 0: attempts never finish */
        bool ending;         /* the loop ended on an error: replies are only read */
        /* --store: lookup finds an attempt's status there by its key; NULL:
         * assignments not looked up. */
        sqlite3 *store;
        sqlite3_stmt *lookup;
        size_t finished, unrecorded;
        /* --watch: the controller's bus, on which one ListAttempts is in
         * flight while the interval lasts, each for the job of the latest
         * attempt assigned (latest_job), whose records are the newest.
         * checked: attempts listed running or succeeded, looked up;
         * unstored: those of them the store did not hold so. */
        sd_bus *watch;
        bool watch_in_flight;
        uint64_t latest_job, watching;
        size_t checked, unstored;
        int error;
};

static unsigned held_of(const Tracker *t, bool reduce) {
        unsigned n = 0;

        for (size_t i = 0; i < t->n_held; i++)
                n += t->held_reduce[i] == reduce;
        return n;
}

static int send_beat(Tracker *t, usec_t due);

/* Ends the loop once the interval is over and no heartbeat is in flight or
 * held back, nor a --watch call. */
static int load_settled(Load *l) {
        if (now_monotonic_usec() < l->end || l->active > 0 || l->watch_in_flight)
                return 0;
        return sd_event_exit(l->event, 0);
}

static void held_remove(Tracker *t, size_t i) {
        t->n_held--;
        t->held[i] = t->held[t->n_held];
        t->held_reduce[i] = t->held_reduce[t->n_held];
        t->held_beats[i] = t->held_beats[t->n_held];
}

static int store_open_lookup(Load *l, const char *file) {
        int rc;

        rc = sqlite3_open_v2(file, &l->store, SQLITE_OPEN_READONLY, NULL);
        if (rc == SQLITE_OK)
                rc = sqlite3_prepare_v2(l->store,
                                        "SELECT status FROM task_attempts WHERE job = ? AND "
                                        "type = ? AND idx = ? AND attempt = ?",
                                        -1, &l->lookup, NULL);
        if (rc != SQLITE_OK)
                return log_error_errno(-EIO, "Cannot open %s: %s", file,
                                       l->store ? sqlite3_errmsg(l->store) : sqlite3_errstr(rc));
        return 0;
}

/* Whether the store's committed records hold the attempt of job, with
 * status (NULL: in any status). The controller records an attempt before
 * any tracker may hear of it; ListAttempts lists an attempt running or
 * succeeded, and a running one may have ended since, its record with it,
 * so any record of it will do, while a succeeded one stays succeeded. */
static int stored(Load *l, uint64_t job, const char *type, uint32_t index, uint64_t attempt,
                  const char *status) {
        sqlite3_stmt *st = l->lookup;
        const char *found;
        int rc, r;

        rc = sqlite3_bind_int64(st, 1, (int64_t)job);
        if (rc == SQLITE_OK)
                rc = sqlite3_bind_text(st, 2, type, -1, SQLITE_STATIC);
        if (rc == SQLITE_OK)
                rc = sqlite3_bind_int64(st, 3, index);
        if (rc == SQLITE_OK)
                rc = sqlite3_bind_int64(st, 4, (int64_t)attempt);
        if (rc == SQLITE_OK)
                rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
                found = (const char *)sqlite3_column_text(st, 0);
                r = !status || (found && strcmp(found, status) == 0);
        } else
                r = 0;
        (void)sqlite3_reset(st);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
                return log_error_errno(-EIO, "Cannot read the store: %s", sqlite3_errmsg(l->store));
        return r;
}

static int watch_send(Load *l);

/* A ListAttempts reply: each attempt it lists as running or succeeded
 * looked up in the store at once, before the controller's loop has gone
 * on for long. */
static int on_attempts(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Load *l = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(m);
        uint64_t attempt, started, finished;
        const char *type, *node, *status, *reason;
        double cpu, io;
        uint32_t index;
        int r;

        l->watch_in_flight = false;
        if (e) {
                log_error("ListAttempts: %s: %s", e->name, e->message);
                l->error = -EIO;
                return sd_event_exit(l->event, 1);
        }
        r = sd_bus_message_enter_container(m, 'a', CONTROLLER1_ATTEMPT_TYPE);
        while (r >= 0) {
                r = sd_bus_message_read(m, CONTROLLER1_ATTEMPT_TYPE, &attempt, &type, &index, &node,
                                        &status, &started, &finished, &reason, &cpu, &io);
                if (r <= 0)
                        break;
                if (strcmp(status, "running") != 0 && strcmp(status, "succeeded") != 0)
                        continue;
                r = stored(l, l->watching, type, index, attempt,
                           strcmp(status, "running") == 0 ? NULL : status);
                if (r < 0)
                        break;
                l->checked++;
                l->unstored += r == 0;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        if (r < 0) {
                log_error_errno(r, "Cannot read ListAttempts' reply");
                l->error = r;
                return sd_event_exit(l->event, 1);
        }
        if (now_monotonic_usec() < l->end)
                return watch_send(l);
        return load_settled(l);
}

/* The latest job's ListAttempts, on the controller's bus. */
static int watch_send(Load *l) {
        int r;

        l->watching = l->latest_job;
        r = sd_bus_call_method_async(l->watch, NULL, CONTROLLER1_BUS_NAME, CONTROLLER1_OBJECT_PATH,
                                     CONTROLLER1_INTERFACE, "ListAttempts", on_attempts, l, "t",
                                     l->watching);
        if (r < 0) {
                log_error_errno(r, "Cannot call ListAttempts");
                l->error = r;
                return sd_event_exit(l->event, 1);
        }
        l->watch_in_flight = true;
        return 0;
}

/* --watch: an attempt of job was assigned; the listing starts with the
 * measured interval. */
static int watch_job(Load *l, uint64_t job) {
        usec_t now = now_monotonic_usec();

        l->latest_job = job;
        if (l->watch_in_flight || now < l->start || now >= l->end)
                return 0;
        return watch_send(l);
}

/* --rate: how many heartbeats an attempt assigned before the measured
 * interval counts as run already, so that the attempts end spread as in a
 * cluster that has run a while (bench-cluster.c spreads them alike): a
 * tracker's attempts gap heartbeats apart, the trackers' oldest at every
 * age up to gap. Without it every slot of an empty cluster fills within
 * one interval and the attempts then end in waves: 12,000 ends within a
 * third of a second at 4,000 trackers, which no cluster's trackers
 * report so, held every reply of the wave back for a second. The closed
 * loop keeps its attempts new, as its recorded rates were measured. */
static unsigned warmup_age(const Tracker *t, size_t position) {
        const Load *l = t->load;
        unsigned slots = l->slots[0] + l->slots[1], gap, behind;

        if (l->rate == 0 || l->task_beats == 0 || now_monotonic_usec() >= l->start)
                return 0;
        gap = (l->task_beats + slots - 1) / slots;
        behind = (unsigned)((size_t)(t - l->trackers) % gap + position * gap);
        return behind < l->task_beats ? l->task_beats - behind : 0;
}

static int read_assignments(Tracker *t, sd_bus_message *m) {
        _cleanup_(tracker1_reply_done) Tracker1Reply reply = { 0 };
        Load *l = t->load;
        int r;

        r = tracker1_reply_read(m, &reply, NULL);
        if (r < 0)
                return r;
        /* Acknowledged: the tracker forgets it. */
        for (size_t i = 0; t->finishing && i < t->n_held; i++)
                if (t->held[i] == t->finishing) {
                        held_remove(t, i);
                        l->finished++;
                        break;
                }
        t->finishing = 0;
        for (size_t i = 0; i < t->n_held; i++)
                t->held_beats[i]++;
        for (size_t i = 0; i < reply.n_assignments && t->n_held < HELD_MAX; i++) {
                if (l->store) {
                        const Tracker1Assignment *a = &reply.assignments[i];

                        r = stored(l, a->job, tracker1_task_type_to_string(a->type), a->index,
                                   a->attempt, NULL);
                        if (r < 0)
                                return r;
                        l->unrecorded += r == 0;
                }
                if (l->watch) {
                        r = watch_job(l, reply.assignments[i].job);
                        if (r < 0)
                                return r;
                }
                t->held_reduce[t->n_held] = reply.assignments[i].slot == TRACKER1_REDUCE;
                t->held_beats[t->n_held] = warmup_age(t, t->n_held);
                t->held[t->n_held++] = reply.assignments[i].attempt;
        }
        for (size_t k = 0; k < reply.n_kills; k++)
                for (size_t i = 0; i < t->n_held; i++)
                        if (t->held[i] == reply.kills[k].attempt) {
                                held_remove(t, i);
                                break;
                        }
        return 0;
}

static int on_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        Tracker *t = userdata;
        Load *l = t->load;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        usec_t now = now_monotonic_usec();
        int r;

        /* Once the loop has ended, sd-bus fails the calls of a closed
         * connection with NoReply itself: only the controller's answers
         * count then. */
        if (e && !(l->ending && sd_bus_error_has_name(e, SD_BUS_ERROR_NO_REPLY)))
                log_error("Heartbeat of tracker %" PRIu64 ": %s: %s", t->id, e->name, e->message);
        if (l->ending)
                return 0;
        if (e) {
                l->error = -EIO;
                return sd_event_exit(l->event, 1);
        }
        t->in_flight = false;
        l->active--;
        r = read_assignments(t, reply);
        if (r >= 0 && l->rate > 0) {
                /* Every heartbeat due in the interval counts, however late
                 * its reply; the rate counts the replies within it. */
                l->replies_in_interval += now >= l->start && now <= l->end;
                if (t->due >= l->start && t->due < l->end) {
                        t->answered++;
                        r = latencies_record(&l->latencies, now - t->due);
                }
        } else if (r >= 0 && t->due >= l->start && now <= l->end) {
                t->answered++;
                r = latencies_record(&l->latencies, now - t->due);
        }
        if (r < 0) {
                l->error = r;
                return sd_event_exit(l->event, 1);
        }
        if (l->rate > 0 && t->n_held_back > 0) {
                usec_t due = t->held_back_due;

                t->n_held_back--;
                t->held_back_due += l->period;
                l->active--;
                l->late += due >= l->start && due < l->end;
                return send_beat(t, due);
        }
        if (l->rate == 0 && now < l->end)
                return send_beat(t, now);
        return load_settled(l);
}

/* --rate: sends each heartbeat that has fallen due, or holds it back
 * behind the one in flight, until the end of the interval. */
static int on_schedule(sd_event_source *s, uint64_t usec, void *userdata) {
        Load *l = userdata;
        usec_t now = now_monotonic_usec(), due;
        int r;

        for (;;) {
                Tracker *t = &l->trackers[l->next_beat % l->n_trackers];

                due = l->first_due + (usec_t)((double)l->next_beat * USEC_PER_SEC / l->rate);
                if (due > now || due >= l->end)
                        break;
                l->next_beat++;
                if (t->in_flight) {
                        if (t->n_held_back++ == 0)
                                t->held_back_due = due;
                        l->active++;
                        continue;
                }
                r = send_beat(t, due);
                if (r < 0)
                        return r;
        }
        if (now >= l->end) {
                r = sd_event_source_set_enabled(s, SD_EVENT_OFF);
                return r < 0 ? r : load_settled(l);
        }
        /* The next due, or the end of the interval, to end the loop there
         * if every reply has come; no sooner than a tick from now, so that
         * the heartbeats go in batches: a timer armed again for each
         * heartbeat was a quarter of the load's CPU (timerfd_settime()) at
         * 20,000 a second, and the load's core, not the controller's, was
         * full first. A heartbeat sent up to a tick after it was due still
         * counts its reply time from when it was due. */
        r = sd_event_source_set_time(s, MIN(MAX(due, now + SCHEDULE_TICK), l->end));
        return r < 0 ? r : sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

/* The first attempt held that has run its --task-beats, if any. */
static size_t finishing_position(const Tracker *t) {
        size_t i = 0;

        while (t->load->task_beats > 0 && i < t->n_held && t->held_beats[i] < t->load->task_beats)
                i++;
        return t->load->task_beats > 0 ? i : t->n_held;
}

static int send_beat(Tracker *t, usec_t due) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        Tracker1Running running[HELD_MAX];
        Tracker1Finished done;
        Load *l = t->load;
        Tracker1Report report = { .tracker = t->id, .running = running };
        size_t end = finishing_position(t);
        int r;

        for (Tracker1TaskType type = 0; type < _TRACKER1_TASK_TYPE_MAX; type++) {
                unsigned used = held_of(t, type == TRACKER1_REDUCE);

                report.free_slots[type] = l->slots[type] - MIN(used, l->slots[type]);
        }
        for (size_t i = 0; i < t->n_held; i++)
                if (i != end)
                        running[report.n_running++] = (Tracker1Running){ .attempt = t->held[i],
                                                                         .progress = 0.5,
                                                                         .bytes_processed = 50,
                                                                         .input_size = 100,
                                                                         .cpu_time = 1000 };
        if (end < t->n_held) {
                done = (Tracker1Finished){ .attempt = t->held[end],
                                           .status = TRACKER1_SUCCEEDED,
                                           .input_bytes = 100,
                                           .output_bytes = 10,
                                           .output = "out/bench",
                                           .reason = "",
                                           .run_time = 1000 };
                report.finished = &done;
                report.n_finished = 1;
                t->finishing = done.attempt;
        }
        r = sd_bus_message_new_method_call(t->bus, &m, NULL, TRACKER1_OBJECT_PATH,
                                           TRACKER1_INTERFACE, TRACKER1_HEARTBEAT_METHOD);
        if (r >= 0)
                r = tracker1_heartbeat_append(m, &report);
        t->due = due;
        t->in_flight = true;
        l->active++;
        if (r >= 0)
                r = sd_bus_call_async(t->bus, NULL, m, on_reply, t, 0);
        /* From main() too, outside the connection's turn. */
        if (r >= 0)
                r = bus_watch_update(t->watch);
        if (r < 0) {
                log_error_errno(r, "Cannot send a heartbeat");
                l->error = r;
                return sd_event_exit(l->event, 1);
        }
        return 0;
}

static void on_closed(BusWatch *w, void *userdata) {
        Tracker *t = userdata;

        log_error("The controller closed tracker %" PRIu64 "'s connection", t->id);
        t->load->error = -ECONNRESET;
        (void)sd_event_exit(t->load->event, 1);
}

/* The loop ended on an error, often the controller's going: before it
 * went it may have answered other trackers' heartbeats, with why it
 * stopped, and which connection the loop saw fail first is chance. The
 * answers waiting on each connection are read, and reported. */
static void read_last_replies(Load *l) {
        l->ending = true;
        for (size_t i = 0; i < l->n_trackers; i++)
                while (l->trackers[i].bus && sd_bus_process(l->trackers[i].bus, NULL) > 0)
                        continue;
}

static int connect_tracker(Load *l, Tracker *t, const char *address, const char *token, size_t i) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        char host[64], uuid[64];
        Tracker1Registered registered;
        int r;

        t->load = l;
        r = tracker_bus_open(address, &t->bus);
        if (r < 0)
                return log_error_errno(r, "Cannot connect to %s", address);
        snprintf(host, sizeof(host), "load-%zu", i);
        snprintf(uuid, sizeof(uuid), "00000000-0000-0000-0000-%012zx", i + 1);
        r = tracker_register(
                t->bus,
                &(Tracker1Registration){
                        .version = TRACKER1_VERSION,
                        .token = token,
                        .vm_uuid = uuid,
                        .hostname = host,
                        .slots = { [TRACKER1_MAP] = l->slots[0], [TRACKER1_REDUCE] = l->slots[1] },
                        .slot_memory = (uint64_t)256 << 20,
                },
                &registered, &e);
        if (r < 0) {
                log_error("Register: %s: %s", e.name ? e.name : "?",
                          e.message ? e.message : strerror(-r));
                sd_bus_error_free(&e);
                return r;
        }
        t->id = registered.tracker;
        /* Not sd_bus_attach_event(), whose cost per message grows with the
         * connections (common/bus-watch.h): the load would measure itself. */
        r = bus_watch_new(l->event, t->bus, on_closed, t, &t->watch);
        return r < 0 ? log_error_errno(r, "Cannot set up tracker %zu", i) : 0;
}

static double cpu_seconds(void) {
        struct rusage ru;

        if (getrusage(RUSAGE_SELF, &ru) < 0)
                return 0;
        return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "address", required_argument, NULL, 'a' },
                { "token-file", required_argument, NULL, 't' },
                { "trackers", required_argument, NULL, 'n' },
                { "seconds", required_argument, NULL, 's' },
                { "warmup", required_argument, NULL, 'w' },
                { "task-beats", required_argument, NULL, 'b' },
                { "store", required_argument, NULL, 'S' },
                { "watch", required_argument, NULL, 'W' },
                { "rate", required_argument, NULL, 'r' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        Load l = { .slots = { 2, 1 } };
        const char *address = NULL, *token_file = NULL, *store = NULL, *watch = NULL;
        char token[TRACKER1_TOKEN_MAX + 2];
        int64_t n = 64, task_beats = 0;
        double seconds = 5, warmup = 1, cpu0;
        usec_t begin;
        int opt, r;

        log_open(argv[0]);
        while ((opt = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (opt) {
                case 'a':
                        address = optarg;
                        break;
                case 't':
                        token_file = optarg;
                        break;
                case 'n':
                        if (parse_int64(optarg, 1, 10000, &n) < 0)
                                return log_error("Invalid --trackers '%s'", optarg), 2;
                        break;
                case 's':
                        if (parse_double(optarg, 0.1, 3600, &seconds) < 0)
                                return log_error("Invalid --seconds '%s'", optarg), 2;
                        break;
                case 'w':
                        if (parse_double(optarg, 0, 3600, &warmup) < 0)
                                return log_error("Invalid --warmup '%s'", optarg), 2;
                        break;
                case 'b':
                        if (parse_int64(optarg, 0, 1000000, &task_beats) < 0)
                                return log_error("Invalid --task-beats '%s'", optarg), 2;
                        break;
                case 'S':
                        store = optarg;
                        break;
                case 'W':
                        watch = optarg;
                        break;
                case 'r':
                        if (parse_double(optarg, 1, 1000000, &l.rate) < 0)
                                return log_error("Invalid --rate '%s': heartbeats per second "
                                                 "over all connections, 1 to 1000000",
                                                 optarg),
                                       2;
                        break;
                case 'h':
                        printf("Usage: %s --address ADDRESS --token-file FILE [--trackers N (64)]\n"
                               "       [--seconds S (5)] [--warmup S (1)] [--task-beats N (0: "
                               "never)]\n"
                               "       [--store FILE [--watch BUS_ADDRESS]] [--rate R]\n"
                               "A heartbeat load of N tracker connections on a controller's "
                               "tracker\n"
                               "endpoint; one line of key=value figures on stdout "
                               "(bench/heartbeat.sh\n"
                               "runs it for make bench-heartbeat).\n"
                               "Without --rate each connection sends its next heartbeat as "
                               "the reply\n"
                               "comes (closed loop). With --rate R the connections offer R "
                               "heartbeats\n"
                               "per second in all, each one every N/R seconds (open loop); "
                               "a heartbeat\n"
                               "due while its connection's last is unanswered is sent when "
                               "the reply\n"
                               "comes, and its reply time counts from when it was due, not "
                               "sent.\n"
                               "--store FILE looks each attempt assigned up in the "
                               "controller's store\n"
                               "as its reply comes (unrecorded: those not there). "
                               "--watch BUS_ADDRESS\n"
                               "keeps a ListAttempts call in flight on the controller's bus "
                               "for the\n"
                               "job of the latest attempt assigned, and looks each attempt "
                               "it lists\n"
                               "running or succeeded up there as the reply comes (checked; "
                               "unstored:\n"
                               "those not stored so).\n",
                               program_invocation_short_name);
                        return 0;
                default:
                        return 2;
                }
        if (!address || !token_file)
                return log_error("--address and --token-file are needed"), 2;
        if (watch && !store)
                return log_error("--watch needs --store, where it looks the attempts up"), 2;
        r = tracker_token_read(token_file, token, sizeof(token));
        if (r < 0)
                return log_error_errno(r, "Cannot read %s", token_file), 1;
        l.task_beats = (unsigned)task_beats;
        if (store && store_open_lookup(&l, store) < 0) {
                sqlite3_finalize(l.lookup);
                sqlite3_close(l.store);
                return 1;
        }

        r = sd_event_default(&l.event);
        l.trackers = calloc((size_t)n, sizeof(*l.trackers));
        if (r < 0 || !l.trackers) {
                free(l.trackers);
                sd_event_unref(l.event);
                return log_error("Cannot set up the load"), 1;
        }
        l.n_trackers = (size_t)n;
        if (watch) {
                r = sd_bus_new(&l.watch);
                if (r >= 0)
                        r = sd_bus_set_address(l.watch, watch);
                if (r >= 0)
                        r = sd_bus_set_bus_client(l.watch, true);
                if (r >= 0)
                        r = sd_bus_start(l.watch);
                if (r >= 0)
                        r = sd_bus_attach_event(l.watch, l.event, SD_EVENT_PRIORITY_NORMAL);
                if (r < 0)
                        log_error_errno(r, "Cannot connect to the bus %s", watch);
        }
        for (size_t i = 0; i < l.n_trackers && r >= 0; i++)
                r = connect_tracker(&l, &l.trackers[i], address, token, i);
        begin = now_monotonic_usec();
        l.start = begin + (usec_t)(warmup * USEC_PER_SEC);
        l.end = l.start + (usec_t)(seconds * USEC_PER_SEC);
        if (l.rate > 0 && r >= 0) {
                l.period = (usec_t)((double)l.n_trackers * USEC_PER_SEC / l.rate);
                l.first_due = begin;
                /* Accuracy 1 us: sd-event's default lets a timer slip by
                 * 250 ms, which would bunch the heartbeats. */
                r = sd_event_add_time(l.event, &l.schedule, CLOCK_MONOTONIC, begin, 1, on_schedule,
                                      &l);
                if (r < 0)
                        log_error_errno(r, "Cannot set up the schedule");
        } else
                for (size_t i = 0; i < l.n_trackers && r >= 0; i++)
                        r = send_beat(&l.trackers[i], now_monotonic_usec());
        cpu0 = cpu_seconds();
        if (r >= 0)
                r = sd_event_loop(l.event);
        if (r != 0 || l.error != 0)
                read_last_replies(&l);
        if (r == 0 && l.error == 0) {
                size_t held = 0, unanswered = 0;
                double wall = (double)(now_monotonic_usec() - begin) / USEC_PER_SEC;

                for (size_t i = 0; i < l.n_trackers; i++) {
                        held += l.trackers[i].n_held;
                        unanswered += l.trackers[i].answered == 0;
                }
                size_t replies = l.rate > 0 ? l.replies_in_interval : l.latencies.n;

                latencies_sort(&l.latencies);
                printf("trackers=%zu seconds=%g heartbeats=%zu rate=%.0f p50_us=%" PRIu32
                       " p99_us=%" PRIu32 " max_us=%" PRIu32
                       " assigned=%zu cpu=%.2f unanswered=%zu finished=%zu unrecorded=%zu"
                       " checked=%zu unstored=%zu offered=%.0f late=%zu latency_from=%s\n",
                       l.n_trackers, seconds, l.latencies.n, (double)replies / seconds,
                       latencies_percentile(&l.latencies, 0.5),
                       latencies_percentile(&l.latencies, 0.99),
                       latencies_percentile(&l.latencies, 1.0), held, (cpu_seconds() - cpu0) / wall,
                       unanswered, l.finished, l.unrecorded, l.checked, l.unstored, l.rate, l.late,
                       l.rate > 0 ? "due" : "sent");
        }
        for (size_t i = 0; i < l.n_trackers; i++) {
                bus_watch_free(l.trackers[i].watch);
                sd_bus_flush_close_unref(l.trackers[i].bus);
        }
        free(l.trackers);
        sd_event_source_unref(l.schedule);
        sd_bus_flush_close_unref(l.watch);
        sqlite3_finalize(l.lookup);
        sqlite3_close(l.store);
        latencies_done(&l.latencies);
        sd_event_unref(l.event);
        return r == 0 && l.error == 0 ? 0 : 1;
}

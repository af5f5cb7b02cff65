/* SPDX-License-Identifier: MIT */
/* flexslotctl watch and submit --wait: a job's progress until it ends.
 *
 * The controller is polled with GetJob every interval rather than followed
 * by a signal: a watcher then costs the controller nothing between polls,
 * survives a controller restart between two of them, and sees the same
 * record `show` prints. On a terminal each job is one line redrawn in place
 * (a bar of its tasks done, the counts, its stragglers, an estimate of its
 * end against its deadline); otherwise a line is printed each time a job's state or counts
 * change, so that a log or a script reads every step once. The exit status
 * says how the jobs ended. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/macro.h"
#include "ctl.h"
#include "proto/controller1.h"

#define BAR_WIDTH 24
#define SPAN_MAX 32

/* A span for people, to the second: "42s", "3m05s", "2h07m". */
static char *format_span(char *buf, size_t size, usec_t t) {
        uint64_t s = (t + USEC_PER_SEC / 2) / USEC_PER_SEC;

        if (s < 60)
                snprintf(buf, size, "%" PRIu64 "s", s);
        else if (s < 3600)
                snprintf(buf, size, "%" PRIu64 "m%02" PRIu64 "s", s / 60, s % 60);
        else
                snprintf(buf, size, "%" PRIu64 "h%02" PRIu64 "m", s / 3600, s / 60 % 60);
        return buf;
}

typedef struct WatchedJob {
        uint64_t id;
        char *name, *state, *message;
        uint32_t maps, reduces, maps_done, reduces_done;
        uint32_t stragglers, backups; /* running tasks (GetJob's) */
        uint32_t quota[2];            /* map and reduce slots; 0: none */
        usec_t submitted, finished, deadline;
        bool seen, ended;
        /* What a plain line said last: printed again only when it changes. */
        char *last_line;
} WatchedJob;

static void watched_job_clear(WatchedJob *j) {
        free(j->name);
        free(j->state);
        free(j->message);
        free(j->last_line);
        *j = (WatchedJob){ .id = j->id };
}

static int set_string(char **dst, const char *s) {
        char *copy = strdup(s);

        if (!copy)
                return -ENOMEM;
        free(*dst);
        *dst = copy;
        return 0;
}

/* GetJob's record of j->id into j. */
static int job_fetch(Ctl *ctl, WatchedJob *j) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        const char *state, *name, *user, *pool, *app, *source, *message;
        uint64_t id;
        int r;

        r = ctl_new_call(ctl, "GetJob", &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "t", j->id);
        if (r >= 0)
                r = ctl_send(ctl, m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, CONTROLLER1_JOB_TYPE "suuuu", &id, &state, &name, &user,
                                &pool, &app, &j->maps, &j->reduces, &j->maps_done, &j->reduces_done,
                                &j->submitted, &j->finished, &j->deadline, &source, &message,
                                &j->stragglers, &j->backups, &j->quota[0], &j->quota[1]);
        if (r <= 0) {
                fprintf(stderr, "%s: GetJob's reply for job %" PRIu64 " is not a job record\n",
                        CTL_PROGRAM, j->id);
                return r < 0 ? r : -EBADMSG;
        }
        r = set_string(&j->state, state);
        if (r >= 0)
                r = set_string(&j->name, name);
        if (r >= 0)
                r = set_string(&j->message, message);
        if (r < 0)
                return r;
        j->seen = true;
        j->ended = strcmp(state, "succeeded") == 0 || strcmp(state, "failed") == 0 ||
                   strcmp(state, "cancelled") == 0;
        return 0;
}

static uint32_t tasks_done(const WatchedJob *j) {
        return j->maps_done + j->reduces_done;
}

static uint32_t tasks(const WatchedJob *j) {
        return j->maps + j->reduces;
}

/* A straight-line estimate of the job's end from the share of its tasks
 * done since it was submitted; 0 while none is done. Tasks are not all
 * alike (a reduce waits for every map), so this says when the job would end
 * at its pace so far, no more. */
static usec_t estimated_end(const WatchedJob *j, usec_t now) {
        if (tasks_done(j) == 0 || now <= j->submitted)
                return 0;
        return j->submitted + (usec_t)((double)(now - j->submitted) * tasks(j) / tasks_done(j));
}

/* "in 2m10s", "2m10s ago": a time against now. */
static void format_relative(char *buf, size_t size, usec_t when, usec_t now) {
        char span[SPAN_MAX];

        format_span(span, sizeof(span), when > now ? when - now : now - when);
        snprintf(buf, size, when > now ? "in %s" : "%s ago", span);
}

/* The deadline's part of a running job's line: when it falls (against now
 * on a terminal, as a UTC time in a log, whose lines must not change with
 * the clock alone), and whether the estimate makes it. */
static void format_deadline(char *buf, size_t size, const WatchedJob *j, usec_t now,
                            bool terminal) {
        char when[SPAN_MAX + 8];
        usec_t end = estimated_end(j, now);

        if (j->deadline == 0) {
                buf[0] = '\0';
                return;
        }
        if (terminal)
                format_relative(when, sizeof(when), j->deadline, now);
        else {
                time_t t = (time_t)(j->deadline / USEC_PER_SEC);
                struct tm tm;

                strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
        }
        snprintf(buf, size, ", deadline %s%s", when,
                 end == 0             ? ""
                 : end <= j->deadline ? " (on track)"
                                      : " (estimated late)");
}

/* ", 2 stragglers (1 backed up)": what slows the job, when anything does. */
static void format_stragglers(char *buf, size_t size, const WatchedJob *j) {
        char backed_up[32] = "";

        if (j->stragglers == 0) {
                buf[0] = '\0';
                return;
        }
        if (j->backups > 0)
                snprintf(backed_up, sizeof(backed_up), " (%" PRIu32 " backed up)", j->backups);
        snprintf(buf, size, ", %" PRIu32 " straggler%s%s", j->stragglers,
                 j->stragglers == 1 ? "" : "s", backed_up);
}

/* ", quota 4 map 2 reduce": the slots its deadline scheduler holds it to,
 * when it holds it to any. */
static void format_quota(char *buf, size_t size, const WatchedJob *j) {
        if (j->quota[0] == 0 && j->quota[1] == 0) {
                buf[0] = '\0';
                return;
        }
        snprintf(buf, size, ", quota %" PRIu32 " map %" PRIu32 " reduce", j->quota[0], j->quota[1]);
}

static void format_running(char *buf, size_t size, const WatchedJob *j, usec_t now, bool terminal) {
        char eta[SPAN_MAX + 16] = "", deadline[2 * SPAN_MAX + 48], stragglers[80], quota[64];
        usec_t end = estimated_end(j, now);

        if (terminal && end > now) {
                char left[SPAN_MAX];

                format_span(left, sizeof(left), end - now);
                snprintf(eta, sizeof(eta), ", about %s left", left);
        }
        format_deadline(deadline, sizeof(deadline), j, now, terminal);
        format_stragglers(stragglers, sizeof(stragglers), j);
        format_quota(quota, sizeof(quota), j);
        snprintf(buf, size,
                 "%s, maps %" PRIu32 "/%" PRIu32 ", reduces %" PRIu32 "/%" PRIu32 "%s%s%s%s",
                 j->state, j->maps_done, j->maps, j->reduces_done, j->reduces, quota, stragglers,
                 eta, deadline);
}

/* An ended job: how it ended, after how long, against its deadline, and
 * why it failed. */
static void format_ended(char *buf, size_t size, const WatchedJob *j) {
        char took[SPAN_MAX] = "?", against[SPAN_MAX + 40] = "";

        if (j->finished >= j->submitted && j->submitted > 0)
                format_span(took, sizeof(took), j->finished - j->submitted);
        if (j->deadline > 0 && j->finished > 0) {
                char by[SPAN_MAX];

                format_span(by, sizeof(by),
                            j->finished > j->deadline ? j->finished - j->deadline
                                                      : j->deadline - j->finished);
                snprintf(against, sizeof(against),
                         j->finished > j->deadline ? ", deadline missed by %s"
                                                   : ", deadline met with %s to spare",
                         by);
        }
        snprintf(buf, size, "%s after %s%s%s%s", j->state, took, against, j->message[0] ? ": " : "",
                 j->message);
}

static void format_bar(char *buf, const WatchedJob *j) {
        unsigned filled = tasks(j) ? (unsigned)((uint64_t)BAR_WIDTH * tasks_done(j) / tasks(j)) : 0;

        for (unsigned i = 0; i < BAR_WIDTH; i++)
                buf[i] = i < filled ? '#' : '.';
        buf[BAR_WIDTH] = '\0';
}

static void job_line(char *buf, size_t size, const WatchedJob *j, usec_t now, bool terminal) {
        char what[512];

        if (j->ended)
                format_ended(what, sizeof(what), j);
        else
                format_running(what, sizeof(what), j, now, terminal);
        snprintf(buf, size, "job %" PRIu64 " %s: %s", j->id, j->name, what);
}

/* A terminal: every job's line drawn again in place, the cursor moved back
 * up over the previous drawing first. */
static void draw_terminal(WatchedJob *jobs, size_t n, bool redraw, usec_t now) {
        char line[1024], bar[BAR_WIDTH + 1];

        if (redraw)
                printf("\033[%zuA", n);
        for (size_t i = 0; i < n; i++) {
                job_line(line, sizeof(line), &jobs[i], now, true);
                format_bar(bar, &jobs[i]);
                printf("\r\033[K[%s] %s\n", bar, line);
        }
        fflush(stdout);
}

/* Not a terminal: a line per job whose line changed. */
static int print_changes(WatchedJob *jobs, size_t n, usec_t now) {
        char line[1024];

        for (size_t i = 0; i < n; i++) {
                job_line(line, sizeof(line), &jobs[i], now, false);
                if (jobs[i].last_line && strcmp(jobs[i].last_line, line) == 0)
                        continue;
                if (set_string(&jobs[i].last_line, line) < 0)
                        return -ENOMEM;
                printf("%s\n", line);
        }
        fflush(stdout);
        return 0;
}

/* 0 when every job succeeded, else the worst way one ended. */
static int exit_status(const WatchedJob *jobs, size_t n) {
        int status = EXIT_SUCCESS;

        for (size_t i = 0; i < n; i++) {
                if (strcmp(jobs[i].state, "failed") == 0)
                        return CTL_EXIT_JOB_FAILED;
                if (strcmp(jobs[i].state, "cancelled") == 0)
                        status = CTL_EXIT_JOB_CANCELLED;
        }
        return status;
}

static void sleep_usec(usec_t t) {
        struct timespec ts = { .tv_sec = (time_t)(t / USEC_PER_SEC),
                               .tv_nsec = (long)(t % USEC_PER_SEC) * 1000 };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

int ctl_watch_jobs(Ctl *ctl, const uint64_t *ids, size_t n) {
        _cleanup_free_ WatchedJob *jobs = calloc(n, sizeof(*jobs));
        bool terminal = isatty(STDOUT_FILENO) && !ctl->json, drawn = false;
        int r = 0;

        if (!jobs)
                return EXIT_FAILURE;
        for (size_t i = 0; i < n; i++)
                jobs[i].id = ids[i];
        for (;;) {
                usec_t now = now_realtime_usec();
                bool all_ended = true;

                for (size_t i = 0; i < n && r >= 0; i++)
                        if (!jobs[i].ended)
                                r = job_fetch(ctl, &jobs[i]);
                if (r < 0)
                        break;
                if (terminal) {
                        draw_terminal(jobs, n, drawn, now);
                        drawn = true;
                } else if ((r = print_changes(jobs, n, now)) < 0)
                        break;
                for (size_t i = 0; i < n; i++)
                        all_ended = all_ended && jobs[i].ended;
                if (all_ended)
                        break;
                sleep_usec(ctl->interval);
        }
        if (r >= 0)
                r = exit_status(jobs, n);
        else
                r = EXIT_FAILURE;
        for (size_t i = 0; i < n; i++)
                watched_job_clear(&jobs[i]);
        return r;
}

/* Every job that has not ended, as ListJobs has them now. */
static int unended_jobs(Ctl *ctl, uint64_t **ret, size_t *ret_n) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_free_ uint64_t *ids = NULL;
        size_t n = 0;
        int r;

        r = ctl_new_call(ctl, "ListJobs", &m);
        if (r >= 0)
                r = ctl_send(ctl, m, &reply);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', CONTROLLER1_JOB_TYPE);
        while (r > 0) {
                const char *state;
                uint64_t id, *grown;

                r = sd_bus_message_read(reply, CONTROLLER1_JOB_TYPE, &id, &state, NULL, NULL, NULL,
                                        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
                if (r <= 0)
                        break;
                if (strcmp(state, "queued") != 0 && strcmp(state, "running") != 0)
                        continue;
                grown = reallocarray(ids, n + 1, sizeof(*ids));
                if (!grown)
                        return -ENOMEM;
                ids = grown;
                ids[n++] = id;
        }
        if (r < 0) {
                fprintf(stderr, "%s: cannot read ListJobs' reply: %s\n", CTL_PROGRAM, strerror(-r));
                return r;
        }
        *ret = TAKE_PTR(ids);
        *ret_n = n;
        return 0;
}

int ctl_watch_unended(Ctl *ctl) {
        _cleanup_free_ uint64_t *ids = NULL;
        size_t n = 0;

        if (unended_jobs(ctl, &ids, &n) < 0)
                return EXIT_FAILURE;
        if (n == 0) {
                printf("No job is queued or running.\n");
                return EXIT_SUCCESS;
        }
        return ctl_watch_jobs(ctl, ids, n);
}

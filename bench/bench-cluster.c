/* SPDX-License-Identifier: MIT */
/* flexslot-bench-cluster: the controller's heartbeat path at a cluster's
 * size, in one process: cluster_heartbeat() on the live model
 * (controller/daemon/cluster.h) with its policy step (fifo), on a real
 * store (a SQLite file), called for --trackers trackers in turn, as the
 * tracker endpoint calls it for each Heartbeat it reads. The protocol is
 * left out: flexslot-bench-heartbeat measures it over the endpoint, where
 * its load generator needs a core of its own to send and read the
 * messages, and would take from the controller the core this measures.
 *
 * Each tracker has --slots map slots and holds the attempts it is given; an
 * attempt succeeds in its tracker's report once it has been reported
 * running in a number of heartbeats, and the step starts another in its
 * slot. Jobs of --job-maps maps only are submitted (cluster_submit(), the
 * SubmitJob path) as tasks succeed, so that the unfinished tasks stay at
 * each of --tasks: 100,000, then 13,000 (the same 12,000 running, fewer
 * waiting: what waiting work costs alone), then 400 (all of them running).
 *
 * What is compared across the sizes is the work waiting, so each size's
 * heartbeats do the same work: the same share of them (--end-share) ends
 * a task and starts the next, and the jobs are of one size at all of them
 * (a job's submission and end are work too). An attempt's life in its
 * tracker's heartbeats is set per size for that share: the running attempts
 * over the share of the trackers' heartbeats (400 running at 400, 12,000 at
 * the others). A tracker ends at most one attempt a heartbeat, so 400
 * attempts on 4,000 trackers of 3 slots end at most about a thirtieth of
 * the heartbeats: the default share, a fortieth, is one the 400 can keep.
 * Each size prints the share it measured. Once
 * every slot that can be filled is, it measures for --seconds the
 * heartbeats with the step, then the same cluster without the step
 * (Cluster.step false: [policy] step = no), whose trackers report their
 * attempts running and finish none: the step's share of a heartbeat, in the
 * same run. The time of a heartbeat is from the call to its reply (there is
 * no queue in front of it here); the rate counts the submissions and the
 * store's pruning too, which run on the controller's thread. Ended jobs
 * are pruned every second of the run as the controller prunes them, older
 * than --keep-ended, and the store's size is printed after the run. A
 * table per CPU-second ends the output: each size with the step, its
 * baseline, their ratio, and the ratio to the last size's rate. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/parse.h"
#include "common/time-util.h"
#include "controller/daemon/cluster-heartbeat.h"
#include "controller/daemon/cluster.h"
#include "cluster-fixture.h"
#include "latencies.h"

/* A split per BLOCK bytes of a job's input file. */
#define BLOCK 16
#define SLOTS_MAX 16
#define JOB_MAPS_MAX 1000
#define SIZES_MAX 3

typedef struct Held {
        uint64_t attempt;
        unsigned beats; /* reported running in this many heartbeats */
} Held;

typedef struct BenchTracker {
        uint64_t id;
        Held held[SLOTS_MAX];
        size_t n_held;
} BenchTracker;

typedef struct Options {
        size_t trackers;
        unsigned slots, job_maps;
        double end_share; /* of the heartbeats, those that end a task */
        unsigned group;   /* heartbeats per store group (the endpoint's pass) */
        double seconds;
        usec_t keep_ended;
        const char *dir;
} Options;

typedef struct Bench {
        const Options *o;
        ClusterFixture fixture;
        Cluster *c;
        BenchTracker *trackers;
        size_t next;    /* the tracker whose turn it is */
        unsigned group; /* heartbeats per store group; 0: none */
        /* The open group's heartbeats, by when each was called: their
         * replies wait for its commit. */
        usec_t *grouped;
        unsigned n_grouped;
        size_t unfinished, target;
        unsigned task_beats; /* an attempt's life in its tracker's heartbeats */
        char job_input[32];
        usec_t pruned_at; /* monotonic */
        Latencies latencies;
        /* Counted over a measurement. */
        size_t finished, started, submitted, pruned;
        size_t pruned_all; /* in the whole run */
} Bench;

typedef struct Figures {
        size_t heartbeats;
        double rate, cpu_rate; /* per second of wall time, of the process's CPU time */
        double end_share;      /* of the heartbeats, those that ended a task */
        uint32_t p50, p99, max;
} Figures;

static int fail(const char *what, int r, const StoreError *err) {
        fprintf(stderr, "flexslot-bench-cluster: %s: %s\n", what,
                err && err->message[0] ? err->message : strerror(-r));
        return r;
}

static int submit_job(Bench *b) {
        const char *inputs[] = { b->job_input };
        StoreJobSpec spec = { .name = "bench",
                              .user = "bench",
                              .pool = "default",
                              .app = "wordcount",
                              .inputs = inputs,
                              .n_inputs = 1 };
        StoreError err = { 0 };
        AdmitVerdict verdict;
        uint64_t id;
        int r;

        r = cluster_submit(b->c, &spec, now_realtime_usec(), &id, &verdict, &err);
        if (r < 0)
                return fail("cannot submit a job", r, &err);
        b->unfinished += b->o->job_maps;
        b->submitted++;
        return 0;
}

/* Ended jobs older than keep-ended forgotten, once a second, as the
 * controller's prune timer does. */
static int prune(Bench *b) {
        usec_t now = now_realtime_usec();
        StoreError err = { 0 };
        size_t n = 0;
        int r;

        if (now_monotonic_usec() - b->pruned_at < USEC_PER_SEC || now <= b->o->keep_ended)
                return 0;
        b->pruned_at = now_monotonic_usec();
        r = store_jobs_prune(b->fixture.store, now - b->o->keep_ended, &n, &err);
        if (r < 0)
                return fail("cannot prune", r, &err);
        b->pruned += n;
        b->pruned_all += n;
        return 0;
}

/* The open group committed, as the endpoint commits it at the end of its
 * loop's pass, before any of the group's replies goes out: each of its
 * heartbeats answered then (measure). */
static int group_commit(Bench *b, bool measure) {
        StoreError err = { 0 };
        unsigned n = b->n_grouped;
        usec_t end;
        int r;

        b->n_grouped = 0;
        r = store_group_commit(b->fixture.store, &err);
        if (r < 0)
                return fail("cannot commit a group", r, &err);
        end = now_monotonic_usec();
        for (unsigned i = 0; measure && i < n; i++) {
                r = latencies_record(&b->latencies, end - b->grouped[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The next tracker's heartbeat: its held attempts running, and the oldest
 * succeeded once it ran its beats (when finish); what the reply assigns
 * and kills taken in. */
static int beat(Bench *b, bool finish, bool measure) {
        static const char output[] = "out/bench";
        BenchTracker *t = &b->trackers[b->next];
        Tracker1Running running[SLOTS_MAX];
        Tracker1Finished done;
        Tracker1Report report = { .tracker = t->id, .running = running, .steal = 0.01 };
        Tracker1Reply reply = { 0 };
        StoreError err = { 0 };
        usec_t start, end;
        size_t first = 0;
        int r;

        b->next = (b->next + 1) % b->o->trackers;
        if (finish && t->n_held > 0 && t->held[0].beats >= b->task_beats) {
                done = (Tracker1Finished){ .attempt = t->held[0].attempt,
                                           .status = TRACKER1_SUCCEEDED,
                                           .input_bytes = BLOCK,
                                           .output_bytes = BLOCK,
                                           .output = output,
                                           .reason = "",
                                           .run_time = 1000 };
                report.finished = &done;
                report.n_finished = 1;
                first = 1;
        }
        for (size_t i = first; i < t->n_held; i++) {
                double progress = (double)t->held[i].beats / b->task_beats;

                running[report.n_running++] = (Tracker1Running){
                        .attempt = t->held[i].attempt,
                        .progress = progress < 1 ? progress : 1,
                        .bytes_processed = BLOCK / 2,
                        .input_size = BLOCK,
                        .cpu_time = 1000,
                };
        }
        report.free_slots[TRACKER1_MAP] = b->o->slots - (unsigned)report.n_running;
        start = now_monotonic_usec();
        if (b->group > 0 && b->n_grouped == 0)
                store_group_begin(b->fixture.store);
        r = cluster_heartbeat(b->c, t->id, &report, now_realtime_usec(), start, &reply, &err);
        end = now_monotonic_usec();
        if (r < 0)
                return fail("heartbeat", r, &err);
        if (first) {
                memmove(&t->held[0], &t->held[1], (t->n_held - 1) * sizeof(*t->held));
                t->n_held--;
                b->unfinished--;
                b->finished++;
        }
        for (size_t i = 0; i < t->n_held; i++)
                t->held[i].beats++;
        for (size_t i = 0; i < reply.n_assignments && t->n_held < SLOTS_MAX; i++) {
                t->held[t->n_held++] = (Held){ .attempt = reply.assignments[i].attempt };
                b->started++;
        }
        for (size_t k = 0; k < reply.n_kills; k++)
                for (size_t i = 0; i < t->n_held; i++)
                        if (t->held[i].attempt == reply.kills[k].attempt) {
                                t->held[i] = t->held[--t->n_held];
                                break;
                        }
        tracker1_reply_done(&reply);
        if (b->group > 0) {
                b->grouped[b->n_grouped++] = start;
                r = b->n_grouped == b->group ? group_commit(b, measure) : 0;
        } else
                r = measure ? latencies_record(&b->latencies, end - start) : 0;
        if (r < 0)
                return r;
        while (b->unfinished + b->o->job_maps <= b->target) {
                r = submit_job(b);
                if (r < 0)
                        return r;
        }
        return prune(b);
}

static double ratio(double x, double y) {
        return y > 0 ? x / y : 0;
}

static double cpu_seconds(void) {
        struct timespec ts;

        if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) < 0)
                return 0;
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Heartbeats for o->seconds, each tracker in turn. */
static int measure(Bench *b, bool finish, Figures *ret) {
        usec_t start = now_monotonic_usec(), end = start + (usec_t)(b->o->seconds * USEC_PER_SEC);
        usec_t now = start;
        double cpu0 = cpu_seconds(), cpu;
        int r;

        b->latencies.n = 0;
        b->finished = b->started = b->submitted = b->pruned = 0;
        while (now < end) {
                /* A round of 64 between clock reads. */
                for (unsigned i = 0; i < 64; i++) {
                        r = beat(b, finish, true);
                        if (r < 0)
                                return r;
                }
                now = now_monotonic_usec();
        }
        if (b->n_grouped > 0) {
                r = group_commit(b, true);
                if (r < 0)
                        return r;
                now = now_monotonic_usec();
        }
        cpu = cpu_seconds() - cpu0;
        latencies_sort(&b->latencies);
        *ret = (Figures){ .heartbeats = b->latencies.n,
                          .rate = (double)b->latencies.n / ((double)(now - start) / USEC_PER_SEC),
                          .cpu_rate = cpu > 0 ? (double)b->latencies.n / cpu : 0,
                          .end_share = ratio((double)b->finished, (double)b->latencies.n),
                          .p50 = latencies_percentile(&b->latencies, 0.5),
                          .p99 = latencies_percentile(&b->latencies, 0.99),
                          .max = latencies_percentile(&b->latencies, 1.0) };
        return 0;
}

static size_t running_attempts(const Bench *b) {
        size_t n = 0;

        for (size_t i = 0; i < b->o->trackers; i++)
                n += b->trackers[i].n_held;
        return n;
}

/* Store file and its write-ahead log, in bytes. */
static uint64_t store_bytes(const char *db) {
        _cleanup_free_ char *wal = NULL;
        struct stat st;
        uint64_t n = 0;

        if (stat(db, &st) == 0)
                n += (uint64_t)st.st_size;
        if (asprintf(&wal, "%s-wal", db) >= 0 && stat(wal, &st) == 0)
                n += (uint64_t)st.st_size;
        return n;
}

static void print_figures(const char *what, const Figures *f) {
        printf("  %-20s %8.0f heartbeats/s (%8.0f per CPU-second), reply p50 %5" PRIu32
               " us, p99 %6" PRIu32 " us, max %7" PRIu32 " us (%zu heartbeats, %.4f of them "
               "ending a task)\n",
               what, f->rate, f->cpu_rate, f->p50, f->p99, f->max, f->heartbeats, f->end_share);
}

/* Per CPU-second, which other work on the machine changes less than the
 * rates: each size with the step against its baseline, and against the
 * last size (the aim: 40,000 heartbeats per second at 100,000
 * unfinished tasks, within 10 % of the rate at 400). */
static void print_summary(const size_t *tasks, size_t n, const Figures *step,
                          const Figures *grouped, const Figures *baseline) {
        const Figures *last = &step[n - 1], *last_grouped = &grouped[n - 1];

        printf("heartbeats per CPU-second   with the step   baseline (no step)   step / baseline   "
               "step / at %zu   grouped   grouped / at %zu\n",
               tasks[n - 1], tasks[n - 1]);
        for (size_t i = 0; i < n; i++)
                printf("  at %7zu unfinished     %13.0f   %18.0f   %15.3f   %12.3f   %7.0f   "
                       "%15.3f\n",
                       tasks[i], step[i].cpu_rate, baseline[i].cpu_rate,
                       ratio(step[i].cpu_rate, baseline[i].cpu_rate),
                       ratio(step[i].cpu_rate, last->cpu_rate), grouped[i].cpu_rate,
                       ratio(grouped[i].cpu_rate, last_grouped->cpu_rate));
        for (size_t i = 0; i + 1 < n; i++)
                printf("step at %zu unfinished tasks / at %zu: rate %.3f, per CPU-second %.3f; "
                       "grouped: rate %.3f, per CPU-second %.3f\n",
                       tasks[i], tasks[n - 1], ratio(step[i].rate, last->rate),
                       ratio(step[i].cpu_rate, last->cpu_rate),
                       ratio(grouped[i].rate, last_grouped->rate),
                       ratio(grouped[i].cpu_rate, last_grouped->cpu_rate));
}

static Bench *bench_free(Bench *b) {
        if (!b)
                return NULL;
        cluster_free(b->c);
        cluster_fixture_close(&b->fixture);
        free(b->trackers);
        free(b->grouped);
        latencies_done(&b->latencies);
        free(b);
        return NULL;
}
DEFINE_POINTER_CLEANUP_FUNC(Bench, bench_free);

/* One cluster of tasks unfinished tasks, measured with and without the
 * step: the step's figures in *ret_step, the step's with its heartbeats'
 * records grouped in *ret_grouped (zero without --group), the baseline's
 * in *ret_baseline. */
static int run(const Options *o, size_t tasks, Figures *ret_step, Figures *ret_grouped,
               Figures *ret_baseline) {
        _cleanup_(bench_freep) Bench *b = calloc(1, sizeof(*b));
        const unsigned slots[_SLOT_TYPE_MAX] = { o->slots, 0 };
        StoreError err = { 0 };
        Figures with, grouped = { 0 }, without;
        char input[16];
        uint64_t counts[_STORE_JOB_STATE_MAX];
        usec_t t0;
        size_t full = 0;
        int r;

        if (!b || !(b->trackers = calloc(o->trackers, sizeof(*b->trackers))) ||
            !(b->grouped = calloc(MAX(o->group, 1u), sizeof(*b->grouped))))
                return -ENOMEM;
        b->o = o;
        b->target = tasks;
        /* An attempt is reported running task_beats times and ends at its
         * tracker's next heartbeat, whose reply starts the next in its slot:
         * each slot ends one every task_beats + 1 turns of the trackers. */
        b->task_beats = (unsigned)MAX(lround((double)MIN(tasks, o->trackers * o->slots) /
                                             (o->end_share * (double)o->trackers)) -
                                              1,
                                      1L);
        snprintf(input, sizeof(input), "%u", o->job_maps);
        snprintf(b->job_input, sizeof(b->job_input), "in/%s", input);
        r = cluster_fixture_open(&b->fixture, o->dir, BLOCK, &err);
        if (r >= 0)
                r = cluster_fixture_input(&b->fixture, input, (uint64_t)o->job_maps * BLOCK);
        if (r >= 0)
                r = cluster_new(b->fixture.store, b->fixture.policy, &b->fixture.data, &b->c, &err);
        if (r < 0)
                return fail("cannot set up the cluster", r, &err);
        for (size_t i = 0; i < o->trackers; i++) {
                char host[32];

                snprintf(host, sizeof(host), "load-%zu", i);
                r = cluster_register(b->c, host, host, slots, (uint64_t)256 << 20,
                                     now_monotonic_usec(), &b->trackers[i].id);
                if (r < 0)
                        return fail("cannot register", r, NULL);
        }
        t0 = now_monotonic_usec();
        while (b->unfinished + b->o->job_maps <= b->target) {
                r = submit_job(b);
                if (r < 0)
                        return r;
        }
        /* Every slot there are tasks for filled, none finished yet. */
        while (running_attempts(b) < MIN(tasks, o->trackers * o->slots) || full++ < o->trackers) {
                r = beat(b, false, false);
                if (r < 0)
                        return r;
        }
        /* Their ends spread as in a cluster that has run a while: a
         * tracker's attempts started gap beats apart, the trackers' oldest
         * at every age up to gap. */
        for (size_t i = 0; i < o->trackers; i++) {
                BenchTracker *t = &b->trackers[i];
                unsigned gap = t->n_held > 0 ? (b->task_beats + (unsigned)t->n_held - 1) /
                                                       (unsigned)t->n_held
                                             : 1;

                for (size_t a = 0; a < t->n_held; a++) {
                        unsigned behind = (unsigned)(i % gap) + (unsigned)a * gap;

                        t->held[a].beats = behind < b->task_beats ? b->task_beats - behind : 0;
                }
        }
        printf("%zu unfinished tasks (jobs of %u maps), %zu running, each ending after %u of "
               "its tracker's heartbeats; filled in %.1f s\n",
               b->unfinished, o->job_maps, running_attempts(b), b->task_beats,
               (double)(now_monotonic_usec() - t0) / USEC_PER_SEC);
        fflush(stdout);
        r = measure(b, true, &with);
        if (r < 0)
                return r;
        print_figures("policy step (fifo):", &with);
        if (with.end_share < 0.9 * o->end_share)
                printf("  (fewer heartbeats ended a task than --end-share asks: %zu attempts "
                       "running on %zu trackers end at most one each a heartbeat)\n",
                       running_attempts(b), o->trackers);
        printf("  %zu attempts succeeded, %zu started, %zu jobs submitted, %zu ended jobs "
               "pruned; %zu unfinished tasks, %zu running\n",
               b->finished, b->started, b->submitted, b->pruned, b->unfinished,
               running_attempts(b));
        if (o->group > 0) {
                uint64_t commits = store_commits(b->fixture.store);
                char what[32];

                b->group = o->group;
                r = measure(b, true, &grouped);
                b->group = 0;
                if (r < 0)
                        return r;
                snprintf(what, sizeof(what), "grouped by %u:", o->group);
                print_figures(what, &grouped);
                printf("  %zu attempts succeeded, %zu started; %" PRIu64 " commits\n", b->finished,
                       b->started, store_commits(b->fixture.store) - commits);
        }
        b->c->step = false;
        r = measure(b, false, &without);
        if (r < 0)
                return r;
        print_figures("baseline, no step:", &without);
        r = store_jobs_count(b->fixture.store, counts, &err);
        if (r < 0)
                return fail("cannot count the stored jobs", r, &err);
        printf("  step / baseline: rate %.3f, per CPU-second %.3f; store %.1f MB after the run, "
               "%" PRIu64 " jobs queued or running, %" PRIu64 " ended (%zu pruned)\n",
               without.rate > 0 ? with.rate / without.rate : 0,
               without.cpu_rate > 0 ? with.cpu_rate / without.cpu_rate : 0,
               (double)store_bytes(b->fixture.db) / (1 << 20),
               counts[STORE_JOB_QUEUED] + counts[STORE_JOB_RUNNING],
               counts[STORE_JOB_SUCCEEDED] + counts[STORE_JOB_FAILED] + counts[STORE_JOB_CANCELLED],
               b->pruned_all);
        fflush(stdout);
        *ret_step = with;
        *ret_grouped = grouped;
        *ret_baseline = without;
        return 0;
}

static int parse_tasks(const char *arg, size_t *tasks, size_t *n) {
        _cleanup_free_ char *copy = strdup(arg);
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        *n = 0;
        for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
                int64_t v;

                if (*n == SIZES_MAX || parse_int64(w, 40, 10000000, &v) < 0)
                        return -EINVAL;
                tasks[(*n)++] = (size_t)v;
        }
        return *n > 0 ? 0 : -EINVAL;
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                { "trackers", required_argument, NULL, 'n' },
                { "slots", required_argument, NULL, 'S' },
                { "tasks", required_argument, NULL, 'T' },
                { "end-share", required_argument, NULL, 'e' },
                { "job-maps", required_argument, NULL, 'j' },
                { "seconds", required_argument, NULL, 's' },
                { "group", required_argument, NULL, 'g' },
                { "keep-ended", required_argument, NULL, 'k' },
                { "dir", required_argument, NULL, 'd' },
                { "help", no_argument, NULL, 'h' },
                {},
        };
        Options o = { .trackers = 4000,
                      .slots = 3,
                      .job_maps = 10,
                      .end_share = 0.025,
                      .group = HEARTBEAT_GROUP_MAX,
                      .seconds = 5,
                      .keep_ended = USEC_PER_SEC };
        size_t tasks[SIZES_MAX] = { 100000, 13000, 400 }, n_tasks = SIZES_MAX;
        Figures figures[SIZES_MAX], grouped[SIZES_MAX], baselines[SIZES_MAX];
        _cleanup_free_ char *dir = NULL;
        int64_t v;
        int opt, r = 0;

        log_open(argv[0]);
        /* A job's end logs; the figures are what this prints. */
        log_set_max_level(LOG_LEVEL_ERR);
        while ((opt = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (opt) {
                case 'n':
                        if (parse_int64(optarg, 1, 100000, &v) < 0)
                                return log_error("Invalid --trackers '%s'", optarg), 2;
                        o.trackers = (size_t)v;
                        break;
                case 'S':
                        if (parse_int64(optarg, 1, SLOTS_MAX, &v) < 0)
                                return log_error("Invalid --slots '%s'", optarg), 2;
                        o.slots = (unsigned)v;
                        break;
                case 'T':
                        if (parse_tasks(optarg, tasks, &n_tasks) < 0)
                                return log_error("Invalid --tasks '%s': one to three counts of "
                                                 "40 or more, comma-separated",
                                                 optarg),
                                       2;
                        break;
                case 'e':
                        if (parse_double(optarg, 1e-6, 1, &o.end_share) < 0)
                                return log_error("Invalid --end-share '%s': a share of the "
                                                 "heartbeats above 0, at most 1",
                                                 optarg),
                                       2;
                        break;
                case 'j':
                        if (parse_int64(optarg, 1, JOB_MAPS_MAX, &v) < 0)
                                return log_error("Invalid --job-maps '%s'", optarg), 2;
                        o.job_maps = (unsigned)v;
                        break;
                case 's':
                        if (parse_double(optarg, 0.1, 3600, &o.seconds) < 0)
                                return log_error("Invalid --seconds '%s'", optarg), 2;
                        break;
                case 'g':
                        if (parse_int64(optarg, 0, 100000, &v) < 0)
                                return log_error("Invalid --group '%s'", optarg), 2;
                        o.group = (unsigned)v;
                        break;
                case 'k':
                        if (parse_duration(optarg, &o.keep_ended) < 0)
                                return log_error("Invalid --keep-ended '%s'", optarg), 2;
                        break;
                case 'd':
                        o.dir = optarg;
                        break;
                case 'h':
                        printf("Usage: %s [--trackers N (4000)] [--slots N (3)]\n"
                               "       [--tasks N[,N[,N]] (100000,13000,400)] [--job-maps N "
                               "(10)]\n"
                               "       [--end-share F (0.025)] [--seconds S (5)] [--group N "
                               "(%u)]\n"
                               "       [--keep-ended DURATION (1s)] [--dir DIR]\n"
                               "The controller's heartbeat path in process, with its policy step "
                               "and\n"
                               "without, at each count of unfinished tasks, in jobs of N maps, "
                               "the share F\n"
                               "of the heartbeats ending a task at every count; with the step "
                               "again with\n"
                               "the records of N heartbeats in one commit, as the tracker "
                               "endpoint groups\n"
                               "a pass's (0: not measured). A table per CPU-second ends the "
                               "output. The\n"
                               "store is a SQLite file in DIR (a new directory under $TMPDIR, "
                               "else\n"
                               "/var/tmp).\n",
                               program_invocation_short_name, HEARTBEAT_GROUP_MAX);
                        return 0;
                default:
                        return 2;
                }
        for (size_t i = 0; i < n_tasks; i++)
                if (tasks[i] < o.job_maps)
                        return log_error("--tasks %zu is fewer than one job of --job-maps %u",
                                         tasks[i], o.job_maps),
                               2;
        if (!o.dir) {
                const char *tmp = getenv("TMPDIR");

                if (asprintf(&dir, "%s/flexslot-bench-cluster.XXXXXX", tmp ? tmp : "/var/tmp") <
                            0 ||
                    !mkdtemp(dir))
                        return log_error("Cannot make a directory"), 1;
                o.dir = dir;
        }

        printf("flexslot heartbeat path in process: %zu trackers x %u map slots, jobs of %u "
               "maps, %.4f of the heartbeats ending a task, %.1f s each measurement, ended jobs "
               "pruned after %.1f s\n",
               o.trackers, o.slots, o.job_maps, o.end_share, o.seconds,
               (double)o.keep_ended / USEC_PER_SEC);
        for (size_t i = 0; i < n_tasks && r >= 0; i++)
                r = run(&o, tasks[i], &figures[i], &grouped[i], &baselines[i]);
        if (r >= 0)
                print_summary(tasks, n_tasks, figures, grouped, baselines);
        if (dir) {
                char path[PATH_MAX];

                snprintf(path, sizeof(path), "%s/in/%u", dir, o.job_maps);
                (void)unlink(path);
                snprintf(path, sizeof(path), "%s/in", dir);
                (void)rmdir(path);
                (void)rmdir(dir);
        }
        return r < 0 ? 1 : 0;
}

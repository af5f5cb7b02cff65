/* SPDX-License-Identifier: MIT */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macro.h"
#include "policy/core/stats.h"

static int compare_double(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}

static double percentile(const double *sorted, size_t n, double p) {
        size_t i;

        if (n == 0)
                return 0;
        i = (size_t)ceil(p * (double)n);
        return sorted[MIN(i > 0 ? i - 1 : 0, n - 1)];
}

static double task_time(const TaskResult *t) {
        return t->finished - t->started;
}

typedef struct TimedTask {
        double time;
        size_t index;
} TimedTask;

static int compare_timed_desc(const void *a, const void *b) {
        const TimedTask *x = a, *y = b;

        if (x->time != y->time)
                return (x->time < y->time) - (x->time > y->time);
        return (x->index > y->index) - (x->index < y->index);
}

/* The slowest tenth of the maps: FlexSlot Fig. 6's stragglers. */
static int summarize_slowest(const SimResults *r, RunSummary *s) {
        _cleanup_free_ TimedTask *maps = calloc(MAX(r->n_tasks, (size_t)1), sizeof(TimedTask));
        size_t n = 0, slow;

        if (!maps)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_tasks; i++)
                if (r->tasks[i].map) {
                        maps[n] = (TimedTask){ .time = task_time(&r->tasks[i]), .index = i };
                        s->map_input_mb += r->tasks[i].input_mb;
                        n++;
                }
        if (n == 0)
                return 0;
        s->map_input_mb /= (double)n;
        qsort(maps, n, sizeof(TimedTask), compare_timed_desc);
        slow = MAX(n / 10, (size_t)1);
        /* The fastest half: the last n - n / 2, slowest first. */
        for (size_t k = n / 2, fast = n - n / 2; k < n; k++)
                s->fast_half_mean += maps[k].time / (double)fast;
        for (size_t k = 0; k < slow; k++) {
                const TaskResult *t = &r->tasks[maps[k].index];
                s->slow_tenth_mean += maps[k].time / (double)slow;
                s->slow_cpu += t->cpu / (double)slow;
                s->slow_iowait += t->iowait / (double)slow;
                s->slow_steal += t->steal / (double)slow;
                s->slow_queue += t->queue / (double)slow;
                s->slow_input_mb += t->input_mb / (double)slow;
        }
        return 0;
}

static void summarize_nodes(const SimResults *r, RunSummary *s) {
        bool first = true;

        for (size_t i = 0; i < r->n_nodes; i++) {
                const NodeResult *n = &r->nodes[i];
                if (n->master)
                        continue;
                s->node_maps_min = first ? n->maps_run : MIN(s->node_maps_min, n->maps_run);
                s->node_maps_max = first ? n->maps_run : MAX(s->node_maps_max, n->maps_run);
                s->node_cpu_min = first ? n->cpu_use : MIN(s->node_cpu_min, n->cpu_use);
                s->node_cpu_max = first ? n->cpu_use : MAX(s->node_cpu_max, n->cpu_use);
                first = false;
        }
}

/* Share of the first job's time after its last map finished. */
static double tail_share(const SimResults *r) {
        double last_map = 0, jct;

        if (r->n_jobs == 0)
                return 0;
        for (size_t i = 0; i < r->n_tasks; i++)
                if (r->tasks[i].map && r->tasks[i].job == 0)
                        last_map = MAX(last_map, r->tasks[i].finished);
        jct = r->jobs[0].finished - r->jobs[0].submitted;
        return jct > 0 ? (r->jobs[0].finished - last_map) / jct : 0;
}

/* The hosts' idle time of the first job by phase (RunSummary); each util
 * sample covers the control interval that ends at its time. */
static void summarize_idle(const SimResults *r, RunSummary *s) {
        double last_start = 0, last_end = 0, end;

        if (r->n_jobs == 0)
                return;
        for (size_t i = 0; i < r->n_tasks; i++)
                if (r->tasks[i].map && r->tasks[i].job == 0) {
                        last_start = MAX(last_start, r->tasks[i].started);
                        last_end = MAX(last_end, r->tasks[i].finished);
                }
        end = r->jobs[0].finished;
        for (size_t i = 1; i < r->n_util; i++) {
                double t = r->util[i].time,
                       idle = (1.0 - r->util[i].cpu) * (t - r->util[i - 1].time);

                if (t > end)
                        break;
                if (t <= last_start)
                        s->idle_early += idle;
                else if (t <= last_end)
                        s->idle_last_wave += idle;
                else
                        s->idle_tail += idle;
        }
}

int run_summarize(const SimResults *r, RunSummary *ret) {
        _cleanup_free_ double *times = calloc(MAX(r->n_tasks, (size_t)1), sizeof(double));
        RunSummary s = { 0 };
        size_t n = 0;

        if (!times)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_tasks; i++) {
                const TaskResult *t = &r->tasks[i];
                if (!t->map)
                        continue;
                times[n++] = task_time(t);
                s.cpu += t->cpu;
                s.iowait += t->iowait;
                s.steal += t->steal;
                s.queue += t->queue;
                s.stragglers += t->straggler;
                s.resized += t->resize_kills > 0;
                s.resize_kills += t->resize_kills;
                s.local_maps += t->local;
        }
        s.makespan = r->makespan;
        s.slot_changes = (unsigned)r->slot_changes;
        s.borrowed = (unsigned)r->borrowed;
        s.reservations = (unsigned)r->reservations;
        s.retry_kills = (unsigned)r->retry_kills;
        s.maps = (unsigned)n;
        if (n > 0) {
                s.cpu /= (double)n;
                s.iowait /= (double)n;
                s.steal /= (double)n;
                s.queue /= (double)n;
                s.map_skewness = stats_skewness(times, n);
                for (size_t i = 0; i < n; i++)
                        s.map_mean += times[i] / (double)n;
                qsort(times, n, sizeof(double), compare_double);
                s.map_p50 = percentile(times, n, 0.5);
                s.map_p95 = percentile(times, n, 0.95);
                s.map_max = times[n - 1];
        }
        s.kills_per_straggler = s.resized ? (double)s.resize_kills / s.resized : 0;
        for (size_t j = 0; j < r->n_jobs; j++)
                s.refused += r->jobs[j].refused;
        for (size_t j = 0, ran = 0; j < r->n_jobs; j++) {
                const JobResult *jr = &r->jobs[j];

                if (jr->refused)
                        continue;
                if (ran++ == 0) {
                        s.jct = jr->finished - jr->submitted;
                        s.bound = jr->bound;
                }
                if (jr->deadline > 0 && jr->finished <= jr->deadline)
                        s.deadlines_met++;
                else if (jr->deadline > 0)
                        s.deadlines_missed++;
        }
        s.pair_bound = r->pair_bound;
        for (size_t j = 0; j < r->n_jobs; j++)
                if (!r->jobs[j].refused)
                        s.mean_jct += (r->jobs[j].finished - r->jobs[j].submitted) /
                                      (double)(r->n_jobs - s.refused);
        for (size_t i = 0; i < r->n_util; i++) {
                s.cpu_util += r->util[i].cpu / (double)r->n_util;
                s.mem_util += r->util[i].memory / (double)r->n_util;
        }
        s.events = (double)r->events;
        if (summarize_slowest(r, &s) < 0)
                return -ENOMEM;
        summarize_nodes(r, &s);
        s.tail_share = tail_share(r);
        summarize_idle(r, &s);
        *ret = s;
        return 0;
}

double run_bound_ratio(const RunSummary *s) {
        return s->bound.value > 0 ? s->jct / s->bound.value : NAN;
}

double run_slow_steal_share(const RunSummary *s) {
        double total = s->slow_cpu + s->slow_iowait + s->slow_steal + s->slow_queue;

        return total > 0 ? s->slow_steal / total : 0;
}

void run_summary_print(FILE *f, const RunSummary *s) {
        fprintf(f, "job completion time     %.1f s (mean over jobs %.1f s)\n", s->jct, s->mean_jct);
        fprintf(f,
                "lower bound             %.1f s (CPU %.1f, disk %.1f, longest chain %.1f, maps "
                "then tail %.1f)\n",
                s->bound.value, s->bound.cpu, s->bound.disk, s->bound.chain,
                s->bound.maps_then_tail);
        fprintf(f,
                "against the bound       %.2f x: any policy can win at most %.0f %% of this time\n",
                run_bound_ratio(s), 100.0 * (1.0 - 1.0 / run_bound_ratio(s)));
        fprintf(f,
                "map tasks               %u: mean %.1f s, median %.1f s, p95 %.1f s, max %.1f s\n",
                s->maps, s->map_mean, s->map_p50, s->map_p95, s->map_max);
        fprintf(f, "map task time skewness  %.2f\n", s->map_skewness);
        fprintf(f,
                "mean map task split     cpu %.1f s, I/O wait %.1f s, steal %.1f s, "
                "guest queue and start %.1f s\n",
                s->cpu, s->iowait, s->steal, s->queue);
        fprintf(f,
                "stragglers              %u named, %u resized, %u resize kills (%.2f per resized "
                "task)\n",
                s->stragglers, s->resized, s->resize_kills, s->kills_per_straggler);
        fprintf(f,
                "slowest tenth of maps   cpu %.1f s, I/O wait %.1f s, steal %.1f s (%.0f %% of "
                "their time), queue and start %.1f s; input %.0f MB (all maps %.0f MB)\n",
                s->slow_cpu, s->slow_iowait, s->slow_steal, 100.0 * run_slow_steal_share(s),
                s->slow_queue, s->slow_input_mb, s->map_input_mb);
        fprintf(f, "per slave               %u-%u maps (%.2f x), %.2f-%.2f pCPUs used\n",
                s->node_maps_min, s->node_maps_max,
                (double)s->node_maps_max / MAX(s->node_maps_min, 1u), s->node_cpu_min,
                s->node_cpu_max);
        fprintf(f, "after the last map      %.0f %% of the job's time\n", 100.0 * s->tail_share);
        fprintf(f,
                "hosts idle              %.1f s before the last wave of maps, %.1f s in it, "
                "%.1f s after the last map\n",
                s->idle_early, s->idle_last_wave, s->idle_tail);
        fprintf(f, "map slot changes        %u\n", s->slot_changes);
        if (s->borrowed + s->reservations + s->retry_kills > 0)
                fprintf(f,
                        "DynamicMR               %u tasks in borrowed slots, %u slots reserved, "
                        "%u hopeless maps killed\n",
                        s->borrowed, s->reservations, s->retry_kills);
        fprintf(f, "utilisation             CPU %.0f %% of the hosts, memory %.0f %% of the VMs\n",
                100 * s->cpu_util, 100 * s->mem_util);
        fprintf(f, "events                  %.0f\n", s->events);
        if (s->deadlines_met + s->deadlines_missed + s->refused > 0)
                fprintf(f, "deadlines               %u met, %u missed, %u jobs refused\n",
                        s->deadlines_met, s->deadlines_missed, s->refused);
}

void run_deadlines_print(FILE *f, const SimResults *r) {
        for (size_t j = 0; j < r->n_jobs; j++) {
                const JobResult *jr = &r->jobs[j];

                if (jr->refused)
                        fprintf(f, "job %zu %s refused at %.1f s: %s\n", j, jr->name, jr->submitted,
                                jr->refusal);
                else if (jr->deadline > 0)
                        fprintf(f, "job %zu %s: deadline %.1f s, finished %.1f s: %s\n", j,
                                jr->name, jr->deadline, jr->finished,
                                jr->finished <= jr->deadline ? "met" : "missed");
        }
}

/* mkdir -p: dir and each missing parent. */
static int mkdir_parents(const char *dir) {
        _cleanup_free_ char *copy = strdup(dir);

        if (!copy)
                return -ENOMEM;
        /* A leading '/' names the root, not a parent to create. */
        for (char *p = copy; *p; p++)
                if (*p == '/' && p > copy) {
                        *p = '\0';
                        if (mkdir(copy, 0755) < 0 && errno != EEXIST)
                                return negative_errno();
                        *p = '/';
                }
        if (mkdir(copy, 0755) < 0 && errno != EEXIST)
                return negative_errno();
        return 0;
}

int report_prepare_dir(const char *dir) {
        struct stat st;
        int r;

        r = mkdir_parents(dir);
        if (r < 0)
                return log_error_errno(r, "cannot create the output directory '%s'", dir);
        if (stat(dir, &st) < 0)
                return log_error_errno(negative_errno(), "output directory '%s'", dir);
        if (!S_ISDIR(st.st_mode))
                return log_error_errno(-ENOTDIR, "output directory '%s'", dir);
        if (access(dir, W_OK | X_OK) < 0)
                return log_error_errno(negative_errno(),
                                       "cannot write into the output directory '%s'", dir);
        return 0;
}

int report_write_file(const char *dir, const char *name, ReportFill fill, const void *userdata) {
        _cleanup_free_ char *path = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        int r;

        if (asprintf(&path, "%s/%s", dir, name) < 0)
                return log_oom();
        f = fopen(path, "we");
        if (!f)
                return log_error_errno(negative_errno(), "cannot create %s", path);
        r = fill(f, userdata);
        if (r < 0)
                return log_error_errno(r, "writing %s", path);
        /* A full disk or a file size limit may show only when the buffer
         * goes out: in fflush() or in fclose(). */
        if (fflush(f) != 0)
                return log_error_errno(negative_errno(), "writing %s", path);
        if (ferror(f))
                return log_error_errno(-EIO, "writing %s", path);
        if (fclose(TAKE_PTR(f)) != 0)
                return log_error_errno(negative_errno(), "writing %s", path);
        return 0;
}

void report_quote(FILE *f, const char *s) {
        /* gnuplot's single-quoted strings take a quote as two. */
        for (; *s; s++) {
                if (*s == '\'')
                        fputc('\'', f);
                fputc(*s, f);
        }
}

void report_chart_begin(FILE *f, const char *name, unsigned width, unsigned height) {
        fprintf(f,
                "reset\n"
                "set datafile separator ','; set datafile columnheaders; set grid\n"
                "set terminal pngcairo noenhanced size %u,%u font ',10'\n"
                "set output '",
                width, height);
        report_quote(f, name);
        fputs(".png'\n", f);
}

void report_chart_end(FILE *f, const char *name, unsigned width, unsigned height) {
        fprintf(f,
                "set terminal svg noenhanced size %u,%u font ',10' background 'white'\n"
                "set output '",
                width, height);
        report_quote(f, name);
        fputs(".svg'\nreplot\nset output\n", f);
}

/* Where the child of report_plot() stopped before it became gnuplot. */
typedef struct ExecFailure {
        bool in_chdir;
        int error;
} ExecFailure;

int report_plot(const char *dir, const char *script_name) {
        _cleanup_close_ int rfd = -1, wfd = -1;
        ExecFailure failure;
        int fds[2], status;
        ssize_t n;
        pid_t pid;

        if (pipe2(fds, O_CLOEXEC) < 0)
                return log_error_errno(negative_errno(), "cannot run gnuplot");
        rfd = fds[0];
        wfd = fds[1];
        pid = fork();
        if (pid < 0)
                return log_error_errno(negative_errno(), "cannot run gnuplot");
        if (pid == 0) {
                /* The pipe closes on a successful exec; otherwise it carries
                 * why not, which the exit status could not tell apart from
                 * gnuplot's own. */
                ExecFailure f = { .in_chdir = true };
                if (chdir(dir) >= 0) {
                        f.in_chdir = false;
                        execlp("gnuplot", "gnuplot", script_name, (char *)NULL);
                }
                f.error = errno;
                (void)!write(wfd, &f, sizeof(f));
                _exit(127);
        }
        close(TAKE_FD(wfd));
        do
                n = read(rfd, &failure, sizeof(failure));
        while (n < 0 && errno == EINTR);
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return log_error_errno(negative_errno(), "waiting for gnuplot");
        if (n == (ssize_t)sizeof(failure)) {
                if (failure.in_chdir)
                        return log_error_errno(-failure.error, "cannot enter %s", dir);
                if (failure.error == ENOENT)
                        return REPORT_NO_GNUPLOT;
                return log_error_errno(-failure.error, "cannot run gnuplot");
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                return 0;
        if (WIFEXITED(status))
                log_error("gnuplot failed on %s/%s with exit status %d", dir, script_name,
                          WEXITSTATUS(status));
        else
                log_error("gnuplot was killed by signal %d on %s/%s", WTERMSIG(status), dir,
                          script_name);
        return -EIO;
}

static int fill_jobs(FILE *f, const void *userdata) {
        const SimResults *r = userdata;

        fprintf(f, "job,benchmark,submitted_s,finished_s,completion_s,maps,reduces\n");
        for (size_t j = 0; j < r->n_jobs; j++) {
                const JobResult *jr = &r->jobs[j];
                fprintf(f, "%zu,%s,%.3f,%.3f,%.3f,%u,%u\n", j, jr->name, jr->submitted,
                        jr->finished, jr->finished - jr->submitted, jr->maps, jr->reduces);
        }
        return 0;
}

static int fill_tasks(FILE *f, const void *userdata) {
        const SimResults *r = userdata;

        fprintf(f, "task,job,type,input_mb,started_s,finished_s,time_s,cpu_s,iowait_s,steal_s,"
                   "queue_s,attempts,resize_kills,straggler,vm\n");
        for (size_t i = 0; i < r->n_tasks; i++) {
                const TaskResult *t = &r->tasks[i];
                fprintf(f, "%zu,%u,%s,%.2f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%u,%u,%d,%u\n", i,
                        t->job, t->map ? "map" : "reduce", t->input_mb, t->started, t->finished,
                        task_time(t), t->cpu, t->iowait, t->steal, t->queue, t->attempts,
                        t->resize_kills, t->straggler, t->vm);
        }
        return 0;
}

static int fill_nodes(FILE *f, const void *userdata) {
        const SimResults *r = userdata;

        fprintf(f, "vm,host,role,cpu_use_pcpus,steal_share,iowait_share,final_map_slots,"
                   "maps_run\n");
        for (size_t i = 0; i < r->n_nodes; i++) {
                const NodeResult *n = &r->nodes[i];
                fprintf(f, "%zu,%u,%s,%.3f,%.4f,%.4f,%u,%u\n", i, n->host,
                        n->master ? "master" : "slave", n->cpu_use, n->steal, n->iowait,
                        n->final_map_slots, n->maps_run);
        }
        return 0;
}

static int fill_util(FILE *f, const void *userdata) {
        const SimResults *r = userdata;

        fprintf(f, "time_s,cpu_share,memory_share,running_maps,map_slots\n");
        for (size_t i = 0; i < r->n_util; i++) {
                const UtilSample *u = &r->util[i];
                fprintf(f, "%.3f,%.4f,%.4f,%u,%u\n", u->time, u->cpu, u->memory, u->running_maps,
                        u->map_slots);
        }
        return 0;
}

/* The map tasks of a run, shortest first: the input of the CDF and
 * breakdown charts. */
typedef struct MapOrder {
        const SimResults *r;
        size_t *order;
        size_t n;
} MapOrder;

/* Fills order with the indices of r's map tasks and returns their number. */
static size_t map_order(const SimResults *r, size_t *order) {
        size_t n = 0;

        for (size_t i = 0; i < r->n_tasks; i++)
                if (r->tasks[i].map)
                        order[n++] = i;
        /* Insertion sort keeps equal times in task order; a few thousand
         * tasks sort in well under a millisecond. */
        for (size_t i = 1; i < n; i++)
                for (size_t j = i;
                     j > 0 && task_time(&r->tasks[order[j]]) < task_time(&r->tasks[order[j - 1]]);
                     j--) {
                        size_t t = order[j];
                        order[j] = order[j - 1];
                        order[j - 1] = t;
                }
        return n;
}

static int fill_map_cdf(FILE *f, const void *userdata) {
        const MapOrder *m = userdata;

        fprintf(f, "rank,fraction,time_s,cpu_s,iowait_s,steal_s,queue_s\n");
        for (size_t k = 0; k < m->n; k++) {
                const TaskResult *t = &m->r->tasks[m->order[k]];
                fprintf(f, "%zu,%.5f,%.3f,%.3f,%.3f,%.3f,%.3f\n", k + 1,
                        (double)(k + 1) / (double)m->n, task_time(t), t->cpu, t->iowait, t->steal,
                        t->queue);
        }
        return 0;
}

/* The breakdown chart's groups: thousands of one-task bars are unreadable,
 * twenty groups of 5 % show both the bulk and the stragglers' tail. */
#define BREAKDOWN_GROUPS 20

static int fill_map_breakdown(FILE *f, const void *userdata) {
        const MapOrder *m = userdata;
        size_t groups = MIN(m->n, (size_t)BREAKDOWN_GROUPS);

        fprintf(f, "tasks_by_time,tasks,shortest_s,longest_s,cpu_s,iowait_s,steal_s,queue_s\n");
        for (size_t g = 0; g < groups; g++) {
                size_t from = g * m->n / groups, to = (g + 1) * m->n / groups, k = to - from;
                double cpu = 0, iowait = 0, steal = 0, queue = 0;
                for (size_t i = from; i < to; i++) {
                        const TaskResult *t = &m->r->tasks[m->order[i]];
                        cpu += t->cpu;
                        iowait += t->iowait;
                        steal += t->steal;
                        queue += t->queue;
                }
                fprintf(f, "%.0f-%.0f %%,%zu,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n",
                        100.0 * (double)g / (double)groups,
                        100.0 * (double)(g + 1) / (double)groups, k,
                        task_time(&m->r->tasks[m->order[from]]),
                        task_time(&m->r->tasks[m->order[to - 1]]), cpu / (double)k,
                        iowait / (double)k, steal / (double)k, queue / (double)k);
        }
        return 0;
}

/* The charts of one run: file name, what the title says after the run's
 * name, and the settings and plot command. Column numbers refer to the CSV
 * files as the fill functions above write them. */
static const struct {
        const char *name, *what, *body;
} run_charts[] = {
        { "task-cdf", "map task time CDF",
          "set xlabel 'map task time (s)'; set ylabel 'fraction of map tasks'\n"
          "set yrange [0:1]; set key bottom right\n"
          "plot 'map-cdf.csv' using 3:2 with steps lw 2 title 'map tasks'\n" },
        { "task-breakdown", "where map task time goes, shortest tasks first",
          "set xlabel 'map tasks by time, in groups of 5 % (the last ones are the stragglers)'\n"
          "set ylabel 'mean seconds per map task'; set yrange [0:*]; set key top left\n"
          "set style data histograms; set style histogram rowstacked\n"
          "set style fill solid 0.9 border -1; set boxwidth 0.8; set xtics rotate by -45\n"
          "plot 'map-breakdown.csv' using 5:xtic(1) title 'CPU', '' using 6 title 'I/O wait', "
          "'' using 7 title 'steal', '' using 8 title 'queue and JVM start'\n" },
        { "nodes", "CPU use, steal and I/O wait of each VM over the run",
          "set xlabel 'VM (vm in nodes.csv and tasks.csv; the masters run no tasks)'\n"
          "set ylabel 'pCPUs used, share of vCPU time'; set yrange [0:*]\n"
          "set key below horizontal\n"
          "set style data histograms; set style histogram clustered\n"
          "set style fill solid 0.9 border -1\n"
          "plot 'nodes.csv' using 4:xtic(1) title 'CPU use (pCPUs)', "
          "'' using 5 title 'steal (share of vCPU time)', "
          "'' using 6 title 'I/O wait (share of vCPU time)'\n" },
        { "maps-per-node", "map tasks each VM ran",
          "set xlabel 'VM (vm in nodes.csv and tasks.csv)'; set ylabel 'map tasks'\n"
          "set yrange [0:*]; set style data histograms; set style fill solid 0.9 border -1\n"
          "plot 'nodes.csv' using 8:xtic(1) title 'map tasks finished'\n" },
        { "util", "cluster utilisation",
          "set style data lines\n"
          "set xlabel 'time (s)'; set ylabel 'share'; set yrange [0:1.05]\n"
          "plot 'util.csv' using 1:2 title 'CPU of the hosts', "
          "'' using 1:3 title 'memory of the VMs'\n" },
};

#define RUN_CHART_WIDTH 900
#define RUN_CHART_HEIGHT 560

static int fill_charts(FILE *f, const void *userdata) {
        const char *run = userdata;

        for (size_t i = 0; i < ELEMENTSOF(run_charts); i++) {
                report_chart_begin(f, run_charts[i].name, RUN_CHART_WIDTH, RUN_CHART_HEIGHT);
                fputs("set title '", f);
                report_quote(f, run);
                fprintf(f, ": %s'\n%s", run_charts[i].what, run_charts[i].body);
                report_chart_end(f, run_charts[i].name, RUN_CHART_WIDTH, RUN_CHART_HEIGHT);
        }
        return 0;
}

int report_write(const char *dir, const char *run, const SimResults *r) {
        _cleanup_free_ size_t *order = calloc(MAX(r->n_tasks, (size_t)1), sizeof(size_t));
        MapOrder maps;
        int k;

        if (!order)
                return log_oom();
        maps = (MapOrder){ .r = r, .order = order, .n = map_order(r, order) };
        k = report_prepare_dir(dir);
        if (k >= 0)
                k = report_write_file(dir, "jobs.csv", fill_jobs, r);
        if (k >= 0)
                k = report_write_file(dir, "tasks.csv", fill_tasks, r);
        if (k >= 0)
                k = report_write_file(dir, "nodes.csv", fill_nodes, r);
        if (k >= 0)
                k = report_write_file(dir, "util.csv", fill_util, r);
        if (k >= 0)
                k = report_write_file(dir, "map-cdf.csv", fill_map_cdf, &maps);
        if (k >= 0)
                k = report_write_file(dir, "map-breakdown.csv", fill_map_breakdown, &maps);
        if (k >= 0)
                k = report_write_file(dir, "charts.gp", fill_charts, run);
        if (k < 0)
                return k;
        return report_plot(dir, "charts.gp");
}

/* SPDX-License-Identifier: MIT */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/macro.h"

double skewness(const double *x, size_t n) {
        double mu = 0, m2 = 0, m3 = 0, sigma;

        if (n == 0)
                return 0;
        for (size_t i = 0; i < n; i++)
                mu += x[i];
        mu /= (double)n;
        for (size_t i = 0; i < n; i++) {
                double d = x[i] - mu;
                m2 += d * d;
                m3 += d * d * d;
        }
        sigma = sqrt(m2 / (double)n);
        if (sigma < 1e-12 * MAX(fabs(mu), 1.0))
                return 0;
        return m3 / (double)n / (sigma * sigma * sigma);
}

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
        }
        s.slot_changes = (unsigned)r->slot_changes;
        s.maps = (unsigned)n;
        if (n > 0) {
                s.cpu /= (double)n;
                s.iowait /= (double)n;
                s.steal /= (double)n;
                s.queue /= (double)n;
                s.map_skewness = skewness(times, n);
                for (size_t i = 0; i < n; i++)
                        s.map_mean += times[i] / (double)n;
                qsort(times, n, sizeof(double), compare_double);
                s.map_p50 = percentile(times, n, 0.5);
                s.map_p95 = percentile(times, n, 0.95);
                s.map_max = times[n - 1];
        }
        s.kills_per_straggler = s.resized ? (double)s.resize_kills / s.resized : 0;
        for (size_t j = 0; j < r->n_jobs; j++)
                s.mean_jct += (r->jobs[j].finished - r->jobs[j].submitted) / (double)r->n_jobs;
        if (r->n_jobs > 0)
                s.jct = r->jobs[0].finished - r->jobs[0].submitted;
        for (size_t i = 0; i < r->n_util; i++) {
                s.cpu_util += r->util[i].cpu / (double)r->n_util;
                s.mem_util += r->util[i].memory / (double)r->n_util;
        }
        s.events = (double)r->events;
        *ret = s;
        return 0;
}

void run_summary_print(FILE *f, const RunSummary *s) {
        fprintf(f, "job completion time     %.1f s (mean over jobs %.1f s)\n", s->jct,
                s->mean_jct);
        fprintf(f, "map tasks               %u: mean %.1f s, median %.1f s, p95 %.1f s, max %.1f s\n",
                s->maps, s->map_mean, s->map_p50, s->map_p95, s->map_max);
        fprintf(f, "map task time skewness  %.2f\n", s->map_skewness);
        fprintf(f, "mean map task split     cpu %.1f s, I/O wait %.1f s, steal %.1f s, "
                   "guest queue and start %.1f s\n",
                s->cpu, s->iowait, s->steal, s->queue);
        fprintf(f, "stragglers              %u named, %u resized, %u resize kills (%.2f per resized task)\n",
                s->stragglers, s->resized, s->resize_kills, s->kills_per_straggler);
        fprintf(f, "map slot changes        %u\n", s->slot_changes);
        fprintf(f, "utilisation             CPU %.0f %% of the hosts, memory %.0f %% of the VMs\n",
                100 * s->cpu_util, 100 * s->mem_util);
        fprintf(f, "events                  %.0f\n", s->events);
}

int report_mkdir(const char *dir) {
        _cleanup_free_ char *copy = strdup(dir);

        if (!copy)
                return -ENOMEM;
        for (char *p = copy + 1; *p; p++)
                if (*p == '/') {
                        *p = '\0';
                        if (mkdir(copy, 0755) < 0 && errno != EEXIST)
                                return negative_errno();
                        *p = '/';
                }
        if (mkdir(copy, 0755) < 0 && errno != EEXIST)
                return negative_errno();
        return 0;
}

static FILE *open_in(const char *dir, const char *name) {
        _cleanup_free_ char *path = NULL;

        if (asprintf(&path, "%s/%s", dir, name) < 0)
                return NULL;
        return fopen(path, "we");
}

static int write_jobs(const char *dir, const SimResults *r) {
        _cleanup_fclose_ FILE *f = open_in(dir, "jobs.csv");

        if (!f)
                return negative_errno();
        fprintf(f, "job,benchmark,submitted_s,finished_s,completion_s,maps,reduces\n");
        for (size_t j = 0; j < r->n_jobs; j++) {
                const JobResult *jr = &r->jobs[j];
                fprintf(f, "%zu,%s,%.3f,%.3f,%.3f,%u,%u\n", j, jr->name, jr->submitted,
                        jr->finished, jr->finished - jr->submitted, jr->maps, jr->reduces);
        }
        return ferror(f) ? -EIO : 0;
}

static int write_tasks(const char *dir, const SimResults *r) {
        _cleanup_fclose_ FILE *f = open_in(dir, "tasks.csv");

        if (!f)
                return negative_errno();
        fprintf(f, "task,job,type,input_mb,started_s,finished_s,time_s,cpu_s,iowait_s,steal_s,"
                   "queue_s,attempts,resize_kills,straggler,vm\n");
        for (size_t i = 0; i < r->n_tasks; i++) {
                const TaskResult *t = &r->tasks[i];
                fprintf(f, "%zu,%u,%s,%.2f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%u,%u,%d,%u\n", i,
                        t->job, t->map ? "map" : "reduce", t->input_mb, t->started, t->finished,
                        task_time(t), t->cpu, t->iowait, t->steal, t->queue, t->attempts,
                        t->resize_kills, t->straggler, t->vm);
        }
        return ferror(f) ? -EIO : 0;
}

static int write_nodes(const char *dir, const SimResults *r) {
        _cleanup_fclose_ FILE *f = open_in(dir, "nodes.csv");

        if (!f)
                return negative_errno();
        fprintf(f, "vm,host,role,cpu_use_pcpus,steal_share,iowait_share,final_map_slots,"
                   "maps_run\n");
        for (size_t i = 0; i < r->n_nodes; i++) {
                const NodeResult *n = &r->nodes[i];
                fprintf(f, "%zu,%u,%s,%.3f,%.4f,%.4f,%u,%u\n", i, n->host,
                        n->master ? "master" : "slave", n->cpu_use, n->steal, n->iowait,
                        n->final_map_slots, n->maps_run);
        }
        return ferror(f) ? -EIO : 0;
}

static int write_util(const char *dir, const SimResults *r) {
        _cleanup_fclose_ FILE *f = open_in(dir, "util.csv");

        if (!f)
                return negative_errno();
        fprintf(f, "time_s,cpu_share,memory_share,running_maps,map_slots\n");
        for (size_t i = 0; i < r->n_util; i++) {
                const UtilSample *u = &r->util[i];
                fprintf(f, "%.3f,%.4f,%.4f,%u,%u\n", u->time, u->cpu, u->memory,
                        u->running_maps, u->map_slots);
        }
        return ferror(f) ? -EIO : 0;
}

int report_gnuplot(const char *dir, const char *script_name, const char *script) {
        _cleanup_free_ char *path = NULL;
        pid_t pid;
        int status;

        {
                _cleanup_fclose_ FILE *f = open_in(dir, script_name);
                if (!f)
                        return negative_errno();
                fputs(script, f);
                if (ferror(f))
                        return -EIO;
        }
        pid = fork();
        if (pid < 0)
                return negative_errno();
        if (pid == 0) {
                if (chdir(dir) < 0)
                        _exit(126);
                execlp("gnuplot", "gnuplot", script_name, (char *)NULL);
                _exit(127);
        }
        if (waitpid(pid, &status, 0) < 0)
                return negative_errno();
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
                return -ENOENT;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

/* Map tasks shortest first, with the CDF's fraction: the input of the CDF
 * and breakdown charts. */
static int write_map_cdf(const char *dir, const SimResults *r) {
        _cleanup_fclose_ FILE *f = open_in(dir, "map-cdf.csv");
        _cleanup_free_ size_t *order = NULL;
        size_t n = 0;

        if (!f)
                return negative_errno();
        order = calloc(MAX(r->n_tasks, (size_t)1), sizeof(size_t));
        if (!order)
                return -ENOMEM;
        for (size_t i = 0; i < r->n_tasks; i++)
                if (r->tasks[i].map)
                        order[n++] = i;
        /* Insertion sort keeps equal times in task order; a few thousand
         * tasks sort in well under a millisecond. */
        for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && task_time(&r->tasks[order[j]]) <
                                                    task_time(&r->tasks[order[j - 1]]);
                     j--) {
                        size_t t = order[j];
                        order[j] = order[j - 1];
                        order[j - 1] = t;
                }
        fprintf(f, "rank,fraction,time_s,cpu_s,iowait_s,steal_s,queue_s\n");
        for (size_t k = 0; k < n; k++) {
                const TaskResult *t = &r->tasks[order[k]];
                fprintf(f, "%zu,%.5f,%.3f,%.3f,%.3f,%.3f,%.3f\n", k + 1,
                        (double)(k + 1) / (double)n, task_time(t), t->cpu, t->iowait, t->steal,
                        t->queue);
        }
        return ferror(f) ? -EIO : 0;
}

/* Column numbers refer to map-cdf.csv, nodes.csv and util.csv as written
 * above. */
static const char task_charts[] =
        "set terminal pngcairo noenhanced size 900,560 font ',10'\n"
        "set datafile separator ','\n"
        "set grid\n"
        "set output 'task-cdf.png'\n"
        "set title 'Map task time CDF'\n"
        "set xlabel 'task time (s)'; set ylabel 'fraction of map tasks'; set yrange [0:1]\n"
        "plot 'map-cdf.csv' using 3:2 every ::1 with steps lw 2 title 'map tasks'\n"
        "set output 'task-breakdown.png'\n"
        "set title 'Map task time split, shortest task first'\n"
        "set xlabel 'map tasks'; set ylabel 'seconds'; set yrange [0:*]\n"
        "set style fill solid 1.0 noborder\n"
        "plot 'map-cdf.csv' every ::1 using 1:($4+$5+$6+$7) with boxes title 'queue and start', "
        "'' every ::1 using 1:($4+$5+$6) with boxes title 'steal', "
        "'' every ::1 using 1:($4+$5) with boxes title 'I/O wait', "
        "'' every ::1 using 1:4 with boxes title 'cpu'\n"
        "set output 'nodes.png'\n"
        "set title 'Per VM over the run'\n"
        "set xlabel 'VM'; set ylabel 'share of vCPU time / pCPUs'\n"
        "set style data histograms; set style histogram clustered\n"
        "plot 'nodes.csv' using 4 title columnhead, '' using 5 title columnhead, "
        "'' using 6 title columnhead\n"
        "set output 'maps-per-node.png'\n"
        "set title 'Map tasks each VM ran'; set ylabel 'map tasks'; set yrange [0:*]\n"
        "plot 'nodes.csv' using 8 title columnhead\n"
        "set output 'util.png'\n"
        "set title 'Cluster utilisation'\n"
        "set style data lines\n"
        "set xlabel 'time (s)'; set ylabel 'share'; set yrange [0:1.05]\n"
        "plot 'util.csv' using 1:2 title 'CPU of the hosts', '' using 1:3 title 'memory of the VMs'\n";

int report_write(const char *dir, const SimResults *r) {
        int r2;

        r2 = report_mkdir(dir);
        if (r2 < 0)
                return r2;
        r2 = write_jobs(dir, r);
        if (r2 >= 0)
                r2 = write_tasks(dir, r);
        if (r2 >= 0)
                r2 = write_nodes(dir, r);
        if (r2 >= 0)
                r2 = write_util(dir, r);
        if (r2 >= 0)
                r2 = write_map_cdf(dir, r);
        if (r2 < 0)
                return r2;
        return report_gnuplot(dir, "charts.gp", task_charts);
}

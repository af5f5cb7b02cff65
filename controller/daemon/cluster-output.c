/* SPDX-License-Identifier: MIT */
/* The jobs' outputs in the data directory, as Hadoop's FileOutputCommitter
 * keeps them: every attempt writes under a name of its own (NAME.ATTEMPT,
 * mapred/output.h), so that two attempts of a task never write one
 * file, and the job's output appears under the final names (NAME) only
 * when the job succeeds.
 *
 * The commit is the controller's, at the job's end, rather than each
 * winning task's: only the controller knows which attempt won, and a task
 * commit would need Hadoop's canCommit round trip in the tracker protocol
 * to keep a loser that finishes late from committing too. A job commit
 * needs nothing from the trackers, and readers of the output never see a
 * job's parts before all are there. It can be repeated: a controller
 * killed halfway commits again when it resumes the job, and a part already
 * renamed is found under its final name.
 *
 * Losers' outputs are removed: a killed attempt's by its tracker, one that
 * succeeded before its kill reached it here, when its report comes. Only
 * outputs of attempts the controller issued are renamed or removed, by the
 * canonical names it gives them (out/JOB/_map-NNNNN.ATTEMPT,
 * out/JOB/_part-NNNNN.ATTEMPT), each resolved beneath the data directory's
 * descriptor: a tracker's report names nothing else for it to touch. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/beneath.h"
#include "common/log.h"
#include "common/macro.h"
#include "controller/daemon/cluster-output.h"
#include "mapred/output.h"

/* The data directory, held open: every name in it is resolved beneath it
 * (common/beneath.h), so that a symlink someone planted there (any tracker
 * VM, any task can write it) leads nowhere outside. */
static int data_dir_open(const char *data_dir) {
        int fd = open(data_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        return fd < 0 ? -errno : fd;
}

/* Whether OUTPUT is the name of an attempt's output of task T of job J;
 * if it is, *ret_output is what the name says. */
static bool output_of_task(const char *output, const ClusterJob *j, const ClusterTask *t,
                           AttemptOutput *ret_output) {
        AttemptOutput o;

        if (attempt_output_parse(output, &o) < 0 || o.job != j->info.id ||
            o.map != (t->type == TASK_MAP) || o.index != t->index)
                return false;
        *ret_output = o;
        return true;
}

/* Removes NAME beneath the data directory DIR_FD: 0 when it is gone,
 * -EXDEV when it leads out of the data directory. */
static int remove_beneath(int dir_fd, const char *name) {
        _cleanup_close_ int parent_fd = -EBADF;
        const char *last;
        int r;

        r = open_parent_beneath(dir_fd, name, &parent_fd, &last);
        if (r >= 0 && unlinkat(parent_fd, last, 0) < 0)
                r = -errno;
        return r == -ENOENT ? 0 : r;
}

int cluster_output_commit(const ClusterData *data, const ClusterJob *j, char *why, size_t size) {
        _cleanup_close_ int dir_fd = -EBADF;

        for (size_t i = 0; i < j->n_tasks; i++) {
                const ClusterTask *t = &j->tasks[i];
                _cleanup_close_ int from_fd = -EBADF, to_fd = -EBADF;
                _cleanup_free_ char *to = NULL;
                const char *from_name, *to_name, *dot;
                AttemptOutput o;
                int r;

                if (t->type != TASK_REDUCE || !t->output)
                        continue;
                dot = strrchr(t->output, '.');
                if (!dot || strchr(dot, '/') || !dot[1] ||
                    strspn(dot + 1, "0123456789") != strlen(dot + 1))
                        /* Not an attempt's name: the tracker wrote it final. */
                        continue;
                if (!output_of_task(t->output, j, t, &o)) {
                        snprintf(why, size,
                                 "Cannot commit reduce %u's output %s: not the name of one of "
                                 "its attempts' outputs",
                                 t->index, t->output);
                        return -EINVAL;
                }
                if (attempt_output_committed(&o, &to) < 0) {
                        snprintf(why, size, "Cannot commit reduce %u's output: out of memory",
                                 t->index);
                        return -ENOMEM;
                }
                if (dir_fd < 0) {
                        dir_fd = data_dir_open(data->data_dir);
                        if (dir_fd < 0) {
                                snprintf(why, size, "Cannot open the data directory %s: %s",
                                         data->data_dir, strerror(-dir_fd));
                                return dir_fd;
                        }
                }
                r = open_parent_beneath(dir_fd, t->output, &from_fd, &from_name);
                if (r >= 0)
                        r = open_parent_beneath(dir_fd, to, &to_fd, &to_name);
                if (r >= 0) {
                        if (renameat(from_fd, from_name, to_fd, to_name) >= 0)
                                continue;
                        r = -errno;
                        if (r == -ENOENT &&
                            faccessat(to_fd, to_name, F_OK, AT_SYMLINK_NOFOLLOW) >= 0)
                                continue;
                }
                snprintf(why, size, "Cannot commit reduce %u's output %s/%s: %s", t->index,
                         data->data_dir, t->output,
                         r == -EXDEV ? "it leads out of the data directory" : strerror(-r));
                return r;
        }
        return 0;
}

void cluster_output_discard(const Cluster *c, const ClusterRetired *r) {
        const AttemptOutput o = {
                .job = r->job, .map = r->type == TASK_MAP, .index = r->index, .attempt = r->attempt
        };
        _cleanup_close_ int dir_fd = -EBADF;
        _cleanup_free_ char *output = NULL;
        int k;

        /* The name the controller gives the output of the attempt it
         * issued, not one a tracker reports. None that a task took as its
         * own: a tracker sends a winner's report again when the controller
         * restarted before answering it. */
        if (attempt_output_format(&o, &output) < 0) {
                log_oom();
                return;
        }
        for (size_t j = 0; j < c->n_jobs; j++)
                for (size_t i = 0; i < c->jobs[j].n_tasks; i++)
                        if (c->jobs[j].tasks[i].output &&
                            strcmp(c->jobs[j].tasks[i].output, output) == 0)
                                return;
        dir_fd = data_dir_open(c->data.data_dir);
        k = dir_fd < 0 ? dir_fd : remove_beneath(dir_fd, output);
        if (k == -EXDEV)
                log_warning("Not removing %s/%s, the output of an attempt that lost: it leads "
                            "out of the data directory",
                            c->data.data_dir, output);
        else if (k < 0)
                log_warning_errno(k, "Cannot remove the output %s/%s of an attempt that lost",
                                  c->data.data_dir, output);
        else
                log_debug("Removed %s/%s, the output of an attempt that lost", c->data.data_dir,
                          output);
}

void cluster_output_remove_maps(const ClusterData *data, const ClusterJob *j) {
        _cleanup_close_ int dir_fd = data_dir_open(data->data_dir);

        if (dir_fd < 0) {
                log_warning_errno(dir_fd, "Cannot open the data directory %s", data->data_dir);
                return;
        }
        for (size_t i = 0; i < j->n_tasks; i++) {
                const ClusterTask *t = &j->tasks[i];
                AttemptOutput o;
                int r;

                if (t->type != TASK_MAP || !t->output || !output_of_task(t->output, j, t, &o))
                        continue;
                r = remove_beneath(dir_fd, t->output);
                if (r < 0)
                        log_warning_errno(r, "Cannot remove map %u's output %s/%s of job %" PRIu64,
                                          t->index, data->data_dir, t->output, j->info.id);
        }
}

ClusterTask *cluster_output_adoptable(Cluster *c, const Tracker1Finished *x) {
        _cleanup_close_ int dir_fd = -EBADF, parent_fd = -EBADF;
        const char *name;
        AttemptOutput o;

        if (attempt_output_parse(x->output, &o) < 0 || o.attempt != x->attempt)
                return NULL;
        dir_fd = data_dir_open(c->data.data_dir);
        if (dir_fd < 0 || open_parent_beneath(dir_fd, x->output, &parent_fd, &name) < 0 ||
            faccessat(parent_fd, name, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
                return NULL;
        for (size_t j = 0; j < c->n_jobs; j++) {
                if (c->jobs[j].info.id != o.job)
                        continue;
                for (size_t i = 0; i < c->jobs[j].n_tasks; i++) {
                        ClusterTask *t = &c->jobs[j].tasks[i];

                        if ((t->type == TASK_MAP) == o.map && t->index == o.index)
                                return t->state == TASK_PENDING ? t : NULL;
                }
        }
        return NULL;
}

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
 * succeeded before its kill reached it here, when its report comes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster.h"
#include "common/log.h"
#include "common/macro.h"
#include "mapred/output.h"

/* The final name of an attempt's output NAME.ATTEMPT in the data
 * directory: -EINVAL for an output without an attempt's suffix. */
static int committed_name(const char *data_dir, const char *output, char **ret) {
        const char *dot = strrchr(output, '.'), *slash = strrchr(output, '/');

        if (!dot || (slash && dot < slash) || !dot[1] ||
            strspn(dot + 1, "0123456789") != strlen(dot + 1))
                return -EINVAL;
        return asprintf(ret, "%s/%.*s", data_dir, (int)(dot - output), output) < 0 ? -ENOMEM : 0;
}

int cluster_output_commit(const ClusterData *data, const ClusterJob *j, char *why, size_t size) {
        for (size_t i = 0; i < j->n_tasks; i++) {
                const ClusterTask *t = &j->tasks[i];
                _cleanup_free_ char *from = NULL, *to = NULL;
                int r;

                if (t->type != TASK_REDUCE || !t->output)
                        continue;
                r = committed_name(data->data_dir, t->output, &to);
                if (r == -EINVAL)
                        /* Not an attempt's name: the tracker wrote it final. */
                        continue;
                if (r < 0 || asprintf(&from, "%s/%s", data->data_dir, t->output) < 0)
                        return -ENOMEM;
                if (rename(from, to) >= 0 || (errno == ENOENT && access(to, F_OK) >= 0))
                        continue;
                r = -errno;
                snprintf(why, size, "Cannot commit reduce %u's output %s: %s", t->index, from,
                         strerror(-r));
                return r;
        }
        return 0;
}

void cluster_output_discard(const Cluster *c, const char *output) {
        _cleanup_free_ char *path = NULL;

        /* Only an attempt's output in the jobs' directory, and none that a
         * task took as its own: a tracker sends a winner's report again when
         * the controller restarted before answering it. */
        if (strncmp(output, "out/", 4) != 0 || strstr(output, ".."))
                return;
        for (size_t j = 0; j < c->n_jobs; j++)
                for (size_t i = 0; i < c->jobs[j].n_tasks; i++)
                        if (c->jobs[j].tasks[i].output &&
                            strcmp(c->jobs[j].tasks[i].output, output) == 0)
                                return;
        if (asprintf(&path, "%s/%s", c->data.data_dir, output) < 0) {
                log_oom();
                return;
        }
        if (unlink(path) < 0 && errno != ENOENT)
                log_warning_errno(-errno, "Cannot remove the output %s of a lost attempt", path);
        else
                log_debug("Removed %s, the output of an attempt that lost", path);
}

ClusterTask *cluster_output_adoptable(Cluster *c, const Tracker1Finished *x) {
        _cleanup_free_ char *path = NULL;
        AttemptOutput o;

        if (attempt_output_parse(x->output, &o) < 0 || o.attempt != x->attempt)
                return NULL;
        if (asprintf(&path, "%s/%s", c->data.data_dir, x->output) < 0 || access(path, F_OK) < 0)
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

/* SPDX-License-Identifier: MIT */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "tracker/task-user.h"

/* A task as a child process: its own process group (so a kill reaches
 * everything it started), held to its slot memory, and classified when it
 * ends. The memory limit is a memory cgroup per task where one can be made
 * (the kernel OOM-kills the task beyond it, and the cgroup counts the
 * kill); otherwise RLIMIT_AS, under which an allocation fails instead and a
 * task exits with TASK_EXIT_NOMEM. RLIMIT_AS bounds address space, not
 * memory in use, so it needs headroom for what is mapped but never
 * touched, and binds each process of the task on its own. */

/* The signal a task gets when the process that started it (the tracker)
 * dies, even of SIGKILL (PR_SET_PDEATHSIG): with task_group_die_with_parent()
 * it takes the task's whole process group along. */
#define TASK_PARENT_DEATH_SIGNAL SIGHUP

/* Makes TASK_PARENT_DEATH_SIGNAL kill the caller's process group with
 * SIGKILL when the caller leads it, as a task does (task_child_spawn(), or
 * flexslot-task as the tracker runs it): the commands of a streaming task
 * and what they start go with it, which the parent-death signal alone
 * would leave to init (it is not inherited across fork). A process group
 * rather than a cgroup: killing a cgroup takes a live process to write its
 * cgroup.kill, and the one that died is the tracker; and tasks run in no
 * cgroup of their own where the tracker has no memory controller to
 * delegate (the RLIMIT_AS fallback). A command that leaves the group
 * (setsid) escapes it, as it escapes the tracker's kills. */
int task_group_die_with_parent(void);

/* Exit statuses of a task process; 2 is a usage error (EXIT_USAGE,
 * common/cli.h). */
#define TASK_EXIT_FAILED 1
#define TASK_EXIT_NOMEM 3 /* out of memory: under RLIMIT_AS, the limit */
/* The child could not join its cgroup, set its limit or become its user. */
#define TASK_EXIT_SETUP 126

typedef enum TaskMemoryMode {
        TASK_MEMORY_AUTO,   /* a cgroup when possible, else RLIMIT_AS */
        TASK_MEMORY_CGROUP, /* a cgroup, or fail */
        TASK_MEMORY_RLIMIT,
        TASK_MEMORY_NONE, /* what a spawn with no limit ends up with */
} TaskMemoryMode;

typedef struct TaskChildSpec {
        /* The task: argv executed (PATH searched), or fn called in the
         * forked child, its return value the exit status. */
        char *const *argv;
        int (*fn)(void *userdata);
        void *userdata;
        const char *name;      /* names the task's cgroup (the attempt) */
        uint64_t memory_limit; /* bytes; 0 for none */
        TaskMemoryMode memory_mode;
        const char *cgroup_parent; /* NULL: under the tracker's own cgroup */
        int inherit_fd;            /* a descriptor the task keeps, or -1 */
        /* Whom the task runs as, after it joined its cgroup and took its
         * limit (task-user.h); NULL: the spawner's own user. */
        const TaskUser *user;
        /* NULL: the task's stderr is the spawner's. Otherwise an unnamed
         * file in this directory, whose last lines the outcome carries
         * (stderr_tail): why a task failed is in its last words, which
         * would otherwise reach only the tracker's log. */
        const char *stderr_dir;
} TaskChildSpec;

typedef enum TaskEnd {
        TASK_END_SUCCEEDED,
        TASK_END_FAILED,
        TASK_END_MEMORY, /* died of its memory limit */
        TASK_END_KILLED, /* on command */
} TaskEnd;

/* What of a task's stderr an outcome keeps: at most its last
 * TASK_STDERR_LINES lines, read from its last TASK_STDERR_READ bytes, in
 * printable ASCII, in TASK_STDERR_TAIL_MAX bytes. */
#define TASK_STDERR_LINES 4
#define TASK_STDERR_READ 4096
#define TASK_STDERR_TAIL_MAX 400
/* Room for task_outcome_describe(): how it ended, and the stderr tail. */
#define TASK_OUTCOME_TEXT_MAX (TASK_STDERR_TAIL_MAX + 128)

typedef struct TaskOutcome {
        TaskEnd end;
        int exit_status;            /* -1 when a signal ended it */
        int signal;                 /* 0 when it exited */
        TaskMemoryMode memory_mode; /* the limit it ran under */
        uint64_t oom_kills;         /* cgroup: processes the kernel killed */
        usec_t cpu;                 /* user + system, with its waited-for children */
        /* Its own wait for block I/O (procstat.h, ProcStat.blkio_delay): 0
         * without the kernel's delay accounting. */
        usec_t blkio_delay;
        usec_t wall;
        /* The last lines of its stderr, joined by " | "; empty when not
         * captured (TaskChildSpec.stderr_dir) or when it wrote none. */
        char stderr_tail[TASK_STDERR_TAIL_MAX];
} TaskOutcome;

typedef struct TaskChild TaskChild;

int task_child_spawn(const TaskChildSpec *spec, TaskChild **ret);
pid_t task_child_pid(const TaskChild *c);
/* A pidfd that becomes readable when the task ends, for an event loop. */
int task_child_fd(const TaskChild *c);
TaskMemoryMode task_child_memory_mode(const TaskChild *c);

/* Waits up to timeout (0: just looks; USEC_INFINITY: until it ends);
 * -ETIMEDOUT while it runs. Whatever of its process group is left when it
 * ends is killed. */
int task_child_wait(TaskChild *c, usec_t timeout, TaskOutcome *ret);
/* Kill on command: SIGTERM to the whole process group, SIGKILL after
 * grace if the task is still there. An outcome of a task that had ended by
 * itself before is its own; otherwise TASK_END_KILLED. */
int task_child_kill(TaskChild *c, usec_t grace, TaskOutcome *ret);
/* The same for an event loop, which must not wait: SIGTERM to the process
 * group now, unless the task has ended by itself (then its outcome stays
 * its own); the caller sends task_child_kill_now() when its grace is over
 * and reaps the task when task_child_fd() becomes readable. */
void task_child_terminate(TaskChild *c);
/* SIGKILL to the process group of a task not reaped yet. */
void task_child_kill_now(TaskChild *c);

/* Kills a task still running, reaps it, removes its cgroup. */
TaskChild *task_child_free(TaskChild *c);
DEFINE_POINTER_CLEANUP_FUNC(TaskChild, task_child_free);

const char *task_end_to_string(TaskEnd end);
const char *task_memory_mode_to_string(TaskMemoryMode mode);
/* "succeeded", "failed: exit status 1", "failed: memory limit exceeded
 * (cgroup v2, 1 OOM kill)", "killed: signal 15 (Terminated)"..., then
 * for one that did not succeed ": " and its stderr's tail when there is
 * one. */
void task_outcome_describe(const TaskOutcome *o, char *buf, size_t size);

/* The tail of text (n bytes, whatever a task wrote) as an outcome keeps
 * it: its last TASK_STDERR_LINES non-empty lines, a partial first line
 * dropped when text is a file's end (partial), every byte that is not
 * printable ASCII as '?', joined by " | ", cut to fit size with "...".
 * Untrusted text goes into logs and the job's message, so no control
 * character (a newline, an escape sequence) passes. */
void task_stderr_tail(const char *text, size_t n, bool partial, char *buf, size_t size);

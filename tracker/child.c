/* SPDX-License-Identifier: MIT */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "tracker/cgroup.h"
#include "tracker/procstat.h"

struct TaskChild {
        pid_t pid;
        int pidfd;
        int stderr_fd; /* the task's stderr, when captured; -1 */
        TaskMemoryMode mode;
        MemoryCgroup cg;
        bool reaped, killed;
        usec_t start;
        TaskOutcome outcome;
};

/* Chooses and sets up the memory limit before the fork. */
static int task_child_limit(TaskChild *c, const TaskChildSpec *spec) {
        static bool warned;
        _cleanup_free_ char *dir = NULL;
        int version, r;

        if (spec->memory_limit == 0) {
                c->mode = TASK_MEMORY_NONE;
                return 0;
        }
        if (spec->memory_mode == TASK_MEMORY_RLIMIT || spec->memory_mode == TASK_MEMORY_NONE) {
                c->mode = spec->memory_mode;
                return 0;
        }
        r = memory_cgroup_find_parent(spec->cgroup_parent, &version, &dir);
        if (r >= 0)
                r = memory_cgroup_create(version, dir, spec->name ? spec->name : "task",
                                         spec->memory_limit, &c->cg);
        if (r >= 0) {
                c->mode = TASK_MEMORY_CGROUP;
                return 0;
        }
        if (spec->memory_mode == TASK_MEMORY_CGROUP)
                return log_error_errno(r, "No memory cgroup for the task");
        /* Once: an operator must learn that slot memory is only an
         * address-space limit here (cgroup2 not mounted, say, in a guest
         * whose init did not mount it), not hear it for every task. */
        log_full_errno(warned ? LOG_LEVEL_DEBUG : LOG_LEVEL_WARNING, r,
                       "No memory cgroup for the task, limiting its address space instead");
        warned = true;
        c->mode = TASK_MEMORY_RLIMIT;
        return 0;
}

/* What exec does to signals, for a task that is a function: a handler of
 * the parent's (a test runner's, say, which kills its own process group
 * on SIGTERM) must not run in the task. Ignored signals stay ignored, but
 * SIGPIPE, which a tracker ignores, gets its default back. */
static void reset_signals(void) {
        for (int sig = 1; sig < NSIG; sig++) {
                struct sigaction sa;

                if (sigaction(sig, NULL, &sa) < 0)
                        continue;
                if (sig == SIGPIPE || (sa.sa_handler != SIG_IGN && sa.sa_handler != SIG_DFL)) {
                        sa = (struct sigaction){ .sa_handler = SIG_DFL };
                        (void)sigaction(sig, &sa, NULL);
                }
        }
}

static void on_parent_death(int sig) {
        (void)kill(0, SIGKILL);
}

int task_group_die_with_parent(void) {
        struct sigaction sa = { .sa_handler = on_parent_death };

        if (getpgrp() != getpid())
                return 0;
        return sigaction(TASK_PARENT_DEATH_SIGNAL, &sa, NULL) < 0 ? -errno : 0;
}

/* In the child: only async-signal-safe calls until exec (the parent may
 * have threads). */
_Noreturn static void task_child_run(const TaskChildSpec *spec, const TaskChild *c, pid_t parent) {
        sigset_t none;
        int fd, status, program_fd = -1;

        (void)setpgid(0, 0);
        /* First, so that what fails below is in the tail too. */
        if (c->stderr_fd >= 0 && dup2(c->stderr_fd, STDERR_FILENO) < 0)
                _exit(TASK_EXIT_SETUP);
        reset_signals();
        sigemptyset(&none);
        (void)sigprocmask(SIG_SETMASK, &none, NULL);
        if (c->mode == TASK_MEMORY_CGROUP) {
                /* "0" is the writer itself. */
                fd = open(c->cg.procs, O_WRONLY | O_CLOEXEC);
                if (fd < 0 || write(fd, "0", 1) != 1)
                        _exit(TASK_EXIT_SETUP);
                close(fd);
        } else if (c->mode == TASK_MEMORY_RLIMIT) {
                struct rlimit rl = { spec->memory_limit, spec->memory_limit };
                if (setrlimit(RLIMIT_AS, &rl) < 0)
                        _exit(TASK_EXIT_SETUP);
        }
        if (spec->inherit_fd >= 0 && fcntl(spec->inherit_fd, F_SETFD, 0) < 0)
                _exit(TASK_EXIT_SETUP);
        /* A program named by its path is opened with the spawner's rights
         * and run by that descriptor: the task user may run it without the
         * right to walk to it (a tracker built under root's 0700 home). Not
         * close-on-exec: a script's interpreter opens it as /dev/fd/N. */
        if (spec->argv && strchr(spec->argv[0], '/')) {
                program_fd = open(spec->argv[0], O_PATH);
                if (program_fd < 0)
                        _exit(127);
        }
        /* Last: joining the cgroup and setting the limit need the
         * spawner's rights. */
        if (spec->user && task_user_become(spec->user) < 0)
                _exit(TASK_EXIT_SETUP);
        /* A task whose tracker died has no one to report it or to kill it:
         * it goes too, with its process group, even after a SIGKILL of the
         * tracker. After the change of user, which clears the parent-death
         * signal; an exec keeps it, and flexslot-task takes its group along
         * itself. */
        if ((spec->fn && task_group_die_with_parent() < 0) ||
            prctl(PR_SET_PDEATHSIG, TASK_PARENT_DEATH_SIGNAL) < 0 || getppid() != parent)
                _exit(TASK_EXIT_SETUP);
        if (program_fd >= 0) {
                (void)execveat(program_fd, "", spec->argv, environ, AT_EMPTY_PATH);
                _exit(127);
        }
        if (spec->argv) {
                execvp(spec->argv[0], spec->argv);
                _exit(127);
        }
        status = spec->fn(spec->userdata);
        fflush(NULL);
        _exit(status & 0xff);
}

int task_child_spawn(const TaskChildSpec *spec, TaskChild **ret) {
        _cleanup_(task_child_freep) TaskChild *c = NULL;
        pid_t pid, parent;
        int r;

        if (!spec->argv == !spec->fn || (spec->argv && !spec->argv[0]))
                return -EINVAL;
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->pid = -1;
        c->pidfd = -1;
        c->stderr_fd = -1;
        c->reaped = true; /* nothing to reap until the fork */
        r = task_child_limit(c, spec);
        if (r < 0)
                return r;
        if (spec->stderr_dir) {
                /* Unnamed: it goes with the task; on disk, as its spills. */
                c->stderr_fd = open(spec->stderr_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
                if (c->stderr_fd < 0)
                        log_debug_errno(-errno,
                                        "No file for the task's stderr in %s: it stays ours",
                                        spec->stderr_dir);
        }
        /* Buffered output would be written twice, by both processes. */
        fflush(NULL);
        c->start = now_monotonic_usec();
        parent = getpid();
        pid = fork();
        if (pid < 0)
                return log_error_errno(-errno, "Cannot start a task process");
        if (pid == 0)
                task_child_run(spec, c, parent);
        c->pid = pid;
        c->reaped = false;
        /* Both sides set the group, so it is in place whichever runs first. */
        (void)setpgid(pid, pid);
        c->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
        if (c->pidfd < 0)
                return log_error_errno(-errno, "Cannot watch task process %d", (int)pid);
        *ret = TAKE_PTR(c);
        return 0;
}

pid_t task_child_pid(const TaskChild *c) {
        return c->pid;
}

int task_child_fd(const TaskChild *c) {
        return c->pidfd;
}

TaskMemoryMode task_child_memory_mode(const TaskChild *c) {
        return c->mode;
}

/* 0 once the task has ended, -ETIMEDOUT if it still runs after timeout. */
static int task_child_poll(TaskChild *c, usec_t timeout) {
        usec_t deadline = timeout == USEC_INFINITY ? USEC_INFINITY : now_monotonic_usec() + timeout;

        for (;;) {
                struct pollfd p = { .fd = c->pidfd, .events = POLLIN };
                usec_t now = now_monotonic_usec();
                int ms = deadline == USEC_INFINITY ? -1
                         : deadline <= now
                                 ? 0
                                 : (int)MIN((deadline - now + 999) / 1000, (usec_t)INT32_MAX);
                int k = poll(&p, 1, ms);

                if (k > 0)
                        return 0;
                if (k == 0)
                        return -ETIMEDOUT;
                if (errno != EINTR)
                        return negative_errno();
        }
}

void task_stderr_tail(const char *text, size_t n, bool partial, char *buf, size_t size) {
        char out[TASK_STDERR_READ * 2];
        size_t start = 0, first, i, len = 0;
        unsigned lines = 0;
        bool pending = false;

        if (size == 0)
                return;
        if (partial) {
                const char *nl = memchr(text, '\n', n);

                /* The file's end cuts a line: drop it, unless it is all. */
                if (nl)
                        start = (size_t)(nl - text) + 1;
        }
        for (i = first = n; i > start && lines < TASK_STDERR_LINES; lines++) {
                while (i > start && text[i - 1] == '\n')
                        i--;
                if (i == start)
                        break;
                while (i > start && text[i - 1] != '\n')
                        i--;
                first = i;
        }
        for (i = first; i < n && len + 4 < sizeof(out); i++) {
                unsigned char ch = (unsigned char)text[i];

                if (ch == '\n') {
                        pending = len > 0;
                        continue;
                }
                if (pending) {
                        out[len++] = ' ';
                        out[len++] = '|';
                        out[len++] = ' ';
                        pending = false;
                }
                out[len++] = ch == '\t' ? ' ' : ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
        }
        /* The most recent words matter most: a tail too long keeps its end. */
        if (len >= size)
                snprintf(buf, size, "...%.*s", (int)(size - 4), out + len - (size - 4));
        else
                snprintf(buf, size, "%.*s", (int)len, out);
}

/* The outcome's stderr tail from the task's stderr file: its last
 * TASK_STDERR_READ bytes at most, whatever the task wrote. */
static void task_child_read_stderr(TaskChild *c) {
        char text[TASK_STDERR_READ];
        struct stat st;
        off_t from;
        ssize_t k;

        if (c->stderr_fd < 0 || fstat(c->stderr_fd, &st) < 0)
                return;
        from = st.st_size > (off_t)sizeof(text) ? st.st_size - (off_t)sizeof(text) : 0;
        k = pread(c->stderr_fd, text, sizeof(text), from);
        if (k > 0)
                task_stderr_tail(text, (size_t)k, from > 0, c->outcome.stderr_tail,
                                 sizeof(c->outcome.stderr_tail));
}

static void task_child_classify(TaskChild *c, int status, const struct rusage *ru,
                                usec_t blkio_delay) {
        TaskOutcome *o = &c->outcome;

        *o = (TaskOutcome){
                .exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                .signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0,
                .memory_mode = c->mode,
                .cpu = (usec_t)ru->ru_utime.tv_sec * USEC_PER_SEC + (usec_t)ru->ru_utime.tv_usec +
                       (usec_t)ru->ru_stime.tv_sec * USEC_PER_SEC + (usec_t)ru->ru_stime.tv_usec,
                .blkio_delay = blkio_delay,
                .wall = now_monotonic_usec() - c->start,
        };
        if (c->mode == TASK_MEMORY_CGROUP)
                (void)memory_cgroup_oom_kills(&c->cg, &o->oom_kills);
        if (c->killed)
                o->end = TASK_END_KILLED;
        else if ((c->mode == TASK_MEMORY_CGROUP && o->oom_kills > 0) ||
                 (c->mode == TASK_MEMORY_RLIMIT && o->exit_status == TASK_EXIT_NOMEM))
                o->end = TASK_END_MEMORY;
        else if (o->exit_status == 0)
                o->end = TASK_END_SUCCEEDED;
        else
                o->end = TASK_END_FAILED;
}

/* Reaps a task that has ended: what is left of its process group goes
 * first, while the unreaped leader still holds the group's id. */
static int task_child_reap(TaskChild *c) {
        ProcStat ps = { 0 };
        struct rusage ru;
        siginfo_t si;
        int status;

        while (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOWAIT) < 0)
                if (errno != EINTR)
                        return negative_errno();
        /* Rusage has no block I/O wait: the zombie's /proc entry has it
         * until it is reaped. */
        (void)proc_stat_read(c->pid, &ps);
        (void)kill(-c->pid, SIGKILL);
        while (wait4(c->pid, &status, 0, &ru) < 0)
                if (errno != EINTR)
                        return negative_errno();
        c->reaped = true;
        task_child_classify(c, status, &ru, ps.blkio_delay);
        task_child_read_stderr(c);
        (void)memory_cgroup_destroy(&c->cg);
        return 0;
}

int task_child_wait(TaskChild *c, usec_t timeout, TaskOutcome *ret) {
        int r;

        if (!c->reaped) {
                r = task_child_poll(c, timeout);
                if (r < 0)
                        return r;
                r = task_child_reap(c);
                if (r < 0)
                        return r;
        }
        *ret = c->outcome;
        return 0;
}

void task_child_terminate(TaskChild *c) {
        if (!c->reaped && task_child_poll(c, 0) == -ETIMEDOUT) {
                c->killed = true;
                (void)kill(-c->pid, SIGTERM);
        }
}

void task_child_kill_now(TaskChild *c) {
        if (!c->reaped)
                (void)kill(-c->pid, SIGKILL);
}

int task_child_kill(TaskChild *c, usec_t grace, TaskOutcome *ret) {
        task_child_terminate(c);
        if (c->killed && task_child_poll(c, grace) == -ETIMEDOUT)
                task_child_kill_now(c);
        return task_child_wait(c, USEC_INFINITY, ret);
}

TaskChild *task_child_free(TaskChild *c) {
        if (!c)
                return NULL;
        if (!c->reaped) {
                c->killed = true;
                (void)kill(-c->pid, SIGKILL);
                (void)task_child_reap(c);
        }
        (void)memory_cgroup_destroy(&c->cg);
        if (c->pidfd >= 0)
                close(c->pidfd);
        if (c->stderr_fd >= 0)
                close(c->stderr_fd);
        free(c);
        return NULL;
}

const char *task_end_to_string(TaskEnd end) {
        static const char *const names[] = {
                [TASK_END_SUCCEEDED] = "succeeded",
                [TASK_END_FAILED] = "failed",
                [TASK_END_MEMORY] = "failed: memory limit exceeded",
                [TASK_END_KILLED] = "killed",
        };

        return (unsigned)end < ELEMENTSOF(names) ? names[end] : "unknown";
}

const char *task_memory_mode_to_string(TaskMemoryMode mode) {
        static const char *const names[] = {
                [TASK_MEMORY_AUTO] = "auto",
                [TASK_MEMORY_CGROUP] = "cgroup",
                [TASK_MEMORY_RLIMIT] = "rlimit",
                [TASK_MEMORY_NONE] = "none",
        };

        return (unsigned)mode < ELEMENTSOF(names) ? names[mode] : "unknown";
}

void task_outcome_describe(const TaskOutcome *o, char *buf, size_t size) {
        const char *what = task_end_to_string(o->end);
        int n;

        if (o->end == TASK_END_SUCCEEDED)
                n = snprintf(buf, size, "%s", what);
        else if (o->end == TASK_END_MEMORY && o->memory_mode == TASK_MEMORY_CGROUP)
                n = snprintf(buf, size, "%s (cgroup: %llu OOM kill%s)", what,
                             (unsigned long long)o->oom_kills, o->oom_kills == 1 ? "" : "s");
        else if (o->end == TASK_END_MEMORY)
                n = snprintf(buf, size, "%s (RLIMIT_AS: out of memory)", what);
        else if (o->signal)
                n = snprintf(buf, size, "%s: signal %d (%s)", what, o->signal,
                             strsignal(o->signal));
        else
                n = snprintf(buf, size, "%s: exit status %d", what, o->exit_status);
        if (o->end != TASK_END_SUCCEEDED && o->stderr_tail[0] && n >= 0 && (size_t)n < size)
                snprintf(buf + n, size - (size_t)n, ": %s", o->stderr_tail);
}

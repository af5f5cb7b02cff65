/* SPDX-License-Identifier: MIT */
/* Hadoop Streaming: the map and reduce functions are shell commands run as
 * child processes. The mapper reads its split's lines on stdin; the reducer
 * reads the sorted records as "key\tvalue" lines ("key" alone for an empty
 * value). Each writes "key\tvalue" lines on stdout: up to the first tab is
 * the key, the rest the value (a line without a tab is all key). The
 * reducer's lines are the job's output as they are. A command that exits
 * with a non-zero status, dies of a signal, or stops reading its input
 * before the end fails the task. The commands get Hadoop's environment
 * variables map_input_file, map_input_start, map_input_length (maps) and
 * mapred_task_partition (reduces). */
#include "app.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"

#define INPUT_BUFFER_SIZE (64U << 10)
#define OUTPUT_CHUNK (64U << 10)
#define MAX_ENV_EXTRA 4

extern char **environ;

typedef struct StreamProc {
        const char *role; /* "mapper" or "reducer", for messages */
        const char *cmd;
        pid_t pid;
        int in_fd, out_fd;
        uint8_t *in, *out;
        size_t in_len, out_len, out_cap;
        bool broken_pipe, out_eof;
        struct sigaction old_sigpipe;
        bool sigpipe_saved;
        uint64_t max_rss; /* bytes, once reaped */
} StreamProc;

typedef struct Streaming {
        AppConfig cfg;
        char *env[MAX_ENV_EXTRA + 1];
        StreamProc proc;
        bool started;
} Streaming;

static int set_nonblock(int fd) {
        int flags = fcntl(fd, F_GETFL);

        if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
                return negative_errno();
        return 0;
}

/* environ plus extra, built before fork since the child may only call
 * async-signal-safe functions. */
static char **env_build(char *const *extra) {
        size_t n = 0, k = 0;
        char **env;

        while (environ[n])
                n++;
        while (extra[k])
                k++;
        env = calloc(n + k + 1, sizeof(char *));
        if (!env)
                return NULL;
        memcpy(env, extra, k * sizeof(char *));
        for (size_t i = 0, j = k; i < n; i++) {
                bool replaced = false;
                for (size_t e = 0; e < k; e++) {
                        size_t len = strcspn(extra[e], "=") + 1;
                        if (strncmp(environ[i], extra[e], len) == 0)
                                replaced = true;
                }
                if (!replaced)
                        env[j++] = environ[i];
        }
        return env;
}

static int stream_proc_start(StreamProc *p, const char *role, const char *cmd, char *const *extra) {
        _cleanup_free_ char **env = env_build(extra);
        int in[2] = { -1, -1 }, out[2] = { -1, -1 };
        struct sigaction ign = { .sa_handler = SIG_IGN };
        int r;

        *p = (StreamProc){ .role = role, .cmd = cmd, .pid = -1, .in_fd = -1, .out_fd = -1 };
        if (!env)
                return -ENOMEM;
        p->in = malloc(INPUT_BUFFER_SIZE);
        if (!p->in)
                return -ENOMEM;
        if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0) {
                r = log_error_errno(-errno, "Cannot create pipes for the %s", role);
                goto fail;
        }
        p->pid = fork();
        if (p->pid < 0) {
                r = log_error_errno(-errno, "Cannot start the %s", role);
                goto fail;
        }
        if (p->pid == 0) {
                sigset_t none;

                /* The task ignores SIGPIPE; the command gets the default. */
                signal(SIGPIPE, SIG_DFL);
                sigemptyset(&none);
                sigprocmask(SIG_SETMASK, &none, NULL);
                if (dup2(in[0], STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0)
                        _exit(127);
                execle("/bin/sh", "sh", "-c", cmd, (char *)NULL, env);
                _exit(127);
        }
        close(in[0]);
        close(out[1]);
        p->in_fd = in[1];
        p->out_fd = out[0];
        r = set_nonblock(p->in_fd);
        if (r >= 0)
                r = set_nonblock(p->out_fd);
        if (r < 0)
                return r;
        /* A command that exits early must fail the task, not kill it. */
        if (sigaction(SIGPIPE, &ign, &p->old_sigpipe) == 0)
                p->sigpipe_saved = true;
        return 0;
fail:
        for (int i = 0; i < 2; i++) {
                if (in[i] >= 0)
                        close(in[i]);
                if (out[i] >= 0)
                        close(out[i]);
        }
        return r;
}

typedef int (*LineFunc)(const uint8_t *line, size_t len, Emitter *out);

/* Hands every complete line of the command's output to fn. */
static int stream_proc_lines(StreamProc *p, LineFunc fn, Emitter *out, bool final) {
        size_t start = 0;
        int r;

        for (;;) {
                uint8_t *nl = memchr(p->out + start, '\n', p->out_len - start);
                size_t n;

                if (!nl) {
                        if (!final || start == p->out_len)
                                break;
                        n = p->out_len - start; /* a last line without '\n' */
                } else
                        n = (size_t)(nl - (p->out + start));
                r = fn(p->out + start, n, out);
                if (r < 0)
                        return r;
                start += nl ? n + 1 : n;
        }
        memmove(p->out, p->out + start, p->out_len - start);
        p->out_len -= start;
        if (p->out_len > RECORD_FIELD_MAX)
                return log_error_errno(-E2BIG, "The %s wrote a line longer than %u bytes", p->role,
                                       RECORD_FIELD_MAX);
        return 0;
}

static int stream_proc_read(StreamProc *p, LineFunc fn, Emitter *out) {
        for (;;) {
                ssize_t k;

                if (p->out_cap - p->out_len < OUTPUT_CHUNK) {
                        size_t cap = p->out_cap + 2 * OUTPUT_CHUNK;
                        uint8_t *b = realloc(p->out, cap);
                        if (!b)
                                return -ENOMEM;
                        p->out = b;
                        p->out_cap = cap;
                }
                k = read(p->out_fd, p->out + p->out_len, p->out_cap - p->out_len);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN)
                                return 0;
                        return log_error_errno(-errno, "Cannot read from the %s", p->role);
                }
                if (k == 0) {
                        p->out_eof = true;
                        return stream_proc_lines(p, fn, out, true);
                }
                p->out_len += (size_t)k;
                int r = stream_proc_lines(p, fn, out, false);
                if (r < 0)
                        return r;
        }
}

/* Writes the buffered input, reading output meanwhile so that neither side
 * waits on a full pipe. */
static int stream_proc_flush(StreamProc *p, LineFunc fn, Emitter *out) {
        size_t done = 0;
        int r;

        while (done < p->in_len && !p->broken_pipe) {
                struct pollfd fds[2] = {
                        { .fd = p->in_fd, .events = POLLOUT },
                        { .fd = p->out_eof ? -1 : p->out_fd, .events = POLLIN },
                };
                ssize_t k;

                if (poll(fds, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (fds[1].revents) {
                        r = stream_proc_read(p, fn, out);
                        if (r < 0)
                                return r;
                }
                if (!fds[0].revents)
                        continue;
                k = write(p->in_fd, p->in + done, p->in_len - done);
                if (k < 0) {
                        if (errno == EINTR || errno == EAGAIN)
                                continue;
                        if (errno != EPIPE)
                                return log_error_errno(-errno, "Cannot write to the %s", p->role);
                        p->broken_pipe = true;
                        break;
                }
                done += (size_t)k;
        }
        p->in_len = 0;
        return 0;
}

static int stream_proc_write(StreamProc *p, const uint8_t *data, size_t n, LineFunc fn,
                             Emitter *out) {
        int r;

        while (n > 0) {
                size_t k = MIN(n, INPUT_BUFFER_SIZE - p->in_len);

                memcpy(p->in + p->in_len, data, k);
                p->in_len += k;
                data += k;
                n -= k;
                if (p->in_len == INPUT_BUFFER_SIZE) {
                        r = stream_proc_flush(p, fn, out);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

static int stream_proc_wait(StreamProc *p, int *ret_status) {
        struct rusage ru = { 0 };
        int status = 0;

        while (wait4(p->pid, &status, 0, &ru) < 0)
                if (errno != EINTR)
                        return negative_errno();
        p->pid = -1;
        p->max_rss = (uint64_t)MAX(ru.ru_maxrss, 0L) * 1024;
        *ret_status = status;
        return 0;
}

/* Whether a command that failed most likely ran out of memory under the
 * task's RLIMIT_AS (the tracker's slot memory where it has no memory
 * cgroup): its peak resident memory reached half of the limit. A denied
 * allocation leaves no trace to read, unlike a memory cgroup's OOM kill,
 * and a command says "out of memory" in its own words, if at all; but a
 * command's address space is rarely twice what it touched. An allocation
 * refused in one huge piece stays a plain failure. */
static bool stream_proc_out_of_memory(const StreamProc *p, uint64_t *ret_limit) {
        struct rlimit rl;

        if (getrlimit(RLIMIT_AS, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
                return false;
        *ret_limit = rl.rlim_cur;
        return p->max_rss >= rl.rlim_cur / 2;
}

/* Ends the input, reads the rest of the output and waits for the command. */
static int stream_proc_finish(StreamProc *p, LineFunc fn, Emitter *out) {
        uint64_t limit;
        int status = 0, r;

        r = stream_proc_flush(p, fn, out);
        if (r < 0)
                return r;
        close(p->in_fd);
        p->in_fd = -1;
        while (!p->out_eof) {
                struct pollfd fd = { .fd = p->out_fd, .events = POLLIN };

                if (poll(&fd, 1, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                r = stream_proc_read(p, fn, out);
                if (r < 0)
                        return r;
        }
        r = stream_proc_wait(p, &status);
        if (r < 0)
                return r;
        if ((WIFSIGNALED(status) || WEXITSTATUS(status) != 0) &&
            stream_proc_out_of_memory(p, &limit))
                return log_error_errno(-ENOMEM,
                                       "The %s '%s' failed at %s resident, over half of its "
                                       "address space limit of %s",
                                       p->role, p->cmd, FORMAT_SIZE(p->max_rss),
                                       FORMAT_SIZE(limit));
        if (WIFSIGNALED(status))
                return log_error_errno(-ECHILD, "The %s '%s' was killed by signal %d (%s)", p->role,
                                       p->cmd, WTERMSIG(status), strsignal(WTERMSIG(status)));
        if (WEXITSTATUS(status) != 0)
                return log_error_errno(-ECHILD, "The %s '%s' exited with status %d", p->role,
                                       p->cmd, WEXITSTATUS(status));
        if (p->broken_pipe)
                return log_error_errno(-EPIPE, "The %s '%s' exited before reading all its input",
                                       p->role, p->cmd);
        return 0;
}

static void stream_proc_done(StreamProc *p) {
        int status;

        if (p->in_fd >= 0)
                close(p->in_fd);
        if (p->out_fd >= 0)
                close(p->out_fd);
        p->in_fd = p->out_fd = -1;
        /* A task that failed before the command's end leaves it no input;
         * it is stopped and reaped, not left behind. */
        if (p->pid > 0) {
                kill(p->pid, SIGKILL);
                (void)stream_proc_wait(p, &status);
        }
        if (p->sigpipe_saved)
                sigaction(SIGPIPE, &p->old_sigpipe, NULL);
        p->sigpipe_saved = false;
        free(p->in);
        free(p->out);
        p->in = p->out = NULL;
}

/* Adds NAME=str, or NAME=value when str is NULL. */
static int streaming_env_add(Streaming *s, const char *name, const char *str, uint64_t value) {
        size_t k = 0;
        int n;

        while (s->env[k])
                k++;
        if (k == MAX_ENV_EXTRA)
                return -E2BIG;
        n = str ? asprintf(&s->env[k], "%s=%s", name, str)
                : asprintf(&s->env[k], "%s=%" PRIu64, name, value);
        if (n < 0) {
                s->env[k] = NULL; /* undefined after a failed asprintf */
                return -ENOMEM;
        }
        return 0;
}

static void streaming_free(void *state);

static int streaming_init(const AppConfig *cfg, void **ret_state) {
        Streaming *s = calloc(1, sizeof(*s));
        int r;

        if (!s)
                return -ENOMEM;
        s->cfg = *cfg;
        if (cfg->split) {
                r = streaming_env_add(s, "map_input_file", cfg->split->path, 0);
                if (r >= 0)
                        r = streaming_env_add(s, "map_input_start", NULL, cfg->split->offset);
                if (r >= 0)
                        r = streaming_env_add(s, "map_input_length", NULL, cfg->split->length);
        } else
                r = streaming_env_add(s, "mapred_task_partition", NULL, cfg->partition);
        if (r < 0) {
                streaming_free(s);
                return r;
        }
        *ret_state = s;
        return 0;
}

static void streaming_free(void *state) {
        Streaming *s = state;

        if (s->started)
                stream_proc_done(&s->proc);
        for (char **e = s->env; *e; e++)
                free(*e);
        free(s);
}

/* Starts the command on first use, so that it runs even over an empty
 * input (where its own output may still matter). */
static int streaming_start(Streaming *s, const char *role, const char *cmd) {
        int r;

        if (s->started)
                return 0;
        if (!cmd)
                return log_error_errno(-EINVAL, "Streaming needs a %s command", role);
        r = stream_proc_start(&s->proc, role, cmd, s->env);
        s->started = true;
        return r;
}

static int map_line(const uint8_t *line, size_t len, Emitter *out) {
        const uint8_t *tab = memchr(line, '\t', len);
        size_t klen = tab ? (size_t)(tab - line) : len;

        return emitter_emit(out, line, klen, tab ? tab + 1 : line + len, tab ? len - klen - 1 : 0);
}

static int reduce_line(const uint8_t *line, size_t len, Emitter *out) {
        return emitter_emit(out, line, len, line + len, 0);
}

static int streaming_map(void *state, const MapRecord *rec, Emitter *out) {
        Streaming *s = state;
        int r;

        r = streaming_start(s, "mapper", s->cfg.mapper);
        if (r >= 0)
                r = stream_proc_write(&s->proc, rec->line, rec->len, map_line, out);
        if (r >= 0)
                r = stream_proc_write(&s->proc, (const uint8_t *)"\n", 1, map_line, out);
        return r;
}

static int streaming_map_end(void *state, Emitter *out) {
        Streaming *s = state;
        int r;

        r = streaming_start(s, "mapper", s->cfg.mapper);
        if (r < 0)
                return r;
        return stream_proc_finish(&s->proc, map_line, out);
}

static int streaming_reduce(void *state, const uint8_t *key, size_t klen, ValueIter *values,
                            Emitter *out) {
        Streaming *s = state;
        const uint8_t *v;
        size_t vlen;
        int r;

        r = streaming_start(s, "reducer", s->cfg.reducer);
        if (r < 0)
                return r;
        while ((r = values->next(values, &v, &vlen)) > 0) {
                r = stream_proc_write(&s->proc, key, klen, reduce_line, out);
                if (r >= 0 && vlen > 0)
                        r = stream_proc_write(&s->proc, (const uint8_t *)"\t", 1, reduce_line, out);
                if (r >= 0)
                        r = stream_proc_write(&s->proc, v, vlen, reduce_line, out);
                if (r >= 0)
                        r = stream_proc_write(&s->proc, (const uint8_t *)"\n", 1, reduce_line, out);
                if (r < 0)
                        return r;
        }
        return r;
}

static int streaming_reduce_end(void *state, Emitter *out) {
        Streaming *s = state;
        int r;

        r = streaming_start(s, "reducer", s->cfg.reducer);
        if (r < 0)
                return r;
        return stream_proc_finish(&s->proc, reduce_line, out);
}

static const MapredApp streaming_info = {
        .name = "streaming",
        .summary = "external mapper and reducer commands (Hadoop Streaming)",
};

const AppOps app_streaming = {
        .info = &streaming_info,
        .init = streaming_init,
        .free = streaming_free,
        .map = streaming_map,
        .map_end = streaming_map_end,
        .reduce = streaming_reduce,
        .reduce_end = streaming_reduce_end,
};

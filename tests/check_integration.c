/* SPDX-License-Identifier: MIT */
/* Runs each script tests/integration/NAME.sh as one test. A script exits 0 to pass,
 * 77 to skip (after printing one "SKIP: reason" line), anything else to fail.
 * Its output goes to $FLEXSLOT_BUILD/integration/<name>.log, whose tail is shown
 * on failure; skips are listed after Check's summary. Scripts start and stop
 * their own daemons by PID; each runs in a process group of its own, which is
 * killed when the script ends or runs out of time, so that nothing a script
 * started outlives its test.
 *
 * A script with the line "# flexslot-test: vm" needs a machine that runs a
 * private libvirtd (root, mount namespaces, QEMU): with FLEXSLOT_REQUIRE_VM=1
 * its skip is a failure, so that such a machine cannot lose these tests.
 * Likewise "# flexslot-test: yarn" (Java, Maven and Hadoop's jars: a real
 * YARN) and FLEXSLOT_REQUIRE_YARN=1.
 * One with the line "# flexslot-test: plain" runs in the plain build's run
 * only: with FLEXSLOT_SANITIZE=1 it is listed as skipped, never run (a
 * real guest runs that build's tracker, whose sanitizers TCG makes slow
 * and whose memory the guest's slot limits do not fit). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/parse.h"
#include "common/time-util.h"
#include "tests.h"

/* A script's own limit. Check's, above it, is only the backstop: the runner
 * must get to kill the script's group first. */
#define SCRIPT_TIMEOUT_USEC (600 * USEC_PER_SEC)
/* From SIGTERM, on which scripts run their traps and stop their daemons, to
 * SIGKILL. */
#define SCRIPT_GRACE_USEC (30 * USEC_PER_SEC)
#define CHECK_TIMEOUT_SEC 700
#define EXIT_SKIP 77
#define PLAIN_TEST_TAG "# flexslot-test: plain"

/* What a script may need, by its tag line, and the variable that says this
 * machine has it, so that the script's skip is a failure. */
typedef struct Requirement {
        const char *tag, *variable, *what;
} Requirement;

static const Requirement requirements[] = {
        { "# flexslot-test: vm", "FLEXSLOT_REQUIRE_VM", "the VM tests" },
        { "# flexslot-test: yarn", "FLEXSLOT_REQUIRE_YARN", "the YARN tests" },
};

static char **scripts;
static int n_scripts;
/* 0, or why the scripts could not be listed (-errno): a test fails on it
 * rather than the suite running fewer scripts than there are. */
static int scripts_listed;

static int compare_names(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every script, however many there are. */
static int find_scripts(void) {
        DIR *d = opendir(test_srcdir_path("tests/integration"));
        struct dirent *de;
        size_t cap = 0;
        int r = 0;

        if (!d)
                return -errno;
        while (r >= 0 && (de = readdir(d)))
                if (fnmatch("*.sh", de->d_name, 0) == 0) {
                        if ((size_t)n_scripts == cap) {
                                size_t n = MAX(2 * cap, (size_t)64);
                                char **grown = realloc(scripts, n * sizeof(*scripts));

                                if (!grown) {
                                        r = -ENOMEM;
                                        break;
                                }
                                scripts = grown;
                                cap = n;
                        }
                        scripts[n_scripts] = strdup(de->d_name);
                        if (!scripts[n_scripts])
                                r = -ENOMEM;
                        else
                                n_scripts++;
                }
        closedir(d);
        qsort(scripts, (size_t)n_scripts, sizeof(char *), compare_names);
        return r;
}

START_TEST(test_every_script_listed) {
        ck_assert_msg(scripts_listed >= 0, "cannot list tests/integration: %s",
                      strerror(-scripts_listed));
        ck_assert_int_gt(n_scripts, 0);
}
END_TEST

static void print_log_lines(const char *log, size_t tail_bytes) {
        _cleanup_fclose_ FILE *f = fopen(log, "re");
        char line[1024];
        long size;

        if (!f)
                return;
        fseek(f, 0, SEEK_END);
        size = ftell(f);
        fseek(f, size > (long)tail_bytes ? size - (long)tail_bytes : 0, SEEK_SET);
        while (fgets(line, sizeof(line), f))
                fprintf(stderr, "  %s", line);
}

/* The reason on the script's last "SKIP: " line in log, or "no reason given".
 * The verdict may follow a tool's output whose last line had no newline
 * (Maven's colour codes, a tail of a log), so it is found anywhere in a line. */
static void skip_reason(const char *log, char *buf, size_t size) {
        _cleanup_fclose_ FILE *f = fopen(log, "re");
        _cleanup_free_ char *line = NULL;
        size_t line_size = 0;
        ssize_t n;

        snprintf(buf, size, "no reason given");
        while (f && (n = getline(&line, &line_size, f)) > 0) {
                const char *verdict = strstr(line, "SKIP: ");

                if (!verdict)
                        continue;
                if (line[n - 1] == '\n')
                        line[n - 1] = '\0';
                snprintf(buf, size, "%s", verdict + 6);
        }
}

static bool script_has_tag(const char *script, const char *tag) {
        _cleanup_fclose_ FILE *f = fopen(script, "re");
        _cleanup_free_ char *line = NULL;
        size_t size = 0;
        ssize_t n;

        while (f && (n = getline(&line, &size, f)) > 0) {
                if (line[n - 1] == '\n')
                        line[n - 1] = '\0';
                if (strcmp(line, tag) == 0)
                        return true;
        }
        return false;
}

/* Waits up to timeout (USEC_INFINITY: for good) for the process of pidfd to
 * exit, without reaping it. Returns 1 once it has exited, 0 on timeout. */
static int wait_exit(int pidfd, usec_t timeout) {
        usec_t deadline = timeout == USEC_INFINITY ? USEC_INFINITY : now_monotonic_usec() + timeout;
        struct pollfd p = { .fd = pidfd, .events = POLLIN };

        for (;;) {
                usec_t now = now_monotonic_usec();
                int ms = -1, r;

                if (deadline != USEC_INFINITY) {
                        if (now >= deadline)
                                return 0;
                        ms = (int)((deadline - now + USEC_PER_MSEC - 1) / USEC_PER_MSEC);
                }
                r = poll(&p, 1, ms);
                if (r > 0)
                        return 1;
                if (r < 0 && errno != EINTR)
                        return -errno;
        }
}

typedef struct RunResult {
        int status; /* as waitpid() gives it */
        bool timed_out;
} RunResult;

/* Runs argv, with the "NAME=VALUE" strings of env (NULL: none) added to its
 * environment and its output in log, in a process group of its own. After
 * timeout the group gets SIGTERM, after grace more SIGKILL; whatever is left
 * of the group when the leader has exited is killed. Returns 0 or -errno. */
static int run_logged(char *const argv[], char *const env[], const char *log, usec_t timeout,
                      usec_t grace, RunResult *ret) {
        _cleanup_close_ int pidfd = -1;
        RunResult res = { 0 };
        int r = 0;
        pid_t pid;

        pid = fork();
        if (pid < 0)
                return -errno;
        if (pid == 0) {
                int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

                if (fd < 0)
                        _exit(126);
                dup2(fd, STDOUT_FILENO);
                dup2(fd, STDERR_FILENO);
                setpgid(0, 0);
                /* Should this process die first (Check's backstop timeout),
                 * the script still gets to run its traps. */
                prctl(PR_SET_PDEATHSIG, SIGTERM);
                for (char *const *e = env; e && *e; e++)
                        putenv(*e);
                execv(argv[0], argv);
                _exit(127);
        }
        /* Here too, so that the group exists before anything signals it. */
        (void)setpgid(pid, pid);

        pidfd = pidfd_open(pid, 0);
        if (pidfd < 0)
                r = -errno;
        else
                r = wait_exit(pidfd, timeout);
        if (r == 0) {
                res.timed_out = true;
                (void)kill(-pid, SIGTERM);
                r = wait_exit(pidfd, grace);
        }
        /* Kills the group, as a time-out's second step and because a script
         * that ended may have left children. The leader has exited (or is
         * killed here) but is not reaped yet, so the group's ID is still its. */
        (void)kill(-pid, SIGKILL);
        while (waitpid(pid, &res.status, 0) < 0)
                if (errno != EINTR)
                        return -errno;
        if (r < 0)
                return r;
        *ret = res;
        return 0;
}

START_TEST(test_integration_script) {
        const char *name = scripts[_i];
        const char *build = getenv("FLEXSLOT_BUILD"), *sanitize = getenv("FLEXSLOT_SANITIZE");
        char script[PATH_MAX], logdir[PATH_MAX], log[PATH_MAX * 2], reason[512];
        char *argv[] = { (char *)"/bin/sh", script, NULL };
        bool sanitized = false;
        RunResult res;
        int r;

        ck_assert_msg(build && *build, "FLEXSLOT_BUILD is not set (run through make check)");
        ck_assert_msg(!sanitize || !*sanitize || parse_bool(sanitize, &sanitized) == 0,
                      "FLEXSLOT_SANITIZE=%s: not a boolean (1 or 0)", sanitize);
        snprintf(script, sizeof(script), "%s/%s", test_srcdir_path("tests/integration"), name);
        if (sanitized && script_has_tag(script, PLAIN_TEST_TAG)) {
                test_skip(name, "the plain build's run runs it");
                return;
        }
        snprintf(logdir, sizeof(logdir), "%s/integration", build);
        mkdir(logdir, 0755);
        snprintf(log, sizeof(log), "%s/%s.log", logdir, name);

        r = run_logged(argv, NULL, log, SCRIPT_TIMEOUT_USEC, SCRIPT_GRACE_USEC, &res);
        ck_assert_msg(r == 0, "cannot run %s: %s", name, strerror(-r));
        if (res.timed_out) {
                fprintf(stderr, "%s timed out; end of %s:\n", name, log);
                print_log_lines(log, 3000);
                ck_abort_msg("%s did not finish within %.0f s; its process group was killed "
                             "(log: %s)",
                             name, usec_to_sec(SCRIPT_TIMEOUT_USEC), log);
        }
        if (WIFEXITED(res.status) && WEXITSTATUS(res.status) == EXIT_SKIP) {
                skip_reason(log, reason, sizeof(reason));
                for (size_t i = 0; i < ELEMENTSOF(requirements); i++) {
                        const Requirement *needs = &requirements[i];
                        const char *require = getenv(needs->variable);
                        bool required = false;

                        if (!script_has_tag(script, needs->tag))
                                continue;
                        ck_assert_msg(!require || !*require || parse_bool(require, &required) == 0,
                                      "%s=%s: not a boolean (1 or 0)", needs->variable, require);
                        ck_assert_msg(!required,
                                      "%s skipped (%s), but %s=1 says this machine runs %s (log: "
                                      "%s)",
                                      name, reason, needs->variable, needs->what, log);
                }
                test_skip(name, reason);
                return;
        }
        if (!WIFEXITED(res.status) || WEXITSTATUS(res.status) != 0) {
                fprintf(stderr, "%s failed; end of %s:\n", name, log);
                print_log_lines(log, 3000);
        }
        ck_assert_msg(WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0,
                      "%s exited with status %d (log: %s)", name,
                      WIFEXITED(res.status) ? WEXITSTATUS(res.status) : 128 + WTERMSIG(res.status),
                      log);
}
END_TEST

/* ---- the runner itself, on the scripts of tests/fixtures/runner/ ---------- */

static char *fixture_path(const char *relative) {
        char *path = NULL;

        ck_assert_int_ge(
                asprintf(&path, "%s/%s", test_srcdir_path("tests/fixtures/runner"), relative), 0);
        return path;
}

/* Runs the fixture script NAME, which starts one child and writes its PID
 * to $PIDFILE, with the given limits. This process is made a child
 * subreaper, so that the orphaned child becomes its own and keeps its PID
 * until assert_child_gone() reaps it. Returns the child's PID. */
static pid_t run_fixture(const char *name, usec_t timeout, usec_t grace, RunResult *ret) {
        _cleanup_free_ char *dir = test_make_tmpdir(), *script = fixture_path(name), *log = NULL,
                            *pidfile = NULL, *env_pidfile = NULL;
        char *argv[] = { (char *)"/bin/sh", script, NULL };
        char line[32] = "";
        int child = 0;

        ck_assert_ptr_nonnull(dir);
        ck_assert_int_ge(asprintf(&log, "%s/log", dir), 0);
        ck_assert_int_ge(asprintf(&pidfile, "%s/pid", dir), 0);
        ck_assert_int_ge(asprintf(&env_pidfile, "PIDFILE=%s", pidfile), 0);
        char *env[] = { env_pidfile, NULL };

        ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
        ck_assert_int_eq(run_logged(argv, env, log, timeout, grace, ret), 0);
        FILE *f = fopen(pidfile, "re");
        ck_assert_msg(f && fgets(line, sizeof(line), f), "%s did not write its child's PID", name);
        fclose(f);
        line[strcspn(line, "\n")] = '\0';
        ck_assert_int_eq(parse_int(line, 2, INT_MAX, &child), 0);
        test_remove_tree(dir);
        return child;
}

/* Fails unless the child PID of this process has died, or dies within 5 s of
 * the SIGKILL that should have reached it; kills it if not, and reaps it. */
static void assert_child_gone(pid_t pid) {
        _cleanup_close_ int pidfd = pidfd_open(pid, 0);
        int r;

        ck_assert_int_ge(pidfd, 0);
        r = wait_exit(pidfd, 5 * USEC_PER_SEC);
        if (r != 1)
                (void)kill(pid, SIGKILL);
        (void)waitpid(pid, NULL, 0);
        ck_assert_msg(r == 1, "the script's child %d outlived it", (int)pid);
}

START_TEST(test_runner_kills_hung_script) {
        RunResult res = { 0 };
        pid_t child = run_fixture("hang.sh", 2 * USEC_PER_SEC, USEC_PER_SEC, &res);

        ck_assert(res.timed_out);
        /* Both ignore SIGTERM: only the group's SIGKILL ends them. */
        ck_assert(WIFSIGNALED(res.status) && WTERMSIG(res.status) == SIGKILL);
        assert_child_gone(child);
}
END_TEST

START_TEST(test_runner_kills_what_a_script_left) {
        RunResult res = { 0 };
        pid_t child = run_fixture("leave.sh", SCRIPT_TIMEOUT_USEC, USEC_PER_SEC, &res);

        ck_assert(!res.timed_out);
        ck_assert(WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0);
        assert_child_gone(child);
}
END_TEST

/* This test program itself, running only the scripts of the fixture tree
 * (one passes, one skips, one VM test and one YARN test skip, one VM test
 * of the plain build's run passes), with FLEXSLOT_REQUIRE_VM and
 * FLEXSLOT_REQUIRE_YARN both set to require. Returns its output. */
static char *run_nested(const char *require, const char *sanitize, RunResult *ret) {
        _cleanup_free_ char *dir = test_make_tmpdir(), *tree = fixture_path("tree"), *log = NULL,
                            *env_src = NULL, *env_build = NULL, *env_vm = NULL, *env_yarn = NULL,
                            *env_sanitize = NULL, *output = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        char *argv[] = { (char *)"/proc/self/exe", NULL };
        size_t size = 0;

        ck_assert_ptr_nonnull(dir);
        ck_assert_int_ge(asprintf(&log, "%s/output", dir), 0);
        ck_assert_int_ge(asprintf(&env_src, "FLEXSLOT_SRCDIR=%s", tree), 0);
        ck_assert_int_ge(asprintf(&env_build, "FLEXSLOT_BUILD=%s", dir), 0);
        ck_assert_int_ge(asprintf(&env_vm, "FLEXSLOT_REQUIRE_VM=%s", require), 0);
        ck_assert_int_ge(asprintf(&env_yarn, "FLEXSLOT_REQUIRE_YARN=%s", require), 0);
        ck_assert_int_ge(asprintf(&env_sanitize, "FLEXSLOT_SANITIZE=%s", sanitize), 0);
        char *env[] = { env_src,
                        env_build,
                        env_vm,
                        env_yarn,
                        env_sanitize,
                        (char *)"CK_RUN_SUITE=integration",
                        (char *)"CK_RUN_CASE=scripts",
                        (char *)"CK_VERBOSITY=normal",
                        NULL };

        ck_assert_int_eq(run_logged(argv, env, log, 60 * USEC_PER_SEC, USEC_PER_SEC, ret), 0);
        f = fopen(log, "re");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_ge(getdelim(&output, &size, '\0', f), 0);
        test_remove_tree(dir);
        return TAKE_PTR(output);
}

START_TEST(test_runner_reports_skips) {
        _cleanup_free_ char *out = NULL, *strict = NULL;
        RunResult res = { 0 };

        out = run_nested("0", "0", &res);
        ck_assert_msg(WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0, "%s", out);
        ck_assert_msg(strstr(out, "100%: Checks: 5, Failures: 0, Errors: 0\n"
                                  "SKIPPED: skip.sh: nothing to test here\n"
                                  "SKIPPED: vm-skip.sh: no guests here\n"
                                  "SKIPPED: yarn-skip.sh: no Java here\n"
                                  "3 skipped, counted as passed above\n"),
                      "%s", out);

        strict = run_nested("1", "0", &res);
        ck_assert_msg(WIFEXITED(res.status) && WEXITSTATUS(res.status) == 1, "%s", strict);
        ck_assert_msg(strstr(strict, "vm-skip.sh skipped (no guests here), but "
                                     "FLEXSLOT_REQUIRE_VM=1 says this machine runs the VM tests"),
                      "%s", strict);
        ck_assert_msg(strstr(strict, "yarn-skip.sh skipped (no Java here), but "
                                     "FLEXSLOT_REQUIRE_YARN=1 says this machine runs the YARN "
                                     "tests"),
                      "%s", strict);
        ck_assert_msg(strstr(strict, "Checks: 5, Failures: 2, Errors: 0\n"), "%s", strict);
        ck_assert_msg(strstr(strict, "\nSKIPPED: skip.sh: nothing to test here\n"
                                     "1 skipped, counted as passed above\n"),
                      "%s", strict);
}
END_TEST

/* Under the sanitizers a script of the plain build's run is not run (the
 * fixture fails when it is) and is listed as skipped, also where VM tests
 * are required (the other VM test's skip and the YARN test's are the two
 * failures). */
START_TEST(test_runner_plain_only) {
        _cleanup_free_ char *out = NULL;
        RunResult res = { 0 };

        out = run_nested("1", "1", &res);
        ck_assert_msg(strstr(out, "Checks: 5, Failures: 2, Errors: 0\n"), "%s", out);
        ck_assert_msg(!strstr(out, "vm-plain.sh exited"), "%s", out);
        ck_assert_msg(strstr(out, "SKIPPED: vm-plain.sh: the plain build's run runs it\n"), "%s",
                      out);
}
END_TEST

Suite *suite_integration(void) {
        Suite *s = suite_create("integration");
        TCase *tc = tcase_create("scripts");

        scripts_listed = find_scripts();
        tcase_set_timeout(tc, CHECK_TIMEOUT_SEC);
        if (n_scripts > 0)
                tcase_add_loop_test(tc, test_integration_script, 0, n_scripts);
        suite_add_tcase(s, tc);

        tc = tcase_create("runner");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_every_script_listed);
        tcase_add_test(tc, test_runner_kills_hung_script);
        tcase_add_test(tc, test_runner_kills_what_a_script_left);
        tcase_add_test(tc, test_runner_reports_skips);
        tcase_add_test(tc, test_runner_plain_only);
        suite_add_tcase(s, tc);
        return s;
}

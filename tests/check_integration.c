/* SPDX-License-Identifier: MIT */
/* Runs each script tests/integration/NAME.sh as one test. A script exits 0 to pass,
 * 77 to skip (after printing one "SKIP: reason" line), anything else to fail.
 * Its output goes to $FLEXSLOT_BUILD/integration/<name>.log, whose tail is shown
 * on failure. Scripts start and stop their own daemons by PID. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/macro.h"
#include "tests.h"

#define MAX_SCRIPTS 64
#define SCRIPT_TIMEOUT_SEC 600
#define EXIT_SKIP 77

static char *scripts[MAX_SCRIPTS];
static int n_scripts;

static int compare_names(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static void find_scripts(void) {
        DIR *d = opendir(test_srcdir_path("tests/integration"));
        struct dirent *de;

        if (!d)
                return;
        while ((de = readdir(d)) && n_scripts < MAX_SCRIPTS)
                if (fnmatch("*.sh", de->d_name, 0) == 0)
                        scripts[n_scripts++] = strdup(de->d_name);
        closedir(d);
        qsort(scripts, (size_t)n_scripts, sizeof(char *), compare_names);
}

static void print_log_lines(const char *log, const char *prefix, size_t tail_bytes) {
        FILE *f = fopen(log, "re");
        char line[1024];
        long size;

        if (!f)
                return;
        fseek(f, 0, SEEK_END);
        size = ftell(f);
        if (tail_bytes > 0 && size > (long)tail_bytes)
                fseek(f, size - (long)tail_bytes, SEEK_SET);
        else
                fseek(f, 0, SEEK_SET);
        while (fgets(line, sizeof(line), f))
                if (!prefix || strncmp(line, prefix, strlen(prefix)) == 0)
                        fprintf(stderr, "  %s", line);
        fclose(f);
}

START_TEST(test_integration_script) {
        const char *name = scripts[_i];
        const char *build = getenv("FLEXSLOT_BUILD");
        char script[PATH_MAX], logdir[PATH_MAX], log[PATH_MAX * 2];
        int status;
        pid_t pid;

        ck_assert_msg(build && *build, "FLEXSLOT_BUILD is not set (run through make check)");
        snprintf(script, sizeof(script), "%s/%s", test_srcdir_path("tests/integration"), name);
        snprintf(logdir, sizeof(logdir), "%s/integration", build);
        mkdir(logdir, 0755);
        snprintf(log, sizeof(log), "%s/%s.log", logdir, name);

        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                if (fd < 0)
                        _exit(126);
                dup2(fd, STDOUT_FILENO);
                dup2(fd, STDERR_FILENO);
                /* Its own process group, so the script's children can be found
                 * and the whole test killed as one if it hangs. */
                setpgid(0, 0);
                execl("/bin/sh", "sh", script, (char *)NULL);
                _exit(127);
        }
        while (waitpid(pid, &status, 0) < 0)
                ck_assert_int_eq(errno, EINTR);

        if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_SKIP) {
                fprintf(stderr, "%s:\n", name);
                print_log_lines(log, "SKIP:", 0);
                return;
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                fprintf(stderr, "%s failed; end of %s:\n", name, log);
                print_log_lines(log, NULL, 3000);
        }
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "%s exited with status %d (log: %s)", name,
                      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), log);
}
END_TEST

Suite *suite_integration(void) {
        Suite *s = suite_create("integration");
        TCase *tc = tcase_create("scripts");

        find_scripts();
        tcase_set_timeout(tc, SCRIPT_TIMEOUT_SEC);
        if (n_scripts > 0)
                tcase_add_loop_test(tc, test_integration_script, 0, n_scripts);
        suite_add_tcase(s, tc);
        return s;
}

/* SPDX-License-Identifier: MIT */
/* One runner for every suite. Check's own CK_RUN_SUITE and CK_RUN_CASE
 * environment variables select a subset; fork mode keeps a crash in one test
 * from taking the others down. */
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "common/macro.h"
#include "tests.h"

/* Check has no verdict between pass and fail: a skipped test passes. Skips
 * are recorded in a file that every forked test shares with this process,
 * and listed after Check's summary so that a run cannot hide them. */
static int skip_fd = -1;

void test_skip(const char *what, const char *reason) {
        if (skip_fd >= 0)
                dprintf(skip_fd, "SKIPPED: %s: %s\n", what, reason);
}

static void print_skips(void) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *line = NULL;
        size_t size = 0;
        int n = 0;

        if (skip_fd < 0 || lseek(skip_fd, 0, SEEK_SET) < 0)
                return;
        f = fdopen(skip_fd, "r");
        if (!f)
                return;
        skip_fd = -1;
        while (getline(&line, &size, f) > 0) {
                fputs(line, stdout);
                n++;
        }
        if (n > 0)
                printf("%d skipped, counted as passed above\n", n);
}

const char *test_srcdir_path(const char *relative) {
        static char path[PATH_MAX];
        const char *top = getenv("FLEXSLOT_SRCDIR");

        snprintf(path, sizeof(path), "%s/%s", top && *top ? top : ".", relative);
        return path;
}

char *test_read_source(const char *relative) {
        _cleanup_fclose_ FILE *f = fopen(test_srcdir_path(relative), "re");
        char *text = NULL;
        size_t size = 0;

        ck_assert_msg(f, "cannot open %s", relative);
        ck_assert_msg(getdelim(&text, &size, '\0', f) >= 0 || feof(f), "cannot read %s", relative);
        if (!text)
                text = strdup("");
        ck_assert_ptr_nonnull(text);
        return text;
}

char *test_make_tmpdir(void) {
        const char *base = getenv("TMPDIR");
        char *path = NULL;

        if (asprintf(&path, "%s/flexslot-test.XXXXXX", base && *base ? base : "/tmp") < 0)
                return NULL;
        if (!mkdtemp(path)) {
                free(path);
                return NULL;
        }
        return path;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        return remove(path);
}

void test_remove_tree(const char *dir) {
        if (dir)
                nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

sd_bus *test_bus_unused(int *ret_peer) {
        sd_bus *bus = NULL;
        int fds[2];

        ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
        ck_assert_int_ge(sd_bus_new(&bus), 0);
        ck_assert_int_ge(sd_bus_set_fd(bus, fds[0], fds[0]), 0);
        ck_assert_int_ge(sd_bus_set_anonymous(bus, 1), 0);
        ck_assert_int_ge(sd_bus_start(bus), 0);
        *ret_peer = fds[1];
        return bus;
}

int main(void) {
        SRunner *runner = srunner_create(NULL);
        int failed;

        skip_fd = memfd_create("flexslot-skips", MFD_CLOEXEC);

#define SUITE(name) srunner_add_suite(runner, suite_##name());
#include "suites.h"
#undef SUITE

        srunner_run_all(runner, CK_NORMAL);
        failed = srunner_ntests_failed(runner);
        srunner_free(runner);
        print_skips();
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

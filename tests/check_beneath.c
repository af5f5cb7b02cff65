/* SPDX-License-Identifier: MIT */
/* common/beneath.h: both ways of resolving beneath a directory, the
 * kernel's openat2() and the walk, held to the same answers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/beneath.h"
#include "common/macro.h"
#include "tests.h"

typedef int (*OpenFunc)(int dir_fd, const char *path, int flags, mode_t mode);

static const struct {
        const char *name;
        OpenFunc open;
} ways[] = {
        { "open_beneath", open_beneath },
        { "open_beneath_walk", open_beneath_walk },
};

static char *tmp;
static int root_fd = -1;

static void put(const char *path, const char *text) {
        FILE *f = fopen(path, "w");

        ck_assert_ptr_nonnull(f);
        fputs(text, f);
        ck_assert_int_eq(fclose(f), 0);
}

/* tmp/secret outside, and the data directory tmp/root:
 *   in/a                "inside"
 *   in/link-in   -> a            stays inside
 *   in/link-up   -> ../in/a      climbs, stays inside
 *   dirlink      -> in           a directory, inside
 *   esc          -> ../secret    climbs out
 *   esc-new      -> ../created   out, and missing
 *   abs          -> TMP/secret   absolute
 *   loop         -> loop */
static void setup(void) {
        char path[4096], target[4096];

        umask(022);
        tmp = test_make_tmpdir();
        ck_assert_ptr_nonnull(tmp);
        snprintf(path, sizeof(path), "%s/secret", tmp);
        put(path, "secret");
        snprintf(path, sizeof(path), "%s/root", tmp);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        snprintf(path, sizeof(path), "%s/root/in", tmp);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        snprintf(path, sizeof(path), "%s/root/in/a", tmp);
        put(path, "inside");
        snprintf(path, sizeof(path), "%s/root", tmp);
        root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(root_fd, 0);
        ck_assert_int_eq(symlinkat("a", root_fd, "in/link-in"), 0);
        ck_assert_int_eq(symlinkat("../in/a", root_fd, "in/link-up"), 0);
        ck_assert_int_eq(symlinkat("in", root_fd, "dirlink"), 0);
        ck_assert_int_eq(symlinkat("../secret", root_fd, "esc"), 0);
        ck_assert_int_eq(symlinkat("../created", root_fd, "esc-new"), 0);
        snprintf(target, sizeof(target), "%s/secret", tmp);
        ck_assert_int_eq(symlinkat(target, root_fd, "abs"), 0);
        ck_assert_int_eq(symlinkat("loop", root_fd, "loop"), 0);
}

static void teardown(void) {
        if (root_fd >= 0)
                close(root_fd);
        root_fd = -1;
        test_remove_tree(tmp);
        free(tmp);
        tmp = NULL;
}

static const struct {
        const char *path;
        int error; /* 0: opens the file holding "inside" */
} lookups[] = {
        { "in/a", 0 },
        { "in/link-in", 0 },
        { "in/link-up", 0 },
        { "dirlink/a", 0 },
        { "dirlink/link-up", 0 },
        { "in/../in/a", 0 },
        { "./in//a", 0 },
        { "../secret", -EXDEV },
        { "in/../../secret", -EXDEV },
        { "dirlink/../../secret", -EXDEV },
        { "esc", -EXDEV },
        { "abs", -EXDEV },
        { "/etc/passwd", -EXDEV },
        { "loop", -ELOOP },
        { "missing", -ENOENT },
        { "in/a/x", -ENOTDIR },
        { "", -ENOENT },
};

START_TEST(test_beneath_lookups) {
        for (size_t w = 0; w < ELEMENTSOF(ways); w++)
                for (size_t i = 0; i < ELEMENTSOF(lookups); i++) {
                        int fd = ways[w].open(root_fd, lookups[i].path, O_RDONLY, 0);
                        char buf[16] = "";

                        if (lookups[i].error) {
                                ck_assert_msg(fd == lookups[i].error, "%s('%s'): %d, not %d",
                                              ways[w].name, lookups[i].path, fd, lookups[i].error);
                                continue;
                        }
                        ck_assert_msg(fd >= 0, "%s('%s'): %s", ways[w].name, lookups[i].path,
                                      strerror(-fd));
                        ck_assert_int_eq(read(fd, buf, sizeof(buf) - 1), 6);
                        ck_assert_str_eq(buf, "inside");
                        close(fd);
                }
}
END_TEST

START_TEST(test_beneath_create) {
        char path[4096];
        struct stat st;

        for (size_t w = 0; w < ELEMENTSOF(ways); w++) {
                int fd = ways[w].open(root_fd, "dirlink/new", O_WRONLY | O_CREAT | O_EXCL, 0640);

                ck_assert_msg(fd >= 0, "%s: %s", ways[w].name, strerror(-fd));
                close(fd);
                ck_assert_int_eq(fstatat(root_fd, "in/new", &st, 0), 0);
                ck_assert_int_eq(st.st_mode & 07777, 0640);
                ck_assert_int_eq(unlinkat(root_fd, "in/new", 0), 0);
                /* Created through a symlink out: refused, nothing made. */
                ck_assert_int_eq(ways[w].open(root_fd, "esc-new", O_WRONLY | O_CREAT, 0640),
                                 -EXDEV);
                snprintf(path, sizeof(path), "%s/created", tmp);
                ck_assert_int_eq(access(path, F_OK), -1);
        }
}
END_TEST

/* /proc/self/fd/N is a magic link: refused, wherever it points. */
START_TEST(test_beneath_magic_link) {
        int proc = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
        char path[64];

        ck_assert_int_ge(proc, 0);
        snprintf(path, sizeof(path), "fd/%d", root_fd);
        for (size_t w = 0; w < ELEMENTSOF(ways); w++)
                ck_assert_msg(ways[w].open(proc, path, O_RDONLY, 0) == -ELOOP, "%s", ways[w].name);
        close(proc);
}
END_TEST

START_TEST(test_beneath_parent) {
        const char *name = NULL;
        int fd = -1;

        ck_assert_int_eq(open_parent_beneath(root_fd, "dirlink/x", &fd, &name), 0);
        ck_assert_str_eq(name, "x");
        ck_assert_int_eq(renameat(root_fd, "in/a", fd, name), 0);
        ck_assert_int_eq(faccessat(root_fd, "in/x", F_OK, 0), 0);
        ck_assert_int_eq(fsync(fd), 0);
        close(fd);
        ck_assert_int_eq(open_parent_beneath(root_fd, "top", &fd, &name), 0);
        ck_assert_str_eq(name, "top");
        close(fd);
        ck_assert_int_eq(open_parent_beneath(root_fd, "esc/x", &fd, &name), -EXDEV);
        ck_assert_int_eq(open_parent_beneath(root_fd, "../x", &fd, &name), -EXDEV);
        ck_assert_int_eq(open_parent_beneath(root_fd, "/tmp/x", &fd, &name), -EXDEV);
        ck_assert_int_eq(open_parent_beneath(root_fd, "in/..", &fd, &name), -EINVAL);
        ck_assert_int_eq(open_parent_beneath(root_fd, "in/", &fd, &name), -EINVAL);
}
END_TEST

Suite *suite_beneath(void) {
        Suite *s = suite_create("beneath");
        TCase *tc = tcase_create("beneath");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_beneath_lookups);
        tcase_add_test(tc, test_beneath_create);
        tcase_add_test(tc, test_beneath_magic_link);
        tcase_add_test(tc, test_beneath_parent);
        suite_add_tcase(s, tc);
        return s;
}

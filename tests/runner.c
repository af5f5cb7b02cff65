/* SPDX-License-Identifier: MIT */
/* One runner for every suite. Check's own CK_RUN_SUITE and CK_RUN_CASE
 * environment variables select a subset; fork mode keeps a crash in one test
 * from taking the others down. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests.h"

const char *test_srcdir_path(const char *relative) {
        static char path[PATH_MAX];
        const char *top = getenv("FLEXSLOT_SRCDIR");

        snprintf(path, sizeof(path), "%s/%s", top && *top ? top : ".", relative);
        return path;
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

int main(void) {
        SRunner *runner = srunner_create(NULL);
        int failed;

#define SUITE(name) srunner_add_suite(runner, suite_##name());
#include "suites.h"
#undef SUITE

        srunner_run_all(runner, CK_NORMAL);
        failed = srunner_ntests_failed(runner);
        srunner_free(runner);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

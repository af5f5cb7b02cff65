/* SPDX-License-Identifier: MIT */
#include "submit.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/beneath.h"
#include "common/macro.h"
#include "mapred/apps-table.h"

static int refuse(StoreError *err, const char *field, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static int refuse(StoreError *err, const char *field, const char *fmt, ...) {
        va_list ap;

        err->field = field;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof(err->message), fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* "wordcount, grep, ...": what an unknown application's refusal offers. */
static void app_names(char *buf, size_t size) {
        size_t len = 0;

        buf[0] = '\0';
        for (const MapredApp *const *a = mapred_apps; *a && len < size; a++) {
                int k = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", (*a)->name);

                if (k < 0)
                        break;
                len += (size_t)k;
        }
}

int submit_check_runnable(const StoreJobSpec *spec, usec_t now, StoreError *err) {
        char why[STORE_ERROR_MAX - 32], when[64];
        const MapredApp *app;
        time_t t;
        struct tm tm;

        if (spec->app) {
                app = mapred_app_find(spec->app);
                if (!app) {
                        app_names(why, sizeof(why));
                        return refuse(err, "app", "app: unknown application '%.64s'; one of %s",
                                      spec->app, why);
                }
                if (mapred_app_check_arg(app, spec->app_arg, why, sizeof(why)) < 0)
                        return refuse(err, "app_arg", "app_arg: %s", why);
        }
        if (spec->n_reduces < MAPRED_REDUCES_MIN || spec->n_reduces > MAPRED_REDUCES_MAX)
                return refuse(err, "n_reduces",
                              "n_reduces: %u; a job has %u to %u reduces (map-only jobs are not "
                              "supported)",
                              spec->n_reduces, MAPRED_REDUCES_MIN, MAPRED_REDUCES_MAX);
        if (spec->deadline != 0 && spec->deadline <= now) {
                t = (time_t)(spec->deadline / USEC_PER_SEC);
                if (!gmtime_r(&t, &tm) ||
                    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
                        snprintf(when, sizeof(when), "%" PRIu64 " us", spec->deadline);
                return refuse(err, "deadline", "deadline: %s has passed", when);
        }
        return 0;
}

int submit_check_output(Store *store, const char *data_dir, StoreError *err) {
        _cleanup_close_ int data = -1, out = -1;
        char path[32];
        uint64_t id;
        int r;

        r = store_job_next_id(store, &id, err);
        if (r < 0)
                return r;
        snprintf(path, sizeof(path), "out/%" PRIu64, id);
        data = open(data_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (data < 0)
                return refuse(err, NULL, "Cannot open the data directory %s: %s", data_dir,
                              strerror(errno));
        out = open_beneath(data, path, O_PATH, 0);
        if (out == -ENOENT)
                return 0;
        if (out >= 0 || out == -EXDEV)
                return refuse(err, NULL,
                              "%s, the output directory of the job to come, exists in %s%s; "
                              "a job does not write into another's output: move it away",
                              path, data_dir, out >= 0 ? "" : " (a symlink out of it)");
        return refuse(err, NULL, "Cannot check for %s in %s: %s", path, data_dir, strerror(-out));
}

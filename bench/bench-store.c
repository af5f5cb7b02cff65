/* SPDX-License-Identifier: MIT */
/* The store's rate of task records, which the controller writes one per
 * finished attempt: each in a transaction of its own (the baseline), and
 * batched as a heartbeat brings them (a tracker with 8 slots) and as a
 * control cycle gathers several heartbeats' worth. Then job submissions,
 * whose commits sync the disk, for the price of that sync on this machine.
 * The store is a file in DIR (default $TMPDIR, else /var/tmp: on a tmpfs,
 * syncs cost nothing and the figures say little about a disk). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "controller/store/store.h"

#define TMPFS_MAGIC 0x01021994
#define RUN_USEC (2 * USEC_PER_SEC) /* each measurement */
#define MAX_BATCH 64

static const char *const inputs[] = { "bench/input" };

static const StoreJobSpec bench_job = {
        .name = "bench",
        .user = "bench",
        .pool = "default",
        .app = "wordcount",
        .inputs = inputs,
        .n_inputs = 1,
        .n_reduces = 1,
};

static int fail(const char *what, int r, const StoreError *err) {
        fprintf(stderr, "flexslot-bench-store: %s: %s\n", what,
                err->message[0] ? err->message : strerror(-r));
        return r;
}

/* Records per second, batch records to a transaction, into a job of its
 * own, for RUN_USEC. */
static int records_per_sec(Store *s, unsigned batch, double *ret) {
        StoreTaskRecord recs[MAX_BATCH];
        char outputs[MAX_BATCH][64];
        StoreError err = { 0 };
        usec_t start, now;
        uint64_t job;
        unsigned n = 0;
        int r;

        r = store_job_submit(s, &bench_job, &job, &err);
        if (r >= 0)
                r = store_job_start(s, job, STORE_MAPS_MAX, &err);
        if (r < 0)
                return fail("cannot start a job", r, &err);
        start = now = now_monotonic_usec();
        while (now - start < RUN_USEC && n + batch <= STORE_MAPS_MAX) {
                for (unsigned i = 0; i < batch; i++, n++) {
                        snprintf(outputs[i], sizeof(outputs[i]), "out/%u", n);
                        recs[i] = (StoreTaskRecord){
                                .job = job,
                                .type = TASK_MAP,
                                .index = n,
                                .attempt = n,
                                .node = "4c4c4544-0042-3510-8052-b4c04f4d4e31",
                                .status = STORE_TASK_SUCCEEDED,
                                .started = now_realtime_usec() - USEC_PER_SEC,
                                .finished = now_realtime_usec(),
                                .input_bytes = 64ULL << 20,
                                .output_bytes = 12345,
                                .output = outputs[i],
                        };
                }
                r = store_tasks_record(s, recs, batch, &err);
                if (r < 0)
                        return fail("cannot record tasks", r, &err);
                now = now_monotonic_usec();
        }
        *ret = n / usec_to_sec(now - start);
        return 0;
}

static int submissions_per_sec(Store *s, double *ret) {
        StoreError err = { 0 };
        usec_t start, now;
        unsigned n = 0;
        int r;

        start = now = now_monotonic_usec();
        while (now - start < RUN_USEC) {
                uint64_t id;

                r = store_job_submit(s, &bench_job, &id, &err);
                if (r < 0)
                        return fail("cannot submit a job", r, &err);
                n++;
                now = now_monotonic_usec();
        }
        *ret = n / usec_to_sec(now - start);
        return 0;
}

int main(int argc, char **argv) {
        static const struct {
                unsigned batch;
                const char *what;
        } modes[] = {
                { 1, "one transaction per record (baseline)" },
                { 8, "batched, 8 per heartbeat" },
                { MAX_BATCH, "batched, 64 per control cycle" },
        };
        const char *base = argc > 1 ? argv[1] : getenv("TMPDIR");
        _cleanup_(store_closep) Store *s = NULL;
        _cleanup_free_ char *dir = NULL, *path = NULL;
        StoreError err = { 0 };
        double baseline = 0, rate, jobs = 0;
        struct statfs fs;
        int r;

        if (argc > 2) {
                fprintf(stderr, "Usage: flexslot-bench-store [DIR]\n");
                return 2;
        }
        if (asprintf(&dir, "%s/flexslot-bench-store.XXXXXX", base && *base ? base : "/var/tmp") <
                    0 ||
            !mkdtemp(dir) || asprintf(&path, "%s/store.db", dir) < 0) {
                fprintf(stderr, "flexslot-bench-store: cannot make a directory: %m\n");
                return 1;
        }
        r = store_open(path, &s, &err);
        if (r < 0)
                return fail("cannot open the store", r, &err) < 0;
        printf("store %s%s\n", path,
               statfs(dir, &fs) == 0 && fs.f_type == TMPFS_MAGIC
                       ? " (on a tmpfs: syncs cost nothing here)"
                       : "");
        for (size_t i = 0; i < ELEMENTSOF(modes) && r >= 0; i++) {
                r = records_per_sec(s, modes[i].batch, &rate);
                if (r < 0)
                        break;
                if (i == 0)
                        baseline = rate;
                printf("task records, %-38s %10.0f records/s (%.1fx the baseline)\n", modes[i].what,
                       rate, rate / baseline);
        }
        if (r >= 0)
                r = submissions_per_sec(s, &jobs);
        if (r >= 0)
                printf("job submissions (each commit synced)                  %10.0f jobs/s\n",
                       jobs);
        s = store_close(s);
        (void)unlink(path);
        (void)rmdir(dir);
        return r < 0;
}

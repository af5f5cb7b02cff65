/* SPDX-License-Identifier: MIT */
/* ARIA's profile database (Verma, Cherkasova, Campbell, ICAC'11, section 6)
 * in the live controller: a job that succeeds leaves the profile of its
 * succeeded attempts in the store under (user, job name), and the next
 * submission of that name finds it there for the deadline schedulers.
 *
 * ARIA's model extracts the profile (AriaProfile), the store keeps its
 * numbers in plain columns (StoreProfileStats), and the policy core reads
 * them as phase statistics (JobProfile), which slo_job_profile() turns back
 * into ARIA's: this file converts at each boundary. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "common/log.h"
#include "common/macro.h"
#include "controller/daemon/cluster-profile.h"
#include "policy/layers/aria-model.h"

int cluster_profile_save(Store *store, const StoreJob *job, StoreError *err) {
        _cleanup_free_ AriaTask *tasks = NULL;
        StoreTaskRecord *records = NULL;
        AriaProfile p;
        size_t n = 0;
        int r;

        r = store_job_tasks(store, job->id, STORE_TASK_STATUS_BIT(STORE_TASK_SUCCEEDED), &records,
                            &n, err);
        if (r < 0)
                return r;
        tasks = calloc(MAX(n, (size_t)1), sizeof(*tasks));
        if (!tasks) {
                store_task_records_free(records, n);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
                const StoreTaskRecord *t = &records[i];

                /* A tracker that does not tell when a reduce's shuffle
                 * ended leaves it all to the reduce phase: shuffles of 0 s,
                 * the reduce as long as it ran. */
                tasks[i] = (AriaTask){
                        .reduce = t->type == TASK_REDUCE,
                        .start = usec_to_sec(t->started),
                        .end = usec_to_sec(t->finished),
                        .shuffle_end = usec_to_sec(t->shuffle_end ? t->shuffle_end : t->started),
                        .input = (double)t->input_bytes,
                        .output = (double)t->output_bytes,
                };
        }
        store_task_records_free(records, n);
        r = aria_profile_extract(tasks, n, &p);
        if (r < 0) {
                snprintf(err->message, sizeof(err->message),
                         "The succeeded attempts of job %" PRIu64 " give no profile", job->id);
                return r;
        }
        return store_profile_put(store, job->user, job->name, job->id,
                                 &(StoreProfileStats){
                                         .map_min = p.map_min,
                                         .map_avg = p.map_avg,
                                         .map_max = p.map_max,
                                         .map_input = p.map_input,
                                         .map_selectivity = p.map_selectivity,
                                         .sh1_avg = p.sh1_avg,
                                         .sh1_max = p.sh1_max,
                                         .shtyp_avg = p.shtyp_avg,
                                         .shtyp_max = p.shtyp_max,
                                         .reduce_avg = p.reduce_avg,
                                         .reduce_max = p.reduce_max,
                                         .reduce_selectivity = p.reduce_selectivity,
                                 },
                                 err);
}

static usec_t usec_of(double sec) {
        return (usec_t)llround(sec * (double)USEC_PER_SEC);
}

/* A phase whose mean is avg and whose longest task took max: the fewest
 * tasks of that mean with max among them (PhaseStats keep total >= max). */
static PhaseStats phase_of(double min, double avg, double max) {
        usec_t a = usec_of(avg), lo = usec_of(min), hi = usec_of(max);
        unsigned count;

        if (a == 0)
                return (PhaseStats){ .count = 1 };
        count = (unsigned)MAX((hi + a - 1) / a, (usec_t)1);
        lo = MIN(lo, hi);
        return (PhaseStats){ .count = count, .total = a * count, .min = lo, .max = hi };
}

int cluster_profile_load(Store *store, const char *user, const char *name, ClusterProfile *ret,
                         StoreError *err) {
        StoreProfile sp = { 0 };
        const StoreProfileStats *p = &sp.profile;
        int r;

        r = store_profile_get(store, user, name, &sp, err);
        if (r < 0)
                return r;
        /* Shuffles and reduces have no minimum in ARIA's profile: their
         * mean stands for it. */
        *ret = (ClusterProfile){
                .job = sp.job,
                .phases.phases = {
                        [PROFILE_MAP] = phase_of(p->map_min, p->map_avg, p->map_max),
                        [PROFILE_FIRST_SHUFFLE] = phase_of(p->sh1_avg, p->sh1_avg, p->sh1_max),
                        [PROFILE_TYPICAL_SHUFFLE] =
                                phase_of(p->shtyp_avg, p->shtyp_avg, p->shtyp_max),
                        [PROFILE_REDUCE] = phase_of(p->reduce_avg, p->reduce_avg, p->reduce_max),
                },
        };
        store_profile_clear(&sp);
        return 0;
}

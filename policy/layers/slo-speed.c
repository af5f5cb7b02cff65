/* SPDX-License-Identifier: MIT */
/* The measured speed of a deadline job's slots against its profile; the
 * choices are in slo-loop.h. */
#include <math.h>

#include "common/macro.h"
#include "policy/layers/slo-loop.h"
#include "policy/layers/slo-sched.h"

/* Work (in profiled seconds) and the time it took, summed. */
typedef struct SloSpeedSum {
        double work, time;
} SloSpeedSum;

double slo_map_done(const Attempt *a) {
        if (a->input_size == 0)
                return a->progress;
        return MIN((double)a->bytes_processed / (double)a->input_size, 1.0);
}

static double clamp_speed(double speed) {
        return CLAMP(speed, SLO_SPEED_MIN, SLO_SPEED_MAX);
}

/* The running attempt's work so far and its age, or false when it is not
 * measured. */
static bool attempt_sum(const ClusterSnapshot *s, usec_t now, const Attempt *a, SloSpeedSum *ret) {
        const Task *t = &s->tasks[a->task];
        const Job *job = &s->jobs[t->job];
        double done = slo_map_done(a), expected;
        AriaProfile p;

        if (t->type != TASK_MAP || a->speculative || done <= 0 || now <= a->started ||
            now - a->started < SLO_SPEED_MIN_AGE ||
            slo_job_profile(job, job->counts[TASK_MAP].total, &p) < 0)
                return false;
        expected = p.map_avg * (a->input_size > 0 ? (double)a->input_size / p.map_input : 1.0);
        *ret = (SloSpeedSum){ .work = expected * done, .time = usec_to_sec(now - a->started) };
        return expected > 0;
}

/* The job's finished maps of this run, against the profile it was
 * scheduled by: their work at its mean and their time. Nothing without a
 * stored profile (the job's own profile is then the one its maps make). */
static SloSpeedSum finished_sum(const Job *j) {
        const PhaseStats *run = &j->profile.phases[PROFILE_MAP];

        if (!j->stored_profile || j->stored_profile->phases[PROFILE_MAP].count == 0 ||
            run->count == 0)
                return (SloSpeedSum){ 0 };
        return (SloSpeedSum){
                .work = run->count *
                        usec_to_sec(phase_stats_mean(&j->stored_profile->phases[PROFILE_MAP])),
                .time = usec_to_sec(run->total),
        };
}

static double sum_speed(const SloSpeedSum *sum) {
        return sum->time > 0 && sum->work > 0 ? clamp_speed(sum->work / sum->time) : 0;
}

double slo_attempt_speed(const ClusterSnapshot *s, usec_t now, uint32_t attempt) {
        SloSpeedSum t;

        if (attempt >= s->n_attempts || !attempt_sum(s, now, &s->attempts[attempt], &t))
                return 0;
        return sum_speed(&t);
}

double slo_cluster_speed(const ClusterSnapshot *s, usec_t now) {
        SloSpeedSum sum = { 0 };

        for (size_t j = 0; j < s->n_jobs; j++) {
                SloSpeedSum f = finished_sum(&s->jobs[j]);

                sum.work += f.work;
                sum.time += f.time;
        }
        for (size_t i = 0; i < s->n_attempts; i++) {
                SloSpeedSum t;

                if (!attempt_sum(s, now, &s->attempts[i], &t))
                        continue;
                sum.work += t.work;
                sum.time += t.time;
        }
        return sum_speed(&sum);
}

double slo_new_job_speed(double cluster) {
        return cluster > 0 ? cluster : 1.0;
}

double slo_job_speed(const ClusterSnapshot *s, usec_t now, uint32_t job, double cluster) {
        SloSpeedSum sum = finished_sum(&s->jobs[job]);
        double speed;

        for (size_t i = 0; i < s->n_attempts; i++) {
                SloSpeedSum t;

                if (s->tasks[s->attempts[i].task].job != job ||
                    !attempt_sum(s, now, &s->attempts[i], &t))
                        continue;
                sum.work += t.work;
                sum.time += t.time;
        }
        speed = sum_speed(&sum);
        return speed > 0 ? speed : slo_new_job_speed(cluster);
}

void slo_profile_at_speed(AriaProfile *p, double speed) {
        double f = 1.0 / clamp_speed(speed);

        p->map_min *= f;
        p->map_avg *= f;
        p->map_max *= f;
        p->reduce_avg *= f;
        p->reduce_max *= f;
}

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

/* The profiled time of a map attempt's task: its job's mean map scaled by
 * its split against the job's mean split; 0 without a profile. */
static double map_expected(const ClusterSnapshot *s, const Attempt *a) {
        const Task *t = &s->tasks[a->task];
        const Job *job = &s->jobs[t->job];
        AriaProfile p;

        if (t->type != TASK_MAP || slo_job_profile(job, job->counts[TASK_MAP].total, &p) < 0)
                return 0;
        return p.map_avg * (a->input_size > 0 ? (double)a->input_size / p.map_input : 1.0);
}

/* The running attempt's work so far and its age, or false when it is not
 * measured. */
static bool attempt_sum(const ClusterSnapshot *s, usec_t now, const Attempt *a, SloSpeedSum *ret) {
        double done = slo_map_done(a), expected;

        if (a->speculative || done <= 0 || now <= a->started ||
            now - a->started < SLO_SPEED_MIN_AGE)
                return false;
        expected = map_expected(s, a);
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

double slo_node_speed(const ClusterSnapshot *s, usec_t now, uint32_t node, double cluster) {
        SloSpeedSum sum = { 0 };
        double speed;

        for (size_t i = 0; i < s->n_attempts; i++) {
                SloSpeedSum t;

                if (s->attempts[i].node != node || !attempt_sum(s, now, &s->attempts[i], &t))
                        continue;
                sum.work += t.work;
                sum.time += t.time;
        }
        speed = sum_speed(&sum);
        return speed > 0 ? speed : slo_new_job_speed(cluster);
}

bool slo_restart_pays(const ClusterSnapshot *s, usec_t now, uint32_t attempt, uint32_t node,
                      double cluster) {
        const Attempt *a = &s->attempts[attempt];
        double expected = map_expected(s, a), done = slo_map_done(a), left, fresh;

        if (expected <= 0 || done <= 0 || now <= a->started)
                return true;
        /* LATE's estimate: (1 - progress) / progress rate. */
        left = usec_to_sec(now - a->started) * (1 - done) / done;
        fresh = expected / slo_node_speed(s, now, node, cluster);
        return fresh < left;
}

void slo_profile_at_speed(AriaProfile *p, double speed) {
        double f = 1.0 / clamp_speed(speed);

        p->map_min *= f;
        p->map_avg *= f;
        p->map_max *= f;
        p->reduce_avg *= f;
        p->reduce_max *= f;
}

/* SPDX-License-Identifier: MIT */
/* RAS's Placement Algorithm; the choices the paper leaves open are listed
 * in ras-place.h. */
#include "ras-place.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "policy/layers/ras-utility.h"

/* Capacities are met up to rounding: a tracker filled by tasks of a
 * quarter of its memory each holds four. */
#define RAS_EPSILON 1e-9

typedef struct Place {
        const RasJob *jobs;
        size_t n_jobs, n_trackers;
        const RasTracker *trackers;
        RasPlacement *p;
        unsigned *s_alloc, *r_alloc; /* per job, sums over the trackers */
        unsigned *n_map, *n_reduce;  /* per tracker, maps and reduces placed */
        Resources *use;              /* per tracker */
} Place;

bool ras_fits(const Resources *a, const Resources *b, double n, const Resources *c) {
        return a->cpu + n * b->cpu <= c->cpu * (1 + RAS_EPSILON) &&
               a->io + n * b->io <= c->io * (1 + RAS_EPSILON) &&
               (double)a->memory + n * (double)b->memory <= (double)c->memory * (1 + RAS_EPSILON);
}

static void add(Resources *a, const Resources *b, double n) {
        a->cpu += n * b->cpu;
        a->io += n * b->io;
        a->memory = (uint64_t)MAX(0.0, (double)a->memory + n * (double)b->memory);
}

/* The maps a shuffling reduce of job fetches from at once under s_alloc
 * maps placed. */
static unsigned fetching(const RasJob *job, unsigned s_alloc) {
        return job->parallel_copies > 0 ? MIN(s_alloc, job->parallel_copies) : s_alloc;
}

/* One reduce of job under s_alloc maps placed. */
static Resources reduce_demand(const RasJob *job, unsigned s_alloc) {
        Resources d = job->shuffle;

        if (job->reduce_phase)
                return job->reduce;
        d.io *= fetching(job, s_alloc);
        return d;
}

Resources ras_tracker_use(const RasJob *jobs, size_t n_jobs, size_t n_trackers,
                          const RasPlacement *p, size_t t) {
        Resources use = { 0 };

        for (size_t j = 0; j < n_jobs; j++) {
                unsigned s_alloc = 0;
                Resources r;

                for (size_t k = 0; k < n_trackers; k++)
                        s_alloc += p->map[j * n_trackers + k];
                r = reduce_demand(&jobs[j], s_alloc);
                add(&use, &jobs[j].map, p->map[j * n_trackers + t]);
                add(&use, &r, p->reduce[j * n_trackers + t]);
        }
        return use;
}

double ras_job_utility(const RasJob *job, unsigned s_alloc, unsigned r_alloc) {
        return ras_utility(s_alloc, MIN(job->s_req, job->s_pend), job->s_pend, r_alloc,
                           job->r_pend);
}

static double utility_of(const Place *pl, size_t j) {
        return ras_job_utility(&pl->jobs[j], pl->s_alloc[j], pl->r_alloc[j]);
}

static unsigned *cell(const Place *pl, unsigned *m, size_t j, size_t t) {
        return &m[j * pl->n_trackers + t];
}

/* room_for_new_job_slot() for a reduce of job j on tracker t. */
static bool reduce_room(const Place *pl, size_t j, size_t t) {
        Resources d = reduce_demand(&pl->jobs[j], pl->s_alloc[j]);

        return pl->n_reduce[t] < pl->trackers[t].slots[SLOT_REDUCE] &&
               ras_fits(&pl->use[t], &d, 1, &pl->trackers[t].capacity);
}

/* room_for_new_job_slot() for a map of job j on tracker t: the map fits,
 * and so does the I/O one more map adds to each shuffling reduce of j. */
static bool map_room(const Place *pl, size_t j, size_t t) {
        const RasJob *job = &pl->jobs[j];
        Resources extra = { .io = job->shuffle.io };

        if (pl->s_alloc[j] >= job->s_pend || pl->n_map[t] >= pl->trackers[t].slots[SLOT_MAP])
                return false;
        if (job->reduce_phase || job->shuffle.io == 0 ||
            fetching(job, pl->s_alloc[j] + 1) == fetching(job, pl->s_alloc[j]))
                return ras_fits(&pl->use[t], &job->map, 1, &pl->trackers[t].capacity);
        for (size_t k = 0; k < pl->n_trackers; k++) {
                Resources use = pl->use[k];
                if (k == t)
                        add(&use, &job->map, 1);
                if (!ras_fits(&use, &extra, *cell(pl, pl->p->reduce, j, k),
                              &pl->trackers[k].capacity))
                        return false;
        }
        return ras_fits(&pl->use[t], &job->map, 1, &pl->trackers[t].capacity);
}

/* Adds n (+1 or -1) maps of job j on tracker t. */
static void map_move(Place *pl, size_t j, size_t t, int n) {
        const RasJob *job = &pl->jobs[j];

        unsigned before = fetching(job, pl->s_alloc[j]);
        double more;

        *cell(pl, pl->p->map, j, t) += (unsigned)n;
        pl->s_alloc[j] += (unsigned)n;
        pl->n_map[t] += (unsigned)n;
        add(&pl->use[t], &job->map, n);
        more = (double)fetching(job, pl->s_alloc[j]) - (double)before;
        if (job->reduce_phase || more == 0)
                return;
        for (size_t k = 0; k < pl->n_trackers; k++) {
                Resources extra = { .io = job->shuffle.io };
                add(&pl->use[k], &extra, more * *cell(pl, pl->p->reduce, j, k));
        }
}

/* The job of lowest utility with a map left to place, fitting on t when
 * fit; n_jobs if none. */
static size_t lowest_wanting(const Place *pl, size_t t, bool fit) {
        size_t best = pl->n_jobs;

        for (size_t j = 0; j < pl->n_jobs; j++) {
                if (pl->s_alloc[j] >= pl->jobs[j].s_pend || (fit && !map_room(pl, j, t)))
                        continue;
                if (best == pl->n_jobs || utility_of(pl, j) < utility_of(pl, best))
                        best = j;
        }
        return best;
}

/* The job of highest utility, but in, with a map slot on t; n_jobs if
 * none. */
static size_t highest_on(const Place *pl, size_t t, size_t in) {
        size_t best = pl->n_jobs;

        for (size_t j = 0; j < pl->n_jobs; j++) {
                if (j == in || *cell(pl, pl->p->map, j, t) == 0)
                        continue;
                if (best == pl->n_jobs || utility_of(pl, j) > utility_of(pl, best))
                        best = j;
        }
        return best;
}

/* Lines 13-19: slots of the most satisfied jobs on t go, while they stay
 * above the least satisfied job, until that job fits; undone if it never
 * does. Whether anything changed. */
static bool exchange(Place *pl, size_t t, unsigned *removed) {
        size_t in = lowest_wanting(pl, t, false), n_removed = 0;
        double u_in;

        if (in == pl->n_jobs || map_room(pl, in, t))
                return false;
        u_in = utility_of(pl, in);
        while (!map_room(pl, in, t)) {
                size_t out = highest_on(pl, t, in);
                if (out == pl->n_jobs || !(ras_job_utility(&pl->jobs[out], pl->s_alloc[out] - 1,
                                                           pl->r_alloc[out]) > u_in))
                        break;
                map_move(pl, out, t, -1);
                removed[out]++;
                n_removed++;
        }
        if (!map_room(pl, in, t))
                for (size_t j = 0; j < pl->n_jobs; j++)
                        for (; removed[j] > 0; removed[j]--)
                                map_move(pl, j, t, +1);
        memset(removed, 0, pl->n_jobs * sizeof(*removed));
        return n_removed > 0 && map_room(pl, in, t);
}

/* Lines 20-23: t filled, each slot to the least satisfied job that fits. */
static bool fill(Place *pl, size_t t) {
        bool changed = false;

        for (;;) {
                size_t j = lowest_wanting(pl, t, true);
                if (j == pl->n_jobs)
                        return changed;
                map_move(pl, j, t, +1);
                changed = true;
        }
}

static int compare_reduces(const void *a, const void *b, void *userdata) {
        const unsigned *key = userdata; /* pairs: all reduces, the job's */
        size_t x = *(const size_t *)a, y = *(const size_t *)b;

        if (key[2 * x] != key[2 * y])
                return key[2 * x] < key[2 * y] ? -1 : 1;
        if (key[2 * x + 1] != key[2 * y + 1])
                return key[2 * x + 1] < key[2 * y + 1] ? -1 : 1;
        return (x > y) - (x < y);
}

/* Lines 1-8. */
static void place_reduces(Place *pl, size_t *order, unsigned *key) {
        for (size_t j = 0; j < pl->n_jobs; j++) {
                for (size_t t = 0; t < pl->n_trackers; t++) {
                        order[t] = t;
                        key[2 * t] = pl->n_reduce[t];
                        key[2 * t + 1] = *cell(pl, pl->p->reduce, j, t);
                }
                qsort_r(order, pl->n_trackers, sizeof(*order), compare_reduces, key);
                for (size_t i = 0; i < pl->n_trackers && pl->r_alloc[j] < pl->jobs[j].r_pend; i++) {
                        size_t t = order[i];
                        Resources d;
                        if (!reduce_room(pl, j, t))
                                continue;
                        d = reduce_demand(&pl->jobs[j], pl->s_alloc[j]);
                        (*cell(pl, pl->p->reduce, j, t))++;
                        pl->r_alloc[j]++;
                        pl->n_reduce[t]++;
                        add(&pl->use[t], &d, 1);
                }
        }
}

int ras_place(const RasJob *jobs, size_t n_jobs, const RasTracker *trackers, size_t n_trackers,
              unsigned rounds, RasPlacement *p, double *utility) {
        _cleanup_free_ unsigned *sums = calloc(2 * n_jobs + 2 * n_trackers + 1, sizeof(unsigned));
        _cleanup_free_ unsigned *key = calloc(2 * n_trackers + 1, sizeof(unsigned));
        _cleanup_free_ size_t *order = calloc(n_trackers + 1, sizeof(size_t));
        _cleanup_free_ unsigned *removed = calloc(n_jobs + 1, sizeof(unsigned));
        _cleanup_free_ Resources *use = calloc(n_trackers + 1, sizeof(Resources));
        Place pl = {
                .jobs = jobs,
                .n_jobs = n_jobs,
                .n_trackers = n_trackers,
                .trackers = trackers,
                .p = p,
                .use = use,
        };

        if (!sums || !key || !order || !removed || !use)
                return -ENOMEM;
        pl.s_alloc = sums;
        pl.r_alloc = sums + n_jobs;
        pl.n_map = sums + 2 * n_jobs;
        pl.n_reduce = pl.n_map + n_trackers;
        for (size_t j = 0; j < n_jobs; j++) {
                for (size_t t = 0; t < n_trackers; t++) {
                        pl.s_alloc[j] += *cell(&pl, p->map, j, t);
                        pl.r_alloc[j] += *cell(&pl, p->reduce, j, t);
                        pl.n_map[t] += *cell(&pl, p->map, j, t);
                        pl.n_reduce[t] += *cell(&pl, p->reduce, j, t);
                }
                if (pl.s_alloc[j] > jobs[j].s_pend || pl.r_alloc[j] > jobs[j].r_pend)
                        return -EINVAL;
        }
        for (size_t t = 0; t < n_trackers; t++)
                use[t] = ras_tracker_use(jobs, n_jobs, n_trackers, p, t);

        place_reduces(&pl, order, key);
        for (unsigned round = 0; round < rounds; round++) {
                bool changed = false;
                for (size_t t = 0; t < n_trackers; t++) {
                        changed = exchange(&pl, t, removed) || changed;
                        changed = fill(&pl, t) || changed;
                }
                if (!changed)
                        break;
        }
        for (size_t j = 0; utility && j < n_jobs; j++)
                utility[j] = utility_of(&pl, j);
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* The simulator's building blocks: the event queue, the host model and the
 * scenario and workload parsers. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/macro.h"
#include "policy/layers/flexslot.h"
#include "sim/data.h"
#include "sim/event.h"
#include "sim/host.h"
#include "sim/scenario.h"
#include "sim/workload.h"
#include "tests.h"

/* ---- event queue ---- */

typedef struct Trace {
        int order[64];
        int n;
        EventQueue *q;
        EventId cancel_me;
        int repeats;
} Trace;

typedef struct Tag {
        Trace *trace;
        int value;
} Tag;

static usec_t record(EventQueue *q, void *userdata) {
        Tag *t = userdata;

        t->trace->order[t->trace->n++] = t->value;
        return 0;
}

START_TEST(test_heap_orders_by_time_then_sequence) {
        _cleanup_(event_queue_freep) EventQueue *q = NULL;
        static const usec_t times[] = { 50, 10, 30, 10, 20, 50, 10, 0 };
        static const int expect[] = { 7, 1, 3, 6, 4, 2, 0, 5 };
        Trace trace = { 0 };
        Tag tags[ELEMENTSOF(times)];

        ck_assert_int_eq(event_queue_new(&q), 0);
        for (size_t i = 0; i < ELEMENTSOF(times); i++) {
                tags[i] = (Tag){ &trace, (int)i };
                ck_assert_int_eq(event_queue_schedule(q, times[i], record, &tags[i], NULL), 0);
        }
        ck_assert_uint_eq(event_queue_pending(q), ELEMENTSOF(times));
        ck_assert_uint_eq(event_queue_next_time(q), 0);
        ck_assert_uint_eq(event_queue_run(q, USEC_INFINITY), ELEMENTSOF(times));
        ck_assert_int_eq(trace.n, (int)ELEMENTSOF(expect));
        for (size_t i = 0; i < ELEMENTSOF(expect); i++)
                ck_assert_int_eq(trace.order[i], expect[i]);
        ck_assert_uint_eq(event_queue_now(q), 50);
        ck_assert_uint_eq(event_queue_next_time(q), USEC_INFINITY);
}
END_TEST

START_TEST(test_heap_cancel_and_stale_ids) {
        _cleanup_(event_queue_freep) EventQueue *q = NULL;
        Trace trace = { 0 };
        Tag tags[5];
        EventId ids[5];

        ck_assert_int_eq(event_queue_new(&q), 0);
        for (int i = 0; i < 5; i++) {
                tags[i] = (Tag){ &trace, i };
                ck_assert_int_eq(
                        event_queue_schedule(q, 100 - (usec_t)i * 10, record, &tags[i], &ids[i]),
                        0);
        }
        ck_assert_int_eq(event_queue_cancel(q, ids[2]), 0);
        ck_assert_int_eq(event_queue_cancel(q, ids[2]), -ENOENT);
        ck_assert_int_eq(event_queue_cancel(q, 0), -ENOENT);
        ck_assert_int_eq(event_queue_cancel(q, ids[4]), 0);
        /* The freed record is reused; the old id must not reach the new event. */
        tags[2].value = 9;
        ck_assert_int_eq(event_queue_schedule(q, 75, record, &tags[2], &ids[2]), 0);
        ck_assert_int_eq(event_queue_cancel(q, ids[4]), -ENOENT);
        ck_assert_uint_eq(event_queue_run(q, 85), 2); /* 70, 75 */
        ck_assert_int_eq(event_queue_schedule(q, 70, record, &tags[0], NULL),
                         -EINVAL); /* now is 75 */
        ck_assert_uint_eq(event_queue_run(q, USEC_INFINITY), 2);
        ck_assert_int_eq(trace.n, 4);
        ck_assert_int_eq(trace.order[0], 3);
        ck_assert_int_eq(trace.order[1], 9);
        ck_assert_int_eq(trace.order[2], 1);
        ck_assert_int_eq(trace.order[3], 0);
}
END_TEST

static usec_t periodic(EventQueue *q, void *userdata) {
        Trace *t = userdata;

        t->order[t->n++] = (int)event_queue_now(q);
        return --t->repeats > 0 ? 7 : 0;
}

static usec_t cancel_other(EventQueue *q, void *userdata) {
        Trace *t = userdata;

        ck_assert_int_eq(event_queue_cancel(q, t->cancel_me), 0);
        return 0;
}

START_TEST(test_heap_periodic_and_cancel_from_callback) {
        _cleanup_(event_queue_freep) EventQueue *q = NULL;
        Trace trace = { .repeats = 3 }, other = { 0 };

        ck_assert_int_eq(event_queue_new(&q), 0);
        ck_assert_int_eq(event_queue_schedule(q, 5, periodic, &trace, NULL), 0);
        ck_assert_int_eq(event_queue_schedule(q, 30, periodic, &other, &trace.cancel_me), 0);
        ck_assert_int_eq(event_queue_schedule(q, 12, cancel_other, &trace, NULL), 0);
        ck_assert_uint_eq(event_queue_run(q, USEC_INFINITY), 4);
        ck_assert_int_eq(trace.n, 3);
        ck_assert_int_eq(trace.order[0], 5);
        ck_assert_int_eq(trace.order[1], 12);
        ck_assert_int_eq(trace.order[2], 19);
        ck_assert_int_eq(other.n, 0);
        ck_assert_uint_eq(event_queue_dispatched(q), 4);
}
END_TEST

START_TEST(test_heap_move) {
        _cleanup_(event_queue_freep) EventQueue *q = NULL;
        Trace trace = { 0 };
        Tag tags[4];
        EventId ids[4];

        ck_assert_int_eq(event_queue_new(&q), 0);
        for (int i = 0; i < 4; i++) {
                tags[i] = (Tag){ &trace, i };
                ck_assert_int_eq(
                        event_queue_schedule(q, 10 * (usec_t)(i + 1), record, &tags[i], &ids[i]),
                        0);
        }
        /* Later, earlier, and onto a time taken: after the one already there. */
        ck_assert_int_eq(event_queue_move(q, ids[0], 35), 0);
        ck_assert_int_eq(event_queue_move(q, ids[3], 5), 0);
        ck_assert_int_eq(event_queue_move(q, ids[1], 30), 0);
        ck_assert_uint_eq(event_queue_run(q, 6), 1);
        ck_assert_int_eq(event_queue_move(q, ids[3], 50), -ENOENT); /* ran */
        ck_assert_int_eq(event_queue_move(q, ids[2], 1), -EINVAL);  /* past */
        event_queue_run(q, USEC_INFINITY);
        ck_assert_int_eq(trace.n, 4);
        ck_assert_int_eq(trace.order[0], 3);
        ck_assert_int_eq(trace.order[1], 2);
        ck_assert_int_eq(trace.order[2], 1);
        ck_assert_int_eq(trace.order[3], 0);
        ck_assert_uint_eq(event_queue_pending(q), 0);
}
END_TEST

typedef struct HookLog {
        uint64_t dispatched[8];
        usec_t now[8];
        int n;
} HookLog;

static void log_hook(EventQueue *q, void *userdata) {
        HookLog *log = userdata;

        log->dispatched[log->n] = event_queue_dispatched(q);
        log->now[log->n++] = event_queue_now(q);
}

/* The hook comes after every third event, between two events, and not
 * after the last one: nothing is left to watch. */
START_TEST(test_heap_hook) {
        _cleanup_(event_queue_freep) EventQueue *q = NULL;
        Trace trace = { 0 };
        Tag tags[10];
        HookLog log = { 0 };

        ck_assert_int_eq(event_queue_new(&q), 0);
        for (int i = 0; i < 10; i++) {
                tags[i] = (Tag){ &trace, i };
                ck_assert_int_eq(event_queue_schedule(q, 10 * (usec_t)i, record, &tags[i], NULL),
                                 0);
        }
        event_queue_set_hook(q, 3, log_hook, &log);
        ck_assert_uint_eq(event_queue_run(q, 45), 5); /* and on across two runs */
        ck_assert_uint_eq(event_queue_run(q, USEC_INFINITY), 5);
        ck_assert_int_eq(log.n, 3);
        for (int i = 0; i < 3; i++) {
                ck_assert_uint_eq(log.dispatched[i], 3 * (uint64_t)(i + 1));
                ck_assert_uint_eq(log.now[i], 10 * (usec_t)(3 * i + 2));
        }
        event_queue_set_hook(q, 0, log_hook, &log);
        ck_assert_int_eq(event_queue_schedule(q, 100, record, &tags[0], NULL), 0);
        event_queue_run(q, USEC_INFINITY);
        ck_assert_int_eq(log.n, 3);
}
END_TEST

/* Many random events, with random cancels: the order is always
 * non-decreasing in (time, sequence). */
typedef struct Seen {
        usec_t last_time;
        int last_seq;
        int count;
        int bad;
} Seen;

typedef struct Stamp {
        Seen *seen;
        int seq;
} Stamp;

static usec_t check_order(EventQueue *q, void *userdata) {
        Stamp *st = userdata;
        Seen *s = st->seen;
        usec_t now = event_queue_now(q);

        if (now < s->last_time || (now == s->last_time && st->seq < s->last_seq))
                s->bad++;
        s->last_time = now;
        s->last_seq = st->seq;
        s->count++;
        return 0;
}

START_TEST(test_heap_random_order) {
        _cleanup_(event_queue_freep) EventQueue *q = NULL;
        _cleanup_free_ Stamp *stamps = calloc(5000, sizeof(Stamp));
        _cleanup_free_ EventId *ids = calloc(5000, sizeof(EventId));
        Seen seen = { 0 };
        uint64_t x = 12345;
        int cancelled = 0;

        ck_assert_int_eq(event_queue_new(&q), 0);
        for (int i = 0; i < 5000; i++) {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                stamps[i] = (Stamp){ &seen, i };
                ck_assert_int_eq(
                        event_queue_schedule(q, (x >> 33) % 100, check_order, &stamps[i], &ids[i]),
                        0);
        }
        for (int i = 0; i < 5000; i += 3)
                cancelled += event_queue_cancel(q, ids[i]) == 0;
        event_queue_run(q, USEC_INFINITY);
        ck_assert_int_eq(seen.bad, 0);
        ck_assert_int_eq(seen.count, 5000 - cancelled);
}
END_TEST

/* ---- host model ---- */

static double sum(const double *v, size_t n) {
        double s = 0;

        for (size_t i = 0; i < n; i++)
                s += v[i];
        return s;
}

START_TEST(test_cpu_share_weighted_and_conserving) {
        /* 8 pCPUs, four 4-vCPU VMs all busy, weights 1:1:2:4: fair shares
         * 1, 1, 2, 4. */
        CpuDemand d[] = { { 4, 0, 1 }, { 4, 0, 1 }, { 4, 0, 2 }, { 4, 0, 4 } };
        double a[4];

        cpu_share_compute(8, d, 4, a);
        ck_assert_double_eq_tol(a[0], 1, 1e-12);
        ck_assert_double_eq_tol(a[1], 1, 1e-12);
        ck_assert_double_eq_tol(a[2], 2, 1e-12);
        ck_assert_double_eq_tol(a[3], 4, 1e-12);

        /* VM 3 only wants 1: what it leaves goes to the others by weight
         * (7 over weights 1:1:2, capped at their demand of 4). */
        d[3].runnable = 1;
        cpu_share_compute(8, d, 4, a);
        ck_assert_double_eq_tol(a[3], 1, 1e-12);
        ck_assert_double_eq_tol(a[0], 1.75, 1e-12);
        ck_assert_double_eq_tol(a[2], 3.5, 1e-12);
        ck_assert_double_eq_tol(sum(a, 4), 8, 1e-12);

        /* Under-committed: everyone gets its demand. */
        d[0].runnable = d[1].runnable = d[2].runnable = 1;
        cpu_share_compute(8, d, 4, a);
        for (int i = 0; i < 4; i++)
                ck_assert_double_eq_tol(a[i], 1, 1e-12);
}
END_TEST

START_TEST(test_cpu_share_caps) {
        /* A 2-pCPU cap (the paper's 4.8 GHz node) holds even on an idle host. */
        CpuDemand d[] = { { 4, 2, 1 }, { 0, 0, 1 } };
        double a[2];

        cpu_share_compute(8, d, 2, a);
        ck_assert_double_eq_tol(a[0], 2, 1e-12);
        ck_assert_double_eq(a[1], 0);
        cpu_share_compute(8, d, 0, a); /* no VMs: nothing to do */
}
END_TEST

/* Random demands: never more than the host, never more than a VM wants,
 * never negative, all handed out when wanted (steal = demand - allocation
 * is then never negative either). */
START_TEST(test_cpu_share_invariants_random) {
        uint64_t x = 99;

        for (int round = 0; round < 2000; round++) {
                CpuDemand d[6];
                double a[6], want = 0, pcpus;
                size_t n = 1 + round % 6;

                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                pcpus = 1 + (double)((x >> 40) % 16);
                for (size_t i = 0; i < n; i++) {
                        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                        d[i] = (CpuDemand){ .runnable = (double)((x >> 33) % 9),
                                            .cap = (x >> 50) % 3 == 0 ? 1.5 : 0,
                                            .weight = 1 + (double)((x >> 20) % 4096) };
                        want += d[i].cap > 0 ? MIN(d[i].runnable, d[i].cap) : d[i].runnable;
                }
                cpu_share_compute(pcpus, d, n, a);
                for (size_t i = 0; i < n; i++) {
                        double limit = d[i].cap > 0 ? MIN(d[i].runnable, d[i].cap) : d[i].runnable;
                        ck_assert(a[i] >= 0);
                        ck_assert(a[i] <= limit + 1e-9);
                        ck_assert(d[i].runnable - a[i] >= -1e-9);
                }
                ck_assert(sum(a, n) <= pcpus + 1e-9);
                ck_assert_double_eq_tol(sum(a, n), MIN(want, pcpus), 1e-9);
        }
}
END_TEST

/* DRS divides its pool by demand: in proportion (a VM beyond its size gets
 * its size, the others the rest in proportion), or each its demand and the
 * rest in equal parts, never beyond a size. */
START_TEST(test_drs_divvy) {
        static const struct {
                DrsDivvy how;
                double pool, demand[3], size[3], want[3];
        } cases[] = {
                { DRS_DIVVY_PROPORTIONAL, 6, { 1, 2, 3 }, { 4, 4, 4 }, { 1, 2, 3 } },
                { DRS_DIVVY_PROPORTIONAL, 3, { 1, 2, 3 }, { 4, 4, 4 }, { 0.5, 1, 1.5 } },
                /* 3 of 9 would be 4.5 > 2: 2, then 7 by 1:2 would give 14/3 >
                 * 4: 4, then 3 for the first. */
                { DRS_DIVVY_PROPORTIONAL, 9, { 1, 2, 3 }, { 4, 4, 2 }, { 3, 4, 2 } },
                /* More pool than sizes: every VM its size. */
                { DRS_DIVVY_PROPORTIONAL, 64, { 1, 1, 1 }, { 4, 4, 2 }, { 4, 4, 2 } },
                /* Max-min: demands 1, 2 and (at most its size) 4 share 6 at
                 * level 2. */
                { DRS_DIVVY_MAXMIN, 6, { 1, 2, 5 }, { 4, 4, 4 }, { 1, 2, 3 } },
                /* Demands met, 7 left in equal parts up to the sizes. */
                { DRS_DIVVY_MAXMIN, 10, { 1, 1, 1 }, { 4, 4, 2 }, { 4, 4, 2 } },
                { DRS_DIVVY_MAXMIN, 4, { 1, 1, 1 }, { 4, 4, 2 }, { 4.0 / 3, 4.0 / 3, 4.0 / 3 } },
        };

        for (size_t c = 0; c < ELEMENTSOF(cases); c++) {
                double a[3];

                drs_divvy(cases[c].how, cases[c].pool, cases[c].demand, cases[c].size, 3, a);
                for (size_t i = 0; i < 3; i++)
                        ck_assert_msg(fabs(a[i] - cases[c].want[i]) < 1e-12,
                                      "case %zu: VM %zu gets %g, not %g", c, i, a[i],
                                      cases[c].want[i]);
        }
}
END_TEST

/* Random pools and demands: the pool is handed out up to the sizes, never
 * beyond one; a proportional divvy keeps the VMs below their size in the
 * ratio of their demands. */
START_TEST(test_drs_divvy_random) {
        uint64_t x = 7;

        for (int round = 0; round < 2000; round++) {
                double demand[6], size[6], a[6], sizes = 0, pool, ratio = -1;
                size_t n = 1 + round % 6;
                DrsDivvy how = round % 2 ? DRS_DIVVY_MAXMIN : DRS_DIVVY_PROPORTIONAL;

                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                pool = 0.5 + (double)((x >> 40) % 64);
                for (size_t i = 0; i < n; i++) {
                        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                        demand[i] = 0.01 + (double)((x >> 33) % 800) / 100;
                        size[i] = 1 + (double)((x >> 50) % 8);
                        sizes += size[i];
                }
                drs_divvy(how, pool, demand, size, n, a);
                ck_assert_double_eq_tol(sum(a, n), MIN(pool, sizes), 1e-9);
                for (size_t i = 0; i < n; i++) {
                        ck_assert(a[i] >= 0 && a[i] <= size[i] + 1e-9);
                        if (how != DRS_DIVVY_PROPORTIONAL || a[i] >= size[i] - 1e-9)
                                continue;
                        if (ratio < 0)
                                ratio = a[i] / demand[i];
                        ck_assert_double_eq_tol(a[i] / demand[i], ratio, 1e-9 * ratio);
                }
        }
}
END_TEST

START_TEST(test_disk_and_spills) {
        double mb = 1024.0 * 1024.0;

        ck_assert_double_eq(disk_share_compute(400, 100, 0), 100);
        ck_assert_double_eq(disk_share_compute(400, 100, 2), 100);
        ck_assert_double_eq(disk_share_compute(400, 100, 8), 50);

        /* 100 MB buffer for the 200 MB heap; Alg. 1's alpha 0.2 gives 120. */
        ck_assert_double_eq(spill_buffer_bytes(100 * mb, 200 * mb, 200 * mb), 100 * mb);
        ck_assert_double_eq(spill_buffer_bytes(100 * mb, 200 * mb, 240 * mb), 120 * mb);
        ck_assert_double_eq(memory_slowdown(3, 4, 2), 1);
        ck_assert_double_eq(memory_slowdown(5, 4, 2), 1.5);
}
END_TEST

/* Hadoop's Merger: passes over the smallest segments until io.sort.factor
 * (10) are left, the first pass taking just enough that every later one
 * takes 10. */
START_TEST(test_merge_passes) {
        double sizes[32];
        size_t n = 11;

        for (size_t i = 0; i < 32; i++)
                sizes[i] = 1;
        /* 11: merge 2 (read and written), 10 left. */
        ck_assert_double_eq(merge_passes(sizes, &n), 4);
        ck_assert_uint_eq(n, 10);
        n = 10;
        ck_assert_double_eq(merge_passes(sizes, &n), 0);
        /* 28 = 1 + 9 + 9 + 9: first pass 10, then 10 of the originals
         * twice: 28 -> 19 -> 10. */
        for (size_t i = 0; i < 32; i++)
                sizes[i] = 1;
        n = 28;
        ck_assert_double_eq(merge_passes(sizes, &n), 2 * (10 + 10));
        ck_assert_uint_eq(n, 10);
}
END_TEST

/* A map's spills through io.sort.mb = 100 MB: 80 % of the 95 MB data part
 * (76 MB) or of the 327680 record slots (262144 records), whichever fills
 * first; the combiner on each spill and, with 3 spills or more, again in
 * the final merge. */
START_TEST(test_map_spills) {
        double mb = 1024.0 * 1024.0, data = 0.95 * 100 * mb * 0.8;
        MapSpillPlan p;

        /* Large records: 88 MB spills once at 76 MB and again at the flush
         * (12 MB); the final merge reads both and writes the output. */
        ck_assert_int_eq(map_spill_plan(88 * mb, 0, 100 * mb, 1, &p), 0);
        ck_assert_double_eq_tol(p.per_spill, data, 1);
        ck_assert_uint_eq(p.spills, 2);
        ck_assert_double_eq_tol(p.flush, 88 * mb - data + 88 * mb + 88 * mb, 1);
        ck_assert_double_eq_tol(p.output, 88 * mb, 1);
        ck_assert_double_eq_tol(map_spill_written(&p, 0, 0.75), 0, 1e-9);
        ck_assert_double_eq_tol(map_spill_written(&p, 0.75, 1), data, 1);
        /* Alg. 1's 120 MB buffer holds it in one spill, the output file. */
        ck_assert_int_eq(map_spill_plan(88 * mb, 0, 120 * mb, 1, &p), 0);
        ck_assert_uint_eq(p.spills, 1);
        ck_assert_double_eq_tol(p.flush, 88 * mb, 1);
        ck_assert_double_eq_tol(map_spill_written(&p, 0, 1), 0, 1e-9);

        /* wordcount's 12-byte records: 64 MB spill every 262144 x 12 bytes
         * (3 MB), 22 spills; the combiner keeps 0.2 of each (0.6 MB, the
         * last 0.2 MB); merge passes of 4 and 10 spills (2 and 6 MB), then
         * the final merge reads 12.8 MB and, combining again, writes 2.56. */
        ck_assert_int_eq(map_spill_plan(64 * mb, 64 * mb / 12, 100 * mb, 0.2, &p), 0);
        ck_assert_double_eq_tol(p.per_spill, 3 * mb, 1);
        ck_assert_uint_eq(p.spills, 22);
        ck_assert_double_eq_tol(p.output, 0.04 * 64 * mb, 1);
        ck_assert_double_eq_tol(p.flush, (0.2 + 2 * (2 + 6) + 12.8 + 2.56) * mb, 1);
        ck_assert_double_eq_tol(map_spill_written(&p, 0, 0.5), 10 * 0.6 * mb, 1);
        ck_assert_double_eq_tol(map_spill_written(&p, 0, 1), 21 * 0.6 * mb, 1);
        /* Two spills: no combining in the merge. */
        ck_assert_int_eq(map_spill_plan(4 * mb, 4 * mb / 12, 100 * mb, 0.2, &p), 0);
        ck_assert_uint_eq(p.spills, 2);
        ck_assert_double_eq_tol(p.output, 0.2 * 4 * mb, 1);
}
END_TEST

/* A reduce's shuffle with a 200 MB heap: a 140 MB buffer merged to disk at
 * 66 % (92.4 MB) or 1000 segments, segments over 35 MB straight to disk,
 * 19 files merged down by the 10 smallest; at the end memory goes to disk
 * unless 10 files are there, and the final merge reads the files. */
START_TEST(test_reduce_shuffle) {
        double mb = 1024.0 * 1024.0, read;
        ReduceShuffle s;

        reduce_shuffle_init(&s, 200 * mb);
        ck_assert_double_eq(reduce_shuffle_fetch(&s, 10 * mb, 9), 0);
        ck_assert_double_eq(reduce_shuffle_fetch(&s, 10 * mb, 1), 100 * mb);
        ck_assert_double_eq(reduce_shuffle_fetch(&s, 40 * mb, 1), 40 * mb);
        ck_assert_double_eq(reduce_shuffle_fetch(&s, 5 * mb, 2), 0);
        ck_assert_double_eq(reduce_shuffle_finish(&s, &read), 10 * mb);
        ck_assert_double_eq(read, 150 * mb);

        reduce_shuffle_init(&s, 200 * mb);
        ck_assert_double_eq(reduce_shuffle_fetch(&s, 0.01 * mb, 999), 0);
        ck_assert_double_eq_tol(reduce_shuffle_fetch(&s, 0.01 * mb, 1), 10 * mb, 1e-3);

        /* 19 files of 40 MB: the 19th makes 10 of them one. */
        reduce_shuffle_init(&s, 200 * mb);
        ck_assert_double_eq(reduce_shuffle_fetch(&s, 40 * mb, 19), (19 * 40 + 800) * mb);
        ck_assert_uint_eq(s.n_files, 10);
        /* 10 files: memory stays for the final merge, nothing is written. */
        ck_assert_double_eq(reduce_shuffle_fetch(&s, 1 * mb, 3), 0);
        ck_assert_double_eq(reduce_shuffle_finish(&s, &read), 0);
        ck_assert_double_eq(read, 19 * 40 * mb);
}
END_TEST

/* A fetch of many segments leaves the shuffle in the very state, bit for
 * bit, that fetching them one at a time does (it adds up the runs from an
 * empty buffer to a merge once), and writes what they write. */
START_TEST(test_reduce_shuffle_many_segments) {
        double mb = 1024.0 * 1024.0;
        uint64_t rng = 7;

        for (int round = 0; round < 200; round++) {
                ReduceShuffle bulk, single;
                double segment, written = 0, one_by_one = 0;
                unsigned first, count;

                rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
                /* From a few bytes to past the in-memory limit of 35 MB. */
                segment = ldexp((double)(rng >> 40) / (double)(1 << 24), (int)(rng >> 8) % 26);
                first = (unsigned)(rng >> 20) % 1500;
                count = (unsigned)(rng >> 32) % 5000;
                reduce_shuffle_init(&bulk, 200 * mb);
                reduce_shuffle_init(&single, 200 * mb);
                written += reduce_shuffle_fetch(&bulk, segment, first);
                written += reduce_shuffle_fetch(&bulk, segment, count);
                for (unsigned i = 0; i < first + count; i++)
                        one_by_one += reduce_shuffle_fetch(&single, segment, 1);
                ck_assert_msg(bulk.mem == single.mem && bulk.segments == single.segments &&
                                      bulk.n_files == single.n_files &&
                                      memcmp(bulk.files, single.files,
                                             bulk.n_files * sizeof(double)) == 0,
                              "segment %g, %u then %u", segment, first, count);
                ck_assert_double_eq_tol(written, one_by_one, 1e-9 * one_by_one + 1);
        }
}
END_TEST

/* ---- workload files ---- */

static const char good_workload[] =
        "# comment\n"
        "\n"
        "name,input_gb,map_cpu_s_per_mb,map_output_ratio,reduce_cpu_s_per_mb,output_ratio,"
        "reduces,small_frac,large_frac,large_max_blocks,expensive_frac,expensive_cpu,"
        "expensive_output\n"
        "wc, 2, 0.25, 1.1, 0.06, 0.1, 4, 0.25, 0.08, 3, 0.12, 1.8, 1.4\n";

START_TEST(test_workload_good) {
        Workload w = { 0 };
        char err[256] = "";
        const Benchmark *b;

        ck_assert_int_eq(workload_parse("w.csv", good_workload, &w, err, sizeof(err)), 0);
        ck_assert_uint_eq(w.n_benchmarks, 1);
        b = workload_find(&w, "wc");
        ck_assert_ptr_nonnull(b);
        ck_assert_double_eq(b->input_bytes, 2.0 * 1024 * 1024 * 1024);
        ck_assert_uint_eq(b->reduces, 4);
        ck_assert_double_eq(b->expensive_cpu, 1.8);
        ck_assert_ptr_null(workload_find(&w, "grep"));
        workload_done(&w);
}
END_TEST

static const struct {
        const char *text;
        const char *error;
} bad_workloads[] = {
        { "", "w.csv:1: no benchmarks" },
        { "name,input_gb\n", "w.csv:1: header lacks column 'map_cpu_s_per_mb'" },
        { "#x\nname,input_gb,map_cpu_s_per_mb,map_output_ratio,reduce_cpu_s_per_mb,"
          "output_ratio,reduces,small_frac,large_frac,large_max_blocks,expensive_frac,"
          "expensive_cpu,expensive_output\n"
          "a,1,0.1,1,0.1,1,1,0,0,1,0,1,1\n"
          "b,1,zero,1,0.1,1,1,0,0,1,0,1,1\n",
          "w.csv:4: map_cpu_s_per_mb: 'zero' is not a number in [0, 1000]" },
        { "name,input_gb,map_cpu_s_per_mb,map_output_ratio,reduce_cpu_s_per_mb,"
          "output_ratio,reduces,small_frac,large_frac,large_max_blocks,expensive_frac,"
          "expensive_cpu,expensive_output\n"
          "a,1,0.1,1,0.1,1,1,0.6,0.6,1,0,1,1\n",
          "w.csv:2: small_frac + large_frac must not exceed 1" },
        { "name,input_gb,map_cpu_s_per_mb,map_output_ratio,reduce_cpu_s_per_mb,"
          "output_ratio,reduces,small_frac,large_frac,large_max_blocks,expensive_frac,"
          "expensive_cpu,expensive_output\n"
          "a,1,0.1,1,0.1,1,1,0,0,1,0,1\n",
          "w.csv:2: 12 fields, expected 13" },
        { "name,input_gb,map_cpu_s_per_mb,map_output_ratio,reduce_cpu_s_per_mb,"
          "output_ratio,reduces,small_frac,large_frac,large_max_blocks,expensive_frac,"
          "expensive_cpu,expensive_output\n"
          "a,1,0.1,1,0.1,1,1,0,0,1,0,1,1\n"
          "a,1,0.1,1,0.1,1,1,0,0,1,0,1,1\n",
          "w.csv:3: benchmark 'a' defined twice" },
        { "name,input_gb,map_cpu_s_per_mb,map_output_ratio,reduce_cpu_s_per_mb,"
          "output_ratio,reduces,small_frac,large_frac,large_max_blocks,expensive_frac,"
          "expensive_cpu,expensive_output\n"
          "a,1,0.1,1,0.1,1,-2,0,0,1,0,1,1\n",
          "w.csv:2: reduces: '-2' is not an integer in [0, 100000]" },
};

START_TEST(test_workload_bad) {
        Workload w = { 0 };
        char err[256] = "";

        ck_assert_int_eq(workload_parse("w.csv", bad_workloads[_i].text, &w, err, sizeof(err)),
                         -EINVAL);
        ck_assert_str_eq(err, bad_workloads[_i].error);
        ck_assert_ptr_null(w.benchmarks);
}
END_TEST

START_TEST(test_workload_shipped_files) {
        static const char *const files[] = { "sim/workloads/puma.csv" };

        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                Workload w = { 0 };
                char err[256] = "";
                ck_assert_msg(workload_load(test_srcdir_path(files[i]), &w, err, sizeof(err)) == 0,
                              "%s", err);
                ck_assert_uint_eq(w.n_benchmarks, 8);
                ck_assert_ptr_nonnull(workload_find(&w, "histogram-ratings"));
                ck_assert_double_eq(workload_find(&w, "k-means")->input_bytes,
                                    30.0 * 1024 * 1024 * 1024);
                workload_done(&w);
        }
}
END_TEST

/* Random mutations of a good file: every one parses or is refused with a
 * file:line message, and nothing crashes (the sanitizer run checks memory). */
START_TEST(test_workload_mutations) {
        size_t len = strlen(good_workload);
        uint64_t x = 2024;

        for (int round = 0; round < 3000; round++) {
                char text[sizeof(good_workload)], err[256] = "";
                Workload w = { 0 };
                int r;

                memcpy(text, good_workload, len + 1);
                for (int k = 0; k < 1 + round % 4; k++) {
                        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                        text[(x >> 33) % len] = " ,.-#0123456789\nex\t"[(x >> 20) % 18];
                }
                r = workload_parse("w.csv", text, &w, err, sizeof(err));
                ck_assert(r == 0 || r == -EINVAL);
                if (r == 0)
                        ck_assert_uint_ge(w.n_benchmarks, 1);
                else
                        ck_assert_msg(strncmp(err, "w.csv:", 6) == 0, "%s", err);
                workload_done(&w);
        }
}
END_TEST

/* ---- scenario files ---- */

static FlexSlotSettings *flexslot_of(const Scenario *s) {
        return policy_config_settings(&s->policy, &flexslot_settings_schema);
}

START_TEST(test_scenario_defaults_are_the_testbed) {
        Scenario s = { 0 };
        char err[256] = "";

        ck_assert_int_eq(scenario_load_string("s.ini", "", &s, err, sizeof(err)), 0);
        ck_assert_int_eq(s.hosts, 8);
        ck_assert_int_eq(s.host_cpus, 8);
        ck_assert_uint_eq(s.host_memory, 64ULL << 30);
        ck_assert_int_eq(s.vms, 32);
        ck_assert_int_eq(s.masters, 2);
        ck_assert_int_eq(s.vm_vcpus, 4);
        ck_assert_uint_eq(s.vm_memory, 4ULL << 30);
        ck_assert_int_eq(s.map_slots, 4);
        ck_assert_int_eq(s.reduce_slots, 2);
        ck_assert_uint_eq(s.block_size, 64ULL << 20);
        ck_assert_uint_eq(s.sort_buffer, 100ULL << 20);
        ck_assert_uint_eq(s.task_heap, 200ULL << 20);
        ck_assert_uint_eq(s.heartbeat, 3 * USEC_PER_SEC);
        ck_assert_int_eq(s.heartbeats_in_second, 100);
        ck_assert_uint_eq(scenario_heartbeat_interval(&s), 3 * USEC_PER_SEC);
        ck_assert_str_eq(s.slot_manager, "static");
        /* The layers' own defaults, and what the guest OS takes for the
         * core's reserve. */
        ck_assert_double_eq(flexslot_of(&s)->alpha, 0.2);
        ck_assert_uint_eq(flexslot_of(&s)->settle, 15 * USEC_PER_SEC);
        ck_assert_uint_eq(scenario_core(&s)->control_interval, 3 * USEC_PER_SEC);
        ck_assert_uint_eq(scenario_core(&s)->vm_memory_reserve, 512ULL << 20);
        ck_assert_int_eq(scenario_core(&s)->dmr.dhsa, DHSA_NONE);
        ck_assert(!scenario_core(&s)->dmr.load_balance && !scenario_core(&s)->dmr.prescheduling);
        scenario_done(&s);

        ck_assert_int_eq(scenario_load_string("s.ini",
                                              "[cluster]\nvm_os_memory = 1G\n"
                                              "[policy]\nsettle = 0\nalpha = 0.3\n",
                                              &s, err, sizeof(err)),
                         0);
        ck_assert_uint_eq(flexslot_of(&s)->settle, 0);
        ck_assert_double_eq(flexslot_of(&s)->alpha, 0.3);
        ck_assert_uint_eq(scenario_core(&s)->vm_memory_reserve, 1ULL << 30);
        scenario_done(&s);

        ck_assert_int_eq(scenario_load_string("s.ini", "[policy]\nvm_memory_reserve = 256M\n", &s,
                                              err, sizeof(err)),
                         0);
        ck_assert_uint_eq(scenario_core(&s)->vm_memory_reserve, 256ULL << 20);
        scenario_done(&s);
}
END_TEST

/* A tracker heartbeats as Hadoop 1.x's JobTracker tells it: every
 * trackers / heartbeats_in_second seconds, in whole milliseconds, and never
 * more often than [hadoop] heartbeat. */
START_TEST(test_scenario_heartbeat_interval) {
        static const struct {
                const char *text;
                usec_t interval;
        } cases[] = {
                { "[cluster]\nvms = 302\n", 3 * USEC_PER_SEC },       /* 300 trackers: 3 s */
                { "[cluster]\nvms = 303\n", 3010 * USEC_PER_MSEC },   /* 301: 3.01 s */
                { "[cluster]\nvms = 10002\n", 100 * USEC_PER_SEC },   /* 10,000: 100 s */
                { "[cluster]\nvms = 1335\n", 13330 * USEC_PER_MSEC }, /* 1,333: 13.33 s */
                { "[cluster]\nvms = 102\n[hadoop]\nheartbeats_in_second = 10\n",
                  10 * USEC_PER_SEC },
                { "[cluster]\nvms = 10002\n[hadoop]\nheartbeat = 200s\n", 200 * USEC_PER_SEC },
        };
        Scenario s = { 0 };
        char err[256] = "";

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                ck_assert_msg(scenario_load_string("s.ini", cases[i].text, &s, err, sizeof(err)) ==
                                      0,
                              "%s", err);
                ck_assert_uint_eq(scenario_heartbeat_interval(&s), cases[i].interval);
                scenario_done(&s);
        }
}
END_TEST

/* The scenario files' documentation names every key of the policy core and
 * its layers. */
START_TEST(test_scenario_readme_has_policy_keys) {
        _cleanup_free_ char *text = NULL;
        PolicyConfig c;
        char err[256];

        ck_assert_int_eq(
                sim_read_text(test_srcdir_path("sim/scenarios/README.md"), &text, err, sizeof(err)),
                0);
        ck_assert_int_eq(policy_config_init(&c), 0);
        for (size_t i = 0; i < c.n_settings; i++)
                for (size_t k = 0; k < c.schemas[i]->n_keys; k++)
                        ck_assert_msg(strstr(text, c.schemas[i]->keys[k].key),
                                      "sim/scenarios/README.md lacks [policy] %s",
                                      c.schemas[i]->keys[k].key);
        policy_config_done(&c);
}
END_TEST

static const struct {
        const char *text;
        const char *error;
} bad_scenarios[] = {
        { "[cluster]\nhosts = 0\n", "s.ini:2: [cluster] hosts: value '0' out of range [1, 10000]" },
        { "[cluster]\nvms = 4\n\nmasters = 4\n",
          "s.ini:4: [cluster] masters: 4 masters leave no slave among 4 VMs" },
        { "[hadoop]\nsort_buffer = 300M\n",
          "s.ini:2: [hadoop] sort_buffer: the sort buffer must fit in the task heap" },
        { "[clusterx]\nhosts = 1\n", "s.ini:1: [clusterx]: unknown section" },
        { "[cluster]\nhosts = 1\n[clustr]\n", "s.ini:3: [clustr]: unknown section" },
        { "[policy]\nalpha = fast\n", "s.ini:2: [policy] alpha: invalid number 'fast'" },
        /* A layer's key has its layer's range, whichever layer runs. */
        { "[policy]\nslot_manager = static\nlambda = 2\n",
          "s.ini:3: [policy] lambda: value '2' out of range [0, 1]" },
        { "[policy]\nlocality_delay = 48h\n",
          "s.ini:2: [policy] locality_delay: value '48h' out of range [0, 24h]" },
        { "[interference]\nenabled = yes\n",
          "s.ini: [interference] jobs: required when interference is enabled" },
        { "[policy]\nprescheduling = yes\n",
          "s.ini:2: [policy] prescheduling: gives out what the load manager holds back: needs "
          "load_balance" },
        { "[policy]\nborrow_reduce_slots = 1.5\n",
          "s.ini:2: [policy] borrow_reduce_slots: value '1.5' out of range [0, 1]" },
        { "[policy]\nmap_slot_weight = 0\n",
          "s.ini:2: [policy] map_slot_weight: value '0' out of range [1, 64]" },
        { "[policy]\ndhsa = both\n",
          "s.ini:2: [policy] dhsa: invalid value 'both' (one of: none, pi, pd)" },
        { "[drs]\nenabled = yes\n",
          "s.ini:2: [drs] enabled: DRS sizes the VMs: set [policy] apply_vm_targets = no" },
        { "[policy]\napply_vm_targets = no\n[drs]\nenabled = yes\nwindow = 5s\n",
          "s.ini:5: [drs] window: shorter than the sample interval" },
        { "[workload]\ncombine_ratio = 0\n",
          "s.ini:2: [workload] combine_ratio: a combiner keeps something: at least 0.0001, or -1" },
        { "[workload]\nexpensive_cpu = 0.5\n",
          "s.ini:2: [workload] expensive_cpu: expensive records cost at least as much: 1 or more, "
          "or -1" },
        { "[hadoop]\nheartbeats_in_second = 0\n",
          "s.ini:2: [hadoop] heartbeats_in_second: value '0' out of range [1, 1000000]" },
        { "[drs]\ndivvy = fair\n",
          "s.ini:2: [drs] divvy: invalid value 'fair' (one of: proportional, maxmin)" },
};

START_TEST(test_scenario_bad) {
        Scenario s = { 0 };
        char err[256] = "";

        ck_assert_int_eq(
                scenario_load_string("s.ini", bad_scenarios[_i].text, &s, err, sizeof(err)),
                -EINVAL);
        ck_assert_str_eq(err, bad_scenarios[_i].error);
}
END_TEST

/* A scenario without a workload file gets the one that comes with the
 * simulator; a relative one is read from the scenario's directory, and the
 * path comes out as the user would write it. */
START_TEST(test_scenario_workload_paths) {
        _cleanup_free_ char *dir = test_make_tmpdir(), *real = NULL, *sub = NULL, *path = NULL,
                            *data = NULL;
        static const struct {
                const char *file; /* the [workload] file key, NULL: none */
                const char *want; /* after the scenario's real directory; NULL: data */
        } cases[] = {
                { NULL, NULL },
                { "w.csv", "/sub/w.csv" },
                { "./w.csv", "/sub/w.csv" },
                { "../w.csv", "/w.csv" },
                { ".././../w.csv", "" },
                { "../x/../w.csv", "/x/../w.csv" },
                { "/abs/w.csv", "/abs/w.csv" },
        };

        ck_assert_ptr_nonnull(dir);
        real = realpath(dir, NULL);
        ck_assert_ptr_nonnull(real);
        ck_assert_int_ge(asprintf(&sub, "%s/sub", dir), 0);
        ck_assert_int_eq(mkdir(sub, 0755), 0);
        ck_assert_int_ge(asprintf(&path, "%s/s.ini", sub), 0);
        ck_assert_int_eq(sim_data_path("workloads/puma.csv", &data), 0);
        ck_assert_int_eq(access(data, R_OK), 0);

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *want = NULL, *parent = strdup(real);
                Scenario s = { 0 };
                char err[512] = "";
                FILE *f = fopen(path, "we");

                ck_assert_ptr_nonnull(f);
                if (cases[i].file)
                        fprintf(f, "[workload]\nfile = %s\n", cases[i].file);
                fclose(f);
                if (!cases[i].want)
                        want = strdup(data);
                else if (cases[i].want[0] == '/' && cases[i].file[0] == '/')
                        want = strdup(cases[i].want);
                else if (cases[i].want[0] == '\0') {
                        /* two levels above the test's directory */
                        *strrchr(parent, '/') = '\0';
                        ck_assert_int_ge(asprintf(&want, "%s/w.csv", parent), 0);
                } else
                        ck_assert_int_ge(asprintf(&want, "%s%s", real, cases[i].want), 0);
                ck_assert_msg(scenario_load(path, NULL, 0, &s, err, sizeof(err)) == 0, "%s", err);
                ck_assert_str_eq(s.workload_file, want);
                scenario_done(&s);
        }
        unlink(path);
        rmdir(sub);
        rmdir(dir);
}
END_TEST

/* An empty file is empty text; a NUL byte makes it no text file. */
START_TEST(test_empty_and_binary_files) {
        _cleanup_free_ char *dir = test_make_tmpdir(), *ini = NULL, *csv = NULL;
        Scenario s = { 0 };
        Workload w = { 0 };
        char err[512] = "", want[512];
        FILE *f;

        ck_assert_ptr_nonnull(dir);
        ck_assert_int_ge(asprintf(&ini, "%s/s.ini", dir), 0);
        ck_assert_int_ge(asprintf(&csv, "%s/w.csv", dir), 0);
        f = fopen(ini, "we");
        ck_assert_ptr_nonnull(f);
        fclose(f);
        f = fopen(csv, "we");
        ck_assert_ptr_nonnull(f);
        fclose(f);
        ck_assert_msg(scenario_load(ini, NULL, 0, &s, err, sizeof(err)) == 0, "%s", err);
        ck_assert_int_eq(s.hosts, 8);
        scenario_done(&s);
        ck_assert_int_eq(workload_load(csv, &w, err, sizeof(err)), -EINVAL);
        snprintf(want, sizeof(want), "%s:1: no benchmarks", csv);
        ck_assert_str_eq(err, want);

        f = fopen(ini, "we");
        ck_assert_ptr_nonnull(f);
        fputs("[cluster]\nhosts = 2", f);
        fputc('\0', f);
        fputs("\nvms = x\n", f);
        fclose(f);
        ck_assert_int_eq(scenario_load(ini, NULL, 0, &s, err, sizeof(err)), -EINVAL);
        snprintf(want, sizeof(want), "%s: contains a NUL byte", ini);
        ck_assert_str_eq(err, want);
        unlink(ini);
        unlink(csv);
        rmdir(dir);
}
END_TEST

START_TEST(test_scenario_overrides) {
        _cleanup_free_ char *dir = test_make_tmpdir(), *path = NULL;
        /* A later one wins; keys and sections the file lacks are added. */
        static const char *const good[] = { "cluster.hosts=3",    "cluster.vms=8",
                                            "workload.jobs=grep", "policy.alpha=0.5",
                                            "policy.settle=0",    "cluster.hosts=4" };
        static const struct {
                const char *assignment;
                const char *error; /* "/s.ini": the file, in the test's directory */
        } bad[] = {
                { "polcy.alpha=1", "--set polcy.alpha=1: [polcy]: unknown section" },
                { "policy.alfa=1", "--set policy.alfa=1: [policy] alfa: unknown key" },
                { "policy.lambda=2",
                  "--set policy.lambda=2: [policy] lambda: value '2' out of range [0, 1]" },
                { "policy.min_map_slots=9",
                  "--set policy.min_map_slots=9: [policy] min_map_slots: 9 is greater than "
                  "max_map_slots 8" },
                { "cluster.vm_cap=-1",
                  "--set cluster.vm_cap=-1: [cluster] vm_cap: value '-1' out of range" },
                { "workload.jobs=", "--set workload.jobs=: [workload] jobs: empty value" },
                /* A cross-field error names what set the key it is about. */
                { "cluster.masters=32",
                  "--set cluster.masters=32: [cluster] masters: 32 masters leave no slave "
                  "among 32 VMs" },
                { "cluster.vms=2", "/s.ini: [cluster] masters: 2 masters leave no slave among "
                                   "2 VMs" },
                { "hadoop.task_heap=100M",
                  "/s.ini:5: [hadoop] sort_buffer: the sort buffer must fit in the task heap" },
        };
        ScenarioOverride o[ELEMENTSOF(good)], one;
        Scenario s = { 0 };
        char err[512] = "";
        FILE *f;

        ck_assert_ptr_nonnull(dir);
        ck_assert_int_ge(asprintf(&path, "%s/s.ini", dir), 0);
        f = fopen(path, "we");
        ck_assert_ptr_nonnull(f);
        fputs("[cluster]\nhosts = 2\nvms = 32\n[hadoop]\nsort_buffer = 100M\n\n"
              "[policy]\nalpha = 0.3", /* no final newline */
              f);
        fclose(f);
        for (size_t i = 0; i < ELEMENTSOF(good); i++)
                ck_assert_int_eq(scenario_override_parse(good[i], &o[i]), 0);
        ck_assert_str_eq(o[0].section, "cluster");
        ck_assert_str_eq(o[0].key, "hosts");
        ck_assert_str_eq(o[0].value, "3");
        ck_assert_str_eq(o[0].where, "--set cluster.hosts=3");
        ck_assert_int_eq(scenario_load(path, o, ELEMENTSOF(o), &s, err, sizeof(err)), 0);
        ck_assert_int_eq(s.hosts, 4);
        ck_assert_int_eq(s.vms, 8);
        ck_assert_str_eq(s.jobs, "grep");
        ck_assert_double_eq(flexslot_of(&s)->alpha, 0.5);
        ck_assert_uint_eq(flexslot_of(&s)->settle, 0);
        scenario_done(&s);

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char want[512];

                snprintf(want, sizeof(want), "%s%s", bad[i].error[0] == '/' ? dir : "",
                         bad[i].error);
                ck_assert_int_eq(scenario_override_parse(bad[i].assignment, &one), 0);
                ck_assert_int_eq(scenario_load(path, &one, 1, &s, err, sizeof(err)), -EINVAL);
                ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s: got '%s'",
                              bad[i].assignment, err);
        }
        ck_assert_int_eq(scenario_override_parse("hosts=1", &one), -EINVAL);
        ck_assert_int_eq(scenario_override_parse("cluster.hosts", &one), -EINVAL);
        ck_assert_int_eq(scenario_override_parse(".hosts=1", &one), -EINVAL);
        ck_assert_int_eq(scenario_override_parse("cluster.=1", &one), -EINVAL);
        unlink(path);
        rmdir(dir);
}
END_TEST

Suite *suite_sim(void) {
        Suite *s = suite_create("sim");
        TCase *tc;

        tc = tcase_create("event-queue");
        tcase_add_test(tc, test_heap_orders_by_time_then_sequence);
        tcase_add_test(tc, test_heap_cancel_and_stale_ids);
        tcase_add_test(tc, test_heap_periodic_and_cancel_from_callback);
        tcase_add_test(tc, test_heap_move);
        tcase_add_test(tc, test_heap_random_order);
        tcase_add_test(tc, test_heap_hook);
        suite_add_tcase(s, tc);

        tc = tcase_create("host-model");
        tcase_add_test(tc, test_cpu_share_weighted_and_conserving);
        tcase_add_test(tc, test_cpu_share_caps);
        tcase_add_test(tc, test_cpu_share_invariants_random);
        tcase_add_test(tc, test_drs_divvy);
        tcase_add_test(tc, test_drs_divvy_random);
        tcase_add_test(tc, test_disk_and_spills);
        tcase_add_test(tc, test_merge_passes);
        tcase_add_test(tc, test_map_spills);
        tcase_add_test(tc, test_reduce_shuffle);
        tcase_add_test(tc, test_reduce_shuffle_many_segments);
        suite_add_tcase(s, tc);

        tc = tcase_create("files");
        tcase_add_test(tc, test_workload_good);
        tcase_add_loop_test(tc, test_workload_bad, 0, (int)ELEMENTSOF(bad_workloads));
        tcase_add_test(tc, test_workload_shipped_files);
        tcase_add_test(tc, test_workload_mutations);
        tcase_add_test(tc, test_scenario_defaults_are_the_testbed);
        tcase_add_test(tc, test_scenario_heartbeat_interval);
        tcase_add_test(tc, test_scenario_readme_has_policy_keys);
        tcase_add_loop_test(tc, test_scenario_bad, 0, (int)ELEMENTSOF(bad_scenarios));
        tcase_add_test(tc, test_scenario_workload_paths);
        tcase_add_test(tc, test_empty_and_binary_files);
        tcase_add_test(tc, test_scenario_overrides);
        suite_add_tcase(s, tc);
        return s;
}

/* SPDX-License-Identifier: MIT */
/* Time on the hosts: the model of sim/host.h in motion. Every change on a
 * host (a phase starts or ends, an attempt comes or goes, a VM is resized)
 * accounts the time since the last change at the old rates, then
 * recomputes the host's rates and moves each attempt's phase-end event to
 * where the new rate puts it. A recomputation costs what changed: a VM
 * whose CPU rate may have moved clears its host's vm_rates_valid, an
 * attempt whose own rates may have moved is marked stale (and listed on its
 * host), and the rest is set again only when a share it goes at moved. Runs
 * that check invariants compare every rate with a fresh computation, so a
 * path that forgets to mark fails them. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/state.h"

/* Hadoop 1.x weighs a map's progress 2/3 map phase, 1/3 sort (merge), and a
 * reduce's 1/3 each for shuffle, sort and reduce. */
#define MAP_PHASE_WEIGHT (2.0 / 3.0)

static usec_t attempt_phase_event(EventQueue *q, void *userdata);
static usec_t attempt_spill_event(EventQueue *q, void *userdata);

static const Scenario *scenario(const SimAttempt *a) {
        return a->cl->sim->sc;
}

static bool attempt_is_map(const SimAttempt *a) {
        return a->map;
}

/* Its rates must be set again: its host's next recomputation sets them,
 * and finds it without looking at the attempts that stayed as they were. */
static void attempt_mark_stale(SimAttempt *a) {
        SimHost *h = &a->cl->sim->hosts[a->host];

        if (a->rates_stale)
                return;
        a->rates_stale = true;
        /* sim_attempt_start() made the room: at most every attempt. */
        h->stale[h->n_stale++] = a;
}

/* ---- accounting ---- */

static void vm_advance(SimVm *v, double dt) {
        double idle = MAX((double)v->vcpus - v->runnable, 0.0);

        v->cpu_total += v->alloc * dt;
        v->steal_total += (v->runnable - v->alloc) * dt;
        v->iowait_total += MIN((double)v->n_io, idle) * dt;
}

static void host_advance(Sim *s, SimHost *h) {
        usec_t now = event_queue_now(s->queue);
        double dt = usec_to_sec(now - h->last);

        if (dt <= 0)
                return;
        h->last = now;
        /* Its sums move (host_accrues()): the next measurement of each of
         * its clusters takes them in. */
        if (h->accruing)
                h->measure_due = h->clusters;
        for (size_t i = 0; i < h->n_attempts; i++) {
                SimAttempt *a = h->attempts[i];
                if (a->phase != PHASE_SHUFFLE_WAIT)
                        a->remaining -= a->rate * dt;
                a->spill_left -= a->spill_rate * dt;
                a->t_cpu += a->f_cpu * dt;
                a->t_io += a->f_io * dt;
                a->t_steal += a->f_steal * dt;
                a->t_queue += a->f_queue * dt;
        }
        for (size_t i = 0; i < h->n_vms; i++)
                vm_advance(&s->vms[h->vms[i]], dt);
}

/* Whether an advance of h adds anything: it has an attempt, or a VM whose
 * CPU, steal or I/O wait accrue. Without, every term host_advance() adds
 * is a rate of exactly zero times the time, so leaving the host out of
 * sim_hosts_advance_all() changes no bit of any sum: its next advance,
 * which comes before any of its rates moves, spans the idle time at the
 * same zero rates. On a cluster sized for a day's trace most hosts are
 * idle at most steps, and the advance of every host at every step was
 * the largest cost of a replay. */
static bool host_accrues(const Sim *s, const SimHost *h) {
        if (h->n_attempts > 0)
                return true;
        for (size_t i = 0; i < h->n_vms; i++) {
                const SimVm *v = &s->vms[h->vms[i]];

                if (v->alloc != 0 || v->runnable != 0 || v->n_io != 0)
                        return true;
        }
        return false;
}

/* Every rate of h is set at the end of its recomputation: the one place
 * where it may start or stop accruing. */
static void host_accruing_update(Sim *s, SimHost *h) {
        bool accrues = host_accrues(s, h);

        if (accrues == h->accruing)
                return;
        if (accrues) {
                h->accruing_pos = (uint32_t)s->n_accruing;
                s->accruing[s->n_accruing++] = (uint32_t)(h - s->hosts);
        } else {
                uint32_t last = s->accruing[--s->n_accruing];

                s->accruing[h->accruing_pos] = last;
                s->hosts[last].accruing_pos = h->accruing_pos;
        }
        h->accruing = accrues;
}

static bool same_bits(double a, double b) {
        uint64_t x, y;

        memcpy(&x, &a, sizeof(x));
        memcpy(&y, &b, sizeof(y));
        return x == y;
}

/* What leaving h out of this advance rests on, checked: its VMs come
 * through an advance over its idle time so far with every bit as it was,
 * and it has no attempt to advance. */
static void host_left_out_check(Sim *s, const SimHost *h) {
        double dt = usec_to_sec(event_queue_now(s->queue) - h->last);

        if (h->n_attempts > 0)
                snprintf(s->invariant_error, sizeof(s->invariant_error),
                         "host %zu has attempts but is left out of the advance",
                         (size_t)(h - s->hosts));
        for (size_t i = 0; i < h->n_vms; i++) {
                SimVm *v = &s->vms[h->vms[i]];
                double cpu = v->cpu_total, steal = v->steal_total, iowait = v->iowait_total;

                vm_advance(v, dt);
                if (!same_bits(cpu, v->cpu_total) || !same_bits(steal, v->steal_total) ||
                    !same_bits(iowait, v->iowait_total))
                        snprintf(s->invariant_error, sizeof(s->invariant_error),
                                 "host %zu is left out of the advance, but VM %" PRIu32
                                 "'s sums move: a change left it unrecomputed",
                                 (size_t)(h - s->hosts), h->vms[i]);
        }
}

void sim_hosts_advance_all(Sim *s) {
        for (size_t i = 0; i < s->n_accruing; i++)
                host_advance(s, &s->hosts[s->accruing[i]]);
        for (size_t i = 0; s->check_invariants && i < s->n_hosts; i++)
                if (!s->hosts[i].accruing)
                        host_left_out_check(s, &s->hosts[i]);
}

/* ---- rates ---- */

static void check_host(Sim *s, const SimHost *h, const CpuDemand *d, const double *alloc,
                       size_t n) {
        double total = 0, demand = 0;

        for (size_t i = 0; i < n; i++) {
                double limit = d[i].cap > 0 ? MIN(d[i].runnable, d[i].cap) : d[i].runnable;
                total += alloc[i];
                demand += limit;
                if (alloc[i] < -1e-9 || alloc[i] > limit + 1e-9)
                        snprintf(s->invariant_error, sizeof(s->invariant_error),
                                 "VM allocation %g outside [0, %g]", alloc[i], limit);
        }
        if (total > h->pcpus + 1e-9)
                snprintf(s->invariant_error, sizeof(s->invariant_error),
                         "%g pCPUs handed out on a host of %g", total, h->pcpus);
        if (fabs(total - MIN(demand, h->pcpus)) > 1e-6)
                snprintf(s->invariant_error, sizeof(s->invariant_error),
                         "not work conserving: %g handed out, %g wanted, %g there", total, demand,
                         h->pcpus);
}

/* g: share of a vCPU the guest gives a task; run: share of the VM's
 * runnable vCPU time that gets a pCPU; slow: paging. */
static void vm_set_cpu_rate(const Sim *s, SimVm *v) {
        double g = MIN(1.0, (double)v->vcpus / (double)v->n_cpu);
        double run = v->runnable > 0 ? v->alloc / v->runnable : 0;
        double slow = memory_slowdown(v->committed, (double)v->memory, s->memory_penalty);
        double rate = g * run / slow, f_io = g * run - rate, f_steal = g * (1.0 - run),
               f_queue = 1.0 - g;

        v->cpu_rate_moved = rate != v->cpu_rate || f_io != v->cpu_f_io ||
                            f_steal != v->cpu_f_steal || f_queue != v->cpu_f_queue;
        v->cpu_rate = rate;
        v->cpu_f_io = f_io;
        v->cpu_f_steal = f_steal;
        v->cpu_f_queue = f_queue;
}

/* A spill thread is writing until its event ran: what it has left may reach
 * zero (and below, rounding) a moment before the event's rounded time. */
static bool spill_active(const SimAttempt *a) {
        return a->spill_left > 0 || a->spill_ev;
}

/* Moves the event that ends an amount going at a rate to where the rate
 * puts it; none while nothing moves. */
static void flow_schedule(Sim *s, EventId *ev, double remaining, double rate, EventFn fn,
                          void *userdata, usec_t now) {
        if (rate > 0) {
                double delay = MAX(remaining, 0.0) / rate * (double)USEC_PER_SEC;
                usec_t at = now + (usec_t)MIN(ceil(delay), 1e15);
                int r = *ev ? event_queue_move(s->queue, *ev, at)
                            : event_queue_schedule(s->queue, at, fn, userdata, ev);
                if (r < 0)
                        sim_fail(s, r);
        } else if (*ev) {
                (void)event_queue_cancel(s->queue, *ev);
                *ev = 0;
        }
}

/* What an attempt goes at, and where its wall time goes. */
typedef struct AttemptRates {
        double rate, spill_rate;
        double f_cpu, f_io, f_steal, f_queue;
} AttemptRates;

/* The phase goes at a share of the attempt's own disk (a remote read at
 * its holder's too). */
static bool phase_uses_disk(Phase phase) {
        return phase == PHASE_IO || phase == PHASE_SHUFFLE || phase == PHASE_MERGE ||
               phase == PHASE_WRITE;
}

static bool phase_uses_cpu(Phase phase) {
        return phase == PHASE_CPU || phase == PHASE_LAUNCH;
}

static double host_disk_share(const Sim *s, const SimHost *h) {
        return disk_share_compute(h->disk_bw, s->stream_bw, h->n_io);
}

/* The rates the attempt's phase and its host's shares give it. A stream's
 * bandwidth on the attempt's own disk goes to its spill thread and every
 * I/O phase but a remote read, which goes at its share of the holder's
 * disk, of the holder's link out and of the reader's link in, each shared
 * equally, as the disk is. */
static AttemptRates attempt_rates(const Sim *s, const SimAttempt *a) {
        const SimHost *h = &s->hosts[a->host], *src = &s->hosts[a->src_host];
        const SimVm *v = &s->vms[a->vm];
        double disk = host_disk_share(s, h), read = disk;
        size_t link = MAX(src->n_readers, (size_t)h->net_in);
        AttemptRates r = { .spill_rate = spill_active(a) ? disk : 0 };

        if (a->reading)
                read = MIN(host_disk_share(s, src), s->net_bw / (double)MAX(link, (size_t)1));
        switch (a->phase) {
        case PHASE_STARTUP:
                r.rate = 1.0;
                r.f_queue = 1.0;
                break;
        case PHASE_SHUFFLE_WAIT:
                r.f_queue = 1.0;
                break;
        case PHASE_REPORT:
                break;
        case PHASE_SPILL_WAIT:
                r.f_io = 1.0;
                break;
        case PHASE_IO:
                r.rate = a->reading ? read : disk;
                r.f_io = 1.0;
                break;
        case PHASE_SHUFFLE:
        case PHASE_MERGE:
        case PHASE_WRITE:
                r.rate = disk;
                r.f_io = 1.0;
                break;
        case PHASE_LAUNCH:
        case PHASE_CPU:
                r.rate = v->cpu_rate;
                r.f_cpu = v->cpu_rate;
                r.f_io = v->cpu_f_io;
                r.f_steal = v->cpu_f_steal;
                r.f_queue = v->cpu_f_queue;
                break;
        }
        return r;
}

static bool attempt_rates_are(const SimAttempt *a, const AttemptRates *r) {
        return a->rate == r->rate && a->spill_rate == r->spill_rate && a->f_cpu == r->f_cpu &&
               a->f_io == r->f_io && a->f_steal == r->f_steal && a->f_queue == r->f_queue;
}

/* Sets the attempt's rates and moves its events to where they put them. */
static void attempt_update_rate(Sim *s, SimAttempt *a, usec_t now) {
        AttemptRates r = attempt_rates(s, a);
        double old = a->rate, old_spill = a->spill_rate;

        a->spill_rate = r.spill_rate;
        if (!a->spill_ev || old_spill != a->spill_rate)
                flow_schedule(s, &a->spill_ev, a->spill_left, a->spill_rate, attempt_spill_event, a,
                              now);
        a->rate = r.rate;
        a->f_cpu = r.f_cpu;
        a->f_io = r.f_io;
        a->f_steal = r.f_steal;
        a->f_queue = r.f_queue;
        if (a->ev && old == a->rate)
                return;
        flow_schedule(s, &a->ev, a->remaining, a->rate, attempt_phase_event, a, now);
}

static void host_recompute(Sim *s, SimHost *h);

/* Registers or drops the attempt as a remote reader of its split's holder,
 * and recomputes the holder's rates: its disk gains or loses a stream. */
static void remote_read_set(Sim *s, SimAttempt *a, bool want) {
        SimHost *src = &s->hosts[a->src_host];

        if (want == a->reading)
                return;
        host_advance(s, src);
        if (want) {
                /* sim_attempt_start() made the room. */
                a->src_pos = src->n_readers;
                src->readers[src->n_readers++] = a;
                s->hosts[a->host].net_in++;
        } else {
                src->readers[a->src_pos] = src->readers[--src->n_readers];
                if (a->src_pos < src->n_readers)
                        src->readers[a->src_pos]->src_pos = a->src_pos;
                s->hosts[a->host].net_in--;
        }
        a->reading = want;
        attempt_mark_stale(a);
        host_recompute(s, src);
}

/* After a phase change: a map reads remotely in its input phases only. */
static void remote_read_sync(Sim *s, SimAttempt *a) {
        remote_read_set(s, a, a->phase == PHASE_IO && a->src_host != a->host && attempt_is_map(a));
}

/* What the attempt adds to its VM's and host's counts in its phase. A remote
 * read loads the holder's disk; a spill thread writing is a stream of its
 * own. */
static AttemptLoad attempt_load(const SimAttempt *a) {
        bool disk = phase_uses_disk(a->phase), spill = spill_active(a);

        return (AttemptLoad){ .cpu = phase_uses_cpu(a->phase),
                              .vm_streams = (unsigned)disk + spill,
                              .host_streams = (unsigned)(disk && !a->reading) + spill };
}

/* Moves the attempt's part of its VM's and host's counts to load. */
static void load_count(Sim *s, SimAttempt *a, AttemptLoad load) {
        SimVm *v = &s->vms[a->vm];
        SimHost *h = &s->hosts[a->host];

        if (load.cpu != a->counted.cpu)
                h->vm_rates_valid = false;
        v->n_cpu = v->n_cpu - a->counted.cpu + load.cpu;
        v->n_io = v->n_io - a->counted.vm_streams + load.vm_streams;
        h->local_io = h->local_io - a->counted.host_streams + load.host_streams;
        a->counted = load;
}

/* Every VM's demand, shares and CPU rate; returns whether a VM's CPU rate
 * moved (its cpu_rate_moved tells which). */
static bool host_vms_recompute(Sim *s, SimHost *h) {
        const size_t n = h->n_vms;
        CpuDemand *d = h->demand;
        double *alloc = h->alloc;
        bool shares_kept = h->shares_known, moved = false;

        for (size_t i = 0; i < n; i++) {
                SimVm *v = &s->vms[h->vms[i]];
                CpuDemand now_wanted;

                v->runnable = MIN((double)v->vcpus, (double)v->n_cpu);
                now_wanted = (CpuDemand){ .runnable = v->runnable,
                                          .cap = v->cap,
                                          .weight = (double)v->weight };
                shares_kept = shares_kept && now_wanted.runnable == d[i].runnable &&
                              now_wanted.cap == d[i].cap && now_wanted.weight == d[i].weight;
                d[i] = now_wanted;
        }
        /* Most changes leave every VM's demand as it was (a phase between
         * I/O and I/O, a spill, a reduce's fetch): so are the shares. */
        if (!shares_kept)
                cpu_share_compute(h->pcpus, d, n, alloc);
        h->shares_known = true;
        if (s->check_invariants)
                check_host(s, h, d, alloc, n);
        for (size_t i = 0; i < n; i++) {
                SimVm *v = &s->vms[h->vms[i]];
                v->alloc = alloc[i];
                v->cpu_rate_moved = false;
                if (v->n_cpu > 0)
                        vm_set_cpu_rate(s, v);
                moved = moved || v->cpu_rate_moved;
        }
        return moved;
}

/* An attempt whose own state and the shares its phase and spill thread go
 * at stayed as they were would have every rate and event set to what it
 * is; a remote read depends on another host too. */
static void attempt_refresh(Sim *s, SimAttempt *a, bool disk_moved, bool cpu_moved, usec_t now) {
        if (a->rates_stale || a->reading ||
            (disk_moved && (phase_uses_disk(a->phase) || spill_active(a))) ||
            (cpu_moved && phase_uses_cpu(a->phase) && s->vms[a->vm].cpu_rate_moved)) {
                attempt_update_rate(s, a, now);
                a->rates_stale = false;
        }
}

static int compare_host_pos(const void *x, const void *y) {
        const SimAttempt *a = *(SimAttempt *const *)x, *b = *(SimAttempt *const *)y;

        return (a->host_pos > b->host_pos) - (a->host_pos < b->host_pos);
}

/* Every attempt's rates are what a fresh computation gives: a path that
 * changed an attempt or a VM without marking it would leave them behind. */
static void host_check_attempts(Sim *s, const SimHost *h) {
        for (size_t i = 0; i < h->n_attempts; i++) {
                const SimAttempt *a = h->attempts[i];
                AttemptRates fresh = attempt_rates(s, a);

                if (!attempt_rates_are(a, &fresh))
                        snprintf(s->invariant_error, sizeof(s->invariant_error),
                                 "task %u's rates are not its phase's and host's: a change "
                                 "left them unmarked",
                                 a->task);
                if (a->phase == PHASE_SPILL_WAIT && !a->spill_ev) {
                        snprintf(s->invariant_error, sizeof(s->invariant_error),
                                 "task %u waits for a spill thread that writes nothing", a->task);
                        /* It would wait for ever. */
                        event_queue_stop(s->queue);
                }
        }
}

static void host_recompute(Sim *s, SimHost *h) {
        usec_t now = event_queue_now(s->queue);
        double disk;
        bool disk_moved, cpu_moved = false;

        /* The stale attempts in the host's order, as a walk over all its
         * attempts would meet them: the events they move are scheduled in
         * that order. */
        if (h->n_stale > 1)
                qsort(h->stale, h->n_stale, sizeof(SimAttempt *), compare_host_pos);
        /* Only a phase's change starts or ends a remote read or changes
         * what an attempt adds to the counts, and it leaves the attempt's
         * rates stale until this host sets them again: the others count as
         * they did. A recomputation of this host that a remote read's
         * holder starts may take them all on (and empty the list). */
        for (size_t i = 0; i < h->n_stale; i++)
                if (h->stale[i]->rates_stale)
                        remote_read_sync(s, h->stale[i]);
        for (size_t i = 0; i < h->n_stale; i++)
                if (h->stale[i]->rates_stale)
                        load_count(s, h->stale[i], attempt_load(h->stale[i]));
        h->n_io = (unsigned)h->n_readers + h->local_io;
        if (!h->vm_rates_valid)
                cpu_moved = host_vms_recompute(s, h);
        else if (s->check_invariants && host_vms_recompute(s, h))
                snprintf(s->invariant_error, sizeof(s->invariant_error),
                         "a VM's CPU rate moved on host %zu without its host being told",
                         (size_t)(h - s->hosts));
        h->vm_rates_valid = true;
        disk = host_disk_share(s, h);
        disk_moved = disk != h->disk_share;
        h->disk_share = disk;

        /* Remote readers live on other hosts: their time so far went at the
         * old rate. */
        for (size_t i = 0; i < h->n_readers; i++) {
                host_advance(s, &s->hosts[h->readers[i]->host]);
                attempt_update_rate(s, h->readers[i], now);
        }
        /* Unless a share moved or the host's attempts read remotely (net_in
         * counts them), only the stale attempts have rates to set. */
        if (disk_moved || cpu_moved || h->net_in > 0)
                for (size_t i = 0; i < h->n_attempts; i++)
                        attempt_refresh(s, h->attempts[i], disk_moved, cpu_moved, now);
        else
                for (size_t i = 0; i < h->n_stale; i++)
                        attempt_refresh(s, h->stale[i], false, false, now);
        h->n_stale = 0;
        host_accruing_update(s, h);
        if (s->check_invariants)
                host_check_attempts(s, h);
}

/* After a change to the host's VMs (weight, cap, vCPUs, memory). */
void sim_host_update(Sim *s, uint32_t host) {
        s->hosts[host].vm_rates_valid = false;
        host_advance(s, &s->hosts[host]);
        host_recompute(s, &s->hosts[host]);
}

/* ---- phases ---- */

static void phase_enter(SimAttempt *a, Phase phase, double amount) {
        a->phase = phase;
        a->remaining = amount;
        attempt_mark_stale(a);
}

/* The reduce's shuffle and sort are over: the final merge streams into the
 * reduce function's rounds. This is where ARIA's reduce phase begins. */
static void reduce_begin(SimAttempt *a) {
        a->shuffle_end = event_queue_now(a->cl->sim->queue);
        phase_enter(a, PHASE_IO, a->io_round);
}

/* All map output is in: what memory holds goes to disk, merge passes bring
 * the files down to io.sort.factor, and the final merge streams into the
 * reduce's rounds (sim/host.h). */
static void reduce_sort(SimAttempt *a) {
        double read;

        a->merge_io = reduce_shuffle_finish(&a->shuffle, &read);
        a->io_round = (read + a->cl->taskx[a->task].output) / a->rounds;
        if (a->merge_io > 0)
                phase_enter(a, PHASE_MERGE, a->merge_io);
        else
                reduce_begin(a);
}

static const TaskCounts *reduce_maps(const SimAttempt *a) {
        return &a->cl->jobs[a->cl->tasks[a->task].job].counts[TASK_MAP];
}

static double reduce_segment(const SimAttempt *a, const TaskCounts *maps) {
        return (double)a->cl->tasks[a->task].input_size / MAX(maps->total, 1u);
}

/* The reduce fetches once the segments of the maps finished since its last
 * fetch make a chunk, or are the last. */
static bool reduce_fetch_due(const SimAttempt *a, const TaskCounts *maps) {
        unsigned ready = maps->done - a->segments;

        return ready > 0 && (a->segments + ready == maps->total ||
                             ready * reduce_segment(a, maps) >= (double)scenario(a)->chunk);
}

/* How many of its job's maps have finished when the waiting reduce
 * fetches: the fewest with which reduce_fetch_due() holds, as it holds
 * for every count above (the ready segments' bytes only grow). */
static unsigned reduce_wake_at(const SimAttempt *a, const TaskCounts *maps) {
        double segment = reduce_segment(a, maps), chunk = (double)scenario(a)->chunk;
        unsigned left = maps->total - a->segments, ready = left;

        if (segment > 0) {
                ready = (unsigned)CLAMP(floor(chunk / segment), 1.0, (double)left);
                while (ready > 1 && (double)(ready - 1) * segment >= chunk)
                        ready--;
                while (ready < left && !((double)ready * segment >= chunk))
                        ready++;
        }
        return a->segments + ready;
}

static bool wait_before(const JobExtra *jx, size_t i, size_t k) {
        return jx->waiting[i]->wake_at < jx->waiting[k]->wake_at;
}

static void wait_swap(JobExtra *jx, size_t i, size_t k) {
        SimAttempt *a = jx->waiting[i];

        jx->waiting[i] = jx->waiting[k];
        jx->waiting[k] = a;
        jx->waiting[i]->wait_slot = i + 1;
        jx->waiting[k]->wait_slot = k + 1;
}

/* The heap order restored around entry i. */
static void wait_settle(JobExtra *jx, size_t i) {
        while (i > 0 && wait_before(jx, i, (i - 1) / 2)) {
                wait_swap(jx, i, (i - 1) / 2);
                i = (i - 1) / 2;
        }
        for (;;) {
                size_t least = i, l = 2 * i + 1, r = l + 1;

                if (l < jx->n_waiting && wait_before(jx, l, least))
                        least = l;
                if (r < jx->n_waiting && wait_before(jx, r, least))
                        least = r;
                if (least == i)
                        return;
                wait_swap(jx, i, least);
                i = least;
        }
}

/* Room was made as the reduce started (sim_attempt_start()). */
static void wait_add(JobExtra *jx, SimAttempt *a) {
        jx->waiting[jx->n_waiting] = a;
        a->wait_slot = ++jx->n_waiting;
        wait_settle(jx, jx->n_waiting - 1);
}

static void wait_remove(JobExtra *jx, SimAttempt *a) {
        size_t i = a->wait_slot - 1;

        a->wait_slot = 0;
        if (i == --jx->n_waiting)
                return;
        jx->waiting[i] = jx->waiting[jx->n_waiting];
        jx->waiting[i]->wait_slot = i + 1;
        wait_settle(jx, i);
}

/* A reduce after a fetch (or its start): fetch the segments of the maps
 * finished since, wait for maps, or sort once everything is in. Each map
 * leaves every reduce an equal segment. Fetches gather at least a chunk of
 * output (the last one excepted), as Hadoop's copier threads batch small
 * map outputs; one fetch per map and reduce would be an event storm. */
static void reduce_shuffle_next(SimAttempt *a) {
        const TaskCounts *maps = reduce_maps(a);
        double segment = reduce_segment(a, maps);
        unsigned ready = maps->done - a->segments;

        if (reduce_fetch_due(a, maps)) {
                a->fetch = ready * segment;
                a->fetch_io = a->fetch + reduce_shuffle_fetch(&a->shuffle, segment, ready);
                a->segments += ready;
                phase_enter(a, PHASE_SHUFFLE, a->fetch_io);
        } else if (a->segments < maps->total) {
                JobExtra *jx = &a->cl->jobx[a->cl->tasks[a->task].job];

                if (a->phase != PHASE_SHUFFLE_WAIT)
                        phase_enter(a, PHASE_SHUFFLE_WAIT, 0);
                if (a->wait_slot)
                        wait_remove(jx, a);
                a->wake_at = reduce_wake_at(a, maps);
                wait_add(jx, a);
        } else
                reduce_sort(a);
}

/* A map's round ended: the spills it started go to the spill thread (the
 * map waits if that one is still writing earlier ones), or after the last
 * round the map waits for the spill thread and flushes. Returns false when
 * the map is complete. */
static bool map_round_end(SimAttempt *a) {
        double written = map_spill_written(&a->spills, (double)a->round / a->rounds,
                                           (double)(a->round + 1) / a->rounds);

        if (++a->round < a->rounds) {
                if (a->spill_left > 0) {
                        a->spill_waiting = written;
                        phase_enter(a, PHASE_SPILL_WAIT, 0);
                } else {
                        a->spill_left = written;
                        phase_enter(a, PHASE_IO, a->io_round);
                }
                return true;
        }
        /* The map now writes what its spill thread had left. */
        a->merge_io = MAX(a->spill_left, 0.0) + written + a->spills.flush;
        a->spill_left = 0;
        if (a->spill_ev) {
                (void)event_queue_cancel(a->cl->sim->queue, a->spill_ev);
                a->spill_ev = 0;
        }
        if (a->merge_io <= 0)
                return false;
        phase_enter(a, PHASE_MERGE, a->merge_io);
        return true;
}

/* A map-only job's map computed a round (or wrote it): it writes the
 * round's output itself, then reads the next round. Returns false when the
 * map is complete. */
static bool map_direct_round_end(SimAttempt *a) {
        if (a->phase == PHASE_CPU && a->write_round > 0) {
                phase_enter(a, PHASE_WRITE, a->write_round);
                return true;
        }
        if (++a->round < a->rounds) {
                phase_enter(a, PHASE_IO, a->io_round);
                return true;
        }
        return false;
}

/* Launched: a map reads its first round, a reduce fetches. */
static void attempt_work_begin(SimAttempt *a) {
        if (attempt_is_map(a))
                phase_enter(a, PHASE_IO, a->io_round);
        else
                reduce_shuffle_next(a);
}

/* Moves the attempt to its next phase after the current one ended; returns
 * false when the attempt is complete. */
static bool attempt_next_phase(SimAttempt *a) {
        bool map = attempt_is_map(a);

        switch (a->phase) {
        case PHASE_STARTUP:
                if (scenario(a)->task_launch_cpu > 0) {
                        phase_enter(a, PHASE_LAUNCH, usec_to_sec(scenario(a)->task_launch_cpu));
                        return true;
                }
                attempt_work_begin(a);
                return true;
        case PHASE_LAUNCH:
                attempt_work_begin(a);
                return true;
        case PHASE_SHUFFLE:
                a->shuffled += a->fetch;
                a->fetch = a->fetch_io = 0;
                reduce_shuffle_next(a);
                return true;
        case PHASE_SHUFFLE_WAIT:
                reduce_shuffle_next(a);
                return true;
        case PHASE_IO:
                phase_enter(a, PHASE_CPU, a->cpu_round);
                return true;
        case PHASE_CPU:
                if (map)
                        return a->map_only ? map_direct_round_end(a) : map_round_end(a);
                if (++a->round < a->rounds) {
                        phase_enter(a, PHASE_IO, a->io_round);
                        return true;
                }
                return false;
        case PHASE_MERGE:
                if (map)
                        return false;
                reduce_begin(a);
                return true;
        case PHASE_WRITE:
                return map_direct_round_end(a);
        case PHASE_SPILL_WAIT:
                /* Only the spill thread's end moves it on. */
                return true;
        case PHASE_REPORT:
                break;
        }
        return false;
}

/* Room for one more entry in a list of n attempts. */
static int list_reserve(SimAttempt ***list, size_t n, size_t *cap) {
        SimAttempt **p;
        size_t want;

        if (n < *cap)
                return 0;
        want = *cap ? 2 * *cap : 16;
        p = realloc(*list, want * sizeof(SimAttempt *));
        if (!p)
                return -ENOMEM;
        *list = p;
        *cap = want;
        return 0;
}

/* Room for one more running attempt of the cluster, and its snapshot
 * entry. */
static int cluster_attempts_reserve(SimCluster *cl) {
        Attempt *p;

        if (list_reserve(&cl->attempts, cl->n_attempts, &cl->cap_attempts) < 0)
                return -ENOMEM;
        if (cl->cap_snap_attempts >= cl->cap_attempts)
                return 0;
        p = realloc(cl->snap_attempts, cl->cap_attempts * sizeof(Attempt));
        if (!p)
                return -ENOMEM;
        cl->snap_attempts = p;
        cl->cap_snap_attempts = cl->cap_attempts;
        return 0;
}

static void list_remove(SimAttempt **list, size_t *n, size_t pos, bool cluster_list) {
        list[pos] = list[--*n];
        if (pos < *n) {
                if (cluster_list)
                        list[pos]->cluster_pos = pos;
                else
                        list[pos]->host_pos = pos;
        }
}

/* ---- slots a resize grew ----
 * Algorithm 1, line 9: a resize grows the straggler's slot, and the slot
 * keeps that size for the maps that run in it later (FlexSlot's SlotAgent
 * configures slots, III-D and V-B). An attempt in a map slot has the slot's
 * size as its slot_memory; a node keeps the sizes of its free grown slots,
 * at most as many as it has map slots free (a slot Algorithm 2 takes away
 * takes the smallest with it). */

int sim_node_grown_resize(SimCluster *cl, uint32_t node) {
        GrownSlots *g = &cl->grown[node];
        unsigned slots = cl->nodes[node].slots[SLOT_MAP],
                 running = node_running(cl, node, SLOT_MAP);
        size_t keep = slots > running ? slots - running : 0, lowest;

        if (slots > g->cap) {
                uint64_t *p = realloc(g->size, slots * sizeof(uint64_t));

                if (!p)
                        return -ENOMEM;
                g->size = p;
                g->cap = slots;
        }
        while (g->n > keep) {
                lowest = 0;
                for (size_t i = 1; i < g->n; i++)
                        if (g->size[i] < g->size[lowest])
                                lowest = i;
                g->size[lowest] = g->size[--g->n];
        }
        return 0;
}

uint64_t sim_node_map_slot_take(SimCluster *cl, uint32_t node, uint64_t asked) {
        GrownSlots *g = &cl->grown[node];
        size_t largest = 0;
        uint64_t size;

        if (g->n == 0)
                return asked;
        for (size_t i = 1; i < g->n; i++)
                if (g->size[i] > g->size[largest])
                        largest = i;
        size = g->size[largest];
        g->size[largest] = g->size[--g->n];
        return MAX(size, asked);
}

/* After the attempt left its map slot: the slot keeps a grown size. The
 * room is there: the node's grown slots fit its map slots (resize). */
static void node_map_slot_free(SimCluster *cl, const SimAttempt *a) {
        GrownSlots *g = &cl->grown[a->node];

        if (a->slot != SLOT_MAP || a->slot_memory <= cl->nodes[a->node].slot_memory ||
            g->n >= g->cap)
                return;
        g->size[g->n++] = a->slot_memory;
        (void)sim_node_grown_resize(cl, a->node);
}

/* Takes an attempt off its host and cluster and adds its time to the task. */
static void attempt_detach(SimAttempt *a, bool slot_kept) {
        Sim *s = a->cl->sim;
        SimHost *h = &s->hosts[a->host];
        TaskExtra *tx = &a->cl->taskx[a->task];

        if (a->ev)
                (void)event_queue_cancel(s->queue, a->ev);
        if (a->spill_ev)
                (void)event_queue_cancel(s->queue, a->spill_ev);
        tx->cpu += a->t_cpu;
        tx->iowait += a->t_io;
        tx->steal += a->t_steal;
        tx->queue += a->t_queue;
        if (--tx->running == 0)
                task_counts(a->cl, a->task)->running--;
        if (a->phase == PHASE_REPORT)
                a->cl->unreported[a->node]--;
        attempt_counted(&a->cl->node_attempts[a->node], &a->cl->attempts_total,
                        &a->cl->tasks[a->task], a->slot, a->slot_memory, false);
        if (!slot_kept)
                node_map_slot_free(a->cl, a);
        list_remove(h->attempts, &h->n_attempts, a->host_pos, false);
        list_remove(a->cl->attempts, &a->cl->n_attempts, a->cluster_pos, true);
        if (!attempt_is_map(a)) {
                JobExtra *jx = &a->cl->jobx[a->cl->tasks[a->task].job];

                if (a->wait_slot)
                        wait_remove(jx, a);
                /* In place, keeping the others' order. */
                for (size_t i = 0; i < jx->n_reduces; i++)
                        if (jx->reduces[i] == a) {
                                memmove(&jx->reduces[i], &jx->reduces[i + 1],
                                        (--jx->n_reduces - i) * sizeof(SimAttempt *));
                                break;
                        }
        }
        /* Its snapshot entry goes as it did: the last one takes its place. */
        a->cl->snap_attempts[a->cluster_pos] = a->cl->snap_attempts[a->cl->n_attempts];
        /* A map killed while it reads leaves the holder's disk. */
        remote_read_set(s, a, false);
        /* Leaving the rates to set of its host, which the line above may
         * have put it in. */
        if (a->rates_stale)
                for (size_t i = 0; i < h->n_stale; i++)
                        if (h->stale[i] == a) {
                                h->stale[i] = h->stale[--h->n_stale];
                                break;
                        }
        /* Integers in doubles: exact, as the sum at the start was. */
        s->vms[a->vm].committed -= (double)a->slot_memory;
        a->cl->committed -= a->slot_memory;
        sim_vm_snapshot_stale(s, &s->vms[a->vm]);
        h->vm_rates_valid = false;
        load_count(s, a, (AttemptLoad){});
}

void sim_attempt_kill(SimAttempt *a, bool slot_kept) {
        Sim *s = a->cl->sim;
        uint32_t host = a->host;

        host_advance(s, &s->hosts[host]);
        task_counts(a->cl, a->task)->killed++;
        attempt_detach(a, slot_kept);
        free(a);
        host_recompute(s, &s->hosts[host]);
}

/* An attempt that ended first, and is reported: what its task keeps of it;
 * the attempt goes. */
static void attempt_won(SimAttempt *a) {
        TaskExtra *tx = &a->cl->taskx[a->task];

        tx->node = a->node;
        tx->winner_started = a->started;
        tx->winner_shuffle_end = a->shuffle_end;
        attempt_detach(a, false);
        free(a);
}

static usec_t attempt_phase_event(EventQueue *q, void *userdata) {
        SimAttempt *a = userdata;
        SimCluster *cl = a->cl;
        Sim *s = cl->sim;
        uint32_t host = a->host, task = a->task;
        SimHost *h = &s->hosts[host];

        host_advance(s, h);
        /* This event is the phase's end: its time was rounded up, so what is
         * left is rounding noise. */
        a->ev = 0;
        attempt_mark_stale(a);
        a->remaining = 0;
        if (attempt_next_phase(a)) {
                host_recompute(s, h);
                return 0;
        }
        /* Hadoop 1.1.1's TaskTracker tells the JobTracker of a task's end in
         * its next heartbeat (the out-of-band heartbeat,
         * mapreduce.tasktracker.outofband.heartbeat, is off by default), and
         * flexslot-tracker does the same: until then the attempt holds its
         * slot and uses nothing. */
        if (scenario(a)->report_at_heartbeat) {
                phase_enter(a, PHASE_REPORT, 0);
                cl->unreported[a->node]++;
                host_recompute(s, h);
                return 0;
        }
        attempt_won(a);
        host_recompute(s, h);
        cl->task_done(cl, task);
        return 0;
}

/* [hadoop] progress_at_heartbeat: the node's running attempts as its
 * heartbeat reports them, in their snapshot entries (sim/driver.c's
 * snapshot_attempt_fill() leaves what time moves as it is). */
static void node_progress_report(SimCluster *cl, uint32_t node, const SimHost *h) {
        usec_t now = event_queue_now(cl->sim->queue);

        for (size_t i = 0; i < h->n_attempts; i++) {
                const SimAttempt *a = h->attempts[i];

                if (a->cl == cl && a->node == node)
                        sim_attempt_snapshot_update(a, now, &cl->snap_attempts[a->cluster_pos]);
        }
}

void sim_node_report(SimCluster *cl, uint32_t node) {
        Sim *s = cl->sim;
        SimHost *h = &s->hosts[s->vms[cl->node_vm[node]].host];
        bool progress = s->sc->progress_at_heartbeat;

        if (cl->unreported[node] == 0 && !progress)
                return;
        host_advance(s, h);
        if (progress)
                node_progress_report(cl, node, h);
        if (cl->unreported[node] == 0)
                return;
        /* Each from the start of the list: a report's task may kill other
         * attempts of this host (its losing copies). */
        while (cl->unreported[node] > 0)
                for (size_t i = 0; i < h->n_attempts; i++) {
                        SimAttempt *a = h->attempts[i];
                        uint32_t task = a->task;

                        if (a->cl != cl || a->node != node || a->phase != PHASE_REPORT)
                                continue;
                        attempt_won(a);
                        cl->task_done(cl, task);
                        break;
                }
        host_recompute(s, h);
}

/* The spill thread wrote what it had: a map thread waiting for it hands it
 * the next spills and goes on. */
static usec_t attempt_spill_event(EventQueue *q, void *userdata) {
        SimAttempt *a = userdata;
        Sim *s = a->cl->sim;
        SimHost *h = &s->hosts[a->host];

        host_advance(s, h);
        a->spill_ev = 0;
        a->spill_left = 0;
        attempt_mark_stale(a);
        if (a->phase == PHASE_SPILL_WAIT) {
                a->spill_left = a->spill_waiting;
                a->spill_waiting = 0;
                phase_enter(a, PHASE_IO, a->io_round);
        }
        host_recompute(s, h);
        return 0;
}

/* Sorts the attempts by their place in the cluster's list. Insertion:
 * a job's list stays in that order but where an attempt of the cluster's
 * list took another's place, so this is a pass and a few moves. */
static void sort_by_cluster_pos(SimAttempt **list, size_t n) {
        for (size_t i = 1; i < n; i++) {
                SimAttempt *a = list[i];
                size_t j = i;

                for (; j > 0 && list[j - 1]->cluster_pos > a->cluster_pos; j--)
                        list[j] = list[j - 1];
                list[j] = a;
        }
}

static int compare_cluster_pos(const void *x, const void *y) {
        const SimAttempt *a = *(SimAttempt *const *)x, *b = *(SimAttempt *const *)y;

        return (a->cluster_pos > b->cluster_pos) - (a->cluster_pos < b->cluster_pos);
}

/* The reduce fetches now: its host advanced to now first, and its rates
 * set again after. */
static void reduce_wake(Sim *s, SimAttempt *a) {
        host_advance(s, &s->hosts[a->host]);
        attempt_next_phase(a);
        host_recompute(s, &s->hosts[a->host]);
}

/* Checked runs: the job's waiting reduces are those of its heap, none
 * waits past its fetch, and none woken went back to waiting. */
static void waiting_check(SimCluster *cl, uint32_t job, bool woken_wait) {
        Sim *s = cl->sim;
        const JobExtra *jx = &cl->jobx[job];
        const TaskCounts *maps = &cl->jobs[job].counts[TASK_MAP];
        size_t n = 0, listed = 0;

        for (size_t i = 0; i < cl->n_attempts; i++)
                n += !attempt_is_map(cl->attempts[i]) &&
                     cl->tasks[cl->attempts[i]->task].job == job;
        if (n != jx->n_reduces)
                snprintf(s->invariant_error, sizeof(s->invariant_error),
                         "job %u lists %zu running reduces of its %zu", job, jx->n_reduces, n);
        for (size_t i = 0; i < jx->n_reduces; i++) {
                const SimAttempt *a = jx->reduces[i];

                if (a->phase != PHASE_SHUFFLE_WAIT)
                        continue;
                listed++;
                if (!a->wait_slot || jx->waiting[a->wait_slot - 1] != a)
                        snprintf(s->invariant_error, sizeof(s->invariant_error),
                                 "job %u's waiting reduce of task %u is not in its heap", job,
                                 a->task);
                else if (reduce_fetch_due(a, maps))
                        snprintf(s->invariant_error, sizeof(s->invariant_error),
                                 "job %u's reduce of task %u waits past its fetch", job, a->task);
        }
        if (listed != jx->n_waiting)
                snprintf(s->invariant_error, sizeof(s->invariant_error),
                         "job %u's heap holds %zu reduces, %zu wait", job, jx->n_waiting, listed);
        if (woken_wait)
                snprintf(s->invariant_error, sizeof(s->invariant_error),
                         "job %u's reduce woke before its fetch", job);
}

void sim_job_map_finished(SimCluster *cl, uint32_t job) {
        Sim *s = cl->sim;
        JobExtra *jx = &cl->jobx[job];
        const TaskCounts *maps = &cl->jobs[job].counts[TASK_MAP];
        size_t top = jx->n_waiting, still;

        /* Without progress_at_heartbeat a map's end advances the host of
         * every waiting reduce, as it always did, since where the hosts'
         * sums are split shows in their last bits; the reduces that fetch
         * go in the order of the cluster's list, as a walk of it met them:
         * the events their hosts' recomputations set are queued in that
         * order. Nothing here ends an attempt, so the positions hold. */
        if (!s->sc->progress_at_heartbeat) {
                sort_by_cluster_pos(jx->reduces, jx->n_reduces);
                for (size_t i = 0; i < jx->n_reduces; i++) {
                        SimAttempt *a = jx->reduces[i];

                        if (a->phase != PHASE_SHUFFLE_WAIT)
                                continue;
                        if (!reduce_fetch_due(a, maps)) {
                                host_advance(s, &s->hosts[a->host]);
                                continue;
                        }
                        wait_remove(jx, a);
                        reduce_wake(s, a);
                }
                if (s->check_invariants)
                        waiting_check(cl, job, false);
                return;
        }
        /* With progress as the heartbeats report it, where a step advances
         * only the hosts it changes, the map's end wakes the reduces due
         * and leaves the others alone. Most maps' ends wake none: a job of
         * 1.9 M maps and 13,000 reduces (the day's job969 on 10,000 slaves)
         * had each map's end walk its 10,000 running reduces, and each of
         * them fetch at a map's end of its own. Those due are taken off
         * the heap into its free end, in the cluster's order; a due reduce
         * fetches and waits no more, so none comes back to the heap here
         * (a checked run fails if one does). */
        while (jx->n_waiting > 0 && jx->waiting[0]->wake_at <= maps->done) {
                SimAttempt *a = jx->waiting[0];

                wait_remove(jx, a);
                jx->waiting[jx->n_waiting] = a;
        }
        still = jx->n_waiting;
        if (top > still)
                qsort(jx->waiting + still, top - still, sizeof(SimAttempt *), compare_cluster_pos);
        for (size_t i = still; i < top && jx->n_waiting == still; i++)
                reduce_wake(s, jx->waiting[i]);
        if (s->check_invariants)
                waiting_check(cl, job, jx->n_waiting != still);
}

/* ---- start ---- */

static double map_buffer(const SimAttempt *a) {
        const Scenario *sc = scenario(a);

        return spill_buffer_bytes((double)sc->sort_buffer, (double)sc->task_heap,
                                  (double)a->slot_memory);
}

static int attempt_plan(SimAttempt *a) {
        const Scenario *sc = scenario(a);
        const Task *t = &a->cl->tasks[a->task];
        const TaskExtra *tx = &a->cl->taskx[a->task];
        double input = (double)t->input_size, buffer;

        a->rounds = (unsigned)MAX(1.0, ceil(input / (double)sc->chunk));
        a->cpu_round = tx->cpu_work / a->rounds;
        if (t->type == TASK_REDUCE) {
                reduce_shuffle_init(&a->shuffle, (double)a->slot_memory);
                return 0;
        }
        a->io_round = input / a->rounds;
        a->io_round_time = a->io_round / a->cl->sim->stream_bw;
        a->map_only = a->cl->jobs[t->job].counts[TASK_REDUCE].total == 0;
        if (a->map_only) {
                a->write_round = tx->output / a->rounds;
                a->write_round_time = a->write_round / a->cl->sim->stream_bw;
                return 0;
        }
        buffer = map_buffer(a);
        if (tx->spill_buffer > 0 && buffer == tx->spill_buffer) {
                a->spills = tx->spills;
                return 0;
        }
        return map_spill_plan(tx->output, tx->records, buffer, a->cl->jobx[t->job].combine,
                              &a->spills);
}

int sim_attempt_start(SimCluster *cl, uint32_t task, uint32_t node, SlotType slot,
                      uint64_t slot_memory, bool speculative) {
        Sim *s = cl->sim;
        SimAttempt *a;
        TaskExtra *tx = &cl->taskx[task];
        SimVm *v = &s->vms[cl->node_vm[node]];
        SimHost *h = &s->hosts[v->host], *src = h;
        const Task *t = &cl->tasks[task];
        usec_t now = event_queue_now(s->queue);
        int r;

        /* HDFS 1.1.1 in one rack (no topology script) reads the first
         * replica of the block's list: pseudoSortByDistance() moves only
         * the reader's own node ahead of it. */
        if (t->type == TASK_MAP && t->n_locations > 0 && !task_is_local(t, node))
                src = &s->hosts[s->vms[cl->node_vm[t->locations[0]]].host];
        if (list_reserve(&h->attempts, h->n_attempts, &h->cap_attempts) < 0 ||
            list_reserve(&h->stale, h->n_attempts, &h->cap_stale) < 0 ||
            (t->type == TASK_REDUCE &&
             (list_reserve(&cl->jobx[t->job].reduces, cl->jobx[t->job].n_reduces,
                           &cl->jobx[t->job].cap_reduces) < 0 ||
              list_reserve(&cl->jobx[t->job].waiting, cl->jobx[t->job].n_reduces,
                           &cl->jobx[t->job].cap_waiting) < 0)) ||
            cluster_attempts_reserve(cl) < 0 ||
            list_reserve(&src->readers, src->n_readers, &src->cap_readers) < 0)
                return -ENOMEM;
        a = calloc(1, sizeof(*a));
        if (!a)
                return -ENOMEM;
        *a = (SimAttempt){
                .id = ++cl->next_attempt_id,
                .cl = cl,
                .task = task,
                .map = t->type == TASK_MAP,
                .input = (double)t->input_size,
                .node = node,
                .vm = cl->node_vm[node],
                .host = v->host,
                .src_host = (uint32_t)(src - s->hosts),
                .slot = slot,
                .slot_memory = slot_memory,
                .started = now,
                .speculative = speculative,
                .kill_count = tx->kill_count,
                .phase = PHASE_STARTUP,
                .remaining = usec_to_sec(s->sc->task_startup),
        };
        r = attempt_plan(a);
        if (r < 0) {
                free(a);
                return r;
        }
        host_advance(s, h);
        a->host_pos = h->n_attempts;
        h->attempts[h->n_attempts++] = a;
        attempt_mark_stale(a);
        v->committed += (double)a->slot_memory;
        cl->committed += a->slot_memory;
        sim_vm_snapshot_stale(s, v);
        h->vm_rates_valid = false;
        a->cluster_pos = cl->n_attempts;
        cl->snap_attempts[cl->n_attempts] = sim_attempt_snapshot(a, now);
        cl->attempts[cl->n_attempts++] = a;
        if (t->type == TASK_REDUCE) {
                JobExtra *jx = &cl->jobx[t->job];

                jx->reduces[jx->n_reduces++] = a;
        }
        if (tx->attempts++ == 0)
                tx->first_start = now;
        if (tx->running++ == 0)
                task_counts(cl, task)->running++;
        attempt_counted(&cl->node_attempts[node], &cl->attempts_total, &cl->tasks[task], slot,
                        slot_memory, true);
        cl->tasks[task].state = TASK_RUNNING;
        host_recompute(s, h);
        return 0;
}

/* ---- what the snapshot reports ---- */

static double attempt_input_size(const SimAttempt *a) {
        return a->input;
}

/* Share done of the current phase, from what is left of it. */
static double phase_done(const SimAttempt *a, double amount) {
        return amount > 0 ? CLAMP(1.0 - a->remaining / amount, 0.0, 1.0) : 1.0;
}

static double attempt_bytes_processed(const SimAttempt *a) {
        double input = attempt_input_size(a);

        if (attempt_is_map(a)) {
                /* A real map reads and computes record by record; the model's
                 * rounds are coarser, so within a round the input counts as
                 * consumed in proportion to the round's nominal time (I/O at
                 * the stream bandwidth, then CPU on one core) already done.
                 * Progress then moves smoothly, as Hadoop's does. */
                double per_round = a->io_round; /* input / rounds */
                double t_io = a->io_round_time, t_cpu = a->cpu_round, t_write = a->write_round_time;
                double whole = t_io + t_cpu + t_write, done;

                switch (a->phase) {
                case PHASE_STARTUP:
                case PHASE_LAUNCH:
                        return 0;
                case PHASE_SPILL_WAIT:
                        return per_round * a->round;
                case PHASE_IO:
                        done = phase_done(a, a->io_round) * t_io;
                        break;
                case PHASE_CPU:
                        done = t_io + phase_done(a, a->cpu_round) * t_cpu;
                        break;
                case PHASE_WRITE:
                        done = t_io + t_cpu + phase_done(a, a->write_round) * t_write;
                        break;
                default:
                        return input;
                }
                return per_round * (a->round + (whole > 0 ? done / whole : 1.0));
        }
        switch (a->phase) {
        case PHASE_STARTUP:
        case PHASE_LAUNCH:
        case PHASE_SHUFFLE_WAIT:
                return a->shuffled;
        case PHASE_SHUFFLE:
                return a->shuffled + a->fetch * phase_done(a, a->fetch_io);
        default:
                return input;
        }
}

static double attempt_progress(const SimAttempt *a, double bytes_processed) {
        double input = attempt_input_size(a);
        double done;

        if (a->phase == PHASE_REPORT)
                return 1.0;
        if (attempt_is_map(a)) {
                done = input > 0 ? bytes_processed / input : 1.0;
                if (a->phase == PHASE_MERGE)
                        return MAP_PHASE_WEIGHT +
                               (1.0 - MAP_PHASE_WEIGHT) * phase_done(a, a->merge_io);
                /* Without reduces there is no sort: the map phase is all. */
                return a->map_only ? done : MAP_PHASE_WEIGHT * done;
        }
        switch (a->phase) {
        case PHASE_STARTUP:
        case PHASE_LAUNCH:
        case PHASE_SHUFFLE_WAIT:
        case PHASE_SHUFFLE:
                return input > 0 ? bytes_processed / input / 3.0 : 0;
        case PHASE_MERGE:
                return (1.0 + phase_done(a, a->merge_io)) / 3.0;
        default: {
                double per_round = 1.0 / a->rounds;
                double in_round = a->phase == PHASE_IO ? 0.5 * phase_done(a, a->io_round)
                                                       : 0.5 + 0.5 * phase_done(a, a->cpu_round);
                return 2.0 / 3.0 + (per_round * (a->round + in_round)) / 3.0;
        }
        }
}

void sim_attempt_snapshot_update(const SimAttempt *a, usec_t now, Attempt *ret) {
        double age = usec_to_sec(now - a->started), bytes = attempt_bytes_processed(a);

        ret->progress = share_of(attempt_progress(a, bytes), 1.0);
        ret->bytes_processed = (uint64_t)bytes;
        ret->cpu = share_of(a->t_cpu, age);
        ret->iowait = share_of(a->t_io, age);
        ret->steal = share_of(a->t_steal, age);
        sim_attempt_snapshot_resizes(a, ret);
}

void sim_attempt_snapshot_resizes(const SimAttempt *a, Attempt *ret) {
        ret->resize_count = a->cl->taskx[a->task].resize_kills;
}

Attempt sim_attempt_snapshot(const SimAttempt *a, usec_t now) {
        Attempt at = {
                .id = a->id,
                .task = a->task,
                .node = a->node,
                .slot = a->slot,
                .slot_memory = a->slot_memory,
                .started = a->started,
                .input_size = (uint64_t)attempt_input_size(a),
                .speculative = a->speculative,
                .kill_count = a->kill_count,
        };

        sim_attempt_snapshot_update(a, now, &at);
        return at;
}

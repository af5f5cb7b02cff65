/* SPDX-License-Identifier: MIT */
/* The physical limit of a job: a lower bound on its completion time that no
 * policy can beat on the cluster it runs on, from its work alone. Each job
 * is bounded as if it had the cluster to itself, which only lowers the
 * bound for jobs that share it.
 *
 * - Nothing runs before the first heartbeat after the job's submission
 *   hands out a task (a JobTracker assigns tasks only in heartbeats) and
 *   that task's JVM started.
 * - CPU: all its tasks' CPU work on the pCPUs its slaves can get: every
 *   host's, at most what the slaves' vCPUs (or, for VMs nobody resizes,
 *   their caps) can take, at most the DRS pool.
 * - Disk: the I/O no policy avoids, on all hosts' disks at once: a map
 *   reads its split and writes its output once (one spill, combined if the
 *   job has a combiner); a reduce writes its output. Merges, extra spills
 *   and the shuffle's disk traffic depend on memory, which a policy may
 *   grow, so they are left out.
 * - Chain: the longest map alone (its read at one stream's bandwidth, its
 *   CPU at one full pCPU), then the longest reduce tail: a reduce computes
 *   and writes only once every map's output is in, at one pCPU and one
 *   stream at best.
 * - Maps then tail: the map phase cannot end before the maps' CPU work fills
 *   the pool, their I/O the disks, or the longest map ends; the longest
 *   reduce tail follows. */
#include <math.h>

#include "sim/state.h"

/* The first heartbeat at or after t: trackers beat every hb at staggered
 * offsets (build.c's schedule_events()). */
static usec_t first_heartbeat(const Sim *s, const SimCluster *cl, usec_t t) {
        usec_t hb = s->heartbeat, best = USEC_INFINITY;

        for (size_t i = 0; i < cl->n_nodes; i++) {
                usec_t offset = hb * (i + 1) / cl->n_nodes, at = offset;
                if (t > offset)
                        at = offset + (t - offset + hb - 1) / hb * hb;
                best = MIN(best, at);
        }
        return best;
}

double sim_bound_pcpus(const Sim *s, const SimCluster *cl) {
        double hosts = 0, vms = 0;

        for (size_t i = 0; i < s->n_hosts; i++)
                hosts += s->hosts[i].pcpus;
        for (size_t i = 0; i < cl->n_nodes; i++) {
                const SimVm *v = &s->vms[cl->node_vm[i]];
                /* Without an allocator that resizes them, the VMs keep their
                 * vCPUs and caps (DRS's caps come and go); an allocator may
                 * give up to vcpus_max. */
                if (s->sc->drs)
                        vms += v->vcpus;
                else if (s->sc->apply_vm_targets)
                        vms += v->vcpus_max;
                else
                        vms += v->cap > 0 ? MIN(v->cap, (double)v->vcpus) : v->vcpus;
        }
        return fmin(fmin(hosts, vms), s->sc->drs ? sim_drs_pool(s) : HUGE_VAL);
}

/* Two jobs on the same hosts: each takes at least its own bound, the later
 * one at least their work together on what both clusters can get of the
 * hosts' pCPUs, and on their disks; whichever ends first, the mean is at
 * least the smaller of the two sums. */
double sim_bound_pair(const Sim *s, const SimBound *a, const SimBound *b) {
        double hosts = 0, start = fmin(a->start, b->start), shared;

        for (size_t i = 0; i < s->n_hosts; i++)
                hosts += s->hosts[i].pcpus;
        shared = fmax(start + (a->work_cpu + b->work_cpu) / fmin(hosts, a->pcpus + b->pcpus),
                      start + (a->work_io + b->work_io) / a->disks);

        return fmin(a->value + fmax(b->value, shared), b->value + fmax(a->value, shared)) / 2;
}

void sim_bound_job(const Sim *s, const SimCluster *cl, uint32_t job, SimBound *ret) {
        const JobExtra *jx = &cl->jobx[job];
        usec_t submitted = cl->jobs[job].submitted;
        double pcpus = sim_bound_pcpus(s, cl), disks = 0, stream = s->stream_bw;
        double start, map_cpu = 0, map_io = 0, cpu = 0, io = 0, longest_map = 0, tail = 0;
        double launch = usec_to_sec(s->sc->task_launch_cpu);

        for (size_t i = 0; i < s->n_hosts; i++)
                disks += s->hosts[i].disk_bw;
        for (uint32_t k = jx->first_task; k < jx->first_task + job_n_tasks(&cl->jobs[job]); k++) {
                const TaskExtra *tx = &cl->taskx[k];
                double input = (double)cl->tasks[k].input_size;

                /* Each task launches once at least, on a CPU of its own at most. */
                cpu += launch + tx->cpu_work;
                if (cl->tasks[k].type == TASK_MAP) {
                        double least_io = input + tx->output * jx->combine;
                        map_cpu += launch + tx->cpu_work;
                        map_io += least_io;
                        io += least_io;
                        longest_map = MAX(longest_map, input / stream + tx->cpu_work);
                } else {
                        io += tx->output;
                        tail = MAX(tail, tx->cpu_work + tx->output / stream);
                }
        }
        start = usec_to_sec(first_heartbeat(s, cl, submitted) - submitted) +
                usec_to_sec(s->sc->task_startup) + launch;
        *ret = (SimBound){
                .start = start,
                .work_cpu = cpu,
                .work_io = io,
                .pcpus = pcpus,
                .disks = disks,
                .cpu = start + cpu / pcpus,
                .disk = start + io / disks,
                .chain = start + longest_map + tail,
                .maps_then_tail =
                        start + fmax(fmax(map_cpu / pcpus, map_io / disks), longest_map) + tail,
        };
        ret->value = fmax(fmax(ret->cpu, ret->disk), fmax(ret->chain, ret->maps_then_tail));
}

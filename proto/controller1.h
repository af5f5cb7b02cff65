/* SPDX-License-Identifier: MIT */
#pragma once

/* org.flexslot.Controller1: flexslot-controllerd's interface for operators
 * (flexslotctl, busctl), on the system bus; flexslot-controllerd(8) has
 * its methods. Error names: errors.h. The records its methods return,
 * field by field: */

#define CONTROLLER1_BUS_NAME "org.flexslot.Controller1"
#define CONTROLLER1_OBJECT_PATH "/org/flexslot/Controller1"
#define CONTROLLER1_INTERFACE "org.flexslot.Controller1"

/* A job: id, state, name, user, pool, application, maps, reduces, maps
 * done, reduces done, submitted, finished, deadline (realtime usec; 0:
 * none), source: "flexslot" for a job submitted here and run on the
 * trackers, else the cluster driver that reports it ("yarn": a YARN
 * application, whose id is the application, its pool the queue). */
#define CONTROLLER1_JOB_TYPE "(tsssssuuuuttts)"
#define CONTROLLER1_JOB_SOURCE_STORE "flexslot"
/* An attempt of a job's task (ListAttempts), as the store records it:
 * attempt id, task type (map or reduce), task index, its tracker's
 * hostname, state (running, succeeded, failed, killed, lost or
 * discarded), started, ended (realtime usec; 0: running), why it ended
 * ("" when it succeeded or did not say), then what its process used as
 * its tracker reported it at its end: CPU seconds (user and system) and
 * seconds of waiting for block I/O (0 where the guest's kernel keeps no
 * delay accounting); -1 for either when not reported (running, lost, or
 * from a tracker before Tracker1 revision 3). */
#define CONTROLLER1_ATTEMPT_TYPE "(tsussttsdd)"
/* A tracker: id, hostname, VM UUID, state, map slots, reduce slots,
 * running maps, running reduces, steal, I/O wait. */
#define CONTROLLER1_NODE_TYPE "(tsssuuuudd)"
/* A profile: user, job name, the job it was taken from, updated (realtime
 * usec), then ARIA's profile (the store's AriaProfile, in its order):
 * M_min, M_avg, M_max, input per map, map selectivity, Sh_avg^1, Sh_max^1,
 * Sh_avg^typ, Sh_max^typ, R_avg, R_max, reduce selectivity; seconds and
 * bytes. */
#define CONTROLLER1_PROFILE_TYPE \
        "(sstt"                  \
        "dddddddddddd"           \
        ")"
/* A VM of ListVms: tracker node (0: none), VM UUID, domain name, agent
 * (its [agents] entry; "": none), agent reachable, steal source (agent,
 * tracker, tracker-estimate or none), steal, vCPUs, memory, targets sent
 * (a control cycle's or ResizeVm's), taken by the agent, refused or
 * failed, what the agent said of the last one, the CPUs and memory its
 * tracker sees in the guest (0: not reported), whether the VM shows the
 * last vCPU and memory target its agent applied (pending, reached,
 * unreached: agent1.h's fields 15 and 16; "": none, or an agent that does
 * not say; a vCPU target the guest agent did not decide is unreached
 * while the tracker reports fewer CPUs online in the guest than the VM
 * has), its role ("tracker": a tracker runs in it; "tenant": another
 * tenant's VM on an agent's host, best effort to the policy, whose CPU
 * weight the one loop's lever may take for this cluster's deadlines;
 * "none": a domain that does not run), its CPU weight as its agent last
 * reported it (0: not reported), then whose count decided the vCPU
 * target's state (agent1.h's AGENT1_SOURCE_GUEST_AGENT where the guest
 * agent answered, else CONTROLLER1_SOURCE_TRACKER where the tracker
 * reports its guest's CPUs, else AGENT1_SOURCE_HYPERVISOR; "" while
 * pending), the vCPUs the guest agent counts online (0: no answer) and
 * what became of the agent's last question to it (agent1.h's field 19). */
#define CONTROLLER1_VM_TYPE "(tsssbsdutuuusutsssusus)"

#define CONTROLLER1_SOURCE_TRACKER "tracker"

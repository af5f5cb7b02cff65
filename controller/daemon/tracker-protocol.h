/* SPDX-License-Identifier: MIT */
#pragma once

/* org.flexslot.Tracker1: what a tracker and the controller say to each
 * other over the controller's peer-to-peer endpoint ([trackers] listen:
 * tcp:host=H,port=P or unix:path=P; D-Bus without a bus daemon, so the
 * client connects anonymously and calls with no destination). Object
 * TRACKER_OBJECT_PATH. One connection carries one tracker; a tracker that
 * lost its connection, or hears UnknownTracker or TrackerLost, registers
 * again and reports what finished meanwhile.
 *
 * Register(s token, s vm-uuid, s hostname, u map-slots, u reduce-slots,
 *          t slot-memory) -> (t tracker, t interval)
 *    token        the cluster token (the controller's [trackers] token-file);
 *                 a wrong one is Error.BadToken, compared in constant time
 *    vm-uuid      the SMBIOS UUID of the tracker's VM, 1..255 bytes
 *    hostname     1..255 bytes
 *    map-slots, reduce-slots   0..1024 each
 *    slot-memory  bytes of memory a new slot gets, 1 MiB..1 TiB
 *    tracker      the id to heartbeat with, on this connection only
 *    interval     usec between heartbeats
 *
 * Heartbeat(t tracker, TRACKER_NODE_TYPE node, a TRACKER_RUNNING_TYPE running,
 *           a TRACKER_FINISHED_TYPE finished)
 *    -> (a TRACKER_ASSIGNMENT_TYPE assignments, at kills, TRACKER_SLOTS_TYPE slots,
 *        as kill-reasons)
 *  node (uudd):
 *    1 u free map slots      2 u free reduce slots (at most the tracker's)
 *    3 d node steal          4 d node I/O wait (shares 0..1 of the last interval,
 *                                from /proc/stat)
 *  running, one per attempt still running (tdtttt):
 *    1 t attempt             2 d progress score 0..1 (input consumed / split size)
 *    3 t bytes processed     4 t input size (bytes)
 *    5 t CPU time (usec)     6 t block I/O wait (usec), of the task's process
 *  finished, one per attempt that ended since the last reply (tsttss):
 *    1 t attempt             2 s status: succeeded, failed or killed
 *    3 t input bytes         4 t output bytes
 *    5 s output: where the output is, relative to the data directory
 *        (succeeded; else ""): out/JOB/map-NNNNN.ATTEMPT or
 *        out/JOB/part-NNNNN.ATTEMPT, a name of the attempt's own; when the
 *        job succeeds the controller renames each reduce's winning output
 *        to the name without .ATTEMPT (cluster-output.c)
 *    6 s reason: why it failed or was killed ("" for none)
 *  assignments, tasks to start (ttsuussasts):
 *    1 t attempt             2 t job
 *    3 s task type: map or reduce
 *    4 u task index: the map's split, the reduce's partition
 *    5 u partitions: the job's reduces (how map output is partitioned)
 *    6 s application: a built-in's name, "" for streaming commands
 *    7 s command: a built-in's argument (grep's pattern; "" for none); for
 *        streaming, the task's command (the mapper, or the reducer: ""
 *        for Hadoop's identity reduce)
 *    8 as inputs: a map's split, one "FILE:OFFSET:LENGTH" (FileInputFormat's
 *        splits of the job's input files at the controller's [jobs]
 *        block-size, largest first: map i is the i-th; the last two colons
 *        separate, FILE may hold colons); a reduce's map outputs, one per
 *        map. Paths are relative to the data directory the trackers and
 *        the controller share.
 *    9 t slot memory (bytes)
 *   10 s slot: map or reduce, the type of slot the task occupies on the
 *        tracker until it ends: its own type, or the other when DynamicMR's
 *        slot borrowing lent it (a map in an idle reduce slot)
 *  kills: attempts to stop (of this tracker)
 *  slots (uut): the tracker's map slots, reduce slots and slot memory from
 *    now on; unchanged values when nothing changed.
 *  kill-reasons: why each of kills is killed, in their order (for example
 *    "speculation: another attempt succeeded"); the tracker gives it back
 *    as the reason of the killed attempt. Last, so that a tracker that does
 *    not read it still reads the rest.
 *
 * ReportGuest(t tracker, TRACKER_GUEST_TYPE guest)
 *    what the tracker sees of its VM, after each registration and when it
 *    changes: so that a VM target (ResizeVm, a VM allocator's) can be
 *    followed into the guest, and the controller knows what the tracker's
 *    steal is. A controller without the method answers UnknownMethod, and
 *    the tracker reports no more.
 *  guest (sut):
 *    1 s the node steal's source: "proc" (the kernel's steal counter) or
 *        "estimate" (the wall time /proc/stat accounts to nothing: a
 *        kernel without a steal clock, as under QEMU's TCG, counts no
 *        steal at all)
 *    2 u online CPUs, 1..TRACKER_GUEST_CPUS_MAX
 *    3 t memory (MemTotal) in bytes, TRACKER_SLOT_MEMORY_MIN..MAX
 *  A value outside these is Error.InvalidHeartbeat, naming it.
 *
 * A report that does not fit (a share outside 0..1, more free slots than
 * the tracker has, an attempt of another tracker, an unknown status) is
 * Error.InvalidHeartbeat, naming the field, and changes nothing. Attempts
 * the controller does not know (a job cancelled, a controller restarted)
 * are ignored when finished and killed when running, but for one: a
 * succeeded attempt that a controller before a restart assigned, whose
 * output (out/JOB/map-NNNNN.ATTEMPT or part-NNNNN.ATTEMPT, as trackers
 * name it) is there and belongs to a task that waits to run, is adopted
 * as that task's success, so that work done while the controller was away
 * is not done again. */

#define TRACKER_OBJECT_PATH "/org/flexslot/Tracker1"
#define TRACKER_INTERFACE "org.flexslot.Tracker1"

#define TRACKER_NODE_TYPE "(uudd)"
#define TRACKER_RUNNING_TYPE "(tdtttt)"
#define TRACKER_FINISHED_TYPE "(tsttss)"
/* An assignment's fields, for entering its struct. */
#define TRACKER_ASSIGNMENT_FIELDS "ttsuussasts"
#define TRACKER_ASSIGNMENT_TYPE "(" TRACKER_ASSIGNMENT_FIELDS ")"
#define TRACKER_SLOTS_TYPE "(uut)"
#define TRACKER_GUEST_TYPE "(sut)"

#define TRACKER_SLOTS_MAX 1024
#define TRACKER_SLOT_MEMORY_MIN (1ULL << 20)
#define TRACKER_SLOT_MEMORY_MAX (1ULL << 40)
#define TRACKER_TOKEN_MAX 4096
#define TRACKER_GUEST_CPUS_MAX 4096

/* SPDX-License-Identifier: MIT */
#pragma once

/* org.flexslot.Tracker1: what a tracker and the controller say to each
 * other over the controller's peer-to-peer endpoint ([trackers] listen:
 * tcp:host=H,port=P or unix:path=P; D-Bus without a bus daemon, so the
 * client connects anonymously and calls with no destination). Object
 * TRACKER1_OBJECT_PATH. One connection carries one tracker; a tracker that
 * lost its connection, or hears UnknownTracker or TrackerLost, registers
 * again and reports what finished meanwhile. Error names: errors.h.
 *
 * Register(u version, s token, s vm-uuid, s hostname, u map-slots,
 *          u reduce-slots, t slot-memory) -> (t tracker, t interval)
 *    version      the revision of Tracker1 the tracker speaks,
 *                 TRACKER1_VERSION; a controller serves the revisions
 *                 TRACKER1_VERSION_MIN..TRACKER1_VERSION of its own build
 *                 and refuses any other as Error.IncompatibleVersion,
 *                 naming both. Register keeps this signature in every
 *                 revision, so that a controller can always read the
 *                 version and refuse by name; a change it cannot absorb
 *                 is another interface (Tracker2)
 *    token        the cluster token (the controller's [trackers] token-file);
 *                 a wrong one is Error.BadToken, compared in constant time
 *    vm-uuid      the SMBIOS UUID of the tracker's VM, 1..255 bytes; a VM
 *                 has one tracker: while another registration of it is
 *                 alive and connected, Error.VmInUse names that tracker
 *    hostname     1..255 bytes
 *    (a controller with max-trackers registered refuses one more as
 *    Error.TooManyTrackers; both refusals mend, so a tracker tries again)
 *    map-slots, reduce-slots   0..1024 each
 *    slot-memory  bytes of memory a new slot gets, 1 MiB..1 TiB
 *    tracker      the id to heartbeat with, on this connection only
 *    interval     usec between heartbeats
 *
 * Heartbeat3(t tracker, TRACKER1_NODE_TYPE node, a TRACKER1_RUNNING_TYPE running,
 *            a TRACKER1_FINISHED_TYPE finished)
 *    -> (a TRACKER1_ASSIGNMENT_TYPE assignments, at kills, TRACKER1_SLOTS_TYPE slots,
 *        as kill-reasons)
 * HeartbeatEx(..., a TRACKER1_FINISHED_V2_TYPE finished) -> (the same)
 *    revision 2's heartbeat, whose finished attempts carry no use of CPU
 *    and I/O (fields 9 and 10 below): the controller records none.
 * Heartbeat(..., a TRACKER1_FINISHED_V1_TYPE finished) -> (the same)
 *    revision 1's heartbeat, whose finished attempts carry no times either
 *    (fields 7 and 8 below): the controller times them by the heartbeats
 *    that assigned and reported them. A tracker calls its revision's
 *    heartbeat, which a controller serving only older revisions does not
 *    have: it refuses such a tracker at Register.
 *  node (uudd):
 *    1 u free map slots      2 u free reduce slots (at most the tracker's)
 *    3 d node steal          4 d node I/O wait (shares 0..1 of the last interval,
 *                                from /proc/stat)
 *  running, one per attempt still running (tdtttt):
 *    1 t attempt             2 d progress score 0..1 (input consumed / split size)
 *    3 t bytes processed     4 t input size (bytes)
 *    5 t CPU time (usec)     6 t block I/O wait (usec), of the task's process
 *  finished, one per attempt that ended since the last reply (tsttsstttt):
 *    1 t attempt             2 s status: succeeded, failed or killed
 *    3 t input bytes         4 t output bytes
 *    5 s output: where the output is, relative to the data directory
 *        (succeeded; else ""): out/JOB/_map-NNNNN.ATTEMPT or
 *        out/JOB/_part-NNNNN.ATTEMPT, a name of the attempt's own
 *        (mapred/output.h); when the job succeeds the controller renames
 *        each reduce's winning output to out/JOB/part-NNNNN
 *    6 s reason: why it failed or was killed ("" for none)
 *    7 t run time: usec from the task's start to its end
 *    8 t since its end: usec from its end to this heartbeat's sending
 *        (both by the tracker's monotonic clock: the controller places the
 *        attempt's start and end on its own clock from them, and no clocks
 *        of two machines are compared)
 *    9 t CPU time: usec of user and system time of the task's process and
 *        the children it waited for (its rusage when reaped)
 *   10 t block I/O wait: usec the task's process waited for block I/O
 *        (/proc/PID/stat's delayacct_blkio_ticks when it ended; 0 when the
 *        guest's kernel keeps no delay accounting: kernel.task_delayacct
 *        or the delayacct boot option)
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
 *        block-size, largest first: map i is the i-th; mapred/split.h); a
 *        reduce's map outputs, one per map. Paths are relative to the data
 *        directory the trackers and the controller share.
 *    9 t slot memory (bytes)
 *   10 s slot: map or reduce, the type of slot the task occupies on the
 *        tracker until it ends: its own type, or the other when DynamicMR's
 *        slot borrowing lent it (a map in an idle reduce slot)
 *  kills: attempts to stop (of this tracker)
 *  slots (uut): the tracker's map slots, reduce slots and slot memory from
 *    now on; unchanged values when nothing changed.
 *  kill-reasons: why each of kills is killed, in their order (for example
 *    "speculation: another attempt succeeded"); the tracker gives it back
 *    as the reason of the killed attempt. One per kill.
 *
 * ReportGuest(t tracker, TRACKER1_GUEST_TYPE guest)
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
 *    2 u online CPUs, 1..TRACKER1_GUEST_CPUS_MAX
 *    3 t memory (MemTotal) in bytes, TRACKER1_SLOT_MEMORY_MIN..MAX
 *  A value outside these is Error.InvalidHeartbeat, naming it.
 *
 * A report that does not fit (a share outside 0..1, more free slots than
 * the tracker has, an attempt of another tracker, an unknown status) is
 * Error.InvalidHeartbeat, naming the field, and changes nothing. Attempts
 * the controller does not know (a job cancelled, a controller restarted)
 * are ignored when finished and killed when running, but for those that a
 * controller before a restart assigned to this tracker's host (its store
 * says so): one still running runs on, and one that ended is that task's
 * end, a success only with its output (out/JOB/_map-NNNNN.ATTEMPT or
 * _part-NNNNN.ATTEMPT, as trackers name it) there; so that work done while
 * the controller was away is not done again. (A succeeded attempt of an
 * earlier run that the store does not name is adopted the same way for a
 * task that waits to run.)
 *
 * tracker1.c is the only code that builds or reads these messages: each
 * message has a C form below, an append function that writes it into an
 * sd-bus message, and a read function that returns it. A read takes what
 * the message holds without judging it (ranges are the receiver's
 * business), but for the protocol's own words (statuses, task and slot
 * types), its limits (TRACKER1_REPORT_MAX) and its shape: anything else is
 * -EBADMSG with a named error in *error naming the field: InvalidArgs for
 * Register's arguments, InvalidHeartbeat for Heartbeat's, InvalidReply for
 * either reply. Strings read point into the message. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-bus.h>

#define TRACKER1_OBJECT_PATH "/org/flexslot/Tracker1"
#define TRACKER1_INTERFACE "org.flexslot.Tracker1"

/* The revision this build speaks, and the oldest its controller serves. */
#define TRACKER1_VERSION 3u
#define TRACKER1_VERSION_MIN 1u

/* The heartbeat of this revision, and revision 2's and 1's. */
#define TRACKER1_HEARTBEAT_METHOD "Heartbeat3"
#define TRACKER1_HEARTBEAT_V2_METHOD "HeartbeatEx"
#define TRACKER1_HEARTBEAT_V1_METHOD "Heartbeat"

#define TRACKER1_REGISTER_TYPE "usssuut"
#define TRACKER1_REGISTERED_TYPE "tt"
#define TRACKER1_NODE_TYPE "(uudd)"
#define TRACKER1_RUNNING_TYPE "(tdtttt)"
#define TRACKER1_FINISHED_TYPE "(tsttsstttt)"
#define TRACKER1_FINISHED_V2_TYPE "(tsttsstt)"
#define TRACKER1_FINISHED_V1_TYPE "(tsttss)"
/* An assignment's fields, for entering its struct. */
#define TRACKER1_ASSIGNMENT_FIELDS "ttsuussasts"
#define TRACKER1_ASSIGNMENT_TYPE "(" TRACKER1_ASSIGNMENT_FIELDS ")"
#define TRACKER1_SLOTS_TYPE "(uut)"
#define TRACKER1_GUEST_TYPE "(sut)"
#define TRACKER1_HEARTBEAT_TYPE \
        "t" TRACKER1_NODE_TYPE "a" TRACKER1_RUNNING_TYPE "a" TRACKER1_FINISHED_TYPE
#define TRACKER1_HEARTBEAT_V2_TYPE \
        "t" TRACKER1_NODE_TYPE "a" TRACKER1_RUNNING_TYPE "a" TRACKER1_FINISHED_V2_TYPE
#define TRACKER1_HEARTBEAT_V1_TYPE \
        "t" TRACKER1_NODE_TYPE "a" TRACKER1_RUNNING_TYPE "a" TRACKER1_FINISHED_V1_TYPE
#define TRACKER1_REPLY_TYPE "a" TRACKER1_ASSIGNMENT_TYPE "at" TRACKER1_SLOTS_TYPE "as"

#define TRACKER1_SLOTS_MAX 1024
#define TRACKER1_SLOT_MEMORY_MIN (1ULL << 20)
#define TRACKER1_SLOT_MEMORY_MAX (1ULL << 40)
#define TRACKER1_TOKEN_MAX 4096
#define TRACKER1_GUEST_CPUS_MAX 4096
/* A VM UUID's and a hostname's bytes at most. */
#define TRACKER1_TEXT_MAX 255
/* Running and finished attempts one heartbeat may carry, each. */
#define TRACKER1_REPORT_MAX 4096

/* A task's type, and the type of the slot it holds: "map" or "reduce". */
typedef enum Tracker1TaskType {
        TRACKER1_MAP,
        TRACKER1_REDUCE,
        _TRACKER1_TASK_TYPE_MAX,
} Tracker1TaskType;

typedef enum Tracker1Status {
        TRACKER1_SUCCEEDED,
        TRACKER1_FAILED,
        TRACKER1_KILLED,
        _TRACKER1_STATUS_MAX,
} Tracker1Status;

const char *tracker1_task_type_to_string(Tracker1TaskType t);
int tracker1_task_type_from_string(const char *s, Tracker1TaskType *ret);
const char *tracker1_status_to_string(Tracker1Status s);
int tracker1_status_from_string(const char *s, Tracker1Status *ret);

/* Whether a controller of this build serves a tracker of version. */
bool tracker1_version_served(uint32_t version);

/* ---- Register ---- */

typedef struct Tracker1Registration {
        uint32_t version;
        const char *token, *vm_uuid, *hostname;
        unsigned slots[_TRACKER1_TASK_TYPE_MAX]; /* by Tracker1TaskType */
        uint64_t slot_memory;
} Tracker1Registration;

typedef struct Tracker1Registered {
        uint64_t tracker;
        uint64_t interval; /* usec */
} Tracker1Registered;

int tracker1_register_append(sd_bus_message *m, const Tracker1Registration *x);
int tracker1_register_read(sd_bus_message *m, Tracker1Registration *ret, sd_bus_error *error);
int tracker1_registered_append(sd_bus_message *m, const Tracker1Registered *x);
int tracker1_registered_read(sd_bus_message *m, Tracker1Registered *ret, sd_bus_error *error);

/* ---- Heartbeat ---- */

typedef struct Tracker1Running {
        uint64_t attempt;
        double progress;
        uint64_t bytes_processed, input_size;
        uint64_t cpu_time, iowait_time; /* usec */
} Tracker1Running;

typedef struct Tracker1Finished {
        uint64_t attempt;
        Tracker1Status status;
        uint64_t input_bytes, output_bytes;
        const char *output; /* succeeded: its output; else empty */
        const char *reason; /* failed or killed: why; else empty */
        /* usec, by the tracker's clock; run_time 0: not told (revision 1) */
        uint64_t run_time, since_end;
        /* usec of the task's process; told from revision 3 (usage) */
        bool usage;
        uint64_t cpu_time, blkio_delay;
} Tracker1Finished;

typedef struct Tracker1Report {
        uint64_t tracker;
        unsigned free_slots[_TRACKER1_TASK_TYPE_MAX]; /* by Tracker1TaskType */
        double steal, iowait;
        Tracker1Running *running;
        size_t n_running;
        Tracker1Finished *finished;
        size_t n_finished;
} Tracker1Report;

/* A TRACKER1_HEARTBEAT_METHOD call's arguments. */
int tracker1_heartbeat_append(sd_bus_message *m, const Tracker1Report *x);
/* Any revision's heartbeat, told apart by its signature. The arrays are
 * the report's own (tracker1_report_done()). */
int tracker1_heartbeat_read(sd_bus_message *m, Tracker1Report *ret, sd_bus_error *error);
void tracker1_report_done(Tracker1Report *x);

/* ---- Heartbeat's reply ---- */

typedef struct Tracker1Assignment {
        uint64_t attempt, job;
        Tracker1TaskType type;
        unsigned index, partitions;
        const char *app;     /* "" for streaming */
        const char *command; /* "" for none */
        const char **inputs; /* the array is the reply's own */
        size_t n_inputs;
        uint64_t slot_memory;
        Tracker1TaskType slot;
} Tracker1Assignment;

typedef struct Tracker1Kill {
        uint64_t attempt;
        const char *reason;
} Tracker1Kill;

typedef struct Tracker1Reply {
        Tracker1Assignment *assignments;
        size_t n_assignments;
        Tracker1Kill *kills;
        size_t n_kills;
        unsigned slots[_TRACKER1_TASK_TYPE_MAX]; /* by Tracker1TaskType */
        uint64_t slot_memory;
} Tracker1Reply;

int tracker1_reply_append(sd_bus_message *m, const Tracker1Reply *x);
/* The arrays (assignments, each one's inputs, kills) are the reply's own. */
int tracker1_reply_read(sd_bus_message *m, Tracker1Reply *ret, sd_bus_error *error);
/* Frees the arrays, whoever filled them with malloc; the strings are not
 * the reply's. */
void tracker1_reply_done(Tracker1Reply *x);

/* ---- ReportGuest ---- */

typedef struct Tracker1Guest {
        uint64_t tracker;
        bool steal_estimated; /* "estimate", not "proc" */
        unsigned cpus;
        uint64_t memory;
} Tracker1Guest;

int tracker1_guest_append(sd_bus_message *m, const Tracker1Guest *x);
/* Checks the ranges above too: a guest is small enough to judge here. */
int tracker1_guest_read(sd_bus_message *m, Tracker1Guest *ret, sd_bus_error *error);

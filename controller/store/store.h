/* SPDX-License-Identifier: MIT */
#pragma once

/* The controller's durable state, in one SQLite file: the jobs it accepted,
 * the finished attempts of their tasks, and ARIA job profiles (Verma,
 * Cherkasova, Campbell, ICAC'11: the profile of section 2.2, kept as
 * section 6's Profile Database keeps "the past profiles of the jobs ...
 * identified by the (user, job name)"). A controller killed at any point
 * reopens the file and finds every write a store function had returned 0
 * for; from it, it resumes each unfinished job without running its finished
 * tasks again.
 *
 * Every write is one transaction: a function that fails has changed
 * nothing. Every argument is checked first (lengths, ranges, character sets;
 * the limits are below); a bad one is -EINVAL with the field named in the
 * StoreError. Other errors: -ENOENT (no such job or profile), -EEXIST (a task
 * record that contradicts one stored), -EALREADY (the job has ended), -EBUSY
 * (a state change the job is not ready for, or the file locked by another
 * process for longer than the busy timeout), -ESTALE (a profile older than
 * the stored one), -EMEDIUMTYPE (not a flexslot store), -EUCLEAN (a corrupt
 * one), -EPROTONOSUPPORT (one written by a newer flexslot), -EIO, -ENOSPC,
 * -ENOMEM and the like for the file itself.
 *
 * One Store is used from one thread at a time. Times are realtime usec_t
 * (the store outlives boots, so monotonic times mean nothing in it). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/macro.h"
#include "common/time-util.h"
#include "policy/core/model.h"

/* The schema this code writes; a store of a later version is refused, an
 * earlier one upgraded when it is opened. */
#define STORE_SCHEMA_VERSION 4

/* Limits on what a client may put into the store, in bytes for texts. */
#define STORE_NAME_MAX 255       /* a job's name */
#define STORE_IDENTIFIER_MAX 255 /* user, pool, application, node */
#define STORE_COMMAND_MAX 4096   /* a streaming command, an application's argument */
#define STORE_PATH_MAX 4095      /* an input or output path */
#define STORE_MESSAGE_MAX 1024   /* why a job or an attempt ended */
#define STORE_INPUTS_MAX 1024    /* input paths of one job */
#define STORE_REDUCES_MAX 100000 /* reduce tasks of one job */
#define STORE_MAPS_MAX 10000000  /* map tasks of one job */
#define STORE_BATCH_MAX 100000   /* task records written together */

typedef struct Store Store;

#define STORE_ERROR_MAX 512

typedef struct StoreError {
        /* The argument at fault ("inputs", "deadline", "map_avg"), NULL
         * when the fault is not one argument's (the file, a job's state). */
        const char *field;
        /* A complete sentence naming what was wrong, with the value. */
        char message[STORE_ERROR_MAX];
} StoreError;

/* Opens the store at path, creating it (mode 0600: it holds users' commands)
 * when missing. The file must be a flexslot store, of this version or an
 * earlier one (upgraded now, in one transaction), and pass SQLite's
 * quick_check. err may be NULL. */
int store_open(const char *path, Store **ret, StoreError *err);
Store *store_close(Store *s);
DEFINE_POINTER_CLEANUP_FUNC(Store, store_close);

/* ---- jobs ---- */

typedef enum StoreJobState {
        STORE_JOB_QUEUED,
        STORE_JOB_RUNNING,
        STORE_JOB_SUCCEEDED,
        STORE_JOB_FAILED,
        STORE_JOB_CANCELLED,
        _STORE_JOB_STATE_MAX,
} StoreJobState;

#define STORE_JOB_STATE_BIT(state) (1u << (state))
#define STORE_JOB_UNFINISHED \
        (STORE_JOB_STATE_BIT(STORE_JOB_QUEUED) | STORE_JOB_STATE_BIT(STORE_JOB_RUNNING))
#define STORE_JOB_ANY ((1u << _STORE_JOB_STATE_MAX) - 1)

const char *store_job_state_to_string(StoreJobState state);
int store_job_state_from_string(const char *s, StoreJobState *ret);

/* What a client submits. A job runs a built-in application (app, with its
 * argument when it takes one) or streaming commands (mapper, and a reducer
 * when it has reduces; none is Hadoop's identity reduce), never both.
 * Inputs are paths relative to the cluster's data directory, without "..". */
typedef struct StoreJobSpec {
        const char *name; /* free text, no control characters */
        const char *user, *pool;
        const char *app, *app_arg;
        const char *mapper, *reducer;
        const char *const *inputs;
        size_t n_inputs;
        unsigned n_reduces;
        usec_t deadline; /* absolute; 0: none */
} StoreJobSpec;

typedef struct StoreJob {
        uint64_t id;
        StoreJobState state;
        char *name, *user, *pool;
        char *app, *app_arg, *mapper, *reducer; /* NULL when not given */
        char **inputs;
        size_t n_inputs;
        unsigned n_maps; /* decided when the job started; 0 before */
        unsigned n_reduces;
        unsigned maps_done, reduces_done;              /* tasks with a succeeded attempt */
        usec_t deadline, submitted, started, finished; /* 0: not (yet) */
        char *message;                                 /* why it ended, NULL when it did not say */
} StoreJob;

/* Frees what a StoreJob holds (not the struct); NULL is fine. */
void store_job_clear(StoreJob *job);
void store_jobs_free(StoreJob *jobs, size_t n);

/* What store_job_submit() refuses of a spec, refused the same way, without
 * storing anything. */
int store_job_check(const StoreJobSpec *spec, StoreError *err);
/* A new queued job; its id is never given to another job of this store. */
int store_job_submit(Store *s, const StoreJobSpec *spec, uint64_t *ret_id, StoreError *err);
/* The id the next store_job_submit() gives, for what a submission checks
 * under it beforehand (its output directory). */
int store_job_next_id(Store *s, uint64_t *ret, StoreError *err);
int store_job_get(Store *s, uint64_t id, StoreJob *ret, StoreError *err);
/* The jobs whose state is in states (STORE_JOB_STATE_BIT()s), by id. */
int store_jobs_list(Store *s, unsigned states, StoreJob **ret, size_t *ret_n, StoreError *err);

/* How many jobs the store holds in each state, by StoreJobState. */
int store_jobs_count(Store *s, uint64_t ret[static _STORE_JOB_STATE_MAX], StoreError *err);
/* SQLite's failures since the store was opened, each of which a caller was
 * told of through a StoreError: a store that fails shows in the metrics
 * before the disk is full. */
uint64_t store_errors(const Store *s);

/* Queued to running, with the number of map tasks its input was split
 * into: task records name map tasks 0 .. n_maps - 1, so the split must come
 * out the same when the controller resumes the job. */
int store_job_start(Store *s, uint64_t id, unsigned n_maps, StoreError *err);
/* To succeeded (from running, once every task has a succeeded attempt),
 * failed or cancelled (from queued or running). message (may be NULL) says
 * why. A job that has ended already is -EALREADY. */
int store_job_finish(Store *s, uint64_t id, StoreJobState state, const char *message,
                     StoreError *err);
/* Forgets the jobs that ended before ended_before (realtime), with their
 * inputs and task records; queued and running jobs stay whatever their
 * age, and so do ARIA profiles, which outlive the jobs they came from. The
 * ids of forgotten jobs are not given again. ret_n (may be NULL): how many
 * went. */
int store_jobs_prune(Store *s, usec_t ended_before, size_t *ret_n, StoreError *err);

/* ---- task attempts ---- */

/* An attempt is recorded running when it is assigned, and its record
 * replaced once when it ends: so that an operator sees every attempt, and a
 * restarted controller knows which attempts its predecessor left running
 * and where. */
typedef enum StoreTaskStatus {
        STORE_TASK_SUCCEEDED,
        STORE_TASK_FAILED,
        STORE_TASK_KILLED,
        STORE_TASK_RUNNING,
        STORE_TASK_LOST,      /* gone with its tracker, or not found there after a restart */
        STORE_TASK_DISCARDED, /* succeeded after another attempt of its task had */
        _STORE_TASK_STATUS_MAX,
} StoreTaskStatus;

#define STORE_TASK_STATUS_BIT(status) (1u << (status))
#define STORE_TASK_ANY ((1u << _STORE_TASK_STATUS_MAX) - 1)

const char *store_task_status_to_string(StoreTaskStatus status);

/* One attempt of a task of a running job. A task has at most one succeeded
 * attempt: its output is the task's. */
typedef struct StoreTaskRecord {
        uint64_t job;
        TaskType type;
        unsigned index;   /* below the job's n_maps or n_reduces */
        uint64_t attempt; /* the controller's id; one record per attempt */
        const char *node; /* the tracker that ran it */
        StoreTaskStatus status;
        usec_t started, finished; /* 0 < started <= finished; running: finished 0 */
        usec_t shuffle_end;       /* reduces: when the shuffle and sort ended; 0: unknown */
        uint64_t input_bytes, output_bytes;
        /* Succeeded: the output, relative to the data directory; NULL
         * otherwise. */
        const char *output;
        const char *reason; /* failed or killed: why (may be NULL) */
        /* What its process used, as its tracker reports it at its end
         * (Tracker1 revision 3): CPU time (user and system) and its wait
         * for block I/O, usec. Without usage, not reported: running, lost,
         * or from an older tracker. */
        bool usage;
        usec_t cpu_time, io_wait;
} StoreTaskRecord;

/* Writes n (1 .. STORE_BATCH_MAX) records in one transaction: all of them,
 * or none when one is refused. A running record is of a new attempt, of a
 * job that runs. A record of an attempt stored as running replaces it (the
 * attempt ended), even when its job has ended since. A record equal to a
 * stored one (the same attempt, reported again after a reconnection) is
 * accepted and not written twice; one that contradicts a stored record, or
 * a second succeeded attempt of a task, is -EEXIST. */
int store_tasks_record(Store *s, const StoreTaskRecord *records, size_t n, StoreError *err);

/* A group: from store_group_begin() to store_group_commit(), the task
 * records of every store_tasks_record() share one transaction, which the
 * first of them begins, so that a burst of them (the heartbeats of one
 * pass of the controller's loop) pays for one commit, not one each. A
 * record's call answers as before, but the record is only in the group:
 * what depends on it waits for the group's commit. The store's other
 * transactions run inside the group, but for a job's change or a profile
 * (a WRITE, acknowledged at its commit), which commits the group first and
 * syncs it with its own. A begin inside a group changes nothing, so each
 * writer may begin the group it joins. store_group_commit() commits what the group holds
 * and ends it; it fails when any of the group's records are lost (its
 * commit failed, or an I/O error rolled the group back before), even
 * where the calls that wrote them succeeded. */
void store_group_begin(Store *s);
int store_group_commit(Store *s, StoreError *err);
/* Between a group's begin and its commit. */
bool store_group_open(const Store *s);
/* The group holds records not yet committed. */
bool store_group_holds(const Store *s);
/* The write transactions committed since the store was opened: a group's
 * is one. */
uint64_t store_commits(const Store *s);

/* The job's records whose status is in statuses (STORE_TASK_STATUS_BIT()s),
 * by type, index and attempt: with STORE_TASK_SUCCEEDED alone, the tasks a
 * resumed job need not run again and their outputs. The strings belong to
 * the array. */
int store_job_tasks(Store *s, uint64_t job, unsigned statuses, StoreTaskRecord **ret, size_t *ret_n,
                    StoreError *err);
void store_task_records_free(StoreTaskRecord *records, size_t n);

/* ---- ARIA job profiles ---- */

/* A profile's numbers as the store keeps them, a column each: durations in
 * seconds (the map phase's shortest, mean and longest task; the mean and
 * longest of the first shuffle's part after the maps, of a typical shuffle
 * and of the reduce phase), bytes a map reads, and the map's and the
 * reduce's output per byte of input. The controller converts them from
 * and to the policies' own types; the store holds no policy's. */
typedef struct StoreProfileStats {
        double map_min, map_avg, map_max;
        double map_input;
        double map_selectivity;
        double sh1_avg, sh1_max;
        double shtyp_avg, shtyp_max;
        double reduce_avg, reduce_max;
        double reduce_selectivity;
} StoreProfileStats;

typedef struct StoreProfile {
        const char *user, *name; /* the key: a recurring job is a user's job name */
        uint64_t job;            /* the run it was taken from */
        usec_t updated;
        StoreProfileStats profile;
} StoreProfile;

/* Stores the profile of run job of (user, name) in place of the stored one,
 * unless that came from a later run (a higher job id): -ESTALE. Every
 * number is finite and 0 or more, a map takes time and reads something,
 * and no mean is above its longest nor a map's shortest above its mean;
 * the field that is not so is named. */
int store_profile_put(Store *s, const char *user, const char *name, uint64_t job,
                      const StoreProfileStats *profile, StoreError *err);
/* The strings of *ret belong to it: store_profile_clear(). */
int store_profile_get(Store *s, const char *user, const char *name, StoreProfile *ret,
                      StoreError *err);
/* Every profile, by user and name. */
int store_profiles_list(Store *s, StoreProfile **ret, size_t *ret_n, StoreError *err);
void store_profile_clear(StoreProfile *p);
void store_profiles_free(StoreProfile *profiles, size_t n);

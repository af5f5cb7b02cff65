/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* The user tasks run as. A task is user code (a streaming command is any
 * shell command a job's submitter wrote), so it runs as a user of its own,
 * never as the tracker's: the tracker holds the cluster token, and a task
 * that could read it could speak for the tracker to the controller. The
 * tracker runs as root to become that user; its token file is readable by
 * root alone, and nothing of the tracker's is left to the task but the
 * descriptors it is handed (its status, stdin, stdout, stderr).
 *
 * What the task may write in the data directory is the job's output
 * directory (out/JOB), which the tracker makes for the task user's group;
 * the outputs in it have that group too, the task user's own. */

typedef struct TaskUser {
        char name[64];
        uid_t uid;
        gid_t gid; /* its primary group, the only one the task keeps */
} TaskUser;

/* Looks up name and checks that a task may run as it here: it exists, it
 * is not the caller's own user, and the caller is root (nothing else can
 * become another user). Errors are logged naming the user and what to do. */
int task_user_find(const char *name, TaskUser *ret);

/* In a forked child, just before exec: drops every supplementary group,
 * then the group, then the user (real, effective and saved), checks that
 * each took and that root cannot be had back, and sets no_new_privs so no
 * setuid program gives it back either. Async-signal-safe; on failure it
 * writes why to stderr and returns -1. */
int task_user_become(const TaskUser *u);

/* Makes data_dir/out and data_dir/out/NAME (NAME one component), each
 * beneath data_dir (common/beneath.h). out/NAME, when this call makes it,
 * belongs to the caller and to u's group, mode 0770: u's tasks write their
 * outputs there, the caller (the tracker) removes what a killed task left,
 * and nobody else reads them. */
int task_user_make_output_dir(const TaskUser *u, const char *data_dir, const char *name);

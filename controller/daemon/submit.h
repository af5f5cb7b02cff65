/* SPDX-License-Identifier: MIT */
#pragma once

#include "common/time-util.h"
#include "controller/store/store.h"

/* What SubmitJob refuses before the scheduler judges a job, besides what
 * the store refuses (store_job_check()): a job that no task could run, and
 * one whose output would mix with an earlier one's. Each is -EINVAL with
 * err naming the field, nothing stored. */

/* An unknown application, an argument it does not take or cannot use (a
 * grep pattern that does not compile), reduces outside what a map output
 * partitions for (mapred/apps-table.h, the task runtime's own table), and
 * a deadline that has passed at now (realtime). */
int submit_check_runnable(const StoreJobSpec *spec, usec_t now, StoreError *err);

/* The output directory the next job of store would get, out/ID in
 * data_dir, must not exist, as Hadoop refuses an existing output
 * directory: ids start again at 1 with a new store, and a job must not
 * commit next to another's parts. */
int submit_check_output(Store *store, const char *data_dir, StoreError *err);

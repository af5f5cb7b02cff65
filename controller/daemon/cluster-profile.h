/* SPDX-License-Identifier: MIT */
#pragma once

/* ARIA's profile database in the store (cluster-profile.c). */

#include "controller/daemon/cluster-model.h"
#include "controller/store/store.h"

/* The profile of a succeeded
 * job's succeeded attempts into the store, under its (user, name); and the
 * stored one of (user, name), -ENOENT when there is none. */
int cluster_profile_save(Store *store, const StoreJob *job, StoreError *err);
int cluster_profile_load(Store *store, const char *user, const char *name, ClusterProfile *ret,
                         StoreError *err);

/* SPDX-License-Identifier: MIT */
#pragma once

/* What the controller's live model (controller/daemon/cluster.h) runs on
 * in its benchmark (bench-cluster.c) and its tests
 * (tests/check_controller_cluster.c): files of their own rather than the
 * daemon's configuration. The data directory is DIR, the jobs' inputs
 * are under DIR/in, the store is DIR/store.db, and the policy is the
 * default one (fifo). */

#include <stdint.h>

#include "controller/daemon/cluster.h"

typedef struct ClusterFixture {
        ClusterData data;
        char *db;
        Store *store;
        Policy *policy;
} ClusterFixture;

/* The store opened (a new one where DIR has none) and the policy made;
 * DIR must outlive the fixture. 0, or a negative errno and, when the store
 * failed, why in *err. */
int cluster_fixture_open(ClusterFixture *f, const char *dir, uint64_t block_size, StoreError *err);
/* Frees what cluster_fixture_open() made and removes the store's files;
 * the inputs stay. */
void cluster_fixture_close(ClusterFixture *f);
/* An input of SIZE bytes, DIR/in/NAME: SIZE over the block size gives its
 * splits. 0 or a negative errno. */
int cluster_fixture_input(const ClusterFixture *f, const char *name, uint64_t size);

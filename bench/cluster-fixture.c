/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/macro.h"
#include "policy/layers/policies.h"
#include "cluster-fixture.h"

int cluster_fixture_open(ClusterFixture *f, const char *dir, uint64_t block_size, StoreError *err) {
        PolicyConfig cfg = { 0 };
        int r;

        *f = (ClusterFixture){ .data = { .data_dir = dir, .block_size = block_size } };
        if (asprintf(&f->db, "%s/store.db", dir) < 0) {
                f->db = NULL;
                return -ENOMEM;
        }
        r = store_open(f->db, &f->store, err);
        if (r >= 0)
                r = policy_config_init(&cfg);
        if (r >= 0)
                r = policy_new_named(&cfg, NULL, &f->policy);
        policy_config_done(&cfg);
        if (r < 0)
                cluster_fixture_close(f);
        return r;
}

void cluster_fixture_close(ClusterFixture *f) {
        f->policy = policy_free(f->policy);
        f->store = store_close(f->store);
        if (f->db) {
                char path[PATH_MAX];

                (void)unlink(f->db);
                snprintf(path, sizeof(path), "%s-wal", f->db);
                (void)unlink(path);
                snprintf(path, sizeof(path), "%s-shm", f->db);
                (void)unlink(path);
        }
        free(f->db);
        f->db = NULL;
}

int cluster_fixture_input(const ClusterFixture *f, const char *name, uint64_t size) {
        _cleanup_free_ char *in = NULL, *path = NULL;
        _cleanup_close_ int fd = -EBADF;

        if (asprintf(&in, "%s/in", f->data.data_dir) < 0) {
                in = NULL;
                return -ENOMEM;
        }
        if (mkdir(in, 0755) < 0 && errno != EEXIST)
                return -errno;
        if (asprintf(&path, "%s/%s", in, name) < 0) {
                path = NULL;
                return -ENOMEM;
        }
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
                return -errno;
        return 0;
}

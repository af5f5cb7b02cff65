/* SPDX-License-Identifier: MIT */
#include "status.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/macro.h"

int task_status_create(int *ret_fd, TaskStatus **ret) {
        _cleanup_close_ int fd = -1;
        int r;

        fd = memfd_create("flexslot-task-status", MFD_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        if (ftruncate(fd, sizeof(TaskStatus)) < 0)
                return negative_errno();
        r = task_status_map(fd, ret);
        if (r < 0)
                return r;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int task_status_map(int fd, TaskStatus **ret) {
        struct stat st;
        void *p;

        if (fstat(fd, &st) < 0)
                return negative_errno();
        if ((size_t)st.st_size < sizeof(TaskStatus))
                return -EINVAL;
        p = mmap(NULL, sizeof(TaskStatus), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED)
                return negative_errno();
        *ret = p;
        return 0;
}

void task_status_unmap(TaskStatus *s) {
        if (s)
                munmap(s, sizeof(TaskStatus));
}

void task_status_begin(TaskStatus *s, TaskKind kind) {
        if (!s)
                return;
        /* Counters first, the magic last: a reader that sees the magic sees
         * a started status. */
        __atomic_store_n(&s->magic, 0, __ATOMIC_RELEASE);
        TASK_STATUS_SET(s, phase, TASK_PHASE_STARTING);
        TASK_STATUS_SET(s, kind, kind);
        TASK_STATUS_SET(s, input_done, 0);
        TASK_STATUS_SET(s, input_total, 0);
        TASK_STATUS_SET(s, copy_done, 0);
        TASK_STATUS_SET(s, copy_total, 0);
        TASK_STATUS_SET(s, sort_done, 0);
        TASK_STATUS_SET(s, sort_total, 0);
        TASK_STATUS_SET(s, reduce_done, 0);
        TASK_STATUS_SET(s, reduce_total, 0);
        TASK_STATUS_SET(s, bytes_read, 0);
        TASK_STATUS_SET(s, bytes_written, 0);
        TASK_STATUS_SET(s, records_in, 0);
        TASK_STATUS_SET(s, records_out, 0);
        TASK_STATUS_SET(s, spills, 0);
        __atomic_store_n(&s->magic, TASK_STATUS_MAGIC, __ATOMIC_RELEASE);
}

#define LOAD(field) (ret->field = __atomic_load_n(&s->field, __ATOMIC_RELAXED))

void task_status_read(const TaskStatus *s, TaskStatus *ret) {
        ret->magic = __atomic_load_n(&s->magic, __ATOMIC_ACQUIRE);
        LOAD(kind);
        LOAD(phase);
        LOAD(input_done);
        LOAD(input_total);
        LOAD(copy_done);
        LOAD(copy_total);
        LOAD(sort_done);
        LOAD(sort_total);
        LOAD(reduce_done);
        LOAD(reduce_total);
        LOAD(bytes_read);
        LOAD(bytes_written);
        LOAD(records_in);
        LOAD(records_out);
        LOAD(spills);
}

#undef LOAD

/* done / total in [0, 1]; a part with nothing to do counts as done once
 * the task has moved past it. */
static double share(uint64_t done, uint64_t total, bool past) {
        if (total == 0)
                return past ? 1.0 : 0.0;
        return done >= total ? 1.0 : (double)done / (double)total;
}

double task_status_progress(const TaskStatus *snap) {
        TaskPhase phase = snap->phase;

        if (snap->magic != TASK_STATUS_MAGIC)
                return 0.0;
        if (phase >= TASK_PHASE_COMMIT)
                return 1.0;
        if (snap->kind == TASK_KIND_MAP)
                return share(snap->input_done, snap->input_total, phase > TASK_PHASE_MAP);
        return (share(snap->copy_done, snap->copy_total, phase > TASK_PHASE_COPY) +
                share(snap->sort_done, snap->sort_total, phase > TASK_PHASE_SORT) +
                share(snap->reduce_done, snap->reduce_total, phase > TASK_PHASE_REDUCE)) /
               3.0;
}

const char *task_phase_to_string(TaskPhase phase) {
        static const char *const names[] = {
                [TASK_PHASE_STARTING] = "starting", [TASK_PHASE_MAP] = "map",
                [TASK_PHASE_MERGE] = "merge",       [TASK_PHASE_COPY] = "copy",
                [TASK_PHASE_SORT] = "sort",         [TASK_PHASE_REDUCE] = "reduce",
                [TASK_PHASE_COMMIT] = "commit",     [TASK_PHASE_DONE] = "done",
        };

        return (unsigned)phase < ELEMENTSOF(names) ? names[phase] : "unknown";
}

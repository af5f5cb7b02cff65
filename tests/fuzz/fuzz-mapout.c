/* SPDX-License-Identifier: MIT */
/* libFuzzer: a map output file as a reduce reads it (tracker/mapout.h,
 * tracker/record.h, tracker/merge.h): its trailer and index checked, then
 * every partition's records decoded, merged and grouped by key as the
 * reduce side does. A file from a killed or hostile task is refused by
 * name (-EBADMSG), never read past its segments. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tracker/mapout.h"
#include "tracker/merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every group's every value. */
static void drain(RecordStream *in) {
        const uint8_t *key, *val;
        size_t klen, vlen;
        ValueIter *values;
        Grouper g;

        grouper_init(&g, in);
        while (grouper_next(&g, &key, &klen, &values) > 0)
                while (values->next(values, &val, &vlen) > 0)
                        ;
        grouper_done(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const MergeOptions opt = { .factor = 3, .work_dir = "/tmp" };
        MapOutput *m = NULL;
        MergeRun *run = NULL;
        char path[64];
        int fd;

        fd = memfd_create("map-output", MFD_CLOEXEC);
        if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
                if (fd >= 0)
                        close(fd);
                return 0;
        }
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        if (map_output_open(AT_FDCWD, path, &m) == 0) {
                /* Every partition on its own, then all merged, as the
                 * combiner and the reduce read them. */
                for (unsigned p = 0; p < m->partitions; p++) {
                        SegmentReader r;

                        if (segment_reader_init(&r, &m->index[p]) == 0) {
                                drain(&r.stream);
                                segment_reader_done(&r);
                        }
                }
                if (merge_run_open(m->index, m->partitions, &opt, &run) == 0) {
                        drain(merge_run_stream(run));
                        merge_run_free(run);
                }
                map_output_free(m);
        }
        close(fd);
        return 0;
}

/* SPDX-License-Identifier: MIT */
/* libFuzzer: the task runtime's line records. The input's first line is a
 * split, FILE:OFFSET:LENGTH as a tracker passes it (input_split_parse());
 * the rest is the file, read as Hadoop's LineRecordReader reads a split of
 * it (offset and length taken from the first two bytes when the split does
 * not parse), and every line goes through each built-in application's map
 * (the histograms' PUMA parsing, grep's matching, the tokenizers) and the
 * counts' parser that sums a combiner's values. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tracker/app.h"
#include "mapred/split.h"
#include "tracker/linereader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int discard(Emitter *e, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen) {
        return 0;
}

static void map_line(void *const *states, const MapRecord *rec) {
        static Emitter out = { .emit = discard };
        uint64_t count;

        for (size_t i = 0; app_table[i]; i++)
                (void)app_table[i]->map(states[i], rec, &out);
        (void)record_parse_u64(rec->line, rec->len, &count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const uint8_t *nl = memchr(data, '\n', size);
        size_t head = nl ? (size_t)(nl - data) + 1 : 0;
        void *states[16] = { NULL };
        InputSplit split = { 0 };
        char spec[256], path[64];
        LineReader reader = { .fd = -1 };
        MapRecord rec = { .path = "in/fuzz" };
        int fd;

        if (head > 0 && head < sizeof(spec)) {
                memcpy(spec, data, head - 1);
                spec[head - 1] = '\0';
                (void)input_split_parse(spec, &split);
                input_split_done(&split);
        }
        fd = memfd_create("input", MFD_CLOEXEC);
        if (fd < 0)
                return 0;
        if (write(fd, data + head, size - head) != (ssize_t)(size - head))
                goto out;
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        split.path = path;
        split.offset = size - head > 0 ? data[head] % (size - head) : 0;
        split.length = size - head - split.offset;
        if (size - head > 1)
                split.length = data[head + 1] % (split.length + 1);
        for (size_t i = 0; i < sizeof(states) / sizeof(states[0]) && app_table[i]; i++) {
                const AppConfig cfg = { .arg = app_table[i]->info->arg_name ? "[a-z]+" : NULL,
                                        .split = &split };

                if (app_init(app_table[i], &cfg, &states[i]) < 0)
                        goto out;
        }
        if (line_reader_open(AT_FDCWD, &split, &reader) == 0) {
                while (line_reader_next(&reader, &rec.line, &rec.len, &rec.offset) > 0)
                        map_line(states, &rec);
                line_reader_close(&reader);
        }
        for (size_t i = 0; i < sizeof(states) / sizeof(states[0]) && app_table[i]; i++)
                if (app_table[i]->map_end) {
                        static Emitter out = { .emit = discard };

                        (void)app_table[i]->map_end(states[i], &out);
                }
out:
        for (size_t i = 0; i < sizeof(states) / sizeof(states[0]) && app_table[i]; i++)
                app_free(app_table[i], states[i]);
        close(fd);
        return 0;
}

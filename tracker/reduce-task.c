/* SPDX-License-Identifier: MIT */
#include "task.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/fileio.h"
#include "tracker/mapout.h"

/* The job's output: "key\tvalue" lines, "key" alone for an empty value
 * (Hadoop's TextOutputFormat with a null value). */
typedef struct TextWriter {
        Emitter emitter;
        BufWriter out;
        uint64_t records;
} TextWriter;

static int text_writer_emit(Emitter *e, const uint8_t *key, size_t klen, const uint8_t *val,
                            size_t vlen) {
        TextWriter *w = container_of(e, TextWriter, emitter);
        int r;

        r = buf_writer_write(&w->out, key, klen);
        if (r >= 0 && vlen > 0)
                r = buf_writer_write(&w->out, "\t", 1);
        if (r >= 0)
                r = buf_writer_write(&w->out, val, vlen);
        if (r >= 0)
                r = buf_writer_write(&w->out, "\n", 1);
        if (r < 0)
                return r;
        w->records++;
        return 0;
}

typedef struct ReduceRun {
        const ReduceTaskSpec *spec;
        int data_fd;
        void *state;
        char **paths; /* the map outputs, NULL-terminated */
        size_t n_paths;
        int scratch_fd;
        Segment *segs;
        MergeRun *merge;
        AtomicFile out;
        TextWriter text;
        ReduceTaskReport report;
} ReduceRun;

static int strv_push(char ***v, size_t *n, char *s) {
        char **nv = realloc(*v, (*n + 2) * sizeof(char *));

        if (!nv) {
                free(s);
                return -ENOMEM;
        }
        nv[(*n)++] = s;
        nv[*n] = NULL;
        *v = nv;
        return 0;
}

static int reduce_run_find_inputs(ReduceRun *m) {
        const ReduceTaskSpec *s = m->spec;
        int r;

        for (size_t i = 0; i < s->n_inputs; i++) {
                _cleanup_close_ int fd = -1;
                struct stat st;
                char **files = NULL;
                size_t n = 0;

                fd = task_file_open(m->data_fd, s->inputs[i], O_PATH, 0, "map output");
                if (fd < 0)
                        return fd;
                if (fstat(fd, &st) < 0)
                        return log_error_errno(-errno, "Cannot read map output %s", s->inputs[i]);
                if (!S_ISDIR(st.st_mode)) {
                        char *p = strdup(s->inputs[i]);
                        r = p ? strv_push(&m->paths, &m->n_paths, p) : -ENOMEM;
                        if (r < 0)
                                return r;
                        continue;
                }
                r = dir_list_files(m->data_fd, s->inputs[i], &files, &n);
                if (r < 0)
                        return r;
                for (size_t j = 0; j < n; j++) {
                        if (r >= 0)
                                r = strv_push(&m->paths, &m->n_paths, files[j]);
                        else
                                free(files[j]);
                }
                free(files);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The copy phase: this partition's segment of every map output, into one
 * local scratch file (the shuffle). */
static int reduce_run_copy(ReduceRun *m) {
        const ReduceTaskSpec *s = m->spec;
        unsigned partitions = 0;
        uint64_t end = 0;
        int r;

        TASK_STATUS_SET(s->status, phase, TASK_PHASE_COPY);
        TASK_STATUS_SET(s->status, copy_total, m->n_paths);
        r = scratch_file_open(s->work_dir, &m->scratch_fd);
        if (r < 0)
                return r;
        m->segs = calloc(MAX(m->n_paths, (size_t)1), sizeof(Segment));
        if (!m->segs)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_paths; i++) {
                _cleanup_(map_output_freep) MapOutput *mo = NULL;
                const Segment *seg;

                r = map_output_open(m->data_fd, m->paths[i], &mo);
                if (r < 0)
                        return r;
                if (partitions == 0)
                        partitions = mo->partitions;
                if (mo->partitions != partitions)
                        return log_error_errno(-EINVAL,
                                               "%s has %u partitions, %s has %u: not one job's map "
                                               "outputs",
                                               m->paths[i], mo->partitions, m->paths[0],
                                               partitions);
                if (s->partition >= partitions)
                        return log_error_errno(-EINVAL,
                                               "Partition %u is out of range: %s has %u partitions",
                                               s->partition, m->paths[i], partitions);
                seg = &mo->index[s->partition];
                r = file_copy_range(mo->fd, seg->offset, m->scratch_fd, end, seg->length);
                if (r < 0)
                        return log_error_errno(r, "Cannot fetch partition %u of %s", s->partition,
                                               m->paths[i]);
                m->segs[i] = (Segment){
                        .fd = m->scratch_fd,
                        .offset = end,
                        .length = seg->length,
                        .records = seg->records,
                        .name = m->paths[i],
                };
                end += seg->length;
                m->report.shuffle_bytes += seg->length;
                m->report.input_records += seg->records;
                TASK_STATUS_SET(s->status, copy_done, i + 1);
                TASK_STATUS_SET(s->status, bytes_read, m->report.shuffle_bytes);
        }
        m->report.map_outputs = m->n_paths;
        return 0;
}

static void reduce_sort_progress(void *userdata, uint64_t done, uint64_t total) {
        TaskStatus *status = userdata;

        TASK_STATUS_SET(status, sort_total, total);
        TASK_STATUS_SET(status, sort_done, done);
}

static int reduce_run_reduce(ReduceRun *m) {
        const ReduceTaskSpec *s = m->spec;
        const uint8_t *key;
        ValueIter *values;
        size_t klen;
        Grouper g;
        int r;

        TASK_STATUS_SET(s->status, phase, TASK_PHASE_REDUCE);
        TASK_STATUS_SET(s->status, reduce_total, m->report.input_records);
        grouper_init(&g, merge_run_stream(m->merge));
        while ((r = grouper_next(&g, &key, &klen, &values)) > 0) {
                r = s->app->reduce(m->state, key, klen, values, &m->text.emitter);
                if (r < 0)
                        break;
                m->report.groups++;
                TASK_STATUS_SET(s->status, reduce_done, g.records);
                TASK_STATUS_SET(s->status, records_out, m->text.records);
        }
        grouper_done(&g);
        if (r >= 0 && s->app->reduce_end)
                r = s->app->reduce_end(m->state, &m->text.emitter);
        return r;
}

static int reduce_run(ReduceRun *m) {
        const ReduceTaskSpec *s = m->spec;
        MergeOptions mo = {
                .factor = s->factor ? s->factor : MERGE_FACTOR_DEFAULT,
                .work_dir = s->work_dir,
                .progress = reduce_sort_progress,
                .userdata = s->status,
        };
        AppConfig cfg = s->app_cfg;
        int r;

        cfg.split = NULL;
        cfg.partition = s->partition;
        r = app_init(s->app, &cfg, &m->state);
        if (r < 0)
                return r;
        r = task_data_dir_open(s->data_dir, &m->data_fd);
        if (r < 0)
                return r;
        r = atomic_file_open(m->data_fd, s->output, s->attempt, &m->out);
        if (r < 0)
                return r;
        r = buf_writer_init(&m->text.out, m->out.fd, 0);
        if (r < 0)
                return r;
        m->text.emitter.emit = text_writer_emit;
        r = reduce_run_find_inputs(m);
        if (r < 0)
                return r;
        r = reduce_run_copy(m);
        if (r < 0)
                return r;
        TASK_STATUS_SET(s->status, phase, TASK_PHASE_SORT);
        r = merge_run_open(m->segs, m->n_paths, &mo, &m->merge);
        if (r < 0)
                return r;
        m->report.merge_passes = merge_run_passes(m->merge);
        r = reduce_run_reduce(m);
        if (r < 0)
                return r;
        r = buf_writer_flush(&m->text.out);
        if (r < 0)
                return log_error_errno(r, "Cannot write %s", m->out.tmp_path);
        m->report.output_records = m->text.records;
        m->report.output_bytes = buf_writer_tell(&m->text.out);
        TASK_STATUS_SET(s->status, phase, TASK_PHASE_COMMIT);
        TASK_STATUS_SET(s->status, bytes_written, m->report.output_bytes);
        return atomic_file_commit(&m->out);
}

int reduce_task_run(const ReduceTaskSpec *spec, ReduceTaskReport *ret) {
        ReduceRun m = { .spec = spec, .data_fd = AT_FDCWD, .scratch_fd = -1, .out.fd = -1 };
        usec_t start = now_monotonic_usec();
        int r;

        if (!spec->app || !spec->output || !spec->attempt || !spec->work_dir)
                return -EINVAL;
        task_status_begin(spec->status, TASK_KIND_REDUCE);
        r = reduce_run(&m);
        merge_run_free(m.merge);
        buf_writer_done(&m.text.out);
        atomic_file_abort(&m.out);
        free(m.segs);
        if (m.scratch_fd >= 0)
                close(m.scratch_fd);
        for (size_t i = 0; i < m.n_paths; i++)
                free(m.paths[i]);
        free(m.paths);
        task_data_dir_close(m.data_fd);
        app_free(spec->app, m.state);
        if (r < 0)
                return r;
        m.report.elapsed = now_monotonic_usec() - start;
        TASK_STATUS_SET(spec->status, phase, TASK_PHASE_DONE);
        *ret = m.report;
        return 0;
}

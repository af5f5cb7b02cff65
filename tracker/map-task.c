/* SPDX-License-Identifier: MIT */
#include "task.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/fileio.h"
#include "tracker/linereader.h"
#include "tracker/mapout.h"

typedef struct MapRun {
        const MapTaskSpec *spec;
        int data_fd;
        void *state;
        LineReader lines;
        SortBuffer *sort;
        AtomicFile out;
        MapTaskReport report;
} MapRun;

static int map_run_input(MapRun *m) {
        const MapTaskSpec *s = m->spec;
        Emitter *out = sort_buffer_emitter(m->sort);
        MapRecord rec = { .path = s->split.path };
        int r;

        TASK_STATUS_SET(s->status, phase, TASK_PHASE_MAP);
        while ((r = line_reader_next(&m->lines, &rec.line, &rec.len, &rec.offset)) > 0) {
                r = s->app->map(m->state, &rec, out);
                if (r < 0)
                        return r;
                m->report.input_records++;
                m->report.input_bytes = line_reader_consumed(&m->lines);
                TASK_STATUS_SET(s->status, input_done, m->report.input_bytes);
                TASK_STATUS_SET(s->status, bytes_read, m->report.input_bytes);
                TASK_STATUS_SET(s->status, records_in, m->report.input_records);
        }
        if (r < 0)
                return r;
        /* The split is consumed even when its last line ended early. */
        m->report.input_bytes = s->split.length;
        TASK_STATUS_SET(s->status, input_done, m->report.input_bytes);
        if (s->app->map_end)
                return s->app->map_end(m->state, out);
        return 0;
}

static int map_run(MapRun *m) {
        const MapTaskSpec *s = m->spec;
        AppConfig cfg = s->app_cfg;
        SortBufferOptions so = {
                .size = s->sort_buffer,
                .partitions = s->reduces,
                .work_dir = s->work_dir,
                .factor = s->factor ? s->factor : MERGE_FACTOR_DEFAULT,
                .status = s->status,
        };
        struct stat st;
        int r;

        cfg.split = &s->split;
        r = app_init(s->app, &cfg, &m->state);
        if (r < 0)
                return r;
        r = task_data_dir_open(s->data_dir, &m->data_fd);
        if (r < 0)
                return r;
        r = line_reader_open(m->data_fd, &s->split, &m->lines);
        if (r < 0)
                return r;
        so.app = s->app;
        so.app_state = m->state;
        r = sort_buffer_new(&so, &m->sort);
        if (r < 0)
                return log_error_errno(r, "Cannot set up a sort buffer of %" PRIu64 " bytes",
                                       s->sort_buffer);
        r = atomic_file_open(m->data_fd, s->output, s->attempt, &m->out);
        if (r < 0)
                return r;
        r = map_run_input(m);
        if (r < 0)
                return r;
        r = sort_buffer_finish(m->sort, m->out.fd);
        if (r < 0)
                return log_error_errno(r, "Cannot write the map output %s", m->out.tmp_path);
        sort_buffer_stats(m->sort, &m->report.sort);
        TASK_STATUS_SET(s->status, phase, TASK_PHASE_COMMIT);
        TASK_STATUS_SET(s->status, records_out, m->report.sort.records);
        if (fstat(m->out.fd, &st) < 0)
                return negative_errno();
        m->report.output_bytes = (uint64_t)st.st_size;
        TASK_STATUS_SET(s->status, bytes_written, m->report.output_bytes);
        return atomic_file_commit(&m->out);
}

int map_task_run(const MapTaskSpec *spec, MapTaskReport *ret) {
        MapRun m = { .spec = spec, .data_fd = AT_FDCWD, .lines.fd = -1, .out.fd = -1 };
        usec_t start = now_monotonic_usec();
        int r;

        if (!spec->app || !spec->output || !spec->attempt || !spec->work_dir ||
            spec->reduces == 0 || spec->reduces > MAP_OUTPUT_PARTITIONS_MAX)
                return -EINVAL;
        task_status_begin(spec->status, TASK_KIND_MAP);
        TASK_STATUS_SET(spec->status, input_total, spec->split.length);
        r = map_run(&m);
        atomic_file_abort(&m.out);
        sort_buffer_free(m.sort);
        line_reader_close(&m.lines);
        task_data_dir_close(m.data_fd);
        app_free(spec->app, m.state);
        if (r < 0)
                return r;
        m.report.elapsed = now_monotonic_usec() - start;
        TASK_STATUS_SET(spec->status, phase, TASK_PHASE_DONE);
        *ret = m.report;
        return 0;
}

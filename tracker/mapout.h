/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdint.h>

#include "common/macro.h"
#include "mapred/apps-table.h"
#include "tracker/record.h"

/* A map's output, and each of its spills, is one file: the segments of
 * partitions 0..R-1 back to back, then an index of R entries (offset,
 * length, records; little-endian u64), then a trailer:
 *     u64 index offset, u32 partitions, u32 version, 8 bytes "FSLOTMAP".
 * Hadoop keeps the index in a second file (file.out.index); one file lets
 * a single rename publish data and index together. */

/* A map output holds a partition per reduce. */
#define MAP_OUTPUT_PARTITIONS_MAX MAPRED_REDUCES_MAX

/* Writes one map output file into fd (from offset 0), a partition at a
 * time, in order. */
typedef struct MapOutputWriter {
        BufWriter out;
        SegmentWriter seg;
        unsigned partitions, next;
        Segment *index;
} MapOutputWriter;

int map_output_writer_init(MapOutputWriter *w, int fd, unsigned partitions);
/* Starts partition w->next; records go to the returned emitter in key order. */
Emitter *map_output_writer_begin(MapOutputWriter *w);
void map_output_writer_end(MapOutputWriter *w);
/* Writes the index and trailer once every partition is written; the file
 * is then complete (not yet synced). */
int map_output_writer_finish(MapOutputWriter *w);
void map_output_writer_done(MapOutputWriter *w);

/* A map output opened for reading, its index checked: the trailer, the
 * partition count, and segments that tile the data exactly. */
typedef struct MapOutput {
        int fd;
        char *path;
        unsigned partitions;
        Segment *index; /* fd and name filled in */
} MapOutput;

/* path is opened as task_file_open() (fileio.h) opens it. */
int map_output_open(int dir_fd, const char *path, MapOutput **ret);
MapOutput *map_output_free(MapOutput *m);
DEFINE_POINTER_CLEANUP_FUNC(MapOutput, map_output_free);

/* A file published atomically: written under a temporary name in the same
 * directory, synced, renamed over the final name, and the directory synced,
 * so the final name is either absent or complete. The temporary name is
 * ".NAME.tmp-TAG"; a killed writer leaves only that hidden file, which a
 * rerun with the same tag replaces and readers of a directory skip.
 *
 * The directory is opened once, as task_file_open() (fileio.h) opens it,
 * and the file created and renamed in it by name: a symlink in the data
 * directory cannot send the output elsewhere. The file is created 0640
 * (less the umask): a job's output is its user's, not everyone's. */
typedef struct AtomicFile {
        int fd;
        int dir_fd;                  /* the directory, while path is set */
        char *path, *tmp_path;       /* as given, and its temporary twin */
        const char *name, *tmp_name; /* their last components, in dir_fd */
} AtomicFile;

#define ATOMIC_FILE_MODE 0640

int atomic_file_open(int dir_fd, const char *path, const char *tag, AtomicFile *ret);
/* The temporary name of path's writer tagged tag: for removing what a
 * killed writer left. */
int atomic_file_tmp_name(const char *path, const char *tag, char **ret);
int atomic_file_commit(AtomicFile *f);
/* Removes the temporary file; fine after commit or on a zeroed AtomicFile. */
void atomic_file_abort(AtomicFile *f);

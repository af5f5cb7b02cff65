/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/strv.h"

/* Input splits, as Hadoop 1.x's FileInputFormat makes them, and their
 * FILE:OFFSET:LENGTH form. */

/* dfs.block.size in Hadoop 1.x: a split is one block. */
#define SPLIT_BLOCK_SIZE_DEFAULT (64ULL << 20)

typedef struct InputSplit {
        char *path;
        uint64_t offset, length;
} InputSplit;

typedef struct InputSplitList {
        InputSplit *splits;
        size_t n, cap;
} InputSplitList;

/* Appends the splits of one file of the given size: blocks of block_size
 * while more than SPLIT_SLOP (1.1) blocks remain, then the rest as one
 * split, so a last split holds up to 1.1 blocks. An empty file gets one
 * empty split, as in Hadoop 1.x. */
int input_splits_add_file(InputSplitList *l, const char *path, uint64_t size, uint64_t block_size);

/* The splits of every path: a file, or a directory standing for its files.
 * Names beginning with '.' or '_' are skipped, as Hadoop's hidden-file
 * filter does; a directory inside a directory is an error. Splits come
 * largest first, as Hadoop's JobClient orders them, ties by path and
 * offset. Paths are opened as task_file_open() (common/fileio.h) opens
 * them: relative to dir_fd and beneath it (a path or a symlink that leads
 * out is -EXDEV), or as open(2) takes them with AT_FDCWD. */
int input_splits_compute(int dir_fd, char *const *paths, size_t n_paths, uint64_t block_size,
                         InputSplitList *ret);
void input_split_list_done(InputSplitList *l);

/* The regular files a directory stands for: names beginning with '.' or
 * '_' are skipped; a subdirectory is an error. Sorted by name; *ret is a
 * NULL-terminated array of joined paths. dir is opened as
 * task_file_open() (common/fileio.h) opens it: beneath dir_fd unless that
 * is AT_FDCWD. */
int dir_list_files(int dir_fd, const char *dir, char ***ret, size_t *ret_n);

/* Parses FILE:OFFSET:LENGTH (the last two colons separate; FILE may hold
 * colons). */
int input_split_parse(const char *s, InputSplit *ret);
void input_split_done(InputSplit *s);

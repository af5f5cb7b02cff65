/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdarg.h>
#include <stdbool.h>

#include "macro.h"

/* syslog priorities, so journald keeps the level of each line. */
typedef enum LogLevel {
        LOG_LEVEL_ERR = 3,
        LOG_LEVEL_WARNING = 4,
        LOG_LEVEL_NOTICE = 5,
        LOG_LEVEL_INFO = 6,
        LOG_LEVEL_DEBUG = 7,
} LogLevel;

/* Sets the program name shown in each line and decides once whether stderr
 * is connected to the journal (then lines get "<N>" prefixes and no name). */
void log_open(const char *program_name);
void log_set_max_level(LogLevel level);
LogLevel log_get_max_level(void);
/* Parses "err", "warning", "notice", "info", "debug" (or 3..7). */
int log_level_from_string(const char *s, LogLevel *ret_level);
const char *log_level_to_string(LogLevel level);
/* Forces or disables the journal prefix, mainly for tests. */
void log_set_journal_prefix(bool enabled);

/* Logs one line and returns error (a negative errno, or 0), so a caller can
 * write "return log_error_errno(r, ...)". With error < 0 the message gets
 * ": <strerror>" appended. */
int log_internal(LogLevel level, int error, const char *func, const char *fmt, ...) _printf_(4, 5);

#define log_full_errno(level, error, ...)                                             \
        ({                                                                            \
                LogLevel log_level_ = (level);                                        \
                int log_error_ = (error);                                             \
                log_level_ <= log_get_max_level()                                     \
                        ? log_internal(log_level_, log_error_, __func__, __VA_ARGS__) \
                        : log_error_;                                                 \
        })

#define log_error(...) ((void)log_full_errno(LOG_LEVEL_ERR, 0, __VA_ARGS__))
#define log_warning(...) ((void)log_full_errno(LOG_LEVEL_WARNING, 0, __VA_ARGS__))
#define log_notice(...) ((void)log_full_errno(LOG_LEVEL_NOTICE, 0, __VA_ARGS__))
#define log_info(...) ((void)log_full_errno(LOG_LEVEL_INFO, 0, __VA_ARGS__))
#define log_debug(...) ((void)log_full_errno(LOG_LEVEL_DEBUG, 0, __VA_ARGS__))

#define log_error_errno(error, ...) log_full_errno(LOG_LEVEL_ERR, error, __VA_ARGS__)
#define log_warning_errno(error, ...) log_full_errno(LOG_LEVEL_WARNING, error, __VA_ARGS__)
#define log_debug_errno(error, ...) log_full_errno(LOG_LEVEL_DEBUG, error, __VA_ARGS__)

/* For allocation failures, which are logged the same way everywhere. */
#define log_oom() log_error_errno(-ENOMEM, "Out of memory")

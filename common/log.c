/* SPDX-License-Identifier: MIT */
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "parse.h"

static const char *program = "flexslot";
static LogLevel max_level = LOG_LEVEL_INFO;
static bool journal_prefix;

/* systemd sets JOURNAL_STREAM=<dev>:<ino> for a service whose stderr is a
 * journal stream; comparing it with stderr avoids being fooled by a child
 * that inherited the variable but was redirected elsewhere. */
static bool stderr_is_journal(void) {
        const char *e = getenv("JOURNAL_STREAM"), *colon;
        char dev_text[32];
        uint64_t dev, ino;
        struct stat st;

        if (!e || !(colon = strchr(e, ':')) || (size_t)(colon - e) >= sizeof(dev_text))
                return false;
        memcpy(dev_text, e, (size_t)(colon - e));
        dev_text[colon - e] = '\0';
        if (parse_uint64(dev_text, 0, UINT64_MAX, &dev) < 0 ||
            parse_uint64(colon + 1, 0, UINT64_MAX, &ino) < 0)
                return false;
        if (fstat(STDERR_FILENO, &st) < 0)
                return false;
        return st.st_dev == (dev_t)dev && st.st_ino == (ino_t)ino;
}

void log_open(const char *program_name) {
        if (program_name) {
                const char *slash = strrchr(program_name, '/');
                program = slash ? slash + 1 : program_name;
        }
        journal_prefix = stderr_is_journal();
}

void log_set_max_level(LogLevel level) {
        max_level = level;
}

LogLevel log_get_max_level(void) {
        return max_level;
}

void log_set_journal_prefix(bool enabled) {
        journal_prefix = enabled;
}

static const char *const level_names[] = {
        [LOG_LEVEL_ERR] = "err",   [LOG_LEVEL_WARNING] = "warning", [LOG_LEVEL_NOTICE] = "notice",
        [LOG_LEVEL_INFO] = "info", [LOG_LEVEL_DEBUG] = "debug",
};

const char *log_level_to_string(LogLevel level) {
        if (level < LOG_LEVEL_ERR || level > LOG_LEVEL_DEBUG)
                return NULL;
        return level_names[level];
}

int log_level_from_string(const char *s, LogLevel *ret_level) {
        for (int l = LOG_LEVEL_ERR; l <= LOG_LEVEL_DEBUG; l++)
                if (strcasecmp(s, level_names[l]) == 0 || (s[0] == '0' + l && s[1] == '\0')) {
                        *ret_level = (LogLevel)l;
                        return 0;
                }
        return -EINVAL;
}

int log_internal(LogLevel level, int error, const char *func, const char *fmt, ...) {
        char message[2048];
        int saved_errno = errno;
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(message, sizeof(message), fmt, ap);
        va_end(ap);
        /* A message is one line: text a client sent (a VM UUID, a job's
         * name) cannot start a line of its own, which under systemd could
         * claim any priority, nor carry a terminal's escapes. */
        for (char *p = message; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        *p = '?';

        /* One fprintf per line keeps lines from interleaving between threads. */
        if (journal_prefix)
                fprintf(stderr, "<%d>%s%s%s\n", (int)level, message, error < 0 ? ": " : "",
                        error < 0 ? strerror(-error) : "");
        else if (max_level >= LOG_LEVEL_DEBUG)
                fprintf(stderr, "%s: %s: %s: %s%s%s\n", program, log_level_to_string(level), func,
                        message, error < 0 ? ": " : "", error < 0 ? strerror(-error) : "");
        else
                fprintf(stderr, "%s: %s%s%s\n", program, message, error < 0 ? ": " : "",
                        error < 0 ? strerror(-error) : "");

        errno = saved_errno;
        return error;
}

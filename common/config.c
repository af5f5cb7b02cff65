/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format.h"
#include "macro.h"
#include "parse.h"
#include "time-util.h"

/* Configuration files are small; anything larger is a mistake. */
#define CONF_FILE_MAX (1024 * 1024)
#define CONF_LINE_MAX 4096

typedef struct ParseState {
        const ConfSchema *schema;
        void *config;
        bool *seen;
        ConfError *err;
        bool failed;
} ParseState;

static void copy_text(char *dst, size_t size, const char *src) {
        snprintf(dst, size, "%s", src ? src : "");
}

int conf_error_set(ConfError *err, const char *section, const char *key,
                   const char *fmt, ...) {
        va_list ap;

        copy_text(err->section, sizeof(err->section), section);
        copy_text(err->key, sizeof(err->key), key);
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof(err->message), fmt, ap);
        va_end(ap);
        return -EINVAL;
}

void conf_error_format(const ConfError *err, char *buf, size_t size) {
        char where[CONF_ERROR_TEXT_MAX + 16] = "";
        char what[160] = "";

        if (err->file[0] && err->line > 0)
                snprintf(where, sizeof(where), "%s:%u: ", err->file, err->line);
        else if (err->file[0])
                snprintf(where, sizeof(where), "%s: ", err->file);
        if (err->section[0] && err->key[0])
                snprintf(what, sizeof(what), "[%s] %s: ", err->section, err->key);
        else if (err->section[0])
                snprintf(what, sizeof(what), "[%s]: ", err->section);
        else if (err->key[0])
                snprintf(what, sizeof(what), "%s: ", err->key);
        snprintf(buf, size, "%s%s%s", where, what, err->message);
}

static const ConfKey *schema_find(const ConfSchema *schema, const char *section,
                                  const char *key) {
        for (size_t i = 0; i < schema->n_keys; i++)
                if (strcmp(schema->keys[i].section, section) == 0 &&
                    strcmp(schema->keys[i].key, key) == 0)
                        return &schema->keys[i];
        return NULL;
}

static bool schema_has_section(const ConfSchema *schema, const char *section) {
        for (size_t i = 0; i < schema->n_keys; i++)
                if (strcmp(schema->keys[i].section, section) == 0)
                        return true;
        return false;
}

/* The range in the units the file uses: "[100ms, 1h]", "[512M, 16G]". */
static int range_error(ConfError *err, const ConfKey *k, const char *value) {
        char lo[MAX(FORMAT_DURATION_MAX, FORMAT_SIZE_MAX)], hi[sizeof(lo)];

        if (k->type == CONF_DOUBLE)
                return conf_error_set(err, k->section, k->key,
                                      "value '%s' out of range [%g, %g]", value,
                                      k->dmin, k->dmax);
        if (k->type == CONF_DURATION) {
                format_duration(lo, sizeof(lo), (usec_t)k->min);
                format_duration(hi, sizeof(hi), (usec_t)k->max);
        } else if (k->type == CONF_SIZE) {
                format_size(lo, sizeof(lo), (uint64_t)k->min);
                format_size(hi, sizeof(hi), (uint64_t)k->max);
        } else {
                snprintf(lo, sizeof(lo), "%" PRId64, k->min);
                snprintf(hi, sizeof(hi), "%" PRId64, k->max);
        }
        return conf_error_set(err, k->section, k->key, "value '%s' out of range [%s, %s]",
                              value, lo, hi);
}

/* Parses value for key k and stores it into config. */
static int conf_set_value(const ConfKey *k, const char *value, void *config,
                          ConfError *err) {
        char *field = (char *)config + k->offset;
        int r;

        switch (k->type) {
        case CONF_INT: {
                int64_t v;
                r = parse_int64(value, k->min, k->max, &v);
                if (r == -EINVAL)
                        return conf_error_set(err, k->section, k->key,
                                              "invalid integer '%s'", value);
                if (r < 0)
                        return range_error(err, k, value);
                memcpy(field, &v, sizeof(v));
                return 0;
        }
        case CONF_DOUBLE: {
                double v;
                r = parse_double(value, k->dmin, k->dmax, &v);
                if (r == -EINVAL)
                        return conf_error_set(err, k->section, k->key,
                                              "invalid number '%s'", value);
                if (r < 0)
                        return range_error(err, k, value);
                memcpy(field, &v, sizeof(v));
                return 0;
        }
        case CONF_BOOL: {
                bool v;
                if (parse_bool(value, &v) < 0)
                        return conf_error_set(err, k->section, k->key,
                                              "invalid boolean '%s' (use yes or no)",
                                              value);
                memcpy(field, &v, sizeof(v));
                return 0;
        }
        case CONF_STRING: {
                char *old, *v;
                if (value[0] == '\0')
                        return conf_error_set(err, k->section, k->key,
                                              "empty value");
                v = strdup(value);
                if (!v)
                        return -ENOMEM;
                memcpy(&old, field, sizeof(old));
                free(old);
                memcpy(field, &v, sizeof(v));
                return 0;
        }
        case CONF_DURATION: {
                usec_t v;
                if (parse_duration(value, &v) < 0)
                        return conf_error_set(
                                err, k->section, k->key,
                                "invalid duration '%s' (e.g. 3s, 500ms, 2min)", value);
                if ((int64_t)v < k->min || (int64_t)v > k->max)
                        return range_error(err, k, value);
                memcpy(field, &v, sizeof(v));
                return 0;
        }
        case CONF_SIZE: {
                uint64_t v;
                if (parse_size(value, &v) < 0)
                        return conf_error_set(err, k->section, k->key,
                                              "invalid size '%s' (e.g. 512M, 4G)",
                                              value);
                if ((int64_t)v < k->min || (int64_t)v > k->max)
                        return range_error(err, k, value);
                memcpy(field, &v, sizeof(v));
                return 0;
        }
        case CONF_ENUM: {
                char choices[160] = "";
                size_t used = 0;
                for (int i = 0; k->choices[i]; i++)
                        if (strcmp(k->choices[i], value) == 0) {
                                memcpy(field, &i, sizeof(i));
                                return 0;
                        }
                for (int i = 0; k->choices[i] && used < sizeof(choices); i++)
                        used += (size_t)snprintf(choices + used, sizeof(choices) - used,
                                                 "%s%s", i ? ", " : "", k->choices[i]);
                return conf_error_set(err, k->section, k->key,
                                      "invalid value '%s' (one of: %s)", value, choices);
        }
        }
        return conf_error_set(err, k->section, k->key, "unsupported key type");
}

/* inih handler: returns 1 to go on, 0 to stop with an error on this line. */
static int handle_ini_entry(void *user, const char *section, const char *key,
                       const char *value) {
        ParseState *st = user;
        const ConfKey *k = schema_find(st->schema, section, key);
        int r;

        if (!k) {
                if (section[0] == '\0')
                        conf_error_set(st->err, NULL, key,
                                       "key outside any [section]");
                else if (!schema_has_section(st->schema, section))
                        conf_error_set(st->err, section, NULL, "unknown section");
                else
                        conf_error_set(st->err, section, key, "unknown key");
                st->failed = true;
                return 0;
        }
        if (st->seen[k - st->schema->keys]) {
                conf_error_set(st->err, section, key, "set more than once");
                st->failed = true;
                return 0;
        }
        st->seen[k - st->schema->keys] = true;

        r = conf_set_value(k, value ? value : "", st->config, st->err);
        if (r < 0) {
                if (r == -ENOMEM)
                        conf_error_set(st->err, section, key, "out of memory");
                st->failed = true;
                return 0;
        }
        return 1;
}

static int apply_defaults(const ConfSchema *schema, void *config, ConfError *err) {
        for (size_t i = 0; i < schema->n_keys; i++) {
                const ConfKey *k = &schema->keys[i];
                int r;

                if (!k->default_value)
                        continue;
                r = conf_set_value(k, k->default_value, config, err);
                if (r < 0) {
                        /* A bad default is a programming error; say so. */
                        char detail[CONF_ERROR_TEXT_MAX];
                        copy_text(detail, sizeof(detail), err->message);
                        snprintf(err->message, sizeof(err->message),
                                 "built-in default: %.200s", detail);
                        return r;
                }
        }
        return 0;
}

/* Swaps a fully built scratch configuration into place. */
static void commit(const ConfSchema *schema, void *config, void *scratch) {
        conf_free(schema, config);
        memcpy(config, scratch, schema->size);
}

static int finish(const ConfSchema *schema, void *scratch, const bool *seen,
                  ConfError *err) {
        for (size_t i = 0; i < schema->n_keys; i++)
                if (schema->keys[i].required && !(seen && seen[i]))
                        return conf_error_set(err, schema->keys[i].section,
                                              schema->keys[i].key,
                                              "required key is missing");
        if (schema->validate)
                return schema->validate(scratch, err);
        return 0;
}

int conf_load_defaults(const ConfSchema *schema, void *config, ConfError *err) {
        void *scratch = calloc(1, schema->size);
        int r;

        if (!scratch)
                return -ENOMEM;
        memset(err, 0, sizeof(*err));
        r = apply_defaults(schema, scratch, err);
        if (r >= 0)
                r = finish(schema, scratch, NULL, err);
        if (r < 0) {
                conf_free(schema, scratch);
                free(scratch);
                return r;
        }
        commit(schema, config, scratch);
        free(scratch);
        return 0;
}

static void configure_inih(void) {
        /* Debian's libinih keeps its settings in globals. Continuation lines
         * would silently append to the previous key, and long lines would be
         * cut at 200 characters; we want neither. */
        ini_allow_multiline = false;
        ini_use_stack = false;
        ini_allow_realloc = true;
        ini_max_line = CONF_LINE_MAX;
        ini_stop_on_first_error = true;
}

int conf_load_string(const ConfSchema *schema, const char *name, const char *text,
                     void *config, ConfError *err) {
        _cleanup_free_ bool *seen = NULL;
        ParseState st;
        void *scratch;
        int r, line;

        memset(err, 0, sizeof(*err));
        copy_text(err->file, sizeof(err->file), name);
        scratch = calloc(1, schema->size);
        seen = calloc(schema->n_keys ? schema->n_keys : 1, sizeof(bool));
        if (!scratch || !seen) {
                free(scratch);
                return -ENOMEM;
        }

        r = apply_defaults(schema, scratch, err);
        if (r < 0)
                goto fail;

        configure_inih();
        st = (ParseState){ .schema = schema, .config = scratch, .seen = seen, .err = err };
        line = ini_parse_string(text, handle_ini_entry, &st);
        if (line == -2) {
                r = -ENOMEM;
                conf_error_set(err, NULL, NULL, "out of memory");
                goto fail;
        }
        if (line != 0) {
                err->line = (unsigned)line;
                if (!st.failed)
                        conf_error_set(err, NULL, NULL,
                                       "syntax error (expected [section] or key = value)");
                r = -EINVAL;
                goto fail;
        }

        r = finish(schema, scratch, seen, err);
        if (r < 0)
                goto fail;
        commit(schema, config, scratch);
        free(scratch);
        return 0;

fail:
        conf_free(schema, scratch);
        free(scratch);
        return r;
}

static int read_small_file(const char *path, char **ret_text, ConfError *err) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *text = NULL;
        struct stat st;
        size_t used = 0;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0 || fstat(fd, &st) < 0) {
                int r = negative_errno();
                conf_error_set(err, NULL, NULL, "cannot read: %s", strerror(-r));
                return r;
        }
        if (!S_ISREG(st.st_mode)) {
                conf_error_set(err, NULL, NULL, "not a regular file");
                return -EINVAL;
        }
        if (st.st_size > CONF_FILE_MAX) {
                conf_error_set(err, NULL, NULL, "larger than %d bytes", CONF_FILE_MAX);
                return -EFBIG;
        }
        text = malloc((size_t)st.st_size + 1);
        if (!text)
                return -ENOMEM;
        while (used < (size_t)st.st_size) {
                ssize_t n = read(fd, text + used, (size_t)st.st_size - used);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        int r = negative_errno();
                        conf_error_set(err, NULL, NULL, "cannot read: %s", strerror(-r));
                        return r;
                }
                if (n == 0)
                        break;
                used += (size_t)n;
        }
        if (memchr(text, '\0', used)) {
                conf_error_set(err, NULL, NULL, "contains a NUL byte");
                return -EINVAL;
        }
        text[used] = '\0';
        *ret_text = TAKE_PTR(text);
        return 0;
}

int conf_load_file(const ConfSchema *schema, const char *path, void *config,
                   ConfError *err) {
        _cleanup_free_ char *text = NULL;
        int r;

        memset(err, 0, sizeof(*err));
        copy_text(err->file, sizeof(err->file), path);
        r = read_small_file(path, &text, err);
        if (r < 0)
                return r;
        return conf_load_string(schema, path, text, config, err);
}

void conf_free(const ConfSchema *schema, void *config) {
        for (size_t i = 0; i < schema->n_keys; i++)
                if (schema->keys[i].type == CONF_STRING) {
                        char *s;
                        memcpy(&s, (char *)config + schema->keys[i].offset, sizeof(s));
                        free(s);
                }
        memset(config, 0, schema->size);
}

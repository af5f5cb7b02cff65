/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <ctype.h>
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

/* What set a key: a line of the file, or an assignment (where names it);
 * neither for a default. */
typedef struct KeyOrigin {
        unsigned line;
        const char *where;
} KeyOrigin;

typedef struct ParseState {
        const ConfSchema *schema;
        void *config;
        KeyOrigin *origins;
        ConfError *err;
        bool failed;
        /* The reader's place in the text: what inih reads next and the
         * line it is on (the line of the key the handler gets). */
        const char *next;
        unsigned line;
        bool at_line_start;
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

static bool key_is_set(const KeyOrigin *o) {
        return o->line > 0 || o->where;
}

/* The schema's key, or NULL with err saying what is wrong with the name. */
static const ConfKey *lookup_key(const ConfSchema *schema, const char *section, const char *key,
                                 ConfError *err) {
        const ConfKey *k = schema_find(schema, section, key);

        if (k)
                return k;
        if (section[0] == '\0')
                conf_error_set(err, NULL, key, "key outside any [section]");
        else if (!schema_has_section(schema, section))
                conf_error_set(err, section, NULL, "unknown section");
        else
                conf_error_set(err, section, key, "unknown key");
        return NULL;
}

static int set_key(ParseState *st, const ConfKey *k, const char *value, KeyOrigin origin) {
        int r = conf_set_value(k, value, st->config, st->err);

        if (r == -ENOMEM)
                conf_error_set(st->err, k->section, k->key, "out of memory");
        if (r < 0)
                return r;
        st->origins[k - st->schema->keys] = origin;
        return 0;
}

/* inih handler: returns 1 to go on, 0 to stop with an error on this line. */
static int handle_ini_entry(void *user, const char *section, const char *key,
                       const char *value) {
        ParseState *st = user;
        const ConfKey *k = lookup_key(st->schema, section, key, st->err);

        if (k && key_is_set(&st->origins[k - st->schema->keys]))
                conf_error_set(st->err, section, key, "set more than once");
        else if (k && set_key(st, k, value ? value : "", (KeyOrigin){ .line = st->line }) >= 0)
                return 1;
        st->err->line = st->line;
        st->failed = true;
        return 0;
}

/* An empty section has no key for the handler to see (Debian's libinih is
 * built without INI_CALL_HANDLER_ON_NEW_SECTION), so the reader checks each
 * [section] header, found by inih's own rules: after a byte order mark on
 * the first line and blanks, up to the first ']' unless an inline comment
 * comes first (a line inih then refuses itself). */
static int check_section_header(ParseState *st, const char *p, const char *eol) {
        char name[sizeof(st->err->section)];
        const char *end;
        bool was_space = false;
        size_t len;

        if (st->line == 1 && ini_allow_bom && eol - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
                p += 3;
        while (p < eol && isspace((unsigned char)*p))
                p++;
        if (p == eol || *p != '[')
                return 0;
        for (end = p + 1; end < eol && *end != ']'; end++) {
                if (was_space && ini_allow_inline_comments &&
                    strchr(ini_inline_comment_prefixes, *end))
                        return 0;
                was_space = isspace((unsigned char)*end);
        }
        if (end == eol)
                return 0;
        len = (size_t)(end - p - 1);
        snprintf(name, sizeof(name), "%.*s", (int)len, p + 1);
        if (len == 0)
                conf_error_set(st->err, NULL, NULL, "empty section name []");
        else if (len < sizeof(name) && schema_has_section(st->schema, name))
                return 0;
        else
                conf_error_set(st->err, name, NULL, "unknown section");
        st->err->line = st->line;
        st->failed = true;
        return -EINVAL;
}

/* inih's line reader, fgets() over the text, counting lines on the way. */
static char *read_text(char *buf, int size, void *stream) {
        ParseState *st = stream;
        const char *eol = strchrnul(st->next, '\n');
        size_t n;

        if (st->failed || *st->next == '\0' || size < 2)
                return NULL;
        if (st->at_line_start) {
                st->line++;
                if (check_section_header(st, st->next, eol) < 0)
                        return NULL;
        }
        n = MIN((size_t)(eol - st->next) + (*eol == '\n'), (size_t)size - 1);
        memcpy(buf, st->next, n);
        buf[n] = '\0';
        st->next += n;
        st->at_line_start = buf[n - 1] == '\n';
        return buf;
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

/* Points a cross-field error at what set the key it names. */
static void blame_origin(const ConfSchema *schema, const KeyOrigin *origins, ConfError *err) {
        const ConfKey *k = schema_find(schema, err->section, err->key);
        const KeyOrigin *o = k ? &origins[k - schema->keys] : NULL;

        if (!o || err->line > 0)
                return;
        if (o->where)
                copy_text(err->file, sizeof(err->file), o->where);
        else
                err->line = o->line;
}

static int finish(const ConfSchema *schema, void *scratch, const KeyOrigin *origins,
                  ConfError *err) {
        int r;

        for (size_t i = 0; i < schema->n_keys; i++)
                if (schema->keys[i].required && !(origins && key_is_set(&origins[i])))
                        return conf_error_set(err, schema->keys[i].section,
                                              schema->keys[i].key,
                                              "required key is missing");
        if (!schema->validate)
                return 0;
        r = schema->validate(scratch, err);
        if (r < 0 && origins)
                blame_origin(schema, origins, err);
        return r;
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

static int apply_assignment(ParseState *st, const ConfAssignment *a) {
        const ConfKey *k = lookup_key(st->schema, a->section, a->key, st->err);
        int r = k ? set_key(st, k, a->value, (KeyOrigin){ .where = a->where }) : -EINVAL;

        if (r < 0)
                copy_text(st->err->file, sizeof(st->err->file), a->where);
        return r;
}

int conf_load_string_with(const ConfSchema *schema, const char *name, const char *text,
                          const ConfAssignment *assignments, size_t n_assignments, void *config,
                          bool *ret_set, ConfError *err) {
        _cleanup_free_ KeyOrigin *origins = NULL;
        ParseState st;
        void *scratch;
        int r, line;

        memset(err, 0, sizeof(*err));
        copy_text(err->file, sizeof(err->file), name);
        scratch = calloc(1, schema->size);
        origins = calloc(schema->n_keys ? schema->n_keys : 1, sizeof(KeyOrigin));
        if (!scratch || !origins) {
                free(scratch);
                return -ENOMEM;
        }

        r = apply_defaults(schema, scratch, err);
        if (r < 0)
                goto fail;

        configure_inih();
        st = (ParseState){ .schema = schema,
                           .config = scratch,
                           .origins = origins,
                           .err = err,
                           .next = text,
                           .at_line_start = true };
        line = ini_parse_stream(read_text, &st, handle_ini_entry, &st);
        if (line == -2) {
                r = -ENOMEM;
                conf_error_set(err, NULL, NULL, "out of memory");
                goto fail;
        }
        if (st.failed || line != 0) {
                if (!st.failed) {
                        err->line = (unsigned)line;
                        conf_error_set(err, NULL, NULL,
                                       "syntax error (expected [section] or key = value)");
                }
                r = -EINVAL;
                goto fail;
        }
        for (size_t i = 0; i < n_assignments; i++) {
                r = apply_assignment(&st, &assignments[i]);
                if (r < 0)
                        goto fail;
        }

        r = finish(schema, scratch, origins, err);
        if (r < 0)
                goto fail;
        commit(schema, config, scratch);
        free(scratch);
        if (ret_set)
                for (size_t i = 0; i < schema->n_keys; i++)
                        ret_set[i] = key_is_set(&origins[i]);
        return 0;

fail:
        conf_free(schema, scratch);
        free(scratch);
        return r;
}

int conf_load_string(const ConfSchema *schema, const char *name, const char *text, void *config,
                     ConfError *err) {
        return conf_load_string_with(schema, name, text, NULL, 0, config, NULL, err);
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

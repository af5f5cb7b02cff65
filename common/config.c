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

/* One part of a load: its schema, the scratch struct it fills and what set
 * each of its keys. */
typedef struct PartState {
        const ConfSchema *schema;
        void *scratch;
        KeyOrigin *origins;
        int (*check)(const void *config, ConfError *err);
} PartState;

/* A key of one of the parts. */
typedef struct KeyRef {
        PartState *part;
        const ConfKey *key;
} KeyRef;

typedef struct ParseState {
        PartState *parts;
        size_t n_parts;
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

int conf_error_set(ConfError *err, const char *section, const char *key, const char *fmt, ...) {
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

static const ConfKey *schema_find(const ConfSchema *schema, const char *section, const char *key) {
        for (size_t i = 0; i < schema->n_keys; i++)
                if (strcmp(schema->keys[i].section, section) == 0 &&
                    strcmp(schema->keys[i].key, key) == 0)
                        return &schema->keys[i];
        return NULL;
}

static bool parts_have_section(const PartState *parts, size_t n_parts, const char *section) {
        for (size_t p = 0; p < n_parts; p++)
                for (size_t i = 0; i < parts[p].schema->n_keys; i++)
                        if (strcmp(parts[p].schema->keys[i].section, section) == 0)
                                return true;
        return false;
}

static KeyRef parts_find(PartState *parts, size_t n_parts, const char *section, const char *key) {
        for (size_t p = 0; p < n_parts; p++) {
                const ConfKey *k = schema_find(parts[p].schema, section, key);

                if (k)
                        return (KeyRef){ .part = &parts[p], .key = k };
        }
        return (KeyRef){ 0 };
}

char *conf_key_range(const ConfKey *k, char *buf, size_t size) {
        char lo[MAX(FORMAT_DURATION_MAX, FORMAT_SIZE_MAX)], hi[sizeof(lo)];

        switch (k->type) {
        case CONF_DOUBLE:
                snprintf(buf, size, "[%g, %g]", k->dmin, k->dmax);
                return buf;
        case CONF_DURATION:
                format_duration(lo, sizeof(lo), (usec_t)k->min);
                format_duration(hi, sizeof(hi), (usec_t)k->max);
                break;
        case CONF_SIZE:
                format_size(lo, sizeof(lo), (uint64_t)k->min);
                format_size(hi, sizeof(hi), (uint64_t)k->max);
                break;
        case CONF_INT:
                snprintf(lo, sizeof(lo), "%" PRId64, k->min);
                snprintf(hi, sizeof(hi), "%" PRId64, k->max);
                break;
        case CONF_ENUM: {
                size_t used = (size_t)snprintf(buf, size, "%s", "one of");
                for (int i = 0; k->choices[i] && used < size; i++)
                        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : ": ",
                                                 k->choices[i]);
                return buf;
        }
        case CONF_BOOL:
        case CONF_STRING:
                snprintf(buf, size, "%s", "");
                return buf;
        }
        snprintf(buf, size, "[%s, %s]", lo, hi);
        return buf;
}

static int range_error(ConfError *err, const ConfKey *k, const char *value) {
        char range[CONF_RANGE_MAX];

        return conf_error_set(err, k->section, k->key, "value '%s' out of range %s", value,
                              conf_key_range(k, range, sizeof(range)));
}

/* Parses value for key k and stores it into config. */
static int conf_set_value(const ConfKey *k, const char *value, void *config, ConfError *err) {
        char *field = (char *)config + k->offset;
        int r;

        switch (k->type) {
        case CONF_INT: {
                int64_t v;
                r = parse_int64(value, k->min, k->max, &v);
                if (r == -EINVAL)
                        return conf_error_set(err, k->section, k->key, "invalid integer '%s'",
                                              value);
                if (r < 0)
                        return range_error(err, k, value);
                memcpy(field, &v, sizeof(v));
                return 0;
        }
        case CONF_DOUBLE: {
                double v;
                r = parse_double(value, k->dmin, k->dmax, &v);
                if (r == -EINVAL)
                        return conf_error_set(err, k->section, k->key, "invalid number '%s'",
                                              value);
                if (r < 0)
                        return range_error(err, k, value);
                memcpy(field, &v, sizeof(v));
                return 0;
        }
        case CONF_BOOL: {
                bool v;
                if (parse_bool(value, &v) < 0)
                        return conf_error_set(err, k->section, k->key,
                                              "invalid boolean '%s' (use yes or no)", value);
                memcpy(field, &v, sizeof(v));
                return 0;
        }
        case CONF_STRING: {
                char *old, *v;
                if (value[0] == '\0')
                        return conf_error_set(err, k->section, k->key, "empty value");
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
                        return conf_error_set(err, k->section, k->key,
                                              "invalid duration '%s' (e.g. 3s, 500ms, 2min)",
                                              value);
                if ((int64_t)v < k->min || (int64_t)v > k->max)
                        return range_error(err, k, value);
                memcpy(field, &v, sizeof(v));
                return 0;
        }
        case CONF_SIZE: {
                uint64_t v;
                if (parse_size(value, &v) < 0)
                        return conf_error_set(err, k->section, k->key,
                                              "invalid size '%s' (e.g. 512M, 4G)", value);
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
                        used += (size_t)snprintf(choices + used, sizeof(choices) - used, "%s%s",
                                                 i ? ", " : "", k->choices[i]);
                return conf_error_set(err, k->section, k->key, "invalid value '%s' (one of: %s)",
                                      value, choices);
        }
        }
        return conf_error_set(err, k->section, k->key, "unsupported key type");
}

static bool key_is_set(const KeyOrigin *o) {
        return o->line > 0 || o->where;
}

/* A part's key, or none (part NULL) with err saying what is wrong with
 * the name. */
static KeyRef lookup_key(ParseState *st, const char *section, const char *key) {
        KeyRef k = parts_find(st->parts, st->n_parts, section, key);

        if (k.part)
                return k;
        if (section[0] == '\0')
                conf_error_set(st->err, NULL, key, "key outside any [section]");
        else if (!parts_have_section(st->parts, st->n_parts, section))
                conf_error_set(st->err, section, NULL, "unknown section");
        else
                conf_error_set(st->err, section, key, "unknown key");
        return k;
}

static KeyOrigin *key_origin(KeyRef k) {
        return &k.part->origins[k.key - k.part->schema->keys];
}

static int set_key(ParseState *st, KeyRef k, const char *value, KeyOrigin origin) {
        int r = conf_set_value(k.key, value, k.part->scratch, st->err);

        if (r == -ENOMEM)
                conf_error_set(st->err, k.key->section, k.key->key, "out of memory");
        if (r < 0)
                return r;
        *key_origin(k) = origin;
        return 0;
}

/* inih handler: returns 1 to go on, 0 to stop with an error on this line. */
static int handle_ini_entry(void *user, const char *section, const char *key, const char *value) {
        ParseState *st = user;
        KeyRef k = lookup_key(st, section, key);

        if (k.part && key_is_set(key_origin(k)))
                conf_error_set(st->err, section, key, "set more than once");
        else if (k.part && set_key(st, k, value ? value : "", (KeyOrigin){ .line = st->line }) >= 0)
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
        else if (len < sizeof(name) && parts_have_section(st->parts, st->n_parts, name))
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
                        snprintf(err->message, sizeof(err->message), "built-in default: %.200s",
                                 detail);
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
static void blame_origin(PartState *parts, size_t n_parts, ConfError *err) {
        KeyRef k = parts_find(parts, n_parts, err->section, err->key);
        const KeyOrigin *o = k.part ? key_origin(k) : NULL;

        if (!o || err->line > 0)
                return;
        if (o->where)
                copy_text(err->file, sizeof(err->file), o->where);
        else
                err->line = o->line;
}

/* Required keys and validate of one part; origins NULL for defaults alone. */
static int finish(const ConfSchema *schema, const void *scratch, const KeyOrigin *origins,
                  ConfError *err) {
        for (size_t i = 0; i < schema->n_keys; i++)
                if (schema->keys[i].required && !(origins && key_is_set(&origins[i])))
                        return conf_error_set(err, schema->keys[i].section, schema->keys[i].key,
                                              "required key is missing");
        return schema->validate ? schema->validate(scratch, err) : 0;
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
        KeyRef k = lookup_key(st, a->section, a->key);
        int r = k.part ? set_key(st, k, a->value, (KeyOrigin){ .where = a->where }) : -EINVAL;

        if (r < 0)
                copy_text(st->err->file, sizeof(st->err->file), a->where);
        return r;
}

/* A key in two parts would go to the first one alone. */
static int check_parts_disjoint(const ConfPart *parts, size_t n_parts, ConfError *err) {
        for (size_t p = 0; p < n_parts; p++)
                for (size_t i = 0; i < parts[p].schema->n_keys; i++)
                        for (size_t q = p + 1; q < n_parts; q++) {
                                const ConfKey *k = &parts[p].schema->keys[i];

                                if (schema_find(parts[q].schema, k->section, k->key))
                                        return conf_error_set(err, k->section, k->key,
                                                              "declared by two schemas");
                        }
        return 0;
}

static void parts_free(PartState *parts, size_t n_parts) {
        for (size_t p = 0; p < n_parts; p++) {
                if (parts[p].scratch)
                        conf_free(parts[p].schema, parts[p].scratch);
                free(parts[p].scratch);
                free(parts[p].origins);
        }
        free(parts);
}

static int parse_text(ParseState *st, const char *text, const ConfAssignment *assignments,
                      size_t n_assignments) {
        int line;

        configure_inih();
        st->next = text;
        st->at_line_start = true;
        line = ini_parse_stream(read_text, st, handle_ini_entry, st);
        if (line == -2) {
                conf_error_set(st->err, NULL, NULL, "out of memory");
                return -ENOMEM;
        }
        if (st->failed || line != 0) {
                if (!st->failed) {
                        st->err->line = (unsigned)line;
                        conf_error_set(st->err, NULL, NULL,
                                       "syntax error (expected [section] or key = value)");
                }
                return -EINVAL;
        }
        for (size_t i = 0; i < n_assignments; i++) {
                int r = apply_assignment(st, &assignments[i]);

                if (r < 0)
                        return r;
        }
        for (size_t p = 0; p < st->n_parts; p++) {
                const PartState *part = &st->parts[p];
                int r = finish(part->schema, part->scratch, part->origins, st->err);

                if (r >= 0 && part->check)
                        r = part->check(part->scratch, st->err);
                if (r < 0) {
                        blame_origin(st->parts, st->n_parts, st->err);
                        return r;
                }
        }
        return 0;
}

int conf_load_parts(const ConfPart *parts, size_t n_parts, const char *name, const char *text,
                    const ConfAssignment *assignments, size_t n_assignments, ConfError *err) {
        ParseState st = { .n_parts = n_parts, .err = err };
        int r;

        memset(err, 0, sizeof(*err));
        copy_text(err->file, sizeof(err->file), name);
        r = check_parts_disjoint(parts, n_parts, err);
        if (r < 0)
                return r;
        st.parts = calloc(MAX(n_parts, (size_t)1), sizeof(PartState));
        if (!st.parts)
                return -ENOMEM;
        for (size_t p = 0; p < n_parts; p++) {
                const ConfSchema *schema = parts[p].schema;

                size_t n_keys = MAX(schema->n_keys, (size_t)1);

                st.parts[p] = (PartState){
                        .schema = schema,
                        .scratch = calloc(1, schema->size),
                        .origins = calloc(n_keys, sizeof(KeyOrigin)),
                        .check = parts[p].check,
                };
                if (!st.parts[p].scratch || !st.parts[p].origins) {
                        parts_free(st.parts, n_parts);
                        return -ENOMEM;
                }
                r = apply_defaults(schema, st.parts[p].scratch, err);
                if (r < 0) {
                        parts_free(st.parts, n_parts);
                        return r;
                }
        }
        r = parse_text(&st, text, assignments, n_assignments);
        if (r < 0) {
                parts_free(st.parts, n_parts);
                return r;
        }
        for (size_t p = 0; p < n_parts; p++) {
                PartState *part = &st.parts[p];

                commit(part->schema, parts[p].config, part->scratch);
                free(TAKE_PTR(part->scratch));
                for (size_t i = 0; parts[p].ret_set && i < part->schema->n_keys; i++)
                        parts[p].ret_set[i] = key_is_set(&part->origins[i]);
        }
        parts_free(st.parts, n_parts);
        return 0;
}

int conf_load_string_with(const ConfSchema *schema, const char *name, const char *text,
                          const ConfAssignment *assignments, size_t n_assignments, void *config,
                          bool *ret_set, ConfError *err) {
        const ConfPart part = { .schema = schema, .config = config, .ret_set = ret_set };

        return conf_load_parts(&part, 1, name, text, assignments, n_assignments, err);
}

int conf_load_string(const ConfSchema *schema, const char *name, const char *text, void *config,
                     ConfError *err) {
        return conf_load_string_with(schema, name, text, NULL, 0, config, NULL, err);
}

static int read_config_text(const char *path, char **ret_text, ConfError *err) {
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

int conf_load_file_parts(const ConfPart *parts, size_t n_parts, const char *path, ConfError *err) {
        _cleanup_free_ char *text = NULL;
        int r;

        memset(err, 0, sizeof(*err));
        copy_text(err->file, sizeof(err->file), path);
        r = read_config_text(path, &text, err);
        if (r < 0)
                return r;
        return conf_load_parts(parts, n_parts, path, text, NULL, 0, err);
}

int conf_load_file(const ConfSchema *schema, const char *path, void *config, ConfError *err) {
        const ConfPart part = { .schema = schema, .config = config };

        return conf_load_file_parts(&part, 1, path, err);
}

/* A key's value in config, written as the file would write it, if it is
 * outside the key's range. */
static bool value_out_of_range(const ConfKey *k, const void *config, char *buf, size_t size) {
        const char *field = (const char *)config + k->offset;

        switch (k->type) {
        case CONF_INT: {
                int64_t v;
                memcpy(&v, field, sizeof(v));
                snprintf(buf, size, "%" PRId64, v);
                return v < k->min || v > k->max;
        }
        case CONF_DOUBLE: {
                double v;
                memcpy(&v, field, sizeof(v));
                snprintf(buf, size, "%g", v);
                return !(v >= k->dmin && v <= k->dmax);
        }
        case CONF_DURATION: {
                usec_t v;
                memcpy(&v, field, sizeof(v));
                format_duration(buf, size, v);
                return v > (usec_t)INT64_MAX || (int64_t)v < k->min || (int64_t)v > k->max;
        }
        case CONF_SIZE: {
                uint64_t v;
                memcpy(&v, field, sizeof(v));
                format_size(buf, size, v);
                return v > (uint64_t)INT64_MAX || (int64_t)v < k->min || (int64_t)v > k->max;
        }
        case CONF_ENUM: {
                int v, n = 0;
                memcpy(&v, field, sizeof(v));
                while (k->choices[n])
                        n++;
                snprintf(buf, size, "%d", v);
                return v < 0 || v >= n;
        }
        case CONF_BOOL:
        case CONF_STRING:
                return false;
        }
        return false;
}

int conf_check(const ConfSchema *schema, const void *config, ConfError *err) {
        memset(err, 0, sizeof(*err));
        for (size_t i = 0; i < schema->n_keys; i++) {
                const ConfKey *k = &schema->keys[i];
                char value[MAX(FORMAT_DURATION_MAX, FORMAT_SIZE_MAX)];

                if (!value_out_of_range(k, config, value, sizeof(value)))
                        continue;
                if (k->type == CONF_ENUM)
                        return conf_error_set(err, k->section, k->key, "invalid choice %s", value);
                return range_error(err, k, value);
        }
        return schema->validate ? schema->validate(config, err) : 0;
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

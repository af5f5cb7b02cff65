/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A configuration is a plain struct described by a schema table: one ConfKey
 * per (section, key) with its type, default and range. Loading applies the
 * defaults, then the file, then the schema's cross-field check, into a
 * scratch copy; the caller's struct changes only when all of it succeeded. */

typedef enum ConfType {
        CONF_INT,      /* int64_t, range [min, max] */
        CONF_DOUBLE,   /* double, range [dmin, dmax] */
        CONF_BOOL,     /* bool */
        CONF_STRING,   /* char *, owned; freed by conf_free() */
        CONF_DURATION, /* usec_t; "3s", "500ms"; range [min, max] in usec */
        CONF_SIZE,     /* uint64_t bytes; "4G", "512M"; range [min, max] */
        CONF_ENUM,     /* int: index into choices */
} ConfType;

typedef struct ConfKey {
        const char *section;
        const char *key;
        ConfType type;
        size_t offset;
        /* Parsed like a value from the file; NULL for a required key or a
         * string that may stay unset (NULL). */
        const char *default_value;
        bool required;
        int64_t min, max;           /* CONF_INT, CONF_DURATION, CONF_SIZE */
        double dmin, dmax;          /* CONF_DOUBLE */
        const char *const *choices; /* CONF_ENUM, NULL-terminated */
        /* What the key means, in a sentence, for listings of the keys
         * (flexslot-sim settings); NULL for keys that none lists. */
        const char *doc;
} ConfKey;

#define CONF_ERROR_TEXT_MAX 256

typedef struct ConfError {
        char file[CONF_ERROR_TEXT_MAX];
        unsigned line; /* 0 when the error has no single line */
        char section[64];
        char key[64];
        char message[CONF_ERROR_TEXT_MAX];
} ConfError;

typedef struct ConfSchema {
        const ConfKey *keys;
        size_t n_keys;
        size_t size; /* sizeof the configuration struct */
        /* Cross-field check on the complete struct; fills err (line 0: the
         * loader adds the line of the key it names) and returns a negative
         * errno to refuse the configuration. May be NULL. */
        int (*validate)(const void *config, ConfError *err);
} ConfSchema;

/* Fills *config with the defaults alone (and runs validate). */
int conf_load_defaults(const ConfSchema *schema, void *config, ConfError *err);
/* Defaults, then the file. *config must be zeroed or hold an earlier loaded
 * configuration, which is freed and replaced only on success. */
int conf_load_file(const ConfSchema *schema, const char *path, void *config, ConfError *err);
/* Same, from text; name is used in error messages in place of a file name. */
int conf_load_string(const ConfSchema *schema, const char *name, const char *text, void *config,
                     ConfError *err);

/* A key = value from outside the file, such as a command line's --set. */
typedef struct ConfAssignment {
        const char *section, *key, *value;
        const char *where; /* names it in errors in place of file:line */
} ConfAssignment;

/* conf_load_string(), then the assignments in order, each replacing what the
 * file or an earlier assignment set. ret_set (NULL, or n_keys entries) gets
 * whether the file or an assignment set each key: what a default cannot
 * tell. An error a key's value causes, its own or a cross-field one, names
 * the file's line or the assignment that set it. */
int conf_load_string_with(const ConfSchema *schema, const char *name, const char *text,
                          const ConfAssignment *assignments, size_t n_assignments, void *config,
                          bool *ret_set, ConfError *err);
/* One configuration of several structs, each described by its own schema:
 * a program's own keys and those of the policy layers it runs, say. A key
 * belongs to the part whose schema has it (no two may), and each part's
 * validate checks its own struct. */
typedef struct ConfPart {
        const ConfSchema *schema;
        /* Zeroed or an earlier load's; every part is replaced only when all
         * of them loaded. */
        void *config;
        bool *ret_set; /* NULL, or schema->n_keys entries: as conf_load_string_with() */
        /* NULL, or a check of this load's besides the schema's validate,
         * run after it and reported the same way (the line of the key it
         * names): what a daemon about to start checks of the machine, its
         * files and directories, which a test of the text would not. */
        int (*check)(const void *config, ConfError *err);
} ConfPart;

/* conf_load_string_with() over several parts: -EINVAL also when two parts
 * have the same key (a programming error, said so in err). */
int conf_load_parts(const ConfPart *parts, size_t n_parts, const char *name, const char *text,
                    const ConfAssignment *assignments, size_t n_assignments, ConfError *err);

/* conf_load_file() over several parts (conf_load_parts()). */
int conf_load_file_parts(const ConfPart *parts, size_t n_parts, const char *path, ConfError *err);

/* Whether a struct filled in code, not loaded, is one a load could give:
 * every key's value in its range (said in the file's units, as a load's
 * error says it), then validate. -EINVAL with err naming the key. */
int conf_check(const ConfSchema *schema, const void *config, ConfError *err);

/* A numeric key's range as the file writes it ("[100ms, 1h]", "[0, 1]"),
 * an enum's choices ("one of: a, b"), empty for other keys; buf of
 * CONF_RANGE_MAX holds any range whole. */
#define CONF_RANGE_MAX 80
char *conf_key_range(const ConfKey *k, char *buf, size_t size);

/* Frees the strings a load allocated and zeroes the struct. */
void conf_free(const ConfSchema *schema, void *config);

/* "file:line: [section] key: message", omitting the parts that are unset. */
void conf_error_format(const ConfError *err, char *buf, size_t size);
/* Helper for validate callbacks. */
int conf_error_set(ConfError *err, const char *section, const char *key, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

#define CONF_FIELD(type, member) offsetof(type, member)

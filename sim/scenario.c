/* SPDX-License-Identifier: MIT */
#include "scenario.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"

#define F(m) CONF_FIELD(Scenario, m)
#define GB (1024LL * 1024 * 1024)
#define MB (1024LL * 1024)
#define INT(sec, k, m, def, lo, hi) { sec, k, CONF_INT, F(m), def, .min = lo, .max = hi }
#define SIZE(sec, k, m, def, lo, hi) { sec, k, CONF_SIZE, F(m), def, .min = lo, .max = hi }
#define DBL(sec, k, m, def, lo, hi) { sec, k, CONF_DOUBLE, F(m), def, .dmin = lo, .dmax = hi }
#define DUR(sec, k, m, def, lo, hi) { sec, k, CONF_DURATION, F(m), def, .min = lo, .max = hi }
#define STR(sec, k, m, def) { sec, k, CONF_STRING, F(m), def }
#define BOOL(sec, k, m, def) { sec, k, CONF_BOOL, F(m), def }

/* Defaults are the FlexSlot testbed (Section V-A). */
static const ConfKey keys[] = {
        INT("cluster", "hosts", hosts, "8", 1, 10000),
        INT("cluster", "host_cpus", host_cpus, "8", 1, 1024),
        SIZE("cluster", "host_memory", host_memory, "64G", 64 * MB, 64 * 1024 * GB),
        SIZE("cluster", "host_disk_bandwidth", host_disk_bw, "160M", 1 * MB, 1024 * GB),
        SIZE("cluster", "stream_bandwidth", stream_bw, "60M", 1 * MB, 1024 * GB),
        INT("cluster", "vms", vms, "32", 1, 100000),
        INT("cluster", "masters", masters, "2", 0, 100000),
        INT("cluster", "vm_vcpus", vm_vcpus, "4", 1, 256),
        INT("cluster", "vm_vcpus_max", vm_vcpus_max, "8", 1, 256),
        SIZE("cluster", "vm_memory_max", vm_memory_max, "8G", 64 * MB, 4096 * GB),
        SIZE("cluster", "vm_memory", vm_memory, "4G", 64 * MB, 4096 * GB),
        SIZE("cluster", "vm_os_memory", vm_os_memory, "512M", 0, 4096 * GB),
        DBL("cluster", "vm_cap", vm_cap, "0", 0, 1024),
        DBL("cluster", "vm_weight", vm_weight, "1024", 1, 262144),
        DBL("cluster", "memory_penalty", memory_penalty, "2", 0, 1000),

        INT("hadoop", "map_slots", map_slots, "4", 1, 256),
        INT("hadoop", "reduce_slots", reduce_slots, "2", 0, 256),
        SIZE("hadoop", "block_size", block_size, "64M", 1 * MB, 64 * GB),
        SIZE("hadoop", "sort_buffer", sort_buffer, "100M", 1 * MB, 64 * GB),
        SIZE("hadoop", "task_heap", task_heap, "200M", 16 * MB, 64 * GB),
        SIZE("hadoop", "chunk", chunk, "16M", 64 * 1024, 64 * GB),
        DUR("hadoop", "heartbeat", heartbeat, "3s", 10000, 3600LL * 1000000),
        DUR("hadoop", "task_startup", task_startup, "1s", 0, 3600LL * 1000000),

        STR("policy", "scheduler", scheduler, "fifo"),
        STR("policy", "slot_manager", slot_manager, "static"),
        STR("policy", "speculation", speculation, "none"),
        STR("policy", "allocator", allocator, "demand"),
        DUR("policy", "control_interval", control_interval, "3s", 10000, 3600LL * 1000000),
        DUR("policy", "resize_delay", resize_delay, "1s", 0, 3600LL * 1000000),
        DBL("policy", "alpha", alpha, "0.2", 0.01, 10),
        DBL("policy", "lambda", lambda, "0.05", 0, 1e6),
        BOOL("policy", "unlimited_slots", unlimited_slots, "no"),
        BOOL("policy", "apply_vm_targets", apply_vm_targets, "yes"),
        DBL("policy", "straggler_ratio", straggler_ratio, "0.8", 0.01, 1),
        DBL("policy", "io_threshold", io_threshold, "0.2", 0, 1),
        DBL("policy", "steal_threshold", steal_threshold, "0.1", 0, 1),
        DBL("policy", "demand_headroom", demand_headroom, "1.25", 1, 10),
        DBL("policy", "reduce_slowstart", reduce_slowstart, "0.05", 0, 1),
        INT("policy", "min_map_slots", min_map_slots, "1", 0, 256),
        INT("policy", "max_map_slots", max_map_slots, "16", 1, 256),
        INT("policy", "max_moves", max_moves, "1", 0, 10000),
        DUR("policy", "settle", settle, "0", 0, 3600LL * 1000000),
        DUR("policy", "min_age", min_age, "10s", 0, 3600LL * 1000000),
        DUR("policy", "locality_delay", locality_delay, "5s", 0, 24 * 3600LL * 1000000),

        STR("workload", "file", workload_file, "../workloads/puma.csv"),
        STR("workload", "jobs", jobs, "wordcount"),
        DBL("workload", "scale", scale, "1", 1e-6, 1000),
        INT("workload", "seed", seed, "1", 0, INT64_MAX),
        DUR("workload", "arrival_gap", arrival_gap, "0", 0, 365LL * 24 * 3600 * 1000000),

        BOOL("interference", "enabled", interference, "no"),
        STR("interference", "jobs", interference_jobs, NULL),
};

static int validate(const void *config, ConfError *err) {
        const Scenario *s = config;

        if (s->masters >= s->vms)
                return conf_error_set(err, "cluster", "masters",
                                      "%" PRId64 " masters leave no slave among %" PRId64
                                      " VMs",
                                      s->masters, s->vms);
        if (s->vm_vcpus > s->host_cpus * 64)
                return conf_error_set(err, "cluster", "vm_vcpus",
                                      "more than 64 vCPUs per host pCPU");
        if (s->vm_vcpus_max < s->vm_vcpus)
                return conf_error_set(err, "cluster", "vm_vcpus_max", "below vm_vcpus");
        if (s->vm_memory_max < s->vm_memory)
                return conf_error_set(err, "cluster", "vm_memory_max", "below vm_memory");
        if (s->vm_os_memory >= s->vm_memory)
                return conf_error_set(err, "cluster", "vm_os_memory",
                                      "the OS alone fills the VM's memory");
        if (s->sort_buffer >= s->task_heap)
                return conf_error_set(err, "hadoop", "sort_buffer",
                                      "the sort buffer must fit in the task heap");
        if (s->min_map_slots > s->max_map_slots)
                return conf_error_set(err, "policy", "min_map_slots", "above max_map_slots");
        if (s->interference && !s->interference_jobs)
                return conf_error_set(err, "interference", "jobs",
                                      "required when interference is enabled");
        return 0;
}

const ConfSchema scenario_schema = {
        .keys = keys,
        .n_keys = ELEMENTSOF(keys),
        .size = sizeof(Scenario),
        .validate = validate,
};

/* A cross-field error names a key but no line; point at the key's line when
 * the file sets it, so every error in a scenario file reads file:line. */
static unsigned find_key_line(const char *text, const char *section, const char *key) {
        bool in_section = false;
        unsigned line = 1;

        for (const char *p = text; *p; line++) {
                const char *eol = strchrnul(p, '\n');
                const char *q = p;
                size_t klen = strlen(key);

                while (q < eol && (*q == ' ' || *q == '\t'))
                        q++;
                if (*q == '[') {
                        size_t slen = strlen(section);
                        in_section = strncmp(q + 1, section, slen) == 0 && q[1 + slen] == ']';
                } else if (in_section && strncmp(q, key, klen) == 0 &&
                           (q[klen] == ' ' || q[klen] == '=' || q[klen] == '\t'))
                        return line;
                p = *eol ? eol + 1 : eol;
        }
        return 0;
}

static int load_text(const char *name, const char *text, Scenario *ret, char *err,
                     size_t err_size) {
        Scenario s = { 0 };
        ConfError e;
        int r;

        r = conf_load_string(&scenario_schema, name, text, &s, &e);
        if (r < 0) {
                if (e.line == 0 && e.key[0])
                        e.line = find_key_line(text, e.section, e.key);
                conf_error_format(&e, err, err_size);
                return r;
        }
        *ret = s;
        return 0;
}

int scenario_load_string(const char *name, const char *text, Scenario *ret, char *err,
                         size_t err_size) {
        return load_text(name, text, ret, err, err_size);
}

int scenario_load(const char *path, Scenario *ret, char *err, size_t err_size) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        _cleanup_free_ char *text = NULL, *dir_copy = NULL;
        Scenario s;
        size_t len = 0;
        int r;

        if (!f) {
                r = negative_errno();
                snprintf(err, err_size, "%s: cannot open: %s", path, strerror(-r));
                return r;
        }
        if (getdelim(&text, &len, '\0', f) < 0 && !feof(f)) {
                snprintf(err, err_size, "%s: cannot read", path);
                return -EIO;
        }
        r = load_text(path, text ? text : "", &s, err, err_size);
        if (r < 0)
                return r;
        if (s.workload_file[0] != '/') {
                char *resolved;
                dir_copy = strdup(path);
                if (!dir_copy ||
                    asprintf(&resolved, "%s/%s", dirname(dir_copy), s.workload_file) < 0) {
                        scenario_done(&s);
                        return -ENOMEM;
                }
                free(s.workload_file);
                s.workload_file = resolved;
        }
        *ret = s;
        return 0;
}

int scenario_set_string(char **field, const char *value) {
        char *copy = strdup(value);

        if (!copy)
                return -ENOMEM;
        free(*field);
        *field = copy;
        return 0;
}

void scenario_done(Scenario *s) {
        conf_free(&scenario_schema, s);
}

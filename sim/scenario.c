/* SPDX-License-Identifier: MIT */
#include "scenario.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/macro.h"
#include "sim/data.h"

#define F(m) CONF_FIELD(Scenario, m)
#define GB (1024LL * 1024 * 1024)
#define MB (1024LL * 1024)
#define INT(sec, k, m, def, lo, hi) \
        { sec, k, CONF_INT, F(m), def, .min = lo, .max = hi }
#define SIZE(sec, k, m, def, lo, hi) \
        { sec, k, CONF_SIZE, F(m), def, .min = lo, .max = hi }
#define DBL(sec, k, m, def, lo, hi) \
        { sec, k, CONF_DOUBLE, F(m), def, .dmin = lo, .dmax = hi }
#define DUR(sec, k, m, def, lo, hi) \
        { sec, k, CONF_DURATION, F(m), def, .min = lo, .max = hi }
#define STR(sec, k, m, def) \
        { sec, k, CONF_STRING, F(m), def }
#define BOOL(sec, k, m, def) \
        { sec, k, CONF_BOOL, F(m), def }
#define ENUM(sec, k, m, def, list) \
        { sec, k, CONF_ENUM, F(m), def, .choices = list }

static const char *const divvy_choices[] = { "proportional", "maxmin", NULL };

/* Defaults are the FlexSlot testbed (Section V-A). */
static const ConfKey keys[] = {
        INT("cluster", "hosts", hosts, "8", 1, 10000),
        INT("cluster", "host_cpus", host_cpus, "8", 1, 1024),
        DBL("cluster", "host_cpu_limit", host_cpu_limit, "0", 0, 1024),
        SIZE("cluster", "host_memory", host_memory, "64G", 64 * MB, 64 * 1024 * GB),
        SIZE("cluster", "host_disk_bandwidth", host_disk_bw, "160M", 1 * MB, 1024 * GB),
        SIZE("cluster", "stream_bandwidth", stream_bw, "60M", 1 * MB, 1024 * GB),
        /* 10 Gbps Ethernet (V-A). */
        SIZE("cluster", "network_bandwidth", net_bw, "1192M", 1 * MB, 1024 * GB),
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
        INT("hadoop", "heartbeats_in_second", heartbeats_in_second, "100", 1, 1000000),
        DUR("hadoop", "task_startup", task_startup, "1s", 0, 3600LL * 1000000),
        DUR("hadoop", "task_launch_cpu", task_launch_cpu, "0s", 0, 3600LL * 1000000),
        BOOL("hadoop", "report_at_heartbeat", report_at_heartbeat, "no"),
        BOOL("hadoop", "progress_at_heartbeat", progress_at_heartbeat, "no"),

        STR("policy", "scheduler", scheduler, "fifo"),
        STR("policy", "slot_manager", slot_manager, "static"),
        STR("policy", "speculation", speculation, "none"),
        STR("policy", "allocator", allocator, "demand"),
        DUR("policy", "resize_delay", resize_delay, "1s", 0, 3600LL * 1000000),
        BOOL("policy", "apply_vm_targets", apply_vm_targets, "yes"),

        /* Unset: the PUMA workload that comes with the simulator (sim/data.h). */
        STR("workload", "file", workload_file, NULL),
        STR("workload", "jobs", jobs, "wordcount"),
        STR("workload", "deadlines", deadlines, NULL),
        STR("workload", "submit", submit, NULL),
        BOOL("workload", "profile_runs", profile_runs, "no"),
        DBL("workload", "load_threshold", load_threshold, "0", 0, 2),
        DBL("workload", "scale", scale, "1", 1e-6, 1000),
        DBL("workload", "combine_ratio", combine_ratio, "-1", -1, 1),
        DBL("workload", "record_bytes", record_bytes, "-1", -1, 1e9),
        DBL("workload", "small_frac", small_frac, "-1", -1, 1),
        DBL("workload", "expensive_cpu", expensive_cpu, "-1", -1, 1000),
        INT("workload", "seed", seed, "1", 0, INT64_MAX),
        DUR("workload", "arrival_gap", arrival_gap, "0", 0, 365LL * 24 * 3600 * 1000000),

        /* The defaults and their sources are in sim/drs.c. */
        BOOL("drs", "enabled", drs, "no"),
        DBL("drs", "pool", drs_pool, "0", 0, 1e6),
        DUR("drs", "period", drs_period, "5min", 10000, 24 * 3600LL * 1000000),
        DUR("drs", "window", drs_window, "5min", 10000, 24 * 3600LL * 1000000),
        DUR("drs", "sample", drs_sample, "20s", 10000, 3600LL * 1000000),
        BOOL("drs", "ready", drs_ready, "no"),
        ENUM("drs", "divvy", drs_divvy, "proportional", divvy_choices),
        BOOL("drs", "agent_weights", drs_agent_weights, "no"),

        BOOL("interference", "enabled", interference, "no"),
        STR("interference", "jobs", interference_jobs, NULL),
        STR("interference", "scheduler", interference_scheduler, NULL),
        STR("interference", "slot_manager", interference_slot_manager, NULL),
        STR("interference", "speculation", interference_speculation, NULL),
        STR("interference", "allocator", interference_allocator, NULL),
};

static int validate(const void *config, ConfError *err) {
        const Scenario *s = config;

        if (s->masters >= s->vms)
                return conf_error_set(err, "cluster", "masters",
                                      "%" PRId64 " masters leave no slave among %" PRId64 " VMs",
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
        if (s->expensive_cpu >= 0 && s->expensive_cpu < 1)
                return conf_error_set(err, "workload", "expensive_cpu",
                                      "expensive records cost at least as much: 1 or more, or -1");
        if (s->combine_ratio >= 0 && s->combine_ratio < 0.0001)
                return conf_error_set(err, "workload", "combine_ratio",
                                      "a combiner keeps something: at least 0.0001, or -1");
        if (s->drs && s->apply_vm_targets)
                return conf_error_set(err, "drs", "enabled",
                                      "DRS sizes the VMs: set [policy] apply_vm_targets = no");
        if (s->drs_agent_weights && !s->drs)
                return conf_error_set(err, "drs", "agent_weights",
                                      "scales DRS's shares: needs [drs] enabled = yes");
        if (s->drs_window < s->drs_sample)
                return conf_error_set(err, "drs", "window", "shorter than the sample interval");
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

/* The command line's assignments as the configuration loader takes them:
 * an array of n (at least one element) the caller frees; NULL when memory
 * is short. */
static ConfAssignment *overrides_assignments(const ScenarioOverride *overrides, size_t n) {
        ConfAssignment *a = calloc(n ? n : 1, sizeof(ConfAssignment));

        for (size_t i = 0; a && i < n; i++)
                a[i] = (ConfAssignment){ .section = overrides[i].section,
                                         .key = overrides[i].key,
                                         .value = overrides[i].value,
                                         .where = overrides[i].where };
        return a;
}

/* The policy core's and its layers' settings at their defaults, then text
 * and the overrides, into *ret; with scenario, the scenario's own keys too
 * (its struct loaded whole, the first part). core_set (of 32) tells which
 * of the core's keys were set. */
static int load_policy(const char *name, const char *text, const ScenarioOverride *overrides,
                       size_t n_overrides, Scenario *scenario, bool *core_set, PolicyConfig *ret,
                       char *err, size_t err_size) {
        _cleanup_free_ ConfAssignment *assignments = NULL;
        ConfPart parts[1 + POLICY_SCHEMAS_MAX];
        size_t first = scenario ? 1 : 0;
        PolicyConfig policy;
        ConfError e;
        int r;

        r = policy_config_init(&policy);
        if (r < 0)
                return r;
        assignments = overrides_assignments(overrides, n_overrides);
        if (!assignments) {
                policy_config_done(&policy);
                return -ENOMEM;
        }
        if (scenario)
                parts[0] = (ConfPart){ .schema = &scenario_schema, .config = scenario };
        policy_config_parts(&policy, parts + first);
        /* policy_config_init() puts the core's settings first. */
        assert(policy.schemas[0] == &core_settings_schema && core_settings_schema.n_keys <= 32);
        parts[first].ret_set = core_set;
        r = conf_load_parts(parts, first + policy.n_settings, name, text, assignments, n_overrides,
                            &e);
        if (r < 0) {
                conf_error_format(&e, err, err_size);
                policy_config_done(&policy);
                return r;
        }
        *ret = policy;
        return 0;
}

/* The scenario's keys, then the policy core's and its layers'. */
static int load_text(const char *name, const char *text, const ScenarioOverride *overrides,
                     size_t n_overrides, Scenario *ret, char *err, size_t err_size) {
        bool core_set[32];
        Scenario s = { 0 };
        PolicyConfig policy;
        int r = load_policy(name, text, overrides, n_overrides, &s, core_set, &policy, err,
                            err_size);

        if (r < 0)
                return r;
        s.policy = policy;
        for (size_t i = 0; i < core_settings_schema.n_keys; i++)
                if (!core_set[i] &&
                    strcmp(core_settings_schema.keys[i].key, "vm_memory_reserve") == 0)
                        scenario_core(&s)->vm_memory_reserve = s.vm_os_memory;
        *ret = s;
        return 0;
}

int scenario_policy_overrides(const ScenarioOverride *overrides, size_t n_overrides,
                              PolicyConfig *ret, char *err, size_t err_size) {
        bool core_set[32];

        return load_policy("--set", "", overrides, n_overrides, NULL, core_set, ret, err, err_size);
}

int scenario_load_string(const char *name, const char *text, Scenario *ret, char *err,
                         size_t err_size) {
        return load_text(name, text, NULL, 0, ret, err, err_size);
}

int scenario_override_parse(const char *assignment, ScenarioOverride *ret) {
        const char *dot = strchr(assignment, '.'), *eq = strchr(assignment, '=');
        ScenarioOverride o = { 0 };

        if (!dot || !eq || dot > eq || dot == assignment || eq == dot + 1 ||
            strchr(assignment, '\n') || (size_t)(dot - assignment) >= sizeof(o.section) ||
            (size_t)(eq - dot - 1) >= sizeof(o.key))
                return -EINVAL;
        memcpy(o.section, assignment, (size_t)(dot - assignment));
        memcpy(o.key, dot + 1, (size_t)(eq - dot - 1));
        o.value = eq + 1;
        snprintf(o.where, sizeof(o.where), "--set %s", assignment);
        *ret = o;
        return 0;
}

int scenario_load(const char *path, const ScenarioOverride *overrides, size_t n_overrides,
                  Scenario *ret, char *err, size_t err_size) {
        _cleanup_free_ char *text = NULL, *workload = NULL;
        Scenario s;
        int r;

        r = sim_read_text(path, &text, err, err_size);
        if (r < 0)
                return r;
        r = load_text(path, text, overrides, n_overrides, &s, err, err_size);
        if (r < 0)
                return r;
        r = s.workload_file ? sim_path_relative_to(path, s.workload_file, &workload)
                            : sim_data_path("workloads/puma.csv", &workload);
        if (r < 0) {
                snprintf(err, err_size, "%s: cannot find the workload file: %s", path,
                         strerror(-r));
                scenario_done(&s);
                return r;
        }
        free(s.workload_file);
        s.workload_file = TAKE_PTR(workload);
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

usec_t scenario_heartbeat_interval(const Scenario *s) {
        int64_t trackers = s->vms - s->masters;
        usec_t scaled = (usec_t)(trackers * 1000 / s->heartbeats_in_second) * USEC_PER_MSEC;

        return MAX(s->heartbeat, scaled);
}

CoreSettings *scenario_core(const Scenario *s) {
        return policy_config_settings(&s->policy, &core_settings_schema);
}

PolicyConfig scenario_policy_config(const Scenario *s) {
        PolicyConfig c = s->policy;

        c.scheduler = s->scheduler;
        c.slot_manager = s->slot_manager;
        c.speculation = s->speculation;
        c.vm_allocator = s->allocator;
        return c;
}

void scenario_done(Scenario *s) {
        policy_config_done(&s->policy);
        conf_free(&scenario_schema, s);
}

/* SPDX-License-Identifier: MIT */
/* flexslotctl's commands, one function each, and the columns of what they
 * print: the fields of org.flexslot.Controller1's records, in its order
 * (proto/controller1.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/cli.h"
#include "common/macro.h"
#include "common/parse.h"
#include "ctl.h"

static const CtlColumn job_columns[] = {
        { "id", 't' },
        { "state", 's' },
        { "name", 's' },
        { "user", 's' },
        { "pool", 's' },
        { "application", 's' },
        { "maps", 'u' },
        { "reduces", 'u' },
        { "maps_done", 'u' },
        { "reduces_done", 'u' },
        { "submitted", 't', true },
        { "finished", 't', true },
        { "deadline", 't', true },
        { "source", 's' },
};

/* GetJob's fields after the record. */
static const CtlColumn job_extra_columns[] = {
        { "message", 's' },   { "stragglers", 'u' },   { "backups", 'u' },
        { "map_quota", 'u' }, { "reduce_quota", 'u' },
};

/* proto/controller1.h, CONTROLLER1_ATTEMPT_TYPE. */
static const CtlColumn attempt_columns[] = {
        { "attempt", 't' }, { "task", 's' },          { "index", 'u' },       { "node", 's' },
        { "state", 's' },   { "started", 't', true }, { "ended", 't', true }, { "reason", 's' },
        { "cpu_s", 'd' },   { "io_wait_s", 'd' },
};

static const CtlColumn node_columns[] = {
        { "id", 't' },
        { "hostname", 's' },
        { "vm", 's' },
        { "state", 's' },
        { "map_slots", 'u' },
        { "reduce_slots", 'u' },
        { "busy_map_slots", 'u' },
        { "busy_reduce_slots", 'u' },
        { "steal", 'd' },
        { "iowait", 'd' },
};

/* proto/controller1.h, CONTROLLER1_VM_TYPE. */
static const CtlColumn vm_columns[] = {
        { "node", 't' },
        { "vm", 's' },
        { "name", 's' },
        { "agent", 's' },
        { "reachable", 'b' },
        { "steal_source", 's' },
        { "steal", 'd' },
        { "vcpus", 'u' },
        { "memory", 't' },
        { "sent", 'u' },
        { "applied", 'u' },
        { "failed", 'u' },
        { "last", 's' },
        { "guest_cpus", 'u' },
        { "guest_memory", 't' },
        { "vcpus_target", 's' },
        { "memory_target", 's' },
        { "role", 's' },
        { "cpu_weight", 'u' },
        { "vcpus_target_source", 's' },
        { "guest_agent_vcpus", 'u' },
        { "guest_agent", 's' },
};

static const CtlColumn profile_columns[] = {
        { "user", 's' },
        { "name", 's' },
        { "job", 't' },
        { "updated", 't', true },
        { "map_min", 'd' },
        { "map_avg", 'd' },
        { "map_max", 'd' },
        { "map_input", 'd' },
        { "map_selectivity", 'd' },
        { "first_shuffle_avg", 'd' },
        { "first_shuffle_max", 'd' },
        { "typical_shuffle_avg", 'd' },
        { "typical_shuffle_max", 'd' },
        { "reduce_avg", 'd' },
        { "reduce_max", 'd' },
        { "reduce_selectivity", 'd' },
};

static int call_failed(int r) {
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* A job's or a tracker's id, as the controller numbers them from 1; a bad
 * one is said (exit EXIT_USAGE). */
static int parse_id(const char *what, const char *s, uint64_t *ret) {
        if (parse_uint64(s, 1, UINT64_MAX, ret) < 0)
                return cli_usage_error(CTL_PROGRAM, "invalid %s id '%s'", what, s);
        return 0;
}

/* A method without arguments whose reply is one array of records. */
static int list(Ctl *ctl, const char *method, const CtlColumn *cols, size_t n) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        int r;

        r = ctl_new_call(ctl, method, &m);
        if (r >= 0)
                r = ctl_send(ctl, m, &reply);
        if (r >= 0)
                r = ctl_print_table(ctl, reply, cols, n);
        return call_failed(r);
}

static int run_list(Ctl *ctl, char *const *args, unsigned n_args) {
        return list(ctl, "ListJobs", job_columns, ELEMENTSOF(job_columns));
}

static int run_nodes(Ctl *ctl, char *const *args, unsigned n_args) {
        return list(ctl, "ListNodes", node_columns, ELEMENTSOF(node_columns));
}

static int run_profiles(Ctl *ctl, char *const *args, unsigned n_args) {
        return list(ctl, "ListProfiles", profile_columns, ELEMENTSOF(profile_columns));
}

static int run_vms(Ctl *ctl, char *const *args, unsigned n_args) {
        return list(ctl, "ListVms", vm_columns, ELEMENTSOF(vm_columns));
}

static int run_resize_vm(Ctl *ctl, char *const *args, unsigned n_args) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        uint64_t vcpus, memory;
        unsigned refused = 0;
        int r;

        /* The controller tells a node id from a UUID, and names a VM it
         * does not know. */
        if (parse_uint64(args[1], 0, UINT32_MAX, &vcpus) < 0)
                return cli_usage_error(CTL_PROGRAM, "invalid vCPUs '%s'", args[1]);
        if (parse_size(args[2], &memory) < 0)
                return cli_usage_error(CTL_PROGRAM,
                                       "invalid memory '%s': a size such as 4G or 512M", args[2]);
        r = ctl_new_call(ctl, "ResizeVm", &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "sut", args[0], (uint32_t)vcpus, memory);
        if (r >= 0)
                r = ctl_send(ctl, m, &reply);
        if (r >= 0)
                r = ctl_print_verdicts(ctl, reply, &refused);
        return r < 0 || refused > 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* A method whose one argument is job id, and its reply (ret_reply may be
 * NULL). */
static int call_with_job(Ctl *ctl, const char *method, uint64_t id, sd_bus_message **ret_reply) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = ctl_new_call(ctl, method, &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "t", id);
        if (r >= 0)
                r = ctl_send(ctl, m, ret_reply);
        return r;
}

static int run_show(Ctl *ctl, char *const *args, unsigned n_args) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *job = NULL, *attempts = NULL;
        uint64_t id;
        int r;

        if (parse_id("job", args[0], &id) != 0)
                return EXIT_USAGE;
        r = call_with_job(ctl, "GetJob", id, &job);
        if (r >= 0)
                r = call_with_job(ctl, "ListAttempts", id, &attempts);
        if (r >= 0)
                r = ctl_print_record(ctl, job, job_columns, ELEMENTSOF(job_columns),
                                     job_extra_columns, ELEMENTSOF(job_extra_columns),
                                     &(CtlTable){ .name = "attempts",
                                                  .reply = attempts,
                                                  .cols = attempt_columns,
                                                  .n = ELEMENTSOF(attempt_columns) });
        return call_failed(r);
}

static int run_cancel(Ctl *ctl, char *const *args, unsigned n_args) {
        uint64_t id;

        if (parse_id("job", args[0], &id) != 0)
                return EXIT_USAGE;
        return call_failed(call_with_job(ctl, "CancelJob", id, NULL));
}

static int run_set_slots(Ctl *ctl, char *const *args, unsigned n_args) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        uint64_t node, slots[2];
        int r;

        if (parse_id("tracker", args[0], &node) != 0)
                return EXIT_USAGE;
        /* The controller checks the range, and names it when refusing. */
        for (unsigned i = 0; i < 2; i++)
                if (parse_uint64(args[1 + i], 0, UINT32_MAX, &slots[i]) < 0)
                        return cli_usage_error(CTL_PROGRAM, "invalid %s slots '%s'",
                                               i == 0 ? "map" : "reduce", args[1 + i]);
        r = ctl_new_call(ctl, "SetSlots", &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "tuut", node, (uint32_t)slots[0], (uint32_t)slots[1],
                                          ctl->slot_memory);
        if (r >= 0)
                r = ctl_send(ctl, m, NULL);
        return call_failed(r);
}

static const char *or_empty(const char *s) {
        return s ? s : "";
}

static int run_submit(Ctl *ctl, char *const *args, unsigned n_args) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        usec_t deadline = ctl->deadline ? now_realtime_usec() + ctl->deadline : 0;
        const char *name = ctl->name ? ctl->name : ctl->app ? ctl->app : "streaming";
        uint64_t id;
        int r;

        /* The controller checks the rest (and names what it refuses); these
         * two are the command line's own. */
        if (!ctl->app == !ctl->mapper)
                return cli_usage_error(CTL_PROGRAM, "give one of --app and --mapper");
        if (!(ctl->given & CTL_OPT_REDUCES))
                return cli_usage_error(CTL_PROGRAM, "--reduces is needed");
        r = ctl_new_call(ctl, "SubmitJob", &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "ssss", or_empty(ctl->app), or_empty(ctl->arg),
                                          or_empty(ctl->mapper), or_empty(ctl->reducer));
        if (r >= 0)
                r = sd_bus_message_append_strv(m, (char **)args);
        if (r >= 0)
                r = sd_bus_message_append(m, "utsss", ctl->reduces, deadline, ctl->pool, ctl->user,
                                          name);
        if (r >= 0)
                r = ctl_send(ctl, m, &reply);
        if (r >= 0 && (r = sd_bus_message_read(reply, "t", &id)) <= 0) {
                fprintf(stderr, "%s: SubmitJob's reply has no job id\n", CTL_PROGRAM);
                return EXIT_FAILURE;
        }
        if (r < 0)
                return EXIT_FAILURE;
        if (ctl->json)
                printf("{\"job\": %" PRIu64 "}\n", id);
        else
                printf("%" PRIu64 "\n", id);
        if (ctl->wait)
                return ctl_watch_jobs(ctl, &id, 1);
        return EXIT_SUCCESS;
}

/* The jobs given, or every one queued or running. */
static int run_watch(Ctl *ctl, char *const *args, unsigned n_args) {
        _cleanup_free_ uint64_t *ids = NULL;

        if (n_args == 0)
                return ctl_watch_unended(ctl);
        ids = calloc(n_args, sizeof(*ids));
        if (!ids)
                return EXIT_FAILURE;
        for (unsigned i = 0; i < n_args; i++)
                if (parse_id("job", args[i], &ids[i]) != 0)
                        return EXIT_USAGE;
        return ctl_watch_jobs(ctl, ids, n_args);
}

const CtlCommand ctl_commands[] = {
        {
                .name = "submit",
                .synopsis = "(--app=APP [--arg=ARG] | --mapper=CMD [--reducer=CMD]) --reduces=N\n"
                            "       [--deadline=DURATION] [--pool=POOL] [--user=USER] "
                            "[--name=NAME] INPUT...",
                .summary = "Submit a job; prints its id",
                .help = "  --app=APP            a built-in application (wordcount, grep, sort, "
                        "...)\n"
                        "  --arg=ARG            the application's argument (grep's pattern)\n"
                        "  --mapper=CMD         a streaming job's map command\n"
                        "  --reducer=CMD        its reduce command (none: identity reduce)\n"
                        "  --reduces=N          reduce tasks\n"
                        "  --deadline=DURATION  finish within DURATION from now (30min, 2h)\n"
                        "  --pool=POOL          the fair scheduler's pool (default: default)\n"
                        "  --user=USER          whose job (default: the caller)\n"
                        "  --name=NAME          the job's name (default: the application),\n"
                        "                       with the user the key of its ARIA profile\n"
                        "  --wait               then watch it until it ends, as 'watch' does,\n"
                        "                       and exit as 'watch' says\n"
                        "  --interval=DURATION  with --wait, between two looks (default 1s)\n"
                        "INPUTs are paths relative to the cluster's data directory.\n",
                .min_args = 1,
                .max_args = UINT32_MAX,
                .options = CTL_OPT_APP | CTL_OPT_ARG | CTL_OPT_MAPPER | CTL_OPT_REDUCER |
                           CTL_OPT_REDUCES | CTL_OPT_DEADLINE | CTL_OPT_POOL | CTL_OPT_USER |
                           CTL_OPT_NAME | CTL_OPT_WAIT | CTL_OPT_INTERVAL,
                .run = run_submit,
        },
        {
                .name = "watch",
                .synopsis = "[JOB...] [--interval=DURATION]",
                .summary = "Follow jobs until they end; exit status says how they ended",
                .help = "  --interval=DURATION  between two looks at the controller (default 1s)\n"
                        "Without JOB: every job queued or running now. On a terminal each job\n"
                        "is a bar of its tasks done, redrawn in place, with a straight-line\n"
                        "estimate of its end against its deadline; otherwise a line each time\n"
                        "a job's state or task counts change. Exit status: 0 when every job\n"
                        "succeeded, 3 when one failed, 4 when one was cancelled (and none\n"
                        "failed), 1 when the controller could not be asked.\n",
                .max_args = UINT32_MAX,
                .options = CTL_OPT_INTERVAL,
                .run = run_watch,
        },
        {
                .name = "list",
                .synopsis = "",
                .summary = "List the jobs, ended ones too",
                .run = run_list,
        },
        {
                .name = "show",
                .synopsis = "JOB",
                .summary = "Show a job, with why it ended and every attempt of its tasks",
                .min_args = 1,
                .max_args = 1,
                .run = run_show,
        },
        {
                .name = "cancel",
                .synopsis = "JOB",
                .summary = "Cancel a queued or running job",
                .min_args = 1,
                .max_args = 1,
                .run = run_cancel,
        },
        {
                .name = "nodes",
                .synopsis = "",
                .summary = "List the trackers with their slots, running tasks and steal",
                .run = run_nodes,
        },
        {
                .name = "set-slots",
                .synopsis = "NODE MAP REDUCE [--slot-memory=SIZE]",
                .summary = "Set a tracker's map and reduce slots",
                .help = "  --slot-memory=SIZE   memory of each new slot (512M, 1G); default:\n"
                        "                       unchanged\n"
                        "The tracker hears of it in its next heartbeat's reply; running tasks\n"
                        "above the new count keep running.\n",
                .min_args = 3,
                .max_args = 3,
                .options = CTL_OPT_SLOT_MEMORY,
                .run = run_set_slots,
        },
        {
                .name = "vms",
                .synopsis = "",
                .summary = "List the VMs of the agents and the trackers, with their sizes",
                .help = "Memory in bytes; LAST is the agent's answer to the last change sent.\n",
                .run = run_vms,
        },
        {
                .name = "resize-vm",
                .synopsis = "VM VCPUS MEMORY",
                .summary = "Resize a VM through its host's agent",
                .help = "VM is a tracker's node id or a VM UUID; VCPUS and MEMORY (4G, 512M;\n"
                        "a multiple of 1K) are the new size, 0 for unchanged. Prints the\n"
                        "agent's verdict on each resource; exits 1 if it refused one.\n",
                .min_args = 3,
                .max_args = 3,
                .run = run_resize_vm,
        },
        {
                .name = "profiles",
                .synopsis = "",
                .summary = "List the ARIA profiles of past jobs, by user and name",
                .help = "Durations in seconds, sizes in bytes.\n",
                .run = run_profiles,
        },
};

const size_t ctl_n_commands = ELEMENTSOF(ctl_commands);

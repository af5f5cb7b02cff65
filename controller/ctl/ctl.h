/* SPDX-License-Identifier: MIT */
#pragma once

/* flexslotctl's pieces: the command line (ctl.c), the calls to
 * org.flexslot.Controller1 and their output (ctl-output.c), the commands
 * (ctl-commands.c) and the jobs watched until they end (ctl-watch.c). A command is one entry of
 * ctl_commands[] and one function; the options it takes beyond the common ones are bits of
 * CtlCommand.options. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <systemd/sd-bus.h>

#include "common/time-util.h"

#define CTL_PROGRAM "flexslotctl"

/* The options a command may take beyond the common ones. */
enum {
        CTL_OPT_APP = 1u << 0,
        CTL_OPT_ARG = 1u << 1,
        CTL_OPT_MAPPER = 1u << 2,
        CTL_OPT_REDUCER = 1u << 3,
        CTL_OPT_REDUCES = 1u << 4,
        CTL_OPT_DEADLINE = 1u << 5,
        CTL_OPT_POOL = 1u << 6,
        CTL_OPT_USER = 1u << 7,
        CTL_OPT_NAME = 1u << 8,
        CTL_OPT_SLOT_MEMORY = 1u << 9,
        CTL_OPT_WAIT = 1u << 10,
        CTL_OPT_INTERVAL = 1u << 11,
};

/* How the jobs a command waited for ended, beyond EXIT_SUCCESS (every one
 * succeeded), EXIT_FAILURE (a call failed) and EXIT_USAGE. */
#define CTL_EXIT_JOB_FAILED 3
#define CTL_EXIT_JOB_CANCELLED 4

typedef struct Ctl {
        const char *address; /* NULL: the system bus */
        bool json, legend;
        sd_bus *bus;
        /* submit */
        const char *app, *arg, *mapper, *reducer, *pool, *user, *name;
        uint32_t reduces;
        usec_t deadline; /* from now; 0: none */
        bool wait;
        /* set-slots; 0: unchanged */
        uint64_t slot_memory;
        /* watch, submit --wait: between two polls of the controller */
        usec_t interval;
        unsigned given; /* CTL_OPT_* bits */
} Ctl;

typedef struct CtlCommand {
        const char *name;
        const char *synopsis; /* its arguments and options */
        const char *summary;  /* one line */
        const char *help;     /* the rest of its --help */
        unsigned min_args, max_args;
        unsigned options;
        /* Returns the exit status. */
        int (*run)(Ctl *ctl, char *const *args, unsigned n_args);
} CtlCommand;

extern const CtlCommand ctl_commands[];
extern const size_t ctl_n_commands;

/* ---- ctl-watch.c ---- */

/* Polls the jobs every ctl->interval until each has ended, showing their
 * progress; returns the exit status (CTL_EXIT_JOB_* for how they ended). */
int ctl_watch_jobs(Ctl *ctl, const uint64_t *ids, size_t n);
/* The same of every job queued or running now (the watch command without
 * jobs). */
int ctl_watch_unended(Ctl *ctl);

/* ---- ctl-output.c ---- */

/* One field of a reply's record: its name (JSON key; upper-cased in the
 * tab output's header), its D-Bus type (t, u, s, d, b, or v for a variant
 * holding u or t), and whether it is a
 * realtime usec (0: none), printed as an RFC 3339 UTC time in the tab
 * output and as usec in JSON. */
typedef struct CtlColumn {
        const char *name;
        char type;
        bool time;
} CtlColumn;

/* A call of method on the controller, with its arguments appended: what
 * goes wrong is printed (the controller's error by name, verbatim). */
int ctl_new_call(Ctl *ctl, const char *method, sd_bus_message **ret);
int ctl_send(Ctl *ctl, sd_bus_message *m, sd_bus_message **ret_reply);

/* The reply's array of records, a row each (tab, after a header unless
 * --no-legend) or a JSON array of objects. */
int ctl_print_table(const Ctl *ctl, sd_bus_message *reply, const CtlColumn *cols, size_t n);
/* A table of a record's (show's attempts): the reply's array of records
 * of cols. */
typedef struct CtlTable {
        const char *name;
        sd_bus_message *reply;
        const CtlColumn *cols;
        size_t n;
} CtlTable;

/* The reply's record (a struct of cols) and then its fields extra, as
 * "name<TAB>value" lines or one JSON object; then table (may be NULL) as
 * ctl_print_table() prints it, after a blank line, or in the object under
 * its name. */
int ctl_print_record(const Ctl *ctl, sd_bus_message *reply, const CtlColumn *cols, size_t n,
                     const CtlColumn *extra, size_t n_extra, const CtlTable *table);
/* ResizeVm's answer, a row per resource with the agent's verdict; the
 * verdicts the agent refused or failed are printed on stderr too, by their
 * error names, and counted in ret_refused. */
int ctl_print_verdicts(const Ctl *ctl, sd_bus_message *reply, unsigned *ret_refused);

/* SPDX-License-Identifier: MIT */
#include "policy/core/settings.h"

#include "policy/core/decisions.h"

#include "common/macro.h"

#define GIB (1LL << 30)

/* A key of a part of CoreSettings (dmr, slo), named as its member there. */
#define PART_SETTING(part, conf_type, m, def, meaning, ...)                         \
        {                                                                           \
                POLICY_SECTION, #m, conf_type, offsetof(CoreSettings, part.m), def, \
                        .doc = (meaning), __VA_ARGS__                               \
        }
#define DMR_SETTING(...) PART_SETTING(dmr, __VA_ARGS__)
#define SLO_SETTING(...) PART_SETTING(slo, __VA_ARGS__)

static const char *const forecast_names[] = {
        [SLO_FORECAST_BOUND] = "bound",
        [SLO_FORECAST_REPLAY] = "replay",
        [_SLO_FORECAST_MAX] = NULL,
};

/* A weight is a small whole number of resource units. */
#define SLOT_WEIGHT_MAX 64

static const char *const dhsa_names[] = {
        [DHSA_NONE] = "none",
        [DHSA_PI] = "pi",
        [DHSA_PD] = "pd",
        [_DHSA_MODE_MAX] = NULL,
};

static const ConfKey core_keys[] = {
        /* Hadoop 1's TaskTracker heartbeat for a small cluster. */
        SETTING_DURATION(CoreSettings, control_interval, "3s", 10 * USEC_PER_MSEC, USEC_PER_HOUR,
                         "the slot manager's and VM allocator's cycle (FlexSlot's T)"),
        SETTING_DOUBLE(CoreSettings, reduce_slowstart, "0.05", 0, 1,
                       "share of a job's maps done before its reduces may start "
                       "(mapred.reduce.slowstart.completed.maps)"),
        SETTING_SIZE(CoreSettings, vm_memory_reserve, "512M", 0, 4096 * GIB,
                     "memory of a VM outside its slots: the guest OS and daemons"),
        /* DynamicMR: off, and where on, borrowing all it may (the paper's
         * advice for performance, Appendix F) with the one slot per core of
         * its experiments (3.2.2). */
        DMR_SETTING(CONF_ENUM, dhsa, "none",
                    "DynamicMR's slot borrowing under fifo and fair: none, pi (pool-independent) "
                    "or pd (pool-dependent)",
                    .choices = dhsa_names),
        DMR_SETTING(CONF_DOUBLE, borrow_map_slots, "1",
                    "share of a node's unused map slots "
                    "reduces may borrow at one heartbeat (percentageOfBorrowedMapSlots)",
                    .dmin = 0, .dmax = 1),
        DMR_SETTING(CONF_DOUBLE, borrow_reduce_slots, "1",
                    "share of a node's unused reduce "
                    "slots maps may borrow at one heartbeat (percentageOfBorrowedReduceSlots)",
                    .dmin = 0, .dmax = 1),
        DMR_SETTING(CONF_INT, map_slot_weight, "1",
                    "resource units of a map slot, a task of its type taking one", .min = 1,
                    .max = SLOT_WEIGHT_MAX),
        DMR_SETTING(CONF_INT, reduce_slot_weight, "1",
                    "resource units of a reduce slot, a task of its type taking one", .min = 1,
                    .max = SLOT_WEIGHT_MAX),
        DMR_SETTING(CONF_BOOL, load_balance, "no",
                    "Hadoop's load manager: a node's tasks of each type at its share of the "
                    "cluster's load"),
        DMR_SETTING(CONF_BOOL, prescheduling, "no",
                    "DynamicMR's Slot PreScheduling: the idle slots the load manager holds back "
                    "go to the head job's local maps (needs load_balance)"),
        /* The one loop: every part off by default, so that a configuration
         * runs the papers' policies as they are until it asks for one; the
         * forecast is the one that came nearer the real finish in
         * `flexslot-sim experiment slo-interference`. */
        SLO_SETTING(CONF_BOOL, slo_speed, "no",
                    "aria, deadline: ARIA's bounds and Eq. 15 and the Deadline Constraint "
                    "Scheduler's minimum tasks count each slot at its measured speed"),
        SLO_SETTING(CONF_BOOL, slo_lever, "no",
                    "VM allocators: the VMs of a deadline job forecast late get CPU weight taken "
                    "from best-effort VMs on their hosts (another tenant's too), given back once "
                    "it is safe"),
        SLO_SETTING(CONF_BOOL, slo_favour, "no",
                    "flexslot: slot moves and straggler handling favour the deadline job "
                    "forecast late that can still meet its deadline with every slot"),
        /* ARIA section 6 leaves the slots beyond the quotas to an
         * "additional policy" and gives them to the jobs without deadlines;
         * off, so that ARIA runs as it reads. */
        SLO_SETTING(CONF_BOOL, slo_spare, "no",
                    "aria, deadline: the slots the deadline jobs' quotas leave idle go first to "
                    "the deadline job nearest to missing (by the forecast when a part of the loop "
                    "is on, else earliest deadline), then to the jobs without deadlines"),
        SLO_SETTING(CONF_ENUM, slo_forecast, "replay",
                    "the forecast of a deadline job's end the lever and flexslot act on: replay "
                    "(its tasks left replayed on its slots) or bound (ARIA's average bound at the "
                    "measured speed)",
                    .choices = forecast_names),
        SLO_SETTING(CONF_DOUBLE, slo_margin, "0.1",
                    "a deadline job forecast late is safe again once forecast to end this share "
                    "of its time left before its deadline",
                    .dmin = 0, .dmax = 1),
};

static int core_settings_validate(const void *settings, ConfError *err) {
        const CoreSettings *set = settings;

        /* Pre-scheduling gives out what the load manager holds back. */
        if (set->dmr.prescheduling && !set->dmr.load_balance)
                return conf_error_set(err, POLICY_SECTION, "prescheduling",
                                      "gives out what the load manager holds back: needs "
                                      "load_balance");
        return 0;
}

const ConfSchema core_settings_schema = {
        .keys = core_keys,
        .n_keys = ELEMENTSOF(core_keys),
        .size = sizeof(CoreSettings),
        .validate = core_settings_validate,
};

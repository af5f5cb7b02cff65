/* SPDX-License-Identifier: MIT */
#pragma once

/* Settings: the core's and each layer's own. A layer's settings are a
 * struct of its own that its ops table describes with a schema
 * (common/config.h's ConfSchema: each key's type, default, range and
 * meaning, and a validate for what one key alone cannot say), so that a
 * knob is declared once, where it is read, and every configuration that
 * sets it (the simulator's scenario files, the controller's configuration,
 * a command line's --set) gets the same default, range and error. Every
 * key lives in a configuration's [policy] section and is named as the
 * struct member it sets; a key names one knob across every layer of the
 * registry (policy/layers/policies.h), which a test checks. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/config.h"
#include "common/time-util.h"

#define POLICY_SECTION "policy"

/* One key of the settings struct T, named as its member m. */
#define SETTING_INT(T, m, def, lo, hi, meaning)                                              \
        {                                                                                    \
                POLICY_SECTION, #m, CONF_INT, offsetof(T, m), def, .min = (lo), .max = (hi), \
                                                                   .doc = (meaning)          \
        }
#define SETTING_DOUBLE(T, m, def, lo, hi, meaning)                                                \
        {                                                                                         \
                POLICY_SECTION, #m, CONF_DOUBLE, offsetof(T, m), def, .dmin = (lo), .dmax = (hi), \
                                                                      .doc = (meaning)            \
        }
#define SETTING_DURATION(T, m, def, lo, hi, meaning)                                              \
        {                                                                                         \
                POLICY_SECTION, #m, CONF_DURATION, offsetof(T, m), def, .min = (lo), .max = (hi), \
                                                                        .doc = (meaning)          \
        }
#define SETTING_SIZE(T, m, def, lo, hi, meaning)                                              \
        {                                                                                     \
                POLICY_SECTION, #m, CONF_SIZE, offsetof(T, m), def, .min = (lo), .max = (hi), \
                                                                    .doc = (meaning)          \
        }
#define SETTING_BOOL(T, m, def, meaning) \
        { POLICY_SECTION, #m, CONF_BOOL, offsetof(T, m), def, .doc = (meaning) }
/* An int index into names, a NULL-terminated array. */
#define SETTING_ENUM(T, m, def, names, meaning) \
        { POLICY_SECTION, #m, CONF_ENUM, offsetof(T, m), def, .choices = (names), .doc = (meaning) }

/* DynamicMR's slot borrowing (DHSA, Tang, Lee and He, TCC 2014, section
 * 2.1). */
typedef enum DhsaMode {
        DHSA_NONE, /* a task runs only in a slot of its own type */
        DHSA_PI,   /* pool-independent: fair within each phase, then across */
        DHSA_PD,   /* pool-dependent: each pool fills its own needs, then lends */
        _DHSA_MODE_MAX,
} DhsaMode;

/* DynamicMR's slot settings (policy/layers/dynamicmr.h has the
 * choices where the paper is vague). They are the core's, not one layer's:
 * the fifo and fair schedulers fill slots by them and SEPB's gate
 * (speculation.c) asks whether a slot may be borrowed, and a knob is
 * declared once. */
typedef struct DynamicMrSettings {
        /* DHSA; the shares of a node's unused map and reduce slots tasks of
         * the other type may borrow at one heartbeat
         * (percentageOfBorrowedMapSlots, percentageOfBorrowedReduceSlots);
         * and the slots' resource weights (2.1, challenge C2: a slot of
         * weight 2 holds two tasks of weight 1). */
        DhsaMode dhsa;
        double borrow_map_slots, borrow_reduce_slots;
        int64_t map_slot_weight, reduce_slot_weight;
        /* Hadoop's load manager (2.3.1, Steps 1-3), which keeps a node's
         * tasks of each type at its share of the cluster's load; and Slot
         * PreScheduling (2.3.2), which gives the extra idle slots it holds
         * back to the head job's local maps (needs the load manager). */
        bool load_balance;
        bool prescheduling;
} DynamicMrSettings;

/* The one loop (policy/layers/slo-loop.h): the deadline schedulers,
 * FlexSlot and the VM allocators acting on one forecast of each deadline
 * job, each part switched on its own. They are the core's, not one
 * layer's: the schedulers, the slot manager and the VM allocators all
 * read them, and a knob is declared once. */
typedef struct SloLoopSettings {
        /* ARIA's bounds and Eq. 15 and the Deadline Constraint
         * Scheduler's minimum tasks count each slot at its measured speed. */
        bool slo_speed;
        /* The VM allocators give the VMs of a deadline job forecast late
         * CPU weight taken from best-effort VMs on their hosts, and give it
         * back once it is safe. */
        bool slo_lever;
        /* FlexSlot's slot moves and straggler handling favour the job
         * nearest to missing its deadline. */
        bool slo_favour;
        /* The deadline schedulers give the slots their quotas leave idle
         * to the deadline jobs first, nearest to missing first, then to the
         * jobs without deadlines (slo-sched.h); else to those jobs only. */
        bool slo_spare;
        int slo_forecast;  /* the SloForecastKind the lever and FlexSlot act on */
        double slo_margin; /* late until forecast this share of the time left early */
} SloLoopSettings;

/* What the core itself reads, and the layers with it. */
typedef struct CoreSettings {
        /* The control interval: FlexSlot's heartbeat interval T (Algorithm 1),
         * at which a driver runs POLICY_STEP_CONTROL. */
        usec_t control_interval;
        /* Reduces start once this share of the job's maps is done (Hadoop's
         * mapred.reduce.slowstart.completed.maps). */
        double reduce_slowstart;
        /* Memory of a VM outside its slots: the guest OS and daemons. */
        uint64_t vm_memory_reserve;
        DynamicMrSettings dmr;
        SloLoopSettings slo;
} CoreSettings;

extern const ConfSchema core_settings_schema;

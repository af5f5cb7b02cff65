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
 * registry (controller/policies/policies.h), which a test checks. */

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
} CoreSettings;

extern const ConfSchema core_settings_schema;

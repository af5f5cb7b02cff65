/* SPDX-License-Identifier: MIT */
#include "controller/core/settings.h"

#include "common/macro.h"

#define GIB (1LL << 30)

static const ConfKey core_keys[] = {
        /* Hadoop 1's TaskTracker heartbeat for a small cluster. */
        SETTING_DURATION(CoreSettings, control_interval, "3s", 10 * USEC_PER_MSEC, USEC_PER_HOUR,
                         "the slot manager's and VM allocator's cycle (FlexSlot's T)"),
        SETTING_DOUBLE(CoreSettings, reduce_slowstart, "0.05", 0, 1,
                       "share of a job's maps done before its reduces may start "
                       "(mapred.reduce.slowstart.completed.maps)"),
        SETTING_SIZE(CoreSettings, vm_memory_reserve, "512M", 0, 4096 * GIB,
                     "memory of a VM outside its slots: the guest OS and daemons"),
};

const ConfSchema core_settings_schema = {
        .keys = core_keys,
        .n_keys = ELEMENTSOF(core_keys),
        .size = sizeof(CoreSettings),
};

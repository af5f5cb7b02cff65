/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/config.h"
#include "common/time-util.h"
#include "proto/tracker1.h"

/* flexslot-tracker's configuration; conf/tracker.ini documents every key. */
typedef struct TrackerConfig {
        /* [tracker] */
        char *controller, *token_file, *data_dir, *work_dir, *task_program;
        char *vm_uuid, *hostname; /* NULL: the VM's own */
        char *task_user;
        int log_level;
        /* [slots] */
        int64_t map_slots, reduce_slots;
        uint64_t slot_memory;
        /* [connection] */
        usec_t call_timeout, reconnect_max;
        /* [tasks] */
        usec_t kill_grace;
} TrackerConfig;

extern const ConfSchema tracker_config_schema;

/* The first reconnect waits this long, each next one twice as long, up to
 * [connection] reconnect-max. */
#define TRACKER_RECONNECT_MIN (100 * USEC_PER_MSEC)

/* Where the VM's SMBIOS UUID is, which libvirt sets to the domain's UUID,
 * so the controller matches tracker and domain. */
#define TRACKER_PRODUCT_UUID_FILE "/sys/class/dmi/id/product_uuid"

/* Who the tracker registers as: [tracker] vm-uuid, else the UUID in
 * product_uuid_file; [tracker] hostname, else the machine's. */
typedef struct TrackerIdentity {
        char vm_uuid[TRACKER1_TEXT_MAX + 1], hostname[TRACKER1_TEXT_MAX + 1];
} TrackerIdentity;

int tracker_identity_read(const TrackerConfig *c, const char *product_uuid_file,
                          TrackerIdentity *ret);

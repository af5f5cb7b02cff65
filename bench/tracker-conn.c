/* SPDX-License-Identifier: MIT */
#include "tracker-conn.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/macro.h"
#include "controller/daemon/tracker-protocol.h"

int tracker_token_read(const char *path, char *buf, size_t size) {
        FILE *f = fopen(path, "re");
        bool ok;

        if (!f)
                return -errno;
        ok = fgets(buf, (int)size, f) != NULL;
        fclose(f);
        if (!ok)
                return -EIO;
        buf[strcspn(buf, "\n")] = '\0';
        return 0;
}

int tracker_bus_open(const char *address, sd_bus **ret) {
        _cleanup_(sd_bus_unrefp) sd_bus *bus = NULL;
        int r;

        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_set_anonymous(bus, 1);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bus);
        return 0;
}

int tracker_register(sd_bus *bus, const char *token, const char *vm_uuid, const char *hostname,
                     const unsigned slots[static 2], uint64_t slot_memory, uint64_t *ret_id,
                     uint64_t *ret_interval, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        uint64_t id, interval;
        int r;

        r = sd_bus_call_method(bus, NULL, TRACKER_OBJECT_PATH, TRACKER_INTERFACE, "Register", error,
                               &reply, "sssuut", token, vm_uuid, hostname, slots[0], slots[1],
                               slot_memory);
        if (r >= 0)
                r = sd_bus_message_read(reply, "tt", &id, &interval);
        if (r < 0)
                return r;
        *ret_id = id;
        *ret_interval = interval;
        return 0;
}

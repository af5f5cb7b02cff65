/* SPDX-License-Identifier: MIT */
#include "tracker-conn.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/macro.h"

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

int tracker_register(sd_bus *bus, const Tracker1Registration *x, Tracker1Registered *ret,
                     sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, NULL, TRACKER1_OBJECT_PATH, TRACKER1_INTERFACE,
                                           "Register");
        if (r >= 0)
                r = tracker1_register_append(m, x);
        if (r >= 0)
                r = sd_bus_call(bus, m, 0, error, &reply);
        if (r >= 0)
                r = tracker1_registered_read(reply, ret, error);
        return r;
}

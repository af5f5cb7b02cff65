/* SPDX-License-Identifier: MIT */
#include "tracker-config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/daemon-util.h"
#include "common/log.h"
#include "common/macro.h"

#define F(member) CONF_FIELD(TrackerConfig, member)

static const ConfKey tracker_keys[] = {
        { "tracker", "controller", CONF_STRING, F(controller), "tcp:host=127.0.0.1,port=7411" },
        { "tracker", "token-file", CONF_STRING, F(token_file), "/etc/flexslot/cluster-token" },
        { "tracker", "data-dir", CONF_STRING, F(data_dir), "/srv/flexslot" },
        { "tracker", "work-dir", CONF_STRING, F(work_dir), "/var/tmp" },
        { "tracker", "task-program", CONF_STRING, F(task_program), "flexslot-task" },
        { "tracker", "vm-uuid", CONF_STRING, F(vm_uuid), NULL },
        { "tracker", "hostname", CONF_STRING, F(hostname), NULL },
        { "tracker", "log-level", CONF_ENUM, F(log_level), "info",
          .choices = daemon_log_level_choices },
        { "slots", "map-slots", CONF_INT, F(map_slots), "2", .min = 0, .max = TRACKER1_SLOTS_MAX },
        { "slots", "reduce-slots", CONF_INT, F(reduce_slots), "1", .min = 0,
          .max = TRACKER1_SLOTS_MAX },
        { "slots", "slot-memory", CONF_SIZE, F(slot_memory), "200M",
          .min = (int64_t)TRACKER1_SLOT_MEMORY_MIN, .max = (int64_t)TRACKER1_SLOT_MEMORY_MAX },
        { "connection", "call-timeout", CONF_DURATION, F(call_timeout), "10s",
          .min = 10 * USEC_PER_MSEC, .max = USEC_PER_MINUTE },
        { "connection", "reconnect-max", CONF_DURATION, F(reconnect_max), "30s",
          .min = TRACKER_RECONNECT_MIN, .max = USEC_PER_HOUR },
        { "tasks", "task-user", CONF_STRING, F(task_user), "flexslot-task" },
        { "tasks", "kill-grace", CONF_DURATION, F(kill_grace), "1s", .min = 0,
          .max = USEC_PER_MINUTE },
};

static bool text_ok(const char *s) {
        size_t n = s ? strlen(s) : 0;

        return n > 0 && n <= TRACKER1_TEXT_MAX;
}

static int tracker_config_validate(const void *config, ConfError *err) {
        const TrackerConfig *c = config;
        static const struct {
                const char *key;
                size_t offset;
        } absolute[] = { { "data-dir", F(data_dir) }, { "work-dir", F(work_dir) } };

        if (!c->controller || (strncmp(c->controller, "tcp:host=", 9) != 0 &&
                               strncmp(c->controller, "unix:path=", 10) != 0))
                return conf_error_set(err, "tracker", "controller",
                                      "'%s' is neither tcp:host=H,port=P nor unix:path=P",
                                      c->controller ? c->controller : "");
        if (!c->token_file || !c->token_file[0])
                return conf_error_set(err, "tracker", "token-file", "must not be empty");
        for (size_t i = 0; i < ELEMENTSOF(absolute); i++) {
                const char *dir = *(char *const *)((const char *)c + absolute[i].offset);

                if (!dir || dir[0] != '/')
                        return conf_error_set(err, "tracker", absolute[i].key,
                                              "'%s' is not an absolute path", dir ? dir : "");
        }
        if (!c->task_program || !c->task_program[0])
                return conf_error_set(err, "tracker", "task-program", "must not be empty");
        if (c->vm_uuid && !text_ok(c->vm_uuid))
                return conf_error_set(err, "tracker", "vm-uuid", "must be 1..%d bytes",
                                      TRACKER1_TEXT_MAX);
        if (c->hostname && !text_ok(c->hostname))
                return conf_error_set(err, "tracker", "hostname", "must be 1..%d bytes",
                                      TRACKER1_TEXT_MAX);
        return 0;
}

#undef F

const ConfSchema tracker_config_schema = {
        .keys = tracker_keys,
        .n_keys = ELEMENTSOF(tracker_keys),
        .size = sizeof(TrackerConfig),
        .validate = tracker_config_validate,
};

int tracker_identity_read(const TrackerConfig *c, const char *product_uuid_file,
                          TrackerIdentity *ret) {
        TrackerIdentity id = { 0 };

        if (c->vm_uuid)
                snprintf(id.vm_uuid, sizeof(id.vm_uuid), "%s", c->vm_uuid);
        else {
                FILE *f = fopen(product_uuid_file, "re");
                bool ok = f && fgets(id.vm_uuid, sizeof(id.vm_uuid), f);

                if (f)
                        fclose(f);
                id.vm_uuid[strcspn(id.vm_uuid, "\n")] = '\0';
                if (!ok || !id.vm_uuid[0]) {
                        log_error("Cannot read the VM's UUID from %s; set [tracker] vm-uuid",
                                  product_uuid_file);
                        return -ENOENT;
                }
        }
        if (c->hostname)
                snprintf(id.hostname, sizeof(id.hostname), "%s", c->hostname);
        else if (gethostname(id.hostname, sizeof(id.hostname) - 1) < 0)
                return log_error_errno(negative_errno(), "Cannot get the host name");
        *ret = id;
        return 0;
}

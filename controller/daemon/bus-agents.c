/* SPDX-License-Identifier: MIT */
/* org.flexslot.Controller1's VM methods, which go through the agents
 * (agents.h): ResizeVm and ListVms. */
#include <stdint.h>

#include "agents.h"
#include "common/log.h"
#include "daemon.h"

static int method_resize_vm(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Controller *c = userdata;
        const char *vm;
        uint32_t vcpus;
        uint64_t memory;
        int r;

        r = sd_bus_message_read(m, "sut", &vm, &vcpus, &memory);
        if (r < 0)
                return r;
        r = agents_resize(c->agents, m, vm, vcpus, memory, error);
        if (r < 0)
                log_info("ResizeVm '%.64s' refused: %s", vm,
                         error->message ? error->message : "error");
        return r;
}

static int method_list_vms(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Controller *c = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = agents_list_vms(c->agents, reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static const sd_bus_vtable controller_vm_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("ResizeVm", SD_BUS_ARGS("s", vm, "u", vcpus, "t", memory),
                                SD_BUS_RESULT("a{s(svvss)}", verdicts), method_resize_vm, 0),
        SD_BUS_METHOD_WITH_ARGS("ListVms", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("a" CONTROLLER1_VM_TYPE, vms), method_list_vms,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

int controller_bus_vms_setup(Controller *c) {
        int r;

        r = sd_bus_add_object_vtable(c->bus, &c->vm_slot, CONTROLLER1_OBJECT_PATH,
                                     CONTROLLER1_INTERFACE, controller_vm_vtable, c);
        if (r < 0)
                return log_error_errno(r, "Cannot add the VM methods to the D-Bus object");
        return 0;
}

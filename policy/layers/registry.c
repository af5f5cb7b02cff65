/* SPDX-License-Identifier: MIT */
/* The tables of every policy of every layer, and their lookup by name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/layers/policies.h"

const JobSchedulerOps *const job_scheduler_table[] = {
        &job_scheduler_fifo,     &job_scheduler_fair, &job_scheduler_aria,
        &job_scheduler_deadline, &job_scheduler_ras,  NULL,
};

const SlotManagerOps *const slot_manager_table[] = {
        &slot_manager_static,
        &slot_manager_flexslot,
        NULL,
};

const SpeculationOps *const speculation_table[] = {
        &speculation_none, &speculation_hadoop, &speculation_late, &speculation_sepb, NULL,
};

const VmAllocatorOps *const vm_allocator_table[] = {
        &vm_allocator_none,
        &vm_allocator_static,
        &vm_allocator_demand,
        &vm_allocator_flexslot,
        &vm_allocator_drs,
        &vm_allocator_homo,
        NULL,
};

/* The four tables differ in type only; each entry starts with its name. */
#define DEFINE_OPS_FIND(func, type, table)                     \
        const type *func(const char *name) {                   \
                for (size_t i = 0; name && table[i]; i++)      \
                        if (strcmp(table[i]->name, name) == 0) \
                                return table[i];               \
                return NULL;                                   \
        }

DEFINE_OPS_FIND(job_scheduler_ops_find, JobSchedulerOps, job_scheduler_table)
DEFINE_OPS_FIND(slot_manager_ops_find, SlotManagerOps, slot_manager_table)
DEFINE_OPS_FIND(speculation_ops_find, SpeculationOps, speculation_table)
DEFINE_OPS_FIND(vm_allocator_ops_find, VmAllocatorOps, vm_allocator_table)

/* A schema not yet in c (layers may share one). */
static int config_add(PolicyConfig *c, const ConfSchema *schema) {
        ConfError err;

        if (!schema || policy_config_settings(c, schema))
                return 0;
        if (c->n_settings == POLICY_SCHEMAS_MAX)
                return -E2BIG;
        c->settings[c->n_settings] = calloc(1, schema->size);
        if (!c->settings[c->n_settings])
                return -ENOMEM;
        c->schemas[c->n_settings] = schema;
        return conf_load_defaults(schema, c->settings[c->n_settings++], &err);
}

int policy_config_init(PolicyConfig *ret) {
        PolicyConfig c = {
                .scheduler = "fifo",
                .slot_manager = "static",
                .speculation = "none",
                .vm_allocator = "static",
        };
        int r = config_add(&c, &core_settings_schema);

        for (size_t i = 0; r >= 0 && job_scheduler_table[i]; i++)
                r = config_add(&c, job_scheduler_table[i]->settings);
        for (size_t i = 0; r >= 0 && slot_manager_table[i]; i++)
                r = config_add(&c, slot_manager_table[i]->settings);
        for (size_t i = 0; r >= 0 && speculation_table[i]; i++)
                r = config_add(&c, speculation_table[i]->settings);
        for (size_t i = 0; r >= 0 && vm_allocator_table[i]; i++)
                r = config_add(&c, vm_allocator_table[i]->settings);
        if (r < 0) {
                policy_config_done(&c);
                return r;
        }
        *ret = c;
        return 0;
}

void policy_config_done(PolicyConfig *c) {
        for (size_t i = 0; i < c->n_settings; i++) {
                conf_free(c->schemas[i], c->settings[i]);
                free(c->settings[i]);
        }
        *c = (PolicyConfig){ 0 };
}

void *policy_config_settings(const PolicyConfig *c, const ConfSchema *schema) {
        for (size_t i = 0; schema && i < c->n_settings; i++)
                if (c->schemas[i] == schema)
                        return c->settings[i];
        return NULL;
}

void policy_config_parts(PolicyConfig *c, ConfPart *parts) {
        for (size_t i = 0; i < c->n_settings; i++)
                parts[i] = (ConfPart){ .schema = c->schemas[i], .config = c->settings[i] };
}

/* -EINVAL, with err naming the key and the table's layers (each entry of
 * a table starts with its name). */
static int unknown_layer(ConfError *err, const char *key, const char *name,
                         const void *const *table) {
        char names[160] = "";
        size_t used = 0;

        for (size_t i = 0; table[i] && used < sizeof(names); i++)
                used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", i ? ", " : "",
                                         *(const char *const *)table[i]);
        return conf_error_set(err, POLICY_SECTION, key, "unknown policy '%s' (one of: %s)",
                              name ? name : "", names);
}

int policy_new_named(const PolicyConfig *cfg, ConfError *err, Policy **ret) {
        PolicyLayers layers;
        ConfError ignored;

        if (!err)
                err = &ignored;
        memset(err, 0, sizeof(*err));
        if (!cfg)
                return -EINVAL;
        layers = (PolicyLayers){
                .scheduler = job_scheduler_ops_find(cfg->scheduler),
                .slot_manager = slot_manager_ops_find(cfg->slot_manager),
                .speculation = speculation_ops_find(cfg->speculation),
                .vm_allocator = vm_allocator_ops_find(cfg->vm_allocator),
        };
        if (!layers.scheduler)
                return unknown_layer(err, "scheduler", cfg->scheduler,
                                     (const void *const *)job_scheduler_table);
        if (!layers.slot_manager)
                return unknown_layer(err, "slot_manager", cfg->slot_manager,
                                     (const void *const *)slot_manager_table);
        if (!layers.speculation)
                return unknown_layer(err, "speculation", cfg->speculation,
                                     (const void *const *)speculation_table);
        if (!layers.vm_allocator)
                return unknown_layer(err, "allocator", cfg->vm_allocator,
                                     (const void *const *)vm_allocator_table);
        layers.scheduler_settings = policy_config_settings(cfg, layers.scheduler->settings);
        layers.slot_manager_settings = policy_config_settings(cfg, layers.slot_manager->settings);
        layers.speculation_settings = policy_config_settings(cfg, layers.speculation->settings);
        layers.vm_allocator_settings = policy_config_settings(cfg, layers.vm_allocator->settings);
        return policy_new(&layers, policy_config_settings(cfg, &core_settings_schema), err, ret);
}

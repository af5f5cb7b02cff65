/* SPDX-License-Identifier: MIT */
/* The controller's side of the agents: [agents] hosts in its configuration,
 * and which steal a node's snapshot takes (tests/integration/
 * controller-agents.sh runs the rest with a real agent). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/config.h"
#include "common/macro.h"
#include "controller/daemon/agent-hosts.h"
#include "controller/daemon/agent-rate.h"
#include "controller/daemon/agents-internal.h"
#include "controller/daemon/cluster-heartbeat.h"
#include "controller/daemon/cluster-snapshot.h"
#include "controller/daemon/cluster.h"
#include "controller/daemon/controllerd-config.h"
#include "policy/layers/policies.h"
#include "controller/store/store.h"
#include "proto/controller1.h"
#include "proto/errors.h"
#include "tests.h"

START_TEST(test_hosts_forms) {
        AgentHost *h = NULL;
        size_t n = 0;
        char why[256] = "";

        ck_assert_int_eq(agent_hosts_parse(" local\tunix:path=/run/a  tcp:host=h1,port=7 "
                                           "ssh:root@node-2.example unixexec:path=/bin/x ",
                                           &h, &n, why, sizeof(why)),
                         0);
        ck_assert_uint_eq(n, 5);
        ck_assert_int_eq(h[0].kind, AGENT_HOST_LOCAL);
        ck_assert_ptr_null(h[0].target);
        ck_assert_int_eq(h[1].kind, AGENT_HOST_ADDRESS);
        ck_assert_str_eq(h[1].target, "unix:path=/run/a");
        ck_assert_str_eq(h[2].target, "tcp:host=h1,port=7");
        ck_assert_int_eq(h[3].kind, AGENT_HOST_SSH);
        ck_assert_str_eq(h[3].target, "root@node-2.example");
        ck_assert_str_eq(h[3].name, "ssh:root@node-2.example");
        agent_hosts_free(h, n);

        ck_assert_int_eq(agent_hosts_parse("", &h, &n, why, sizeof(why)), 0);
        ck_assert_uint_eq(n, 0);
        agent_hosts_free(h, n);
}
END_TEST

START_TEST(test_hosts_refused) {
        static const struct {
                const char *text, *said;
        } cases[] = {
                { "local bogus", "'bogus' is neither local" },
                { "ssh:", "'ssh:' is not ssh:[USER@]HOST" },
                { "ssh:-oProxyCommand=x", "is not ssh:" },
                { "ssh:a@b@c", "is not ssh:" },
                { "ssh:host;rm", "is not ssh:" },
                { "unix:path=", "neither local" },
                { "local local", "'local' is listed twice" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                AgentHost *h = (AgentHost *)&cases;
                size_t n = 77;
                char why[256] = "";

                ck_assert_int_eq(agent_hosts_parse(cases[i].text, &h, &n, why, sizeof(why)),
                                 -EINVAL);
                ck_assert_msg(strstr(why, cases[i].said), "%s: %s", cases[i].text, why);
                ck_assert_ptr_eq(h, (AgentHost *)&cases);
                ck_assert_uint_eq(n, 77);
        }
}
END_TEST

START_TEST(test_config_names_the_line) {
        ControllerConfig c = { 0 };
        ConfError err = { 0 };

        ck_assert_int_eq(conf_load_string(&controller_config_schema, "controller.ini",
                                          "[agents]\ncall-timeout = 2s\nhosts = local ssh:\n", &c,
                                          &err),
                         -EINVAL);
        ck_assert_uint_eq(err.line, 3);
        ck_assert_str_eq(err.section, "agents");
        ck_assert_str_eq(err.key, "hosts");
        ck_assert_ptr_nonnull(strstr(err.message, "'ssh:'"));
        ck_assert_ptr_null(c.agent_hosts);

        ck_assert_int_eq(conf_load_string(&controller_config_schema, "controller.ini",
                                          "[agents]\nhosts = local unix:path=/run/x\n", &c, &err),
                         0);
        ck_assert_str_eq(c.agent_hosts, "local unix:path=/run/x");
        ck_assert_uint_eq(c.agent_call_timeout, 5 * USEC_PER_SEC);
        ck_assert_uint_eq(c.agent_not_managed_retry, 5 * USEC_PER_MINUTE);
        conf_free(&controller_config_schema, &c);
}
END_TEST

/* Every speculation layer of the policy core runs live; an unknown one is
 * refused at its line. */
START_TEST(test_config_speculation) {
        static const char *const names[] = { "none", "hadoop", "late", "sepb" };
        ControllerConfig c = { 0 };
        ConfError err = { 0 };
        char text[64];

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                snprintf(text, sizeof(text), "[policy]\nspeculation = %s\n", names[i]);
                ck_assert_int_eq(conf_load_string(&controller_config_schema, "controller.ini", text,
                                                  &c, &err),
                                 0);
                ck_assert_str_eq(c.speculation, names[i]);
                conf_free(&controller_config_schema, &c);
        }
        ck_assert_int_eq(conf_load_string(&controller_config_schema, "controller.ini",
                                          "[policy]\nspeculation = hopeful\n", &c, &err),
                         -EINVAL);
        ck_assert_str_eq(err.key, "speculation");
        ck_assert_ptr_nonnull(strstr(err.message, "'hopeful'"));
}
END_TEST

/* [jobs] keep-ended: a week unless said, 0 keeps every job; a value that
 * is no duration is refused naming the file, line, section and key. */
START_TEST(test_config_keep_ended) {
        static const char *const bad[] = { "forever", "-1d", "7 days" };
        ControllerConfig c = { 0 };
        ConfError err = { 0 };
        char text[64], said[512];

        ck_assert_int_eq(
                conf_load_string(&controller_config_schema, "controller.ini", "", &c, &err), 0);
        ck_assert_uint_eq(c.keep_ended, 7 * 24 * USEC_PER_HOUR);
        conf_free(&controller_config_schema, &c);
        ck_assert_int_eq(conf_load_string(&controller_config_schema, "controller.ini",
                                          "[jobs]\nkeep-ended = 0\n", &c, &err),
                         0);
        ck_assert_uint_eq(c.keep_ended, 0);
        conf_free(&controller_config_schema, &c);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                snprintf(text, sizeof(text), "[jobs]\n\nkeep-ended = %s\n", bad[i]);
                ck_assert_int_eq(conf_load_string(&controller_config_schema, "controller.ini", text,
                                                  &c, &err),
                                 -EINVAL);
                conf_error_format(&err, said, sizeof(said));
                ck_assert_msg(strstr(said, "controller.ini") && strstr(said, ":3") &&
                                      strstr(said, "jobs") && strstr(said, "keep-ended"),
                              "%s", said);
        }
}
END_TEST

/* The agent's steal stands for the tracker's while the agent measures it;
 * a VM whose agent is gone (vm.host 0) or measures none falls back. */
START_TEST(test_steal_source) {
        ClusterNode n = { .steal = 0.25, .measured_at = 1000 };
        double steal = -1;
        usec_t at = 0;

        ck_assert_int_eq(cluster_node_steal(&n, &steal, &at), CLUSTER_STEAL_TRACKER);
        ck_assert_double_eq(steal, 0.25);
        ck_assert_uint_eq(at, 1000);

        n.vm = (ClusterVmState){ .host = 1, .has_steal = true, .steal = 0.6, .steal_at = 2000 };
        ck_assert_int_eq(cluster_node_steal(&n, &steal, &at), CLUSTER_STEAL_AGENT);
        ck_assert_double_eq(steal, 0.6);
        ck_assert_uint_eq(at, 2000);

        n.vm.has_steal = false; /* libvirt's test driver, a guest without vcpu.N.delay */
        ck_assert_int_eq(cluster_node_steal(&n, &steal, &at), CLUSTER_STEAL_TRACKER);
        ck_assert_double_eq(steal, 0.25);

        n.vm = (ClusterVmState){ 0 }; /* the agent went away */
        n.measured_at = 0;
        n.steal = 0;
        ck_assert_int_eq(cluster_node_steal(&n, &steal, &at), CLUSTER_STEAL_NONE);
        ck_assert_double_eq(steal, 0);
        ck_assert_uint_eq(at, 0);
}
END_TEST

/* A round in which the agent measured no steal (its stats call was too
 * slow to time the interval) says nothing of the steal: the last measured
 * one stands until it is max-sample-age old, and is never turned into 0. */
START_TEST(test_rate_kept_while_fresh) {
        const usec_t max_age = 15 * USEC_PER_SEC, t0 = 1000 * USEC_PER_SEC;
        AgentRate r = { 0 };

        r = agent_rate_next(r, false, 0.0, t0, t0, max_age);
        ck_assert_uint_eq(r.at, 0); /* nothing measured yet: unknown */
        r = agent_rate_next(r, true, 0.82, t0 + USEC_PER_SEC, t0 + USEC_PER_SEC, max_age);
        ck_assert_double_eq(r.value, 0.82);
        ck_assert_uint_eq(r.at, t0 + USEC_PER_SEC);
        for (usec_t t = 2; t <= 16; t++) {
                r = agent_rate_next(r, false, 0.0, 0, t0 + t * USEC_PER_SEC, max_age);
                ck_assert_double_eq(r.value, 0.82);
                ck_assert_uint_eq(r.at, t0 + USEC_PER_SEC);
        }
        r = agent_rate_next(r, false, 0.0, 0, t0 + 17 * USEC_PER_SEC, max_age);
        ck_assert_uint_eq(r.at, 0);
        /* A measured 0 is a value like any other. */
        r = agent_rate_next((AgentRate){ .value = 0.5, .at = t0 }, true, 0.0, t0 + 1, t0 + 1,
                            max_age);
        ck_assert_double_eq(r.value, 0.0);
        ck_assert_uint_eq(r.at, t0 + 1);
        /* A clock that went back makes the old value no younger. */
        r = agent_rate_next((AgentRate){ .value = 0.5, .at = t0 }, false, 0.0, 0, t0 - 1, max_age);
        ck_assert_uint_eq(r.at, 0);
}
END_TEST

/* An agent's value of a VM busy in a job is its last, with its age: it
 * counts from when the agent measured it, not from when the controller
 * heard of it, and never replaces a newer one. */
START_TEST(test_rate_aged_by_the_agent) {
        const usec_t max_age = 15 * USEC_PER_SEC, t0 = 1000 * USEC_PER_SEC;
        AgentRate r;

        /* Measured 10 s before the sample: 5 s left. */
        r = agent_rate_next((AgentRate){ 0 }, true, 0.4, t0 - 10 * USEC_PER_SEC, t0, max_age);
        ck_assert_double_eq(r.value, 0.4);
        ck_assert_uint_eq(r.at, t0 - 10 * USEC_PER_SEC);
        r = agent_rate_next(r, true, 0.4, t0 - 10 * USEC_PER_SEC, t0 + 5 * USEC_PER_SEC, max_age);
        ck_assert_uint_eq(r.at, t0 - 10 * USEC_PER_SEC);
        r = agent_rate_next(r, true, 0.4, t0 - 10 * USEC_PER_SEC, t0 + 6 * USEC_PER_SEC, max_age);
        ck_assert_uint_eq(r.at, 0);
        /* Older than max-sample-age already when it came: unknown. */
        r = agent_rate_next((AgentRate){ 0 }, true, 0.4, t0 - 20 * USEC_PER_SEC, t0, max_age);
        ck_assert_uint_eq(r.at, 0);
        /* An older value than the one held (an agent restarted from an
         * older sample) leaves the newer one. */
        r = agent_rate_next((AgentRate){ .value = 0.7, .at = t0 }, true, 0.4, t0 - USEC_PER_SEC,
                            t0 + USEC_PER_SEC, max_age);
        ck_assert_double_eq(r.value, 0.7);
        ck_assert_uint_eq(r.at, t0);
}
END_TEST

/* The CPU weight's dead band: a tenth of the VM's weight, at least 16; a
 * change within it is no change, so the other resources decide alone. */
START_TEST(test_weight_dead_band) {
        AgentVm vm = { .valid = AGENT1_METRIC_CPU_WEIGHT | AGENT1_METRIC_CPU_CAP,
                       .vcpus = 2,
                       .memory = 1ull << 30,
                       .cpu_weight = 1024,
                       .cpu_cap = 0.4 };
        VmTarget t = { .vcpus = 2, .memory = 1ull << 30, .cpu_weight = 1126, .cpu_cap = 0.4 };
        AgentTarget diff;

        ck_assert(!agent_weight_changed(1126, 1024));
        ck_assert(agent_weight_changed(1127, 1024));
        ck_assert(!agent_weight_changed(922, 1024));
        ck_assert(agent_weight_changed(921, 1024));
        /* Small weights: the agent's own least change. */
        ck_assert(!agent_weight_changed(116, 100));
        ck_assert(agent_weight_changed(117, 100));
        ck_assert(!agent_target_diff(&t, &vm, &diff));
        t.cpu_weight = 1200;
        ck_assert(agent_target_diff(&t, &vm, &diff));
        ck_assert_uint_eq(diff.cpu_weight, 1200);
        ck_assert(!diff.set_cap && diff.vcpus == 0 && diff.memory == 0);
        /* A weight within the band rides along unsent with a cap that moved. */
        t.cpu_weight = 1030;
        t.cpu_cap = 0.8;
        ck_assert(agent_target_diff(&t, &vm, &diff));
        ck_assert_uint_eq(diff.cpu_weight, 0);
        ck_assert(diff.set_cap);
        ck_assert_double_eq(diff.cpu_cap, 0.8);
}
END_TEST

/* A live model on a store of its own, under the flexslot VM allocator. */
typedef struct Model {
        char *dir;
        Store *store;
        Policy *policy;
        Cluster *cluster;
} Model;

/* A VM as its host's agent reports it: 2 of 4 vCPUs, 1 of 4 GiB, on host 1
 * of 16 CPUs and 16 GiB. */
static const ClusterVmState vm_on_host_1 = { .host = 1,
                                             .host_cpus = 16,
                                             .host_memory = 16ull << 30,
                                             .vcpus = 2,
                                             .vcpus_max = 4,
                                             .memory = 1ull << 30,
                                             .memory_max = 4ull << 30 };

static void model_open(Model *m) {
        _cleanup_(policy_config_done) PolicyConfig cfg = { 0 };
        StoreError err = { 0 };
        char path[4096];

        m->dir = test_make_tmpdir();
        ck_assert_ptr_nonnull(m->dir);
        snprintf(path, sizeof(path), "%s/store.db", m->dir);
        ck_assert_int_eq(store_open(path, &m->store, &err), 0);
        ck_assert_int_eq(policy_config_init(&cfg), 0);
        cfg.vm_allocator = "flexslot";
        ck_assert_int_eq(policy_new_named(&cfg, NULL, &m->policy), 0);
        const ClusterData data = { .data_dir = m->dir, .block_size = 64 << 20 };

        ck_assert_int_eq(cluster_new(m->store, m->policy, &data, &m->cluster, &err), 0);
}

static void model_close(Model *m) {
        cluster_free(m->cluster);
        policy_free(m->policy);
        store_close(m->store);
        test_remove_tree(m->dir);
        free(m->dir);
}

/* A node whose VM an agent reports is sized as the agent says: the flexslot
 * allocator wants a vCPU per map slot, up to the VM's maximum, and memory
 * within it; a node no agent knows keeps the one-vCPU stand-in. */
/* Whose word a vCPU target's state in ListVms is: the guest agent's
 * stands whatever the tracker reports; without it, the tracker's report of
 * the CPUs online decides a target the agent saw reached by libvirt's
 * count; without either, the agent's state as it is. */
START_TEST(test_vcpus_target_shown) {
        static const struct {
                const char *state, *source;
                uint32_t guest_cpus;
                const char *shown, *shown_source;
        } cases[] = {
                { "reached", "guest-agent", 2, "reached", "guest-agent" },
                { "unreached", "guest-agent", 4, "unreached", "guest-agent" },
                { "reached", "hypervisor", 2, "unreached", "tracker" },
                { "reached", "hypervisor", 4, "reached", "tracker" },
                { "reached", "", 2, "unreached", "tracker" },
                { "unreached", "hypervisor", 4, "unreached", "hypervisor" },
                { "reached", "hypervisor", 0, "reached", "hypervisor" },
                { "pending", "", 2, "pending", "" },
                { "", "", 0, "", "" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                AgentVm vm = { .vcpus = 4 };
                const char *state, *source;

                snprintf(vm.vcpus_target, sizeof(vm.vcpus_target), "%s", cases[i].state);
                snprintf(vm.vcpus_target_source, sizeof(vm.vcpus_target_source), "%s",
                         cases[i].source);
                agent_vcpus_target_shown(&vm, cases[i].guest_cpus, &state, &source);
                ck_assert_msg(strcmp(state, cases[i].shown) == 0 &&
                                      strcmp(source, cases[i].shown_source) == 0,
                              "case %zu: %s %s", i, state, source);
        }
}
END_TEST

START_TEST(test_snapshot_takes_agent_vm) {
        const unsigned slots[_SLOT_TYPE_MAX] = { 3, 1 };
        Model m = { 0 };
        Cluster *cl;
        uint64_t known, unknown;
        const VmTarget *t;

        model_open(&m);
        cl = m.cluster;
        ck_assert_int_eq(cluster_register(cl, "11111111-1111-1111-1111-111111111111", "w1", slots,
                                          256 << 20, 1, &known),
                         0);
        ck_assert_int_eq(cluster_register(cl, "22222222-2222-2222-2222-222222222222", "w2", slots,
                                          256 << 20, 1, &unknown),
                         0);
        cl->nodes[0].vm = vm_on_host_1;
        ck_assert_int_eq(cluster_control(cl, 1000000), 0);

        ck_assert_uint_ge(cl->decisions.n_vm_targets, 1);
        t = &cl->decisions.vm_targets[0];
        ck_assert_uint_eq(t->vm, 0); /* the node's index */
        ck_assert_uint_eq(t->vcpus, 3);
        ck_assert_uint_gt(t->memory, 0);
        ck_assert_uint_le(t->memory, 4ull << 30);
        for (size_t i = 1; i < cl->decisions.n_vm_targets; i++)
                ck_assert_uint_le(cl->decisions.vm_targets[i].vcpus, 1);
        model_close(&m);
}
END_TEST

/* The metrics' rows are what ListVms shows of each agent's VM: the vCPU
 * target's source (the tracker's where its count of the CPUs online has
 * the last word), the guest agent's count and state; empty for an agent
 * before Agent1 version 5. */
START_TEST(test_vm_guests_as_listed) {
        const unsigned slots[_SLOT_TYPE_MAX] = { 2, 1 };
        const AgentHost host = { .name = (char *)"local" };
        AgentVm vms[3] = { { .uuid = "11111111-1111-1111-1111-111111111111",
                             .name = "w1",
                             .vcpus = 4,
                             .vcpus_target = AGENT1_TARGET_REACHED,
                             .vcpus_target_source = AGENT1_SOURCE_HYPERVISOR,
                             .guest_agent = AGENT1_GUEST_AGENT_UNRESPONSIVE },
                           { .uuid = "22222222-2222-2222-2222-222222222222",
                             .name = "w2",
                             .vcpus = 2,
                             .vcpus_target = AGENT1_TARGET_REACHED,
                             .vcpus_target_source = AGENT1_SOURCE_GUEST_AGENT,
                             .guest_vcpus = 2,
                             .guest_agent = AGENT1_GUEST_AGENT_ANSWERED },
                           { .uuid = "33333333-3333-3333-3333-333333333333", .name = "old" } };
        AgentLink link = { .host = &host, .vms = vms, .n_vms = ELEMENTSOF(vms), .reachable = true };
        _cleanup_free_ AgentsVmGuest *rows = NULL;
        Model m = { 0 };
        Agents a;
        size_t n = 0;
        uint64_t node;

        model_open(&m);
        a = (Agents){ .cluster = m.cluster, .links = &link, .n = 1 };
        link.owner = &a;
        /* w1's tracker counts 2 CPUs online of the 4 libvirt plugged. */
        ck_assert_int_eq(cluster_register(m.cluster, vms[0].uuid, "w1", slots, 256 << 20, 1, &node),
                         0);
        m.cluster->nodes[0].guest.cpus = 2;

        ck_assert_int_eq(agents_vm_guests(&a, &rows, &n), 0);
        ck_assert_uint_eq(n, 3);
        for (size_t i = 0; i < n; i++) {
                ck_assert_str_eq(rows[i].uuid, vms[i].uuid);
                ck_assert_str_eq(rows[i].name, vms[i].name);
                ck_assert_str_eq(rows[i].agent, "local");
        }
        ck_assert_str_eq(rows[0].vcpus_target_source, CONTROLLER1_SOURCE_TRACKER);
        ck_assert_uint_eq(rows[0].guest_agent_vcpus, 0);
        ck_assert_str_eq(rows[0].guest_agent, AGENT1_GUEST_AGENT_UNRESPONSIVE);
        ck_assert_str_eq(rows[1].vcpus_target_source, AGENT1_SOURCE_GUEST_AGENT);
        ck_assert_uint_eq(rows[1].guest_agent_vcpus, 2);
        ck_assert_str_eq(rows[1].guest_agent, AGENT1_GUEST_AGENT_ANSWERED);
        ck_assert_str_eq(rows[2].vcpus_target_source, "");
        ck_assert_uint_eq(rows[2].guest_agent_vcpus, 0);
        ck_assert_str_eq(rows[2].guest_agent, "");
        model_close(&m);
}
END_TEST

/* Other tenants' VMs come into the snapshot after the trackers', marked
 * as such and on their agent's host; one keeps its id while the agents
 * report it, a new one gets a new id, never a node's; the VMs moving
 * drops the kept snapshot; and a VM a tracker registers for is no
 * tenant's any more. The flexslot allocator sizes none of them. */
START_TEST(test_tenants_in_snapshot) {
        const unsigned slots[_SLOT_TYPE_MAX] = { 3, 1 };
        ClusterTenantVm tenants[2] = {
                { .uuid = "22222222-2222-2222-2222-222222222222", .vm = vm_on_host_1 },
                { .uuid = "33333333-3333-3333-3333-333333333333", .vm = vm_on_host_1 }
        };
        Model m = { 0 };
        Cluster *cl;
        uint64_t node, first_id;
        unsigned flags = 0;
        const ClusterSnapshot *s;

        model_open(&m);
        cl = m.cluster;
        cl->verify_snapshot = true;
        ck_assert_int_eq(cluster_register(cl, "11111111-1111-1111-1111-111111111111", "w1", slots,
                                          256 << 20, 1, &node),
                         0);
        cl->nodes[0].vm = vm_on_host_1;
        ck_assert_int_eq(cluster_set_tenants(cl, tenants, 2), 0);
        ck_assert_int_eq(cluster_snapshot_prepare(cl, &flags), 0);
        s = &cl->snapshot->s;
        ck_assert_uint_eq(s->n_vms, 3);
        ck_assert_uint_eq(s->n_hosts, 1);
        ck_assert(!s->vms[0].other_tenant);
        ck_assert(!s->vms[1].unmanaged && !s->vms[2].unmanaged);
        ck_assert(s->vms[1].other_tenant && s->vms[2].other_tenant);
        ck_assert_uint_eq(s->vms[1].host, 0);
        ck_assert_uint_ge(s->vms[1].id, CLUSTER_TENANT_VM_ID_BASE);
        ck_assert_uint_ne(s->vms[1].id, s->vms[2].id);
        first_id = s->vms[2].id;
        ck_assert_int_eq(snapshot_validate(s), 0);
        ck_assert_int_eq(cluster_control(cl, 1000000), 0);
        for (size_t i = 0; i < cl->decisions.n_vm_targets; i++)
                ck_assert_uint_eq(cl->decisions.vm_targets[i].vm, 0);

        /* The same VMs with new measures: the snapshot stays; one gone:
         * built anew, the other's id kept. */
        tenants[1].vm.cpu_use = 1.5;
        ck_assert_int_eq(cluster_set_tenants(cl, tenants, 2), 0);
        ck_assert_ptr_nonnull(cl->snapshot);
        /* Its agent refused it as not managed: the kept snapshot says so. */
        tenants[1].vm.unmanaged = true;
        ck_assert_int_eq(cluster_set_tenants(cl, tenants, 2), 0);
        ck_assert_int_eq(cluster_snapshot_prepare(cl, &flags), 0);
        ck_assert(!cl->snapshot->s.vms[1].unmanaged);
        ck_assert(cl->snapshot->s.vms[2].unmanaged);
        ck_assert_int_eq(cluster_set_tenants(cl, &tenants[1], 1), 0);
        ck_assert_ptr_null(cl->snapshot);
        ck_assert_int_eq(cluster_snapshot_prepare(cl, &flags), 0);
        ck_assert_uint_eq(cl->snapshot->s.n_vms, 2);
        ck_assert_uint_eq(cl->snapshot->s.vms[1].id, first_id);

        /* A tracker registers in the tenant's VM: it is a tracker's now. */
        ck_assert_int_eq(cluster_register(cl, "33333333-3333-3333-3333-333333333333", "w3", slots,
                                          256 << 20, 1, &node),
                         0);
        ck_assert_uint_eq(cl->n_tenants, 0);
        ck_assert_uint_eq(cluster_snapshot_vms(cl), 2);

        model_close(&m);
}
END_TEST

/* The agent's answer to a target, an error as sd-bus reads it from the
 * wire (sealed). */
static sd_bus_message *refusal(sd_bus *bus, const char *name) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        sd_bus_message *m = NULL;
        static uint64_t cookie;

        ck_assert_int_ge(sd_bus_message_new_method_call(bus, &call, AGENT1_BUS_NAME,
                                                        AGENT1_OBJECT_PATH, AGENT1_INTERFACE,
                                                        "SetTarget"),
                         0);
        ck_assert_int_ge(sd_bus_message_seal(call, ++cookie, 0), 0);
        ck_assert_int_ge(sd_bus_message_new_method_errorf(call, &m, name, "refused"), 0);
        ck_assert_int_ge(sd_bus_message_seal(m, ++cookie, 0), 0);
        return m;
}

/* A NotManaged refusal is kept for the VM (the policy step's
 * Vm.unmanaged, which the lever leaves alone); another refusal is not. */
START_TEST(test_not_managed_remembered) {
        const AgentHost host = { .name = (char *)"local" };
        AgentVm vms[2] = { { .uuid = "22222222-2222-2222-2222-222222222222", .pending = true },
                           { .uuid = "33333333-3333-3333-3333-333333333333", .pending = true } };
        AgentLink l = { .host = &host, .vms = vms, .n_vms = 2 };
        int peer;
        sd_bus *bus = test_bus_unused(&peer);
        sd_bus_message *m;

        m = refusal(bus, AGENT1_ERROR_NOT_MANAGED);
        agents_target_answered(&l, vms[0].uuid, false, m);
        sd_bus_message_unref(m);
        m = refusal(bus, AGENT1_ERROR_OUT_OF_RANGE);
        agents_target_answered(&l, vms[1].uuid, false, m);
        sd_bus_message_unref(m);
        ck_assert(vms[0].unmanaged);
        ck_assert_uint_gt(vms[0].unmanaged_at, 0);
        ck_assert(!vms[1].unmanaged);
        ck_assert(!vms[0].pending && !vms[1].pending);
        ck_assert_uint_eq(vms[0].failed, 1);
        ck_assert_msg(strstr(vms[0].last, AGENT1_ERROR_NOT_MANAGED), "%s", vms[0].last);

        sd_bus_close_unref(bus);
        close(peer);
}
END_TEST

/* A remembered NotManaged refusal is forgotten, so that the next target
 * asks again, once it is not-managed-retry old or when the agent answers
 * anew; till then each new sample keeps it with what else this controller
 * did to the VM. */
START_TEST(test_not_managed_asked_again) {
        const usec_t retry = 5 * USEC_PER_MINUTE, t0 = 1000 * USEC_PER_SEC;
        const AgentHost host = { .name = (char *)"local" };
        const AgentVm old = { .uuid = "22222222-2222-2222-2222-222222222222",
                              .unmanaged = true,
                              .unmanaged_at = t0,
                              .failed = 1,
                              .last = "org.flexslot.Agent1.Error.NotManaged: refused" };
        AgentVm vm = { .uuid = "22222222-2222-2222-2222-222222222222" };
        AgentLink l = { .host = &host };

        ck_assert(!agents_vm_carry_over(&vm, &old, false, t0 + retry - 1, retry));
        ck_assert(vm.unmanaged);
        ck_assert_uint_eq(vm.unmanaged_at, t0);
        ck_assert_uint_eq(vm.failed, 1);
        ck_assert_str_eq(vm.last, old.last);

        ck_assert(agents_vm_carry_over(&vm, &old, false, t0 + retry, retry));
        ck_assert(!vm.unmanaged);
        ck_assert_uint_eq(vm.failed, 1);
        ck_assert(agents_vm_carry_over(&vm, &old, true, t0 + 1, retry));
        ck_assert(!vm.unmanaged);
        /* A VM never refused has nothing to forget. */
        vm = (AgentVm){ .failed = 2 };
        ck_assert(!agents_vm_carry_over(&vm, &(AgentVm){ .failed = 2 }, true, t0 + retry, retry));

        /* Anew: the first answer, one after the agent was unreachable, or
         * another agent's (restarted: another unique name on the bus). */
        ck_assert(agents_link_answered_by(&l, ":1.7"));
        l.reachable = true;
        ck_assert(!agents_link_answered_by(&l, ":1.7"));
        ck_assert(agents_link_answered_by(&l, ":1.9"));
        ck_assert(!agents_link_answered_by(&l, ":1.9"));
        l.reachable = false;
        ck_assert(agents_link_answered_by(&l, ":1.9"));
        /* A direct connection names no sender: only unreachability counts. */
        l.reachable = true;
        ck_assert(agents_link_answered_by(&l, NULL));
        ck_assert(!agents_link_answered_by(&l, NULL));
}
END_TEST

Suite *suite_controller_agents(void) {
        Suite *s = suite_create("controller_agents");
        TCase *tc = tcase_create("config");

        tcase_add_test(tc, test_hosts_forms);
        tcase_add_test(tc, test_hosts_refused);
        tcase_add_test(tc, test_config_names_the_line);
        tcase_add_test(tc, test_config_speculation);
        tcase_add_test(tc, test_config_keep_ended);
        suite_add_tcase(s, tc);
        tc = tcase_create("steal");
        tcase_add_test(tc, test_steal_source);
        tcase_add_test(tc, test_rate_kept_while_fresh);
        tcase_add_test(tc, test_rate_aged_by_the_agent);
        tcase_add_test(tc, test_weight_dead_band);
        tcase_add_test(tc, test_vcpus_target_shown);
        tcase_add_test(tc, test_vm_guests_as_listed);
        tcase_add_test(tc, test_snapshot_takes_agent_vm);
        tcase_add_test(tc, test_tenants_in_snapshot);
        tcase_add_test(tc, test_not_managed_remembered);
        tcase_add_test(tc, test_not_managed_asked_again);
        suite_add_tcase(s, tc);
        return s;
}

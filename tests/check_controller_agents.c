/* SPDX-License-Identifier: MIT */
/* The controller's side of the agents: [agents] hosts in its configuration,
 * and which steal a node's snapshot takes. */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "common/config.h"
#include "controller/daemon/agent-hosts.h"
#include "controller/daemon/config.h"
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
        conf_free(&controller_config_schema, &c);
}
END_TEST

Suite *suite_controller_agents(void) {
        Suite *s = suite_create("controller_agents");
        TCase *tc = tcase_create("config");

        tcase_add_test(tc, test_hosts_forms);
        tcase_add_test(tc, test_hosts_refused);
        tcase_add_test(tc, test_config_names_the_line);
        suite_add_tcase(s, tc);
        return s;
}

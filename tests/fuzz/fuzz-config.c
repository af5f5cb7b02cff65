/* SPDX-License-Identifier: MIT */
/* libFuzzer: the configuration loader (common/config.c over inih) on the
 * daemons' schemas as they load them: the agent's, the controller's with
 * every policy layer's parts, and a simulator scenario (the simulator's
 * keys and the same parts). The first byte picks one; the rest is the
 * file's text. Whatever the text, a load succeeds or says why, and frees
 * what it took. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent-config.h"
#include "common/config.h"
#include "common/macro.h"
#include "controller/daemon/controllerd-config.h"
#include "policy/layers/policies.h"
#include "sim/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void load_agent(const char *text) {
        AgentConfig c = { 0 };
        ConfError err;

        if (conf_load_string(&agent_config_schema, "agent.ini", text, &c, &err) == 0)
                conf_free(&agent_config_schema, &c);
}

static void load_controller(const char *text) {
        ControllerConfig c = { 0 };
        PolicyConfig policy;
        ConfPart parts[1 + POLICY_SCHEMAS_MAX];
        ConfError err;

        if (policy_config_init(&policy) < 0)
                return;
        parts[0] = (ConfPart){ .schema = &controller_config_schema, .config = &c };
        policy_config_parts(&policy, parts + 1);
        if (conf_load_parts(parts, 1 + policy.n_settings, "controller.ini", text, NULL, 0, &err) ==
            0)
                conf_free(&controller_config_schema, &c);
        policy_config_done(&policy);
}

static void load_scenario(const char *text) {
        Scenario s = { 0 };
        char err[512];

        if (scenario_load_string("scenario.ini", text, &s, err, sizeof(err)) == 0)
                scenario_done(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static void (*const loaders[])(const char *) = { load_agent, load_controller,
                                                         load_scenario };
        char *text;

        if (size == 0)
                return 0;
        text = malloc(size);
        if (!text)
                return 0;
        /* The loader takes text up to a NUL, as from a file read whole. */
        memcpy(text, data + 1, size - 1);
        text[size - 1] = '\0';
        loaders[data[0] % ELEMENTSOF(loaders)](text);
        free(text);
        return 0;
}

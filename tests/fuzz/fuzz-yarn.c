/* SPDX-License-Identifier: MIT */
/* libFuzzer on the decoders of YARN's REST answers (controller/yarn/
 * yarn-json.c): every decoder on the same bytes, which must decode or be
 * refused, never crash, leak or read out of bounds. Its seed corpus is the
 * answers recorded from a real YARN (tests/fixtures/yarn/). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "controller/yarn/yarn-json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        /* An answer's body arrives NUL-terminated (yarn-http.c). */
        char *body = malloc(size + 1), why[256], text[128];
        YarnNode *nodes;
        YarnApp *apps, *app;
        YarnJob *jobs;
        YarnTask *tasks;
        YarnAttempt *attempts;
        YarnResource res;
        YarnAttemptState state;
        char *reservation;
        size_t n;
        unsigned k;

        if (!body)
                return 0;
        memcpy(body, data, size);
        body[size] = '\0';
        if (yarn_decode_nodes(body, size, &nodes, &n, why, sizeof(why)) >= 0)
                yarn_nodes_free(nodes, n);
        if (yarn_decode_apps(body, size, &apps, &n, why, sizeof(why)) >= 0)
                yarn_apps_free(apps, n);
        if (yarn_decode_app(body, size, &app, why, sizeof(why)) >= 0)
                yarn_apps_free(app, 1);
        if (yarn_decode_jobs(body, size, &jobs, &n, why, sizeof(why)) >= 0)
                yarn_jobs_free(jobs, n);
        if (yarn_decode_tasks(body, size, &tasks, &n, why, sizeof(why)) >= 0) {
                for (size_t i = 0; i < n; i++)
                        (void)yarn_task_index(tasks[i].id, &k);
                yarn_tasks_free(tasks, n);
        }
        if (yarn_decode_attempts(body, size, &attempts, &n, why, sizeof(why)) >= 0) {
                for (size_t i = 0; i < n; i++)
                        (void)yarn_attempt_number(attempts[i].id, &k);
                yarn_attempts_free(attempts, n);
        }
        (void)yarn_decode_resource(body, size, &res, why, sizeof(why));
        (void)yarn_decode_attempt_state(body, size, &state, why, sizeof(why));
        if (yarn_decode_reservation_id(body, size, &reservation, why, sizeof(why)) >= 0)
                free(reservation);
        if (yarn_decode_queue(body, size, &reservation, why, sizeof(why)) >= 0)
                free(reservation);
        yarn_error_text(body, size, text, sizeof(text));
        free(body);
        return 0;
}

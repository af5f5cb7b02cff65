/* SPDX-License-Identifier: MIT */
/* The controller's YARN client: its decoding of the REST answers of a real
 * ResourceManager and MapReduce application master, recorded from Hadoop
 * 3.4.2's mini cluster (tests/fixtures/yarn/), and of bad ones: broken,
 * cut short, of the wrong shape, with ids that would change a request's
 * path, with numbers out of range; the reservation's request it writes;
 * and its HTTP on an event loop against a
 * server that answers, redirects, hangs, hangs up or sends too much. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/macro.h"
#include "controller/yarn/yarn-http.h"
#include "controller/yarn/yarn-json.h"
#include "tests.h"

/* A recorded answer of tests/fixtures/yarn/, and its size. */
static char *fixture(const char *name, size_t *ret_size) {
        char path[256];
        char *text;

        snprintf(path, sizeof(path), "tests/fixtures/yarn/%s", name);
        text = test_read_source(path);
        *ret_size = strlen(text);
        return text;
}

START_TEST(test_nodes) {
        size_t size, n = 0;
        _cleanup_free_ char *body = fixture("nodes.json", &size);
        YarnNode *nodes = NULL;
        char why[256] = "";

        ck_assert_int_eq(yarn_decode_nodes(body, size, &nodes, &n, why, sizeof(why)), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert_str_eq(nodes[0].id, "localhost:41911");
        ck_assert_str_eq(nodes[0].host, "localhost");
        ck_assert_str_eq(nodes[0].http_address, "localhost:46623");
        ck_assert_int_eq(nodes[0].state, YARN_NODE_RUNNING);
        /* Resized to 512 MB and 2 vcores: its total, not used + available
         * of its first registration. */
        ck_assert_uint_eq(nodes[0].memory_mb, 512);
        ck_assert_uint_eq(nodes[0].vcores, 2);
        ck_assert_uint_eq(nodes[0].used_memory_mb, 256);
        ck_assert_uint_eq(nodes[0].used_vcores, 1);
        ck_assert_uint_eq(nodes[0].containers, 1);
        ck_assert_uint_eq(nodes[1].memory_mb, 1024);
        ck_assert_uint_eq(nodes[1].used_memory_mb, 896);
        ck_assert_uint_eq(nodes[1].containers, 3);
        ck_assert_str_eq(nodes[2].http_address, "localhost:37247");
        yarn_nodes_free(nodes, n);
}
END_TEST

/* Before Hadoop 3.3 a node had no totalResource: used plus available. */
START_TEST(test_nodes_without_total) {
        static const char body[] =
                "{\"nodes\":{\"node\":[{\"id\":\"vm1.example:8041\",\"nodeHostName\":"
                "\"vm1.example\",\"nodeHTTPAddress\":\"vm1.example:8042\",\"state\":\"LOST\","
                "\"usedMemoryMB\":1024,\"availMemoryMB\":3072,\"usedVirtualCores\":1,"
                "\"availableVirtualCores\":3,\"numContainers\":1},"
                "{\"id\":\"vm2:8041\",\"nodeHostName\":\"vm2\",\"state\":\"SOMETHING_NEW\","
                "\"usedMemoryMB\":0,\"availMemoryMB\":0,\"usedVirtualCores\":0,"
                "\"availableVirtualCores\":0,\"numContainers\":0}]}}";
        YarnNode *nodes = NULL;
        size_t n = 0;
        char why[256] = "";

        ck_assert_int_eq(yarn_decode_nodes(body, strlen(body), &nodes, &n, why, sizeof(why)), 0);
        ck_assert_uint_eq(n, 2);
        ck_assert_uint_eq(nodes[0].memory_mb, 4096);
        ck_assert_uint_eq(nodes[0].vcores, 4);
        ck_assert_int_eq(nodes[0].state, YARN_NODE_LOST);
        /* A lost node has no web address; a state from a newer Hadoop is
         * unknown, not an error. */
        ck_assert_ptr_null(nodes[1].http_address);
        ck_assert_int_eq(nodes[1].state, _YARN_NODE_STATE_UNKNOWN);
        ck_assert_str_eq(yarn_node_state_name(nodes[1].state), "unknown");
        yarn_nodes_free(nodes, n);
}
END_TEST

START_TEST(test_apps) {
        size_t size, n = 7;
        _cleanup_free_ char *body = fixture("apps-running.json", &size);
        _cleanup_free_ char *none = fixture("apps-none.json", &size);
        YarnApp *apps = NULL;
        char why[256] = "";

        size = strlen(body);
        ck_assert_int_eq(yarn_decode_apps(body, size, &apps, &n, why, sizeof(why)), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_str_eq(apps[0].id, "application_1795770271174_0003");
        ck_assert_str_eq(apps[0].user, "root");
        ck_assert_str_eq(apps[0].queue, "root.default");
        ck_assert_str_eq(apps[0].type, "MAPREDUCE");
        ck_assert_int_eq(apps[0].state, YARN_APP_RUNNING);
        ck_assert(!yarn_app_ended(apps[0].state));
        ck_assert_uint_eq(apps[0].started, 1795770388748ULL * 1000);
        yarn_apps_free(apps, n);

        /* What the ResourceManager says when nothing runs, and what older
         * ones said. */
        ck_assert_int_eq(yarn_decode_apps(none, strlen(none), &apps, &n, why, sizeof(why)), 0);
        ck_assert_uint_eq(n, 0);
        yarn_apps_free(apps, n);
        ck_assert_int_eq(yarn_decode_apps("{\"apps\":null}", 13, &apps, &n, why, sizeof(why)), 0);
        ck_assert_uint_eq(n, 0);
        yarn_apps_free(apps, n);
}
END_TEST

START_TEST(test_jobs_tasks_attempts) {
        size_t size, n = 0;
        _cleanup_free_ char *jobs_body = fixture("jobs.json", &size);
        _cleanup_free_ char *tasks_body = fixture("tasks.json", &size);
        _cleanup_free_ char *attempts_body = fixture("attempts.json", &size);
        YarnJob *jobs = NULL;
        YarnTask *tasks = NULL;
        YarnAttempt *attempts = NULL;
        char why[256] = "";
        unsigned k;

        ck_assert_int_eq(
                yarn_decode_jobs(jobs_body, strlen(jobs_body), &jobs, &n, why, sizeof(why)), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_str_eq(jobs[0].id, "job_1795770271174_0003");
        ck_assert_uint_eq(jobs[0].maps, 4);
        ck_assert_uint_eq(jobs[0].maps_done, 4);
        ck_assert_uint_eq(jobs[0].reduces, 1);
        ck_assert_uint_eq(jobs[0].reduces_done, 0);
        ck_assert_uint_eq(jobs[0].started, 1795770393963ULL * 1000);
        yarn_jobs_free(jobs, n);

        ck_assert_int_eq(
                yarn_decode_tasks(tasks_body, strlen(tasks_body), &tasks, &n, why, sizeof(why)), 0);
        ck_assert_uint_eq(n, 5);
        ck_assert_str_eq(tasks[0].id, "task_1795770271174_0004_m_000000");
        ck_assert_int_eq(tasks[0].type, YARN_MAP);
        ck_assert_int_eq(tasks[0].state, YARN_TASK_RUNNING);
        ck_assert_uint_eq(tasks[0].elapsed, 4506 * 1000);
        ck_assert_int_eq(tasks[4].type, YARN_REDUCE);
        ck_assert_int_eq(tasks[4].state, YARN_TASK_SCHEDULED);
        ck_assert_int_eq(yarn_task_index(tasks[3].id, &k), 0);
        ck_assert_uint_eq(k, 3);
        yarn_tasks_free(tasks, n);

        ck_assert_int_eq(yarn_decode_attempts(attempts_body, strlen(attempts_body), &attempts, &n,
                                              why, sizeof(why)),
                         0);
        ck_assert_uint_eq(n, 2);
        /* The one the test killed through the proxy, and the AM's next. */
        ck_assert_int_eq(attempts[0].state, YARN_ATTEMPT_KILLED);
        ck_assert_double_eq(attempts[0].progress, 1.0);
        ck_assert_int_eq(attempts[1].state, YARN_ATTEMPT_RUNNING);
        ck_assert_str_eq(attempts[1].node_http_address, "localhost:37247");
        ck_assert_uint_eq(attempts[1].started, 1795770443217ULL * 1000);
        ck_assert_int_eq(yarn_attempt_number(attempts[1].id, &k), 0);
        ck_assert_uint_eq(k, 1);
        yarn_attempts_free(attempts, n);
}
END_TEST

START_TEST(test_answers) {
        static const char resource[] =
                "{\"resourceInfo\":{\"memory\":512,\"vCores\":2,\"resourceInformations\":{}}}";
        size_t size;
        _cleanup_free_ char *kill = fixture("kill.json", &size);
        _cleanup_free_ char *ended = fixture("proxy-ended.html", &size);
        _cleanup_free_ char *unknown = fixture("proxy-unknown.html", &size);
        YarnResource res;
        YarnAttemptState state;
        char why[256] = "", text[160];

        ck_assert_int_eq(yarn_decode_resource(resource, strlen(resource), &res, why, sizeof(why)),
                         0);
        ck_assert_uint_eq(res.memory_mb, 512);
        ck_assert_uint_eq(res.vcores, 2);
        ck_assert_int_eq(yarn_decode_attempt_state(kill, strlen(kill), &state, why, sizeof(why)),
                         0);
        ck_assert_int_eq(state, YARN_ATTEMPT_KILLED);

        /* Error answers said in words for the log. */
        yarn_error_text(unknown, strlen(unknown), text, sizeof(text));
        ck_assert_str_eq(text, "Application application_1795770271174_0099 could not be found in "
                               "RM or history server");
        yarn_error_text(ended, strlen(ended), text, sizeof(text));
        ck_assert_ptr_nonnull(strstr(text, "Content has moved here"));
        yarn_error_text("{\"RemoteException\":{\"exception\":\"NotFoundException\",\"message\":"
                        "\"java.lang.Exception: nodeId, localhost:1, is not found\"}}",
                        120, text, sizeof(text));
        ck_assert_str_eq(text, "java.lang.Exception: nodeId, localhost:1, is not found");
        yarn_error_text("\x01\x02", 2, text, 4);
        ck_assert_str_eq(text, "");
}
END_TEST

/* Every decoder on answers it must refuse: the reason, and nothing
 * returned. */
START_TEST(test_bad_answers) {
        static const struct {
                const char *body, *said;
        } cases[] = {
                { "", "not JSON" },
                { "<html>Bad Gateway</html>", "not JSON" },
                { "{\"nodes\":{\"node\":[{\"id\":\"a:1\"", "it ends early" },
                { "{\"nodes\":{}} trailing", "not JSON (unexpected character at byte 13)" },
                { "[1,2]", "no 'nodes' object" },
                { "{\"apps\":{}}", "no 'nodes' object" },
                { "{\"nodes\":{\"node\":{}}}", "nodes.node: not a list" },
                { "{\"nodes\":[]}", "nodes.node: not a list" },
                { "{\"nodes\":{\"node\":[7]}}", "nodes.node[0]: not an object" },
                { "{\"nodes\":{\"node\":[{}]}}", "nodes.node[0].id: missing" },
                { "{\"nodes\":{\"node\":[{\"id\":5}]}}", "nodes.node[0].id: not a string" },
                /* Ids go into later requests' paths and queries. */
                { "{\"nodes\":{\"node\":[{\"id\":\"../../ws\"}]}}", "is not an id" },
                { "{\"nodes\":{\"node\":[{\"id\":\"a:1?user.name=x\"}]}}", "is not an id" },
                { "{\"nodes\":{\"node\":[{\"id\":\"\"}]}}", "is not an id" },
                { "{\"nodes\":{\"node\":[{\"id\":\"a:1\",\"nodeHostName\":\"a\",\"state\":"
                  "\"RUNNING\",\"usedMemoryMB\":-1}]}}",
                  "usedMemoryMB: not a count in range" },
                { "{\"nodes\":{\"node\":[{\"id\":\"a:1\",\"nodeHostName\":\"a\",\"state\":"
                  "\"RUNNING\",\"usedMemoryMB\":1.5}]}}",
                  "usedMemoryMB: not a count in range" },
                { "{\"nodes\":{\"node\":[{\"id\":\"a:1\",\"nodeHostName\":\"a\",\"state\":"
                  "\"RUNNING\",\"usedMemoryMB\":1,\"availMemoryMB\":1,\"usedVirtualCores\":"
                  "9999999999}]}}",
                  "usedVirtualCores: not a count in range" },
                { "{\"nodes\":{\"node\":[{\"id\":\"a:1\",\"nodeHostName\":\"a\",\"state\":"
                  "\"RUNNING\",\"usedMemoryMB\":1,\"availMemoryMB\":1,\"usedVirtualCores\":1,"
                  "\"availableVirtualCores\":1,\"numContainers\":0,\"totalResource\":"
                  "{\"memory\":\"lots\"}}]}}",
                  "totalResource.memory: not a count in range" },
                /* Deeper than any answer: json-c's limit, not the stack's. */
                { "{\"nodes\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
                  "not JSON" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                YarnNode *nodes = (YarnNode *)cases;
                size_t n = 77;
                char why[256] = "";

                ck_assert_int_eq(yarn_decode_nodes(cases[i].body, strlen(cases[i].body), &nodes, &n,
                                                   why, sizeof(why)),
                                 -EBADMSG);
                ck_assert_msg(strstr(why, cases[i].said), "%s: %s", cases[i].body, why);
                ck_assert_ptr_eq(nodes, (YarnNode *)cases);
                ck_assert_uint_eq(n, 77);
        }
}
END_TEST

START_TEST(test_bad_mapreduce_answers) {
        static const struct {
                const char *body, *said;
        } tasks[] = {
                { "{\"tasks\":{\"task\":[{\"id\":\"task_1_2_m_000001\",\"type\":\"MAP\","
                  "\"state\":\"RUNNING\",\"progress\":120}]}}",
                  "progress: not a percentage" },
                { "{\"tasks\":{\"task\":[{\"id\":\"task_1_2_m_000001\",\"type\":\"MAP\","
                  "\"state\":\"RUNNING\",\"progress\":\"half\"}]}}",
                  "progress: not a number" },
                { "{\"tasks\":{\"task\":[{\"id\":\"task_1_2_m_000001\",\"type\":\"MAP\","
                  "\"state\":\"RUNNING\",\"progress\":1,\"startTime\":-5}]}}",
                  "startTime: not a count in range" },
        };
        static const char job_done_over[] =
                "{\"jobs\":{\"job\":[{\"id\":\"job_1_2\",\"name\":\"n\",\"user\":\"u\",\"state\":"
                "\"RUNNING\",\"startTime\":1,\"mapsTotal\":2,\"mapsCompleted\":3,"
                "\"reducesTotal\":0,\"reducesCompleted\":0}]}}";
        YarnTask *t = NULL;
        YarnJob *j = NULL;
        YarnResource res = { 9, 9 };
        size_t n = 0;
        char why[256] = "";
        unsigned k = 5;

        for (size_t i = 0; i < ELEMENTSOF(tasks); i++) {
                ck_assert_int_eq(yarn_decode_tasks(tasks[i].body, strlen(tasks[i].body), &t, &n,
                                                   why, sizeof(why)),
                                 -EBADMSG);
                ck_assert_msg(strstr(why, tasks[i].said), "%s: %s", tasks[i].body, why);
        }
        ck_assert_int_eq(
                yarn_decode_jobs(job_done_over, strlen(job_done_over), &j, &n, why, sizeof(why)),
                -EBADMSG);
        ck_assert_ptr_nonnull(strstr(why, "more tasks done than it has"));
        ck_assert_int_eq(yarn_decode_resource("{\"resourceInfo\":{\"memory\":1}}", 30, &res, why,
                                              sizeof(why)),
                         -EBADMSG);
        ck_assert_ptr_nonnull(strstr(why, "resourceInfo.vCores: missing"));
        ck_assert_uint_eq(res.memory_mb, 9);

        ck_assert_int_eq(yarn_task_index("task_1_2_m_00x001", &k), -EINVAL);
        ck_assert_int_eq(yarn_task_index("job_1_2", &k), -EINVAL);
        ck_assert_int_eq(yarn_attempt_number("attempt_1_2_m_000001_", &k), -EINVAL);
        ck_assert_int_eq(yarn_attempt_number("attempt_1_2_m_000001_+3", &k), -EINVAL);
        ck_assert_uint_eq(k, 5);
}
END_TEST

/* ---- HTTP ---- */

static pid_t server_pid;
static unsigned server_port;

/* What the test server answers to GET or PUT PATH. */
static void serve(int fd) {
        char req[4096] = "", big[8192];
        ssize_t n = read(fd, req, sizeof(req) - 1);
        char answer[sizeof(req) + 256];

        if (n <= 0)
                return;
        if (strstr(req, " /hang ")) {
                pause();
                return;
        }
        if (strstr(req, " /hangup "))
                return;
        if (strstr(req, " /big ")) {
                memset(big, 'x', sizeof(big));
                snprintf(answer, sizeof(answer),
                         "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n");
                if (write(fd, answer, strlen(answer)) < 0)
                        return;
                for (int i = 0; i < 12; i++)
                        if (write(fd, big, sizeof(big)) < 0)
                                return;
                return;
        }
        if (strstr(req, " /moved "))
                snprintf(answer, sizeof(answer),
                         "HTTP/1.1 302 Found\r\nLocation: http://history.example/job\r\n"
                         "Content-Length: 0\r\n\r\n");
        else if (strstr(req, " /missing "))
                snprintf(answer, sizeof(answer),
                         "HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno");
        else if (strstr(req, " /garbage "))
                snprintf(answer, sizeof(answer), "SSH-2.0-OpenSSH\r\n\r\n");
        else
                /* The request itself, method, headers and body, as the
                 * answer. */
                snprintf(answer, sizeof(answer), "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n%s",
                         strlen(req), req);
        if (write(fd, answer, strlen(answer)) < 0)
                return;
}

static void server_start(void) {
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(a);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
        ck_assert_int_eq(listen(fd, 16), 0);
        ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
        server_port = ntohs(a.sin_port);
        server_pid = fork();
        ck_assert_int_ge(server_pid, 0);
        if (server_pid == 0) {
                /* A failed test ends without its teardown: the server goes
                 * with it, and each request's child with the server. */
                (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
                for (;;) {
                        int c = accept(fd, NULL, NULL);

                        if (c < 0)
                                _exit(1);
                        if (fork() == 0) {
                                (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
                                serve(c);
                                _exit(0);
                        }
                        close(c);
                        while (waitpid(-1, NULL, WNOHANG) > 0)
                                ;
                }
        }
        close(fd);
}

/* The server; the children it forked for requests die with it. */
static void server_stop(void) {
        if (server_pid > 0) {
                kill(server_pid, SIGKILL);
                waitpid(server_pid, NULL, 0);
        }
        server_pid = 0;
}

typedef struct Got {
        int calls;
        int error;
        long status;
        char body[512];
        size_t size;
        char location[128];
} Got;

static void on_done(const YarnHttpAnswer *a, void *userdata) {
        Got *g = userdata;

        g->calls++;
        g->error = a->error;
        g->status = a->status;
        g->size = a->size;
        snprintf(g->body, sizeof(g->body), "%s", a->body);
        snprintf(g->location, sizeof(g->location), "%s", a->location ? a->location : "");
        if (a->error)
                ck_assert_str_ne(a->error_text, "");
}

/* Runs the loop until the client has nothing pending, for 10 s at most. */
static void run_until_done(sd_event *e, YarnHttp *h) {
        usec_t end = now_monotonic_usec() + 10 * USEC_PER_SEC;

        while (yarn_http_pending(h) > 0) {
                ck_assert_msg(now_monotonic_usec() < end, "requests did not end");
                ck_assert_int_ge(sd_event_run(e, 100 * USEC_PER_MSEC), 0);
        }
}

static void get(sd_event *e, YarnHttp *h, const char *method, const char *path, const char *body,
                Got *g) {
        char url[128];

        *g = (Got){ 0 };
        snprintf(url, sizeof(url), "http://127.0.0.1:%u%s", server_port, path);
        ck_assert_int_eq(yarn_http_request(h, method, url, body, on_done, g), 0);
        run_until_done(e, h);
        ck_assert_int_eq(g->calls, 1);
}

START_TEST(test_http_answers) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        _cleanup_(yarn_http_freep) YarnHttp *h = NULL;
        Got g;

        ck_assert_int_ge(sd_event_new(&e), 0);
        ck_assert_int_eq(yarn_http_new(e, 2 * USEC_PER_SEC, 64 * 1024, &h), 0);

        get(e, h, "GET", "/ws/v1/cluster/nodes?user.name=flexslot", NULL, &g);
        ck_assert_int_eq(g.error, 0);
        ck_assert_int_eq(g.status, 200);
        ck_assert_msg(strstr(g.body, "GET /ws/v1/cluster/nodes?user.name=flexslot HTTP/1.1\r\n"),
                      "%s", g.body);
        ck_assert_ptr_nonnull(strstr(g.body, "Accept: application/json"));

        get(e, h, "PUT", "/state", "{\"state\":\"KILLED\"}", &g);
        ck_assert_int_eq(g.status, 200);
        ck_assert_ptr_nonnull(strstr(g.body, "PUT /state HTTP/1.1"));
        ck_assert_ptr_nonnull(strstr(g.body, "Content-Type: application/json"));
        ck_assert_ptr_nonnull(strstr(g.body, "\r\n\r\n{\"state\":\"KILLED\"}"));

        /* Not followed: a 302 is an application that ended. */
        get(e, h, "GET", "/moved", NULL, &g);
        ck_assert_int_eq(g.error, 0);
        ck_assert_int_eq(g.status, 302);
        ck_assert_str_eq(g.location, "http://history.example/job");
        get(e, h, "GET", "/missing", NULL, &g);
        ck_assert_int_eq(g.status, 404);
        ck_assert_str_eq(g.body, "no");

        ck_assert_int_eq(yarn_http_request(h, "DELETE", "http://127.0.0.1/", NULL, on_done, &g),
                         -EINVAL);
        ck_assert_uint_eq(yarn_http_pending(h), 0);
}
END_TEST

START_TEST(test_http_failures) {
        _cleanup_(sd_event_unrefp) sd_event *e = NULL;
        _cleanup_(yarn_http_freep) YarnHttp *h = NULL;
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(a);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        char url[128];
        usec_t start;
        Got g = { 0 }, hung = { 0 };

        ck_assert_int_ge(sd_event_new(&e), 0);
        ck_assert_int_eq(yarn_http_new(e, 500 * USEC_PER_MSEC, 64 * 1024, &h), 0);

        /* A hung server and a quick one at once: the quick answer does
         * not wait for the hung one, which times out on its own. */
        start = now_monotonic_usec();
        snprintf(url, sizeof(url), "http://127.0.0.1:%u/hang", server_port);
        ck_assert_int_eq(yarn_http_request(h, "GET", url, NULL, on_done, &hung), 0);
        snprintf(url, sizeof(url), "http://127.0.0.1:%u/quick", server_port);
        ck_assert_int_eq(yarn_http_request(h, "GET", url, NULL, on_done, &g), 0);
        while (g.calls == 0)
                ck_assert_int_ge(sd_event_run(e, 100 * USEC_PER_MSEC), 0);
        ck_assert_int_eq(hung.calls, 0);
        ck_assert_int_eq(g.status, 200);
        run_until_done(e, h);
        ck_assert_int_eq(hung.error, -ETIMEDOUT);
        ck_assert_uint_lt(now_monotonic_usec() - start, 3 * USEC_PER_SEC);

        get(e, h, "GET", "/hangup", NULL, &g);
        ck_assert_int_eq(g.error, -ECONNRESET);
        get(e, h, "GET", "/big", NULL, &g);
        ck_assert_int_eq(g.error, -EMSGSIZE);
        ck_assert_uint_eq(g.size, 0);
        get(e, h, "GET", "/garbage", NULL, &g);
        ck_assert_int_eq(g.error, -EPROTO);

        /* Nothing listens on a port just freed. */
        ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
        ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
        close(fd);
        snprintf(url, sizeof(url), "http://127.0.0.1:%u/", ntohs(a.sin_port));
        g = (Got){ 0 };
        ck_assert_int_eq(yarn_http_request(h, "GET", url, NULL, on_done, &g), 0);
        run_until_done(e, h);
        ck_assert_int_eq(g.error, -ECONNREFUSED);
        /* Not a scheme of YARN's. */
        g = (Got){ 0 };
        ck_assert_int_eq(yarn_http_request(h, "GET", "file:///etc/passwd", NULL, on_done, &g), 0);
        run_until_done(e, h);
        ck_assert_int_eq(g.error, -EPROTO);

        /* Freed with a request in flight: its callback is never called. */
        hung = (Got){ 0 };
        snprintf(url, sizeof(url), "http://127.0.0.1:%u/hang", server_port);
        ck_assert_int_eq(yarn_http_request(h, "GET", url, NULL, on_done, &hung), 0);
        ck_assert_int_ge(sd_event_run(e, 50 * USEC_PER_MSEC), 0);
        h = yarn_http_free(h);
        ck_assert_int_eq(hung.calls, 0);
}
END_TEST

/* A reservation's answers, recorded from the mini cluster with its
 * reservable queue: a new id, the application's move into it, the
 * refusal of a queue that is no plan. */
START_TEST(test_reservation_answers) {
        static const char *const bad[] = {
                "{}",
                "{\"reservation-id\":7}",
                "{\"reservation-id\":\"../apps\"}",
                "{\"reservation-id\":\"\"}",
        };
        size_t size;
        _cleanup_free_ char *fresh = fixture("new-reservation.json", &size);
        _cleanup_free_ char *moved = fixture("app-queue.json", &size);
        _cleanup_free_ char *refused = fixture("reservation-refused.json", &size);
        char *id = NULL, *queue = NULL, why[256] = "", text[160];

        ck_assert_int_eq(yarn_decode_reservation_id(fresh, strlen(fresh), &id, why, sizeof(why)),
                         0);
        ck_assert_str_eq(id, "reservation_1795788946355_0001");
        free(id);
        ck_assert_int_eq(yarn_decode_queue(moved, strlen(moved), &queue, why, sizeof(why)), 0);
        ck_assert_str_eq(queue, "root.dedicated.reservation_1795788946355_0001");
        free(queue);
        yarn_error_text(refused, strlen(refused), text, sizeof(text));
        ck_assert_ptr_nonnull(strstr(text, "default is not managed by reservation system"));
        /* An id goes into the submission's body and the move's. */
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                id = (char *)bad;
                ck_assert_int_eq(
                        yarn_decode_reservation_id(bad[i], strlen(bad[i]), &id, why, sizeof(why)),
                        -EBADMSG);
                ck_assert_msg(id == (char *)bad || id == NULL, "%s", bad[i]);
        }
}
END_TEST

/* The submission's body: Hadoop's Reservation Definition Language, as
 * the ResourceManager took it (the reservation it then listed had these
 * numbers), its duration whole seconds of the window; names escaped; what
 * cannot be a reservation refused. */
START_TEST(test_reservation_request) {
        YarnReservationRequest q = {
                .id = "reservation_1795788946355_0001",
                .queue = "dedicated",
                .name = "application_1795788946355_0001",
                .containers = 3,
                .memory_mb = 256,
                .vcores = 1,
                .arrival = 1795788962173 * USEC_PER_MSEC,
                .deadline = (1795788962173 + 300500) * USEC_PER_MSEC + 999,
        };
        char *body = NULL;

        ck_assert_int_eq(yarn_reservation_submit_body(&q, &body), 0);
        ck_assert_str_eq(body, "{\"queue\":\"dedicated\","
                               "\"reservation-id\":\"reservation_1795788946355_0001\","
                               "\"reservation-definition\":{"
                               "\"arrival\":1795788962173,\"deadline\":1795789262673,"
                               "\"reservation-name\":\"application_1795788946355_0001\","
                               "\"reservation-requests\":{"
                               "\"reservation-request-interpreter\":1,"
                               "\"reservation-request\":[{"
                               "\"capability\":{\"memory\":256,\"vCores\":1},"
                               "\"num-containers\":3,\"min-concurrency\":3,"
                               "\"duration\":300000}]}}}");
        free(body);

        q.name = "a \"quoted\" name";
        ck_assert_int_eq(yarn_reservation_submit_body(&q, &body), 0);
        ck_assert_ptr_nonnull(strstr(body, "\"reservation-name\":\"a \\\"quoted\\\" name\""));
        free(body);

        body = (char *)&q;
        q.containers = 0;
        ck_assert_int_eq(yarn_reservation_submit_body(&q, &body), -EINVAL);
        q.containers = 3;
        q.deadline = q.arrival;
        ck_assert_int_eq(yarn_reservation_submit_body(&q, &body), -EINVAL);
        q.deadline = q.arrival + USEC_PER_SEC - 1;
        ck_assert_int_eq(yarn_reservation_submit_body(&q, &body), -EINVAL);
        q.deadline = q.arrival + USEC_PER_SEC;
        q.queue = "dedicated\",\"queue\":\"x";
        ck_assert_int_eq(yarn_reservation_submit_body(&q, &body), -EINVAL);
        q.queue = "dedicated";
        q.id = "../reservation";
        ck_assert_int_eq(yarn_reservation_submit_body(&q, &body), -EINVAL);
        ck_assert_ptr_eq(body, (char *)&q);
}
END_TEST

START_TEST(test_http_escape) {
        _cleanup_free_ char *e = yarn_http_escape("a b/c?d=é");

        ck_assert_str_eq(e, "a%20b%2Fc%3Fd%3D%C3%A9");
}
END_TEST

Suite *suite_yarn(void) {
        Suite *s = suite_create("yarn");
        TCase *tc = tcase_create("decode");
        TCase *http = tcase_create("http");

        tcase_add_test(tc, test_nodes);
        tcase_add_test(tc, test_nodes_without_total);
        tcase_add_test(tc, test_apps);
        tcase_add_test(tc, test_jobs_tasks_attempts);
        tcase_add_test(tc, test_answers);
        tcase_add_test(tc, test_bad_answers);
        tcase_add_test(tc, test_bad_mapreduce_answers);
        tcase_add_test(tc, test_reservation_answers);
        tcase_add_test(tc, test_reservation_request);
        suite_add_tcase(s, tc);
        tcase_add_checked_fixture(http, server_start, server_stop);
        tcase_add_test(http, test_http_answers);
        tcase_add_test(http, test_http_failures);
        tcase_add_test(http, test_http_escape);
        suite_add_tcase(s, http);
        return s;
}

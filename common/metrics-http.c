/* SPDX-License-Identifier: MIT */
/* The Prometheus endpoint (metrics-http.h). Small on purpose: one path, one
 * request per connection, "Connection: close", so that no keep-alive or
 * pipelining state exists to get wrong; Prometheus opens a connection per
 * scrape only when the last was closed, which costs it nothing at scrape
 * intervals of seconds. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/log.h"
#include "common/macro.h"
#include "common/metrics-http.h"
#include "common/parse.h"

/* A request line and headers fit in this; Prometheus sends about 250 bytes. */
#define REQUEST_MAX 4096
/* The time a client has to send its request and read the answer. */
#define CONNECTION_TIMEOUT (5 * USEC_PER_SEC)
/* Connections open at once; more wait in the listen backlog. */
#define CONNECTIONS_MAX 16

typedef struct Connection Connection;

struct MetricsServer {
        sd_event *event;
        int fd;
        unsigned port;
        sd_event_source *accept_source;
        MetricsWriter writer;
        void *userdata;
        Connection *connections;
        unsigned n_connections;
};

struct Connection {
        MetricsServer *server;
        Connection *next;
        int fd;
        sd_event_source *io, *timeout;
        char request[REQUEST_MAX];
        size_t received;
        char *response; /* once the request is read */
        size_t response_size, sent;
};

static void connection_free(Connection *c) {
        MetricsServer *s = c->server;

        for (Connection **p = &s->connections; *p; p = &(*p)->next)
                if (*p == c) {
                        *p = c->next;
                        break;
                }
        s->n_connections--;
        sd_event_source_disable_unref(c->io);
        sd_event_source_disable_unref(c->timeout);
        if (c->fd >= 0)
                close(c->fd);
        free(c->response);
        free(c);
        /* A slot is free again. */
        if (s->accept_source)
                (void)sd_event_source_set_enabled(s->accept_source, SD_EVENT_ON);
}

void metrics_header(FILE *out, const char *name, const char *type, const char *help) {
        fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void metrics_histogram_observe(MetricsHistogram *h, double value) {
        for (size_t i = 0; i < h->n_bounds; i++)
                if (value <= h->bounds[i]) {
                        h->counts[i]++;
                        break;
                }
        h->count++;
        h->sum += value;
}

void metrics_histogram_write(FILE *out, const char *name, const MetricsHistogram *h) {
        uint64_t below = 0;

        for (size_t i = 0; i < h->n_bounds; i++) {
                below += h->counts[i];
                fprintf(out, "%s_bucket{le=\"%g\"} %" PRIu64 "\n", name, h->bounds[i], below);
        }
        fprintf(out, "%s_bucket{le=\"+Inf\"} %" PRIu64 "\n%s_sum %.9f\n%s_count %" PRIu64 "\n",
                name, h->count, name, h->sum, name, h->count);
}

void metrics_label_value(FILE *out, const char *value) {
        fputc('"', out);
        for (const char *p = value; *p; p++)
                switch (*p) {
                case '\\':
                        fputs("\\\\", out);
                        break;
                case '"':
                        fputs("\\\"", out);
                        break;
                case '\n':
                        fputs("\\n", out);
                        break;
                default:
                        fputc(*p, out);
                }
        fputc('"', out);
}

/* The answer to a complete request: status, headers and, for GET, body. */
static int respond(Connection *c, int status, const char *reason, const char *body,
                   size_t body_size, bool head) {
        FILE *f = open_memstream(&c->response, &c->response_size);

        if (!f)
                return -ENOMEM;
        fprintf(f,
                "HTTP/1.1 %d %s\r\n"
                "Content-Type: %s\r\n"
                "Content-Length: %zu\r\n"
                "Connection: close\r\n"
                "%s"
                "\r\n",
                status, reason,
                status == 200 ? "text/plain; version=0.0.4; charset=utf-8"
                              : "text/plain; charset=utf-8",
                body_size, status == 405 ? "Allow: GET, HEAD\r\n" : "");
        if (!head)
                fwrite(body, 1, body_size, f);
        if (fclose(f) != 0) {
                free(c->response);
                c->response = NULL;
                return -ENOMEM;
        }
        return 0;
}

static int respond_text(Connection *c, int status, const char *reason, const char *text,
                        bool head) {
        return respond(c, status, reason, text, strlen(text), head);
}

static int respond_metrics(Connection *c, bool head) {
        MetricsServer *s = c->server;
        _cleanup_free_ char *body = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&body, &size);
        int r;

        if (!f)
                return -ENOMEM;
        r = s->writer(f, s->userdata);
        if (fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0) {
                log_warning_errno(r, "Metrics: cannot write a scrape's answer: %m");
                return respond_text(c, 500, "Internal Server Error", "cannot write the metrics\n",
                                    head);
        }
        return respond(c, 200, "OK", body, size, head);
}

/* The request line of the complete request in c->request: method, target
 * and version, separated by single spaces. */
static int handle_request(Connection *c) {
        char *line = c->request, *end = strstr(line, "\r\n"), *target, *version, *query;
        bool head;

        if (!end)
                return respond_text(c, 400, "Bad Request", "not an HTTP request\n", false);
        *end = '\0';
        target = strchr(line, ' ');
        version = target ? strchr(target + 1, ' ') : NULL;
        if (!version || strncmp(version + 1, "HTTP/1.", 7) != 0)
                return respond_text(c, 400, "Bad Request", "not an HTTP request\n", false);
        *target++ = '\0';
        *version = '\0';
        head = strcmp(line, "HEAD") == 0;
        if (!head && strcmp(line, "GET") != 0)
                return respond_text(c, 405, "Method Not Allowed", "only GET and HEAD\n", false);
        query = strchr(target, '?');
        if (query)
                *query = '\0';
        if (strcmp(target, "/metrics") != 0)
                return respond_text(c, 404, "Not Found", "the metrics are at /metrics\n", head);
        return respond_metrics(c, head);
}

static int on_connection_io(sd_event_source *source, int fd, uint32_t events, void *userdata) {
        Connection *c = userdata;
        ssize_t n;
        int r;

        if (!c->response) {
                n = recv(fd, c->request + c->received, sizeof(c->request) - 1 - c->received, 0);
                if (n < 0 && (errno == EAGAIN || errno == EINTR))
                        return 0;
                if (n <= 0) {
                        connection_free(c);
                        return 0;
                }
                c->received += (size_t)n;
                c->request[c->received] = '\0';
                if (!strstr(c->request, "\r\n\r\n")) {
                        if (c->received < sizeof(c->request) - 1)
                                return 0;
                        r = respond_text(c, 431, "Request Header Fields Too Large",
                                         "request too large\n", false);
                } else
                        r = handle_request(c);
                if (r < 0 || sd_event_source_set_io_events(source, EPOLLOUT) < 0) {
                        connection_free(c);
                        return 0;
                }
        }
        n = send(fd, c->response + c->sent, c->response_size - c->sent, MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return 0;
        if (n < 0)
                c->sent = c->response_size; /* the client went away */
        else
                c->sent += (size_t)n;
        if (c->sent == c->response_size) {
                /* Said all; the client reads to the end and closes. */
                (void)shutdown(fd, SHUT_WR);
                connection_free(c);
        }
        return 0;
}

static int on_connection_timeout(sd_event_source *source, uint64_t usec, void *userdata) {
        connection_free(userdata);
        return 0;
}

static int on_accept(sd_event_source *source, int fd, uint32_t events, void *userdata) {
        MetricsServer *s = userdata;
        _cleanup_close_ int cfd = -1;
        Connection *c;
        int r;

        cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (cfd < 0) {
                /* Out of descriptors: wait for a connection of ours to end
                 * rather than spin on a socket that stays readable. */
                if (errno == EMFILE || errno == ENFILE) {
                        log_warning("Metrics: out of file descriptors; not accepting until a "
                                    "connection ends");
                        if (s->n_connections > 0)
                                (void)sd_event_source_set_enabled(source, SD_EVENT_OFF);
                }
                return 0;
        }
        c = calloc(1, sizeof(*c));
        if (!c)
                return 0;
        c->server = s;
        c->fd = TAKE_FD(cfd);
        c->next = s->connections;
        s->connections = c;
        s->n_connections++;
        r = sd_event_add_io(s->event, &c->io, c->fd, EPOLLIN, on_connection_io, c);
        if (r >= 0)
                r = sd_event_add_time_relative(s->event, &c->timeout, CLOCK_MONOTONIC,
                                               CONNECTION_TIMEOUT, 0, on_connection_timeout, c);
        if (r < 0) {
                connection_free(c);
                return 0;
        }
        if (s->n_connections >= CONNECTIONS_MAX)
                (void)sd_event_source_set_enabled(source, SD_EVENT_OFF);
        return 0;
}

/* "A.B.C.D:PORT" or "[IPV6]:PORT". */
static int parse_listen(const char *address, struct sockaddr_storage *ret, socklen_t *ret_len) {
        const char *colon = strrchr(address, ':');
        char host[INET6_ADDRSTRLEN + 2];
        size_t host_len;
        uint64_t port;

        if (!colon || parse_uint64(colon + 1, 0, 65535, &port) < 0)
                return -EINVAL;
        host_len = (size_t)(colon - address);
        if (host_len == 0 || host_len >= sizeof(host))
                return -EINVAL;
        memcpy(host, address, host_len);
        host[host_len] = '\0';
        memset(ret, 0, sizeof(*ret));
        if (host[0] == '[' && host[host_len - 1] == ']') {
                struct sockaddr_in6 *a = (struct sockaddr_in6 *)ret;

                host[host_len - 1] = '\0';
                if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
                        return -EINVAL;
                a->sin6_family = AF_INET6;
                a->sin6_port = htons((uint16_t)port);
                *ret_len = sizeof(*a);
        } else {
                struct sockaddr_in *a = (struct sockaddr_in *)ret;

                if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
                        return -EINVAL;
                a->sin_family = AF_INET;
                a->sin_port = htons((uint16_t)port);
                *ret_len = sizeof(*a);
        }
        return 0;
}

bool metrics_listen_is_valid(const char *address) {
        struct sockaddr_storage addr;
        socklen_t len;

        return parse_listen(address, &addr, &len) >= 0;
}

int metrics_server_new(sd_event *event, const char *address, MetricsWriter writer, void *userdata,
                       MetricsServer **ret) {
        _cleanup_(metrics_server_freep) MetricsServer *s = NULL;
        _cleanup_close_ int fd = -1;
        struct sockaddr_storage addr;
        socklen_t len;
        int r, one = 1;

        r = parse_listen(address, &addr, &len);
        if (r < 0)
                return r;
        fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
            bind(fd, (struct sockaddr *)&addr, len) < 0 || listen(fd, CONNECTIONS_MAX) < 0 ||
            getsockname(fd, (struct sockaddr *)&addr, &len) < 0)
                return negative_errno();
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        *s = (MetricsServer){
                .event = sd_event_ref(event),
                .fd = TAKE_FD(fd),
                .port = ntohs(addr.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&addr)->sin6_port
                                                         : ((struct sockaddr_in *)&addr)->sin_port),
                .writer = writer,
                .userdata = userdata,
        };
        r = sd_event_add_io(event, &s->accept_source, s->fd, EPOLLIN, on_accept, s);
        if (r < 0)
                return r;
        (void)sd_event_source_set_description(s->accept_source, "metrics-accept");
        *ret = TAKE_PTR(s);
        return 0;
}

MetricsServer *metrics_server_free(MetricsServer *s) {
        if (!s)
                return NULL;
        s->accept_source = sd_event_source_disable_unref(s->accept_source);
        while (s->connections)
                connection_free(s->connections);
        if (s->fd >= 0)
                close(s->fd);
        sd_event_unref(s->event);
        free(s);
        return NULL;
}

unsigned metrics_server_port(const MetricsServer *s) {
        return s->port;
}

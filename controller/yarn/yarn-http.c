/* SPDX-License-Identifier: MIT */
/* libcurl's multi interface driven by sd-event: curl says which sockets to
 * watch (on_socket) and when to call it back (on_timer_change); the loop
 * tells curl what happened (on_io, on_timer), and each transfer that ended
 * is handed to its callback (finish_done). The shape of systemd's own
 * curl glue (src/import/curl-util.c). */
#include "controller/yarn/yarn-http.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include <curl/curl.h>

typedef struct Request Request;

struct YarnHttp {
        sd_event *event;
        CURLM *multi;
        sd_event_source *timer;
        usec_t timeout;
        size_t max_body;
        Request *requests; /* in flight, a list */
        size_t n_requests;
};

struct Request {
        YarnHttp *owner;
        Request *prev, *next;
        CURL *easy;
        struct curl_slist *headers;
        char *body;
        size_t size, allocated;
        bool too_big;
        YarnHttpDone done;
        void *userdata;
        char error[CURL_ERROR_SIZE];
};

static void request_free(Request *q) {
        YarnHttp *h = q->owner;

        if (q->easy) {
                curl_multi_remove_handle(h->multi, q->easy);
                curl_easy_cleanup(q->easy);
        }
        curl_slist_free_all(q->headers);
        if (q->prev)
                q->prev->next = q->next;
        else if (h->requests == q)
                h->requests = q->next;
        if (q->next)
                q->next->prev = q->prev;
        h->n_requests--;
        free(q->body);
        free(q);
}

YarnHttp *yarn_http_free(YarnHttp *h) {
        if (!h)
                return NULL;
        while (h->requests)
                request_free(h->requests);
        /* The sockets' sources went with their transfers (CURL_POLL_REMOVE). */
        if (h->multi)
                curl_multi_cleanup(h->multi);
        sd_event_source_disable_unref(h->timer);
        sd_event_unref(h->event);
        free(h);
        return NULL;
}

size_t yarn_http_pending(const YarnHttp *h) {
        return h->n_requests;
}

static int errno_of(CURLcode code, bool too_big) {
        switch (code) {
        case CURLE_OK:
                return 0;
        case CURLE_OPERATION_TIMEDOUT:
                return -ETIMEDOUT;
        case CURLE_COULDNT_CONNECT:
                return -ECONNREFUSED;
        case CURLE_COULDNT_RESOLVE_HOST:
                return -EHOSTUNREACH;
        case CURLE_GOT_NOTHING:
        case CURLE_RECV_ERROR:
        case CURLE_SEND_ERROR:
        case CURLE_PARTIAL_FILE:
                return -ECONNRESET;
        case CURLE_FILESIZE_EXCEEDED:
                /* Its Content-Length said so. */
                return -EMSGSIZE;
        case CURLE_WRITE_ERROR:
                return too_big ? -EMSGSIZE : -EIO;
        case CURLE_WEIRD_SERVER_REPLY:
        case CURLE_UNSUPPORTED_PROTOCOL:
                return -EPROTO;
        default:
                return -EIO;
        }
}

/* Every transfer curl has finished goes to its callback. */
static void finish_done(YarnHttp *h) {
        CURLMsg *msg;
        int left;

        while ((msg = curl_multi_info_read(h->multi, &left))) {
                Request *q = NULL;
                YarnHttpAnswer a = { .body = "" };
                char *location = NULL;

                if (msg->msg != CURLMSG_DONE)
                        continue;
                (void)curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&q);
                a.error = errno_of(msg->data.result, q->too_big);
                a.error_text =
                        a.error == -EMSGSIZE ? "answer over the size limit"
                        : a.error ? (q->error[0] ? q->error : curl_easy_strerror(msg->data.result))
                                  : "";
                if (a.error == 0) {
                        (void)curl_easy_getinfo(q->easy, CURLINFO_RESPONSE_CODE, &a.status);
                        (void)curl_easy_getinfo(q->easy, CURLINFO_REDIRECT_URL, &location);
                        a.location = location;
                        a.body = q->body ? q->body : "";
                        a.size = q->size;
                }
                q->done(&a, q->userdata);
                request_free(q);
        }
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        YarnHttp *h = userdata;
        int action = 0, running;

        if (revents & EPOLLIN)
                action |= CURL_CSELECT_IN;
        if (revents & EPOLLOUT)
                action |= CURL_CSELECT_OUT;
        if (revents & (EPOLLERR | EPOLLHUP))
                action |= CURL_CSELECT_ERR;
        (void)curl_multi_socket_action(h->multi, fd, action, &running);
        finish_done(h);
        return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        YarnHttp *h = userdata;
        int running;

        (void)curl_multi_socket_action(h->multi, CURL_SOCKET_TIMEOUT, 0, &running);
        finish_done(h);
        return 0;
}

static int on_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp) {
        YarnHttp *h = userp;
        sd_event_source *s = socketp;
        uint32_t events = 0;
        int r;

        if (what == CURL_POLL_REMOVE) {
                if (s) {
                        sd_event_source_disable_unref(s);
                        (void)curl_multi_assign(h->multi, fd, NULL);
                }
                return 0;
        }
        if (what & CURL_POLL_IN)
                events |= EPOLLIN;
        if (what & CURL_POLL_OUT)
                events |= EPOLLOUT;
        if (s)
                r = sd_event_source_set_io_events(s, events);
        else {
                r = sd_event_add_io(h->event, &s, fd, events, on_io, h);
                if (r >= 0 && curl_multi_assign(h->multi, fd, s) != CURLM_OK) {
                        sd_event_source_disable_unref(s);
                        r = -EIO;
                }
                if (r >= 0)
                        (void)sd_event_source_set_description(s, "yarn-http");
        }
        return r < 0 ? -1 : 0;
}

/* curl wants on_timer in timeout_ms (-1: never); 0 means at once, which
 * the loop does on its next turn, not from within curl. */
static int on_timer_change(CURLM *multi, long timeout_ms, void *userp) {
        YarnHttp *h = userp;
        usec_t now;
        int r;

        if (timeout_ms < 0)
                return h->timer && sd_event_source_set_enabled(h->timer, SD_EVENT_OFF) < 0 ? -1 : 0;
        r = sd_event_now(h->event, CLOCK_MONOTONIC, &now);
        if (r < 0)
                return -1;
        now += (usec_t)timeout_ms * USEC_PER_MSEC;
        if (!h->timer) {
                r = sd_event_add_time(h->event, &h->timer, CLOCK_MONOTONIC, now, 0, on_timer, h);
                if (r >= 0)
                        (void)sd_event_source_set_description(h->timer, "yarn-http-timer");
        } else {
                r = sd_event_source_set_time(h->timer, now);
                if (r >= 0)
                        r = sd_event_source_set_enabled(h->timer, SD_EVENT_ONESHOT);
        }
        return r < 0 ? -1 : 0;
}

int yarn_http_new(sd_event *event, usec_t timeout, size_t max_body, YarnHttp **ret) {
        static bool initialized;
        YarnHttp *h;

        if (!initialized) {
                if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
                        return -EIO;
                initialized = true;
        }
        h = calloc(1, sizeof(*h));
        if (!h)
                return -ENOMEM;
        h->event = sd_event_ref(event);
        h->timeout = timeout;
        h->max_body = max_body;
        h->multi = curl_multi_init();
        if (!h->multi || curl_multi_setopt(h->multi, CURLMOPT_SOCKETFUNCTION, on_socket) ||
            curl_multi_setopt(h->multi, CURLMOPT_SOCKETDATA, h) ||
            curl_multi_setopt(h->multi, CURLMOPT_TIMERFUNCTION, on_timer_change) ||
            curl_multi_setopt(h->multi, CURLMOPT_TIMERDATA, h)) {
                yarn_http_free(h);
                return -ENOMEM;
        }
        *ret = h;
        return 0;
}

static size_t on_data(char *data, size_t size, size_t n, void *userdata) {
        Request *q = userdata;
        size_t add = size * n, max = q->owner->max_body;
        char *grown;

        if (add > max - q->size) {
                q->too_big = true;
                return 0;
        }
        if (q->size + add + 1 > q->allocated) {
                size_t want = MIN(MAX(q->allocated * 2, q->size + add + 1), max + 1);

                grown = realloc(q->body, want);
                if (!grown)
                        return 0;
                q->body = grown;
                q->allocated = want;
        }
        memcpy(q->body + q->size, data, add);
        q->size += add;
        q->body[q->size] = '\0';
        return add;
}

/* Anything but CURLE_OK from a setopt, as an errno. */
#define SETOPT(easy, opt, value) \
        (curl_easy_setopt((easy), (opt), (value)) == CURLE_OK ? 0 : -EINVAL)

int yarn_http_request(YarnHttp *h, const char *method, const char *url, const char *body,
                      YarnHttpDone done, void *userdata) {
        long timeout_ms = (long)MAX(h->timeout / USEC_PER_MSEC, (usec_t)1);
        Request *q;
        int r;

        if (strcmp(method, "GET") != 0 && strcmp(method, "PUT") != 0 && strcmp(method, "POST") != 0)
                return -EINVAL;
        q = calloc(1, sizeof(*q));
        if (!q)
                return -ENOMEM;
        *q = (Request){ .owner = h, .next = h->requests, .done = done, .userdata = userdata };
        if (h->requests)
                h->requests->prev = q;
        h->requests = q;
        h->n_requests++;
        q->easy = curl_easy_init();
        q->headers = curl_slist_append(NULL, "Accept: application/json");
        if (q->headers && body)
                q->headers = curl_slist_append(q->headers, "Content-Type: application/json");
        if (!q->easy || !q->headers) {
                request_free(q);
                return -ENOMEM;
        }
        r = SETOPT(q->easy, CURLOPT_URL, url);
        if (r >= 0)
                r = SETOPT(q->easy, CURLOPT_PROTOCOLS_STR, "http,https");
        if (r >= 0)
                r = SETOPT(q->easy, CURLOPT_PRIVATE, q);
        if (r >= 0)
                r = SETOPT(q->easy, CURLOPT_ERRORBUFFER, q->error);
        if (r >= 0)
                r = SETOPT(q->easy, CURLOPT_WRITEFUNCTION, on_data);
        if (r >= 0)
                r = SETOPT(q->easy, CURLOPT_WRITEDATA, q);
        if (r >= 0)
                r = SETOPT(q->easy, CURLOPT_NOSIGNAL, 1L);
        if (r >= 0)
                r = SETOPT(q->easy, CURLOPT_TIMEOUT_MS, timeout_ms);
        if (r >= 0)
                r = SETOPT(q->easy, CURLOPT_FOLLOWLOCATION, 0L);
        if (r >= 0)
                r = SETOPT(q->easy, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)h->max_body);
        if (r >= 0)
                r = SETOPT(q->easy, CURLOPT_USERAGENT, "flexslot-controllerd");
        if (r >= 0)
                r = SETOPT(q->easy, CURLOPT_HTTPHEADER, q->headers);
        if (r >= 0 && strcmp(method, "GET") != 0)
                r = SETOPT(q->easy, CURLOPT_CUSTOMREQUEST, method);
        /* Copied: the caller's body need not outlive this call. */
        if (r >= 0 && body)
                r = SETOPT(q->easy, CURLOPT_COPYPOSTFIELDS, body);
        if (r >= 0 && curl_multi_add_handle(h->multi, q->easy) != CURLM_OK)
                r = -ENOMEM;
        if (r < 0) {
                request_free(q);
                return r;
        }
        return 0;
}

char *yarn_http_escape(const char *s) {
        char *e = curl_easy_escape(NULL, s, 0), *copy;

        if (!e)
                return NULL;
        /* curl's memory goes back to curl. */
        copy = strdup(e);
        curl_free(e);
        return copy;
}

/* SPDX-License-Identifier: MIT */
#pragma once

/* HTTP requests on a daemon's sd-event loop, with libcurl's multi interface:
 * many at once and none blocking the loop, so that a ResourceManager or an
 * application master that is slow or gone never holds up the D-Bus API or
 * the agents. Each request is bounded in time and in the size of its
 * answer. Redirects are not followed: the ResourceManager's
 * proxy answers 302 for an application that has just ended, which the
 * caller wants to see as such. Only http and https. One thread: the
 * loop's. */

#include <stddef.h>

#include <systemd/sd-event.h>

#include "common/macro.h"
#include "common/time-util.h"

typedef struct YarnHttp YarnHttp;

typedef struct YarnHttpAnswer {
        /* 0 when an HTTP answer came, whatever its status; else why none
         * did: -ETIMEDOUT, -ECONNREFUSED, -ECONNRESET (closed early),
         * -EHOSTUNREACH (no such host or route), -EMSGSIZE (answer over
         * the limit), -EPROTO (not HTTP), -EIO (anything else). */
        int error;
        const char *error_text; /* libcurl's words for the error; "" for none */
        long status;
        const char *body; /* NUL-terminated; "" for none */
        size_t size;
        const char *location; /* a redirect's target; NULL for none */
} YarnHttpAnswer;

/* Called once for each request, from the event loop; the answer is valid
 * during the call only. */
typedef void (*YarnHttpDone)(const YarnHttpAnswer *answer, void *userdata);

/* timeout: how long a request may take from its start to its answer's
 * end; max_body: the bytes an answer may have. */
int yarn_http_new(sd_event *event, usec_t timeout, size_t max_body, YarnHttp **ret);
/* Requests in flight are dropped without their callbacks. */
YarnHttp *yarn_http_free(YarnHttp *h);
DEFINE_POINTER_CLEANUP_FUNC(YarnHttp, yarn_http_free);

/* method: GET, PUT or POST; body: JSON to send (NULL: none). -EINVAL for
 * another method or a URL libcurl refuses; done is called later, never from
 * within this call. */
int yarn_http_request(YarnHttp *h, const char *method, const char *url, const char *body,
                      YarnHttpDone done, void *userdata);
/* Requests whose callback has not been called yet. */
size_t yarn_http_pending(const YarnHttp *h);

/* s escaped for a URL's query or path; NULL when out of memory. */
char *yarn_http_escape(const char *s);

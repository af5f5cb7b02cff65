/* SPDX-License-Identifier: MIT */
#pragma once

/* A Prometheus scrape endpoint: GET /metrics over HTTP/1.x on one TCP
 * address, served from a daemon's sd-event loop. It answers only that
 * (HEAD too; 404 for another path, 405 for another method, 400 for what is
 * not a request), one request per connection, and bounds what a client can
 * hold: a request's size, the time to send it and to read the answer, and
 * the connections open at once (past the limit, accepting pauses until one
 * ends). A scrape writes the body at the time of the request, from the
 * daemon's own state, with the writer it was given; nothing is cached. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <systemd/sd-event.h>

#include "common/macro.h"

/* Writes the exposition text (version 0.0.4) to out; a negative errno makes
 * the scrape a 500. */
typedef int (*MetricsWriter)(FILE *out, void *userdata);

typedef struct MetricsServer MetricsServer;

/* Listens on address, "HOST:PORT" with a numeric IPv4 host or "[IPv6]:PORT"
 * (port 0: any free port, see metrics_server_port()). A bad address is
 * -EINVAL; the socket's own errors are returned as they are. */
int metrics_server_new(sd_event *event, const char *address, MetricsWriter writer, void *userdata,
                       MetricsServer **ret);
MetricsServer *metrics_server_free(MetricsServer *s);
DEFINE_POINTER_CLEANUP_FUNC(MetricsServer, metrics_server_free);

/* Whether address is one metrics_server_new() takes, for checking a
 * configuration when it is loaded. */
bool metrics_listen_is_valid(const char *address);

/* The port it listens on, once bound. */
unsigned metrics_server_port(const MetricsServer *s);

/* Exposition helpers: a metric's # HELP and # TYPE lines, once per name. */
void metrics_header(FILE *out, const char *name, const char *type, const char *help);
/* A label value with \, " and newline escaped as the format requires. */
void metrics_label_value(FILE *out, const char *value);

/* A histogram of observations in Prometheus' form: the count at or below
 * each bound (cumulative when written), their sum and number. bounds is
 * ascending and outlives it; +Inf is implied. */
#define METRICS_HISTOGRAM_BOUNDS_MAX 16
typedef struct MetricsHistogram {
        const double *bounds;
        size_t n_bounds;                               /* at most METRICS_HISTOGRAM_BOUNDS_MAX */
        uint64_t counts[METRICS_HISTOGRAM_BOUNDS_MAX]; /* in (bounds[i-1], bounds[i]] */
        uint64_t count;
        double sum;
} MetricsHistogram;

void metrics_histogram_observe(MetricsHistogram *h, double value);
/* name's _bucket, _sum and _count lines (its header is the caller's). */
void metrics_histogram_write(FILE *out, const char *name, const MetricsHistogram *h);

/* SPDX-License-Identifier: MIT */
/* The driver of our own trackers: they connect to the tracker endpoint and
 * each heartbeat is a policy step (cluster_heartbeat()); a tracker silent
 * for [trackers] lost-timeout is lost, and forgotten after [trackers]
 * forget-lost; a control cycle runs the slot manager and the VM allocator
 * every heartbeat interval. */
#include "common/daemon-util.h"
#include "common/log.h"
#include "controller/daemon/cluster-heartbeat.h"
#include "daemon.h"
#include "proto/tracker1.h"

static int on_lost_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Controller *c = userdata;
        usec_t now = now_monotonic_usec();

        (void)cluster_lose_silent(c->cluster, now_realtime_usec(), now, c->config.lost_timeout);
        (void)cluster_forget_lost(c->cluster, now, c->config.forget_lost);
        return controller_rearm(s, usec, c->config.heartbeat_interval);
}

static int trackers_start(Controller *c) {
        int r = daemon_read_token(c->config.token_file, TRACKER1_TOKEN_MAX, &c->token,
                                  &c->token_len);

        if (r >= 0)
                r = tracker_endpoint_start(c);
        if (r < 0)
                return r;
        return controller_add_periodic(c, &c->lost_timer, on_lost_timer,
                                       c->config.heartbeat_interval, "lost-trackers");
}

static void trackers_stop(Controller *c) {
        c->lost_timer = sd_event_source_disable_unref(c->lost_timer);
        tracker_endpoint_stop(c);
}

static usec_t trackers_control_interval(const Controller *c) {
        return c->config.heartbeat_interval;
}

static void trackers_control(Controller *c) {
        int r = cluster_control(c->cluster, now_realtime_usec());

        if (r < 0)
                log_warning_errno(r, "Control cycle failed");
        else
                agents_apply_targets(c->agents);
}

const ControllerDriver controller_driver_trackers = {
        .name = "trackers",
        .start = trackers_start,
        .stop = trackers_stop,
        .control_interval = trackers_control_interval,
        .control = trackers_control,
        .takes_jobs = true,
};

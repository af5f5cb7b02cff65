/* SPDX-License-Identifier: MIT */
/* flexslot-agentd: samples this host's VMs, keeps a short history and
 * serves org.flexslot.Agent1 on D-Bus; changes VMs within safety limits.
 * libvirt runs on three worker threads, each with its own connection, one
 * for samples, one for changes and one for questions to guest agents: the
 * bus and the sampling timer keep going while the hypervisor is stuck, and
 * a change stuck on one domain, or a guest agent that does not answer,
 * does not hold up the samples. */
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "common/format.h"
#include "common/cli.h"
#include "common/daemon-util.h"
#include "common/log.h"
#include "common/macro.h"
#include "common/metrics-http.h"
#include "common/version.h"
#include "daemon.h"

#define DEFAULT_CONFIG_FILE "/etc/flexslot/agent.ini"
/* How long shutdown waits for a libvirt call in progress. */
#define STOP_WAIT_USEC (5 * USEC_PER_SEC)
/* A bad command line, as distinct from a failure to run (EXIT_FAILURE). */
#define PROGRAM "flexslot-agentd"

typedef struct Options {
        DaemonOptions daemon;
        const char *address;
        const char *uri;
        bool dry_run;
} Options;

static void help(void) {
        printf("Usage: flexslot-agentd [OPTIONS]\n"
               "\n"
               "Per-host flexslot agent: samples the VMs of a libvirt host and serves\n"
               "org.flexslot.Agent1 on D-Bus (metrics, history, safe VM resizing).\n"
               "\n"
               "  -h --help              Show this help and exit\n"
               "     --version           Show the version and exit\n"
               "  -c --config=FILE       Configuration file (default " DEFAULT_CONFIG_FILE ";\n"
               "                         built-in defaults if that does not exist)\n"
               "  -a --address=ADDRESS   D-Bus address to serve on (default: the system bus)\n"
               "  -u --uri=URI           libvirt URI (default: qemu:///system)\n"
               "  -n --dry-run           Decide and log every change, apply none\n"
               "     --log-level=LEVEL   err, warning, notice, info or debug\n"
               "\n"
               "Options override the configuration file. See flexslot-agentd(8).\n");
}

static int parse_option(int c, const char *arg, void *userdata) {
        Options *o = userdata;

        switch (c) {
        case 'a':
                o->address = arg;
                break;
        case 'u':
                o->uri = arg;
                break;
        default:
                assert(c == 'n');
                o->dry_run = true;
        }
        return 0;
}

/* Returns 1 to run, 0 to exit successfully, < 0 on a usage error (already
 * said, with the hint). */
static int parse_argv(int argc, char **argv, Options *o) {
        static const struct option options[] = {
                { "address", required_argument, NULL, 'a' },
                { "uri", required_argument, NULL, 'u' },
                { "dry-run", no_argument, NULL, 'n' },
                {},
        };
        const DaemonCommandLine command_line = {
                .program = PROGRAM,
                .config_default = DEFAULT_CONFIG_FILE,
                .help = help,
                .options = options,
                .short_options = "a:u:n",
                .option = parse_option,
                .userdata = o,
        };

        *o = (Options){ 0 };
        return daemon_parse_argv(&command_line, argc, argv, &o->daemon);
}

static int replace_string(char **field, const char *value) {
        char *copy = strdup(value);

        if (!copy)
                return log_oom();
        free(*field);
        *field = copy;
        return 0;
}

static int load_config(Agent *a, const Options *o) {
        int r;

        r = daemon_load_config(&agent_config_schema, o->daemon.config_file, o->daemon.config_given,
                               &a->config);
        if (r < 0)
                return r;
        log_set_max_level(o->daemon.log_level_given ? o->daemon.log_level
                                                    : daemon_log_levels[a->config.log_level]);
        if (o->address && replace_string(&a->config.address, o->address) < 0)
                return -ENOMEM;
        if (o->uri && replace_string(&a->config.uri, o->uri) < 0)
                return -ENOMEM;
        if (o->dry_run)
                a->config.dry_run = true;
        return 0;
}

/* The group allowed to change VMs; a missing group leaves only root. */
static void resolve_allowed_group(Agent *a) {
        struct group grp, *result = NULL;
        char buf[4096];

        if (getgrnam_r(a->config.allowed_group, &grp, buf, sizeof(buf), &result) == 0 && result) {
                a->allowed_gid = result->gr_gid;
                a->have_allowed_gid = true;
        } else
                log_info("Group '%s' does not exist: only root may change VMs",
                         a->config.allowed_group);
}

static void snapshot_free(void *p) {
        free(p);
}

typedef struct SampleJob {
        Agent *agent;
        /* The domains whose settings changed when the job was queued. */
        AgentStale stale;
        AgentSnapshot *snapshot;
        /* A copy of the counters it was derived from, for the metrics. */
        HvDomainSample *samples;
        size_t n_samples;
} SampleJob;

static int sample_run(void *userdata, void *data) {
        AgentCollector *c = userdata;
        SampleJob *j = data;
        int r;

        r = agent_collector_sample(c, &j->stale, &j->snapshot);
        if (r < 0 || !j->agent->metrics || c->n_prev == 0)
                return r;
        /* The collector keeps this sample's counters for the next one's
         * rates; the loop may not read them while the worker owns them. */
        j->samples = calloc(c->n_prev, sizeof(*j->samples));
        if (j->samples) {
                memcpy(j->samples, c->prev, c->n_prev * sizeof(*j->samples));
                j->n_samples = c->n_prev;
        }
        return r;
}

/* What `systemctl status` shows; sent only when it changes. */
static void set_status(Agent *a, bool available, size_t n_domains) {
        if (a->status_sent && a->status_available == available && a->status_domains == n_domains)
                return;
        a->status_sent = true;
        a->status_available = available;
        a->status_domains = n_domains;
        if (available)
                (void)sd_notifyf(false, "STATUS=Sampling %zu domains", n_domains);
        else
                (void)sd_notify(false, "STATUS=The hypervisor is not answering");
}

/* A vCPU or memory target judged: reached, or not within the grace period,
 * with the change's decision number to find it by. */
static void report_target(const AgentTargetCheck *x, void *userdata) {
        bool reached = x->state == AGENT_TARGET_REACHED;
        bool guest = x->source == AGENT_SOURCE_GUEST_AGENT;

        log_full_errno(reached ? LOG_LEVEL_INFO : LOG_LEVEL_WARNING, 0,
                       "Domain %s %s %s %s%s%s%s [decision=%llu state=\"%s\" resource=\"%s\" "
                       "target=%llu seen=%llu source=\"%s\"]",
                       x->name, reached ? "shows its" : "does not show its",
                       act_resource_to_string(x->resource), ACT_VALUE(x->resource, x->target),
                       reached ? "" : " target: it has ",
                       reached ? "" : ACT_VALUE(x->resource, x->seen),
                       guest ? " online, as its guest agent counts" : "",
                       (unsigned long long)x->decision, agent_target_state_to_string(x->state),
                       act_resource_to_string(x->resource), (unsigned long long)x->target,
                       (unsigned long long)x->seen, agent_target_source_to_string(x->source));
}

/* A question to the guest agents of the domains with a vCPU target to
 * confirm, on their worker (guest-agent.h). */
typedef struct GuestAgentJob {
        Agent *agent;
        AgentGuestQuery *queries;
        size_t n;
        usec_t timeout; /* the job's */
} GuestAgentJob;

static int guest_agent_run(void *userdata, void *data) {
        GuestAgentJob *j = data;

        agent_guest_agent_ask(userdata, j->queries, j->n);
        return 0;
}

/* Keeps q's answer, saying so when it differs from the domain's last. */
static void take_guest_answer(Agent *a, const AgentGuestQuery *q) {
        const AgentGuestVcpus *g = &q->answer;
        AgentGuestVcpus before;

        if (agent_guest_answers_take(&a->guest_answers, q, &before) < 0) {
                log_oom();
                return;
        }
        if (g->state == before.state &&
            (g->state != AGENT_GUEST_AGENT_ANSWERED || g->online == before.online))
                return;
        if (g->state == AGENT_GUEST_AGENT_ANSWERED)
                log_info("Domain %s: its guest agent counts %u vCPUs online [guest_agent=\"%s\"]",
                         q->name, g->online, agent_guest_agent_state_to_string(g->state));
        else
                log_notice("Domain %s: no count of its vCPUs online from its guest agent (%s): "
                           "libvirt's count of vCPUs plugged decides its vCPU target "
                           "[guest_agent=\"%s\"]",
                           q->name, q->message, agent_guest_agent_state_to_string(g->state));
}

static void guest_agent_done(WorkerOutcome outcome, int result, void *data) {
        GuestAgentJob *j = data;
        Agent *a = j->agent;

        switch (outcome) {
        case WORKER_TIMEOUT_RUNNING:
                /* The worker still owns the answers; until they come, each
                 * domain's count is unknown as of now. */
                for (size_t i = 0; i < j->n; i++) {
                        AgentGuestQuery q = { 0 };

                        memcpy(q.uuid, j->queries[i].uuid, sizeof(q.uuid));
                        memcpy(q.name, j->queries[i].name, sizeof(q.name));
                        q.answer = (AgentGuestVcpus){
                                .state = AGENT_GUEST_AGENT_UNRESPONSIVE,
                                .measured = now_monotonic_usec(),
                        };
                        snprintf(q.message, sizeof(q.message), "no answer within %s",
                                 FORMAT_DURATION(j->timeout));
                        take_guest_answer(a, &q);
                }
                return;
        case WORKER_DONE:
        case WORKER_LATE:
                for (size_t i = 0; i < j->n; i++)
                        take_guest_answer(a, &j->queries[i]);
                break;
        default:
                break;
        }
        a->asking_guest_agents = false;
}

static void guest_agent_free(void *data) {
        GuestAgentJob *j = data;

        free(j->queries);
        free(j);
}

static const WorkerJobOps guest_agent_ops = { guest_agent_run, guest_agent_done, guest_agent_free };

/* Asks the guest agents due a question (one question at a time: a hung
 * guest agent holds up only the others' questions, never a sample). The
 * job's own timeout answers the loop should the hypervisor not honour
 * guest-agent-timeout: each domain may take it twice, for the guest
 * agent's first word and for the answer. */
static void ask_guest_agents(Agent *a) {
        GuestAgentJob *j;
        int r;

        if (a->asking_guest_agents)
                return;
        j = calloc(1, sizeof(*j));
        if (!j) {
                log_oom();
                return;
        }
        j->agent = a;
        r = agent_target_checks_guest_queries(&a->target_checks, now_monotonic_usec(), &j->queries,
                                              &j->n);
        j->timeout = (2 * j->n + 1) * a->config.guest_agent_timeout;
        if (r >= 0 && j->n > 0)
                r = worker_submit(a->guest_agent_worker, &guest_agent_ops, j, j->timeout);
        if (r < 0 || j->n == 0) {
                if (r < 0)
                        log_warning_errno(r, "Cannot ask the guest agents");
                guest_agent_free(j);
                return;
        }
        a->asking_guest_agents = true;
}

static void sample_done(WorkerOutcome outcome, int result, void *data) {
        SampleJob *j = data;
        Agent *a = j->agent;
        int r;

        if (outcome == WORKER_TIMEOUT_RUNNING) {
                /* Still running: no new sample until it returns. */
                log_warning("The hypervisor did not answer a sample within %s",
                            FORMAT_DURATION(a->config.hypervisor_timeout));
                agent_bus_set_available(a, false);
                set_status(a, false, 0);
                return;
        }
        a->sampling = false;
        if ((outcome != WORKER_DONE && outcome != WORKER_LATE) || result < 0 || !j->snapshot) {
                agent_bus_set_available(a, false);
                set_status(a, false, 0);
                return;
        }
        /* Read again: later changes stay for the next sample. */
        agent_stale_drop(&a->stale, j->stale.n);
        agent_bus_set_available(a, true);
        set_status(a, true, j->snapshot->n_domains);
        agent_guest_answers_stamp(&a->guest_answers, j->snapshot);
        agent_target_checks_judge(&a->target_checks, j->snapshot, report_target, NULL);
        agent_target_checks_stamp(&a->target_checks, j->snapshot);
        ask_guest_agents(a);
        r = agent_bus_emit_sample(a, j->snapshot);
        if (r < 0)
                log_warning_errno(r, "Cannot emit the Sample signal");
        ring_push(&a->history, TAKE_PTR(j->snapshot));
        free(a->latest_samples);
        a->latest_samples = TAKE_PTR(j->samples);
        a->n_latest_samples = j->n_samples;
}

static void sample_free(void *data) {
        SampleJob *j = data;

        agent_stale_done(&j->stale);
        free(j->snapshot);
        free(j->samples);
        free(j);
}

static const WorkerJobOps sample_ops = { sample_run, sample_done, sample_free };

/* usec is the time the sample was due, not the time of this call. */
static int on_sample_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Agent *a = userdata;
        SampleJob *j;
        usec_t now;
        int r;

        /* Samples are due on a fixed schedule, one interval after the
         * previous deadline: re-arming from now would add the loop's latency
         * (and the timer's slack) to every interval. */
        r = sd_event_now(sd_event_source_get_event(s), CLOCK_MONOTONIC, &now);
        if (r >= 0)
                r = sd_event_source_set_time(s, usec_next_deadline(usec, a->config.interval, now));
        if (r < 0)
                return log_error_errno(r, "Cannot rearm the sampling timer");
        r = sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        if (r < 0)
                return log_error_errno(r, "Cannot rearm the sampling timer");
        if (a->sampling) {
                log_debug("Previous sample still running, skipping this one");
                return 0;
        }
        /* Failing to queue loses one sample, not the timer. */
        j = calloc(1, sizeof(*j));
        if (!j) {
                log_oom();
                return 0;
        }
        j->agent = a;
        r = agent_stale_copy(&a->stale, &j->stale);
        if (r >= 0)
                r = worker_submit(a->collector_worker, &sample_ops, j,
                                  a->config.hypervisor_timeout);
        if (r < 0) {
                sample_free(j);
                log_warning_errno(r, "Cannot queue a sample");
                return 0;
        }
        a->sampling = true;
        return 0;
}

/* The limits, and the capacity they are computed against. */
static int setup_actuator(Agent *a) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN), pages = sysconf(_SC_PHYS_PAGES),
             page = sysconf(_SC_PAGESIZE);
        ActLimits limits;
        ActHost host;
        int r;

        agent_config_to_limits(&a->config, cpus > 0 ? (uint64_t)cpus : 1,
                               pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0,
                               &limits, &host);
        a->capacity_cpus =
                (uint32_t)MIN(act_vcpu_capacity(&limits, host.cpus), (uint64_t)UINT32_MAX);
        a->capacity_memory = host.memory;
        a->reserve_cpus = (uint32_t)MIN(limits.reserve_cpus, (uint64_t)UINT32_MAX);
        a->reserve_memory = limits.reserve_memory;
        r = agent_actuator_init(&a->actuator, a->config.uri, &limits, &host, a->config.dry_run);
        a->actuator.balloon_guard = a->config.balloon_guard;
        a->actuator.balloon_guard_pressure = (AgentPressureLimits){
                .some = a->config.balloon_guard_pressure,
                .full = a->config.balloon_guard_full_pressure,
        };
        return r;
}

static int agent_start(Agent *a) {
        char hostname[256] = "";
        int r;

        a->dry_run = a->config.dry_run;
        if (gethostname(hostname, sizeof(hostname) - 1) < 0)
                log_warning_errno(negative_errno(), "Cannot read the host name");
        a->hostname = strdup(hostname);
        if (!a->hostname)
                return log_oom();
        resolve_allowed_group(a);
        r = ring_init(&a->history, (size_t)a->config.history, snapshot_free);
        if (r >= 0)
                r = agent_decisions_init(&a->decisions, (size_t)a->config.decisions);
        if (r < 0)
                return log_oom();
        r = agent_collector_init(&a->collector, a->config.uri);
        if (r >= 0)
                r = agent_guest_agent_init(&a->guest_agent, a->config.uri,
                                           a->config.guest_agent_timeout);
        if (r >= 0)
                r = setup_actuator(a);
        if (r < 0)
                return log_oom();

        r = daemon_event_new(&a->event);
        if (r < 0)
                return r;

        /* libvirt's own event loop gives keepalive and notice of a lost
         * connection to libvirtd. */
        r = hv_event_loop_start();
        if (r < 0)
                log_warning_errno(r, "No libvirt event loop; a lost libvirtd is noticed late");
        r = worker_new(a->event, &a->collector, &a->collector_worker);
        if (r >= 0)
                r = worker_new(a->event, &a->actuator, &a->actuator_worker);
        if (r >= 0)
                r = worker_new(a->event, &a->guest_agent, &a->guest_agent_worker);
        if (r < 0)
                return log_error_errno(r, "Cannot start the hypervisor workers");

        r = daemon_bus_connect(a->config.address, "flexslot-agentd", &a->bus);
        if (r < 0)
                return r;
        r = agent_bus_setup(a);
        if (r < 0)
                return r;
        r = sd_bus_attach_event(a->bus, a->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(r, "Cannot attach the bus to the event loop");
        if (a->config.metrics_listen) {
                r = metrics_server_new(a->event, a->config.metrics_listen, agent_metrics_write, a,
                                       &a->metrics);
                if (r < 0)
                        return log_error_errno(r, "Cannot serve metrics on %s: %m",
                                               a->config.metrics_listen);
                log_info("Metrics on %s, port %u, at /metrics", a->config.metrics_listen,
                         metrics_server_port(a->metrics));
        }

        /* sd-event's default accuracy (250ms) would let a sample come that
         * late; a small fraction of the interval keeps the period while
         * still letting wake-ups coalesce. */
        r = sd_event_add_time_relative(a->event, &a->sample_timer, CLOCK_MONOTONIC, 0,
                                       MIN(a->config.interval / 20, 50 * USEC_PER_MSEC),
                                       on_sample_timer, a);
        if (r < 0)
                return log_error_errno(r, "Cannot add the sampling timer");
        (void)sd_event_source_set_description(a->sample_timer, "sample-timer");
        return 0;
}

/* Stops a worker within what is left until deadline. */
static int stop_worker(Worker *w, usec_t deadline) {
        usec_t now = now_monotonic_usec();

        if (!w)
                return 0;
        return worker_stop(w, deadline > now ? deadline - now : 0);
}

static int agent_stop(Agent *a) {
        usec_t deadline = now_monotonic_usec() + STOP_WAIT_USEC;
        int r, k;

        a->sample_timer = sd_event_source_disable_unref(a->sample_timer);
        a->metrics = metrics_server_free(a->metrics);
        /* Cancelled requests are answered on the bus, so it goes last. */
        r = stop_worker(a->collector_worker, deadline);
        k = stop_worker(a->actuator_worker, deadline);
        if (k == -ETIMEDOUT)
                r = k;
        k = stop_worker(a->guest_agent_worker, deadline);
        if (r == -ETIMEDOUT || k == -ETIMEDOUT) {
                log_warning("A libvirt call is still running; exiting without it");
                r = -ETIMEDOUT;
        }
        if (a->bus)
                (void)sd_bus_flush(a->bus);
        if (r == -ETIMEDOUT)
                return r;
        a->collector_worker = worker_free(a->collector_worker);
        a->actuator_worker = worker_free(a->actuator_worker);
        a->guest_agent_worker = worker_free(a->guest_agent_worker);
        agent_collector_done(&a->collector);
        agent_guest_agent_done(&a->guest_agent);
        agent_guest_answers_done(&a->guest_answers);
        agent_actuator_done(&a->actuator);
        agent_stale_done(&a->stale);
        agent_change_counts_done(&a->change_counts);
        free(a->latest_samples);
        a->object_slot = sd_bus_slot_unref(a->object_slot);
        a->bus = sd_bus_flush_close_unref(a->bus);
        a->event = sd_event_unref(a->event);
        if (a->history.items)
                ring_done(&a->history);
        agent_decisions_done(&a->decisions);
        agent_target_checks_done(&a->target_checks);
        free(a->hostname);
        conf_free(&agent_config_schema, &a->config);
        return 0;
}

int main(int argc, char **argv) {
        Agent agent = { 0 };
        Options o;
        int r, status;

        log_open(argv[0]);
        r = parse_argv(argc, argv, &o);
        if (r < 0)
                return EXIT_USAGE;
        if (r == 0)
                return EXIT_SUCCESS;
        r = load_config(&agent, &o);
        if (r < 0)
                return EXIT_FAILURE;

        r = agent_start(&agent);
        if (r >= 0) {
                log_info("Serving %s for %s on %s%s", AGENT1_BUS_NAME, agent.config.uri,
                         agent.config.address ? agent.config.address : "the system bus",
                         agent.config.dry_run ? " (dry run)" : "");
                r = daemon_run(agent.event, "Waiting for the first sample");
        }
        status = r == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
        if (agent_stop(&agent) < 0)
                /* A thread is stuck in libvirt and still uses the state. */
                _exit(status);
        return status;
}

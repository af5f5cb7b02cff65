/* SPDX-License-Identifier: MIT */
/* A step's decisions on the YARN model's snapshot into what YARN can be
 * asked (yarn-model.h lists what each becomes), and what cannot be done
 * said in the log once. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/format.h"
#include "common/log.h"
#include "common/macro.h"
#include "controller/daemon/yarn-model.h"

static const char *const kill_reasons[_KILL_REASON_MAX] = {
        [KILL_RESIZE] = "resize",
        [KILL_REPLACE] = "replace",
        [KILL_RETRY] = "retry",
};

size_t yarn_actions_max(const YarnModel *m, const Decisions *d) {
        return d->n_kills + m->n_nodes + d->n_quotas + m->n_jobs;
}

static void note_oom(int r) {
        if (r == -ENOMEM)
                log_oom();
}

static size_t kill_actions(YarnModel *m, const YarnSnapshot *s, const Decisions *d,
                           YarnAction *ret) {
        size_t n = 0;

        for (size_t i = 0; i < d->n_kills; i++) {
                const Kill *k = &d->kills[i];
                const Attempt *sa = &s->a.attempts[k->attempt];
                YarnModelJob *j = s->job_of[s->a.tasks[sa->task].job];
                const YarnAttempt *a = s->attempt_of[k->attempt];
                const YarnTask *t = s->task_of[sa->task];
                int r;

                if (yarn_id_set_has(&j->killed, a->id))
                        continue;
                if (!j->fresh) {
                        log_info("Not now: kill of %s (%s): its application master did not "
                                 "answer this round",
                                 a->id, kill_reasons[k->reason]);
                        continue;
                }
                r = yarn_id_set_add(&j->killed, a->id);
                if (r < 0) {
                        note_oom(r);
                        continue;
                }
                log_info("Kill: attempt %s of job %" PRIu64 " on YARN node %s (%s), through its "
                         "application master",
                         a->id, j->id, a->node_http_address, kill_reasons[k->reason]);
                /* The kill is Algorithm 1's restart; its bigger slot is
                 * what YARN cannot be told. */
                if (k->reason == KILL_RESIZE)
                        log_notice("Not done: FlexSlot would restart %s with %s of memory; a "
                                   "MapReduce attempt's container is its job's size "
                                   "(mapreduce.map.memory.mb), which cannot be set for one "
                                   "attempt from outside: it runs again at that size",
                                   a->id, FORMAT_SIZE(k->slot_memory));
                ret[n++] = (YarnAction){ .kind = YARN_ACTION_KILL,
                                         .app = j->app,
                                         .job = j->jobs[0].id,
                                         .task = t->id,
                                         .attempt = a->id,
                                         .reason = kill_reasons[k->reason] };
        }
        return n;
}

static const char *const bottlenecks[] = {
        [BOTTLENECK_NONE] = "neither CPU- nor I/O-bound",
        [BOTTLENECK_IO] = "I/O-bound",
        [BOTTLENECK_CPU] = "CPU-bound",
};

/* A node's steal as the step saw it, for the log. */
static const char *steal_text(const Node *n, char buf[static 32]) {
        if (!node_measured(n))
                return "not measured";
        snprintf(buf, 32, "%.2f", n->steal);
        return buf;
}

/* Each straggler of the step named once per attempt, with what holds it
 * back: the step's reasons for the slot changes that follow. */
static void stragglers_said(YarnModel *m, const YarnSnapshot *s, const Decisions *d) {
        for (size_t i = 0; i < d->n_stragglers; i++) {
                const StragglerNote *note = &d->stragglers[i];
                const Attempt *sa = &s->a.attempts[note->attempt];
                const YarnAttempt *a = s->attempt_of[note->attempt];
                YarnModelJob *j = s->job_of[s->a.tasks[sa->task].job];
                const YarnModelNode *mn = yarn_model_node_by_node(m, s->a.nodes[sa->node].id);
                char steal[32];
                int r = yarn_id_set_add(&j->stragglers, a->id);

                if (r <= 0) {
                        note_oom(r);
                        continue;
                }
                log_info("Straggler: attempt %s of job %" PRIu64 " on YARN node %s, %s (score "
                         "%.3g; its VM's steal %s)",
                         a->id, j->id, mn ? mn->id : a->node_http_address,
                         bottlenecks[note->bottleneck], note->score,
                         steal_text(&s->a.nodes[sa->node], steal));
        }
}

/* The layers whose slot changes this step made, for the log. */
static void slot_deciders(const Decisions *d, char *buf, size_t size) {
        size_t len = 0;

        buf[0] = '\0';
        for (PolicyLayerKind k = 0; k < _POLICY_LAYER_MAX; k++)
                if (d->by_layer[k].slot_changes > 0 && len < size)
                        len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
                                                policy_layer_kind_to_string(k));
        if (len == 0)
                snprintf(buf, size, "policy");
}

static void slot_changes(YarnModel *m, Cluster *c, const YarnSnapshot *s, const Decisions *d,
                         usec_t now) {
        char by[64], steal[32];

        slot_deciders(d, by, sizeof(by));
        for (size_t i = 0; i < d->n_slot_changes; i++) {
                const SlotChange *sc = &d->slot_changes[i];
                const ClusterNode *cn = &c->nodes[sc->node];
                YarnModelNode *mn = yarn_model_node_by_node(m, cn->id);
                unsigned asked = sc->slots[SLOT_MAP] + sc->slots[SLOT_REDUCE],
                         have = cn->slots[SLOT_MAP] + cn->slots[SLOT_REDUCE], want,
                         slots[_SLOT_TYPE_MAX] = { 0 };

                if (!mn)
                        continue;
                want = yarn_model_clamp_slots(m, mn, asked);
                if (want == have) {
                        if (asked != want)
                                log_info("Slots: YARN node %s stays at %u containers (the %s asked "
                                         "%u: its VM's steal %s; it registered with %u, and "
                                         "keeps %u at least)",
                                         mn->id, have, by, asked,
                                         steal_text(&s->a.nodes[sc->node], steal),
                                         yarn_model_slots(&m->config, mn->registered_mb,
                                                          mn->registered_vcores),
                                         m->config.min_containers);
                        continue;
                }
                log_info("Slots: YARN node %s %u -> %u containers (the %s asked %u map, %u "
                         "reduce: its VM's steal %s)",
                         mn->id, have, want, by, sc->slots[SLOT_MAP], sc->slots[SLOT_REDUCE],
                         steal_text(&s->a.nodes[sc->node], steal));
                mn->want = want;
                slots[SLOT_MAP] = want;
                (void)cluster_node_update(c, mn->node, cn->state, slots, cn->running, now);
        }
}

/* Capacity requests for the nodes the ResourceManager shows at other than
 * wanted; a node back at its registered capacity wants nothing more. */
static size_t capacity_actions(YarnModel *m, YarnAction *ret) {
        size_t n = 0;

        for (size_t i = 0; i < m->n_nodes; i++) {
                YarnModelNode *mn = &m->nodes[i];
                unsigned most =
                        yarn_model_slots(&m->config, mn->registered_mb, mn->registered_vcores);
                bool full = mn->want >= most;

                if (!mn->want || mn->asking || mn->state != YARN_NODE_RUNNING)
                        continue;
                if (full && mn->memory_mb == mn->registered_mb &&
                    mn->vcores == mn->registered_vcores) {
                        mn->want = 0;
                        continue;
                }
                if (!full && yarn_model_slots(&m->config, mn->memory_mb, mn->vcores) == mn->want)
                        continue;
                mn->asking = true;
                ret[n++] = (YarnAction){
                        .kind = YARN_ACTION_CAPACITY,
                        .node = mn->id,
                        .memory_mb = full ? mn->registered_mb : mn->want * m->config.container_mb,
                        .vcores = full ? mn->registered_vcores
                                       : mn->want * m->config.container_vcores,
                };
        }
        return n;
}

/* An SLO scheduler's quota: a reservation of that many containers until
 * the job's deadline, asked once where [yarn] reservation-queue names the
 * queue; advice otherwise, or once YARN refused it, said when it changes.
 * A reservation asked or held stands as asked, until the deadline. */
static size_t quota_actions(YarnModel *m, const YarnSnapshot *s, const Decisions *d, usec_t now,
                            YarnAction *ret) {
        size_t n = 0;

        for (size_t i = 0; i < d->n_quotas; i++) {
                const SlotQuota *q = &d->quotas[i];
                YarnModelJob *j = s->job_of[q->job];
                YarnModelReservation *res = &j->reservation;
                unsigned containers = q->slots[SLOT_MAP] + q->slots[SLOT_REDUCE];

                if (m->config.reservation_queue && res->state == YARN_RESERVE_NONE &&
                    containers > 0 && j->deadline > now) {
                        *res = (YarnModelReservation){ .state = YARN_RESERVE_ASKING,
                                                       .containers = containers,
                                                       .arrival = now };
                        log_info("Reserve: job %" PRIu64 " (%s) needs %u map and %u reduce "
                                 "containers at least to meet its deadline: asking YARN for %u "
                                 "containers of %" PRIu64 " MB and %u vcores until then, in "
                                 "queue %s",
                                 j->id, j->app, q->slots[SLOT_MAP], q->slots[SLOT_REDUCE],
                                 containers, m->config.container_mb, m->config.container_vcores,
                                 m->config.reservation_queue);
                        ret[n++] = (YarnAction){ .kind = YARN_ACTION_RESERVE, .app = j->app };
                        continue;
                }
                if ((res->state != YARN_RESERVE_NONE && res->state != YARN_RESERVE_REFUSED) ||
                    containers == j->advised)
                        continue;
                j->advised = containers;
                log_info("Advice: job %" PRIu64 " (%s) needs %u map and %u reduce containers at "
                         "least to meet its deadline; %s, the queue's share is what it gets",
                         j->id, j->app, q->slots[SLOT_MAP], q->slots[SLOT_REDUCE],
                         res->state == YARN_RESERVE_REFUSED ? "YARN did not take its reservation"
                                                            : "no [yarn] reservation-queue is set");
        }
        return n;
}

void yarn_model_reservation(const YarnModel *m, const YarnModelJob *j, const char *id,
                            YarnReservationRequest *ret) {
        *ret = (YarnReservationRequest){
                .id = id,
                .queue = m->config.reservation_queue,
                .name = j->app,
                .containers = j->reservation.containers,
                .memory_mb = m->config.container_mb,
                .vcores = m->config.container_vcores,
                .arrival = j->reservation.arrival,
                .deadline = j->deadline,
        };
}

void yarn_model_reservation_id(YarnModel *m, const char *app, char *id) {
        YarnModelJob *j = yarn_model_job(m, app);

        if (!j) {
                free(id);
                return;
        }
        free(j->reservation.id);
        j->reservation.id = id;
}

/* The applications whose reservations YARN took, into their
 * reservations' queues. */
static size_t move_actions(YarnModel *m, YarnAction *ret) {
        size_t n = 0;

        for (size_t i = 0; i < m->n_jobs; i++) {
                YarnModelReservation *res = &m->jobs[i].reservation;

                if (res->state != YARN_RESERVE_TAKEN)
                        continue;
                res->state = YARN_RESERVE_MOVING;
                res->moves++;
                ret[n++] = (YarnAction){ .kind = YARN_ACTION_MOVE,
                                         .app = m->jobs[i].app,
                                         .reservation = res->id };
        }
        return n;
}

static void reservation_set(YarnModel *m, const char *app, YarnReserveState state) {
        YarnModelJob *j = yarn_model_job(m, app);

        if (j)
                j->reservation.state = state;
}

void yarn_model_reservation_taken(YarnModel *m, const char *app) {
        reservation_set(m, app, YARN_RESERVE_TAKEN);
}

void yarn_model_reservation_held(YarnModel *m, const char *app) {
        reservation_set(m, app, YARN_RESERVE_HELD);
}

void yarn_model_reservation_move_failed(YarnModel *m, const char *app, const char *why) {
        YarnModelJob *j = yarn_model_job(m, app);

        if (!j)
                return;
        if (j->reservation.moves >= YARN_MOVE_TRIES) {
                log_warning("YARN application %s did not move into its reservation %s (%s), "
                            "which stands unused: the minimum containers of job %" PRIu64
                            " are advice",
                            app, j->reservation.id, why, j->id);
                j->reservation.state = YARN_RESERVE_REFUSED;
                return;
        }
        log_info("YARN application %s did not move into its reservation %s yet (%s): asked "
                 "again next round",
                 app, j->reservation.id, why);
        j->reservation.state = YARN_RESERVE_TAKEN;
}

void yarn_model_reservation_refused(YarnModel *m, const char *app, const char *why) {
        YarnModelJob *j = yarn_model_job(m, app);

        if (!j)
                return;
        log_warning("YARN did not take the reservation of job %" PRIu64 " (%s): %s; its "
                    "minimum containers are advice",
                    j->id, j->app, why);
        j->reservation.state = YARN_RESERVE_REFUSED;
}

size_t yarn_model_actions(YarnModel *m, Cluster *c, const YarnSnapshot *s, const Decisions *d,
                          usec_t now, YarnAction *ret) {
        size_t n;

        stragglers_said(m, s, d);
        if (d->n_assignments + d->n_placements + d->n_reservations > 0)
                log_debug("YARN places containers itself: this step's %zu assignments, %zu job "
                          "slots and %zu reservations are not carried out",
                          d->n_assignments, d->n_placements, d->n_reservations);
        n = kill_actions(m, s, d, ret);
        slot_changes(m, c, s, d, now);
        n += capacity_actions(m, ret + n);
        n += quota_actions(m, s, d, now, ret + n);
        n += move_actions(m, ret + n);
        return n;
}

YarnModelNode *yarn_model_queue_refresh_node(YarnModel *m) {
        for (size_t i = 0; i < m->n_nodes; i++) {
                YarnModelNode *mn = &m->nodes[i];

                if (mn->state == YARN_NODE_RUNNING && !mn->asking && mn->memory_mb > 0) {
                        mn->asking = true;
                        return mn;
                }
        }
        return NULL;
}

void yarn_model_capacity_done(YarnModel *m, const char *node_id) {
        YarnModelNode *mn = yarn_model_node_by_id(m, node_id);

        if (mn)
                mn->asking = false;
}

void yarn_model_kill_failed(YarnModel *m, const char *app, const char *attempt) {
        YarnModelJob *j = yarn_model_job(m, app);

        for (size_t i = 0; j && i < j->killed.n; i++)
                if (strcmp(j->killed.ids[i], attempt) == 0) {
                        free(j->killed.ids[i]);
                        j->killed.ids[i] = j->killed.ids[--j->killed.n];
                        return;
                }
}

/* SPDX-License-Identifier: MIT */
#include "worker.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>

#include "common/log.h"
#include "common/macro.h"

typedef enum JobState {
        JOB_QUEUED,
        JOB_RUNNING,
        JOB_FINISHED,
} JobState;

typedef struct WorkerJob {
        struct WorkerJob *next;
        Worker *worker;
        WorkerJobOps ops;
        void *data;
        sd_event_source *timer; /* loop thread only */
        /* Under the worker's mutex: */
        JobState state;
        int result;
        /* Loop thread only: the timeout already answered for this job. */
        bool answered;
} WorkerJob;

struct Worker {
        sd_event *event;
        sd_event_source *wakeup;
        int eventfd;
        void *userdata;
        pthread_t thread;
        bool thread_running;
        bool thread_abandoned;

        pthread_mutex_t lock;
        pthread_cond_t cond;
        bool stopping;
        WorkerJob *queued, *queued_tail; /* FIFO */
        WorkerJob *finished;             /* LIFO; order restored when drained */
        size_t n_unanswered;             /* loop thread only */
};

static void job_free(WorkerJob *job) {
        if (job->ops.free_data)
                job->ops.free_data(job->data);
        sd_event_source_disable_unref(job->timer);
        free(job);
}

static void job_answer(WorkerJob *job, WorkerOutcome outcome, int result) {
        if (!job->answered)
                job->worker->n_unanswered--;
        job->answered = true;
        if (job->ops.done)
                job->ops.done(outcome, result, job->data);
}

static void *worker_thread(void *arg) {
        Worker *w = arg;
        static const uint64_t one = 1;

        pthread_mutex_lock(&w->lock);
        for (;;) {
                WorkerJob *job;
                int r;

                while (!w->stopping && !w->queued)
                        pthread_cond_wait(&w->cond, &w->lock);
                if (w->stopping)
                        break;
                job = w->queued;
                w->queued = job->next;
                if (!w->queued)
                        w->queued_tail = NULL;
                job->next = NULL;
                job->state = JOB_RUNNING;
                pthread_mutex_unlock(&w->lock);

                r = job->ops.run(w->userdata, job->data);

                pthread_mutex_lock(&w->lock);
                job->result = r;
                job->state = JOB_FINISHED;
                job->next = w->finished;
                w->finished = job;
                /* An eventfd counter cannot overflow at one write per job. */
                if (write(w->eventfd, &one, sizeof(one)) < 0)
                        log_error_errno(negative_errno(), "Cannot wake the event loop");
        }
        pthread_mutex_unlock(&w->lock);
        return NULL;
}

/* The loop thread's side: answers the jobs the worker has finished. */
static int on_wakeup(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        Worker *w = userdata;
        WorkerJob *list, *reversed = NULL;
        uint64_t counter;

        /* Not fatal: the finished list below is what counts, and a source
         * that returned an error would be disabled for good. */
        if (read(fd, &counter, sizeof(counter)) < 0 && errno != EAGAIN)
                log_warning_errno(negative_errno(), "Cannot read the worker's eventfd");

        pthread_mutex_lock(&w->lock);
        list = TAKE_PTR(w->finished);
        pthread_mutex_unlock(&w->lock);

        while (list) {
                WorkerJob *next = list->next;
                list->next = reversed;
                reversed = list;
                list = next;
        }
        while (reversed) {
                WorkerJob *job = reversed;
                reversed = job->next;
                job_answer(job, job->answered ? WORKER_LATE : WORKER_DONE, job->result);
                job_free(job);
        }
        return 0;
}

static int on_job_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        WorkerJob *job = userdata;
        Worker *w = job->worker;
        JobState state;

        pthread_mutex_lock(&w->lock);
        state = job->state;
        if (state == JOB_QUEUED) {
                WorkerJob **p = &w->queued, *prev = NULL;
                while (*p != job) {
                        prev = *p;
                        p = &(*p)->next;
                }
                *p = job->next;
                if (w->queued_tail == job)
                        w->queued_tail = prev;
        }
        pthread_mutex_unlock(&w->lock);

        switch (state) {
        case JOB_QUEUED:
                job_answer(job, WORKER_TIMEOUT_QUEUED, -ETIMEDOUT);
                job_free(job);
                break;
        case JOB_RUNNING:
                job_answer(job, WORKER_TIMEOUT_RUNNING, -ETIMEDOUT);
                break;
        case JOB_FINISHED:
                /* Finished just now; on_wakeup answers it with its result. */
                break;
        }
        return 0;
}

int worker_new(sd_event *event, void *userdata, Worker **ret) {
        _cleanup_(worker_freep) Worker *w = NULL;
        int r;

        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->eventfd = -1;
        w->userdata = userdata;
        w->event = sd_event_ref(event);
        pthread_mutex_init(&w->lock, NULL);
        pthread_cond_init(&w->cond, NULL);
        w->eventfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (w->eventfd < 0)
                return negative_errno();
        r = sd_event_add_io(event, &w->wakeup, w->eventfd, EPOLLIN, on_wakeup, w);
        if (r < 0)
                return r;
        (void)sd_event_source_set_description(w->wakeup, "worker-wakeup");
        r = pthread_create(&w->thread, NULL, worker_thread, w);
        if (r != 0)
                return -r;
        w->thread_running = true;
        *ret = TAKE_PTR(w);
        return 0;
}

int worker_submit(Worker *w, const WorkerJobOps *ops, void *data, usec_t timeout) {
        WorkerJob *job;
        int r;

        if (!w || !ops || !ops->run)
                return -EINVAL;
        if (!w->thread_running)
                return -ESHUTDOWN;
        if (w->n_unanswered >= WORKER_QUEUE_MAX)
                return -EBUSY;

        job = calloc(1, sizeof(*job));
        if (!job)
                return -ENOMEM;
        *job = (WorkerJob){ .worker = w, .ops = *ops, .data = data, .state = JOB_QUEUED };
        if (timeout > 0) {
                r = sd_event_add_time_relative(w->event, &job->timer, CLOCK_MONOTONIC, timeout, 0,
                                               on_job_timeout, job);
                if (r < 0) {
                        free(job);
                        return r;
                }
                (void)sd_event_source_set_description(job->timer, "worker-job-timeout");
        }

        pthread_mutex_lock(&w->lock);
        if (w->queued_tail)
                w->queued_tail->next = job;
        else
                w->queued = job;
        w->queued_tail = job;
        pthread_cond_signal(&w->cond);
        pthread_mutex_unlock(&w->lock);
        w->n_unanswered++;
        return 0;
}

size_t worker_get_pending(Worker *w) {
        return w ? w->n_unanswered : 0;
}

static int join_with_timeout(Worker *w, usec_t wait) {
        struct timespec deadline;
        usec_t until;

        if (wait == USEC_INFINITY)
                return -pthread_join(w->thread, NULL);
        if (clock_gettime(CLOCK_REALTIME, &deadline) < 0)
                return negative_errno();
        until = (usec_t)deadline.tv_sec * USEC_PER_SEC + (usec_t)deadline.tv_nsec / 1000 + wait;
        deadline.tv_sec = (time_t)(until / USEC_PER_SEC);
        deadline.tv_nsec = (long)(until % USEC_PER_SEC) * 1000;
        return -pthread_timedjoin_np(w->thread, NULL, &deadline);
}

int worker_stop(Worker *w, usec_t wait) {
        WorkerJob *queued;
        int r;

        if (!w->thread_running)
                return w->thread_abandoned ? -ETIMEDOUT : 0;

        pthread_mutex_lock(&w->lock);
        w->stopping = true;
        queued = TAKE_PTR(w->queued);
        w->queued_tail = NULL;
        pthread_cond_signal(&w->cond);
        pthread_mutex_unlock(&w->lock);

        while (queued) {
                WorkerJob *job = queued;
                queued = job->next;
                job_answer(job, WORKER_CANCELLED, -ECANCELED);
                job_free(job);
        }

        w->thread_running = false;
        r = join_with_timeout(w, wait);
        if (r == -ETIMEDOUT) {
                pthread_detach(w->thread);
                w->thread_abandoned = true;
                return r;
        }
        /* The thread is gone: what it finished last is answered now. */
        (void)on_wakeup(w->wakeup, w->eventfd, EPOLLIN, w);
        return r;
}

Worker *worker_free(Worker *w) {
        if (!w)
                return NULL;
        if (w->thread_running)
                (void)worker_stop(w, USEC_INFINITY);
        if (w->thread_abandoned)
                return NULL;
        sd_event_source_disable_unref(w->wakeup);
        sd_event_unref(w->event);
        if (w->eventfd >= 0)
                close(w->eventfd);
        pthread_cond_destroy(&w->cond);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return NULL;
}

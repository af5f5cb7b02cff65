/* SPDX-License-Identifier: MIT */
#include "event.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

/* Events live in a slab of records reused through a free list; the heap holds
 * the sort key next to the record's index so that sifting touches only the
 * heap array, and each record knows its heap position so cancel is
 * O(log n). An id is the slab index plus a per-record generation, which is
 * how a stale id is told apart from the record's next occupant. */

typedef struct HeapEntry {
        usec_t time;
        uint64_t seq;
        uint32_t slot;
} HeapEntry;

typedef struct EventRecord {
        EventFn fn;
        void *userdata;
        uint32_t generation;
        uint32_t heap_pos; /* UINT32_MAX when free */
        uint32_t next_free;
} EventRecord;

struct EventQueue {
        HeapEntry *heap;
        size_t n_heap, heap_capacity;
        EventRecord *records;
        uint32_t n_records, records_capacity;
        uint32_t free_head;
        uint64_t next_seq;
        uint64_t dispatched;
        usec_t now;
        bool stopped;
        EventHookFn hook;
        void *hook_data;
        uint64_t hook_every, hook_at; /* hook_at: a count of dispatched events */
};

#define NO_SLOT UINT32_MAX

int event_queue_new(EventQueue **ret) {
        EventQueue *q = calloc(1, sizeof(*q));

        if (!q)
                return -ENOMEM;
        q->free_head = NO_SLOT;
        *ret = q;
        return 0;
}

EventQueue *event_queue_free(EventQueue *q) {
        if (!q)
                return NULL;
        free(q->heap);
        free(q->records);
        free(q);
        return NULL;
}

static bool entry_before(const HeapEntry *a, const HeapEntry *b) {
        return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void heap_place(EventQueue *q, size_t pos, HeapEntry e) {
        q->heap[pos] = e;
        q->records[e.slot].heap_pos = (uint32_t)pos;
}

static void sift_up(EventQueue *q, size_t pos) {
        HeapEntry e = q->heap[pos];

        while (pos > 0) {
                size_t parent = (pos - 1) / 2;
                if (!entry_before(&e, &q->heap[parent]))
                        break;
                heap_place(q, pos, q->heap[parent]);
                pos = parent;
        }
        heap_place(q, pos, e);
}

static void sift_down(EventQueue *q, size_t pos) {
        HeapEntry e = q->heap[pos];

        for (;;) {
                size_t child = 2 * pos + 1;
                if (child >= q->n_heap)
                        break;
                if (child + 1 < q->n_heap && entry_before(&q->heap[child + 1], &q->heap[child]))
                        child++;
                if (!entry_before(&q->heap[child], &e))
                        break;
                heap_place(q, pos, q->heap[child]);
                pos = child;
        }
        heap_place(q, pos, e);
}

/* Removes the entry at pos and restores the heap around the entry moved
 * into its place, which may need to go either way. */
static void heap_remove(EventQueue *q, size_t pos) {
        q->n_heap--;
        if (pos == q->n_heap)
                return;
        heap_place(q, pos, q->heap[q->n_heap]);
        if (pos > 0 && entry_before(&q->heap[pos], &q->heap[(pos - 1) / 2]))
                sift_up(q, pos);
        else
                sift_down(q, pos);
}

static int grow(void **array, size_t elem, size_t *capacity, size_t need) {
        size_t n;
        void *p;

        if (need <= *capacity)
                return 0;
        n = *capacity ? *capacity * 2 : 64;
        while (n < need)
                n *= 2;
        p = realloc(*array, n * elem);
        if (!p)
                return -ENOMEM;
        *array = p;
        *capacity = n;
        return 0;
}

static int slot_alloc(EventQueue *q, uint32_t *ret_slot) {
        size_t capacity = q->records_capacity;
        int r;

        if (q->free_head != NO_SLOT) {
                *ret_slot = q->free_head;
                q->free_head = q->records[q->free_head].next_free;
                return 0;
        }
        if (q->n_records == NO_SLOT - 1)
                return -ENOSPC;
        r = grow((void **)&q->records, sizeof(EventRecord), &capacity, q->n_records + 1u);
        if (r < 0)
                return r;
        q->records_capacity = (uint32_t)MIN(capacity, (size_t)NO_SLOT);
        q->records[q->n_records].generation = 0;
        *ret_slot = q->n_records++;
        return 0;
}

static void slot_release(EventQueue *q, uint32_t slot) {
        EventRecord *rec = &q->records[slot];

        rec->generation++;
        rec->heap_pos = NO_SLOT;
        rec->next_free = q->free_head;
        q->free_head = slot;
}

static EventId make_id(uint32_t slot, uint32_t generation) {
        return ((uint64_t)generation << 32 | slot) + 1;
}

int event_queue_schedule(EventQueue *q, usec_t at, EventFn fn, void *userdata, EventId *ret_id) {
        uint32_t slot;
        int r;

        if (!fn || at < q->now)
                return -EINVAL;
        r = grow((void **)&q->heap, sizeof(HeapEntry), &q->heap_capacity, q->n_heap + 1);
        if (r < 0)
                return r;
        r = slot_alloc(q, &slot);
        if (r < 0)
                return r;
        q->records[slot].fn = fn;
        q->records[slot].userdata = userdata;
        q->heap[q->n_heap] = (HeapEntry){ .time = at, .seq = q->next_seq++, .slot = slot };
        q->records[slot].heap_pos = (uint32_t)q->n_heap;
        sift_up(q, q->n_heap++);
        if (ret_id)
                *ret_id = make_id(slot, q->records[slot].generation);
        return 0;
}

/* The slab slot of a pending event, or NO_SLOT for a stale or bad id. */
static uint32_t pending_slot(const EventQueue *q, EventId id) {
        uint64_t raw = id - 1;
        uint32_t slot = (uint32_t)raw;

        if (id == 0 || slot >= q->n_records ||
            q->records[slot].generation != (uint32_t)(raw >> 32) ||
            q->records[slot].heap_pos == NO_SLOT)
                return NO_SLOT;
        return slot;
}

int event_queue_cancel(EventQueue *q, EventId id) {
        uint32_t slot = pending_slot(q, id);

        if (slot == NO_SLOT)
                return -ENOENT;
        heap_remove(q, q->records[slot].heap_pos);
        slot_release(q, slot);
        return 0;
}

int event_queue_move(EventQueue *q, EventId id, usec_t at) {
        uint32_t slot = pending_slot(q, id);
        size_t pos;

        if (slot == NO_SLOT)
                return -ENOENT;
        if (at < q->now)
                return -EINVAL;
        pos = q->records[slot].heap_pos;
        q->heap[pos].time = at;
        q->heap[pos].seq = q->next_seq++;
        if (pos > 0 && entry_before(&q->heap[pos], &q->heap[(pos - 1) / 2]))
                sift_up(q, pos);
        else
                sift_down(q, pos);
        return 0;
}

usec_t event_queue_now(const EventQueue *q) {
        return q->now;
}

size_t event_queue_pending(const EventQueue *q) {
        return q->n_heap;
}

uint64_t event_queue_dispatched(const EventQueue *q) {
        return q->dispatched;
}

usec_t event_queue_next_time(const EventQueue *q) {
        return q->n_heap > 0 ? q->heap[0].time : USEC_INFINITY;
}

void event_queue_stop(EventQueue *q) {
        q->stopped = true;
}

void event_queue_set_hook(EventQueue *q, uint64_t every, EventHookFn fn, void *userdata) {
        q->hook = every > 0 ? fn : NULL;
        q->hook_data = userdata;
        q->hook_every = every;
        q->hook_at = q->dispatched + every;
}

uint64_t event_queue_run(EventQueue *q, usec_t until) {
        uint64_t n = 0;

        q->stopped = false;
        while (q->n_heap > 0 && !q->stopped && q->heap[0].time <= until) {
                HeapEntry top;
                EventRecord *rec;
                uint32_t generation;
                usec_t again;

                /* Here, before the next event, the last one is all done. */
                if (q->hook && q->dispatched == q->hook_at) {
                        q->hook_at += q->hook_every;
                        q->hook(q, q->hook_data);
                }
                top = q->heap[0];
                rec = &q->records[top.slot];
                generation = rec->generation;

                q->now = top.time;
                /* The event stays in the heap (at the top) while its callback
                 * runs, so its id is valid there and a cancel of itself is a
                 * plain removal. */
                again = rec->fn(q, rec->userdata);
                q->dispatched++;
                n++;
                rec = &q->records[top.slot];
                /* Cancelled itself, and the record may even hold a newer
                 * event by now. */
                if (rec->generation != generation)
                        continue;
                if (again > 0) {
                        size_t pos = rec->heap_pos;
                        q->heap[pos].time = q->now + again;
                        q->heap[pos].seq = q->next_seq++;
                        sift_down(q, pos);
                } else {
                        heap_remove(q, rec->heap_pos);
                        slot_release(q, top.slot);
                }
        }
        return n;
}

/* SPDX-License-Identifier: MIT */
#include "ring.h"

#include <errno.h>
#include <stdlib.h>

int ring_init(Ring *ring, size_t capacity, void (*free_item)(void *item)) {
        if (capacity == 0)
                return -EINVAL;
        ring->items = calloc(capacity, sizeof(void *));
        if (!ring->items)
                return -ENOMEM;
        ring->capacity = capacity;
        ring->n = ring->head = 0;
        ring->free_item = free_item;
        return 0;
}

void ring_done(Ring *ring) {
        for (size_t i = 0; i < ring->n; i++)
                ring->free_item(ring->items[(ring->head + i) % ring->capacity]);
        free(ring->items);
        ring->items = NULL;
        ring->n = ring->head = ring->capacity = 0;
}

void ring_push(Ring *ring, void *item) {
        if (ring->n < ring->capacity) {
                ring->items[(ring->head + ring->n) % ring->capacity] = item;
                ring->n++;
                return;
        }
        ring->free_item(ring->items[ring->head]);
        ring->items[ring->head] = item;
        ring->head = (ring->head + 1) % ring->capacity;
}

size_t ring_size(const Ring *ring) {
        return ring->n;
}

void *ring_get_newest(const Ring *ring, size_t i) {
        if (i >= ring->n)
                return NULL;
        return ring->items[(ring->head + ring->n - 1 - i) % ring->capacity];
}

/* SPDX-License-Identifier: MIT */
#pragma once

#include <stddef.h>

/* A bounded history: the newest capacity items, oldest evicted first. Items
 * are owned pointers freed with the ring's free function. */
typedef struct Ring {
        void **items;
        size_t capacity, n, head; /* head: index of the oldest item */
        void (*free_item)(void *item);
} Ring;

int ring_init(Ring *ring, size_t capacity, void (*free_item)(void *item));
void ring_done(Ring *ring);
/* Takes ownership of item; a full ring frees its oldest. */
void ring_push(Ring *ring, void *item);
size_t ring_size(const Ring *ring);
/* Item i counted back from the newest (0 = newest); NULL past the end. */
void *ring_get_newest(const Ring *ring, size_t i);

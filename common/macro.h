/* SPDX-License-Identifier: MIT */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _warn_unused_result_ __attribute__((warn_unused_result))

/* Hands ownership out of a cleanup variable: the variable becomes NULL so its
 * destructor does nothing when the scope ends. */
#define TAKE_PTR(p)                         \
        ({                                  \
                __typeof__(p) taken_ = (p); \
                (p) = NULL;                 \
                taken_;                     \
        })

#define TAKE_FD(fd)                   \
        ({                            \
                int taken_fd_ = (fd); \
                (fd) = -1;            \
                taken_fd_;            \
        })

/* Defines name##p(type **) that calls func on a non-NULL pointer, so any
 * destructor can be used with _cleanup_. */
#define DEFINE_POINTER_CLEANUP_FUNC(type, func) \
        static inline void func##p(type **p) {  \
                if (*p)                         \
                        func(*p);               \
        }

static inline void freep(void *p) {
        free(*(void **)p);
}

static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}

static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved_errno = errno;
                close(*fd);
                errno = saved_errno;
        }
}

/* Closes fd when it is open; -1, for fd = safe_close(fd). */
static inline int safe_close(int fd) {
        if (fd >= 0)
                close(fd);
        return -1;
}

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_close_ _cleanup_(closep)

/* Type-generic MIN/MAX/CLAMP that evaluate their arguments once. */
#define MIN(a, b)                                  \
        ({                                         \
                __typeof__(a) min_a_ = (a);        \
                __typeof__(b) min_b_ = (b);        \
                min_a_ < min_b_ ? min_a_ : min_b_; \
        })
#define MAX(a, b)                                  \
        ({                                         \
                __typeof__(a) max_a_ = (a);        \
                __typeof__(b) max_b_ = (b);        \
                max_a_ > max_b_ ? max_a_ : max_b_; \
        })
#define CLAMP(x, lo, hi) MIN(MAX((x), (lo)), (hi))

/* errno as a negative value, never 0, for the "return -errno" convention
 * after a libc call that failed without setting errno. */
static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}

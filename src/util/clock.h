/*
 * The monotonic clock in microseconds: a bottom utility (no state), usable from any layer.
 */
#ifndef ARB_CORE_CLOCK_H
#define ARB_CORE_CLOCK_H

#include <time.h>

static inline double arb_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

#endif /* ARB_CORE_CLOCK_H */

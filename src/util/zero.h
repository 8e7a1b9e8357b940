/* Zeroing a small object of known size (zero.c). */
#ifndef ARB_UTIL_ZERO_H
#define ARB_UTIL_ZERO_H

#include <stddef.h>

/*
 * memset(p, 0, n) through the C library's memset. For a constant size of a few hundred bytes
 * GCC inlines memset as `rep stos`, whose start-up cost is a visible part of a small
 * collective's path; the library's memset does the same with a handful of vector stores. The
 * size is opaque here (this file is its own translation unit), so the call stays a call.
 */
void arb_zero(void *p, size_t n);

#endif /* ARB_UTIL_ZERO_H */

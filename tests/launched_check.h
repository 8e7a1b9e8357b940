/*
 * The assertion of the launched (multi-rank) test programs: CHECK(cond, fmt, ...) counts a
 * check, and on failure counts it and prints the rank, file, line and message (the first 20 per
 * rank). The program sets rank after arbor_init and reports the counters at the end.
 */
#ifndef ARB_TESTS_LAUNCHED_CHECK_H
#define ARB_TESTS_LAUNCHED_CHECK_H

#include <stdio.h>

static int rank, size, failures, checks;

#define CHECK(_cond, ...)                                                                          \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(_cond)) {                                                                            \
            if (failures++ < 20) {                                                                 \
                fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);                \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fprintf(stderr, "\n");                                                             \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#endif /* ARB_TESTS_LAUNCHED_CHECK_H */

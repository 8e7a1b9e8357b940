/*
 * The assertion of the unit-tier programs: check(ok, fmt, ...) counts a check, and on failure
 * counts it and prints the message (the first 50). Each program prints the two counters and
 * exits non-zero when failures is not 0. Included once per program.
 */
#ifndef ARB_TESTS_UNIT_CHECK_H
#define ARB_TESTS_UNIT_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int checks, failures;

__attribute__((format(printf, 2, 3))) static bool check(bool ok, const char *fmt, ...)
{
    va_list ap;

    checks++;
    if (ok) return true;
    if (++failures <= 50) {
        fprintf(stderr, "FAIL: ");
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
    return false;
}

#endif /* ARB_TESTS_UNIT_CHECK_H */

/* CPU time this process has used (user + system), for the tests that check a waiting rank
 * sleeps instead of spinning (interrupt mode, active-message stalls, flush stalls). */
#ifndef ARB_TESTS_CPU_TIME_H
#define ARB_TESTS_CPU_TIME_H

#include <sys/resource.h>

static inline double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

#endif

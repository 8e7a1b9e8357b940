/* Logging dispatcher: one line per message on stderr, prefixed with who said it. */
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int arb_log_level = ARB_LOG_WARN;

static int log_rank = -1, log_size = -1;
static const char *const level_names[] = {"ERROR", "WARN", "INFO", "DEBUG", "TRACE"};

void arb_log_set_identity(int rank, int size)
{
    log_rank = rank;
    log_size = size;
}

void arb_log_emit(int level, const char *file, int line, const char *fmt, ...)
{
    char host[64] = "?", msg[1024];
    va_list ap;
    const char *base = strrchr(file, '/');

    gethostname(host, sizeof(host) - 1);
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "[arbor %s:%d %d/%d] %s %s:%d %s\n", host, (int)getpid(), log_rank, log_size,
            level_names[level], base ? base + 1 : file, line, msg);
}

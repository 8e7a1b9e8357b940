/*
 * Logging: level-checked macros (arguments are not evaluated below the level) and one
 * printf-checked dispatcher. Prefix "arbor host:pid r/P". ARBOR_LOG_LEVEL sets the level.
 */
#ifndef ARB_CORE_LOG_H
#define ARB_CORE_LOG_H

/* A bottom utility: includes nothing of the library, so that transports, bootstrap and
 * algorithms can log without pulling in the configuration or the core. */
enum { ARB_LOG_ERROR = 0, ARB_LOG_WARN, ARB_LOG_INFO, ARB_LOG_DEBUG, ARB_LOG_TRACE };

#ifndef ARB_MAX_LOG_LEVEL
#define ARB_MAX_LOG_LEVEL ARB_LOG_TRACE
#endif

extern int arb_log_level;

void arb_log_set_identity(int rank, int size);
void arb_log_emit(int level, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define arb_log(_lvl, ...)                                                                         \
    do {                                                                                           \
        if ((_lvl) <= ARB_MAX_LOG_LEVEL && (_lvl) <= arb_log_level)                                \
            arb_log_emit((_lvl), __FILE__, __LINE__, __VA_ARGS__);                                 \
    } while (0)

#define arb_error(...) arb_log(ARB_LOG_ERROR, __VA_ARGS__)
#define arb_warn(...)  arb_log(ARB_LOG_WARN, __VA_ARGS__)
#define arb_info(...)  arb_log(ARB_LOG_INFO, __VA_ARGS__)
#define arb_debug(...) arb_log(ARB_LOG_DEBUG, __VA_ARGS__)
#define arb_trace(...) arb_log(ARB_LOG_TRACE, __VA_ARGS__)

#endif /* ARB_CORE_LOG_H */

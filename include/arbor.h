/**
 * @file arbor.h
 * @brief arbor: a network-native collective and one-sided communication engine.
 *
 * Glossary
 * - rank: a process of the job, numbered 0..size-1 by the launcher (PMIx).
 * - team: an ordered group of ranks; ARBOR_TEAM_WORLD holds every rank after arbor_init.
 * - collective: a call every member of a team makes, in the same order on every member.
 * - single-valued: an argument that must have the same value on every member of the team.
 * - handle: the request of a non-blocking (`_nb`) call, completed by arbor_test / arbor_wait.
 * - segment: memory each rank registers at init (ARBOR_SEGMENT_SIZE); collectives land there.
 *
 * Every function returns an arbor_status_t: ARBOR_OK (0), ARBOR_INPROGRESS (1, test calls only)
 * or a negative ARBOR_ERR_* code that arbor_strerror names. Bad arguments are detected before
 * anything changes: a failed call leaves every other collective and handle intact.
 * Threads: arbor is not thread-safe yet; call it from one thread per process.
 */
#ifndef ARBOR_H
#define ARBOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ARBOR_VERSION_MAJOR 0
#define ARBOR_VERSION_MINOR 1
#define ARBOR_VERSION_PATCH 0

#if defined(__GNUC__)
#define ARBOR_API __attribute__((visibility("default")))
#else
#define ARBOR_API
#endif

/** Status codes. The numbers are ABI: never renumber, only append. */
typedef enum {
    ARBOR_OK = 0,
    ARBOR_INPROGRESS = 1,         /**< test calls: not complete yet */
    ARBOR_ERR_INVALID_ARG = -1,   /**< an argument is invalid (NULL output pointer, ...) */
    ARBOR_ERR_NOT_INITIALIZED = -2, /**< arbor_init has not succeeded (or finalize ran) */
    ARBOR_ERR_CONFIG = -3,        /**< an ARBOR_* variable has a bad value */
    ARBOR_ERR_TEAM = -4,          /**< unknown or freed team */
    ARBOR_ERR_RANK = -5,          /**< rank out of range */
    ARBOR_ERR_ROOT = -6,          /**< root out of range */
    ARBOR_ERR_COUNT = -7,         /**< count or byte size invalid */
    ARBOR_ERR_DATATYPE = -8,      /**< unknown datatype */
    ARBOR_ERR_OP = -9,            /**< unknown operation, or not defined for the datatype */
    ARBOR_ERR_FLAGS = -10,        /**< invalid flag combination */
    ARBOR_ERR_BUFFER = -11,       /**< NULL buffer with a nonzero size */
    ARBOR_ERR_HANDLE = -12,       /**< unknown, completed or freed handle */
    ARBOR_ERR_NO_MEMORY = -13,    /**< allocation failed or segment exhausted */
    ARBOR_ERR_TRANSPORT = -14,    /**< the transport reported an error */
    ARBOR_ERR_TIMEOUT = -15,      /**< no progress for ARBOR_TIMEOUT seconds */
    ARBOR_ERR_PEER_LOST = -16,    /**< a peer process went away */
    ARBOR_ERR_UNSUPPORTED = -17,  /**< not supported by this build, transport or algorithm */
    ARBOR_ERR_BOOTSTRAP = -18,    /**< the PMIx bootstrap failed */
    ARBOR_ERR_ALGORITHM = -19,    /**< the requested algorithm does not exist or cannot run */
    ARBOR_ERR_BUSY = -20,         /**< the object is still in use (e.g. finalize with live handles) */
} arbor_status_t;

/** Opaque handles. */
typedef struct arbor_team *arbor_team_h;
typedef struct arbor_request *arbor_request_h;

/** The team of every rank; valid between arbor_init and arbor_finalize. */
#define ARBOR_TEAM_WORLD ((arbor_team_h)0)

/** @brief Name of a status code ("ARBOR_ERR_ROOT: root out of range"). Never NULL. Local. */
ARBOR_API const char *arbor_strerror(arbor_status_t status);

/** @brief The library version as "major.minor.patch". Local, may be called before init. */
ARBOR_API const char *arbor_version(void);

/**
 * @brief Initialise arbor: read ARBOR_* configuration, bootstrap through PMIx, open the
 * transport, register the segment and build the world team.
 *
 * Collective over all ranks of the job. Without a PMIx server the program runs as a one-rank
 * job. Calling it twice returns ARBOR_OK and counts; arbor_finalize must then be called as often.
 *
 * @return ARBOR_OK, ARBOR_ERR_CONFIG (a bad ARBOR_* value; the message names the variable and
 *         what it accepts), ARBOR_ERR_BOOTSTRAP, ARBOR_ERR_TRANSPORT, ARBOR_ERR_NO_MEMORY.
 */
ARBOR_API arbor_status_t arbor_init(void);

/**
 * @brief Finalize: complete outstanding communication, release everything, leave PMIx.
 * Collective over all ranks. Returns ARBOR_ERR_NOT_INITIALIZED when not initialised.
 */
ARBOR_API arbor_status_t arbor_finalize(void);

/** @brief This rank's rank in @p team. Local. ARBOR_ERR_TEAM, ARBOR_ERR_INVALID_ARG. */
ARBOR_API arbor_status_t arbor_team_rank(arbor_team_h team, int *rank_p);

/** @brief Number of ranks of @p team. Local. ARBOR_ERR_TEAM, ARBOR_ERR_INVALID_ARG. */
ARBOR_API arbor_status_t arbor_team_size(arbor_team_h team, int *size_p);

/** @brief Name of the transport in use ("ucx", "ofi:shm", ...). Local. */
ARBOR_API arbor_status_t arbor_transport_name(const char **name_p);

/**
 * Optional parameters of non-blocking calls (extensible: set the bits of @c field_mask for the
 * fields you fill; NULL means all defaults).
 */
typedef struct {
    uint64_t field_mask;
    uint64_t flags; /**< reserved for sync flags; must be 0 for now (ARBOR_ERR_FLAGS) */
} arbor_op_params_t;

#define ARBOR_OP_PARAM_FLAGS (1ull << 0)

/**
 * @brief Barrier: returns once every member of @p team has entered it.
 * Collective, blocking. ARBOR_ERR_TEAM, ARBOR_ERR_TIMEOUT, ARBOR_ERR_TRANSPORT.
 */
ARBOR_API arbor_status_t arbor_barrier(arbor_team_h team);

/**
 * @brief Non-blocking barrier: starts the barrier and returns a handle at once; it never waits
 * for another rank. Complete it with arbor_test / arbor_wait.
 * ARBOR_ERR_TEAM, ARBOR_ERR_INVALID_ARG (NULL handle pointer), ARBOR_ERR_FLAGS.
 */
ARBOR_API arbor_status_t arbor_barrier_nb(arbor_team_h team, const arbor_op_params_t *params,
                                          arbor_request_h *req_p);

/**
 * @brief Broadcast @p nbytes bytes of @p buf from @p root to every member of @p team.
 *
 * Collective, blocking. @p nbytes and @p root are single-valued. @p buf may be NULL only when
 * @p nbytes is 0. On return the root's buffer may be reused and every other rank's buffer holds
 * the data. Errors: ARBOR_ERR_TEAM, ARBOR_ERR_ROOT, ARBOR_ERR_BUFFER, ARBOR_ERR_TIMEOUT,
 * ARBOR_ERR_TRANSPORT, ARBOR_ERR_ALGORITHM (a forced algorithm cannot run).
 */
ARBOR_API arbor_status_t arbor_bcast(arbor_team_h team, void *buf, size_t nbytes, int root);

/**
 * @brief Non-blocking broadcast. The buffer must not be touched until the handle completes.
 * Same arguments and errors as arbor_bcast, plus ARBOR_ERR_INVALID_ARG for a NULL @p req_p.
 */
ARBOR_API arbor_status_t arbor_bcast_nb(arbor_team_h team, void *buf, size_t nbytes, int root,
                                        const arbor_op_params_t *params, arbor_request_h *req_p);

/**
 * @brief Test a handle: ARBOR_OK when complete (the handle is then released and *req set to
 * NULL), ARBOR_INPROGRESS when not yet, or the error the operation failed with (the handle is
 * released too). Makes progress. Local. ARBOR_ERR_HANDLE for an unknown or released handle.
 */
ARBOR_API arbor_status_t arbor_test(arbor_request_h *req);

/**
 * @brief Wait for a handle to complete, making progress. Releases the handle and sets *req to
 * NULL. Returns ARBOR_ERR_TIMEOUT (handle kept) if nothing progresses for ARBOR_TIMEOUT seconds.
 */
ARBOR_API arbor_status_t arbor_wait(arbor_request_h *req);

/** @brief Make progress on every outstanding operation once. Local, never blocks. */
ARBOR_API arbor_status_t arbor_poll(void);

#ifdef __cplusplus
}
#endif

#endif /* ARBOR_H */

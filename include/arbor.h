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
 * - segment: memory each rank registers at init (ARBOR_SEGMENT_SIZE); collectives land there
 *   and the symmetric heap of the one-sided calls (arbor_mem_alloc) is carved from it.
 *
 * Every function returns an arbor_status_t: ARBOR_OK (0), ARBOR_INPROGRESS (1, test calls only)
 * or a negative ARBOR_ERR_* code that arbor_strerror names. Bad arguments are detected before
 * anything changes: a failed call leaves every other collective and handle intact.
 * Threads: arbor_init_thread chooses a thread level (ARBOR_THREAD_*, below); with
 * ARBOR_THREAD_MULTIPLE any thread may call arbor at any time. docs/THREADS.md has the rules.
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
    ARBOR_INPROGRESS = 1,           /**< test calls: not complete yet */
    ARBOR_ERR_INVALID_ARG = -1,     /**< an argument is invalid (NULL output pointer, ...) */
    ARBOR_ERR_NOT_INITIALIZED = -2, /**< arbor_init has not succeeded (or finalize ran) */
    ARBOR_ERR_CONFIG = -3,          /**< an ARBOR_* variable has a bad value */
    ARBOR_ERR_TEAM = -4,            /**< unknown, freed or failed team (after a timeout, a lost
                                     *   peer, or a call some members refused and others ran) */
    ARBOR_ERR_RANK = -5,            /**< rank out of range */
    ARBOR_ERR_ROOT = -6,            /**< root out of range */
    ARBOR_ERR_COUNT = -7,           /**< count or byte size invalid */
    ARBOR_ERR_DATATYPE = -8,        /**< unknown datatype */
    ARBOR_ERR_OP = -9,              /**< unknown operation, or not defined for the datatype */
    ARBOR_ERR_FLAGS = -10,          /**< invalid flag combination */
    ARBOR_ERR_BUFFER = -11,         /**< NULL buffer with a nonzero size */
    ARBOR_ERR_HANDLE = -12,         /**< unknown, completed or freed handle */
    ARBOR_ERR_NO_MEMORY = -13,      /**< allocation failed or segment exhausted */
    ARBOR_ERR_TRANSPORT = -14,      /**< the transport reported an error */
    ARBOR_ERR_TIMEOUT = -15,        /**< no progress for ARBOR_TIMEOUT seconds: the collective is
                                     *   cancelled and its team failed (ARBOR_ERR_TEAM after) */
    ARBOR_ERR_PEER_LOST = -16,      /**< a peer process went away */
    ARBOR_ERR_UNSUPPORTED = -17,    /**< not supported by this build, transport or algorithm */
    ARBOR_ERR_BOOTSTRAP = -18,      /**< the PMIx bootstrap failed */
    ARBOR_ERR_ALGORITHM = -19,      /**< the requested algorithm does not exist or cannot run */
    ARBOR_ERR_BUSY = -20,      /**< the object is still in use (e.g. finalize with live handles) */
    ARBOR_ERR_ADDRESS = -21,   /**< a remote range is not inside one live symmetric allocation */
    ARBOR_ERR_ALIGNMENT = -22, /**< a misaligned atomic or accumulate address */
    ARBOR_ERR_MISMATCH = -23,  /**< the members called different collectives (a message's
                                *   signature, a member's wait, ARBOR_CHECK) */
    ARBOR_ERR_PEER_STOPPED = -24, /**< a peer this call needs has finalized (arbor_finalize):
                                   *   it will never take part again (arbor_peer_state) */
} arbor_status_t;

/** Opaque handles. */
typedef struct arbor_team *arbor_team_h;
typedef struct arbor_request *arbor_request_h;

/** The team of every rank; valid between arbor_init and arbor_finalize. Not NULL: NULL is
 * ARBOR_TEAM_NULL ("no team": a negative split colour, a freed team), which every call rejects
 * with ARBOR_ERR_TEAM, as it does a freed or forged handle (handles carry a generation). */
#define ARBOR_TEAM_WORLD ((arbor_team_h)(uintptr_t)1)
#define ARBOR_TEAM_NULL  ((arbor_team_h)0)

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
 *         what it accepts), ARBOR_ERR_BOOTSTRAP (PMIx failed, or the ranks disagree on their
 *         uniform settings), ARBOR_ERR_TIMEOUT (a rank did not join within ARBOR_TIMEOUT: the
 *         same on every rank that waited, as the PMIx server ends the fence for all),
 *         ARBOR_ERR_PEER_LOST (a rank of the job ended before joining, e.g. the others had
 *         given up on this one, which started more than ARBOR_TIMEOUT late),
 *         ARBOR_ERR_UNSUPPORTED (the transport ARBOR_TRANSPORT names is not in this build or
 *         cannot run here), ARBOR_ERR_TRANSPORT (no transport opened or wired up),
 *         ARBOR_ERR_NO_MEMORY (allocation, or a segment too small for the world's landing
 *         memory).
 */
ARBOR_API arbor_status_t arbor_init(void);

/**
 * Thread levels, as MPI and GASNet-EX name them. At every level callbacks (user reduction
 * operations, active-message handlers) run on whichever thread drives progress; a handler may
 * call arbor_am_reply and the implicit (no handle) non-blocking one-sided calls, and any other
 * arbor call from a callback returns ARBOR_ERR_BUSY.
 * - SINGLE: one thread in the process calls arbor.
 * - FUNNELED: the process may have threads, but only the one that called arbor_init calls
 *   arbor.
 * - SERIALIZED: any thread may call arbor, never two at once (the application orders them).
 * - MULTIPLE: any thread may call arbor at any time. Rules that remain: a handle is waited or
 *   tested by one thread at a time (any thread, not necessarily the one that started it);
 *   collectives of one team are started in the same order on every member, so two threads
 *   must not start collectives on the same team concurrently; a team is freed (and a symmetric
 *   allocation made or freed) by one thread while no other uses it; init and finalize are
 *   called with no other thread inside arbor.
 * Below MULTIPLE the engine takes no lock (unless the progress thread runs, ARBOR_PROGRESS),
 * so the small-message path costs what it did without threads.
 */
enum {
    ARBOR_THREAD_SINGLE = 0,
    ARBOR_THREAD_FUNNELED = 1,
    ARBOR_THREAD_SERIALIZED = 2,
    ARBOR_THREAD_MULTIPLE = 3
};

/**
 * @brief arbor_init with a thread level: @p required is one of ARBOR_THREAD_*; the level
 * provided (written to @p provided) is the higher of @p required and ARBOR_THREADS (every level
 * is supported). Called again while initialised it counts like arbor_init and reports the level
 * chosen first. Collective over all ranks.
 * @return what arbor_init returns; ARBOR_ERR_INVALID_ARG (nothing happens) for an unknown
 *         level or a NULL @p provided.
 */
ARBOR_API arbor_status_t arbor_init_thread(int required, int *provided);

/** @brief The thread level arbor runs at (ARBOR_THREAD_*). Local. ARBOR_ERR_NOT_INITIALIZED,
 * ARBOR_ERR_INVALID_ARG (NULL @p level). */
ARBOR_API arbor_status_t arbor_query_thread(int *level);

/**
 * @brief Finalize: complete outstanding communication, release everything, leave PMIx.
 * Collective over all ranks, but not in step with their other collectives: from the call on,
 * this rank is STOPPED to its peers (arbor_peer_state), and it returns once every other rank
 * has called arbor_finalize or failed (ARBOR_TIMEOUT bounds the wait), serving one-sided
 * operations on its memory meanwhile. A peer still in a world collective this rank never called
 * gets ARBOR_ERR_PEER_STOPPED from it, with a message that names the collective; ranks that
 * reach arbor_finalize after different numbers of world collectives are told so in a warning
 * naming both counts. Teams and allocations still live are released without their collective
 * frees. Everything is released whatever it returns.
 * @return ARBOR_OK; ARBOR_ERR_NOT_INITIALIZED when not initialised; the error that failed the
 *         world team before (ARBOR_ERR_TIMEOUT, ARBOR_ERR_PEER_LOST, ...) or of the closing
 *         stages (ARBOR_ERR_TIMEOUT, ARBOR_ERR_PEER_LOST, ARBOR_ERR_TRANSPORT);
 *         ARBOR_ERR_BOOTSTRAP when the final PMIx fence fails.
 */
ARBOR_API arbor_status_t arbor_finalize(void);

/**
 * @brief End every rank of the job now, with exit status @p code (0..255): the launcher is asked
 * to kill the whole job (PMIx_Abort); without a launcher, or if it fails, this process exits
 * with @p code. Nothing is flushed or completed. Callable from any one rank, initialised or not.
 * @return never on success; ARBOR_ERR_INVALID_ARG (nothing happens) for a code outside 0..255.
 */
ARBOR_API arbor_status_t arbor_abort(int code);

/**
 * What this rank knows of a peer (arbor_peer_state). A rank that calls arbor_finalize is
 * STOPPED from then on: it stays inside arbor_finalize until every other rank has finalized or
 * failed, serving one-sided operations on its memory (which stays readable and writable), but
 * it joins no collective and sends no notification any more. Every wait that only that peer
 * could end (arbor_notify_wait on it, a collective still waiting for its part) returns
 * ARBOR_ERR_PEER_STOPPED instead of waiting for ARBOR_TIMEOUT; its team is failed as after
 * ARBOR_ERR_PEER_LOST. FAILED: the process is gone (the launcher, this node's process probe or
 * a transport error said so) or it called arbor_fail_self; waits on it return
 * ARBOR_ERR_PEER_LOST.
 */
typedef enum {
    ARBOR_PEER_RUNNING = 0,
    ARBOR_PEER_STOPPED = 1,
    ARBOR_PEER_FAILED = 2
} arbor_peer_state_t;

/**
 * @brief The state of world rank @p rank as this rank knows it now (self: RUNNING). Local and
 * cheap (a load or two: callers may ask before every access); it makes no progress, so an
 * announcement that needs this rank's progress to land (transports without mapped memory) is
 * seen after the next arbor call that makes progress (arbor_poll, any wait).
 * @return ARBOR_OK, ARBOR_ERR_NOT_INITIALIZED, ARBOR_ERR_RANK, ARBOR_ERR_INVALID_ARG (NULL
 *         @p state_p; nothing is written).
 */
ARBOR_API arbor_status_t arbor_peer_state(int rank, arbor_peer_state_t *state_p);

/**
 * @brief How many other ranks this rank knows as departed (STOPPED or FAILED) now: a caller that
 * checks its peers before each operation asks arbor_peer_state only when this changed. Local and
 * cheap, no progress (as arbor_peer_state).
 * @return ARBOR_OK, ARBOR_ERR_NOT_INITIALIZED, ARBOR_ERR_INVALID_ARG (NULL @p count_p).
 */
ARBOR_API arbor_status_t arbor_peer_departures(int *count_p);

/**
 * @brief This rank fails on purpose (Fortran's FAIL IMAGE, fault-tolerance tests): every peer
 * sees it FAILED at once (arbor_peer_state; its waits on this rank return ARBOR_ERR_PEER_LOST,
 * its teams holding it fail) while the process stays, doing nothing visible, so that the
 * launcher does not end the job. Returns once every other rank has finalized or failed (or
 * nothing moved for ARBOR_TIMEOUT seconds), with arbor finalized here whatever the count of
 * arbor_init calls: the caller should exit. Not collective.
 * @return ARBOR_OK, ARBOR_ERR_NOT_INITIALIZED, ARBOR_ERR_TIMEOUT (arbor is finalized anyway).
 */
ARBOR_API arbor_status_t arbor_fail_self(void);

/** @brief This rank's rank in @p team. Local. ARBOR_ERR_TEAM, ARBOR_ERR_INVALID_ARG. */
ARBOR_API arbor_status_t arbor_team_rank(arbor_team_h team, int *rank_p);

/** @brief Number of ranks of @p team. Local. ARBOR_ERR_TEAM, ARBOR_ERR_INVALID_ARG. */
ARBOR_API arbor_status_t arbor_team_size(arbor_team_h team, int *size_p);

/**
 * @brief Landing memory this rank holds for @p team: *bytes_p gets the bytes of the team's
 * landing space in this rank's segment (a 64-byte line per member, plus one channel block of
 * depth x (64 + slot) + 2048 bytes per peer (the depth: ARBOR_CHANNEL_DEPTH, grown towards
 * ARBOR_CHANNEL_BYTES of slots where the segment has room) this rank receives from, opened by
 * the first collective whose schedule receives from it), *channels_p the number of those
 * channels. It grows only with the peers the team's collectives use. Local.
 * @return ARBOR_OK, ARBOR_ERR_NOT_INITIALIZED, ARBOR_ERR_TEAM, ARBOR_ERR_INVALID_ARG (NULL
 *         pointer; nothing is written).
 */
ARBOR_API arbor_status_t arbor_team_landing_bytes(arbor_team_h team, size_t *bytes_p,
                                                  int *channels_p);

/** @brief Name of the transport in use ("ucx", "ofi:shm", ...). Local. */
ARBOR_API arbor_status_t arbor_transport_name(const char **name_p);

/*
 * Nodes: which ranks share a host, as the launcher says (PMIx local peers). Nodes are numbered
 * 0..nodes-1 in order of first appearance over the world ranks, so every rank computes the same
 * numbers; a client groups ranks by node with them (ARMCI's SMP domains, node-local teams).
 */
/** @brief Number of nodes the job spans (1 for a one-rank job). Local.
 * ARBOR_ERR_NOT_INITIALIZED, ARBOR_ERR_INVALID_ARG (NULL @p nodes_p). */
ARBOR_API arbor_status_t arbor_node_count(int *nodes_p);
/** @brief The node of world rank @p rank. Local. ARBOR_ERR_NOT_INITIALIZED, ARBOR_ERR_RANK
 * (outside 0..size-1), ARBOR_ERR_INVALID_ARG (NULL @p node_p); nothing is written on error. */
ARBOR_API arbor_status_t arbor_rank_node(int rank, int *node_p);

/**
 * What the last collective started on a team ran (arbor_team_last_collective). The strings are
 * the library's own and stay valid until arbor_finalize.
 */
typedef struct {
    const char *collective;  /**< "barrier", "bcast", ..., "exscan" */
    const char *algorithm;   /**< as ARBOR_<COLLECTIVE>_ALGORITHM spells it ("binomial", ...) */
    double predicted_us;     /**< the LogGP model's time for that algorithm, in microseconds
                              *   (without the barriers of ARBOR_IN/OUT_ALLSYNC) */
    const char *transport;   /**< as arbor_transport_name gives it */
    uint64_t seq;            /**< the collective's sequence number on the team (0, 1, ...) */
    int one_copy;            /**< 1: the model chose one copy (the receiver reads the sender's
                              *   buffer): flagged ARBOR_SYMMETRIC, or through cross-memory
                              *   attach (cma) */
    uint64_t one_copy_bytes; /**< bytes this rank has copied straight out of peers' buffers on
                              *   the team so far, every collective counted (one-copy path) */
    int cma;                 /**< 1: that one copy goes through the kernel's cross-memory
                              *   attach (ordinary buffers, ARBOR_CMA) */
} arbor_coll_info_t;

/**
 * @brief What the last collective this rank started on @p team ran: its algorithm, the
 * model's prediction for it and the transport. Collectives the library runs internally (team
 * split and free, finalize) are not counted. Local.
 * @return ARBOR_OK, ARBOR_ERR_NOT_INITIALIZED, ARBOR_ERR_TEAM, ARBOR_ERR_INVALID_ARG (NULL
 *         @p info), ARBOR_ERR_HANDLE (no collective has been started on @p team yet; @p info is
 *         left unchanged).
 */
ARBOR_API arbor_status_t arbor_team_last_collective(arbor_team_h team, arbor_coll_info_t *info);

/**
 * @brief The algorithm names ARBOR_<COLLECTIVE>_ALGORITHM accepts for @p collective ("barrier",
 * "bcast", ..., spelled as in arbor_coll_info_t), besides "auto": *names_p gets an array of
 * *count_p names owned by the library, in the order arbor-info lists them. Local; may be called
 * before arbor_init.
 * @return ARBOR_OK, ARBOR_ERR_INVALID_ARG (NULL argument or unknown collective; nothing is
 *         written).
 */
ARBOR_API arbor_status_t arbor_algorithm_names(const char *collective, const char *const **names_p,
                                               int *count_p);

/**
 * @brief The library describing itself, by key: the answer is written to @p buf as text
 * (NUL-terminated; at most @p len bytes). Local. Keys answered before arbor_init:
 *   - "version"
 *   - "config.count"; "config.<i>.name" (without ARBOR_), ".default", ".syntax", ".doc",
 *     ".value" (from the environment now; ARBOR_ERR_CONFIG if some ARBOR_* value is bad);
 *     "config.error" (why the environment does not parse, or ""); "config.unknown" (ARBOR_*
 *     names the table does not know, with suggestions, or "")
 *   - "collective.count"; "collective.<c>.name"; "collective.<c>.algorithm.count";
 *     "collective.<c>.algorithm.<a>.name" / ".description" (algorithm 0 is "auto")
 *   - "transport.count" (compiled in, in ARBOR_TRANSPORT=auto order); "transport.<t>.name";
 *     "transport.<t>.probe" or "transport.<t>.probe:<provider>": opens the backend alone and
 *     answers "<description> <capabilities, comma-separated, or ->", or returns the status of
 *     the failed open (ARBOR_ERR_UNSUPPORTED: not on this machine) with "" in @p buf
 * Keys answered after arbor_init (ARBOR_ERR_NOT_INITIALIZED before): "rank", "size",
 * "transport", "model.intra" / "model.inter" ("L=.. os=.. or=.. g=.. G=.. G1=.. Gop=..", in
 * microseconds, G, G1 and Gop per byte, with what stands in for G1 and Gop where they are not
 * known), "model.source", "model.cma" ("Gc=.. (where it came from)": one copy through
 * cross-memory attach per byte, or why that path is not taken), "model.cma_ratio" (what a
 * process_vm_readv cost against a memcpy of the same span, as the ranks agreed at this init, %.17g;
 * ARBOR_ERR_UNSUPPORTED when not measured), "model.calibration" (what ARBOR_LOGP_MEASURE measured
 * at this init, as the text of a calibration file for ARBOR_LOGP_FILE; ARBOR_ERR_UNSUPPORTED when
 * nothing was measured), "topology.nodes", "topology.node" ("<this rank's node> <ranks on it>"),
 * "topology.oversubscribed" (y / n), "segment.bytes", "heap.bytes", "heap.used",
 * "progress.thread" (y / n: arbor's progress thread runs now, ARBOR_PROGRESS=thread or started
 * for peers' one-sided access that needs this rank's progress).
 * @return ARBOR_OK, ARBOR_ERR_INVALID_ARG (NULL argument, @p len 0 or unknown key),
 *         ARBOR_ERR_COUNT (the answer did not fit: cut short), or as above.
 */
ARBOR_API arbor_status_t arbor_info_get(const char *key, char *buf, size_t len);

/**
 * Optional parameters of non-blocking calls (extensible: set the bits of @c field_mask for the
 * fields you fill; NULL means all defaults).
 */
typedef struct {
    uint64_t field_mask;
    uint64_t flags; /**< ARBOR_IN_* / ARBOR_OUT_* / ARBOR_ASYNC_FENCE / ARBOR_AGGREGATE /
                     *   ARBOR_SINGLE / ARBOR_LOCAL / ARBOR_SYMMETRIC */
} arbor_op_params_t;

#define ARBOR_OP_PARAM_FLAGS (1ull << 0)

/**
 * @brief Barrier: returns once every member of @p team has entered it.
 * Collective, blocking. Errors: those of every collective call ("Collectives", below).
 */
ARBOR_API arbor_status_t arbor_barrier(arbor_team_h team);

/**
 * @brief Non-blocking barrier: starts the barrier and returns a handle at once; it never waits
 * for another rank. Complete it with arbor_test / arbor_wait.
 * Errors: those of every collective call ("Collectives", below); the handle's completion
 * reports the barrier's own (ARBOR_ERR_TIMEOUT, ...).
 */
ARBOR_API arbor_status_t arbor_barrier_nb(arbor_team_h team, const arbor_op_params_t *params,
                                          arbor_request_h *req_p);

/**
 * @brief Broadcast @p nbytes bytes of @p buf from @p root to every member of @p team.
 *
 * Collective, blocking. @p nbytes and @p root are single-valued. @p buf may be NULL only when
 * @p nbytes is 0. On return the root's buffer may be reused and every other rank's buffer holds
 * the data. Errors: those of every collective call ("Collectives", below): ARBOR_ERR_ROOT,
 * ARBOR_ERR_BUFFER (NULL, or ARBOR_IN_PLACE), ARBOR_ERR_COUNT, ARBOR_ERR_TIMEOUT, ...
 */
ARBOR_API arbor_status_t arbor_bcast(arbor_team_h team, void *buf, size_t nbytes, int root);

/**
 * @brief Non-blocking broadcast. The buffer must not be touched until the handle completes.
 * Same arguments and errors as arbor_bcast, plus ARBOR_ERR_INVALID_ARG for a NULL @p req_p.
 */
ARBOR_API arbor_status_t arbor_bcast_nb(arbor_team_h team, void *buf, size_t nbytes, int root,
                                        const arbor_op_params_t *params, arbor_request_h *req_p);

/* ---------------------------------------------------------------------------------------- */
/* Datatypes and reduction operations (UPC Collectives 2.0, section 3.1)                     */

/** Built-in datatypes. Every reduction op is defined on every type except: bitwise ops (BAND,
 * BOR, BXOR) only on integer types; MIN / MAX not on complex or pair types; MINLOC / MAXLOC only on
 * the pair types; SUM / PROD / LAND / LOR not on pair types. Others give ARBOR_ERR_OP. */
typedef enum {
    ARBOR_BYTE = 0,
    ARBOR_CHAR,
    ARBOR_UCHAR,
    ARBOR_SHORT,
    ARBOR_USHORT,
    ARBOR_INT,
    ARBOR_UINT,
    ARBOR_LONG,
    ARBOR_ULONG,
    ARBOR_LONGLONG,
    ARBOR_ULONGLONG,
    ARBOR_INT8,
    ARBOR_UINT8,
    ARBOR_INT16,
    ARBOR_UINT16,
    ARBOR_INT32,
    ARBOR_UINT32,
    ARBOR_INT64,
    ARBOR_UINT64,
    ARBOR_FLOAT,
    ARBOR_DOUBLE,
    ARBOR_LONGDOUBLE,
    ARBOR_CPLX,            /**< float _Complex */
    ARBOR_DBLCPLX,         /**< double _Complex */
    ARBOR_LONGDBLCPLX,     /**< long double _Complex */
    ARBOR_FLOAT_INT,       /**< struct { float v; int i; } (MINLOC / MAXLOC) */
    ARBOR_DOUBLE_INT,      /**< struct { double v; int i; } */
    ARBOR_LONG_INT,        /**< struct { long v; int i; } */
    ARBOR_2INT,            /**< struct { int v; int i; } */
    ARBOR_SHORT_INT,       /**< struct { short v; int i; } */
    ARBOR_LONG_DOUBLE_INT, /**< struct { long double v; int i; } */
    ARBOR_DTYPE_COUNT
} arbor_dtype_t;

/** Reduction operations; values >= ARBOR_OP_USER_BASE are user operations (arbor_op_create). */
typedef int arbor_op_t;
enum {
    ARBOR_SUM = 0,
    ARBOR_PROD,
    ARBOR_BAND,
    ARBOR_BOR,
    ARBOR_BXOR,
    ARBOR_LAND,
    ARBOR_LOR,
    ARBOR_MIN,
    ARBOR_MAX,
    ARBOR_MINLOC,
    ARBOR_MAXLOC,
    ARBOR_OP_PREDEFINED,
    ARBOR_OP_USER_BASE = 1000
};

/** @brief Bytes of one element of @p dtype. Local. ARBOR_ERR_DATATYPE, ARBOR_ERR_INVALID_ARG. */
ARBOR_API arbor_status_t arbor_dtype_size(arbor_dtype_t dtype, size_t *size_p);

/** A user operation: combine @p len elements, inout[i] = in[i] op inout[i], where @p in holds
 * the contribution of lower ranks (the UPC / MPI convention). Must be associative. */
typedef void arbor_user_fn_t(void *in, void *inout, size_t len, arbor_dtype_t dtype);

/**
 * @brief Create a user reduction operation. @p commute = 0 makes it non-commutative: operands
 * are then combined in ascending rank order of the team. Local (every rank must create its ops
 * in the same order so that the same value names the same op). ARBOR_ERR_INVALID_ARG,
 * ARBOR_ERR_NO_MEMORY.
 */
ARBOR_API arbor_status_t arbor_op_create(arbor_user_fn_t *fn, int commute, arbor_op_t *op_p);
/** @brief Free a user operation. ARBOR_ERR_OP for a built-in, unknown or already freed op (op
 * values carry a generation, so a freed op's value stays invalid after its slot is reused);
 * ARBOR_ERR_BUSY, and nothing changes, while a started collective that uses it has not
 * completed (free it after test / wait / fence completes the call). */
ARBOR_API arbor_status_t arbor_op_free(arbor_op_t op);

/* ---------------------------------------------------------------------------------------- */
/* Teams                                                                                       */

/**
 * @brief Split @p parent: ranks passing the same @p color form a new team, ordered by @p key
 * then by parent rank. A negative color means "no team" (*team_p is set to ARBOR_TEAM_NULL).
 * Collective over @p parent and synchronising. ARBOR_ERR_TEAM, ARBOR_ERR_INVALID_ARG,
 * ARBOR_ERR_NO_MEMORY (heap space for the landing channels of a new team; the channels of all
 * the new teams are one heap allocation over @p parent, so every member of @p parent gets it).
 */
ARBOR_API arbor_status_t arbor_team_split(arbor_team_h parent, int color, int key,
                                          arbor_team_h *team_p);
/**
 * @brief Free a team. Collective over @p team and synchronising. Every collective of the team
 * must have been completed (test / wait / fence) and every symmetric allocation made on it
 * freed first, else ARBOR_ERR_BUSY and nothing changes. Freeing ARBOR_TEAM_WORLD gives
 * ARBOR_ERR_TEAM; *team_p is set to ARBOR_TEAM_NULL and later use of the handle (or of a copy of
 * it) gives ARBOR_ERR_TEAM. The team's landing space goes back to the symmetric heap. A failed
 * team (one of its collectives timed out) is freed locally, without synchronising, and keeps its
 * landing space out of the heap (a late message may still land there).
 */
ARBOR_API arbor_status_t arbor_team_free(arbor_team_h *team_p);
/**
 * @brief Team layouts (OpenSHMEM team_split_strided / split_2d, MPI_Group_incl): every member of
 * @p parent calls with the same arguments (collective over @p parent and synchronising, like a
 * split); a rank left out gets ARBOR_TEAM_NULL.
 * - strided: parent ranks start, start + stride, ..., start + (size - 1) * stride, in that order
 *   (stride may be negative; 0 only with size 1). ARBOR_ERR_COUNT (size < 1), ARBOR_ERR_RANK (a
 *   member outside the parent).
 * - from ranks: the @p n parent ranks of @p ranks, in that order (distinct). ARBOR_ERR_COUNT
 *   (n < 1), ARBOR_ERR_RANK (out of range or repeated), ARBOR_ERR_BUFFER (NULL ranks).
 * - 2-D: the parent as a grid of rows of @p xrange ranks (the last row may be short; xrange
 *   above the parent's size is the size): *xteam_p gets this rank's row (parent rank r is row
 *   r / xrange, column r % xrange), *yteam_p its column; either pointer may be NULL (that team
 *   is not made). Two splits, in that order. ARBOR_ERR_COUNT (xrange < 1).
 * Also ARBOR_ERR_TEAM, ARBOR_ERR_INVALID_ARG (NULL team_p), ARBOR_ERR_NO_MEMORY.
 */
ARBOR_API arbor_status_t arbor_team_split_strided(arbor_team_h parent, int start, int stride,
                                                  int size, arbor_team_h *team_p);
ARBOR_API arbor_status_t arbor_team_from_ranks(arbor_team_h parent, int n, const int ranks[],
                                               arbor_team_h *team_p);
ARBOR_API arbor_status_t arbor_team_split_2d(arbor_team_h parent, int xrange, arbor_team_h *xteam_p,
                                             arbor_team_h *yteam_p);
/** @brief The rank in @p dst_team of member @p src_rank of @p src_team, or -1 when that process
 * is no member of @p dst_team (OpenSHMEM team_translate_pe). Local. ARBOR_ERR_TEAM,
 * ARBOR_ERR_RANK (src_rank out of range), ARBOR_ERR_INVALID_ARG (NULL dst_rank_p). */
ARBOR_API arbor_status_t arbor_team_translate(arbor_team_h src_team, int src_rank,
                                              arbor_team_h dst_team, int *dst_rank_p);

/* ---------------------------------------------------------------------------------------- */
/* Synchronisation flags (GASNet collectives note, UPC Collectives 2.0 section 3.1.2), set in  */
/* arbor_op_params_t.flags of the _nb calls (ARBOR_OP_PARAM_FLAGS).                           */

#define ARBOR_IN_NOSYNC   (1u << 0) /**< data may start moving before others enter (= MYSYNC) */
#define ARBOR_IN_MYSYNC   (1u << 1) /**< default: this rank's buffers are read after entry */
#define ARBOR_IN_ALLSYNC  (1u << 2) /**< no data moves until every member has entered */
#define ARBOR_OUT_NOSYNC  (1u << 3) /**< (= MYSYNC) */
#define ARBOR_OUT_MYSYNC  (1u << 4) /**< default: completes when this rank's part is done */
#define ARBOR_OUT_ALLSYNC (1u << 5) /**< completes only when every member's part is done */
#define ARBOR_ASYNC_FENCE (1u << 6) /**< no handle: completed by the next arbor_coll_fence */
#define ARBOR_AGGREGATE   (1u << 7) /**< no handle: completes under the next call's handle */
/* Addressing scope (GASNet collectives note): at most one of the two (both: ARBOR_ERR_FLAGS).
 * For the "i" calls below they say what an address list holds; for every other collective
 * they are accepted and change nothing (each rank's own buffer arguments are all arbor reads,
 * so single-valued and local addresses are treated alike). */
#define ARBOR_SINGLE (1u << 8) /**< address lists are single-valued: NImages entries */
#define ARBOR_LOCAL  (1u << 9) /**< default: a list holds only this rank's images */
/* Buffer placement (docs/PERFORMANCE.md, "One copy"): the caller promises that, on every
 * member, the call's send and receive buffers lie in symmetric allocations (arbor_mem_alloc).
 * Every member must pass the flag alike (ARBOR_CHECK compares it). bcast, scatter, gather,
 * allgather, alltoall, reduce, allreduce and reduce_scatter between mapped peers may then move
 * each chunk with one copy: the receiver reads it (or combines it) straight from the sender's
 * buffer instead of through a landing slot, and the sender's call completes once its readers are
 * done. The model chooses (ARBOR_ONECOPY,
 * ARBOR_PRINT_ALGORITHM). A buffer that is not in the heap after all is sent through landing slots,
 * correctly. Other collectives, unmapped peers (OFI, ARBOR_DIRECT=n, other nodes): accepted, no
 * effect. */
#define ARBOR_SYMMETRIC (1u << 10)

/* Collectives. Buffers: "send" buffers are read, "recv" buffers written. ARBOR_IN_PLACE as the
 * send buffer (root only for gather/reduce; every rank for allgather, allreduce, scan, exscan,
 * alltoall, reduce_scatter) takes the input from the receive buffer. A send buffer that overlaps
 * the receive buffer is ARBOR_ERR_BUFFER, except the root's own block of gather / gatherv /
 * scatter (where in place would put it) and sendbuf == recvbuf of allreduce, scan and exscan;
 * allgather and allgatherv take only ARBOR_IN_PLACE. Counts are elements of @p dtype and
 * single-valued unless they are per-rank arrays.
 *
 * Errors of every collective call (blocking, _nb, and the completion of a handle):
 * ARBOR_ERR_NOT_INITIALIZED, ARBOR_ERR_TEAM (unknown, freed or failed team), ARBOR_ERR_ROOT,
 * ARBOR_ERR_BUFFER (NULL with nonzero count, misplaced ARBOR_IN_PLACE, overlap),
 * ARBOR_ERR_COUNT, ARBOR_ERR_DATATYPE, ARBOR_ERR_OP, ARBOR_ERR_FLAGS, ARBOR_ERR_INVALID_ARG
 * (_nb: NULL @p req_p without ASYNC_FENCE / AGGREGATE; unknown params field), ARBOR_ERR_TIMEOUT,
 * ARBOR_ERR_PEER_LOST, ARBOR_ERR_TRANSPORT, ARBOR_ERR_NO_MEMORY, ARBOR_ERR_ALGORITHM (a forced
 * algorithm cannot run), ARBOR_ERR_MISMATCH (below), ARBOR_ERR_PEER_STOPPED (a member called
 * arbor_finalize instead).
 *
 * One verdict per call: a call that one member refuses (its own arguments fail the rules above)
 * fails with that member's code on every member that accepted it and needs its part; a member
 * that finished its part before the refusal reached it (a bcast leaf's refusal seen by the root)
 * returns ARBOR_OK for data that is right, and its next call on the team fails instead. Calls
 * refused by every member leave the team usable; a call refused by some and run by others
 * fails the team (its members are out of step). A collective that any member cancelled (timeout,
 * lost peer) fails on every member, one that arrives late included where the others map its
 * memory (docs/PROTOCOL.md, "Verdicts").
 *
 * Mismatched calls (members passing different collectives, roots, counts, types, ops, sync
 * flags): by default each message between peers that map each other's memory (one node), and
 * a step's first message of at most 48 bytes through the transport (other nodes), carries the
 * call's signature, and members tell each other which call waits for what (mapped ones at once,
 * others once a wait has seen nothing move for a short grace: the matched path sends nothing
 * more); a receiver that finds another call's message, or a member that finds another waiting for
 * a part its own call does not have (two roots), fails the call with ARBOR_ERR_MISMATCH on every
 * member (a member that finished its part with right data, a root that only sends, fails its next
 * call on the team instead); a barrier against another collective is caught by the await word its
 * waiting side writes (barrier signals carry no signature). Not caught by default, only with
 * ARBOR_CHECK=1 (an up-front exchange per call): between unmapped peers, two messages longer than
 * 48 bytes (wrong data is possible; two roots whose long messages land in channels an earlier call
 * opened both complete), one-copy descriptors; offloaded collectives; such calls time out or fail
 * at the next call. No signature tells a skipped call from its twin of the same signature. */
#define ARBOR_IN_PLACE ((void *)(intptr_t)-1)

/** Root's @p sendbuf holds size x count elements; rank r receives block r in @p recvbuf. */
ARBOR_API arbor_status_t arbor_scatter(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                       size_t count, arbor_dtype_t dtype, int root);
ARBOR_API arbor_status_t arbor_scatter_nb(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                          size_t count, arbor_dtype_t dtype, int root,
                                          const arbor_op_params_t *params, arbor_request_h *req_p);
/** Rank r receives sendcounts[r] elements from the root's sendbuf + displs[r] (root's arrays). */
ARBOR_API arbor_status_t arbor_scatterv(arbor_team_h team, const void *sendbuf,
                                        const size_t *sendcounts, const size_t *displs,
                                        void *recvbuf, size_t recvcount, arbor_dtype_t dtype,
                                        int root);
ARBOR_API arbor_status_t arbor_scatterv_nb(arbor_team_h team, const void *sendbuf,
                                           const size_t *sendcounts, const size_t *displs,
                                           void *recvbuf, size_t recvcount, arbor_dtype_t dtype,
                                           int root, const arbor_op_params_t *params,
                                           arbor_request_h *req_p);
/** Root's @p recvbuf receives every rank's count elements, in rank order. */
ARBOR_API arbor_status_t arbor_gather(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                      size_t count, arbor_dtype_t dtype, int root);
ARBOR_API arbor_status_t arbor_gather_nb(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                         size_t count, arbor_dtype_t dtype, int root,
                                         const arbor_op_params_t *params, arbor_request_h *req_p);
ARBOR_API arbor_status_t arbor_gatherv(arbor_team_h team, const void *sendbuf, size_t sendcount,
                                       void *recvbuf, const size_t *recvcounts,
                                       const size_t *displs, arbor_dtype_t dtype, int root);
ARBOR_API arbor_status_t arbor_gatherv_nb(arbor_team_h team, const void *sendbuf, size_t sendcount,
                                          void *recvbuf, const size_t *recvcounts,
                                          const size_t *displs, arbor_dtype_t dtype, int root,
                                          const arbor_op_params_t *params, arbor_request_h *req_p);
/** Every rank's count elements to every rank, in rank order. */
ARBOR_API arbor_status_t arbor_allgather(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                         size_t count, arbor_dtype_t dtype);
ARBOR_API arbor_status_t arbor_allgather_nb(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                            size_t count, arbor_dtype_t dtype,
                                            const arbor_op_params_t *params,
                                            arbor_request_h *req_p);
/** recvcounts / displs (single-valued arrays) say where each rank's piece lands. */
ARBOR_API arbor_status_t arbor_allgatherv(arbor_team_h team, const void *sendbuf, size_t sendcount,
                                          void *recvbuf, const size_t *recvcounts,
                                          const size_t *displs, arbor_dtype_t dtype);
ARBOR_API arbor_status_t arbor_allgatherv_nb(arbor_team_h team, const void *sendbuf,
                                             size_t sendcount, void *recvbuf,
                                             const size_t *recvcounts, const size_t *displs,
                                             arbor_dtype_t dtype, const arbor_op_params_t *params,
                                             arbor_request_h *req_p);
/** Block j of rank i's sendbuf lands as block i of rank j's recvbuf (count elements each). */
ARBOR_API arbor_status_t arbor_alltoall(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                        size_t count, arbor_dtype_t dtype);
ARBOR_API arbor_status_t arbor_alltoall_nb(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                           size_t count, arbor_dtype_t dtype,
                                           const arbor_op_params_t *params, arbor_request_h *req_p);
ARBOR_API arbor_status_t arbor_alltoallv(arbor_team_h team, const void *sendbuf,
                                         const size_t *sendcounts, const size_t *sdispls,
                                         void *recvbuf, const size_t *recvcounts,
                                         const size_t *rdispls, arbor_dtype_t dtype);
ARBOR_API arbor_status_t arbor_alltoallv_nb(arbor_team_h team, const void *sendbuf,
                                            const size_t *sendcounts, const size_t *sdispls,
                                            void *recvbuf, const size_t *recvcounts,
                                            const size_t *rdispls, arbor_dtype_t dtype,
                                            const arbor_op_params_t *params,
                                            arbor_request_h *req_p);
/** Root's recvbuf = op over ranks (in rank order) of everyone's count elements. */
ARBOR_API arbor_status_t arbor_reduce(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                      size_t count, arbor_dtype_t dtype, arbor_op_t op, int root);
ARBOR_API arbor_status_t arbor_reduce_nb(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                         size_t count, arbor_dtype_t dtype, arbor_op_t op, int root,
                                         const arbor_op_params_t *params, arbor_request_h *req_p);
ARBOR_API arbor_status_t arbor_allreduce(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                         size_t count, arbor_dtype_t dtype, arbor_op_t op);
ARBOR_API arbor_status_t arbor_allreduce_nb(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                            size_t count, arbor_dtype_t dtype, arbor_op_t op,
                                            const arbor_op_params_t *params,
                                            arbor_request_h *req_p);
/** The reduction of everyone's sum(recvcounts) elements; rank r keeps recvcounts[r] of them
 * (in rank order). recvcounts is single-valued. */
ARBOR_API arbor_status_t arbor_reduce_scatter(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                              const size_t *recvcounts, arbor_dtype_t dtype,
                                              arbor_op_t op);
ARBOR_API arbor_status_t arbor_reduce_scatter_nb(arbor_team_h team, const void *sendbuf,
                                                 void *recvbuf, const size_t *recvcounts,
                                                 arbor_dtype_t dtype, arbor_op_t op,
                                                 const arbor_op_params_t *params,
                                                 arbor_request_h *req_p);
/** Inclusive prefix: rank r gets op over ranks 0..r. */
ARBOR_API arbor_status_t arbor_scan(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                    size_t count, arbor_dtype_t dtype, arbor_op_t op);
ARBOR_API arbor_status_t arbor_scan_nb(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                       size_t count, arbor_dtype_t dtype, arbor_op_t op,
                                       const arbor_op_params_t *params, arbor_request_h *req_p);
/** Exclusive prefix: rank r gets op over ranks 0..r-1; rank 0's recvbuf is left unchanged. */
ARBOR_API arbor_status_t arbor_exscan(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                      size_t count, arbor_dtype_t dtype, arbor_op_t op);
ARBOR_API arbor_status_t arbor_exscan_nb(arbor_team_h team, const void *sendbuf, void *recvbuf,
                                         size_t count, arbor_dtype_t dtype, arbor_op_t op,
                                         const arbor_op_params_t *params, arbor_request_h *req_p);

/* ---------------------------------------------------------------------------------------- */
/* Images: the "i" collectives (GASNet collectives note: gasnet_coll_init, the *i_nb calls)   */

/*
 * A client with several images (language-level threads) per rank declares them once with
 * arbor_images_init; the "i" calls then take address lists with one address per image, so data
 * lands in (or leaves) every image's memory without a client-side copy. Images are numbered
 * rank-major: all images of rank 0, then those of rank 1, and so on. A team's images are its
 * members' images in team-rank order; NImages(team) is their number, and the image arguments
 * (srcimage, dstimage) are image indices in the team.
 *
 * Address lists (dstlist, srclist): with ARBOR_LOCAL (the default) a rank's list holds its own
 * images' addresses, images[rank] entries in image order; with ARBOR_SINGLE every rank passes a
 * list of NImages(team) entries with the same contents, and each rank uses its own images'
 * entries. nbytes, the root image and the flags are single-valued. A list (or an entry of one
 * of this rank's images) may be NULL only when nbytes is 0. The single src of bcasti / scatteri
 * and dst of gatheri are used on the root image's rank only. Sources and destinations must not
 * overlap.
 *
 * Buffers follow the rule of the other _nb calls: none may be touched until the call completes.
 * A rank with several images stages the data through a private buffer: its images' sources are
 * copied when the call starts and their destinations written when the collective completes
 * (blocking: before return; _nb: in the test / wait / fence that completes it); a rank with one
 * image uses that image's buffers directly. Blocking calls take the same params as _nb ones
 * (NULL: defaults) except ARBOR_ASYNC_FENCE and ARBOR_AGGREGATE (ARBOR_ERR_FLAGS).
 *
 * Errors: ARBOR_ERR_NOT_INITIALIZED (before arbor_images_init), ARBOR_ERR_TEAM, ARBOR_ERR_FLAGS,
 * ARBOR_ERR_INVALID_ARG (NULL req_p without ASYNC_FENCE / AGGREGATE), ARBOR_ERR_ROOT (image
 * index >= NImages(team)), ARBOR_ERR_COUNT (total bytes too large), ARBOR_ERR_BUFFER (NULL list
 * or entry with nbytes > 0), ARBOR_ERR_NO_MEMORY, and those of the collective.
 */

/**
 * @brief Declare the images of every rank: @p images has one non-zero entry per world rank,
 * the same on every rank. Collective over ARBOR_TEAM_WORLD (it runs one allreduce that checks
 * the tables agree), at most once per arbor_init.
 * @return ARBOR_OK; ARBOR_ERR_INVALID_ARG on every rank when a table is NULL, holds a zero,
 *         sums past SSIZE_MAX or differs between ranks; ARBOR_ERR_BUSY (local, nothing
 *         changes) when the images were already declared; ARBOR_ERR_NOT_INITIALIZED.
 */
ARBOR_API arbor_status_t arbor_images_init(const size_t images[]);

/**
 * @brief The images of @p team: NImages(team), the index of this rank's first image in the
 * team and how many images this rank has. Any output may be NULL. Local.
 * ARBOR_ERR_NOT_INITIALIZED (no arbor_images_init yet), ARBOR_ERR_TEAM.
 */
ARBOR_API arbor_status_t arbor_team_images(arbor_team_h team, size_t *nimages_p, size_t *first_p,
                                           size_t *mine_p);

/** Broadcast: every image's dstlist address receives the @p nbytes at @p src of @p srcimage. */
ARBOR_API arbor_status_t arbor_bcasti(arbor_team_h team, void *const dstlist[], size_t srcimage,
                                      const void *src, size_t nbytes,
                                      const arbor_op_params_t *params);
ARBOR_API arbor_status_t arbor_bcasti_nb(arbor_team_h team, void *const dstlist[], size_t srcimage,
                                         const void *src, size_t nbytes,
                                         const arbor_op_params_t *params, arbor_request_h *req_p);
/** Scatter: @p src (at @p srcimage) holds NImages blocks of @p nbytes; image i gets block i. */
ARBOR_API arbor_status_t arbor_scatteri(arbor_team_h team, void *const dstlist[], size_t srcimage,
                                        const void *src, size_t nbytes,
                                        const arbor_op_params_t *params);
ARBOR_API arbor_status_t arbor_scatteri_nb(arbor_team_h team, void *const dstlist[],
                                           size_t srcimage, const void *src, size_t nbytes,
                                           const arbor_op_params_t *params, arbor_request_h *req_p);
/** Gather: @p dst (at @p dstimage) receives image i's @p nbytes as block i of NImages. */
ARBOR_API arbor_status_t arbor_gatheri(arbor_team_h team, size_t dstimage, void *dst,
                                       void *const srclist[], size_t nbytes,
                                       const arbor_op_params_t *params);
ARBOR_API arbor_status_t arbor_gatheri_nb(arbor_team_h team, size_t dstimage, void *dst,
                                          void *const srclist[], size_t nbytes,
                                          const arbor_op_params_t *params, arbor_request_h *req_p);
/** Gather to all (GASNet gather_alli): every image's dst receives NImages blocks of
 * @p nbytes, block i from image i's src. */
ARBOR_API arbor_status_t arbor_allgatheri(arbor_team_h team, void *const dstlist[],
                                          void *const srclist[], size_t nbytes,
                                          const arbor_op_params_t *params);
ARBOR_API arbor_status_t arbor_allgatheri_nb(arbor_team_h team, void *const dstlist[],
                                             void *const srclist[], size_t nbytes,
                                             const arbor_op_params_t *params,
                                             arbor_request_h *req_p);
/** Exchange (GASNet exchangei): every src and dst holds NImages blocks of @p nbytes; block j
 * of image i's src lands as block i of image j's dst. */
ARBOR_API arbor_status_t arbor_alltoalli(arbor_team_h team, void *const dstlist[],
                                         void *const srclist[], size_t nbytes,
                                         const arbor_op_params_t *params);
ARBOR_API arbor_status_t arbor_alltoalli_nb(arbor_team_h team, void *const dstlist[],
                                            void *const srclist[], size_t nbytes,
                                            const arbor_op_params_t *params,
                                            arbor_request_h *req_p);

/* ---------------------------------------------------------------------------------------- */
/* One-sided communication (ARMCI, GASNet-EX RMA / VIS / atomics / AM, OpenSHMEM 1.5)         */

/*
 * Addressing. One-sided calls name a target by its rank in ARBOR_TEAM_WORLD (use
 * arbor_team_world_rank to translate a team rank, or the calls on a context made on the team,
 * arbor_ctx_*, which take team ranks) and a remote address in the target's address
 * space, taken from the address table of a symmetric allocation (arbor_mem_addr) or from a
 * registration of that rank attached here (arbor_mem_attach). The whole remote range of a call
 * must lie inside one live allocation or one attached registration of that rank, else
 * ARBOR_ERR_ADDRESS and nothing moves. Local buffers (sources of puts, destinations of gets)
 * may be any memory of this process.
 *
 * Completion. A blocking put / accumulate returns when its source may be reused (local
 * completion); it is complete at the target (remotely complete: visible to any later access by
 * anyone) only after arbor_fence(target) or arbor_quiet(). A blocking get returns with the
 * data. Non-blocking calls (_nb) come in two forms, chosen by the request argument:
 *   - explicit: req_p != NULL gets a handle, completed by arbor_test / arbor_wait and the
 *     other completion calls of the collectives (a handle completes like the blocking call:
 *     source reusable for put / acc, data present for get, result written for atomics);
 *   - implicit: req_p == NULL; the operation completes at the next arbor_fence of its target
 *     or arbor_quiet (the GASNet-EX NBI / ARMCI implicit-handle shape).
 * Sources and destinations of a non-blocking call must not be touched until it completes.
 *
 * Ordering. Location consistency holds by default on every transport: operations from one
 * origin to the same target location (any byte in common) take effect there in the order the
 * origin issued them, with no fence between them: a put, accumulate or atomic is seen by every
 * later get, put, accumulate or atomic of that origin to an overlapping range, whatever the
 * form (contiguous, strided, vector, blocking or non-blocking, heap or registered memory).
 * This is ARMCI's location consistency and MPI's default accumulate ordering; the cost is a
 * wait only where an operation overlaps an earlier one not yet complete (docs/ONESIDED.md).
 * Operations to different locations of a target may complete in any order, except that
 * arbor_order(target) orders every earlier operation to that target before every later one
 * (OpenSHMEM fence), and arbor_fence / arbor_quiet complete them remotely (ARMCI_Fence /
 * ARMCI_AllFence, shmem_quiet). ARBOR_RMA_LOCATION_ORDER=n drops location consistency (only
 * arbor_order / fence / quiet order then); ARBOR_RMA_ORDERED=1 orders every operation to a
 * target in issue order, overlapping or not. What other ranks see is not ordered (a third rank
 * reading the location may see the operations in any order until arbor_fence). Accumulates to
 * one location are atomic with respect to each other; atomics on one word are atomic with
 * respect to other atomics on that word (not to plain puts).
 *
 * Progress. A target need not call arbor for operations aimed at it to complete: where the
 * transport needs target-side progress (docs/ONESIDED.md says which), arbor's progress thread
 * serves it (it starts by itself with the first symmetric allocation).
 *
 * Puts and gets to a target whose segment is mapped here (one host; this rank itself always)
 * are complete when the call returns, and their handles come back complete.
 *
 * Threads: the same rules as the rest of the API.
 */

/** A collective symmetric allocation. */
typedef struct arbor_mem *arbor_mem_h;

/**
 * @brief Collective allocation of @p nbytes bytes of the symmetric heap on every member of
 * @p team (ARMCI_Malloc, shmem_malloc). @p nbytes may differ between ranks (0 allowed). The
 * memory is zero-filled, aligned to 64 bytes, and lies at the same offset of every member's
 * segment. *local_p receives this rank's address (NULL when nbytes is 0); arbor_mem_addr gives
 * every member's.
 * Collective over @p team and synchronising.
 * @return ARBOR_OK; ARBOR_ERR_NO_MEMORY on every member when any member has no room (nothing
 *         is allocated anywhere); ARBOR_ERR_TEAM, ARBOR_ERR_INVALID_ARG.
 */
ARBOR_API arbor_status_t arbor_mem_alloc(arbor_team_h team, size_t nbytes, arbor_mem_h *mem_p,
                                         void **local_p);
/**
 * @brief arbor_mem_alloc where the heap may be too small: when it has no room on some member
 * (ARBOR_SEGMENT_SIZE bounds it), every member maps @p nbytes of its own instead (0 allowed;
 * pages take memory only once written), registers them as arbor_mem_register does with
 * ARBOR_MEM_NODE_SHARED, and attaches every other member's part, all within this call. Such an
 * allocation is not at a common offset: each member's address is arbor_mem_addr's (ARMCI_Malloc's
 * table, a coarray's), so an OpenSHMEM-style symmetric address does not apply. Every one-sided
 * call reaches it; arbor_mem_atomics says which mechanism its atomics use (CPU where every part is
 * mapped by every member, else the transport's, on every part alike); members of a node reach
 * each other's part by loads and stores (arbor_mem_ptr) where it is mapped, and elsewhere peers'
 * operations need the owner's progress (its progress thread starts). arbor_mem_usage counts the
 * heap only. The same signal words and arbor_wait_until words rule as for registrations: keep
 * those in the heap (arbor_mem_alloc). Collective over @p team and synchronising.
 * @return as arbor_mem_alloc; ARBOR_ERR_NO_MEMORY on every member when some member cannot map,
 *         register or attach.
 */
ARBOR_API arbor_status_t arbor_mem_alloc_any(arbor_team_h team, size_t nbytes, arbor_mem_h *mem_p,
                                             void **local_p);
/**
 * @brief Collective free of an allocation over the team it was allocated on. Every operation
 * on it must have been completed (quiet) first. The space is returned to the heap. *mem_p is set
 * to NULL. ARBOR_ERR_HANDLE for an unknown or freed allocation.
 */
ARBOR_API arbor_status_t arbor_mem_free(arbor_mem_h *mem_p);
/**
 * @brief Address table: the address of @p mem on member @p rank of its team (team rank), and
 * how many bytes that member allocated. Either output may be NULL. Local.
 * ARBOR_ERR_HANDLE, ARBOR_ERR_RANK.
 */
ARBOR_API arbor_status_t arbor_mem_addr(arbor_mem_h mem, int rank, void **addr_p, size_t *nbytes_p);
/** How the atomics (arbor_atomic, accumulates, put-with-signal's signal) on an allocation's
 * words are carried out: docs/ONESIDED.md, "Atomics: one mechanism per word". */
typedef enum {
    ARBOR_ATOMICS_TRANSPORT = 0, /**< by the transport (the network's atomics or its emulation) */
    ARBOR_ATOMICS_CPU = 1,       /**< by CPU instructions on mapped memory: every member maps
                                  * every other (one node), so no access comes through a NIC; a
                                  * runtime may apply them itself through arbor_mem_ptr */
} arbor_atomics_t;
/**
 * @brief Which mechanism serves atomics on @p mem's words (the same answer on every member).
 * CPU atomics where every rank of the job maps every other, or where every member of the
 * allocation's team does (a team of one node's ranks in a job that spans nodes); the
 * transport's otherwise. Local. ARBOR_ERR_HANDLE, ARBOR_ERR_INVALID_ARG (NULL @p kind_p).
 */
ARBOR_API arbor_status_t arbor_mem_atomics(arbor_mem_h mem, arbor_atomics_t *kind_p);
/**
 * @brief The heap's use on this rank: bytes in live allocations and bytes still free (the
 * largest free block in @p largest_p). Any output may be NULL. Local.
 */
ARBOR_API arbor_status_t arbor_mem_usage(size_t *used_p, size_t *free_p, size_t *largest_p);

/*
 * Registered user memory (MPI_Win_attach, GASNet-EX client segments, UCX packed remote keys).
 * Memory outside the symmetric heap (malloc'd, static, a stack frame that outlives its use)
 * becomes a target of every one-sided call once its owner registers it and a peer attaches the
 * owner's descriptor:
 *   owner: arbor_mem_register(base, nbytes, 0, &reg); arbor_mem_pack(reg, blob, &len); then
 *          send blob to the peers by any means (a put into a symmetric buffer, an active
 *          message, a collective);
 *   peer:  arbor_mem_attach(blob, len, &att); put / get / acc / atomics (every shape and form)
 *          to (owner, any address in [base, base + nbytes)) are then valid, checked against
 *          the range (ARBOR_ERR_ADDRESS outside it, as for heap allocations);
 *          arbor_mem_detach(&att) when done (it completes this rank's operations to the owner
 *          first; later accesses answer ARBOR_ERR_ADDRESS).
 * The owner's own one-sided calls reach its registered range without attaching. All calls are
 * local (no communication). The range is reached through the transport, not mapped, so
 * operations on it are slower than on the heap from a mapped peer, and atomics on it (the
 * owner's included) are atomic with respect to each other, not to atomics on heap words;
 * except with ARBOR_MEM_NODE_SHARED, below.
 * Signal words of arbor_put_signal and words of arbor_wait_until must stay in the heap.
 * The owner must keep the memory allocated until it deregisters, and must deregister only when
 * no peer accesses the range any more (the application's synchronisation, as for
 * MPI_Win_detach): an access after that is erroneous and may fail or write into whatever the
 * memory has become. Peers' operations on a registered range need the owner's progress on
 * every transport (arbor's progress thread starts with the first registration:
 * docs/ONESIDED.md), except on a node-shared one that every rank maps (below).
 */
/**
 * ARBOR_MEM_NODE_SHARED: where every rank maps every other's segment with CPU atomics (one
 * node, arbor_mem_atomics of the world's heap: ARBOR_ATOMICS_CPU) and the ranks may read each
 * other's memory (the access cross-memory attach needs, agreed at init), the pages that cover
 * the range move into node-shared memory in place: same address, same contents, copied by this
 * call (no other thread may write them meanwhile; pages of anonymous memory never touched are
 * not copied and take no memory until written). Peers that attach then map them and reach
 * the range as they reach the heap: loads and stores (arbor_mem_ptr gives the pointer) and CPU
 * atomics, the owner's own included; and peers need no progress of the owner for it. Elsewhere
 * (several nodes, ARBOR_DIRECT=n, not Linux, a page that is not private and writable) the
 * registration is as without the flag. The pages stay node-shared after deregistration (the
 * memory is the owner's as before), and a child process made by fork() shares them with its
 * parent. For a program's global and static data (an OpenSHMEM runtime's symmetric
 * variables), or a large buffer registered once.
 */
#define ARBOR_MEM_NODE_SHARED (1u << 0)
/** A registration of this rank's memory. */
typedef struct arbor_reg *arbor_reg_h;
/** A registration of some rank, attached on this rank. */
typedef struct arbor_attach *arbor_attach_h;
/**
 * @brief Register [@p base, @p base + @p nbytes) for one-sided access by every rank. @p base
 * must be 8-byte aligned; the range must not overlap the symmetric heap. @p flags: 0 or
 * ARBOR_MEM_NODE_SHARED (others are reserved: ARBOR_ERR_FLAGS). Local.
 * @return ARBOR_OK; ARBOR_ERR_BUFFER (NULL base or nbytes 0), ARBOR_ERR_ALIGNMENT,
 *         ARBOR_ERR_ADDRESS (overlaps the heap), ARBOR_ERR_COUNT (wraps the address space),
 *         ARBOR_ERR_UNSUPPORTED (the transport cannot give peers remote access to this memory;
 *         logged with the reason), ARBOR_ERR_NO_MEMORY, ARBOR_ERR_INVALID_ARG (NULL reg_p).
 */
ARBOR_API arbor_status_t arbor_mem_register(void *base, size_t nbytes, unsigned flags,
                                            arbor_reg_h *reg_p);
/** @brief Ends a registration (completing this rank's own operations on it first); *reg_p =
 * NULL. Peers must have stopped using it (see above). ARBOR_ERR_HANDLE for an unknown one. */
ARBOR_API arbor_status_t arbor_mem_deregister(arbor_reg_h *reg_p);
/**
 * @brief The descriptor peers attach: with @p blob NULL, *len_p receives its size; else the
 * descriptor is written to @p blob (room for *len_p bytes, ARBOR_ERR_COUNT when too small) and
 * *len_p set to its size. The bytes are opaque and position independent (copy them anywhere).
 * Valid in this job, until the registration ends. ARBOR_ERR_HANDLE, ARBOR_ERR_INVALID_ARG.
 */
ARBOR_API arbor_status_t arbor_mem_pack(arbor_reg_h reg, void *blob, size_t *len_p);
/** @brief Attaches a descriptor made by arbor_mem_pack on any rank of this job (the owner
 * itself included). ARBOR_ERR_INVALID_ARG for bytes that are no such descriptor,
 * ARBOR_ERR_BUFFER, ARBOR_ERR_NO_MEMORY, or the transport's error unpacking the key. */
ARBOR_API arbor_status_t arbor_mem_attach(const void *blob, size_t len, arbor_attach_h *att_p);
/**
 * @brief Attaches, by address, the registration of world rank @p rank that covers
 * [@p remote_addr, @p remote_addr + @p nbytes) in that rank's address space: the owner's
 * descriptor is fetched by an active message (no arbor_mem_pack / shipping by the program), so
 * memory one rank registered alone (an allocation of its own) is reachable from any peer that
 * learns its address. The handle is the caller's, as from arbor_mem_attach (detach it when
 * done; attaching twice gives two handles). Needs the owner's progress (its calls or its
 * progress thread, which registration starts). Blocking, not from inside an active-message
 * handler.
 * @return ARBOR_OK; ARBOR_ERR_ADDRESS (no live registration of that rank covers the range),
 *         ARBOR_ERR_RANK, ARBOR_ERR_BUFFER (NULL @p remote_addr), ARBOR_ERR_INVALID_ARG (NULL
 *         @p att_p), ARBOR_ERR_TIMEOUT (no answer within ARBOR_TIMEOUT), the active message's
 *         or the transport's error.
 */
ARBOR_API arbor_status_t arbor_mem_attach_remote(int rank, const void *remote_addr, size_t nbytes,
                                                 arbor_attach_h *att_p);
/** @brief Owner (world rank), base address and size of an attached registration. Any output
 * may be NULL. ARBOR_ERR_HANDLE. */
ARBOR_API arbor_status_t arbor_mem_attach_info(arbor_attach_h att, int *rank_p, void **base_p,
                                               size_t *nbytes_p);
/** @brief Completes this rank's operations to the owner (arbor_fence), then forgets the
 * attachment; *att_p = NULL. ARBOR_ERR_HANDLE for an unknown one. */
ARBOR_API arbor_status_t arbor_mem_detach(arbor_attach_h *att_p);

/**
 * @brief A load/store pointer to @p remote_addr of rank @p rank (world rank), where this process
 * maps that rank's memory (OpenSHMEM shmem_ptr): *local_p receives the address at which this
 * process reads and writes that byte, or NULL where the memory is reached only through the
 * transport (another host, OFI, ARBOR_DIRECT=n, a peer's registered memory). For this rank
 * itself it is @p remote_addr. Stores through the pointer are plain stores: they are not arbor
 * atomics and are ordered with arbor's operations only by the caller's own synchronisation
 * (arbor_quiet, a barrier). Local.
 * @return ARBOR_OK (*local_p set, maybe NULL); ARBOR_ERR_INVALID_ARG (NULL @p local_p),
 *         ARBOR_ERR_NOT_INITIALIZED, ARBOR_ERR_BUFFER (NULL @p remote_addr), ARBOR_ERR_RANK,
 *         ARBOR_ERR_ADDRESS (not in a live allocation or attached registration of that rank);
 *         on every error *local_p is NULL.
 */
ARBOR_API arbor_status_t arbor_mem_ptr(int rank, const void *remote_addr, void **local_p);

/** @brief Rank in ARBOR_TEAM_WORLD of member @p rank of @p team. Local.
 * ARBOR_ERR_TEAM, ARBOR_ERR_RANK, ARBOR_ERR_INVALID_ARG. */
ARBOR_API arbor_status_t arbor_team_world_rank(arbor_team_h team, int rank, int *world_rank_p);

/* Contiguous transfers. */
ARBOR_API arbor_status_t arbor_put(int rank, void *dst, const void *src, size_t nbytes);
ARBOR_API arbor_status_t arbor_get(int rank, void *dst, const void *src, size_t nbytes);
ARBOR_API arbor_status_t arbor_put_nb(int rank, void *dst, const void *src, size_t nbytes,
                                      arbor_request_h *req_p);
ARBOR_API arbor_status_t arbor_get_nb(int rank, void *dst, const void *src, size_t nbytes,
                                      arbor_request_h *req_p);

/*
 * Strided transfers (ARMCI PutS / GetS / AccS). count[0] is the bytes of one contiguous piece,
 * count[1..stride_levels] how many times each level repeats; src_stride[i] and dst_stride[i]
 * (i < stride_levels) are the byte distances between pieces of level i + 1 on each side.
 * 0 <= stride_levels <= ARBOR_MAX_STRIDE_LEVELS. Strides may be negative or overlap on the
 * source side; destinations must not overlap. For a get, @p src is remote and @p dst local; for
 * a put or accumulate, the reverse. Bad counts or strides: ARBOR_ERR_COUNT.
 * arbor sends one operation per piece or packs (local pack, one transfer, remote unpack), as the
 * LogGP model predicts cheaper; ARBOR_PRINT_ALGORITHM shows the choice. Completion is the same
 * either way: a packed put is locally complete once its data is copied into messages, and
 * complete at the target after arbor_fence / arbor_quiet / arbor_notify.
 */
#define ARBOR_MAX_STRIDE_LEVELS 8
ARBOR_API arbor_status_t arbor_put_strided(int rank, void *dst, const ptrdiff_t dst_stride[],
                                           const void *src, const ptrdiff_t src_stride[],
                                           const size_t count[], int stride_levels);
ARBOR_API arbor_status_t arbor_get_strided(int rank, void *dst, const ptrdiff_t dst_stride[],
                                           const void *src, const ptrdiff_t src_stride[],
                                           const size_t count[], int stride_levels);
ARBOR_API arbor_status_t arbor_put_strided_nb(int rank, void *dst, const ptrdiff_t dst_stride[],
                                              const void *src, const ptrdiff_t src_stride[],
                                              const size_t count[], int stride_levels,
                                              arbor_request_h *req_p);
ARBOR_API arbor_status_t arbor_get_strided_nb(int rank, void *dst, const ptrdiff_t dst_stride[],
                                              const void *src, const ptrdiff_t src_stride[],
                                              const size_t count[], int stride_levels,
                                              arbor_request_h *req_p);

/** Generalized I/O vector (ARMCI armci_giov_t): @p count segments of @p nbytes each, segment i
 * from src[i] to dst[i]. A call takes an array of them (different segment sizes per entry). */
typedef struct {
    void *const *src;
    void *const *dst;
    size_t count;
    size_t nbytes;
} arbor_iov_t;
ARBOR_API arbor_status_t arbor_put_vector(int rank, const arbor_iov_t *iov, size_t niov);
ARBOR_API arbor_status_t arbor_get_vector(int rank, const arbor_iov_t *iov, size_t niov);
ARBOR_API arbor_status_t arbor_put_vector_nb(int rank, const arbor_iov_t *iov, size_t niov,
                                             arbor_request_h *req_p);
ARBOR_API arbor_status_t arbor_get_vector_nb(int rank, const arbor_iov_t *iov, size_t niov,
                                             arbor_request_h *req_p);

/*
 * Accumulate: remote x = x op (scale * y) elementwise, y local (ARMCI_Acc). @p op: ARBOR_SUM
 * on ARBOR_INT32, INT64, FLOAT, DOUBLE, CPLX, DBLCPLX (and INT / LONG / LONGLONG and their
 * unsigned forms); ARBOR_MIN, ARBOR_MAX, ARBOR_BAND, ARBOR_BOR, ARBOR_BXOR, ARBOR_REPLACE on the
 * integer types. @p scale points to one element of @p dtype (NULL: 1) and is used by ARBOR_SUM
 * only. Atomic per element with respect to other accumulates on the same location, whatever
 * their lengths (remote atomics or compare-and-swap per element; DBLCPLX under a lock word on
 * the target: docs/ONESIDED.md), not with respect to plain puts. The remote address must be
 * aligned to the element size (ARBOR_ERR_ALIGNMENT). The strided form counts bytes in
 * count[0] (a multiple of the element size, else ARBOR_ERR_COUNT); the vector form's nbytes
 * likewise. ARBOR_ERR_DATATYPE for an unknown type, ARBOR_ERR_OP for a (type, op) pair not
 * listed. Blocking calls return when the source is reusable; the non-blocking form may complete
 * inside the call (its handle then comes back complete).
 */
/** x = y (accumulate only; collectives reject it with ARBOR_ERR_OP). */
#define ARBOR_REPLACE ((arbor_op_t)100)
ARBOR_API arbor_status_t arbor_acc(int rank, void *dst, const void *src, size_t count,
                                   arbor_dtype_t dtype, arbor_op_t op, const void *scale);
ARBOR_API arbor_status_t arbor_acc_nb(int rank, void *dst, const void *src, size_t count,
                                      arbor_dtype_t dtype, arbor_op_t op, const void *scale,
                                      arbor_request_h *req_p);
ARBOR_API arbor_status_t arbor_acc_strided(int rank, void *dst, const ptrdiff_t dst_stride[],
                                           const void *src, const ptrdiff_t src_stride[],
                                           const size_t count[], int stride_levels,
                                           arbor_dtype_t dtype, arbor_op_t op, const void *scale);
ARBOR_API arbor_status_t arbor_acc_strided_nb(int rank, void *dst, const ptrdiff_t dst_stride[],
                                              const void *src, const ptrdiff_t src_stride[],
                                              const size_t count[], int stride_levels,
                                              arbor_dtype_t dtype, arbor_op_t op, const void *scale,
                                              arbor_request_h *req_p);
ARBOR_API arbor_status_t arbor_acc_vector(int rank, const arbor_iov_t *iov, size_t niov,
                                          arbor_dtype_t dtype, arbor_op_t op, const void *scale);
ARBOR_API arbor_status_t arbor_acc_vector_nb(int rank, const arbor_iov_t *iov, size_t niov,
                                             arbor_dtype_t dtype, arbor_op_t op, const void *scale,
                                             arbor_request_h *req_p);

/*
 * Remote atomics on one 32- or 64-bit word (dtype ARBOR_INT32, UINT32, INT64, UINT64, and
 * INT / UINT / LONG / ULONG / LONGLONG / ULONGLONG of those sizes), naturally aligned
 * (ARBOR_ERR_ALIGNMENT). @p operand and @p compare point to one element of @p dtype (compare
 * only for CSWAP); @p result receives the old value for the fetching ops (may be NULL for the
 * others). Atomic with respect to every other arbor atomic on the word. Errors: ARBOR_ERR_RANK,
 * ARBOR_ERR_OP (op out of range), ARBOR_ERR_DATATYPE (any other type), ARBOR_ERR_BUFFER (NULL
 * operand, compare or result where the op needs it), ARBOR_ERR_ADDRESS, ARBOR_ERR_ALIGNMENT.
 * The non-blocking form is truly non-blocking for the 64-bit FETCH, SET, ADD, SWAP, CSWAP and
 * FADD where the transport carries them; the others (compare-and-swap loops) complete inside
 * the call and return a completed handle.
 */
typedef enum {
    ARBOR_AMO_FETCH = 0, /**< result = x */
    ARBOR_AMO_SET,       /**< x = operand */
    ARBOR_AMO_ADD,       /**< x += operand */
    ARBOR_AMO_AND,       /**< x &= operand */
    ARBOR_AMO_OR,        /**< x |= operand */
    ARBOR_AMO_XOR,       /**< x ^= operand */
    ARBOR_AMO_SWAP,      /**< result = x; x = operand */
    ARBOR_AMO_CSWAP,     /**< result = x; if (x == compare) x = operand */
    ARBOR_AMO_FADD,      /**< result = x; x += operand */
    ARBOR_AMO_FAND,      /**< result = x; x &= operand */
    ARBOR_AMO_FOR,       /**< result = x; x |= operand */
    ARBOR_AMO_FXOR,      /**< result = x; x ^= operand */
    ARBOR_AMO_COUNT
} arbor_amo_t;
ARBOR_API arbor_status_t arbor_atomic(int rank, void *dst, arbor_amo_t op, arbor_dtype_t dtype,
                                      const void *operand, const void *compare, void *result);
ARBOR_API arbor_status_t arbor_atomic_nb(int rank, void *dst, arbor_amo_t op, arbor_dtype_t dtype,
                                         const void *operand, const void *compare, void *result,
                                         arbor_request_h *req_p);

/* Ordering and completion. */
/** @brief Every earlier operation to @p rank is ordered before every later one (shmem_fence).
 * Local; non-blocking except that a packed strided put to @p rank still queued there (see the
 * strided calls) is waited for, since it is applied by the target's progress. ARBOR_ERR_RANK. */
ARBOR_API arbor_status_t arbor_order(int rank);
/** @brief Completes every operation this rank issued to @p rank, explicit and implicit, at the
 * target (ARMCI_Fence), packed strided puts included. Active messages sent with
 * arbor_am_request are not covered (a reply tells the sender its handler ran). Blocking, local.
 * ARBOR_ERR_TIMEOUT after ARBOR_TIMEOUT seconds without progress. */
ARBOR_API arbor_status_t arbor_fence(int rank);
/** @brief arbor_fence to every rank (ARMCI_AllFence, shmem_quiet). */
ARBOR_API arbor_status_t arbor_quiet(void);

/*
 * Communication contexts (OpenSHMEM contexts, UPC++ / Chapel per-task streams). A context is an
 * independent stream of one-sided operations: its own outstanding-operation counters and its
 * own list of operations still to finish, so arbor_ctx_quiet waits for that context's
 * operations only, and a thread that owns a private context never waits on another thread's
 * traffic. A context is made on a team, and its calls name the target by its rank in that team
 * (ARBOR_TEAM_WORLD: world ranks). The calls without a context (arbor_put, arbor_quiet, ...)
 * are the default context: ARBOR_CTX_DEFAULT passed to a context call means them (world ranks),
 * and arbor_quiet / arbor_fence complete the default context's operations, not other contexts'.
 * Addresses, argument checks and errors are those of the calls without a context; location order
 * holds within a context. Between contexts only quiet orders (OpenSHMEM): two contexts' writes
 * to one word are ordered by a quiet of the first one's context before the second one writes.
 *
 * ARBOR_CTX_PRIVATE: one thread only uses the context (the one that calls it, at any thread
 * level), and it takes no lock shared with other threads for: operations to mapped targets
 * (docs/ONESIDED.md: one host, self); contiguous put / get and single 64-bit atomics (64-bit
 * FETCH, SET, ADD, FADD, SWAP, CSWAP) to symmetric allocations of targets it does not map,
 * which go through a transport stream of the context's own (UCX: a worker; libfabric
 * tcp;ofi_rxm: an endpoint), opened at its first operation through the transport, from its
 * first quiet after it reached the target on; and its quiet and fence over them. Everything else
 * (strided, signals, 32-bit and loop atomics, registered memory; every operation where the
 * transport has no streams: libfabric's shm) shares the transport's one progress engine and
 * takes arbor's lock while it posts and waits. A context without the flag may be used by any
 * threads, as the default one. Local calls.
 */
typedef struct arbor_ctx *arbor_ctx_h;
#define ARBOR_CTX_DEFAULT ((arbor_ctx_h)0)
#define ARBOR_CTX_PRIVATE (1u << 0) /**< one thread only: no shared lock (mapped, stream) */
/** @brief A context on @p team (ARBOR_TEAM_WORLD for world ranks) with @p flags (0 or
 * ARBOR_CTX_PRIVATE). The team may be freed before the context (the context keeps its rank
 * table). ARBOR_ERR_INVALID_ARG (NULL ctx_p), ARBOR_ERR_FLAGS, ARBOR_ERR_TEAM,
 * ARBOR_ERR_NOT_INITIALIZED, ARBOR_ERR_NO_MEMORY. */
ARBOR_API arbor_status_t arbor_ctx_create(arbor_team_h team, unsigned flags, arbor_ctx_h *ctx_p);
/** @brief Completes the context's operations (arbor_ctx_quiet), then frees it; *ctx_p = NULL.
 * ARBOR_ERR_HANDLE (unknown or destroyed context, or ARBOR_CTX_DEFAULT). */
ARBOR_API arbor_status_t arbor_ctx_destroy(arbor_ctx_h *ctx_p);
/** @brief The team rank / team size of this rank in the context's team (ARBOR_CTX_DEFAULT: the
 * world). Either output may be NULL. ARBOR_ERR_HANDLE. */
ARBOR_API arbor_status_t arbor_ctx_rank(arbor_ctx_h ctx, int *rank_p, int *size_p);
/** @brief arbor_put / arbor_get on @p ctx: returns when the source may be reused / the data
 * arrived; a put is complete at the target after arbor_ctx_quiet. */
ARBOR_API arbor_status_t arbor_ctx_put(arbor_ctx_h ctx, int rank, void *dst, const void *src,
                                       size_t nbytes);
ARBOR_API arbor_status_t arbor_ctx_get(arbor_ctx_h ctx, int rank, void *dst, const void *src,
                                       size_t nbytes);
/** @brief Implicit non-blocking put / get on @p ctx (shmem_ctx_put_nbi): complete, buffers
 * reusable and data present, after arbor_ctx_quiet(ctx). */
ARBOR_API arbor_status_t arbor_ctx_put_nbi(arbor_ctx_h ctx, int rank, void *dst, const void *src,
                                           size_t nbytes);
ARBOR_API arbor_status_t arbor_ctx_get_nbi(arbor_ctx_h ctx, int rank, void *dst, const void *src,
                                           size_t nbytes);
/** @brief arbor_atomic on @p ctx (blocking: the result is written on return). */
ARBOR_API arbor_status_t arbor_ctx_atomic(arbor_ctx_h ctx, int rank, void *dst, arbor_amo_t op,
                                          arbor_dtype_t dtype, const void *operand,
                                          const void *compare, void *result);
/** @brief Implicit non-blocking atomic on @p ctx: the result (fetching ops) is written by
 * arbor_ctx_quiet(ctx) at the latest. */
ARBOR_API arbor_status_t arbor_ctx_atomic_nbi(arbor_ctx_h ctx, int rank, void *dst, arbor_amo_t op,
                                              arbor_dtype_t dtype, const void *operand,
                                              const void *compare, void *result);
/** @brief arbor_put_strided / arbor_get_strided on @p ctx (blocking: source reusable / data
 * arrived on return; a put is complete at the target after arbor_ctx_quiet). */
ARBOR_API arbor_status_t arbor_ctx_put_strided(arbor_ctx_h ctx, int rank, void *dst,
                                               const ptrdiff_t dst_stride[], const void *src,
                                               const ptrdiff_t src_stride[], const size_t count[],
                                               int stride_levels);
ARBOR_API arbor_status_t arbor_ctx_get_strided(arbor_ctx_h ctx, int rank, void *dst,
                                               const ptrdiff_t dst_stride[], const void *src,
                                               const ptrdiff_t src_stride[], const size_t count[],
                                               int stride_levels);
/** @brief Every earlier operation of @p ctx to each target is ordered before every later one
 * of @p ctx to it (shmem_ctx_fence). ARBOR_ERR_HANDLE. */
ARBOR_API arbor_status_t arbor_ctx_fence(arbor_ctx_h ctx);
/** @brief Completes every operation issued on @p ctx at its target, fetched results written
 * (shmem_ctx_quiet); ARBOR_CTX_DEFAULT: arbor_quiet. ARBOR_ERR_HANDLE, ARBOR_ERR_TIMEOUT, or
 * the first failure of one of its implicit operations. */
ARBOR_API arbor_status_t arbor_ctx_quiet(arbor_ctx_h ctx);

/*
 * Point-to-point synchronization.
 * arbor_notify(rank): completes every operation this rank issued to @p rank (put, get,
 * accumulate, atomic; explicit handles not yet waited on included) at the target, then adds 1
 * to the target's notification counter for this rank. When the target's arbor_notify_wait
 * returns, all of them are visible there (the CAF paper's notify / wait guarantee).
 * arbor_notify_wait(rank, n): waits until @p n notifications from @p rank have arrived that no
 * earlier wait consumed, and consumes them. Notifications never get lost and are counted per
 * pair, so sync images of CAF map onto notify to each partner then wait for one from each.
 * ARBOR_ERR_TIMEOUT after ARBOR_TIMEOUT seconds without one; ARBOR_ERR_PEER_STOPPED (@p rank is
 * in arbor_finalize) or ARBOR_ERR_PEER_LOST (it failed) at once when fewer than @p n arrived
 * and @p rank can send no more (nothing is consumed then).
 */
ARBOR_API arbor_status_t arbor_notify(int rank);
ARBOR_API arbor_status_t arbor_notify_wait(int rank, uint64_t n);
/** @brief Notifications from @p rank that have arrived and not been consumed. Local, polls. */
ARBOR_API arbor_status_t arbor_notify_count(int rank, uint64_t *count_p);

/** Signal update of a put-with-signal (OpenSHMEM 1.5 shmem_put_signal). */
typedef enum { ARBOR_SIGNAL_SET = 0, ARBOR_SIGNAL_ADD } arbor_signal_op_t;
/**
 * @brief Put @p nbytes, then update the 64-bit word @p sig (remote, in the same rank's heap,
 * 8-byte aligned) with @p value; the target never sees the signal before the data. Blocking
 * until the source is reusable. With req_p: the _nb forms' rules.
 */
ARBOR_API arbor_status_t arbor_put_signal(int rank, void *dst, const void *src, size_t nbytes,
                                          uint64_t *sig, uint64_t value, arbor_signal_op_t sig_op);
ARBOR_API arbor_status_t arbor_put_signal_nb(int rank, void *dst, const void *src, size_t nbytes,
                                             uint64_t *sig, uint64_t value,
                                             arbor_signal_op_t sig_op, arbor_request_h *req_p);
/** @brief arbor_put_signal on @p ctx; the _nbi form completes at arbor_ctx_quiet(ctx). */
ARBOR_API arbor_status_t arbor_ctx_put_signal(arbor_ctx_h ctx, int rank, void *dst, const void *src,
                                              size_t nbytes, uint64_t *sig, uint64_t value,
                                              arbor_signal_op_t sig_op);
ARBOR_API arbor_status_t arbor_ctx_put_signal_nbi(arbor_ctx_h ctx, int rank, void *dst,
                                                  const void *src, size_t nbytes, uint64_t *sig,
                                                  uint64_t value, arbor_signal_op_t sig_op);

/** Comparisons of arbor_wait_until (OpenSHMEM's SHMEM_CMP_*). */
typedef enum {
    ARBOR_CMP_EQ = 0,
    ARBOR_CMP_NE,
    ARBOR_CMP_GT,
    ARBOR_CMP_GE,
    ARBOR_CMP_LT,
    ARBOR_CMP_LE
} arbor_cmp_t;
/**
 * @brief Wait until the local 64-bit word @p addr (in this rank's symmetric heap) compares to
 * @p value as @p cmp says, making progress; *observed_p (may be NULL) gets the value seen.
 * Updates by puts, put-with-signal and atomics of other ranks are seen. ARBOR_ERR_ADDRESS
 * (not in the heap), ARBOR_ERR_ALIGNMENT, ARBOR_ERR_TIMEOUT; once every other rank has
 * departed (arbor_peer_state) and the word does not compare so, nobody is left to change it:
 * ARBOR_ERR_PEER_STOPPED (one of them stopped) or ARBOR_ERR_PEER_LOST (all failed).
 */
ARBOR_API arbor_status_t arbor_wait_until(uint64_t *addr, arbor_cmp_t cmp, uint64_t value,
                                          uint64_t *observed_p);
/** @brief arbor_wait_until without waiting: ARBOR_OK when it holds, else ARBOR_INPROGRESS. */
ARBOR_API arbor_status_t arbor_test_until(uint64_t *addr, arbor_cmp_t cmp, uint64_t value,
                                          uint64_t *observed_p);

/*
 * Waits on a set of words (OpenSHMEM wait_until_all / any / some, their _vector forms and the
 * test_ forms). @p ivars is an array of @p n local words of @p dtype (ARBOR_INT16, UINT16,
 * INT32, UINT32, INT64, UINT64, or SHORT / USHORT / INT / UINT / LONG / ULONG / LONGLONG /
 * ULONGLONG of those sizes; compared signed or unsigned as the type says), naturally aligned, in
 * this rank's heap or in memory this rank registered (arbor_mem_register). @p mask may be NULL;
 * else mask[i] != 0 leaves word i out (OpenSHMEM's status array). @p values points to one value of
 * @p dtype that every word is compared with, or with ARBOR_WAIT_VECTOR in @p how to n values (word
 * i against values[i]).
 * @p how is one of:
 *   ARBOR_WAIT_ALL:  until every word in the set holds; *count_p = how many are in the set;
 *   ARBOR_WAIT_ANY:  until one word holds: indices[0] = its index, *count_p = 1;
 *   ARBOR_WAIT_SOME: until at least one holds: indices[0..*count_p) = every index that holds
 *                    (ascending; room for n entries).
 * ANY and SOME wait for any word in the set, satisfied before the call or not (callers that
 * must not see one twice take it out of the set with the mask). A set with no word in it
 * (n == 0, or every word masked) returns at once with *count_p = 0 (ANY: indices untouched).
 * Updates by puts, put-with-signal and atomics of other ranks are seen; the wait makes progress.
 * indices may be NULL for ALL, count_p may be NULL. ARBOR_ERR_INVALID_ARG (bad how or cmp, NULL
 * indices for ANY / SOME), ARBOR_ERR_DATATYPE, ARBOR_ERR_BUFFER (NULL ivars or values with
 * n > 0), ARBOR_ERR_ADDRESS, ARBOR_ERR_ALIGNMENT, ARBOR_ERR_TIMEOUT (ARBOR_TIMEOUT seconds).
 */
#define ARBOR_WAIT_ALL    0u
#define ARBOR_WAIT_ANY    1u
#define ARBOR_WAIT_SOME   2u
#define ARBOR_WAIT_VECTOR (1u << 4) /**< or-ed into how: one comparison value per word */
ARBOR_API arbor_status_t arbor_wait_set(void *ivars, size_t n, arbor_dtype_t dtype, const int *mask,
                                        arbor_cmp_t cmp, const void *values, unsigned how,
                                        size_t *indices, size_t *count_p);
/** @brief arbor_wait_set without waiting (one turn of progress): ARBOR_OK when the condition
 * holds (outputs as above), ARBOR_INPROGRESS (*count_p = 0) when it does not. */
ARBOR_API arbor_status_t arbor_test_set(void *ivars, size_t n, arbor_dtype_t dtype, const int *mask,
                                        arbor_cmp_t cmp, const void *values, unsigned how,
                                        size_t *indices, size_t *count_p);
/**
 * @brief The value of a local signal word (OpenSHMEM shmem_signal_fetch): an atomic load of
 * @p sig (in this rank's heap or memory it registered, 8-byte aligned) after one turn of
 * progress, so signals a
 * transport applies in this rank's progress (OFI) are seen. ARBOR_ERR_INVALID_ARG (NULL
 * value_p), ARBOR_ERR_ADDRESS, ARBOR_ERR_ALIGNMENT.
 */
ARBOR_API arbor_status_t arbor_signal_fetch(const uint64_t *sig, uint64_t *value_p);

/*
 * Active messages (the GASNet-EX shape). Handlers are registered by index, the same on every
 * rank, before any message uses them. A request runs its handler on the target, from the
 * target's progress (its own arbor calls, or the progress thread while it computes); a request
 * handler may send one reply to the requesting rank with arbor_am_reply, whose handler runs at
 * the requester. Handlers must not block (no waits, no blocking arbor calls); they may call
 * arbor_am_reply and non-blocking implicit one-sided calls. The payload is copied: the buffer
 * passed to a handler is valid only during the call. Payloads up to arbor_am_max_payload()
 * bytes. Requests from one origin to one target run in issue order. arbor_finalize returns only
 * after every request this rank sent has run at its target (replies: wait for them first).
 */
typedef struct arbor_am_token *arbor_am_token_h;
typedef void arbor_am_handler_t(arbor_am_token_h token, int src_rank, void *payload, size_t nbytes,
                                void *arg);
#define ARBOR_AM_MAX_HANDLERS 64
/** @brief Register @p fn at @p index (0 <= index < ARBOR_AM_MAX_HANDLERS). Local.
 * ARBOR_ERR_INVALID_ARG (bad index, NULL fn), ARBOR_ERR_BUSY (index already taken). */
ARBOR_API arbor_status_t arbor_am_register(int index, arbor_am_handler_t *fn, void *arg);
/** @brief Largest payload of one active message, in bytes (at least 1024). */
ARBOR_API size_t arbor_am_max_payload(void);
/** @brief Send a request to @p rank: returns once the payload is copied (the target's handler
 * may run later). Waits, making progress, while the target's queue is full. ARBOR_ERR_COUNT
 * (payload too large), ARBOR_ERR_INVALID_ARG (unregistered index), ARBOR_ERR_RANK,
 * ARBOR_ERR_BUFFER (NULL payload with nbytes > 0), ARBOR_ERR_BUSY (called from a handler),
 * ARBOR_ERR_TIMEOUT (the target served nothing for ARBOR_TIMEOUT seconds). */
ARBOR_API arbor_status_t arbor_am_request(int rank, int index, const void *payload, size_t nbytes);
/** @brief Reply from inside a request handler (at most once per request). ARBOR_ERR_HANDLE
 * outside a request handler or for a second reply. */
ARBOR_API arbor_status_t arbor_am_reply(arbor_am_token_h token, int index, const void *payload,
                                        size_t nbytes);

/* ---------------------------------------------------------------------------------------- */
/* Completion                                                                                  */

/**
 * @brief Test a handle: ARBOR_OK when complete (the handle is then released and *req set to
 * NULL), ARBOR_INPROGRESS when not yet, or the error the operation failed with (the handle is
 * released too). Makes progress. Local. ARBOR_ERR_HANDLE for an unknown or released handle.
 * A caller that only tests gets the verdicts a waiter gets: a collective whose team lost a member
 * returns ARBOR_ERR_PEER_LOST, one in which nothing moved for ARBOR_TIMEOUT seconds of testing
 * returns ARBOR_ERR_TIMEOUT (either way it is cancelled, its team failed, the handle released); a
 * one-sided handle returns ARBOR_ERR_TIMEOUT and is kept. arbor_test_all / arbor_test_some too.
 */
ARBOR_API arbor_status_t arbor_test(arbor_request_h *req);

/**
 * @brief Wait for a handle to complete, making progress. Releases the handle and sets *req to
 * NULL. If nothing progresses for ARBOR_TIMEOUT seconds it returns ARBOR_ERR_TIMEOUT: a
 * collective's handle is then cancelled, its team failed and the handle released (as
 * arbor_test); a one-sided handle is kept, to be waited on again.
 */
ARBOR_API arbor_status_t arbor_wait(arbor_request_h *req);

/**
 * @brief Wait for all @p n handles (NULL entries are skipped; each completed one is set to
 * NULL). Returns ARBOR_OK, or the first error of a failed operation (the others still complete).
 */
ARBOR_API arbor_status_t arbor_wait_all(size_t n, arbor_request_h *reqs);
/** @brief ARBOR_OK when all @p n handles are complete (then released), else ARBOR_INPROGRESS. */
ARBOR_API arbor_status_t arbor_test_all(size_t n, arbor_request_h *reqs);
/**
 * @brief Wait until at least one of @p n handles completes; completed ones are released (set to
 * NULL) and their indices written to @p indices (room for n), their number to *done_p.
 * ARBOR_ERR_INVALID_ARG when every entry is NULL.
 */
ARBOR_API arbor_status_t arbor_wait_some(size_t n, arbor_request_h *reqs, size_t *done_p,
                                         size_t *indices);
/** @brief Like arbor_wait_some without waiting: *done_p may be 0 (ARBOR_INPROGRESS). */
ARBOR_API arbor_status_t arbor_test_some(size_t n, arbor_request_h *reqs, size_t *done_p,
                                         size_t *indices);
/**
 * @brief Complete every collective of @p team started with ARBOR_ASYNC_FENCE (the UPC
 * upccoll_fence). Local. ARBOR_ERR_TEAM, ARBOR_ERR_TIMEOUT, or the first failure among them.
 */
ARBOR_API arbor_status_t arbor_coll_fence(arbor_team_h team);

/** @brief Make progress on every outstanding operation once. Local, never blocks. */
ARBOR_API arbor_status_t arbor_poll(void);

#ifdef __cplusplus
}
#endif

#endif /* ARBOR_H */

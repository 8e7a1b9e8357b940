/*
 * Interrupt-mode progress: the sleeping word, the doorbell and the waiting step
 * (docs/PROGRESS.md has the protocol and the choice of the bell).
 *
 * The doorbell line: one 64-byte line of every rank's segment, at the same offset everywhere
 * (taken at init like the notification counters). It holds the number of this rank's threads
 * asleep in a wait, and the abstract-namespace name of this rank's bell: a non-blocking unix
 * datagram socket that the kernel names for us (autobind), so no name can collide and nothing
 * has to be published through the bootstrap: a mapped peer reads the name from our segment.
 *
 * The handshake is Dekker's: the sleeper adds itself to the word (sequentially consistent),
 * re-checks for work, then sleeps; a sender stores its data, fences, and loads the word. Either
 * the sleeper's re-check sees the data or the sender sees the sleeper and rings.
 */
#include "runtime/doorbell.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/clock.h"
#include "runtime/context.h"
#include "runtime/lock.h"
#include "util/log.h"

#define BELL_NAME_MAX     48
#define BELL_SLICE_US     10000.0 /* longest sleep: timeout and lost-peer checks run between */
#define BELL_PURE_SPIN_US 2.0     /* spin without yielding this long first */
#define BELL_WOKE_BOOST   4       /* spin budget multiplier right after a wake */
#define BELL_MIN_SLICE_US 200.0

typedef struct {
    uint32_t sleepers;        /* threads of this rank asleep in a wait (atomic) */
    uint32_t rung;            /* a sender rang since the sleeper last cleared it (atomic) */
    uint32_t name_len;        /* bytes of name; 0 until the bell is open */
    char name[BELL_NAME_MAX]; /* abstract socket name, without the leading NUL */
} bell_line_t;

_Static_assert(sizeof(bell_line_t) <= ARB_BELL_LINE_BYTES, "the doorbell line is one cache line");

bool arb_bell_armed;

static struct {
    bool sleeps;       /* this process sleeps in its waits */
    int sock;          /* our bell (also the socket we ring others from) */
    int tp_fd;         /* the transport's wait descriptor */
    uint64_t off;      /* segment offset of the doorbell line (every rank) */
    bell_line_t *mine; /* our line */
    bool warned_unreachable;
    bool just_woke; /* the last sleep ended by an event */
} bell = {.sock = -1, .tp_fd = -1};

/* The peer's doorbell line where its segment can be mapped here: any peer of this node whose
 * segment the transport maps, not only those of arbor's own mapped path (with ARBOR_DIRECT=n,
 * transport operations between ranks of a node, UCX shared memory, land without an event at
 * the target too). Ranks of other nodes (whatever the transport maps) live in another network
 * namespace or host. */
static bell_line_t *line_of(int world_rank)
{
    uint8_t *seg = NULL;
    if (world_rank == arb_ctx.rank)
        seg = arb_ctx.seg;
    else if (!arb_ctx.node_of || arb_ctx.node_of[world_rank] == arb_ctx.node_of[arb_ctx.rank])
        seg = arb_ctx.seg_map ? arb_ctx.seg_map[world_rank]
                              : arb_ctx.tp_ops->peer_ptr(arb_ctx.tp, world_rank);
    return seg ? (bell_line_t *)(seg + bell.off) : NULL;
}

static arbor_status_t open_socket(void)
{
    bell.sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (bell.sock < 0) {
        arb_error("interrupt mode: cannot create the doorbell socket: %s", strerror(errno));
        return ARBOR_ERR_TRANSPORT;
    }
    /* Binding with only the family asks the kernel for a unique abstract name (autobind). */
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    socklen_t len = sizeof(sa_family_t);
    if (bind(bell.sock, (struct sockaddr *)&addr, len) != 0 ||
        (len = sizeof(addr), getsockname(bell.sock, (struct sockaddr *)&addr, &len)) != 0 ||
        len <= offsetof(struct sockaddr_un, sun_path) + 1 ||
        len - offsetof(struct sockaddr_un, sun_path) - 1 > BELL_NAME_MAX) {
        arb_error("interrupt mode: cannot name the doorbell socket: %s", strerror(errno));
        close(bell.sock);
        bell.sock = -1;
        return ARBOR_ERR_TRANSPORT;
    }
    size_t n = len - offsetof(struct sockaddr_un, sun_path) - 1;
    memcpy(bell.mine->name, addr.sun_path + 1, n);
    __atomic_store_n(&bell.mine->name_len, (uint32_t)n, __ATOMIC_RELEASE);
    return ARBOR_OK;
}

arbor_status_t arb_bell_init(uint64_t line_off)
{
    arbor_status_t status;
    bell.off = line_off;
    bell.mine = (bell_line_t *)(arb_ctx.seg + bell.off);
    if (arb_ctx.cfg.progress != ARB_PROGRESS_INTERRUPT) return ARBOR_OK;
    /* Interrupt mode is uniform (init checks it), so every sender rings. */
    arb_bell_armed = true;
    if ((status = open_socket()) != ARBOR_OK) return status;
    int fd = -1;
    if (!(arb_ctx.tp_ops->caps(arb_ctx.tp) & ARB_TP_CAP_WAIT_FD) ||
        arb_ctx.tp_ops->wait_fd(arb_ctx.tp, &fd) != ARBOR_OK || fd < 0) {
        /* We never count as sleeping, so nobody rings us; we still ring mapped peers. One
         * warning per process, however often it initialises. */
        static bool warned;
        if (!warned)
            arb_warn("ARBOR_PROGRESS=interrupt: transport %s gives no wait descriptor; falling "
                     "back to thread mode (a progress thread)",
                     arb_ctx.tp_name);
        warned = true;
        arb_ctx.cfg.progress = ARB_PROGRESS_THREAD;
        return ARBOR_OK;
    }
    bell.tp_fd = fd;
    bell.sleeps = true;
    arb_debug("interrupt mode: doorbell @%.*s, transport descriptor %d", (int)bell.mine->name_len,
              bell.mine->name, fd);
    return ARBOR_OK;
}

void arb_bell_fini(void)
{
    if (bell.sock >= 0) close(bell.sock);
    bell.sock = bell.tp_fd = -1;
    bell.sleeps = false;
    bell.mine = NULL;
    bell.warned_unreachable = false;
    arb_bell_armed = false;
}

void arb_bell_ring_slow(int world_rank)
{
    /* Orders our data store before the load of the word (the other half of the handshake). */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    bell_line_t *l = line_of(world_rank);
    if (!l || __atomic_load_n(&l->sleepers, __ATOMIC_RELAXED) == 0 || bell.sock < 0) return;
    /* One ring per sleep: the stores that follow the first (the rest of a message, credits)
     * find it rung and skip the system call. */
    if (__atomic_exchange_n(&l->rung, 1, __ATOMIC_SEQ_CST)) return;
    uint32_t n = __atomic_load_n(&l->name_len, __ATOMIC_ACQUIRE);
    if (n == 0 || n > BELL_NAME_MAX) return;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    memcpy(addr.sun_path + 1, l->name, n);
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
    char byte = 1;
    /* EAGAIN: the bell's queue is full, so it is ringing already. */
    if (sendto(bell.sock, &byte, 1, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&addr, len) <
            0 &&
        errno != EAGAIN && errno != EWOULDBLOCK &&
        !__atomic_exchange_n(&bell.warned_unreachable, true, __ATOMIC_RELAXED)) {
        /* Threads ring without the engine lock: the exchange lets one of them warn, once. */
        arb_warn("interrupt mode: the doorbell of rank %d is unreachable (%s): it wakes only at "
                 "its next %g ms check",
                 world_rank, strerror(errno), BELL_SLICE_US / 1000);
    }
}

static void drain_bell(void)
{
    char buf[64];
    while (recv(bell.sock, buf, sizeof(buf), MSG_DONTWAIT) > 0) {
    }
}

/* Drives the transport until it reports nothing, then arms it: true when it is armed (an event
 * from now on makes its descriptor readable). */
static bool drain_and_arm(void)
{
    if (arb_ctx.tp_ops->progress(arb_ctx.tp) > 0) return false;
    return arb_ctx.tp_ops->arm(arb_ctx.tp) == ARBOR_OK;
}

static double slice_us(void)
{
    double s = BELL_SLICE_US, t = arb_ctx.cfg.timeout_s * 1e6 / 4;
    if (t > 0 && t < s) s = t;
    return s < BELL_MIN_SLICE_US ? BELL_MIN_SLICE_US : s;
}

enum { FIRED_TRANSPORT = 1, FIRED_BELL = 2 };

/* Blocks in poll() on the transport's descriptor and the bell, at most max_us (rounded to
 * whole milliseconds, at least one). Returns which fired (0: the time ran out); drains the
 * bell when asked (the caller holds the arbor lock). */
static int sleep_on_fds(double max_us, bool drain)
{
    struct pollfd fds[2] = {{.fd = bell.tp_fd, .events = POLLIN},
                            {.fd = bell.sock, .events = POLLIN}};
    int ms = (int)(max_us / 1000);
    if (poll(fds, 2, ms > 0 ? ms : 1) <= 0) return 0;
    int fired = (fds[0].revents ? FIRED_TRANSPORT : 0) | (fds[1].revents ? FIRED_BELL : 0);
    if (drain && (fired & FIRED_BELL)) drain_bell();
    return fired;
}

bool arb_bell_nap(arb_nap_t *nap, bool (*check)(void *), void *arg)
{
    if (!bell.sleeps) return false;
    double now = arb_now_us();
    if (nap->idle_since == 0) nap->idle_since = now;
    double idle = now - nap->idle_since;
    /* Just woken by an event: the peer that rang is likely answering soon (a message exchange
     * in progress), so wait longer before sleeping again. Without it two ranks that share too
     * few free cores can lock into sleeping in turn on every message (docs/PROGRESS.md). */
    double budget = arb_ctx.cfg.spin_us * (bell.just_woke ? BELL_WOKE_BOOST : 1);
    if (idle < budget) {
        /* Past the first microseconds (a peer running on another core answers within them),
         * give the core away on each turn: a peer we rang may need it to wake, and once woken
         * it often runs on our core (the kernel places a woken task near its waker). */
        if (!arb_ctx.yield && idle > BELL_PURE_SPIN_US) sched_yield();
        return false;
    }

    __atomic_store_n(&bell.mine->rung, 0, __ATOMIC_SEQ_CST); /* before we count as asleep */
    __atomic_fetch_add(&bell.mine->sleepers, 1, __ATOMIC_SEQ_CST);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    bool woke = true;
    if (!check(arg) && drain_and_arm()) {
        if (arb_ctx.locking && !arb_ctx.stream.in_progress) {
            /* Never sleep holding the engine lock (docs/THREADS.md): other threads run while we
             * sleep, and the bell is drained once the lock is ours again. */
            pthread_mutex_unlock(&arb_ctx.lock);
            int fired = sleep_on_fds(slice_us(), false);
            arb_lock_take();
            if (fired & FIRED_BELL) drain_bell();
            woke = fired != 0;
        } else {
            woke = sleep_on_fds(slice_us(), true) != 0;
        }
    }
    __atomic_fetch_sub(&bell.mine->sleepers, 1, __ATOMIC_SEQ_CST);
    bell.just_woke = woke;
    /* Woken (or work found): poll again for a spin budget before the next sleep. A sleep that
     * ran out with nothing to show keeps the idle stretch: the next idle turn sleeps at once. */
    if (woke) nap->idle_since = 0;
    return true;
}

void arb_bell_thread_nap(unsigned max_us, bool live, const arb_bell_thread_hooks_t *h)
{
    if (!bell.sleeps) {
        if (live)
            sched_yield();
        else
            usleep(max_us);
        return;
    }
    /* The same handshake as a wait, under the arbor lock (it orders our transport calls with
     * the application thread's), but the thread sleeps without it. The bell is drained only
     * under the lock: the application thread, which holds the lock through its own sleep,
     * then never loses its ring to us (a datagram read by one of two pollers wakes only that
     * one). */
    h->lock();
    bool armed = false, counted = !arb_ctx.stream.in_progress;
    if (counted) {
        __atomic_store_n(&bell.mine->rung, 0, __ATOMIC_SEQ_CST);
        __atomic_fetch_add(&bell.mine->sleepers, 1, __ATOMIC_SEQ_CST);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        armed = !(live && h->recheck()) && drain_and_arm();
    }
    h->unlock();
    if (!armed) {
        if (counted) __atomic_fetch_sub(&bell.mine->sleepers, 1, __ATOMIC_SEQ_CST);
        return;
    }
    int fired = sleep_on_fds(BELL_SLICE_US, false);
    __atomic_fetch_sub(&bell.mine->sleepers, 1, __ATOMIC_SEQ_CST);
    if (fired & FIRED_BELL) {
        h->lock();
        drain_bell();
        h->unlock();
    }
}

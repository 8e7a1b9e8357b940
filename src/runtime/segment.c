/*
 * The segment in node-shared memory (runtime/segment.h). Why arbor and not the transport: over
 * libfabric nothing maps a peer's memory, so every byte between ranks of one node went through
 * the provider and the target's progress; over UCX only UCX's own allocation could be mapped
 * (ucp_rkey_ptr). With the core's mapping the same loads, stores and CPU atomics serve node
 * peers on every transport, and the transport is left the ranks of other nodes.
 */
#include "runtime/segment.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/context.h"
#include "util/log.h"
#include "util/map.h"

#define SHM_DIR "/dev/shm"

static size_t page_round(size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t p = page > 0 ? (size_t)page : 4096;
    return (len + p - 1) / p * p;
}

/* "arbor-<pid>-..." with a positive pid: the pid, else 0. */
static long name_pid(const char *name)
{
    if (strncmp(name, "arbor-", 6) != 0) return 0;
    char *end;
    errno = 0;
    long pid = strtol(name + 6, &end, 10);
    if (errno || end == name + 6 || *end != '-' || pid <= 0) return 0;
    return pid;
}

void arb_seg_sweep_stale(void)
{
    DIR *d = opendir(SHM_DIR);
    if (!d) return;
    uid_t me = geteuid();
    int swept = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid = name_pid(e->d_name);
        struct stat st;
        if (pid == 0 || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode) || st.st_uid != me)
            continue;
        /* Only a process that is gone: a live one (another job of ours) keeps its names. The
         * pid is of our pid namespace, which every rank of a node shares (namespaces simulating
         * hosts separate the network only). */
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0) swept++;
    }
    closedir(d);
    if (swept) arb_debug("removed %d shared-memory objects of dead processes from " SHM_DIR, swept);
}

arbor_status_t arb_seg_create(size_t len)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    size_t bytes = page_round(len);
    /* pid (for the sweep) and a clock nonce: a name of a killed job whose pid came back
     * cannot collide */
    snprintf(arb_ctx.seg_name, sizeof(arb_ctx.seg_name), "/arbor-%d-seg-%llx", (int)getpid(),
             (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
    int fd = shm_open(arb_ctx.seg_name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    const char *what = "shm_open";
    void *seg = MAP_FAILED;
    if (fd >= 0) {
        /* A fresh object is zero, and its pages are committed only when touched, so a large
         * segment costs nothing at init. */
        what = "ftruncate";
        if (ftruncate(fd, (off_t)bytes) == 0) {
            what = "mmap";
            seg = arb_map_aligned(bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
        }
        close(fd);
    }
    if (seg == MAP_FAILED) {
        int err = errno;
        if (fd >= 0) shm_unlink(arb_ctx.seg_name);
        arb_warn("segment of %zu bytes in shared memory (%s %s): %s; the transport allocates it "
                 "and node peers go through the transport",
                 bytes, what, arb_ctx.seg_name, strerror(err));
        arb_ctx.seg_name[0] = '\0';
        return ARBOR_OK;
    }
    arb_ctx.seg = seg;
    arb_ctx.seg_alloc = bytes;
    arb_ctx.seg_owned = true;
    arb_ctx.seg_linked = true;
    return ARBOR_OK;
}

/* *gone_p: the name no longer exists. A rank keeps its segment's name until every node peer
 * has mapped it (init's last barrier), so during init that means the rank has ended, or gave
 * up on this one and cleaned up (this rank started more than ARBOR_TIMEOUT after it). */
static uint8_t *map_peer(int r, const char *name, bool *gone_p)
{
    int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0 && errno == ENOENT) {
        *gone_p = true;
        return NULL;
    }
    struct stat st;
    void *p = MAP_FAILED;
    if (fd >= 0) {
        if (fstat(fd, &st) == 0 && (size_t)st.st_size >= arb_ctx.seg_alloc)
            p = mmap(NULL, arb_ctx.seg_alloc, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        else
            errno = EINVAL;
        close(fd);
    }
    if (p == MAP_FAILED) {
        arb_warn("cannot map the segment of rank %d on this node (%s): %s; reaching it through "
                 "the transport",
                 r, name, strerror(errno));
        return NULL;
    }
    return p;
}

arbor_status_t arb_seg_map_peers(const char (*names)[ARB_SEG_NAME_MAX])
{
    if (!arb_ctx.seg_owned) return ARBOR_OK;
    arb_ctx.seg_map = calloc((size_t)arb_ctx.size, sizeof(*arb_ctx.seg_map));
    if (!arb_ctx.seg_map) return ARBOR_ERR_NO_MEMORY;
    int me = arb_ctx.rank, gone = -1;
    for (int r = 0; r < arb_ctx.size; r++) {
        if (r == me) {
            arb_ctx.seg_map[r] = arb_ctx.seg;
            continue;
        }
        /* Only this node's peers: hosts simulated in namespaces of one kernel share /dev/shm,
         * and mapping across them would hide the network the job means to use. */
        if (!names[r][0] || (arb_ctx.node_of && arb_ctx.node_of[r] != arb_ctx.node_of[me]))
            continue;
        char name[ARB_SEG_NAME_MAX];
        memcpy(name, names[r], sizeof(name));
        name[sizeof(name) - 1] = '\0';
        bool g = false;
        arb_ctx.seg_map[r] = map_peer(r, name, &g);
        if (g && gone < 0) gone = r;
    }
    if (gone >= 0) {
        arb_error("rank %d on this node is gone: its segment %s no longer exists (it ended, or "
                  "gave up waiting for this rank, which started more than ARBOR_TIMEOUT after it)",
                  gone, names[gone]);
        return ARBOR_ERR_PEER_LOST;
    }
    return ARBOR_OK;
}

void arb_seg_unlink(void)
{
    if (!arb_ctx.seg_linked) return;
    if (shm_unlink(arb_ctx.seg_name) != 0 && errno != ENOENT)
        arb_warn("removing %s: %s", arb_ctx.seg_name, strerror(errno));
    arb_ctx.seg_linked = false;
}

void arb_seg_fini(void)
{
    arb_seg_unlink();
    if (arb_ctx.seg_map) {
        for (int r = 0; r < arb_ctx.size; r++)
            if (r != arb_ctx.rank && arb_ctx.seg_map[r])
                munmap(arb_ctx.seg_map[r], arb_ctx.seg_alloc);
        free(arb_ctx.seg_map);
        arb_ctx.seg_map = NULL;
    }
    if (arb_ctx.seg_owned && arb_ctx.seg) munmap(arb_ctx.seg, arb_ctx.seg_alloc);
    arb_ctx.seg_owned = false;
}

/* ---- local blocks of this rank's heap (segment.h) ---- */

arbor_status_t arb_mem_take_local(uint64_t nbytes, uint64_t *off_p)
{
    uint64_t off = arb_heap_fit(&arb_ctx.heap, nbytes, 0);
    if (off == ARB_HEAP_NONE) return ARBOR_ERR_NO_MEMORY;
    arbor_status_t status = arb_heap_take(&arb_ctx.heap, off, nbytes);
    if (status == ARBOR_OK) *off_p = off;
    return status;
}

void arb_mem_give_local(uint64_t off, uint64_t nbytes)
{
    uint64_t len = arb_heap_round(nbytes);
    if (len == 0 || len == ARB_HEAP_NONE) return;
    memset(arb_ctx.seg + off, 0, len);
    if (arb_heap_give(&arb_ctx.heap, off, nbytes) != ARBOR_OK)
        arb_error("heap: returning [%llu, +%llu) failed (not taken?)", (unsigned long long)off,
                  (unsigned long long)len);
}

uint64_t arb_mem_largest_free(void)
{
    return arb_heap_largest(&arb_ctx.heap);
}

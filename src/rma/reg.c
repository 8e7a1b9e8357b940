/*
 * Registered user memory (arbor_mem_register / pack / attach): memory outside the symmetric
 * heap that peers reach with the one-sided calls, in the shape of MPI_Win_attach, GASNet-EX
 * client segments and UCX's packed remote keys. Registration is local (the transport's
 * mem_reg: ucp_mem_map, fi_mr_reg with remote access); the owner ships the packed descriptor
 * to its peers by any means; a peer attaches it (the transport's rkey_unpack), after which
 * arb_rma_translate resolves addresses in the range to (rank, key, offset).
 *
 * Registered memory is reached through the transport with the registration's key, the owner's
 * own calls included, so all atomics on one of its words use one mechanism (docs/ONESIDED.md,
 * "Registered memory"). Except where every rank maps every other with CPU atomics
 * (arb_rma.cpu_atomics) and the owner registered with ARBOR_MEM_NODE_SHARED and could move the
 * pages into a memory file (runtime/shared_pages.h): then every peer maps the file and the range
 * is reached as the heap is, by loads, stores and CPU atomics, the owner's own at its address;
 * a peer that cannot map the file refuses to attach rather than use the transport's atomics.
 *
 * The owner's own one-sided calls reach its registrations like any peer's: registering also
 * attaches the range for this rank (an internal attachment with the key unpacked for self).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cma.h"
#include "runtime/context.h"
#include "runtime/lock.h"
#include "runtime/shared_pages.h"
#include "util/log.h"
#include "rma/am.h"
#include "rma/rma_impl.h"

#define BLOB_MAGIC   0x47455241u /* "AREG" */
#define BLOB_VERSION 2u

/* The descriptor a peer attaches: this header, then the transport's packed key. */
typedef struct {
    uint32_t magic, version;
    int32_t owner;     /* world rank */
    uint32_t key_len;  /* bytes of packed key after the header */
    uint64_t base;     /* first byte, in the owner's address space */
    uint64_t nbytes;   /* bytes peers may access */
    uint64_t seg_base; /* the owner's segment base: a blob of another job is refused */
    uint64_t id;       /* the owner's registration number (logs) */
    /* Node-shared pages (ARBOR_MEM_NODE_SHARED): the owner's process and memory file, where
     * base lies in it, and its length; map_len 0: not shared. */
    uint64_t pid;
    int64_t fd;
    uint64_t map_off, map_len;
} blob_hdr_t;

struct arbor_reg { /* a registration of this rank's memory */
    uint8_t *base;
    size_t nbytes;
    arb_tp_mr_t *mr;
    void *packed; /* the transport's packed key (owned by mr) */
    size_t packed_len;
    uint64_t id;
    struct arbor_attach *self; /* the internal attachment for this rank's own calls */
    arb_shared_pages_t pages;  /* len 0: not node-shared */
    bool needs_progress;       /* peers reach it through the transport (arb_reg_any_local) */
};

struct arbor_attach { /* a registration of some rank, reachable from here */
    int owner;
    uint64_t base;
    size_t nbytes;
    arb_tp_rkey_t *rkey;
    uint64_t id;
    bool internal;  /* the owner's own attachment of its registration (no public handle) */
    uint8_t *local; /* base's byte mapped here (node-shared pages), or NULL */
    void *map;      /* our mapping of the owner's file (unmapped with the attachment) */
    size_t map_len;
};

/* Handles as (slot, generation), so a stale handle is recognised rather than followed. */
typedef struct {
    void *obj;
    uint32_t gen;
} slot_t;
typedef struct {
    slot_t *s;
    uint32_t n;
} table_t;

static table_t regs, atts;
static uint64_t next_id, nlocal; /* registrations of this rank alive that need its progress */
static struct arbor_attach *last_hit;

static void *handle_of(uint32_t idx, uint32_t gen)
{
    return (void *)(uintptr_t)(((uint64_t)gen << 32) | (uint64_t)(idx + 1));
}

static arbor_status_t table_add(table_t *t, void *obj, void **handle_p)
{
    uint32_t i = 0;
    while (i < t->n && t->s[i].obj) i++;
    if (i == t->n) {
        uint32_t n = t->n ? 2 * t->n : 16;
        slot_t *ns = realloc(t->s, n * sizeof(*ns));
        if (!ns) return ARBOR_ERR_NO_MEMORY;
        for (uint32_t j = t->n; j < n; j++) ns[j] = (slot_t){NULL, 0};
        t->s = ns;
        t->n = n;
    }
    t->s[i].obj = obj;
    t->s[i].gen++;
    *handle_p = handle_of(i, t->s[i].gen);
    return ARBOR_OK;
}

static slot_t *table_slot(const table_t *t, const void *h)
{
    uint64_t v = (uint64_t)(uintptr_t)h;
    uint32_t idx = (uint32_t)(v & 0xffffffffu), gen = (uint32_t)(v >> 32);
    if (idx == 0 || idx > t->n) return NULL;
    slot_t *s = &t->s[idx - 1];
    return s->obj && s->gen == gen ? s : NULL;
}

/* ---- the attachment list (what translate searches) ------------------------------------- */

static struct arbor_attach **alist;
static size_t nalist, capalist;

static arbor_status_t alist_add(struct arbor_attach *a)
{
    if (nalist == capalist) {
        size_t cap = capalist ? 2 * capalist : 16;
        struct arbor_attach **n = realloc(alist, cap * sizeof(*n));
        if (!n) return ARBOR_ERR_NO_MEMORY;
        alist = n;
        capalist = cap;
    }
    alist[nalist++] = a;
    return ARBOR_OK;
}

static void alist_remove(struct arbor_attach *a)
{
    for (size_t i = 0; i < nalist; i++)
        if (alist[i] == a) {
            alist[i] = alist[--nalist];
            break;
        }
    if (last_hit == a) last_hit = NULL;
}

static bool covers(const struct arbor_attach *a, int rank, uint64_t addr, size_t len)
{
    return a->owner == rank && addr >= a->base && addr - a->base <= a->nbytes &&
           len <= a->nbytes - (addr - a->base) && (len > 0 || addr - a->base < a->nbytes);
}

arbor_status_t arb_reg_translate(int rank, uint64_t addr, size_t len, arb_rma_target_t *tgt)
{
    struct arbor_attach *a = last_hit;
    if (!a || !covers(a, rank, addr, len)) {
        a = NULL;
        for (size_t i = 0; i < nalist && !a; i++)
            if (covers(alist[i], rank, addr, len)) a = alist[i];
        if (!a) return ARBOR_ERR_ADDRESS;
        last_hit = a;
    }
    *tgt = (arb_rma_target_t){.rank = rank,
                              .ptr = a->local ? a->local + (addr - a->base) : NULL,
                              .rkey = a->rkey,
                              .off = addr - a->base,
                              .mem = NULL,
                              .reg = true};
    return ARBOR_OK;
}

bool arb_reg_any_local(void)
{
    return nlocal > 0;
}

/* Unpacks a key for @p owner and lists the range. */
static arbor_status_t attach_new(int owner, uint64_t base, size_t nbytes, uint64_t id,
                                 const void *key, size_t key_len, bool internal,
                                 struct arbor_attach **att_p)
{
    struct arbor_attach *a = calloc(1, sizeof(*a));
    if (!a) return ARBOR_ERR_NO_MEMORY;
    *a = (struct arbor_attach){owner, base, nbytes, NULL, id, internal, NULL, NULL, 0};
    arbor_status_t st =
        arb_ctx.tp_ops->rkey_unpack(arb_ctx.tp, owner, key, key_len, base, &a->rkey);
    if (st == ARBOR_OK && (st = alist_add(a)) != ARBOR_OK)
        arb_ctx.tp_ops->rkey_release(arb_ctx.tp, a->rkey);
    if (st != ARBOR_OK) {
        free(a);
        return st;
    }
    *att_p = a;
    return ARBOR_OK;
}

/* Every operation of ours that may use the key is complete (at its target) before the key
 * goes: the transport may still read it for operations in flight. The range leaves the list
 * first, so that no other thread starts one while the wait lets go of the lock. */
static arbor_status_t attach_free(struct arbor_attach *a)
{
    alist_remove(a);
    arbor_status_t st = arb_rma_complete_to(a->owner);
    arb_ctx.tp_ops->rkey_release(arb_ctx.tp, a->rkey);
    arb_shared_pages_unmap(a->map, a->map_len);
    free(a);
    return st;
}

static bool overlaps_segment(int rank, uint64_t base, uint64_t nbytes)
{
    uint64_t s = arb_ctx.seg_bases[rank], e = s + arb_ctx.seg_size;
    return base < e && base + nbytes > s;
}

/* ---- public calls ---------------------------------------------------------------------- */

/* Whether moving a registration's pages into node-shared memory can pay: some node peer maps
 * this rank's segment (the same peers would map the file), through the access cross-memory
 * attach needs (agreed by every rank at init, so a peer's open of the file is allowed too). */
static bool sharing_pays(void)
{
    /* Only under the CPU rule: elsewhere node peers' loads and stores would meet the
     * transport's atomics on the same words, which no transport fence orders. */
    if (!arb_rma.cpu_atomics || !arb_cma_usable()) return false;
    for (int r = 0; r < arb_ctx.size; r++)
        if (r != arb_ctx.rank && arb_peer_map(r)) return true;
    return false;
}

enum { OVERLAP_NONE, OVERLAP_ORDINARY, OVERLAP_SHARED_INSIDE, OVERLAP_PART };

/* The live node-shared registration of this rank whose pages hold [b, b + len), or NULL. */
static struct arbor_reg *shared_covering(uint64_t b, size_t len)
{
    for (uint32_t i = 0; i < regs.n; i++) {
        struct arbor_reg *r = regs.s[i].obj;
        if (r && r->pages.len && b >= r->pages.lo && b + len <= r->pages.lo + r->pages.len)
            return r;
    }
    return NULL;
}

/* How [b, b + len) meets this rank's live registrations (a node-shared one by its pages). */
static int overlap(uint64_t b, size_t len)
{
    if (shared_covering(b, len)) return OVERLAP_SHARED_INSIDE;
    int ov = OVERLAP_NONE;
    for (uint32_t i = 0; i < regs.n; i++) {
        const struct arbor_reg *r = regs.s[i].obj;
        if (!r) continue;
        uint64_t lo = r->pages.len ? r->pages.lo : (uint64_t)(uintptr_t)r->base;
        uint64_t hi = lo + (r->pages.len ? r->pages.len : r->nbytes);
        if (b >= hi || b + len <= lo) continue;
        if (r->pages.len) return OVERLAP_PART;
        ov = OVERLAP_ORDINARY;
    }
    return ov;
}

arbor_status_t arb_reg_register(void *base, size_t nbytes, unsigned flags, arbor_reg_h *reg_p)
{
    if (!reg_p) return ARBOR_ERR_INVALID_ARG;
    *reg_p = NULL;
    if (flags & ~(unsigned)ARBOR_MEM_NODE_SHARED) return ARBOR_ERR_FLAGS;
    if (!base || nbytes == 0) return ARBOR_ERR_BUFFER;
    uint64_t b = (uint64_t)(uintptr_t)base;
    /* 8-byte words: atomics and accumulates act on the aligned 64-bit word holding an element,
     * so the transport registers whole words (the last one may reach past nbytes; bounds are
     * checked against nbytes). */
    if (b % 8) return ARBOR_ERR_ALIGNMENT;
    if (nbytes > UINT64_MAX - 8 - b) return ARBOR_ERR_COUNT;
    size_t tp_len = (nbytes + 7) & ~(size_t)7;
    if (overlaps_segment(arb_ctx.rank, b, tp_len)) {
        arb_error("arbor_mem_register: [%p, +%zu) overlaps the symmetric heap, which peers "
                  "reach already",
                  base, nbytes);
        return ARBOR_ERR_ADDRESS;
    }
    struct arbor_reg *r = calloc(1, sizeof(*r));
    if (!r) return ARBOR_ERR_NO_MEMORY;
    r->base = base;
    r->nbytes = nbytes;
    r->id = ++next_id;
    r->pages.fd = -1;
    /* One mechanism per word across registrations too: a range inside a node-shared one is
     * reached through the same file (whatever the flags), one that overlaps it only in part is
     * refused, and one that overlaps an ordinary registration stays ordinary. */
    int ov = overlap(b, tp_len);
    arbor_status_t st = ov == OVERLAP_PART ? ARBOR_ERR_ADDRESS : ARBOR_OK;
    if (ov == OVERLAP_SHARED_INSIDE)
        st = arb_shared_pages_dup(&shared_covering(b, tp_len)->pages, &r->pages);
    else if (ov == OVERLAP_NONE && (flags & ARBOR_MEM_NODE_SHARED) && sharing_pays() &&
             arb_shared_pages_make(base, tp_len, &r->pages) != ARBOR_OK)
        r->pages = (arb_shared_pages_t){.fd = -1}; /* before the transport pins the pages */
    if (st != ARBOR_OK) {
        if (st == ARBOR_ERR_ADDRESS)
            arb_error("arbor_mem_register: [%p, +%zu) overlaps a node-shared registration of this "
                      "rank in part (register inside it, or apart from it)",
                      base, nbytes);
        free(r);
        return st;
    }
    st = arb_ctx.tp_ops->mem_reg(arb_ctx.tp, base, tp_len, &r->mr, &r->packed, &r->packed_len);
    if (st != ARBOR_OK) {
        /* The backend said why; a refusal of remote access is the transport's limit. */
        if (st != ARBOR_ERR_NO_MEMORY) {
            arb_error("arbor_mem_register: %s cannot give peers remote access to %zu bytes at "
                      "%p (%s)",
                      arb_ctx.tp_ops->describe(arb_ctx.tp), nbytes, base, arbor_strerror(st));
            st = ARBOR_ERR_UNSUPPORTED;
        }
        arb_shared_pages_release(&r->pages);
        free(r);
        return st;
    }
    st = attach_new(arb_ctx.rank, b, nbytes, r->id, r->packed, r->packed_len, true, &r->self);
    void *h = NULL;
    if (st == ARBOR_OK && (st = table_add(&regs, r, &h)) != ARBOR_OK) attach_free(r->self);
    if (st != ARBOR_OK) {
        arb_ctx.tp_ops->mem_dereg(arb_ctx.tp, r->mr);
        arb_shared_pages_release(&r->pages);
        free(r);
        return st;
    }
    bool shared = r->pages.len > 0;
    if (shared) r->self->local = base; /* our own calls: loads, stores and CPU atomics here */
    /* Peers reach it without this rank's progress only where every rank maps every other
     * (one node) and atomics are the CPU's: then every access is a load, a store or a CPU
     * atomic on the file. */
    r->needs_progress = !(shared && arb_ctx.mapped_everywhere && arb_rma.cpu_atomics);
    if (r->needs_progress) nlocal++;
    *reg_p = h;
    arb_debug("registered %zu bytes at %p (registration %llu, key %zu bytes%s)", nbytes, base,
              (unsigned long long)r->id, r->packed_len, shared ? ", node-shared pages" : "");
    return ARBOR_OK;
}

static void reg_destroy(struct arbor_reg *r)
{
    arb_ctx.tp_ops->mem_dereg(arb_ctx.tp, r->mr);
    arb_shared_pages_release(&r->pages);
    if (r->needs_progress) nlocal--;
    free(r);
}

arbor_status_t arb_reg_deregister(arbor_reg_h *reg_p)
{
    if (!reg_p) return ARBOR_ERR_INVALID_ARG;
    slot_t *s = table_slot(&regs, *reg_p);
    arbor_status_t st = s ? ARBOR_OK : ARBOR_ERR_HANDLE;
    if (st == ARBOR_OK) {
        struct arbor_reg *r = s->obj;
        s->obj = NULL; /* gone for other threads before the wait below lets go of the lock */
        st = attach_free(r->self);
        reg_destroy(r);
        *reg_p = NULL;
    }
    return st;
}

arbor_status_t arbor_mem_deregister(arbor_reg_h *reg_p)
{
    if (!reg_p) return ARBOR_ERR_INVALID_ARG;
    ARB_ENTER();
    arbor_status_t st = arb_reg_deregister(reg_p);
    arb_unlock();
    return st;
}

/* The descriptor of r into blob (room for *len_p bytes; NULL: the size only). */
static arbor_status_t pack_reg(const struct arbor_reg *r, void *blob, size_t *len_p)
{
    size_t need = sizeof(blob_hdr_t) + r->packed_len;
    bool room = !blob || *len_p >= need;
    *len_p = need; /* told even when the blob is too small */
    if (!room) return ARBOR_ERR_COUNT;
    if (blob) {
        blob_hdr_t h = {BLOB_MAGIC,
                        BLOB_VERSION,
                        arb_ctx.rank,
                        (uint32_t)r->packed_len,
                        (uint64_t)(uintptr_t)r->base,
                        r->nbytes,
                        arb_ctx.seg_bases[arb_ctx.rank],
                        r->id,
                        r->pages.pid,
                        r->pages.fd,
                        (uint64_t)(uintptr_t)r->base - r->pages.lo,
                        r->pages.len};
        memcpy(blob, &h, sizeof(h));
        memcpy((uint8_t *)blob + sizeof(h), r->packed, r->packed_len);
    }
    return ARBOR_OK;
}

arbor_status_t arb_reg_pack(arbor_reg_h reg, void *blob, size_t *len_p)
{
    if (!len_p) return ARBOR_ERR_INVALID_ARG;
    slot_t *s = table_slot(&regs, reg);
    return s ? pack_reg(s->obj, blob, len_p) : ARBOR_ERR_HANDLE;
}

arbor_status_t arbor_mem_pack(arbor_reg_h reg, void *blob, size_t *len_p)
{
    if (!len_p) return ARBOR_ERR_INVALID_ARG;
    ARB_ENTER();
    arbor_status_t st = arb_reg_pack(reg, blob, len_p);
    arb_unlock();
    return st;
}

bool arb_reg_shared(arbor_reg_h reg)
{
    slot_t *s = table_slot(&regs, reg);
    return s && ((struct arbor_reg *)s->obj)->pages.len > 0;
}

bool arb_reg_attach_mapped(arbor_attach_h att)
{
    slot_t *s = table_slot(&atts, att);
    return s && ((struct arbor_attach *)s->obj)->local != NULL;
}

/* A node-shared registration (h) attached as a: mapped here where the owner's segment is, so
 * that every access by a mapped peer is a load, a store or (under the CPU rule) a CPU atomic.
 * A peer that cannot map it under the CPU rule refuses: its atomics through the transport would
 * not be atomic with the others'. */
static arbor_status_t map_shared(const blob_hdr_t *h, struct arbor_attach *a)
{
    if (h->owner == arb_ctx.rank) {
        a->local = (uint8_t *)(uintptr_t)h->base;
        return ARBOR_OK;
    }
    if (!arb_rma.cpu_atomics || !arb_peer_map(h->owner) || h->map_off > h->map_len || h->fd < 0 ||
        h->fd > INT32_MAX)
        return ARBOR_OK; /* not the CPU rule, or nothing mapped: through the transport */
    void *map = NULL;
    arbor_status_t st = arb_shared_pages_map(h->pid, (int)h->fd, (size_t)h->map_len, &map);
    if (st == ARBOR_OK) {
        a->map = map;
        a->map_len = (size_t)h->map_len;
        a->local = (uint8_t *)map + h->map_off;
        return ARBOR_OK;
    }
    arb_error("arbor_mem_attach: cannot map rank %d's node-shared registration here (%s): its "
              "atomics are CPU atomics, which the transport's would not be atomic with "
              "(set ARBOR_LOG_LEVEL=debug for the reason)",
              h->owner, arbor_strerror(st));
    return ARBOR_ERR_UNSUPPORTED;
}

arbor_status_t arb_reg_attach(const void *blob, size_t len, arbor_attach_h *att_p)
{
    if (!att_p) return ARBOR_ERR_INVALID_ARG;
    *att_p = NULL;
    if (!blob) return ARBOR_ERR_BUFFER;
    blob_hdr_t h;
    if (len < sizeof(h)) return ARBOR_ERR_INVALID_ARG;
    memcpy(&h, blob, sizeof(h));
    if (h.magic != BLOB_MAGIC || h.version != BLOB_VERSION || h.owner < 0 ||
        h.owner >= arb_ctx.size || h.key_len != len - sizeof(h) || h.nbytes == 0 ||
        h.base > UINT64_MAX - h.nbytes || h.seg_base != arb_ctx.seg_bases[h.owner] ||
        overlaps_segment(h.owner, h.base, h.nbytes)) {
        arb_error("arbor_mem_attach: %zu bytes that are not a descriptor of arbor_mem_pack "
                  "from this job",
                  len);
        return ARBOR_ERR_INVALID_ARG;
    }
    struct arbor_attach *a;
    arbor_status_t st = attach_new(h.owner, h.base, (size_t)h.nbytes, h.id,
                                   (const uint8_t *)blob + sizeof(h), h.key_len, false, &a);
    if (st != ARBOR_OK) return st;
    if (h.map_len && (st = map_shared(&h, a)) != ARBOR_OK) {
        attach_free(a);
        return st;
    }
    void *handle;
    if ((st = table_add(&atts, a, &handle)) != ARBOR_OK) {
        attach_free(a);
        return st;
    }
    *att_p = handle;
    return ARBOR_OK;
}

arbor_status_t arbor_mem_attach(const void *blob, size_t len, arbor_attach_h *att_p)
{
    ARB_ENTER();
    arbor_status_t st = arb_reg_attach(blob, len, att_p);
    arb_unlock();
    return st;
}

/* ---- attach by address: the owner's descriptor fetched by an active message ------------ */

typedef struct {
    uint64_t op;   /* the origin's lookup_t, echoed in the reply */
    uint64_t addr; /* the range asked for, in the owner's address space */
    uint64_t nbytes;
} lookup_req_t;

typedef struct {
    uint64_t op;
    uint64_t len; /* descriptor bytes after this header; 0: no registration covers the range */
} lookup_rep_t;

typedef struct {
    bool done;
    size_t len;
    uint8_t blob[2048];
} lookup_t;

/* Owner: the descriptor of the registration that covers the range, or none. */
static void on_lookup(arbor_am_token_h tok, int src, void *payload, size_t nbytes, void *arg)
{
    (void)arg;
    lookup_req_t q;
    if (nbytes < sizeof(q)) return;
    memcpy(&q, payload, sizeof(q));
    uint8_t out[sizeof(lookup_rep_t) + sizeof(((lookup_t *)0)->blob)];
    lookup_rep_t rep = {q.op, 0};
    for (uint32_t i = 0; i < regs.n; i++) {
        const struct arbor_reg *r = regs.s[i].obj;
        uint64_t b = (uint64_t)(uintptr_t)(r ? r->base : NULL);
        if (!r || q.addr < b || q.addr - b >= r->nbytes || q.nbytes > r->nbytes - (q.addr - b))
            continue;
        size_t len = sizeof(((lookup_t *)0)->blob);
        size_t room = arb_am_max_payload() - sizeof(rep);
        if (pack_reg(r, out + sizeof(rep), &len) == ARBOR_OK && len <= room)
            rep.len = len;
        else /* the origin then answers ARBOR_ERR_ADDRESS: say why here */
            arb_error("arbor_mem_attach_remote from rank %d: the descriptor (%zu bytes) does not "
                      "fit one active message",
                      src, len);
        break;
    }
    memcpy(out, &rep, sizeof(rep));
    arbor_status_t st = arb_am_send_reply(tok, ARB_AM_REG_BLOB, out, sizeof(rep) + (size_t)rep.len);
    if (st != ARBOR_OK)
        arb_error("arbor_mem_attach_remote from rank %d: the reply failed: %s", src,
                  arbor_strerror(st));
}

/* Origin: the owner's answer. */
static void on_blob(arbor_am_token_h tok, int src, void *payload, size_t nbytes, void *arg)
{
    (void)tok, (void)src, (void)arg;
    lookup_rep_t rep;
    if (nbytes < sizeof(rep)) return;
    memcpy(&rep, payload, sizeof(rep));
    lookup_t *op = (lookup_t *)(uintptr_t)rep.op;
    size_t len = nbytes - sizeof(rep) < rep.len ? 0 : (size_t)rep.len;
    if (len > sizeof(op->blob)) len = 0;
    memcpy(op->blob, (uint8_t *)payload + sizeof(rep), len);
    op->len = len;
    op->done = true;
}

void arb_reg_am_init(void)
{
    arb_am_set_internal(ARB_AM_REG_LOOKUP, on_lookup, NULL);
    arb_am_set_internal(ARB_AM_REG_BLOB, on_blob, NULL);
}

static bool lookup_done(void *arg)
{
    return ((const lookup_t *)arg)->done;
}

arbor_status_t arbor_mem_attach_remote(int rank, const void *remote_addr, size_t nbytes,
                                       arbor_attach_h *att_p)
{
    if (!att_p) return ARBOR_ERR_INVALID_ARG;
    *att_p = NULL;
    if (!arb_initialized()) return ARBOR_ERR_NOT_INITIALIZED;
    if (rank < 0 || rank >= arb_ctx.size) return ARBOR_ERR_RANK;
    if (!remote_addr) return ARBOR_ERR_BUFFER;
    ARB_ENTER();
    lookup_t *op = calloc(1, sizeof(*op));
    arbor_status_t st = op ? ARBOR_OK : ARBOR_ERR_NO_MEMORY;
    lookup_req_t q = {(uint64_t)(uintptr_t)op, (uint64_t)(uintptr_t)remote_addr, nbytes};
    if (st == ARBOR_OK) st = arb_am_send_request(rank, ARB_AM_REG_LOOKUP, &q, sizeof(q));
    if (st == ARBOR_OK) st = arb_am_wait(lookup_done, op, "arbor_mem_attach_remote");
    if (st == ARBOR_OK && op->len == 0) st = ARBOR_ERR_ADDRESS;
    if (st == ARBOR_OK) st = arb_reg_attach(op->blob, op->len, att_p);
    /* a lookup that timed out may still be answered: its buffer must stay */
    if (st != ARBOR_ERR_TIMEOUT) free(op);
    arb_unlock();
    return st;
}

arbor_status_t arb_reg_detach(arbor_attach_h *att_p)
{
    if (!att_p) return ARBOR_ERR_INVALID_ARG;
    slot_t *s = table_slot(&atts, *att_p);
    arbor_status_t st = s ? ARBOR_OK : ARBOR_ERR_HANDLE;
    if (st == ARBOR_OK) {
        struct arbor_attach *a = s->obj;
        s->obj = NULL;
        st = attach_free(a);
        *att_p = NULL;
    }
    return st;
}

arbor_status_t arbor_mem_detach(arbor_attach_h *att_p)
{
    if (!att_p) return ARBOR_ERR_INVALID_ARG;
    ARB_ENTER();
    arbor_status_t st = arb_reg_detach(att_p);
    arb_unlock();
    return st;
}

arbor_status_t arbor_mem_attach_info(arbor_attach_h att, int *rank_p, void **base_p,
                                     size_t *nbytes_p)
{
    ARB_ENTER();
    slot_t *s = table_slot(&atts, att);
    arbor_status_t st = s ? ARBOR_OK : ARBOR_ERR_HANDLE;
    if (st == ARBOR_OK) {
        const struct arbor_attach *a = s->obj;
        if (rank_p) *rank_p = a->owner;
        if (base_p) *base_p = (void *)(uintptr_t)a->base;
        if (nbytes_p) *nbytes_p = a->nbytes;
    }
    arb_unlock();
    return st;
}

/* Finalize (after the last quiet, before the transport closes): keys, then registrations. */
void arb_reg_cleanup(void)
{
    size_t left = 0;
    for (uint32_t i = 0; i < atts.n; i++)
        if (atts.s[i].obj) left++;
    for (uint32_t i = 0; i < regs.n; i++)
        if (regs.s[i].obj) left++;
    if (left) arb_debug("finalize: %zu registrations / attachments left; released", left);
    for (size_t i = 0; i < nalist; i++) {
        arb_ctx.tp_ops->rkey_release(arb_ctx.tp, alist[i]->rkey);
        arb_shared_pages_unmap(alist[i]->map, alist[i]->map_len);
        free(alist[i]);
    }
    for (uint32_t i = 0; i < regs.n; i++)
        if (regs.s[i].obj) reg_destroy(regs.s[i].obj);
    free(alist);
    free(regs.s);
    free(atts.s);
    alist = NULL;
    nalist = capalist = 0;
    regs = atts = (table_t){NULL, 0};
    last_hit = NULL;
    nlocal = 0;
}

/*
 * Datatypes and reduction operations (UPC Collectives 2.0 section 3.1, MPI 4.0 section 6.9):
 * element sizes, which (type, op) pairs are defined, the combine step the executor runs
 * (arb_reduce) and the user-operation registry behind arbor_op_create / arbor_op_free.
 *
 * The built-in kernels are generated (scripts/gen_reduce_kernels.py, run by runtime/dtype.cmake):
 * one plain loop per pair keeps every loop vectorizable and the definedness rules in one table.
 * Apart from arbor_op_free's look at the collectives in flight (none before arbor_init), this
 * file depends on nothing else in core, so the public calls here work before arbor_init.
 */
#include "runtime/dtype.h"
#include "runtime/context.h"
#include "runtime/lock.h"
#include "runtime/dtype_kernels.h"

#include "algorithms/sched.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One user operation; fn == NULL marks a free slot. gen counts the frees of the slot. */
typedef struct {
    arbor_user_fn_t *fn;
    bool commute;
    uint32_t gen;
} user_op_t;

/* Slot i at generation g holds op ARBOR_OP_USER_BASE + g * USER_OPS_MAX + i, so a freed op's
 * value never names the op that reuses its slot. Freed slots are reused lowest first, so ranks
 * that create and free ops in the same order (arbor.h requires it) get the same values. */
static user_op_t *user_ops;
static size_t user_ops_len; /* slots in use or freed, <= user_ops_cap */
static size_t user_ops_cap;

/* Most user ops alive at once, and generations before one wraps: every op value an int. */
#define USER_OPS_MAX ((size_t)1 << 16)
#define USER_OP_GENS ((uint32_t)((0x7fffffff - ARBOR_OP_USER_BASE) / USER_OPS_MAX))

/* Staging for non-commutative user ops combined AFTER (see combine_user). Static, so a
 * reduction of any length allocates nothing; reductions run inside the
 * progress engine, under the engine lock whenever several threads may call arbor. */
static alignas(max_align_t) unsigned char user_tmp[64 * 1024];

static bool dtype_valid(arbor_dtype_t dtype)
{
    /* Compared as unsigned so a negative value from a cast is caught too. */
    return (unsigned)dtype < (unsigned)ARBOR_DTYPE_COUNT;
}

static const user_op_t *user_op_get(arbor_op_t op)
{
    if (op < ARBOR_OP_USER_BASE) return NULL;
    size_t v = (size_t)(op - ARBOR_OP_USER_BASE), slot = v % USER_OPS_MAX;
    if (slot >= user_ops_len || !user_ops[slot].fn || user_ops[slot].gen != v / USER_OPS_MAX)
        return NULL;
    return &user_ops[slot];
}

size_t arb_dtype_size(arbor_dtype_t dtype)
{
    return dtype_valid(dtype) ? arb_dtype_info[dtype].size : 0;
}

const char *arb_dtype_name(arbor_dtype_t dtype)
{
    return dtype_valid(dtype) ? arb_dtype_info[dtype].name : "?";
}

const char *arb_op_name(arbor_op_t op)
{
    static const char *const names[ARBOR_OP_PREDEFINED] = {
        [ARBOR_SUM] = "sum",       [ARBOR_PROD] = "prod",     [ARBOR_BAND] = "band",
        [ARBOR_BOR] = "bor",       [ARBOR_BXOR] = "bxor",     [ARBOR_LAND] = "land",
        [ARBOR_LOR] = "lor",       [ARBOR_MIN] = "min",       [ARBOR_MAX] = "max",
        [ARBOR_MINLOC] = "minloc", [ARBOR_MAXLOC] = "maxloc",
    };
    if (op >= 0 && op < ARBOR_OP_PREDEFINED) return names[op];
    return op >= ARBOR_OP_USER_BASE ? "user" : "?";
}

arbor_status_t arb_op_check(arbor_op_t op, arbor_dtype_t dtype)
{
    if (!dtype_valid(dtype)) return ARBOR_ERR_DATATYPE;
    if (op >= 0 && op < ARBOR_OP_PREDEFINED)
        return arb_reduce_kernels[dtype][op] ? ARBOR_OK : ARBOR_ERR_OP;
    /* A user op accepts any type: its function is told which one it got. */
    return user_op_get(op) ? ARBOR_OK : ARBOR_ERR_OP;
}

bool arb_op_commutative(arbor_op_t op)
{
    if (op >= 0 && op < ARBOR_OP_PREDEFINED) return true;
    const user_op_t *u = user_op_get(op);
    return u && u->commute;
}

/* The user function computes inout = in op inout (arbor.h). BEFORE is exactly that. AFTER
 * (inout = inout op in) is the same call when the op commutes; otherwise the operands must
 * swap places: copy in to the staging buffer, let fn compute staging = inout op staging, and
 * copy the result back, chunk by chunk so the staging stays bounded. */
static void combine_user(const user_op_t *u, arbor_dtype_t dtype, void *inout, const void *in,
                         size_t count, int order)
{
    /* An arbor call from fn is refused (ARBOR_ERR_BUSY) rather than deadlocking on the
     * engine lock this thread holds. */
    int outer = arb_in_callback;
    arb_in_callback = ARB_CB_USER;
    if (order != ARB_COMBINE_AFTER || u->commute) {
        /* fn takes a non-const in (the MPI signature); it must not write it. */
        u->fn((void *)in, inout, count, dtype);
        arb_in_callback = outer;
        return;
    }
    size_t elem = arb_dtype_info[dtype].size;
    size_t chunk = sizeof(user_tmp) / elem;
    unsigned char *io = inout;
    const unsigned char *src = in;
    for (size_t done = 0; done < count; done += chunk) {
        size_t len = count - done < chunk ? count - done : chunk;
        memcpy(user_tmp, src + done * elem, len * elem);
        u->fn(io + done * elem, user_tmp, len, dtype);
        memcpy(io + done * elem, user_tmp, len * elem);
    }
    arb_in_callback = outer;
}

/* inout and in must not overlap (the kernels are restrict; the executor always combines a
 * received block into a different buffer) and must be aligned for the type. */
void arb_reduce(arbor_op_t op, arbor_dtype_t dtype, void *inout, const void *in, size_t count,
                int order)
{
    if (count == 0 || !dtype_valid(dtype)) return;
    if (op >= 0 && op < ARBOR_OP_PREDEFINED) {
        /* Built-in ops commute, so one kernel (inout = inout op in) serves both orders. */
        arb_reduce_kernel_fn_t k = arb_reduce_kernels[dtype][op];
        if (k) k(inout, in, count);
        return;
    }
    const user_op_t *u = user_op_get(op);
    if (u) combine_user(u, dtype, inout, in, count, order);
}

void arb_op_cleanup(void)
{
    free(user_ops);
    user_ops = NULL;
    user_ops_len = 0;
    user_ops_cap = 0;
}

arbor_status_t arbor_dtype_size(arbor_dtype_t dtype, size_t *size_p)
{
    if (!dtype_valid(dtype)) return ARBOR_ERR_DATATYPE;
    if (!size_p) return ARBOR_ERR_INVALID_ARG;
    *size_p = arb_dtype_info[dtype].size;
    return ARBOR_OK;
}

static arbor_status_t op_create(arbor_user_fn_t *fn, int commute, arbor_op_t *op_p)
{
    size_t slot = 0;
    while (slot < user_ops_len && user_ops[slot].fn) slot++;
    if (slot == user_ops_len) {
        if (slot >= USER_OPS_MAX) return ARBOR_ERR_NO_MEMORY;
        if (user_ops_len == user_ops_cap) {
            size_t cap = user_ops_cap ? 2 * user_ops_cap : 16;
            user_op_t *grown = realloc(user_ops, cap * sizeof(*grown));
            if (!grown) return ARBOR_ERR_NO_MEMORY;
            memset(grown + user_ops_cap, 0, (cap - user_ops_cap) * sizeof(*grown));
            user_ops = grown;
            user_ops_cap = cap;
        }
        user_ops_len++;
    }
    user_ops[slot].fn = fn;
    user_ops[slot].commute = commute == 1;
    *op_p = ARBOR_OP_USER_BASE + (arbor_op_t)(user_ops[slot].gen * USER_OPS_MAX + slot);
    return ARBOR_OK;
}

/* The table is read by reductions running on other threads: changed under the engine lock. */
arbor_status_t arbor_op_create(arbor_user_fn_t *fn, int commute, arbor_op_t *op_p)
{
    if (!fn || !op_p || (commute != 0 && commute != 1)) return ARBOR_ERR_INVALID_ARG;
    ARB_ENTER();
    arbor_status_t status = op_create(fn, commute, op_p);
    arb_unlock();
    return status;
}

static arb_op_in_use_fn op_in_use;

void arb_op_set_in_use_check(arb_op_in_use_fn fn)
{
    op_in_use = fn;
}

arbor_status_t arbor_op_free(arbor_op_t op)
{
    ARB_ENTER();
    arbor_status_t status = ARBOR_OK;
    if (!user_op_get(op))
        status = ARBOR_ERR_OP; /* built-in, unknown or already freed */
    else if (op_in_use && op_in_use(op))
        status = ARBOR_ERR_BUSY; /* a running reduction would combine with a stale function */
    if (status == ARBOR_OK) {
        size_t slot = (size_t)(op - ARBOR_OP_USER_BASE) % USER_OPS_MAX;
        user_ops[slot].fn = NULL;
        if (++user_ops[slot].gen == USER_OP_GENS) user_ops[slot].gen = 0;
        /* Trailing free slots are forgotten, so a create/free loop keeps the table small. */
        while (user_ops_len > 0 && !user_ops[user_ops_len - 1].fn) user_ops_len--;
    }
    arb_unlock();
    return status;
}

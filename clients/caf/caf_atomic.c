/*
 * Atomic subroutines, locks and events on coarray words, all through arbor_atomic on the
 * owning image's symmetric memory. A lock word holds 0 (free) or the holder's world rank + 1;
 * an event word counts posts not yet consumed.
 */
#include <time.h>

#include "caf_api.h"
#include "caf_state.h"

enum { CAF_SYNC_WORD = 8 };

/* Address of @p offset bytes into the coarray on @p image (0: this image), or NULL. */
static char *word_at(caf_token_t token, size_t offset, int image, int *w_p)
{
    caf_coarray_t *c = token;
    int w = caf_image_rank(image);
    if (!c || w < 0 || !c->addr[w]) return NULL;
    *w_p = w;
    return c->addr[w] + offset;
}

static int atomic_dtype(int type, int kind, arbor_dtype_t *dt)
{
    if (type != CAF_BT_INTEGER && type != CAF_BT_LOGICAL) return -1;
    if (kind == 4)
        *dt = ARBOR_INT32;
    else if (kind == 8)
        *dt = ARBOR_INT64;
    else
        return -1;
    return 0;
}

static void atomic_call(caf_token_t token, size_t offset, int image, arbor_amo_t op, int type,
                        int kind, const void *operand, const void *compare, void *result, int *stat,
                        const char *what)
{
    int w;
    arbor_dtype_t dt;
    char *addr = word_at(token, offset, image, &w);
    if (!addr || atomic_dtype(type, kind, &dt) != 0) {
        caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: %s: bad image or kind %d", what,
                   kind);
        return;
    }
    if (caf_failed_check(w, image, stat, what)) return;
    caf_check(stat, NULL, 0, arbor_atomic(w, addr, op, dt, operand, compare, result), what);
}

void _gfortran_caf_atomic_define(caf_token_t token, size_t offset, int image_index, void *value,
                                 int *stat, int type, int kind)
{
    atomic_call(token, offset, image_index, ARBOR_AMO_SET, type, kind, value, NULL, NULL, stat,
                "atomic_define");
}

void _gfortran_caf_atomic_ref(caf_token_t token, size_t offset, int image_index, void *value,
                              int *stat, int type, int kind)
{
    atomic_call(token, offset, image_index, ARBOR_AMO_FETCH, type, kind, NULL, NULL, value, stat,
                "atomic_ref");
}

void _gfortran_caf_atomic_cas(caf_token_t token, size_t offset, int image_index, void *old,
                              void *compare, void *new_val, int *stat, int type, int kind)
{
    atomic_call(token, offset, image_index, ARBOR_AMO_CSWAP, type, kind, new_val, compare, old,
                stat, "atomic_cas");
}

void _gfortran_caf_atomic_op(int op, caf_token_t token, size_t offset, int image_index, void *value,
                             void *old, int *stat, int type, int kind)
{
    static const arbor_amo_t plain[] = {ARBOR_AMO_ADD, ARBOR_AMO_AND, ARBOR_AMO_OR, ARBOR_AMO_XOR};
    static const arbor_amo_t fetch[] = {ARBOR_AMO_FADD, ARBOR_AMO_FAND, ARBOR_AMO_FOR,
                                        ARBOR_AMO_FXOR};
    if (op < CAF_ATOMIC_ADD || op > CAF_ATOMIC_XOR) {
        caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: unknown atomic op %d", op);
        return;
    }
    atomic_call(token, offset, image_index, old ? fetch[op - 1] : plain[op - 1], type, kind, value,
                NULL, old, stat, "atomic_op");
}

/* Pause between polls of a contended word: progress, then a short sleep. */
static void backoff(void)
{
    arbor_poll();
    struct timespec ts = {0, 2000};
    nanosleep(&ts, NULL);
}

void _gfortran_caf_lock(caf_token_t token, size_t index, int image_index, int *acquired_lock,
                        int *stat, char *errmsg, size_t errmsg_len)
{
    int w;
    char *addr = word_at(token, index * CAF_SYNC_WORD, image_index, &w);
    if (!addr) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR, "libcaf_arbor: lock: bad image");
        return;
    }
    if (caf_failed_check(w, image_index, stat, "lock")) return;
    int64_t me = caf_state.world_rank + 1, zero = 0, old = 0;
    arbor_status_t s;
    for (;;) {
        s = arbor_atomic(w, addr, ARBOR_AMO_CSWAP, ARBOR_INT64, &me, &zero, &old);
        if (s != ARBOR_OK || old == 0 || old == me || acquired_lock) break;
        /* A holder that stopped never unlocks; one that failed left the lock to be taken. */
        int holder = caf_world_status((int)old - 1);
        if (holder == CAF_STAT_STOPPED_IMAGE) {
            caf_report(stat, errmsg, errmsg_len, CAF_STAT_STOPPED_IMAGE,
                       "libcaf_arbor: lock: held by image %d, which has stopped", (int)old);
            return;
        }
        if (holder == CAF_STAT_FAILED_IMAGE) {
            int64_t seen = 0;
            s = arbor_atomic(w, addr, ARBOR_AMO_CSWAP, ARBOR_INT64, &me, &old, &seen);
            if (s == ARBOR_OK && seen == old) {
                caf_report(stat, errmsg, errmsg_len, CAF_STAT_UNLOCKED_FAILED_IMAGE,
                           "libcaf_arbor: lock: taken over from image %d, which has failed",
                           (int)old);
                return;
            }
            if (s != ARBOR_OK) break;
            continue;
        }
        backoff();
    }
    if (s == ARBOR_OK && old == me) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_LOCKED,
                   "libcaf_arbor: lock: already locked by this image");
        return;
    }
    if (acquired_lock) *acquired_lock = s == ARBOR_OK && old == 0;
    caf_check(stat, errmsg, errmsg_len, s, "lock");
}

void _gfortran_caf_unlock(caf_token_t token, size_t index, int image_index, int *stat, char *errmsg,
                          size_t errmsg_len)
{
    int w;
    char *addr = word_at(token, index * CAF_SYNC_WORD, image_index, &w);
    if (!addr) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR, "libcaf_arbor: unlock: bad image");
        return;
    }
    if (caf_failed_check(w, image_index, stat, "unlock")) return;
    int64_t me = caf_state.world_rank + 1, zero = 0, old = 0;
    /* What we wrote while holding the lock must be visible to the next holder. */
    arbor_status_t s = arbor_quiet();
    if (s == ARBOR_OK) s = arbor_atomic(w, addr, ARBOR_AMO_CSWAP, ARBOR_INT64, &zero, &me, &old);
    if (s == ARBOR_OK && old != me) {
        if (old == 0)
            caf_report(stat, errmsg, errmsg_len,
                       CAF_STAT_UNLOCKED == 0 ? CAF_STAT_ERROR : CAF_STAT_UNLOCKED,
                       "libcaf_arbor: unlock: the lock is not locked");
        else
            caf_report(stat, errmsg, errmsg_len, CAF_STAT_LOCKED_OTHER_IMAGE,
                       "libcaf_arbor: unlock: locked by image %d", (int)old);
        return;
    }
    caf_check(stat, errmsg, errmsg_len, s, "unlock");
}

void _gfortran_caf_event_post(caf_token_t token, size_t index, int image_index, int *stat,
                              char *errmsg, size_t errmsg_len)
{
    int w;
    char *addr = word_at(token, index * CAF_SYNC_WORD, image_index, &w);
    if (!addr) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR, "libcaf_arbor: event post: bad image");
        return;
    }
    if (caf_failed_check(w, image_index, stat, "event post")) return;
    int64_t one = 1;
    /* The waiter may read anything we wrote before the post. */
    arbor_status_t s = arbor_quiet();
    if (s == ARBOR_OK) s = arbor_atomic(w, addr, ARBOR_AMO_ADD, ARBOR_INT64, &one, NULL, NULL);
    caf_check(stat, errmsg, errmsg_len, s, "event post");
}

void _gfortran_caf_event_wait(caf_token_t token, size_t index, int until_count, int *stat,
                              char *errmsg, size_t errmsg_len)
{
    int w;
    char *addr = word_at(token, index * CAF_SYNC_WORD, 0, &w);
    if (!addr || until_count < 1) {
        caf_report(stat, errmsg, errmsg_len, CAF_STAT_ERROR,
                   "libcaf_arbor: event wait: bad event or until_count %d", until_count);
        return;
    }
    int64_t take = -(int64_t)until_count;
    arbor_status_t s =
        arbor_wait_until((uint64_t *)addr, ARBOR_CMP_GE, (uint64_t)until_count, NULL);
    /* Posts may arrive meanwhile: consume atomically rather than store. */
    if (s == ARBOR_OK) s = arbor_atomic(w, addr, ARBOR_AMO_ADD, ARBOR_INT64, &take, NULL, NULL);
    caf_check(stat, errmsg, errmsg_len, s, "event wait");
}

void _gfortran_caf_event_query(caf_token_t token, size_t index, int image_index, int *count,
                               int *stat)
{
    int w;
    int64_t value = 0;
    char *addr = word_at(token, index * CAF_SYNC_WORD, image_index, &w);
    if (!addr || !count) {
        caf_report(stat, NULL, 0, CAF_STAT_ERROR, "libcaf_arbor: event query: bad event");
        return;
    }
    if (caf_failed_check(w, image_index, stat, "event query")) return;
    arbor_status_t s = arbor_atomic(w, addr, ARBOR_AMO_FETCH, ARBOR_INT64, NULL, NULL, &value);
    *count = (int)value;
    caf_check(stat, NULL, 0, s, "event query");
}

/*
 * The measurement probe: the schedule the LogGP measurement (group/measure.c) times. Rank a
 * sends `sends` messages of one block each to rank b, which answers with one empty message
 * once all have landed: a round trip whose time gives L + o (sends = 1, empty blocks), g
 * (sends > 1) and G (one-slot blocks). Built here so that core names no step.
 */
#include "algorithms/coll.h"

arbor_status_t arb_probe_build(int me, int a, int b, int sends, arb_sched_t *s)
{
    int ok = 0;
    arb_sched_init(s);
    if (a == b || sends < 1) return ARBOR_ERR_INVALID_ARG;
    if (me != a && me != b) return ARBOR_OK; /* nothing to do: an empty schedule */
    for (int i = 0; i < sends; i++)
        ok |= me == a ? arb_sched_send(s, 0, b, ARB_BUF_SRC, 0, 1, -1)
                      : arb_sched_recv(s, 0, a, ARB_BUF_DST, 0, 1, 0, -1);
    ok |= me == a ? arb_sched_recv(s, 1, b, ARB_BUF_DST, 0, 0, 0, -1)
                  : arb_sched_send(s, 1, a, ARB_BUF_SRC, 0, 0, -1);
    if (ok < 0) {
        arb_sched_free(s);
        return ARBOR_ERR_NO_MEMORY;
    }
    return ARBOR_OK;
}

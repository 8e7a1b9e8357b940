/*
 * The arbor twins' guard: while libarbor's one-sided layer still answers ARBOR_ERR_UNSUPPORTED
 * to accumulate or atomics (the layer lands in parts), the program reports it, finalises and
 * exits 77, which ctest counts as skipped, not passed. Collective: every rank calls it.
 */
#ifndef ARMCI_TEST_PROBE_H
#define ARMCI_TEST_PROBE_H

#include <arbor.h>
#include <armci.h>
#include <stdio.h>
#include <stdlib.h>

static int one_sided_incomplete(void)
{
    int me = armci_msg_me(), n = armci_msg_nproc();
    void **ptr = malloc(n * sizeof *ptr);
    if (ARMCI_Malloc(ptr, 64) != 0) return 0; /* the test itself reports it */
    int one = 1, old = 0, src[2] = {0, 0};
    int missing[2] = {ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, ptr[me], 1, me) == ARBOR_ERR_UNSUPPORTED,
                      ARMCI_Acc(ARMCI_ACC_INT, &one, src, ptr[me], sizeof src, me) ==
                          ARBOR_ERR_UNSUPPORTED};
    armci_msg_igop(missing, 2, "max");
    ARMCI_Free(ptr[me]);
    free(ptr);
    if (!missing[0] && !missing[1]) return 0;
    if (me == 0)
        printf("SKIPPED: libarbor answers ARBOR_ERR_UNSUPPORTED to%s%s\n",
               missing[0] ? " atomics" : "", missing[1] ? " accumulate" : "");
    return 1;
}

#endif

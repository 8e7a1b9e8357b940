/*
 * Every collective family, in one list: the enum arb_coll_t (coll.h), the algorithm tables and
 * names the selector reads (select.c), the ARBOR_<COLL>_ALGORITHM settings (core/config.c), and
 * through them introspection (arbor_algorithm_names, arbor_info_get "collective.*") are all
 * generated from it. docs/ADDING.md says how to add a collective.
 *
 * X(NAME, name, SHAPE): NAME gives ARB_COLL_<NAME> and ARBOR_<NAME>_ALGORITHM; name the
 * family's tables arb_<name>_algs, arb_<name>_nalgs and arb_<name>_alg_names (defined in its
 * algorithm file) and its user-visible name; SHAPE is the NAME of the family whose buffers and
 * arguments it has (itself for a new kind of buffer layout): the core checks and lays out a
 * call by its shape (core/coll_start.c), so a collective with the buffers of an existing one
 * (scan and exscan have allreduce's) needs nothing there. The order is the enum's; append.
 */
#ifndef ARB_ALGORITHMS_COLL_LIST_H
#define ARB_ALGORITHMS_COLL_LIST_H

#define ARB_COLL_LIST(X)                                                                           \
    X(BARRIER, barrier, BARRIER)                                                                   \
    X(BCAST, bcast, BCAST)                                                                         \
    X(SCATTER, scatter, SCATTER)                                                                   \
    X(SCATTERV, scatterv, SCATTERV)                                                                \
    X(GATHER, gather, GATHER)                                                                      \
    X(GATHERV, gatherv, GATHERV)                                                                   \
    X(ALLGATHER, allgather, ALLGATHER)                                                             \
    X(ALLGATHERV, allgatherv, ALLGATHERV)                                                          \
    X(ALLTOALL, alltoall, ALLTOALL)                                                                \
    X(ALLTOALLV, alltoallv, ALLTOALLV)                                                             \
    X(REDUCE, reduce, REDUCE)                                                                      \
    X(ALLREDUCE, allreduce, ALLREDUCE)                                                             \
    X(REDUCE_SCATTER, reduce_scatter, REDUCE_SCATTER)                                              \
    X(SCAN, scan, ALLREDUCE)                                                                       \
    X(EXSCAN, exscan, ALLREDUCE)

#endif /* ARB_ALGORITHMS_COLL_LIST_H */

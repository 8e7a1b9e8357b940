# The collective suites and the one-sided and active-message tests on a simulated cluster:
# 3 hosts x 2 ranks in network namespaces
# (tests/cluster/cluster.sh), ranks of different hosts talk over
# TCP through a bridge. Skipped (77) where namespaces are not allowed; one bed at a time (they
# share the documentation address range). Not in sanitizer builds: the plain build covers the
# code, and these are the slowest launched tests.
if(NOT ARBOR_SANITIZE AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  set(cluster_run ${CMAKE_CURRENT_SOURCE_DIR}/cluster/run.sh)
  # Six ranks share two cores here although each simulated host has a core per rank: yield.
  set(cluster_env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ARBOR_TIMEOUT=60
      ARBOR_POLL_YIELD=always)
  foreach(tp ucx ofi-tcp)
    if(tp STREQUAL "ucx")
      if(NOT ARBOR_WITH_UCX)
        continue()
      endif()
      set(tp_env ARBOR_TRANSPORT=ucx)
    else()
      if(NOT ARBOR_WITH_OFI)
        continue()
      endif()
      set(tp_env ARBOR_TRANSPORT=ofi "ARBOR_OFI_PROVIDER=tcp\\;ofi_rxm")
    endif()
    foreach(prog coll colls rma am mem-atomics)
      add_test(NAME cluster.${prog}.${tp}.3x2
               COMMAND ${cluster_run} 3 2 $<TARGET_FILE:arbor-test-${prog}>)
      set_tests_properties(cluster.${prog}.${tp}.3x2 PROPERTIES ENVIRONMENT "${cluster_env};${tp_env}"
        TIMEOUT 300 SKIP_RETURN_CODE 77 RESOURCE_LOCK simcluster PROCESSORS 2 LABELS "cluster;launched")
    endforeach()
  endforeach()
  # Private contexts' transport streams between hosts (tests/test_ctx_stream.c): 2 hosts x 2
  # ranks, 2 threads each, every rank of the other host reached through the streams (UCX on the
  # core's registered segment, OFI tcp;ofi_rxm), the node peer by mapping.
  foreach(tp ucx ofi-tcp)
    if(tp STREQUAL "ucx")
      if(NOT ARBOR_WITH_UCX)
        continue()
      endif()
      set(tp_env ARBOR_TRANSPORT=ucx)
    else()
      if(NOT ARBOR_WITH_OFI)
        continue()
      endif()
      set(tp_env ARBOR_TRANSPORT=ofi "ARBOR_OFI_PROVIDER=tcp\\;ofi_rxm")
    endif()
    add_test(NAME cluster.ctx_stream.${tp}.2x2
             COMMAND ${cluster_run} 2 2 $<TARGET_FILE:arbor-test-ctx-stream> 10)
    set_tests_properties(cluster.ctx_stream.${tp}.2x2 PROPERTIES
      ENVIRONMENT "${cluster_env};${tp_env}" TIMEOUT 300 SKIP_RETURN_CODE 77
      RESOURCE_LOCK simcluster PROCESSORS 2 LABELS "cluster;launched;ctx")
  endforeach()
  # A rank on another host SIGKILLs itself (tests/cluster/peerlost.sh, test_peerlost.c): every
  # survivor reports ARBOR_ERR_PEER_LOST within seconds on UCX (endpoint error callbacks of the
  # off-node endpoints); on OFI tcp;ofi_rxm the survivors off the victim's host cannot see it
  # (fi_read to it stays -FI_EAGAIN: rxm keeps reconnecting) and time out (ARBOR_TIMEOUT=10).
  foreach(tp ucx ofi-tcp)
    if(tp STREQUAL "ucx")
      if(NOT ARBOR_WITH_UCX)
        continue()
      endif()
      set(tp_env ARBOR_TRANSPORT=ucx ARBOR_TIMEOUT=30 ARB_PEERLOST_ALLOW_TIMEOUT=0)
    else()
      if(NOT ARBOR_WITH_OFI)
        continue()
      endif()
      set(tp_env ARBOR_TRANSPORT=ofi "ARBOR_OFI_PROVIDER=tcp\\;ofi_rxm" ARBOR_TIMEOUT=10
          ARB_PEERLOST_ALLOW_TIMEOUT=1)
    endif()
    add_test(NAME cluster.peerlost.${tp}.3x2
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cluster/cluster.sh run --hosts 3 --ranks-per-host 2
                     -- ${CMAKE_CURRENT_SOURCE_DIR}/cluster/peerlost.sh 6 $<TARGET_FILE:arbor-test-peerlost>)
    set_tests_properties(cluster.peerlost.${tp}.3x2 PROPERTIES ENVIRONMENT "${cluster_env};${tp_env}"
      TIMEOUT 300 SKIP_RETURN_CODE 77 RESOURCE_LOCK simcluster PROCESSORS 2
      LABELS "cluster;launched;reliability")
  endforeach()
  # The leaders' one-level exchanges (src/algorithms/node_leaders.c) forced: the model does not pick
  # them on this bed (six ranks on two CPUs, where they send more TCP messages than the trees).
  # One bed runs the barrier suite (files checked after every barrier) and the collective suite
  # (every allreduce type and op, split teams: one rank per node, reversed ranks).
  if(ARBOR_WITH_UCX)
    add_test(NAME cluster.leaders.ucx.3x2
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cluster/cluster.sh run --hosts 3 --ranks-per-host 2
                     -- sh -c "$SIMCLUSTER_MPIRUN -n 6 $0 && $SIMCLUSTER_MPIRUN -n 6 $1"
                     $<TARGET_FILE:arbor-test-coll> $<TARGET_FILE:arbor-test-colls>)
    set_tests_properties(cluster.leaders.ucx.3x2 PROPERTIES
      ENVIRONMENT "${cluster_env};ARBOR_TRANSPORT=ucx;ARBOR_BARRIER_ALGORITHM=leader_dissem;ARBOR_ALLREDUCE_ALGORITHM=leader_direct"
      TIMEOUT 300 SKIP_RETURN_CODE 77 RESOURCE_LOCK simcluster PROCESSORS 2 LABELS "cluster;launched")
  endif()
  # Both LogGP levels measured at init (src/group/measure.c) on a job that spans hosts.
  if(ARBOR_WITH_UCX)
    add_test(NAME cluster.coll_measured.ucx.3x2 COMMAND ${cluster_run} 3 2 $<TARGET_FILE:arbor-test-coll>)
    set_tests_properties(cluster.coll_measured.ucx.3x2 PROPERTIES
      ENVIRONMENT "${cluster_env};ARBOR_TRANSPORT=ucx;ARBOR_LOGP_MEASURE=1;ARBOR_PRINT_ALGORITHM=1"
      TIMEOUT 300 SKIP_RETURN_CODE 77 RESOURCE_LOCK simcluster PROCESSORS 2 LABELS "cluster;launched"
      PASS_REGULAR_EXPRESSION "inter-node LogGP L=[0-9.e+-]+ .*passed")
  endif()
endif()

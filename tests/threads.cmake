# The threads tier (docs/THREADS.md): 4 threads per rank at ARBOR_THREAD_MULTIPLE, each on its
# own split team, 10,000 blocking and non-blocking collectives per rank with handles completed
# by another thread (also with ARBOR_PROGRESS=thread), a waiter beside a computing thread and a poller, one-sided tickets from
# every thread, and a callback's refused re-entry. Every byte checked. Longer runs by hand:
#   ARBOR_TEST_THREADS=8 mpirun -n 4 build/bin/arbor-test-threads 20000
add_executable(arbor-test-threads ${CMAKE_CURRENT_SOURCE_DIR}/test_threads.c)
target_link_libraries(arbor-test-threads PRIVATE arbor Threads::Threads)
set(ARBOR_THREADS_TRANSPORTS "")
if(ARBOR_WITH_UCX)
  list(APPEND ARBOR_THREADS_TRANSPORTS ucx)
endif()
if(ARBOR_WITH_OFI)
  list(APPEND ARBOR_THREADS_TRANSPORTS "ofi:shm")
endif()
if(ARBOR_THREADS_TRANSPORTS)
  arbor_add_launched_test(NAME threads COMMAND $<TARGET_FILE:arbor-test-threads> LABELS threads
                          RANKS 2 3 4 TRANSPORTS ${ARBOR_THREADS_TRANSPORTS} TIMEOUT 600)
  # The same with the progress thread driving beside the four (it takes the same lock).
  arbor_add_launched_test(NAME threads_progress COMMAND $<TARGET_FILE:arbor-test-threads>
                          LABELS threads RANKS 3 TRANSPORTS ${ARBOR_THREADS_TRANSPORTS}
                          TIMEOUT 600 ENV ARBOR_PROGRESS=thread)
endif()

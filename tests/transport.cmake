# Transport contract (transports/transport.h) over every backend built and every rank count:
# arbor_add_launched_test sets ARBOR_TRANSPORT (and ARBOR_OFI_PROVIDER) per entry, which
# arbor-tp-contract reads when it gets no argument. Exit 77 (skip): backend not runnable here.
add_executable(arbor-tp-contract ${CMAKE_CURRENT_SOURCE_DIR}/tp_contract.c)
target_link_libraries(arbor-tp-contract PRIVATE arbor_internal Threads::Threads)
arbor_add_launched_test(NAME tp_contract COMMAND $<TARGET_FILE:arbor-tp-contract>
                        TIMEOUT 180 LABELS transport)

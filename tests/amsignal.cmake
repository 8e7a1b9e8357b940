# put_signal as one UCX active message (transports/ucx/ucx_am.c). UCX_TLS=tcp,self on one host
# gives endpoints without atomic lanes, as between hosts: the contract then runs on the message
# path (TP_CONTRACT_EXPECT_AM=1 checks every peer took it) and, switched off, on the old path
# (put, endpoint flush, emulated atomic). The collective, RMA and active-message suites run on
# the message path at P = 2, 3, 5.
arbor_add_launched_test(NAME tp_contract_tcp COMMAND $<TARGET_FILE:arbor-tp-contract>
                        TRANSPORTS ucx RANKS 2 3 5 TIMEOUT 180 LABELS amsignal
                        ENV UCX_TLS=tcp,self TP_CONTRACT_EXPECT_AM=1)
arbor_add_launched_test(NAME tp_contract_tcp_flushpath COMMAND $<TARGET_FILE:arbor-tp-contract>
                        TRANSPORTS ucx RANKS 2 3 TIMEOUT 180 LABELS amsignal
                        ENV UCX_TLS=tcp,self TP_CONTRACT_UCX_SIGNAL=flush TP_CONTRACT_EXPECT_AM=0)
arbor_add_launched_test(NAME colls_tcp COMMAND $<TARGET_FILE:arbor-test-colls> LABELS amsignal
                        TRANSPORTS ucx RANKS 3 5 ENV UCX_TLS=tcp,self)
arbor_add_launched_test(NAME am_tcp COMMAND $<TARGET_FILE:arbor-test-am> LABELS amsignal
                        TRANSPORTS ucx RANKS 2 3 ENV UCX_TLS=tcp,self)

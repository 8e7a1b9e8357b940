# arbor-tree: prints the broadcast tree (and LogGP-predicted times) for P ranks and a root,
# or every tree kind's predicted completion side by side. No launcher, no transport.
add_executable(arbor-tree ${CMAKE_CURRENT_LIST_DIR}/arbor-tree.c)
target_link_libraries(arbor-tree PRIVATE arbor_internal)

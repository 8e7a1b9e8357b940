# LogGP model and broadcast tree builders (docs/TOPOLOGY.md, docs/PERFORMANCE.md). Pure C, no transport: arbor-tree and the unit tests use them directly.
target_sources(arbor_obj PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/logp.c
  ${CMAKE_CURRENT_LIST_DIR}/logp_file.c
  ${CMAKE_CURRENT_LIST_DIR}/tree.c
  ${CMAKE_CURRENT_LIST_DIR}/tree_sim.c
  ${CMAKE_CURRENT_LIST_DIR}/tree_topo.c)

# The images ("i") collectives: arbor_images_init, bcasti / scatteri / gatheri / allgatheri /
# alltoalli with uneven images per rank, every root image, LOCAL and SINGLE lists, blocking and
# non-blocking, world and split teams, bad input.
add_executable(arbor-test-images ${CMAKE_CURRENT_SOURCE_DIR}/test_images.c)
target_link_libraries(arbor-test-images PRIVATE arbor)
arbor_add_launched_test(NAME images COMMAND $<TARGET_FILE:arbor-test-images> LABELS images
                        RANKS 1 2 3 4 5 8)

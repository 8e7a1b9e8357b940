# Datatypes and reduction kernels: src/runtime/dtype.c plus dtype_kernels.c, generated at build time by
# scripts/gen_reduce_kernels.py (one loop per defined (type, op) pair). Included from
# core/CMakeLists.txt. arbor_obj is created in the top directory, and a custom command's output
# only gets a build rule for targets of its own directory, so a custom target produces the file
# and the source properties are set in arbor_obj's directory.
find_package(Python3 COMPONENTS Interpreter REQUIRED)

set(ARB_DTYPE_GEN ${CMAKE_SOURCE_DIR}/scripts/gen_reduce_kernels.py)
set(ARB_DTYPE_KERNELS ${CMAKE_BINARY_DIR}/generated/dtype_kernels.c)
add_custom_command(OUTPUT ${ARB_DTYPE_KERNELS}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/generated
  COMMAND ${Python3_EXECUTABLE} ${ARB_DTYPE_GEN} ${ARB_DTYPE_KERNELS}
  DEPENDS ${ARB_DTYPE_GEN}
  COMMENT "Generating reduction kernels"
  VERBATIM)
add_custom_target(arbor_dtype_kernels DEPENDS ${ARB_DTYPE_KERNELS})
add_dependencies(arbor_obj arbor_dtype_kernels)

set_source_files_properties(${ARB_DTYPE_KERNELS} TARGET_DIRECTORY arbor_obj
  PROPERTIES GENERATED TRUE)
# gcc vectorizes at -O2 only with the "very cheap" cost model (gcc >= 12; not at all before),
# which leaves nearly every kernel scalar; clang vectorizes at -O2 already.
if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
  set_source_files_properties(${ARB_DTYPE_KERNELS} TARGET_DIRECTORY arbor_obj
    PROPERTIES COMPILE_OPTIONS "-ftree-vectorize;-fvect-cost-model=dynamic")
endif()

target_sources(arbor_obj PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/dtype.c ${ARB_DTYPE_KERNELS})

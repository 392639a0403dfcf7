# onnxc_add_model(<target> <model.onnx> [OPT_LEVEL <0..3>] [SHAPES NAME=DIMS...]
#                 [OPTIONS <extra onnxc compile arguments>...])
#
# Compiles <model.onnx> with onnxc into a shared library and makes <target> an
# imported library of it, so `target_link_libraries(app PRIVATE <target>)`
# links the model (whose entry point is onnxc_model_entry(), declared in
# <onnxc/onnxc.h>). The artifact is rebuilt when the model or onnxc changes.
#
# Needs ONNXC_EXECUTABLE (the onnxc compiler) and ONNXC_INCLUDE_DIR, which the
# package config (find_package(onnxc)) and onnxc's own build both set.
function(onnxc_add_model target model)
  cmake_parse_arguments(ARG "" "OPT_LEVEL" "SHAPES;OPTIONS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "onnxc_add_model: unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(model_path "${model}" ABSOLUTE)
  if(NOT EXISTS "${model_path}")
    message(FATAL_ERROR "onnxc_add_model: ${model_path} does not exist")
  endif()
  set(args)
  if(DEFINED ARG_OPT_LEVEL)
    list(APPEND args "-O${ARG_OPT_LEVEL}")
  endif()
  foreach(shape IN LISTS ARG_SHAPES)
    list(APPEND args --shape "${shape}")
  endforeach()
  list(APPEND args ${ARG_OPTIONS})

  set(artifact "${CMAKE_CURRENT_BINARY_DIR}/lib${target}.so")
  add_custom_command(
    OUTPUT "${artifact}"
    COMMAND "${ONNXC_EXECUTABLE}" compile "${model_path}" -o "${artifact}" ${args}
    DEPENDS "${model_path}" "${ONNXC_EXECUTABLE}"
    COMMENT "onnxc: compiling ${model}"
    VERBATIM)
  add_custom_target(${target}_onnxc_artifact DEPENDS "${artifact}")

  add_library(${target} SHARED IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES
    IMPORTED_LOCATION "${artifact}"
    IMPORTED_SONAME "lib${target}.so"
    INTERFACE_INCLUDE_DIRECTORIES "${ONNXC_INCLUDE_DIR}")
  add_dependencies(${target} ${target}_onnxc_artifact)
endfunction()

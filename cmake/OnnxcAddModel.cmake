# onnxc_add_model(<target> <model.onnx> [STATIC] [NAME <identifier>]
#                 [HEADER <file.h>] [OPT_LEVEL <0..3>] [SHAPES NAME=DIMS...]
#                 [OPTIONS <extra onnxc compile arguments>...])
#
# Compiles <model.onnx> with onnxc and makes <target> a library of it, so
# `target_link_libraries(app PRIVATE <target>)` links the model.
#   default   a shared library lib<target>.so whose entry point is
#             onnxc_model_entry(), declared in <onnxc/onnxc.h>.
#   STATIC    an object file linked into the program with the runtime archive;
#             its entry point is <NAME>_model_entry() (NAME defaults to
#             <target>) and it exports nothing else, so several models link
#             into one program.
#   HEADER    also generates <file.h> (in the current binary dir, which joins
#             the target's include path): the model's names, dtypes and dims
#             as macros and its entry point, <NAME>_model() and, for static
#             shapes, a typed <NAME>_run() (see `onnxc compile --header`).
# The artifact is rebuilt when the model or onnxc changes. When
# ONNXC_TARGET_TRIPLE is set (the package config sets it in a cross build)
# the model is compiled for it (--mtriple, and --mcpu ONNXC_TARGET_CPU).
#
# Needs ONNXC_EXECUTABLE (the onnxc compiler) and ONNXC_INCLUDE_DIR, and for
# STATIC ONNXC_RT_CPU_ARCHIVE (the target's), which the package config
# (find_package(onnxc)) sets.
function(onnxc_add_model target model)
  cmake_parse_arguments(ARG "STATIC" "OPT_LEVEL;NAME;HEADER" "SHAPES;OPTIONS"
                        ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "onnxc_add_model: unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(model_path "${model}" ABSOLUTE)
  if(NOT EXISTS "${model_path}")
    message(FATAL_ERROR "onnxc_add_model: ${model_path} does not exist")
  endif()
  set(args)
  if(ONNXC_TARGET_TRIPLE)
    list(APPEND args --mtriple "${ONNXC_TARGET_TRIPLE}")
  endif()
  if(ONNXC_TARGET_CPU)
    list(APPEND args --mcpu "${ONNXC_TARGET_CPU}")
  endif()
  if(DEFINED ARG_OPT_LEVEL)
    list(APPEND args "-O${ARG_OPT_LEVEL}")
  endif()
  foreach(shape IN LISTS ARG_SHAPES)
    list(APPEND args --shape "${shape}")
  endforeach()
  if(ARG_STATIC AND NOT ARG_NAME)
    set(ARG_NAME "${target}")
  endif()
  if(ARG_NAME)
    if(NOT ARG_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
      message(FATAL_ERROR "onnxc_add_model: NAME '${ARG_NAME}' is not a C "
                          "identifier (a STATIC model's NAME defaults to the target)")
    endif()
    list(APPEND args --name "${ARG_NAME}")
  endif()
  set(outputs)
  set(include_dirs "${ONNXC_INCLUDE_DIR}")
  if(ARG_HEADER)
    get_filename_component(header "${ARG_HEADER}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    get_filename_component(header_dir "${header}" DIRECTORY)
    # An imported target's include directories must exist at generation.
    file(MAKE_DIRECTORY "${header_dir}")
    list(APPEND args --header "${header}")
    list(APPEND outputs "${header}")
    list(APPEND include_dirs "${header_dir}")
  endif()
  list(APPEND args ${ARG_OPTIONS})

  if(ARG_STATIC)
    set(artifact "${CMAKE_CURRENT_BINARY_DIR}/${target}.o")
    list(APPEND args --emit obj)
  else()
    set(artifact "${CMAKE_CURRENT_BINARY_DIR}/lib${target}.so")
  endif()
  add_custom_command(
    OUTPUT "${artifact}" ${outputs}
    COMMAND "${ONNXC_EXECUTABLE}" compile "${model_path}" -o "${artifact}" ${args}
    DEPENDS "${model_path}" "${ONNXC_EXECUTABLE}"
    COMMENT "onnxc: compiling ${model}"
    VERBATIM)
  add_custom_target(${target}_onnxc_artifact DEPENDS "${artifact}" ${outputs})

  if(ARG_STATIC)
    if(NOT ONNXC_RT_CPU_ARCHIVE)
      message(FATAL_ERROR "onnxc_add_model: STATIC needs ONNXC_RT_CPU_ARCHIVE")
    endif()
    add_library(${target} OBJECT IMPORTED GLOBAL)
    set_target_properties(${target} PROPERTIES
      IMPORTED_OBJECTS "${artifact}"
      INTERFACE_LINK_LIBRARIES "${ONNXC_RT_CPU_ARCHIVE};m"
      INTERFACE_INCLUDE_DIRECTORIES "${include_dirs}")
  else()
    add_library(${target} SHARED IMPORTED GLOBAL)
    set_target_properties(${target} PROPERTIES
      IMPORTED_LOCATION "${artifact}"
      IMPORTED_SONAME "lib${target}.so"
      INTERFACE_INCLUDE_DIRECTORIES "${include_dirs}")
  endif()
  add_dependencies(${target} ${target}_onnxc_artifact)
endfunction()

# Fake template build functions (tests only).
#   opbuild(OPS_SRC ... OUT_DIR dir): as the template, first compiles the op sources with its own flags
#     (here: the probe, syntax only, -std=c++11 as the template writes it), then writes what opbuild
#     writes: aclnn_<op>.{h,cpp}, op_proto.{h,cc}, aic-<unit>-ops-info.ini; exactly one OP_ADD per op.
#   add_kernels_compile(): per unit a target under `binary` that "compiles" each op with the op compiler
#     found on PATH (fake_opc) and fails unless that compiler and ENV{ASCEND_HOME_PATH} belong to the
#     configured toolkit; installs like the template.
function(opbuild)
  cmake_parse_arguments(OPBUILD "" "OUT_DIR" "OPS_SRC" ${ARGN})
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -fsyntax-only -std=c++11 ${FAKE_PROBE}
                  RESULT_VARIABLE _rc ERROR_VARIABLE _err)
  if(_rc)
    message(FATAL_ERROR "fake opbuild: the op sources do not compile with the template's flags:\n${_err}")
  endif()
  set(_types)
  foreach(_src IN LISTS OPBUILD_OPS_SRC)
    file(STRINGS ${_src} _lines REGEX "OP_ADD\\(")
    foreach(_l IN LISTS _lines)
      if(_l MATCHES "OP_ADD\\(([A-Za-z0-9_]+)\\)")
        if(CMAKE_MATCH_1 IN_LIST _types)
          message(FATAL_ERROR "fake opbuild: OP_ADD(${CMAKE_MATCH_1}) registered twice (generated placeholder left in op_host?)")
        endif()
        list(APPEND _types ${CMAKE_MATCH_1})
      endif()
    endforeach()
  endforeach()
  if(NOT _types)
    message(FATAL_ERROR "fake opbuild: no OP_ADD(<OpType>) in ${OPBUILD_OPS_SRC}")
  endif()
  file(WRITE ${OPBUILD_OUT_DIR}/op_types.txt "${_types}")
  file(WRITE ${OPBUILD_OUT_DIR}/op_proto.h "// fake opbuild\n")
  file(WRITE ${OPBUILD_OUT_DIR}/op_proto.cc "// fake opbuild\nint fake_op_proto() { return 0; }\n")
  foreach(_t IN LISTS _types)
    string(REGEX REPLACE "([a-z0-9])([A-Z])" "\\1_\\2" _snake "${_t}")
    string(TOLOWER "${_snake}" _snake)
    file(WRITE ${OPBUILD_OUT_DIR}/aclnn_${_snake}.h "// fake opbuild: aclnn${_t}GetWorkspaceSize\n")
    file(WRITE ${OPBUILD_OUT_DIR}/aclnn_${_snake}.cpp "// fake opbuild\nint fake_aclnn_${_snake}() { return 0; }\n")
  endforeach()
endfunction()

function(add_kernels_compile)
  if(NOT TARGET binary)
    add_custom_target(binary)
  endif()
  file(READ ${ASCEND_AUTOGEN_PATH}/op_types.txt _types)
  set(_tbe packages/vendors/${vendor_name}/op_impl/ai_core/tbe)
  foreach(_unit IN LISTS ASCEND_COMPUTE_UNIT)
    foreach(_t IN LISTS _types)
      string(REGEX REPLACE "([a-z0-9])([A-Z])" "\\1_\\2" _snake "${_t}")
      string(TOLOWER "${_snake}" _snake)
      add_custom_target(kernel_${_t}_${_unit}
        COMMAND ${CMAKE_COMMAND} -DUNIT=${_unit} -DOP=${_t} -DSNAKE=${_snake}
                -DSRC=${CMAKE_SOURCE_DIR}/op_kernel/${_snake}.cpp -DOUT=${CMAKE_CURRENT_BINARY_DIR}/binary
                -DEXPECT=${ASCEND_CANN_PACKAGE_PATH} -DLOG=${CMAKE_BINARY_DIR}/fake_kernel.log
                -P ${CMAKE_SOURCE_DIR}/cmake/fake_kernel_compile.cmake
        VERBATIM)
      add_dependencies(binary kernel_${_t}_${_unit})
    endforeach()
    file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/config/${_unit}/aic-${_unit}-ops-info.json "{\"ops\": \"${_types}\"}\n")
    install(FILES ${CMAKE_CURRENT_BINARY_DIR}/config/${_unit}/aic-${_unit}-ops-info.json DESTINATION ${_tbe}/config/${_unit})
    install(DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/binary/${_unit}/ DESTINATION ${_tbe}/kernel/${_unit})
  endforeach()
  install(DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/binary/config/ DESTINATION ${_tbe}/kernel/config)
  if(ENABLE_SOURCE_PACKAGE)
    install(DIRECTORY ${CMAKE_SOURCE_DIR}/op_kernel/ DESTINATION ${_tbe}/${vendor_name}_impl/dynamic
            PATTERN CMakeLists.txt EXCLUDE)
  endif()
endfunction()

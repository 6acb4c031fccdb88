# The Python extension ascend_dcn._C (pybind11), included by the top-level build when
# ASCEND_DCN_PYTHON=ON.
#   * Compiles against aclnn/acl_meta.h + graph/types.h from ASCEND_DCN_ACL_INCLUDE_DIR (default:
#     the twin's stand-ins; on an Ascend host point it at CANN's include dir) but links NEITHER the
#     twin nor CANN: every aclnn/runtime function is resolved with dlopen/dlsym at run time.
#   * Also compiles the op's contract validation (op_host/deformable_conv2d_backward_check.cpp,
#     header-only dependencies) to expose ascend_dcn._C.check_backward_args.
#   * pybind11: scikit-build-core passes its prefix; for a plain cmake build the cmake dir is taken
#     from `python -m pybind11 --cmakedir`.
#   * Build tree: the module is written to ${CMAKE_BINARY_DIR}/ascend_dcn_ext (use it with
#     ASCEND_DCN_EXT_DIR=<that dir>, see python/ascend_dcn/_backend.py). Wheel: installed into
#     ascend_dcn/ next to the Python sources.
set(ASCEND_DCN_ACL_INCLUDE_DIR "${PROJECT_SOURCE_DIR}/twin/include" CACHE PATH
    "Directory providing aclnn/acl_meta.h and graph/types.h for the _C binding")

if(NOT pybind11_FOUND)
  find_package(Python COMPONENTS Interpreter Development.Module REQUIRED)
  find_package(pybind11 CONFIG QUIET)
  if(NOT pybind11_FOUND)
    execute_process(COMMAND "${Python_EXECUTABLE}" -m pybind11 --cmakedir
                    OUTPUT_VARIABLE _ascend_dcn_pybind11_dir OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE _ascend_dcn_pybind11_rc)
    if(NOT _ascend_dcn_pybind11_rc EQUAL 0)
      message(FATAL_ERROR "ascend_dcn: pybind11 not found; install it (pip install pybind11) or set pybind11_DIR")
    endif()
    find_package(pybind11 CONFIG REQUIRED PATHS "${_ascend_dcn_pybind11_dir}" NO_DEFAULT_PATH)
  endif()
endif()

set(_ascend_dcn_csrc ${CMAKE_CURRENT_LIST_DIR})
pybind11_add_module(_C MODULE
  ${_ascend_dcn_csrc}/binding.cpp
  ${_ascend_dcn_csrc}/cpu_forward.cpp
  ${_ascend_dcn_csrc}/opapi_library.cpp
  ${_ascend_dcn_csrc}/library_trust.cpp
  ${_ascend_dcn_csrc}/tensor_spec.cpp
  ${PROJECT_SOURCE_DIR}/op_host/deformable_conv2d_backward_check.cpp)
target_include_directories(_C PRIVATE ${_ascend_dcn_csrc} ${PROJECT_SOURCE_DIR}/op_host ${ASCEND_DCN_ACL_INCLUDE_DIR})
target_compile_features(_C PRIVATE cxx_std_17)
if(DEFINED ASCEND_DCN_WARN)
  target_compile_options(_C PRIVATE ${ASCEND_DCN_WARN})
else()
  target_compile_options(_C PRIVATE -Wall -Wextra -Werror)
endif()
find_package(Threads REQUIRED)
target_link_libraries(_C PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
set_target_properties(_C PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/ascend_dcn_ext)
install(TARGETS _C LIBRARY DESTINATION ascend_dcn)

# The torch_npu extension (npu_extension.cpp, npu_call.cpp + the loader) is compiled on the Ascend
# host at first use (ascend_dcn/npu.py, build_extension): its sources ship in the wheel with the
# package's csrc/; the contract check it compiles in lives in op_host/, so those files are shipped
# too, as ascend_dcn/npu_src/.
file(GLOB _ascend_dcn_npu_host_sources
  ${PROJECT_SOURCE_DIR}/op_host/deformable_conv2d_backward_check.cpp
  ${PROJECT_SOURCE_DIR}/op_host/*.h)
install(FILES ${_ascend_dcn_npu_host_sources} DESTINATION ascend_dcn/npu_src)

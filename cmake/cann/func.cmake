# Build steps of the DeformableConv2dBackward package on top of CANN's ASC cmake modules.
#
# CANN ships the msOpGen build functions in
#   ${ASCEND_CANN_PACKAGE_PATH}/compiler/tikcpp/ascendc_kernel_cmake  (find_package(ASC))
# (older layouts expose the same directory as tools/tikcpp/ascendc_kernel_cmake). They run
# opbuild, compile the host libraries and compile the AscendC kernel to binaries per compute unit.
# This file only requests those steps with our sources and names; nothing here compiles by itself.
#
# Names (fixed by the msOpGen convention and relied on by python/ascend_dcn/npu.py):
#   package      ${vendor_name}                 -> packages/vendors/${vendor_name}/...
#   cust_opapi   ACLNN  library  libcust_opapi.so      (generated aclnn_deformable_conv2d_backward.{h,cpp})
#   cust_optiling TILING library libcust_opmaster_rt2.0.so (op_host compiled with OP_TILING_LIB)
#   cust_op_proto GRAPH library  libcust_opsproto_rt2.0.so (op_host + op_proto.cc, OP_PROTO_LIB)
#   ascendc_kernels KERNEL library: op_kernel/deformable_conv2d_backward.cpp for each compute unit
set(DCN_OP_TYPE DeformableConv2dBackward)
set(DCN_OP_SNAKE deformable_conv2d_backward)

macro(dcn_find_cann_modules)
  find_package(ASC CONFIG QUIET
    HINTS ${ASCEND_CANN_PACKAGE_PATH}/compiler/tikcpp/ascendc_kernel_cmake
          ${ASCEND_CANN_PACKAGE_PATH}/tools/tikcpp/ascendc_kernel_cmake
    NO_DEFAULT_PATH)
  if(NOT ASC_FOUND OR NOT COMMAND npu_op_package OR NOT COMMAND npu_op_kernel_library)
    message(FATAL_ERROR
      "CANN at '${ASCEND_CANN_PACKAGE_PATH}' has no AscendC operator-project cmake modules "
      "(compiler/tikcpp/ascendc_kernel_cmake/asc-config.cmake providing npu_op_package, npu_op_code_gen, "
      "npu_op_library, npu_op_kernel_sources, npu_op_kernel_library). Such toolkits (8.x before 8.5) build "
      "through their msOpGen project: `bash build.sh` takes that route by itself (or force it with "
      "`bash build.sh --route=msopgen`); without an NPU build on the CPU twin: `bash build.sh --twin`.")
  endif()
endmacro()

# The package: a RUN package whose packing is ours (cmake/cann/package.cmake), so CANN's CPack
# is switched off and its install rules write the vendor tree under ${DCN_PACKAGE_STAGE}.
function(dcn_declare_package)
  npu_op_package(${vendor_name}
    TYPE RUN
    CONFIG
      ENABLE_SOURCE_PACKAGE ${ENABLE_SOURCE_PACKAGE}
      ENABLE_BINARY_PACKAGE ${ENABLE_BINARY_PACKAGE}
      INSTALL_PATH ${DCN_PACKAGE_STAGE}
      ENABLE_CPACK False)
endfunction()

# op_host: opbuild code generation + the three host libraries.
function(dcn_add_host_libraries)
  file(GLOB host_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/op_host/*.cpp)
  if(NOT host_srcs)
    message(FATAL_ERROR "op_host: no *.cpp sources found in ${PROJECT_SOURCE_DIR}/op_host")
  endif()
  # opbuild first compiles the sources into libascend_all_ops.so with CANN's flags
  # (-D_GLIBCXX_USE_CXX11_ABI=0 -std=c++11 <COMPILE_OPTIONS>): -std=c++17 here overrides c++11.
  npu_op_code_gen(
    SRC ${host_srcs}
    PACKAGE ${vendor_name}
    OUT_DIR ${ASCEND_AUTOGEN_PATH}
    COMPILE_OPTIONS -std=c++17 -I${PROJECT_SOURCE_DIR}/op_host -I${PROJECT_SOURCE_DIR}/op_kernel)

  file(GLOB aclnn_srcs ${ASCEND_AUTOGEN_PATH}/aclnn_*.cpp)
  set(aclnn_main ${ASCEND_AUTOGEN_PATH}/aclnn_${DCN_OP_SNAKE}.cpp)
  if(NOT aclnn_main IN_LIST aclnn_srcs)
    list(APPEND aclnn_srcs ${aclnn_main})
  endif()
  set_source_files_properties(${aclnn_srcs} PROPERTIES GENERATED TRUE)
  npu_op_library(cust_opapi ACLNN ${aclnn_srcs})

  set(proto_src ${ASCEND_AUTOGEN_PATH}/op_proto.cc)
  set_source_files_properties(${proto_src} PROPERTIES GENERATED TRUE)
  npu_op_library(cust_op_proto GRAPH ${host_srcs} ${proto_src})

  file(GLOB fallback_srcs ${ASCEND_AUTOGEN_PATH}/fallback_*.cpp)
  set_source_files_properties(${fallback_srcs} PROPERTIES GENERATED TRUE)
  npu_op_library(cust_optiling TILING ${host_srcs} ${fallback_srcs})

  foreach(lib cust_opapi cust_op_proto cust_optiling)
    target_compile_options(${lib} PRIVATE -fvisibility=hidden)
  endforeach()
  npu_op_package_add(${vendor_name} LIBRARY cust_optiling cust_opapi cust_op_proto)
endfunction()

# op_kernel: binary compile of the kernel for every compute unit of ASCEND_COMPUTE_UNIT.
function(dcn_add_kernels)
  set(kernel_file ${DCN_OP_SNAKE}.cpp)
  if(NOT EXISTS ${PROJECT_SOURCE_DIR}/op_kernel/${kernel_file})
    message(FATAL_ERROR "op_kernel: kernel entry ${PROJECT_SOURCE_DIR}/op_kernel/${kernel_file} is missing")
  endif()
  if(CMAKE_BUILD_TYPE STREQUAL "Debug")
    npu_op_kernel_options(ascendc_kernels ALL OPTIONS -g -O0)
  endif()
  # No COMPUTE_UNIT restriction: the kernel is compiled for every entry of ASCEND_COMPUTE_UNIT.
  npu_op_kernel_sources(ascendc_kernels
    OP_TYPE ${DCN_OP_TYPE}
    KERNEL_FILE ${kernel_file})
  npu_op_kernel_library(ascendc_kernels
    SRC_BASE ${PROJECT_SOURCE_DIR}/op_kernel
    TILING_LIBRARY cust_optiling)
  npu_op_package_add(${vendor_name} LIBRARY ascendc_kernels)
endfunction()

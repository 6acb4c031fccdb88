# CANN build of the DeformableConv2dBackward custom-operator package (Ascend hosts).
# Included by the top-level CMakeLists.txt when cmake/find_cann.cmake found a toolkit and
# ASCEND_DCN_TWIN is OFF. Normally driven by `bash build.sh` (preset "default" of CMakePresets.json).
#
# Steps (msOpGen project conventions, executed by CANN's own cmake modules):
#   cmake/cann/config.cmake   validate presets, derive paths and the package name
#   cmake/cann/intf.cmake     project compile flags for the host libraries (cust_intf_pub)
#   cmake/cann/func.cmake     opbuild + cust_opapi/cust_optiling/cust_op_proto + kernel binaries
#   framework/                graph-mode (TensorFlow) parser plugin, only with ASCEND_DCN_FRAMEWORK_PLUGIN=ON
#   cmake/cann/package.cmake  target `opp_package` -> ${CMAKE_BINARY_DIR}/custom_opp_<os>_<arch>.run
option(ASCEND_DCN_FRAMEWORK_PLUGIN "Build the TensorFlow graph-mode parser plugin (framework/)" ON)

include(${CMAKE_CURRENT_LIST_DIR}/cann/config.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/cann/func.cmake)
dcn_find_cann_modules()
include(${CMAKE_CURRENT_LIST_DIR}/cann/intf.cmake)

dcn_declare_package()
dcn_add_host_libraries()
dcn_add_kernels()
if(ASCEND_DCN_FRAMEWORK_PLUGIN)
  add_subdirectory(${PROJECT_SOURCE_DIR}/framework ${CMAKE_BINARY_DIR}/framework)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/cann/package.cmake)

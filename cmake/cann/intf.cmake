# Project-wide compile interface for the host libraries of the CANN build.
#
# CANN's module (asc-config.cmake -> fwk_modules/intf.cmake) defines `intf_pub` with the toolkit's
# include directories and hardening flags; its npu_op_library() links `cust_intf_pub` as well when
# that target exists. That is the documented hook for project flags, used here for:
#   * C++17 (the op_host sources use it; CANN's intf_pub only requests cxx_std_11);
#   * the op_host/ and op_kernel/ directories on the include path (op_host includes its own headers,
#     op_kernel headers that are shared with the host, e.g. tiling structs).
# Warnings stay CANN's defaults: autogen sources are not ours, so -Werror is not applied here.
if(NOT TARGET cust_intf_pub)
  add_library(cust_intf_pub INTERFACE)
  target_compile_features(cust_intf_pub INTERFACE cxx_std_17)
  target_include_directories(cust_intf_pub INTERFACE
    ${PROJECT_SOURCE_DIR}/op_host
    ${PROJECT_SOURCE_DIR}/op_kernel)
endif()

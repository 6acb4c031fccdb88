# Packing of build_out/custom_opp_<os>_<arch>.run on the npu_op_* route (included by
# cmake/cann_build.cmake). CANN's install rules (npu_op_package_add and friends) describe the vendor
# tree packages/vendors/${vendor_name}/{op_api,op_impl,op_proto,framework,version.info}. The target
# `opp_package` (after `all`; it builds CANN's `binary` target itself) runs them into a staging
# directory and writes the self-extracting .run with our installer (cmake/cann/pack_run.cmake, the
# same script the msOpGen route packs with).
set(DCN_PACKAGE_FILE ${CMAKE_BINARY_DIR}/${DCN_PACKAGE_FILE_NAME})
if(NOT DEFINED DCN_PACKAGE_INFO)
  set(DCN_PACKAGE_INFO "ascend_dcn ${vendor_name}, route npu_op")
endif()
add_custom_target(opp_package
  COMMAND ${CMAKE_COMMAND}
          -DBIN_DIR=${CMAKE_BINARY_DIR}
          -DSTAGE_DIR=${DCN_PACKAGE_STAGE}
          -DRUN_DIR=${CMAKE_BINARY_DIR}/opp_run_root
          -DVENDOR=${vendor_name}
          -DSCRIPTS_DIR=${CMAKE_CURRENT_LIST_DIR}/scripts
          -DOUTPUT=${DCN_PACKAGE_FILE}
          "-DPACKAGE_INFO=${DCN_PACKAGE_INFO}"
          -P ${CMAKE_CURRENT_LIST_DIR}/pack_run.cmake
  COMMENT "Packing ${DCN_PACKAGE_FILE_NAME} (vendor ${vendor_name})"
  VERBATIM)
# CANN's module hangs the kernel binary compiles off the target `binary` (not part of ALL).
if(TARGET binary)
  add_dependencies(opp_package binary)
endif()

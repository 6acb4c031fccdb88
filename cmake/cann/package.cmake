# Packing of build_out/custom_opp_<os>_<arch>.run (Ascend hosts; included by cmake/cann_build.cmake).
#
# CANN's install rules (npu_op_package_add and friends) describe the vendor tree
# packages/vendors/${vendor_name}/{op_api,op_impl,op_proto,framework,version.info}. The target
# `opp_package` (after `all`; it builds CANN's `binary` target itself) runs them into a staging directory, adds our installer scripts (cmake/cann/scripts/,
# vendor name substituted here) and writes a self-extracting .run (cmake/cann/pack_run.cmake).
# Installing the .run is done by scripts/install.sh inside it:
#   ./custom_opp_<os>_<arch>.run [--install-path=<abs dir>]
set(DCN_SCRIPT_TEMPLATES ${CMAKE_CURRENT_LIST_DIR}/scripts)
set(DCN_CONFIGURED_SCRIPTS ${CMAKE_BINARY_DIR}/opp_scripts)
foreach(_script install.sh upgrade.sh uninstall.sh set_env.bash.in help.info)
  configure_file(${DCN_SCRIPT_TEMPLATES}/${_script} ${DCN_CONFIGURED_SCRIPTS}/${_script} @ONLY)
endforeach()
configure_file(${DCN_SCRIPT_TEMPLATES}/run_header.sh ${CMAKE_BINARY_DIR}/opp_run_header.sh @ONLY)

set(DCN_PACKAGE_FILE ${CMAKE_BINARY_DIR}/${DCN_PACKAGE_FILE_NAME})
add_custom_target(opp_package
  COMMAND ${CMAKE_COMMAND}
          -DBIN_DIR=${CMAKE_BINARY_DIR}
          -DSTAGE_DIR=${DCN_PACKAGE_STAGE}
          -DRUN_DIR=${CMAKE_BINARY_DIR}/opp_run_root
          -DVENDOR=${vendor_name}
          -DSCRIPTS_DIR=${DCN_CONFIGURED_SCRIPTS}
          -DHEADER=${CMAKE_BINARY_DIR}/opp_run_header.sh
          -DOUTPUT=${DCN_PACKAGE_FILE}
          -P ${CMAKE_CURRENT_LIST_DIR}/pack_run.cmake
  COMMENT "Packing ${DCN_PACKAGE_FILE_NAME} (vendor ${vendor_name})"
  VERBATIM)
# CANN's module hangs the kernel binary compiles off the target `binary` (not part of ALL).
if(TARGET binary)
  add_dependencies(opp_package binary)
endif()

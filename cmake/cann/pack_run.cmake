# cmake -P script: stage the vendor tree and write the self-extracting installer. Used by both build
# routes (CANN's npu_op_* modules and the toolkit's msOpGen project), so both packages carry the
# same installer, uninstaller and header.
# Inputs (-D): BIN_DIR (a configured+built CANN build tree whose install rules write
#   packages/vendors/<VENDOR>/...), STAGE_DIR, RUN_DIR (scratch), VENDOR, SCRIPTS_DIR (the templates
#   cmake/cann/scripts), OUTPUT (the .run), PACKAGE_INFO (one line: route, CANN version).
# Layout of the payload (what scripts/install.sh expects next to itself):
#   install.sh upgrade.sh uninstall.sh help.info
#   packages/vendors/<VENDOR>/{op_api,op_impl,op_proto,framework,version.info}
foreach(_var BIN_DIR STAGE_DIR RUN_DIR VENDOR SCRIPTS_DIR OUTPUT PACKAGE_INFO)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "pack_run.cmake: -D${_var}=... is required")
  endif()
endforeach()
if(NOT VENDOR MATCHES "^[A-Za-z0-9_]+$")
  message(FATAL_ERROR "pack_run.cmake: VENDOR must match [A-Za-z0-9_]+; got '${VENDOR}'")
endif()

file(REMOVE_RECURSE ${STAGE_DIR} ${RUN_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BIN_DIR} --prefix ${STAGE_DIR}
                RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "pack_run.cmake: `cmake --install ${BIN_DIR}` failed (${_rc}); build all targets first")
endif()

set(_vendor_tree ${STAGE_DIR}/packages/vendors/${VENDOR})
foreach(_required op_api/lib/libcust_opapi.so op_api/include op_impl/ai_core/tbe op_proto version.info)
  if(NOT EXISTS ${_vendor_tree}/${_required})
    message(FATAL_ERROR "pack_run.cmake: the staged package lacks ${_vendor_tree}/${_required}; "
                        "the CANN build did not produce it")
  endif()
endforeach()

file(MAKE_DIRECTORY ${RUN_DIR}/packages/vendors)
file(COPY ${_vendor_tree} DESTINATION ${RUN_DIR}/packages/vendors)
set(vendor_name ${VENDOR})
foreach(_script install.sh upgrade.sh uninstall.sh)
  configure_file(${SCRIPTS_DIR}/${_script} ${RUN_DIR}/${_script} @ONLY)
endforeach()
# (file(CHMOD) and configure_file(FILE_PERMISSIONS) need CMake >= 3.19/3.20; the project needs 3.16)
execute_process(COMMAND chmod 750 install.sh upgrade.sh uninstall.sh WORKING_DIRECTORY ${RUN_DIR})
configure_file(${SCRIPTS_DIR}/help.info ${RUN_DIR}/help.info @ONLY)

get_filename_component(_out_dir ${OUTPUT} DIRECTORY)
set(_payload ${_out_dir}/opp_payload.tar.gz)
file(GLOB _entries RELATIVE ${RUN_DIR} ${RUN_DIR}/*)
list(SORT _entries)
execute_process(COMMAND ${CMAKE_COMMAND} -E tar czf ${_payload} ${_entries}
                WORKING_DIRECTORY ${RUN_DIR} RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "pack_run.cmake: creating the payload archive failed (${_rc})")
endif()
file(SHA256 ${_payload} PAYLOAD_SHA256)
file(SIZE ${_payload} PAYLOAD_SIZE)
configure_file(${SCRIPTS_DIR}/run_header.sh ${_out_dir}/opp_run_header.sh @ONLY)
execute_process(COMMAND ${CMAKE_COMMAND} -E cat ${_out_dir}/opp_run_header.sh ${_payload}
                OUTPUT_FILE ${OUTPUT} RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "pack_run.cmake: writing ${OUTPUT} failed (${_rc})")
endif()
file(REMOVE ${_payload})
execute_process(COMMAND chmod 750 ${OUTPUT})
message(STATUS "ascend_dcn: wrote ${OUTPUT} (${PACKAGE_INFO})")

# cmake -P script: stage the vendor tree and write the self-extracting installer.
# Inputs (-D): BIN_DIR, STAGE_DIR, RUN_DIR, VENDOR, SCRIPTS_DIR, HEADER, OUTPUT.
# Layout of the payload (what scripts/install.sh expects next to itself):
#   install.sh upgrade.sh uninstall.sh set_env.bash.in help.info
#   packages/vendors/<VENDOR>/{op_api,op_impl,op_proto,framework,version.info}
foreach(_var BIN_DIR STAGE_DIR RUN_DIR VENDOR SCRIPTS_DIR HEADER OUTPUT)
  if(NOT DEFINED ${_var} OR "${${_var}}" STREQUAL "")
    message(FATAL_ERROR "pack_run.cmake: -D${_var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE ${STAGE_DIR} ${RUN_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BIN_DIR} --prefix ${STAGE_DIR}
                RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "pack_run.cmake: `cmake --install ${BIN_DIR}` failed (${_rc}); build all targets first")
endif()

set(_vendor_tree ${STAGE_DIR}/packages/vendors/${VENDOR})
foreach(_required op_api/lib/libcust_opapi.so op_api/include op_impl/ai_core/tbe op_proto)
  if(NOT EXISTS ${_vendor_tree}/${_required})
    message(FATAL_ERROR "pack_run.cmake: the staged package lacks ${_vendor_tree}/${_required}; "
                        "the CANN build did not produce it")
  endif()
endforeach()

file(MAKE_DIRECTORY ${RUN_DIR})
file(COPY ${STAGE_DIR}/packages DESTINATION ${RUN_DIR})
file(COPY ${SCRIPTS_DIR}/install.sh ${SCRIPTS_DIR}/upgrade.sh ${SCRIPTS_DIR}/uninstall.sh
     DESTINATION ${RUN_DIR}
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE)
file(COPY ${SCRIPTS_DIR}/set_env.bash.in ${SCRIPTS_DIR}/help.info DESTINATION ${RUN_DIR})

get_filename_component(_out_dir ${OUTPUT} DIRECTORY)
set(_payload ${_out_dir}/opp_payload.tar.gz)
file(GLOB _entries RELATIVE ${RUN_DIR} ${RUN_DIR}/*)
execute_process(COMMAND ${CMAKE_COMMAND} -E tar czf ${_payload} ${_entries}
                WORKING_DIRECTORY ${RUN_DIR} RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "pack_run.cmake: creating the payload archive failed (${_rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E cat ${HEADER} ${_payload}
                OUTPUT_FILE ${OUTPUT} RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "pack_run.cmake: writing ${OUTPUT} failed (${_rc})")
endif()
file(REMOVE ${_payload})
file(CHMOD ${OUTPUT} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE)
message(STATUS "ascend_dcn: wrote ${OUTPUT}")

# Fake kernel compile (tests only; cmake -P with UNIT OP SNAKE SRC OUT EXPECT LOG).
execute_process(COMMAND fake_opc OUTPUT_VARIABLE _opc_root RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE)
get_filename_component(_expect "${EXPECT}" REALPATH)
get_filename_component(_home "$ENV{ASCEND_HOME_PATH}" REALPATH)
if(NOT _rc EQUAL 0 OR NOT _opc_root STREQUAL _expect OR NOT _home STREQUAL _expect)
  message(FATAL_ERROR "fake kernel compile: the op compiler on PATH belongs to '${_opc_root}' and "
                      "ASCEND_HOME_PATH is '$ENV{ASCEND_HOME_PATH}', but the project was configured with '${EXPECT}'")
endif()
if(NOT EXISTS "${SRC}")
  message(FATAL_ERROR "fake kernel compile: ${SRC} does not exist")
endif()
file(APPEND ${LOG} "kernel compile op=${OP} src=${SRC} unit=${UNIT}\n")
file(WRITE ${OUT}/${UNIT}/${SNAKE}/${OP}_${UNIT}.o "fake kernel ${OP} ${UNIT}\n")
file(WRITE ${OUT}/config/${UNIT}/binary_info_config.json "{\"${OP}\": \"${UNIT}\"}\n")

# Locates a CANN toolkit. Sets ASCEND_DCN_CANN_FOUND and ASCEND_CANN_PACKAGE_PATH.
# Order: -DASCEND_CANN_PACKAGE_PATH, $ASCEND_CANN_PACKAGE_PATH, $ASCEND_HOME_PATH,
# /usr/local/Ascend/ascend-toolkit/latest, /usr/local/Ascend/cann. A directory counts as CANN when it holds
# the AscendC cmake directory (compiler/ or tools/tikcpp/ascendc_kernel_cmake), compiler/ccec_compiler or
# msOpGen (python/site-packages/bin/msopgen): the same rule as build.sh.
set(ASCEND_DCN_CANN_FOUND OFF)
set(_cann_candidates "${ASCEND_CANN_PACKAGE_PATH}" "$ENV{ASCEND_CANN_PACKAGE_PATH}"
    "$ENV{ASCEND_HOME_PATH}" "/usr/local/Ascend/ascend-toolkit/latest" "/usr/local/Ascend/cann")
foreach(_c IN LISTS _cann_candidates)
  if(_c AND (EXISTS "${_c}/compiler/tikcpp/ascendc_kernel_cmake" OR EXISTS "${_c}/tools/tikcpp/ascendc_kernel_cmake"
             OR EXISTS "${_c}/compiler/ccec_compiler" OR EXISTS "${_c}/python/site-packages/bin/msopgen"))
    set(ASCEND_CANN_PACKAGE_PATH "${_c}" CACHE PATH "CANN install root" FORCE)
    set(ASCEND_DCN_CANN_FOUND ON)
    break()
  endif()
endforeach()

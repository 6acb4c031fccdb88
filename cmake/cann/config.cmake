# CANN build configuration (Ascend hosts only; included by cmake/cann_build.cmake).
#
# Validates the msOpGen-style cache variables that CMakePresets.json provides and derives the
# paths every later step uses. Invariants after this file:
#   * ASCEND_COMPUTE_UNIT is a non-empty list whose entries are all in DCN_SUPPORTED_COMPUTE_UNITS
#     (the op_host OpDef registers exactly ascend910b and ascend910_93).
#   * vendor_name is set, matches [A-Za-z0-9_]+ and is not CANN's placeholder "customize"
#     (installed packages with the same vendor name overwrite each other).
#   * ENV{ASCEND_HOME_PATH} is set and names ASCEND_CANN_PACKAGE_PATH (CANN's asc-config.cmake refuses to
#     load without it and loads its modules from there).
#   * DCN_SYSTEM_INFO = <os>_<arch> as used in the package name custom_opp_<os>_<arch>.run.
set(DCN_SUPPORTED_COMPUTE_UNITS ascend910b ascend910_93)

if(NOT DEFINED ASCEND_COMPUTE_UNIT OR "${ASCEND_COMPUTE_UNIT}" STREQUAL "")
  message(FATAL_ERROR "ASCEND_COMPUTE_UNIT not set: configure with the preset "
                      "(cmake --preset=default) or pass -DASCEND_COMPUTE_UNIT=\"ascend910b;ascend910_93\"")
endif()
foreach(_unit IN LISTS ASCEND_COMPUTE_UNIT)
  if(NOT _unit IN_LIST DCN_SUPPORTED_COMPUTE_UNITS)
    message(FATAL_ERROR "ASCEND_COMPUTE_UNIT: '${_unit}' is not supported by DeformableConv2dBackward; "
                        "expected a subset of '${DCN_SUPPORTED_COMPUTE_UNITS}' (Atlas A2 = ascend910b, Atlas A3 = ascend910_93)")
  endif()
endforeach()

if(NOT DEFINED vendor_name OR "${vendor_name}" STREQUAL "")
  set(vendor_name ascend_dcn CACHE STRING "vendor directory name of the installed package")
endif()
if(NOT vendor_name MATCHES "^[A-Za-z0-9_]+$")
  message(FATAL_ERROR "vendor_name: must match [A-Za-z0-9_]+; got '${vendor_name}'")
endif()
if(vendor_name STREQUAL "customize")
  message(FATAL_ERROR "vendor_name: 'customize' is CANN's placeholder shared by every sample package; "
                      "use a unique name (the preset uses ascend_dcn)")
endif()

foreach(_flag ENABLE_SOURCE_PACKAGE ENABLE_BINARY_PACKAGE)
  if(NOT DEFINED ${_flag})
    set(${_flag} True)
  endif()
endforeach()
if(NOT ENABLE_BINARY_PACKAGE)
  message(FATAL_ERROR "ENABLE_BINARY_PACKAGE: must be True; aclnn single-operator calls "
                      "(torch_npu, the ascend_dcn Python package) need the precompiled kernel binaries")
endif()
if(NOT DEFINED ASCEND_PYTHON_EXECUTABLE)
  set(ASCEND_PYTHON_EXECUTABLE python3 CACHE STRING "python used by CANN's build helpers")
endif()
if(NOT DEFINED CMAKE_BUILD_TYPE OR CMAKE_BUILD_TYPE STREQUAL "")
  set(CMAKE_BUILD_TYPE Release)
endif()

# CANN's cmake modules read the toolkit root from the environment: it must be this toolkit's, or the
# build mixes two toolkits (modules of one, compilers of the other).
if("$ENV{ASCEND_HOME_PATH}" STREQUAL "")
  set(ENV{ASCEND_HOME_PATH} "${ASCEND_CANN_PACKAGE_PATH}")
else()
  get_filename_component(_dcn_env_home "$ENV{ASCEND_HOME_PATH}" REALPATH)
  get_filename_component(_dcn_package_path "${ASCEND_CANN_PACKAGE_PATH}" REALPATH)
  if(NOT _dcn_env_home STREQUAL _dcn_package_path)
    message(FATAL_ERROR "ASCEND_HOME_PATH='$ENV{ASCEND_HOME_PATH}' (the toolkit sourced in this shell) and "
                        "ASCEND_CANN_PACKAGE_PATH='${ASCEND_CANN_PACKAGE_PATH}' name different toolkits; the build "
                        "would mix them. Use `bash build.sh --cann-path=<toolkit>` (it sources that toolkit's "
                        "set_env.sh for configure and build), or source the wanted toolkit's set_env.sh.")
  endif()
endif()

if(NOT DEFINED ASCEND_AUTOGEN_PATH)
  set(ASCEND_AUTOGEN_PATH ${CMAKE_BINARY_DIR}/autogen)
endif()
file(MAKE_DIRECTORY ${ASCEND_AUTOGEN_PATH})

# Where CANN's install rules put the vendor tree before we pack it (see cmake/cann/package.cmake).
set(DCN_PACKAGE_STAGE ${CMAKE_BINARY_DIR}/opp_stage)

# <os>_<arch>, e.g. ubuntu_x86_64, euleros_aarch64 (os = ID from /etc/os-release).
set(_os_id linux)
if(EXISTS /etc/os-release)
  file(STRINGS /etc/os-release _id_line REGEX "^ID=")
  if(_id_line)
    string(REGEX REPLACE "^ID=\"?([^\"]*)\"?$" "\\1" _os_id "${_id_line}")
  endif()
endif()
set(DCN_SYSTEM_INFO "${_os_id}_${CMAKE_SYSTEM_PROCESSOR}")
set(DCN_PACKAGE_FILE_NAME "custom_opp_${DCN_SYSTEM_INFO}.run")

message(STATUS "ascend_dcn: compute units '${ASCEND_COMPUTE_UNIT}', vendor '${vendor_name}', "
               "package ${DCN_PACKAGE_FILE_NAME}, build type ${CMAKE_BUILD_TYPE}")

# Twin build of CANN-style operator packages (twin host side, issue 3).
#
# twin_add_op_package(NAME <name> OP_HOST_SRCS <files...> OP_KERNEL_SRCS <files...> [OUTPUT_DIR <dir>])
#   <name>_op_host     STATIC  op_host sources (OpDef, TilingFunc, infer functions), twin headers only
#   <name>_opbuild     EXE     twin/tools/opbuild.cpp + the whole op_host library + twin_host
#   (custom command)           runs <name>_opbuild -> OUTPUT_DIR/aclnn_<op>.{h,cpp}, twin_tiling_<op>.h,
#                              twin_kernel_reg_<op>.cpp for every OP_ADD(<OpType>) found in OP_HOST_SRCS
#   <name>_cust_opapi  SHARED  OUTPUT_NAME cust_opapi, in ${CMAKE_BINARY_DIR}/<name>_opapi/: generated
#                              aclnn layer + kernel registration + whole op_host + op_kernel (compiled with
#                              -include twin_tiling_<op>.h, as CANN force-includes its generated tiling
#                              header), linked to twin_nnopbase (libnnopbase.so); RPATH $ORIGIN.
#   The generated header directory is a PUBLIC include directory of <name>_cust_opapi.
# The cust_opapi library is only built when the twin kernel runtime (twin/src/kernel) exists.
include_guard(GLOBAL)

set(TWIN_OPBUILD_SOURCE ${PROJECT_SOURCE_DIR}/twin/tools/opbuild.cpp)

function(twin_add_op_package)
  cmake_parse_arguments(ARG "" "NAME;OUTPUT_DIR" "OP_HOST_SRCS;OP_KERNEL_SRCS" ${ARGN})
  if(NOT ARG_NAME OR NOT ARG_OP_HOST_SRCS OR NOT ARG_OP_KERNEL_SRCS)
    message(FATAL_ERROR "twin_add_op_package: NAME, OP_HOST_SRCS and OP_KERNEL_SRCS are required")
  endif()
  set(name ${ARG_NAME})
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR ${CMAKE_BINARY_DIR}/${name}_autogen)
  endif()
  file(MAKE_DIRECTORY ${ARG_OUTPUT_DIR})

  # OpTypes from the OP_ADD(<OpType>) lines; file stems by opbuild's snake rule.
  set(op_types "")
  foreach(src IN LISTS ARG_OP_HOST_SRCS)
    file(STRINGS ${src} lines REGEX "^[ \t]*OP_ADD\\([A-Za-z0-9_]+")
    foreach(line IN LISTS lines)
      string(REGEX MATCH "OP_ADD\\(([A-Za-z0-9_]+)" _ "${line}")
      list(APPEND op_types ${CMAKE_MATCH_1})
    endforeach()
  endforeach()
  if(NOT op_types)
    message(FATAL_ERROR "twin_add_op_package(${name}): no OP_ADD(<OpType>) in OP_HOST_SRCS")
  endif()
  set(generated_srcs "")
  set(generated_hdrs "")
  set(tiling_headers "")
  foreach(op IN LISTS op_types)
    string(REGEX REPLACE "([a-z0-9])([A-Z])" "\\1_\\2" snake "${op}")
    string(TOLOWER "${snake}" snake)
    list(APPEND generated_srcs ${ARG_OUTPUT_DIR}/aclnn_${snake}.cpp ${ARG_OUTPUT_DIR}/twin_kernel_reg_${snake}.cpp)
    list(APPEND generated_hdrs ${ARG_OUTPUT_DIR}/aclnn_${snake}.h ${ARG_OUTPUT_DIR}/twin_tiling_${snake}.h)
    list(APPEND tiling_headers ${ARG_OUTPUT_DIR}/twin_tiling_${snake}.h)
  endforeach()
  string(REPLACE ";" "," op_list "${op_types}")

  set(host_dirs "")
  foreach(src IN LISTS ARG_OP_HOST_SRCS)
    get_filename_component(d ${src} DIRECTORY)
    list(APPEND host_dirs ${d})
  endforeach()
  list(REMOVE_DUPLICATES host_dirs)
  set(kernel_dirs "")
  set(kernel_args "")
  foreach(src IN LISTS ARG_OP_KERNEL_SRCS)
    get_filename_component(d ${src} DIRECTORY)
    list(APPEND kernel_dirs ${d})
    list(APPEND kernel_args --kernel-src ${src})
  endforeach()
  list(REMOVE_DUPLICATES kernel_dirs)

  add_library(${name}_op_host STATIC ${ARG_OP_HOST_SRCS})
  target_include_directories(${name}_op_host PUBLIC ${host_dirs} ${kernel_dirs} ${PROJECT_SOURCE_DIR}/twin/include)
  target_compile_options(${name}_op_host PRIVATE ${ASCEND_DCN_WARN})

  add_executable(${name}_opbuild ${TWIN_OPBUILD_SOURCE})
  target_compile_options(${name}_opbuild PRIVATE ${ASCEND_DCN_WARN})
  target_link_libraries(${name}_opbuild PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${name}_op_host>" twin_host twin_kernel)

  add_custom_command(
    OUTPUT ${generated_srcs} ${generated_hdrs}
    COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0
            $<TARGET_FILE:${name}_opbuild> --out ${ARG_OUTPUT_DIR} --ops ${op_list} ${kernel_args}
    DEPENDS ${name}_opbuild ${ARG_OP_KERNEL_SRCS}
    COMMENT "twin opbuild: ${op_list}"
    VERBATIM)
  add_custom_target(${name}_autogen DEPENDS ${generated_srcs} ${generated_hdrs})

  get_target_property(kernel_kind twin_kernel TYPE)
  if(kernel_kind STREQUAL "INTERFACE_LIBRARY")
    message(STATUS "twin_add_op_package(${name}): twin kernel runtime not built yet; only the autogen step is available")
    return()
  endif()

  add_library(${name}_cust_opapi SHARED ${generated_srcs} ${ARG_OP_KERNEL_SRCS})
  add_dependencies(${name}_cust_opapi ${name}_autogen)
  set_target_properties(${name}_cust_opapi PROPERTIES
    OUTPUT_NAME cust_opapi
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/${name}_opapi
    BUILD_RPATH "$ORIGIN;$<TARGET_FILE_DIR:twin_nnopbase>"
    INSTALL_RPATH "$ORIGIN")
  target_include_directories(${name}_cust_opapi PUBLIC ${ARG_OUTPUT_DIR} PRIVATE ${kernel_dirs})
  target_compile_options(${name}_cust_opapi PRIVATE ${ASCEND_DCN_WARN})
  # Each kernel source gets the generated tiling header of its op (file stem = op snake name, as CANN
  # derives op_kernel/<op_snake>.cpp from the OpType); a source matching no op gets all of them.
  foreach(src IN LISTS ARG_OP_KERNEL_SRCS)
    get_filename_component(stem ${src} NAME_WE)
    set(mine "")
    foreach(h IN LISTS tiling_headers)
      if(h MATCHES "/twin_tiling_${stem}\\.h$")
        list(APPEND mine ${h})
      endif()
    endforeach()
    if(NOT mine)
      set(mine ${tiling_headers})
    endif()
    # -g: kernel call sites of the synchronisation calls resolve to source lines (addr2line -i on the
    # frames TWIN_SYNC_SITES lists; tests/python/test_sync_mutations.py). Debug info only, same code.
    set(includes "-g")
    foreach(h IN LISTS mine)
      list(APPEND includes -include ${h})
    endforeach()
    set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "${includes}" OBJECT_DEPENDS "${mine}")
  endforeach()
  target_link_libraries(${name}_cust_opapi PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,${name}_op_host>"
                        PUBLIC twin_nnopbase)
endfunction()

# The real operator: dcn_op_host, dcn_opbuild, dcn_cust_opapi (libcust_opapi.so).
if(EXISTS ${PROJECT_SOURCE_DIR}/op_host/deformable_conv2d_backward_def.cpp)
  file(GLOB DCN_OP_HOST_SRCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/op_host/*.cpp)
  twin_add_op_package(NAME dcn
    OP_HOST_SRCS ${DCN_OP_HOST_SRCS}
    OP_KERNEL_SRCS ${PROJECT_SOURCE_DIR}/op_kernel/deformable_conv2d_backward.cpp)
  if(TARGET dcn_cust_opapi AND ASCEND_DCN_PYTHON)
    install(TARGETS twin_nnopbase dcn_cust_opapi LIBRARY DESTINATION ascend_dcn/twin_lib)
  endif()
endif()

# The toy operator of the twin's own tests (tests/twin/host/toy_op) and the aclnn end-to-end tests.
if(ASCEND_DCN_TESTS AND EXISTS ${PROJECT_SOURCE_DIR}/tests/twin/host/toy_op/op_host/toy_add_custom.cpp)
  set(TOY_DIR ${PROJECT_SOURCE_DIR}/tests/twin/host/toy_op)
  twin_add_op_package(NAME toy
    OP_HOST_SRCS ${TOY_DIR}/op_host/toy_add_custom.cpp ${TOY_DIR}/op_host/toy_scale_by_tensor.cpp
    OP_KERNEL_SRCS ${TOY_DIR}/op_kernel/toy_add_custom.cpp ${TOY_DIR}/op_kernel/toy_scale_by_tensor.cpp)
  # The opbuild refuses an OpType the op_host does not register, and an OP_ADD missing from --ops.
  add_test(NAME twin_opbuild_unknown_op
           COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0 $<TARGET_FILE:toy_opbuild>
                   --out ${CMAKE_BINARY_DIR}/toy_opbuild_neg --ops ToyAddCustom,ToyScaleByTensor,NoSuchOp)
  set_tests_properties(twin_opbuild_unknown_op PROPERTIES WILL_FAIL TRUE)
  add_test(NAME twin_opbuild_unknown_op_message
           COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0 $<TARGET_FILE:toy_opbuild>
                   --out ${CMAKE_BINARY_DIR}/toy_opbuild_neg --ops ToyAddCustom,ToyScaleByTensor,NoSuchOp)
  set_tests_properties(twin_opbuild_unknown_op_message PROPERTIES
                       PASS_REGULAR_EXPRESSION "OpType NoSuchOp is not registered by the op_host sources")
  add_test(NAME twin_opbuild_unlisted_op_message
           COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0 $<TARGET_FILE:toy_opbuild>
                   --out ${CMAKE_BINARY_DIR}/toy_opbuild_neg --ops OtherOp)
  set_tests_properties(twin_opbuild_unlisted_op_message PROPERTIES
                       PASS_REGULAR_EXPRESSION "OP_ADD\\(ToyAddCustom\\) is not in --ops")
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/toy_opbuild_neg)
  if(TARGET toy_cust_opapi)
    file(GLOB TWIN_ACLNN_TESTS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/twin/host/test_aclnn_*.cpp)
    foreach(t IN LISTS TWIN_ACLNN_TESTS)
      get_filename_component(tname ${t} NAME_WE)
      add_executable(twin_${tname} ${t})
      target_include_directories(twin_${tname} PRIVATE ${PROJECT_SOURCE_DIR}/tests/twin)
      target_compile_options(twin_${tname} PRIVATE ${ASCEND_DCN_WARN})
      target_link_libraries(twin_${tname} PRIVATE toy_cust_opapi twin_nnopbase)
      ascend_dcn_gtest(twin_${tname} twin_${tname})
    endforeach()
  endif()
endif()

# Tiling unit test of the real operator: the pure plan of op_host against a table of shapes x platforms.
if(ASCEND_DCN_TESTS AND TARGET dcn_op_host AND EXISTS ${PROJECT_SOURCE_DIR}/tests/op_host/test_tiling_plan.cpp)
  add_executable(dcn_test_tiling_plan ${PROJECT_SOURCE_DIR}/tests/op_host/test_tiling_plan.cpp
                 ${PROJECT_SOURCE_DIR}/op_host/deformable_conv2d_backward_tiling_plan.cpp
                 ${PROJECT_SOURCE_DIR}/op_host/deformable_conv2d_backward_matmul_l1.cpp)
  target_include_directories(dcn_test_tiling_plan PRIVATE ${PROJECT_SOURCE_DIR}/tests/twin ${PROJECT_SOURCE_DIR}/op_host)
  target_compile_options(dcn_test_tiling_plan PRIVATE ${ASCEND_DCN_WARN})
  ascend_dcn_gtest(dcn_test_tiling_plan dcn_tiling_plan)
endif()
# The stage-1 Matmul L1 plan of op_host against a replay of the Norm scheduler's loads.
if(ASCEND_DCN_TESTS AND TARGET dcn_op_host AND EXISTS ${PROJECT_SOURCE_DIR}/tests/op_host/test_matmul_l1.cpp)
  add_executable(dcn_test_matmul_l1 ${PROJECT_SOURCE_DIR}/tests/op_host/test_matmul_l1.cpp
                 ${PROJECT_SOURCE_DIR}/op_host/deformable_conv2d_backward_matmul_l1.cpp)
  target_include_directories(dcn_test_matmul_l1 PRIVATE ${PROJECT_SOURCE_DIR}/op_host)
  target_compile_options(dcn_test_matmul_l1 PRIVATE ${ASCEND_DCN_WARN})
  ascend_dcn_gtest(dcn_test_matmul_l1 dcn_matmul_l1)
endif()

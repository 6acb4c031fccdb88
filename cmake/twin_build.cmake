# CPU-twin build: the operator's own sources compiled with the system compiler against the
# stand-in CANN headers in twin/include. Never used on Ascend hosts; nothing here is packaged.
enable_testing()
find_package(Threads REQUIRED)

set(ASCEND_DCN_WARN -Wall -Wextra -Werror)
if(ASCEND_DCN_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
# ThreadSanitizer: data races between the pool threads that run the virtual cores (ucontext fibers,
# announced to TSan in core_scheduler.cpp). Cannot be combined with ASan.
if(ASCEND_DCN_TSAN)
  if(ASCEND_DCN_SANITIZE)
    message(FATAL_ERROR "ASCEND_DCN_TSAN and ASCEND_DCN_SANITIZE are mutually exclusive")
  endif()
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()

add_subdirectory(twin)

# The operator on the twin: op_host library, twin opbuild (generated aclnn layer),
# libcust_opapi (twin), kernel, example. Owned by cmake/twin_op.cmake.
if(EXISTS ${PROJECT_SOURCE_DIR}/cmake/twin_op.cmake)
  include(${PROJECT_SOURCE_DIR}/cmake/twin_op.cmake)
endif()

# The Python extension ascend_dcn._C (pybind11).
if(ASCEND_DCN_PYTHON AND EXISTS ${PROJECT_SOURCE_DIR}/python/ascend_dcn/csrc/extension.cmake)
  include(${PROJECT_SOURCE_DIR}/python/ascend_dcn/csrc/extension.cmake)
endif()

# The C++ aclnn example (examples/), built and run as a test against the twin.
if(EXISTS ${PROJECT_SOURCE_DIR}/examples/CMakeLists.txt AND TARGET dcn_cust_opapi)
  add_subdirectory(examples)
endif()

# CPU-twin build: the operator's own sources compiled with the system compiler against the
# stand-in CANN headers in twin/include. Never used on Ascend hosts; nothing here is packaged.
enable_testing()
find_package(Threads REQUIRED)

set(ASCEND_DCN_WARN -Wall -Wextra -Werror)
# The twin's shared libraries (libnnopbase, libcust_opapi, the extension) call their own functions
# directly: the per-instruction helpers inlined from twin/include that the compiler emits out of line
# (LocalTensor::operator[], UbCheckRead, ...) bind inside the library at link time instead of going
# through the PLT, and global functions may be inlined within their translation unit. Nothing in the
# twin relies on interposing a function of these libraries (data symbols are unaffected).
add_compile_options(-fno-semantic-interposition)
string(APPEND CMAKE_SHARED_LINKER_FLAGS " -Wl,-Bsymbolic-functions")
string(APPEND CMAKE_MODULE_LINKER_FLAGS " -Wl,-Bsymbolic-functions")
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
# Sanitizer builds keep line tables only (-g1; the kernel sources keep their own -g, see
# twin_op.cmake): reports stay symbolized with file:line, and the two build trees of
# scripts/test_all.sh take about half the disk (ASan 624 -> 318 MB; a CI machine ran out of disk).
if(ASCEND_DCN_SANITIZE OR ASCEND_DCN_TSAN)
  add_compile_options(-g1)
endif()

# C++ tests: GoogleTest (Debian libgtest-dev, installed by scripts/setup_env.sh). Every TEST of a test
# executable is its own ctest test named <prefix>.<Suite>.<name> (gtest_discover_tests), so ctest -R
# filters single tests, and each runs in its own process and writes a JUnit-style XML report to
# <build>/gtest-xml/.
if(ASCEND_DCN_TESTS)
  find_package(GTest)
  if(NOT TARGET GTest::gtest_main)
    message(FATAL_ERROR "ascend_dcn: GoogleTest not found (C++ tests are ON). Install it with "
                        "`bash scripts/setup_env.sh` (Debian: apt-get install libgtest-dev), or configure "
                        "with -DASCEND_DCN_TESTS=OFF")
  endif()
  include(GoogleTest)
endif()
# ascend_dcn_gtest(<target> <prefix> [gtest_discover_tests options...]): links GoogleTest's main and
# registers every TEST of <target> with ctest as <prefix>.<Suite>.<name>.
function(ascend_dcn_gtest target prefix)
  target_link_libraries(${target} PRIVATE GTest::gtest_main)
  gtest_discover_tests(${target} TEST_PREFIX "${prefix}." DISCOVERY_TIMEOUT 60
                       XML_OUTPUT_DIR ${CMAKE_BINARY_DIR}/gtest-xml ${ARGN})
endfunction()

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

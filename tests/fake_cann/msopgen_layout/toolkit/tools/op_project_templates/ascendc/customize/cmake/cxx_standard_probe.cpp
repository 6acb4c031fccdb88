// Fake template probe (tests only): stands in for the project's op_host sources, which are C++17.
static_assert(__cplusplus >= 201703L, "op_host is C++17: it must be compiled with -std=c++17");
extern "C" int fake_cxx_standard_probe() { return 0; }

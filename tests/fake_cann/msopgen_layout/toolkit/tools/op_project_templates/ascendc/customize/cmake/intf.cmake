# Fake template compile interface (tests only): like the 8.x template, C++ is requested as C++11.
add_library(intf_pub INTERFACE)
target_compile_options(intf_pub INTERFACE -fPIC $<$<COMPILE_LANGUAGE:CXX>:-std=c++11>)

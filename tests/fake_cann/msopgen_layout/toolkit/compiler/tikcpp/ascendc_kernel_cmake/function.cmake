# Fake toolkit (tests only): the kernel cmake directory of an 8.1-like toolkit holds helper modules
# but no asc-config.cmake with npu_op_package, so build.sh must take the msOpGen route.

#!/usr/bin/env bash
# Sets up the environment and runs every test: the format check of changed C/C++ lines
# (scripts/check_format.sh), the C++ twin tests (AddressSanitizer + UBSan build, via ctest), the
# same tests again under ThreadSanitizer (build-tsan; includes the aclnn example operator run and a
# canary that must be reported as a race) and the Python suite (pytest). NPU-only tests skip with
# their reason here.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh
export PATH="$PWD/.venv/bin:$PATH"
bash scripts/check_format.sh
cmake -S . -B build-asan -G Ninja -DASCEND_DCN_TWIN=ON -DASCEND_DCN_SANITIZE=ON \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-asan -j2
ctest --test-dir build-asan --output-on-failure
cmake -S . -B build-tsan -G Ninja -DASCEND_DCN_TWIN=ON -DASCEND_DCN_TSAN=ON \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-tsan -j2
TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}" ctest --test-dir build-tsan --output-on-failure
# A short Python operator run on the TSan-built twin libraries (libtsan preloaded into python; the
# extension itself is the installed one, it only dlopens the twin).
tsan_cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' build-tsan/CMakeCache.txt)
TWIN_THREADS=4 ASCEND_DCN_TWIN_LIB_DIR="$PWD/build-tsan" LD_PRELOAD="$("$tsan_cxx" -print-file-name=libtsan.so)" \
  TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}" python tests/twin/tsan/python_operator_run.py
python -m pytest -q tests

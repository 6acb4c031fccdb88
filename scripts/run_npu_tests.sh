#!/usr/bin/env bash
# Runs the Ascend-host tests (tests/npu/) against the installed ascend_dcn operator package.
#
#   bash scripts/run_npu_tests.sh [--install-path=DIR] [--full-suite] [--device=N] [pytest args...]
#
# Prerequisites on the host (see docs/ascend-host.md): CANN toolkit + driver, torch and the matching
# torch_npu in the Python used here, the ascend_dcn Python package (pip install --no-build-isolation .),
# and the operator package built and installed (bash build.sh; build_out/custom_opp_*.run
# --install-path=DIR). The script sources CANN's set_env.sh when ASCEND_HOME_PATH is unset, and
# DIR/vendors/ascend_dcn/bin/set_env.bash when --install-path is given.
#   --full-suite   also run the full-size benchmark rows (landscape.md §5; slow reference on CPU)
#   --device=N     NPU index (default 0)
# Python: $PYTHON, else .venv/bin/python, else python3.
set -euo pipefail
cd "$(dirname "$0")/.."

pytest_args=()
for arg in "$@"; do
  case "${arg}" in
    --install-path=*)
      vendor_env="${arg#--install-path=}/vendors/ascend_dcn/bin/set_env.bash"
      if [ ! -f "${vendor_env}" ]; then
        echo "run_npu_tests.sh: ${vendor_env} not found; install the package with --install-path first" >&2
        exit 2
      fi
      # shellcheck disable=SC1090  # path known at run time
      source "${vendor_env}"
      ;;
    --full-suite) export ASCEND_DCN_NPU_FULL_SUITE=1 ;;
    --device=*) export ASCEND_DCN_TEST_DEVICE="${arg#--device=}" ;;
    *) pytest_args+=("${arg}") ;;
  esac
done

if [ -z "${ASCEND_HOME_PATH:-}" ]; then
  for env_script in /usr/local/Ascend/ascend-toolkit/set_env.sh /usr/local/Ascend/cann/set_env.sh; do
    if [ -f "${env_script}" ]; then
      set +u
      # shellcheck disable=SC1090  # CANN's environment script
      source "${env_script}"
      set -u
      break
    fi
  done
fi

python="${PYTHON:-}"
if [ -z "${python}" ]; then
  if [ -x .venv/bin/python ]; then python=.venv/bin/python; else python=python3; fi
fi
if ! "${python}" -c "import ascend_dcn" 2>/dev/null; then
  echo "run_npu_tests.sh: ascend_dcn is not installed for ${python}; using the source tree (no _C: install it with pip install --no-build-isolation .)" >&2
  export PYTHONPATH="${PWD}/python${PYTHONPATH:+:${PYTHONPATH}}"
fi
"${python}" - <<'PY'
import json
from ascend_dcn import npu
info = npu.backend_info()
print(json.dumps({k: info[k] for k in ("selected_backend", "torch_npu", "soc", "vendor_package", "cann_include", "bound_library")}, indent=1))
for problem in info["problems"]:
    print("problem:", problem)
PY
exec "${python}" -m pytest -v -rs tests/npu "${pytest_args[@]+"${pytest_args[@]}"}"

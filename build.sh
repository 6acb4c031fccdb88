#!/usr/bin/env bash
# Build entry of the ascend_dcn operator package (msOpGen convention).
#
#   bash build.sh [--cann-path=DIR] [-j N] [-DVAR=VALUE...]
#                                            Ascend host: configure with the CMakePresets.json preset
#                                            "default" (+ the -D overrides), compile op_host + op_kernel
#                                            for ascend910b;ascend910_93 and pack
#                                            build_out/custom_opp_<os>_<arch>.run
#   bash build.sh --twin [-j N]              any machine: build the operator on the CPU twin and run
#                                            the C++ tests (ctest) in build-twin/
#   bash build.sh --help
#
# CANN is looked up like cmake/find_cann.cmake does: --cann-path, $ASCEND_CANN_PACKAGE_PATH,
# $ASCEND_HOME_PATH, /usr/local/Ascend/ascend-toolkit/latest, /usr/local/Ascend/cann. A directory
# counts when it has tools/tikcpp/ascendc_kernel_cmake or compiler/ccec_compiler.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jobs=2
mode="cann"
cann_path=""
cmake_defs=()

usage() {
  sed -n '2,15p' "${root}/build.sh" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
  case "$1" in
    --twin) mode="twin" ;;
    --cann-path=*) cann_path="${1#--cann-path=}" ;;
    -j) shift; jobs="${1:?-j needs a number}" ;;
    -j*) jobs="${1#-j}" ;;
    -D*) cmake_defs+=("$1") ;;
    -h|--help) usage; exit 0 ;;
    *) echo "build.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case "${jobs}" in
  ''|*[!0-9]*) echo "build.sh: -j expects a positive number; got '${jobs}'" >&2; exit 2 ;;
esac

is_cann() {
  [ -n "$1" ] && { [ -d "$1/tools/tikcpp/ascendc_kernel_cmake" ] || [ -d "$1/compiler/ccec_compiler" ]; }
}

if [ "${mode}" = "twin" ]; then
  generator=()
  if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
  cmake -S "${root}" -B "${root}/build-twin" "${generator[@]+"${generator[@]}"}" \
        -DASCEND_DCN_TWIN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
  cmake --build "${root}/build-twin" -j "${jobs}"
  ctest --test-dir "${root}/build-twin" --output-on-failure
  echo "build.sh: CPU twin build and C++ tests passed (full suite incl. Python: bash scripts/test_all.sh)"
  exit 0
fi

found=""
for candidate in "${cann_path}" "${ASCEND_CANN_PACKAGE_PATH:-}" "${ASCEND_HOME_PATH:-}" \
                 /usr/local/Ascend/ascend-toolkit/latest /usr/local/Ascend/cann; do
  if is_cann "${candidate}"; then found="${candidate}"; break; fi
done
if [ -z "${found}" ]; then
  if [ -n "${cann_path}" ]; then
    echo "build.sh: --cann-path=${cann_path} is not a CANN toolkit (no tools/tikcpp/ascendc_kernel_cmake or compiler/ccec_compiler)." >&2
  fi
  cat >&2 <<'MSG'
build.sh: no CANN toolkit found, so the Ascend operator package cannot be built here.
  To build the .run package on an Ascend host, install the CANN toolkit (with the AscendC
  operator-project cmake modules; see docs/ascend-host.md for versions) and then either
    source /usr/local/Ascend/ascend-toolkit/set_env.sh     (sets ASCEND_HOME_PATH), or
    export ASCEND_CANN_PACKAGE_PATH=<CANN install root>, or
    bash build.sh --cann-path=<CANN install root>
  Without an NPU, build and test the operator on the CPU twin instead:
    bash build.sh --twin            (C++ twin build + ctest)
    bash scripts/test_all.sh        (everything, incl. the Python suite)
MSG
  exit 2
fi
found="$(cd "${found}" && pwd)"
echo "build.sh: using CANN at ${found}"

build_dir="${root}/build_out"
rm -rf "${build_dir}"
cmake_version="$(cmake --version | sed -n 's/^cmake version \([0-9.]*\).*/\1/p')"
if [ "$(printf '%s\n%s\n' "3.19.0" "${cmake_version}" | sort -V | head -n 1)" = "3.19.0" ]; then
  (cd "${root}" && cmake --preset=default -DASCEND_CANN_PACKAGE_PATH="${found}" \
                  "${cmake_defs[@]+"${cmake_defs[@]}"}")
else
  # CMake < 3.19 has no presets: turn the preset's cacheVariables into -D options.
  mapfile -t preset_args < <(python3 - "${root}/CMakePresets.json" "${root}" <<'PY'
import json, sys
preset = json.load(open(sys.argv[1]))["configurePresets"][0]
for key, entry in preset["cacheVariables"].items():
    value = entry["value"] if isinstance(entry, dict) else entry
    print("-D%s=%s" % (key, str(value).replace("${sourceDir}", sys.argv[2])))
PY
)
  cmake -S "${root}" -B "${build_dir}" "${preset_args[@]}" -DASCEND_CANN_PACKAGE_PATH="${found}" \
        "${cmake_defs[@]+"${cmake_defs[@]}"}"
fi

cmake --build "${build_dir}" -j "${jobs}"
# opp_package depends on CANN's `binary` target (kernel binaries per compute unit), then packs.
cmake --build "${build_dir}" --target opp_package -j "${jobs}"
run_file="$(ls "${build_dir}"/custom_opp_*.run)"
echo "build.sh: package ready: ${run_file}"
echo "build.sh: install with: ${run_file} --install-path=<abs dir>   (then source <dir>/vendors/ascend_dcn/bin/set_env.bash)"

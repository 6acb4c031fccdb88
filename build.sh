#!/usr/bin/env bash
# Build entry of the ascend_dcn operator package.
#
#   bash build.sh [--cann-path=DIR] [--route=auto|npu_op|msopgen] [-j N] [-DVAR=VALUE...]
#                                            Ascend host: compile op_host + op_kernel for
#                                            ascend910b;ascend910_93 and pack
#                                            build_out/custom_opp_<os>_<arch>.run
#   bash build.sh --twin [-j N]              any machine: build the operator on the CPU twin and run
#                                            the C++ tests (ctest) in build-twin/
#   bash build.sh --help
#
# The toolkit is the one CANN's set_env.sh describes: $ASCEND_HOME_PATH (or $ASCEND_TOOLKIT_HOME)
# after `source <cann>/set_env.sh`. --cann-path=DIR (or $ASCEND_CANN_PACKAGE_PATH, or the default
# /usr/local/Ascend/ascend-toolkit/latest, /usr/local/Ascend/cann when nothing is sourced) is the same
# as sourcing DIR's own set_env.sh (DIR/set_env.sh or DIR/../set_env.sh) first: this script sources it,
# for configure and build alike, after dropping the variables of any toolkit sourced before.
# Routes (same package either way: vendor tree, units, framework plugin, installer, uninstaller):
#   npu_op   CANN's AscendC operator-project cmake modules (npu_op_package & co. in
#            compiler/tikcpp/ascendc_kernel_cmake): cmake/cann_build.cmake
#   msopgen  toolkits without them (8.x before 8.5): the toolkit's own msOpGen project, generated
#            at build time by its msopgen (python/site-packages/bin): cmake/cann/msopgen_route.sh
#   auto     (default) npu_op where the toolkit ships those modules, else msopgen.
# -j defaults to the number of cores (nproc), as CANN's template build.sh does.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jobs="$(nproc 2>/dev/null || echo 2)"
mode="cann"
route="auto"
cann_path=""
cann_path_given="n"
cmake_defs=()

usage() {
  sed -n '2,23p' "${root}/build.sh" | sed 's/^# \{0,1\}//'
}
die() { echo "build.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --twin) mode="twin" ;;
    --cann-path=*) cann_path="${1#--cann-path=}"; cann_path_given="y"
                   [ -n "${cann_path}" ] || die "--cann-path= needs a directory" ;;
    --route=*) route="${1#--route=}" ;;
    -j) shift; jobs="${1:?-j needs a number}" ;;
    -j*) jobs="${1#-j}" ;;
    -D*) cmake_defs+=("$1") ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
case "${jobs}" in
  ''|*[!0-9]*|0) die "-j expects a positive number; got '${jobs}'" ;;
esac
case "${route}" in
  auto|npu_op|msopgen) ;;
  *) die "--route=${route}: expected auto, npu_op or msopgen" ;;
esac

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

# ------------------------------------------------------------------------------ the toolkit
is_cann() {
  [ -n "$1" ] && [ -d "$1" ] && {
    [ -d "$1/compiler/tikcpp/ascendc_kernel_cmake" ] || [ -d "$1/tools/tikcpp/ascendc_kernel_cmake" ] ||
    [ -d "$1/compiler/ccec_compiler" ] || [ -x "$1/python/site-packages/bin/msopgen" ]; }
}

no_cann_found() {
  cat >&2 <<'MSG'
build.sh: no CANN toolkit found, so the Ascend operator package cannot be built here.
  To build the .run package on an Ascend host, install the CANN toolkit (see docs/ascend-host.md for
  versions) and then either
    source /usr/local/Ascend/ascend-toolkit/set_env.sh     (sets ASCEND_HOME_PATH), or
    export ASCEND_CANN_PACKAGE_PATH=<CANN install root>, or
    bash build.sh --cann-path=<CANN install root>
  Without an NPU, build and test the operator on the CPU twin instead:
    bash build.sh --twin            (C++ twin build + ctest)
    bash scripts/test_all.sh        (everything, incl. the Python suite)
MSG
  exit 2
}

# strip_toolkit_entries VAR DIR: drop the entries under DIR from the ':'-list in $VAR.
strip_toolkit_entries() {
  local var=$1 dir=$2 kept="" entry
  local IFS=:
  for entry in ${!var:-}; do
    case "${entry}" in "${dir}"|"${dir}"/*) continue ;; esac
    kept="${kept:+${kept}:}${entry}"
  done
  export "${var}=${kept}"
}

# use_toolkit DIR: make DIR the toolkit of this build exactly as `source DIR's set_env.sh` does.
use_toolkit() {
  local dir=$1 old setenv="" candidate
  dir="$(cd "${dir}" && pwd)"
  for old in "${ASCEND_HOME_PATH:-}" "${ASCEND_TOOLKIT_HOME:-}"; do
    if [ -n "${old}" ] && [ -d "${old}" ] && [ "$(cd "${old}" && pwd -P)" != "$(cd "${dir}" && pwd -P)" ]; then
      # set_env.sh puts <toolkit>/bin, <toolkit>/lib64, <toolkit>/python/... on these lists
      for v in PATH LD_LIBRARY_PATH PYTHONPATH; do
        strip_toolkit_entries "${v}" "${old%/}"
        strip_toolkit_entries "${v}" "$(cd "${old}" && pwd -P)"
      done
    fi
  done
  unset ASCEND_HOME_PATH ASCEND_TOOLKIT_HOME ASCEND_OPP_PATH ASCEND_AICPU_PATH TOOLCHAIN_HOME \
        ASCEND_CANN_PACKAGE_PATH
  for candidate in "${dir}/set_env.sh" "${dir}/../set_env.sh"; do
    if [ -f "${candidate}" ]; then setenv="$(cd "$(dirname "${candidate}")" && pwd)/set_env.sh"; break; fi
  done
  if [ -n "${setenv}" ]; then
    set +eu
    # shellcheck disable=SC1090  # the toolkit's own script
    source "${setenv}" >/dev/null
    set -eu
    local described="${ASCEND_HOME_PATH:-${ASCEND_TOOLKIT_HOME:-}}"
    if [ -z "${described}" ] || [ ! -d "${described}" ] ||
       [ "$(cd "${described}" && pwd -P)" != "$(cd "${dir}" && pwd -P)" ]; then
      die "${setenv} describes the toolkit '${described}', not ${dir}; pass --cann-path=<the toolkit it describes> or fix that installation"
    fi
    export ASCEND_HOME_PATH="${described}"
    toolkit_env="sourced ${setenv}"
  else
    # No set_env.sh beside it: set what CANN's set_env.sh sets.
    export ASCEND_TOOLKIT_HOME="${dir}" ASCEND_HOME_PATH="${dir}" ASCEND_AICPU_PATH="${dir}" \
           ASCEND_OPP_PATH="${dir}/opp" TOOLCHAIN_HOME="${dir}/toolkit"
    export PATH="${dir}/bin:${dir}/compiler/ccec_compiler/bin:${dir}/tools/ccec_compiler/bin:${PATH}"
    export LD_LIBRARY_PATH="${dir}/lib64${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}"
    export PYTHONPATH="${dir}/python/site-packages:${dir}/opp/built-in/op_impl/ai_core/tbe${PYTHONPATH:+:${PYTHONPATH}}"
    toolkit_env="no set_env.sh beside ${dir}: set its variables as set_env.sh does"
  fi
}

toolkit_env=""
if [ "${cann_path_given}" = "y" ]; then
  is_cann "${cann_path}" || {
    echo "build.sh: --cann-path=${cann_path} is not a CANN toolkit (no compiler/tikcpp/ascendc_kernel_cmake, tools/tikcpp/ascendc_kernel_cmake, compiler/ccec_compiler or python/site-packages/bin/msopgen)." >&2
    no_cann_found; }
  use_toolkit "${cann_path}"
elif is_cann "${ASCEND_HOME_PATH:-${ASCEND_TOOLKIT_HOME:-}}"; then
  export ASCEND_HOME_PATH="${ASCEND_HOME_PATH:-${ASCEND_TOOLKIT_HOME}}"
  toolkit_env="as sourced (ASCEND_HOME_PATH)"
else
  found=""
  for candidate in "${ASCEND_CANN_PACKAGE_PATH:-}" /usr/local/Ascend/ascend-toolkit/latest /usr/local/Ascend/cann; do
    if is_cann "${candidate}"; then found="${candidate}"; break; fi
  done
  [ -n "${found}" ] || no_cann_found
  use_toolkit "${found}"
fi
cann="$(cd "${ASCEND_HOME_PATH}" && pwd)"

cann_version() {
  local f v
  for f in "$1/toolkit/version.info" "$1/compiler/version.info" "$1/version.info"; do
    [ -f "${f}" ] || continue
    v="$(sed -n 's/^version_dir=//p' "${f}" | head -n 1)"
    [ -n "${v}" ] || v="$(sed -n 's/^Version=//p' "${f}" | head -n 1)"
    if [ -n "${v}" ]; then echo "${v}"; return; fi
  done
  basename "$(cd "$1" && pwd -P)"
}
version="$(cann_version "${cann}")"

npu_op_modules() {  # CANN's AscendC operator-project modules with npu_op_package
  local d
  for d in "${cann}/compiler/tikcpp/ascendc_kernel_cmake" "${cann}/tools/tikcpp/ascendc_kernel_cmake"; do
    if { [ -f "${d}/asc-config.cmake" ] || [ -f "${d}/ASCConfig.cmake" ]; } &&
       grep -rEqs 'function[[:space:]]*\([[:space:]]*npu_op_package([[:space:]]|\))' "${d}"; then
      return 0
    fi
  done
  return 1
}
find_msopgen() {
  if [ -x "${cann}/python/site-packages/bin/msopgen" ]; then echo "${cann}/python/site-packages/bin/msopgen"
  else command -v msopgen 2>/dev/null || true; fi
}

reason="forced by --route"
if [ "${route}" = "auto" ]; then
  if npu_op_modules; then
    route="npu_op"; reason="the toolkit ships the npu_op_* cmake modules"
  elif [ -n "$(find_msopgen)" ]; then
    route="msopgen"; reason="no npu_op_* cmake modules in this toolkit; its msOpGen project flow"
  else
    die "CANN ${version} at ${cann} has neither the AscendC operator-project cmake modules (compiler/tikcpp/ascendc_kernel_cmake with npu_op_package) nor msopgen (python/site-packages/bin/msopgen): install the CANN toolkit package completely"
  fi
fi
echo "build.sh: CANN ${version} at ${cann} (${toolkit_env})"
echo "build.sh: route ${route} (${reason}), -j ${jobs}"
package_info="ascend_dcn operator package, route ${route}, CANN ${version}"

build_dir="${root}/build_out"
rm -rf "${build_dir}"

if [ "${route}" = "msopgen" ]; then
  bash "${root}/cmake/cann/msopgen_route.sh" "${root}" "${jobs}" "${package_info}" \
       "${cmake_defs[@]+"${cmake_defs[@]}"}"
else
  cmake_version="$(cmake --version | sed -n 's/^cmake version \([0-9.]*\).*/\1/p')"
  defs=(-DASCEND_CANN_PACKAGE_PATH="${cann}" "-DDCN_PACKAGE_INFO=${package_info}"
        "${cmake_defs[@]+"${cmake_defs[@]}"}")
  if [ "$(printf '%s\n%s\n' "3.19.0" "${cmake_version}" | sort -V | head -n 1)" = "3.19.0" ]; then
    (cd "${root}" && cmake --preset=default "${defs[@]}")
  else
    # CMake < 3.19 has no presets: turn the preset's cacheVariables into -D options.
    mapfile -t preset_args < <(python3 "${root}/cmake/cann/preset_args.py" "${root}/CMakePresets.json" "${root}")
    cmake -S "${root}" -B "${build_dir}" "${preset_args[@]}" "${defs[@]}"
  fi
  cmake --build "${build_dir}" -j "${jobs}"
  # opp_package depends on CANN's `binary` target (kernel binaries per compute unit), then packs.
  cmake --build "${build_dir}" --target opp_package -j "${jobs}"
fi
run_file="$(ls "${build_dir}"/custom_opp_*.run)"
echo "build.sh: package ready: ${run_file} (route ${route}, CANN ${version})"
echo "build.sh: install with: ${run_file} --install-path=<abs dir>   (then source <dir>/vendors/ascend_dcn/bin/set_env.bash)"

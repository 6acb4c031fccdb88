#!/usr/bin/env bash
# Fallback build for CANN toolkits WITHOUT the AscendC operator-project cmake modules
# (compiler/tikcpp/ascendc_kernel_cmake/asc-config.cmake with npu_op_*), i.e. older releases.
# It follows the samples' route: let that toolkit's msOpGen generate a project (its own cmake/,
# scripts/, build.sh), drop our op_host/ and op_kernel/ sources into it, set the compute units and
# the vendor name, and run its build.sh. The resulting package uses that toolkit's installer.
#
#   bash cmake/cann/msopgen_build.sh --soc=<Ascend910B2|Ascend910_9392|...> [--out=DIR]
#
#   --soc   the -c ai_core-<soc> value of msopgen: `npu-smi info` chip name, e.g. Ascend910B2
#   --out   project directory to generate (default: build_out/msopgen_project; replaced)
# Needs `msopgen` on PATH (source <cann>/set_env.sh). Writes build_out/custom_opp_<os>_<arch>.run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
soc=""
out="${root}/build_out/msopgen_project"
for arg in "$@"; do
  case "${arg}" in
    --soc=*) soc="${arg#--soc=}" ;;
    --out=*) out="${arg#--out=}" ;;
    -h|--help) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "msopgen_build.sh: unknown argument '${arg}' (see --help)" >&2; exit 2 ;;
  esac
done
case "${soc}" in
  Ascend910B*|Ascend910_93*) ;;
  "") echo "msopgen_build.sh: --soc=<chip> is required, e.g. --soc=Ascend910B2 (see npu-smi info)" >&2; exit 2 ;;
  *) echo "msopgen_build.sh: --soc=${soc} is not an Atlas A2 (Ascend910B*) or A3 (Ascend910_93*) chip" >&2; exit 2 ;;
esac
command -v msopgen >/dev/null 2>&1 || {
  echo "msopgen_build.sh: msopgen not found on PATH; run: source <cann>/set_env.sh" >&2
  exit 2
}

rm -rf "${out}"
msopgen gen -i "${root}/cmake/cann/deformable_conv2d_backward.json" -c "ai_core-${soc}" -lan cpp -out "${out}"
for dir in op_host op_kernel; do
  [ -d "${out}/${dir}" ] || { echo "msopgen_build.sh: msopgen produced no ${dir}/ in ${out}" >&2; exit 1; }
  find "${out}/${dir}" -maxdepth 1 -type f \( -name '*.cpp' -o -name '*.h' \) -delete
  cp "${root}/${dir}"/*.cpp "${root}/${dir}"/*.h "${out}/${dir}/"
done

python3 - "${out}/CMakePresets.json" <<'PY'
import json, sys
path = sys.argv[1]
presets = json.load(open(path))
variables = presets["configurePresets"][0]["cacheVariables"]
def put(key, value, kind="STRING"):
    if isinstance(variables.get(key), dict):
        variables[key]["value"] = value
    else:
        variables[key] = {"type": kind, "value": value}
put("ASCEND_COMPUTE_UNIT", "ascend910b;ascend910_93")
put("vendor_name", "ascend_dcn")
put("ENABLE_BINARY_PACKAGE", "True", "BOOL")
json.dump(presets, open(path, "w"), indent=4)
PY

(cd "${out}" && bash build.sh)
mkdir -p "${root}/build_out"
cp "${out}"/build_out/custom_opp_*.run "${root}/build_out/"
echo "msopgen_build.sh: package ready in ${root}/build_out/ (built by msOpGen's project for ${soc})"

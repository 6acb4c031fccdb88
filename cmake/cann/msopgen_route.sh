#!/usr/bin/env bash
# The msOpGen route of build.sh, for toolkits without CANN's npu_op_* cmake modules (8.x before 8.5).
#
#   bash cmake/cann/msopgen_route.sh <project root> <jobs> <package info> [-DVAR=VALUE...]
#
# Runs with the toolkit's environment already set by build.sh (ASCEND_HOME_PATH, PATH, PYTHONPATH as
# its set_env.sh sets them). Steps:
#   1. the toolkit's msopgen (python/site-packages/bin/msopgen, else PATH) generates an operator project
#      from cmake/cann/deformable_conv2d_backward.json into build_out/msopgen_project: that toolkit's
#      own template (cmake/, scripts), nothing of it is kept in this repository;
#   2. our op_host/, op_kernel/ sources (and framework/tf_plugin's plugin source when
#      ASCEND_DCN_FRAMEWORK_PLUGIN is ON, else no framework/) replace the generated ones;
#   3. its CMakePresets.json gets our preset's values (units, vendor, build type, ...) and the -D options;
#   4. op_host is compiled as C++17: the template's -std=c++11 (opbuild's compile and intf_pub) is
#      replaced, and intf_pub gets -std=c++17 appended (the last -std wins);
#   5. configure, build the targets `binary` (kernels per unit) and `all` (host libraries, plugin,
#      version.info), and pack with cmake/cann/pack_run.cmake: the same installer, uninstaller and
#      .run header as the npu_op route -> build_out/custom_opp_<os>_<arch>.run.
set -euo pipefail

root=$1; jobs=$2; package_info=$3; shift 3
defs=("$@")
out="${root}/build_out"
proj="${out}/msopgen_project"
json="${root}/cmake/cann/deformable_conv2d_backward.json"

fail() { echo "msopgen route: $*" >&2; exit 1; }

msopgen="${ASCEND_HOME_PATH}/python/site-packages/bin/msopgen"
if [ ! -x "${msopgen}" ]; then
  msopgen="$(command -v msopgen 2>/dev/null || true)"
  [ -n "${msopgen}" ] || fail "msopgen not found: neither ${ASCEND_HOME_PATH}/python/site-packages/bin/msopgen nor on PATH"
fi

# Settings: our preset, then the -D options (the same ones the npu_op route gets).
settings="$(python3 - "${root}/CMakePresets.json" "${defs[@]+"${defs[@]}"}" <<'PY'
import json, re, sys
preset = next(p for p in json.load(open(sys.argv[1]))["configurePresets"] if p["name"] == "default")
values = {k: (v["value"] if isinstance(v, dict) else v) for k, v in preset["cacheVariables"].items()}
for d in sys.argv[2:]:
    key, _, value = d[2:].partition("=")
    values[key.split(":")[0]] = value
units = [u for u in str(values.get("ASCEND_COMPUTE_UNIT", "")).split(";") if u]
bad = [u for u in units if u not in ("ascend910b", "ascend910_93")]
if not units or bad:
    sys.exit("ASCEND_COMPUTE_UNIT: expected a subset of ascend910b;ascend910_93, got %r" % values.get("ASCEND_COMPUTE_UNIT"))
vendor = str(values.get("vendor_name", ""))
if not re.fullmatch(r"[A-Za-z0-9_]+", vendor) or vendor == "customize":
    sys.exit("vendor_name: must match [A-Za-z0-9_]+ and not be CANN's placeholder 'customize'; got %r" % vendor)
if str(values.get("ENABLE_BINARY_PACKAGE", "True")).upper() not in ("TRUE", "ON", "1"):
    sys.exit("ENABLE_BINARY_PACKAGE: must be True (aclnn calls need the kernel binaries)")
plugin = str(values.get("ASCEND_DCN_FRAMEWORK_PLUGIN", "OFF")).upper() in ("TRUE", "ON", "1", "YES")
print(vendor)
print("ON" if plugin else "OFF")
PY
)" || fail "invalid settings (see above)"
vendor="$(sed -n 1p <<< "${settings}")"
plugin="$(sed -n 2p <<< "${settings}")"

mkdir -p "${out}"
rm -rf "${proj}"
echo "msopgen route: ${msopgen} gen -i ${json} -f tf -c ai_core-ascend910b -lan cpp -out ${proj}"
"${msopgen}" gen -i "${json}" -f tf -c ai_core-ascend910b -lan cpp -out "${proj}" \
  || fail "msopgen could not generate the project"
for dir in op_host op_kernel; do
  [ -d "${proj}/${dir}" ] || fail "msopgen produced no ${dir}/ in ${proj}"
  find "${proj}/${dir}" -mindepth 1 -maxdepth 1 ! -name CMakeLists.txt -exec rm -rf {} +
  (cd "${root}/${dir}" && find . -mindepth 1 -maxdepth 1 ! -name CMakeLists.txt -exec cp -R {} "${proj}/${dir}/" \;)
done
if [ "${plugin}" = "ON" ]; then
  [ -d "${proj}/framework/tf_plugin" ] || fail "msopgen -f tf produced no framework/tf_plugin/"
  find "${proj}/framework/tf_plugin" -mindepth 1 -maxdepth 1 ! -name CMakeLists.txt -exec rm -rf {} +
  cp "${root}"/framework/tf_plugin/*.cc "${proj}/framework/tf_plugin/"
else
  rm -rf "${proj}/framework"
fi

python3 - "${proj}/CMakePresets.json" "${root}/CMakePresets.json" "${ASCEND_HOME_PATH}" <<'PY' || fail "cannot rewrite the generated CMakePresets.json"
import json, sys
gen_path, ours_path, cann = sys.argv[1:4]
gen = json.load(open(gen_path))
ours = next(p for p in json.load(open(ours_path))["configurePresets"] if p["name"] == "default")["cacheVariables"]
variables = gen["configurePresets"][0]["cacheVariables"]
for key in ("CMAKE_BUILD_TYPE", "ENABLE_SOURCE_PACKAGE", "ENABLE_BINARY_PACKAGE", "ASCEND_COMPUTE_UNIT",
            "vendor_name", "ASCEND_PYTHON_EXECUTABLE"):
    variables[key] = ours[key]
overrides = {"ASCEND_CANN_PACKAGE_PATH": ("PATH", cann), "ENABLE_TEST": ("BOOL", "False"),
             "ENABLE_CROSS_COMPILE": ("BOOL", "False"), "ASCEND_PACK_SHARED_LIBRARY": ("BOOL", "False")}
for key, (kind, value) in overrides.items():
    variables[key] = {"type": kind, "value": value}
json.dump(gen, open(gen_path, "w"), indent=4)
PY

# C++17 for op_host (see step 4).
replaced=0
for f in "${proj}/cmake/func.cmake" "${proj}/cmake/intf.cmake"; do
  [ -f "${f}" ] || fail "the generated project has no ${f#"${proj}"/}"
  n="$(grep -c -- '-std=c++1[14]\b' "${f}" || true)"
  replaced=$((replaced + n))
  sed -i 's/-std=c++1[14]\b/-std=c++17/g' "${f}"
done
cat >> "${proj}/cmake/intf.cmake" <<'CMAKE'
# ascend_dcn (build.sh, msOpGen route): op_host is C++17; the last -std on the command line wins.
target_compile_options(intf_pub INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-std=c++17>)
CMAKE
echo "msopgen route: op_host compiled with -std=c++17 (${replaced} -std=c++11/14 of the template replaced)"

build="${proj}/build_out"
cmake_version="$(cmake --version | sed -n 's/^cmake version \([0-9.]*\).*/\1/p')"
if [ "$(printf '%s\n%s\n' "3.19.0" "${cmake_version}" | sort -V | head -n 1)" = "3.19.0" ]; then
  (cd "${proj}" && cmake -S . -B "${build}" --preset=default "${defs[@]+"${defs[@]}"}")
else
  mapfile -t preset_args < <(python3 "${root}/cmake/cann/preset_args.py" "${proj}/CMakePresets.json" "${proj}")
  cmake -S "${proj}" -B "${build}" "${preset_args[@]}" "${defs[@]+"${defs[@]}"}"
fi
cmake --build "${build}" --target binary -j "${jobs}"
cmake --build "${build}" -j "${jobs}"

os_id=linux
if [ -f /etc/os-release ]; then
  os_id="$(sed -n 's/^ID="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release | head -n 1)"
  os_id="${os_id:-linux}"
fi
cmake -DBIN_DIR="${build}" -DSTAGE_DIR="${build}/opp_stage" -DRUN_DIR="${build}/opp_run_root" \
      -DVENDOR="${vendor}" -DSCRIPTS_DIR="${root}/cmake/cann/scripts" \
      -DOUTPUT="${out}/custom_opp_${os_id}_$(uname -m).run" "-DPACKAGE_INFO=${package_info}" \
      -P "${root}/cmake/cann/pack_run.cmake"

#!/usr/bin/env bash
# Forces the msOpGen route of build.sh (the route build.sh takes by itself on toolkits without CANN's
# npu_op_* cmake modules, e.g. 8.1.RC1): the same as `bash build.sh --route=msopgen [options]`.
#
#   bash cmake/cann/msopgen_build.sh [--soc=<Ascend910B*|Ascend910_93*>] [build.sh options]
#
# The route runs the toolkit's own msopgen (cmake/cann/msopgen_route.sh):
#   msopgen gen -i "${root}/cmake/cann/deformable_conv2d_backward.json" -f tf -c ai_core-ascend910b -lan cpp \
#               -out "${root}/build_out/msopgen_project"     (root = this project)
#
#   --soc   accepted for compatibility and checked to be an Atlas A2/A3 chip; the package is always
#           built for both units (ascend910b;ascend910_93)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
args=()
for arg in "$@"; do
  case "${arg}" in
    --soc=Ascend910B*|--soc=Ascend910_93*) ;;
    --soc=*) echo "msopgen_build.sh: ${arg} is not an Atlas A2 (Ascend910B*) or A3 (Ascend910_93*) chip" >&2; exit 2 ;;
    -h|--help) sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("${arg}") ;;
  esac
done
exec bash "${root}/build.sh" --route=msopgen "${args[@]+"${args[@]}"}"

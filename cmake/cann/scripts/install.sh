#!/usr/bin/env bash
# Installer of the ascend_dcn custom operator package (runs from the extracted .run payload).
#
#   install.sh [--install-path=<abs dir>] [--quiet] [--upgrade] [--force] [--help]
#
# Target directory, first match wins (the msOpGen installer's rules):
#   1. --install-path=<dir>        -> <dir>/vendors/<vendor>; writes <...>/bin/set_env.bash, which the
#                                     user sources to put the package first on ASCEND_CUSTOM_OPP_PATH
#   2. $ASCEND_CUSTOM_OPP_PATH     -> (a single directory) <it>/vendors/<vendor>
#   3. $ASCEND_OPP_PATH            -> $ASCEND_OPP_PATH/vendors/<vendor>; this vendor is moved to the
#                                     front of load_priority in $ASCEND_OPP_PATH/vendors/config.ini
# An existing installation of the same vendor is replaced directory by directory. The host
# libraries must match this machine's architecture (lib/linux/<arch> in the payload); --force skips
# that check.
set -euo pipefail

vendor_name="@vendor_name@"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_tree="${here}/packages/vendors/${vendor_name}"
mode="install"
install_path=""
quiet="n"
force="n"

log() { [ "${quiet}" = "y" ] || echo "[ascend_dcn install] $*"; }
fail() { echo "[ascend_dcn install] ERROR: $*" >&2; exit 1; }

usage() {
  cat "${here}/help.info" 2>/dev/null || true
}

for arg in "$@"; do
  case "${arg}" in
    --install-path=*) install_path="${arg#--install-path=}" ;;
    --quiet) quiet="y" ;;
    --upgrade) mode="upgrade" ;;
    --help|-h) usage; exit 0 ;;
    --force) force="y" ;;
    --install-for-all) ;;   # accepted for compatibility with CANN's installer; no effect
    *) fail "unknown argument '${arg}'; see --help" ;;
  esac
done

[ -d "${source_tree}" ] || fail "payload is incomplete: ${source_tree} not found"

machine="$(uname -m)"
tiling_libs="${source_tree}/op_impl/ai_core/tbe/op_tiling/lib/linux"
if [ "${force}" != "y" ] && [ -d "${tiling_libs}" ] && [ ! -d "${tiling_libs}/${machine}" ]; then
  built_for="$(ls "${tiling_libs}")"
  fail "this package was built for '${built_for//$'\n'/ }' but this machine is '${machine}'; rebuild it here with bash build.sh (or pass --force)"
fi

if [ -n "${install_path}" ]; then
  case "${install_path}" in
    /*) ;;
    *) fail "--install-path must be an absolute path; got '${install_path}'" ;;
  esac
  install_path="${install_path%/}"
  mkdir -p "${install_path}" || fail "cannot create --install-path ${install_path}"
  target_root="${install_path}"
elif [ -n "${ASCEND_CUSTOM_OPP_PATH:-}" ]; then
  case "${ASCEND_CUSTOM_OPP_PATH}" in
    *:*) fail "ASCEND_CUSTOM_OPP_PATH='${ASCEND_CUSTOM_OPP_PATH}' holds several directories; pass --install-path=<dir> instead" ;;
  esac
  mkdir -p "${ASCEND_CUSTOM_OPP_PATH}" || fail "cannot create ASCEND_CUSTOM_OPP_PATH ${ASCEND_CUSTOM_OPP_PATH}"
  target_root="${ASCEND_CUSTOM_OPP_PATH%/}"
elif [ -n "${ASCEND_OPP_PATH:-}" ]; then
  [ -d "${ASCEND_OPP_PATH}" ] || fail "ASCEND_OPP_PATH=${ASCEND_OPP_PATH} does not exist"
  target_root="${ASCEND_OPP_PATH%/}"
else
  fail "no target: pass --install-path=<abs dir>, or source <cann>/set_env.sh (sets ASCEND_OPP_PATH)"
fi

target="${target_root}/vendors/${vendor_name}"
if [ "${mode}" = "upgrade" ] && [ ! -d "${target}" ]; then
  fail "nothing to upgrade: ${target} does not exist (run the package without --upgrade)"
fi
[ -w "${target_root}" ] || fail "no write permission on ${target_root}; use --install-path=<dir you own>"
mkdir -p "${target}"

for part in framework op_proto op_impl op_api; do
  if [ -d "${source_tree}/${part}" ]; then
    log "installing ${part} -> ${target}/${part}"
    rm -rf "${target:?}/${part}"
    cp -R "${source_tree}/${part}" "${target}/${part}"
  fi
done
if [ -f "${source_tree}/version.info" ]; then
  cp -f "${source_tree}/version.info" "${target}/version.info"
fi
mkdir -p "${target}/scripts"
cp -f "${here}/uninstall.sh" "${target}/scripts/uninstall.sh"
chmod 750 "${target}/scripts/uninstall.sh"

if [ -n "${install_path}" ]; then
  mkdir -p "${target}/bin"
  sed "s#__VENDOR_DIR__#${target}#g" "${here}/set_env.bash.in" > "${target}/bin/set_env.bash"
  log "installed into ${target}"
  log "before use run: source ${target}/bin/set_env.bash"
else
  config="${target_root}/vendors/config.ini"
  others=""
  if [ -f "${config}" ]; then
    current="$(sed -n 's/^load_priority=//p' "${config}" | head -n 1)"
    IFS=',' read -r -a entries <<< "${current}"
    for entry in "${entries[@]}"; do
      if [ -n "${entry}" ] && [ "${entry}" != "${vendor_name}" ]; then
        others="${others},${entry}"
      fi
    done
    grep -v '^load_priority=' "${config}" > "${config}.tmp" || true
  else
    : > "${config}.tmp"
  fi
  echo "load_priority=${vendor_name}${others}" >> "${config}.tmp"
  mv "${config}.tmp" "${config}"
  log "installed into ${target} (load_priority=${vendor_name}${others})"
fi
echo "SUCCESS"

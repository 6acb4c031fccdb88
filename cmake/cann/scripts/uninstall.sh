#!/usr/bin/env bash
# Removes this installed ascend_dcn package: the vendor directory this script lives in
# (<root>/vendors/@vendor_name@/scripts/uninstall.sh) and its entry in <root>/vendors/config.ini
# (other entries, other lines and the file's mode kept; other vendors' directories untouched).
#   uninstall.sh [--quiet]
set -euo pipefail
umask 0077
vendor_name="@vendor_name@"
quiet="n"
for arg in "$@"; do
  case "${arg}" in
    --quiet|-q) quiet="y" ;;
    *) echo "[ascend_dcn uninstall] ERROR: unknown argument '${arg}' (only --quiet)" >&2; exit 1 ;;
  esac
done
script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
vendor_dir="$(dirname "${script_dir}")"
vendors_dir="$(dirname "${vendor_dir}")"
if [ "$(basename "${vendor_dir}")" != "${vendor_name}" ] || [ "$(basename "${vendors_dir}")" != "vendors" ]; then
  echo "[ascend_dcn uninstall] ERROR: ${vendor_dir} is not a vendors/${vendor_name} directory" >&2
  exit 1
fi
config="${vendors_dir}/config.ini"
if [ -L "${config}" ]; then
  echo "[ascend_dcn uninstall] ERROR: ${config} is a symbolic link; not touching it" >&2
  exit 1
fi
if [ -f "${config}" ]; then
  config_mode=$(stat -c %a -- "${config}")
  current="$(sed -n 's/^load_priority=//p' "${config}" | head -n 1)"
  kept=""
  IFS=',' read -r -a entries <<< "${current}"
  for entry in "${entries[@]+"${entries[@]}"}"; do
    entry="${entry//[[:space:]]/}"
    if [ -n "${entry}" ] && [ "${entry}" != "${vendor_name}" ]; then
      kept="${kept:+${kept},}${entry}"
    fi
  done
  tmp="$(mktemp "${vendors_dir}/.config.ini.XXXXXX")"
  grep -v '^load_priority=' "${config}" > "${tmp}" || true
  if [ -n "${kept}" ]; then
    echo "load_priority=${kept}" >> "${tmp}"
  fi
  chmod "${config_mode}" -- "${tmp}"
  mv -- "${tmp}" "${config}"
fi
rm -rf -- "${vendor_dir:?}"
[ "${quiet}" = "y" ] || echo "[ascend_dcn uninstall] removed ${vendor_dir}"

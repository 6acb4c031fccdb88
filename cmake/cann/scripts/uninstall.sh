#!/usr/bin/env bash
# Removes this installed ascend_dcn package: the vendor directory this script lives in
# (<root>/vendors/@vendor_name@/scripts/uninstall.sh) and its entry in <root>/vendors/config.ini.
set -euo pipefail
vendor_name="@vendor_name@"
vendor_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ "$(basename "${vendor_dir}")" = "${vendor_name}" ] || {
  echo "[ascend_dcn uninstall] ERROR: ${vendor_dir} is not a '${vendor_name}' vendor directory" >&2
  exit 1
}
config="$(dirname "${vendor_dir}")/config.ini"
if [ -f "${config}" ]; then
  current="$(sed -n 's/^load_priority=//p' "${config}" | head -n 1)"
  kept=""
  IFS=',' read -r -a entries <<< "${current}"
  for entry in "${entries[@]}"; do
    if [ -n "${entry}" ] && [ "${entry}" != "${vendor_name}" ]; then
      kept="${kept:+${kept},}${entry}"
    fi
  done
  grep -v '^load_priority=' "${config}" > "${config}.tmp" || true
  if [ -n "${kept}" ]; then
    echo "load_priority=${kept}" >> "${config}.tmp"
  fi
  mv "${config}.tmp" "${config}"
fi
rm -rf "${vendor_dir:?}"
echo "[ascend_dcn uninstall] removed ${vendor_dir}"

#!/usr/bin/env bash
# Self-extracting installer of the ascend_dcn operator package (vendor @vendor_name@).
# A gzip'ed tar payload follows the marker line below; it is unpacked into a temporary
# directory and its install.sh runs with this script's arguments (see --help).
set -euo pipefail
self="$0"
payload_line=$(awk '/^__ASCEND_DCN_PAYLOAD_BELOW__$/ { print NR + 1; exit 0 }' "${self}")
extract_to=""
args=()
for arg in "$@"; do
  case "${arg}" in
    --extract=*) extract_to="${arg#--extract=}" ;;
    *) args+=("${arg}") ;;
  esac
done
if [ -n "${extract_to}" ]; then
  mkdir -p "${extract_to}"
  tail -n +"${payload_line}" "${self}" | tar xzf - -C "${extract_to}"
  echo "extracted into ${extract_to}"
  exit 0
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/ascend_dcn_opp.XXXXXX")"
trap 'rm -rf "${work}"' EXIT
tail -n +"${payload_line}" "${self}" | tar xzf - -C "${work}"
bash "${work}/install.sh" "${args[@]+"${args[@]}"}"
exit $?
# shellcheck disable=SC2317  # the payload marker below is data, never executed
__ASCEND_DCN_PAYLOAD_BELOW__

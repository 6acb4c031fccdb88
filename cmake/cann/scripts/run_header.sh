#!/usr/bin/env bash
# Self-extracting installer of the ascend_dcn operator package (vendor @vendor_name@).
#
# Accepts the options of the .run packages that CANN's operator-project template makes (makeself
# header) with the same meaning, plus the installer options of scripts/install.sh:
#   --help | -h  --info  --list  --check  --quiet | -q  --nox11  --noexec  --extract=<dir>
#   --tar <tar option> [args...]
#   --install-path=<abs dir>  --upgrade  --force  --install-for-all       (passed to install.sh)
# Anything else is refused with the usage text and exit status 1 (as CANN's packages do); an option
# given an empty value is refused the same way. Checksum failures exit 2.
#
# Layout: this header, then the marker line, then a gzip'ed tar payload of PAYLOAD_SIZE bytes whose
# SHA-256 is PAYLOAD_SHA256 (both written by cmake/cann/pack_run.cmake).
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi   # `sh package.run` runs it with bash too
set -euo pipefail
umask 0022
readonly VENDOR="@vendor_name@"
readonly PAYLOAD_SHA256="@PAYLOAD_SHA256@"
readonly PAYLOAD_SIZE="@PAYLOAD_SIZE@"
readonly PACKAGE_INFO="@PACKAGE_INFO@"
self="$0"

usage() {
  cat <<EOF
Usage: ${self} [options]
  --help | -h               print this message
  --info                    print what the package is, its payload checksum and installer
  --list                    list the files of the payload
  --check                   verify the payload's SHA-256 checksum, then exit (installs nothing)
  --quiet | -q              print errors and the final status only
  --nox11                   accepted for compatibility (never opens a terminal)
  --noexec                  do not run the installer (with --extract: unpack only)
  --extract=<dir>           unpack the payload into <dir> (kept), then install from there unless --noexec
  --tar <option> [args]     run tar <option> on the payload, e.g. --tar tvf
  --install-path=<abs dir>  install into <dir>/vendors/${VENDOR} and write its bin/set_env.bash
  --upgrade                 replace an existing installation only
  --force                   install host libraries built for another architecture
  --install-for-all         make the installed files readable by all users (default: owner and group)
Without --install-path the package goes to \$ASCEND_CUSTOM_OPP_PATH (one absolute directory) or to
\$ASCEND_OPP_PATH/vendors/${VENDOR}, listed first in vendors/config.ini load_priority.
EOF
}

refuse() {  # message: usage on stderr, exit 1 (the status CANN's packages give for a bad option)
  echo "ERROR: $1" >&2
  usage >&2
  exit 1
}

payload_line=$(awk '/^__ASCEND_DCN_PAYLOAD_BELOW__$/ { print NR + 1; exit 0 }' "${self}")
[ -n "${payload_line}" ] || { echo "ERROR: ${self} is not a complete package (no payload marker)" >&2; exit 2; }
payload() { tail -n +"${payload_line}" "${self}"; }

verify() {  # exit 2 unless the payload has the recorded size and SHA-256
  local size sum
  size=$(payload | wc -c | tr -d ' ')
  sum=$(payload | sha256sum | cut -d' ' -f1)
  if [ "${size}" != "${PAYLOAD_SIZE}" ] || [ "${sum}" != "${PAYLOAD_SHA256}" ]; then
    echo "ERROR: ${self} is corrupted: payload ${size} bytes, sha256 ${sum}; expected ${PAYLOAD_SIZE} bytes, sha256 ${PAYLOAD_SHA256}" >&2
    exit 2
  fi
}

quiet="n"
noexec="n"
check="n"
extract_to=""
installer_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --info)
      echo "Identification: ${PACKAGE_INFO}"
      echo "Vendor: ${VENDOR}"
      echo "Payload: gzip'ed tar, ${PAYLOAD_SIZE} bytes, sha256 ${PAYLOAD_SHA256}"
      echo "Script run after extraction: ./install.sh (temporary directory removed afterwards)"
      exit 0 ;;
    --list) verify; payload | tar tzf -; exit 0 ;;
    --tar)
      [ $# -ge 2 ] && [ -n "$2" ] || refuse "--tar needs a tar option, e.g. --tar tvf"
      shift; tar_op=$1; shift
      payload | tar "${tar_op}" - "$@"
      exit $? ;;
    --check) check="y" ;;
    -q|--quiet) quiet="y"; installer_args+=(--quiet) ;;
    --nox11) ;;
    --noexec) noexec="y" ;;
    --extract=*)
      extract_to="${1#--extract=}"
      [ -n "${extract_to}" ] || refuse "--extract= needs a directory" ;;
    --install-path=*)
      [ -n "${1#--install-path=}" ] || refuse "--install-path= needs an absolute directory"
      installer_args+=("$1") ;;
    --upgrade|--force|--install-for-all) installer_args+=("$1") ;;
    *) refuse "unknown option '$1'" ;;
  esac
  shift
done

verify
if [ "${check}" = "y" ]; then
  [ "${quiet}" = "y" ] || echo "${self}: payload checksum verified (sha256 ${PAYLOAD_SHA256}); nothing installed"
  exit 0
fi

if [ -n "${extract_to}" ]; then
  if [ -L "${extract_to}" ]; then
    echo "ERROR: --extract=${extract_to} is a symbolic link; name the real directory" >&2
    exit 1
  fi
  mkdir -p -- "${extract_to}"
  payload | tar xzf - --no-same-owner -C "${extract_to}"
  [ "${quiet}" = "y" ] || echo "extracted into ${extract_to}"
  [ "${noexec}" = "y" ] && exit 0
  exec bash "${extract_to}/install.sh" "${installer_args[@]+"${installer_args[@]}"}"
fi
[ "${noexec}" = "y" ] && exit 0   # as CANN's packages: nothing to extract to, nothing to run

work="$(mktemp -d "${TMPDIR:-/tmp}/ascend_dcn_opp.XXXXXX")"
trap 'rm -rf "${work}"' EXIT
payload | tar xzf - --no-same-owner -C "${work}"
status=0
bash "${work}/install.sh" "${installer_args[@]+"${installer_args[@]}"}" || status=$?
exit "${status}"
# shellcheck disable=SC2317  # the payload marker below is data, never executed
__ASCEND_DCN_PAYLOAD_BELOW__

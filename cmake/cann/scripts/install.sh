#!/usr/bin/env bash
# Installer of the ascend_dcn custom operator package (runs from the extracted .run payload).
#
#   install.sh [--install-path=<abs dir>] [--quiet] [--upgrade] [--force] [--install-for-all] [--help]
#
# Target directory, first match wins (the rules of CANN's operator-package installer):
#   1. --install-path=<dir>        -> <dir>/vendors/<vendor>; writes <...>/bin/set_env.bash, which the
#                                     user sources to put the package first on ASCEND_CUSTOM_OPP_PATH
#   2. $ASCEND_CUSTOM_OPP_PATH     -> (one absolute directory) <it>/vendors/<vendor>
#   3. $ASCEND_OPP_PATH            -> $ASCEND_OPP_PATH/vendors/<vendor>
#   In cases 2 and 3 the vendor goes to the front of load_priority in <root>/vendors/config.ini (other
#   entries kept in order, other lines and the file's mode kept).
# Safety rules (a caller's path or environment never turns into a command or a foreign target):
#   * paths are absolute, made of [A-Za-z0-9._+/-] only, without . or .. components; anything else
#     (spaces, quotes, $ ` # & ; : newlines ...) is refused, and set_env.bash quotes the path anyway;
#   * no existing component of the target is a symbolic link owned by another user, or one in a directory
#     that others can write without the sticky bit (they could swap it); vendors/, vendors/<vendor> and
#     config.ini are never symbolic links; an existing vendors/ or vendor directory must be owned by this
#     user or root and not writable by group or others;
#   * modes are fixed whatever the umask: directories 750, programs and libraries 550, other files 440
#     (755/555/444 with --install-for-all); config.ini keeps its mode (640 when created);
#   * the new tree is assembled next to the old one and swapped in, so a failed install leaves the
#     previous installation in place.
set -euo pipefail
umask 0077

vendor_name="@vendor_name@"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_tree="${here}/packages/vendors/${vendor_name}"
mode="install"
install_path=""
install_path_given="n"
quiet="n"
force="n"
for_all="n"

log() { [ "${quiet}" = "y" ] || echo "[ascend_dcn install] $*"; }
fail() { echo "[ascend_dcn install] ERROR: $*" >&2; exit 1; }

for arg in "$@"; do
  case "${arg}" in
    --install-path=*) install_path="${arg#--install-path=}"; install_path_given="y"
                      [ -n "${install_path}" ] || fail "--install-path= needs an absolute directory" ;;
    --quiet|-q) quiet="y" ;;
    --upgrade) mode="upgrade" ;;
    --force) force="y" ;;
    --install-for-all) for_all="y" ;;
    --help|-h) cat "${here}/help.info" 2>/dev/null || true; exit 0 ;;
    *) fail "unknown argument '${arg}'; see --help" ;;
  esac
done

# check_path <what> <path>: absolute, safe characters only, no . or .. components.
check_path() {
  local what=$1 path=$2
  case "${path}" in
    /*) ;;
    *) fail "${what} must be an absolute path; got '${path}'" ;;
  esac
  if [[ ! "${path}" =~ ^[A-Za-z0-9._+/-]+$ ]]; then
    fail "${what} '${path}' contains a character outside [A-Za-z0-9._+/-] (no spaces, quotes, \$, \`, #, &, ;, :, @, %, =, ,); choose another directory"
  fi
  case "/${path}/" in
    */./*|*/../*) fail "${what} '${path}' has a '.' or '..' component; give the plain absolute path" ;;
  esac
}

owner_ok() {  # the path is owned by this user or root
  local uid; uid=$(stat -c %u -- "$1")
  [ "${uid}" = "0" ] || [ "${uid}" = "$(id -u)" ]
}
others_can_write() {  # group or others may write the directory
  local perm; perm=$(stat -c %a -- "$1")
  (( (8#${perm} & 8#022) != 0 ))
}
others_can_replace() {  # others may write the directory and it is not sticky (they may rename its entries)
  local perm; perm=$(stat -c %a -- "$1")
  (( (8#${perm} & 8#022) != 0 && (8#${perm} & 8#1000) == 0 ))
}

# check_components <path>: refuse symbolic links that someone else could have planted on the way.
check_components() {
  local path=$1 walked="" part
  local IFS=/
  for part in ${path#/}; do
    [ -n "${part}" ] || continue
    local parent="${walked:-/}"
    walked="${walked}/${part}"
    [ -e "${walked}" ] || [ -L "${walked}" ] || return 0
    if [ -L "${walked}" ]; then
      if ! owner_ok "${walked}" || others_can_replace "${parent}"; then
        fail "refusing to follow the symbolic link ${walked} (owned by another user, or in a directory others can write); install into a real directory"
      fi
    fi
  done
}

[ -d "${source_tree}" ] || fail "payload is incomplete: ${source_tree} not found"

machine="$(uname -m)"
tiling_libs="${source_tree}/op_impl/ai_core/tbe/op_tiling/lib/linux"
if [ "${force}" != "y" ] && [ -d "${tiling_libs}" ] && [ ! -d "${tiling_libs}/${machine}" ]; then
  built_for="$(ls "${tiling_libs}")"
  fail "this package was built for '${built_for//$'\n'/ }' but this machine is '${machine}'; rebuild it here with bash build.sh (or pass --force)"
fi

if [ "${install_path_given}" = "y" ]; then
  install_path="${install_path%/}"
  [ -n "${install_path}" ] || fail "--install-path=/ is not a valid target; name a directory"
  check_path "--install-path" "${install_path}"
  target_root="${install_path}"
elif [ -n "${ASCEND_CUSTOM_OPP_PATH:-}" ]; then
  case "${ASCEND_CUSTOM_OPP_PATH}" in
    *:*) fail "ASCEND_CUSTOM_OPP_PATH='${ASCEND_CUSTOM_OPP_PATH}' holds several directories; pass --install-path=<dir> instead" ;;
  esac
  target_root="${ASCEND_CUSTOM_OPP_PATH%/}"
  check_path "ASCEND_CUSTOM_OPP_PATH" "${target_root}"
elif [ -n "${ASCEND_OPP_PATH:-}" ]; then
  target_root="${ASCEND_OPP_PATH%/}"
  check_path "ASCEND_OPP_PATH" "${target_root}"
  [ -d "${target_root}" ] || fail "ASCEND_OPP_PATH=${target_root} does not exist"
else
  fail "no target: pass --install-path=<abs dir>, or source <cann>/set_env.sh (sets ASCEND_OPP_PATH)"
fi

vendors_dir="${target_root}/vendors"
target="${vendors_dir}/${vendor_name}"
config="${vendors_dir}/config.ini"
check_components "${target_root}"
for p in "${vendors_dir}" "${target}" "${config}"; do
  [ ! -L "${p}" ] || fail "refusing to install: ${p} is a symbolic link"
done
if [ "${mode}" = "upgrade" ] && [ ! -d "${target}" ]; then
  fail "nothing to upgrade: ${target} does not exist (run the package without --upgrade)"
fi

if [ "${for_all}" = "y" ]; then
  dir_mode=755; exe_mode=555; file_mode=444; umask 0022
else
  dir_mode=750; exe_mode=550; file_mode=440; umask 0027
fi
mkdir -p -- "${target_root}" || fail "cannot create ${target_root}"
if [ ! -d "${vendors_dir}" ]; then
  mkdir -- "${vendors_dir}" || fail "cannot create ${vendors_dir}"
  chmod "${dir_mode}" -- "${vendors_dir}"
fi
for d in "${vendors_dir}" "${target}"; do
  if [ -d "${d}" ] && { ! owner_ok "${d}" || others_can_write "${d}"; }; then
    fail "refusing to install into ${d}: it belongs to another user or others can write it"
  fi
done
[ -w "${vendors_dir}" ] || fail "no write permission on ${vendors_dir}; use --install-path=<dir you own>"

# Assemble the new tree beside the old one, fix its modes, then swap it in.
staging="$(mktemp -d "${vendors_dir}/.${vendor_name}.new.XXXXXX")"
trap 'rm -rf -- "${staging}"' EXIT
for part in framework op_proto op_impl op_api; do
  if [ -d "${source_tree}/${part}" ]; then
    log "installing ${part}"
    cp -R -- "${source_tree}/${part}" "${staging}/${part}"
  fi
done
[ -f "${source_tree}/version.info" ] && cp -- "${source_tree}/version.info" "${staging}/version.info"
mkdir -p -- "${staging}/scripts"
cp -- "${here}/uninstall.sh" "${staging}/scripts/uninstall.sh"
chmod u+x -- "${staging}/scripts/uninstall.sh"
if [ -n "${install_path}" ]; then
  mkdir -p -- "${staging}/bin"
  {
    echo "# Environment of the ascend_dcn operator package installed in ${target} (written by its"
    echo "# installer). Source it before using the operator: it puts the package in front of"
    echo "# ASCEND_CUSTOM_OPP_PATH and its op_api/lib in front of LD_LIBRARY_PATH."
    printf '_ascend_dcn_vendor_dir=%q\n' "${target}"
    # shellcheck disable=SC2016  # written literally: expanded when the user sources the file
    echo 'export ASCEND_CUSTOM_OPP_PATH="${_ascend_dcn_vendor_dir}${ASCEND_CUSTOM_OPP_PATH:+:${ASCEND_CUSTOM_OPP_PATH}}"'
    # shellcheck disable=SC2016
    echo 'export LD_LIBRARY_PATH="${_ascend_dcn_vendor_dir}/op_api/lib${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}"'
    echo 'unset _ascend_dcn_vendor_dir'
  } > "${staging}/bin/set_env.bash"
fi
find "${staging}" -type d -exec chmod "${dir_mode}" {} +
find "${staging}" -type f \( -perm -u+x -o -name '*.so' -o -name '*.so.*' \) -exec chmod "${exe_mode}" {} +
find "${staging}" -type f ! \( -perm -u+x -o -name '*.so' -o -name '*.so.*' \) -exec chmod "${file_mode}" {} +

old=""
if [ -e "${target}" ]; then
  old="${vendors_dir}/.${vendor_name}.old.$$"
  mv -- "${target}" "${old}"
fi
mv -- "${staging}" "${target}"
trap - EXIT
[ -z "${old}" ] || rm -rf -- "${old}"

if [ -n "${install_path}" ]; then
  log "installed into ${target}"
  log "before use run: source ${target}/bin/set_env.bash"
else
  others=""
  tmp="$(mktemp "${vendors_dir}/.config.ini.XXXXXX")"
  config_mode=640
  if [ -f "${config}" ]; then
    config_mode=$(stat -c %a -- "${config}")
    current="$(sed -n 's/^load_priority=//p' "${config}" | head -n 1)"
    IFS=',' read -r -a entries <<< "${current}"
    for entry in "${entries[@]+"${entries[@]}"}"; do
      entry="${entry//[[:space:]]/}"
      case ",${others}," in *",${entry},"*) continue ;; esac
      if [ -n "${entry}" ] && [ "${entry}" != "${vendor_name}" ]; then
        others="${others},${entry}"
      fi
    done
    grep -v '^load_priority=' "${config}" > "${tmp}" || true
  fi
  echo "load_priority=${vendor_name}${others}" >> "${tmp}"
  chmod "${config_mode}" -- "${tmp}"
  mv -- "${tmp}" "${config}"
  log "installed into ${target} (load_priority=${vendor_name}${others})"
fi
echo "SUCCESS"

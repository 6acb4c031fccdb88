#!/usr/bin/env bash
# CI step: clang-format (rules in .clang-format) on the C/C++ lines a change touches, never on
# untouched code (the tree is not mass-reformatted; old lines are formatted when they are edited).
#
#   bash scripts/check_format.sh            check; exit 1 with the diff when a changed line is off
#   bash scripts/check_format.sh --fix      reformat those lines in the working tree
#   bash scripts/check_format.sh BASE       compare with commit BASE (also: FORMAT_BASE=BASE)
#
# "Changed" = differs between the working tree and BASE. Default BASE: the merge base of HEAD and
# main, i.e. everything a branch would land; on main itself (HEAD is main's tip) only uncommitted
# edits. clang-format / git-clang-format 18.1.8 come from PyPI (scripts/setup_env.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
fix=0
base="${FORMAT_BASE:-}"
for arg in "$@"; do
  case "${arg}" in
    --fix) fix=1 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) base="${arg}" ;;
  esac
done
export PATH="$PWD/.venv/bin:$PATH"
if ! command -v git-clang-format >/dev/null || ! command -v clang-format >/dev/null; then
  echo "check_format.sh: clang-format not found; run: bash scripts/setup_env.sh (pip install clang-format==18.1.8)" >&2
  exit 2
fi
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "check_format.sh: not a git checkout; nothing to compare, skipped"
  exit 0
fi
if [ -z "${base}" ]; then
  if git rev-parse -q --verify main >/dev/null; then
    base="$(git merge-base HEAD main)"
  else
    base=HEAD
  fi
fi
exts=c,h,cc,cpp,cxx,hpp,hh
if [ "${fix}" = 1 ]; then
  git clang-format --binary "$(command -v clang-format)" --extensions "${exts}" --force "${base}" || true
  exit 0
fi
out="$(git clang-format --binary "$(command -v clang-format)" --extensions "${exts}" --diff "${base}" 2>&1 || true)"
if printf '%s\n' "${out}" | grep -q '^diff --git\|^--- \|^+++ '; then
  printf '%s\n' "${out}"
  echo "check_format.sh: changed C/C++ lines (against ${base}) do not follow .clang-format;" \
       "fix them with: bash scripts/check_format.sh --fix" >&2
  exit 1
fi
echo "check_format.sh: changed C/C++ lines against ${base:0:12} follow .clang-format"

#!/usr/bin/env bash
# Upgrades an existing installation of the ascend_dcn package in place (same target rules as
# install.sh; fails when the vendor directory does not exist yet).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "${here}/install.sh" --upgrade "$@"

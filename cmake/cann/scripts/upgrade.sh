#!/usr/bin/env bash
# Upgrades an existing installation of the ascend_dcn package (same target rules and options as
# install.sh; fails when the vendor directory does not exist yet).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec bash "${here}/install.sh" --upgrade "$@"

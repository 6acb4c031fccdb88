#!/usr/bin/env bash
# Sets up the environment and runs the main job: the operator on a realistic DCN layer through
# the best available backend (NPU when an Ascend host with our package is present, else the
# CPU twin), checked against the float64 reference.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh
.venv/bin/python scripts/main_job.py "$@"

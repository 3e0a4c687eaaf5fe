#!/usr/bin/env bash
# Installs what is needed, then runs broker + worker + sidecar on embedded defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
exec .venv/bin/beliefstream dev "$@"

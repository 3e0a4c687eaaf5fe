#!/usr/bin/env bash
# Installs what is needed, then runs the whole test suite (unit + integration, SQLite and PostgreSQL).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
exec .venv/bin/python -m pytest "$@"

#!/usr/bin/env bash
# Creates ./.venv and installs beliefstream with everything it needs to run offline.
# Idempotent: a second run only checks that the install is current.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
stamp=.venv/.beliefstream-installed
want=$(cat pyproject.toml scripts/bootstrap.sh | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
if [ ! -x .venv/bin/python ]; then
  echo "beliefstream: creating .venv with $($PY --version)" >&2
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
echo "beliefstream: installing dependencies into .venv (first run takes a minute)" >&2
.venv/bin/python -m pip install --quiet -e '.[test]'
echo "$want" > "$stamp"

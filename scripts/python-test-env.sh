#!/usr/bin/env bash
# Creates (or reuses) .venv-test/, the Python environment of the slow Python integration tests
# (clients/python/*.slow.test.ts), from clients/python/requirements-test.txt. Idempotent and fast
# when already present: a stamp holds the requirements' checksum, and nothing is installed when
# it matches. Tests find the interpreter at .venv-test/bin/python (or PITWALL_TEST_PYTHON).
set -euo pipefail
cd "$(dirname "$0")/.."
req=clients/python/requirements-test.txt
venv=.venv-test
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "python-test-env: $venv is up to date"
  exit 0
fi
python3 -m venv "$venv"
# A local package mirror, where the machine has one, avoids waiting on an unreachable default index.
extra=()
if [ -d /opt/pypi/simple ] && [ -z "${PIP_INDEX_URL:-}" ]; then extra=(--index-url file:///opt/pypi/simple); fi
"$venv/bin/python" -m pip install --no-input --disable-pip-version-check "${extra[@]}" -r "$req"
echo "$want" > "$stamp"
echo "python-test-env: $venv ready"

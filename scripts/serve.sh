#!/usr/bin/env bash
# Installs (idempotent), then starts memini-core (127.0.0.1:8900, embedded SQLite unless
# NEURALGENTICS_DATABASE_URL is set) and the MCP broker's HTTP front (127.0.0.1:8901)
# together. Ctrl-C stops both. Extra arguments go to `neuralgentics up`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# the servers the broker starts by name (`broker add time -- mcp-server-time`) live in .venv/bin
export PATH="$PWD/.venv/bin:$PATH"
exec .venv/bin/neuralgentics up "$@"

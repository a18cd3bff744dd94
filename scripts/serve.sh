#!/usr/bin/env bash
# Installs (idempotent), then starts memini-core (127.0.0.1:8900, embedded SQLite unless
# NEURALGENTICS_DATABASE_URL is set) and the MCP broker's HTTP front (127.0.0.1:8901) in the
# background, and returns once both answer: `neuralgentics down` stops them.
#   bash scripts/serve.sh --foreground   the same in this terminal (Ctrl-C stops both)
# Other arguments go to `neuralgentics up`.
set -euo pipefail
cd "$(dirname "$0")/.."
callers_path=$PATH
bash scripts/install.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# the servers the broker starts by name (`broker add time -- mcp-server-time`) live in .venv/bin
export PATH="$PWD/.venv/bin:$PATH"
if [ "${1:-}" = --foreground ]; then
  shift
  exec .venv/bin/neuralgentics up "$@"
fi
.venv/bin/neuralgentics up --detach "$@"
case ":$callers_path:" in
  *":$PWD/.venv/bin:"*) ;;
  *) echo "the CLI is in .venv/bin: export PATH=\"$PWD/.venv/bin:\$PATH\" (the README's first line does it)" ;;
esac

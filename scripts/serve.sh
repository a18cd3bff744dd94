#!/usr/bin/env bash
# Installs (idempotent) and starts memini-core on the embedded SQLite store at 127.0.0.1:8900.
# Extra arguments go to `neuralgentics serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
exec .venv/bin/neuralgentics serve "$@"

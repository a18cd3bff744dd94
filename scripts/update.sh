#!/usr/bin/env bash
# Check for / apply a Neuralgentics update (see `neuralgentics update --help`).
#   scripts/update.sh --check     compare with the latest release
#   scripts/update.sh             upgrade in place
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/neuralgentics update "$@"

#!/usr/bin/env bash
# Print the version of the tree (the one place it is set: src/neuralgentics/__init__.py).
set -euo pipefail
cd "$(dirname "$0")/.."
sed -n 's/^__version__ = "\(.*\)"$/\1/p' src/neuralgentics/__init__.py

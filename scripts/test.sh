#!/usr/bin/env bash
# Installs everything the tests need, then runs every test. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --test

# Lint, formatting and types first: a change that fails them fails before the long run.
bash scripts/check

export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
set +e
.venv/bin/python -m pytest "$@"
rc=$?
set -e
if [ "$rc" = 5 ]; then
  echo "pytest collected no tests: treating as a failure" >&2
  exit 1
fi
exit "$rc"

#!/usr/bin/env bash
# Installs everything the tests need, runs the checks, then every test, on every core (up to 4).
# Extra arguments go to pytest.
#   CI=true (what .ci/run sets) or NEURALGENTICS_TEST_FRESH=1: as on a fresh machine
#     (scripts/fresh-home.sh): HOME and the XDG dirs in a temporary directory, and the tests
#     start from an empty model cache, so a test that needs an artefact has to make it. pip's
#     and npm's download caches stay usable, so the install stays fast.
#   CI=true also turns a missing real part (npm packages, Chromium, PostgreSQL, opencode) into a
#     failure instead of a skip. Whatever CI says, an unexpected skip makes this command fail.
# At the end the checkout must be as it was before: nothing tracked changed, nothing new
# outside the ignored folders.
set -euo pipefail
cd "$(dirname "$0")/.."

is_true() { case "${1:-}" in 1 | true | TRUE | True | yes) return 0 ;; *) return 1 ;; esac; }

# `git status` lines, each with the file's content hash, so that a file changed further by the
# run shows up even when it was already modified before.
tree_state() {
  git status --porcelain=v1 --untracked-files=all 2>/dev/null | while IFS= read -r line; do
    path=${line:3}
    if [ -f "$path" ]; then echo "$line $(git hash-object -- "$path")"; else echo "$line"; fi
  done | sort
}
in_git=0
git rev-parse --is-inside-work-tree >/dev/null 2>&1 && in_git=1
[ "$in_git" = 1 ] && tree_before=$(tree_state)

if is_true "${CI:-}" || is_true "${NEURALGENTICS_TEST_FRESH:-}"; then
  # shellcheck source=scripts/fresh-home.sh
  . scripts/fresh-home.sh
fi

bash scripts/install.sh --test

# Lint, formatting and types first: a change that fails them fails before the long run.
bash scripts/check

if [ -n "${scratch:-}" ]; then
  # The install built the model's graph into its cache; the tests start from an empty one, so
  # none of them leans on what the install (or an earlier run) left behind.
  export NEURALGENTICS_MODEL_CACHE="$scratch/empty-model-cache"
fi
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# One pytest worker per core (pytest-xdist; at most 4: each holds the model and a PostgreSQL),
# NEURALGENTICS_TEST_WORKERS=N to choose; `-n 0` among the arguments runs in one process.
# loadfile: each test file runs whole on one worker, so a module-wide set-up runs once
# (tests/conftest.py).
workers=${NEURALGENTICS_TEST_WORKERS:-$(nproc 2>/dev/null || echo 2)}
[ "$workers" -gt 4 ] 2>/dev/null && workers=4
set +e
# --fail-on-skip (tests/conftest.py): a skip that is not an opt-in test's fails the run
.venv/bin/python -m pytest -n "$workers" --dist loadfile --fail-on-skip "$@"
rc=$?
set -e
if [ "$rc" = 5 ]; then
  echo "pytest collected no tests: treating as a failure" >&2
  rc=1
fi

if [ "$in_git" = 1 ]; then
  changed=$(comm -13 <(echo "$tree_before") <(tree_state))
  if [ -n "$changed" ]; then
    echo "test.sh: the install or the tests changed the checkout (tracked files modified, or new files outside the ignored folders):" >&2
    echo "$changed" | sed -e 's/ [0-9a-f]\{40\}$//' -e 's/^/  /' >&2
    [ "$rc" = 0 ] && rc=1
  fi
fi
exit "$rc"

#!/usr/bin/env bash
# Installs everything the tests need, then runs every test. Extra arguments go to pytest.
# A skip that is not an opt-in test's fails the run (tests/conftest.py); under CI=true (which
# .ci/run sets) a missing real part (npm packages, Chromium, PostgreSQL, opencode) fails the
# test itself instead of skipping it.
# At the end the checkout must be as it was before: nothing tracked changed, nothing new
# outside the ignored folders.
set -euo pipefail
cd "$(dirname "$0")/.."

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

bash scripts/install.sh --test

# Lint, formatting and types first: a change that fails them fails before the long run.
bash scripts/check

export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
set +e
# --fail-on-skip (tests/conftest.py): a skip that is not an opt-in test's fails the run
.venv/bin/python -m pytest --fail-on-skip "$@"
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

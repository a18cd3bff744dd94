#!/usr/bin/env bash
# Apply every Neuralgentics patch for the checkout's source layout (in name order) to an
# OpenCode checkout: patches/*.patch for packages/tui (1.18), patches/legacy-tui-layout/*.patch
# for the earlier packages/opencode/src/cli/cmd/tui (scripts/patch-layout.sh).
#   scripts/apply-patches.sh [--check] OPENCODE_CHECKOUT
# Idempotent: a patch that is already applied counts as success. All patches are checked
# before any is applied, so a conflict changes nothing and names the patch and the file.
# --check: only say whether each would apply (exit 1 on a conflict); change nothing.
# PATCHES_DIR overrides the patch folder (default: patches/ next to this script's repo).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
patches_dir="${PATCHES_DIR:-$here/patches}"

check_only=0
if [ "${1:-}" = "--check" ]; then check_only=1; shift; fi
if [ $# -ne 1 ]; then
  echo "usage: $0 [--check] OPENCODE_CHECKOUT" >&2
  exit 2
fi
checkout="$1"
if [ ! -d "$checkout" ]; then
  echo "error: $checkout is not a directory (expected an OpenCode source checkout)" >&2
  exit 2
fi
command -v git >/dev/null || { echo "error: git is required (git apply applies the patches)" >&2; exit 2; }
. "$here/scripts/patch-layout.sh"
patch_layout "$checkout" "$patches_dir" || exit 2
echo "layout: $layout"
shopt -s nullglob
patches=("$layout_dir"/*.patch)
if [ ${#patches[@]} -eq 0 ]; then
  echo "error: no patches in $layout_dir" >&2
  exit 2
fi
# A checkout inside another git work tree must not make git apply paths relative to that one.
export GIT_CEILING_DIRECTORIES="$(cd "$checkout/.." && pwd)"
cd "$checkout"

files_of() { sed -n 's|^+++ b/||p' "$1" | tr '\n' ' '; }

to_apply=()
for p in "${patches[@]}"; do
  name="$(basename "$p")"
  if git apply --check --reverse "$p" >/dev/null 2>&1; then
    echo "already applied: $name"
  elif err="$(git apply --check "$p" 2>&1)"; then
    to_apply+=("$p")
  else
    echo "conflict: $name does not apply to $(files_of "$p")in $checkout" >&2
    echo "$err" | sed 's/^/  /' >&2
    echo "nothing was changed; refresh the patch against this upstream version (docs/NEURALGENTICS_PATCHES.md)" >&2
    exit 1
  fi
done
for p in "${to_apply[@]}"; do
  if [ "$check_only" = 1 ]; then
    echo "applies: $(basename "$p") -> $(files_of "$p")"
  else
    git apply "$p"
    echo "applied: $(basename "$p") -> $(files_of "$p")"
  fi
done

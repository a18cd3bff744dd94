#!/usr/bin/env bash
# Apply every Neuralgentics patch (patches/*.patch, in name order) to an OpenCode checkout.
#   scripts/apply-patches.sh OPENCODE_CHECKOUT
# Idempotent: a patch that is already applied counts as success. All patches are checked
# before any is applied, so a conflict changes nothing and names the patch and the file.
# PATCHES_DIR overrides the patch folder (default: patches/ next to this script's repo).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
patches_dir="${PATCHES_DIR:-$here/patches}"

if [ $# -ne 1 ]; then
  echo "usage: $0 OPENCODE_CHECKOUT" >&2
  exit 2
fi
checkout="$1"
if [ ! -d "$checkout" ]; then
  echo "error: $checkout is not a directory (expected an OpenCode source checkout)" >&2
  exit 2
fi
command -v git >/dev/null || { echo "error: git is required (git apply applies the patches)" >&2; exit 2; }
shopt -s nullglob
patches=("$patches_dir"/*.patch)
if [ ${#patches[@]} -eq 0 ]; then
  echo "error: no patches in $patches_dir" >&2
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
  git apply "$p"
  echo "applied: $(basename "$p") -> $(files_of "$p")"
done

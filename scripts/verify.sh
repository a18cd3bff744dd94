#!/usr/bin/env bash
# Check that every Neuralgentics patch for the checkout's source layout is applied to an OpenCode
# checkout (patches/*.patch for packages/tui, patches/legacy-tui-layout/*.patch before it).
#   scripts/verify.sh OPENCODE_CHECKOUT
# Exit 0 when all are applied; 1 naming each patch (and file) that is not.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
patches_dir="${PATCHES_DIR:-$here/patches}"

if [ $# -ne 1 ]; then
  echo "usage: $0 OPENCODE_CHECKOUT" >&2
  exit 2
fi
checkout="$1"
[ -d "$checkout" ] || { echo "error: $checkout is not a directory" >&2; exit 2; }
. "$here/scripts/patch-layout.sh"
patch_layout "$checkout" "$patches_dir" || exit 2
echo "layout: $layout"
shopt -s nullglob
patches=("$layout_dir"/*.patch)
[ ${#patches[@]} -gt 0 ] || { echo "error: no patches in $layout_dir" >&2; exit 2; }
# A checkout inside another git work tree must not make git apply paths relative to that one.
export GIT_CEILING_DIRECTORIES="$(cd "$checkout/.." && pwd)"
cd "$checkout"

missing=0
for p in "${patches[@]}"; do
  name="$(basename "$p")"
  files="$(sed -n 's|^+++ b/||p' "$p" | tr '\n' ' ')"
  if git apply --check --reverse "$p" >/dev/null 2>&1; then
    echo "ok: $name ($files)"
  else
    echo "NOT APPLIED: $name ($files) — run scripts/apply-patches.sh $checkout" >&2
    missing=1
  fi
done
exit "$missing"

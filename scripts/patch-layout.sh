# Sourced by apply-patches.sh and verify.sh: which patches fit an OpenCode checkout.
# Upstream moved the TUI sources: the patches for each source layout live in their own folder.
#   packages/tui/src/                   (OpenCode 1.18.x: opencode-ai 1.18.33 is built from it)  patches/
#   packages/opencode/src/cli/cmd/tui/  (earlier)                                                patches/legacy-tui-layout/
# Sets: layout (a description) and layout_dir (the folder of patches for it). PATCHES_DIR
# overrides the root folder (the tests use it).
patch_layout() {
  local checkout="$1" root="$2"
  if [ -d "$checkout/packages/tui/src" ]; then
    layout="packages/tui (OpenCode 1.18 source layout)"
    layout_dir="$root"
  elif [ -d "$checkout/packages/opencode/src/cli/cmd/tui" ]; then
    layout="packages/opencode/src/cli/cmd/tui (the layout before the TUI moved to packages/tui)"
    layout_dir="$root/legacy-tui-layout"
  else
    echo "error: $checkout has neither packages/tui/src nor packages/opencode/src/cli/cmd/tui:" \
         "not an OpenCode checkout, or a source layout these patches were not made for" \
         "(docs/NEURALGENTICS_PATCHES.md)" >&2
    return 2
  fi
}

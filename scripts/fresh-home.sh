# Sourced by scripts/test.sh under CI=true or NEURALGENTICS_TEST_FRESH=1: run as on a fresh
# machine. HOME and the XDG dirs move to a new temporary directory ($scratch, removed on exit),
# so nothing an earlier run left in ~/.config, ~/.cache or ~/.local (the model cache, tokens,
# OpenCode state) is found; NEURALGENTICS_MODEL_CACHE is dropped. pip's and npm's download
# caches and user config stay where they are, named explicitly: they only make the install
# faster and say where the registries are. tests/test_fresh_home.py checks this file.

scratch=$(mktemp -d -t neuralgentics-test-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
# Found while HOME is still the real one: the interpreter (a pyenv shim resolves through HOME),
# pip's and npm's download caches, and the user config of both.
if [ -z "${PYTHON:-}" ]; then
  for candidate in python3.11 python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then
      PYTHON=$("$candidate" -c 'import sys; print(sys.executable)') && break
    fi
  done
fi
export PYTHON
export PIP_CACHE_DIR="${PIP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pip}"
for conf in "${XDG_CONFIG_HOME:-$HOME/.config}/pip/pip.conf" "$HOME/.pip/pip.conf"; do
  if [ -z "${PIP_CONFIG_FILE:-}" ] && [ -f "$conf" ]; then export PIP_CONFIG_FILE="$conf"; fi
done
if command -v npm >/dev/null 2>&1; then
  npm_config_cache=$(npm config get cache)
  export npm_config_cache
  if [ -z "${npm_config_userconfig:-}" ] && [ -f "$HOME/.npmrc" ]; then
    export npm_config_userconfig="$HOME/.npmrc"
  fi
fi
export HOME="$scratch/home"
export XDG_CONFIG_HOME="$HOME/.config" XDG_CACHE_HOME="$HOME/.cache"
export XDG_DATA_HOME="$HOME/.local/share" XDG_STATE_HOME="$HOME/.local/state"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME"
unset NEURALGENTICS_MODEL_CACHE
echo "test.sh: fresh machine: HOME=$HOME (pip cache $PIP_CACHE_DIR${npm_config_cache:+, npm cache $npm_config_cache})" >&2

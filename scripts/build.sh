#!/usr/bin/env bash
# Build the release artefacts: the neuralgentics wheel (with the OpenCode plugin inside) and
# a type check of the plugin. Output goes to dist/ (DIST_DIR overrides).
#   scripts/build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
dist="${DIST_DIR:-dist}"
py="${PYTHON:-.venv/bin/python}"
[ -x "$py" ] || py="$(command -v python3)"
mkdir -p "$dist"

echo "== plugin: type check"
tsc=node_modules/.bin/tsc
if [ ! -x "$tsc" ]; then
  echo "error: $tsc is missing; run: npm install (scripts/install.sh --test does)" >&2
  exit 1
fi
"$tsc" -p tests/opencode/tsconfig.json

echo "== wheel"
# No build isolation: the build backend (setuptools) is already in the environment, and
# building must work without reaching a package index.
"$py" -m pip wheel --disable-pip-version-check -q --no-deps --no-build-isolation -w "$dist" .
version="$("$py" -c 'import tomllib; print(tomllib.load(open("pyproject.toml","rb"))["project"]["version"])')"
wheel="$dist/neuralgentics-$version-py3-none-any.whl"
[ -f "$wheel" ] || { echo "error: expected $wheel" >&2; exit 1; }
"$py" - "$wheel" <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
need = ["neuralgentics/opencode/plugin/neuralgentics.ts", "neuralgentics/cli.py"]
missing = [n for n in need if n not in names]
if missing:
    sys.exit(f"error: {sys.argv[1]} lacks {', '.join(missing)}")
PY
echo "built $wheel"

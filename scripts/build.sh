#!/usr/bin/env bash
# Build the release artefacts: the neuralgentics wheel and sdist (with the OpenCode plugins
# inside) and a type check of the plugin. Output goes to dist/ (DIST_DIR overrides).
#   scripts/build.sh
# Offline: no build isolation, so the environment needs setuptools>=77 (scripts/install.sh
# --test installs it).
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

echo "== wheel, sdist"
# No build isolation: the build backend (setuptools) is already in the environment, and
# building must work without reaching a package index.
"$py" - <<'PY' || { echo "error: building needs setuptools>=77 in $py: $py -m pip install 'setuptools>=77'" >&2; exit 1; }
import setuptools, sys
from packaging.version import Version
sys.exit(Version(setuptools.__version__) < Version("77"))
PY
version="$(bash scripts/version.sh)"
# The backend's own hooks, as `pip wheel --no-build-isolation` calls them: the same wheel,
# without pip's start-up and its separate metadata pass (~3 s less).
"$py" -c 'import sys; from setuptools import build_meta; build_meta.build_wheel(sys.argv[1])' "$dist" >/dev/null
"$py" -c 'import sys; from setuptools import build_meta; build_meta.build_sdist(sys.argv[1])' "$dist" >/dev/null
wheel="$dist/neuralgentics-$version-py3-none-any.whl"
sdist="$dist/neuralgentics-$version.tar.gz"
for f in "$wheel" "$sdist"; do [ -f "$f" ] || { echo "error: expected $f" >&2; exit 1; }; done
"$py" - "$wheel" <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
need = ["neuralgentics/opencode/plugin/neuralgentics.ts", "neuralgentics/opencode/plugin/neuralgentics-brand.tsx",
        "neuralgentics/opencode/plugin/ng/tools.ts", "neuralgentics/opencode/plugin/ng/protocol.ts",
        "neuralgentics/cli.py"]
missing = [n for n in need if n not in names]
if missing:
    sys.exit(f"error: {sys.argv[1]} lacks {', '.join(missing)}")
PY
echo "built $wheel $sdist"

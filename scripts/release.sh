#!/usr/bin/env bash
# Tag a release and build its artefacts (nothing is pushed or uploaded).
#   scripts/release.sh VERSION        e.g. scripts/release.sh 0.2.0
# Refuses a dirty work tree, a VERSION that is not pyproject.toml's, and an existing tag.
# Writes to dist/: the wheel, SHA256SUMS, and release.json in the GitHub-releases shape that
# `neuralgentics update` reads (upload the wheel and point NEURALGENTICS_RELEASES_URL at it).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 1 ]; then
  echo "usage: $0 VERSION" >&2
  exit 2
fi
version="${1#v}"
py="${PYTHON:-.venv/bin/python}"
[ -x "$py" ] || py="$(command -v python3)"
declared="$("$py" -c 'import tomllib; print(tomllib.load(open("pyproject.toml","rb"))["project"]["version"])')"
if [ "$version" != "$declared" ]; then
  echo "error: VERSION $version is not pyproject.toml's version ($declared); bump it and commit first" >&2
  exit 2
fi
if [ -n "$(git status --porcelain)" ]; then
  echo "error: the work tree has uncommitted changes; commit or remove them first" >&2
  exit 2
fi
if git rev-parse -q --verify "refs/tags/v$version" >/dev/null; then
  echo "error: tag v$version already exists" >&2
  exit 2
fi
bash scripts/build.sh
dist="${DIST_DIR:-dist}"
wheel="neuralgentics-$version-py3-none-any.whl"
(cd "$dist" && sha256sum "$wheel" > SHA256SUMS)
sha="$(cut -d' ' -f1 "$dist/SHA256SUMS")"
"$py" - "$dist" "$version" "$wheel" "$sha" <<'PY'
import json, sys
dist, version, wheel, sha = sys.argv[1:]
release = {"tag_name": f"v{version}", "name": f"Neuralgentics {version}", "draft": False, "prerelease": False,
           "assets": [{"name": wheel, "browser_download_url": wheel, "digest": f"sha256:{sha}"}]}
open(f"{dist}/release.json", "w").write(json.dumps(release, indent=2) + "\n")
PY
git tag -a "v$version" -m "Neuralgentics $version"
echo "tagged v$version; artefacts in $dist: $wheel, SHA256SUMS, release.json"

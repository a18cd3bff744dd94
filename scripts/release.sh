#!/usr/bin/env bash
# Tag a release and build its artefacts (nothing is pushed or uploaded).
#   scripts/release.sh VERSION        e.g. scripts/release.sh 0.2.0
# Refuses: a VERSION that is not the tree's (src/neuralgentics/__init__.py), a dirty work tree,
# an existing tag, and a CHANGELOG.md without a "## VERSION" section (its notes are the release's).
# Writes to dist/ (DIST_DIR overrides), the shape `neuralgentics update` reads:
#   neuralgentics-VERSION-py3-none-any.whl, neuralgentics-VERSION.tar.gz
#   SHA256SUMS         sha256 of the wheel and the sdist (`sha256sum -c SHA256SUMS`)
#   RELEASE_NOTES.md   the CHANGELOG.md section of VERSION
#   release.json       the release feed: {tag_name, name, body, assets: [{name, browser_download_url,
#                      digest}]}, asset URLs relative to release.json itself
# Publish: copy dist/ to any static host and set the releases URL to .../release.json
# (docs/opencode.md, "Updates").
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 1 ]; then
  echo "usage: $0 VERSION" >&2
  exit 2
fi
version="${1#v}"
py="${PYTHON:-.venv/bin/python}"
[ -x "$py" ] || py="$(command -v python3)"
declared="$(bash scripts/version.sh)"
if [ "$version" != "$declared" ]; then
  echo "error: VERSION $version is not the tree's version ($declared, src/neuralgentics/__init__.py); bump it and commit first" >&2
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
dist="${DIST_DIR:-dist}"
notes="$("$py" - "$version" <<'PY'
import re, sys
from pathlib import Path
version = sys.argv[1]
path = Path("CHANGELOG.md")
if not path.exists():
    sys.exit("error: CHANGELOG.md is missing: release notes come from its '## %s' section" % version)
# "## 0.2.0", "## [0.2.0]", "## v0.2.0", each optionally followed by " - date"
heading = re.compile(r"^## \[?v?" + re.escape(version) + r"\]?(\s|$)")
lines, out, inside = path.read_text("utf-8").splitlines(), [], False
for line in lines:
    if line.startswith("## "):
        if inside:
            break
        inside = bool(heading.match(line))
        continue
    if inside:
        out.append(line)
text = "\n".join(out).strip()
if not text:
    sys.exit(f"error: CHANGELOG.md has no '## {version}' section with entries: move the 'Unreleased' entries under it and commit")
print(text)
PY
)" || exit 2
mkdir -p "$dist"
rm -f "$dist"/neuralgentics-*.whl "$dist"/neuralgentics-*.tar.gz "$dist"/SHA256SUMS "$dist"/RELEASE_NOTES.md "$dist"/release.json
DIST_DIR="$dist" bash scripts/build.sh
wheel="neuralgentics-$version-py3-none-any.whl"
sdist="neuralgentics-$version.tar.gz"
(cd "$dist" && sha256sum "$wheel" "$sdist" > SHA256SUMS)
printf '%s\n' "$notes" > "$dist/RELEASE_NOTES.md"
"$py" - "$dist" "$version" "$wheel" "$sdist" <<'PY'
import hashlib, json, sys
from pathlib import Path
dist, version, *files = sys.argv[1:]
dist = Path(dist)
def asset(name):
    return {"name": name, "browser_download_url": name,
            "digest": "sha256:" + hashlib.sha256((dist / name).read_bytes()).hexdigest()}
release = {"tag_name": f"v{version}", "name": f"Neuralgentics {version}", "draft": False, "prerelease": False,
           "body": (dist / "RELEASE_NOTES.md").read_text("utf-8"),
           "assets": [asset(f) for f in files] + [asset("SHA256SUMS"), asset("RELEASE_NOTES.md")]}
(dist / "release.json").write_text(json.dumps(release, indent=2) + "\n")
PY
git tag -a "v$version" -m "Neuralgentics $version" -m "$notes"
echo "tagged v$version; artefacts in $dist: $wheel, $sdist, SHA256SUMS, RELEASE_NOTES.md, release.json"

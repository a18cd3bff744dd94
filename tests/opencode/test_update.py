"""`neuralgentics update` against a local GitHub-releases-style server and a throwaway virtualenv."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from neuralgentics import __version__
from neuralgentics.opencode import cli as opencode_cli
from neuralgentics.opencode.update import UpdateError, check, installed_version, update


def make_wheel(directory: Path, version: str) -> Path:
    """A minimal, valid `neuralgentics` wheel (one marker module) for pip to install."""
    name = f"neuralgentics-{version}-py3-none-any.whl"
    dist = f"neuralgentics-{version}.dist-info"
    files = {
        "neuralgentics_release_marker.py": f"VERSION = {version!r}\n",
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: neuralgentics\nVersion: {version}\n",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    record.append(f"{dist}/RECORD,,")
    files[f"{dist}/RECORD"] = "\n".join(record) + "\n"
    out = directory / name
    with zipfile.ZipFile(out, "w") as z:
        for path, text in files.items():
            z.writestr(path, text)
    return out


class Releases:
    """Serves /releases/latest (JSON, set by the test) and /download/<file> from a folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.latest: Any = {}
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                if self.path == "/releases/latest":
                    body = json.dumps(outer.latest).encode()
                    ctype = "application/json"
                elif self.path.startswith("/download/") and (outer.folder / self.path[10:]).is_file():
                    body = (outer.folder / self.path[10:]).read_bytes()
                    ctype = "application/octet-stream"
                else:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return self.base + "/releases/latest"

    def publish(self, version: str, *, digest: str | None = None, wheel: bool = True) -> None:
        assets = []
        if wheel:
            w = make_wheel(self.folder, version)
            sha = digest or hashlib.sha256(w.read_bytes()).hexdigest()
            assets.append({"name": w.name, "browser_download_url": f"{self.base}/download/{w.name}",
                           "digest": f"sha256:{sha}"})
        self.latest = {"tag_name": f"v{version}", "html_url": f"{self.base}/tag/v{version}", "assets": assets,
                       "draft": False, "prerelease": False}


@pytest.fixture
def releases(tmp_path: Path) -> Iterator[Releases]:
    folder = tmp_path / "assets"
    folder.mkdir()
    r = Releases(folder)
    yield r
    r.server.shutdown()
    r.server.server_close()


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A throwaway virtualenv with neuralgentics 0.1.0 (a plain, non-editable install)."""
    root = tmp_path_factory.mktemp("update-venv")
    base = getattr(sys, "_base_executable", sys.executable)
    has_pip = subprocess.run([base, "-c", "import pip"], capture_output=True).returncode == 0
    # Borrowing the base interpreter's pip saves ~15 s of ensurepip; neuralgentics itself is
    # not in the base site-packages, so the venv starts without it either way.
    args = ["--without-pip", "--system-site-packages"] if has_pip else []
    subprocess.run([base, "-m", "venv", *args, str(root / "venv")], check=True, timeout=300)
    py = str(root / "venv" / "bin" / "python")
    assert subprocess.run([py, "-c", "import neuralgentics"], capture_output=True).returncode != 0
    wheel = make_wheel(root, "0.1.0")
    subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index", str(wheel)],
                   check=True, timeout=300)
    return py


def reset(py: str) -> None:
    wheel = make_wheel(Path(py).parents[2], "0.1.0")
    subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index",
                    "--force-reinstall", str(wheel)], check=True, timeout=300)


def test_update_installs_the_newer_release_in_place(venv_python: str, releases: Releases) -> None:
    reset(venv_python)
    releases.publish("0.2.0")
    st = check(releases.url, venv_python)
    assert st.available and str(st.installed) == "0.1.0" and str(st.latest.version) == "0.2.0"
    assert update(releases.url, venv_python) == "updated 0.1.0 -> 0.2.0"
    assert str(installed_version(venv_python)) == "0.2.0"
    assert update(releases.url, venv_python) == "already up to date (0.2.0)"


def test_update_refuses_to_downgrade(venv_python: str, releases: Releases) -> None:
    reset(venv_python)
    releases.publish("0.0.9")
    with pytest.raises(UpdateError, match="refusing to downgrade: installed 0.1.0, latest release 0.0.9"):
        update(releases.url, venv_python)
    assert str(installed_version(venv_python)) == "0.1.0"


def test_a_wheel_that_does_not_match_its_digest_is_not_installed(venv_python: str, releases: Releases) -> None:
    reset(venv_python)
    releases.publish("0.3.0", digest="0" * 64)
    with pytest.raises(UpdateError, match="sha256 does not match"):
        update(releases.url, venv_python)
    assert str(installed_version(venv_python)) == "0.1.0"


def test_uncommitted_local_patches_block_the_update(venv_python: str, releases: Releases, tmp_path: Path) -> None:
    reset(venv_python)
    repo = tmp_path / "checkout"
    (repo / "patches").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "patches" / "local.patch").write_text("diff --git a/x b/x\n")
    releases.publish("0.2.0")
    with pytest.raises(UpdateError, match=r"local patches are not committed .*patches/"):
        update(releases.url, venv_python, repo=repo)
    assert str(installed_version(venv_python)) == "0.1.0"


def test_unapplied_patches_in_the_opencode_checkout_block_the_update(
    venv_python: str, releases: Releases, tmp_path: Path
) -> None:
    import shutil

    reset(venv_python)
    checkout = tmp_path / "opencode"
    shutil.copytree(Path(__file__).parent / "fixtures" / "opencode-tree", checkout)
    releases.publish("0.2.0")
    with pytest.raises(UpdateError, match="not applied to the OpenCode checkout"):
        update(releases.url, venv_python, opencode_checkout=checkout)
    assert str(installed_version(venv_python)) == "0.1.0"


def test_editable_source_checkout_is_not_replaced(releases: Releases) -> None:
    # this test process runs from the repository's editable install
    releases.publish("99.0.0")
    with pytest.raises(UpdateError, match="editable source checkout"):
        update(releases.url)


def test_bad_release_feeds_are_clear_errors(releases: Releases) -> None:
    releases.latest = {"name": "no tag here"}
    with pytest.raises(UpdateError, match="no release with a version tag"):
        check(releases.url)
    with pytest.raises(UpdateError, match="cannot read releases"):
        check(releases.base + "/missing")


def test_cli_check_reports_what_is_available(releases: Releases) -> None:
    app = typer.Typer()
    app.command("noop")(lambda: None)
    opencode_cli.register(app)
    releases.publish("99.1.0", wheel=False)
    res = CliRunner().invoke(app, ["update", "--check", "--releases-url", releases.url])
    assert res.exit_code == 0 and f"99.1.0 is available (installed {__version__})" in res.output
    releases.publish(__version__, wheel=False)
    res = CliRunner().invoke(app, ["update", "--check", "--releases-url", releases.url])
    assert res.exit_code == 0 and f"up to date ({__version__})" in res.output

"""The local release server (the only fake besides the LLM), wheels and throwaway virtualenvs for
the `neuralgentics update` tests."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


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
        digest = (
            base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        )
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    record.append(f"{dist}/RECORD,,")
    files[f"{dist}/RECORD"] = "\n".join(record) + "\n"
    out = directory / name
    with zipfile.ZipFile(out, "w") as z:
        for path, text in files.items():
            z.writestr(path, text)
    return out


class Releases:
    """The local release server (the only fake besides the LLM): /releases/latest (JSON set by
    the test), /download/<file> from a folder, /feed/<path> from a release's dist/ folder, and
    /simple/neuralgentics/ (a PEP 503 package index) over the wheels in `index_dir`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.latest: Any = {}
        self.feed_dir: Path | None = None
        self.index_dir: Path | None = None
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def send(self, body: bytes, ctype: str) -> None:
                self.send_response(200)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802
                path = self.path.split("?")[0]
                if path == "/releases/latest":
                    return self.send(json.dumps(outer.latest).encode(), "application/json")
                for prefix, folder in (
                    ("/download/", outer.folder),
                    ("/feed/", outer.feed_dir),
                    ("/simple/neuralgentics/", outer.index_dir),
                ):
                    if folder is not None and path.startswith(prefix):
                        name = path[len(prefix) :]
                        if name == "" and prefix.startswith("/simple"):
                            links = "".join(
                                f'<a href="{w.name}">{w.name}</a>\n'
                                for w in sorted(folder.glob("*.whl"))
                            )
                            return self.send(
                                f"<html><body>{links}</body></html>".encode(), "text/html"
                            )
                        if name and "/" not in name and (folder / name).is_file():
                            return self.send(
                                (folder / name).read_bytes(), "application/octet-stream"
                            )
                self.send_error(404)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        # shutdown() waits for the loop to look at its flag: every 0.5 s by default
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    @property
    def url(self) -> str:
        return self.base + "/releases/latest"

    def publish(self, version: str, *, digest: str | None = None, wheel: bool = True) -> None:
        assets = []
        if wheel:
            w = make_wheel(self.folder, version)
            sha = digest or hashlib.sha256(w.read_bytes()).hexdigest()
            assets.append(
                {
                    "name": w.name,
                    "browser_download_url": f"{self.base}/download/{w.name}",
                    "digest": f"sha256:{sha}",
                }
            )
        self.latest = {
            "tag_name": f"v{version}",
            "html_url": f"{self.base}/tag/v{version}",
            "assets": assets,
            "draft": False,
            "prerelease": False,
        }


class Kept:
    """A directory a module makes once (a virtualenv with a release installed, a checkout
    installed editable into one) and each test gets afresh: ``restore()`` puts back, at the same
    path, the copy ``keep()`` took right after it was made. The same path, because a
    virtualenv's scripts and an editable install name it. A test that writes into it (an
    update) leaves nothing for the next."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.copy = path.with_name(path.name + ".kept")

    def keep(self) -> None:
        shutil.copytree(self.path, self.copy, symlinks=True)

    def restore(self) -> None:
        shutil.rmtree(self.path)
        shutil.copytree(self.copy, self.path, symlinks=True)


def new_venv(root: Path) -> str:
    """A throwaway virtualenv without neuralgentics; its python. It sees the base interpreter's
    packages and borrows its pip (saves ~15 s of ensurepip)."""
    base = getattr(sys, "_base_executable", sys.executable)
    has_pip = subprocess.run([base, "-c", "import pip"], capture_output=True).returncode == 0
    args = ["--without-pip", "--system-site-packages"] if has_pip else []
    subprocess.run([base, "-m", "venv", *args, str(root)], check=True, timeout=300)
    py = str(root / "bin" / "python")
    assert subprocess.run([py, "-c", "import neuralgentics"], capture_output=True).returncode != 0
    return py

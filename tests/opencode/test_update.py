"""`neuralgentics update` against a local release server and a throwaway virtualenv, with small
hand-made wheels (the feed logic); test_update_real.py upgrades between wheels built from this tree."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from release_support import Kept, Releases, make_wheel, new_venv
from typer.testing import CliRunner

from neuralgentics import __version__
from neuralgentics.opencode import cli as opencode_cli
from neuralgentics.opencode.update import UpdateError, check, installed_version, update


@pytest.fixture
def releases(tmp_path: Path) -> Iterator[Releases]:
    folder = tmp_path / "assets"
    folder.mkdir()
    r = Releases(folder)
    yield r
    r.server.shutdown()
    r.server.server_close()


@pytest.fixture(scope="module")
def kept_venv(tmp_path_factory: pytest.TempPathFactory) -> Kept:
    """A throwaway virtualenv with neuralgentics 0.1.0 (a plain, non-editable install), made once."""
    root = tmp_path_factory.mktemp("update-venv")
    py = new_venv(root / "venv")
    wheel = make_wheel(root, "0.1.0")
    subprocess.run(
        [py, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index", str(wheel)],
        check=True,
        timeout=300,
    )
    kept = Kept(root / "venv")
    kept.keep()
    return kept


@pytest.fixture
def venv_python(kept_venv: Kept) -> str:
    """That virtualenv as it was made (0.1.0), whatever an earlier test installed into it."""
    kept_venv.restore()
    return str(kept_venv.path / "bin" / "python")


def test_update_installs_the_newer_release_in_place(venv_python: str, releases: Releases) -> None:
    releases.publish("0.2.0")
    st = check(releases.url, venv_python)
    assert st.available and str(st.installed) == "0.1.0" and str(st.latest.version) == "0.2.0"
    assert update(releases.url, venv_python) == "updated 0.1.0 -> 0.2.0"
    assert str(installed_version(venv_python)) == "0.2.0"
    assert update(releases.url, venv_python) == "already up to date (0.2.0)"


def test_update_refuses_to_downgrade(venv_python: str, releases: Releases) -> None:
    releases.publish("0.0.9")
    with pytest.raises(
        UpdateError, match="refusing to downgrade: installed 0.1.0, latest release 0.0.9"
    ):
        update(releases.url, venv_python)
    assert str(installed_version(venv_python)) == "0.1.0"


def test_a_wheel_that_does_not_match_its_digest_is_not_installed(
    venv_python: str, releases: Releases
) -> None:
    releases.publish("0.3.0", digest="0" * 64)
    with pytest.raises(UpdateError, match="sha256 does not match"):
        update(releases.url, venv_python)
    assert str(installed_version(venv_python)) == "0.1.0"


def test_uncommitted_local_patches_block_the_update(
    venv_python: str, releases: Releases, tmp_path: Path
) -> None:
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
    from upstream_trees import build_tree

    checkout = build_tree("packages-tui@0d58cadd", tmp_path / "opencode")
    releases.publish("0.2.0")
    with pytest.raises(UpdateError, match="not applied to the OpenCode checkout"):
        update(releases.url, venv_python, opencode_checkout=checkout)
    assert str(installed_version(venv_python)) == "0.1.0"


def test_bad_release_feeds_are_clear_errors(releases: Releases) -> None:
    releases.latest = {"name": "no tag here"}
    with pytest.raises(UpdateError, match="no release with a version tag"):
        check(releases.url)
    with pytest.raises(UpdateError, match="cannot read releases"):
        check(releases.base + "/missing")
    with pytest.raises(UpdateError, match="cannot read .*nowhere.json"):
        check("/nowhere.json")


def test_without_a_configured_feed_update_says_what_to_set(monkeypatch: pytest.MonkeyPatch) -> None:
    from neuralgentics.config import Settings

    monkeypatch.delenv("NEURALGENTICS_RELEASES_URL", raising=False)
    with pytest.raises(
        UpdateError, match="no release feed is configured: set NEURALGENTICS_RELEASES_URL"
    ):
        check(Settings().releases_url)
    monkeypatch.setenv("NEURALGENTICS_RELEASES_URL", "/nowhere/release.json")
    with pytest.raises(UpdateError, match="cannot read /nowhere/release.json"):
        check(Settings().releases_url)


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

"""A project is its repository (issue 28, finding 3): the key `opencode install` writes, the
project credential bound to it, the move of an older plugin's folder-name memories, and what
`doctor` says. Real git repositories, real installs in an isolated home, the real SQLite store."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path

import pytest

from neuralgentics import project_credentials
from neuralgentics.app.process import shared_embedder
from neuralgentics.config import Settings
from neuralgentics.memini.service import MemoryService
from neuralgentics.memini.store.base import MemoryFilter
from neuralgentics.memini.store.sqlite import SQLiteStore
from neuralgentics.opencode.doctor import check_project_key
from neuralgentics.opencode.installer import install, uninstall
from neuralgentics.opencode.project_key import normalise_remote, project_key


def _repo(path: Path, remote: str | None = None, commit: bool = False) -> Path:
    path.mkdir(parents=True)
    git = ["git", "-C", str(path), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    if remote:
        subprocess.run([*git, "remote", "add", "origin", remote], check=True)
    if commit:
        (path / "README").write_text(str(path))
        subprocess.run([*git, "add", "README"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "first"], check=True)
    return path


def _options(project: Path) -> dict:
    doc = json.loads((project / "opencode.json").read_text())
    return next(p[1] for p in doc["plugin"] if isinstance(p, list))


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("git@github.com:Acme/api.git", "github.com/Acme/api"),
        ("https://user:secret@GitHub.com/Acme/api.git/", "github.com/Acme/api"),
        ("ssh://git@github.com:22/Acme/api", "github.com/Acme/api"),
        ("/srv/git/api.git", None),
        ("file:///srv/git/api.git", None),
    ],
)
def test_remote_urls_normalise_to_one_key_per_repository(url: str, key: str | None) -> None:
    assert normalise_remote(url) == key


def test_same_folder_name_different_repositories_different_keys(tmp_path: Path) -> None:
    a = _repo(tmp_path / "clients" / "acme" / "api", "git@github.com:acme/api.git")
    b = _repo(tmp_path / "Downloads" / "evil" / "api", commit=True)
    c = tmp_path / "plain" / "api"
    c.mkdir(parents=True)
    keys = [project_key(p) for p in (a, b, c)]
    assert keys[0].key == "git:github.com/acme/api" and keys[0].source == "remote"
    assert keys[1].key.startswith("commit:") and keys[1].source == "first-commit"
    assert keys[2].key == f"path:{c.resolve()}"
    assert {k.display for k in keys} == {"api"}


def test_install_binds_a_private_credential_to_the_repository(project: Path) -> None:
    s = Settings()
    install(s, project, broker="http")
    options = _options(project)
    assert options["project"] == f"path:{project.resolve()}" and options["project_name"] == "proj"
    credential = Path(options["credential_file"].replace("~", str(Path.home()), 1))
    assert stat.S_IMODE(credential.stat().st_mode) == 0o600
    token = credential.read_text().strip()
    # the project holds no token; the server side only its hash
    assert not [p for p in project.rglob("*") if p.is_file() and token.encode() in p.read_bytes()]
    registry = project_credentials.registry_path(s)
    assert token not in registry.read_text() and stat.S_IMODE(registry.stat().st_mode) == 0o600
    (entry,) = project_credentials.load(s)
    assert entry.project == options["project"]
    # the slash commands a person types to confirm or reject as the user
    command = (project / ".opencode" / "command" / "memory-confirm.md").read_text()
    assert "memory confirm $ARGUMENTS" in command
    assert check_project_key(s, options, "reinstall").status == "ok"
    uninstall(s, project)
    assert project_credentials.load(s) == [] and not credential.exists()


def test_doctor_fails_when_two_installs_share_a_key(tmp_path: Path, isolated_env) -> None:
    s = Settings()
    one = _repo(tmp_path / "one" / "api", "https://github.com/acme/api")
    two = _repo(tmp_path / "two" / "api", "git@github.com:acme/api.git")
    install(s, one, broker="http")
    install(s, two, broker="http")
    check = check_project_key(s, _options(one), "reinstall")
    assert check.status == "fail" and "2 installs" in check.detail


def test_install_moves_the_folder_name_memories_once_and_never_merges(
    tmp_path: Path, isolated_env, embedder
) -> None:
    s = Settings()
    store = SQLiteStore(s.sqlite_path)
    svc = MemoryService(store, embedder, s)
    svc.add("The api uses port 9000.", project="api", detection="off")
    svc.add("Session note.", project="api", scope="session", session="x", detection="off")
    repo = _repo(tmp_path / "work" / "api", "git@github.com:acme/api.git")
    report = install(s, repo, broker="http")
    assert any("moved 2 memories from the folder-name project 'api'" in n for n in report.notes)
    moved = store.list_memories(MemoryFilter(project="git:github.com/acme/api"))[0]
    assert [m.content for m in moved] == ["The api uses port 9000."]
    # another repository of that folder name: its older memories are left where they are
    svc.add("The other api uses port 7000.", project="api", detection="off")
    other = _repo(tmp_path / "elsewhere" / "api", "https://github.com/other/api")
    report = install(s, other, broker="http")
    assert any("left 1 memories under the folder name 'api'" in n for n in report.notes)
    assert store.list_memories(MemoryFilter(project="git:github.com/other/api"))[1] == 0
    store.close()


@pytest.fixture(scope="module")
def embedder():
    return shared_embedder()

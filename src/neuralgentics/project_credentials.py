"""Project credentials: what the OpenCode plugin holds instead of the owner token (issue 28).

`neuralgentics opencode install` makes one per install, bound to that repository's project key
(opencode/project_key.py). The token goes to a 0600 file next to the installed plugin (outside
the repository; the plugin reads it on each call); memini-core keeps only its SHA-256, in
``<config_dir>/project-credentials.json`` (0600), read again whenever that file changes. A
request with it is that project's agent (memini/provenance.py): it writes only in its
project and (quarantined) the user's scope, supersedes and gives feedback only on memories its
project owns, and calls only the routes the plugin needs. `neuralgentics opencode credential
list|rotate|revoke` manage them.
"""

from __future__ import annotations

import hmac
import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from neuralgentics.config import Settings
from neuralgentics.credentials import CredentialError, Principal, new_token, token_hash
from neuralgentics.filemodes import FILE_MODE, atomic_write, private_dir

FILE = "project-credentials.json"


@dataclass(frozen=True)
class ProjectCredential:
    label: str  # one per install: the installed plugin's folder name
    project: str  # the project key it is bound to
    hash: str
    created_at: str
    token_file: str  # where the plugin reads the token


def registry_path(settings: Settings) -> Path:
    return settings.config_dir / FILE


def load(settings: Settings) -> list[ProjectCredential]:
    path = registry_path(settings)
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise CredentialError(f"cannot read {path}: {exc}") from None
    try:
        return [ProjectCredential(**entry) for entry in data.get("credentials", [])]
    except TypeError as exc:
        raise CredentialError(f"{path}: not a project credential list ({exc})") from None


def _save(settings: Settings, entries: list[ProjectCredential]) -> None:
    path = registry_path(settings)
    private_dir(path.parent)
    body = json.dumps({"version": 1, "credentials": [asdict(e) for e in entries]}, indent=2)
    atomic_write(path, body + "\n", mode=FILE_MODE)


def _write_token(path: Path, token: str) -> None:
    private_dir(path.parent)
    atomic_write(path, token + "\n", mode=FILE_MODE)


def issue(settings: Settings, *, label: str, project: str, token_file: Path) -> ProjectCredential:
    """A new credential for `project` under `label` (replacing the label's old one: rotation),
    its token written to `token_file` (0600)."""
    if not project:
        raise CredentialError("a project credential needs a project key")
    token = new_token()
    entry = ProjectCredential(
        label=label,
        project=project,
        hash=token_hash(token),
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        token_file=str(token_file),
    )
    _write_token(token_file, token)
    _save(settings, [e for e in load(settings) if e.label != label] + [entry])
    return entry


def rotate(settings: Settings, label: str) -> ProjectCredential:
    """A new token for the credential `label` (same project, same file); the old one stops
    working at once."""
    found = next((e for e in load(settings) if e.label == label), None)
    if found is None:
        raise CredentialError(f"no project credential labelled {label!r} (see `credential list`)")
    return issue(settings, label=label, project=found.project, token_file=Path(found.token_file))


def revoke(settings: Settings, label: str) -> ProjectCredential:
    """Forget the credential `label` and delete its token file: the plugin using it gets 401."""
    entries = load(settings)
    found = next((e for e in entries if e.label == label), None)
    if found is None:
        raise CredentialError(f"no project credential labelled {label!r} (see `credential list`)")
    _save(settings, [e for e in entries if e.label != label])
    Path(found.token_file).unlink(missing_ok=True)
    return found


class Authenticator:
    """For ``HTTPGuard(authenticate=...)``: a project credential's token -> its principal. The
    registry is read again when its file changes, so issue/rotate/revoke take effect on the
    next request without a restart."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._stamp: tuple[int, int] | None = None
        self._entries: list[ProjectCredential] = []

    def _current(self) -> list[ProjectCredential]:
        path = registry_path(self.settings)
        try:
            st = path.stat()
        except FileNotFoundError:
            self._stamp, self._entries = None, []
            return []
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp != self._stamp:
            try:
                self._entries = load(self.settings)
            except CredentialError:
                self._entries = []  # a broken registry lets no project credential in
            self._stamp = stamp
        return self._entries

    def __call__(self, token: str) -> Principal | None:
        digest = token_hash(token)
        found: ProjectCredential | None = None
        for entry in self._current():
            # every entry compared in constant time: which one matched is not timed out
            if hmac.compare_digest(entry.hash, digest):
                found = entry
        if found is None:
            return None
        return Principal(owner=False, label=f"project:{found.label}", project=found.project)

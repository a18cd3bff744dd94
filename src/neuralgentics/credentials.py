"""The local credential: one bearer token shared by the CLI, the plugin and the served processes.

Loopback is not a trust boundary (other users and processes on the machine reach it too), so
memini-core and the broker's HTTP front always require a token when served. It is
``NEURALGENTICS_TOKEN`` when that is set; otherwise a random token kept in
``<config_dir>/token``, created on first need by whatever serves or installs (mode 0600 in a
0700 directory) and read by every client. Nothing else needs configuring.

Extra tokens bound to one broker role (``neuralgentics broker token add --role R``) are kept
only as hashes (:func:`token_hash`) in the broker config; see ``broker/role_tokens.py``.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from neuralgentics import errors
from neuralgentics.config import Settings
from neuralgentics.filemodes import distrust, home_relative

TOKEN_FILE = "token"
# 32 random bytes, URL-safe base64 (43 characters): no character a shell or a header mangles.
_TOKEN_BYTES = 32


class CredentialError(errors.InvalidConfig):
    """The token file cannot be read or created; the message says what to fix."""


@dataclass(frozen=True, slots=True)
class Principal:
    """Who an authenticated HTTP request comes from.

    ``owner``: the local credential (NEURALGENTICS_TOKEN or the token file) — may assert any
    role and run admin operations. Otherwise a token bound to ``role``, which it cannot leave.
    ``label`` names the credential in audit records (never the token itself).
    ``project``: a project credential's project key (project_credentials.py): its holder is
    that project's agent in memini-core (memini/provenance.py), never the owner.
    """

    owner: bool
    role: str | None = None
    label: str = "owner"
    project: str | None = None


OWNER = Principal(owner=True)


def token_path(settings: Settings) -> Path:
    return settings.config_dir / TOKEN_FILE


def token_location(settings: Settings) -> str:
    """Where a person finds the credential: the variable, or the file (``~/…`` when under home)."""
    if settings.token:
        return "NEURALGENTICS_TOKEN"
    return home_relative(token_path(settings))


def new_token() -> str:
    return secrets.token_urlsafe(_TOKEN_BYTES)


def token_hash(token: str) -> str:
    """What is stored for a role token. A plain SHA-256 is enough here: the tokens are 256-bit
    random values, so there is nothing to brute-force that a slow hash would protect."""
    return "sha256:" + hashlib.sha256(token.encode()).hexdigest()


def same_token(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())


def _read(path: Path) -> str | None:
    if path.parent.exists() and (why := distrust(path, "token file")) is not None:
        raise CredentialError(why)
    try:
        text = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CredentialError(f"cannot read the token file {path}: {exc.strerror}") from None
    if not text:
        raise CredentialError(f"the token file {path} is empty: delete it and a new one is created")
    return text


def _check_private(path: Path) -> None:
    """A token file other users can read is no credential: refuse it rather than serve with it."""
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise CredentialError(
            f"the token file {path} is readable by other users (mode {stat.S_IMODE(mode):o}); "
            f"run `chmod 600 {path}`, or delete it to get a new one"
        )


def _create(path: Path) -> str:
    """Write a new token atomically: a temp file (0600 from the start) renamed into place, so a
    reader never sees a half-written token, and two processes starting at once keep one token."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)  # mkdir's mode is masked by umask, and the dir may pre-exist
    token = new_token()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".token.", suffix=".tmp")  # 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(token + "\n")
            f.flush()
            os.fsync(f.fileno())
        # link() fails when the file appeared meanwhile: the other process's token wins.
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
    finally:
        Path(tmp).unlink(missing_ok=True)
    found = _read(path)
    assert found is not None
    return found


def ensure_token(settings: Settings) -> str:
    """The owner token, creating the token file when there is none (serve, up, install)."""
    s = settings
    if s.token:
        return s.token
    path = token_path(s)
    found = _read(path)
    if found is None:
        return _create(path)
    _check_private(path)
    return found


def client_token(settings: Settings) -> str | None:
    """The owner token for a client, or None when none exists yet (no service was ever served
    from this config dir). Never creates one: a client has nothing to protect."""
    s = settings
    if s.token:
        return s.token
    return _read(token_path(s))


def auth_headers(settings: Settings) -> dict[str, str]:
    token = client_token(settings)
    return {"Authorization": f"Bearer {token}"} if token else {}


def with_token(settings: Settings) -> Settings:
    """``settings`` with the owner token filled in: what a served process runs with."""
    return settings.model_copy(update={"token": ensure_token(settings)})

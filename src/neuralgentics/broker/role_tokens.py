"""Role-bound bearer tokens: credentials for HTTP clients other than the owner.

The owner token (``credentials.ensure_token``) may assert any role and run admin operations.
A token added here is bound to one role: its holder acts as that role and cannot claim
another, and it never runs admin operations. Only the token's SHA-256 is kept, in the broker
config (``tokens:``); the token itself is shown once, when it is made.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from pathlib import Path

from neuralgentics.broker.config import (
    BrokerConfig,
    ConfigError,
    TokenConfig,
    config_from,
    load_config,
    save_config,
)
from neuralgentics.credentials import Principal, new_token, token_hash


def principal_of(config: BrokerConfig, token: str) -> Principal | None:
    """The role principal ``token`` stands for in ``config``, or None."""
    digest = token_hash(token)
    found: TokenConfig | None = None
    for t in config.tokens:
        # Every entry compared, in constant time: which one matched is not timed out.
        if hmac.compare_digest(t.hash, digest):
            found = t
    if found is None:
        return None
    return Principal(owner=False, role=found.role, label=f"token:{found.label}")


def authenticator(config: Callable[[], BrokerConfig]) -> Callable[[str], Principal | None]:
    """For ``HTTPGuard(authenticate=...)``: reads the broker's config at each request, so a
    token added or removed takes effect on the next reload."""
    return lambda token: principal_of(config(), token)


def _load(path: Path | str) -> tuple[Path, BrokerConfig]:
    p = Path(path)
    return p, load_config(p, missing_ok=True)


def add_token(role: str, label: str, path: Path | str) -> str:
    """Make a token bound to ``role``, store its hash under ``label``; return the token."""
    p, config = _load(path)
    if any(t.label == label for t in config.tokens):
        raise ConfigError(f"tokens: a token labelled {label!r} already exists (remove it first)")
    if role not in config.roles:
        known = ", ".join(sorted(config.roles)) or "none"
        raise ConfigError(f"tokens: role {role!r} is not one of the roles in {p} ({known})")
    token = new_token()
    data = config.model_dump(mode="json")
    data["tokens"].append({"label": label, "role": role, "hash": token_hash(token)})
    save_config(config_from(data, str(p)), p)  # validated again as it is written
    return token


def remove_token(label: str, path: Path | str) -> TokenConfig:
    p, config = _load(path)
    kept = [t for t in config.tokens if t.label != label]
    if len(kept) == len(config.tokens):
        raise ConfigError(f"tokens: no token labelled {label!r} in {p}")
    gone = next(t for t in config.tokens if t.label == label)
    save_config(config.model_copy(update={"tokens": kept}), p)
    return gone


def list_tokens(path: Path | str) -> list[TokenConfig]:
    return list(_load(path)[1].tokens)

"""On-disk tool lists, so reading the catalog never cold-starts a server.

One JSON file per server under ``<NEURALGENTICS_HOME>/broker/tools/``, stamped with a hash of
the server's launch config: change the command, args, env, url or headers and the entry no
longer matches (``load`` returns None) until the server is listed again. Fields that do not
change what a server offers (summary, timeouts) are left out of the hash. Only the hash is
stored, never the config itself: env and headers may hold secrets (unexpanded ``${VAR}``
references are hashed as written; their values never reach the disk).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mcp.types import Tool
from pydantic import BaseModel, ValidationError

from neuralgentics.filemodes import FILE_MODE, atomic_write

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
# ServerConfig fields that do not change what tools/list returns.
_NOT_IDENTITY = frozenset(
    {
        "summary",
        "idle_timeout",
        "call_timeout",
        "start_timeout",
        "restart_backoff",
        "first_class",
        "expose",
        "sandbox",  # the same server, confined or not: existing listings stay valid
    }
)
_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def config_hash(server_config: BaseModel | Mapping[str, Any]) -> str:
    """Stable hash of what makes a server the server it is."""
    data = (
        server_config.model_dump(mode="json")
        if isinstance(server_config, BaseModel)
        else dict(server_config)
    )
    identity = {k: v for k, v in data.items() if k not in _NOT_IDENTITY}
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


def entry_path(directory: Path, server: str) -> Path:
    """One server's file in a cache directory."""
    # Server names are validated by the config (letters, digits, _ - .); be safe anyway.
    return directory / f"{_SAFE.sub('_', server)}.json"


def read_entry(
    path: Path, server: str, server_config: BaseModel | Mapping[str, Any], what: str
) -> dict[str, Any] | None:
    """A cache file's JSON object, or None when absent, unreadable, of another format version,
    of another server or stamped with another config (``what`` names the cache in the log)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("%s %s is unreadable (%s); ignoring it", what, path, exc)
        return None
    if (
        not isinstance(data, dict)
        or data.get("version") != FORMAT_VERSION
        or data.get("server") != server
        or data.get("config_hash") != config_hash(server_config)
    ):
        return None
    return data


def write_entry(
    path: Path, server: str, server_config: BaseModel | Mapping[str, Any], key: str, value: Any
) -> Path:
    """Write one server's stamped entry (``value`` under ``key``) atomically (temp file +
    rename): readers see the old entry or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "version": FORMAT_VERSION,
        "server": server,
        "config_hash": config_hash(server_config),
        "saved_at": time.time(),
        key: value,
    }
    atomic_write(path, json.dumps(payload, ensure_ascii=False), mode=FILE_MODE)
    return path


class ToolListCache:
    """load / save / invalidate one server's tools/list result."""

    def __init__(self, directory: Path | str) -> None:
        # the broker's: <data dir>/broker/tools
        self.directory = Path(directory)

    def _path(self, server: str) -> Path:
        return entry_path(self.directory, server)

    def load(self, server: str, server_config: BaseModel | Mapping[str, Any]) -> list[Tool] | None:
        """The cached tools, or None when absent, stale (config changed) or unreadable."""
        path = self._path(server)
        data = read_entry(path, server, server_config, "tool cache")
        if data is None:
            return None
        try:
            return [Tool.model_validate(t) for t in data.get("tools", [])]
        except ValidationError as exc:
            log.warning("tool cache %s holds invalid tools (%s); ignoring it", path, exc)
            return None

    def saved_at(self, server: str) -> float | None:
        try:
            return float(json.loads(self._path(server).read_text(encoding="utf-8"))["saved_at"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def save(
        self, server: str, server_config: BaseModel | Mapping[str, Any], tools: Sequence[Tool]
    ) -> Path:
        """Write atomically (temp file + rename): readers see the old list or the new one."""
        tool_list = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
        return write_entry(self._path(server), server, server_config, "tools", tool_list)

    def invalidate(self, server: str | None = None) -> None:
        """Forget one server's list (e.g. on list_changed), or every list when server is None."""
        if server is not None:
            self._path(server).unlink(missing_ok=True)
            return
        if self.directory.is_dir():
            for path in self.directory.glob("*.json"):
                path.unlink(missing_ok=True)

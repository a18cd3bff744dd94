"""On-disk resource, template and prompt lists, beside the tool lists (`catalog.cache`).

Same rules: one JSON file per server under ``<NEURALGENTICS_HOME>/broker/content/``, stamped
with the hash of the server's launch config (a changed entry no longer matches), written
atomically, and never holding the config itself.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from neuralgentics.broker.catalog.cache import _SAFE, config_hash
from neuralgentics.broker.client.content import ServerContent

log = logging.getLogger(__name__)

FORMAT_VERSION = 1


class ContentCache:
    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)

    def _path(self, server: str) -> Path:
        return self.directory / f"{_SAFE.sub('_', server)}.json"

    def load(
        self, server: str, server_config: BaseModel | Mapping[str, Any]
    ) -> ServerContent | None:
        path = self._path(server)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.warning("content cache %s is unreadable (%s); ignoring it", path, exc)
            return None
        if (
            not isinstance(data, dict)
            or data.get("version") != FORMAT_VERSION
            or data.get("server") != server
            or data.get("config_hash") != config_hash(server_config)
            or not isinstance(data.get("content"), dict)
        ):
            return None
        try:
            return ServerContent.from_json(data["content"])
        except (ValidationError, TypeError) as exc:
            log.warning("content cache %s holds invalid entries (%s); ignoring it", path, exc)
            return None

    def save(
        self, server: str, server_config: BaseModel | Mapping[str, Any], content: ServerContent
    ) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        payload = {
            "version": FORMAT_VERSION,
            "server": server,
            "config_hash": config_hash(server_config),
            "saved_at": time.time(),
            "content": content.to_json(),
        }
        path = self._path(server)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(payload, f, ensure_ascii=False)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

"""On-disk resource, template and prompt lists, beside the tool lists (`catalog.cache`).

Same rules: one JSON file per server under ``<NEURALGENTICS_HOME>/broker/content/``, stamped
with the hash of the server's launch config (a changed entry no longer matches), written
atomically, and never holding the config itself.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from neuralgentics.broker.catalog.cache import entry_path, read_entry, write_entry
from neuralgentics.broker.client.listings import ServerContent

log = logging.getLogger(__name__)


class ContentCache:
    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)

    def load(
        self, server: str, server_config: BaseModel | Mapping[str, Any]
    ) -> ServerContent | None:
        path = entry_path(self.directory, server)
        data = read_entry(path, server, server_config, "content cache")
        if data is None or not isinstance(data.get("content"), dict):
            return None
        try:
            return ServerContent.from_json(data["content"])
        except (ValidationError, TypeError) as exc:
            log.warning("content cache %s holds invalid entries (%s); ignoring it", path, exc)
            return None

    def save(
        self, server: str, server_config: BaseModel | Mapping[str, Any], content: ServerContent
    ) -> Path:
        path = entry_path(self.directory, server)
        return write_entry(path, server, server_config, "content", content.to_json())

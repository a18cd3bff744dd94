"""Moving memories between stores and machines: `export_lines` writes a store's memories (ids,
content, embeddings, trust history, relationships) as JSON Lines, `import_file` reads them back
into any store in one transaction. The CLI (`memory export` / `memory import`) and the HTTP
routes (`GET /memory/export`, `POST /memory/import`) call these same functions.

The names load on first use: every `neuralgentics memory …` command imports this package's
`cli` module, and the format's numpy and pydantic models cost about a second of start-up that
only export and import need."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from neuralgentics.memini.portability.exporter import export_lines
    from neuralgentics.memini.portability.importer import (
        BadImportFile,
        ImportConflicts,
        ImportReport,
        import_file,
    )

_WHERE = {
    "export_lines": "exporter",
    "BadImportFile": "importer",
    "ImportConflicts": "importer",
    "ImportReport": "importer",
    "import_file": "importer",
}

__all__ = ["BadImportFile", "ImportConflicts", "ImportReport", "export_lines", "import_file"]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

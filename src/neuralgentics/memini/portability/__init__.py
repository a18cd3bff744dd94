"""Moving memories between stores and machines: `export_lines` writes a store's memories (ids,
content, embeddings, trust history, relationships) as JSON Lines, `import_file` reads them back
into any store in one transaction. The CLI (`memory export` / `memory import`) and the HTTP
routes (`GET /memory/export`, `POST /memory/import`) call these same functions."""

from neuralgentics.memini.portability.exporter import export_lines
from neuralgentics.memini.portability.importer import (
    BadImportFile,
    ImportConflicts,
    ImportReport,
    import_file,
)

__all__ = ["BadImportFile", "ImportConflicts", "ImportReport", "export_lines", "import_file"]

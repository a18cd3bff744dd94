"""``neuralgentics broker import``: bring servers already configured for another MCP client.

- :func:`default_paths` / :func:`read_source` — the four config shapes (sources.py)
- :func:`convert` — one entry as a broker entry, secrets as ``${VAR}`` references (convert.py)
- :func:`plan_import` / :func:`apply_import` / :func:`remove_from_opencode` (plan.py)
"""

from neuralgentics.broker.importer.convert import Converted, SecretRef, convert
from neuralgentics.broker.importer.plan import (
    Candidate,
    Plan,
    Removal,
    apply_import,
    plan_import,
    remove_from_opencode,
)
from neuralgentics.broker.importer.sources import (
    Source,
    SourceError,
    default_paths,
    read_source,
)

__all__ = [
    "Candidate",
    "Converted",
    "Plan",
    "Removal",
    "SecretRef",
    "Source",
    "SourceError",
    "apply_import",
    "convert",
    "default_paths",
    "plan_import",
    "read_source",
    "remove_from_opencode",
]

"""The routing matrix as data the OpenCode plugin applies itself while memini-core is down.

The matrix is rules, not a service: the roster, each task type's primary, forbidden agents and
keyword rules. The installer writes this document into the plugin's options (`routing`), so a
delegation the matrix forbids is refused with the services stopped too (fail closed). The
plugin (ng/routing.ts) scores the keyword rules exactly as `TaskClassifier` does with
similarity off (the model is not in the plugin) and checks the agent as `Router.check` does.
"""

from __future__ import annotations

from neuralgentics.orchestrator.classify import Weights
from neuralgentics.orchestrator.config import OrchestratorConfig

# Bumped when the document's shape changes: a plugin that reads another version ignores it.
VERSION = 1


def local_matrix(config: OrchestratorConfig) -> dict:
    """The merged roster and matrix (built-in, user and project layers), keyword rules only."""
    w = Weights()
    return {
        "version": VERSION,
        "agents": list(config.agents),
        "keyword": w.keyword,
        "keyword_cap": w.keyword_cap,
        "temperature": w.temperature,
        "ambiguity_margin": w.ambiguity_margin,
        "types": [
            {
                "id": t.id,
                "label": t.label,
                "primary": t.primary,
                "forbidden": list(t.forbidden),
                "keywords": [[k.pattern, k.weight] for k in t.keywords],
            }
            for t in config.task_types.values()
        ],
    }


__all__ = ["VERSION", "local_matrix"]

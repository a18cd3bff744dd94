"""The orchestrator: routing matrix, skills, context packages and the 8-step Boomerang protocol.

`service.Orchestrator` is the one object the CLI and the HTTP routes call; importing this
package loads nothing else, so a caller that needs only skills (`skills`) stays light.

What other areas may use is ``__all__`` below (``tests/test_layers.py`` refuses an import of
anything else from another area); each name loads on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from neuralgentics.lazy import lazy_getattr

if TYPE_CHECKING:
    from neuralgentics.orchestrator.config import load_config
    from neuralgentics.orchestrator.errors import RosterError
    from neuralgentics.orchestrator.local_matrix import local_matrix as local_routing_matrix
    from neuralgentics.orchestrator.protocol import stalled
    from neuralgentics.orchestrator.routing import FALLBACK_AGENT
    from neuralgentics.orchestrator.task_store import TaskStore

# name -> the submodule that defines it ("module:attr" where the public name differs: the
# function local_matrix shares its module's name, which the import system would bind here)
_WHERE = {
    "FALLBACK_AGENT": "routing",
    "RosterError": "errors",
    "TaskStore": "task_store",
    "load_config": "config",
    "local_routing_matrix": "local_matrix:local_matrix",
    "stalled": "protocol",
}

__getattr__ = lazy_getattr(__name__, _WHERE)

__all__ = [
    "FALLBACK_AGENT",
    "RosterError",
    "TaskStore",
    "load_config",
    "local_routing_matrix",
    "stalled",
]

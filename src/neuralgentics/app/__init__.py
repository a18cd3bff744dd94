"""The composition root: the one place that builds the objects of a process and wires them.

Settings → stores → services → routers. `core.create_app` assembles memini-core's HTTP app
(memory, project index, orchestrator, dashboard) from the areas' module-level routers and hands
each its objects through FastAPI dependencies; `broker` composes the broker (its embedder,
intent cache and the skills it offers); `serve` and `up` run them. Areas never import this
package; entry points (`neuralgentics.cli`, the areas' `cli.py`) do.

Importing this package loads nothing: `from neuralgentics.app import create_app` loads the app.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from neuralgentics.app.core import create_app

        return create_app
    raise AttributeError(name)


__all__ = ["create_app"]
